"""Factoid analysis: the topic and campaign report types, the topic report.

van Halteren & Teufel (factoid-analysis_van-halteren-teufel.txt): factoid
annotation kappa (section 3.1) and factoid definition kappa (section 3.2)
for Phase 1 and Phase 2; relations between annotators' inventories
(identity, subsumption) suggested by shared sentence assignments and
confirmed by the organiser; weighted factoid scores under the organiser's
consensus inventory and marking (section 5). The campaign report is the
merge of the topics' partials (partials.py); the downloads are in
exports.py, the inventory growth and score stability analyses (sections 4
and 5, Figures 4-7, the unigram comparison) in analyses.py, what the Phase 2
annotation page reads in pages.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np

from annotate.models import Campaign, Topic
from concord.typed import Figure
from kinds.disagreement import pairwise_disagreement
from kinds.factoids import stats as m
from kinds.spec import Disagreement
from scoring.selectors import ReportInput
from stats.intervals import FigureCI, IntervalSettings, interval_settings, too_few_ci
from stats.uncertainty import fleiss_kappa_units

# -- the reports' types (stored as JSON, read back field by field: concord/typed.py) --------


@dataclass(frozen=True)
class FactoidsKappa:
    """Kappa over two-category items (section 3.1, Figure 1): ``(P(A) - P(E)) / (1 - P(E))``,
    P(A) ``observed``, P(E) ``expected``, over ``n_items`` items (undefined figures: None);
    ``ci``: kappa with its bootstrap interval over those items (:func:`kappa_ci`)."""

    kappa: Figure
    observed: Figure
    expected: Figure
    n_items: int
    ci: FigureCI


@dataclass(frozen=True)
class FactoidsPair:
    """Two annotators in one phase: the relations between their inventories (confirmed by the
    organiser, else suggested from shared sentence assignments), factoid definition kappa
    (section 3.2) and factoid annotation kappa on the factoids the relations call identical
    (section 3.1; None without identities)."""

    annotators: tuple[str, str]
    relations: Literal["confirmed", "suggested"]
    identities: int
    subsumptions: int
    definition: FactoidsKappa
    annotation: FactoidsKappa | None


@dataclass(frozen=True)
class FactoidsPhaseAgreement:
    """Every annotator pair's agreement in one phase (Phase 1 independent, Phase 2 after
    the discrepancies were shown; section 3.1)."""

    pairs: list[FactoidsPair]


@dataclass(frozen=True)
class FactoidsAnnotator:
    """One annotator's current inventory: how many factoids, how many sentences marked."""

    factoids: int
    marked_sentences: int


@dataclass(frozen=True)
class FactoidsSummaryScore:
    """One summary's weighted factoid score under the consensus (section 5); ``source`` is its
    author (a model summary) or run (a machine summary)."""

    id: str
    source: str
    model: bool
    wfs: float


@dataclass(frozen=True)
class FactoidsScores:
    """Weighted factoid scores (section 5): every summary's score and every consensus
    factoid's weight (the model summaries containing it), factoid id -> weight."""

    summaries: list[FactoidsSummaryScore]
    weights: dict[str, int]


@dataclass(frozen=True)
class FactoidsTopicReport:
    """A topic: the campaign's phase, each annotator's inventory, agreement per phase
    (``"1"``, ``"2"``) and the scores (None until the consensus inventory exists)."""

    phase: int
    annotators: dict[str, FactoidsAnnotator]
    agreement: dict[str, FactoidsPhaseAgreement]
    scores: FactoidsScores | None
    #: the annotation kappa's items: factoid x ``summary`` (the paper's, section 3.1) or x ``sentence``
    annotation_unit: str


@dataclass(frozen=True)
class FactoidsCampaignPair:
    """A :class:`FactoidsPair` of one topic and phase, as a row of the campaign's table
    (van Halteren & Teufel, Figures 1 and 3)."""

    topic: str
    title: str
    phase: int
    annotators: tuple[str, str]
    relations: Literal["confirmed", "suggested"]
    identities: int
    subsumptions: int
    definition: FactoidsKappa
    annotation: FactoidsKappa | None


@dataclass(frozen=True)
class FactoidsCampaignReport:
    """The campaign: its phase, the annotator pairs of the topics in order (all of them up
    to :data:`~kinds.factoids.partials.LIVE_PAIRS`, then the first ``LIVE_PAIRS``: each
    topic's page lists its own; ``pair_count`` counts every pair of every phase) and how
    many topics have a consensus inventory (and so scores)."""

    phase: int
    topics: int
    pairs: list[FactoidsCampaignPair]
    pair_count: int
    scored_topics: int
    #: the annotation kappa's items: factoid x ``summary`` (the paper's, section 3.1) or x ``sentence``
    annotation_unit: str
    kind: Literal["factoids"] = "factoids"


#: The items of each kappa, as the page names them (section 3.1: factoid-summary combinations;
#: section 3.2: an identity's or a subsumption's factoid pair in a summary).
UNIT_NAMES = {
    "summary": "factoid-summary items",
    "sentence": "factoid-sentence items",
    "definition": "factoid-pair-summary items",
}


def _kappa(figures: m.FactoidKappa, ci: FigureCI) -> FactoidsKappa:
    return FactoidsKappa(
        kappa=float(figures.kappa),
        observed=float(figures.observed),
        expected=float(figures.expected),
        n_items=int(figures.n_items),
        ci=ci,
    )


def kappa_ci(labels: np.ndarray, unit: str, settings: IntervalSettings, kappa: float | None = None) -> FigureCI:
    """Kappa of two-category items (``labels``: items x annotators, True where the
    annotator marked the factoid in the unit) with its seeded bootstrap interval over the
    items (the figure's own unit): each item's category counts are Fleiss' per-unit
    statistics, so the value is the report's kappa to rounding (the resamples are drawn
    as counts of the items' distinct statistics: ``uncertainty.grouped_bootstrap``).

    >>> labels = np.array([[1, 1], [0, 0], [1, 0], [0, 0], [1, 1], [0, 1]] * 5, dtype=bool)
    >>> ci = kappa_ci(labels, "factoid-summary items", IntervalSettings(resamples=200))
    >>> round(ci.value, 4), ci.units, ci.low < ci.value < ci.high
    (0.3333, 30, True)

    ``kappa``: the labels' kappa when already computed (:func:`kinds.factoids.stats.labels_kappa`,
    the same figure to rounding), then below ``settings.min_units`` items nothing is computed again.

    >>> kappa_ci(labels[:6], "factoid-summary items", IntervalSettings(), kappa=0.25)
    FigureCI(value=0.25, low=nan, high=nan, units=6, unit='factoid-summary items', method='too few', level=0.95)

    No items (e.g. two annotators who share no factoid-pair-summary item): no figure.

    >>> ci = kappa_ci(np.array([]), "factoid-pair-summary items", IntervalSettings())
    >>> ci.units, ci.value is None or ci.value != ci.value
    (0, True)
    """
    labels = np.asarray(labels, dtype=bool)
    labels = labels.reshape(len(labels), -1) if labels.size else np.zeros((0, 2), dtype=bool)
    if kappa is not None and len(labels) < settings.min_units:
        return too_few_ci(kappa, len(labels), unit)
    present = labels.sum(axis=1)
    counts = np.column_stack([labels.shape[1] - present, present])
    # Two annotators' yes/no items have at most three distinct per-item counts: the draw is of
    # those three groups' counts (the same bootstrap, O(resamples) instead of O(resamples x items)).
    return settings.interval(fleiss_kappa_units(counts), unit, grouped=True)


def annotation_unit(campaign: Campaign) -> str:
    """The unit of the annotation kappa's items (campaign param ``annotation_unit``):
    ``summary`` (the paper's factoid-summary combinations, the default) or ``sentence``."""
    return campaign.params.get("annotation_unit") or "summary"


def summaries_of(topic: Topic) -> list[dict[str, Any]]:
    """The topic's summaries as the metrics take them."""
    return [
        {"id": s["id"], "model": "author" in s, "sentences": [x["id"] for x in s["sentences"]]}
        for s in topic.data["summaries"]
    ]


def relations_of(
    topic: Topic, first: str, second: str, one: dict, two: dict, confirmed: dict | None
) -> tuple[list[dict], str]:
    """Confirmed relations of an annotator pair (``confirmed``: the topic's
    ``relations`` curation), else the suggested ones."""
    key = f"{first}|{second}"
    if confirmed is not None and key in confirmed.get("pairs", {}):
        return confirmed["pairs"][key], "confirmed"
    return suggested_relations(one, two, summaries_of(topic)), "suggested"


def suggested_relations(one: dict, two: dict, summaries: list[dict[str, Any]]) -> list[dict]:
    """The relations suggested from shared sentence marks (section 3.2), as
    ``[{"first": [ids], "second": [ids]}]``: what an organiser confirms."""
    return [{"first": list(r.first), "second": list(r.second)} for r in m.suggest_relations(one, two, summaries)]


def agreement(
    topic: Topic,
    payloads: dict[str, dict],
    confirmed: dict | None = None,
    unit: str = "summary",
    settings: IntervalSettings | None = None,
) -> FactoidsPhaseAgreement:
    """Definition and annotation kappa of every annotator pair for one phase
    (``confirmed``: the topic's relations curation, if any; ``unit``: the
    annotation kappa's unit, summary or sentence), each with its bootstrap
    interval over its items (``settings``: the campaign's, default ones if None)."""
    settings = settings or IntervalSettings()
    # the topic and every annotation parsed once, not once per pair and function
    parsed = m.TopicAnnotations(payloads, summaries_of(topic))
    pairs = list(combinations(sorted(payloads), 2))
    # every pair without confirmed relations has its relations suggested at once
    unconfirmed = [pair for pair in pairs if _confirmed(confirmed, *pair) is None]
    suggested = dict(zip(unconfirmed, parsed.suggest_relations_each(unconfirmed)))
    rows = []
    for first, second in pairs:
        relations: Sequence[dict | m.FactoidRelation]
        if (first, second) in suggested:
            relations, source = suggested[first, second], "suggested"
        else:
            relations, source = _confirmed(confirmed, first, second), "confirmed"
        definition_labels = parsed.definition_labels(relations, first, second)
        # Annotation agreement on the factoids the relations call identical: each annotator's
        # own factoid keyed by the first's (the others are left out of the items).
        identities = one_to_one([r for r in relations if all(len(side) == 1 for side in _sides(r))])
        annotation = None
        if identities:
            labels = parsed.identity_labels(identities, first, second, unit=unit)
            figures = m.labels_kappa(labels)
            annotation = _kappa(figures, kappa_ci(labels, UNIT_NAMES[unit], settings, figures.kappa))
        definition = m.labels_kappa(definition_labels)
        rows.append(
            FactoidsPair(
                annotators=(first, second),
                relations=source,
                identities=len(identities),
                subsumptions=len(relations) - len(identities),
                definition=_kappa(
                    definition, kappa_ci(definition_labels, UNIT_NAMES["definition"], settings, definition.kappa)
                ),
                annotation=annotation,
            )
        )
    return FactoidsPhaseAgreement(pairs=rows)


def _confirmed(confirmed: dict | None, first: str, second: str) -> list[dict] | None:
    """The relations an organiser confirmed between ``first`` and ``second`` (the topic's
    ``relations`` curation), or None."""
    key = f"{first}|{second}"
    if confirmed is not None and key in confirmed.get("pairs", {}):
        return confirmed["pairs"][key]
    return None


def _sides(relation: dict | m.FactoidRelation) -> tuple[Sequence[str], Sequence[str]]:
    """A relation's first and second annotator's factoids: a confirmed one (a mapping) or a suggested one."""
    if isinstance(relation, m.FactoidRelation):
        return relation.first, relation.second
    return relation["first"], relation["second"]


def one_to_one(identities: Sequence[dict | m.FactoidRelation]) -> list:
    """Identities in which every factoid appears once on its side (the first wins):
    annotation agreement compares factoid with factoid."""
    seen_first, seen_second, kept = set(), set(), []
    for relation in identities:
        (a,), (b,) = _sides(relation)
        if a not in seen_first and b not in seen_second:
            seen_first.add(a)
            seen_second.add(b)
            kept.append(relation)
    return kept


def scores(topic: Topic, consensus: dict | None) -> FactoidsScores | None:
    """Weighted factoid scores of every summary under the consensus (section 5)."""
    if consensus is None or not consensus.get("factoids"):
        return None
    table = m.factoid_table(consensus, summaries_of(topic))
    wfs = m.weighted_factoid_scores(table.by_summary, table.model)
    weights = table.by_summary[table.model].sum(axis=0)
    return FactoidsScores(
        summaries=[
            FactoidsSummaryScore(
                id=s["id"], source=s.get("author") or s.get("run"), model="author" in s, wfs=float(score)
            )
            for s, score in zip(topic.data["summaries"], wfs)
        ],
        weights={f: int(w) for f, w in zip(table.factoids, weights)},
    )


def topic_report(input: ReportInput, topic: Topic) -> FactoidsTopicReport:
    judgments = input.judgments_of(topic)
    campaign = topic.campaign
    phases = {}
    for phase in (1, 2) if campaign.params.get("phase") == 2 else (1,):
        payloads = dict(input.phase_payloads_of(phase, topic))
        phases[str(phase)] = agreement(
            topic,
            payloads,
            input.curation(topic, "relations"),
            annotation_unit(campaign),
            interval_settings(campaign.params),
        )
    current = {row.assessor: row.payload for row in judgments}
    return FactoidsTopicReport(
        phase=campaign.params.get("phase", 1),
        annotators={
            a: FactoidsAnnotator(factoids=len(p["factoids"]), marked_sentences=len(p["marks"]))
            for a, p in sorted(current.items())
        },
        agreement=phases,
        scores=scores(topic, input.curation(topic, "consensus")),
        annotation_unit=annotation_unit(campaign),
    )


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: FactoidsTopicReport) -> Disagreement | None:
    """1 - the mean definition kappa of the current phase's annotator pairs
    (van Halteren & Teufel, section 3.2; None: no pair, or kappa undefined)."""
    phase = report.agreement.get(str(report.phase))
    pairs = phase.pairs if phase else []
    return pairwise_disagreement([(*p.annotators, p.definition.kappa) for p in pairs], figure="definition κ")
