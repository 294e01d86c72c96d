"""The factoids campaign report's running sums (scoring/sums.py).

The campaign report (van Halteren & Teufel, Figures 1 and 3) counts its topics, the
annotator pairs of every phase and the topics with a consensus inventory, and lists the
first :data:`~kinds.factoids.partials.LIVE_PAIRS` pairs in topic order. The counts add
over topics. The listed rows are as many bytes as the partials themselves (every pair of
every topic, with its kappas), so the sums keep of each topic with a pair only where it
stands (its position and id) and how many pairs it has; :func:`listed` names the first
topics whose rows the report lists, and :func:`refresh` reads those topics' partials (a
bounded number: at most ``LIVE_PAIRS``; ``RunningSums.listed``). Nothing of the report
needs every topic at once, so nothing is taken from ``fits`` (``RunningSums.fits`` False:
the report is current throughout and no refresh of the fits is queued).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import NamedTuple

from annotate.models import Campaign, Topic
from concord.typed import unpack
from kinds.factoids import partials as fp
from kinds.factoids.report import FactoidsCampaignPair, FactoidsCampaignReport, annotation_unit
from scoring.partials import MergeInput


class FactoidsEntry(NamedTuple):
    """A topic with an annotator pair, as the report's rows need it: where it stands in topic
    order (its position, then its id) and how many pairs it has (every phase); a named tuple,
    stored as an array: the sums of 10,000 topics hold 10,000 of them."""

    id: int
    position: int
    pairs: int


@dataclass(frozen=True)
class FactoidsSums:
    """Counts over the campaign's topics (every field adds; ``entries`` go in and out by topic)."""

    topics: int = 0
    #: annotator pairs, every topic's and phase's
    pairs: int = 0
    #: topics with a consensus inventory
    scored: int = 0
    #: str(topic id) -> the topic's :class:`FactoidsEntry` (topics with a pair)
    entries: dict[str, FactoidsEntry] = field(default_factory=dict)


def contribution(campaign: Campaign | None, topic: Topic, partial: fp.FactoidsPartial) -> FactoidsSums:
    """One topic's counts.

    >>> sums = contribution(None, Topic(pk=7, position=2), fp.FactoidsPartial(3, b"", True))
    >>> sums.pairs, sums.scored, sums.entries["7"]
    (3, 1, FactoidsEntry(id=7, position=2, pairs=3))
    """
    return FactoidsSums(
        topics=1,
        pairs=partial.pair_count,
        scored=int(partial.scored),
        entries={str(topic.pk): FactoidsEntry(topic.pk, topic.position, partial.pair_count)}
        if partial.pair_count
        else {},
    )


def listed(sums: FactoidsSums) -> list[int]:
    """The topics whose pairs the report lists: those with a pair in topic order, up to the one
    that brings the rows to ``LIVE_PAIRS`` (at most ``LIVE_PAIRS`` topics: each has a pair)."""
    found, pairs = [], 0
    for entry in sorted(sums.entries.values(), key=attrgetter("position", "id")):
        if pairs >= fp.LIVE_PAIRS:
            break
        found.append(entry.id)
        pairs += entry.pairs
    return found


def refresh(
    given: MergeInput, fits: FactoidsCampaignReport, sums: FactoidsSums, partials: Mapping[int, fp.FactoidsPartial]
) -> FactoidsCampaignReport:
    """The campaign report of ``sums``, its rows from the :func:`listed` topics' ``partials``
    (topic id -> partial), as the merge's: nothing of ``fits``."""
    rows: list[FactoidsCampaignPair] = []
    for topic_id in listed(sums):
        rows.extend(unpack(partials[topic_id].pairs, list[FactoidsCampaignPair])[: fp.LIVE_PAIRS - len(rows)])
    campaign = given.campaign
    return FactoidsCampaignReport(
        phase=campaign.params.get("phase", 1),
        topics=sums.topics,
        pairs=rows,
        pair_count=sums.pairs,
        scored_topics=sums.scored,
        annotation_unit=annotation_unit(campaign),
    )
