"""Rows an import refuses, gathered for the import wizard's preview instead of refusing the file.

The readers and checks (annotate.imports.read, check, ratings) refuse a file at its first bad
row when they are given no :class:`Problems` (the API, the uploads page's forms, the management
commands: all or nothing). The wizard gives them one: each row they would refuse is left out of
what the import writes and counted here by what is wrong with it, the first few of each kind kept
with where and why, so that the preview lists everything the import would refuse and the
organiser chooses to leave those rows out (or to replace the judgments the campaign already has),
or cancels. What is gathered is bounded: counts, and ``SHOWN`` examples a kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from concord.errors import InvalidInput

#: The kinds of rows an import refuses, in the order the preview lists them, as it names them.
EXISTING, TOPIC, DUPLICATE, LABEL, JUDGMENT = "existing", "topic", "duplicate", "label", "judgment"
NAMES = {
    EXISTING: "judgments the campaign already has (the same assessor and topic)",
    TOPIC: "rows of topics the campaign does not have",
    DUPLICATE: "rows repeating a rating already in the file",
    LABEL: "labels outside the scale",
    JUDGMENT: "judgments the campaign's kind refuses",
}
#: Examples of each kind kept to show.
SHOWN = 20


@dataclass
class Problem:
    """One kind of refused rows: how many (ratings, labels or judgments as the file holds them)
    and the first ``SHOWN`` of them, each ``(where, why)``."""

    kind: str
    rows: int = 0
    examples: list[tuple[str, str]] = field(default_factory=list)
    #: Rows of the kind past its examples (an example may stand for several: a label's ratings).
    more: int = 0

    @property
    def name(self) -> str:
        return NAMES[self.kind]


class Problems:
    """The rows of one file an import refuses, gathered (module docstring). ``replace``: the
    judgments the campaign already has are to be replaced by the file's where they may be, so
    the checks keep those payloads (annotate.imports.check.Existing)."""

    def __init__(self, *, replace: bool = False) -> None:
        self.replace = replace
        self.kinds: dict[str, Problem] = {}

    def add(self, kind: str, where: str, why: str, rows: int = 1) -> None:
        problem = self.kinds.setdefault(kind, Problem(kind))
        problem.rows += rows
        if len(problem.examples) < SHOWN:
            problem.examples.append((where, why))
        else:
            problem.more += rows

    def rename(self, where: Callable[[str], str]) -> None:
        """Name every example's place again (a converted table's line as the file's own row)."""
        for problem in self.kinds.values():
            problem.examples = [(where(place), why) for place, why in problem.examples]

    def listed(self) -> list[Problem]:
        """The kinds found, in the preview's order."""
        return [self.kinds[kind] for kind in NAMES if kind in self.kinds]

    def rows(self, *, existing: bool = True) -> int:
        return sum(p.rows for p in self.kinds.values() if existing or p.kind != EXISTING)

    def __bool__(self) -> bool:
        return bool(self.kinds)


def refuse(problems: Problems | None, kind: str, where: str, why: str, rows: int = 1) -> None:
    """Refuse the file at this row (``problems`` None: InvalidInput naming ``where``), or gather
    the row as refused; the caller then leaves it out."""
    if problems is None:
        raise InvalidInput(where, why)
    problems.add(kind, where, why, rows)
