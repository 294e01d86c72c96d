"""Judgment kinds: one folder each, behind a typed KindSpec (kinds/spec.py).

``KIND_APPS`` is the registry, the one line to add for a new kind. Each kind
is a Django app, so its templates (``templates/<kind>/``), static files
(``static/<kind>/``) and management commands are found as any app's; the
settings list them in INSTALLED_APPS from here, and ``kinds.registry`` gives
their specs. This module imports nothing: the settings read it.
"""

KIND_APPS = (
    "kinds.labels",
    "kinds.pairs",
    "kinds.ordering",
    "kinds.clustering",
    "kinds.nuggets",
    "kinds.factoids",
    "kinds.relevance",
    "kinds.preference",
)
