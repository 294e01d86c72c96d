"""kinds.preference.stats against reference fits: choix and statsmodels for Bradley-Terry, a direct
minimisation of Davidson's likelihood, statsmodels' robust covariances for the sandwich; the raters'
agreement against the krippendorff package and statsmodels; two leaderboards against scipy's
kendalltau."""

from __future__ import annotations

import choix
import numpy as np
import pytest
import statsmodels.api as sm
from scipy import optimize

from kinds.preference.stats import (
    BOTH_BAD,
    ELO_PER_LOGIT,
    EVEN,
    FIRST,
    LEFT,
    RIGHT,
    SECOND,
    TIE,
    PreferenceFit,
    WeightedCounts,
    active_weights,
    adjacent_design,
    bootstrap,
    bradley_terry,
    canonical_outcomes,
    cluster_counts,
    compare_leaderboards,
    davidson,
    rank_intervals,
    rater_agreement,
    sandwich,
    settled,
    vote_counts,
    weighted_counts,
    win_probabilities,
    win_rates,
)


def simulate(seed, *, k=6, n=3000, side=0.3, tie_share=0.2, clusters=40):
    """Votes among ``k`` systems of spread strengths, a left-side bias, some ties and both-bad."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(-1.2, 1.2, k)
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(theta[left] - theta[right] + side)))
    u = rng.random(n)
    tied = rng.random(n) < tie_share
    outcome = np.where(u < p, LEFT, RIGHT)
    outcome = np.where(tied, np.where(rng.random(n) < 0.5, TIE, BOTH_BAD), outcome)
    return left, right, outcome, rng.integers(0, clusters, n)


def test_vote_counts_count_every_vote_in_its_cell():
    left, right, outcome, _ = simulate(0, n=500)
    counts = vote_counts(left, right, outcome, n_systems=6)
    expected = np.zeros((6, 6, 4), dtype=np.int64)
    for a, b, o in zip(left, right, outcome):
        expected[a, b, o] += 1
    assert np.array_equal(counts, expected)


@pytest.mark.parametrize(
    "args, field",
    [
        (([0], [0], [LEFT]), "left, right"),
        (([0], [3], [LEFT]), "right"),
        (([0], [1], [4]), "outcome"),
        (([0, 1], [1], [LEFT]), "left, right, outcome"),
        (([0.5], [1], [LEFT]), "left"),
    ],
)
def test_vote_counts_name_the_bad_argument(args, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        vote_counts(*args, n_systems=3)


def _glm_votes(left, right, outcome, k, *, side):
    """Vote-level design for a logistic GLM: +1 left system, -1 right, system 0 dropped; y = 1, 0, 1/2."""
    x = np.zeros((len(left), k))
    x[np.arange(len(left)), left] += 1
    x[np.arange(len(left)), right] -= 1
    x = x[:, 1:]
    if side:
        x = np.column_stack([x, np.ones(len(left))])
    y = np.select([outcome == LEFT, outcome == RIGHT], [1.0, 0.0], 0.5)
    return x, y


def test_bradley_terry_equals_choix():
    left, right, outcome, _ = simulate(1, side=0.0)
    counts = vote_counts(left, right, outcome, n_systems=6)
    # choix takes (winner, loser) pairs: a win counted twice, a tie once each way (half a win each)
    data = []
    for a, b, o in zip(left, right, outcome):
        if o == LEFT:
            data += [(a, b), (a, b)]
        elif o == RIGHT:
            data += [(b, a), (b, a)]
        else:
            data += [(a, b), (b, a)]
    reference = choix.ilsr_pairwise(6, data, alpha=0.0, tol=1e-14, max_iter=10_000)
    fit = bradley_terry(counts)
    assert np.abs(fit.theta - (reference - reference.mean())).max() < 1e-6 / ELO_PER_LOGIT
    assert np.abs(fit.ratings - (1000 + ELO_PER_LOGIT * (reference - reference.mean()))).max() < 1e-6


@pytest.mark.parametrize("side", [False, True])
def test_bradley_terry_equals_a_logistic_regression(side):
    left, right, outcome, clusters = simulate(2)
    counts = vote_counts(left, right, outcome, n_systems=6)
    x, y = _glm_votes(left, right, outcome, 6, side=side)
    glm = sm.GLM(y, x, family=sm.families.Binomial())
    model_based = glm.fit(tol=1e-14)
    fit = bradley_terry(counts, side=side, anchor=0, base=1500.0)
    assert np.abs(fit.ratings[1:] - (1500 + ELO_PER_LOGIT * model_based.params[:5])).max() < 1e-6
    assert np.abs(fit.se[1:] - ELO_PER_LOGIT * model_based.bse[:5]).max() < 1e-6
    assert fit.se[0] == 0 and fit.ratings[0] == 1500.0
    robust = glm.fit(tol=1e-14, cov_type="HC0")
    errors = sandwich(counts, fit)
    assert np.abs(errors.se[1:] - ELO_PER_LOGIT * robust.bse[:5]).max() < 1e-6
    by_cluster = glm.fit(tol=1e-14, cov_type="cluster", cov_kwds={"groups": clusters, "use_correction": False})
    clustered = sandwich(cluster_counts(left, right, outcome, clusters, n_systems=6), fit)
    assert np.abs(clustered.se[1:] - ELO_PER_LOGIT * by_cluster.bse[:5]).max() < 1e-6
    if side:
        assert abs(fit.side - model_based.params[5]) < 1e-8
        assert abs(fit.side_se - model_based.bse[5]) < 1e-8
        assert abs(fit.side_p - model_based.pvalues[5]) < 1e-8
        assert abs(errors.side_se - robust.bse[5]) < 1e-8
        assert fit.side_z > 3  # the simulated bias, 0.3 logits over 3,000 votes
    else:
        assert fit.side is None and errors.side_se is None


def test_ratings_scale_and_constraint():
    left, right, outcome, _ = simulate(3)
    counts = vote_counts(left, right, outcome, n_systems=6)
    mean_fit, anchored = bradley_terry(counts), bradley_terry(counts, anchor=2, base=1200.0)
    assert abs(mean_fit.ratings.mean() - 1000) < 1e-9 and abs(mean_fit.theta.sum()) < 1e-12
    assert np.allclose(anchored.ratings - 1200, mean_fit.ratings - mean_fit.ratings[2], atol=1e-9)
    # the differences' errors do not depend on the constraint
    diff = np.array([1, -1, 0, 0, 0, 0.0])
    assert abs(diff @ mean_fit.covariance @ diff - diff @ anchored.covariance @ diff) < 1e-6
    p = win_probabilities(mean_fit)
    assert np.allclose(p + p.T, 1) and np.allclose(p[0, 1], 1 / (1 + np.exp(mean_fit.theta[1] - mean_fit.theta[0])))


def test_win_rates_pool_both_sides_and_halve_ties():
    counts = vote_counts([0, 1, 0, 1, 2], [1, 0, 1, 0, 0], [LEFT, LEFT, TIE, BOTH_BAD, RIGHT], n_systems=3)
    rates = win_rates(counts)
    # 0 against 1: one win, one loss, two ties -> (1 + 1) / 4; 0 against 2: one win of one
    assert rates[0, 1] == 0.5 and rates[1, 0] == 0.5 and rates[0, 2] == 1.0 and np.isnan(rates[1, 2])


def davidson_reference(counts, side):
    """Davidson's negative log-likelihood written out (theta_0 = 0), minimised by scipy."""
    k = counts.shape[0]
    i, j = np.nonzero(counts.sum(axis=2))
    w, lo, t = counts[i, j, LEFT], counts[i, j, RIGHT], counts[i, j, TIE] + counts[i, j, BOTH_BAD]

    def nll(params):
        theta = np.concatenate([[0.0], params[: k - 1]])
        gamma = params[k - 1] if side else 0.0
        nu = np.exp(params[-1])
        pi_i, pi_j = np.exp(theta[i] + gamma), np.exp(theta[j])
        denominator = pi_i + pi_j + nu * np.sqrt(pi_i * pi_j)
        return -np.sum(
            w * np.log(pi_i / denominator)
            + lo * np.log(pi_j / denominator)
            + t * np.log(nu * np.sqrt(pi_i * pi_j) / denominator)
        )

    davidson_reference.nll = nll
    start = np.zeros(k - 1 + int(side) + 1)
    found = optimize.minimize(nll, start, method="BFGS", options={"gtol": 1e-10, "maxiter": 10_000})
    found = optimize.minimize(
        nll, found.x, method="Nelder-Mead", options={"xatol": 1e-12, "fatol": 1e-14, "maxiter": 20_000}
    )
    return found.x, -found.fun


@pytest.mark.parametrize("side", [False, True])
def test_davidson_equals_a_direct_minimisation(side):
    left, right, outcome, _ = simulate(4, k=4, tie_share=0.3)
    counts = vote_counts(left, right, outcome, n_systems=4)
    params, log_likelihood = davidson_reference(counts, side)
    fit = davidson(counts, side=side, anchor=0)
    assert np.abs(fit.theta[1:] - params[:3]).max() < 1e-6
    assert abs(np.log(fit.nu) - params[-1]) < 1e-6
    assert fit.log_likelihood >= log_likelihood - 1e-9
    if side:
        assert abs(fit.side - params[3]) < 1e-6
    # the model-based errors: the inverse of the reference likelihood's Hessian by central differences
    nll, h, m = davidson_reference.nll, 1e-4, len(params)
    hessian = np.empty((m, m))
    for a in range(m):
        for b in range(m):
            ea, eb = np.eye(m)[a] * h, np.eye(m)[b] * h
            hessian[a, b] = (
                nll(params + ea + eb) - nll(params + ea - eb) - nll(params - ea + eb) + nll(params - ea - eb)
            ) / (4 * h * h)
    covariance = np.linalg.inv(hessian)
    assert np.allclose(fit.se[1:], ELO_PER_LOGIT * np.sqrt(np.diag(covariance))[:3], rtol=1e-5)
    if side:
        assert abs(fit.side_se - np.sqrt(covariance[3, 3])) < 1e-5 * fit.side_se
    # its sandwich with a correct model is close to the model-based error (3,000 votes)
    assert np.allclose(sandwich(counts, fit).se[1:], fit.se[1:], rtol=0.1)


def test_davidson_of_a_worked_table():
    # 10 ties and 10 decisive votes between equal systems: nu = 2 * ties / decisive = 2
    counts = vote_counts([0] * 20, [1] * 20, [LEFT] * 5 + [RIGHT] * 5 + [TIE] * 10, n_systems=2)
    fit = davidson(counts)
    assert abs(fit.nu - 2.0) < 1e-9 and np.allclose(fit.ratings, 1000.0)
    probabilities = win_probabilities(fit)
    assert abs(probabilities[0, 1] - 0.25) < 1e-9  # 1 / (1 + 1 + 2)


def test_a_system_that_never_loses_has_no_estimate():
    left, right, outcome, _ = simulate(5, k=4, n=400, tie_share=0.0)
    # system 3 wins every vote it is in
    outcome = np.where(right == 3, RIGHT, np.where(left == 3, LEFT, outcome))
    counts = vote_counts(left, right, outcome, n_systems=4)
    with pytest.raises(ValueError, match=r"systems \[3\] never lost"):
        bradley_terry(counts)
    with pytest.raises(ValueError, match="no votes"):
        bradley_terry(np.pad(counts, ((0, 1), (0, 1), (0, 0))))
    with pytest.raises(ValueError, match="nu needs some votes tied"):
        davidson(vote_counts([0, 1], [1, 0], [LEFT, LEFT], n_systems=2))


def test_side_term_without_a_finite_estimate():
    # every vote won by the left side, each pair shown both ways: the ratings are equal but gamma is infinite
    counts = vote_counts([0, 1, 0, 1], [1, 0, 1, 0], [LEFT] * 4, n_systems=2)
    assert abs(bradley_terry(counts).theta[0]) < 1e-12
    with pytest.raises(ValueError, match="side term run off to infinity"):
        bradley_terry(counts, side=True)


def test_rank_intervals_rule():
    lower, upper = rank_intervals([5, 0, 0, -10], [9, 6, 1, -8])
    assert lower.tolist() == [1, 1, 2, 4] and upper.tolist() == [2, 3, 3, 4]


def test_cluster_bootstrap_rounds_are_fits_of_the_drawn_clusters():
    left, right, outcome, clusters = simulate(6, n=800, clusters=15)
    cc = cluster_counts(left, right, outcome, clusters, n_systems=6)
    result = bootstrap(cc, side=True, resamples=5, seed=3)
    draws = np.random.default_rng(3).integers(0, 15, (5, 15))
    table = cc.table.toarray()
    for b in range(5):
        counts = table[draws[b]].sum(axis=0).reshape(6, 6, 4)
        assert np.abs(result.samples[b] - bradley_terry(counts, side=True).ratings).max() < 1e-7
    assert result.unit == "clusters" and result.failed == 0


def test_identical_clusters_give_no_spread():
    left, right, outcome, _ = simulate(7, n=300)
    many = np.tile(np.arange(300), 10)
    cc = cluster_counts(left[many], right[many], outcome[many], np.repeat(np.arange(10), 300), n_systems=6)
    result = bootstrap(cc, resamples=50)
    assert np.abs(result.upper - result.lower).max() < 1e-6
    assert np.abs(result.samples - result.fit.ratings).max() < 1e-6


def test_vote_bootstrap_spread_matches_the_sandwich():
    left, right, outcome, _ = simulate(8, n=20_000)
    counts = vote_counts(left, right, outcome, n_systems=6)
    result = bootstrap(counts, resamples=400, seed=0)
    robust = sandwich(counts, result.fit)
    # 400 rounds: the bootstrap's standard deviation within 15% of the robust error (seeded: no chance)
    assert np.allclose(np.nanstd(result.samples, axis=0, ddof=1), robust.se, rtol=0.15)
    assert result.failed == 0 and result.unit == "votes"
    assert (result.band_lower <= result.lower + 1e-9).all() and (result.band_upper >= result.upper - 1e-9).all()
    assert result.rank_lower.tolist() == [6, 5, 4, 3, 2, 1] and result.rank_upper.tolist() == [6, 5, 4, 3, 2, 1]
    again = bootstrap(counts, resamples=400, seed=0)
    assert np.array_equal(again.samples, result.samples)


def test_bootstrap_counts_rounds_without_an_estimate():
    left, right, outcome, _ = simulate(9, k=4, n=400)
    # one extra system with two votes: one won, one lost; a round often draws it winning both or neither
    counts = np.zeros((5, 5, 4), dtype=np.int64)
    counts[:4, :4] = vote_counts(left, right, outcome, n_systems=4)
    counts[4, 0, LEFT] = counts[4, 1, RIGHT] = 1
    result = bootstrap(counts, resamples=200)
    failed = np.isnan(result.samples[:, 0])
    assert result.failed == failed.sum() > 0
    assert np.isfinite(result.lower).all() and np.isnan(result.samples[failed]).all()


def test_settled_pairs_and_the_votes_that_settle_them():
    left, right, outcome, _ = simulate(10, k=6, n=300, side=0.0)
    counts = vote_counts(left, right, outcome, n_systems=6)
    fit = bradley_terry(counts)
    result = settled(fit)
    order = np.argsort(-fit.ratings)
    assert result.upper.tolist() == order[:-1].tolist() and result.lower.tolist() == order[1:].tolist()
    a, b = result.upper[0], result.lower[0]
    expected_se = np.sqrt(fit.covariance[a, a] + fit.covariance[b, b] - 2 * fit.covariance[a, b])
    assert abs(result.se[0] - expected_se) < 1e-9
    assert not result.settled.all()
    # counts multiplied keep the estimate and divide the covariance: the promised votes settle it, fewer do not
    p = int(np.flatnonzero(~result.settled)[0])
    factor = (fit.votes + result.more_votes[p]) / fit.votes
    assert settled(bradley_terry(counts * factor)).settled[p]
    assert not settled(bradley_terry(counts * (factor - 2 / fit.votes))).settled[p]
    robust = settled(fit, covariance=sandwich(counts, fit).covariance)
    assert not np.allclose(robust.se, result.se)


# --------------------------------------------------------------------------- active allocation


@pytest.mark.parametrize("side", [False, True])
def test_weighted_fit_equals_a_weighted_logistic_regression(side):
    left, right, outcome, _ = simulate(11)
    weights = np.random.default_rng(0).uniform(0.5, 5.0, len(left))
    x, y = _glm_votes(left, right, outcome, 6, side=side)
    # statsmodels' var_weights: the weighted likelihood, and HC0 scores w (y - mu) x: the IPW sandwich
    reference = sm.GLM(y, x, family=sm.families.Binomial(), var_weights=weights).fit(tol=1e-14, cov_type="HC0")
    counts = weighted_counts(left, right, outcome, weights, n_systems=6)
    fit = bradley_terry(counts, side=side, anchor=0)
    assert np.abs(fit.theta[1:] - reference.params[:5]).max() < 1e-6 / ELO_PER_LOGIT
    assert np.abs(fit.se[1:] - ELO_PER_LOGIT * reference.bse[:5]).max() < 1e-6
    assert np.abs(sandwich(counts, fit).se - fit.se).max() < 1e-9
    assert fit.votes == len(left)
    if side:
        assert abs(fit.side - reference.params[5]) < 1e-8 and abs(fit.side_se - reference.bse[5]) < 1e-8
    # weights scaled by a constant change nothing; unit weights are the plain fit with its sandwich
    scaled = bradley_terry(weighted_counts(left, right, outcome, weights * 7.5, n_systems=6), side=side, anchor=0)
    assert np.abs(scaled.ratings - fit.ratings).max() < 1e-8 and np.abs(scaled.se - fit.se).max() < 1e-8
    ones = weighted_counts(left, right, outcome, np.ones(len(left)), n_systems=6)
    plain = bradley_terry(vote_counts(left, right, outcome, n_systems=6), side=side, anchor=0)
    unit = bradley_terry(ones, side=side, anchor=0)
    assert np.abs(unit.ratings - plain.ratings).max() < 1e-9
    assert np.abs(unit.se - sandwich(vote_counts(left, right, outcome, n_systems=6), plain).se).max() < 1e-9


def test_weighted_counts_reject_bad_weights_and_the_bootstrap():
    for bad in ([1.0, 0.0], [1.0, np.inf], [1.0], ["a", "b"]):
        with pytest.raises(ValueError, match="^weights:"):
            weighted_counts([0, 1], [1, 0], [LEFT, LEFT], bad, n_systems=2)
    counts = weighted_counts([0, 1, 0], [1, 0, 1], [LEFT, LEFT, RIGHT], [1.0, 2.0, 3.0], n_systems=2)
    assert isinstance(counts, WeightedCounts)
    with pytest.raises(ValueError, match="use sandwich"):
        bootstrap(counts)


def test_active_weights_follow_the_papers_rule():
    left, right, outcome, _ = simulate(12, k=5, n=400, side=0.0)
    # the pair (3, 4) never compared
    keep = ~(((left == 3) & (right == 4)) | ((left == 4) & (right == 3)))
    counts = vote_counts(left[keep], right[keep], outcome[keep], n_systems=5)
    fit = bradley_terry(counts)
    a = active_weights(counts, fit, floor=0.2)
    assert a.first.tolist() == [0, 0, 0, 0, 1, 1, 1, 2, 2, 3] and a.second.tolist() == [1, 2, 3, 4, 2, 3, 4, 3, 4, 4]
    # by hand: each pair's votes both ways, the fitted expected score p, the pooled dispersion phi
    n = np.array([counts[i, j].sum() + counts[j, i].sum() for i, j in zip(a.first, a.second)], dtype=float)
    assert n[-1] == 0 and np.array_equal(a.votes, n)
    score = {LEFT: 1.0, RIGHT: 0.0, TIE: 0.5, BOTH_BAD: 0.5}
    p_vote = 1 / (1 + np.exp(-(fit.theta[left[keep]] - fit.theta[right[keep]])))
    h = np.array([score[o] for o in outcome[keep]])
    phi = ((h - p_vote) ** 2).sum() / (p_vote * (1 - p_vote)).sum()
    p = 1 / (1 + np.exp(-(fit.theta[a.first] - fit.theta[a.second])))
    sigma = phi * p * (1 - p)
    assert np.abs(a.sigma - sigma).max() < 1e-12
    m = np.maximum(n, 1)
    rule = np.sqrt(sigma / m) - np.sqrt(sigma / (m + 1))
    assert np.abs(a.reduction - rule).max() < 1e-12
    assert np.abs(a.probability - (0.8 * rule / rule.sum() + 0.2 / 10)).max() < 1e-12
    assert abs(a.probability.sum() - 1) < 1e-12 and a.probability.min() >= 0.02 - 1e-15
    # the never-compared pair: the largest narrowing, counted as one vote
    assert a.probability.argmax() == 9
    difference = active_weights(counts, fit, target="difference")
    assert np.abs(difference.sigma - phi / (p * (1 - p))).max() < 1e-9


def test_active_weights_adjacent_equals_a_refit_of_the_information():
    left, right, outcome, _ = simulate(13, k=5, n=600, side=0.0)
    counts = vote_counts(left, right, outcome, n_systems=5)
    fit = bradley_terry(counts)
    a = active_weights(counts, fit, target="adjacent", floor=1e-9)
    sigma = active_weights(counts, fit, target="difference").sigma
    # brute force: the logits' information (anchored at system 0) plus one vote of precision 1 / sigma
    cov = np.linalg.inv(np.delete(np.delete(np.linalg.pinv(fit.covariance / ELO_PER_LOGIT**2), 0, 0), 0, 1))
    info = np.linalg.inv(cov)
    order = np.argsort(-fit.ratings)
    contrasts = np.zeros((4, 5))
    contrasts[np.arange(4), order[:-1]] += 1
    contrasts[np.arange(4), order[1:]] -= 1
    contrasts = contrasts[:, 1:]

    def adjacent_se(c):
        return np.sqrt(np.einsum("ij,jk,ik->i", contrasts, c, contrasts))

    for m, (i, j) in enumerate(zip(a.first, a.second)):
        x = np.zeros(5)
        x[i], x[j] = 1, -1
        x = x[1:]
        after = np.linalg.inv(info + np.outer(x, x) / sigma[m])
        assert abs(a.reduction[m] - (adjacent_se(cov) - adjacent_se(after)).sum()) < 1e-9
    assert np.isnan(a.sigma).all()


def _adjacent_variance(theta, w):
    """The sum of the adjacent differences' variances per vote under design ``w``, by brute force."""
    k = len(theta)
    first, second = np.triu_indices(k, 1)
    m = np.zeros((k, k))
    for share, i, j in zip(w, first, second):
        x = np.zeros(k)
        x[i], x[j] = 1, -1
        p = 1 / (1 + np.exp(-(theta[i] - theta[j])))
        m += share * p * (1 - p) * np.outer(x, x)
    order = np.argsort(-theta)
    c = np.zeros((k - 1, k))
    c[np.arange(k - 1), order[:-1]] = 1
    c[np.arange(k - 1), order[1:]] = -1
    return float(np.trace(c @ np.linalg.pinv(m) @ c.T))


def test_the_adjacent_design_is_the_optimum_a_general_solver_finds():
    """The multiplicative algorithm's design equals scipy's constrained minimum of the
    A-criterion over the simplex, and beats uniform and random designs."""
    rng = np.random.default_rng(5)
    theta = np.array([1.2, 0.5, 0.1, -0.4, -1.4])
    w = adjacent_design(theta)
    pairs = len(w)
    found = optimize.minimize(
        lambda v: _adjacent_variance(theta, np.abs(v) / np.abs(v).sum()),
        np.full(pairs, 1 / pairs),
        method="Nelder-Mead",
        options={"maxiter": 40_000, "maxfev": 40_000, "xatol": 1e-10, "fatol": 1e-12},
    )
    best = _adjacent_variance(theta, np.abs(found.x) / np.abs(found.x).sum())
    ours = _adjacent_variance(theta, w)
    assert ours <= best * (1 + 2e-4)  # stopped within DESIGN_TOLERANCE of the optimum
    assert abs(ours - best) / best < 1e-3
    assert ours < 0.9 * _adjacent_variance(theta, np.full(pairs, 1 / pairs))
    for _ in range(50):
        assert ours <= _adjacent_variance(theta, rng.dirichlet(np.ones(pairs)))
    # the design target draws in proportion to the design, mixed with the floor
    left, right, outcome, _ = simulate(13, k=5, n=600, side=0.0)
    counts = vote_counts(left, right, outcome, n_systems=5)
    fit = bradley_terry(counts)
    a = active_weights(counts, fit, target="design", floor=0.2)
    assert np.allclose(a.reduction, adjacent_design(fit.theta), atol=1e-12)
    assert np.allclose(a.probability, 0.8 * a.reduction + 0.2 / pairs, atol=1e-12)


def test_active_weights_name_the_bad_argument():
    counts = vote_counts([0, 1, 1, 2, 2, 0], [1, 0, 2, 1, 0, 2], [LEFT] * 6, n_systems=3)
    fit = bradley_terry(counts)
    with pytest.raises(ValueError, match="^target:"):
        active_weights(counts, fit, target="ranks")
    for floor in (0, 1.5, -0.1):
        with pytest.raises(ValueError, match="^floor:"):
            active_weights(counts, fit, floor=floor)
    with pytest.raises(ValueError, match="^counts:"):
        active_weights(np.zeros((4, 4, 4)), fit)
    with pytest.raises(ValueError, match="^covariance:"):
        active_weights(counts, fit, target="adjacent", covariance=np.eye(2))


# --------------------------------------------------------------------------- raters


def rated_votes(seed, *, prompts=30, raters=6, per_unit=3, repeats=40, k=4):
    """Units (prompt, pair); ``per_unit`` raters each, shown sides at random; some units judged again."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(-1, 1, k)
    rows = []
    for prompt in range(prompts):
        a, b = rng.choice(k, 2, replace=False)
        for rater in rng.choice(raters, per_unit, replace=False):
            rows.append((prompt, a, b, rater))
    rows += [rows[i] for i in rng.choice(len(rows), repeats)]
    prompt, a, b, rater = (np.array(c) for c in zip(*rows))
    swap = rng.random(len(rows)) < 0.5
    left, right = np.where(swap, b, a), np.where(swap, a, b)
    p = 1 / (1 + np.exp(-(theta[left] - theta[right])))
    u = rng.random(len(rows))
    outcome = np.where(u < 0.15, TIE, np.where(u < 0.2, BOTH_BAD, np.where(rng.random(len(rows)) < p, LEFT, RIGHT)))
    return left, right, outcome, rater, prompt


def test_rater_agreement_equals_krippendorff_and_statsmodels():
    """Both coefficients count every unit as itself and as its mirror (first and second system
    swapped), so the references are given the reliability data with each unit's mirror beside it:
    the values differ from those of the units alone, whose chance agreement depends on which
    system of each pair is numbered first."""
    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa

    left, right, outcome, raters, prompts = rated_votes(20)
    result = rater_agreement(left, right, outcome, raters, prompts, n_systems=4)
    # by hand: each rater's first vote per unit, outcome in the pair's orientation (lower system first)
    first_seen = {}
    for lft, rgt, o, r, p in zip(left, right, outcome, raters, prompts):
        unit = (p, min(lft, rgt), max(lft, rgt))
        code = 2 if o in (TIE, BOTH_BAD) else int((o == LEFT) == (lft < rgt)) ^ 1
        first_seen.setdefault((unit, r), code)
    units = sorted({u for u, _ in first_seen})
    data = np.full((6, len(units)), np.nan)
    for (unit, r), code in first_seen.items():
        data[r, units.index(unit)] = code
    mirror = np.where(np.isnan(data), np.nan, np.choose(np.nan_to_num(data).astype(int), [1, 0, 2]))
    both = np.concatenate([data, mirror], axis=1)
    assert result.units == len(units) == 30 and result.pairable == 30
    assert abs(result.krippendorff.value - krippendorff.alpha(both, level_of_measurement="nominal")) < 1e-9
    # every unit has three raters: statsmodels' Fleiss on the units x categories counts
    table = np.stack([(both == c).sum(axis=0) for c in range(3)], axis=1)
    assert (table.sum(axis=1) == 3).all() and result.fleiss_units == 30 and result.fleiss_raters == 3
    assert abs(result.fleiss.value - fleiss_kappa(table, method="fleiss")) < 1e-9
    # the same votes with the systems numbered the other way round: the same coefficients
    flipped = rater_agreement(3 - left, 3 - right, outcome, raters, prompts, n_systems=4)
    assert abs(flipped.krippendorff.value - result.krippendorff.value) < 1e-12
    assert abs(flipped.fleiss.value - result.fleiss.value) < 1e-12


def test_fleiss_kappa_is_over_the_units_with_the_commonest_number_of_raters():
    # three units of 2 raters, one of 3: Fleiss' kappa over the three (and their mirrors)
    from statsmodels.stats.inter_rater import fleiss_kappa

    left = [0, 0, 0, 1, 0, 0, 0, 0, 1]
    right = [1, 1, 1, 0, 1, 1, 1, 1, 0]
    outcome = [LEFT, LEFT, RIGHT, RIGHT, LEFT, TIE, LEFT, LEFT, LEFT]
    raters = [0, 1, 0, 1, 0, 1, 0, 1, 2]
    prompts = [0, 0, 1, 1, 2, 2, 3, 3, 3]
    result = rater_agreement(left, right, outcome, raters, prompts, n_systems=2)
    assert (result.fleiss_units, result.fleiss_raters, result.pairable) == (3, 2, 4)
    table = np.array([[2, 0, 0], [1, 1, 0], [1, 0, 1]])  # prompts 0, 1 (split, sides swapped), 2 (a tie)
    expected = fleiss_kappa(np.concatenate([table, table[:, [1, 0, 2]]]), method="fleiss")
    assert abs(result.fleiss.value - expected) < 1e-12


def test_canonical_outcomes_do_not_depend_on_the_sides_shown():
    first, second, code = canonical_outcomes(
        [3, 1, 1, 3, 3], [1, 3, 3, 1, 1], [LEFT, RIGHT, LEFT, TIE, BOTH_BAD], n_systems=4
    )
    assert first.tolist() == [1] * 5 and second.tolist() == [3] * 5
    # 3 shown left and preferred, 3 shown right and preferred: both SECOND; 1 preferred: FIRST
    assert code.tolist() == [SECOND, SECOND, FIRST, EVEN, EVEN]


def test_self_consistency_counts_repeats_against_the_first_judgment():
    # rater 7: unit (prompt 0, pair 0-1) judged 4 times (first FIRST; then FIRST from the other side, SECOND, tie);
    # unit (prompt 1, pair 0-1) twice, the same; rater 2: one vote, no repeats
    left = [0, 1, 0, 0, 0, 0, 0]
    right = [1, 0, 1, 1, 1, 1, 1]
    outcome = [LEFT, RIGHT, RIGHT, TIE, LEFT, LEFT, RIGHT]
    raters = [7, 7, 7, 7, 7, 7, 2]
    prompts = [0, 0, 0, 0, 1, 1, 0]
    c = rater_agreement(left, right, outcome, raters, prompts, n_systems=2).consistency
    assert c.rater.tolist() == [2, 7]
    assert c.repeats.tolist() == [0, 4] and c.agree.tolist() == [0, 2] and c.units.tolist() == [0, 2]
    assert np.isnan(c.share[0]) and np.isnan(c.lower[0]) and c.share[1] == 0.5
    from statsmodels.stats.proportion import proportion_confint

    lower, upper = proportion_confint(2, 4, alpha=0.05, method="wilson")
    assert abs(c.lower[1] - lower) < 1e-12 and abs(c.upper[1] - upper) < 1e-12


def test_rater_agreement_names_the_bad_argument():
    with pytest.raises(ValueError, match="^raters:"):
        rater_agreement([0], [1], [LEFT], [0.5], [0], n_systems=2)
    with pytest.raises(ValueError, match="^prompts:"):
        rater_agreement([0], [1], [LEFT], [0], [-1], n_systems=2)
    with pytest.raises(ValueError, match="^outcome:"):
        rater_agreement([0], [1], [5], [0], [0], n_systems=2)


# --------------------------------------------------------------------------- two leaderboards


def test_compare_leaderboards_against_scipy_and_by_hand():
    from scipy.stats import kendalltau

    rng = np.random.default_rng(30)
    k, n = 7, 4000
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    people_theta = np.linspace(-1, 1, k)
    judge_theta = people_theta[[0, 2, 1, 3, 4, 6, 5]] + np.array([0, 0, 0, 0, 0, 0.02, 0])

    def votes(theta):
        return np.where(rng.random(n) < 1 / (1 + np.exp(-(theta[left] - theta[right]))), LEFT, RIGHT)

    people = bootstrap(vote_counts(left, right, votes(people_theta), n_systems=k), resamples=120, seed=1)
    judge = bootstrap(vote_counts(left, right, votes(judge_theta), n_systems=k), resamples=120, seed=2)
    c = compare_leaderboards(people, judge)
    assert abs(c.tau - kendalltau(people.fit.ratings, judge.fit.ratings).statistic) < 1e-12
    per_round = [kendalltau(a, b).statistic for a, b in zip(people.samples, judge.samples)]
    lower, upper = np.quantile(per_round, [0.025, 0.975])
    assert c.rounds == 120 and abs(c.lower - lower) < 1e-12 and abs(c.upper - upper) < 1e-12
    expected = set()
    for i in range(k):
        for j in range(k):
            if people.fit.ratings[i] > people.fit.ratings[j] and judge.fit.ratings[i] < judge.fit.ratings[j]:
                expected.add((i, j))
    assert set(zip(c.first.tolist(), c.second.tolist())) == expected and len(expected) >= 1
    assert (c.difference > 0).all() and (c.other_difference < 0).all()
    assert (np.diff(c.difference) <= 0).all()
    for m, (i, j) in enumerate(zip(c.first, c.second)):
        lo, hi = np.quantile(people.samples[:, i] - people.samples[:, j], [0.025, 0.975])
        assert c.settled[m] == (lo > 0 or hi < 0)
        lo, hi = np.quantile(judge.samples[:, i] - judge.samples[:, j], [0.025, 0.975])
        assert c.other_settled[m] == (lo > 0 or hi < 0)


def test_compare_leaderboards_over_the_shared_systems():
    """A judge that rated four of the people's five systems: the comparison over those four, in
    the people's order, equals the comparison of the two leaderboards cut to them."""
    from scipy.stats import kendalltau

    rng = np.random.default_rng(31)
    n = 3000
    left = rng.integers(0, 5, n)
    right = (left + rng.integers(1, 5, n)) % 5
    theta = np.linspace(-1, 1, 5)
    people_votes = np.where(rng.random(n) < 1 / (1 + np.exp(-(theta[left] - theta[right]))), LEFT, RIGHT)
    people = bootstrap(vote_counts(left, right, people_votes, n_systems=5), resamples=60, seed=1)
    # the judge's systems 0..3 are the people's 4, 2, 1, 3 (the people's system 0 it never saw)
    mine = np.array([4, 2, 1, 3])
    jl = rng.integers(0, 4, n)
    jr = (jl + rng.integers(1, 4, n)) % 4
    judge_theta = theta[mine] + np.array([0, 0.7, 0, 0])  # people's 2 above their 3
    judge_votes = np.where(rng.random(n) < 1 / (1 + np.exp(-(judge_theta[jl] - judge_theta[jr]))), LEFT, RIGHT)
    judge = bootstrap(vote_counts(jl, jr, judge_votes, n_systems=4), resamples=60, seed=2)
    shared = [1, 2, 3, 4]  # the people's systems the judge rated
    c = compare_leaderboards(people, judge, systems=shared, other_systems=[2, 1, 3, 0])
    a, b = people.fit.ratings[shared], judge.fit.ratings[[2, 1, 3, 0]]
    assert abs(c.tau - kendalltau(a, b).statistic) < 1e-12
    per_round = [kendalltau(x, y).statistic for x, y in zip(people.samples[:, shared], judge.samples[:, [2, 1, 3, 0]])]
    lower, upper = np.quantile(per_round, [0.025, 0.975])
    assert c.rounds == 60 and abs(c.lower - lower) < 1e-12 and abs(c.upper - upper) < 1e-12
    expected = {(i, j) for i in range(4) for j in range(4) if a[i] > a[j] and b[i] < b[j]}
    assert set(zip(c.first.tolist(), c.second.tolist())) == expected and len(expected) >= 1
    # a fit without a bootstrap: the tau and the pairs, no interval, nothing settled
    alone = compare_leaderboards(people.fit, judge, systems=shared, other_systems=[2, 1, 3, 0])
    assert isinstance(people.fit, PreferenceFit) and alone.tau == c.tau and alone.rounds == 0
    assert np.isnan(alone.lower) and not alone.settled.any() and alone.first.tolist() == c.first.tolist()


def test_compare_leaderboards_needs_the_same_systems():
    counts = vote_counts([0, 1, 1, 2, 2, 0], [1, 0, 2, 1, 0, 2], [LEFT] * 6, n_systems=3)
    three = bootstrap(counts, resamples=10)
    four = bootstrap(
        vote_counts([0, 1, 2, 3] * 2, [1, 2, 3, 0] * 2, [LEFT] * 4 + [RIGHT] * 4, n_systems=4), resamples=10
    )
    with pytest.raises(ValueError, match="^other:"):
        compare_leaderboards(three, four)
    with pytest.raises(ValueError, match="^level:"):
        compare_leaderboards(three, three, level=1.0)
    with pytest.raises(ValueError, match="^systems, other_systems:"):
        compare_leaderboards(three, four, systems=[0, 1], other_systems=[0, 1, 2])
    with pytest.raises(ValueError, match="^other_systems:"):
        compare_leaderboards(three, four, systems=[0, 1], other_systems=[0, 4])
    with pytest.raises(ValueError, match="^systems:"):
        compare_leaderboards(three, four, systems=[1, 1], other_systems=[0, 2])
