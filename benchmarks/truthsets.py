"""Benchmark: the whole name-search truth-set analysis vs a per-pair, per-resample loop.

Synthetic data the size of Arehart, Wolf & Miller (AWM, sections 2.2-2.4,
3.2): 100 queries, about 1,700 pooled pairs, 4 adjudicators, 13 systems.
Every pooled pair has a hidden "plausibility" z; it is a true match when
z > 0 (base rate ~0.22). Adjudicators see z through their own noise and
threshold (pairwise kappa ~0.55-0.72, AWM Figure 4: 0.57-0.78), systems
through theirs (varying recall and precision); the pool is the union of
what the systems returned (AWM 2.2).

Concord's analysis, end to end: the Consensus, Union, Intersection and four
Single truth sets and 1,000 Random truth sets (AWM Table 1); for each,
``compare_systems`` (pooled F1, paired bootstrap with the shift method,
queries resampled, B = 1000, alpha = 0.05, the same seed for every truth
set so a set's result does not depend on chunking); Table 2 against
Consensus (``compare_statements``) and the section 3.2.1 Random summary
(``summarize_against_baseline``).

The reference is the straightforward implementation, run on 10 of the
Random truth sets (1%) and extrapolated per truth set to all 1,007: it
draws each Random set item by item, counts (tp, fp, fn) per query, and for
each of the 78 pairs and each of the 1,000 resamples draws the resampled
queries with numpy and recomputes both systems' pooled F1. It uses the same
random streams as Concord (``random_truth_sets``: one SeedSequence child
per set; ``bootstrap_weights``: ``rng.integers(0, n, n)`` per resample from
one generator), so its p-values and statements are compared with Concord's.

Run from the project root: ``python -m benchmarks.truthsets``.
"""

from __future__ import annotations

import itertools
import resource
import time

import numpy as np

from benchmarks._harness import measure, print_result, print_table
from kinds.pairs.stats import consensus, intersection, random_truth_sets, single, union
from stats.agreement import pairwise_agreement
from stats.significance import compare_statements, compare_systems, summarize_against_baseline

N_QUERIES, N_SYSTEMS, N_ADJUDICATORS = 100, 13, 4
N_RANDOM_SETS, N_RESAMPLES, ALPHA = 1000, 1000, 0.05
DATA_SEED, RANDOM_SETS_SEED, BOOTSTRAP_SEED = 2008, 11, 1989
LOOP_SETS = 10  # Random truth sets the loop reference runs (1% of 1,000)
JUDGES = "ABCD"


def synthetic(rng: np.random.Generator):
    """Votes (items x adjudicators), returned (systems x items), query of each item, hidden truth."""
    candidates = rng.integers(15, 27, N_QUERIES)
    queries = np.repeat(np.arange(N_QUERIES), candidates)
    n = len(queries)
    # Some queries (common names, many variants) have more true matches than others.
    plausibility = rng.normal(-0.9, 1.0, n) + rng.normal(0, 0.4, N_QUERIES)[queries]
    # Adjudicators differ in how loose they are (AWM Figure 5: base rates vary) and in noise.
    thresholds = np.array([-0.15, 0.1, 0.0, 0.25])
    noise = np.array([0.35, 0.3, 0.25, 0.3])
    votes = (plausibility[:, None] + rng.normal(0, 1, (n, N_ADJUDICATORS)) * noise > thresholds).astype(float)
    quality = np.linspace(0.5, 1.4, N_SYSTEMS)
    rng.shuffle(quality)
    cutoffs = rng.uniform(-0.9, 0.3, N_SYSTEMS)
    returned = plausibility + rng.normal(0, 1, (N_SYSTEMS, n)) * quality[:, None] > cutoffs[:, None]
    pooled = returned.any(axis=0)
    return votes[pooled], returned[:, pooled], queries[pooled], plausibility[pooled] > 0


def special_truth_sets(votes: np.ndarray) -> dict[str, np.ndarray]:
    sets = {"Consensus": consensus(votes), "Union": union(votes), "Intersection": intersection(votes)}
    sets.update({f"Judge {JUDGES[j]}": single(votes, j) for j in range(N_ADJUDICATORS)})
    return sets


def concord(votes: np.ndarray, returned: np.ndarray, queries: np.ndarray) -> dict:
    """AWM Tables 1 and 2 and section 3.2.1, with per-phase times."""
    times = {}
    start = time.perf_counter()
    special = special_truth_sets(votes)
    random_sets = random_truth_sets(votes, n_sets=N_RANDOM_SETS, seed=RANDOM_SETS_SEED)
    times["truth sets"] = time.perf_counter() - start

    def compare(truth: np.ndarray):
        return compare_systems(returned, truth, queries, n_resamples=N_RESAMPLES, seed=BOOTSTRAP_SEED, alpha=ALPHA)

    start = time.perf_counter()
    special_results = {name: compare(truth) for name, truth in special.items()}
    random_results = [compare(truth) for truth in random_sets]
    times["compare_systems x 1,007"] = time.perf_counter() - start

    start = time.perf_counter()
    baseline = special_results["Consensus"].statements
    table = {name: compare_statements(result.statements, baseline) for name, result in special_results.items()}
    random_statements = np.stack([result.statements for result in random_results])
    summary = summarize_against_baseline(random_statements, baseline)
    times["Table 2 + Random summary"] = time.perf_counter() - start
    return {
        "special": special_results,
        "table": table,
        "summary": summary,
        "random_sets": random_sets,
        "random_f1": np.stack([result.f1 for result in random_results]),
        "random_p": np.stack([result.p_values for result in random_results]),
        "random_statements": random_statements,
        "times": times,
    }


# --------------------------------------------------------------------------- the loop reference


def loop_random_truth_set(votes: np.ndarray, set_index: int) -> list[float]:
    """One Random truth set, item by item: a uniform draw picks one of the adjudicators who judged the item."""
    stream = np.random.SeedSequence(RANDOM_SETS_SEED, spawn_key=(set_index,))
    uniforms = np.random.default_rng(stream).random(len(votes))
    truth = []
    for item, row in enumerate(votes.tolist()):
        judges = [vote for vote in row if vote == vote]
        truth.append(judges[min(int(uniforms[item] * len(judges)), len(judges) - 1)] if judges else float("nan"))
    return truth


def loop_query_counts(returned: np.ndarray, truth: list[float], queries: np.ndarray) -> list[np.ndarray]:
    """Per system, a (queries x 3) array of (tp, fp, fn), counted item by item."""
    query_ids = sorted(set(queries.tolist()))
    row_of = {q: i for i, q in enumerate(query_ids)}
    per_system = []
    for system in returned.tolist():
        counts = np.zeros((len(query_ids), 3), dtype=np.int64)
        for got, label, query in zip(system, truth, queries.tolist()):
            if label != label:
                continue
            row = row_of[query]
            if got and label == 1.0:
                counts[row, 0] += 1
            elif got:
                counts[row, 1] += 1
            elif label == 1.0:
                counts[row, 2] += 1
        per_system.append(counts)
    return per_system


def f1(tp: float, fp: float, fn: float) -> float:
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator > 0 else 0.0


def loop_bootstrap(counts_a: np.ndarray, counts_b: np.ndarray) -> tuple[float, float]:
    """Shift-method bootstrap of F1(a) - F1(b), one resample at a time; returns (difference, p)."""
    n_units = len(counts_a)
    observed = f1(*counts_a.sum(axis=0).tolist()) - f1(*counts_b.sum(axis=0).tolist())
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    extreme = 0
    for _ in range(N_RESAMPLES):
        drawn = rng.integers(0, n_units, size=n_units)
        resampled = f1(*counts_a[drawn].sum(axis=0).tolist()) - f1(*counts_b[drawn].sum(axis=0).tolist())
        extreme += abs(resampled - observed) >= abs(observed)
    return observed, (extreme + 1) / (N_RESAMPLES + 1)


def loop_reference(votes: np.ndarray, returned: np.ndarray, queries: np.ndarray, n_sets: int):
    """Truth sets 0..n_sets-1: F1 of every system, p-value and statement of every pair."""
    all_f1, all_p, all_statements = [], [], []
    for set_index in range(n_sets):
        truth = loop_random_truth_set(votes, set_index)
        counts = loop_query_counts(returned, truth, queries)
        # Only queries with a known item are resampled (as compare_systems does).
        known = {query for query, label in zip(queries.tolist(), truth) if label == label}
        rows = [row for row, query in enumerate(sorted(set(queries.tolist()))) if query in known]
        counts = [c[rows] for c in counts]
        p_values, statements = [], []
        for a, b in itertools.combinations(range(len(counts)), 2):
            difference, p = loop_bootstrap(counts[a], counts[b])
            p_values.append(p)
            statements.append((1 if difference > 0 else -1 if difference < 0 else 0) if p <= ALPHA else 0)
        all_f1.append([f1(*c.sum(axis=0).tolist()) for c in counts])
        all_p.append(p_values)
        all_statements.append(statements)
    return np.array(all_f1), np.array(all_p), np.array(all_statements)


# --------------------------------------------------------------------------- report


def describe_data(votes, returned, queries, hidden) -> None:
    n_items = len(queries)
    print(
        f"{N_QUERIES} queries, {n_items} pooled pairs ({n_items / N_QUERIES:.1f} per query), {N_SYSTEMS} systems, "
        f"{N_ADJUDICATORS} adjudicators; hidden base rate {hidden.mean():.3f}"
    )
    print(
        "adjudicator base rates (AWM Figure 5): "
        + ", ".join(f"{JUDGES[j]} {votes[:, j].mean():.3f}" for j in range(N_ADJUDICATORS))
    )
    rows = []
    for first, second in itertools.combinations(range(N_ADJUDICATORS), 2):
        agreement = pairwise_agreement(votes[:, first], votes[:, second])
        rows.append(
            [
                f"{JUDGES[first]}-{JUDGES[second]}",
                agreement.overlap,
                agreement.positive,
                agreement.negative,
                agreement.kappa,
            ]
        )
    print("pairwise agreement (AWM Figure 4):")
    print_table(["pair", "overlap", "p+", "p-", "kappa"], rows)


def report_tables(result: dict) -> None:
    print(
        "\nTable 2, statements vs Consensus "
        "(AWM sensitivity: Consensus .744, Union .782, Intersection .538, judges .692-.769):"
    )
    rows = []
    for name, row in result["table"].items():
        baseline = name == "Consensus"
        rows.append([name, row.sensitivity] + (["n/a", "n/a"] if baseline else [row.disagreement, row.reversal]))
    summary = result["summary"]
    rows.append(
        [
            f"Random (mean of {summary.n_sets})",
            summary.mean_sensitivity,
            summary.mean_disagreement,
            f"{summary.n_reversals} reversed",
        ]
    )
    print_table(["truth set", "sensitivity", "disagreement", "reversal"], rows)
    low, high = summary.sensitivity_ci
    print(
        "Random, AWM 3.2.1: sensitivity 0.729 [0.728, 0.731] vs Consensus 0.744, "
        "disagreement 0.0727 [0.0714, 0.0742], no reversal"
    )
    print(
        f"Random, here:      sensitivity {summary.mean_sensitivity:.4f} [{low:.4f}, {high:.4f}] "
        f"vs Consensus {result['table']['Consensus'].sensitivity:.4f}, "
        f"disagreement {summary.mean_disagreement:.4f} "
        f"[{summary.disagreement_ci[0]:.4f}, {summary.disagreement_ci[1]:.4f}], "
        f"{summary.n_reversals} reversed statements in {summary.n_sets_with_reversal} of {summary.n_sets} sets"
    )

    special = result["special"]
    names = list(special)
    print("\nSystem F1 under every truth set (AWM Figure 6); R = recall under Consensus:")
    rows = []
    for s in range(N_SYSTEMS):
        rows.append(
            [f"S{s + 1:02d}", special["Consensus"].recall[s]]
            + [special[name].f1[s] for name in names]
            + [result["random_f1"][:, s].mean()]
        )
    short = [name.replace("Judge ", "") for name in names]
    print_table(["system", "R"] + short + ["Random"], rows)


def main() -> None:
    votes, returned, queries, hidden = synthetic(np.random.default_rng(DATA_SEED))
    describe_data(votes, returned, queries, hidden)
    n_sets = N_RANDOM_SETS + len(special_truth_sets(votes))

    timed = measure(lambda: concord(votes, returned, queries), repeat=2, trace_memory=False)
    result = timed.value
    # tracemalloc slows every numpy allocation, so memory comes from a separate run.
    traced = measure(lambda: concord(votes, returned, queries), repeat=1, trace_memory=True)

    start = time.perf_counter()
    loop_f1, loop_p, loop_statements = loop_reference(votes, returned, queries, LOOP_SETS)
    loop_seconds = time.perf_counter() - start
    reference_seconds = loop_seconds / LOOP_SETS * n_sets

    loop_sets = np.array([loop_random_truth_set(votes, i) for i in range(LOOP_SETS)])
    sets_equal = np.array_equal(loop_sets, result["random_sets"][:LOOP_SETS], equal_nan=True)
    f1_difference = float(np.max(np.abs(loop_f1 - result["random_f1"][:LOOP_SETS])))
    p_difference = float(np.max(np.abs(loop_p - result["random_p"][:LOOP_SETS])))
    p_mismatches = int(np.count_nonzero(loop_p != result["random_p"][:LOOP_SETS]))
    statement_mismatches = int(np.count_nonzero(loop_statements != result["random_statements"][:LOOP_SETS]))

    report_tables(result)

    print(f"\nTiming: {n_sets} truth sets x {N_RESAMPLES} resamples x {N_SYSTEMS * (N_SYSTEMS - 1) // 2} pairs")
    rows = [[f"Concord: {phase}", seconds, "", "last timed run"] for phase, seconds in result["times"].items()]
    rows += [
        ["Concord end to end", timed.seconds, reference_seconds, "best of 2, no tracemalloc"],
        ["Concord under tracemalloc", traced.seconds, "", f"peak traced {traced.peak_mb:.1f} MB"],
        [f"loop, {LOOP_SETS} Random sets", "", loop_seconds, "measured"],
        [f"loop, {n_sets} sets", "", reference_seconds, f"extrapolated x{n_sets / LOOP_SETS:g}"],
    ]
    print_table(["part", "Concord s", "loop s", "note"], rows)
    max_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS {max_rss_mb:.0f} MB; ratio loop/Concord {reference_seconds / timed.seconds:.0f}x")
    print(
        f"loop vs Concord on Random sets 0-{LOOP_SETS - 1}: truth sets equal: {sets_equal}; "
        f"max |F1 diff| {f1_difference:.1e}; p-values differing {p_mismatches} of {loop_p.size} "
        f"(max |diff| {p_difference:.1e}); statements differing {statement_mismatches} of {loop_statements.size}"
    )
    print_result(
        "truthsets",
        seconds=timed.seconds,
        reference_seconds=reference_seconds,
        peak_mb=traced.peak_mb,
        sets=N_RANDOM_SETS,
        special_sets=n_sets - N_RANDOM_SETS,
        resamples=N_RESAMPLES,
        pairs=N_SYSTEMS * (N_SYSTEMS - 1) // 2,
        items=len(queries),
        queries=N_QUERIES,
        max_p_diff=p_difference,
        statement_mismatches=statement_mismatches,
        extrapolated="yes",
    )


if __name__ == "__main__":
    main()
