"""numpy reference of aclnnMoeTokenPermuteWithRoutingMapGrad (spec ops/moe_token_permute_with_routing_map_grad.md,
section 3)."""

import numpy as np

from ._rounding import add_f32, narrow, widen


def _routed(routing_map):
    """(T, E) bool mask: any non-zero byte of an INT8 or BOOL map counts as routed."""
    m = np.asarray(routing_map)
    return (m.view(np.uint8) if m.dtype.itemsize == 1 else m) != 0


def moe_token_permute_with_routing_map_grad(permuted_token_output_grad, permuted_probs_output_grad, sorted_indices,
                                            routing_map, num_experts, tokens_num, drop_and_pad=False):
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf and overflow are part of the semantics
        return _grad(permuted_token_output_grad, permuted_probs_output_grad, sorted_indices, routing_map,
                     num_experts, tokens_num, drop_and_pad)


def _grad(permuted_token_output_grad, permuted_probs_output_grad, sorted_indices, routing_map, num_experts,
          tokens_num, drop_and_pad):
    grad = np.asarray(permuted_token_output_grad)
    p, h = grad.shape
    idx = np.asarray(sorted_indices).astype(np.int64).reshape(-1)
    pg = None if permuted_probs_output_grad is None else np.asarray(permuted_probs_output_grad).reshape(-1)
    if p * h == 0 or tokens_num * h == 0:
        # Empty gradient or empty tokensGradOut: the operator writes nothing (outputs stay zero).
        return (np.zeros((tokens_num, h), grad.dtype),
                None if pg is None else np.zeros((tokens_num, num_experts), grad.dtype))
    g = widen(grad)
    acc = np.zeros((tokens_num, h), np.float32)
    probs_grad = None

    if not drop_and_pad:
        topk = p // tokens_num
        for k in range(topk):  # float32 sums in k order, from +0; rows outside [0, P) are skipped
            col = idx[k::topk][:tokens_num]
            ok = (col >= 0) & (col < p)
            acc[ok] = add_f32(acc[ok], g[col[ok]])
        if pg is not None:
            sel = _routed(routing_map).T  # (E, T)
            out = np.zeros(sel.shape, pg.dtype)
            cnt = min(int(sel.sum()), pg.size)
            pos = np.flatnonzero(sel)[:cnt]  # expert-major positions; later ones stay 0
            out.reshape(-1)[pos] = pg[:cnt]
            probs_grad = np.ascontiguousarray(out.T)
    else:
        ok = (idx >= 0) & (idx < tokens_num)  # stub: targets outside [0, T) are dropped
        target, rows = idx[ok], g[ok]
        # float32 sums in ascending i: round r adds the r-th row of every target (targets distinct per round)
        order = np.argsort(target, kind="stable")
        first = np.searchsorted(target[order], target[order], side="left")
        rank = np.empty_like(target)
        rank[order] = np.arange(target.size) - first
        for r in range(int(rank.max()) + 1 if rank.size else 0):
            sel = rank == r
            acc[target[sel]] = add_f32(acc[target[sel]], rows[sel])
        if pg is not None:
            cap = p // num_experts
            n = num_experts * cap
            t = idx[:n]
            ok = (t >= 0) & (t < tokens_num)
            flat = (t * num_experts + np.arange(n) // max(cap, 1))[ok]
            vals = pg[:n][ok]
            # Duplicate targets: the last i wins (keep each flat index's last occurrence).
            _, last = np.unique(flat[::-1], return_index=True)
            keep = flat.size - 1 - last
            out = np.zeros((tokens_num, num_experts), pg.dtype)
            out.reshape(-1)[flat[keep]] = vals[keep]
            probs_grad = out
    return narrow(acc, grad.dtype), probs_grad
