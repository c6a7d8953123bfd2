"""numpy reference of aclnnMoeTokenPermuteGrad (spec ops/moe_token_permute_grad.md, section 3)."""

import numpy as np

from ._rounding import add_f32, narrow, widen


def moe_token_permute_grad(permuted_output_grad, sorted_indices, num_topk, padded_mode=False):
    grad = np.asarray(permuted_output_grad)
    p, h = grad.shape
    idx = np.asarray(sorted_indices, dtype=np.int64).reshape(-1)
    n = idx.shape[0] // num_topk
    g = widen(grad)
    acc = np.zeros((n, h), dtype=np.float32)
    for k in range(num_topk):  # sequential float32 accumulation, as the device
        col = idx[k::num_topk][:n]
        ok = (col >= 0) & (col < p)
        if k == 0:
            acc[ok] = g[col[ok]]  # the first term is copied (keeps -0.0)
        else:
            acc[ok] = add_f32(acc[ok], g[col[ok]])  # skipped terms leave the sum unchanged
    return narrow(acc, grad.dtype)
