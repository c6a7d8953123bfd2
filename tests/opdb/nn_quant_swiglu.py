"""ops-nn SwiGluQuant and SwiGluQuantV2 (INT8 outputs).

The oracle computes the docs' formula in float32 with torch: act = silu(A) * B (A the half activateLeft names),
per row times the smooth scales of its group (rows past the last group unscaled), dynamic: s = 127 / max|.|
(written to scaleOut, as the kernel does) and y = round-half-even(act * s); static: y = round-half-even(act *
smooth + offset); saturated to INT8. The INT8 results may differ by one where float32 exponentials round
differently next to a .5 boundary.
"""

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype


def tt(a):
    if a is None or isinstance(a, torch.Tensor):
        return a
    a = np.ascontiguousarray(a)
    if a.dtype == np_dtype("bfloat16"):
        return torch.from_numpy(a.astype(np.float32))
    return torch.from_numpy(a)


def sg_ref(x, smooth, offsets, group, left, mode, list_type=0, dst=2):
    x = tt(x).float()
    rows = x.reshape(-1, x.shape[-1])
    d2 = rows.shape[1] // 2
    a, b = (rows[:, :d2], rows[:, d2:]) if left else (rows[:, d2:], rows[:, :d2])
    act = torch.nn.functional.silu(a) * b
    n = rows.shape[0]
    if group is not None:
        g = tt(group).long()
        ends = torch.cumsum(g, 0) if list_type == 1 else g
        gid = torch.searchsorted(ends, torch.arange(n), right=True)
    else:
        ends, gid = None, torch.zeros(n, dtype=torch.long)
    has = gid < (len(ends) if ends is not None else 1)
    gidc = gid.clamp(max=(len(ends) - 1) if ends is not None else 0)

    def per_row(p):
        p = tt(p).float()
        v = p[gidc] if p.dim() == 2 else p[gidc][:, None].expand(n, d2)
        return v

    if smooth is not None:
        act = torch.where(has[:, None], act * per_row(smooth), act)
    if mode == "static":
        act = torch.where(has[:, None], act + per_row(offsets), act)
        y = torch.round(act).clamp(-128, 127).to(torch.int8)
        return y.reshape(*x.shape[:-1], d2)
    s = 127.0 / act.abs().amax(dim=1)
    y = torch.nan_to_num(torch.round(act * s[:, None]), nan=0.0).clamp(-128, 127).to(torch.int8)
    return y.reshape(*x.shape[:-1], d2), s.reshape(x.shape[:-1])


def v1_samples(dtype, rng):
    def arr(shape, lo=-3, hi=3):
        return rng.uniform(lo, hi, shape).astype(np.float32).astype(np_dtype(dtype))
    out = []
    x = arr((7, 32))
    sm = rng.uniform(0.5, 1.5, (3, 16)).astype(np.float32)
    out.append(Sample((x, sm, None, np.array([2, 2, 5], np.int32), False, "dynamic"), (), "groups, rows past the last"))
    out.append(Sample((arr((2, 3, 64)), rng.uniform(0.5, 1.5, (1, 32)).astype(np.float32), None,
                       np.array([6], np.int32), True, "dynamic"), (), "3-D, activate left"))
    of = rng.uniform(-2, 2, (3, 16)).astype(np.float32)
    out.append(Sample((x, sm * 20, of, np.array([3, 5, 7], np.int32), True, "static"), (), "static per channel"))
    out.append(Sample((x, rng.uniform(5, 20, (3,)).astype(np.float32), rng.uniform(-2, 2, (3,)).astype(np.float32),
                       np.array([1, 4, 7], np.int32), False, "static"), (), "static per tensor"))
    return out


def v2_samples(dtype, rng):
    out = []
    for s in v1_samples(dtype, rng):
        x, sm, of, g, left, mode = s.operands
        counts = np.diff(np.concatenate([[0], g])).astype(np.int32)
        out.append(Sample((x, sm, of, counts, left, mode, 1, 2), (), s.name + ", counts"))
    x = rng.uniform(-3, 3, (5, 16)).astype(np.float32).astype(np_dtype(dtype))
    out.append(Sample((x, rng.uniform(0.5, 1.5, (1, 8)).astype(np.float32), None, None, True, "dynamic", 0, 2), (),
                      "no groups"))
    return out


def sg_call(name):
    def call(sample, expected):
        import aclnn_py

        x = sample.operands[0]
        y = np.zeros(x.shape[:-1] + (x.shape[-1] // 2,), np.int8)
        scale = np.zeros(x.shape[:-1], np.float32)
        aclnn_py.run(name, *sample.operands, y, scale)
        return (y, scale) if isinstance(expected, tuple) else y
    return call


def sg_ref_v1(x, smooth, offsets, group, left, mode):
    return sg_ref(x, smooth, offsets, group, left, mode)


TOL = {"int8": (0, 1), "float32": (2e-6, 1e-6), "float16": (2e-6, 1e-6), "bfloat16": (2e-6, 1e-6)}
ENTRIES = [
    OpInfo("aclnnSwiGluQuant", sg_ref_v1, FLOATS, kind="custom", samples=v1_samples, call=sg_call("aclnnSwiGluQuant"),
           native16=True, tol=TOL),
    OpInfo("aclnnSwiGluQuantV2", sg_ref, FLOATS, kind="custom", samples=v2_samples,
           call=sg_call("aclnnSwiGluQuantV2"), native16=True, tol=TOL),
]
