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
