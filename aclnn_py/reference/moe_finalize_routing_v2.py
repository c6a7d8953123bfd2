"""numpy reference of aclnnMoeFinalizeRoutingV2 (spec ops/moe_finalize_routing_v2.md, section 3).

Every + and * is one correctly rounded operation of the compute type, in the spec's order: float32 for FLOAT
and BF16 data (BF16 narrowed once at the end), float16 for FLOAT16 data (numpy's float16 arithmetic rounds
each operation correctly, as the device's half-precision vector unit does). NaN payloads follow the stub's
rule: the left operand's NaN, made quiet.
"""

import numpy as np

from ._rounding import bfloat16, narrow, nan_left, widen


def _op(result, left, compute):
    """One operation of the compute type: the float32 result rounded to it, the left operand's NaN kept."""
    return nan_left(left, result).astype(compute).astype(np.float32)


def moe_finalize_routing_v2(expanded_x, expanded_row_idx, x1=None, x2=None, bias=None, scales=None,
                            expert_idx=None, drop_pad_mode=0):
    ex = np.asarray(expanded_x)
    dtype = ex.dtype
    compute = np.float16 if dtype == np.float16 else np.float32
    h = ex.shape[-1]
    rows = widen(ex.reshape(-1, h))
    r_count = rows.shape[0]
    idx = np.asarray(expanded_row_idx).astype(np.int64).reshape(-1)
    k = 1 if scales is None else np.asarray(scales).shape[1]
    n = idx.shape[0] // k
    sc = None if scales is None else widen(scales)
    b = None if bias is None else widen(bias)
    eid = None if expert_idx is None else np.asarray(expert_idx).astype(np.int64)
    add = lambda a, c: _op(a + c, a, compute)
    with np.errstate(all="ignore"):
        acc = None
        if x1 is not None:
            a = widen(x1)[:n]
            acc = add(a, widen(x2)[:n] if x2 is not None else np.zeros_like(a))
        for j in range(k):
            slots = np.arange(n) * (1 if drop_pad_mode in (0, 1) else k) + j * (n if drop_pad_mode in (0, 1) else 1)
            r = idx[slots]
            ok = (r >= 0) & (r < r_count)
            t = rows[np.where(ok, r, 0)] if r_count else np.zeros((n, h), np.float32)
            if b is not None:
                e = eid[:n, j]
                good = (e >= 0) & (e < b.shape[0])
                brow = np.where(good[:, None], b[np.where(good, e, 0)], np.float32(0))
                t = add(t, brow)
            elif dtype != bfloat16:
                t = add(t, np.zeros_like(t))  # "+0": turns -0.0 into +0.0 (the BF16 kernels add nothing)
            s = np.ones(n, np.float32) if sc is None else sc[:n, j]
            t = _op(t * s[:, None], t, compute)
            if acc is None:
                acc = np.where(ok[:, None], t, np.float32(0))  # a dropped first slot starts the sum at +0
            else:
                acc = np.where(ok[:, None], add(acc, t), acc)
    if acc is None:
        acc = np.zeros((n, h), np.float32)
    return narrow(acc.reshape(n, h), dtype)
