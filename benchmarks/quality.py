"""Benchmark: crowd quality control (stats.quality) on a simulated crowd with known accuracies.

The crowd, per number of classes (2, 3, 5; classes equally likely): 1,000 good
workers (accuracy drawn from U(0.85, 0.95)), 200 careless ones (U(0.55,
0.65)), 100 spammers answering uniformly at random and 100 always giving one
label (their own, drawn at random); a wrong answer of a good or careless
worker is one of the other classes at random. Each worker gives ``--labels``
labels (500); each label is on a control item with probability 1/20, 1/10 or
1/5 (the rate), drawn from a pool of 400 controls without repeats for a
worker; the other labels go to regular items, 5 labels an item.

Rules first, exactly: for each candidate rule (threshold, minimum controls,
interval and level), ``pause_probability`` gives the chance that a worker of
a given true accuracy is ever paused within 100 controls (the rule applied
after every control) and the expected number of good workers of this crowd
paused wrongly. Then the simulation at the recommended rule, per classes and
rate: how many labels each spammer gave before being paused (mean, 95th
percentile; workers never paused count their ``--labels``), the share of
careless workers paused, the good workers paused (counted, and expected from
the exact probabilities of their own accuracies and numbers of controls), and
the accuracy of the gold on the regular items: majority vote, Dawid-Skene and
MACE without and with the controls pinned (``known=``), and Dawid-Skene
pinned with each paused worker's labels after the pause left out (what the
campaign keeps when a paused worker gets no more work; the simulation does
not hand their remaining items to others, so those items keep fewer labels).
Last, a colluding crowd at 2 classes and 1 control in 10: 300 good workers
and 700 spammers who all answer 0, where the majority is wrong on half the
items and the controls decide whom to trust.

The RESULT line: ``seconds`` is the exact computation of every good worker's
probability of being paused (one ``pause_probability`` call),
``reference_seconds`` a seeded Monte Carlo of the same 1,000 workers (2,000
runs each), whose estimate is printed beside the exact one;
``good_paused`` the good workers paused in all the simulations at the
recommended rule (goal 0 of 1,000 in each), ``good_paused_expected`` the
exact expectation, ``spammer_labels_p95`` the largest 95th percentile of a
spammer's labels before the pause, and the gold's accuracy with and without
the controls pinned at 1 control in 10 and 2 classes, and in the colluding
crowd (``hostile_*``).

Run from the project root: ``python -m benchmarks.quality`` (about two and a
half minutes on a loaded 2-core machine, most of it MACE), ``--small`` for 200 labels
a worker and 2 classes only.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from benchmarks._harness import measure, print_result, print_table
from stats.quality import pause_boundary, pause_probability
from stats.truthinference import dawid_skene, mace

SEED = 38
GOOD, CARELESS, RANDOM_SPAM, CONSTANT_SPAM = 1000, 200, 100, 100
KINDS = np.repeat(["good", "careless", "random", "constant"], [GOOD, CARELESS, RANDOM_SPAM, CONSTANT_SPAM])
#: A colluding crowd: 300 good workers and 700 spammers who all give the same label.
HOSTILE = np.repeat(["good", "constant"], [300, 700])
RATES = (20, 10, 5)  # one label in N is on a control
CLASSES = (2, 3, 5)
POOL, PER_ITEM = 400, 5
#: The recommended rule: pause when, after at least 10 controls, the upper bound of the
#: 99% Wilson interval on the worker's accuracy is below 0.7 (see the rules table).
RULE: dict[str, Any] = {"threshold": 0.7, "minimum": 10, "level": 0.99, "method": "wilson"}
CANDIDATES: list[dict[str, Any]] = [
    {"threshold": 0.7, "minimum": 10, "level": 0.95, "method": "wilson"},
    {"threshold": 0.7, "minimum": 20, "level": 0.95, "method": "wilson"},
    RULE,
    {"threshold": 0.7, "minimum": 10, "level": 0.95, "method": "beta"},
    {"threshold": 0.7, "minimum": 10, "level": 0.95, "method": "jeffreys"},
]


def rule_name(rule: dict[str, Any]) -> str:
    return f"{rule['method']} {rule['level']:.0%} < {rule['threshold']:g} from {rule['minimum']}"


def crowd(k: int, rng: np.random.Generator, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each worker's true accuracy on a control and, for the constant spammers, their label
    (their own at random; in the hostile crowd all the same, 0)."""
    accuracy = np.full(len(kinds), np.nan)  # constant spammers: set by the controls' classes
    accuracy[kinds == "good"] = rng.uniform(0.85, 0.95, np.sum(kinds == "good"))
    accuracy[kinds == "careless"] = rng.uniform(0.55, 0.65, np.sum(kinds == "careless"))
    accuracy[kinds == "random"] = 1.0 / k
    constant = rng.integers(0, k, len(kinds)) if kinds is KINDS else np.zeros(len(kinds), dtype=np.int64)
    return accuracy, constant


def simulate(k: int, rate: int, n_labels: int, rule: dict[str, Any], kinds: np.ndarray = KINDS) -> dict[str, Any]:
    """One crowd at one rate: every worker's labels, the pauses and the gold's accuracy."""
    rng = np.random.default_rng([SEED, k, rate, len(kinds)])
    accuracy, constant = crowd(k, rng, kinds)
    workers = len(kinds)
    control = rng.random((workers, n_labels)) < 1.0 / rate
    # Items: controls from the pool without repeats for a worker, regular items PER_ITEM labels each.
    order = np.argsort(rng.random((workers, POOL)), axis=1)
    nth_control = np.cumsum(control, axis=1) - 1
    if nth_control.max() >= POOL:
        raise SystemExit(f"a worker has more than {POOL} controls: lower --labels")
    item = np.where(control, order[np.arange(workers)[:, None], np.maximum(nth_control, 0)], -1)
    regular_slots = np.flatnonzero(~control.ravel())
    n_regular = len(regular_slots) // PER_ITEM
    shuffled = rng.permutation(len(regular_slots))
    item.ravel()[regular_slots] = POOL + np.minimum(shuffled // PER_ITEM, n_regular - 1)
    truth = rng.integers(0, k, POOL + n_regular)
    true = truth[item]
    # Labels: right with the worker's accuracy, else another class at random; spammers their own way.
    kind = np.broadcast_to(kinds[:, None], control.shape)
    right = rng.random(control.shape) < np.nan_to_num(accuracy)[:, None]
    other = (true + rng.integers(1, k, control.shape)) % k
    label = np.where(right, true, other)
    label = np.where(kind == "random", rng.integers(0, k, control.shape), label)
    label = np.where(kind == "constant", constant[:, None], label)
    correct = control & (label == true)

    # The rule after every control: paused at the first control with k right <= boundary[m].
    seen = np.cumsum(control, axis=1)
    got = np.cumsum(correct, axis=1)
    boundary = pause_boundary(int(seen[:, -1].max()), **rule)
    crossing = control & (got <= boundary[seen])
    paused = crossing.any(axis=1)
    given = np.where(paused, crossing.argmax(axis=1) + 1, n_labels)  # labels given, the pausing control included
    controls_seen = seen[:, -1]

    good = kinds == "good"
    risk = pause_probability(accuracy[good], int(controls_seen[good].max()), **rule)
    expected_good = float(risk.by_control[np.arange(good.sum()), controls_seen[good]].sum())

    # The gold: every label, or each paused worker's labels up to their pause.
    worker_of = np.broadcast_to(np.arange(workers)[:, None], control.shape)
    kept = np.arange(n_labels)[None, :] < given[:, None]
    known = {int(i): int(truth[i]) for i in np.unique(item[control])}
    regular = np.arange(POOL, POOL + n_regular)

    def long(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        items, who, labels = item[mask], worker_of[mask], label[mask]
        _, first = np.unique(items * workers + who, return_index=True)  # one label per worker and item
        first.sort()
        return items[first], who[first], labels[first]

    every = long(np.ones_like(control))
    until_paused = long(kept)
    sizes = {"n_items": POOL + n_regular, "n_workers": workers, "n_classes": k}

    def accuracy_of(fit) -> float:
        return float(np.mean(fit.labels[regular] == truth[regular]))

    votes = np.bincount(every[0] * k + every[2], minlength=(POOL + n_regular) * k).reshape(-1, k)
    gold = {
        "majority": float(np.mean(votes[regular].argmax(axis=1) == truth[regular])),
        "ds": accuracy_of(dawid_skene(*every, **sizes)),
        "ds_pinned": accuracy_of(dawid_skene(*every, **sizes, known=known)),
        "ds_pinned_paused": accuracy_of(dawid_skene(*until_paused, **sizes, known=known)),
        "mace": accuracy_of(mace(*every, **sizes)),
        "mace_pinned": accuracy_of(mace(*every, **sizes, known=known)),
    }
    spam = np.isin(kinds, ["random", "constant"])

    def share(values: np.ndarray, of: str, statistic=np.mean) -> float:
        chosen = values[kinds == of]
        return float(statistic(chosen)) if len(chosen) else float("nan")

    return {
        "k": k,
        "rate": rate,
        "labels": len(every[0]),
        "controls_good": float(controls_seen[good].mean()),
        "random_paused": share(paused, "random"),
        "random_mean": share(given, "random"),
        "random_p95": share(given, "random", lambda v: np.percentile(v, 95)),
        "constant_paused": share(paused, "constant"),
        "constant_mean": share(given, "constant"),
        "constant_p95": share(given, "constant", lambda v: np.percentile(v, 95)),
        "spam_p95": float(np.percentile(given[spam], 95)),
        "careless_paused": share(paused, "careless"),
        "good_paused": int(paused[good].sum()),
        "good_expected": expected_good,
        **gold,
    }


def rules_table(n_controls: int = 100) -> None:
    """Each candidate rule's exact error rates within ``n_controls`` controls."""
    good = np.random.default_rng(SEED).uniform(0.85, 0.95, GOOD)
    asked = np.array([0.85, 0.9, 0.6, 0.5, 1 / 3, 0.2])
    rows = []
    for rule in CANDIDATES:
        risk = pause_probability(asked, n_controls, **rule)
        crowd_risk = pause_probability(good, n_controls, **rule).probability.sum()
        rows.append(
            [
                rule_name(rule) + (" (recommended)" if rule is RULE else ""),
                f"{risk.probability[0]:.2e}",
                f"{risk.probability[1]:.1e}",
                f"{crowd_risk:.3f}",
                f"{risk.probability[2]:.3f}",
                f"{risk.probability[3]:.3f} / {risk.expected_controls[3]:.1f}",
                f"{risk.probability[4]:.4f} / {risk.expected_controls[4]:.1f}",
                f"{risk.probability[5]:.4f} / {risk.expected_controls[5]:.1f}",
            ]
        )
    print(f"Exact error rates of each rule within {n_controls} controls (pause_probability):")
    print_table(
        [
            "rule",
            "P(paused) p=0.85",
            "p=0.90",
            "good paused /1000",
            "p=0.6",
            "p=0.5: P / controls",
            "p=1/3",
            "p=0.2",
        ],
        rows,
    )


def monte_carlo(accuracy: np.ndarray, n: int, runs: int, rule: dict[str, Any], seed: int) -> float:
    """Expected number of the workers paused within n controls, by simulation."""
    boundary = pause_boundary(n, **rule)
    rng = np.random.default_rng(seed)
    paused = 0
    for p in accuracy:
        got = np.cumsum(rng.random((runs, n)) < p, axis=1)
        paused += int((got <= boundary[1:]).any(axis=1).sum())
    return paused / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=500, help="labels per worker (500)")
    parser.add_argument("--small", action="store_true", help="200 labels a worker, 2 classes only")
    args = parser.parse_args()
    n_labels, classes = (200, (2,)) if args.small else (args.labels, CLASSES)
    start = time.perf_counter()

    print(
        f"Crowd: {GOOD:,} good workers U(0.85, 0.95), {CARELESS} careless U(0.55, 0.65), {RANDOM_SPAM} random "
        f"spammers, {CONSTANT_SPAM} always giving one label; {n_labels} labels each; seed {SEED}\n"
    )
    rules_table()
    print(f"\nSimulated, at the recommended rule ({rule_name(RULE)}):")
    results = [simulate(k, rate, n_labels, RULE) for k in classes for rate in RATES]
    print_table(
        [
            "classes",
            "controls",
            "random: paused / mean / p95",
            "constant: paused / mean / p95",
            "careless paused",
            "good paused",
            "expected",
        ],
        [
            [
                r["k"],
                f"1 in {r['rate']} ({r['controls_good']:.0f})",
                f"{r['random_paused']:.2f} / {r['random_mean']:.0f} / {r['random_p95']:.0f}",
                f"{r['constant_paused']:.2f} / {r['constant_mean']:.0f} / {r['constant_p95']:.0f}",
                f"{r['careless_paused']:.2f}",
                f"{r['good_paused']} of {GOOD:,}",
                f"{r['good_expected']:.3f}",
            ]
            for r in results
        ],
    )
    print("\nThe gold's accuracy on the regular items (controls pinned = known= in the model):")
    print_table(
        ["classes", "controls", "labels", "majority", "DS", "DS pinned", "DS pinned, pauses", "MACE", "MACE pinned"],
        [
            [
                r["k"],
                f"1 in {r['rate']}",
                f"{r['labels']:,}",
                *(
                    f"{r[key]:.4f}"
                    for key in ("majority", "ds", "ds_pinned", "ds_pinned_paused", "mace", "mace_pinned")
                ),
            ]
            for r in results
        ],
    )

    hostile = simulate(2, 10, n_labels, RULE, HOSTILE)
    print(
        "\nA colluding crowd (2 classes, 1 control in 10): 300 good workers and 700 spammers all giving label 0:\n"
        f"constant spammers paused {hostile['constant_paused']:.2f}, after {hostile['constant_mean']:.0f} labels "
        f"on average (p95 {hostile['constant_p95']:.0f}); good paused {hostile['good_paused']} of 300"
    )
    print_table(
        ["majority", "DS", "DS pinned", "DS pinned, pauses", "MACE", "MACE pinned"],
        [[f"{hostile[key]:.4f}" for key in ("majority", "ds", "ds_pinned", "ds_pinned_paused", "mace", "mace_pinned")]],
    )

    # Exact against Monte Carlo: the good workers' expected wrongful pauses within 100 controls.
    good = np.random.default_rng(SEED).uniform(0.85, 0.95, GOOD)
    exact = measure(lambda: pause_probability(good, 100, **RULE).probability.sum())
    runs = 2000
    reference = measure(lambda: monte_carlo(good, 100, runs, RULE, SEED), trace_memory=False)
    print(
        f"\nGood workers paused within 100 controls, expected of {GOOD:,}: exact {exact.value:.4f} "
        f"({exact.seconds:.3f} s), Monte Carlo {reference.value:.4f} with {runs:,} runs a worker "
        f"({reference.seconds:.1f} s); whole run {time.perf_counter() - start:.0f} s"
    )
    headline = next(r for r in results if r["k"] == 2 and r["rate"] == 10)
    print_result(
        "quality",
        seconds=exact.seconds,
        reference_seconds=reference.seconds,
        peak_mb=exact.peak_mb,
        good_paused=sum(r["good_paused"] for r in results),
        good_paused_max=max(r["good_paused"] for r in results),
        good_paused_expected=max(r["good_expected"] for r in results),
        spammer_labels_p95=max(r["spam_p95"] for r in results),
        gold_ds=headline["ds"],
        gold_ds_pinned=headline["ds_pinned"],
        gold_mace=headline["mace"],
        gold_mace_pinned=headline["mace_pinned"],
        hostile_ds=hostile["ds"],
        hostile_ds_pinned=hostile["ds_pinned"],
        hostile_ds_pinned_paused=hostile["ds_pinned_paused"],
        hostile_mace=hostile["mace"],
        hostile_mace_pinned=hostile["mace_pinned"],
    )


if __name__ == "__main__":
    main()
