"""The factoids campaign report's running sums (scoring/sums.py).

The campaign report (van Halteren & Teufel, Figures 1 and 3) counts its topics, the
annotator pairs of every phase and the topics with a consensus inventory, and lists the
first :data:`~kinds.factoids.partials.LIVE_PAIRS` pairs in topic order. The counts add
over topics. The listed rows are as many bytes as the partials themselves (every pair of
every topic, with its kappas), so the sums hold nothing of them: each topic's pair count
(:func:`listed`) is stored with its partial, and :func:`refresh` is given the partials of
the first topics in order whose pairs make the rows (a bounded number: at most
``LIVE_PAIRS``; ``RunningSums.listed``, scoring.jobs ``_listed``). Nothing of the report
needs every topic at once, so nothing is taken from ``fits`` (``RunningSums.fits`` False:
the report is current throughout and no refresh of the fits is queued).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from annotate.models import Campaign, Topic
from concord.typed import unpack
from kinds.factoids import partials as fp
from kinds.factoids.report import FactoidsCampaignPair, FactoidsCampaignReport, annotation_unit
from scoring.partials import MergeInput


@dataclass(frozen=True)
class FactoidsSums:
    """Counts over the campaign's topics (every field adds)."""

    topics: int = 0
    #: annotator pairs, every topic's and phase's
    pairs: int = 0
    #: topics with a consensus inventory
    scored: int = 0


def contribution(campaign: Campaign | None, topic: Topic, partial: fp.FactoidsPartial) -> FactoidsSums:
    """One topic's counts.

    >>> sums = contribution(None, Topic(pk=7, position=2), fp.FactoidsPartial(3, b"", True))
    >>> sums.pairs, sums.scored
    (3, 1)
    """
    return FactoidsSums(
        topics=1,
        pairs=partial.pair_count,
        scored=int(partial.scored),
    )


def listed(partial: fp.FactoidsPartial) -> int:
    """The rows the report lists of the topic: its annotator pairs, every phase's (stored with
    its partial, ``TopicPartial.listed``)."""
    return partial.pair_count


def listed_limit() -> int:
    """The rows the report lists at most (read when called: tests lower it)."""
    return fp.LIVE_PAIRS


def refresh(
    given: MergeInput,
    fits: FactoidsCampaignReport,
    sums: FactoidsSums,
    first: Sequence[tuple[Topic, fp.FactoidsPartial]],
) -> FactoidsCampaignReport:
    """The campaign report of ``sums``, its rows from ``first``, the first topics in order whose
    pairs reach ``LIVE_PAIRS`` (or more) with their partials, as the merge's: nothing of ``fits``."""
    rows: list[FactoidsCampaignPair] = []
    for _, partial in first:
        if len(rows) >= fp.LIVE_PAIRS:
            break
        if partial.pair_count:
            rows.extend(unpack(partial.pairs, list[FactoidsCampaignPair])[: fp.LIVE_PAIRS - len(rows)])
    campaign = given.campaign
    return FactoidsCampaignReport(
        phase=campaign.params.get("phase", 1),
        topics=sums.topics,
        pairs=rows,
        pair_count=sums.pairs,
        scored_topics=sums.scored,
        annotation_unit=annotation_unit(campaign),
    )
