"""ops-transformer fused grouped matmuls: GroupedMatmulAdd, GroupedMatmulSwigluQuant (+WeightNZ).

GroupedMatmulAdd's oracle adds each k-group's x^T @ w (16-bit operands widened exactly, float32 sums in torch) to
its m rows of y. GroupedMatmulSwigluQuant's computes the int32 products exactly (int64 numpy), dequantises in
float32 in the kernel's order ((acc * weightScale) * xScale), applies SwiGLU (silu of the first half times the
second) and quantises each row symmetrically (scale max|S| / 127, round half to even); the INT8 results may differ
by one where the float32 silu of the oracle and the stub round differently next to a .5 boundary.
"""

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype
from .nn_quant_matmul import i8


def arr(rng, shape, dtype, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(np_dtype(dtype))


def t(a):
    if isinstance(a, torch.Tensor):
        return a
    a = np.ascontiguousarray(a)
    if a.dtype == np_dtype("bfloat16"):
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


# ---- GroupedMatmulAdd ---------------------------------------------------------------------------------------------------

def add_samples(dtype, rng):
    out = []
    if dtype == "float32":
        return out
    for ends, m, n, name in (([5, 12, 16], 6, 7, "three groups"), ([0, 9, 9], 4, 33, "empty groups"),
                             ([300], 3, 5, "one long group")):
        k = ends[-1]
        x, w = arr(rng, (k, m), dtype), arr(rng, (k, n), dtype)
        y = rng.uniform(-1, 1, (len(ends) * m, n)).astype(np.float32)
        out.append(Sample((x, w, np.array(ends, np.int64), y, True, False, 2), (), name))
    return out


def add_ref(x, w, gl, y, tx, tw, gt):
    x, w, y = t(x).float(), t(w).float(), t(y).clone()
    m, start = x.shape[1], 0
    for g, end in enumerate(t(gl).tolist()):
        y[g * m:(g + 1) * m] += x[start:end].T @ w[start:end]
        start = end
    return y


def add_call(sample, expected):
    import aclnn_py

    ops = list(sample.operands)
    y = np.array(ops[3], copy=True)
    aclnn_py.run("aclnnGroupedMatmulAdd", ops[0], ops[1], ops[2], y, *ops[4:])
    return y


# ---- GroupedMatmulSwigluQuant -----------------------------------------------------------------------------------------------

def to_nz(w):
    """(e, k, n) INT8 -> the FRACTAL_NZ storage (e, n / 32, k / 16, 16, 32)."""
    e, k, n = w.shape
    return np.ascontiguousarray(w.reshape(e, k // 16, 16, n // 32, 32).transpose(0, 3, 1, 2, 4))


def sq_samples(dtype, rng):
    out = []
    for m, k, n, ends, name in ((11, 32, 64, [3, 3, 9], "groups with an empty one, rows past the last"),
                                (40, 48, 96, [17, 40], "two experts")):
        e = len(ends) + 1
        x, w = i8(rng, (m, k)), i8(rng, (e, k, n))
        ws = arr(rng, (e, n), dtype, 1e-3, 5e-3)
        xs = arr(rng, (m,), dtype, 0.5, 1.5)
        out.append(Sample((x, w, ws, xs, np.array(ends, np.int64)), (), name))
    x = i8(rng, (4, 32))
    x[1] = 0
    out.append(Sample((x, i8(rng, (2, 32, 64)), arr(rng, (2, 64), dtype, 1e-3, 5e-3), arr(rng, (4,), dtype, 0.5, 1.5),
                       np.array([2, 4], np.int64)), (), "a row of zeros"))
    return out


def sq_ref(x, w, ws, xs, gl):
    x, w = t(x), t(w)
    m, n2 = x.shape[0], w.shape[2] // 2
    q = np.zeros((m, n2), np.int8)
    scale = np.zeros((m,), np.float32)
    wsf, xsf = t(ws).float(), t(xs).float()
    start = 0
    for g, end in enumerate(t(gl).tolist()):
        if end == start:
            continue
        acc = x[start:end].double() @ w[g].double()
        c = acc.float() * wsf[g] * xsf[start:end, None]
        s = torch.nn.functional.silu(c[:, :n2]) * c[:, n2:]
        sc = s.abs().amax(dim=1) / 127
        qq = torch.nan_to_num(torch.round(s / sc[:, None]), nan=0.0).clamp(-128, 127)
        q[start:end] = qq.numpy().astype(np.int8)
        scale[start:end] = sc.numpy()
        start = end
    return q, scale


def sq_call(name, nz_view):
    def call(sample, expected):
        import aclnn_py

        x, w, ws, xs, gl = sample.operands
        wn = to_nz(w)
        wt = aclnn_py.Tensor.from_dlpack(torch.from_numpy(wn))
        shape = wn.shape if nz_view else w.shape
        strides = wt.strides if nz_view else (w.shape[1] * w.shape[2], w.shape[2], 1)
        wt = aclnn_py.Tensor(shape, wt.dtype, strides=strides, offset=0, buffer=wt.buffer,
                             format=aclnn_py.acl.ACL_FORMAT_FRACTAL_NZ, storage_shape=wn.shape)
        q = np.zeros(expected[0].shape, np.int8)
        scale = np.zeros(expected[1].shape, np.float32)
        aclnn_py.run(name, x, wt, None, None, ws, xs, gl, q, scale, None)
        return q, scale
    return call


SQ_TOL = {"int8": (0, 1), "float32": (1e-5, 1e-6), "float16": (1e-5, 1e-6), "bfloat16": (1e-5, 1e-6)}

ENTRIES = [
    OpInfo("aclnnGroupedMatmulAdd", add_ref, ("float16", "bfloat16"), kind="custom", samples=add_samples,
           call=add_call, native16=True, tol={"float16": (2e-5, 5e-5), "bfloat16": (2e-5, 5e-5)}),
    OpInfo("aclnnGroupedMatmulSwigluQuant", sq_ref, FLOATS, kind="custom", samples=sq_samples,
           call=sq_call("aclnnGroupedMatmulSwigluQuant", True), native16=True, tol=SQ_TOL),
    OpInfo("aclnnGroupedMatmulSwigluQuantWeightNZ", sq_ref, FLOATS, kind="custom", samples=sq_samples,
           call=sq_call("aclnnGroupedMatmulSwigluQuantWeightNZ", False), native16=True,
           tol=SQ_TOL),
]


# ---- GroupedMatmulFinalizeRoutingWeightNz (+V2) ---------------------------------------------------------------------------

def fr_samples(dtype, rng):
    m, k, n, e, bs = 12, 32, 256, 3, 8
    out = []
    x, w = i8(rng, (m, k)), i8(rng, (e, k, n))
    scale = rng.uniform(1e-3, 5e-3, (e, n)).astype(np.float32)
    pt = rng.uniform(0.5, 1.5, (m,)).astype(np.float32)
    logit = rng.uniform(0, 1, (m,)).astype(np.float32)
    row = rng.integers(0, bs, (m,)).astype(np.int64)
    shared = rng.uniform(-1, 1, (3, n)).astype(np.float32).astype(np_dtype("bfloat16"))
    counts = np.array([4, 0, 6], np.int64)
    out.append(Sample((x, w, scale, pt, counts, shared, logit, row, 0.5, 2, bs), (), "shared rows 2..4, 10 of 12 rows"))
    out.append(Sample((x, w, scale, None, np.array([5, 5, 2], np.int64), None, None, row, 1.0, 0, bs), (),
                      "no shared input, no logit, no per-token scale"))
    return out


def fr_ref(x, w, scale, pt, counts, shared, logit, row, sw, so, bs):
    x, w = t(x), t(w)
    n = w.shape[2]
    y = torch.zeros((bs, n), dtype=torch.float32)
    if shared is not None:
        s = t(shared).float()
        y[so:so + s.shape[0]] = s * sw
    fac = torch.ones(x.shape[0])
    if pt is not None and logit is not None:
        fac = t(pt) * t(logit)
    elif pt is not None:
        fac = t(pt).clone()
    start = 0
    for g, cnt in enumerate(t(counts).tolist()):
        if cnt:
            acc = x[start:start + cnt].double() @ w[g].double()
            v = acc.float() * t(scale)[g] * fac[start:start + cnt, None]
            for i in range(cnt):
                y[int(t(row)[start + i])] += v[i]
        start += cnt
    return y


def fr_call(name):
    def call(sample, expected):
        import aclnn_py

        x, w, scale, pt, counts, shared, logit, row, sw, so, bs = sample.operands
        wt = aclnn_py.Tensor.from_dlpack(torch.from_numpy(to_nz(w)))
        wt = aclnn_py.Tensor(w.shape, wt.dtype, strides=(w.shape[1] * w.shape[2], w.shape[2], 1), offset=0,
                             buffer=wt.buffer, format=aclnn_py.acl.ACL_FORMAT_FRACTAL_NZ,
                             storage_shape=to_nz(w).shape)
        y = np.full((bs, w.shape[2]), 7.0, np.float32)  # every element written
        if name.endswith("V2"):
            aclnn_py.run(name, x, wt, scale, None, None, None, None, pt, counts, shared, logit, row, 0, sw, so,
                         False, False, 1, None, y)
        else:
            aclnn_py.run(name, x, wt, scale, None, pt, counts, shared, logit, row, 0, sw, so, False, False, 1, y)
        return y
    return call


FR_TOL = {"float32": (1e-5, 1e-5)}
ENTRIES += [
    OpInfo("aclnnGroupedMatmulFinalizeRoutingWeightNz", fr_ref, ("float32",), kind="custom", samples=fr_samples,
           call=fr_call("aclnnGroupedMatmulFinalizeRoutingWeightNz"), native16=True, tol=FR_TOL),
    OpInfo("aclnnGroupedMatmulFinalizeRoutingWeightNzV2", fr_ref, ("float32",), kind="custom", samples=fr_samples,
           call=fr_call("aclnnGroupedMatmulFinalizeRoutingWeightNzV2"), native16=True, tol=FR_TOL),
]
