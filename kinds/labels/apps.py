from __future__ import annotations

from kinds.apps import KindApp
from kinds.spec import KindSpec


class LabelsApp(KindApp):
    default = True
    name = "kinds.labels"
    label = "kind_labels"

    def load_spec(self) -> KindSpec:
        # Imported once Django is ready: the spec's modules use the models.
        from kinds.labels.spec import SPEC

        return SPEC
