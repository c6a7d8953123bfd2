"""ops-math creation operators: arange, range, linspace, logspace, eye (their output starts at 7 in the harness, so
an element left unwritten shows; aclnnInplaceOne is an entry of math_unary.py, its strided views are in
tests/test_reduce_engine.py). The entry's dtypes are the output's; the oracles compute in float64 (int64 for
integers) and the result is cast to the output's dtype, as the operators do."""

from __future__ import annotations

import torch

from . import OpInfo, Sample

RANGE_OUT = ("float32", "float16", "bfloat16", "float64", "int32", "int64")
LINSPACE_OUT = ("float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8")


def arange(start, end, step):
    return torch.arange(start, end, step, dtype=torch.float64 if isinstance(step, float) else torch.int64)


def range_closed(start, end, step):
    n = int((end - start) // step) + 1
    return torch.tensor([start + i * step for i in range(n)], dtype=torch.float64)


def range_samples(dtype, rng):
    integral = dtype in ("int32", "int64")
    s = [Sample((), (0, 10, 1), "0..10"), Sample((), (5, -7, -3), "negative step"), Sample((), (3, 3, 1), "empty")]
    if not integral:
        s += [Sample((), (-1.5, 2.25, 0.25), "fractional"), Sample((), (0.0, 100000.0, 1.0), "long")]
    else:
        s += [Sample((), (-100000, 100000, 3), "long")]
    return s


def closed_samples(dtype, rng):
    integral = dtype in ("int32", "int64")
    s = [Sample((), (0, 10, 1), "0..10"), Sample((), (5, -7, -3), "negative step")]
    if not integral:
        s += [Sample((), (-1.5, 2.25, 0.25), "fractional")]
    return s


def linspace(start, end, steps):
    """The documented formula in float64: start + i * step for i < steps / 2, else end - (steps - 1 - i) * step
    (torch.linspace's; computed here so integer outputs truncate the same values)."""
    if steps <= 1:
        return torch.full((steps,), float(start), dtype=torch.float64)
    i = torch.arange(steps, dtype=torch.float64)
    step = (float(end) - float(start)) / (steps - 1)
    return torch.where(i < steps // 2, float(start) + i * step, float(end) - (steps - 1 - i) * step)


def linspace_samples(dtype, rng):
    if dtype == "uint8":  # negative values saturate to 0 in the device's cast (numpy wraps): positive ones only
        return [Sample((), (0, 10, 5), "0..10"), Sample((), (0.5, 7.25, 17), "fractional"),
                Sample((), (200, 0, 100001), "long, decreasing"), Sample((), (2, 9, 1), "one step")]
    return [Sample((), (0, 10, 5), "0..10"), Sample((), (-3.5, 7.25, 17), "fractional"),
            Sample((), (10, -10, 100001), "long, decreasing"), Sample((), (2, 9, 1), "one step"),
            Sample((), (2, 9, 0), "no steps")]


def logspace(start, end, steps, base):
    return torch.pow(torch.tensor(base, dtype=torch.float64), torch.linspace(start, end, steps, dtype=torch.float64))


def logspace_samples(dtype, rng):
    return [Sample((), (0, 3, 4, 10.0), "base 10"), Sample((), (-2.0, 2.0, 9, 2.0), "base 2"),
            Sample((), (1, 2, 1, 3.0), "one step"), Sample((), (1, 2, 0, 3.0), "no steps")]


def eye(n, m):
    return torch.eye(n, m, dtype=torch.float64)


def eye_samples(dtype, rng):
    return [Sample((), (3, 3), "square"), Sample((), (2, 5), "wide"), Sample((), (300, 200), "tall"),
            Sample((), (0, 4), "empty")]


ENTRIES = [
    OpInfo("aclnnArange", arange, RANGE_OUT, kind="custom", samples=range_samples, out_dtype=lambda d: d),
    OpInfo("aclnnRange", range_closed, RANGE_OUT, kind="custom", samples=closed_samples, out_dtype=lambda d: d),
    OpInfo("aclnnLinspace", linspace, LINSPACE_OUT, kind="custom", samples=linspace_samples, out_dtype=lambda d: d,
           tol={"float32": (1.3e-6, 1e-5)}),
    OpInfo("aclnnLogSpace", logspace, ("float32", "float16", "bfloat16"), kind="custom", samples=logspace_samples,
           out_dtype=lambda d: d, outputs=("result",), tol={"float32": (1e-5, 1e-5)}),
    OpInfo("aclnnEye", eye, ("float32", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"),
           kind="custom", samples=eye_samples, out_dtype=lambda d: d),
]
