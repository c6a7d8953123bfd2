"""numpy reference of aclnnMoeInitRoutingV2 (spec ops/moe_init_routing_v2.md, section 3)."""

import numpy as np


def moe_init_routing_v2(x, expert_idx, active_num=0, expert_capacity=0, expert_num=0, drop_pad_mode=0,
                        expert_tokens_count_or_cumsum_flag=0, expert_tokens_before_capacity_flag=False):
    x = np.asarray(x)
    expert_idx = np.asarray(expert_idx)
    n, h = x.shape
    k = expert_idx.shape[1]
    flat = expert_idx.reshape(-1).astype(np.int64)
    t = n * k
    order = np.argsort(flat, kind="stable")  # sorted position -> slot
    sorted_e = flat[order]
    valid = (flat >= 0) & (flat < expert_num)  # ids outside [0, E) are not counted
    hist = np.bincount(flat[valid], minlength=expert_num).astype(np.int32)[:expert_num]
    count_out = before_out = None
    if drop_pad_mode == 0:
        row_idx = np.empty(t, dtype=np.int32)
        row_idx[order] = np.arange(t, dtype=np.int32)  # full inverse permutation
        a = t if active_num == 0 else min(active_num, t)
        expanded_x = x[order[:a] // k]
        if expert_tokens_count_or_cumsum_flag == 1:
            count_out = np.cumsum(hist).astype(np.int32)
        elif expert_tokens_count_or_cumsum_flag == 2:
            count_out = hist
    else:
        c = expert_capacity
        first = np.searchsorted(sorted_e, sorted_e, side="left")
        rank = np.arange(t) - first  # rank inside its expert group
        keep = (sorted_e >= 0) & (sorted_e < expert_num) & (rank < c)
        dest = sorted_e * c + rank
        row_idx = np.full(t, -1, dtype=np.int32)
        row_idx[order[keep]] = dest[keep]
        expanded_x = np.zeros((expert_num * c, h), dtype=x.dtype)  # unfilled rows stay zero
        expanded_x[dest[keep]] = x[order[keep] // k]
        expanded_x = expanded_x.reshape(expert_num, c, h)
        if expert_tokens_before_capacity_flag:
            before_out = hist
    return expanded_x, row_idx, count_out, before_out
