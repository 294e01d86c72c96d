"""Numbers read from text: ASCII digits only.

Python's ``int()``, ``float()`` and ``str.isdigit()`` take far more than a
query string, a form field, a file or the environment ever means by a
number: other scripts' digits (``"٣"``, ``"३"``, fullwidth ``"３"``),
superscripts (``"³"`` passes ``isdigit()`` and then fails ``int()``),
underscores (``int("1_000")``), surrounding white space, ``"nan"`` and
``"inf"``, and thousands of digits (``int()`` refuses more than 4,300 with a
ValueError). Every place that reads a number from text uses
:func:`whole_number` or :func:`decimal_number`.
"""

from __future__ import annotations

import math
import re

# [0-9], never \d (which matches every script's digits); at most 18 digits,
# so the value fits a 64-bit integer and int() never meets a huge string.
_WHOLE = re.compile(r"[0-9]{1,18}")
_SIGNED = re.compile(r"-?[0-9]{1,18}")


# Optionally signed, digits with an optional fraction (or a fraction alone), an optional
# exponent of at most three digits: what a form or query means by a decimal number.
_DECIMAL = re.compile(r"-?(?:[0-9]{1,18}(?:\.[0-9]{0,18})?|\.[0-9]{1,18})(?:[eE][-+]?[0-9]{1,3})?")


def whole_number(text: object, *, signed: bool = False) -> int | None:
    """``text`` as an int when it is 1 to 18 ASCII digits (with ``signed``,
    optionally after a ``-``), and nothing else; otherwise None.

    >>> whole_number("42"), whole_number("٣"), whole_number("³"), whole_number("9" * 5000)
    (42, None, None, None)
    """
    if not isinstance(text, str):
        return None
    return int(text) if (_SIGNED if signed else _WHOLE).fullmatch(text) else None


def decimal_number(text: object) -> float | None:
    """``text`` as a finite float when it is a decimal number in ASCII digits
    (``-0.5``, ``.25``, ``1e-3``), and nothing else; otherwise None.

    >>> decimal_number("0.5"), decimal_number("1e-3"), decimal_number("٠٫٥"), decimal_number("nan")
    (0.5, 0.001, None, None)
    >>> decimal_number("1e999"), decimal_number("1_0"), decimal_number(" 1")
    (None, None, None)
    """
    if not isinstance(text, str) or not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None
