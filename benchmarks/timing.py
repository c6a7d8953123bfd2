"""Shared timing helpers.

The benchmarks run on shared, noisy machines, so every comparison is measured side by side: the
variants being compared run in interleaved rounds (A B C, B C A, C A B, ...) so that a slow phase of
the machine hits all of them alike, and results are medians, never means or minima.
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Callable, Dict, List, Sequence, Tuple

now = time.perf_counter


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, NaN when either side is missing or the denominator is zero."""
    if not denominator or denominator != denominator or numerator != numerator:
        return float("nan")
    return numerator / denominator


def _rounds_for(wanted: int, rounds: int) -> set:
    """Evenly spread ``wanted`` rounds among ``rounds`` (a variant with fewer samples, such as a slow
    reference, still meets the other variants in every part of the run)."""
    wanted = min(wanted, rounds)
    return {j * rounds // wanted for j in range(wanted)}


def interleave(variants: Dict[str, Tuple[Callable[[], object], int]], warmup: int = 1,
               inner: Dict[str, int] | None = None, self_timed: Sequence[str] = ()) -> Dict[str, List[float]]:
    """Time each variant ``name -> (fn, samples)`` in interleaved rounds; returns seconds per call.

    ``inner`` (optional, per name) repeats a fast call that many times inside one sample so the clock
    resolution and the loop itself do not matter; the sample is divided by it. Warm-up calls (page
    faults, lazy symbol binding, caches) are not recorded. The garbage collector is off for the whole
    run, so a collection triggered by one variant is not charged to another (and no collection runs
    between samples either: a long CPU burst on the main thread delays the wake-up of a kernel's
    worker threads on a busy machine, which would be charged to the next sample). A ``self_timed`` variant
    measures itself (e.g. a C program timing its own loop) and returns seconds per call.
    """
    inner = inner or {}
    names = list(variants)
    rounds = max((n for _, n in variants.values()), default=0)
    plan = {name: _rounds_for(n, rounds) for name, (_, n) in variants.items()}
    out: Dict[str, List[float]] = {name: [] for name in names}
    for name in names:
        if name in self_timed:
            continue
        fn = variants[name][0]
        for _ in range(warmup * inner.get(name, 1)):
            fn()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds):
            # Rotate the starting variant: none is always first (cold) or always after the heaviest.
            order = names[r % len(names):] + names[: r % len(names)]
            for name in order:
                if r not in plan[name]:
                    continue
                fn = variants[name][0]
                k = inner.get(name, 1)
                if name in self_timed:
                    out[name].append(float(fn()))
                    continue
                if k == 1:
                    t0 = now()
                    fn()
                    t1 = now()
                else:
                    t0 = now()
                    for _ in range(k):
                        fn()
                    t1 = now()
                out[name].append((t1 - t0) / k)
    finally:
        if was_enabled:
            gc.enable()
    return out


def calibrate(fn: Callable[[], object], target: float = 0.02, cap: int = 1_000_000) -> int:
    """How many back-to-back calls of a fast ``fn`` take about ``target`` seconds (at least 1)."""
    k = 1
    while k < cap:
        t0 = now()
        for _ in range(k):
            fn()
        dt = now() - t0
        if dt >= target / 4:
            return max(1, min(cap, int(k * target / dt)))
        k *= 4
    return cap


def fmt_time(seconds: float, unit: str = "ms") -> str:
    if seconds != seconds:
        return "n/a"
    scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
    v = seconds * scale
    return f"{v:.3f}" if v < 10 else f"{v:.2f}" if v < 100 else f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def fmt_ratio(x: float, suffix: str = "x") -> str:
    if x != x:
        return "n/a"
    return f"{x:.2f}{suffix}" if x < 100 else f"{x:.0f}{suffix}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str | None = None) -> str:
    """A plain-text table; ``align`` is one character per column, 'l' or 'r' (default: first column
    left, the others right)."""
    align = align or "l" + "r" * (len(headers) - 1)
    cells = [list(map(str, headers))] + [list(map(str, r)) for r in rows]
    widths = [max(len(r[i]) for r in cells if i < len(r)) for i in range(len(headers))]

    def line(r):
        parts = []
        for i, w in enumerate(widths):
            c = r[i] if i < len(r) else ""
            parts.append(c.ljust(w) if align[i] == "l" else c.rjust(w))
        return "  ".join(parts).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), sep] + [line(r) for r in cells[1:]])
