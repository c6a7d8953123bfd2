"""numpy reference of aclnnMoeTokenPermuteWithEp (spec ops/moe_token_permute_with_ep.md, section 3)."""

import numpy as np


def _window(l, rng):
    """(start, n) of the expert-parallel window; raises ValueError where the tiling returns 561002."""
    # None: the generated aclnn wrapper passes the OpDef default [0, 0]; num_out_tokens is never read.
    rng = [0, 0] if rng is None else [int(v) for v in rng]
    if len(rng) != 2:
        raise ValueError("rangeOptional must hold 2 values")
    start, end = rng
    if not (0 <= start <= l and 0 <= end <= l):
        raise ValueError(f"window [{start}, {end}) outside [0, {l}]")
    n = end - start
    if n <= 0:
        n += l
    return start, min(max(n, 0), l)


def moe_token_permute_with_ep(tokens, indices, probs, range, num_out_tokens, padded_mode=False):
    """Returns (permute_tokens, sorted_indices, permute_probs or None); rows not written are zero."""
    if padded_mode:
        raise ValueError("padded_mode = True is not supported")
    tokens = np.asarray(tokens)
    indices = np.asarray(indices)
    n_tok, h = tokens.shape
    k = 1 if indices.ndim == 1 else indices.shape[1]
    l = n_tok * k
    start, n = _window(l, range)
    out = np.zeros((n, h), tokens.dtype)
    sorted_idx = np.zeros(l, np.int32)
    pout = None if probs is None else np.zeros(n, np.asarray(probs).dtype)
    if l == 0 or h == 0:  # empty tensors: the operator writes nothing
        return out, sorted_idx, pout

    # Expert ids are compared as float32; ties keep the flat (token, slot) order.
    order = np.argsort(indices.reshape(-1).astype(np.float32), kind="stable")
    sorted_idx[order] = np.arange(l, dtype=np.int32)
    # The full permutation is unshifted; a window keeps the ranks [start, start + n) that exist.
    shift = 0 if n == l else start
    d = np.arange(n, dtype=np.int64) + shift
    written = d < l
    slots = order[d[written]]
    out[written] = tokens[slots // k]
    if probs is not None:
        pout[written] = np.asarray(probs).reshape(-1)[slots]
    return out, sorted_idx, pout
