"""numpy reference of aclnnMoeTokenUnpermuteWithEpGrad (spec ops/moe_token_unpermute_with_ep_grad.md, section 3)."""

import numpy as np

from ._rounding import chunked_reduce_sum, mul_f32, narrow, widen

UB_BYTES = 196352  # unified buffer per vector core on Atlas A2/A3
VECTOR_CORES = 48


def grad_window(total, rows, rng):
    """(start, n_eff): the slots with start <= rank < start + n_eff are valid. ``rows``: permuted_tokens rows
    or None. A NULL range is the OpDef default [-1, -1] (an empty window)."""
    start, end = (-1, -1) if rng is None else (int(rng[0]), int(rng[1]))
    end, start = (min(max(v + total if v < 0 else v, 0), total) for v in (end, start))
    if end < start:
        raise ValueError(f"range gives [{start}, {end}) after normalisation: end below start")
    num_out = end if start != 0 else (total if rows is None else rows)
    return start, max(min(end, num_out) - start, 0)


def hidden_chunk(h, n, k, tok_bytes, prob_bytes, ub=UB_BYTES, cores=VECTOR_CORES):
    """The device's chunk of the hidden dimension for the probs gradient's reductions (H when unsplit)."""
    up = lambda a, b: (a + b - 1) // b * b  # noqa: E731
    each = n // cores + (1 if n % cores else 0)
    hsa = up(h, 512 // tok_bytes)
    irn = min(each * k, 256 // k * k) if k <= 256 else k
    irn_al = up(irn, 32 // prob_bytes)
    fixed = ub - 4 * prob_bytes * irn_al - 12 * irn_al - 256
    if fixed - (4 * tok_bytes + 12) * hsa >= 2 * tok_bytes * hsa:
        return h
    chunk = fixed // (6 * tok_bytes + 12) // (512 // tok_bytes) * (512 // tok_bytes)
    return chunk if chunk > 0 else h


def moe_token_unpermute_with_ep_grad(unpermuted_tokens_grad, sorted_indices, permuted_tokens, probs,
                                     padded_mode=False, restore_shape=None, range=None, topk_num=1):
    """Returns (permuted_tokens_grad (n_eff, H), probs_grad (N, K) or None); rows no slot targets are zero."""
    g = np.asarray(unpermuted_tokens_grad)
    n, h = g.shape
    idx = np.asarray(sorted_indices).astype(np.int64).reshape(-1)
    k = int(topk_num) if probs is None else np.asarray(probs).shape[1]
    if n == 0 or h == 0 or not 1 <= k <= 512 or idx.size < n * k:
        raise ValueError("need N, H > 0, 1 <= K <= 512 and len(sorted_indices) >= N * K")
    x = None if permuted_tokens is None else np.asarray(permuted_tokens)
    start, rows = grad_window(idx.size, None if x is None else x.shape[0], range)
    ptg = np.zeros((rows, h), g.dtype)
    d = idx[:n * k]
    valid = (d >= start) & (d < start + rows)
    slots = np.nonzero(valid)[0]
    owner = np.full(rows, -1, np.int64)
    np.maximum.at(owner, d[slots] - start, slots)  # several slots on one row: the last one wins
    owned = np.nonzero(owner >= 0)[0]
    if probs is None:
        ptg[owned] = g[owner[owned] // k]  # exact copies
        return ptg, None
    probs = np.asarray(probs)
    if x is None or x.shape[0] < rows:
        raise ValueError("permuted_tokens must hold the window's rows when probs are given")
    gf, pf = widen(g), widen(probs).reshape(-1)
    ptg[owned] = narrow(mul_f32(gf[owner[owned] // k], pf[owner[owned]][:, None]), g.dtype)
    chunk = hidden_chunk(h, n, k, g.dtype.itemsize, probs.dtype.itemsize)
    xf = widen(x)
    pg = np.zeros(n * k, np.float32)
    block = max(1, (1 << 22) // h)  # slots per pass: bounded memory at big shapes
    for b in np.arange(0, n * k, block):
        j = np.arange(b, min(b + block, n * k))
        rows_x = np.zeros((j.size, h), np.float32)  # invalid slots: a row of +0.0
        v = valid[j]
        rows_x[v] = xf[d[j[v]] - start]
        pg[j] = chunked_reduce_sum(mul_f32(rows_x, gf[j // k]), chunk)
    return ptg, narrow(pg, probs.dtype).reshape(n, k)
