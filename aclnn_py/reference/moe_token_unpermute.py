"""numpy reference of aclnnMoeTokenUnpermute (spec ops/moe_token_unpermute.md, section 3.1)."""

import numpy as np

from ._rounding import add_f32, mul_f32, narrow, widen


def moe_token_unpermute(permuted_tokens, sorted_indices, probs=None, padded_mode=False, restore_shape=None):
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, 0 * inf and overflow are part of the semantics
        return _unpermute(permuted_tokens, sorted_indices, probs)


def _unpermute(permuted_tokens, sorted_indices, probs):
    x = np.asarray(permuted_tokens)
    p, h = x.shape
    idx = np.asarray(sorted_indices).astype(np.int64).reshape(-1)
    if probs is None:
        t, k, w = idx.shape[0], 1, None
    else:
        w = widen(probs)
        t, k = w.shape
    acc = np.zeros((t, h), np.float32)
    if t * h == 0:
        return narrow(acc, x.dtype)
    xf = widen(x)
    cols = idx.reshape(t, k)
    for j in range(k):  # float32 sum in slot order; slot 0 skipped leaves +0.0
        col = cols[:, j]
        taken = (col >= 0) & (col < p)
        if w is not None:
            taken &= w[:, j] != 0  # zero weights are skipped: 0 * inf never reaches the sum
        rows = xf[col[taken]]
        term = rows if w is None else mul_f32(rows, w[taken, j][:, None])
        acc[taken] = term if j == 0 else add_f32(acc[taken], term)
    return narrow(acc, x.dtype)
