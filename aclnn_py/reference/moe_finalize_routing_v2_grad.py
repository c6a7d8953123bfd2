"""numpy reference of aclnnMoeFinalizeRoutingV2Grad (spec ops/moe_finalize_routing_v2_grad.md, section 3).

FLOAT16 and BF16 are widened exactly to float32, every product and sum is float32, results are narrowed
once. gradScales sums its products in the device's order: the hidden dimension in chunks of P elements
(added in sequence to +0.0), each chunk in groups of 512 zero-padded products summed by an adjacent-pair
binary tree (8-element block trees, then a 64-way tree of the block sums), the groups added in sequence.
NaN payloads follow the stub's rule: the left operand's NaN, made quiet.
"""

import numpy as np

from ._rounding import narrow, nan_left, widen

UB_BYTES = 196608  # the A2/A3 unified buffer: the tiling derives P from it
TREE = 512
BATCH = 64  # slots reduced at a time: bounds the temporary arrays at large hidden sizes


def chunk_len(itemsize: int, has_bias: bool) -> int:
    """P: hidden elements reduced per step (membase tiling)."""
    w = 8 + itemsize + (4 if has_bias else 0)
    return (((UB_BYTES - 128) // w) * itemsize // 32) * 32 // itemsize


def _add(a, b):
    return nan_left(a, a + b)


def device_dot(a: np.ndarray, g: np.ndarray, chunk: int) -> np.ndarray:
    """Row-wise <a, g> (float32 (m, h) arrays) in the device's order."""
    m, h = a.shape
    s = np.zeros(m, np.float32)
    with np.errstate(all="ignore"):
        for c0 in range(0, h, chunk):
            c1 = min(c0 + chunk, h)
            acc = None
            for g0 in range(c0, c1, TREE):
                w = min(TREE, c1 - g0)
                p = np.zeros((m, TREE), np.float32)
                p[:, :w] = nan_left(a[:, g0:g0 + w], a[:, g0:g0 + w] * g[:, g0:g0 + w])
                while p.shape[1] > 1:
                    p = _add(p[:, 0::2], p[:, 1::2])
                acc = p[:, 0] if acc is None else _add(acc, p[:, 0])
            s = _add(s, acc)
    return s


def moe_finalize_routing_v2_grad(grad_y, expanded_row_idx, expanded_x=None, scales=None, expert_idx=None,
                                 bias=None, drop_pad_mode=0, active_num=0, expert_num=0, expert_capacity=0):
    gy = np.asarray(grad_y)
    dtype = gy.dtype
    n, h = gy.shape
    idx = np.asarray(expanded_row_idx).astype(np.int64).reshape(-1)
    length = idx.shape[0]
    if drop_pad_mode == 1:
        d = expert_num * expert_capacity
    else:
        d = active_num if 0 < active_num < length else length
    # Rows no slot writes: zero in drop/pad mode; left as the output buffer held them in dropless mode,
    # which the high-level function allocates zero-filled.
    gex = np.zeros((d, h), dtype)
    valid = (idx >= 0) & (idx < d)
    # Duplicate indices: slots in increasing order, the last one wins (numpy fancy assignment does the same).
    gsc = None
    if scales is None:
        gex[idx[valid]] = gy[np.nonzero(valid)[0]]
    else:
        k = np.asarray(scales).shape[1]
        sc = widen(scales).reshape(-1)
        g32 = widen(gy)
        tok = np.arange(length) // max(k, 1)
        with np.errstate(all="ignore"):
            prod = nan_left(g32[tok], g32[tok] * sc[:, None])
        gex[idx[valid]] = narrow(prod[valid], dtype)
        ex = widen(np.asarray(expanded_x).reshape(-1, h)) if h else np.zeros((d, 0), np.float32)
        chunk = chunk_len(dtype.itemsize, bias is not None)
        s = np.zeros(length, np.float32)
        b = None if bias is None else widen(bias)
        eid = None if bias is None else np.asarray(expert_idx).astype(np.int64).reshape(-1)
        for i0 in range(0, length, BATCH):
            sl = slice(i0, min(i0 + BATCH, length))
            v = valid[sl]
            a = np.where(v[:, None], ex[np.where(v, idx[sl], 0)] if d else 0, np.float32(0))
            has = v.copy()
            if b is not None:
                e = eid[sl]
                good = (e >= 0) & (e < b.shape[0])
                brow = np.where(good[:, None], b[np.where(good, e, 0)], np.float32(0))
                with np.errstate(all="ignore"):
                    a = np.where(v[:, None], nan_left(brow, brow + a), brow)  # dropped slots: <bias, gradY>
                has[:] = True
            dots = device_dot(np.broadcast_to(a, (v.size, h)).astype(np.float32), g32[tok[sl]], chunk)
            s[sl] = np.where(has, dots, np.float32(0))
        gsc = narrow(s, dtype).reshape(n, k)
    if drop_pad_mode == 1:
        gex = gex.reshape(expert_num, expert_capacity, h)
    return gex, gsc
