"""Whole numbers read from text: ASCII digits only.

Python's ``int()`` and ``str.isdigit()`` take far more than a query string,
a form field, a file or the environment ever means by a number: other
scripts' digits (``"٣"``, ``"३"``, fullwidth ``"３"``), superscripts (``"³"``
passes ``isdigit()``), underscores (``int("1_000")``) and surrounding white
space. Every place that reads a number from text uses :func:`whole_number`.
"""

from __future__ import annotations

import re

# [0-9], never \d (which matches every script's digits); at most 18 digits,
# so the value fits a 64-bit integer and int() never meets a huge string.
_WHOLE = re.compile(r"[0-9]{1,18}")
_SIGNED = re.compile(r"-?[0-9]{1,18}")


def whole_number(text: object, *, signed: bool = False) -> int | None:
    """``text`` as an int when it is 1 to 18 ASCII digits (with ``signed``,
    optionally after a ``-``), and nothing else; otherwise None."""
    if not isinstance(text, str):
        return None
    return int(text) if (_SIGNED if signed else _WHOLE).fullmatch(text) else None
