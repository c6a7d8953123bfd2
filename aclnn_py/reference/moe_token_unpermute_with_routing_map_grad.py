"""numpy reference of aclnnMoeTokenUnpermuteWithRoutingMapGrad (spec ops/moe_token_unpermute_with_routing_map_grad.md,
3.5)."""

import numpy as np

from ._rounding import add_f32, device_reduce_sum, mul_f32, narrow, widen
from .moe_token_unpermute_with_routing_map import routed

UB_BYTES, AIV_CORES = 196352, 48  # platform constants of the tiling (Atlas A2/A3)


def _align_up(a, b):
    return (a + b - 1) // b * b


def _align_down(a, b):
    return a // b * b


def chunk_non_pad(h, t_n, k, e_n, b):
    """Hidden chunk of the non-pad tiling with probs (None: no room, a tiling error)."""
    h_align = _align_up(h, 32 // b)
    if k > 256:
        idx = k
    else:
        idx = min(-(-t_n // AIV_CORES) * k, _align_down(256, k)) if k else 0
    idx_align = _align_up(idx, 32 // b)
    e_align = _align_up(e_n, 32)
    tmp = (UB_BYTES - e_align - e_align * b - b * idx_align - 8 * idx_align) // (6 * b + 12)
    if tmp < 1:
        return None
    return h_align if tmp >= h_align else _align_down(tmp, 32 // b)


def chunk_pad(h, b):
    h_align = _align_up(h, 32 // b)
    tmp = (UB_BYTES - 32 - 2048) // (2 * (8 + b))
    return h_align if tmp >= h_align else _align_down(tmp, 32 // b)


def _last_wins(keys):
    """Positions of the last occurrence of each distinct key."""
    _, last = np.unique(keys[::-1], return_index=True)
    return keys.size - 1 - last


def moe_token_unpermute_with_routing_map_grad(unpermuted_tokens_grad, out_index, permute_token_id, routing_map,
                                              permuted_tokens, probs, drop_and_pad=False, restore_shape=None):
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 and overflow are part of the semantics
        return _grad(unpermuted_tokens_grad, out_index, permute_token_id, routing_map, permuted_tokens, probs,
                     drop_and_pad)


def _grad(grad, out_index, permute_token_id, routing_map, permuted_tokens, probs, drop_and_pad):
    grad = np.asarray(grad)
    t_n, h = grad.shape
    oi = np.asarray(out_index).astype(np.int64).reshape(-1)
    tid = np.asarray(permute_token_id).astype(np.int64).reshape(-1)
    p = oi.size
    ptg = np.zeros((p, h), grad.dtype)
    pg = None if probs is None else np.zeros(np.shape(probs), grad.dtype)
    if ptg.size == 0 and (pg is None or pg.size == 0):
        return ptg, pg  # nothing to do
    g = widen(grad)
    if probs is None:
        src = tid if drop_and_pad else np.arange(p) // max(p // max(t_n, 1), 1)
        ok = (oi >= 0) & (oi < p) & (src >= 0) & (src < t_n)
        rows, src = oi[ok], src[ok]
        win = _last_wins(rows)
        ptg[rows[win]] = grad[src[win]]  # byte copies
        return ptg, None
    probs = np.asarray(probs)
    x = widen(np.asarray(permuted_tokens))
    pf = widen(probs)
    e_n = probs.shape[1]
    acc = np.zeros((t_n, e_n), np.float32)
    b = grad.dtype.itemsize
    if drop_and_pad:
        cap = p // e_n
        chunk = chunk_pad(h, b)
        ok = (oi >= 0) & (oi < p) & (tid >= 0) & (tid < t_n)
        rows, ts = oi[ok], tid[ok]
        es = rows // cap
        w_rows = _last_wins(rows)
        ptg[rows[w_rows]] = narrow(mul_f32(g[ts[w_rows]], pf[ts[w_rows], es[w_rows]][:, None]), grad.dtype)
        w_pg = _last_wins(ts * e_n + es)
        prod = mul_f32(x[rows[w_pg]], g[ts[w_pg]])
        parts = np.stack([device_reduce_sum(prod[:, s:s + chunk]) for s in range(0, h, chunk)], axis=1) \
            if h else np.zeros((prod.shape[0], 0), np.float32)
        acc[ts[w_pg], es[w_pg]] = device_reduce_sum(parts)
    else:
        k_n = p // t_n
        chunk = chunk_non_pad(h, t_n, k_n, e_n, b)
        sel = routed(routing_map)
        rank = np.cumsum(sel, axis=1) - 1  # rank of each selected expert within its token
        tt, ee = np.nonzero(sel & (rank < k_n))  # the first min(K, count) experts of each token, token-major
        slots = tt * k_n + rank[tt, ee]
        rows = oi[slots]
        ok = (rows >= 0) & (rows < p)
        tt, ee, slots, rows = tt[ok], ee[ok], slots[ok], rows[ok]
        order = np.argsort(slots, kind="stable")  # the last slot (in slot order) wins a row
        tt, ee, rows = tt[order], ee[order], rows[order]
        win = _last_wins(rows)
        ptg[rows[win]] = narrow(mul_f32(g[tt[win]], pf[tt[win], ee[win]][:, None]), grad.dtype)
        prod = mul_f32(x[rows], g[tt])
        total = np.zeros(rows.size, np.float32)
        for s in range(0, h, chunk or 1):
            total = add_f32(total, device_reduce_sum(prod[:, s:s + chunk]))
        acc[tt, ee] = total
    return ptg, narrow(acc, grad.dtype)
