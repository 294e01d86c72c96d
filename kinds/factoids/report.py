"""Factoid analysis: agreement per phase, relations, weighted factoid scores.

van Halteren & Teufel (factoid-analysis_van-halteren-teufel.txt): factoid
annotation kappa (section 3.1) and factoid definition kappa (section 3.2)
for Phase 1 and Phase 2; relations between annotators' inventories
(identity, subsumption) suggested by shared sentence assignments and
confirmed by the organiser; inventory growth (section 4, Figure 4);
weighted factoid scores and their stability (section 5, Figures 5-7); the
unigram comparison (end of section 5). Scores rest on the organiser's
consensus inventory and marking.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np

from annotate.models import Campaign, Judgment, Topic
from concord.errors import InvalidInput
from concord.jsonready import json_ready
from concord.params import Bool, Float, Int, ParamsSchema, Str
from concord.typed import Figure, pack, unpack
from kinds.disagreement import pairwise_disagreement
from kinds.factoids import stats as m
from kinds.spec import Disagreement, Export, ExportFile
from scoring.csvfiles import write_csv
from scoring.partials import MergeInput, from_scratch
from scoring.selectors import JudgmentRow, ReportInput, curation, curations_of
from stats.crossing import crossing
from stats.intervals import FigureCI, IntervalSettings, interval_settings, too_few_ci
from stats.uncertainty import fleiss_kappa_units

EXPORTS = {"json": Export("application/json", "json"), "csv": Export("text/csv", "csv")}
EXPORT_HELP = (
    "consensus: the consensus inventory with each factoid's weight (reference summaries containing it) and marks, "
    "and who adjudicated it when (adjudicated_by, adjudicated_at). "
    "annotations: every annotator's inventory and marks (Phase 2, the current ones). relations: the confirmed "
    "relations between annotators' inventories. wfs: every summary's weighted factoid score (column model: 1 for a reference summary, 0 for a machine one)."
)


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
    to :data:`LIVE_PAIRS`, then the first :data:`LIVE_PAIRS`: each topic's page lists its
    own; ``pair_count`` counts every pair of every phase) and how many topics have a
    consensus inventory (and so scores)."""

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
    rows = []
    for first, second in combinations(sorted(payloads), 2):
        relations, source = _pair_relations(parsed, first, second, confirmed)
        definition_labels = parsed.definition_labels(relations, first, second)
        # Annotation agreement on the factoids the relations call identical: each annotator's
        # own factoid keyed by the first's (the others are left out of the items).
        identities = one_to_one([r for r in relations if len(r["first"]) == len(r["second"]) == 1])
        keys = ({r["first"][0]: r["first"][0] for r in identities}, {r["second"][0]: r["first"][0] for r in identities})
        annotation = None
        if identities:
            labels = parsed.annotation_labels([first, second], unit=unit, factoid_keys=keys)
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


def _pair_relations(
    parsed: m.TopicAnnotations, first: str, second: str, confirmed: dict | None
) -> tuple[list[dict], str]:
    """:func:`relations_of` from annotations parsed once."""
    key = f"{first}|{second}"
    if confirmed is not None and key in confirmed.get("pairs", {}):
        return confirmed["pairs"][key], "confirmed"
    suggested = parsed.suggest_relations(first, second)
    return [{"first": list(r.first), "second": list(r.second)} for r in suggested], "suggested"


def one_to_one(identities: list[dict]) -> list[dict]:
    """Identities in which every factoid appears once on its side (the first wins):
    annotation agreement compares factoid with factoid."""
    seen_first, seen_second, kept = set(), set(), []
    for relation in identities:
        a, b = relation["first"][0], relation["second"][0]
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
        payloads = {a: p for (t, a), p in input.phase_payloads(phase).items() if t == topic.pk}
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


# -- incremental campaign report: per-topic partials and their merge (scoring/partials.py) ------


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
            rows.extend(unpack(list[FactoidsCampaignPair], part.pairs)[: LIVE_PAIRS - len(rows)])
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


def judge_context(campaign: Campaign, topic: Topic, user) -> dict[str, Any]:
    """What the annotation page adds: in Phase 2, the annotator's discrepancies
    with the other annotators (never their factoids or reasons, section 3.1);
    none on the consensus editor (``user`` None: the consensus is nobody's own)."""
    phase = campaign.params.get("phase", 1)
    if phase != 2 or user is None:
        return {"phase": phase, "discrepancies": None}
    mine = topic.judgments.filter(assessor=user).first()
    if mine is None:
        return {"phase": 2, "discrepancies": []}
    me = user.get_username()
    listing = []
    # The others' versions that count (a reopened judgment's submitted one, not the draft on top).
    others = topic.judgments.filter(status__in=Judgment.COUNTING).exclude(assessor=user).select_related("assessor")
    for other in others:
        names = sorted([me, other.assessor.username])
        theirs = other.submitted_payload
        one, two = (mine.payload, theirs) if names[0] == me else (theirs, mine.payload)
        confirmed = curation(topic, "relations")
        relations, _ = relations_of(topic, names[0], names[1], one, two, confirmed.data if confirmed else None)
        mine_side, theirs_side = ("first", "second") if names[0] == me else ("second", "first")
        counterparts = {
            r[mine_side][0]: r[theirs_side][0] for r in relations if len(r["first"]) == len(r["second"]) == 1
        }
        for item in m.discrepancies(mine.payload, theirs, summaries_of(topic), counterparts=counterparts):
            listing.append(
                {
                    "sentence": item.sentence,
                    "factoid": item.factoid,
                    "kind": "you-only" if item.kind == "only_you" else "other-only",
                    "message": item.message,
                }
            )
    return {"phase": 2, "discrepancies": listing}


# -- analyses ------------------------------------------------------------------------------


def _consensus_table(input: ReportInput, params: dict[str, Any]):
    topics = {t.external_id: t for t in input.topics}
    wanted = params.get("topic")
    chosen = [topics[wanted]] if wanted in topics else [t for t in topics.values() if input.curation(t, "consensus")]
    if wanted is not None and wanted not in topics:
        raise InvalidInput("params.topic", f"unknown topic {wanted!r}")
    if not chosen or input.curation(chosen[0], "consensus") is None:
        raise InvalidInput("campaign", "no consensus inventory yet: build one on a topic's consensus page")
    topic = chosen[0]
    return topic, m.factoid_table(input.curation(topic, "consensus"), summaries_of(topic))


def growth_analysis(
    input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:
    """Figure 4: factoids (and factoids per sentence) as summaries are added."""
    topic, table = _consensus_table(input, params)
    progress(0.1, "drawing summaries")
    models = np.flatnonzero(table.model)
    rows = np.isin(table.summary_of_sentence, models)
    remap = {old: new for new, old in enumerate(models)}
    owner = np.array([remap[s] for s in table.summary_of_sentence[rows]])
    result = m.inventory_growth(
        table.by_sentence[rows],
        owner,
        n_summaries=len(models),
        draws=int(params.get("draws", 100)),
        seed=int(params.get("seed", 0)),
    )
    return {"topic": topic.external_id, **json_ready(asdict(result))}


def stability_analysis(
    input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]
) -> dict[str, Any]:
    """Figure 5 (rank correlation of WFS rankings from two samples of N model
    summaries) and Figures 6-7 (every summary's score over the draws at N)."""
    topic, table = _consensus_table(input, params)
    sizes = range(1, int(params.get("max_n", 50)) + 1)
    # Optional, off by default (the paper reports pure frequency weights):
    # a factoid counts 1/r in a reference summary whose r-th sentence first has it.
    position = table.first_position if params.get("position") else None
    progress(0.1, "ranking summaries")
    stability = m.wfs_stability(
        table.by_summary,
        table.model,
        sizes=sizes,
        pairs=int(params.get("pairs", 200)),
        seed=int(params.get("seed", 0)),
        first_position=position,
    )
    progress(0.7, "score distributions")
    n = int(params.get("n", 10))
    distribution = m.wfs_distribution(
        table.by_summary,
        table.model,
        n=n,
        draws=int(params.get("pairs", 200)),
        seed=int(params.get("seed", 0)),
        first_position=position,
    )
    texts = [" ".join(x["text"] for x in s["sentences"]) for s in topic.data["summaries"]]
    threshold = int(params.get("min_summaries", max(1, round(0.22 * int(table.model.sum())))))
    unigrams = m.unigram_comparison(texts, table.by_summary, min_summaries=threshold)
    level = float(params.get("rho", 0.9))
    return {
        "topic": topic.external_id,
        "position_adjusted": bool(position is not None),
        "summaries": [{"id": s, "model": bool(flag)} for s, flag in zip(table.summaries, table.model)],
        "stability": json_ready(asdict(stability)),
        # Figure 5's curve reaches rho = level at this many model summaries (linear between sizes).
        "crossing": asdict(crossing(stability.sizes, stability.mean_rho, level)),
        "distribution": {"n": n, **json_ready(asdict(distribution))},
        "unigrams": {"min_summaries": threshold, **json_ready(asdict(unigrams))},
    }


ANALYSES = {"growth": growth_analysis, "wfs-stability": stability_analysis}
#: The analyses' params (checked before a job is stored; see JOB_BUDGET in
#: scoring/services.py), measured on a synthetic topic larger than the
#: paper's (100 model summaries of 20 sentences, 500 factoids, 30 machine
#: summaries). growth: 1000 draws take 75 s and 210 MB (per size, the
#: drawn sentences' factoid columns packed in 64-bit words: draws x factoids
#: x sentences / 8 bytes), so 5000 draws stay within about 6 minutes and
#: 1 GB. wfs-stability: max_n 200 with 10000 pairs takes 72 s and 370 MB;
#: time grows with pairs x max_n^2, memory with pairs x max_n.
ANALYSIS_PARAMS = {
    "growth": ParamsSchema(
        Str("topic", max_length=200, help="The topic (external id); default the first with a consensus."),
        Int("draws", 100, min=1, max=5_000, help="Random draws of N summaries for every N (the paper: 100)."),
        Int("seed", 0, min=0, max=2**32 - 1, help="Seed of the random draws (the same seed, the same result)."),
    ),
    "wfs-stability": ParamsSchema(
        Str("topic", max_length=200, help="The topic (external id); default the first with a consensus."),
        Int("max_n", 50, min=1, max=200, help="Largest number N of reference (model) summaries drawn (Figure 5)."),
        Int("pairs", 200, min=1, max=10_000, help="Pairs of samples per N (and draws of the box plots)."),
        Int("n", 10, min=1, max=200, help="N of the score box plots (Figures 6-7)."),
        Int(
            "min_summaries",
            min=1,
            max=100_000,
            help="Summaries a unigram must occur in to be a consensus unigram; default 22% of the reference summaries.",
        ),
        Bool(
            "position",
            False,
            help="Position-adjusted weights (a factoid counts 1/r in a reference summary whose r-th "
            "sentence first states it); the paper reports pure frequency.",
        ),
        Int("seed", 0, min=0, max=2**32 - 1, help="Seed of the random draws (the same seed, the same result)."),
        Float(
            "rho",
            0.9,
            min=-1.0,
            max=1.0,
            help="The rho whose crossing the page reports: how many reference summaries' WFS ranking reaches it (Figure 5).",
        ),
    ),
}


# -- exports -------------------------------------------------------------------------------


def truths(assessors: Sequence[str]) -> list[str]:
    return ["consensus", "annotations", "relations", "wfs"]


#: What each export is (``Exports.describe``): the ``truth`` value names the file itself.
EXPORT_FILES = {
    "consensus": ExportFile("factoid-gold", "gold", by_truth=False),
    "annotations": ExportFile("judgments", "judgments", by_truth=False),
    "relations": ExportFile("relations", "scores", by_truth=False),
    "wfs": ExportFile("summary-scores", "scores", by_truth=False),
}


def describe_export(format: str, truth: str) -> ExportFile | None:
    return EXPORT_FILES.get(truth) if format in EXPORTS else None


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    if truth not in truths([]):
        raise InvalidInput("truth", f"unknown export {truth!r} (known: {', '.join(truths([]))})")
    by_topic: dict[int, list[JudgmentRow]] = {}
    for row in judgments:
        by_topic.setdefault(row.topic_id, []).append(row)
    if truth == "consensus":
        rows = []
        adjudicated = curations_of(list(topics), "consensus")
        for topic in topics:
            data = adjudicated.get(topic.pk)
            result = scores(topic, data.data if data else None)
            if not result or data is None:
                continue
            provenance = {
                "adjudicated_by": data.updated_by.get_username() if data.updated_by else "",
                "adjudicated_at": data.updated_at.isoformat(),
            }
            for factoid in data.data["factoids"]:
                marked = [s for s, found in data.data["marks"].items() if factoid["id"] in found]
                rows.append(
                    {
                        "topic": topic.external_id,
                        "factoid": factoid["id"],
                        "text": factoid["text"],
                        "weight": result.weights[factoid["id"]],
                        "sentences": marked,
                        **provenance,
                    }
                )
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "factoid", "text", "weight", "sentences", "adjudicated_by", "adjudicated_at"],
            (
                [r["topic"], r["factoid"], r["text"], r["weight"], " ".join(r["sentences"])]
                + [r["adjudicated_by"], r["adjudicated_at"]]
                for r in rows
            ),
        )
    if truth == "annotations":
        rows = [
            {"topic": t.external_id, "annotator": r.assessor, **r.payload}
            for t in topics
            for r in by_topic.get(t.pk, [])
        ]
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "annotator", "factoid", "text", "sentences"],
            (
                [
                    r["topic"],
                    r["annotator"],
                    f["id"],
                    f["text"],
                    " ".join(s for s, found in r["marks"].items() if f["id"] in found),
                ]
                for r in rows
                for f in r["factoids"]
            ),
        )
    if truth == "relations":
        rows = []
        for topic in topics:
            data = curation(topic, "relations")
            for pair, relations in (data.data["pairs"] if data else {}).items():
                first, second = pair.split("|")
                for r in relations:
                    kind = "identity" if len(r["first"]) == len(r["second"]) == 1 else "subsumption"
                    rows.append(
                        {
                            "topic": topic.external_id,
                            "first_annotator": first,
                            "second_annotator": second,
                            "first": r["first"],
                            "second": r["second"],
                            "kind": kind,
                        }
                    )
        if format == "json":
            return json.dumps(rows, indent=1)
        return write_csv(
            ["topic", "first_annotator", "first", "second_annotator", "second", "kind"],
            (
                [
                    r["topic"],
                    r["first_annotator"],
                    " ".join(r["first"]),
                    r["second_annotator"],
                    " ".join(r["second"]),
                    r["kind"],
                ]
                for r in rows
            ),
        )
    consensus = {t.pk: curation(t, "consensus") for t in topics}
    scored = {t.pk: scores(t, consensus[t.pk].data if consensus[t.pk] else None) for t in topics}
    rows = [{"topic": t.external_id, **asdict(s)} for t in topics if scored[t.pk] for s in scored[t.pk].summaries]
    if format == "json":
        return json.dumps(rows, indent=1)
    return write_csv(
        ["topic", "summary", "source", "model", "wfs"],
        ([r["topic"], r["id"], r["source"], int(r["model"]), r["wfs"]] for r in rows),
    )


def consensus_ready(facts) -> str | None:
    """Why the factoid analyses cannot run yet (``Analysis.ready``), or None."""
    if not facts.curations.get("consensus"):
        return "no consensus inventory yet: build one on a topic's consensus page"
    return None


# -- disagreement per topic (KindSpec Reports.disagreement) ---------------------------------


def topic_disagreement(report: FactoidsTopicReport) -> Disagreement | None:
    """1 - the mean definition kappa of the current phase's annotator pairs
    (van Halteren & Teufel, section 3.2; None: no pair, or kappa undefined)."""
    phase = report.agreement.get(str(report.phase))
    pairs = phase.pairs if phase else []
    return pairwise_disagreement([(*p.annotators, p.definition.kappa) for p in pairs], figure="definition κ")
