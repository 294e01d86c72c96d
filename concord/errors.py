"""The project's one input error, in a core module with no project imports so
that core modules (concord.params) and apps alike can raise it.

``kinds.base.InvalidInput``
are this class; annotate/api/errors.py turns it into a 400
``{"detail", "field"}``, :class:`BodyTooLarge` into a 413 and
:class:`LimitReached` into a 429.
"""

from __future__ import annotations


class InvalidInput(ValueError):
    """Bad input: ``field`` is the dotted path of what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class BodyTooLarge(Exception):
    """A request body over its endpoint's limit (annotate.api.bodies), refused
    before it is parsed: answered 413 with ``{"detail", "field": "body"}``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class LimitReached(Exception):
    """A limit on what one user may take of what everyone shares (open flags,
    flags per hour, queued jobs): answered 429 with ``{"detail", "field"}`` and,
    when waiting helps, ``Retry-After: retry_after`` (seconds). Nothing was written."""

    def __init__(self, field: str, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.retry_after = retry_after
