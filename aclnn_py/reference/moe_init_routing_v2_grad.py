"""numpy reference of aclnnMoeInitRoutingV2Grad (spec ops/moe_init_routing_v2_grad.md, section 3)."""

import numpy as np

from ._rounding import add_f32, narrow, widen


def moe_init_routing_v2_grad(grad_expanded_x, expanded_row_idx, top_k, drop_pad_mode=0, active_num=0):
    # Every mode reduces to one rule: an index outside [0, R) contributes a +0.0 row, so the mode and
    # activeNum only matter for validation.
    grad = np.asarray(grad_expanded_x)
    h = grad.shape[-1]
    r = int(np.prod(grad.shape[:-1], dtype=np.int64))
    rows = grad.reshape(r, h)  # (L, H), (A, H) or (E*C, H)
    idx = np.asarray(expanded_row_idx).astype(np.int64).reshape(-1)
    n = idx.shape[0] // top_k
    acc = np.zeros((n, h), dtype=np.float32)
    for j in range(top_k):  # sequential float32 accumulation in increasing j
        col = idx[j::top_k][:n]
        ok = (col >= 0) & (col < r)
        if r > 0:
            term = widen(rows[np.where(ok, col, 0)])
            term[~ok] = 0.0  # out-of-range -> +0.0 row
        else:
            term = np.zeros((n, h), dtype=np.float32)
        if j == 0:
            acc = term  # the first term is copied (keeps -0.0)
        else:
            acc = add_f32(acc, term)  # a zero term still turns -0.0 into +0.0
    return narrow(acc, grad.dtype)
