"""numpy reference of aclnnMoeTokenPermute (spec ops/moe_token_permute.md, section 3)."""

import numpy as np


def moe_token_permute(tokens, indices, num_out_tokens=0, padded_mode=False):
    if padded_mode:
        raise ValueError("moe_token_permute: padded_mode=True is not supported")
    tokens = np.asarray(tokens)
    indices = np.asarray(indices)
    n = tokens.shape[0]
    k = 1 if indices.ndim == 1 else indices.shape[1]
    flat = indices.reshape(-1).astype(np.int64)
    total = flat.shape[0]
    order = np.argsort(flat, kind="stable")  # sorted position -> slot
    sorted_indices = np.empty(total, dtype=np.int32)
    sorted_indices[order] = np.arange(total, dtype=np.int32)  # slot -> sorted position
    m = num_out_tokens if num_out_tokens > 0 else num_out_tokens + total
    m = min(max(m, 0), total)
    c = int(np.prod(tokens.shape[1:], dtype=np.int64))  # 1 for 1-D tokens
    rows = tokens.reshape(n, c)
    permuted = rows[order[:m] // k]  # exact copies of the token rows
    return permuted.reshape((m,) + tokens.shape[1:]), sorted_indices
