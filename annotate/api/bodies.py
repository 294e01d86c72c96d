"""Bodies in and out of the API (REST_FRAMEWORK's default parsers and renderer).

- ``StrictJSONParser``: every JSON body goes through concord.jsonsafe.loads
  (UTF-8 only, no NUL or lone surrogate, finite numbers, depth 64); what it
  refuses is a 400 ``{"detail", "field"}`` naming the path in the body.
- ``StrictMultiPartParser``: the form fields sent with an upload carry no
  NUL (the files themselves are read by annotate.importers, line by line).
- ``SafeJSONRenderer``: answering can never fail on stored data. Data that
  cannot be written as UTF-8 JSON (a lone surrogate, a NaN, stored before
  it could be refused) is written with the surrogate escaped (``\\ud800``)
  and the number as null, instead of a 500 after the transaction committed.
"""

from __future__ import annotations

import json
from typing import Any

from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.renderers import JSONRenderer

from concord import jsonsafe
from concord.errors import InvalidInput


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        raw = stream.read() if stream is not None else b""
        try:
            return jsonsafe.loads(raw)
        except jsonsafe.InputError as error:
            message = f"not JSON: {error.message}" if error.syntax else error.message
            if error.line is not None:
                message += f" (line {error.line})"
            raise InvalidInput(error.path or "body", message) from None


class StrictMultiPartParser(MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None) -> Any:
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
