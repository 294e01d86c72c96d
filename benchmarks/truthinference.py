"""Benchmark: Dawid-Skene and MACE (stats.truthinference) against crowd-kit 1.4.2.

Synthetic crowd, seeded: 100,000 items with a hidden true class out of 3
(priors 0.5 / 0.3 / 0.2), 1,000 workers, 10 distinct workers per item
(1,000,000 labels). Each worker has a known confusion matrix: accuracy drawn
from U(0.55, 0.95) on the diagonal, the rest spread by a Dirichlet(1, 1)
draw; 10% of the workers are spammers who answer from one fixed random
distribution whatever the item.

Both sides get the same long frame (workers and labels coded 0.. in order of
first appearance: crowd-kit's MACE needs that order to be the sorted one,
see the tests' module docstring) and run their defaults, except that MACE
runs one restart on both sides: crowd-kit gives all its restarts the same
random_state, so its 10 restarts cost 10x and return the one-restart result.
Reported per model: seconds (one run each, time only), the ratio, the largest
|posterior difference|, iterations, and accuracy against the hidden truth.
Memory: Concord's peak traced by tracemalloc (numpy reports its buffers) at
half and full size, to show it grows linearly with the number of labels.

Run from the project root: ``python -m benchmarks.truthinference`` (about
two minutes, almost all of it crowd-kit), ``--small`` for 10,000 items x
200 workers.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

from benchmarks._harness import measure, print_result, print_table
from stats.truthinference import dawid_skene, mace

SEED = 1979
N_CLASSES, PER_ITEM = 3, 10
PRIORS = np.array([0.5, 0.3, 0.2])
SPAMMERS = 0.1


def synthetic(n_items: int, n_workers: int, seed: int = SEED):
    """(items, workers, labels, truth): every item labelled by PER_ITEM distinct workers."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(N_CLASSES, size=n_items, p=PRIORS)
    accuracy = rng.uniform(0.55, 0.95, n_workers)
    off = rng.dirichlet(np.ones(N_CLASSES - 1), size=(n_workers, N_CLASSES))
    confusion = np.empty((n_workers, N_CLASSES, N_CLASSES))
    for c in range(N_CLASSES):
        others = [j for j in range(N_CLASSES) if j != c]
        confusion[:, c, c] = accuracy
        confusion[:, c, others] = (1 - accuracy)[:, None] * off[:, c]
    spam = rng.random(n_workers) < SPAMMERS
    confusion[spam] = rng.dirichlet(np.ones(N_CLASSES), size=int(spam.sum()))[:, None, :]
    # Distinct workers per item: a random start on a shuffled ring of workers, stepping n_workers / PER_ITEM.
    ring = rng.permutation(n_workers)
    start = rng.integers(0, n_workers, n_items)
    step = n_workers // PER_ITEM
    workers = ring[(start[:, None] + step * np.arange(PER_ITEM)) % n_workers].ravel()
    items = np.repeat(np.arange(n_items), PER_ITEM)
    cumulative = confusion.cumsum(axis=2)[workers, truth[items]]
    labels = (rng.random(len(items))[:, None] > cumulative).sum(axis=1)
    labels = np.minimum(labels, N_CLASSES - 1)
    # Codes in order of first appearance (crowd-kit's own factorisation; see the module docstring).
    workers, _ = pd.factorize(workers)
    labels_coded, label_names = pd.factorize(labels)
    truth_coded = np.argsort(label_names)[truth] if len(label_names) == N_CLASSES else truth
    return items, workers.astype(np.int64), labels_coded.astype(np.int64), truth_coded


def crowdkit_probas(model, frame: pd.DataFrame, n_items: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probas = model.fit_predict_proba(frame)
    return probas.reindex(index=range(n_items), columns=range(N_CLASSES)).to_numpy(dtype=float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="10,000 items x 200 workers")
    args = parser.parse_args()
    n_items, n_workers = (10_000, 200) if args.small else (100_000, 1_000)

    from crowdkit.aggregation import MACE, DawidSkene

    items, workers, labels, truth = synthetic(n_items, n_workers)
    frame = pd.DataFrame({"task": items, "worker": workers, "label": labels})
    n_labels = len(items)
    print(
        f"Truth inference, {n_items:,} items x {n_workers:,} workers x {PER_ITEM} labels per item "
        f"({n_labels:,} labels, {N_CLASSES} classes), seed {SEED}"
    )
    print("Reference: crowd-kit 1.4.2 DawidSkene() and MACE(n_restarts=1), same frame, same run. One run each.\n")

    majority = np.bincount(items * N_CLASSES + labels, minlength=n_items * N_CLASSES).reshape(n_items, N_CLASSES)
    rows = [["majority vote", "", "", "", "", "", f"{np.mean(majority.argmax(axis=1) == truth):.4f}"]]
    results = {}
    cases = [
        ("dawid_skene", lambda: dawid_skene(items, workers, labels), DawidSkene()),
        ("mace", lambda: mace(items, workers, labels, n_restarts=1), MACE(n_restarts=1)),
    ]
    for name, ours_fn, model in cases:
        ours = measure(ours_fn, trace_memory=False)
        reference = measure(lambda m=model: crowdkit_probas(m, frame, n_items), trace_memory=False)
        diff = float(np.nanmax(np.abs(ours.value.posteriors - reference.value)))
        accuracy = float(np.mean(ours.value.labels == truth))
        results[name] = (ours.seconds, reference.seconds, diff)
        rows.append(
            [
                name,
                ours.seconds,
                reference.seconds,
                f"{reference.seconds / ours.seconds:.1f}x",
                f"{diff:.2e}",
                ours.value.iterations,
                f"{accuracy:.4f}",
            ]
        )
    print_table(["model", "concord s", "crowd-kit s", "ratio", "max |dposterior|", "iterations", "accuracy"], rows)

    print("\nConcord's peak traced memory, linear in the number of labels:")
    memory_rows = []
    peaks = {}
    for share in (0.5, 1.0):
        m_items = int(n_items * share)
        sub = synthetic(m_items, n_workers)[:3]
        for name, fn in (("dawid_skene", dawid_skene), ("mace", lambda *a: mace(*a, n_restarts=1))):
            peak = measure(lambda f=fn, s=sub: f(*s)).peak_mb
            peaks[(name, share)] = peak
            memory_rows.append([name, f"{len(sub[0]):,}", peak, f"{peak / len(sub[0]) * 2**20:.0f}"])
    print_table(["model", "labels", "peak MB", "bytes per label"], memory_rows)

    for name, (seconds, reference_seconds, diff) in results.items():
        print_result(
            f"truthinference_{name}",
            seconds=seconds,
            reference_seconds=reference_seconds,
            peak_mb=peaks[(name, 1.0)],
            half_size_peak_mb=peaks[(name, 0.5)],
            max_abs_diff=diff,
            labels=n_labels,
        )


if __name__ == "__main__":
    main()
