"""The pairs kind's analysis: the systems evaluated under every truth set.

Arehart, Wolf & Miller, "Adjudicator Agreement and System Rankings for Person
Name Search": sections 2.3-2.4 (each system's F1 over the pool under every
truth set of Table 1; every pair of systems tested by bootstrap, shift method,
or randomization) and 3.2 (Table 2: each truth set's sensitivity, and its
disagreement and reversals against the consensus; the Random truth sets, one
adjudicator drawn per item, run as chunks on any number of workers). The truth
sets are those the gold-standard exports write (kinds/pairs/exports.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from annotate.models import Run
from concord.errors import InvalidInput
from concord.params import Bool, Choice, Float, Int, ParamsSchema
from kinds.pairs.exports import gold_standard, table1_truths
from kinds.pairs.partials import system_runs
from kinds.pairs.report import Votes, votes
from kinds.pairs.stats import random_truth_sets
from scoring.selectors import ReportInput
from scoring.services import Chunked
from stats.significance import (
    compare_statements,
    compare_systems,
    statement_text,
    summarize_against_baseline,
    system_pairs,
)
from stats.systems import precision_recall_f1

EVALUATION_DEFAULTS = {
    "n_random": 1000,
    "n_resamples": 1000,
    "alpha": 0.05,
    "seed": 0,
    "chunk_size": 100,
    "method": "bootstrap",
    "resample": "queries",
    "per_query": False,
}


def returned_matrix(v: Votes, runs: Sequence[Run]) -> np.ndarray:
    """systems x items: which pooled items each system returned (at any depth)."""
    index = {item: i for i, item in enumerate(v.items)}
    matrix = np.zeros((len(runs), len(v.items)), bool)
    for s, run in enumerate(runs):
        for topic, results in run.data["results"].items():
            for result in results:
                if (topic, result["id"]) in index:
                    matrix[s, index[(topic, result["id"])]] = True
    return matrix


def _evaluation_params(params: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(params) - set(EVALUATION_DEFAULTS))
    if unknown:
        raise InvalidInput(f"params.{unknown[0]}", f"unknown parameter (known: {', '.join(EVALUATION_DEFAULTS)})")
    merged = {**EVALUATION_DEFAULTS, **params}
    for name in ("n_random", "n_resamples", "seed", "chunk_size"):
        value = merged[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if name in ("n_random", "seed") else 1):
            raise InvalidInput(
                f"params.{name}", "expected a whole number" + (" >= 0" if name in ("n_random", "seed") else " >= 1")
            )
    if not isinstance(merged["alpha"], (int, float)) or not 0 < merged["alpha"] < 1:
        raise InvalidInput("params.alpha", "expected a number between 0 and 1")
    if merged["method"] not in ("bootstrap", "randomization"):
        raise InvalidInput("params.method", "expected bootstrap or randomization")
    if merged["resample"] not in ("queries", "items"):
        raise InvalidInput("params.resample", "expected queries or items")
    return merged


def _compare(snapshot: dict[str, Any], truth: np.ndarray):

    p = snapshot["params"]
    return compare_systems(
        np.array(snapshot["returned"], bool),
        truth,
        np.array(snapshot["queries"]),
        n_resamples=p["n_resamples"],
        seed=p["seed"],
        alpha=p["alpha"],
        method=p["method"],
        resample=p["resample"],
    )


def evaluation_analysis(input: ReportInput, params: dict[str, Any], progress: Callable[[float, str], None]):
    """Score the systems under every truth set and test every pair (bootstrap,
    shift method); the Random truth sets run as chunks on any number of
    workers, each chunk's sets seeded by their index so the split changes nothing."""

    settings = _evaluation_params(params)
    topics = input.topics
    runs = system_runs(input.runs)
    if len(runs) < 2:
        raise InvalidInput("campaign", "needs the results of at least two systems (runs with results)")
    v = votes(topics, input.judgments)
    if not v.assessors:
        raise InvalidInput("campaign", "no submitted adjudication yet")
    query_of = {t.external_id: q for q, t in enumerate(topics)}
    judged_queries = {topic for (topic, _), row in zip(v.items, v.matrix) if not np.isnan(row).all()}
    if settings["resample"] == "queries" and len(judged_queries) < 2:
        raise InvalidInput(
            "params.resample",
            f"resampling queries needs at least 2 judged queries, and {len(judged_queries)} is judged: "
            "resample items, or judge more queries",
        )
    snapshot = {
        "params": settings,
        "systems": [r.name for r in runs],
        "adjudicators": v.assessors,
        "items": [list(item) for item in v.items],
        "queries": [query_of[topic] for topic, _ in v.items],
        "votes": v.matrix.tolist(),
        "returned": returned_matrix(v, runs).tolist(),
    }
    fixed = {}
    for index, truth in enumerate(table1_truths(v.assessors)):
        progress(0.02 + 0.08 * index / len(v.assessors + ["c", "u", "i"]), f"truth set {truth}")
        labels = gold_standard(v, truth)
        result = _compare(snapshot, labels)
        fixed[truth] = {
            "f1": result.f1.tolist(),
            "precision": result.precision.tolist(),
            "recall": result.recall.tolist(),
            "p_values": result.p_values.tolist(),
            "statements": result.statements.tolist(),
        }
        if settings["per_query"]:
            per_query = precision_recall_f1(
                np.array(snapshot["returned"], bool), labels, queries=np.array(snapshot["queries"]), average=None
            )
            fixed[truth]["per_query_f1"] = np.asarray(per_query.f1).tolist()
    snapshot["fixed"] = fixed
    n, size = settings["n_random"], settings["chunk_size"]
    chunks = [{"start": start, "stop": min(start + size, n)} for start in range(0, n, size)]
    if not chunks:
        return combine_evaluation(snapshot, [])
    return Chunked(snapshot, chunks)


def run_evaluation_chunk(snapshot: dict[str, Any], chunk: dict[str, Any]) -> dict[str, Any]:

    p = snapshot["params"]
    sets = random_truth_sets(
        np.array(snapshot["votes"], float),
        n_sets=p["n_random"],
        seed=p["seed"],
        start=chunk["start"],
        stop=chunk["stop"],
    )
    statements, f1 = [], []
    for truth in sets:
        result = _compare(snapshot, truth)
        statements.append(result.statements.tolist())
        f1.append(result.f1.tolist())
    return {"statements": statements, "f1": f1}


def combine_evaluation(snapshot: dict[str, Any], chunks: list[dict[str, Any]]) -> dict[str, Any]:
    fixed = snapshot["fixed"]
    systems = snapshot["systems"]
    baseline = np.array(fixed["consensus"]["statements"])
    table2 = []
    for truth, result in fixed.items():
        comparison = compare_statements(np.array(result["statements"]), baseline)
        table2.append(
            {
                "truth": truth,
                "sensitivity": float(comparison.sensitivity),
                "disagreement": None if truth == "consensus" else float(comparison.disagreement),
                "reversal": None if truth == "consensus" else float(comparison.reversal),
            }
        )
    random_statements = np.array([s for chunk in chunks for s in chunk["statements"]], dtype=np.int8)
    random_f1 = np.array([f for chunk in chunks for f in chunk["f1"]])
    random_summary = None
    if len(random_statements):
        summary = summarize_against_baseline(random_statements, baseline)
        random_summary = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(summary).items()}
    pairs = system_pairs(len(systems))
    return {
        "params": snapshot["params"],
        "systems": systems,
        "adjudicators": snapshot["adjudicators"],
        "items": len(snapshot["items"]),
        "table2": table2,
        "random": random_summary,
        "f1": {truth: result["f1"] for truth, result in fixed.items()},
        "random_f1": {
            "mean": random_f1.mean(axis=0).tolist(),
            "low": np.percentile(random_f1, 2.5, axis=0).tolist(),
            "high": np.percentile(random_f1, 97.5, axis=0).tolist(),
        }
        if len(random_f1)
        else None,
        "fixed": {truth: {k: v for k, v in result.items() if k != "statements"} for truth, result in fixed.items()},
        "pairs": [[systems[a], systems[b]] for a, b in pairs],
        "statements": {
            truth: statement_text(np.array(result["statements"]), systems) for truth, result in fixed.items()
        },
    }


#: The analyses' params (checked before a job is stored; see JOB_BUDGET in
#: scoring/services.py). Measured on the Name-search demo (13 systems, 40
#: queries): 100 Random truth sets x 1000 query resamples take 0.3 s, and
#: 10 sets x 10000 item resamples 2.3 s and 250 MB. A chunk's time grows with
#: chunk_size x n_resamples x pooled items, its memory with n_resamples x
#: items; chunks run on any number of workers. At the bounds one chunk
#: (500 sets x 10000 resamples) takes about 2 minutes on that campaign.
ANALYSIS_PARAMS = {
    "evaluation": ParamsSchema(
        Int(
            "n_random",
            EVALUATION_DEFAULTS["n_random"],
            min=0,
            max=10_000,
            help="Random truth sets (one adjudicator drawn per item), as in Arehart et al.'s Table 2.",
        ),
        Int(
            "n_resamples",
            EVALUATION_DEFAULTS["n_resamples"],
            min=1,
            max=10_000,
            help="Resamples of each significance test.",
        ),
        Float(
            "alpha",
            EVALUATION_DEFAULTS["alpha"],
            min=0.0,
            max=1.0,
            exclusive=True,
            help="Significance level of the statements A > B.",
        ),
        Int(
            "seed",
            EVALUATION_DEFAULTS["seed"],
            min=0,
            max=2**32 - 1,
            help="Seed of the random draws (the same seed, the same result).",
        ),
        Int(
            "chunk_size",
            EVALUATION_DEFAULTS["chunk_size"],
            min=1,
            max=500,
            help="Random truth sets per chunk (a chunk is one task; chunks run on any number of workers).",
        ),
        Choice(
            "method",
            EVALUATION_DEFAULTS["method"],
            ("bootstrap", "randomization"),
            help="bootstrap (shift method) or randomization test.",
        ),
        Choice(
            "resample",
            EVALUATION_DEFAULTS["resample"],
            ("queries", "items"),
            help="What the test resamples: whole queries or single items.",
        ),
        Bool("per_query", EVALUATION_DEFAULTS["per_query"], help="Also report every system's F1 per query."),
    )
}
CHUNKS = {"evaluation": (run_evaluation_chunk, combine_evaluation)}


def evaluation_ready(facts) -> str | None:
    """Why the system evaluation cannot run yet (``Analysis.ready``), or None."""
    if facts.runs_with("results") < 2:
        return "needs the results of at least two systems (runs with results)"
    if not facts.judgments:
        return "no submitted adjudication yet"
    return None
