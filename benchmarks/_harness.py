"""Shared timing, memory and reporting helpers for the benchmarks."""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Measurement:
    seconds: float
    peak_mb: float
    value: Any


def measure(fn: Callable[[], Any], *, repeat: int = 1, trace_memory: bool = True) -> Measurement:
    """Run ``fn`` ``repeat`` times; keep the best time and the peak traced memory.

    Peak memory is what ``tracemalloc`` saw allocated during one call (numpy
    reports its buffers to it), so it is the call's own footprint, not the
    process's resident size.
    """
    best = float("inf")
    peak = 0.0
    value = None
    for _ in range(repeat):
        gc.collect()
        if trace_memory:
            tracemalloc.start()
        start = time.perf_counter()
        value = fn()
        elapsed = time.perf_counter() - start
        if trace_memory:
            peak = max(peak, tracemalloc.get_traced_memory()[1] / 2**20)
            tracemalloc.stop()
        best = min(best, elapsed)
    return Measurement(seconds=best, peak_mb=peak, value=value)


def print_table(headers: list[str], rows: list[list[Any]]) -> None:
    """Print a plain aligned table."""
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))


def print_result(name: str, *, seconds: float, reference_seconds: float, peak_mb: float, **more: Any) -> None:
    """Print the one machine-readable line every benchmark ends with."""
    ratio = reference_seconds / seconds if seconds > 0 else float("inf")
    extra = "".join(f" {k}={_fmt(v)}" for k, v in more.items())
    print(
        f"RESULT name={name} seconds={seconds:.4f} reference_seconds={reference_seconds:.4f} "
        f"ratio={ratio:.2f} peak_mb={peak_mb:.1f}{extra}"
    )


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e4 else f"{value:.0f}"
    return str(value)
