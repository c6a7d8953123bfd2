"""numpy reference of aclnnMoeTokenUnpermuteWithRoutingMap (spec ops/moe_token_unpermute_with_routing_map.md, 3.3)."""

import numpy as np

from ._rounding import add_f32, mul_f32, nan_left, narrow, widen


def routed(routing_map):
    """(T, E) bool mask: any non-zero byte of an INT8 or BOOL map counts as routed."""
    m = np.asarray(routing_map)
    return (m.view(np.uint8) if m.dtype.itemsize == 1 else m) != 0


def unpermuted_rows(probs, padded_mode, restore_shape):
    """Rows of unpermutedTokens: T of probs or of restore_shape (non-pad); in padded mode the caller's choice,
    here restore_shape[0] when given, else T of probs."""
    if padded_mode and restore_shape is not None and len(restore_shape) >= 1:
        return int(restore_shape[0])
    if probs is not None:
        return int(np.shape(probs)[0])
    return int(restore_shape[0])


def ordered_index_add(acc, target, rows):
    """acc[target[i]] += rows[i] as float32 sums in ascending i (targets already inside acc)."""
    order = np.argsort(target, kind="stable")
    first = np.searchsorted(target[order], target[order], side="left")
    rank = np.empty_like(target)
    rank[order] = np.arange(target.size) - first
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        sel = rank == r  # targets are distinct within one round
        acc[target[sel]] = add_f32(acc[target[sel]], rows[sel])
    return acc


def moe_token_unpermute_with_routing_map(permuted_tokens, sorted_indices, routing_map, probs, padded_mode=False,
                                         restore_shape=None):
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 and overflow are part of the semantics
        return _forward(permuted_tokens, sorted_indices, routing_map, probs, padded_mode, restore_shape)


def _forward(permuted_tokens, sorted_indices, routing_map, probs, padded_mode, restore_shape):
    x = np.asarray(permuted_tokens)
    p, h = x.shape
    si = np.asarray(sorted_indices).astype(np.int64).reshape(-1)
    length = si.size
    probs = None if probs is None else np.asarray(probs)
    t_out = unpermuted_rows(probs, padded_mode, restore_shape)
    out = np.zeros((t_out, h), x.dtype)
    pout = None if probs is None else np.zeros(length, probs.dtype)
    if not padded_mode:
        if x.size == 0 or length == 0:
            return out, None, None, pout  # nothing written
        k_n = p // t_out
        w = None
        if probs is not None:
            # The kernel reads the map's first T x E entries as a (T, E) map (a larger map is accepted).
            flat = np.asarray(routing_map).reshape(-1)[:probs.size].reshape(probs.shape)
            sel = probs[routed(flat)]  # token-major masked select
            m = min(sel.size, length)
            pout[:m] = sel[:m]  # the rest stays +0.0 (stub rule for ill-formed maps)
            w = widen(pout)
        xf = widen(x)
        acc = np.zeros((t_out, h), np.float32)
        for k in range(k_n):
            col = si[k::k_n][:t_out]
            taken = (col >= 0) & (col < p)
            if w is not None:
                wk = w[k::k_n][:t_out]
                taken &= wk != 0
                term = mul_f32(xf[np.where(taken, col, 0)], wk[:, None])
            else:  # float16 rows are widened by the hardware conversion, which makes a signalling NaN quiet
                term = xf[np.where(taken, col, 0)]
                if x.dtype == np.float16:
                    term = nan_left(term, term)
            if k == 0:
                acc = np.where(taken[:, None], term, np.float32(0.0)).astype(np.float32)
            else:
                acc[taken] = add_f32(acc[taken], term[taken])
        return narrow(acc, x.dtype), None, None, pout

    order = np.argsort(si, kind="stable")
    out_index = order.astype(np.int32)
    token_id = si[order].astype(np.int32)
    if x.size == 0 or length == 0:
        return out, np.zeros(length, np.int32), np.zeros(length, np.int32), pout
    src = widen(x)
    if probs is not None:
        t_n, e_n = probs.shape
        cap = length // e_n
        ok = (si >= 0) & (si < t_n)
        j = np.arange(length)
        pout[ok] = probs[si[ok], j[ok] // cap]
        src = widen(narrow(mul_f32(src, widen(pout)[:, None]), x.dtype))
    ok = (si >= 0) & (si < t_out)
    acc = ordered_index_add(np.zeros((t_out, h), np.float32), si[ok], src[ok])
    return narrow(acc, x.dtype), out_index, token_id, pout
