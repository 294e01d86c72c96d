from __future__ import annotations

from kinds.apps import KindApp
from kinds.spec import KindSpec


class RelevanceApp(KindApp):
    default = True
    name = "kinds.relevance"
    label = "kind_relevance"

    def load_spec(self) -> KindSpec:
        # Imported once Django is ready: the spec's modules use the models.
        from kinds.relevance.spec import SPEC

        return SPEC
