"""Strict JSON and text input: the one parser for every JSON body and file.

Python's own parser accepts what Concord can neither store nor answer:

- lone surrogates (``"\\ud800"``): not Unicode text, so they cannot be
  encoded as UTF-8 (the response fails) nor stored by PostgreSQL;
- NUL characters (``"\\u0000"``): PostgreSQL refuses them in text and JSON;
- ``NaN``, ``Infinity`` and numbers that overflow to infinity (``1e999``),
  which are not JSON and which no database stores as JSON;
- nesting a thousand levels deep, where its recursion fails;
- a key twice in one object (``{"a": 1, "a": 2}``), of which it keeps the
  last without a word: what a client meant is unknown.

``loads`` refuses all of them with the path of the value at fault
(``payload.matches.c7``, ``[0].data.query``): nesting beyond ``MAX_DEPTH``,
and more objects and lists than a caller allows (``max_containers``, the
costliest values to build: 27 bytes of memory per byte of ``[],``), are
found by a scan of the text before anything is parsed (no recursion), the
rest while parsing. JSON as bytes is UTF-8 only (RFC 8259, section 8.1; a
UTF-8 byte-order mark is ignored, as it allows): UTF-16 and UTF-32 are
refused. ``decode`` turns an uploaded text file into text: UTF-8 with or
without a byte-order mark, or UTF-16/32 with one (spreadsheets save
"Unicode text" so); anything else is refused as "not UTF-8", naming the
line.

No project imports: problems are raised as ``InputError``; the callers turn
them into their own errors (``concord.errors.InvalidInput``, a 400).
"""

from __future__ import annotations

import codecs
import json
import math
import re
from itertools import accumulate
from typing import Any

#: Nesting limit of a JSON document (objects and lists).
MAX_DEPTH = 64
#: Integers with more digits are refused (Python's own limit on converting
#: text to int, which otherwise fails with a ValueError).
MAX_INT_DIGITS = 4300


class InputError(ValueError):
    """``path``: where in the document (``""``: the document as a whole);
    ``line``: the line of the text, when that is what can be named;
    ``syntax``: True when the text is not JSON at all."""

    def __init__(self, path: str, message: str, *, line: int | None = None, syntax: bool = False) -> None:
        super().__init__(f"{path or 'document'}: {message}")
        self.path = path
        self.message = message
        self.line = line
        self.syntax = syntax


# -- text ---------------------------------------------------------------------

# What no response or database can take: NUL and lone surrogates.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def problem_with(text: str) -> str | None:
    """Why ``text`` cannot be stored or answered, or None."""
    match = _UNSTORABLE.search(text)
    if match is None:
        return None
    if match.group() == "\x00":
        return "contains a NUL character (\\u0000), which cannot be stored"
    return f"contains a lone surrogate ({shown(match.group())}): not Unicode text, it cannot be encoded as UTF-8"


def shown(text: str) -> str:
    """``text`` with NUL and lone surrogates written as ``\\uXXXX`` escapes (for paths and messages)."""
    return _UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def encodable(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, so it encodes as UTF-8.

    For answering text stored before it could be refused; keeps Django's
    safe-string marking."""
    if not re.search("[\ud800-\udfff]", text):
        return text
    cleaned = re.sub("[\ud800-\udfff]", "\ufffd", text)
    return cleaned if type(text) is str else type(text)(cleaned)  # a SafeString stays safe


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE, whose mark begins it
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode(raw: bytes | str) -> str:
    """Text from uploaded bytes: UTF-8 (a byte-order mark is dropped), or
    UTF-16/UTF-32 when a byte-order mark says so. Raises InputError naming
    the line for bytes that are not, and for NUL characters."""
    if isinstance(raw, str):
        text = raw
    else:
        encoding, start = "utf-8", 0
        for bom, name in _BOMS:
            if raw.startswith(bom):
                encoding, start = name, len(bom)
                break
        try:
            text = raw[start:].decode(encoding)
        except UnicodeDecodeError as error:
            where = raw[start : start + error.start]
            line = where.count("\n".encode(encoding)) + 1
            label = "UTF-8" if encoding == "utf-8" else encoding.upper()[:6]
            raise InputError(
                "", f"not {label} text (byte {start + error.start + 1}): save the file as UTF-8", line=line
            ) from None
    # Strict decoding leaves no lone surrogate: only a str can hold one.
    match = _UNSTORABLE.search(text) if isinstance(raw, str) or "\x00" in text else None
    if match is not None:
        line = text.count("\n", 0, match.start()) + 1
        if match.group() == "\x00" and _looks_like_utf16(text):
            raise InputError(
                "", "not UTF-8 text: it looks like UTF-16 without a byte-order mark; save it as UTF-8", line=line
            )
        raise InputError("", problem_with(text) or "", line=line)
    return text


def decode_utf8(raw: bytes) -> str:
    """Text from JSON bytes: UTF-8, with or without a byte-order mark (which is
    dropped). UTF-16 and UTF-32 are refused, by their byte-order mark or, without
    one, by their NUL bytes (:func:`decode`)."""
    for bom, name in _BOMS:
        if name != "utf-8" and raw.startswith(bom):
            label = name.upper().replace("-LE", " LE").replace("-BE", " BE")
            raise InputError("", f"{label} text (by its byte-order mark): JSON is read as UTF-8 only")
    return decode(raw)


def _looks_like_utf16(text: str) -> bool:
    """Every other character NUL, as ASCII text in UTF-16 without a byte-order mark gives."""
    sample = text[:512]
    return len(sample) >= 2 and max(sample[0::2].count("\x00"), sample[1::2].count("\x00")) * 2 >= len(sample) * 0.8


# -- JSON ---------------------------------------------------------------------

_BRACKETS_ONLY = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


#: The scan reads the text this much at a time, so that its pieces between quotes
#: (one object each) take memory in proportion to this, not to the text.
SCAN_CHUNK = 2**16


def check_structure(text: str, max_depth: int = MAX_DEPTH, max_containers: int | None = None) -> None:
    """Raise InputError if the JSON text nests deeper than ``max_depth``, or holds
    more than ``max_containers`` objects and lists (None: any number).

    A linear scan before anything is parsed, at the speed of str methods, a
    chunk at a time (no chunk ends inside a run of backslashes): escaped
    backslashes and quotes are dropped, the text outside strings is every
    other piece between quotes, and its brackets give the count and the
    depth. (In text that is not JSON the count may be off past the first
    error, but the parser stops at that error before it nests any deeper.)"""
    opening = text.count("[") + text.count("{")
    too_many = max_containers is not None and opening > max_containers
    if opening <= max_depth and not too_many:
        return
    containers, depth, inside, start = 0, 0, False, 0
    while start < len(text):
        end = min(start + SCAN_CHUNK, len(text))
        while end < len(text) and text[end - 1] == "\\":
            end += 1
        pieces = text[start:end].replace("\\\\", "").replace('\\"', "").split('"')
        brackets = _BRACKETS_ONLY.sub("", "".join(pieces[1 if inside else 0 :: 2]))
        inside ^= len(pieces) % 2 == 0
        start = end
        if too_many:
            containers += brackets.count("[") + brackets.count("{")
            if containers > max_containers:
                raise InputError("", f"more objects and lists than this body takes (at most {max_containers:,})")
        if opening > max_depth and brackets:
            levels = list(accumulate(map(_STEP.__getitem__, brackets), initial=depth))
            if max(levels) > max_depth:
                raise InputError("", f"nested deeper than {max_depth} levels (objects and lists)")
            depth = levels[-1]


class _Refused:
    """What the parser's hooks put in place of a value that is refused: a number,
    or an object with a repeated ``key`` (its path then ends with that key)."""

    __slots__ = ("key", "message")

    def __init__(self, message: str, key: str | None = None) -> None:
        self.message = message
        self.key = key


def loads(data: bytes | str, *, max_depth: int = MAX_DEPTH, max_containers: int | None = None) -> Any:
    """Parse a JSON document strictly (see the module's docstring); bytes are UTF-8."""
    text = (decode_utf8(data) if isinstance(data, bytes) else data).removeprefix("\ufeff")
    check_structure(text, max_depth, max_containers)
    refused: list[_Refused] = []

    def unique(pairs: list[tuple[str, Any]]) -> Any:
        found = dict(pairs)
        if len(found) == len(pairs):
            return found
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                break
            seen.add(key)
        refused.append(_Refused("appears twice in one object (JSON keys must be unique)", key=key))
        return refused[-1]

    def number(literal: str) -> Any:
        value = float(literal)
        if math.isfinite(value):
            return value
        refused.append(_Refused(f"{literal} is not a finite number (JSON numbers must be finite)"))
        return refused[-1]

    def integer(literal: str) -> Any:
        if len(literal.lstrip("-")) > MAX_INT_DIGITS:
            refused.append(_Refused(f"a number of {len(literal)} digits (at most {MAX_INT_DIGITS})"))
            return refused[-1]
        return int(literal)

    def constant(name: str) -> Any:
        refused.append(_Refused(f"{name} is not a finite number (JSON numbers must be finite)"))
        return refused[-1]

    try:
        try:
            value = json.loads(text, parse_float=number, parse_constant=constant, object_pairs_hook=unique)
        except json.JSONDecodeError:
            raise
        except ValueError:  # an integer too long for Python: parse again to name it
            value = json.loads(
                text, parse_float=number, parse_int=integer, parse_constant=constant, object_pairs_hook=unique
            )
    except json.JSONDecodeError as error:
        raise InputError("", f"line {error.lineno}, column {error.colno}: {error.msg}", syntax=True) from None
    except RecursionError:  # cannot happen after check_structure; never a 500 if it does
        raise InputError("", f"nested deeper than {max_depth} levels (objects and lists)") from None
    if refused or _maybe_unstorable(text, raw=isinstance(data, str)):
        _check_values(value)
    return value


def _maybe_unstorable(text: str, *, raw: bool) -> bool:
    """Whether parsing may have produced a NUL or a lone surrogate: an escape
    of one (or of a valid pair, or of U+D000..U+D7FF: told apart afterwards),
    or, in a str that never was UTF-8, the character itself."""
    if "\\u0000" in text or "\\ud" in text or "\\uD" in text:
        return True
    return raw and _UNSTORABLE.search(text) is not None


def _check_values(value: Any) -> None:
    """Raise InputError for the first refused number or unstorable string
    (key or value), in document order, naming its path."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _Refused):
            if item.key is not None:
                path = f"{path}.{shown(item.key)}" if path else shown(item.key)
            raise InputError(path, item.message)
        if isinstance(item, str):
            problem = problem_with(item)
            if problem:
                raise InputError(path, problem)
        elif isinstance(item, dict):
            children = []
            for key, inner in item.items():
                inner_path = f"{path}.{shown(key)}" if path else shown(key)
                problem = problem_with(key)
                if problem:
                    raise InputError(inner_path, f"the key {problem}")
                children.append((inner_path, inner))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            stack.extend((f"{path}[{index}]", inner) for index, inner in reversed(list(enumerate(item))))


def located(prefix: str, path: str) -> str:
    """A path inside something named ``prefix``: ``file[0].title``,
    ``file.topics[0]``, ``line 3: questions.1``; just ``prefix`` for the whole."""
    if not path:
        return prefix
    if not prefix:
        return path
    if prefix.startswith("line "):
        return f"{prefix}: {path}"
    return f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"


# -- answering stored data -------------------------------------------------------


def finite_numbers(value: Any) -> Any:
    """A copy of ``value`` with numbers that are not finite as None, so it can
    be written as JSON (for answering data stored before it could be refused)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite_numbers(inner) for key, inner in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_numbers(inner) for inner in value]
    return value
