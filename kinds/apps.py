"""The app config every kind's app derives from: it carries the kind's spec."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import AppConfig

if TYPE_CHECKING:
    from kinds.spec import KindSpec


class KindApp(AppConfig):
    """A kind's app. ``spec`` is loaded once Django is ready, since the spec's
    modules (reports, demo data) use the models."""

    default = False  # the base of the kinds' configs, never an app's own
    default_auto_field = "django.db.models.BigAutoField"
    spec: KindSpec

    def ready(self) -> None:
        self.spec = self.load_spec()
        if self.spec.name != self.name.rsplit(".", 1)[-1]:
            raise ValueError(f"{self.name}: its spec is named {self.spec.name!r}, not after its folder")

    def load_spec(self) -> KindSpec:
        raise NotImplementedError
