"""ops-nn quantised matrix products: quant_matmul (v1, v2), quant_batch_matmul v3/v4/v5, weight_quant_batch_matmul
v2/v3.

Oracles in numpy: exact int64 sums of the int8/int4 operands, then the dequantisation in float32 in the order the
engine documents (+ int32 bias, * scale, * per-token scale, + float bias; an INT8 output adds the offset and rounds
half to even); the weight-only products dequantise the weight in the activations' dtype and multiply in float32.
"""

import numpy as np
import torch

from . import OpInfo, Sample, np_dtype
from .nn_quant import pack_int4, pack_param

Q_TOL = {"float32": (2e-5, 2e-5), "float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2)}


def i8(rng, shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


def f32(t):
    return t.float().numpy() if isinstance(t, torch.Tensor) else np.asarray(t, np.float32)


def param_scale(s):
    """The float32 of a UINT64/INT64 quantisation parameter, or a float scale as it is."""
    if isinstance(s, torch.Tensor):
        s = s.float().numpy() if s.is_floating_point() else s.numpy()
    s = np.asarray(s)
    if s.dtype in (np.int64, np.uint64):
        return (s.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.float32), \
            (((s.astype(np.int64) >> 37) & 0x1FF) - np.where(((s.astype(np.int64) >> 37) & 0x1FF) >= 256, 512, 0))
    return f32(s), None


def ints(t):
    v = t.numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    from .nn_quant import unpack_int4
    return unpack_int4(v) if v.dtype == np.int32 else v.astype(np.int64)


def dequant(acc, scale, pertoken, bias, out_dtype, offset=None):
    a = acc
    if bias is not None and np.asarray(bias).dtype == np.int32:
        a = (a + np.asarray(bias).astype(np.int64)).astype(np.int32)
    if out_dtype == torch.int32:
        return torch.from_numpy(a.astype(np.int32))
    s, poff = param_scale(scale)
    v = (a.astype(np.float32) * s).astype(np.float32)
    if pertoken is not None:
        v = (v * f32(pertoken)[..., :, None]).astype(np.float32)
    if bias is not None and np.asarray(bias).dtype != np.int32:
        v = (v + f32(bias)).astype(np.float32)
    if out_dtype == torch.int8:
        off = f32(offset) if offset is not None else (poff.astype(np.float32) if poff is not None else 0)
        return torch.from_numpy(np.clip(np.rint(v + off), -128, 127).astype(np.int8))
    return torch.from_numpy(v).to(out_dtype)


def mm(x1, x2, t1, t2):
    a, b = ints(x1), ints(x2)
    if t1:
        a = a.swapaxes(-1, -2)
    if t2:
        b = b.swapaxes(-1, -2)
    return np.matmul(a, b)


# ---- V3 / V4 --------------------------------------------------------------------------------------------------------
# Samples by the out dtype the entry's dtype stands for: float16 -> FLOAT16 (packed UINT64 scale or per-token),
# bfloat16 -> BF16 (float scales), int8 -> INT8 (packed scale with offset), int32 -> INT32.

def v4_samples(dtype, rng):
    m, k, n = 5, 32, 7
    x1, x2 = i8(rng, (m, k)), i8(rng, (k, n))
    bias = rng.integers(-1000, 1000, (n,)).astype(np.int32)
    scale_f = rng.uniform(1e-4, 1e-3, (n,)).astype(np.float32)
    pt = rng.uniform(0.5, 1.5, (m,)).astype(np.float32)
    if dtype == "float16":
        packed = pack_param(scale_f).numpy()
        return [Sample((x1, x2, packed, None, None, bias, False, False), (), "packed scale, int32 bias"),
                Sample((x1, i8(rng, (n, k)), scale_f, None, pt, None, False, True), (), "per token, x2 transposed"),
                Sample((i8(rng, (2, m, k)), x2, packed[:1], None, None, None, False, False), (), "batched, one scale")]
    if dtype == "bfloat16":
        bias_f = rng.uniform(-1, 1, (n,)).astype(np.float32)
        return [Sample((x1, x2, scale_f, None, None, bias_f, False, False), (), "float scale and bias"),
                Sample((i8(rng, (k, m)), x2, torch.from_numpy(scale_f).bfloat16(), None, pt, bias, True, False), (),
                       "bf16 scale, per token, x1 transposed")]
    if dtype == "int8":
        off = rng.uniform(-5, 5, (n,)).astype(np.float32)
        return [Sample((x1, x2, pack_param(scale_f * 50).numpy(), off, None, bias, False, False), (), "offset"),
                Sample((x1, x2, pack_param(scale_f * 50, off).numpy(), None, None, None, False, False), (),
                       "offset packed in the parameter")]
    return [Sample((x1, x2, scale_f, None, None, bias, False, False), (), "int32 out")]


OUT = {"float16": torch.float16, "bfloat16": torch.bfloat16, "int8": torch.int8, "int32": torch.int32}


def v4_ref_for(dtype):
    def ref(x1, x2, scale, offset, pertoken, bias, t1, t2):
        acc = mm(x1, x2, t1, t2)
        return dequant(acc, scale, pertoken, None if bias is None else np.asarray(bias.numpy() if
                       isinstance(bias, torch.Tensor) else bias), OUT[dtype], offset)
    return ref


class ByOut:
    """An oracle told the out dtype by its samples function (these entries' dtypes name the out dtype: the inputs
    are INT8 whatever it is)."""

    def __init__(self, fn):
        self.fn = fn
        self.dtype = None

    def __call__(self, *args):
        return self.fn(self.dtype, *args)


def v4_samples_tagged(dtype, rng):
    V4_REF.dtype = dtype
    return v4_samples(dtype, rng)


V4_REF = ByOut(lambda dt, x1, x2, s, o, p, b, t1, t2: v4_ref_for(dt)(x1, x2, s, o, p, b, t1, t2))


def v3_samples(dtype, rng):
    V3_REF.dtype = dtype
    return [Sample(x.operands[:4] + x.operands[5:], (), x.name) for x in v4_samples(dtype, rng)
            if x.operands[4] is None]


V3_REF = ByOut(lambda dt, x1, x2, s, o, b, t1, t2: v4_ref_for(dt)(x1, x2, s, o, None, b, t1, t2))


# ---- V5 ----------------------------------------------------------------------------------------------------------------

def v5_samples(dtype, rng):
    V5_REF.dtype = dtype
    out = []
    for x in v4_samples(dtype, rng):
        x1, x2, scale, offset, pt, bias, t1, t2 = x.operands
        out.append(Sample((x1, x2, pt, scale, None, None, offset, None, bias, t1, t2, 0), (), x.name))
    if dtype == "float16":  # int4 operands, eight to an int32
        m, k, n = 3, 16, 8
        a, b = rng.integers(-8, 8, (m, k)), rng.integers(-8, 8, (k, n))
        out.append(Sample((pack_int4(a).numpy(), pack_int4(b).numpy(), None,
                           pack_param(rng.uniform(1e-3, 1e-2, (n,))).numpy(), None, None, None, None, None, False, False,
                           0), (), "int4 packed in int32"))
    if dtype == "bfloat16":  # pergroup-perblock: k and n in blocks of 128
        m, k, n = 4, 256, 256
        x1, x2 = i8(rng, (m, k)), i8(rng, (n, k))
        s1 = rng.uniform(0.5, 1.5, (m, 2)).astype(np.float32)
        s2 = rng.uniform(1e-4, 1e-3, (2, 2)).astype(np.float32)
        bias = rng.uniform(-1, 1, (n,)).astype(np.float32)
        gs = (1 << 32) | (128 << 16) | 128
        out.append(Sample((x1, x2, s1, s2, None, None, None, None, bias, False, True, gs), (), "pergroup-perblock"))
    if dtype in ("float16", "bfloat16"):  # A8W4: INT8 x1, int4 x2 packed eight to an int32 along n
        m, n = 3, 16
        for name, k, groups, group in (("A8W4 K-G", 512, 2, 256), ("A8W4 per channel", 62, 0, 0)):
            w = rng.integers(-8, 8, (k, n))
            s2 = pack_param(rng.uniform(1e-3, 1e-2, (groups, n) if groups else (n,))).numpy().view(np.uint64)
            s2 = s2.reshape((groups, n) if groups else (n,))
            s1 = rng.uniform(0.5, 2.0, (m, 1) if groups else (m,)).astype(np.float32)
            yo = rng.uniform(-1, 1, (n,)).astype(np.float32)
            out.append(Sample((i8(rng, (m, k)), pack_int4(w).numpy(), s1, s2, None, None, None, yo, None, False, False,
                               group), (), name))
    return out


def v5_ref(dt, x1, x2, x1s, x2s, ys, x1o, x2o, yo, bias, t1, t2, group):
    if np.asarray(x1).dtype == np.int8 and np.asarray(x2).dtype == np.int32:  # A8W4: per group of 256 k or per channel
        a, b = ints(x1), ints(x2)
        s2 = param_scale(np.asarray(x2s))[0].reshape(-1, b.shape[1])
        size = 256 if group else a.shape[1]
        acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
        for g in range(s2.shape[0]):
            part = (a[:, g * size:(g + 1) * size] @ b[g * size:(g + 1) * size]).astype(np.float32)
            acc = (acc + (part * s2[g]).astype(np.float32)).astype(np.float32)
        v = ((acc + f32(yo)).astype(np.float32) * f32(x1s).reshape(-1, 1)).astype(np.float32)
        return torch.from_numpy(v).to(OUT[dt])
    if x1s is not None and np.asarray(x1s).ndim == 2:  # G-B
        a, b = ints(x1), ints(x2).T
        s1, s2 = f32(x1s), f32(x2s)
        acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
        for g in range(s1.shape[1]):
            part = (a[:, g * 128:(g + 1) * 128] @ b[g * 128:(g + 1) * 128]).astype(np.float32)
            sc = (s1[:, g:g + 1] * np.repeat(s2[:, g], 128)[None, :b.shape[1]]).astype(np.float32)
            acc = (acc + (part * sc).astype(np.float32)).astype(np.float32)
        return torch.from_numpy((acc + f32(bias)).astype(np.float32)).bfloat16()
    b = None if bias is None else np.asarray(bias.numpy() if isinstance(bias, torch.Tensor) else bias)
    return dequant(mm(x1, x2, t1, t2), x2s, x1s, b, OUT[dt], x2o)


V5_REF = ByOut(v5_ref)


# ---- QuantMatmul, V2 ------------------------------------------------------------------------------------------------------

def qmv2_samples(dtype, rng):
    m, k, n = 4, 16, 20
    scale = rng.uniform(1e-4, 1e-3, (32,)).astype(np.float32)
    return [Sample((i8(rng, (m, k)), i8(rng, (k, n)), rng.integers(-500, 500, (n,)).astype(np.int32),
                    pack_param(scale).numpy().view(np.uint64), False, False), (), "bias"),
            Sample((i8(rng, (k, m)), i8(rng, (n, k)), None, pack_param(scale).numpy().view(np.uint64), True, True), (),
                   "adjoints")]


def qmv2_ref(x1, x2, bias, deq, a1, a2):
    b = None if bias is None else bias.numpy()
    s = deq.numpy()[:mm(x1, x2, a1, a2).shape[-1]]
    return dequant(mm(x1, x2, a1, a2), s, None, b, torch.float16)


def qmv1_samples(dtype, rng):
    m, k, n = 4, 16, 20
    return [Sample((i8(rng, (m, k)), i8(rng, (k, n)), rng.integers(-500, 500, (n,)).astype(np.int32), 3.0e-4), (),
                   "bias")]


def qmv1_ref(x1, x2, bias, deq):
    return dequant(mm(x1, x2, False, False), pack_param(np.float32(deq)).numpy(), None, bias.numpy(), torch.float16)


# ---- WeightQuantBatchMatmul V2 / V3 -----------------------------------------------------------------------------------------

def wq_samples(dtype, rng):
    m, k, n = 5, 64, 6
    def fl(shape, lo, hi):  # noqa: E306
        return rng.uniform(lo, hi, shape).astype(np.float32).astype(np_dtype(dtype))
    x, w = fl((m, k), -1, 1), i8(rng, (k, n))
    out = [Sample((x, w, fl((n,), 0.01, 0.1), fl((n,), -2, 2), None, None, None, 0), (), "per channel"),
           Sample((x, w, fl((2, n), 0.01, 0.1), None, None, None, None, 32), (), "per group of 32"),
           Sample((x, pack_int4(rng.integers(-8, 8, (k, n * 8))).numpy(), fl((1,), 0.01, 0.1), None, None, None,
                   rng.uniform(-1, 1, (n * 8,)).astype(np.float32) if dtype == "bfloat16" else fl((n * 8,), -1, 1),
                   0), (), "int4 in int32, bias")]
    return out


def antiquant(w, scale, offset, group, dt):
    wv = ints(w).astype(np.float32)
    s, _ = param_scale(scale)
    s = f32(s)
    k = wv.shape[0]
    rows = np.arange(k) // group if group else np.zeros(k, int)
    s = s.reshape(-1, s.shape[-1]) if s.ndim == 2 else s.reshape(1, -1)
    sv = s[np.minimum(rows, s.shape[0] - 1)]
    t = torch.from_numpy(wv)
    if offset is not None:
        o = f32(offset)
        o = o.reshape(-1, o.shape[-1]) if o.ndim == 2 else o.reshape(1, -1)
        t = (t + torch.from_numpy(o[np.minimum(rows, o.shape[0] - 1)])).to(dt).float()
    return (t * torch.from_numpy(sv)).to(dt).float()


def wq_ref(x, w, scale, offset, qscale, qoffset, bias, group, inner=None):
    dt = x.dtype
    wd = antiquant(w, scale, offset, group, dt)
    r = x.float() @ wd
    if bias is not None:
        r = r + torch.as_tensor(f32(bias))
    return r.to(dt)


# ---- BatchMatmulQuant ---------------------------------------------------------------------------------------------

def bq_samples(dtype, rng):
    h = lambda *s: rng.uniform(-2, 2, s).astype(np.float16)  # noqa: E731
    n = 20
    scale, offset = rng.uniform(0.05, 0.5, (n,)), rng.integers(-20, 20, (n,)).astype(np.float32)
    per_col = np.zeros(32, np.uint64)
    per_col[:n] = pack_param(scale, offset).numpy().view(np.uint64).reshape(-1)
    one = pack_param(np.array([0.25]), np.array([3.0])).numpy().view(np.uint64).reshape(-1)
    return [Sample((h(5, 24), h(24, n), per_col, h(n), False, False), (), "per column, bias"),
            Sample((h(2, 24, 5), h(2, n, 24), one, None, True, True), (), "batched, transposed, one parameter"),
            Sample((h(3, 1, 4, 40), h(3, 2, 40, n), per_col, None, False, False), (), "broadcast batch")]


def bq_ref(x1, x2, qp, bias, t1, t2):
    a, b = f32(x1), f32(x2)
    a, b = (np.swapaxes(a, -1, -2) if t1 else a), (np.swapaxes(b, -1, -2) if t2 else b)
    v = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    if bias is not None:
        v = (v + f32(bias)).astype(np.float32)
    s, o = param_scale(qp)
    n = v.shape[-1]
    s, o = (s[:1], o[:1]) if s.size == 1 else (s[:n], o[:n])
    q = np.rint((v * s).astype(np.float32) + o.astype(np.float32))
    return torch.from_numpy(np.clip(q, -128, 127).astype(np.int8))


ENTRIES = [
    OpInfo("aclnnQuantMatmulV4", V4_REF, ("float16", "bfloat16", "int8", "int32"), kind="custom",
           samples=v4_samples_tagged, tol=Q_TOL, native16=True),
    OpInfo("aclnnQuantMatmulV3", V3_REF, ("float16", "bfloat16", "int8", "int32"), kind="custom", samples=v3_samples,
           tol=Q_TOL, native16=True),
    OpInfo("aclnnQuantMatmulV5", V5_REF, ("float16", "bfloat16", "int8", "int32"), kind="custom", samples=v5_samples,
           tol=Q_TOL, native16=True),
    OpInfo("aclnnQuantMatmulV2", qmv2_ref, ("float16",), kind="custom", samples=qmv2_samples, tol=Q_TOL, native16=True),
    OpInfo("aclnnQuantMatmul", qmv1_ref, ("float16",), kind="custom", samples=qmv1_samples, tol=Q_TOL, native16=True),
    OpInfo("aclnnWeightQuantBatchMatmulV2", wq_ref, ("float16", "bfloat16"), kind="custom", samples=wq_samples,
           tol=Q_TOL, native16=True),
    OpInfo("aclnnBatchMatmulQuant", bq_ref, ("float16",), kind="custom", samples=bq_samples, native16=True,
           tol={"int8": (0, 1)}),
    OpInfo("aclnnWeightQuantBatchMatmulV3", lambda *a: wq_ref(*a[:8]), ("float16", "bfloat16"), kind="custom",
           samples=lambda d, r: [Sample(s.operands + (1,), (), s.name) for s in wq_samples(d, r)], tol=Q_TOL,
           native16=True),
]
