"""The kinds' specs, in the order of ``kinds.KIND_APPS``.

Generic code reaches a kind only through :func:`get_kind` (or ``KINDS``),
which read the specs from the kinds' apps once Django is ready.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from django.apps import apps

from concord.errors import InvalidInput
from kinds.apps import KindApp
from kinds.spec import KindSpec

__all__ = ["KINDS", "get_kind"]


class _Registry(Mapping[str, KindSpec]):
    """kind name -> KindSpec, read from the installed kind apps when used."""

    def _specs(self) -> dict[str, KindSpec]:
        return {config.spec.name: config.spec for config in apps.get_app_configs() if isinstance(config, KindApp)}

    def __getitem__(self, name: str) -> KindSpec:
        return self._specs()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs())

    def __len__(self) -> int:
        return len(self._specs())


KINDS: Mapping[str, KindSpec] = _Registry()


def get_kind(name: object) -> KindSpec:
    """The spec of the kind ``name``; InvalidInput naming ``kind`` if there is none."""
    specs = KINDS
    if not isinstance(name, str) or name not in specs:
        raise InvalidInput("kind", f"unknown kind {name!r} (known: {', '.join(sorted(specs))})")
    return specs[name]
