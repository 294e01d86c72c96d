"""Fleiss' kappa and Krippendorff's alpha against statsmodels and the krippendorff package.

Run from the project root: ``python -m benchmarks.agreement``.

Data: 100 coders x 100,000 units, values drawn with a fixed seed (each coder
copies the unit's true value with probability 0.6, else guesses uniformly),
for 5 and for 50 values.

- Krippendorff's alpha (nominal, interval): 10% of the ratings missing (NaN).
  Concord ``krippendorff_alpha`` against ``krippendorff.alpha`` on the same
  coders x units array.
- Fleiss' kappa: complete data (every unit rated by all 100 coders), because
  statsmodels needs a constant number of raters and with 10% missing only
  0.9**100 (about 3 in 100,000) of the units would be fully rated. Concord
  ``category_counts`` + ``fleiss_kappa`` against statsmodels'
  ``aggregate_raters`` + ``fleiss_kappa``, both steps timed.

The krippendorff package builds a units x coders x values comparison and a
units x values x values array (about 6 GB at 50 values). It runs on all units
when that fits in the memory budget below, otherwise on the first units that
fit, with its time and memory extrapolated linearly (printed when it happens).
"""

from __future__ import annotations

import krippendorff
import numpy as np
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from benchmarks._harness import Measurement, measure, print_result, print_table
from stats.agreement import category_counts, fleiss_kappa, krippendorff_alpha

SEED = 20240611
N_CODERS = 100
N_UNITS = 100_000
MISSING = 0.10
VALUE_COUNTS = (5, 50)
LEVELS = ("nominal", "interval")
TOLERANCE = 1e-12
# Best of this many runs (the machine is shared); the krippendorff package at 50 values runs once.
REPEAT = 5
# The krippendorff package may use at most this much (and at most 70% of the memory available).
MEMORY_BUDGET_BYTES = 8 * 2**30
# Its traced peak per units x values x values cell: a few float64 temporaries of that shape
# (measured 5.76 GB at 100,000 x 50 x 50).
PACKAGE_BYTES_PER_CELL = 24


def ratings(rng: np.random.Generator, n_values: int, missing: float) -> np.ndarray:
    """Coders x units values 0..n_values-1, NaN where missing."""
    truth = rng.integers(0, n_values, N_UNITS)
    guesses = rng.integers(0, n_values, (N_CODERS, N_UNITS))
    data = np.where(rng.random((N_CODERS, N_UNITS)) < 0.6, truth, guesses).astype(np.float64)
    data[rng.random(data.shape) < missing] = np.nan
    return data


def available_bytes() -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return MEMORY_BUDGET_BYTES


def package_units(n_values: int) -> int:
    """How many units the krippendorff package may take at once within the memory budget."""
    budget = min(MEMORY_BUDGET_BYTES, int(0.7 * available_bytes()))
    per_unit = PACKAGE_BYTES_PER_CELL * n_values * n_values + N_CODERS * n_values
    return min(N_UNITS, max(1000, budget // per_unit))


def scaled(measurement: Measurement, factor: float) -> Measurement:
    return Measurement(measurement.seconds * factor, measurement.peak_mb * factor, measurement.value)


def fleiss_case(rng: np.random.Generator, n_values: int, rows: list[list], checks: list[float]) -> tuple[float, float]:
    items_by_raters = np.ascontiguousarray(ratings(rng, n_values, 0.0).T.astype(np.int64))
    ref_table = measure(lambda: aggregate_raters(items_by_raters)[0], repeat=REPEAT)
    ref_kappa = measure(lambda: statsmodels_fleiss_kappa(ref_table.value), repeat=REPEAT)
    our_table = measure(lambda: category_counts(items_by_raters), repeat=REPEAT)
    our_kappa = measure(lambda: fleiss_kappa(our_table.value), repeat=REPEAT)
    if not np.array_equal(our_table.value.counts, ref_table.value):
        raise AssertionError("category_counts differs from statsmodels aggregate_raters")
    difference = abs(our_kappa.value - ref_kappa.value)
    checks.append(difference)
    data = f"{n_values} values, complete"
    rows.append(
        [
            f"count table ({n_values})",
            data,
            our_table.seconds,
            our_table.peak_mb,
            ref_table.seconds,
            ref_table.peak_mb,
            ref_table.seconds / our_table.seconds,
            "equal",
            "yes",
        ]
    )
    rows.append(
        [
            f"fleiss_kappa ({n_values})",
            data,
            our_kappa.seconds,
            our_kappa.peak_mb,
            ref_kappa.seconds,
            ref_kappa.peak_mb,
            ref_kappa.seconds / our_kappa.seconds,
            difference,
            _verdict(difference),
        ]
    )
    ours = our_table.seconds + our_kappa.seconds
    reference = ref_table.seconds + ref_kappa.seconds
    rows.append(
        [
            f"FLEISS TOTAL ({n_values})",
            data,
            ours,
            max(our_table.peak_mb, our_kappa.peak_mb),
            reference,
            max(ref_table.peak_mb, ref_kappa.peak_mb),
            reference / ours,
            "",
            "",
        ]
    )
    return ours, reference


def alpha_case(
    data: np.ndarray, n_values: int, level: str, rows: list[list], checks: list[float], notes: list[str]
) -> tuple[float, float]:
    repeat = REPEAT if n_values <= 10 else 1  # the package takes 5-25 s a run at 50 values
    ours = measure(lambda: krippendorff_alpha(data, level=level), repeat=REPEAT)
    units = package_units(n_values)
    if units == N_UNITS:
        reference = measure(lambda: krippendorff.alpha(data, level_of_measurement=level), repeat=repeat)
        difference = abs(ours.value - reference.value)
        label = f"{n_values} values, 10% NaN"
    else:
        subset = data[:, :units]
        on_subset = measure(lambda: krippendorff.alpha(subset, level_of_measurement=level), repeat=repeat)
        reference = scaled(on_subset, N_UNITS / units)
        difference = abs(krippendorff_alpha(subset, level=level) - on_subset.value)
        label = f"{n_values} values, 10% NaN, ref on {units} units x{N_UNITS / units:.1f}"
        notes.append(
            f"krippendorff.alpha ({level}, {n_values} values) ran on the first {units} of {N_UNITS} units "
            f"to stay within memory; its time and peak memory were extrapolated linearly "
            f"(x{N_UNITS / units:.1f}) and the 1e-12 check compares both on that subset."
        )
    checks.append(difference)
    rows.append(
        [
            f"alpha {level} ({n_values})",
            label,
            ours.seconds,
            ours.peak_mb,
            reference.seconds,
            reference.peak_mb,
            reference.seconds / ours.seconds,
            difference,
            _verdict(difference),
        ]
    )
    return ours.seconds, reference.seconds


def _verdict(difference: float) -> str:
    return "yes" if difference <= TOLERANCE else "NO"


def main() -> None:
    rng = np.random.default_rng(SEED)
    rows: list[list] = []
    checks: list[float] = []
    notes: list[str] = []
    totals = {"ours": 0.0, "reference": 0.0}
    ratios: dict[str, float] = {}
    for n_values in VALUE_COUNTS:
        ours, reference = fleiss_case(rng, n_values, rows, checks)
        totals["ours"] += ours
        totals["reference"] += reference
        ratios[f"fleiss{n_values}_ratio"] = reference / ours
        data = ratings(rng, n_values, MISSING)
        for level in LEVELS:
            ours, reference = alpha_case(data, n_values, level, rows, checks, notes)
            totals["ours"] += ours
            totals["reference"] += reference
            ratios[f"alpha_{level}{n_values}_ratio"] = reference / ours

    print(f"Agreement metrics, {N_CODERS} coders x {N_UNITS} units, seed {SEED}")
    print("Fleiss: complete data (statsmodels needs every unit fully rated). Alpha: 10% missing.")
    print("Reference: statsmodels aggregate_raters + fleiss_kappa; krippendorff.alpha.")
    print(
        f"Times: best of {REPEAT} runs (the krippendorff package: 1 run at 50 values); peak MB traced by tracemalloc.\n"
    )
    print_table(
        ["case", "data", "concord s", "concord MB", "reference s", "reference MB", "ratio", "|diff|", "<=1e-12"],
        rows,
    )
    for note in notes:
        print(f"NOTE: {note}")
    worst = max(checks)
    print(
        f"\nIdentical to 1e-12 (Concord vs reference values): {'yes' if worst <= TOLERANCE else 'NO'} "
        f"(largest |difference| {worst:.3g})"
    )
    print_result(
        "agreement",
        seconds=totals["ours"],
        reference_seconds=totals["reference"],
        peak_mb=max(row[3] for row in rows),
        reference_peak_mb=max(row[5] for row in rows),
        max_abs_diff=worst,
        krippendorff_extrapolated="yes" if notes else "no",
        **ratios,
    )


if __name__ == "__main__":
    main()
