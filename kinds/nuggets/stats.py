"""Nugget F-scores, nugget pyramids and the stability analyses built on them.

Source: Lin and Demner-Fushman (2006), "Will Pyramids Built of Nuggets Topple
Over?", Proceedings of HLT-NAACL 2006, pp. 383-390 (ACL Anthology N06-1049):
the official TREC F-score (Figure 1), pyramid weights and weighted recall
(section 4), and the analyses of section 6 (Tables 2-4, Figures 2-3).

Campaign layout
---------------
The vectorised functions take a *flat nugget axis*: every nugget of every
question is one position ``n`` of an axis of length ``N``, and
``question_index[n]`` says which question (``0 .. Q-1``) it belongs to, in any
order. Questions may have different numbers of nuggets. With ``A``
assessors (judgment sets) and ``R`` runs:

``vital_labels``   ``(A, N)`` bool: assessor ``a`` labelled nugget ``n`` vital
                   (row ``original``, default 0, is the original assessor).
``matches``        ``(R, N)`` bool: run ``r``'s response to the nugget's
                   question contains nugget ``n``.
``lengths``        ``(R, Q)``: non-whitespace characters of run ``r``'s
                   response to question ``q`` (see :func:`response_length`).

Internally questions are padded to the longest one so that weighted recall
for every judgment set, run and question is one batched matrix product.

Conventions for degenerate cases (the paper states none):

* no vital nuggets (binary model) or all weights zero (pyramid): recall is
  undefined and reported as NaN, and so is F; precision is still defined.
  :func:`run_scores` leaves such questions out of a run's mean (they are
  undefined for every run alike, so rankings do not depend on this choice).
* length 0: precision 1 (the length allowance is never exceeded).
* precision = recall = 0: F = 0.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from stats import rank

__all__ = [
    "CHARACTERS_PER_NUGGET",
    "Anova",
    "AssessorAgreement",
    "NuggetScore",
    "PairedTTest",
    "PyramidSizeAnalysis",
    "Quantisation",
    "assessor_agreement",
    "kendall_tau",
    "kendall_tau_matrix",
    "nugget_f",
    "nugget_f_batch",
    "one_way_anova",
    "paired_t_test",
    "pyramid_f",
    "pyramid_f_batch",
    "pyramid_size_analysis",
    "pyramid_weights",
    "quantisation",
    "response_length",
    "run_ranking",
    "run_scores",
    "zero_median_questions",
]

#: Length allowance per matched nugget, in non-whitespace characters (Figure 1).
CHARACTERS_PER_NUGGET = 100


def scipy_stats():
    """scipy.stats, imported on first use (it takes 1.7 s: not for every process that starts)."""
    import scipy.stats

    return scipy.stats


class NuggetScore(NamedTuple):
    """Nugget precision, recall and F; floats from the scalar functions,
    arrays of one common shape from the ``*_batch`` functions."""

    precision: float | np.ndarray
    recall: float | np.ndarray
    f: float | np.ndarray


class PairedTTest(NamedTuple):
    """Two-tailed paired t-test: t statistic, p-value, degrees of freedom."""

    statistic: float
    pvalue: float
    df: int


class Anova(NamedTuple):
    """One-way ANOVA: F statistic, p-value and its two degrees of freedom."""

    statistic: float
    pvalue: float
    df_between: int
    df_within: int


# --------------------------------------------------------------------------
# Validation at the boundary
# --------------------------------------------------------------------------


def _real_array(name: str, value: ArrayLike) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric, got {value!r}") from None
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    return array


def _non_negative(name: str, value: ArrayLike) -> np.ndarray:
    array = _real_array(name, value)
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative, got {array.min()!r}")
    return array


def _counts(name: str, value: ArrayLike) -> np.ndarray:
    array = _non_negative(name, value)
    if np.any(array != np.round(array)):
        raise ValueError(f"{name} must hold whole numbers (counts)")
    return array


def _beta(beta: float) -> float:
    array = _real_array("beta", beta)
    if array.ndim or array <= 0:
        raise ValueError(f"beta must be a positive number, got {beta!r}")
    return float(array)


def _weights(name: str, value: ArrayLike, *, ndims: tuple[int, ...]) -> np.ndarray:
    weights = _real_array(name, value)
    if weights.ndim not in ndims:
        raise ValueError(f"{name} must have {' or '.join(map(str, ndims))} dimensions, got {weights.ndim}")
    if np.any((weights < 0) | (weights > 1)):
        raise ValueError(f"{name} must lie in [0, 1]")
    return weights


def _binary_matrix(name: str, value: ArrayLike) -> np.ndarray:
    array = np.asarray(value)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got {array.ndim} dimensions")
    if array.dtype != bool:
        if not np.issubdtype(array.dtype, np.number) or not np.all(np.isin(array, (0, 1))):
            raise ValueError(f"{name} must be boolean (or 0/1)")
        array = array.astype(bool)
    return array


@dataclass(frozen=True)
class _Layout:
    """Where each nugget of the flat axis sits in the padded (Q, K) layout."""

    question_index: np.ndarray
    slot: np.ndarray
    n_questions: int
    width: int

    def pad(self, values: np.ndarray) -> np.ndarray:
        """(..., N) -> (..., Q, K), zero where a question has fewer nuggets."""
        padded = np.zeros(values.shape[:-1] + (self.n_questions, self.width), dtype=values.dtype)
        padded[..., self.question_index, self.slot] = values
        return padded

    def per_question_sum(self, values: np.ndarray) -> np.ndarray:
        """(..., N) -> (..., Q)."""
        return self.pad(values).sum(axis=-1)


def _layout(question_index: ArrayLike | None, n_nuggets: int, n_questions: int | None) -> _Layout:
    if question_index is None:
        index = np.zeros(n_nuggets, dtype=np.intp)
        n_questions = 1
    else:
        index = _question_index(question_index, n_nuggets)
        n_questions = _n_questions(n_questions, index)
    counts = np.bincount(index, minlength=n_questions)
    order = np.argsort(index, kind="stable")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    slot = np.empty(n_nuggets, dtype=np.intp)
    slot[order] = np.arange(n_nuggets) - starts[index[order]]
    return _Layout(index, slot, n_questions, int(counts.max(initial=0)))


def _question_index(value: ArrayLike, n_nuggets: int) -> np.ndarray:
    index = np.asarray(value)
    if index.ndim != 1 or index.shape[0] != n_nuggets:
        raise ValueError(f"question_index must be 1-D with one entry per nugget ({n_nuggets}), got shape {index.shape}")
    if index.size and (not np.issubdtype(index.dtype, np.integer) or index.min() < 0):
        raise ValueError("question_index must hold non-negative integers")
    return index.astype(np.intp)


def _n_questions(value: int | None, index: np.ndarray) -> int:
    needed = int(index.max(initial=-1)) + 1
    if value is None:
        return needed
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < needed:
        raise ValueError(f"n_questions must be an integer >= {needed} (largest question_index + 1), got {value!r}")
    return int(value)


def _lengths(value: ArrayLike, shape: tuple[int, ...]) -> np.ndarray:
    lengths = _non_negative("lengths", value)
    if lengths.shape != shape:
        raise ValueError(f"lengths must have shape {shape} (runs[, questions]), got {lengths.shape}")
    return lengths


# --------------------------------------------------------------------------
# The F-score of Figure 1 and the pyramid recall of section 4
# --------------------------------------------------------------------------


def _length_precision(n_matched: np.ndarray, length: np.ndarray) -> np.ndarray:
    # Figure 1's 1 - (l - alpha) / l is alpha / l; l <= alpha also covers l = 0.
    allowance = CHARACTERS_PER_NUGGET * np.asarray(n_matched, dtype=float)
    length = np.asarray(length, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(length <= allowance, 1.0, allowance / length)


def _f_beta(precision: np.ndarray, recall: np.ndarray, beta: float) -> np.ndarray:
    b2 = beta * beta
    # Scaling the (R, Q) precision before it meets the (J, R, Q) recall keeps
    # the full-size temporaries to two.
    numerator = np.asarray(np.multiply((b2 + 1.0) * precision, recall), dtype=float)
    denominator = np.add(b2 * precision, recall)
    # den == 0 only when P = R = 0 (F = 0); a NaN recall keeps F NaN (NaN != 0).
    return np.divide(numerator, denominator, out=numerator, where=denominator != 0)


def _ratio(numerator: ArrayLike, denominator: ArrayLike) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is not positive."""
    numerator, denominator = np.broadcast_arrays(np.asarray(numerator, float), np.asarray(denominator, float))
    out = np.full(numerator.shape, np.nan)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)


def response_length(text: str | list[str] | tuple[str, ...]) -> int:
    """Number of non-whitespace characters of a response (``l`` of Figure 1).

    Parameters
    ----------
    text : str or sequence of str
        The answer string, or the passages of a response (their lengths add
        up). Whitespace is what :meth:`str.isspace` calls whitespace,
        including Unicode spaces such as U+00A0 and U+3000.

    Returns
    -------
    int

    References
    ----------
    Lin and Demner-Fushman (2006), Figure 1: "l # of non-whitespace characters
    in the entire answer string".

    Examples
    --------
    >>> response_length("AARP  lobbies\\tfor retirees.")
    23
    >>> response_length(["Founded 1958.", "Has 35 million members."])
    32
    """
    if isinstance(text, str):
        passages = [text]
    elif isinstance(text, (list, tuple)) and all(isinstance(p, str) for p in text):
        passages = list(text)
    else:
        raise ValueError(f"text must be a string or a list of strings, got {type(text).__name__}")
    # str.split() with no argument splits on exactly the str.isspace characters.
    return sum(len("".join(p.split())) for p in passages)


def nugget_f(
    *,
    vital_matched: int,
    okay_matched: int,
    vital_total: int,
    length: float,
    beta: float = 3.0,
) -> NuggetScore:
    """Official TREC nugget precision, recall and F-beta of one response.

    recall = r / R; allowance = 100 (r + a); precision = 1 if l < allowance
    else 1 - (l - allowance) / l; F = (beta^2 + 1) P R / (beta^2 P + R).

    Parameters
    ----------
    vital_matched : int
        r, vital nuggets the response contains.
    okay_matched : int
        a, okay nuggets the response contains.
    vital_total : int
        R, vital nuggets in the answer key (>= ``vital_matched``).
    length : float
        l, non-whitespace characters of the response (:func:`response_length`).
    beta : float, default 3.0
        3 in TREC 2004-2005 and throughout the paper; 5 in TREC 2003.

    Returns
    -------
    NuggetScore
        ``(precision, recall, f)`` as Python floats. With no vital nuggets
        (``vital_total == 0``) recall and F are NaN; length 0 gives precision
        1; P = R = 0 gives F = 0.

    References
    ----------
    Lin and Demner-Fushman (2006), Figure 1 (after Voorhees, 2003).

    Examples
    --------
    >>> nugget_f(vital_matched=2, okay_matched=1, vital_total=4, length=600)
    NuggetScore(precision=0.5, recall=0.5, f=0.5)
    """
    beta = _beta(beta)
    r = _counts("vital_matched", vital_matched)
    a = _counts("okay_matched", okay_matched)
    total = _counts("vital_total", vital_total)
    l = _non_negative("length", length)  # noqa: E741 (Figure 1 calls the length l)
    for name, arg in (("vital_matched", r), ("okay_matched", a), ("vital_total", total), ("length", l)):
        if arg.ndim:
            raise ValueError(f"{name} must be a scalar; use nugget_f_batch for arrays")
    if r > total:
        raise ValueError(f"vital_matched ({r:g}) must not exceed vital_total ({total:g})")
    return NuggetScore(*map(float, _nugget_scores(r, a, total, l, beta)))


def _nugget_scores(
    r: np.ndarray, a: np.ndarray, total: np.ndarray, length: np.ndarray, beta: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    precision = _length_precision(r + a, length)
    recall = _ratio(r, total)
    return precision, recall, _f_beta(precision, recall, beta)


def nugget_f_batch(
    vital_matched: ArrayLike,
    okay_matched: ArrayLike,
    vital_total: ArrayLike,
    length: ArrayLike,
    *,
    beta: float = 3.0,
) -> NuggetScore:
    """:func:`nugget_f` over arrays of counts that broadcast together.

    Parameters
    ----------
    vital_matched, okay_matched, vital_total, length : array_like
        Same meaning as in :func:`nugget_f`; any shapes that broadcast,
        e.g. ``(A, R, Q)`` counts with ``(R, Q)`` lengths and ``(A, 1, Q)``
        totals.
    beta : float, default 3.0

    Returns
    -------
    NuggetScore
        Arrays of the broadcast shape, with the conventions of :func:`nugget_f`.

    References
    ----------
    Lin and Demner-Fushman (2006), Figure 1.

    Examples
    --------
    >>> p, r, f = nugget_f_batch(2, 1, 4, [250, 600, 900])
    >>> np.round(f, 7).tolist()
    [0.5263158, 0.5, 0.4761905]
    """
    beta = _beta(beta)
    r = _counts("vital_matched", vital_matched)
    a = _counts("okay_matched", okay_matched)
    total = _counts("vital_total", vital_total)
    length = _non_negative("length", length)
    try:
        r, a, total, length = np.broadcast_arrays(r, a, total, length)
    except ValueError:
        raise ValueError(
            "vital_matched, okay_matched, vital_total and length must broadcast together, got shapes "
            f"{np.shape(vital_matched)}, {np.shape(okay_matched)}, {np.shape(vital_total)}, {np.shape(length)}"
        ) from None
    if np.any(r > total):
        raise ValueError("vital_matched must not exceed vital_total")
    return NuggetScore(*_nugget_scores(r, a, total, length, beta))


def pyramid_weights(
    vital_votes: ArrayLike,
    *,
    question_index: ArrayLike | None = None,
    n_questions: int | None = None,
) -> np.ndarray:
    """Nugget-pyramid weights: vital votes over the question's largest count.

    Parameters
    ----------
    vital_votes : array_like, shape (..., N)
        Number of assessors who labelled each nugget vital (non-negative;
        fractional votes are accepted). Leading axes are independent
        pyramids, e.g. ``(S, N)`` for S subsets of assessors.
    question_index : array_like of int, shape (N,), optional
        Question of each nugget; weights are normalised per question. Without
        it the last axis is one question.
    n_questions : int, optional
        Number of questions (default ``question_index.max() + 1``).

    Returns
    -------
    ndarray, shape (..., N)
        Weights in [0, 1]; the most-voted nugget(s) of each question weigh 1.
        A question where nobody voted any nugget vital gets all weights 0,
        which makes its pyramid recall (and F) NaN in :func:`pyramid_f`.

    References
    ----------
    Lin and Demner-Fushman (2006), section 4.

    Examples
    --------
    >>> pyramid_weights([4, 2, 1, 0]).tolist()
    [1.0, 0.5, 0.25, 0.0]
    >>> pyramid_weights([2, 1, 3, 0], question_index=[0, 0, 1, 1]).tolist()
    [1.0, 0.5, 1.0, 0.0]
    """
    votes = _non_negative("vital_votes", vital_votes)
    if votes.ndim < 1:
        raise ValueError("vital_votes must have at least one dimension (nuggets)")
    layout = _layout(question_index, votes.shape[-1], n_questions)
    return _over_peak(votes, layout.pad(votes).max(axis=-1, initial=0.0)[..., layout.question_index])


def question_weights(votes: np.ndarray) -> np.ndarray:
    """:func:`pyramid_weights` of one question's (..., K) float votes, without its checks (the
    running sums compute a question's weights question by question: kinds/nuggets/sums.py).

    >>> question_weights(np.array([[4.0, 2.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]])).tolist()
    [[1.0, 0.5, 0.25, 0.0], [0.0, 0.0, 0.0, 0.0]]
    """
    return _over_peak(votes, votes.max(axis=-1, initial=0.0, keepdims=True))


def _over_peak(votes: np.ndarray, peak: np.ndarray) -> np.ndarray:
    """Each nugget's votes over its question's most (``peak``, broadcast to ``votes``); 0 where that is 0."""
    return np.where(peak > 0, votes / np.where(peak > 0, peak, 1.0), 0.0)


def _matched_mask(matched: ArrayLike, n_nuggets: int) -> np.ndarray:
    chosen = np.asarray(matched)
    if chosen.dtype == bool:
        if chosen.shape != (n_nuggets,):
            raise ValueError(f"matched as a boolean mask must have shape ({n_nuggets},), got {chosen.shape}")
        return chosen
    if chosen.size == 0:
        return np.zeros(n_nuggets, dtype=bool)
    if chosen.ndim != 1 or not np.issubdtype(chosen.dtype, np.integer):
        raise ValueError("matched must be a boolean mask or a 1-D list of integer nugget indices")
    if chosen.min() < 0 or chosen.max() >= n_nuggets:
        raise ValueError(f"matched indices must lie in [0, {n_nuggets})")
    if np.unique(chosen).size != chosen.size:
        raise ValueError("matched has repeated indices; pass a boolean mask for per-nugget flags")
    mask = np.zeros(n_nuggets, dtype=bool)
    mask[chosen] = True
    return mask


def pyramid_f(
    *,
    weights: ArrayLike,
    matched: ArrayLike,
    length: float,
    beta: float = 3.0,
) -> NuggetScore:
    """Nugget-pyramid precision, recall and F-beta of one response.

    recall = sum of the matched nuggets' weights / sum of all weights;
    precision as in :func:`nugget_f` with an allowance of 100 characters per
    matched nugget, whatever its weight.

    Parameters
    ----------
    weights : array_like, shape (N,)
        Weights in [0, 1] of the question's nuggets (:func:`pyramid_weights`).
    matched : array_like
        The nuggets the response contains: a boolean mask of shape (N,), or
        integer indices into ``weights`` (an integer array is always read as
        indices, never as 0/1 flags).
    length : float
        Non-whitespace characters of the response.
    beta : float, default 3.0

    Returns
    -------
    NuggetScore
        Python floats. If all weights are 0, recall and F are NaN.
        Weights of 1 for vital and 0 for okay nuggets give :func:`nugget_f`.

    References
    ----------
    Lin and Demner-Fushman (2006), section 4.

    Examples
    --------
    >>> p, r, f = pyramid_f(weights=[1, 0.5, 0.25, 0], matched=[1, 3], length=150)
    >>> round(p, 7), round(r, 7), round(f, 7)
    (1.0, 0.2857143, 0.3076923)
    """
    beta = _beta(beta)
    w = _weights("weights", weights, ndims=(1,))
    mask = _matched_mask(matched, w.shape[0])
    l = _non_negative("length", length)  # noqa: E741 (Figure 1 calls the length l)
    if l.ndim:
        raise ValueError("length must be a scalar; use pyramid_f_batch for arrays")
    precision = _length_precision(np.count_nonzero(mask), l)
    recall = _ratio(w[mask].sum(), w.sum())
    return NuggetScore(float(precision), float(recall), float(_f_beta(precision, recall, beta)))


def pyramid_f_batch(
    weights: ArrayLike,
    matches: ArrayLike,
    lengths: ArrayLike,
    *,
    question_index: ArrayLike | None = None,
    n_questions: int | None = None,
    beta: float = 3.0,
) -> NuggetScore:
    """Pyramid (or binary) F of every judgment set x run x question at once.

    Parameters
    ----------
    weights : array_like, shape (J, N) or (N,)
        Nugget weights in [0, 1] under each of J judgment sets (pyramids from
        :func:`pyramid_weights`, or one assessor's vital labels as 1/0, which
        is the official binary model).
    matches : array_like of bool, shape (R, N)
        Which nuggets each run's response contains (0/1 accepted).
    lengths : array_like, shape (R, Q), or (R,) without ``question_index``
        Non-whitespace characters of each run's response to each question.
    question_index : array_like of int, shape (N,), optional
        Question of each nugget (flat nugget axis, any order). Without it
        all N nuggets belong to one question.
    n_questions : int, optional
        Q (default ``question_index.max() + 1``); questions without nuggets
        get recall NaN.
    beta : float, default 3.0

    Returns
    -------
    NuggetScore
        Arrays of shape (J, R, Q); the J axis is absent for 1-D ``weights``
        and the Q axis without ``question_index``. Conventions as in
        :func:`pyramid_f`.

    References
    ----------
    Lin and Demner-Fushman (2006), section 4 and Figure 1.

    Examples
    --------
    Two judgment sets (the pyramid, then one assessor's binary labels), two
    runs, one question:

    >>> weights = [[1, 0.5, 0.25, 0], [1, 0, 0, 0]]
    >>> matches = [[False, True, False, True], [True, False, False, False]]
    >>> p, r, f = pyramid_f_batch(weights, matches, [150, 300])
    >>> np.round(r, 4).tolist()
    [[0.2857, 0.5714], [0.0, 1.0]]
    """
    beta = _beta(beta)
    w = _weights("weights", weights, ndims=(1, 2))
    m = _binary_matrix("matches", matches)
    if m.shape[1] != w.shape[-1]:
        raise ValueError(f"matches must have one column per nugget ({w.shape[-1]}), got shape {m.shape}")
    layout = _layout(question_index, w.shape[-1], n_questions)
    expected = (m.shape[0],) if question_index is None else (m.shape[0], layout.n_questions)
    lengths = _lengths(lengths, expected).reshape(m.shape[0], layout.n_questions)
    scores = _score(np.atleast_2d(w), layout.pad(m.astype(float)), lengths, layout, beta)
    return NuggetScore(*(np.array(s).reshape(w.shape[:-1] + expected) for s in scores))


def question_f(weights: np.ndarray, matches: np.ndarray, lengths: np.ndarray, beta: float = 3.0) -> np.ndarray:
    """F of J weightings x R responses to one question: :func:`pyramid_f_batch`'s F with
    ``weights`` (J, K) floats, ``matches`` (R, K) bool and ``lengths`` (R,) as it takes them,
    without its checks, which cost more than a question's F (the running sums compute it
    question by question: kinds/nuggets/sums.py).

    >>> question_f(np.array([[1, 0.5, 0.25, 0], [1, 0, 0, 0]]),
    ...            np.array([[False, True, False, True], [True, False, False, False]]), np.array([150.0, 300.0])).round(4).tolist()
    [[0.3077, 0.5333], [0.0, 0.8333]]
    """
    k = weights.shape[-1]
    layout = _Layout(np.zeros(k, dtype=np.intp), np.arange(k), 1, k)
    f = _score(weights, matches.astype(float)[:, np.newaxis, :], lengths.reshape(-1, 1), layout, beta)[2]
    return f[:, :, 0]


def _score(
    weights: np.ndarray, padded_matches: np.ndarray, lengths: np.ndarray, layout: _Layout, beta: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(J, N) weights, (R, Q, K) matches, (R, Q) lengths -> three (J, R, Q) arrays."""
    padded_weights = layout.pad(weights)
    # (Q, J, K) @ (Q, K, R): the matched weight of every set, run and question.
    gained = np.matmul(padded_weights.transpose(1, 0, 2), padded_matches.transpose(1, 2, 0))
    gained = np.ascontiguousarray(gained.transpose(1, 2, 0))
    recall = _ratio(gained, padded_weights.sum(axis=-1)[:, None, :])
    # Precision depends on the run and question only, never on the weights.
    precision = _length_precision(padded_matches.sum(axis=-1), lengths)
    return np.broadcast_to(precision, recall.shape), recall, _f_beta(precision, recall, beta)


# --------------------------------------------------------------------------
# Run scores, rankings, rank correlation and significance tests
# --------------------------------------------------------------------------


def run_scores(question_scores: ArrayLike) -> np.ndarray:
    """Score of each run: the mean of its per-question scores (last axis).

    Parameters
    ----------
    question_scores : array_like, shape (..., Q)
        Per-question F, e.g. the (J, R, Q) output of :func:`pyramid_f_batch`.

    Returns
    -------
    ndarray, shape (...)
        Mean over the questions whose score is defined (not NaN: no vital
        nuggets under that judgment set); NaN if none is.

    References
    ----------
    Lin and Demner-Fushman (2006), section 2: "the final score of a system run
    is the mean of scores across all questions".

    Examples
    --------
    >>> run_scores([[0.5, 0.0, np.nan], [1.0, 0.5, np.nan]]).tolist()
    [0.25, 0.75]
    """
    scores = np.asarray(question_scores, dtype=float)
    if scores.ndim < 1:
        raise ValueError("question_scores must have a question axis (last)")
    defined = ~np.isnan(scores)
    return _ratio(np.where(defined, scores, 0.0).sum(axis=-1), defined.sum(axis=-1))


def run_ranking(scores: ArrayLike) -> np.ndarray:
    """Run indices from best to worst score (ties keep index order; NaN last).

    Examples
    --------
    >>> run_ranking([0.2, 0.5, np.nan, 0.5]).tolist()
    [1, 3, 0, 2]
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1:
        raise ValueError(f"scores must be 1-D (one score per run), got {scores.ndim} dimensions")
    return np.argsort(-scores, kind="stable")


def kendall_tau(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall's tau-b between two runs' score vectors (equal to scipy.stats.kendalltau).

    Tau-b corrects for ties, which are common among runs that score zero.
    NaN if either vector has a NaN or is constant.

    References
    ----------
    Lin and Demner-Fushman (2006), section 5.

    Examples
    --------
    >>> round(kendall_tau([0.1, 0.2, 0.3, 0.4], [0.1, 0.3, 0.2, 0.4]), 4)
    0.6667
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or y.shape != x.shape:
        raise ValueError(f"x and y must be 1-D of equal length, got shapes {x.shape} and {y.shape}")
    return float(kendall_tau_matrix(x, y)[0, 0])


def kendall_tau_matrix(x: ArrayLike, y: ArrayLike) -> np.ndarray:
    """Kendall's tau-b between every row of ``x`` and every row of ``y``.

    Equals scipy's tau-b pair by pair, computed by :func:`stats.rank.kendall_tau_b`
    as one matrix product of pairwise-order signs: tau_b = sum sign(dx) sign(dy) /
    sqrt(n_x n_y), n_x and n_y the numbers of run pairs not tied in x and y.
    Memory is O((X + Y) R^2).

    Parameters
    ----------
    x : array_like, shape (X, R) or (R,)
    y : array_like, shape (Y, R) or (R,)
        Run scores under X and Y scoring models.

    Returns
    -------
    ndarray, shape (X, Y)
        NaN for rows with a NaN or constant rows.

    References
    ----------
    Lin and Demner-Fushman (2006), section 5; Kendall's tau-b as in
    scipy.stats.kendalltau.

    Examples
    --------
    >>> np.round(kendall_tau_matrix([0.1, 0.2, 0.3, 0.4], [[0.1, 0.3, 0.2, 0.4], [4, 3, 2, 1]]), 4).tolist()
    [[0.6667, -1.0]]
    """
    xs = np.atleast_2d(np.asarray(x, dtype=float))
    ys = np.atleast_2d(np.asarray(y, dtype=float))
    if xs.ndim != 2 or ys.ndim != 2 or xs.shape[1] != ys.shape[1]:
        raise ValueError(f"x and y must be (models, runs) with the same number of runs, got {xs.shape} and {ys.shape}")
    if np.isinf(xs).any() or np.isinf(ys).any():
        raise ValueError("x and y must not contain infinities")
    missing_x, missing_y = np.isnan(xs).any(axis=1), np.isnan(ys).any(axis=1)
    tau = rank.kendall_tau_b(np.nan_to_num(xs), np.nan_to_num(ys))
    return np.where(missing_x[:, None] | missing_y[None, :], np.nan, tau)


def paired_t_test(a: ArrayLike, b: ArrayLike) -> PairedTTest:
    """Two-tailed paired t-test of mean(a - b) = 0 (scipy.stats.ttest_rel).

    Parameters
    ----------
    a, b : array_like, shape (n,)
        Paired samples, n >= 2 (e.g. Kendall tau per assessor under two
        scoring models).

    Returns
    -------
    PairedTTest
        ``(statistic, pvalue, df)``; NaN statistic and p-value if the
        differences are all equal, to rounding: a sample without variance has
        no t (scipy answers inf for equal differences, and a t in the
        quadrillions for differences equal but for the last bit).

    References
    ----------
    Lin and Demner-Fushman (2006), section 6 ("a two-tailed t-test").

    Examples
    --------
    >>> t = paired_t_test([0.9, 0.8, 0.85], [0.8, 0.75, 0.7])
    >>> round(t.statistic, 4), round(t.pvalue, 4), t.df
    (3.4641, 0.0742, 2)
    >>> paired_t_test([0.9, 0.8, 0.7], [0.8, 0.7, 0.6])  # every difference 0.1, but for rounding
    PairedTTest(statistic=nan, pvalue=nan, df=2)
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape or a.size < 2:
        raise ValueError(f"a and b must be 1-D of equal length >= 2, got shapes {a.shape} and {b.shape}")
    differences = a - b
    if np.ptp(differences) <= _EQUAL_DIFFERENCES * max(1.0, float(np.abs(differences).max())):
        return PairedTTest(float("nan"), float("nan"), a.size - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = scipy_stats().ttest_rel(a, b, alternative="two-sided")
    return PairedTTest(float(result.statistic), float(result.pvalue), a.size - 1)


#: Differences closer than this (relative to the largest) are equal: the rounding of the scores
#: they are differences of, not a spread a t-test could measure.
_EQUAL_DIFFERENCES = 1e-12


def one_way_anova(*groups: ArrayLike) -> Anova:
    """One-way ANOVA across groups (scipy.stats.f_oneway).

    Parameters
    ----------
    *groups : array_like, each 1-D
        At least two groups, at least one more value than groups in all.

    Returns
    -------
    Anova
        ``(statistic, pvalue, df_between, df_within)``.

    References
    ----------
    Lin and Demner-Fushman (2006), section 6 ("ANOVA reveals no statistically
    significant differences beyond two assessors").

    Examples
    --------
    >>> result = one_way_anova([0.8, 0.82, 0.85], [0.84, 0.86, 0.83], [0.85, 0.84, 0.87])
    >>> round(result.statistic, 4), result.df_between, result.df_within
    (1.9091, 2, 6)
    """
    samples = [np.asarray(g, dtype=float) for g in groups]
    if len(samples) < 2 or any(s.ndim != 1 or s.size == 0 for s in samples):
        raise ValueError("groups must be at least two non-empty 1-D samples")
    total = sum(s.size for s in samples)
    if total <= len(samples):
        raise ValueError("groups must hold more values in all than there are groups")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = scipy_stats().f_oneway(*samples)
    return Anova(float(result.statistic), float(result.pvalue), len(samples) - 1, total - len(samples))


def zero_median_questions(question_scores: ArrayLike) -> np.ndarray:
    """Questions whose median score over all runs is zero.

    Parameters
    ----------
    question_scores : array_like, shape (..., R, Q)

    Returns
    -------
    ndarray of bool, shape (..., Q)
        False for questions whose scores are undefined (NaN).

    References
    ----------
    Lin and Demner-Fushman (2006), sections 3 and 6 (Figure 3).

    Examples
    --------
    >>> zero_median_questions([[0.0, 0.5], [0.0, 0.0], [0.3, 0.1]]).tolist()
    [True, False]
    """
    scores = np.asarray(question_scores, dtype=float)
    if scores.ndim < 2:
        raise ValueError("question_scores must have a run axis and a question axis (..., R, Q)")
    return np.median(scores, axis=-2) == 0


# --------------------------------------------------------------------------
# Campaign analyses of section 6
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Campaign:
    labels: np.ndarray  # (A, N) 1.0 vital / 0.0 okay
    padded_matches: np.ndarray  # (R, Q, K) float
    lengths: np.ndarray  # (R, Q)
    layout: _Layout
    beta: float

    def scores(self, weights: np.ndarray) -> np.ndarray:
        """F of (J, N) weights -> (J, R, Q)."""
        return _score(weights, self.padded_matches, self.lengths, self.layout, self.beta)[2]

    def pyramid_scores(self, members: np.ndarray) -> np.ndarray:
        """F under the pyramid of each (S, A) subset of assessors -> (S, R, Q)."""
        votes = members.astype(float) @ self.labels
        weights = pyramid_weights(votes, question_index=self.layout.question_index, n_questions=self.layout.n_questions)
        return self.scores(weights)


def _campaign(
    vital_labels: ArrayLike,
    matches: ArrayLike,
    lengths: ArrayLike,
    question_index: ArrayLike,
    n_questions: int | None,
    beta: float,
) -> _Campaign:
    labels = _binary_matrix("vital_labels", vital_labels)
    runs = _binary_matrix("matches", matches)
    if runs.shape[1] != labels.shape[1]:
        raise ValueError(f"matches must have one column per nugget ({labels.shape[1]}), got shape {runs.shape}")
    if labels.shape[0] == 0:
        raise ValueError("vital_labels must have at least one assessor (row)")
    layout = _layout(question_index, labels.shape[1], n_questions)
    lengths = _lengths(lengths, (runs.shape[0], layout.n_questions))
    return _Campaign(labels.astype(float), layout.pad(runs.astype(float)), lengths, layout, _beta(beta))


def _assessor(original: int, n_assessors: int) -> int:
    if isinstance(original, bool) or not isinstance(original, (int, np.integer)) or not 0 <= original < n_assessors:
        raise ValueError(f"original must be an assessor index in [0, {n_assessors}), got {original!r}")
    return int(original)


@dataclass(frozen=True)
class AssessorAgreement:
    """Tables 3 and 4: rank stability of single assessors and of the pyramid.

    Attributes
    ----------
    assessor_scores : ndarray, shape (A, R, Q)
        F of each run on each question under each assessor's binary labels.
    pyramid_scores : ndarray, shape (R, Q)
        F under the pyramid of all A assessors.
    assessor_run_scores : ndarray, shape (A, R)
    pyramid_run_scores : ndarray, shape (R,)
    tau_original : ndarray, shape (A,)
        Table 3: tau-b between the original assessor's run scores and each
        assessor's (1 at the original itself).
    tau_pyramid : ndarray, shape (A,)
        Table 4: tau-b between the pyramid's run scores and each assessor's.
    mean_tau_original, mean_tau_pyramid : float
        Averages over the assessors other than the original.
    t_test : PairedTTest
        Two-tailed paired t-test of tau_pyramid vs tau_original over the
        assessors other than the original (positive: the pyramid agrees more).
    """

    assessor_scores: np.ndarray
    pyramid_scores: np.ndarray
    assessor_run_scores: np.ndarray
    pyramid_run_scores: np.ndarray
    tau_original: np.ndarray
    tau_pyramid: np.ndarray
    mean_tau_original: float
    mean_tau_pyramid: float
    t_test: PairedTTest


def assessor_agreement(
    vital_labels: ArrayLike,
    matches: ArrayLike,
    lengths: ArrayLike,
    *,
    question_index: ArrayLike,
    n_questions: int | None = None,
    original: int = 0,
    beta: float = 3.0,
) -> AssessorAgreement:
    """Kendall tau of the original assessor and of the pyramid vs each assessor.

    Parameters
    ----------
    vital_labels : array_like of bool, shape (A, N)
        Each assessor's vital (True) / okay (False) label of every nugget.
    matches : array_like of bool, shape (R, N)
    lengths : array_like, shape (R, Q)
    question_index : array_like of int, shape (N,)
    n_questions : int, optional
    original : int, default 0
        Row of the original (NIST) assessor, left out of the averages and
        the t-test as in the paper.
    beta : float, default 3.0

    Returns
    -------
    AssessorAgreement

    References
    ----------
    Lin and Demner-Fushman (2006), section 6, Tables 3 and 4.

    Examples
    --------
    >>> labels = [[1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 1]]
    >>> matches = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1]]
    >>> result = assessor_agreement(labels, matches, [[100, 100], [90, 90], [300, 300], [50, 50]],
    ...                             question_index=[0, 0, 1, 1])
    >>> np.round(result.tau_pyramid, 3).tolist()
    [0.548, 0.913, 0.707]
    """
    campaign = _campaign(vital_labels, matches, lengths, question_index, n_questions, beta)
    n_assessors = campaign.labels.shape[0]
    original = _assessor(original, n_assessors)
    assessor_f = campaign.scores(campaign.labels)
    pyramid_f_ = campaign.pyramid_scores(np.ones((1, n_assessors), dtype=bool))[0]
    assessor_runs = run_scores(assessor_f)
    pyramid_runs = run_scores(pyramid_f_)
    tau_original = kendall_tau_matrix(assessor_runs[original], assessor_runs)[0]
    tau_pyramid = kendall_tau_matrix(pyramid_runs, assessor_runs)[0]
    others = np.arange(n_assessors) != original
    return AssessorAgreement(
        assessor_scores=assessor_f,
        pyramid_scores=pyramid_f_,
        assessor_run_scores=assessor_runs,
        pyramid_run_scores=pyramid_runs,
        tau_original=tau_original,
        tau_pyramid=tau_pyramid,
        mean_tau_original=_mean(tau_original[others]),
        mean_tau_pyramid=_mean(tau_pyramid[others]),
        t_test=_paired_or_nan(tau_pyramid[others], tau_original[others]),
    )


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else float("nan")


def _paired_or_nan(a: np.ndarray, b: np.ndarray) -> PairedTTest:
    if a.size < 2:
        return PairedTTest(float("nan"), float("nan"), max(a.size - 1, 0))
    return paired_t_test(a, b)


@dataclass(frozen=True)
class PyramidSizeAnalysis:
    """Figures 2 and 3: pyramids built from m = 1..A assessors.

    Attributes
    ----------
    sizes : ndarray, shape (A,)
        m = 1..A.
    n_subsets : ndarray, shape (A,)
        Subsets of m assessors used (all of them, or a seeded sample).
    tau_by_assessor : ndarray, shape (A, A)
        Row m-1, column a: mean over the subsets of size m of tau-b between
        the subset's pyramid and assessor a.
    mean_tau : ndarray, shape (A,)
        Figure 2: mean of each row of ``tau_by_assessor``.
    zero_median_fraction : ndarray, shape (A,)
        Figure 3: fraction of all Q questions whose median run score is zero,
        averaged over the subsets of size m.
    one_vs_two : PairedTTest
        Two-tailed paired t-test of ``tau_by_assessor`` row m=2 vs row m=1
        (paired over assessors).
    anova_beyond_two : Anova or None
        One-way ANOVA across the rows m = 2..A (None if A < 3).
    """

    sizes: np.ndarray
    n_subsets: np.ndarray
    tau_by_assessor: np.ndarray
    mean_tau: np.ndarray
    zero_median_fraction: np.ndarray
    one_vs_two: PairedTTest
    anova_beyond_two: Anova | None


def pyramid_size_analysis(
    vital_labels: ArrayLike,
    matches: ArrayLike,
    lengths: ArrayLike,
    *,
    question_index: ArrayLike,
    n_questions: int | None = None,
    beta: float = 3.0,
    max_subsets: int = 300,
    seed: int = 0,
    exclude_members: bool = False,
) -> PyramidSizeAnalysis:
    """Agreement and zero medians of pyramids built from m of A assessors.

    The paper built one pyramid per size m (which assessors it took is not
    stated) and averaged its tau against each of the ten individual
    assessors, the ones inside the pyramid included ("the extent to which
    that particular pyramid represents the opinions of all ten assessors").
    Here every subset of m assessors gives a pyramid (a seeded sample of
    ``max_subsets`` distinct subsets when there are more), so the figures
    do not depend on an arbitrary choice of assessors. The per-assessor
    taus are the samples of the tests: paired t-test between m = 1 and
    m = 2, one-way ANOVA across m >= 2.

    Parameters
    ----------
    vital_labels, matches, lengths, question_index, n_questions, beta
        As in :func:`assessor_agreement`.
    max_subsets : int, default 300
        Largest number of subsets per size (with 10 assessors every subset,
        at most C(10, 5) = 252, is used).
    seed : int, default 0
        Seed of the subset sample.
    exclude_members : bool, default False
        If True, tau against assessor a averages only the pyramids that do
        not include a (NaN at m = A, where every pyramid includes everyone).

    Returns
    -------
    PyramidSizeAnalysis

    References
    ----------
    Lin and Demner-Fushman (2006), section 6, Figures 2 and 3.

    Examples
    --------
    >>> labels = [[1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 1]]
    >>> matches = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1]]
    >>> result = pyramid_size_analysis(labels, matches, [[100, 100], [90, 90], [300, 300], [50, 50]],
    ...                                question_index=[0, 0, 1, 1])
    >>> result.n_subsets.tolist(), np.round(result.mean_tau, 3).tolist()
    ([3, 3, 1], [0.652, 0.602, 0.723])
    """
    campaign = _campaign(vital_labels, matches, lengths, question_index, n_questions, beta)
    max_subsets = _positive_int("max_subsets", max_subsets)
    rng = np.random.default_rng(seed)
    n_assessors = campaign.labels.shape[0]
    assessor_runs = run_scores(campaign.scores(campaign.labels))
    tau_by_assessor = np.empty((n_assessors, n_assessors))
    zero_fraction = np.empty(n_assessors)
    n_subsets = np.empty(n_assessors, dtype=int)
    for size in range(1, n_assessors + 1):
        members = _assessor_subsets(n_assessors, size, max_subsets, rng)
        scores = campaign.pyramid_scores(members)
        tau = kendall_tau_matrix(run_scores(scores), assessor_runs)
        if exclude_members:
            tau = np.where(members, np.nan, tau)
        tau_by_assessor[size - 1] = _nanmean(tau, axis=0)
        zero_fraction[size - 1] = zero_median_questions(scores).mean()
        n_subsets[size - 1] = members.shape[0]
    return PyramidSizeAnalysis(
        sizes=np.arange(1, n_assessors + 1),
        n_subsets=n_subsets,
        tau_by_assessor=tau_by_assessor,
        mean_tau=_nanmean(tau_by_assessor, axis=1),
        zero_median_fraction=zero_fraction,
        one_vs_two=_paired_or_nan(tau_by_assessor[1], tau_by_assessor[0])
        if n_assessors >= 2
        else PairedTTest(float("nan"), float("nan"), 0),
        anova_beyond_two=one_way_anova(*tau_by_assessor[1:]) if n_assessors >= 3 else None,
    )


def _positive_int(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _nanmean(values: np.ndarray, *, axis: int) -> np.ndarray:
    defined = ~np.isnan(values)
    return _ratio(np.where(defined, values, 0.0).sum(axis=axis), defined.sum(axis=axis))


def _assessor_subsets(n_assessors: int, size: int, max_subsets: int, rng: np.random.Generator) -> np.ndarray:
    """(S, A) membership matrix: every subset of ``size``, or a seeded sample."""
    if math.comb(n_assessors, size) <= max_subsets:
        chosen = np.array(list(itertools.combinations(range(n_assessors), size)), dtype=np.intp)
    else:
        chosen = np.empty((0, size), dtype=np.intp)
        while chosen.shape[0] < max_subsets:
            draws = np.sort(rng.random((max_subsets, n_assessors)).argsort(axis=1)[:, :size], axis=1)
            pooled = np.vstack([chosen, draws])
            # keep first occurrences in draw order so truncation is not biased
            _, first = np.unique(pooled, axis=0, return_index=True)
            chosen = pooled[np.sort(first)]
        chosen = chosen[:max_subsets]
    members = np.zeros((chosen.shape[0], n_assessors), dtype=bool)
    members[np.arange(chosen.shape[0])[:, None], chosen] = True
    return members


@dataclass(frozen=True)
class Quantisation:
    """Table 2 and the zero-median counts, per assessor.

    Attributes
    ----------
    vital_counts : ndarray of int, shape (A, Q)
        Vital nuggets of each question under each assessor.
    zero_median : ndarray of bool, shape (A, Q)
        Questions whose median run F is zero under each assessor.
    one_vital, two_vital, no_vital : ndarray of int, shape (A,)
        Questions with exactly one, exactly two, or no vital nugget.
    zero_median_count : ndarray of int, shape (A,)
        Questions with a zero median, out of Q.
    zero_median_few_vital : ndarray of int, shape (A,)
        Of the questions with one or two vital nuggets, those with a zero
        median.
    pyramid_zero_median_count : int
        Questions with a zero median under the pyramid of all assessors.
    """

    vital_counts: np.ndarray
    zero_median: np.ndarray
    one_vital: np.ndarray
    two_vital: np.ndarray
    no_vital: np.ndarray
    zero_median_count: np.ndarray
    zero_median_few_vital: np.ndarray
    pyramid_zero_median_count: int


def quantisation(
    vital_labels: ArrayLike,
    matches: ArrayLike,
    lengths: ArrayLike,
    *,
    question_index: ArrayLike,
    n_questions: int | None = None,
    beta: float = 3.0,
) -> Quantisation:
    """Questions with few vital nuggets and questions with a zero median.

    With one vital nugget a run scores zero unless it returns that nugget,
    so such questions pile up zero medians (the "quantization effect").

    Parameters
    ----------
    vital_labels, matches, lengths, question_index, n_questions, beta
        As in :func:`assessor_agreement`.

    Returns
    -------
    Quantisation

    References
    ----------
    Lin and Demner-Fushman (2006), section 3 (Table 2) and section 6.

    Examples
    --------
    >>> labels = [[1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 1]]
    >>> matches = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1]]
    >>> result = quantisation(labels, matches, [[100, 100], [90, 90], [300, 300], [50, 50]],
    ...                       question_index=[0, 0, 1, 1])
    >>> result.vital_counts.tolist(), result.zero_median_count.tolist()
    ([[1, 1], [2, 0], [1, 1]], [0, 0, 0])
    """
    campaign = _campaign(vital_labels, matches, lengths, question_index, n_questions, beta)
    vital_counts = np.rint(campaign.layout.per_question_sum(campaign.labels)).astype(int)
    zero_median = zero_median_questions(campaign.scores(campaign.labels))
    pyramid = campaign.pyramid_scores(np.ones((1, campaign.labels.shape[0]), dtype=bool))
    few = (vital_counts == 1) | (vital_counts == 2)
    return Quantisation(
        vital_counts=vital_counts,
        zero_median=zero_median,
        one_vital=(vital_counts == 1).sum(axis=1),
        two_vital=(vital_counts == 2).sum(axis=1),
        no_vital=(vital_counts == 0).sum(axis=1),
        zero_median_count=zero_median.sum(axis=1),
        zero_median_few_vital=(zero_median & few).sum(axis=1),
        pyramid_zero_median_count=int(zero_median_questions(pyramid).sum()),
    )
