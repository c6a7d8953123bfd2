"""numpy reference of aclnnMoeTokenPermuteWithEpGrad (spec ops/moe_token_permute_with_ep_grad.md, section 3)."""

import numpy as np

from ._rounding import add_f32, narrow, widen


def moe_token_permute_with_ep_grad(permuted_tokens_output_grad, sorted_indices, permuted_probs_output_grad,
                                   num_topk, range, padded_mode=False):
    """Returns (token_grad, probs_grad or None); probs_grad is None when the probs grad input is None."""
    grad = np.asarray(permuted_tokens_output_grad)
    rows, h = grad.shape
    idx = np.asarray(sorted_indices, dtype=np.int64).reshape(-1)
    k = int(num_topk)
    l = idx.shape[0]
    if k < 1 or l % k != 0:
        raise ValueError("len(sorted_indices) must be a positive multiple of num_topk")
    n = l // k
    # range None: the tiling uses the empty window [0, 0) (every output zero).
    start, end = (0, 0) if range is None else (int(range[0]), int(range[1]))
    if start < end and (start < 0 or end > l or rows != end - start):
        raise ValueError(f"range [{start}, {end}) does not match L = {l} and {rows} gradient rows")
    pg = None if permuted_probs_output_grad is None else np.asarray(permuted_probs_output_grad).reshape(-1)
    probs_out = None if pg is None else np.zeros((n, k), pg.dtype)
    if l == 0 or h == 0:  # empty tensors: the operator writes nothing
        return np.zeros((n, h), grad.dtype), probs_out

    g = widen(grad)
    acc = np.zeros((n, h), dtype=np.float32)
    for j in np.arange(k):  # float32 sum from +0 in slot order, as the device
        col = idx[j::k]
        ok = (col >= start) & (col < end)
        acc[ok] = add_f32(acc[ok], g[col[ok] - start])
        if pg is not None:
            probs_out[ok, j] = pg[col[ok] - start]
    return narrow(acc, grad.dtype), probs_out
