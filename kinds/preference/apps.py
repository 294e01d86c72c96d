from __future__ import annotations

from kinds.apps import KindApp
from kinds.spec import KindSpec


class PreferenceApp(KindApp):
    default = True
    name = "kinds.preference"
    label = "kind_preference"

    def load_spec(self) -> KindSpec:
        # Imported once Django is ready: the spec's modules use the models.
        from kinds.preference.spec import SPEC

        return SPEC
