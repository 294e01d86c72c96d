"""Factoid analysis: the analyses an organiser runs as jobs (KindSpec ``Analysis``).

van Halteren & Teufel (factoid-analysis_van-halteren-teufel.txt): inventory
growth as summaries are added (section 4, Figure 4), the stability of
weighted factoid score rankings and the scores' spread (section 5, Figures
5-7) and the unigram comparison (end of section 5), each on one topic's
consensus inventory and marking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import numpy as np

from concord.errors import InvalidInput
from concord.jsonready import json_ready
from concord.params import Bool, Float, Int, ParamsSchema, Str
from kinds.factoids import stats as m
from kinds.factoids.report import summaries_of
from scoring.selectors import ReportInput
from stats.crossing import crossing


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


def consensus_ready(facts) -> str | None:
    """Why the factoid analyses cannot run yet (``Analysis.ready``), or None."""
    if not facts.curations.get("consensus"):
        return "no consensus inventory yet: build one on a topic's consensus page"
    return None
