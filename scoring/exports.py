"""Safe file writing for exports."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

# A spreadsheet runs a cell that starts with one of these as a formula
# (OWASP "CSV injection"); tab and carriage return start one in some too.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(cell: Any) -> Any:
    """Prefix text that a spreadsheet would run as a formula with a quote.

    Numbers are left alone (they are written by us, not by a user).
    """
    if isinstance(cell, str) and cell.startswith(_FORMULA_STARTS):
        return "'" + cell
    return cell


def write_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([neutralise(h) for h in header])
    for row in rows:
        writer.writerow([neutralise(cell) for cell in row])
    return out.getvalue()
