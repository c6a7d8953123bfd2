"""numpy reference of aclnnMoeInitRoutingV3 (spec ops/moe_init_routing_v3.md, section 3.1).

Rows the operator leaves untouched (dropless rows R..A-1 of expandedX and expandedScale) are zero here, as in
the zero-filled outputs of the high-level function. Quantisation: round half to even, saturation to
[-128, 127], NaN -> 0; a dynamic row holding NaN takes its first NaN's magnitude as the maximum.
"""

import numpy as np


def _to_i8(v):
    v = np.asarray(v, dtype=np.float32)
    v = np.rint(np.where(np.isnan(v), np.float32(0), v))
    return np.clip(v, -128, 127).astype(np.int8)


def _static_q(xf, scale0, offset0):
    with np.errstate(all="ignore"):  # overflow to inf and NaN are defined results here
        y = (xf * np.float32(scale0)).astype(np.float32)
        return _to_i8((y + np.float32(offset0)).astype(np.float32))


def _dynamic_q(xf, smooth):
    """xf (R, H) float32, smooth (R, H) float32 or None -> (INT8 rows, per-row scales)."""
    with np.errstate(all="ignore"):  # overflow to inf and NaN are defined results here
        xs = xf if smooth is None else (xf * smooth).astype(np.float32)
    a = np.abs(xs)
    amax = a.max(axis=1) if xs.shape[1] else np.zeros(len(xs), np.float32)
    nan = np.isnan(a)
    has_nan = nan.any(axis=1) if xs.shape[1] else np.zeros(len(xs), bool)
    rows = np.nonzero(has_nan)[0]
    if len(rows):
        amax[rows] = a[rows, np.argmax(nan[rows], axis=1)]
    with np.errstate(all="ignore"):
        ds = (amax.astype(np.float32) / np.float32(127.0)).astype(np.float32)
        v = (xs / ds[:, None]).astype(np.float32)
    return _to_i8(v), ds


def moe_init_routing_v3(x, expert_idx, scale=None, offset=None, active_num=-1, expert_capacity=-1, expert_num=-1,
                        drop_pad_mode=0, expert_tokens_num_type=0, expert_tokens_num_flag=False, quant_mode=-1,
                        active_expert_range=None, row_idx_type=0):
    x = np.asarray(x)
    expert_idx = np.asarray(expert_idx)
    n, h = x.shape
    k = expert_idx.shape[1]
    t = n * k
    big_e = expert_num
    s, e = (0, big_e) if not active_expert_range else (int(active_expert_range[0]), int(active_expert_range[1]))
    flat = expert_idx.reshape(-1).astype(np.int64)
    active = (flat >= s) & (flat < e)
    avail = int(active.sum())
    # ids below the range go last (slot order); ids at or above its end follow the active ones in id order
    order = np.argsort(np.where(flat < s, np.iinfo(np.int64).max, flat), kind="stable")
    sorted_e = flat[order]
    xf_rows = lambda rows: x[rows].astype(np.float32)  # noqa: E731 (exact widening of float16/bfloat16)
    counts = None
    if expert_tokens_num_flag:
        cnt = np.bincount(flat[active] - s, minlength=e - s).astype(np.int64)[: e - s]
        if expert_tokens_num_type == 1:
            counts = cnt
        elif expert_tokens_num_type == 0:
            counts = np.cumsum(cnt).astype(np.int64)
        else:
            counts = np.zeros((big_e, 2), np.int64)
            ids = np.nonzero(cnt)[0]
            counts[: len(ids), 0], counts[: len(ids), 1] = ids + s, cnt[ids]
    writes_scale = quant_mode == 1 or (quant_mode == -1 and scale is not None)
    out_dtype = x.dtype if quant_mode == -1 else np.dtype(np.int8)
    sc = None if scale is None else np.asarray(scale).astype(np.float32)
    if drop_pad_mode == 0:
        a = t if active_num in (0, -1) else min(active_num, t)
        r = min(avail, a)
        tok = order[:r] // k
        if row_idx_type == 1:
            row_idx = order.astype(np.int32)
        else:
            row_idx = np.full(t, -1, np.int32)
            row_idx[order[:avail]] = np.arange(avail, dtype=np.int32)
        expanded = np.zeros((a, h), out_dtype)
        escale = np.zeros(a, np.float32) if writes_scale else None
        if quant_mode == -1:
            expanded[:r] = x[tok]
            if sc is not None:
                escale[:r] = sc[tok]
        elif quant_mode == 0:
            expanded[:r] = _static_q(xf_rows(tok), sc.reshape(-1)[0], np.asarray(offset, np.float32).reshape(-1)[0])
        else:
            sm = None if sc is None else sc[np.zeros(r, np.int64)] if sc.shape[0] == 1 else sc[sorted_e[:r] - s]
            expanded[:r], escale[:r] = _dynamic_q(xf_rows(tok), sm)
        return expanded, row_idx, counts, escale
    c = expert_capacity  # drop/pad: the range is [0, E)
    nv = int(((flat >= 0) & (flat < big_e)).sum())  # valid slots: the sorted prefix
    rank = np.full(t, t, np.int64)
    sv = sorted_e[:nv]
    rank[:nv] = np.arange(nv) - np.searchsorted(sv, sv, side="left")
    keep = rank < c
    dst = (sorted_e * c + rank)[keep]
    tok = order[keep] // k
    row_idx = np.full(t, -1, np.int32)
    row_idx[order[keep]] = dst
    expanded = np.zeros((big_e * c, h), out_dtype)
    escale = np.zeros(big_e * c, np.float32) if writes_scale else None
    if quant_mode == -1:
        expanded[dst] = x[tok]
        if sc is not None:
            escale[dst] = sc[tok]
    elif quant_mode == 0:
        expanded[dst] = _static_q(xf_rows(tok), sc.reshape(-1)[0], np.asarray(offset, np.float32).reshape(-1)[0])
    else:
        sm = None if sc is None else sc[np.zeros(len(tok), np.int64)] if sc.shape[0] == 1 else sc[sorted_e[keep]]
        expanded[dst], escale[dst] = _dynamic_q(xf_rows(tok), sm)
    return expanded.reshape(big_e, c, h), row_idx, counts, escale
