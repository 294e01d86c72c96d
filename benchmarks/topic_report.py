"""Benchmark: what one topic report (and its partial) costs, per kind, against a straightforward reference.

A first build computes every topic's report and partial (scoring/jobs.py,
``_topic_reports``): the kind's ``Reports.topic``, its disagreement and
the packed ``Reports.partial`` (and here the report's dump, to compare it). Here that is timed per kind
on a synthetic campaign (``benchmarks.incremental.synthetic_campaign``: N
copies of the kind's example topic, each judged by 10 assessors submitting
one of the kind's two example payloads at random), read once with
``report_input``; no database work is timed. Best of ``--repeat``.

The reference, in the same run on the same input, is the per-topic work done
the straightforward way, kept here: every figure bootstrapped down to
2 units (an interval over 4 documents, where the reports draw none below
``stats.stopping.MIN_UNITS`` units), relevance's kappas one ``cohen_kappa``
call per pair and weighting (each encoding both assessors' grades again), and
factoids' pairs each parsing the topic and both annotations once per function
(``suggest_relations``, ``definition_kappa``, ``definition_items``,
``annotation_kappa``, ``annotation_items``), clustering's pairs each
factorising both judges' labellings again (``clustering_scores``) and its
random baseline completing every judge again per profile, and ordering's
Kendall tau matrix one ``kendall_tau`` per pair. Every figure of the report after
must equal the one before to 1e-12, except the intervals now left out
("too few"), whose value and units must still equal; the ``unequal`` count
says how many did not.

Run from the project root::

    python -m benchmarks.topic_report [--kind relevance] [--topics 30] [--assessors 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import tempfile
from itertools import combinations
from pathlib import Path
from unittest import mock

os.environ["CONCORD_SQLITE_PATH"] = str(Path(tempfile.mkdtemp(prefix="concord-topic-report-")) / "bench.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "concord.settings")
os.environ.pop("DATABASE_URL", None)

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.core.management import call_command  # noqa: E402

import kinds.clustering.report as clustering_report  # noqa: E402
import kinds.factoids.report as factoids_report  # noqa: E402
import kinds.relevance.stats as relevance_metrics  # noqa: E402
import stats.intervals  # noqa: E402
from benchmarks._harness import measure, print_result, print_table  # noqa: E402
from benchmarks.incremental import synthetic_campaign  # noqa: E402
from concord import typed  # noqa: E402
from kinds.clustering import stats as cm  # noqa: E402
from kinds.factoids import stats as fm  # noqa: E402
from kinds.ordering import stats as om  # noqa: E402
from kinds.registry import KINDS  # noqa: E402
from scoring.selectors import report_input  # noqa: E402
from stats import agreement  # noqa: E402

#: The goal per topic report (a 10,000-topic first build in 60 s leaves 6 ms a topic).
GOAL_MS = 5.0


# -- the reference: the per-topic work done the straightforward way ------------------------------


def reference_pairwise_kappa(grades, *, scale=None) -> relevance_metrics.PairwiseKappa:
    """relevance's ``pairwise_kappa`` as it was: one ``cohen_kappa`` per pair and weighting."""
    grades = relevance_metrics._grades(grades)
    scale = relevance_metrics._scale(scale, grades)
    n = grades.shape[0]
    judged = ~np.isnan(grades)
    n_common = judged.astype(np.int64) @ judged.T.astype(np.int64)
    kappas = {w: np.full((n, n), np.nan) for w in (None, "linear", "quadratic")}
    for a in range(n):
        for b in range(a, n):
            common = judged[a] & judged[b]
            if not common.any():
                continue
            for weights, matrix in kappas.items():
                value = agreement.cohen_kappa(grades[a, common], grades[b, common], weights=weights, labels=scale)
                matrix[a, b] = matrix[b, a] = value
    return relevance_metrics.PairwiseKappa(kappas[None], kappas["linear"], kappas["quadratic"], n_common, scale)


def _only(payload: dict, keep: dict[str, str]) -> dict:
    return {
        "factoids": [f for f in payload["factoids"] if f["id"] in keep],
        "marks": {s: [f for f in found if f in keep] for s, found in payload["marks"].items()},
    }


def reference_factoids_agreement(topic, payloads, confirmed=None, unit="summary", settings=None):
    """factoids' ``agreement`` as it was: every pair parses the topic and both annotations per function."""
    r = factoids_report
    settings = settings or stats.intervals.IntervalSettings()
    summaries = r.summaries_of(topic)
    rows = []
    for first, second in combinations(sorted(payloads), 2):
        one, two = payloads[first], payloads[second]
        relations, source = r.relations_of(topic, first, second, one, two, confirmed)
        definition = fm.definition_kappa(relations, one, two, summaries)
        definition_labels = fm.definition_items(relations, one, two, summaries).labels
        identities = r.one_to_one([x for x in relations if len(x["first"]) == len(x["second"]) == 1])
        keys = ({x["first"][0]: x["first"][0] for x in identities}, {x["second"][0]: x["first"][0] for x in identities})
        restricted = [_only(one, keys[0]), _only(two, keys[1])]
        annotation = fm.annotation_kappa(restricted, summaries, unit=unit, factoid_keys=keys) if identities else None
        annotation_ci = (
            r.kappa_ci(
                fm.annotation_items(restricted, summaries, unit=unit, factoid_keys=keys).labels,
                r.UNIT_NAMES[unit],
                settings,
            )
            if identities
            else None
        )
        rows.append(
            r.FactoidsPair(
                annotators=(first, second),
                relations=source,
                identities=len(identities),
                subsumptions=len(relations) - len(identities),
                definition=r._kappa(definition, r.kappa_ci(definition_labels, r.UNIT_NAMES["definition"], settings)),
                annotation=r._kappa(annotation, annotation_ci) if annotation and annotation_ci else None,
            )
        )
    return r.FactoidsPhaseAgreement(pairs=rows)


def reference_compare_labels(true, pred):
    """clustering's pair comparison as it was: ``clustering_scores`` factorising both labellings again."""
    result = {}
    for method in clustering_report.METHODS:
        scores = cm.clustering_scores(true[method].codes, pred[method].codes)
        result[method] = clustering_report.ClusteringMeasures(
            **{name: float(getattr(scores, name)) for name in cm.MEASURES},
            v_half=float(cm.weighted_v(scores.homogeneity, scores.completeness, 0.5)),
            nvi=float(scores.normalized_variation_of_information),
        )
    return result


def reference_compare_many(pairs):
    """clustering's comparisons as they were: one ``reference_compare_labels`` per pair."""
    return [reference_compare_labels(true, pred) for true, pred in pairs]


def reference_clustering_baseline(clusterings, items, completed=None):
    """clustering's random baseline as it was: every profile completing every judge again."""
    judges = list(clusterings.values())
    result = {}
    for method in clustering_report.METHODS:
        runs = [
            cm.random_baseline_means(
                clusters, judges, items, method=method, n_random=clustering_report.BASELINE_DRAWS, beta=0.5, seed=index
            )
            for index, clusters in enumerate(judges)
            if clusters
        ]
        result[method] = clustering_report.ClusteringFigures(
            v_beta=float(np.mean([r["v_beta"] for r in runs])) if runs else float("nan"),
            v_half=float(np.mean([r["v_measure"] for r in runs])) if runs else float("nan"),
            nvi=float(np.mean([r["normalized_variation_of_information"] for r in runs])) if runs else float("nan"),
        )
    return clustering_report.ClusteringTable3(**result)


def reference_kendall_tau_matrix(orders):
    """ordering's tau matrix as it was: one ``kendall_tau`` per pair, ranking both orderings again."""
    taus = np.eye(len(orders))
    for i, j in combinations(range(len(orders)), 2):
        taus[i, j] = taus[j, i] = om.kendall_tau(orders[i], orders[j])
    return taus


@contextlib.contextmanager
def before():
    """The reference path: intervals down to 2 units and the per-pair computations above."""
    with (
        mock.patch.object(stats.intervals, "MIN_UNITS", 2),
        mock.patch.object(relevance_metrics, "pairwise_kappa", reference_pairwise_kappa),
        mock.patch.object(factoids_report, "agreement", reference_factoids_agreement),
        mock.patch.object(clustering_report, "_compare_many", reference_compare_many),
        mock.patch.object(clustering_report, "baseline", reference_clustering_baseline),
        mock.patch.object(om, "kendall_tau_matrix", reference_kendall_tau_matrix),
    ):
        yield


# -- timing and comparing ---------------------------------------------------------------------


def build_all(given, reports) -> list:
    """What the first build does per topic (scoring.jobs._topic_reports), without the writes."""
    built_reports = []
    for topic in given.topics:
        built = reports.topic(given, topic)
        partial = typed.pack(reports.partial(given, topic, built)) if reports.partial else None
        built_reports.append((typed.dump(built), reports.disagreement(built), partial))
    return built_reports


def differences(after, before, path: str = "") -> list[str]:
    """Where ``after`` differs from ``before`` (to 1e-12); an interval left out ("too few") after
    must keep the value and units it had."""
    if isinstance(after, dict) and isinstance(before, dict):
        if after.get("method") == stats.intervals.TOO_FEW and "method" in before:
            after = {k: after[k] for k in ("value", "units")}
            before = {k: before[k] for k in ("value", "units")}
        if set(after) != set(before):
            return [f"{path}: keys {sorted(set(after) ^ set(before))}"]
        return [d for key in after for d in differences(after[key], before[key], f"{path}.{key}")]
    if isinstance(after, (list, tuple)) and isinstance(before, (list, tuple)):
        if len(after) != len(before):
            return [f"{path}: {len(after)} entries, was {len(before)}"]
        return [d for i, (a, b) in enumerate(zip(after, before)) for d in differences(a, b, f"{path}[{i}]")]
    if isinstance(after, float) and isinstance(before, float):
        same = (math.isnan(after) and math.isnan(before)) or abs(after - before) <= 1e-12
        return [] if same else [f"{path}: {after!r}, was {before!r}"]
    return [] if after == before else [f"{path}: {after!r}, was {before!r}"]


def too_few_share(dumped) -> tuple[int, int]:
    """(intervals left out as too few, intervals) in a dumped report."""
    if isinstance(dumped, dict):
        here = (int(dumped.get("method") == stats.intervals.TOO_FEW), 1) if "method" in dumped else (0, 0)
        inner = [too_few_share(v) for v in dumped.values()]
    elif isinstance(dumped, list):
        here, inner = (0, 0), [too_few_share(v) for v in dumped]
    else:
        return (0, 0)
    return (here[0] + sum(i[0] for i in inner), here[1] + sum(i[1] for i in inner))


def measure_kind(kind: str, topics: int, assessors: int, repeat: int) -> dict:
    campaign = synthetic_campaign(kind, topics, assessors)
    given = report_input(campaign)
    reports = KINDS[kind].reports
    after = measure(lambda: build_all(given, reports), repeat=repeat, trace_memory=False)
    with before():
        reference = measure(lambda: build_all(given, reports), repeat=repeat, trace_memory=False)
    # the reports (the partials are built from them; the merge is checked by tests/scoring/test_incremental.py)
    unequal = [d for (new, *_), (old, *_) in zip(after.value, reference.value) for d in differences(new, old)]
    for line in unequal[:5]:
        print(f"{kind}: {line[:200]}", file=sys.stderr)
    left_out, total = too_few_share(after.value[0][0])
    return {
        "kind": kind,
        "before_ms": 1000 * reference.seconds / topics,
        "after_ms": 1000 * after.seconds / topics,
        "too_few": f"{left_out} of {total}",
        "unequal": len(unequal),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kind", action="append", choices=sorted(KINDS), help="a kind (repeatable; default all)")
    parser.add_argument("--topics", type=int, default=30)
    parser.add_argument("--assessors", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    rows = [measure_kind(kind, args.topics, args.assessors, args.repeat) for kind in args.kind or sorted(KINDS)]
    print_table(
        ["kind", "before, ms/topic", "after, ms/topic", "ratio", "intervals too few (one topic)", "unequal"],
        [
            [r["kind"], r["before_ms"], r["after_ms"], r["before_ms"] / r["after_ms"], r["too_few"], r["unequal"]]
            for r in rows
        ],
    )
    worst = max(rows, key=lambda r: r["after_ms"])
    print_result(
        "topic_report",
        seconds=worst["after_ms"] / 1000,
        reference_seconds=worst["before_ms"] / 1000,
        peak_mb=0.0,
        worst_kind=worst["kind"],
        worst_ms=worst["after_ms"],
        goal_ms=GOAL_MS,
        topics=args.topics,
        assessors=args.assessors,
        unequal=sum(r["unequal"] for r in rows),
        **{f"{r['kind']}_ms": r["after_ms"] for r in rows},
    )


if __name__ == "__main__":
    main()
