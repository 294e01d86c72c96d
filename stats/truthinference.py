"""Truth inference: models of the assessors instead of one vote each.

Majority vote treats every assessor alike. These models estimate, from the
labels alone, how reliable each assessor is and weigh their labels by it:

- ``dawid_skene``: A. P. Dawid and A. M. Skene (1979), Maximum likelihood
  estimation of observer error-rates using the EM algorithm, Journal of the
  Royal Statistical Society, Series C 28(1):20-28. One full confusion matrix
  per assessor, class priors, EM started from majority vote.
- ``mace``: D. Hovy, T. Berg-Kirkpatrick, A. Vaswani and E. Hovy (2013),
  Learning whom to trust with MACE, NAACL-HLT, 1120-1130. Each assessor
  either knows the answer or "spams" from their own label distribution;
  variational Bayes (or EM) with random restarts.
- ``glad``: J. Whitehill, P. Ruvolo, T. Wu, J. Bergsma and J. Movellan (2009),
  Whose vote should count more: optimal integration of labels from labelers
  of unknown expertise, NIPS 22. Worker expertise and item difficulty, EM
  with a conjugate-gradient M-step.
- ``wawa``: worker agreement with aggregate: majority vote, each assessor's
  skill is their agreement with it, then the skill-weighted vote.

Dawid-Skene and MACE take ``known``: items whose true class is known (control
items, gold questions). Their posteriors are fixed to that class at the start
and in every E-step, so they inform the assessors' confusion matrices or
competences as certain evidence while the other items are inferred, as
P. G. Ipeirotis, F. Provost and J. Wang (2010), Quality management on Amazon
Mechanical Turk, HCOMP 2010 (Proceedings of the ACM SIGKDD Workshop on Human
Computation, 64-67; their "Get Another Label" program), do with gold data.

The reference implementation is crowd-kit (D. Ustalov, N. Pavlichenko,
B. Tseitlin et al., Toloka: "Learning from Crowds with Crowd-Kit", JOSS
2024), version 1.4.2; the tests check every model against it on the same
inputs (tests/stats/test_truthinference.py).

Input is long (sparse), like crowd-kit's task/worker/label frame: three
equal-length integer arrays ``items``, ``workers``, ``labels`` (codes from 0),
one entry per label given; ``from_matrix`` turns a dense items x workers array
with NaN for "no label" into that form. Every EM step is a few sparse
products and ``bincount`` calls over the label arrays: time and memory grow
with the number of labels, not with items x workers.

Conventions shared by every function (and where they meet crowd-kit's):

- A class that no label uses is outside the model, as crowd-kit only knows the
  labels it sees: its prior, its posteriors and its confusion entries are 0.
- An item nobody labelled has NaN posteriors and label ``-1``; a worker with
  no labels has NaN skill and confusion and ``n_labels`` 0.
- ``labels`` is the argmax of the posteriors; ties go to the lowest class
  (crowd-kit's ``idxmax`` does the same when the labels are ``0..k-1``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.special import digamma

__all__ = [
    "TruthInference",
    "dawid_skene",
    "from_long",
    "from_matrix",
    "glad",
    "mace",
    "wawa",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# crowd-kit's floor for probabilities (dawid_skene._EPS): error-matrix cells of
# labels a worker used, priors, and posteriors inside the stopping criterion.
_EPS = 1e-10


@dataclass(frozen=True, eq=False)
class TruthInference:
    """What a truth-inference model says about the items and the workers.

    Attributes
    ----------
    posteriors : ndarray of float64, shape (n_items, n_classes)
        P(true class | labels) per item; rows sum to 1, NaN rows for items
        with no label.
    labels : ndarray of int64, shape (n_items,)
        Argmax of each row (ties -> lowest class), ``-1`` for unlabelled items.
    confusion : ndarray of float64, shape (n_workers, n_classes, n_classes), or None
        ``confusion[w, i, j]`` = P(worker w says j | true class i). Dawid-Skene:
        the estimated matrix; MACE: the one its model implies
        (``knows * [i == j] + spams * strategy[j]``); Wawa: None.
    skill : ndarray of float64, shape (n_workers,), or None
        Dawid-Skene: expected accuracy, ``sum_i priors[i] * confusion[w, i, i]``;
        MACE: P(the worker knows the answer rather than spams), Hovy et al.'s
        competence theta_j; Wawa: agreement with the majority vote.
    n_labels : ndarray of int64, shape (n_workers,)
        How many labels each worker's estimate rests on.
    priors : ndarray of float64, shape (n_classes,)
        Class prior: Dawid-Skene's estimate (mean posterior); MACE: uniform over
        the classes used (its model); Wawa: mean posterior.
    iterations : int
        EM iterations run (per restart for MACE; 1 for Wawa).
    converged : bool
        Dawid-Skene: stopped because the criterion moved by less than ``tol``;
        MACE: the last iteration moved the log marginal likelihood per label by
        less than ``tol`` (it always runs ``max_iter``, as crowd-kit does);
        Wawa: True.
    """

    posteriors: FloatArray
    labels: IntArray
    confusion: FloatArray | None
    skill: FloatArray | None
    n_labels: IntArray
    priors: FloatArray
    iterations: int
    converged: bool


class _Data(NamedTuple):
    """Labels re-coded to the items, workers and classes that occur (0..T-1, 0..W-1, 0..K-1)."""

    items: npt.NDArray[np.intp]
    workers: npt.NDArray[np.intp]
    labels: npt.NDArray[np.intp]
    item_ids: npt.NDArray[np.intp]  # original code of each used item
    worker_ids: npt.NDArray[np.intp]
    class_ids: npt.NDArray[np.intp]
    n_items: int
    n_workers: int
    n_classes: int


# --------------------------------------------------------------------------- input


def from_matrix(matrix: npt.ArrayLike) -> tuple[IntArray, IntArray, IntArray]:
    """Long form of a dense items x workers array of label codes, NaN = no label.

    Parameters
    ----------
    matrix : array_like, shape (n_items, n_workers)
        Label codes (non-negative whole numbers) with NaN where the worker
        gave no label (how the pairs kind holds votes: 1 match, 0 no match).

    Returns
    -------
    items, workers, labels : ndarray of int64
        One entry per label, items in order, workers in order within an item.

    Examples
    --------
    >>> items, workers, labels = from_matrix([[1, 0, np.nan], [np.nan, 1, 1]])
    >>> items.tolist(), workers.tolist(), labels.tolist()
    ([0, 0, 1, 1], [0, 1, 1, 2], [1, 0, 1, 1])
    """
    array = np.asarray(matrix, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"matrix must be 2-D (items x workers), got {array.ndim}-D")
    given = ~np.isnan(array)
    items, workers = np.nonzero(given)
    values = array[items, workers]
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values != np.floor(values)):
        raise ValueError("matrix must hold non-negative whole-number label codes or NaN")
    return items.astype(np.int64), workers.astype(np.int64), values.astype(np.int64)


def from_long(
    items: npt.ArrayLike, workers: npt.ArrayLike, values: npt.ArrayLike
) -> tuple[IntArray, IntArray, IntArray]:
    """The long form of labels already given one entry per label (e.g. held sparse,
    :class:`stats.ratings.SparseRatings`): the same checks as :func:`from_matrix`
    (label codes non-negative whole numbers), integer arrays.

    Examples
    --------
    >>> items, workers, labels = from_long([0, 0, 1], [0, 1, 1], [1.0, 0.0, 1.0])
    >>> items.tolist(), workers.tolist(), labels.tolist()
    ([0, 0, 1], [0, 1, 1], [1, 0, 1])
    """
    values = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values != np.floor(values)):
        raise ValueError("labels must be non-negative whole-number label codes")
    return np.asarray(items, dtype=np.int64), np.asarray(workers, dtype=np.int64), values.astype(np.int64)


def _codes(values: Any, name: str) -> npt.NDArray[np.intp]:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got {array.ndim}-D")
    if array.size == 0:
        return np.zeros(0, dtype=np.intp)
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(array)) or np.any(array != np.floor(array)):
            raise ValueError(f"{name} must hold whole-number codes")
    elif array.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integer codes, got dtype {array.dtype}")
    if array.min() < 0:
        raise ValueError(f"{name} must hold non-negative codes")
    return array.astype(np.intp)


def _size(given: int | None, codes: np.ndarray, name: str) -> int:
    needed = int(codes.max()) + 1 if codes.size else 0
    if given is None:
        return needed
    if int(given) != given or given < needed:
        raise ValueError(f"n_{name} must be a whole number >= {needed} (the largest {name} code + 1), got {given}")
    return int(given)


def _compress(codes: npt.NDArray[np.intp], size: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    used = np.bincount(codes, minlength=size) > 0
    new_code = np.cumsum(used) - 1
    return new_code[codes], np.flatnonzero(used)


def _prepare(items, workers, labels, n_items, n_workers, n_classes) -> _Data:
    items, workers, labels = _codes(items, "items"), _codes(workers, "workers"), _codes(labels, "labels")
    if not len(items) == len(workers) == len(labels):
        raise ValueError(
            f"items, workers and labels must have equal lengths, got {len(items)}, {len(workers)}, {len(labels)}"
        )
    sizes = (_size(n_items, items, "items"), _size(n_workers, workers, "workers"), _size(n_classes, labels, "classes"))
    (t, item_ids), (w, worker_ids), (k, class_ids) = (
        _compress(items, sizes[0]),
        _compress(workers, sizes[1]),
        _compress(labels, sizes[2]),
    )
    return _Data(t, w, k, item_ids, worker_ids, class_ids, *sizes)


class _Known(NamedTuple):
    """Known true classes: each known item's code and class (as given), and for the
    known items that have labels their model row and model class."""

    items: npt.NDArray[np.intp]
    classes: npt.NDArray[np.intp]
    rows: npt.NDArray[np.intp]
    row_classes: npt.NDArray[np.intp]


def _whole_code(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _with_known(data: _Data, known: Any) -> tuple[_Data, _Known | None]:
    """``known`` (item code -> class code) checked against the declared sizes; a known
    class no label uses joins the model's classes (its truth is evidence about it)."""
    if known is None:
        return data, None
    if not isinstance(known, Mapping):
        raise ValueError(f"known must map item codes to class codes (a dict), got {type(known).__name__}")
    items = np.zeros(len(known), dtype=np.intp)
    classes = np.zeros(len(known), dtype=np.intp)
    for i, (item, label) in enumerate(known.items()):
        if not _whole_code(item) or not 0 <= item < data.n_items:
            raise ValueError(f"known: item {item!r} is out of range: item codes are 0..{data.n_items - 1}")
        if not _whole_code(label) or not 0 <= label < data.n_classes:
            raise ValueError(
                f"known: class {label!r} of item {item} is out of range: class codes are 0..{data.n_classes - 1}"
            )
        items[i], classes[i] = item, label
    class_ids = np.union1d(data.class_ids, classes).astype(np.intp)
    if len(class_ids) != len(data.class_ids):
        labels = np.searchsorted(class_ids, data.class_ids[data.labels]).astype(np.intp)
        data = data._replace(labels=labels, class_ids=class_ids)
    position = np.searchsorted(data.item_ids, items)
    labelled = position < len(data.item_ids)
    labelled[labelled] = data.item_ids[position[labelled]] == items[labelled]
    rows = position[labelled].astype(np.intp)
    row_classes = np.searchsorted(class_ids, classes[labelled]).astype(np.intp)
    return data, _Known(items, classes, rows, row_classes)


def _fix(post: FloatArray, known: _Known) -> FloatArray:
    """The known items' posteriors set to their class, in place (any axes between
    items and classes, e.g. MACE's restarts, alike)."""
    post[known.rows] = 0.0
    post[known.rows, ..., known.row_classes] = 1.0
    return post


def _pinned(result: TruthInference, known: _Known | None) -> TruthInference:
    """The known items' posteriors and labels their known class, also those nobody labelled."""
    if known is None or len(known.items) == 0:
        return result
    posteriors = result.posteriors.copy()
    posteriors[known.items] = 0.0
    posteriors[known.items, known.classes] = 1.0
    return replace(result, posteriors=posteriors, labels=_argmax(posteriors))


def _item_label_matrix(data: _Data) -> sparse.csr_matrix:
    """(items x workers*classes) counts: row t, column w*K + l = how often w labelled t with l."""
    k = len(data.class_ids)
    ones = np.ones(len(data.items))
    shape = (len(data.item_ids), len(data.worker_ids) * k)
    return sparse.csr_matrix((ones, (data.items, data.workers * k + data.labels)), shape=shape)


# --------------------------------------------------------------------------- output


def _argmax(posteriors: FloatArray) -> IntArray:
    labelled = ~np.isnan(posteriors).any(axis=1) if posteriors.shape[1] else np.zeros(len(posteriors), bool)
    out = np.full(len(posteriors), -1, dtype=np.int64)
    if posteriors.shape[1]:
        out[labelled] = np.argmax(posteriors[labelled], axis=1)
    return out


def _result(
    data: _Data,
    posteriors: FloatArray,
    *,
    confusion: FloatArray | None,
    skill: FloatArray | None,
    iterations: int,
    converged: bool,
    n_labels: npt.NDArray[np.int64] | None = None,
    priors: FloatArray | None = None,
) -> TruthInference:
    """Spread the model's results (used items, workers, classes) over the declared ones.
    ``n_labels`` defaults to each used worker's count of labels, ``priors`` to uniform
    over the classes used."""
    cls, wk = data.class_ids, data.worker_ids
    if n_labels is None:
        n_labels = np.bincount(data.workers, minlength=len(wk))
    if priors is None:
        priors = np.full(len(cls), 1.0 / len(cls)) if len(cls) else np.zeros(0)
    post = np.full((data.n_items, data.n_classes), np.nan)
    post[data.item_ids] = 0.0
    post[np.ix_(data.item_ids, cls)] = posteriors
    full_priors = np.zeros(data.n_classes)
    full_priors[cls] = priors
    full_conf = None
    if confusion is not None:
        full_conf = np.full((data.n_workers, data.n_classes, data.n_classes), np.nan)
        full_conf[wk] = 0.0
        full_conf[np.ix_(wk, cls, cls)] = confusion
    full_skill = None
    if skill is not None:
        full_skill = np.full(data.n_workers, np.nan)
        full_skill[wk] = skill
    full_n = np.zeros(data.n_workers, dtype=np.int64)
    full_n[wk] = n_labels
    return TruthInference(
        posteriors=post,
        labels=_argmax(post),
        confusion=full_conf,
        skill=full_skill,
        n_labels=full_n,
        priors=full_priors,
        iterations=int(iterations),
        converged=bool(converged),
    )


def _empty(data: _Data, *, confusion: bool, skill: bool) -> TruthInference:
    return _result(
        data,
        np.zeros((0, 0)),
        confusion=np.zeros((0, 0, 0)) if confusion else None,
        skill=np.zeros(0) if skill else None,
        iterations=0,
        converged=True,
    )


def _whole(value: Any, name: str, *, least: int = 0) -> None:
    """``value`` is a whole number (not a bool) of at least ``least`` (0 or 1), else ValueError naming it."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < least:
        raise ValueError(f"{name} must be a {'positive' if least else 'non-negative'} integer, got {value!r}")


def _number(value: Any, name: str, *, non_negative: bool = False) -> None:
    """``value`` is a real number (non-negative if asked), else ValueError naming it."""
    if not isinstance(value, (int, float, np.floating, np.integer)) or np.isnan(value):
        raise ValueError(f"{name} must be a {'non-negative ' if non_negative else ''}number, got {value!r}")
    if non_negative and not value >= 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")


def _check_iterations(max_iter: Any, tol: Any) -> None:
    _whole(max_iter, "max_iter")
    _number(tol, "tol")


def _setup(items, workers, labels, n_items, n_workers, n_classes, *loops: tuple[Any, Any]) -> _Data:
    """Every model's set-up: the labels checked and re-coded (:func:`_prepare`), then
    each of its iteration loops' ``(max_iter, tol)`` checked, in that order."""
    data = _prepare(items, workers, labels, n_items, n_workers, n_classes)
    for max_iter, tol in loops:
        _check_iterations(max_iter, tol)
    return data


def _vote_shares(data: _Data, k: int) -> FloatArray:
    t = len(data.item_ids)
    votes = np.bincount(data.items * k + data.labels, minlength=t * k).reshape(t, k).astype(np.float64)
    return votes / votes.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------- Dawid-Skene


def dawid_skene(
    items: npt.ArrayLike,
    workers: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    n_items: int | None = None,
    n_workers: int | None = None,
    n_classes: int | None = None,
    max_iter: int = 100,
    tol: float = 1e-5,
    known: Mapping[int, int] | None = None,
) -> TruthInference:
    """Dawid & Skene (1979): class priors and a full confusion matrix per worker, by EM.

    Starts, as crowd-kit does, from the majority-vote shares as posteriors; then
    alternates the M-step (priors = mean posterior; confusion = posterior-weighted
    label counts per worker and true class, normalised) and the E-step
    (posterior proportional to prior times the product of the workers'
    confusion entries, summed in log space). Labels a worker never gave have
    probability 0 in their matrix; labels they gave are floored at 1e-10
    before normalising, as in crowd-kit.

    Stopping rule (crowd-kit's, so both stop at the same iteration): after each
    step, ``elbo = (sum over labels and classes of q * (log confusion + log
    prior) + entropy of q) / n_labels`` with ``q`` the posteriors; stop when it
    rose by less than ``tol``. (The prior enters once per label there, not
    once per item as in the textbook bound; it is only a stopping rule.)

    Parameters
    ----------
    items, workers, labels : array_like of int, shape (n,)
        One entry per label: item code, worker code, label (class) code.
    n_items, n_workers, n_classes : int, optional
        Declared sizes (default: largest code + 1).
    max_iter : int
        EM iterations at most (crowd-kit's ``n_iter``); 0 returns majority vote.
    tol : float
        Stopping threshold on the criterion above.
    known : mapping of int to int, optional
        Item code -> its known true class (control items). Their posteriors
        are that class from the start (instead of the majority vote) and after
        every E-step, so the M-step counts each worker's labels on them against
        the truth (Ipeirotis, Provost & Wang 2010); they count in the class
        priors like every item. A known item nobody labelled gets its class as
        posterior and label. Without ``known`` (or with an empty one) the
        result is the unpinned model's, bit for bit.

    Returns
    -------
    TruthInference
        With ``confusion[w, i, j]`` = P(w says j | true i) and ``skill`` the
        expected accuracy ``sum_i priors[i] * confusion[w, i, i]``.

    Examples
    --------
    Worker 2 always disagrees; Dawid-Skene learns that and reads their label
    as evidence of the other class:

    >>> items = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
    >>> workers = [0, 1, 2, 0, 1, 2, 0, 1, 2, 2]
    >>> labels = [1, 1, 0, 0, 0, 1, 1, 1, 0, 0]
    >>> result = dawid_skene(items, workers, labels)
    >>> result.labels.tolist()
    [1, 0, 1, 1]
    >>> result.confusion[2].round(2).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    >>> result.n_labels.tolist(), result.converged
    ([3, 3, 4], True)

    Knowing that item 3 is of class 1 (worker 2 said 0) confirms that worker 2
    inverts; knowing it is of class 0 makes them right there:

    >>> dawid_skene(items, workers, labels, known={3: 1}).confusion[2].round(2).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    >>> dawid_skene(items, workers, labels, known={3: 0}).posteriors[3].tolist()
    [1.0, 0.0]
    """
    data = _setup(items, workers, labels, n_items, n_workers, n_classes, (max_iter, tol))
    data, fixed = _with_known(data, known)
    if len(data.items) == 0:
        return _pinned(_empty(data, confusion=True, skill=True), fixed)
    k, w = len(data.class_ids), len(data.worker_ids)
    s = _item_label_matrix(data)  # items x (w*K + l)
    st = s.T.tocsr()
    given = np.asarray(st.sum(axis=1)).ravel() > 0  # (w, l) pairs that occur
    labels_per_item = np.asarray(s.sum(axis=1)).ravel()
    n = len(data.items)

    def m_step(post: FloatArray) -> FloatArray:
        counts = np.asarray(st @ post)  # (w*K + l, true class)
        counts = np.where(given[:, None], np.maximum(counts, _EPS), 0.0).reshape(w, k, k)
        return counts / counts.sum(axis=1, keepdims=True)  # errors[w, label, true]

    def log_errors(errors: FloatArray) -> FloatArray:
        flat = errors.reshape(w * k, k)
        out = np.zeros_like(flat)
        np.log(flat, out=out, where=given[:, None])
        return out

    def e_step(priors: FloatArray, errors: FloatArray) -> FloatArray:
        scores = np.log(np.maximum(priors, _EPS)) + s @ log_errors(errors)
        scores -= scores.max(axis=1, keepdims=True)
        post = np.exp(scores)
        post /= post.sum(axis=1, keepdims=True)
        return post if fixed is None else _fix(post, fixed)

    def criterion(post: FloatArray, priors: FloatArray, errors: FloatArray) -> float:
        joint = np.sum(post * (s @ log_errors(errors)))
        joint += np.sum((labels_per_item @ post) * np.log(np.maximum(priors, _EPS)))
        clipped = np.maximum(post, _EPS)
        return float((joint - np.sum(clipped * np.log(clipped))) / n)

    post = _vote_shares(data, k)
    if fixed is not None:
        post = _fix(post, fixed)
    priors = post.mean(axis=0)
    errors = m_step(post)
    loss, iterations, converged = -np.inf, 0, False
    while iterations < max_iter:
        iterations += 1
        post = e_step(priors, errors)
        priors = post.mean(axis=0)
        errors = m_step(post)
        new_loss = criterion(post, priors, errors)
        if new_loss - loss < tol:
            converged = True
            break
        loss = new_loss

    confusion = errors.transpose(0, 2, 1)  # [w, true, label]
    skill = np.einsum("c,wcc->w", priors, confusion)
    result = _result(
        data,
        post,
        confusion=confusion,
        skill=skill,
        priors=priors,
        iterations=iterations,
        converged=converged,
    )
    return _pinned(result, fixed)


# --------------------------------------------------------------------------- MACE


def mace(
    items: npt.ArrayLike,
    workers: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    n_items: int | None = None,
    n_workers: int | None = None,
    n_classes: int | None = None,
    max_iter: int = 50,
    n_restarts: int = 10,
    method: Literal["vb", "em"] = "vb",
    alpha: float = 0.5,
    beta: float = 0.5,
    default_noise: float = 0.5,
    seed: int = 0,
    tol: float = 1e-5,
    known: Mapping[int, int] | None = None,
) -> TruthInference:
    """MACE (Hovy et al. 2013): each worker knows the answer or spams from their own distribution.

    The true class is uniform over the classes used. On each label, worker
    ``w`` knows (says the true class) with probability ``knows[w]``, else spams:
    draws the label from ``strategy[w]``. Fitted with crowd-kit's defaults:
    variational Bayes (``method="vb"``: Beta(alpha, beta) on knowing vs
    spamming, symmetric Dirichlet(10) on each strategy; expectations through
    ``exp(digamma)``), or EM (``method="em"``: expected counts smoothed by
    ``0.01 / n_classes`` before normalising), ``max_iter`` = 50 iterations
    each, no early stop. A restart's start: both rows of each worker's
    (spams, knows) and strategy drawn uniformly on ``[1, 2 + default_noise)``
    from ``numpy.random.RandomState(seed + r)`` (two fresh streams, worker by
    worker in code order, classes in code order), then normalised.

    Where crowd-kit 1.4.2 differs, and why this follows Hovy et al.:

    - crowd-kit passes the same ``random_state`` to every restart, so its
      ``n_restarts`` restarts are identical; here restart ``r`` uses
      ``seed + r``, so restart 0 is crowd-kit's, and ``n_restarts=1`` gives
      crowd-kit's result whatever its ``n_restarts``.
    - The kept restart is the one with the highest log marginal likelihood
      (crowd-kit adds 1e-8 to each item's likelihood first, which with many
      labels per item swamps it; moot there as its restarts are identical).
    - crowd-kit fills the strategy counts in sorted worker and label order but
      reads them in order of first appearance, so it agrees with this only
      when workers and labels are coded in order of first appearance and that
      order is sorted (codes ``0..n-1`` given in that order); the tests do so.

    Parameters
    ----------
    items, workers, labels : array_like of int, shape (n,)
    n_items, n_workers, n_classes : int, optional
    max_iter : int
        Iterations per restart.
    n_restarts : int
        Random restarts; the one with the highest likelihood is kept.
    method : {"vb", "em"}
    alpha, beta : float
        Beta prior on spamming and knowing (``vb`` only).
    default_noise : float
        Spread of the random start.
    seed : int
        Seed of restart 0.
    tol : float
        Only for ``converged`` (see `TruthInference`).
    known : mapping of int to int, optional
        Item code -> its known true class (control items). Their posteriors
        are that class in every E-step, so a worker's labels on them count as
        knowing when right and as spam when wrong (Ipeirotis, Provost & Wang
        2010), and their term of the likelihood that picks the restart is that
        of their labels and their known class. A known item nobody labelled
        gets its class as posterior and label. Without ``known`` (or with an
        empty one) the result is the unpinned model's, bit for bit.

    Returns
    -------
    TruthInference
        ``skill`` = P(knows); ``confusion[w, i, j]`` = ``knows[w] * [i == j] +
        spams[w] * strategy[w, j]`` (with ``vb``, the variational weights
        normalised to sum to 1); ``priors`` uniform over the classes used.

    Examples
    --------
    >>> items = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3]
    >>> workers = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 2]
    >>> labels = [1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0]
    >>> result = mace(items, workers, labels, n_restarts=1)
    >>> result.labels.tolist()
    [1, 0, 1, 0]
    >>> result.skill.round(3).tolist()
    [0.937, 0.928, 0.094]
    >>> result.posteriors.sum(axis=1).round(12).tolist()
    [1.0, 1.0, 1.0, 1.0]
    >>> pinned = mace(items, workers, labels, n_restarts=1, known={1: 0, 3: 0})
    >>> pinned.posteriors[[1, 3]].tolist(), bool(pinned.skill[2] < pinned.skill[0])
    ([[1.0, 0.0], [1.0, 0.0]], True)
    """
    data = _setup(items, workers, labels, n_items, n_workers, n_classes, (max_iter, tol))
    _whole(n_restarts, "n_restarts", least=1)
    if method not in ("vb", "em"):
        raise ValueError(f"method must be 'vb' or 'em', got {method!r}")
    for name, value in (("alpha", alpha), ("beta", beta), ("default_noise", default_noise)):
        _number(value, name, non_negative=True)
    _whole(seed, "seed")
    data, fixed = _with_known(data, known)
    if len(data.items) == 0:
        return _pinned(_empty(data, confusion=True, skill=True), fixed)

    k, w, n = len(data.class_ids), len(data.worker_ids), len(data.items)
    s = _item_label_matrix(data)  # items x (w*K + l)
    st = s.T.tocsr()
    t = s.shape[0]  # items
    given = np.asarray(st.sum(axis=1)).ravel().reshape(w, k)  # labels l from worker w
    diagonal = np.arange(k)
    smoothing = 0.01 / k

    def e_step(spams_knows: FloatArray, strategy: FloatArray):
        # Every restart at once (a leading axis of R restarts): per (worker, label),
        # P(label | true class != label) and P(label | true class == label), both times K;
        # an item's log likelihood for class c is a sum of their logs: one sparse product
        # for all restarts (each column summed as alone, so each restart's figures are
        # what it gives run by itself).
        r = len(spams_knows)
        spam = spams_knows[:, :, :1] * strategy
        hit = spam + spams_knows[:, :, 1:]
        log_spam = np.log(spam)
        table = log_spam[..., None] + np.eye(k) * (np.log(hit) - log_spam)[..., None]  # R x w x l x c
        scores = (s @ table.transpose(1, 2, 0, 3).reshape(w * k, r * k)).reshape(t, r, k) - np.log(k)
        # the maximum and the sum over the few classes class by class (in order, as a
        # reduction over a short axis adds them), several times faster than that reduction
        top = _over_classes(np.maximum, scores)
        post = np.exp(scores - top[:, :, None])
        total = _over_classes(np.add, post)
        post /= total[:, :, None]
        log_marginal = (top + np.log(total)).T.copy()  # R x items, each row contiguous
        if fixed is not None:
            # A known item's term: P(its labels, its class), not summed over the classes.
            log_marginal[:, fixed.rows] = scores[fixed.rows, :, fixed.row_classes].T
            _fix(post, fixed)
        # Expected counts: a label l on item t is spam unless the truth is l and the worker knew it.
        summed = (st @ post.reshape(t, r * k)).reshape(w, k, r, k)
        on_label = summed[:, diagonal, :, diagonal].transpose(2, 1, 0)  # sum of post[t, l] per (w, l)
        strategy_counts = given - on_label * (1.0 - spam / hit)
        knowing = (on_label * spams_knows[:, :, 1:] / hit).sum(axis=2)
        knowing_counts = np.stack([strategy_counts.sum(axis=2), knowing], axis=2)
        return log_marginal.sum(axis=1), post, strategy_counts, knowing_counts

    def normalise(counts: FloatArray, prior: float | FloatArray) -> FloatArray:
        if method == "vb":
            total = np.exp(digamma((counts + prior).sum(axis=-1, keepdims=True)))
            return np.exp(digamma(counts + prior)) / total
        smoothed = counts + smoothing
        total = smoothed.sum(axis=-1, keepdims=True)
        return np.divide(smoothed, total, out=np.zeros_like(smoothed), where=~np.isclose(total, 0.0))

    ab = np.array([alpha, beta], dtype=np.float64)
    # Each restart's start from its own seed, then all of them iterated together.
    starts = [np.random.RandomState(seed + restart) for restart in range(n_restarts)]
    spams_knows = np.stack([state.uniform(1.0, 2.0 + default_noise, size=(w, 2)) for state in starts])
    starts = [np.random.RandomState(seed + restart) for restart in range(n_restarts)]
    strategy = np.stack([state.uniform(1.0, 2.0 + default_noise, size=(w, k)) for state in starts])
    spams_knows /= spams_knows.sum(axis=2, keepdims=True)
    strategy /= strategy.sum(axis=2, keepdims=True)
    log_lik, _, strategy_counts, knowing_counts = e_step(spams_knows, strategy)
    previous = np.full(n_restarts, -np.inf)
    for _ in range(max_iter):
        spams_knows = normalise(knowing_counts, ab)
        strategy = normalise(strategy_counts, 10.0)
        previous = log_lik
        log_lik, _, strategy_counts, knowing_counts = e_step(spams_knows, strategy)
    kept = int(np.argmax(log_lik))  # the first of the highest
    best = (
        log_lik[kept],
        spams_knows[kept : kept + 1],
        strategy[kept : kept + 1],
        bool(abs(log_lik[kept] - previous[kept]) / n < tol),
    )

    _, spams_knows, strategy, converged = best
    _, post, _, _ = e_step(spams_knows, strategy)
    post, spams_knows, strategy = post[:, 0], spams_knows[0], strategy[0]
    # Variational Bayes keeps exp(E[log p]) weights, which sum to a little under 1:
    # normalised here so that skill and confusion are probabilities.
    spams_knows = spams_knows / spams_knows.sum(axis=1, keepdims=True)
    strategy = strategy / strategy.sum(axis=1, keepdims=True)
    confusion = spams_knows[:, 0, None, None] * strategy[:, None, :] + spams_knows[:, 1, None, None] * np.eye(k)
    result = _result(
        data,
        post,
        confusion=confusion,
        skill=spams_knows[:, 1].copy(),
        iterations=max_iter,
        converged=converged,
    )
    return _pinned(result, fixed)


def _over_classes(ufunc: np.ufunc, values: FloatArray) -> FloatArray:
    """``ufunc.reduce(values, axis=-1)`` for a short last axis, one class after the other.

    >>> values = np.array([[[1.0, 3.0, 2.0]], [[0.5, 0.25, 0.125]]])
    >>> _over_classes(np.maximum, values).tolist(), _over_classes(np.add, values).tolist()
    ([[3.0], [0.5]], [[6.0], [0.875]])
    """
    out = values[..., 0].copy()
    for c in range(1, values.shape[-1]):
        ufunc(out, values[..., c], out=out)
    return out


# --------------------------------------------------------------------------- GLAD


def glad(
    items: npt.ArrayLike,
    workers: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    n_items: int | None = None,
    n_workers: int | None = None,
    n_classes: int | None = None,
    max_iter: int = 100,
    tol: float = 1e-5,
    m_step_max_iter: int = 25,
    m_step_tol: float = 1e-2,
) -> TruthInference:
    """GLAD (Whitehill et al. 2009): worker expertise and item difficulty, by EM.

    Worker ``w`` labels item ``t`` correctly with probability
    ``sigmoid(alpha[w] * exp(beta[t]))`` (``alpha``: expertise, negative for
    an adversary; ``exp(beta)``: the inverse difficulty), otherwise picks one
    of the other classes uniformly. Uniform class prior, N(1, 1) priors on
    ``alpha`` and ``beta``, both started at 1. Each M-step maximises the
    expected log posterior over all ``alpha`` and ``beta`` by conjugate
    gradients (``scipy.optimize.minimize(method="CG")``, ``m_step_max_iter``
    steps, ``m_step_tol``), as crowd-kit's ``GLAD`` does. Stops when the
    objective per (label, class) pair rose by less than ``tol``.

    As in crowd-kit, the posteriors are those of the last E-step (computed
    before the last M-step), and ``skill`` is ``alpha`` after it.

    Agreement with crowd-kit: equal to 1e-6 over the first EM iterations; after
    that the two drift apart by up to about 1e-2 in posteriors (the labels
    stayed equal on the Snow 2008 data). Not a different model: the
    conjugate-gradient M-step, stopped at the loose ``m_step_tol``, amplifies
    rounding differences of the sums (1e-16 in one iteration, 1e-7 after two)
    and the stopping rule then fires an iteration earlier or later.

    Parameters
    ----------
    items, workers, labels : array_like of int, shape (n,)
    n_items, n_workers, n_classes : int, optional
    max_iter : int
        EM iterations at most.
    tol : float
        Stopping threshold.
    m_step_max_iter, m_step_tol : int, float
        Conjugate-gradient iterations and tolerance of each M-step.

    Returns
    -------
    TruthInference
        ``skill`` = ``alpha`` (expertise), ``confusion`` None (it depends on
        the item), ``priors`` uniform over the classes used.

    Examples
    --------
    >>> items = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3]
    >>> workers = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 2]
    >>> labels = [1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1]
    >>> result = glad(items, workers, labels)
    >>> result.labels.tolist()
    [1, 0, 1, 0]
    >>> bool(result.skill[0] > result.skill[2])
    True
    """
    from scipy.optimize import minimize

    data = _setup(items, workers, labels, n_items, n_workers, n_classes, (max_iter, tol), (m_step_max_iter, m_step_tol))
    if len(data.items) == 0:
        return _empty(data, confusion=False, skill=True)
    k, w, t, n = len(data.class_ids), len(data.worker_ids), len(data.item_ids), len(data.items)
    it, wk, lb = data.items, data.workers, data.labels
    item_label = it * k + lb
    log_others = np.log(k - 1) if k > 1 else 0.0
    log_prior = -np.log(k)
    normal = -0.5 * np.log(2 * np.pi)

    def e_step(alpha: FloatArray, beta: FloatArray) -> FloatArray:
        ab = alpha[wk] * np.exp(beta[it])
        log_right = -np.logaddexp(0.0, -ab)
        log_wrong = -np.logaddexp(0.0, ab) - log_others
        scores = np.bincount(it, log_wrong, minlength=t)[:, None] + np.bincount(
            item_label, log_right - log_wrong, minlength=t * k
        ).reshape(t, k)
        scores += log_prior
        scores -= scores.max(axis=1, keepdims=True)
        post = np.exp(scores)
        return post / post.sum(axis=1, keepdims=True)

    def objective(x: FloatArray, on_label: FloatArray) -> tuple[float, FloatArray]:
        alpha, beta = x[:w], x[w:]
        inverse_difficulty = np.exp(beta[it])
        ab = alpha[wk] * inverse_difficulty
        log_right = -np.logaddexp(0.0, -ab)
        log_wrong = -np.logaddexp(0.0, ab) - log_others
        q = np.sum(on_label * log_right + (1.0 - on_label) * log_wrong)
        q += np.sum(normal - 0.5 * (alpha - 1.0) ** 2) + np.sum(normal - 0.5 * (beta - 1.0) ** 2)
        slope = on_label - 0.5 * (1.0 + np.tanh(0.5 * ab))  # p(label) - sigmoid(ab)
        d_alpha = np.bincount(wk, slope * inverse_difficulty, minlength=w) - (alpha - 1.0)
        d_beta = np.bincount(it, slope * ab, minlength=t) - (beta - 1.0)
        return float(q), np.concatenate([d_alpha, d_beta])

    def negative_objective(x: FloatArray, on_label: FloatArray) -> tuple[float, FloatArray]:
        q, gradient = objective(x, on_label)
        return -q, -gradient

    x = np.ones(w + t)
    post = e_step(x[:w], x[w:])
    q, _ = objective(x, post[it, lb])
    iterations, converged = 0, False
    while iterations < max_iter:
        iterations += 1
        last_q = q
        post = e_step(x[:w], x[w:])
        on_label = post[it, lb]
        fit = minimize(
            negative_objective,
            x,
            args=(on_label,),
            method="CG",
            jac=True,
            tol=m_step_tol,
            options={"disp": False, "maxiter": m_step_max_iter},
        )
        x = fit.x
        q = objective(x, on_label)[0] / (n * k)
        if q - last_q < tol:
            converged = True
            break
    return _result(
        data,
        post,
        confusion=None,
        skill=x[:w].copy(),
        iterations=iterations,
        converged=converged,
    )


# --------------------------------------------------------------------------- Wawa


def wawa(
    items: npt.ArrayLike,
    workers: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    n_items: int | None = None,
    n_workers: int | None = None,
    n_classes: int | None = None,
) -> TruthInference:
    """Worker agreement with aggregate (crowd-kit's ``Wawa``): a skill-weighted majority vote.

    1. Majority vote per item (ties -> lowest class).
    2. Each worker's skill: the share of their labels that equal the majority
       vote (a label repeated by the same worker on the same item counts once).
    3. Posteriors: each class's share of the skill-weighted votes.

    Parameters
    ----------
    items, workers, labels : array_like of int, shape (n,)
    n_items, n_workers, n_classes : int, optional

    Returns
    -------
    TruthInference
        ``skill`` = agreement with the majority vote, ``n_labels`` the distinct
        labels it rests on, ``confusion`` None, ``priors`` the mean posterior.

    Examples
    --------
    Item 1 is a 1-1 tie; worker 0 agrees with the majority more often, so
    their label wins it:

    >>> items = [0, 0, 0, 1, 1, 2, 2, 2]
    >>> workers = [0, 1, 2, 0, 2, 0, 1, 2]
    >>> labels = [1, 1, 0, 0, 1, 0, 0, 0]
    >>> result = wawa(items, workers, labels)
    >>> result.skill.round(3).tolist()
    [1.0, 1.0, 0.333]
    >>> result.labels.tolist(), result.posteriors[1].round(2).tolist()
    ([1, 0, 0], [0.75, 0.25])
    """
    data = _setup(items, workers, labels, n_items, n_workers, n_classes)
    if len(data.items) == 0:
        return _empty(data, confusion=False, skill=True)
    k, w, t = len(data.class_ids), len(data.worker_ids), len(data.item_ids)
    majority = np.argmax(_vote_shares(data, k), axis=1)
    distinct = np.unique((data.items * w + data.workers) * k + data.labels)
    d_label = distinct % k
    d_worker = (distinct // k) % w
    d_item = distinct // (k * w)
    agree = np.bincount(d_worker, (d_label == majority[d_item]).astype(np.float64), minlength=w)
    n_distinct = np.bincount(d_worker, minlength=w)
    skill = agree / n_distinct
    scores = np.bincount(data.items * k + data.labels, skill[data.workers], minlength=t * k).reshape(t, k)
    post = scores / scores.sum(axis=1, keepdims=True)
    return _result(
        data,
        post,
        confusion=None,
        skill=skill,
        n_labels=n_distinct,
        priors=post.mean(axis=0),
        iterations=1,
        converged=True,
    )
