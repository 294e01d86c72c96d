"""How often Concord's 95% intervals cover a known kappa, and how wide they are.

``python -m benchmarks.coverage [--replications 500] [--sizes 50,200,1000]
[--kappas 0.4,0.8] [--shares 0.7,0.3] [--resamples 1000] [--ranking]``

Known-kappa data (a latent-class model): every item has a true label drawn
with the category shares ``--shares`` (default two labels, 70% / 30%); each
rater copies it with probability ``r`` and otherwise draws a label at random
with the same shares. Every rater's marginal is then the shares ``p``, two
raters agree with probability ``r^2 + (1 - r^2) sum p^2``, so Cohen's and
Fleiss' kappa are ``r^2`` (``r = sqrt(kappa)``), Krippendorff's alpha tends
to the same value, and Gwet's AC1 is
``(p_a - p_e) / (1 - p_e)`` with ``p_e = sum p (1 - p) / (q - 1)``.

Each replication draws ``n`` items rated by 5 raters; Cohen's kappa is of
the first two, Fleiss' kappa, AC1 and alpha (nominal) of all five. The
intervals, each a nominal 95%:

- ``bootstrap``: Concord's, the percentile bootstrap over items of
  ``stats.uncertainty`` (seed 0, ``--resamples``, one draw shared by
  the figures as the reports share it);
- ``Gwet 2008``: the analytic intervals Concord shows beside the bootstrap,
  Fleiss' kappa +- 1.96 SE (``fleiss_kappa_interval``, Gwet's general SE)
  and AC1 +- t SE (``gwet_counts(...).interval()``);
- ``FNL 1979 (null)``: Fleiss' kappa +- 1.96 SE_0, the standard error of
  Fleiss, Nee & Landis (1979) that holds only when kappa is 0. Concord shows
  it as a test of kappa = 0 (``fleiss_kappa_test``); it is here to show why
  it makes no interval;
- ``BCa``: the bias-corrected and accelerated bootstrap (Efron 1987, "Better
  bootstrap confidence intervals", JASA 82:171-185; Efron & Tibshirani 1993,
  ch. 14) on the same resamples, the acceleration from the jackknife of the
  items' sufficient statistics: a candidate, not what the reports use.

Coverage is the share of replications whose interval holds the true value
(a replication whose figure is undefined, e.g. every label alike, counts as
a miss); width is the mean width of the defined intervals. Its Monte Carlo
standard error at 95% and 1,000 replications is 0.7 points.

``--ranking`` runs the simulation behind the ranking stop signal's minimum
(stats/stopping.py) instead: systems whose true scores are equal or evenly
spaced, per-topic scores = system + topic (sd 0.5) + noise (sd 0.2); per
number of systems and topics, how often the signal would say "reached" (the
5th percentile of the bootstrap tau at least 0.9) while the ranking on the
judged topics is wrong (tau against the true order below 0.9), at the worst
spacing, and how often it says "reached" when the systems are equal.

Ends with ``RESULT name=coverage ... min_coverage=...``: the lowest coverage
of the intervals Concord reports (bootstrap and Gwet 2008) over the cells.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
from scipy import stats

from benchmarks._harness import print_table
from stats.gwet import gwet_counts, gwet_units
from stats.intervals import ranking_stability
from stats.rank import kendall_tau_b
from stats.uncertainty import (
    UnitStatistics,
    cohen_kappa_units,
    fleiss_kappa_interval,
    fleiss_kappa_se,
    fleiss_kappa_units,
    krippendorff_alpha_units,
    percentile_interval,
    resample_weights,
)

RATERS = 5
LEVEL = 0.95
#: The intervals Concord's reports show; the RESULT line's minimum is over these.
REPORTED = ("bootstrap", "Gwet 2008")
FIGURES = ("Cohen", "Fleiss", "AC1", "alpha")


@dataclass(frozen=True)
class Model:
    """The latent-class model of one cell: category shares and the wanted kappa."""

    shares: np.ndarray
    kappa: float

    @property
    def copy(self) -> float:
        return float(np.sqrt(self.kappa))

    @property
    def truth(self) -> dict[str, float]:
        """Each figure's population value."""
        p = self.shares
        agree = self.kappa + (1 - self.kappa) * float(np.sum(p**2))
        chance = float(np.sum(p * (1 - p))) / (len(p) - 1)
        ac1 = (agree - chance) / (1 - chance)
        return {"Cohen": self.kappa, "Fleiss": self.kappa, "AC1": ac1, "alpha": self.kappa}

    def ratings(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """n items x RATERS labels (category codes)."""
        truth = rng.choice(len(self.shares), size=n, p=self.shares)
        random = rng.choice(len(self.shares), size=(n, RATERS), p=self.shares)
        return np.where(rng.random((n, RATERS)) < self.copy, truth[:, np.newaxis], random)


def bca(value: float, resampled: np.ndarray, stats_: UnitStatistics) -> tuple[float, float]:
    """BCa bounds (Efron & Tibshirani 1993, eq. 14.9-14.15) from the resampled figures and the
    jackknife of the units' statistics (each unit left out: the total minus its row)."""
    finite = resampled[np.isfinite(resampled)]
    below = (np.count_nonzero(finite < value) + 0.5 * np.count_nonzero(finite == value)) / finite.size
    z0 = stats.norm.ppf(np.clip(below, 0.5 / finite.size, 1 - 0.5 / finite.size))
    jack = np.asarray(stats_.statistic(stats_.per_unit.sum(axis=0) - stats_.per_unit), dtype=np.float64)
    jack = jack[np.isfinite(jack)]
    spread = jack.mean() - jack
    denominator = 6 * np.sum(spread**2) ** 1.5
    acceleration = np.sum(spread**3) / denominator if denominator > 0 else 0.0
    z = stats.norm.ppf([(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    levels = stats.norm.cdf(z0 + (z0 + z) / (1 - acceleration * (z0 + z)))
    low, high = np.quantile(finite, levels)
    return float(low), float(high)


def intervals(ratings: np.ndarray, weights: np.ndarray, n_categories: int) -> dict[tuple[str, str], tuple]:
    """(figure, method) -> (low, high) of one replication; NaN bounds where undefined."""
    categories = list(range(n_categories))
    table = np.stack([np.bincount(row, minlength=n_categories) for row in ratings])
    units = {
        "Cohen": cohen_kappa_units(ratings[:, 0], ratings[:, 1], labels=categories),
        "Fleiss": fleiss_kappa_units(table),
        "AC1": gwet_units(ratings, categories=categories),
        "alpha": krippendorff_alpha_units(ratings.T.astype(np.float64)),
    }
    nan = (float("nan"), float("nan"))
    found: dict[tuple[str, str], tuple] = {}
    for figure, figure_stats in units.items():
        value = figure_stats.value
        if not np.isfinite(value):
            found[(figure, "bootstrap")] = found[(figure, "BCa")] = nan
            continue
        # the library's bootstrap (uncertainty.bootstrap with these weights), its resamples kept for BCa
        resampled = np.asarray(figure_stats.statistic(weights @ figure_stats.per_unit), dtype=np.float64)
        interval = percentile_interval(value, resampled, figure_stats.units, LEVEL)
        found[(figure, "bootstrap")] = (interval.low, interval.high)
        found[(figure, "BCa")] = bca(value, resampled, figure_stats) if interval.defined else nan
    general = fleiss_kappa_interval(table)
    found[("Fleiss", "Gwet 2008")] = (general.low, general.high)
    null_half = stats.norm.ppf((1 + LEVEL) / 2) * fleiss_kappa_se(table, form="null")
    found[("Fleiss", "FNL 1979 (null)")] = (general.value - null_half, general.value + null_half)
    ac1 = gwet_counts(table).interval()
    found[("AC1", "Gwet 2008")] = (ac1.low, ac1.high)
    return found


def coverage(model: Model, n: int, replications: int, resamples: int, seed: int) -> dict[tuple[str, str], tuple]:
    """(figure, method) -> (coverage, mean width, share undefined) over the replications."""
    rng = np.random.default_rng([seed, n, round(model.kappa * 1000)])
    weights = resample_weights(n, n_resamples=resamples, seed=0).astype(np.float64)
    truth = model.truth
    hits: dict[tuple[str, str], list[tuple[bool, float]]] = {}
    for _ in range(replications):
        for key, (low, high) in intervals(model.ratings(rng, n), weights, len(model.shares)).items():
            defined = bool(np.isfinite(low) and np.isfinite(high))
            covered = defined and low <= truth[key[0]] <= high
            hits.setdefault(key, []).append((covered, high - low if defined else float("nan")))
    result = {}
    for key, rows in hits.items():
        covered, widths = np.array(rows, dtype=np.float64).T
        undefined = float(np.mean(np.isnan(widths)))
        result[key] = (float(covered.mean()), float(np.nanmean(widths)) if undefined < 1 else float("nan"), undefined)
    return result


def run_coverage(args: argparse.Namespace) -> None:
    shares = np.array([float(s) for s in args.shares.split(",")])
    shares = shares / shares.sum()
    sizes = [int(s) for s in args.sizes.split(",")]
    kappas = [float(k) for k in args.kappas.split(",")]
    start = time.perf_counter()
    cells = {}
    for kappa in kappas:
        for n in sizes:
            cells[(kappa, n)] = coverage(Model(shares, kappa), n, args.replications, args.resamples, args.seed)
            print(f"kappa {kappa:g}, n = {n}: done ({time.perf_counter() - start:.0f} s)", flush=True)
    seconds = time.perf_counter() - start
    methods = ["bootstrap", "Gwet 2008", "BCa", "FNL 1979 (null)"]
    print(
        f"\nCoverage of nominal 95% intervals (width), {args.replications} replications per cell, "
        f"{RATERS} raters (Cohen: 2), shares {', '.join(f'{s:.2f}' for s in shares)}, {args.resamples} resamples"
    )
    rows = []
    for figure in FIGURES:
        for method in methods:
            if (figure, method) not in next(iter(cells.values())):
                continue
            row = [figure, method]
            for kappa in kappas:
                for n in sizes:
                    cover, width, _ = cells[(kappa, n)][(figure, method)]
                    row.append(f"{cover:.3f} ({width:.3f})")
            rows.append(row)
    print_table(["figure", "interval", *(f"k {k:g}, n {n}" for k in kappas for n in sizes)], rows)
    undefined = max(cell[key][2] for cell in cells.values() for key in cell)
    print(f"largest share of replications with an undefined figure: {undefined:.3f}")
    reported = {
        (figure, method, kappa, n): cells[(kappa, n)][(figure, method)][0]
        for (kappa, n) in cells
        for figure, method in cells[(kappa, n)]
        if method in REPORTED
    }
    worst = min(reported, key=reported.get)
    bca_min = min(cell[key][0] for cell in cells.values() for key in cell if key[1] == "BCa")
    null_max = max(cell[("Fleiss", "FNL 1979 (null)")][0] for cell in cells.values())
    print(
        f"RESULT name=coverage seconds={seconds:.1f} replications={args.replications} resamples={args.resamples} "
        f"min_coverage={reported[worst]:.3f} min_cell={worst[0]}/{worst[1].replace(' ', '_')}/"
        f"kappa{worst[2]:g}/n{worst[3]} bca_min_coverage={bca_min:.3f} fnl_null_max_coverage={null_max:.3f}"
    )


def run_ranking(args: argparse.Namespace) -> None:
    """P(reached while wrong) and P(reached | equal systems) per number of systems and topics."""
    tau, replications = 0.9, args.replications
    spacings = (0.02, 0.05, 0.1, 0.2, 0.4)
    start = time.perf_counter()
    rows, worst_from = [], {}
    for systems in (2, 3, 5, 8):
        for topics in (3, 5, 8, 10, 15, 20, 30):
            rng = np.random.default_rng([args.seed, systems, topics])
            wrong = {}
            for spacing in (0.0, *spacings):
                effects = np.arange(systems) * spacing
                reached = bad = 0
                for r in range(replications):
                    scores = (
                        effects[:, np.newaxis] + rng.normal(0, 0.5, (1, topics)) + rng.normal(0, 0.2, (systems, topics))
                    )
                    found = ranking_stability(scores, measure="score", resamples=args.resamples, seed=r)
                    if found.p5 >= tau:
                        reached += 1
                        bad += spacing > 0 and kendall_tau_b(effects, scores.mean(axis=1))[0, 0] < tau
                wrong[spacing] = (reached / replications, bad / replications)
            worst = max(spacings, key=lambda s: wrong[s][1])
            rows.append([systems, topics, f"{wrong[0.0][0]:.3f}", f"{wrong[worst][1]:.3f}", f"{worst:g}"])
            worst_from[(systems, topics)] = wrong[worst][1]
        print(f"{systems} systems done ({time.perf_counter() - start:.0f} s)", flush=True)
    print(
        f"\nRanking stop signal (5th percentile tau >= {tau}), {replications} replications per cell, "
        f"{args.resamples} resamples"
    )
    print_table(["systems", "topics", "reached, equal systems", "reached and wrong (worst)", "at spacing"], rows)
    enough = min(
        t
        for t in (3, 5, 8, 10, 15, 20, 30)
        if all(worst_from[(k, u)] <= 0.01 for k in (3, 5, 8) for u in (3, 5, 8, 10, 15, 20, 30) if u >= t)
    )
    print(
        f"RESULT name=coverage_ranking seconds={time.perf_counter() - start:.1f} replications={replications} "
        f"two_systems_wrong_max={max(worst_from[(2, u)] for u in (3, 5, 8, 10, 15, 20, 30)):.3f} "
        f"topics_for_1pct_from_3_systems={enough}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=500, help="data sets per cell (default 500)")
    parser.add_argument("--sizes", default="50,200,1000", help="items per data set (default 50,200,1000)")
    parser.add_argument("--kappas", default="0.4,0.8", help="true kappas (default 0.4,0.8)")
    parser.add_argument("--shares", default="0.7,0.3", help="category shares (default 0.7,0.3: two labels)")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulated data (default 0)")
    parser.add_argument("--ranking", action="store_true", help="the ranking stop signal's simulation instead")
    args = parser.parse_args(argv)
    if args.replications < 1 or args.resamples < 10:
        parser.error("--replications must be >= 1 and --resamples >= 10")
    if args.ranking:
        run_ranking(args)
    else:
        run_coverage(args)


if __name__ == "__main__":
    main()
