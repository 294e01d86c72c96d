"""Safe file writing for exports."""

from __future__ import annotations

import csv
import io
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

# A spreadsheet runs a cell that starts with one of these as a formula
# (OWASP "CSV injection"); tab and carriage return start one in some too.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(cell: Any) -> Any:
    """What goes into a cell of every export: the one place that decides.

    Numbers (Python's, numpy's, Decimal) are Concord's own results and are
    written as numbers, a negative one included (``-0.0214``); None is an
    empty cell. Anything else is text, possibly a user's, and text that a
    spreadsheet would run as a formula gets a ``'`` in front. So a value
    that must stay a number is passed as a number: never format numbers
    into text (an interval is two cells, low and high).
    """
    if cell is None:
        return ""
    if isinstance(cell, numbers.Number):
        return cell
    text = cell if isinstance(cell, str) else str(cell)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def write_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([neutralise(h) for h in header])
    for row in rows:
        writer.writerow([neutralise(cell) for cell in row])
    return out.getvalue()
