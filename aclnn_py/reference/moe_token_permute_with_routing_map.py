"""numpy reference of aclnnMoeTokenPermuteWithRoutingMap (spec ops/moe_token_permute_with_routing_map.md, 3.3)."""

import numpy as np


def _routed(routing_map):
    """(T, E) bool mask: any non-zero byte of an INT8 or BOOL map counts as routed."""
    m = np.asarray(routing_map)
    return (m.view(np.uint8) if m.dtype.itemsize == 1 else m) != 0


def moe_token_permute_with_routing_map(tokens, routing_map, probs, num_out_tokens, drop_and_pad=False):
    tokens = np.asarray(tokens)
    mask_t = _routed(routing_map).T  # (E, T): expert-major scan order
    e_n, t_n = mask_t.shape
    align = max(e_n if drop_and_pad else t_n, 1)
    n_out = num_out_tokens // align * align
    probs = None if probs is None else np.asarray(probs)
    if mask_t.size == 0 or n_out * int(np.prod(tokens.shape[1:])) <= 0:
        # Empty map or empty permuteTokensOut: the operator writes nothing (outputs stay zero).
        n = max(n_out, 0)
        return (np.zeros((n,) + tokens.shape[1:], tokens.dtype),
                None if probs is None else np.zeros(n, probs.dtype), np.zeros(n, np.int32))

    if drop_and_pad:
        cap = n_out // e_n if e_n else 0
        # Per expert: routed tokens in ascending id, then the non-routed ones, the first `cap` kept.
        keep = np.argsort(~mask_t, axis=1, kind="stable")[:, :cap]
        sorted_idx = keep.reshape(-1).astype(np.int32)
        out = tokens[sorted_idx]
        pout = None if probs is None else probs[sorted_idx, np.repeat(np.arange(e_n), cap)]
        return out, pout, sorted_idx

    topk = n_out // t_n if t_n else 0
    tok_ids = np.nonzero(mask_t)[1]
    m = min(tok_ids.size, n_out)
    keys = np.full(n_out, t_n, np.int64)  # stub rule when the map has fewer set entries than n_out
    keys[:m] = tok_ids[:m]
    sorted_idx = np.argsort(keys, kind="stable").astype(np.int32)
    out = np.empty((n_out,) + tokens.shape[1:], tokens.dtype)
    out[sorted_idx] = tokens[np.arange(n_out) // max(topk, 1)]
    pout = None
    if probs is not None:
        pout = np.zeros(n_out, probs.dtype)
        pout[:m] = probs.T[mask_t][:m]
    return out, pout, sorted_idx
