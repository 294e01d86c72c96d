"""The preference kind's own statistics: a pairwise-preference leaderboard (Bradley-Terry and
Davidson fits on vote counts, with intervals), the raters' agreement, two leaderboards compared.

A vote shows one prompt's answers of two systems side by side (``left``,
``right``) and records which the rater preferred: ``LEFT``, ``RIGHT``, ``TIE``
or ``BOTH_BAD`` (the outcome codes 0-3). Every fit here depends on the votes
only through their counts per ordered pair of systems and outcome
(:func:`vote_counts`: a ``(k, k, 4)`` table built by one ``numpy.bincount``),
so a fit and each bootstrap round cost the number of pairs of systems, not of
votes.

Models, both maximum likelihood by Newton's method on the counts (vectorised
over the pairs, and over the bootstrap rounds):

- Bradley-Terry (Bradley & Terry 1952, "Rank analysis of incomplete block
  designs: I. The method of paired comparisons", Biometrika 39(3/4):324-345,
  eq. 1): ``P(i beats j) = 1 / (1 + exp(-(theta_i - theta_j)))``, a tie
  counted as half a win for each side and "both bad" as a tie: the convention
  of FastChat's Chatbot Arena leaderboard (Chiang et al. 2024, "Chatbot Arena:
  An Open Platform for Evaluating LLMs by Human Preference", ICML 2024,
  section 4, whose code duplicates each tie as one win each way at half the
  weight). :func:`bradley_terry`.
- Davidson's tie model (Davidson 1970, "On extending the Bradley-Terry model
  to accommodate ties in paired comparison experiments", JASA
  65(329):317-328, eq. 2.1): ``P(i beats j) = pi_i / D``, ``P(tie) = nu
  sqrt(pi_i pi_j) / D``, ``D = pi_i + pi_j + nu sqrt(pi_i pi_j)``,
  ``pi = exp(theta)``; "both bad" is a tie. :func:`davidson`.

Either may carry a side term ``gamma``, a logit added to the left system's
``theta``: the position bias of Zheng et al. (2023), "Judging LLM-as-a-Judge
with MT-Bench and Chatbot Arena", NeurIPS 2023 Datasets and Benchmarks,
section 3.3, estimated with its standard error and a Wald test of
``gamma = 0``.

Scores are on the Elo scale: ``rating = base + 400 / ln 10 * (theta -
theta_anchor)`` (400 points per factor of 10 in the odds), or ``theta``'s mean
in place of ``theta_anchor`` when no anchor system is given.

Intervals (Chiang et al. 2024, section 5): :func:`sandwich` (the robust
standard errors of the ratings, over votes or clusters of votes),
:func:`bootstrap` (the percentile bootstrap over votes, resampling the counts'
cells from their multinomial, or over clusters of votes: raters or prompts,
:func:`cluster_counts`), each with a simultaneous band for all systems and the
rank intervals it implies (:func:`rank_intervals`); :func:`settled`: is each
adjacent pair's order settled, and how many more votes would settle it.

Active allocation (Chiang et al. 2024, section 5, eq. 9): :func:`active_weights`
draws the next vote's pair in proportion to the expected narrowing of its
interval; each vote keeps the probability its pair was drawn with, and the fits
on :func:`weighted_counts` (weights ``1 / probability``, eq. 7) estimate the
scores of a uniform draw of pairs, with the sandwich's errors.

Raters: :func:`canonical_outcomes` reads a vote in its pair's terms (the lower
system first won, the second, or even); :func:`rater_agreement` measures the
raters' agreement over those three outcomes, each unit (a prompt's pair)
counted as itself and as its mirror, and each rater's agreement with their own
first verdict on the units they judged again.
:func:`compare_leaderboards`: Kendall's tau between two leaderboards (the
people's, a model judge's) over the systems both rate, and the pairs they order
differently.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import sparse, special
from scipy.sparse import csgraph

from stats.uncertainty import UnitStatistics, fleiss_kappa_units, krippendorff_alpha_units

__all__ = [
    "BOTH_BAD",
    "ELO_PER_LOGIT",
    "EVEN",
    "FIRST",
    "LEFT",
    "MIRROR",
    "OUTCOMES",
    "RIGHT",
    "SECOND",
    "TIE",
    "ActiveWeights",
    "BootstrapIntervals",
    "ClusterCounts",
    "LeaderboardComparison",
    "PreferenceFit",
    "RaterAgreement",
    "RobustErrors",
    "SelfConsistency",
    "Settled",
    "WeightedCounts",
    "active_weights",
    "bootstrap",
    "bradley_terry",
    "canonical_outcomes",
    "cluster_counts",
    "coefficients_of_sizes",
    "compare_leaderboards",
    "davidson",
    "rank_intervals",
    "rater_agreement",
    "sandwich",
    "self_consistency",
    "settled",
    "size_sums",
    "vote_counts",
    "weighted_counts",
    "win_probabilities",
    "win_rates",
]

FloatArray = npt.NDArray[np.float64]
Model = Literal["bradley-terry", "davidson"]

LEFT, RIGHT, TIE, BOTH_BAD = 0, 1, 2, 3
OUTCOMES = ("left", "right", "tie", "both_bad")
#: Elo points per logit: 400 points multiply the odds by 10.
ELO_PER_LOGIT = 400.0 / math.log(10.0)

_TOL = 1e-10
_MAX_ITER = 100
#: Cells (rounds x pairs) of a block of bootstrap rounds fitted together: a few arrays of 8 MB.
_BLOCK_CELLS = 1 << 20
#: A logit beyond this is a fit running off to infinity (odds of 1e43), not an estimate.
_DIVERGED = 100.0


# --------------------------------------------------------------------------- counts


def vote_counts(left: npt.ArrayLike, right: npt.ArrayLike, outcome: npt.ArrayLike, *, n_systems: int) -> np.ndarray:
    """Count votes per ordered pair of systems and outcome.

    Parameters
    ----------
    left, right : array_like of int, shape (n,)
        The systems shown on the left and on the right (``0 .. n_systems - 1``, different).
    outcome : array_like of int, shape (n,)
        ``LEFT`` (0), ``RIGHT`` (1), ``TIE`` (2) or ``BOTH_BAD`` (3).
    n_systems : int

    Returns
    -------
    ndarray of int64, shape (n_systems, n_systems, 4)
        ``counts[i, j, o]``: votes with ``i`` on the left, ``j`` on the right and outcome ``o``.

    Examples
    --------
    >>> c = vote_counts([0, 0, 1, 2], [1, 1, 0, 0], [LEFT, TIE, LEFT, BOTH_BAD], n_systems=3)
    >>> c[0, 1].tolist(), c[1, 0].tolist(), int(c.sum())
    ([1, 0, 1, 0], [1, 0, 0, 0], 4)
    """
    cells = _cells_of_votes(left, right, outcome, n_systems)
    return np.bincount(cells, minlength=n_systems * n_systems * 4).reshape(n_systems, n_systems, 4)


class ClusterCounts(NamedTuple):
    """Vote counts per cluster (a rater, a prompt): ``table[g]`` is cluster ``g``'s
    :func:`vote_counts` flattened (``n_systems * n_systems * 4`` columns), held sparse."""

    table: sparse.csr_array
    n_systems: int

    def total(self) -> np.ndarray:
        """Every cluster's votes together, as :func:`vote_counts` counts them."""
        k = self.n_systems
        return np.asarray(self.table.sum(axis=0)).reshape(k, k, 4).astype(np.int64)


def cluster_counts(
    left: npt.ArrayLike, right: npt.ArrayLike, outcome: npt.ArrayLike, clusters: npt.ArrayLike, *, n_systems: int
) -> ClusterCounts:
    """:func:`vote_counts` per cluster of votes (``clusters``: each vote's rater or prompt, ints >= 0).

    Examples
    --------
    >>> cc = cluster_counts([0, 0, 1], [1, 1, 0], [LEFT, RIGHT, LEFT], [5, 0, 5], n_systems=2)
    >>> cc.table.shape, int(cc.table[[5]].sum()), cc.total()[0, 1].tolist()
    ((6, 16), 2, [1, 1, 0, 0])
    """
    cells = _cells_of_votes(left, right, outcome, n_systems)
    groups = np.asarray(clusters)
    if groups.shape != cells.shape or (groups.size and groups.dtype.kind not in "iu"):
        raise ValueError("clusters: one integer per vote")
    if groups.size and groups.min() < 0:
        raise ValueError("clusters: must be >= 0")
    n_groups = int(groups.max()) + 1 if groups.size else 0
    table = sparse.csr_array(
        (np.ones(cells.size, dtype=np.int64), (groups.astype(np.int64), cells)),
        shape=(n_groups, n_systems * n_systems * 4),
    )
    table.sum_duplicates()
    return ClusterCounts(table, int(n_systems))


class WeightedCounts(NamedTuple):
    """Votes weighted one by one (:func:`weighted_counts`): ``table`` the sum of the weights
    per ordered pair and outcome, ``squares`` the sum of their squares (the sandwich's meat
    needs them), ``votes`` the number of votes."""

    table: FloatArray
    squares: FloatArray
    votes: int


def weighted_counts(
    left: npt.ArrayLike,
    right: npt.ArrayLike,
    outcome: npt.ArrayLike,
    weights: npt.ArrayLike,
    *,
    n_systems: int,
) -> WeightedCounts:
    """:func:`vote_counts` with a weight per vote: the inverse-probability weights of votes
    whose pair was drawn by :func:`active_weights` (``1 / probability``).

    Chiang et al. (2024), "Chatbot Arena", ICML 2024, section 5, eq. 7: the
    Bradley-Terry fit on votes weighted by ``1 / P(A_t)`` targets the scores of
    a uniform distribution over the pairs, whatever the sampling rule. The fits
    (:func:`bradley_terry`, :func:`davidson`) take the result in place of a count
    table; their standard errors are then the sandwich's with the squared
    weights (:func:`sandwich`), the only ones that hold for such weights.
    Scaling every weight by one constant changes neither the fit nor its errors.

    Examples
    --------
    >>> w = weighted_counts([0, 0, 1], [1, 1, 0], [LEFT, LEFT, TIE], [2.0, 4.0, 1.0], n_systems=2)
    >>> w.table[0, 1].tolist(), w.squares[0, 1].tolist(), w.votes
    ([6.0, 0.0, 0.0, 0.0], [20.0, 0.0, 0.0, 0.0], 3)
    """
    cells = _cells_of_votes(left, right, outcome, n_systems)
    w = np.asarray(weights)
    if w.shape != cells.shape or (w.size and w.dtype.kind not in "iuf"):
        raise ValueError("weights: one number per vote")
    w = w.astype(np.float64)
    if not (np.isfinite(w).all() and (w > 0).all()):
        raise ValueError("weights: finite and positive (1 / the probability of the vote's pair)")
    shape = (n_systems, n_systems, 4)
    size = n_systems * n_systems * 4
    return WeightedCounts(
        np.bincount(cells, w, minlength=size).reshape(shape),
        np.bincount(cells, w * w, minlength=size).reshape(shape),
        int(cells.size),
    )


def win_rates(counts: npt.ArrayLike) -> FloatArray:
    """Observed share of ``i``'s score against ``j`` (wins plus half the ties and "both bad",
    either side), NaN where the two never met.

    Examples
    --------
    >>> c = vote_counts([0, 0, 1], [1, 1, 0], [LEFT, TIE, LEFT], n_systems=2)
    >>> win_rates(c).tolist()
    [[nan, 0.5], [0.5, nan]]
    """
    table = _table(counts)
    wins = table[:, :, LEFT] + table[:, :, RIGHT].T
    ties = table[:, :, TIE] + table[:, :, BOTH_BAD]
    ties = ties + ties.T
    met = wins + wins.T + ties
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(met > 0, (wins + ties / 2) / np.maximum(met, 1), np.nan)


# --------------------------------------------------------------------------- fits


@dataclass(frozen=True)
class PreferenceFit:
    """A fitted leaderboard.

    ``ratings`` (Elo scale) and ``theta`` (logits: ``theta`` of the anchor, or
    their mean, 0) per system; ``covariance``: the ratings' model-based
    covariance (the inverse observed information, mapped through the
    constraint); ``se``: its diagonal's square roots (0 for an anchor system).
    ``side``: the left side's logit (None without a side term) with ``side_se``
    and the two-sided Wald test ``side_z``, ``side_p``; ``nu``: Davidson's tie
    parameter (None for Bradley-Terry).
    """

    model: Model
    ratings: FloatArray
    theta: FloatArray
    se: FloatArray
    covariance: FloatArray
    side: float | None
    side_se: float | None
    side_z: float | None
    side_p: float | None
    nu: float | None
    log_likelihood: float
    votes: int
    anchor: int | None
    base: float


def bradley_terry(
    counts: npt.ArrayLike | WeightedCounts, *, side: bool = False, anchor: int | None = None, base: float = 1000.0
) -> PreferenceFit:
    """The Bradley-Terry maximum-likelihood leaderboard, ties as half a win (FastChat's convention).

    Bradley & Terry (1952), "Rank analysis of incomplete block designs: I. The
    method of paired comparisons", Biometrika 39(3/4):324-345, eq. 1, in the
    logistic form; a tie and a "both bad" vote count half a win for each side, as
    in Chiang et al. (2024), "Chatbot Arena", ICML 2024, section 4. With
    ``side``, a logit ``gamma`` is added to the left system's (Zheng et al.
    2023, "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena", NeurIPS
    2023, section 3.3: position bias), tested by Wald's ``z = gamma / se``.

    Parameters
    ----------
    counts : array_like, shape (k, k, 4), or WeightedCounts
        :func:`vote_counts`; or :func:`weighted_counts` (inverse-probability weighted votes,
        Chiang et al. 2024, section 5, eq. 7): the weighted maximum likelihood, whose
        ``se`` and ``covariance`` are then the sandwich's (:func:`sandwich`).
    side : bool
        Fit the side term.
    anchor : int or None
        The system whose rating is ``base``; None: the ratings' mean is ``base``.
    base : float

    Returns
    -------
    PreferenceFit

    Raises
    ------
    ValueError
        When the maximum-likelihood estimate does not exist (it lies at
        infinity): some set of systems never lost, nor tied, to the others
        (Zermelo's condition: the graph "i won or tied against j" must be
        strongly connected), or the side term is unbounded. The message names
        the systems; nothing finite would be an honest estimate.

    Examples
    --------
    Two systems, 0 won 3 of 4 votes: ``theta_0 - theta_1 = ln 3``.

    >>> c = vote_counts([0, 0, 0, 1], [1, 1, 1, 0], [LEFT, LEFT, LEFT, LEFT], n_systems=2)
    >>> fit = bradley_terry(c, anchor=1)
    >>> round(float(fit.theta[0]), 6), round(float(fit.ratings[0]), 2)
    (1.098612, 1190.85)
    """
    return _fit_counts(counts, "bradley-terry", side=side, anchor=anchor, base=base)


def davidson(
    counts: npt.ArrayLike | WeightedCounts, *, side: bool = False, anchor: int | None = None, base: float = 1000.0
) -> PreferenceFit:
    """Davidson's (1970) tie model, maximum likelihood; "both bad" is a tie.

    Davidson (1970), "On extending the Bradley-Terry model to accommodate ties
    in paired comparison experiments", JASA 65(329):317-328, eq. 2.1:
    ``P(i > j) = pi_i / D``, ``P(tie) = nu sqrt(pi_i pi_j) / D``,
    ``D = pi_i + pi_j + nu sqrt(pi_i pi_j)``, ``pi = exp(theta)``; fitted in
    ``theta`` and ``log nu``. ``counts``, ``side``, ``anchor``, ``base`` as in
    :func:`bradley_terry`; ratings on the same Elo scale (in ``theta``).

    Raises
    ------
    ValueError
        As :func:`bradley_terry`; and when no vote, or every vote, is a tie
        (``nu``'s estimate is then 0 or infinite).

    Examples
    --------
    Two equal systems, half the votes ties: ``nu = 2``.

    >>> c = vote_counts([0, 0, 0, 0], [1, 1, 1, 1], [LEFT, RIGHT, TIE, BOTH_BAD], n_systems=2)
    >>> fit = davidson(c)
    >>> round(fit.nu, 6), [round(float(r), 6) for r in fit.ratings]
    (2.0, [1000.0, 1000.0])
    """
    return _fit_counts(counts, "davidson", side=side, anchor=anchor, base=base)


def win_probabilities(fit: PreferenceFit) -> FloatArray:
    """Predicted ``P(i beats j)`` with neither on a given side (no side term).

    Bradley-Terry: ``1 / (1 + exp(theta_j - theta_i))`` (a tie's half included,
    as the fit counts it); Davidson: the probability of a win, ties excluded.

    Examples
    --------
    >>> c = vote_counts([0, 0, 0, 1], [1, 1, 1, 0], [LEFT, LEFT, LEFT, LEFT], n_systems=2)
    >>> win_probabilities(bradley_terry(c)).round(6).tolist()
    [[0.5, 0.75], [0.25, 0.5]]
    """
    d = fit.theta[:, None] - fit.theta[None, :]
    if fit.model == "bradley-terry":
        return special.expit(d)
    log_d = np.logaddexp(np.logaddexp(d / 2, -d / 2), math.log(fit.nu))
    return np.exp(d / 2 - log_d)


# --------------------------------------------------------------------------- intervals


class RobustErrors(NamedTuple):
    """Sandwich standard errors: of each system's rating (Elo points; 0 for an anchor) and of
    the side term (logits; None without one), with their covariance (ratings)."""

    se: FloatArray
    covariance: FloatArray
    side_se: float | None


def sandwich(counts: npt.ArrayLike | ClusterCounts | WeightedCounts, fit: PreferenceFit) -> RobustErrors:
    """The robust (sandwich) standard errors of a fit's ratings: ``A^-1 B A^-1``.

    ``A`` is the observed information, ``B`` the sum over votes (or over
    clusters, given :class:`ClusterCounts`) of the outer products of their
    score vectors (Huber 1967; White 1980; the intervals of Chiang et al. 2024,
    section 5, which hold when the model is misspecified). A vote's score is
    that of its outcome in its cell, so ``B`` is a sum over cells; a cluster's
    score the sum of its votes'. No small-sample correction. Given
    :class:`WeightedCounts`, ``A`` sums the weights and ``B`` their squares
    (a vote of weight ``w`` scores ``w s``): the errors of the weighted fit.

    Examples
    --------
    Two wins and two ties: the fit's share is 0.75 as with three wins in four,
    but a tie's half a win varies less than a win or a loss, which the
    model-based error ignores:

    >>> c = vote_counts([0, 0, 0, 0], [1, 1, 1, 1], [LEFT, LEFT, TIE, TIE], n_systems=2)
    >>> fit = bradley_terry(c, anchor=1)
    >>> round(float(sandwich(c, fit).se[0]), 3), round(float(fit.se[0]), 3)
    (115.812, 200.592)
    """
    clustered = isinstance(counts, ClusterCounts)
    weighted = isinstance(counts, WeightedCounts)
    table = counts.total() if clustered else _weighted_table(counts) if weighted else _table(counts)
    k = table.shape[0]
    if k != len(fit.theta):
        raise ValueError(f"counts: {k} systems, the fit has {len(fit.theta)}")
    cells = _Cells.of(table, side=fit.side is not None)
    ref = fit.anchor if fit.anchor is not None else 0
    beta = _beta_of(fit, ref)
    d, lam = cells.linear(beta[None, :], ref, fit.model)
    _, info = cells.information(fit.model, d, lam, ref)
    scores = _vote_scores(fit.model, d[0], None if lam is None else lam[0])  # (cells, 3 outcomes, 2)
    if clustered:
        per_cluster = _cluster_scores(counts, cells, scores, ref)
        meat = per_cluster.T @ per_cluster
    else:
        # a vote of weight w adds w^2 s s^T to the meat: the squares' table, on the same cells
        n = _Cells.of(counts.squares, side=fit.side is not None).counts[0] if weighted else cells.counts[0]
        m_dd = (n * scores[:, :, 0] ** 2).sum(axis=1)[None]
        m_dl = (n * scores[:, :, 0] * scores[:, :, 1]).sum(axis=1)[None]
        m_ll = (n * scores[:, :, 1] ** 2).sum(axis=1)[None]
        meat = cells.assemble(m_dd, m_dl if fit.model == "davidson" else None, m_ll, ref)[0]
    bread = np.linalg.inv(info[0])
    cov = bread @ meat @ bread
    ratings_cov = _ratings_covariance(cov, k, ref, fit.anchor)
    side_se = math.sqrt(cov[k - 1, k - 1]) if fit.side is not None else None
    return RobustErrors(np.sqrt(np.maximum(np.diag(ratings_cov), 0.0)), ratings_cov, side_se)


@dataclass(frozen=True)
class BootstrapIntervals:
    """Bootstrap intervals of a leaderboard's ratings.

    ``lower``, ``upper``: each system's percentile interval; ``band_lower``,
    ``band_upper``: the simultaneous band (all systems at once, at ``level``);
    ``rank_lower``, ``rank_upper``: the rank intervals the band implies
    (:func:`rank_intervals`, 1 the best); ``side_lower``, ``side_upper``: the
    side term's percentile interval (NaN without one); ``rounds``: the rounds
    fitted; ``failed``: rounds whose resample has no finite estimate (a
    system that never lost or never won in it), left out of every interval;
    ``samples``: each round's ratings (rounds x systems, NaN for a failed round).
    """

    fit: PreferenceFit
    samples: FloatArray
    lower: FloatArray
    upper: FloatArray
    band_lower: FloatArray
    band_upper: FloatArray
    rank_lower: npt.NDArray[np.int64]
    rank_upper: npt.NDArray[np.int64]
    side_lower: float
    side_upper: float
    level: float
    rounds: int
    failed: int
    unit: str


def bootstrap(
    counts: npt.ArrayLike | ClusterCounts,
    *,
    model: Model = "bradley-terry",
    side: bool = False,
    anchor: int | None = None,
    base: float = 1000.0,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> BootstrapIntervals:
    """Percentile bootstrap of a leaderboard, over votes or over clusters of votes.

    Over votes (``counts`` a :func:`vote_counts` table): drawing the ``n``
    votes with replacement, as FastChat's leaderboard does (Chiang et al. 2024,
    section 5), gives cell counts from the multinomial of ``n`` draws with the
    cells' observed shares; they are drawn so (``numpy.random.default_rng(seed)
    .multinomial``), per round, and each round's fit starts from the full fit.
    Over clusters (``counts`` a :class:`ClusterCounts`: votes grouped by rater
    or prompt): round ``b`` draws the clusters ``default_rng(seed).integers(0,
    clusters, (resamples, clusters))[b]`` (taken a block of rounds at a time) and sums their
    tables (the cluster bootstrap; votes of one rater or prompt are not
    independent). Rounds are fitted together, a block at a time.

    The simultaneous band is the bootstrap's sup-t band (Montiel Olea &
    Plagborg-Moller 2019, "Simultaneous confidence bands: theory,
    implementation, and an application to SVARs", J. Applied Econometrics
    34:1-17): ``rating +- q sd``, ``sd`` each system's bootstrap standard
    deviation, ``q`` the ``level`` quantile over rounds of ``max_i |rating_b,i -
    rating_i| / sd_i``; it holds all systems' ratings at once. Its rank
    intervals: :func:`rank_intervals`.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> left, right = rng.integers(0, 3, 600), rng.integers(1, 3, 600)
    >>> right = (left + right) % 3
    >>> outcome = np.where((left < right) == (rng.random(600) < 0.8), LEFT, RIGHT)
    >>> b = bootstrap(vote_counts(left, right, outcome, n_systems=3), resamples=200)
    >>> b.rank_lower.tolist(), b.rank_upper.tolist(), b.failed
    ([1, 2, 3], [1, 2, 3], 0)
    """
    if not 0 < level < 1:
        raise ValueError("level: must be between 0 and 1")
    if resamples < 2:
        raise ValueError("resamples: at least 2")
    if isinstance(counts, WeightedCounts):
        raise ValueError(
            "counts: weighted votes have no bootstrap here (their draws were not independent): use sandwich"
        )
    clustered = isinstance(counts, ClusterCounts)
    table = counts.total() if clustered else _table(counts)
    k = table.shape[0]
    fit = _fit(table, model, side=side, anchor=anchor, base=base)
    ref = anchor if anchor is not None else 0
    rng = np.random.default_rng(seed)
    cells = _Cells.of(table, side=side, collapse=not side)
    if clustered:
        groups = counts.table.shape[0]
        per_cluster = (counts.table.astype(np.float64) @ _outcome_map(cells, k, collapsed=not side)).tocsc()
    else:
        total = int(cells.counts.sum())
        shares = cells.counts[0].ravel() / total
    width = cells.counts.shape[1]
    block = max(1, _BLOCK_CELLS // max(width, 1))
    start = _beta_of(fit, ref)
    ratings = np.full((resamples, k), np.nan)
    sides = np.full(resamples, np.nan)
    for lo in range(0, resamples, block):
        size = min(block, resamples - lo)
        if clustered:
            weights = np.bincount(
                (rng.integers(0, groups, (size, groups)) + (np.arange(size) * groups)[:, None]).ravel(),
                minlength=size * groups,
            ).reshape(size, groups)
            resampled = np.asarray((per_cluster.T @ weights.T).T).reshape(size, width, 3)
        else:
            resampled = rng.multinomial(total, shares, size=size).reshape(size, width, 3)
        round_cells = cells.with_counts(resampled.astype(np.float64))
        beta, ok = _newton(round_cells, model, np.repeat(start[None], size, axis=0), ref)
        ok &= round_cells.mle_exists(model)
        theta = _full_theta(beta[:, : k - 1], ref)
        ratings[lo : lo + size] = np.where(ok[:, None], _ratings(theta, anchor, base), np.nan)
        if side:
            sides[lo : lo + size] = np.where(ok, beta[:, k - 1], np.nan)
    good = ~np.isnan(ratings[:, 0])
    used = ratings[good]
    alpha = (1 - level) / 2
    if len(used) < 2:
        nan = np.full(k, np.nan)
        lower = upper = band_lower = band_upper = nan
    else:
        lower, upper = np.quantile(used, [alpha, 1 - alpha], axis=0)
        sd = used.std(axis=0, ddof=1)
        varies = sd > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.abs(used[:, varies] - fit.ratings[varies]) / sd[varies]
        q = float(np.quantile(t.max(axis=1), level)) if varies.any() else 0.0
        band_lower, band_upper = fit.ratings - q * sd, fit.ratings + q * sd
    rank_lower, rank_upper = rank_intervals(band_lower, band_upper)
    side_lower, side_upper = (
        (float(np.quantile(sides[good], alpha)), float(np.quantile(sides[good], 1 - alpha)))
        if side and good.sum() >= 2
        else (math.nan, math.nan)
    )
    return BootstrapIntervals(
        fit=fit,
        samples=ratings,
        lower=lower,
        upper=upper,
        band_lower=band_lower,
        band_upper=band_upper,
        rank_lower=rank_lower,
        rank_upper=rank_upper,
        side_lower=side_lower,
        side_upper=side_upper,
        level=level,
        rounds=resamples,
        failed=int((~good).sum()),
        unit="clusters" if clustered else "votes",
    )


def rank_intervals(lower: npt.ArrayLike, upper: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Rank intervals (1 the best) from intervals of the ratings that hold jointly.

    System ``i``'s best rank is 1 + the number of systems whose lower bound is
    above ``i``'s upper bound; its worst rank is ``k`` - the number whose upper
    bound is below ``i``'s lower bound: the rule of Chiang et al. (2024),
    section 5 (approximate ranking), on both sides. When every true rating lies
    in its interval at once (a simultaneous band, as :func:`bootstrap`'s), a
    system above ``i``'s interval is truly above ``i``, so every true rank lies
    in its interval at once, with the band's level. From separate intervals
    (each system's own 95%) the rank intervals would not hold jointly. NaN
    bounds give the widest interval, 1 .. k.

    Examples
    --------
    >>> lo, hi = rank_intervals([10, 8, 0, 1], [12, 11, 3, 2])
    >>> lo.tolist(), hi.tolist()
    ([1, 1, 3, 3], [2, 2, 4, 4])
    """
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    if lo.shape != hi.shape or lo.ndim != 1:
        raise ValueError("lower, upper: one bound per system, the same length")
    k = len(lo)
    if np.isnan(lo).any() or np.isnan(hi).any():
        return np.ones(k, dtype=np.int64), np.full(k, k, dtype=np.int64)
    above = (lo[None, :] > hi[:, None]).sum(axis=1)
    below = (hi[None, :] < lo[:, None]).sum(axis=1)
    return (1 + above).astype(np.int64), (k - below).astype(np.int64)


class Settled(NamedTuple):
    """The adjacent pairs of a leaderboard, best first: ``upper[p]`` is ranked just above
    ``lower[p]``; ``difference`` (Elo points) and its standard error; ``settled``: the
    difference's ``level`` interval excludes 0; ``more_votes``: the further votes expected to
    settle it (0 when settled, inf when the difference is 0)."""

    upper: npt.NDArray[np.int64]
    lower: npt.NDArray[np.int64]
    difference: FloatArray
    se: FloatArray
    settled: npt.NDArray[np.bool_]
    more_votes: FloatArray


def settled(fit: PreferenceFit, *, covariance: npt.ArrayLike | None = None, level: float = 0.95) -> Settled:
    """Is each adjacent pair's order settled, and how many more votes would settle it?

    A pair is settled when ``|difference| > z se`` (``z`` the normal quantile of
    ``level``, two-sided; one pair at a time, not jointly: for all pairs at once
    use :func:`rank_intervals` on a simultaneous band). The covariance is the fit's
    model-based one unless given (e.g. :func:`sandwich`'s). More votes: the
    standard error of a fit falls as one over the square root of the votes when
    they keep their shares over the cells (counts multiplied by ``c`` leave the
    estimate as it is and divide the covariance by ``c``), so the difference as
    estimated is settled at ``votes (z se / |difference|)^2`` votes; the further
    votes are that less ``votes``, rounded up. An expectation under those two
    assumptions (the same mix of pairs, the estimate the truth), not a promise.

    Examples
    --------
    >>> c = vote_counts([0] * 40 + [1] * 40, [1] * 40 + [2] * 40, [LEFT] * 24 + [RIGHT] * 16 + [LEFT] * 30 + [RIGHT] * 10, n_systems=3)
    >>> s = settled(bradley_terry(c))
    >>> s.upper.tolist(), s.lower.tolist(), s.settled.tolist(), s.more_votes.tolist()
    ([0, 1], [1, 2], [False, True], [115.0, 0.0])
    """
    if not 0 < level < 1:
        raise ValueError("level: must be between 0 and 1")
    k = len(fit.ratings)
    cov = fit.covariance if covariance is None else np.asarray(covariance, dtype=np.float64)
    if cov.shape != (k, k):
        raise ValueError(f"covariance: a ({k}, {k}) matrix of the ratings")
    order = np.argsort(-fit.ratings, kind="stable")
    upper, lower = order[:-1], order[1:]
    difference = fit.ratings[upper] - fit.ratings[lower]
    variance = cov[upper, upper] + cov[lower, lower] - 2 * cov[upper, lower]
    se = np.sqrt(np.maximum(variance, 0.0))
    z = float(special.ndtri(0.5 + level / 2))
    is_settled = difference > z * se
    with np.errstate(divide="ignore", invalid="ignore"):
        needed = np.where(difference > 0, fit.votes * (z * se / difference) ** 2, np.inf)
    more = np.where(is_settled, 0.0, np.ceil(needed - fit.votes))
    return Settled(upper.astype(np.int64), lower.astype(np.int64), difference, se, is_settled, more)


# --------------------------------------------------------------------------- active allocation


Target = Literal["win-rate", "difference", "adjacent", "design"]

#: Steps of the multiplicative algorithm behind the ``"design"`` target (:func:`adjacent_design`), at most.
DESIGN_STEPS = 300
#: ... and it stops once the design is within this share of the optimum (the equivalence theorem's bound).
DESIGN_TOLERANCE = 1e-4


class ActiveWeights(NamedTuple):
    """The probability of drawing each unordered pair of systems for the next vote.

    ``first[m] < second[m]``: the pairs, all ``k (k - 1) / 2``; ``probability``:
    sums to 1, each at least ``floor / pairs``; ``reduction``: the expected
    narrowing of the target's interval(s) from one more vote on the pair (before the
    floor; in the target's units: win-rate, logits); ``sigma``: the per-vote
    variance used (NaN for the ``"adjacent"`` and ``"design"`` targets; the latter's
    ``reduction`` is the design's weight); ``votes``: the pair's votes
    so far (both sides). Store ``probability[m]`` with the vote: its weight in
    :func:`weighted_counts` is ``1 / probability[m]``.
    """

    first: npt.NDArray[np.int64]
    second: npt.NDArray[np.int64]
    probability: FloatArray
    reduction: FloatArray
    sigma: FloatArray
    votes: FloatArray


def active_weights(
    counts: npt.ArrayLike,
    fit: PreferenceFit,
    *,
    target: Target = "win-rate",
    floor: float = 0.1,
    covariance: npt.ArrayLike | None = None,
) -> ActiveWeights:
    """Chatbot Arena's active sampling rule: draw a pair in proportion to the expected
    narrowing of its interval from one more vote.

    Chiang et al. (2024), "Chatbot Arena: An Open Platform for Evaluating LLMs by
    Human Preference", ICML 2024, section 5, eq. 9:
    ``P(a) ~ sqrt(Sigma_aa / n_a) - sqrt(Sigma_aa / (n_a + 1))``, ``n_a`` the
    votes of pair ``a`` so far, ``Sigma_aa`` the variance of one vote's
    contribution to the pair's estimate (eq. 5, for the win matrix). The
    quantities used here, per ``target``:

    - ``"win-rate"`` (the paper's use, evaluated in its section 7.1 for the win
      matrix): ``Sigma_ab = phi p (1 - p)``, the variance of one vote's score
      (1, 1/2 for a tie or "both bad", 0), ``p`` the fit's expected score of
      ``a`` against ``b``, ``phi`` the votes' pooled dispersion
      ``sum (H - p)^2 / sum p (1 - p)`` (1 without ties, less with them: the
      ratio of the sandwich's meat to its bread);
    - ``"difference"``: ``Sigma_ab = phi / (p (1 - p))``, the sandwich variance
      of the pair's logit difference per vote (a Bradley-Terry fit of the
      pair's own votes: meat ``phi p (1 - p)`` over bread ``(p (1 - p))^2``);
    - ``"adjacent"``: the same principle for the leaderboard's adjacent pairs
      (in the fit's order): the sum over them of the narrowing of their
      difference's standard error when one vote on ``(a, b)`` adds ``1 /
      Sigma_ab`` (the ``"difference"`` one) to the information, by
      Sherman-Morrison on ``covariance`` (the fit's, or e.g. :func:`sandwich`'s).
      Not in the paper: the rule aimed at the precision of the ranking's
      neighbours, which pairs' own intervals do not measure.
    - ``"design"``: not a narrowing but the optimal design for the same aim: the
      share of votes per pair that minimises the sum of the adjacent differences'
      variances, at the fit's ratings (:func:`adjacent_design`). The draws of all
      the votes to come then follow the design that serves the leaderboard's
      neighbours best, where each rule above looks one vote ahead.
      ``benchmarks.preference`` measures what each rule saves.

    A pair never compared counts as one vote (its narrowing from the first vote
    to the second), so its weight is defined and positive. The result is mixed
    with the uniform draw, ``(1 - floor) P + floor / pairs``: no pair's
    probability is 0, so inverse-probability weights (eq. 7) stay bounded by
    ``pairs / floor`` (the paper's condition ``P_t(a) > epsilon``).

    Examples
    --------
    Three systems, the pair (0, 2) seldom compared: most of the next draws go to it.

    >>> c = vote_counts([0] * 20 + [1] * 20 + [0] * 4, [1] * 20 + [2] * 20 + [2] * 4,
    ...                 [LEFT, RIGHT] * 10 + [LEFT, RIGHT] * 10 + [LEFT, LEFT, LEFT, RIGHT], n_systems=3)
    >>> a = active_weights(c, bradley_terry(c))
    >>> a.first.tolist(), a.second.tolist(), a.votes.tolist(), a.probability.round(3).tolist()
    ([0, 0, 1], [1, 2, 2], [20.0, 4.0, 20.0], [0.11, 0.78, 0.11])
    """
    table = _table(counts)
    k = table.shape[0]
    if k != len(fit.theta):
        raise ValueError(f"counts: {k} systems, the fit has {len(fit.theta)}")
    if target not in ("win-rate", "difference", "adjacent", "design"):
        raise ValueError("target: 'win-rate', 'difference', 'adjacent' or 'design'")
    if not (isinstance(floor, int | float) and 0 < floor <= 1):
        raise ValueError("floor: the uniform draw's share, more than 0 and at most 1")
    first, second = np.triu_indices(k, 1)
    pairs = len(first)
    three = np.stack([table[:, :, LEFT], table[:, :, RIGHT], table[:, :, TIE] + table[:, :, BOTH_BAD]], axis=2)
    three = three.astype(np.float64)
    # each unordered pair's votes as (first's wins, second's wins, ties), both sides pooled
    cell = three[first, second] + three[second, first][:, [1, 0, 2]]
    votes = cell.sum(axis=1)
    d = fit.theta[first] - fit.theta[second]
    if fit.model == "davidson":
        win, _, tie = _davidson_shares(d, np.full_like(d, math.log(fit.nu)))
        p = win + tie / 2
    else:
        p = special.expit(d)
    bread = p * (1 - p)
    meat = cell[:, 0] * (1 - p) ** 2 + cell[:, 1] * p**2 + cell[:, 2] * (0.5 - p) ** 2
    phi = float(meat.sum() / (votes * bread).sum()) if votes.sum() else 1.0
    difference = phi / np.maximum(bread, np.finfo(float).tiny)
    if target == "design":
        sigma = np.full(pairs, np.nan)
        reduction = adjacent_design(fit.theta, bread)
    elif target == "adjacent":
        sigma = np.full(pairs, np.nan)
        cov = fit.covariance if covariance is None else np.asarray(covariance, dtype=np.float64)
        if cov.shape != (k, k):
            raise ValueError(f"covariance: a ({k}, {k}) matrix of the ratings")
        reduction = _adjacent_reduction(fit.ratings, cov / ELO_PER_LOGIT**2, first, second, difference)
    else:
        sigma = phi * bread if target == "win-rate" else difference
        n = np.maximum(votes, 1.0)
        reduction = np.sqrt(sigma / n) - np.sqrt(sigma / (n + 1))
    total = reduction.sum()
    drawn = reduction / total if total > 0 and np.isfinite(total) else np.full(pairs, 1 / pairs)
    probability = (1 - floor) * drawn + floor / pairs
    return ActiveWeights(
        first.astype(np.int64), second.astype(np.int64), probability / probability.sum(), reduction, sigma, votes
    )


def adjacent_design(theta: npt.ArrayLike, information: npt.ArrayLike | None = None) -> FloatArray:
    """The share of votes per pair of systems that makes the leaderboard's adjacent differences
    most precise: the A-optimal design for them (Kiefer 1959, "Optimum experimental designs",
    JRSS B 21(2):272-319), at strengths ``theta`` (logits).

    The pairs are ``numpy.triu_indices(k, 1)``'s; ``information``: one vote's Fisher information
    on its pair's difference, ``p (1 - p)`` at ``theta`` by default. A design ``w`` (shares summing
    to 1) has information ``M(w) = sum_a w_a i_a x_a x_a^T`` (``x_a`` the pair's contrast); the
    adjacent pairs (in the order of ``theta``) have contrasts ``C``; the design minimises
    ``trace(C M(w)^+ C^T)``, the sum of their differences' variances per vote. Found by the
    multiplicative algorithm (Silvey, Titterington & Torsney 1978, "An algorithm for optimal
    designs on a finite design space", Communications in Statistics A 7(14):1379-1389, with the
    square-root power that Yu 2010, Annals of Statistics 38(3):1593-1606, proves monotone for
    A-optimality): ``w_a <- w_a sqrt(g_a / sum_b w_b g_b)``, ``g_a = i_a |C M^+ x_a|^2``, from the
    uniform design, at most :data:`DESIGN_STEPS` steps; it stops once ``max g / sum w g`` is
    within :data:`DESIGN_TOLERANCE` of 1, which bounds the design's criterion within that share
    of the optimum's (the Kiefer-Wolfowitz equivalence theorem, in its A-optimal form).

    With strengths far apart, most votes go to the neighbours, and a share to the pairs two
    apart that tie the chain together:

    >>> w = adjacent_design(np.array([1.0, 0.0, -1.0]))
    >>> w.round(3).tolist()
    [0.484, 0.031, 0.484]
    >>> bool(abs(w.sum() - 1) < 1e-12)
    True
    """
    theta = np.asarray(theta, dtype=np.float64)
    k = len(theta)
    first, second = np.triu_indices(k, 1)
    pairs = len(first)
    if pairs == 0:
        return np.zeros(0)
    if information is None:
        p = special.expit(theta[first] - theta[second])
        information = p * (1 - p)
    info = np.maximum(np.asarray(information, dtype=np.float64), np.finfo(float).tiny)
    if info.shape != (pairs,):
        raise ValueError(f"information: one number per pair, {pairs}")
    order = np.argsort(-theta, kind="stable")
    contrast = np.zeros((k - 1, k))
    contrast[np.arange(k - 1), order[:-1]] = 1.0
    contrast[np.arange(k - 1), order[1:]] = -1.0
    w = np.full(pairs, 1 / pairs)
    # M is a weighted graph Laplacian; with J = 1 1^T, (M + J / k)^-1 = M^+ + J / k, and every
    # contrast sums to 0, so C M^+ is the solve of (M + J / k) against C^T.
    shift = np.full((k, k), 1 / k)
    for _ in range(DESIGN_STEPS):
        weight = w * info
        m = shift.copy()
        m[first, second] -= weight
        m[second, first] -= weight
        m[np.diag_indices(k)] += np.bincount(first, weight, minlength=k) + np.bincount(second, weight, minlength=k)
        try:
            cm = np.linalg.solve(m, contrast.T).T
        except np.linalg.LinAlgError:  # a disconnected design: only a share may be 0, so never from uniform
            cm = contrast @ np.linalg.pinv(m - shift, hermitian=True)
        g = info * ((cm[:, first] - cm[:, second]) ** 2).sum(axis=0)
        mean = w @ g
        if g.max() <= mean * (1 + DESIGN_TOLERANCE):
            break
        w = w * np.sqrt(g / mean)
        w /= w.sum()
    return w


def _adjacent_reduction(
    ratings: np.ndarray, cov: np.ndarray, first: np.ndarray, second: np.ndarray, sigma: np.ndarray
) -> np.ndarray:
    """Per pair: the sum over the adjacent pairs (by ``ratings``) of the fall of their
    difference's standard error (logits) when a vote of precision ``1 / sigma`` is added
    on the pair (Sherman-Morrison on the logits' covariance ``cov``)."""
    k = len(ratings)
    order = np.argsort(-ratings, kind="stable")
    contrast_cov = cov[order[:-1]] - cov[order[1:]]  # (k - 1, k): c^T cov for each adjacent c
    var = np.maximum(contrast_cov[:, order[:-1]].diagonal() - contrast_cov[:, order[1:]].diagonal(), 0.0)
    se = np.sqrt(var)
    out = np.empty(len(first))
    # a block of pairs at a time: (k - 1) x block cells held, not (k - 1) x all pairs
    block = max(1, _BLOCK_CELLS // max(k, 1))
    for lo in range(0, len(first), block):
        a, b = first[lo : lo + block], second[lo : lo + block]
        g = contrast_cov[:, a] - contrast_cov[:, b]  # c^T cov x per adjacent c, pair
        q = cov[a, a] + cov[b, b] - 2 * cov[a, b]  # x^T cov x
        h = 1 / sigma[lo : lo + block]
        after = var[:, None] - h * g**2 / (1 + h * q)
        out[lo : lo + block] = (se[:, None] - np.sqrt(np.maximum(after, 0.0))).sum(axis=0)
    return out


# --------------------------------------------------------------------------- raters


#: Outcomes in a pair's canonical orientation (the lower-numbered system first), "both bad" a tie.
FIRST, SECOND, EVEN = 0, 1, 2
#: Each outcome with the pair's two systems swapped: a unit's mirror.
MIRROR = np.array([SECOND, FIRST, EVEN], dtype=np.int64)


class SelfConsistency(NamedTuple):
    """Per rater (``rater[r]``, every rater with a vote): ``repeats``, judgments of a unit
    (prompt, pair) the rater had judged before; ``units``: units judged more than once;
    ``agree``: repeats with the same outcome as the rater's first judgment of the unit;
    ``share`` = agree / repeats (NaN without repeats) and its Wilson interval
    ``lower``, ``upper`` (NaN without repeats).

    Each repeat is one trial against one reference, the first judgment, which is also the
    judgment :func:`rater_agreement` counts: a rater's agreement with the others and with
    themselves rest on the same verdict. With two judgments of a unit (a model judge asked
    with the sides swapped, Zheng et al. 2023, "Judging LLM-as-a-Judge with MT-Bench and
    Chatbot Arena", NeurIPS 2023 Datasets and Benchmarks, section 3.3) this is the share of
    pairs of verdicts alike; with more, counting every pair of a unit's verdicts instead would
    grow the trials as the square of the judgments while the evidence grows as their number,
    and no binomial interval would hold on them. Wilson's (1927, "Probable inference, the law of
    succession, and statistical inference", JASA 22(158):209-212) score interval counts the
    repeats as independent trials (several repeats of one unit are not quite, which the count
    of ``units`` beside them shows)."""

    rater: npt.NDArray[np.int64]
    repeats: npt.NDArray[np.int64]
    units: npt.NDArray[np.int64]
    agree: npt.NDArray[np.int64]
    share: FloatArray
    lower: FloatArray
    upper: FloatArray


class RaterAgreement(NamedTuple):
    """Agreement of the raters over the three outcomes (first, second, even) of each unit
    (a prompt and an unordered pair of systems), over every rater's first judgment of each unit.

    ``krippendorff`` (nominal alpha) and ``fleiss`` (Fleiss' kappa, over the ``fleiss_units``
    units judged by the commonest number of raters, ``fleiss_raters``) are
    :class:`stats.uncertainty.UnitStatistics` whose rows are the units (the ``pairable`` ones;
    Fleiss': its own) followed by their mirrors, row ``u`` and row ``u + half`` one unit: a
    bootstrap draws the two together (the same weight for both halves). ``units``: units with a
    judgment; ``pairable``: units judged by two raters or more; ``consistency``: each rater's
    :class:`SelfConsistency`; ``outcomes``: per unit (in the order of its first vote) its raters'
    first judgments counted by outcome (units x 3: first, second, even), what both coefficients
    rest on (:func:`size_sums`)."""

    krippendorff: UnitStatistics
    fleiss: UnitStatistics
    fleiss_units: int
    fleiss_raters: int
    units: int
    pairable: int
    consistency: SelfConsistency
    outcomes: npt.NDArray[np.int64]


def canonical_outcomes(
    left: npt.ArrayLike, right: npt.ArrayLike, outcome: npt.ArrayLike, *, n_systems: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each vote's unordered pair, lower-numbered system first, and its outcome in that
    orientation: ``FIRST`` (0), ``SECOND`` (1) or ``EVEN`` (2: a tie or "both bad"), whichever
    side each system was shown on.

    >>> canonical_outcomes([0, 2, 2], [2, 0, 0], [LEFT, LEFT, BOTH_BAD], n_systems=3)
    (array([0, 0, 0]), array([2, 2, 2]), array([0, 1, 2]))
    """
    cells = _cells_of_votes(left, right, outcome, n_systems)
    out = cells % 4
    rgt = (cells // 4) % n_systems
    lft = cells // (4 * n_systems)
    swapped = lft > rgt
    decided = np.where(out == LEFT, FIRST, SECOND)
    code = np.where(out >= TIE, EVEN, np.where(swapped, 1 - decided, decided))
    return np.minimum(lft, rgt), np.maximum(lft, rgt), code.astype(np.int64)


class _Judged(NamedTuple):
    """Votes as judgments of units: each vote's outcome ``code`` (canonical), its rater (dense:
    an index into ``rater_ids``) and unit (dense, ``n_units``, numbered in the order of their first
    votes: so a bootstrap over them draws the same units whichever numbers the systems bear);
    ``key``: (unit, rater) as one int; ``first``: the index of each (unit, rater)'s first vote, in
    the order given."""

    code: npt.NDArray[np.int64]
    rater: npt.NDArray[np.int64]
    rater_ids: npt.NDArray[np.int64]
    unit: npt.NDArray[np.int64]
    n_units: int
    key: npt.NDArray[np.int64]
    first: npt.NDArray[np.int64]


def _judged(
    left: npt.ArrayLike,
    right: npt.ArrayLike,
    outcome: npt.ArrayLike,
    raters: npt.ArrayLike,
    prompts: npt.ArrayLike,
    n_systems: int,
) -> _Judged:
    first, second, code = canonical_outcomes(left, right, outcome, n_systems=n_systems)
    who, prompt = np.asarray(raters), np.asarray(prompts)
    for name, a in (("raters", who), ("prompts", prompt)):
        if a.shape != code.shape or (a.size and a.dtype.kind not in "iu"):
            raise ValueError(f"{name}: one integer per vote")
        if a.size and a.min() < 0:
            raise ValueError(f"{name}: must be >= 0")
    who, prompt = who.astype(np.int64), prompt.astype(np.int64)
    _, seen, unit = np.unique(np.stack([prompt, first, second]), axis=1, return_index=True, return_inverse=True)
    place = np.empty(len(seen), np.int64)
    place[np.argsort(seen, kind="stable")] = np.arange(len(seen))
    unit = place[unit.reshape(-1)]
    rater_ids, rater = np.unique(who, return_inverse=True)
    rater = rater.reshape(-1).astype(np.int64)
    n_units = int(unit.max()) + 1 if unit.size else 0
    key = unit * max(len(rater_ids), 1) + rater
    _, first_vote = np.unique(key, return_index=True)  # each (unit, rater)'s first vote in the order given
    return _Judged(code, rater, rater_ids.astype(np.int64), unit, n_units, key, first_vote.astype(np.int64))


def rater_agreement(
    left: npt.ArrayLike,
    right: npt.ArrayLike,
    outcome: npt.ArrayLike,
    raters: npt.ArrayLike,
    prompts: npt.ArrayLike,
    *,
    n_systems: int,
    level: float = 0.95,
) -> RaterAgreement:
    """Fleiss' kappa and Krippendorff's alpha (nominal) of the raters over units (a prompt and
    a pair of systems), each unit counted as itself and as its mirror, and each rater's
    self-consistency on the units judged again.

    A unit's outcome is read in the pair's canonical orientation
    (:func:`canonical_outcomes`): two raters shown the pair in opposite orders who
    preferred the same system agree. "Both bad" counts as a tie, so the scale has three
    nominal categories. Votes are taken in the order given: each rater's first judgment
    of a unit enters the reliability data, later ones are repeats, measured against it
    (:class:`SelfConsistency`, with Wilson's interval at ``level``).

    Which system of a pair is "first" is arbitrary, and the chance agreement both
    coefficients correct for would depend on it: with the stronger system always first,
    "first better" is most verdicts, and agreement that it is looks like chance. So every
    unit is counted both ways round, as itself and as its mirror (first and second swapped,
    :data:`MIRROR`): the outcomes' shares are then the same whichever system is numbered
    first, and each unit's own agreement is unchanged. Krippendorff's alpha (Krippendorff
    2011) is over the units judged by two raters or more; Fleiss' kappa (Fleiss 1971) needs
    the same number of raters on every unit, so it is over the units with the commonest
    number of raters (two or more; a tie: the larger number). Both are
    :mod:`stats.uncertainty`'s per-unit statistics, for a bootstrap that draws a unit with its
    mirror.

    Examples
    --------
    >>> a = rater_agreement([0, 1, 0, 0, 1, 0], [1, 0, 1, 1, 0, 1], [LEFT, RIGHT, LEFT, RIGHT, LEFT, LEFT],
    ...                     raters=[0, 1, 0, 0, 1, 2], prompts=[0, 0, 0, 1, 1, 1], n_systems=2)
    >>> a.units, a.pairable, round(a.krippendorff.value, 4), a.fleiss_units, a.fleiss_raters
    (2, 2, 0.28, 1, 3)
    >>> a.consistency.repeats.tolist(), a.consistency.agree.tolist(), a.consistency.share.tolist()[:1]
    ([1, 0, 0], [1, 0, 0], [1.0])
    """
    if not 0 < level < 1:
        raise ValueError("level: must be between 0 and 1")
    judged = _judged(left, right, outcome, raters, prompts, n_systems)
    once = judged.first
    unit, rater, code = judged.unit[once], judged.rater[once], judged.code[once]
    counts = np.zeros((judged.n_units, 3), np.int64)
    np.add.at(counts, (unit, code), 1)
    per_unit = counts.sum(axis=1)
    pairable = per_unit >= 2
    column = np.cumsum(pairable) - 1  # each pairable unit's column of the reliability data
    keep = pairable[unit]
    n_pairable = int(pairable.sum())
    data = np.full((len(judged.rater_ids), n_pairable), np.nan)
    data[rater[keep], column[unit[keep]]] = code[keep]
    mirrored = np.where(np.isnan(data), np.nan, MIRROR[np.nan_to_num(data).astype(np.int64)])
    alpha = krippendorff_alpha_units(np.concatenate([data, mirrored], axis=1), level="nominal")
    raters_of = per_unit[pairable]
    if len(raters_of):
        sizes, times = np.unique(raters_of, return_counts=True)
        m = int(sizes[np.lexsort((sizes, times))[-1]])  # the commonest number of raters (ties: the larger)
    else:
        m = 0
    table = counts[per_unit == m] if m else np.zeros((0, 3), np.int64)
    fleiss = fleiss_kappa_units(np.concatenate([table, table[:, MIRROR]]))
    return RaterAgreement(
        alpha, fleiss, len(table), m, int((per_unit > 0).sum()), n_pairable, _consistency(judged, level), counts
    )


def size_sums(outcomes: npt.ArrayLike) -> dict[int, list[int]]:
    """The sums both of :func:`rater_agreement`'s coefficients depend on, from its ``outcomes``
    (units x 3): per number ``r`` >= 2 of raters of a unit, ``[units, their first and second
    outcomes, their even ones, the sum of their outcome counts squared]``. They add over
    prompts (a campaign's running sums); :func:`coefficients_of_sizes` gives the coefficients.

    >>> size_sums([[2, 0, 0], [1, 1, 1], [1, 0, 0]])
    {2: [1, 2, 0, 4], 3: [1, 2, 1, 3]}
    """
    table = np.asarray(outcomes, dtype=np.int64).reshape(-1, 3)
    raters = table.sum(axis=1)
    found = {}
    for r in np.unique(raters[raters >= 2]).tolist():
        on = table[raters == r]
        found[int(r)] = [len(on), int(on[:, :2].sum()), int(on[:, 2].sum()), int((on * on).sum())]
    return found


def coefficients_of_sizes(sizes: Mapping[int, Sequence[int]]) -> tuple[float, float, int, int]:
    """Krippendorff's alpha and Fleiss' kappa of :func:`rater_agreement` from :func:`size_sums`
    (summed over any prompts), with Fleiss' units and their number of raters: each unit counted
    with its mirror (its first and second outcomes swapped: the two totals equal, the squares
    and the evens doubled), the same figures to rounding.

    >>> alpha, kappa, units, raters = coefficients_of_sizes({2: [1, 2, 0, 4], 3: [1, 2, 1, 3]})
    >>> round(alpha, 6), round(kappa, 6), units, raters
    (0.15625, -0.5, 1, 3)
    """
    nan = float("nan")
    several = {int(r): counts for r, counts in sizes.items() if int(r) >= 2 and counts[0]}
    if not several:
        return nan, nan, 0, 0
    # Krippendorff (2011): alpha = 1 - (n - 1) D_o / D_e over the pairable units and their mirrors
    decided = sum(c[1] for c in several.values())
    even = 2 * sum(c[2] for c in several.values())
    n = 2 * decided + even
    observed = sum(2 * (c[0] * r * r - c[3]) / (r - 1) for r, c in several.items())
    expected = n * n - (2 * decided * decided + even * even)  # each value total is decided (first, second) or even
    alpha = float(1 - (n - 1) * observed / expected) if expected else nan
    # Fleiss (1971) over the units with the commonest number of raters (ties: the larger)
    m = max(several, key=lambda r: (several[r][0], r))
    units, decided, even, squares = several[m]
    items = 2 * units
    totals = np.array([decided, decided, 2 * even], dtype=np.float64)
    if np.count_nonzero(totals) < 2:
        return alpha, nan, units, m
    agreement = (2 * squares / items - m) / (m * (m - 1.0))
    chance = float(np.sum(np.square(totals / (items * m))))
    kappa = float((agreement - chance) / (1 - chance))
    return alpha, kappa, units, m


def _consistency(judged: _Judged, level: float) -> SelfConsistency:
    code, rater, key, first_vote = judged.code, judged.rater, judged.key, judged.first
    n_raters = len(judged.rater_ids)
    repeat = np.ones(len(key), dtype=bool)
    repeat[first_vote] = False
    # a repeat agrees when it equals the first judgment of its (unit, rater)
    first_code = np.empty(judged.n_units * max(n_raters, 1), dtype=np.int64)
    first_code[key[first_vote]] = code[first_vote]
    agrees = repeat & (code == first_code[key])
    repeats = np.bincount(rater[repeat], minlength=n_raters)
    agree = np.bincount(rater[agrees], minlength=n_raters)
    units = np.bincount(rater[first_vote][np.isin(key[first_vote], key[repeat])], minlength=n_raters)
    return self_consistency(judged.rater_ids, repeats, units, agree, level=level)


def self_consistency(
    rater: npt.ArrayLike, repeats: npt.ArrayLike, units: npt.ArrayLike, agree: npt.ArrayLike, *, level: float = 0.95
) -> SelfConsistency:
    """:class:`SelfConsistency` of the counts (summed over any prompts): the share of each rater's
    repeats that agree and its Wilson interval.

    >>> c = self_consistency([0, 4], [4, 0], [2, 0], [2, 0])
    >>> c.share.tolist()[0], round(float(c.lower[0]), 4), round(float(c.upper[0]), 4), bool(np.isnan(c.share[1]))
    (0.5, 0.15, 0.85, True)
    """
    if not 0 < level < 1:
        raise ValueError("level: must be between 0 and 1")
    rater, repeats, units, agree = (np.asarray(a, dtype=np.int64) for a in (rater, repeats, units, agree))
    share, lower, upper = _wilson(agree, repeats, level)
    return SelfConsistency(rater, repeats, units, agree, share, lower, upper)


def _wilson(successes: np.ndarray, trials: np.ndarray, level: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The share and Wilson's score interval per entry (NaN for no trials)."""
    z = float(special.ndtri(0.5 + level / 2))
    n = trials.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = successes / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    none = n == 0
    return (
        np.where(none, np.nan, p),
        np.where(none, np.nan, np.maximum(centre - half, 0.0)),
        np.where(none, np.nan, np.minimum(centre + half, 1.0)),
    )


# --------------------------------------------------------------------------- two leaderboards


class LeaderboardComparison(NamedTuple):
    """Two leaderboards of the same systems (people's and a model judge's, say).

    ``tau``: Kendall's tau-b between their ratings; ``lower``, ``upper``: its percentile
    interval over paired bootstrap rounds (``rounds`` used: both fits finite);
    ``first``, ``second``: the pairs ordered differently, ``first`` above ``second`` in
    the first leaderboard (best first by that leaderboard's difference); ``difference``,
    ``other_difference``: ``rating[first] - rating[second]`` in each (Elo points; the
    other's is negative or 0); ``settled``, ``other_settled``: the difference's
    bootstrap percentile interval at ``level`` excludes 0 in that leaderboard."""

    tau: float
    lower: float
    upper: float
    rounds: int
    first: npt.NDArray[np.int64]
    second: npt.NDArray[np.int64]
    difference: FloatArray
    other_difference: FloatArray
    settled: npt.NDArray[np.bool_]
    other_settled: npt.NDArray[np.bool_]


def compare_leaderboards(
    one: BootstrapIntervals | PreferenceFit,
    other: BootstrapIntervals | PreferenceFit,
    *,
    systems: npt.ArrayLike | None = None,
    other_systems: npt.ArrayLike | None = None,
    level: float = 0.95,
) -> LeaderboardComparison:
    """Kendall's tau between two leaderboards over the systems they share, with a bootstrap
    interval, and the pairs of systems they order differently.

    ``systems``, ``other_systems``: the shared systems as indices into each leaderboard, in
    the same order (a model judge may not have judged every system the people did); None:
    every system of that leaderboard, so by default both rate the same systems in the same
    order. ``first`` and ``second`` of the result are positions in them. Given a
    :class:`PreferenceFit` in place of a :func:`bootstrap` (too few votes for one), the
    comparison has the tau and the pairs but no interval (NaN bounds, ``rounds`` 0) and no
    difference settled.

    Kendall (1938), "A new measure of rank correlation", Biometrika 30(1/2):81-93,
    in its tau-b form (ties in either leaderboard in the denominator, as
    ``scipy.stats.kendalltau``), over the fitted ratings. The interval pairs the two
    :func:`bootstrap` results' rounds (round ``b`` of one with round ``b`` of the
    other): they resample the votes of each leaderboard independently (e.g. people's
    votes and a judge's), so the pair is a draw of both; rounds failed in either are
    left out. Give the two bootstraps different seeds when both count the same votes'
    shape, or their draws are the same multinomial stream. The use of such a
    comparison for a model judge: Zheng et al. (2023), "Judging LLM-as-a-Judge",
    NeurIPS 2023, section 4 (agreement of a judge with people's preferences).

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> left, right = rng.integers(0, 4, 800), rng.integers(1, 4, 800)
    >>> right = (left + right) % 4
    >>> people = np.where((left < right) == (rng.random(800) < 0.75), LEFT, RIGHT)
    >>> judge = np.where((np.array([0, 2, 1, 3])[left] < np.array([0, 2, 1, 3])[right]) == (rng.random(800) < 0.75), LEFT, RIGHT)
    >>> c = compare_leaderboards(bootstrap(vote_counts(left, right, people, n_systems=4), resamples=200),
    ...                          bootstrap(vote_counts(left, right, judge, n_systems=4), resamples=200, seed=1))
    >>> round(c.tau, 4), c.first.tolist(), c.second.tolist(), c.settled.tolist(), c.other_settled.tolist()
    (0.6667, [1], [2], [True], [True])
    """
    if not 0 < level < 1:
        raise ValueError("level: must be between 0 and 1")
    (one_ratings, one_samples), (other_ratings, other_samples) = _rounds_of(one), _rounds_of(other)
    if systems is None and other_systems is None and len(other_ratings) != len(one_ratings):
        raise ValueError(f"other: {len(other_ratings)} systems, the first leaderboard has {len(one_ratings)}")
    mine = _systems_of(systems, len(one_ratings), "systems")
    theirs = _systems_of(other_systems, len(other_ratings), "other_systems")
    if len(mine) != len(theirs):
        raise ValueError("systems, other_systems: the shared systems, one index in each leaderboard for each")
    k = len(mine)
    ratings, other_ratings = one_ratings[mine], other_ratings[theirs]
    samples, other_samples = one_samples[:, mine], other_samples[:, theirs]
    tau = float(_kendall_tau_b(ratings[None], other_ratings[None])[0])
    rounds = min(len(samples), len(other_samples))
    a, b = samples[:rounds], other_samples[:rounds]
    good = ~(np.isnan(a).any(axis=1) | np.isnan(b).any(axis=1))
    a, b = a[good], b[good]
    taus = np.concatenate(
        [_kendall_tau_b(a[lo : lo + 256], b[lo : lo + 256]) for lo in range(0, len(a), 256)] or [np.empty(0)]
    )
    alpha = (1 - level) / 2
    taus = taus[np.isfinite(taus)]
    lower, upper = (float(q) for q in np.quantile(taus, [alpha, 1 - alpha])) if len(taus) >= 2 else (math.nan,) * 2
    i, j = np.triu_indices(k, 1)
    d_one = ratings[i] - ratings[j]
    d_other = other_ratings[i] - other_ratings[j]
    apart = np.sign(d_one) * np.sign(d_other) < 0
    up = np.where(d_one > 0, i, j)[apart]
    down = np.where(d_one > 0, j, i)[apart]
    order = np.argsort(-(ratings[up] - ratings[down]), kind="stable")
    up, down = up[order], down[order]

    def is_settled(drawn: np.ndarray) -> np.ndarray:
        diffs = drawn[:, up] - drawn[:, down]
        diffs = diffs[~np.isnan(diffs).any(axis=1)]
        if len(diffs) < 2:
            return np.zeros(len(up), dtype=bool)
        lo, hi = np.quantile(diffs, [alpha, 1 - alpha], axis=0)
        return (lo > 0) | (hi < 0)

    return LeaderboardComparison(
        tau=tau,
        lower=lower,
        upper=upper,
        rounds=int(len(taus)),
        first=up.astype(np.int64),
        second=down.astype(np.int64),
        difference=ratings[up] - ratings[down],
        other_difference=other_ratings[up] - other_ratings[down],
        settled=is_settled(samples),
        other_settled=is_settled(other_samples),
    )


def _rounds_of(board: BootstrapIntervals | PreferenceFit) -> tuple[FloatArray, FloatArray]:
    """A leaderboard's ratings and its bootstrap rounds' (rounds x systems; none for a fit alone)."""
    if isinstance(board, BootstrapIntervals):
        return board.fit.ratings, board.samples
    if isinstance(board, PreferenceFit):
        return board.ratings, np.empty((0, len(board.ratings)))
    raise ValueError("one, other: a bootstrap() result or a fit")


def _systems_of(systems: npt.ArrayLike | None, k: int, name: str) -> npt.NDArray[np.int64]:
    if systems is None:
        return np.arange(k, dtype=np.int64)
    found = np.asarray(systems)
    if found.ndim != 1 or (found.size and found.dtype.kind not in "iu"):
        raise ValueError(f"{name}: one integer index per shared system")
    if found.size and (found.min() < 0 or found.max() >= k or len(np.unique(found)) != len(found)):
        raise ValueError(f"{name}: distinct systems of the leaderboard, 0 .. {k - 1}")
    return found.astype(np.int64)


def _kendall_tau_b(x: np.ndarray, y: np.ndarray) -> FloatArray:
    """Kendall's tau-b per row of ``x`` and ``y`` (rows x systems); NaN when either row is constant."""
    i, j = np.triu_indices(x.shape[1], 1)
    sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    with np.errstate(divide="ignore", invalid="ignore"):
        return (sx * sy).sum(axis=1) / np.sqrt((sx * sx).sum(axis=1) * (sy * sy).sum(axis=1))


# --------------------------------------------------------------------------- internals


def _cells_of_votes(left: npt.ArrayLike, right: npt.ArrayLike, outcome: npt.ArrayLike, n_systems: int) -> np.ndarray:
    if not isinstance(n_systems, int | np.integer) or n_systems < 2:
        raise ValueError("n_systems: an integer, at least 2")
    arrays = {}
    for name, values in (("left", left), ("right", right), ("outcome", outcome)):
        a = np.asarray(values)
        if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
            raise ValueError(f"{name}: a one-dimensional array of integers")
        arrays[name] = a.astype(np.int64)
    lft, rgt, out = arrays["left"], arrays["right"], arrays["outcome"]
    if not len(lft) == len(rgt) == len(out):
        raise ValueError("left, right, outcome: one of each per vote, the same length")
    for name, a in (("left", lft), ("right", rgt)):
        if a.size and (a.min() < 0 or a.max() >= n_systems):
            raise ValueError(f"{name}: systems are 0 .. {n_systems - 1}")
    if out.size and (out.min() < 0 or out.max() > BOTH_BAD):
        raise ValueError("outcome: 0 (left), 1 (right), 2 (tie) or 3 (both bad)")
    if (lft == rgt).any():
        raise ValueError("left, right: a vote compares two different systems")
    return (lft * n_systems + rgt) * 4 + out


def _table(counts: npt.ArrayLike) -> np.ndarray:
    table = np.asarray(counts)
    if table.ndim != 3 or table.shape[0] != table.shape[1] or table.shape[2] != 4 or table.shape[0] < 2:
        raise ValueError("counts: a (k, k, 4) table of vote counts (vote_counts), k >= 2")
    if table.dtype.kind not in "iuf" or not np.isfinite(table).all() or (table < 0).any():
        raise ValueError("counts: finite, non-negative numbers")
    if np.diagonal(table, axis1=0, axis2=1).any():
        raise ValueError("counts: a system never meets itself (the diagonal must be 0)")
    return table


class _Cells:
    """The pairs of systems with votes, and their counts as (rounds, cells, 3): the first
    system's wins, the second's, ties (with "both bad"). ``collapse``: one cell per unordered
    pair (the model without a side term depends only on the difference)."""

    def __init__(self, k: int, first: np.ndarray, second: np.ndarray, counts: np.ndarray, side: bool):
        self.k, self.first, self.second, self.counts, self.side = k, first, second, counts, side

    @classmethod
    def of(cls, table: np.ndarray, *, side: bool, collapse: bool = False) -> _Cells:
        k = table.shape[0]
        three = np.stack([table[:, :, LEFT], table[:, :, RIGHT], table[:, :, TIE] + table[:, :, BOTH_BAD]], axis=2)
        three = three.astype(np.float64)
        if collapse:
            i, j = np.triu_indices(k, 1)
            cells = three[i, j] + three[j, i][:, [1, 0, 2]]
        else:
            i, j = np.nonzero(three.sum(axis=2))
            cells = three[i, j]
        keep = cells.sum(axis=1) > 0
        return cls(k, i[keep], j[keep], cells[keep][None], side)

    def with_counts(self, counts: np.ndarray) -> _Cells:
        return _Cells(self.k, self.first, self.second, counts, self.side)

    def n_params(self, model: str) -> int:
        return self.k - 1 + int(self.side) + int(model == "davidson")

    def linear(self, beta: np.ndarray, ref: int, model: str) -> tuple[np.ndarray, np.ndarray | None]:
        """Each round's logit difference per cell, and log nu (Davidson)."""
        theta = _full_theta(beta[:, : self.k - 1], ref)
        d = theta[:, self.first] - theta[:, self.second]
        if self.side:
            d = d + beta[:, self.k - 1 : self.k]
        lam = beta[:, -1:] if model == "davidson" else None
        return d, lam

    def scatter(self, per_cell: np.ndarray, ref: int) -> np.ndarray:
        """(rounds, k - 1): sum over cells of ``per_cell`` times the cell's +1 / -1 row, reduced."""
        rounds = per_cell.shape[0]
        offset = (np.arange(rounds) * self.k)[:, None]
        sums = np.bincount((offset + self.first).ravel(), per_cell.ravel(), rounds * self.k)
        sums -= np.bincount((offset + self.second).ravel(), per_cell.ravel(), rounds * self.k)
        return np.delete(sums.reshape(rounds, self.k), ref, axis=1)

    def assemble(self, hdd: np.ndarray, hdl: np.ndarray | None, hll: np.ndarray, ref: int) -> np.ndarray:
        """(rounds, m, m): the sum over cells of ``x x^T`` weighted by the per-cell second moments
        in (d, log nu), ``x`` the cell's row of the design."""
        rounds, k = hdd.shape[0], self.k
        m = k - 1 + int(self.side) + int(hdl is not None)
        # straight into the reduced matrix: a cell adds h at (a, a) and (b, b), -h at (a, b) and (b, a);
        # the reference system's row and column are dropped (sent to a spill slot, then cut)
        slot = np.arange(k) - (np.arange(k) > ref)
        slot[ref] = m
        a, b = slot[self.first], slot[self.second]
        width = (m + 1) * (m + 1)
        offset = (np.arange(rounds) * width)[:, None]
        index = np.concatenate([a * (m + 1) + a, b * (m + 1) + b, a * (m + 1) + b, b * (m + 1) + a])
        weights = np.concatenate([hdd, hdd, -hdd, -hdd], axis=1)
        flat = np.bincount((offset + index).ravel(), weights.ravel(), rounds * width)
        out = flat.reshape(rounds, m + 1, m + 1)[:, :m, :m].copy()
        extra = []
        if self.side:
            extra.append((self.scatter(hdd, ref), hdd.sum(axis=1), None if hdl is None else hdl.sum(axis=1)))
        col = k - 1
        if self.side:
            out[:, : k - 1, col] = out[:, col, : k - 1] = extra[0][0]
            out[:, col, col] = extra[0][1]
            col += 1
        if hdl is not None:
            out[:, : k - 1, col] = out[:, col, : k - 1] = self.scatter(hdl, ref)
            if self.side:
                out[:, col - 1, col] = out[:, col, col - 1] = extra[0][2]
            out[:, col, col] = hll.sum(axis=1)
        return out

    def gradient(self, model: str, d: np.ndarray, lam: np.ndarray | None, ref: int) -> np.ndarray:
        w, lo, t = self.counts[..., 0], self.counts[..., 1], self.counts[..., 2]
        n = w + lo + t
        if model == "bradley-terry":
            gd = w + t / 2 - n * special.expit(d)
            parts = [self.scatter(gd, ref)]
            if self.side:
                parts.append(gd.sum(axis=1, keepdims=True))
            return np.concatenate(parts, axis=1)
        a, b, v = _davidson_shares(d, lam)
        gd = (w - lo) / 2 - n * (a - b) / 2
        parts = [self.scatter(gd, ref)]
        if self.side:
            parts.append(gd.sum(axis=1, keepdims=True))
        parts.append((t - n * v).sum(axis=1, keepdims=True))
        return np.concatenate(parts, axis=1)

    def information(self, model: str, d: np.ndarray, lam: np.ndarray | None, ref: int) -> tuple[np.ndarray, np.ndarray]:
        """(the gradient, the observed information: minus the Hessian of the log-likelihood)."""
        grad = self.gradient(model, d, lam, ref)
        n = self.counts.sum(axis=2)
        if model == "bradley-terry":
            p = special.expit(d)
            return grad, self.assemble(n * p * (1 - p), None, None, ref)
        a, b, v = _davidson_shares(d, lam)
        hdd = n * ((a + b) / 4 - (a - b) ** 2 / 4)
        hdl = -n * (a - b) * v / 2
        hll = n * (v - v * v)
        return grad, self.assemble(hdd, hdl, hll, ref)

    def log_likelihood(self, model: str, d: np.ndarray, lam: np.ndarray | None) -> np.ndarray:
        w, lo, t = self.counts[..., 0], self.counts[..., 1], self.counts[..., 2]
        if model == "bradley-terry":
            return -((w + t / 2) * np.logaddexp(0, -d) + (lo + t / 2) * np.logaddexp(0, d)).sum(axis=1)
        log_d = np.logaddexp(np.logaddexp(d / 2, -d / 2), lam)
        return ((w - lo) * d / 2 + t * lam - (w + lo + t) * log_d).sum(axis=1)

    def mle_exists(self, model: str) -> np.ndarray:
        """Per round: is the graph "won or tied against" strongly connected over all systems
        (and, for Davidson, are some but not all votes ties)?"""
        rounds, k = self.counts.shape[0], self.k
        ok = np.ones(rounds, dtype=bool)
        c = self.counts
        both_ways = (((c[..., 0] + c[..., 2]) > 0) & ((c[..., 1] + c[..., 2]) > 0)).all(axis=1)
        # a round whose every cell holds a win or tie each way is strongly connected when the cells
        # connect the systems at all (the same cells every round): only the other rounds are searched
        cells_graph = sparse.csr_array((np.ones(len(self.first)), (self.first, self.second)), shape=(k, k))
        connected = csgraph.connected_components(cells_graph, directed=False, return_labels=False) == 1
        for r in range(rounds) if not connected else np.flatnonzero(~both_ways):
            forward = (c[r, :, 0] + c[r, :, 2]) > 0
            backward = (c[r, :, 1] + c[r, :, 2]) > 0
            rows = np.concatenate([self.first[forward], self.second[backward]])
            cols = np.concatenate([self.second[forward], self.first[backward]])
            graph = sparse.csr_array((np.ones(len(rows)), (rows, cols)), shape=(k, k))
            ok[r] = csgraph.connected_components(graph, directed=True, connection="strong", return_labels=False) == 1
        if model == "davidson":
            ties, total = c[..., 2].sum(axis=1), c.sum(axis=(1, 2))
            ok &= (ties > 0) & (ties < total)
        return ok


def _davidson_shares(d: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(e^{d/2}, e^{-d/2}, nu) / D`` per cell, without overflow."""
    log_d = np.logaddexp(np.logaddexp(d / 2, -d / 2), lam)
    return np.exp(d / 2 - log_d), np.exp(-d / 2 - log_d), np.exp(lam - log_d)


def _vote_scores(model: str, d: np.ndarray, lam: np.ndarray | None) -> np.ndarray:
    """(cells, 3 outcomes, 2): one vote's derivative of the log-likelihood in d and in log nu,
    for a win of the first system, of the second, a tie."""
    out = np.zeros((len(d), 3, 2))
    if model == "bradley-terry":
        p = special.expit(d)
        out[:, 0, 0], out[:, 1, 0], out[:, 2, 0] = 1 - p, -p, 0.5 - p
        return out
    a, b, v = _davidson_shares(d, lam)
    half = (a - b) / 2
    out[:, 0, 0], out[:, 1, 0], out[:, 2, 0] = 0.5 - half, -0.5 - half, -half
    out[:, 0, 1], out[:, 1, 1], out[:, 2, 1] = -v, -v, 1 - v
    return out


def _outcome_map(cells: _Cells, k: int, *, collapsed: bool) -> sparse.csr_array:
    """(k * k * 4, cells * 3): a flattened (k, k, 4) table's columns to the cells' counts
    (first's win, second's, tie), "both bad" a tie; ``collapsed`` cells take both orders."""
    c = np.arange(len(cells.first))
    rows, cols = [], []
    orders = [(cells.first, cells.second, (0, 1))]
    if collapsed:
        orders.append((cells.second, cells.first, (1, 0)))
    for a, b, (won, lost) in orders:
        base = (a * k + b) * 4
        for outcome, slot in ((LEFT, won), (RIGHT, lost), (TIE, 2), (BOTH_BAD, 2)):
            rows.append(base + outcome)
            cols.append(c * 3 + slot)
    rows_a, cols_a = np.concatenate(rows), np.concatenate(cols)
    return sparse.csr_array((np.ones(len(rows_a)), (rows_a, cols_a)), shape=(k * k * 4, len(c) * 3))


def _cluster_scores(cc: ClusterCounts, cells: _Cells, scores: np.ndarray, ref: int) -> np.ndarray:
    """(clusters, m): each cluster's score vector, the sum of its votes'."""
    k, n_cells = cc.n_systems, len(cells.first)
    per_cell = cc.table.astype(np.float64) @ _outcome_map(cells, k, collapsed=False)  # (clusters, cells * 3)
    slots = np.arange(n_cells * 3)
    to_cell = slots // 3

    def summed(weights: np.ndarray) -> sparse.csr_array:
        return per_cell @ sparse.csr_array((weights.ravel(), (slots, to_cell)), shape=(n_cells * 3, n_cells))

    per_d = summed(scores[:, :, 0])
    incidence = sparse.csr_array(
        (
            np.concatenate([np.ones(n_cells), -np.ones(n_cells)]),
            (np.concatenate([np.arange(n_cells)] * 2), np.concatenate([cells.first, cells.second])),
        ),
        shape=(n_cells, k),
    )
    parts = [np.delete((per_d @ incidence).toarray(), ref, axis=1)]
    if cells.side:
        parts.append(np.asarray(per_d.sum(axis=1)).reshape(-1, 1))
    if np.any(scores[:, :, 1] != 0):
        parts.append(np.asarray(summed(scores[:, :, 1]).sum(axis=1)).reshape(-1, 1))
    return np.concatenate(parts, axis=1)


def _newton(cells: _Cells, model: str, beta: np.ndarray, ref: int) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method on every round at once, each step halved until the log-likelihood does
    not fall. Returns (beta, converged per round)."""
    beta = beta.copy()
    d, lam = cells.linear(beta, ref, model)
    ll = cells.log_likelihood(model, d, lam)
    done = np.zeros(len(beta), dtype=bool)
    for _ in range(_MAX_ITER):
        active = ~done
        if not active.any():
            break
        sub = cells.with_counts(cells.counts[active])
        d, lam = sub.linear(beta[active], ref, model)
        grad, info = sub.information(model, d, lam, ref)
        try:
            step = np.linalg.solve(info, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            step = np.stack([np.linalg.lstsq(h, g, rcond=None)[0] for h, g in zip(info, grad)])
        current, old = beta[active], ll[active]
        scale = np.ones(len(current))
        for _halving in range(40):
            trial = current + scale[:, None] * step
            with np.errstate(over="ignore", invalid="ignore"):
                new = sub.log_likelihood(model, *sub.linear(trial, ref, model))
            worse = ~(new >= old - 1e-12 * np.abs(old))
            if not worse.any():
                break
            scale[worse] /= 2
        beta[active] = trial
        ll[active] = np.where(np.isfinite(new), new, old)
        moved = np.abs(scale[:, None] * step).max(axis=1)
        idx = np.flatnonzero(active)
        done[idx[moved < _TOL]] = True
        diverged = np.abs(beta[active]).max(axis=1) > _DIVERGED
        done[idx[diverged]] = True
    converged = done & (np.abs(beta).max(axis=1) <= _DIVERGED)
    return beta, converged


def _full_theta(free: np.ndarray, ref: int) -> np.ndarray:
    return np.insert(free, ref, 0.0, axis=1)


def _ratings(theta: np.ndarray, anchor: int | None, base: float) -> np.ndarray:
    centre = theta[:, [anchor]] if anchor is not None else theta.mean(axis=1, keepdims=True)
    return base + ELO_PER_LOGIT * (theta - centre)


def _constraint(k: int, ref: int, anchor: int | None) -> np.ndarray:
    """(k, k - 1): the reduced logits (``theta_ref`` = 0) to the constrained ``theta``."""
    embed = np.delete(np.eye(k), ref, axis=1)
    centre = np.eye(k) - (np.outer(np.ones(k), np.eye(k)[anchor]) if anchor is not None else np.full((k, k), 1 / k))
    return centre @ embed


def _ratings_covariance(cov: np.ndarray, k: int, ref: int, anchor: int | None) -> np.ndarray:
    t = _constraint(k, ref, anchor) * ELO_PER_LOGIT
    return t @ cov[: k - 1, : k - 1] @ t.T


def _beta_of(fit: PreferenceFit, ref: int) -> np.ndarray:
    parts = [np.delete(fit.theta - fit.theta[ref], ref)]
    if fit.side is not None:
        parts.append([fit.side])
    if fit.nu is not None:
        parts.append([math.log(fit.nu)])
    return np.concatenate(parts).astype(np.float64)


def _weighted_table(counts: WeightedCounts) -> np.ndarray:
    table, squares = _table(counts.table), _table(counts.squares)
    if table.shape != squares.shape or not np.array_equal(table > 0, squares > 0):
        raise ValueError("counts: the weights' table and their squares' must have the same cells")
    return table


def _fit_counts(
    counts: npt.ArrayLike | WeightedCounts, model: Model, *, side: bool, anchor: int | None, base: float
) -> PreferenceFit:
    if not isinstance(counts, WeightedCounts):
        return _fit(_table(counts), model, side=side, anchor=anchor, base=base)
    fit = _fit(_weighted_table(counts), model, side=side, anchor=anchor, base=base)
    # the inverse of the weighted information treats a weight as that many votes: only the sandwich holds
    robust = sandwich(counts, fit)
    side_z = side_p = None
    if side:
        side_z = fit.side / robust.side_se
        side_p = float(2 * special.ndtr(-abs(side_z)))
    return replace(
        fit,
        se=robust.se,
        covariance=robust.covariance,
        side_se=robust.side_se,
        side_z=side_z,
        side_p=side_p,
        votes=counts.votes,
    )


def _fit(table: np.ndarray, model: Model, *, side: bool, anchor: int | None, base: float) -> PreferenceFit:
    k = table.shape[0]
    if model not in ("bradley-terry", "davidson"):
        raise ValueError("model: 'bradley-terry' or 'davidson'")
    if anchor is not None and not (isinstance(anchor, int | np.integer) and 0 <= anchor < k):
        raise ValueError(f"anchor: a system, 0 .. {k - 1}, or None")
    if not math.isfinite(base):
        raise ValueError("base: a finite rating")
    cells = _Cells.of(table, side=side)
    _explain_no_mle(cells, model)
    ref = anchor if anchor is not None else 0
    m = cells.n_params(model)
    start = np.zeros((1, m))
    if model == "davidson":
        c = cells.counts[0]
        start[0, -1] = math.log(2 * c[:, 2].sum() / (c[:, 0].sum() + c[:, 1].sum()))
    beta, converged = _newton(cells, model, start, ref)
    d, lam = cells.linear(beta, ref, model)
    _, info = cells.information(model, d, lam, ref)
    # a likelihood rising towards infinity ends in a flat, singular information matrix
    if not converged[0] or np.linalg.cond(info[0]) > 1e12:
        what = "the side term" if side else "the ratings"
        raise ValueError(f"counts: {what} run off to infinity (no finite maximum-likelihood estimate)")
    cov = np.linalg.inv(info[0])
    theta_ref = _full_theta(beta[:, : k - 1], ref)
    theta = (_constraint(k, ref, anchor) @ beta[0, : k - 1]).astype(np.float64)
    ratings = _ratings(theta_ref, anchor, base)[0]
    ratings_cov = _ratings_covariance(cov, k, ref, anchor)
    side_value = side_se = side_z = side_p = None
    if side:
        side_value = float(beta[0, k - 1])
        side_se = math.sqrt(cov[k - 1, k - 1])
        side_z = side_value / side_se
        side_p = float(2 * special.ndtr(-abs(side_z)))
    return PreferenceFit(
        model=model,
        ratings=ratings,
        theta=theta,
        se=np.sqrt(np.maximum(np.diag(ratings_cov), 0.0)),
        covariance=ratings_cov,
        side=side_value,
        side_se=side_se,
        side_z=side_z,
        side_p=side_p,
        nu=math.exp(beta[0, -1]) if model == "davidson" else None,
        log_likelihood=float(cells.log_likelihood(model, d, lam)[0]),
        votes=int(table.sum()),
        anchor=anchor,
        base=float(base),
    )


def _explain_no_mle(cells: _Cells, model: str) -> None:
    """Raise a ValueError naming the systems when the maximum-likelihood estimate is at infinity."""
    k = cells.k
    c = cells.counts[0]
    met = np.zeros(k, dtype=bool)
    met[cells.first] = met[cells.second] = True
    if not met.all():
        raise ValueError(f"counts: systems {np.flatnonzero(~met).tolist()} have no votes; leave them out")
    forward = (c[:, 0] + c[:, 2]) > 0
    backward = (c[:, 1] + c[:, 2]) > 0
    rows = np.concatenate([cells.first[forward], cells.second[backward]])
    cols = np.concatenate([cells.second[forward], cells.first[backward]])
    graph = sparse.csr_array((np.ones(len(rows)), (rows, cols)), shape=(k, k))
    n, labels = csgraph.connected_components(graph, directed=True, connection="strong")
    if n > 1:
        # a component no edge leaves never lost (nor tied) to anyone outside it
        leaves = np.zeros(n, dtype=bool)
        leaves[labels[rows][labels[rows] != labels[cols]]] = True
        enters = np.zeros(n, dtype=bool)
        enters[labels[cols][labels[rows] != labels[cols]]] = True
        top = np.flatnonzero(~enters)  # nobody outside won against them
        bottom = np.flatnonzero(~leaves)  # they won against nobody outside
        raise ValueError(
            "counts: no finite maximum-likelihood ratings: systems "
            f"{np.flatnonzero(np.isin(labels, top)).tolist()} never lost nor tied to the others, or systems "
            f"{np.flatnonzero(np.isin(labels, bottom)).tolist()} never won nor tied against them "
            "(Zermelo's condition fails: the ratings' estimates are infinite)"
        )
    if model == "davidson":
        ties, total = c[:, 2].sum(), c.sum()
        if ties == 0 or ties == total:
            raise ValueError("counts: Davidson's nu needs some votes tied and some not (its estimate is 0 or infinite)")
