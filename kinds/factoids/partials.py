"""Factoid analysis: the campaign report merged from per-topic partials.

The campaign's table of annotator pairs, phase by phase (van Halteren &
Teufel, factoid-analysis_van-halteren-teufel.txt, Figures 1 and 3: definition
and annotation kappa, sections 3.1-3.2), and how many topics have a consensus
inventory. A topic's partial holds what the campaign report needs of it, so
that a submission recomputes one topic and merges the stored partials
(scoring/partials.py; docs/benchmarks.md, "Live at any size").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from annotate.models import Topic
from concord.typed import pack, unpack
from kinds.factoids.report import (
    FactoidsCampaignPair,
    FactoidsCampaignReport,
    FactoidsTopicReport,
    annotation_unit,
    topic_report,
)
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import ReportInput

#: The most annotator pairs the live campaign report carries (10,000 topics of 10
#: annotators have 450,000 pairs per phase: a report of hundreds of megabytes rebuilt after
#: every submission); the rest are on the topics' pages.
LIVE_PAIRS = 500


@dataclass(frozen=True)
class FactoidsPartial:
    """What the campaign report needs of one topic: how many annotator pairs it has (every
    phase), their rows (``pairs``: a packed ``list[FactoidsCampaignPair]``, decoded only for
    the topics whose rows the live report shows) and whether it has a consensus inventory
    (and so scores)."""

    pair_count: int
    pairs: bytes
    scored: bool


def topic_partial(input: ReportInput, topic: Topic, report: FactoidsTopicReport | None = None) -> FactoidsPartial:
    report = topic_report(input, topic) if report is None else report
    rows = [
        FactoidsCampaignPair(topic=topic.external_id, title=topic.title, phase=int(phase), **vars(pair))
        for phase, result in report.agreement.items()
        for pair in result.pairs
    ]
    return FactoidsPartial(
        pair_count=len(rows),
        pairs=pack(rows),
        scored=input.curation(topic, "consensus") is not None,
    )


def merge(input: MergeInput, partials: Sequence[FactoidsPartial]) -> FactoidsCampaignReport:
    """The campaign report from every topic's partial, in topic order: the topics' rows
    one after another up to :data:`LIVE_PAIRS` (only those topics' rows are decoded;
    nothing is recomputed)."""
    campaign = input.campaign
    rows: list[FactoidsCampaignPair] = []
    for part in partials:
        if len(rows) >= LIVE_PAIRS:
            break
        if part.pair_count:
            rows.extend(unpack(part.pairs, list[FactoidsCampaignPair])[: LIVE_PAIRS - len(rows)])
    return FactoidsCampaignReport(
        phase=campaign.params.get("phase", 1),
        topics=len(input.topics),
        pairs=rows,
        pair_count=sum(p.pair_count for p in partials),
        scored_topics=sum(p.scored for p in partials),
        annotation_unit=annotation_unit(campaign),
    )


def campaign_report(input: ReportInput) -> FactoidsCampaignReport:
    """The campaign report from scratch: the merge of every topic's fresh partial."""
    return from_scratch(input, topic=topic_report, partial=topic_partial, merge=merge)
