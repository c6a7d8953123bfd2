"""numpy reference of aclnnMoeTokenUnpermuteGrad (spec ops/moe_token_unpermute_grad.md, section 3.4)."""

import numpy as np

from ._rounding import add_f32, device_reduce_sum, mul_f32, narrow, widen

# The device's vector-unit budget for the tiling (unified-buffer bytes) and its vector cores: they decide
# where the hidden axis is cut for the probs gradient (spec 3.3, Atlas A2/A3 estimates).
UB_BYTES, AIV_CORES = 196352, 48


def _align_up(a, b):
    return (a + b - 1) // b * b


def _align_down(a, b):
    return a // b * b


def hidden_chunk(h, t, k, tb, pb):
    """Hidden elements per probs-gradient reduction (H itself when one chunk fits)."""
    idx = min(-(-t // AIV_CORES) * k, _align_down(256, k)) if k <= 256 else k
    idx_align = _align_up(idx, 32 // pb)
    fixed = 4 * pb * idx_align + 12 * idx_align + 256
    if h <= UB_BYTES:
        h_align = _align_up(h, 512 // tb)
        if (UB_BYTES - fixed - (4 * tb + 12) * h_align) // (2 * tb * h_align) >= 1:
            return h
    chunk = _align_down((UB_BYTES - fixed) // (6 * tb + 12), 512 // tb)
    return chunk if chunk > 0 else h


def moe_token_unpermute_grad(permute_tokens, unpermuted_tokens_grad, sorted_indices, probs=None, padded_mode=False,
                             restore_shape=None):
    """Returns (permuted_tokens_grad, probs_grad or None). Rows of permuted_tokens_grad no slot points at are
    zero (the high-level function's outputs start zero-filled; the operator leaves them alone)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _grad(permute_tokens, unpermuted_tokens_grad, sorted_indices, probs)


def _grad(permute_tokens, unpermuted_tokens_grad, sorted_indices, probs):
    x = np.asarray(permute_tokens)
    g = np.asarray(unpermuted_tokens_grad)
    p = x.shape[0]
    t, h = g.shape
    idx = np.asarray(sorted_indices).astype(np.int64).reshape(-1)
    k = 1 if probs is None else np.asarray(probs).shape[1]
    ptg = np.zeros((p, h), g.dtype)
    pg = None if probs is None else np.zeros((t, k), np.asarray(probs).dtype)
    if ptg.size == 0 and (pg is None or pg.size == 0):
        return ptg, pg
    # Each row pointed at takes the last slot pointing at it.
    slots = np.nonzero((idx >= 0) & (idx < p))[0][::-1]
    rows, first = np.unique(idx[slots], return_index=True)
    owners = slots[first]
    if probs is None:
        ptg[rows] = g[owners]  # a copy of the stored elements
        return ptg, None
    w = widen(probs)
    gf = widen(g)
    ptg[rows] = narrow(mul_f32(gf[owners // k], w.reshape(-1)[owners][:, None]), g.dtype)
    chunk = hidden_chunk(h, t, k, x.dtype.itemsize, np.asarray(probs).dtype.itemsize)
    xf = widen(x)
    cols = idx.reshape(t, k)
    acc = np.zeros((t, k), np.float32)
    for j in range(k):
        col = cols[:, j]
        ok = (col >= 0) & (col < p)
        rows_j = np.zeros((t, h), np.float32)  # a dropped slot takes a row of zeros (0 * inf is NaN)
        rows_j[ok] = xf[col[ok]]
        prod = mul_f32(rows_j, gf)
        for s in range(0, h, chunk):
            acc[:, j] = add_f32(acc[:, j], device_reduce_sum(prod[:, s:s + chunk]))
    return ptg, narrow(acc, pg.dtype)
