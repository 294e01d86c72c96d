"""Benchmark: a pairwise-preference leaderboard (kinds.preference.stats): interval coverage and cost.

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

Active allocation (``kinds.preference.stats.active_weights``, Chiang et al. 2024,
section 5, eq. 9) against uniform allocation, on a sequential run of votes:
``--active-systems`` (20) systems with logits evenly spread over [-1.5, 1.5]
(about the span of the paper's Figure 5 fitted coefficients, 2.5 over 28
models), no ties, each vote's sides at random; ``--active-replications`` (50)
seeded runs of ``--active-budget`` (20,000) votes. Uniform: every pair of
systems equally likely. Active: the first ``2 x pairs`` votes uniform (so a fit
exists), then the pair drawn by ``active_weights`` (floor 0.1) recomputed from
a fit of the votes so far every ``--active-batch`` (100) votes; each vote keeps
its probability, and the leaderboard is the inverse-probability weighted fit
(``weighted_counts``, eq. 7) with its sandwich errors. Rules: ``win-rate`` (the
paper's Sigma), ``difference`` (Sigma of the pair's logit difference) and
``adjacent`` (the same principle aimed at the leaderboard's adjacent pairs; not
the paper's).

Precision, read every 500 votes: the mean over the 19 truly adjacent pairs of
the width of the 95% interval of their rating difference (sandwich); and, for
the target eq. 9 is built for, the mean over all pairs of the width of the 95%
interval of the pair's own win rate, ``2 z sqrt(p (1 - p) / n)`` with the true
``p`` (as the paper's section 7.1 reads the win matrix). Target: uniform's
mean precision at half the budget (10,000 votes). Votes needed: the sustained
crossing of ``benchmarks.adaptive.sustained`` (the first vote count after which
the width stays at or below the target, linear between reads), per run, then
averaged; ``ratio`` = active / uniform (the goal: at most 0.65). At the budget,
the weighted fit's bias (the mean over runs of each system's error against the
true rating, mean constraint) and the coverage of its 95% sandwich intervals
(every system's rating, and the adjacent differences).

Run from the project root: ``python -m benchmarks.preference`` (a few
minutes of CPU), ``--skip-cost``, ``--skip-coverage`` or ``--skip-active``
for fewer parts.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import special

from benchmarks._harness import measure, print_result, print_table
from benchmarks.adaptive import sustained
from kinds.preference.stats import (
    BOTH_BAD,
    ELO_PER_LOGIT,
    LEFT,
    RIGHT,
    TIE,
    active_weights,
    adjacent_design,
    bootstrap,
    bradley_terry,
    cluster_counts,
    davidson,
    sandwich,
    vote_counts,
    weighted_counts,
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


ACTIVE_RULES = ("uniform", "win-rate", "difference", "adjacent", "design", "oracle")
#: The rules whose leaderboard is read on the unweighted fit: the design targets the Bradley-Terry
#: fit itself, whose likelihood an allocation that depends only on past votes leaves unchanged;
#: the oracle (the design at the true strengths from the first vote, no floor) is the ceiling:
#: what no allocation rule can beat here.
UNWEIGHTED_RULES = ("design", "oracle")


def active_run(args, rule: str, seed: int) -> dict[str, np.ndarray]:
    """One sequential run: precision read every ``READ`` votes, and the final fit's errors."""
    rng = np.random.default_rng(seed)
    k = args.active_systems
    theta = np.linspace(-1.5, 1.5, k)
    truth = ELO_PER_LOGIT * (theta - theta.mean())
    first, second = np.triu_indices(k, 1)
    pairs = len(first)
    adjacent = np.argsort(-theta)
    up, down = adjacent[:-1], adjacent[1:]
    p_true = special.expit(theta[first] - theta[second])
    left = np.empty(args.active_budget, dtype=np.int64)
    right = np.empty_like(left)
    outcome = np.empty_like(left)
    weight = np.empty(args.active_budget)
    probability = np.full(pairs, 1 / pairs)
    if rule == "oracle":
        probability = adjacent_design(theta)
    reads: dict[str, list[float]] = {"votes": [], "adjacent": [], "adjacent_unweighted": [], "win_rate": []}
    n = 0
    while n < args.active_budget:
        if rule not in ("uniform", "oracle") and n >= 2 * pairs:
            counts = vote_counts(left[:n], right[:n], outcome[:n], n_systems=k)
            try:
                probability = active_weights(counts, bradley_terry(counts), target=rule).probability
            except ValueError:  # no finite fit yet: keep the last draw
                pass
        size = min(args.active_batch, args.active_budget - n)
        drawn = rng.choice(pairs, size=size, p=probability)
        swap = rng.random(size) < 0.5
        a, b = np.where(swap, second[drawn], first[drawn]), np.where(swap, first[drawn], second[drawn])
        left[n : n + size], right[n : n + size] = a, b
        outcome[n : n + size] = np.where(rng.random(size) < special.expit(theta[a] - theta[b]), LEFT, RIGHT)
        weight[n : n + size] = 1 / probability[drawn]
        n += size
        if n % READ == 0:
            plain = vote_counts(left[:n], right[:n], outcome[:n], n_systems=k)
            weighted = weighted_counts(left[:n], right[:n], outcome[:n], weight[:n], n_systems=k)
            votes = (plain.sum(axis=2) + plain.sum(axis=2).T)[first, second]
            reads["votes"].append(n)
            reads["win_rate"].append(float(np.mean(2 * Z * np.sqrt(p_true * (1 - p_true) / np.maximum(votes, 1)))))
            for name, data in (("adjacent", weighted), ("adjacent_unweighted", plain)):
                try:
                    fit = bradley_terry(data)
                    cov = fit.covariance if name == "adjacent" else sandwich(data, fit).covariance
                    var = cov[up, up] + cov[down, down] - 2 * cov[up, down]
                    reads[name].append(float(np.mean(2 * Z * np.sqrt(var))))
                except ValueError:
                    reads[name].append(float("inf"))
    out = {key: np.asarray(v, dtype=float) for key, v in reads.items()}
    final = bradley_terry(weighted_counts(left, right, outcome, weight, n_systems=k))
    out["error"] = final.ratings - 1000 - truth
    out["covered"] = np.abs(out["error"]) <= Z * final.se
    cov = final.covariance
    diff_se = np.sqrt(cov[up, up] + cov[down, down] - 2 * cov[up, down])
    diff_error = (final.ratings[up] - final.ratings[down]) - (truth[up] - truth[down])
    out["diff_covered"] = np.abs(diff_error) <= Z * diff_se
    plain = vote_counts(left, right, outcome, n_systems=k)
    fit = bradley_terry(plain)
    cov = sandwich(plain, fit).covariance
    out["plain_error"] = fit.ratings - 1000 - truth
    out["plain_covered"] = np.abs(out["plain_error"]) <= Z * np.sqrt(np.diag(cov))
    diff_se = np.sqrt(cov[up, up] + cov[down, down] - 2 * cov[up, down])
    diff_error = (fit.ratings[up] - fit.ratings[down]) - (truth[up] - truth[down])
    out["plain_diff_covered"] = np.abs(diff_error) <= Z * diff_se
    return out


def active(args) -> dict[str, float]:
    runs = {
        rule: [active_run(args, rule, SEED + 7 * r) for r in range(args.active_replications)] for rule in ACTIVE_RULES
    }
    half = args.active_budget // 2
    found: dict[str, float] = {}
    rows = []
    for measure_name in ("adjacent", "win_rate"):
        uniform_curves = np.array([r[measure_name] for r in runs["uniform"]])
        votes = runs["uniform"][0]["votes"]
        target = float(uniform_curves[:, np.searchsorted(votes, half)].mean())
        reach = {}
        for rule in ACTIVE_RULES:
            names = [measure_name] + (
                ["adjacent_unweighted"] if measure_name == "adjacent" and rule != "uniform" else []
            )
            if rule in UNWEIGHTED_RULES and measure_name == "adjacent":
                names = ["adjacent_unweighted"]
            for name in names:
                crossings = [sustained(r["votes"], -r[name], -target) for r in runs[rule]]
                label = rule if name == measure_name else f"{rule}, unweighted fit"
                reach[label] = float(np.mean(crossings))
                missed = int(np.isnan(crossings).sum())
                rows.append(
                    [measure_name, label, f"{target:.4g}", reach[label], reach[label] / reach["uniform"], missed]
                )
        for label, value in reach.items():
            if label != "uniform":
                found[f"{measure_name}|{label}"] = value / reach["uniform"]
    print(
        f"\nActive vs uniform allocation: {args.active_systems} systems, {args.active_replications} runs of "
        f"{args.active_budget:,} votes; target = uniform's mean width at {half:,} votes"
    )
    print_table(["precision", "allocation", "target width", "votes (sustained)", "ratio", "runs never"], rows)
    bias_rows = []
    for rule in ACTIVE_RULES:
        key = "plain_" if rule in UNWEIGHTED_RULES else ""
        errors = np.array([r[f"{key}error"] for r in runs[rule]])
        mean_error = errors.mean(axis=0)
        coverage = float(np.mean([r[f"{key}covered"] for r in runs[rule]]))
        diff_coverage = float(np.mean([r[f"{key}diff_covered"] for r in runs[rule]]))
        mc_se = errors.std(axis=0, ddof=1) / math.sqrt(len(errors))
        worst = int(np.argmax(np.abs(mean_error) / mc_se))
        t = float(np.abs(mean_error[worst]) / mc_se[worst])
        bias_rows.append(
            [
                f"{rule}, unweighted fit" if key else rule,
                float(np.abs(mean_error).max()),
                float(mean_error[worst]),
                float(mc_se[worst]),
                t,
                coverage,
                diff_coverage,
            ]
        )
        found[f"bias|{rule}"] = float(np.abs(mean_error).max())
        found[f"bias_t|{rule}"] = t
        found[f"coverage|{rule}"] = min(coverage, diff_coverage)
    print(f"\nAt {args.active_budget:,} votes, the fit against the true ratings, Elo points:")
    print_table(
        ["allocation", "max |mean error|", "most in MC se", "its MC se", "|t|", "coverage", "adjacent coverage"],
        bias_rows,
    )
    return found


#: Votes between two reads of the precision.
READ = 500


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
    parser.add_argument("--active-systems", type=int, default=20)
    parser.add_argument("--active-replications", type=int, default=50)
    parser.add_argument("--active-budget", type=int, default=20_000)
    parser.add_argument("--active-batch", type=int, default=100)
    parser.add_argument("--skip-active", action="store_true")
    parser.add_argument("--skip-coverage", action="store_true")
    parser.add_argument("--skip-cost", action="store_true")
    args = parser.parse_args()
    found = {} if args.skip_coverage else coverage(args)
    allocated = {} if args.skip_active else active(args)
    spent = None if args.skip_cost else cost(args)
    more = {}
    if allocated:
        more["active_ratio"] = allocated["adjacent|win-rate"]
        more["active_ratio_difference"] = allocated["adjacent|difference"]
        more["active_ratio_adjacent_rule"] = allocated["adjacent|adjacent"]
        more["design_ratio"] = allocated["adjacent|design, unweighted fit"]
        more["oracle_ratio"] = allocated["adjacent|oracle, unweighted fit"]
        more["win_matrix_ratio"] = allocated["win_rate|win-rate"]
        for prefix, rules in (
            ("ipw", [rule for rule in ACTIVE_RULES if rule not in UNWEIGHTED_RULES]),
            ("unweighted", list(UNWEIGHTED_RULES)),
        ):
            more[f"{prefix}_max_bias"] = max(allocated[f"bias|{rule}"] for rule in rules)
            more[f"{prefix}_max_bias_t"] = max(allocated[f"bias_t|{rule}"] for rule in rules)
            more[f"{prefix}_min_coverage"] = min(allocated[f"coverage|{rule}"] for rule in rules)
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
