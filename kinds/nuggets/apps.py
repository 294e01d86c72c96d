from __future__ import annotations

from kinds.apps import KindApp
from kinds.spec import KindSpec


class NuggetsApp(KindApp):
    default = True
    name = "kinds.nuggets"
    label = "kind_nuggets"

    def load_spec(self) -> KindSpec:
        # Imported once Django is ready: the spec's modules use the models.
        from kinds.nuggets.spec import SPEC

        return SPEC
