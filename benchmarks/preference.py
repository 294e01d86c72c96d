"""Benchmark: a pairwise-preference leaderboard (stats.preference): interval coverage and cost.

Coverage. Known strengths: ``--systems`` (10) systems with logits evenly
spread over [-1, 1], ``--votes`` (3,000) votes per replication, each between
two different systems drawn at random, shown in a random order, from one of
50 raters; ``--replications`` (200) replications, seeded. Two scenarios:

- Bradley-Terry with a position bias of 0.2 logits for the left side, no
  ties: ``bradley_terry(counts, side=True)``;
- Davidson with ``nu = 1`` (a third of the votes between equal systems are
  ties), no side term: ``davidson(counts)``.

For each, the share of intervals holding the true rating (mean constraint,
pooled over systems) for every method: the model-based Wald interval
(``fit.se``), the sandwich over votes and over raters, the percentile
bootstrap over votes and over raters (``--resamples``, 1,000); the share of
replications whose simultaneous band holds every true rating at once
(``band``), and whose rank intervals hold every true rank (``ranks``); and
the side term's Wald and bootstrap intervals. The goal is at least 0.93 for
95%; with 200 replications the Monte Carlo standard error of a pooled
coverage near 0.95 is under 0.5 points (2,000 intervals), of a joint one 1.5.

Cost. 1,000,000 votes among 100 systems (normal logits, sd 1, 10% ties):
``vote_counts`` plus ``bootstrap(counts, resamples=1000)`` (the fit and 1,000
rounds), against FastChat's leaderboard code (Chiang et al. 2024; its
``compute_mle_elo`` and ``get_bootstrap_result``, transcribed in
:func:`fastchat_round`): each round resamples the votes' rows with pandas,
pivots them into win tables and fits scikit-learn's unpenalised
``LogisticRegression``. The reference runs ``--reference-rounds`` (3) rounds
and is extrapolated to 1,000 (so said in its line); its full-data fit is
compared with Concord's (``max_difference``, Elo points; scikit-learn stops at
``tol=1e-6``).

Run from the project root: ``python -m benchmarks.preference`` (a few
minutes of CPU), ``--skip-cost`` or ``--skip-coverage`` for one part.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import special

from benchmarks._harness import measure, print_result, print_table
from stats.preference import (
    BOTH_BAD,
    ELO_PER_LOGIT,
    LEFT,
    RIGHT,
    TIE,
    bootstrap,
    bradley_terry,
    cluster_counts,
    davidson,
    sandwich,
    vote_counts,
)

SEED = 2026
RATERS = 50
Z = float(special.ndtri(0.975))


def simulate(rng, theta, n, *, side=0.0, nu=None, tie_share=0.0):
    k = len(theta)
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    d = theta[left] - theta[right] + side
    u = rng.random(n)
    if nu is not None:  # Davidson: win e^{d/2} / D, loss e^{-d/2} / D, tie nu / D
        denominator = np.exp(d / 2) + np.exp(-d / 2) + nu
        win, loss = np.exp(d / 2) / denominator, np.exp(-d / 2) / denominator
        outcome = np.where(u < win, LEFT, np.where(u < win + loss, RIGHT, TIE))
    else:
        outcome = np.where(u < special.expit(d), LEFT, RIGHT)
        if tie_share:
            outcome = np.where(rng.random(n) < tie_share, np.where(rng.random(n) < 0.5, TIE, BOTH_BAD), outcome)
    return left, right, outcome, rng.integers(0, RATERS, n)


def coverage(args) -> dict[str, float]:
    rng = np.random.default_rng(SEED)
    k = args.systems
    theta = np.linspace(-1, 1, k)
    truth = 1000 + ELO_PER_LOGIT * (theta - theta.mean())
    true_rank = k - np.argsort(np.argsort(theta))
    scenarios = {"bradley-terry": dict(side=0.2), "davidson": dict(nu=1.0)}
    hits: dict[tuple[str, str], list[float]] = {}

    def count(scenario, method, covered):
        hits.setdefault((scenario, method), []).extend(np.atleast_1d(covered).astype(float).tolist())

    for _ in range(args.replications):
        for scenario, how in scenarios.items():
            left, right, outcome, raters = simulate(rng, theta, args.votes, **how)
            counts = vote_counts(left, right, outcome, n_systems=k)
            clusters = cluster_counts(left, right, outcome, raters, n_systems=k)
            side = scenario == "bradley-terry"
            fit = bradley_terry(counts, side=True) if side else davidson(counts)

            def wald(se, fit=fit):
                return np.abs(fit.ratings - truth) <= Z * se

            count(scenario, "Wald (model)", wald(fit.se))
            count(scenario, "sandwich, votes", wald(sandwich(counts, fit).se))
            count(scenario, "sandwich, raters", wald(sandwich(clusters, fit).se))
            for unit, data in (("votes", counts), ("raters", clusters)):
                b = bootstrap(data, model=fit.model, side=side, resamples=args.resamples, seed=int(rng.integers(2**31)))
                count(scenario, f"bootstrap, {unit}", (b.lower <= truth) & (truth <= b.upper))
                count(scenario, f"band, {unit} (joint)", ((b.band_lower <= truth) & (truth <= b.band_upper)).all())
                count(
                    scenario,
                    f"ranks, {unit} (joint)",
                    ((b.rank_lower <= true_rank) & (true_rank <= b.rank_upper)).all(),
                )
                if side:
                    count(scenario, f"side term bootstrap, {unit}", b.side_lower <= 0.2 <= b.side_upper)
            if side:
                count(scenario, "side term Wald", abs(fit.side - 0.2) <= Z * fit.side_se)
    rows = [[scenario, method, len(v), float(np.mean(v))] for (scenario, method), v in hits.items()]
    print_table(["model", "interval", "intervals", "coverage"], rows)
    return {f"{s}|{m}": float(np.mean(v)) for (s, m), v in hits.items()}


def fastchat_round(battles, scale=400, base=10, init_rating=1000):
    """FastChat's ``compute_mle_elo`` (fastchat/serve/monitor/elo_analysis.py), transcribed:
    win tables by pandas pivots, ties (and both bad) half a win each way, one unpenalised
    logistic regression on the table's rows."""
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    ptbl_a_win = pd.pivot_table(
        battles[battles["winner"] == "model_a"], index="model_a", columns="model_b", aggfunc="size", fill_value=0
    )
    ties = battles[battles["winner"].isin(["tie", "tie (bothbad)"])]
    ptbl_tie = pd.pivot_table(ties, index="model_a", columns="model_b", aggfunc="size", fill_value=0)
    ptbl_tie = ptbl_tie + ptbl_tie.T
    ptbl_b_win = pd.pivot_table(
        battles[battles["winner"] == "model_b"], index="model_a", columns="model_b", aggfunc="size", fill_value=0
    )
    ptbl_win = ptbl_a_win * 2 + ptbl_b_win.T * 2 + ptbl_tie
    models = pd.Series(np.arange(len(ptbl_win.index)), index=ptbl_win.index)
    p = len(models)
    x = np.zeros([p * (p - 1) * 2, p])
    y = np.zeros(p * (p - 1) * 2)
    row = 0
    sample_weights = []
    for m_a in ptbl_win.index:
        for m_b in ptbl_win.columns:
            if m_a == m_b:
                continue
            if math.isnan(ptbl_win.loc[m_a, m_b]) or math.isnan(ptbl_win.loc[m_b, m_a]):
                continue
            x[row, models[m_a]] = +math.log(base)
            x[row, models[m_b]] = -math.log(base)
            y[row] = 1.0
            sample_weights.append(ptbl_win.loc[m_a, m_b])
            x[row + 1, models[m_a]] = math.log(base)
            x[row + 1, models[m_b]] = -math.log(base)
            y[row + 1] = 0.0
            sample_weights.append(ptbl_win.loc[m_b, m_a])
            row += 2
    x, y = x[:row], y[:row]
    # FastChat passes penalty=None; scikit-learn 1.9 spells the same unpenalised fit C=inf
    lr = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-6)
    lr.fit(x, y, sample_weight=sample_weights)
    return pd.Series(scale * lr.coef_[0] + init_rating, index=models.index)


def cost(args) -> dict[str, float]:
    import pandas as pd

    rng = np.random.default_rng(SEED + 1)
    k, n = args.big_systems, args.big_votes
    theta = rng.normal(0, 1, k)
    left, right, outcome, _ = simulate(rng, theta, n, tie_share=0.1)

    def ours():
        return bootstrap(vote_counts(left, right, outcome, n_systems=k), resamples=args.big_resamples, seed=0)

    timed = measure(ours, repeat=1, trace_memory=False)
    traced = measure(ours, repeat=1, trace_memory=True)
    result = timed.value
    names = np.array([f"system-{i:03d}" for i in range(k)])
    winner = np.array(["model_a", "model_b", "tie", "tie (bothbad)"])[outcome]
    battles = pd.DataFrame({"model_a": names[left], "model_b": names[right], "winner": winner})
    start = time.perf_counter()
    full = fastchat_round(battles)
    full_seconds = time.perf_counter() - start
    difference = float(np.abs(full.reindex(names).to_numpy() - result.fit.ratings).max())
    start = time.perf_counter()
    for r in range(args.reference_rounds):
        fastchat_round(battles.sample(frac=1.0, replace=True, random_state=r))
    per_round = (time.perf_counter() - start) / args.reference_rounds
    reference = full_seconds + per_round * args.big_resamples
    print(
        f"\n{n:,} votes, {k} systems, {args.big_resamples} bootstrap rounds: Concord {timed.seconds:.2f} s "
        f"({traced.peak_mb:.0f} MB traced, {result.failed} rounds without an estimate); FastChat's loop "
        f"{per_round:.2f} s a round, measured on {args.reference_rounds} rounds and extrapolated: {reference:.0f} s "
        f"({reference / timed.seconds:.0f}x); full-data ratings differ by {difference:.2g} Elo at most"
    )
    return dict(seconds=timed.seconds, reference=reference, peak=traced.peak_mb, difference=difference)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=200)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--votes", type=int, default=3000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--big-votes", type=int, default=1_000_000)
    parser.add_argument("--big-systems", type=int, default=100)
    parser.add_argument("--big-resamples", type=int, default=1000)
    parser.add_argument("--reference-rounds", type=int, default=3)
    parser.add_argument("--skip-coverage", action="store_true")
    parser.add_argument("--skip-cost", action="store_true")
    args = parser.parse_args()
    found = {} if args.skip_coverage else coverage(args)
    spent = None if args.skip_cost else cost(args)
    more = {}
    if found:
        more["min_coverage"] = min(v for key, v in found.items() if "joint" not in key)
        more["min_joint_coverage"] = min(v for key, v in found.items() if "joint" in key)
    if spent:
        more["max_difference"] = spent["difference"]
        print_result(
            "preference",
            seconds=spent["seconds"],
            reference_seconds=spent["reference"],
            peak_mb=spent["peak"],
            **more,
        )
    else:
        print_result("preference", seconds=0.0, reference_seconds=0.0, peak_mb=0.0, **more)


if __name__ == "__main__":
    main()
