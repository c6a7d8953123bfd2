"""numpy reference of aclnnMoeTokenUnpermuteWithEp (spec ops/moe_token_unpermute_with_ep.md, section 3)."""

import numpy as np

from .._optable import _trunc32
from ._rounding import add_f32, mul_f32, narrow, widen


def moe_token_unpermute_with_ep(permuted_tokens, sorted_indices, probs, num_topk, range, padded_mode=False,
                                restore_shape=None):
    """Returns out (N, H): for each token the float32 sum, in slot order, of its slots' rows whose rank lies in
    [start, end) (times the slot's prob, slots with prob 0 skipped); a NULL range is [0, 0] (all zeros)."""
    x = np.asarray(permuted_tokens)
    idx = np.asarray(sorted_indices).astype(np.int64).reshape(-1)
    k = _trunc32(int(num_topk))  # the tiling reads numTopk through a 32-bit int
    if k < 1:
        raise ValueError(f"num_topk = {num_topk} must be >= 1 (as a 32-bit int)")
    if probs is not None:
        probs = np.asarray(probs)
        if probs.ndim != 2 or probs.shape[1] != k or probs.shape[1] > 512 or probs.size != idx.size:
            raise ValueError("probs must be (N, num_topk) with N * num_topk = len(sorted_indices), num_topk <= 512")
        n = probs.shape[0]
    elif k > 512:
        raise ValueError("num_topk must not exceed 512")
    else:
        n = idx.size // k  # trailing L mod K indices are not read
    start, end = (0, 0) if range is None else (int(range[0]), int(range[1]))
    h = x.shape[1]
    if start < end and end - start > x.shape[0]:
        end = start + x.shape[0]  # a window wider than the rows: the rows past their end are never read
    acc = np.zeros((n, h), np.float32)
    if n == 0 or h == 0:
        return narrow(acc, x.dtype)
    xf = widen(x)
    for j in np.arange(k):  # slot order; slot 0 initialises the sum when taken, else it starts at +0.0
        d = idx[j: n * k: k]
        taken = (d >= start) & (d < end)
        w = None
        if probs is not None:
            w = widen(probs[:, j])
            taken &= w != 0  # NaN is taken
        term = xf[d[taken] - start]
        if w is not None:
            term = mul_f32(term, w[taken][:, None])
        acc[taken] = term if j == 0 else add_f32(acc[taken], term)
    return narrow(acc, x.dtype)
