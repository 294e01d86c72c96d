"""Incremental campaign reports: per-topic partial results and their merge.

A kind whose ``Reports`` gives ``partial``, ``merge`` and ``partial_type``
(kinds/spec.py) has its campaign report computed in two steps: each topic's
*partial* (what the campaign report needs of that topic: contingency counts,
per-unit figures, per-run scores; a dataclass the kind declares) is computed
when the topic changes and stored (:class:`scoring.models.TopicPartial`,
MessagePack, floats bit for bit); the campaign report is the kind's ``merge``
of every topic's stored partial, in topic order. A submission thus costs its
topic's report and partial plus the merge, which reads no judgment.

The same two steps give the report from scratch (:func:`from_scratch`, what
``Reports.campaign`` returns), so the incremental report equals a full
recompute exactly when every change that can alter a topic's partial marks
that topic stale: ``tests/scoring/test_incremental.py`` drives random
submissions, edits, reopenings and withdrawals on every kind to check it, and
``manage.py recompute_reports --full --check`` checks a real database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from annotate.models import Campaign, Run, Topic
from scoring.selectors import ReportInput

__all__ = ["MergeInput", "from_scratch", "merge_input"]


@dataclass(frozen=True)
class MergeInput:
    """What a kind's ``merge`` reads beside the partials: the campaign (its params),
    its topics in order (``id``, ``external_id``, ``position`` only: never read a
    topic's ``data`` in a merge, put what is needed of it in the partial) and its
    runs (read a run's per-topic data in ``partial``; a merge may read run names
    and run-level fields)."""

    campaign: Campaign
    topics: list[Topic]
    runs: list[Run]


def merge_input(input: ReportInput) -> MergeInput:
    return MergeInput(input.campaign, input.topics, input.runs)


def from_scratch(
    input: ReportInput,
    *,
    topic: Callable[[ReportInput, Topic], Any],
    partial: Callable[[ReportInput, Topic, Any], Any],
    merge: Callable[[MergeInput, Sequence[Any]], Any],
) -> Any:
    """The campaign report from every topic's fresh partial: what the stored
    partials must merge to. A kind's ``campaign_report(input)`` is this."""
    partials = [partial(input, t, topic(input, t)) for t in input.topics]
    return merge(merge_input(input), partials)


def differences(stored: Any, fresh: Any, *, tolerance: float = 1e-12, path: str = "report") -> list[str]:
    """Where two dumped reports (``concord.typed.dump``) differ: floats by more than
    ``tolerance`` (absolute, or relative to the larger), integers (counts) at all, None (an
    undefined figure) only where the other is None too, everything else exactly.

    >>> differences({"kappa": 0.5, "n": [1, 2]}, {"kappa": 0.5 + 1e-15, "n": [1, 3]})
    ['report.n[1]: 2 != 3']
    >>> differences({"a": None}, {"a": 0.0, "b": 1})
    ['report: keys differ: b', 'report.a: None != 0.0']
    >>> differences({"n": 10**13}, {"n": 10**13 + 1}, tolerance=1e-12)
    ['report.n: 10000000000000 != 10000000000001']
    """
    if isinstance(stored, dict) and isinstance(fresh, dict):
        found = []
        if stored.keys() != fresh.keys():
            found.append(f"{path}: keys differ: {', '.join(sorted(map(str, stored.keys() ^ fresh.keys())))}")
        for key in sorted(stored.keys() & fresh.keys(), key=str):
            found += differences(stored[key], fresh[key], tolerance=tolerance, path=f"{path}.{key}")
        return found
    if isinstance(stored, list) and isinstance(fresh, list):
        if len(stored) != len(fresh):
            return [f"{path}: {len(stored)} entries != {len(fresh)}"]
        found = []
        for i, (a, b) in enumerate(zip(stored, fresh)):
            found += differences(a, b, tolerance=tolerance, path=f"{path}[{i}]")
        return found
    numbers = (int, float)
    if isinstance(stored, numbers) and isinstance(fresh, numbers) and not isinstance(stored, bool):
        if isinstance(stored, int) and isinstance(fresh, int):  # counts: exactly
            return [] if stored == fresh else [f"{path}: {stored!r} != {fresh!r}"]
        if abs(stored - fresh) <= tolerance * max(1.0, abs(stored), abs(fresh)):
            return []
    elif stored == fresh:
        return []
    return [f"{path}: {stored!r} != {fresh!r}"]
