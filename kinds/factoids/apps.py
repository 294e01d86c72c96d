from __future__ import annotations

from kinds.apps import KindApp
from kinds.spec import KindSpec


class FactoidsApp(KindApp):
    default = True
    name = "kinds.factoids"
    label = "kind_factoids"

    def load_spec(self) -> KindSpec:
        # Imported once Django is ready: the spec's modules use the models.
        from kinds.factoids.spec import SPEC

        return SPEC
