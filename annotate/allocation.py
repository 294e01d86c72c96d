"""Where a further opinion is worth most: the selection rule of the adaptive design.

Pure functions over long-form labels (one entry per opinion: item code,
assessor code, label code), as in :mod:`stats.truthinference`; no
database. ``annotate.adaptive`` (the service behind an assessor's "Next
topic") and ``benchmarks.adaptive`` (the replay of Snow et al. 2008) both
call :func:`certainty` and :func:`rank`, so the simulation measures the rule
the service applies.

Two measures of how settled an item is (``by``):

- ``margin``: the vote margin, votes of the leading label minus votes of the
  runner-up. An item is settled once the margin reaches ``margin``.
- ``posterior``: the posterior probability of the leading label under the
  Dawid & Skene (1979) model. The assessors' error rates are estimated by
  :func:`stats.truthinference.dawid_skene` on the items with two or
  more opinions (one opinion alone says nothing about its assessor's errors:
  fitted on it, every assessor looks perfect), shrunk towards a symmetric
  error rate (accuracy :data:`PRIOR_ACCURACY`, :data:`PRIOR_WEIGHT` pseudo-labels
  per true class), so an assessor seen on few shared items counts as an
  ordinary one; the class prior is the model's, with one pseudo-item per
  class. Every item's posterior is then the prior times the product of its
  assessors' error rates (the model's E-step). An item is settled once the
  posterior reaches ``confidence``.

:func:`rank` orders the items that still want an opinion: every item without
any first (each item goes to one assessor before any item gets a second
opinion), then the least settled, then the one with fewest opinions, then a
tie-break key (the service: the topic and item order; the simulation: a
seeded shuffle).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from stats.truthinference import dawid_skene

By = Literal["posterior", "margin"]
BY: tuple[str, ...] = ("posterior", "margin")

#: The accuracy an assessor is assumed to have before any shared item shows theirs.
PRIOR_ACCURACY = 0.75
#: How many pseudo-labels per true class that assumption weighs.
PRIOR_WEIGHT = 2.0


@dataclass(frozen=True, eq=False)
class Certainty:
    """How settled each item is (``score``: margin or posterior of ``truth``),
    its current truth (label code; -1 without opinions) and its opinions."""

    score: npt.NDArray[np.float64]
    truth: npt.NDArray[np.int64]
    opinions: npt.NDArray[np.int64]


def _codes(values: Sequence[int] | npt.ArrayLike) -> npt.NDArray[np.intp]:
    return np.asarray(values, dtype=np.intp).reshape(-1)


def certainty(
    items: npt.ArrayLike,
    workers: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    n_items: int,
    n_classes: int,
    by: By = "posterior",
) -> Certainty:
    """How settled every item is, from the opinions given so far.

    >>> c = certainty([0, 0, 1, 1, 1], [0, 1, 0, 1, 2], [1, 1, 0, 1, 0], n_items=3, n_classes=2, by="margin")
    >>> c.score.tolist(), c.truth.tolist(), c.opinions.tolist()
    ([2.0, 1.0, 0.0], [1, 0, -1], [2, 3, 0])
    """
    items, workers, labels = _codes(items), _codes(workers), _codes(labels)
    if by not in BY:
        raise ValueError(f"by: expected one of {', '.join(BY)}, got {by!r}")
    opinions = np.bincount(items, minlength=n_items).astype(np.int64)
    if by == "margin":
        votes = np.bincount(items * n_classes + labels, minlength=n_items * n_classes).reshape(n_items, n_classes)
        ordered = np.sort(votes, axis=1)
        score = (ordered[:, -1] - (ordered[:, -2] if n_classes > 1 else 0)).astype(np.float64)
        truth = np.where(opinions > 0, np.argmax(votes, axis=1), -1).astype(np.int64)
        return Certainty(score, truth, opinions)
    posteriors = posterior(items, workers, labels, n_items=n_items, n_classes=n_classes)
    truth = np.where(opinions > 0, np.argmax(posteriors, axis=1), -1).astype(np.int64)
    return Certainty(posteriors.max(axis=1), truth, opinions)


def posterior(
    items: npt.ArrayLike, workers: npt.ArrayLike, labels: npt.ArrayLike, *, n_items: int, n_classes: int
) -> npt.NDArray[np.float64]:
    """P(true class | opinions) per item (n_items x n_classes), as the module docstring says.

    An item without opinions gets the class prior. One opinion of an unknown
    assessor, two classes: the prior accuracy.

    >>> posterior([0], [0], [1], n_items=2, n_classes=2).round(3).tolist()
    [[0.25, 0.75], [0.5, 0.5]]
    """
    items, workers, labels = _codes(items), _codes(workers), _codes(labels)
    k = n_classes
    n_workers = int(workers.max()) + 1 if len(workers) else 0
    counts = np.zeros((n_workers, k, k))  # [worker, true class, label]: expected counts on shared items
    class_mass = np.zeros(k)
    opinions = np.bincount(items, minlength=n_items)
    shared = opinions[items] >= 2
    if shared.any():
        fit = dawid_skene(items[shared], workers[shared], labels[shared], n_items=n_items, n_classes=k)
        post = np.nan_to_num(fit.posteriors[items[shared]])  # per label: P(true class) of its item
        np.add.at(counts, (workers[shared], slice(None), labels[shared]), post)
        class_mass = np.nansum(fit.posteriors[np.unique(items[shared])], axis=0)
    symmetric = np.full((k, k), (1 - PRIOR_ACCURACY) / max(k - 1, 1))
    np.fill_diagonal(symmetric, PRIOR_ACCURACY)
    confusion = counts + PRIOR_WEIGHT * symmetric
    confusion /= confusion.sum(axis=2, keepdims=True)
    priors = (class_mass + 1.0) / (class_mass.sum() + k)
    scores = np.tile(np.log(priors), (n_items, 1))
    # log P(label | true class) of every opinion, summed per item (the E-step).
    np.add.at(scores, items, np.log(confusion[workers, :, labels]))
    scores -= scores.max(axis=1, keepdims=True)
    out = np.exp(scores)
    return out / out.sum(axis=1, keepdims=True)


def rank(
    measured: Certainty,
    *,
    by: By,
    confidence: float,
    margin: int,
    budget_per_item: int | npt.ArrayLike,
    open_: npt.ArrayLike | None = None,
    held: npt.ArrayLike | None = None,
    tiebreak: npt.ArrayLike | None = None,
) -> npt.NDArray[np.intp]:
    """The items that want another opinion, most valuable first.

    An item wants one while its opinions (``held``: given plus promised;
    default the opinions given) are fewer than ``budget_per_item`` (a number,
    or one per item) and it has none yet or is not settled (``score`` below
    ``confidence`` or ``margin``). ``open_`` (default all) leaves items out
    (e.g. one an assessor already holds). Order: items without any opinion,
    then the least settled, then the fewest opinions, then ``tiebreak``
    (default the item order).

    >>> m = certainty([0, 1, 1, 2], [0, 0, 1, 0], [1, 1, 0, 0], n_items=4, n_classes=2, by="margin")
    >>> rank(m, by="margin", confidence=0.95, margin=2, budget_per_item=5).tolist()
    [3, 1, 0, 2]
    """
    n = len(measured.score)
    held = measured.opinions if held is None else np.asarray(held)
    budget = np.broadcast_to(np.asarray(budget_per_item), (n,))
    threshold = float(margin) if by == "margin" else float(confidence)
    unsettled = (measured.opinions == 0) | (measured.score < threshold)
    wanted = unsettled & (held < budget)
    if open_ is not None:
        wanted &= np.asarray(open_, dtype=bool)
    tiebreak = np.arange(n) if tiebreak is None else np.asarray(tiebreak)
    candidates = np.flatnonzero(wanted)
    order = np.lexsort(
        (
            tiebreak[candidates],
            held[candidates],
            measured.score[candidates],
            measured.opinions[candidates] > 0,
        )
    )
    return candidates[order]
