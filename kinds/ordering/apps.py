from __future__ import annotations

from kinds.apps import KindApp
from kinds.spec import KindSpec


class OrderingApp(KindApp):
    default = True
    name = "kinds.ordering"
    label = "kind_ordering"

    def load_spec(self) -> KindSpec:
        # Imported once Django is ready: the spec's modules use the models.
        from kinds.ordering.spec import SPEC

        return SPEC
