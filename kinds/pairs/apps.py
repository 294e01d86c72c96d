from __future__ import annotations

from kinds.apps import KindApp
from kinds.spec import KindSpec


class PairsApp(KindApp):
    default = True
    name = "kinds.pairs"
    label = "kind_pairs"

    def load_spec(self) -> KindSpec:
        # Imported once Django is ready: the spec's modules use the models.
        from kinds.pairs.spec import SPEC

        return SPEC
