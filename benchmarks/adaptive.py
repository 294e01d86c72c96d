"""Adaptive second opinions against uniform allocation, replayed on real labels.

``python -m benchmarks.adaptive [--seeds 5] [--plot PATH]``

Snow, O'Connor, Jurafsky & Ng (2008), "Cheap and fast -- but is it good?":
the RTE (800 items) and temporal ordering (462 items) files under
data/snow2008/ hold 10 crowd labels per item and a ``gold`` column. Every
label an allocation requests for an item is drawn from that item's real
labels without replacement (so never twice from one worker), in an order
shuffled per seed.

- uniform: k labels for every item (k = 1..10), majority vote (a tie counts
  as the expected accuracy of breaking it at random), and Dawid-Skene's
  posterior (the same ``annotate.allocation.posterior`` the adaptive design
  uses) on the same labels;
- adaptive: every item gets one label; then, in rounds of 2% of the items,
  the items that :func:`annotate.allocation.rank` puts first (the function
  the service calls) get one more, until every item has all 10 (``margin``
  and ``confidence`` set so that no item counts as settled: the curve runs
  to the whole budget). ``margin``: truth by majority vote; ``posterior``:
  truth by the posterior. Accuracy is read at every 0.5 label per item.

Printed: accuracy against gold vs labels per item for each; the target, the
accuracy of uniform 10-label majority vote; for each rule the labels per item
from which its accuracy stays at or above the target (the *sustained*
crossing, :func:`sustained`: after the last round below it, linear between
that round and the next; checked per seed, then averaged), and what uniform
allocation needs for the same target, read the same way on its curve at
1..10 labels (majority vote reaches it before 10 labels: with an odd number
of labels there are no ties). ``ratio`` = uniform labels / adaptive labels
(the goal is >= 2). The first round at or above the target (the *first*
crossing) is printed beside it: checking gold after every round and stopping
at the first lucky round flatters a rule, since accuracy still dips below the
target after it. ``same estimator``: against uniform allocation read by the
same posterior (its sustained crossing, interpolated), the part of the gain
due to the allocation alone. Also where the design stops by itself with its
default params (confidence 0.95, margin 2, 10 labels at most per item).
Averaged over ``--seeds``.
"""

from __future__ import annotations

import argparse
import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from annotate.allocation import By, certainty, posterior, rank
from benchmarks._harness import print_table

DATA = Path(__file__).resolve().parent.parent / "data" / "snow2008"
FILES = ("rte", "temp")
#: Labels per item read on the curves (multiples of 0.5).
GRID = np.arange(1.0, 10.01, 0.5)
#: The share of the items that get one more label per adaptive round.
ROUND = 0.02


@dataclass(frozen=True)
class Dataset:
    name: str
    gold: np.ndarray  # (n_items,) class code
    pool: list[list[tuple[int, int]]]  # per item: (worker code, label code) of its real labels
    n_classes: int


def load(name: str) -> Dataset:
    with (DATA / f"{name}.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    items = sorted({r["orig_id"] for r in rows})
    classes = sorted({r["response"] for r in rows} | {r["gold"] for r in rows})
    workers = sorted({r["!amt_worker_ids"] for r in rows})
    item_code = {v: i for i, v in enumerate(items)}
    class_code = {v: i for i, v in enumerate(classes)}
    worker_code = {v: i for i, v in enumerate(workers)}
    gold = np.zeros(len(items), dtype=np.int64)
    pool: list[list[tuple[int, int]]] = [[] for _ in items]
    for r in rows:
        i = item_code[r["orig_id"]]
        gold[i] = class_code[r["gold"]]
        pool[i].append((worker_code[r["!amt_worker_ids"]], class_code[r["response"]]))
    return Dataset(name, gold, pool, len(classes))


def vote_accuracy(items: np.ndarray, labels: np.ndarray, data: Dataset) -> float:
    """Majority vote against gold; a tie counts 1/(tied labels) if gold is among them."""
    n, k = len(data.gold), data.n_classes
    votes = np.bincount(items * k + labels, minlength=n * k).reshape(n, k)
    top = votes == votes.max(axis=1, keepdims=True)
    hit = top[np.arange(n), data.gold] & (votes.max(axis=1) > 0)
    return float(np.mean(hit / top.sum(axis=1)))


def posterior_accuracy(items: np.ndarray, workers: np.ndarray, labels: np.ndarray, data: Dataset) -> float:
    post = posterior(items, workers, labels, n_items=len(data.gold), n_classes=data.n_classes)
    return float(np.mean(np.argmax(post, axis=1) == data.gold))


class Replay:
    """One seeded order of every item's labels; ``take(i)`` hands out item i's next one."""

    def __init__(self, data: Dataset, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.data = data
        self.order = [rng.permutation(len(p)) for p in data.pool]
        self.taken = np.zeros(len(data.pool), dtype=np.int64)
        self.items: list[int] = []
        self.workers: list[int] = []
        self.labels: list[int] = []
        self.tiebreak = rng.permutation(len(data.pool))

    def take(self, item: int) -> None:
        worker, label = self.data.pool[item][self.order[item][self.taken[item]]]
        self.taken[item] += 1
        self.items.append(item)
        self.workers.append(worker)
        self.labels.append(label)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.asarray(self.items), np.asarray(self.workers), np.asarray(self.labels)


def uniform(data: Dataset, seed: int) -> dict[str, np.ndarray]:
    """Accuracy with k = 1..10 labels for every item (majority vote, posterior)."""
    replay = Replay(data, seed)
    vote, post = [], []
    for _ in range(10):
        for item in range(len(data.gold)):
            replay.take(item)
        items, workers, labels = replay.arrays()
        vote.append(vote_accuracy(items, labels, data))
        post.append(posterior_accuracy(items, workers, labels, data))
    return {"vote": np.array(vote), "posterior": np.array(post)}


def adaptive(
    data: Dataset, seed: int, by: By, *, confidence: float = 1.0, margin: int = 11, budget_per_item: int = 10
) -> tuple[np.ndarray, np.ndarray]:
    """(labels per item, accuracy) after every round until nothing is wanted."""
    n = len(data.gold)
    capacity = np.array([min(len(p), budget_per_item) for p in data.pool])
    replay = Replay(data, seed)
    batch = max(1, round(ROUND * n))
    used, accuracy = [], []
    while True:
        items, workers, labels = replay.arrays()
        measured = certainty(items, workers, labels, n_items=n, n_classes=data.n_classes, by=by)
        if len(items):
            truth = measured.truth
            if by == "margin":
                accuracy.append(vote_accuracy(items, labels, data))
            else:
                accuracy.append(float(np.mean(truth == data.gold)))
            used.append(len(items) / n)
        wanted = rank(
            measured,
            by=by,
            confidence=confidence,
            margin=margin,
            budget_per_item=capacity,
            tiebreak=replay.tiebreak,
        )
        if not len(wanted):
            break
        first = wanted[measured.opinions[wanted] == 0]
        for item in first if len(first) else wanted[:batch]:
            replay.take(item)
    return np.array(used), np.array(accuracy)


def on_grid(used: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """Accuracy at each GRID point (the last round at or below it)."""
    at = np.searchsorted(used, GRID + 1e-9, side="right") - 1
    return np.where(at >= 0, accuracy[np.clip(at, 0, None)], np.nan)


def reaches(used: np.ndarray, accuracy: np.ndarray, target: float) -> float:
    """Labels per item at which ``accuracy`` first reaches ``target`` (NaN: never): the first
    crossing, flattering when accuracy dips below the target again later."""
    hit = np.flatnonzero(accuracy >= target - 1e-12)
    return float(used[hit[0]]) if len(hit) else float("nan")


def sustained(used: np.ndarray, accuracy: np.ndarray, target: float) -> float:
    """Labels per item from which ``accuracy`` stays at or above ``target``: linear between the
    last point below it and the next one (the first point when none is below; NaN when the
    last point is below).

    >>> used = np.array([1.0, 2, 3, 4, 5])
    >>> round(sustained(used, np.array([0.5, 0.9, 0.7, 0.9, 0.9]), 0.8), 12), reaches(used, np.array([0.5, 0.9, 0.7, 0.9, 0.9]), 0.8)
    (3.5, 2.0)
    >>> sustained(np.array([1.0, 2]), np.array([0.9, 0.95]), 0.8), bool(np.isnan(sustained(np.array([1.0, 2]), np.array([0.9, 0.7]), 0.8)))
    (1.0, True)
    """
    below = np.flatnonzero(accuracy < target - 1e-12)
    if not len(below):
        return float(used[0])
    last = int(below[-1])
    if last == len(accuracy) - 1:
        return float("nan")
    x0, x1, y0, y1 = used[last], used[last + 1], accuracy[last], accuracy[last + 1]
    return float(x0 + (target - y0) * (x1 - x0) / (y1 - y0))


def run(name: str, seeds: int) -> dict:
    data = load(name)
    uni = [uniform(data, seed) for seed in range(seeds)]
    uni_vote = np.mean([u["vote"] for u in uni], axis=0)
    uni_post = np.mean([u["posterior"] for u in uni], axis=0)
    target = uni_vote[-1]
    whole = np.arange(1.0, 11.0)
    out = {"name": name, "items": len(data.gold), "uniform_vote": uni_vote, "uniform_posterior": uni_post}
    # What uniform allocation really needs for the target (majority vote reaches it before 10
    # labels), and read by the posterior, so the adaptive rule's own share shows; interpolated.
    out["uniform_vote_reach"] = sustained(whole, uni_vote, target)
    out["uniform_posterior_reach"] = sustained(whole, uni_post, target)
    for by in ("margin", "posterior"):
        curves = [adaptive(data, seed, by) for seed in range(seeds)]
        out[f"{by}_grid"] = np.nanmean([on_grid(*c) for c in curves], axis=0)
        # Per seed: where it reaches the seed-averaged target; the mean of those.
        out[f"{by}_reach"] = float(np.mean([sustained(*c, target) for c in curves]))
        out[f"{by}_first"] = float(np.mean([reaches(*c, target) for c in curves]))
        stops = [adaptive(data, seed, by, confidence=0.95, margin=2) for seed in range(seeds)]
        out[f"{by}_stop"] = (float(np.mean([s[0][-1] for s in stops])), float(np.mean([s[1][-1] for s in stops])))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeded replays averaged (default 5)")
    parser.add_argument("--plot", type=Path, help="write accuracy vs labels per item to this SVG/PNG (matplotlib)")
    args = parser.parse_args(argv)
    results = [run(name, args.seeds) for name in FILES]
    for r in results:
        print(f"\n{r['name']}: {r['items']} items, 10 labels each; accuracy against gold, mean of {args.seeds} seeds")
        rows = []
        for g, labels in enumerate(GRID):
            k = int(labels) - 1
            whole = labels == int(labels)
            rows.append(
                [
                    f"{labels:.1f}",
                    f"{r['uniform_vote'][k]:.4f}" if whole else "",
                    f"{r['uniform_posterior'][k]:.4f}" if whole else "",
                    f"{r['margin_grid'][g]:.4f}",
                    f"{r['posterior_grid'][g]:.4f}",
                ]
            )
        print_table(["labels/item", "uniform vote", "uniform posterior", "adaptive margin", "adaptive posterior"], rows)
        print(f"target: uniform 10-label majority vote = {r['uniform_vote'][-1]:.4f}")
        print(
            f"uniform majority vote stays at or above it from {r['uniform_vote_reach']:.2f} labels/item; "
            f"uniform read by the posterior from {r['uniform_posterior_reach']:.2f} "
            "(so the posterior rule's ratio is part estimator, part allocation)"
        )
        for by in ("margin", "posterior"):
            reach, first = r[f"{by}_reach"], r[f"{by}_first"]
            stop_used, stop_acc = r[f"{by}_stop"]
            print(
                f"adaptive {by}: stays at or above it from {reach:.2f} labels/item "
                f"(ratio {r['uniform_vote_reach'] / reach:.2f}; first round at or above it: {first:.2f}); "
                f"with the default stop rule it stops at {stop_used:.2f} labels/item, accuracy {stop_acc:.4f}"
            )
    for r in results:
        for by in ("margin", "posterior"):
            reach = r[f"{by}_reach"]
            # Against uniform allocation read by the same estimator (posterior: the posterior).
            same = r["uniform_vote_reach"] if by == "margin" else r["uniform_posterior_reach"]
            print(
                f"RESULT name=adaptive data={r['name']} by={by} target={r['uniform_vote'][-1]:.4f} "
                f"uniform_labels_per_item={r['uniform_vote_reach']:.2f} labels_per_item={reach:.2f} "
                f"ratio={r['uniform_vote_reach'] / reach:.2f} same_estimator_ratio={same / reach:.2f} "
                f"first_crossing={r[f'{by}_first']:.2f}"
            )
    if args.plot:
        plot(results, args.plot)


def plot(results: list[dict], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: no plot written to {path} (the table above has the figures)")
        return
    fig, axes = plt.subplots(1, len(results), figsize=(5 * len(results), 4))
    for ax, r in zip(np.atleast_1d(axes), results):
        whole = np.arange(1, 11)
        ax.plot(whole, r["uniform_vote"], "o-", label="uniform, majority vote")
        ax.plot(whole, r["uniform_posterior"], "s-", label="uniform, posterior")
        ax.plot(GRID, r["margin_grid"], "-", label="adaptive, margin")
        ax.plot(GRID, r["posterior_grid"], "-", label="adaptive, posterior")
        ax.axhline(r["uniform_vote"][-1], color="grey", linestyle=":", label="uniform 10-label vote")
        ax.set(title=f"Snow et al. 2008: {r['name']}", xlabel="labels per item", ylabel="accuracy against gold")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    print(f"plot written to {path}")


if __name__ == "__main__":
    main()
