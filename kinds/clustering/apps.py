from __future__ import annotations

from kinds.apps import KindApp
from kinds.spec import KindSpec


class ClusteringApp(KindApp):
    default = True
    name = "kinds.clustering"
    label = "kind_clustering"

    def load_spec(self) -> KindSpec:
        # Imported once Django is ready: the spec's modules use the models.
        from kinds.clustering.spec import SPEC

        return SPEC
