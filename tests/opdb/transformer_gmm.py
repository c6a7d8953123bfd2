"""ops-transformer grouped matmul: V1 to V5.

The oracle splits the operands into groups as the group type and list say, multiplies each group in float32 with
torch (16-bit operands widened exactly), adds the bias, applies the activation and rounds once to y's dtype; the
quantised groups follow nn_quant_matmul's dequantisation, the weight-only ones its antiquantisation. Rows of a single
y that no group reaches stay as they were (zeros here).
"""

import math

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype
from .nn_quant_matmul import Q_TOL, antiquant, dequant, i8

ACT = {0: lambda v: v, 1: torch.relu, 2: lambda v: torch.nn.functional.gelu(v, approximate="tanh"),
       4: lambda v: v / (1 + torch.exp(-1.702 * v.abs())) * torch.exp(0.851 * (v - v.abs())),
       5: torch.nn.functional.silu}


def arr(rng, shape, dtype, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(np_dtype(dtype))


def bias_dtype(dtype):
    return "float32" if dtype == "bfloat16" else dtype


def ends_of(group_list, kind):
    if group_list is None:
        return None
    g = np.asarray(group_list.numpy() if isinstance(group_list, torch.Tensor) else group_list).astype(np.int64)
    return np.cumsum(g) if kind == 1 else g


def gmm_groups(x, w, y_shapes, group_list, group_type, list_kind=0):
    """(x part, weight, y index, rows of y) per group."""
    ends = ends_of(group_list, list_kind)
    out = []
    if group_type == -1:
        return [(x[i], w[i], i, None) for i in range(len(x))]
    if group_type == 2:
        start = 0
        for g, end in enumerate(ends):
            out.append((x[0][:, start:end], w[0][start:end] if len(w) == 1 and w[0].dim() == 2 else w[g], g, None))
            start = end
        return out
    start = 0
    weights = list(w[0]) if len(w) == 1 and w[0].dim() == 3 else w
    for g, wg in enumerate(weights):
        end = int(ends[g]) if ends is not None else start + x[0].shape[0]
        out.append((x[0][start:end], wg, 0, (start, end)))
        start = end
    return out


def gmm_ref(x, w, bias, y_like, group_list, group_type, list_kind=0, act=0, dtype=None, quant=None):
    ys = [torch.zeros(s, dtype=dtype) for s in y_like]
    for gi, (xg, wg, yi, rows) in enumerate(gmm_groups(x, w, y_like, group_list, group_type, list_kind)):
        if quant is not None:
            r = quant(gi, xg, wg, rows)
        else:
            r = xg.float() @ wg.float()
            if bias is not None:
                r = r + bias[gi if len(bias) > 1 else 0].float()
            r = ACT[act](r)
        if group_type == 2:
            ys[0][yi] = r.to(dtype)
        elif rows is None:
            ys[yi] = r.to(dtype)
        else:
            ys[0][rows[0]:rows[1]] = r.to(dtype)
    return ys


def t(a):
    if isinstance(a, torch.Tensor):
        return a
    a = np.ascontiguousarray(a)
    if a.dtype == np_dtype("bfloat16"):
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def tl(items):
    return None if items is None else [t(a) for a in items]


# ---- V1 (int array, groupType derived) / V2 (int array, groupType given) / V3 (INT64 tensor) -------------------------------

def v1_samples(dtype, rng):
    k, n = 16, 6
    xs = arr(rng, (8, k), dtype)
    ws = [arr(rng, (k, n), dtype) for _ in range(3)]
    bias = [arr(rng, (n,), bias_dtype(dtype)) for _ in range(3)]
    sep = [arr(rng, (m, k), dtype) for m in (2, 0, 3)]
    return [Sample(([xs], ws, bias, None, None, None, None, [2, 5, 8], 2), (), "split M, single x and y"),
            Sample(([xs], ws, None, None, None, None, None, [3, 3, 8], 3), (), "split M, an empty group"),
            Sample((sep, ws, bias, None, None, None, None, None, 0), (), "separated x and y")]


def v1_ref(x, w, bias, scale, offset, aqs, aqo, group_list, split_item):
    x, w, bias = tl(x), tl(w), tl(bias)
    dt = x[0].dtype
    if len(x) > 1:
        return gmm_ref(x, w, bias, [(a.shape[0], w[0].shape[1]) for a in x], None, -1, dtype=dt)
    return gmm_ref(x, w, bias, [(x[0].shape[0], w[0].shape[1])], group_list, 0, dtype=dt)


def v2_samples(dtype, rng):
    out = [Sample(s.operands[:9] + (0,), (), s.name) for s in v1_samples(dtype, rng)[:2]]
    k, n = 12, 5
    out.append(Sample(([arr(rng, (4, k), dtype)], [arr(rng, (k, n), dtype)], None, None, None, None, None, [3, 3, 12],
                       3, 2), (), "split K"))
    return out


def v2_ref(x, w, bias, scale, offset, aqs, aqo, group_list, split_item, group_type):
    x, w, bias = tl(x), tl(w), tl(bias)
    dt = x[0].dtype
    if group_type == 2:
        return gmm_ref(x, w, bias, [(len(group_list), x[0].shape[0], w[0].shape[1])], group_list, 2, dtype=dt)
    return v1_ref(x, w, bias, scale, offset, aqs, aqo, group_list, split_item)


def v3_samples(dtype, rng):
    out = [Sample(s.operands[:7] + (None if s.operands[7] is None else np.array(s.operands[7], np.int64),)
                  + s.operands[8:], (), s.name) for s in v2_samples(dtype, rng)]
    first = out[0].operands
    out.append(Sample(first[:7] + (np.array([2, 5, 6], np.int64),) + first[8:], (), "rows past the group list"))
    return out


# ---- V4 (group list types, activations, a single (e, k, n) weight) ------------------------------------------------------

def v4_samples(dtype, rng):
    k, n = 16, 8
    x = arr(rng, (9, k), dtype)
    w3 = arr(rng, (3, k, n), dtype)
    bias = [arr(rng, (3, n), bias_dtype(dtype))]
    none9 = (None,) * 3
    out = []
    for act in (0, 1, 2, 4, 5):
        out.append(Sample(([x], [w3], bias, None, None, None, None, None, np.array([2, 3, 4], np.int64)) + none9 +
                          (3, 0, 1, act), (), f"counts, single weight, act {act}"))
    out.append(Sample(([x], [w3], None, None, None, None, None, None, np.array([1, 1, 9], np.int64)) + none9 +
                      (3, 0, 0, 0), (), "cumulative"))
    return out


def v4_ref(x, w, bias, scale, offset, aqs, aqo, pt, group_list, ain, aqsc, aqoff, split_item, group_type, list_type,
           act, tuning=None):
    x, w, bias = tl(x), tl(w), tl(bias)
    dt = x[0].dtype
    ys = gmm_ref(x, w, [b for b in bias[0]] if bias else None, [(x[0].shape[0], w[0].shape[-1])], group_list, 0,
                 list_type, act, dtype=dt)
    return (ys, None, None)


# ---- V5 (quantised and weight-only quantised groups) ---------------------------------------------------------------------

def v5_samples(dtype, rng):
    out = [Sample(s.operands[:16] + (None,), (), s.name) for s in v4_samples(dtype, rng)[:2]]
    m, k, n = 7, 32, 6
    groups = np.array([3, 4], np.int64)
    none3 = (None,) * 3
    if dtype == "bfloat16":  # W8A8 per-token: bf16 scale per expert, float32 per-token scale, bf16 out
        x, w = i8(rng, (m, k)), i8(rng, (2, k, n))
        scale = [rng.uniform(1e-4, 1e-3, (2, n)).astype(np.float32).astype(np_dtype("bfloat16"))]
        pt = [rng.uniform(0.5, 1.5, (m,)).astype(np.float32)]
        out.append(Sample(([x], [w], None, scale, None, None, None, pt, groups) + none3 + (3, 0, 1, 0, None), (),
                          "W8A8 per token"))
    if dtype == "float16":  # W8A16 per channel with offsets
        x, w = arr(rng, (m, k), dtype), [i8(rng, (k, n)), i8(rng, (k, n))]
        aqs = [arr(rng, (n,), dtype, 0.01, 0.1) for _ in range(2)]
        aqo = [arr(rng, (n,), dtype, -2, 2) for _ in range(2)]
        out.append(Sample(([x], w, None, None, None, aqs, aqo, None, groups) + none3 + (3, 0, 1, 0, None), (),
                          "W8A16 per channel"))
    return out


def v5_ref(x, w, bias, scale, offset, aqs, aqo, pt, group_list, ain, aqsc, aqoff, split_item, group_type, list_type,
           act, tuning):
    xs, ws = tl(x), tl(w)
    shape = [(xs[0].shape[0], ws[0].shape[-1])]
    if xs[0].dtype == torch.int8:
        sc, ptv = t(scale[0]), t(pt[0])

        def quant(g, xg, wg, rows):
            acc = xg.numpy().astype(np.int64) @ wg.numpy().astype(np.int64)
            return dequant(acc, sc[g], ptv[rows[0]:rows[1]].numpy(), None, torch.bfloat16).float()
        return (gmm_ref(xs, ws, None, shape, group_list, 0, list_type, dtype=torch.bfloat16, quant=quant), None, None)
    if aqs is not None:
        dt = xs[0].dtype

        def quant(g, xg, wg, rows):
            return xg.float() @ antiquant(wg, aqs[g], aqo[g] if aqo else None, 0, dt)
        return (gmm_ref(xs, ws, None, shape, group_list, 0, list_type, dtype=dt, quant=quant), None, None)
    return v4_ref(x, w, bias, scale, offset, aqs, aqo, pt, group_list, ain, aqsc, aqoff, split_item, group_type,
                  list_type, act)


GMM_TOL = dict(Q_TOL, float32=(2e-5, 5e-5))

ENTRIES = [
    OpInfo("aclnnGroupedMatmul", v1_ref, FLOATS, kind="custom", samples=v1_samples, native16=True, tol=GMM_TOL,
           outputs=("y",)),
    OpInfo("aclnnGroupedMatmulV2", v2_ref, FLOATS, kind="custom", samples=v2_samples, native16=True, tol=GMM_TOL,
           outputs=("y",)),
    OpInfo("aclnnGroupedMatmulV3", v2_ref, FLOATS, kind="custom", samples=v3_samples, native16=True, tol=GMM_TOL,
           outputs=("y",)),
    OpInfo("aclnnGroupedMatmulV4", v4_ref, FLOATS, kind="custom", samples=v4_samples, native16=True, tol=GMM_TOL),
    OpInfo("aclnnGroupedMatmulV5", v5_ref, FLOATS, kind="custom", samples=v5_samples, native16=True, tol=GMM_TOL),
]
