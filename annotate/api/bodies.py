"""Bodies in and out of the API (REST_FRAMEWORK's default parsers and renderer).

- Every body is bounded by what its endpoint can use (:class:`BodyLimit`: a
  view's ``body_limit``, else ``SMALL_BODY_BYTES``), checked before it is
  parsed: by its Content-Length, then by the bytes actually read (a JSON
  body is read up to one byte past its limit, never further). Over it: 413
  ``{"detail", "field": "body"}``. The upload middleware's limit
  (concord.security, ``CONCORD_MAX_UPLOAD_BYTES``) is the ceiling of all.
- ``StrictJSONParser``: every JSON body goes through concord.jsonsafe.loads
  (UTF-8 only, no NUL or lone surrogate, finite numbers, depth 64, each key
  once per object, at most the endpoint's objects and lists); what it
  refuses is a 400 ``{"detail", "field"}`` naming the path in the body.
- ``StrictMultiPartParser``: the form fields sent with an upload carry no
  NUL (the files themselves are read by annotate.imports.read, line by line).
- ``SafeJSONRenderer``: answering can never fail on stored data. Data that
  cannot be written as UTF-8 JSON (a lone surrogate, a NaN, stored before
  it could be refused) is written with the surrogate escaped (``\\ud800``)
  and the number as null, instead of a 500 after the transaction committed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from rest_framework.parsers import BaseParser, MultiPartParser
from rest_framework.renderers import JSONRenderer

from concord import jsonsafe
from concord.errors import BodyTooLarge, InvalidInput
from concord.security import size_text

#: The body of an endpoint that declares no other limit: its fields are a few
#: ids, a version, a reason or comment of at most 2,000 characters (even
#: written as ``\uXXXX`` escapes, 24 KB), a campaign's params.
SMALL_BODY_BYTES = 64 * 2**10
#: A judgment's (or a gold's) body beyond its payload's limit: the other
#: fields, white space and ``\uXXXX`` escapes the payload's compact UTF-8
#: measure leaves out.
PAYLOAD_MARGIN_BYTES = 2**20
#: Objects and lists of a judgment's body that are no entry of a payload's
#: capped list: the body, the payload and its fixed fields.
FIXED_CONTAINERS = 64


@dataclass(frozen=True)
class BodyLimit:
    """The most a request body of an endpoint may be: ``bytes``, and at most
    ``containers`` objects and lists (None: as many as its bytes hold).
    ``what`` names the body in the 413's message."""

    bytes: int
    what: str = "a body of this endpoint"
    containers: int | None = None


def up_to_the_upload_limit(view: Any = None) -> BodyLimit:
    """A view's ``body_limit`` for uploads and imports (topics, runs, pools):
    the upload limit, read at each request."""
    return BodyLimit(settings.CONCORD_MAX_UPLOAD_BYTES, "an upload")


def payload_limit(kind: Any, what: str) -> BodyLimit:
    """The body carrying one payload of ``kind`` (a KindSpec): its kind's payload
    size (``Limits.payload_bytes``) plus ``PAYLOAD_MARGIN_BYTES``. Every object or
    list of a valid payload is the payload, one of its fixed fields, or an entry
    of one of its capped lists (``Limits.lists``), so the caps' sum bounds them
    (tests/hostile/test_hostile_bodies.py parses every kind's largest payload)."""
    limits = kind.data.limits
    entries = sum(cap for path, cap in limits.lists.items() if path.startswith("payload."))
    return BodyLimit(limits.payload_bytes + PAYLOAD_MARGIN_BYTES, what, containers=entries + FIXED_CONTAINERS)


def body_limit(parser_context: dict[str, Any] | None) -> BodyLimit:
    """The limit of the view the body is for: its ``body_limit`` (a BodyLimit, or a
    method returning one), else ``SMALL_BODY_BYTES``."""
    limit = getattr((parser_context or {}).get("view"), "body_limit", None)
    if callable(limit):
        limit = limit()
    return limit if isinstance(limit, BodyLimit) else BodyLimit(SMALL_BODY_BYTES)


def refuse_oversized(length: int, limit: BodyLimit) -> None:
    if length > limit.bytes:
        raise BodyTooLarge(
            f"The request body is {length:,} bytes; {limit.what} is at most {size_text(limit.bytes)} "
            f"({limit.bytes:,} bytes)."
        )


def declared_length(parser_context: dict[str, Any] | None) -> int:
    request = (parser_context or {}).get("request")
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
    except ValueError:
        return 0  # Django's WSGI handler reads nothing then


def read_within(stream: Any, limit: BodyLimit, parser_context: dict[str, Any] | None) -> bytes:
    """The body, refused (BodyTooLarge) by its Content-Length before anything is
    read, or as soon as one byte more than the limit has been read."""
    refuse_oversized(declared_length(parser_context), limit)
    raw = stream.read(limit.bytes + 1) if stream is not None else b""
    refuse_oversized(len(raw), limit)
    return raw


def _charset(media_type: str | None) -> str | None:
    for parameter in (media_type or "").split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"').lower()
    return None


class StrictJSONParser(BaseParser):
    """Not a subclass of DRF's JSONParser: DRF reads the whole body of one
    (``request.body``, up to the upload limit) before its ``parse`` is called.
    This one gets the request's stream unread."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        limit = body_limit(parser_context)
        raw = read_within(stream, limit, parser_context)
        charset = _charset(media_type)
        if charset is not None and charset not in ("utf-8", "utf8"):
            raise InvalidInput("body", f"Content-Type says charset={charset}: JSON is read as UTF-8 only")
        try:
            return jsonsafe.loads(raw, max_containers=limit.containers)
        except jsonsafe.InputError as error:
            message = f"not JSON: {error.message}" if error.syntax else error.message
            if error.line is not None:
                message += f" (line {error.line})"
            raise InvalidInput(error.path or "body", message) from None


class StrictMultiPartParser(MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        # Django's multipart parser reads no further than the Content-Length.
        refuse_oversized(declared_length(parser_context), body_limit(parser_context))
        parsed = super().parse(stream, media_type, parser_context)
        for key, values in parsed.data.lists():
            for value in (key, *values):
                problem = jsonsafe.problem_with(value)
                if problem:
                    raise InvalidInput(jsonsafe.shown(key), problem)
        return parsed


class SafeJSONRenderer(JSONRenderer):
    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except (UnicodeEncodeError, ValueError):
            # ASCII escapes cover lone surrogates; non-finite numbers become null.
            text = json.dumps(
                jsonsafe.finite_numbers(data),
                cls=self.encoder_class,
                ensure_ascii=True,
                allow_nan=False,
                separators=(",", ":"),
            )
            return text.encode("ascii")
