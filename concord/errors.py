"""The project's one input error, in a core module with no project imports so
that core modules (concord.params) and apps alike can raise it.

``kinds.base.InvalidInput``
are this class; annotate/api/errors.py turns it into a 400
``{"detail", "field"}``.
"""

from __future__ import annotations


class InvalidInput(ValueError):
    """Bad input: ``field`` is the dotted path of what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
