"""ops-nn quantisation: trans_quant_param v2/v3, ascend_quant (v1, v3), ascend_anti_quant, dynamic_quant (v1, v2),
quantize.

The oracles are the documented formulas computed in float32 with numpy (IEEE arithmetic, so the results are exact
matches where the kernels' order of operations is followed: x * scale [* scale] + offset, then the rounding mode and
saturation; dynamic quantisation as dtypeMax / max, x * that, scale = its reciprocal).
"""

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, random_array

INT8, INT32, INT4, FLOAT16, BF16 = 2, 3, 29, 1, 27


def f32(t):
    return t.float().numpy() if isinstance(t, torch.Tensor) else np.asarray(t, np.float32)


def rounding(v, mode):
    return {"round": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}[mode](v)


def saturate(v, lo, hi):
    return np.clip(np.nan_to_num(v, nan=0.0), lo, hi).astype(np.int64)


def pack_int4(q):
    """int4 values (the last dim a multiple of 8) packed eight to an int32, the first in the low bits."""
    q = (np.asarray(q, np.int64) & 0xF).reshape(q.shape[:-1] + (-1, 8))
    packed = np.zeros(q.shape[:-1], np.uint32)
    for i in range(8):
        packed |= (q[..., i].astype(np.uint32) << np.uint32(4 * i))
    return torch.from_numpy(packed.view(np.int32))


def arr(rng, shape, dtype, lo=-2.0, hi=2.0):
    return random_array(rng, shape, dtype, (lo, hi), (-128, 127))


# ---- trans_quant_param ---------------------------------------------------------------------------------------------

def pack_param(scale, offset=None, round_mode=0):
    s = np.asarray(scale, np.float32).reshape(-1)
    u = s.view(np.uint32).astype(np.uint64)
    if round_mode == 1:
        exp = (u >> 23) & 0xFF
        man = u & 0x7FFFFF
        m19 = man >> 13
        up = (((man >> 12) & 1) == 1) & (((man & 0xFFF) != 0) | ((m19 & 1) == 1))
        m19 = np.where(up & (exp != 0) & (exp != 0xFF), m19 + 1, m19)
        carry = m19 >= 1024
        exp = np.where(carry, exp + 1, exp)
        m19 = np.where(carry, 0, m19)
        f19 = ((u >> 31) << 18) | (exp << 10) | m19
        f19 = np.where(exp == 0, (u >> 31) << 18, f19)
        bits = f19 << 13
    else:
        bits = u & 0xFFFFE000
    out = bits | (1 << 46)
    if offset is not None:
        o = np.clip(np.rint(np.asarray(offset, np.float32).reshape(-1)), -256, 255).astype(np.int64)
        out = (out & 0x4000FFFFFFFF) | ((o.astype(np.uint64) & 0x1FF) << 37)
    return torch.from_numpy(out.astype(np.uint64).view(np.int64))


def tqp_samples(dtype, rng):
    s = rng.uniform(1e-4, 2, 8).astype(np.float32)
    s[0] = 1.0 + 2.0 ** -12  # rounds differently in V3's mode 1
    o = rng.uniform(-300, 300, 8).astype(np.float32)
    return [Sample((s, None), (), "scale"), Sample((s, o), (), "scale and offset"),
            Sample((s[:1], o), (), "one scale, eight offsets")]


def tqp3_samples(dtype, rng):
    return [Sample(x.operands, (mode,), f"{x.name}, roundMode {mode}") for x in tqp_samples(dtype, rng)
            for mode in (0, 1)]


def tqp_ref(scale, offset, round_mode=0):
    s, o = f32(scale), None if offset is None else f32(offset)
    if o is not None and s.size == 1 and o.size > 1:
        s = np.repeat(s, o.size)
    return pack_param(s, o, round_mode)


# ---- ascend_quant ----------------------------------------------------------------------------------------------------

def aq_samples(dtype, rng, axis=False):
    out = []
    x = arr(rng, (4, 16), dtype, -300, 300)
    s = arr(rng, (16,), dtype, 0.05, 2)
    o = arr(rng, (16,), dtype, -3, 3)
    tail = (-1,) if axis else ()
    for mode in ("round", "floor", "ceil", "trunc"):
        out.append(Sample((x, s, o), (False, mode, INT8) + tail, f"{mode}, per channel"))
    out.append(Sample((x, s[:1], None), (True, "round", INT8) + tail, "sqrt mode, one scale"))
    out.append(Sample((arr(rng, (4, 16), dtype, -9, 9), s, o), (False, "round", INT32) + tail, "int4 in int32"))
    if axis:
        out.append(Sample((x, arr(rng, (4,), dtype, 0.05, 2), arr(rng, (4,), dtype, -3, 3)), (False, "round", INT8, -2),
                          "axis -2"))
    return out


def aq_ref(x, scale, offset, sqrt_mode, mode, dst, axis=-1):
    xv, s = f32(x), f32(scale)
    if s.size > 1 and axis in (-2, xv.ndim - 2):
        s = s.reshape(-1, 1)
    v = xv * s
    if sqrt_mode:
        v = v * s
    if offset is not None:
        o = f32(offset)
        v = v + (o.reshape(-1, 1) if o.size > 1 and axis in (-2, xv.ndim - 2) else o)
    q = rounding(v.astype(np.float32), mode)
    if dst == INT32:
        return pack_int4(saturate(q, -8, 7))
    return torch.from_numpy(saturate(q, -128, 127).astype(np.int8))


# ---- ascend_anti_quant -----------------------------------------------------------------------------------------------

def aaq_samples(dtype, rng):
    x = rng.integers(-128, 128, (4, 8)).astype(np.int8)
    packed = pack_int4(rng.integers(-8, 8, (3, 16))).numpy()
    s = arr(rng, (8,), dtype, 0.01, 2)
    o = arr(rng, (8,), dtype, -3, 3)
    dst = FLOAT16 if dtype == "float32" else BF16
    return [Sample((x, s, o), (dst, False), "per channel"), Sample((x, s[:1], o[:1]), (dst, True), "sqrt mode"),
            Sample((packed, arr(rng, (16,), dtype, 0.01, 2), None), (dst, False), "int4 in int32")]


def unpack_int4(p):
    p = np.asarray(p).astype(np.int64) & 0xFFFFFFFF
    q = np.stack([(p >> (4 * i)) & 0xF for i in range(8)], -1)
    q = np.where(q >= 8, q - 16, q)
    return q.reshape(p.shape[:-1] + (-1,))


def aaq_ref(x, scale, offset, dst, sqrt_mode):
    xv = x.numpy()
    xv = unpack_int4(xv) if xv.dtype == np.int32 else xv
    v = xv.astype(np.float32)
    if offset is not None:
        v = v + f32(offset)
    s = f32(scale)
    v = v * s
    if sqrt_mode:
        v = v * s
    t = torch.from_numpy(v.astype(np.float32))
    return t.half() if dst == FLOAT16 else t.bfloat16()


# ---- dynamic_quant ----------------------------------------------------------------------------------------------------

def dq_rows(v, int4, sym):
    dmax = np.float32(7 if int4 else 127)
    if sym:
        m = np.abs(v).max(-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            mul = dmax / m
            q = np.rint(v * mul)
        return q, (np.float32(1) / mul)[..., 0], None
    mx, mn = v.max(-1, keepdims=True), v.min(-1, keepdims=True)
    scale = np.maximum((mx - mn) / np.float32(15 if int4 else 255), np.float32(1e-12)).astype(np.float32)
    off = (dmax - mx / scale).astype(np.float32)
    q = np.rint(v * (np.float32(1) / scale) + off)
    return q, scale[..., 0], off[..., 0]


def dq_samples(dtype, rng):
    return [Sample((arr(rng, (3, 4, 16), dtype), None), (), "no smooth"),
            Sample((arr(rng, (5, 16), dtype), arr(rng, (16,), dtype, 0.5, 1.5)), (), "smooth")]


def dq_ref(x, smooth):
    v = f32(x)
    if smooth is not None:
        v = v * f32(smooth)
    q, scale, _ = dq_rows(v.astype(np.float32), False, True)
    return (torch.from_numpy(saturate(q, -128, 127).astype(np.int8)), torch.from_numpy(scale.astype(np.float32)))


def dq2_samples(dtype, rng):
    """FLOAT16 samples quantise symmetrically (no offsetOut), BF16 ones asymmetrically (offsetOut given)."""
    x = arr(rng, (6, 16), dtype)
    smooth = arr(rng, (3, 16), dtype, 0.5, 1.5)
    groups = np.array([2, 2, 6], np.int64)
    return [Sample((x, None, None), (INT8,), "no smooth"),
            Sample((x, smooth, groups), (INT8,), "expert smooth scales"),
            Sample((x, smooth[0], None), (INT32,), "int4 in int32")]


def dq2_ref(x, smooth, group, dst):
    sym = x.dtype == torch.float16
    v = f32(x)
    if smooth is not None:
        s = f32(smooth)
        if group is not None:
            ends = np.asarray(group)
            idx = np.minimum(np.searchsorted(ends, np.arange(v.shape[0]), side="right"), len(ends) - 1)
            s = s[idx]
        v = v * s
    q, scale, off = dq_rows(v.astype(np.float32), dst != INT8, sym)
    lo, hi = (-8, 7) if dst != INT8 else (-128, 127)
    y = pack_int4(saturate(q, lo, hi)) if dst == INT32 else torch.from_numpy(saturate(q, lo, hi).astype(np.int8))
    return (y, torch.from_numpy(scale.astype(np.float32)),
            None if sym else torch.from_numpy(off.astype(np.float32)))


# ---- quantize -----------------------------------------------------------------------------------------------------------

def qz_samples(dtype, rng):
    x = arr(rng, (3, 5), dtype, -100, 100)
    zp_dt = "bfloat16" if dtype == "bfloat16" else "int32"
    return [Sample((x, arr(rng, (1,), dtype, 0.1, 2), None), (np.int8, 0), "per tensor"),
            Sample((x, arr(rng, (5,), dtype, 0.1, 2), random_array(rng, (5,), zp_dt, (-3, 3), (-3, 3))),
                   (np.uint8, -1), "per channel, uint8"),
            Sample((x, arr(rng, (3,), dtype, 0.1, 2), None), (np.int32, 0), "axis 0, int32")]


def qz_ref(x, scales, zp, dtype, axis):
    xv, s = f32(x), f32(scales)
    shape = [1] * xv.ndim
    if s.size > 1:
        shape[axis] = -1
    v = (xv / s.reshape(shape)).astype(np.float32)
    if zp is not None:
        v = v + f32(zp).reshape(shape)
    info = np.iinfo(dtype)
    return torch.from_numpy(saturate(np.rint(v), info.min, info.max).astype(dtype))


ENTRIES = [
    OpInfo("aclnnTransQuantParamV2", tqp_ref, ("float32",), kind="custom", samples=tqp_samples),
    OpInfo("aclnnTransQuantParamV3", tqp_ref, ("float32",), kind="custom", samples=tqp3_samples),
    OpInfo("aclnnAscendQuant", aq_ref, FLOATS, kind="custom", samples=aq_samples),
    OpInfo("aclnnAscendQuantV3", aq_ref, FLOATS, kind="custom", samples=lambda d, r: aq_samples(d, r, axis=True)),
    OpInfo("aclnnAscendAntiQuant", aaq_ref, ("float32", "bfloat16"), kind="custom", samples=aaq_samples),
    OpInfo("aclnnDynamicQuant", dq_ref, ("float16", "bfloat16"), kind="custom", samples=dq_samples),
    OpInfo("aclnnDynamicQuantV2", dq2_ref, ("float16", "bfloat16"), kind="custom", samples=dq2_samples, native16=True),
    OpInfo("aclnnQuantize", qz_ref, FLOATS, kind="custom", samples=qz_samples),
]
