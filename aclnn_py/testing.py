"""Helpers for testing MoE code with aclnn-py: forward/backward round trips of every operator pair.

Every forward operator here moves rows (and probabilities) without arithmetic, so it is a linear map
``y = A x``; its backward operator must compute the vector-Jacobian product ``A^T g``. ``check_pair``
runs both through the library on random inputs and verifies the adjoint identity
``<A x, g> == <x, A^T g>`` for the token and the probability parts. With small integer-valued data
every float32 sum is exact, so the identity holds exactly, not within a tolerance.

    from aclnn_py import testing
    testing.check_pair("moe_token_permute", np.random.default_rng(0), dtype="bfloat16")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import dtypes, ops

PAIRS = {
    "moe_token_permute": "moe_token_permute_grad",
    "moe_token_permute_with_routing_map": "moe_token_permute_with_routing_map_grad",
    "moe_token_permute_with_ep": "moe_token_permute_with_ep_grad",
    "moe_init_routing_v2": "moe_init_routing_v2_grad",
}


@dataclass
class RoundTrip:
    """One forward/backward evaluation: ``pairs`` lists (forward output, its cotangent, input, its
    gradient) as float64 arrays; ``mode`` describes the configuration."""

    forward: str
    mode: str
    pairs: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]

    def mismatches(self) -> list[str]:
        bad = []
        for i, (y, g, x, gx) in enumerate(self.pairs):
            lhs, rhs = float(np.sum(y * g)), float(np.sum(x * gx))
            if lhs != rhs:
                bad.append(f"{self.forward} [{self.mode}] part {i}: <Ax, g> = {lhs!r} but <x, A^T g> = {rhs!r}")
        return bad


def _ints(rng, shape, dtype, lo=-8, hi=9):
    """Small integers in a float dtype: exact in bfloat16 and float16, and so are their sums."""
    return rng.integers(lo, hi, size=shape).astype(np.float32).astype(dtypes.as_numpy_dtype(dtype))


def _f64(a):
    return np.asarray(a).astype(np.float64)


def _topk_indices(rng, n, k, e):
    """(n, k) distinct experts per token."""
    return np.argsort(rng.random((n, e)), axis=1)[:, :k].astype(np.int32)


def round_trip_permute(rng, dtype="float32", n=7, k=3, h=5, e=4, num_out_tokens=0) -> RoundTrip:
    tokens = _ints(rng, (n, h), dtype)
    idx = _topk_indices(rng, n, k, e)
    permuted, sorted_idx = ops.moe_token_permute(tokens, idx, num_out_tokens)
    g = _ints(rng, permuted.shape, dtype)
    gx = ops.moe_token_permute_grad(g, sorted_idx, k)
    return RoundTrip("moe_token_permute", f"num_out_tokens={num_out_tokens}",
                     [(_f64(permuted), _f64(g), _f64(tokens), _f64(gx))])


def round_trip_routing_map(rng, dtype="float32", t=6, e=4, k=2, h=5, drop_and_pad=False, capacity=3,
                           with_probs=True) -> RoundTrip:
    tokens = _ints(rng, (t, h), dtype)
    if drop_and_pad:
        routing = rng.random((t, e)) < 0.5
        num_out = capacity * e
    else:
        routing = np.zeros((t, e), bool)
        routing[np.arange(t)[:, None], _topk_indices(rng, t, k, e)] = True
        num_out = t * k
    probs = _ints(rng, (t, e), dtype) if with_probs else None
    out, pout, sorted_idx = ops.moe_token_permute_with_routing_map(tokens, routing, probs, num_out, drop_and_pad)
    g = _ints(rng, out.shape, dtype)
    pg = _ints(rng, (out.shape[0],), dtype) if with_probs else None
    tg, prg = ops.moe_token_permute_with_routing_map_grad(g, pg, sorted_idx, routing, e, t, drop_and_pad)
    pairs = [(_f64(out), _f64(g), _f64(tokens), _f64(tg))]
    if with_probs:
        pairs.append((_f64(pout), _f64(pg), _f64(probs), _f64(prg)))
    return RoundTrip("moe_token_permute_with_routing_map", f"drop_and_pad={drop_and_pad}, probs={with_probs}",
                     pairs)


def round_trip_ep(rng, dtype="float32", n=6, k=2, h=5, e=4, window=None, with_probs=True) -> RoundTrip:
    tokens = _ints(rng, (n, h), dtype)
    idx = _topk_indices(rng, n, k, e)
    total = n * k
    if window is None:
        start = int(rng.integers(0, total))
        window = (start, int(rng.integers(start + 1, total + 1)))
    probs = _ints(rng, (n, k), dtype) if with_probs else None
    out, sorted_idx, pout = ops.moe_token_permute_with_ep(tokens, idx, probs, window, 0)
    g = _ints(rng, out.shape, dtype)
    pg = _ints(rng, (out.shape[0],), dtype) if with_probs else None
    tg, prg = ops.moe_token_permute_with_ep_grad(g, sorted_idx, pg, k, window)
    pairs = [(_f64(out), _f64(g), _f64(tokens), _f64(tg))]
    if with_probs:
        pairs.append((_f64(pout), _f64(pg), _f64(probs), _f64(prg)))
    return RoundTrip("moe_token_permute_with_ep", f"range={tuple(window)}, probs={with_probs}", pairs)


def round_trip_init_routing_v2(rng, dtype="float32", n=7, k=2, h=5, e=4, drop_pad_mode=0, active_num=0,
                               capacity=2) -> RoundTrip:
    x = _ints(rng, (n, h), dtype)
    idx = _topk_indices(rng, n, k, e)
    if drop_pad_mode == 1:
        ex, row_idx, _, _ = ops.moe_init_routing_v2(x, idx, 0, capacity, e, 1)
    else:
        ex, row_idx, _, _ = ops.moe_init_routing_v2(x, idx, active_num, 0, e, 0)
    g = _ints(rng, ex.shape, dtype)
    # The forward keeps min(activeNum, N*K) rows; the gradient's activeNum must match its row count.
    active = min(active_num, n * k) if drop_pad_mode == 0 else 0
    gx = ops.moe_init_routing_v2_grad(g, row_idx, k, drop_pad_mode, active)
    return RoundTrip("moe_init_routing_v2", f"drop_pad_mode={drop_pad_mode}, active_num={active_num}",
                     [(_f64(ex), _f64(g), _f64(x), _f64(gx))])


ROUND_TRIPS: dict[str, Callable[..., RoundTrip]] = {
    "moe_token_permute": round_trip_permute,
    "moe_token_permute_with_routing_map": round_trip_routing_map,
    "moe_token_permute_with_ep": round_trip_ep,
    "moe_init_routing_v2": round_trip_init_routing_v2,
}


def check_pair(forward: str, rng=None, **kwargs) -> RoundTrip:
    """Run one round trip of ``forward`` and its backward; raise AssertionError on any mismatch."""
    rng = rng if rng is not None else np.random.default_rng()
    rt = ROUND_TRIPS[forward](rng, **kwargs)
    bad = rt.mismatches()
    if bad:
        raise AssertionError("; ".join(bad))
    return rt


# ---- the combine half: MoeTokenUnpermute and its backward ---------------------------------------------------------
# The forward y[t] = sum_k probs[t, k] * x[sortedIndices[t*K + k]] is bilinear: linear in the permuted rows x for
# fixed probs and linear in probs for fixed x, so one backward call gives both adjoint identities
# <y, g> == <x, grad_x> and <y, g> == <probs, grad_probs>. Values in [-3, 3] keep every product and sum exact in
# bfloat16.

PAIRS["moe_token_unpermute"] = "moe_token_unpermute_grad"


def round_trip_unpermute(rng, dtype="float32", n=7, k=3, h=5, e=4, num_out_tokens=0, prob_dtype=None) -> RoundTrip:
    tokens = _ints(rng, (n, h), dtype, -3, 4)
    _, sorted_idx = ops.moe_token_permute(tokens, _topk_indices(rng, n, k, e), num_out_tokens)
    rows = min(num_out_tokens if num_out_tokens > 0 else num_out_tokens + n * k, n * k)
    x = _ints(rng, (max(rows, 0), h), dtype, -3, 4)  # what the experts made of the permuted rows
    probs = _ints(rng, (n, k), prob_dtype or dtype, -3, 4)  # zeros included: the forward skips those slots
    y = ops.moe_token_unpermute(x, sorted_idx, probs)
    g = _ints(rng, y.shape, dtype, -3, 4)
    gx, gp = ops.moe_token_unpermute_grad(x, g, sorted_idx, probs)
    return RoundTrip("moe_token_unpermute", f"num_out_tokens={num_out_tokens}",
                     [(_f64(y), _f64(g), _f64(x), _f64(gx)), (_f64(y), _f64(g), _f64(probs), _f64(gp))])


ROUND_TRIPS["moe_token_unpermute"] = round_trip_unpermute


def check_unpermute_inverts_permute(rng=None, dtype="float32", prob_dtype=None, n=7, k=2, h=5, e=4) -> None:
    """unpermute(permute(x)) gives back x, bit for bit (x without -0.0 elements), for a dropless permute:
    with one unit weight per token (the zero-weight slots are skipped), with K = 1 and no probs, and with all
    weights 1 it gives the float32 sum of the K copies, rounded once. Raises AssertionError on a mismatch."""
    rng = rng if rng is not None else np.random.default_rng()
    dt = dtypes.as_numpy_dtype(dtype)
    pdt = dtypes.as_numpy_dtype(prob_dtype or dtype)
    x = rng.standard_normal((n, h)).astype(np.float32).astype(dt)
    permuted, sorted_idx = ops.moe_token_permute(x, _topk_indices(rng, n, k, e), 0)
    one_hot = np.zeros((n, k), np.float32)
    one_hot[np.arange(n), rng.integers(0, k, size=n)] = 1.0
    sums = np.zeros((n, h), np.float32)
    for _ in range(k):
        sums = sums + x.astype(np.float32)
    checks = [("one unit weight per token", ops.moe_token_unpermute(permuted, sorted_idx, one_hot.astype(pdt)), x),
              ("all weights 1", ops.moe_token_unpermute(permuted, sorted_idx, np.ones((n, k), pdt)),
               sums.astype(dt))]
    if k == 1:
        checks.append(("K = 1 without probs", ops.moe_token_unpermute(permuted, sorted_idx), x))
    for what, got, expected in checks:
        if got.dtype != expected.dtype or not np.array_equal(got.view(np.uint8), expected.view(np.uint8)):
            raise AssertionError(f"unpermute(permute(x)) [{what}, {dt}/{pdt}, K={k}] differs from the expected rows")
# ---- aclnnMoeInitRoutingV3 -------------------------------------------------------------------------------
# V3 without quantisation, with the full expert range and the gather index, is V2 with other attribute names
# (spec moe_init_routing_v3.md, 3.2): the same expandedX and expandedRowIdx; its statistics are V2's as INT64
# (type 1 = V2 countFlag 2, type 0 = V2 countFlag 1; drop/pad type 1 = V2's before-capacity counts). Its
# backward is MoeInitRoutingV2Grad with V3's row index (3.3).

@dataclass
class Identity:
    """Outputs of two operators that must agree bit for bit: ``pairs`` lists (name, first, second)."""

    name: str
    mode: str
    pairs: list[tuple[str, np.ndarray, np.ndarray]]

    def mismatches(self) -> list[str]:
        bad = []
        for what, a, b in self.pairs:
            a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
            if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                bad.append(f"{self.name} [{self.mode}] {what}: {a.dtype}{a.shape} differs from {b.dtype}{b.shape}")
        return bad


def init_routing_v3_vs_v2(rng, dtype="float32", n=7, k=2, h=5, e=4, drop_pad_mode=0, active_num=-1, capacity=2,
                          tokens_num_type=1) -> Identity:
    """Run MoeInitRoutingV3 (gather index, full range, no quantisation) and MoeInitRoutingV2 on the same routing
    of distinct in-range experts per token; their outputs must be identical."""
    x = _ints(rng, (n, h), dtype)
    idx = _topk_indices(rng, n, k, e)
    if drop_pad_mode == 1:
        ex3, ri3, cnt3, _ = ops.moe_init_routing_v3(x, idx, None, None, -1, capacity, e, 1, 1, True, -1, None, 0)
        ex2, ri2, _, cnt2 = ops.moe_init_routing_v2(x, idx, 0, capacity, e, 1, 0, True)
    else:
        flag2 = {1: 2, 0: 1}[tokens_num_type]
        ex3, ri3, cnt3, _ = ops.moe_init_routing_v3(x, idx, None, None, active_num, 0, e, 0, tokens_num_type, True,
                                                    -1, None, 0)
        ex2, ri2, cnt2, _ = ops.moe_init_routing_v2(x, idx, max(active_num, 0), 0, e, 0, flag2, False)
    mode = f"drop_pad_mode={drop_pad_mode}, active_num={active_num}, type={tokens_num_type}"
    return Identity("moe_init_routing_v3 vs moe_init_routing_v2", mode,
                    [("expanded_x", ex3, ex2), ("expanded_row_idx", ri3, ri2),
                     ("counts", cnt3, cnt2.astype(np.int64))])


def check_init_routing_v3_vs_v2(rng=None, **kwargs) -> Identity:
    """``init_routing_v3_vs_v2``; raise AssertionError on any difference."""
    ident = init_routing_v3_vs_v2(rng if rng is not None else np.random.default_rng(), **kwargs)
    bad = ident.mismatches()
    if bad:
        raise AssertionError("; ".join(bad))
    return ident


def round_trip_init_routing_v3(rng, dtype="float32", n=7, k=2, h=5, e=4, drop_pad_mode=0, active_num=-1,
                               capacity=2) -> RoundTrip:
    """V3 (unquantised, gather index) forward, MoeInitRoutingV2Grad backward with V3's row index."""
    x = _ints(rng, (n, h), dtype)
    idx = _topk_indices(rng, n, k, e)
    if drop_pad_mode == 1:
        ex, row_idx, _, _ = ops.moe_init_routing_v3(x, idx, None, None, -1, capacity, e, 1)
    else:
        ex, row_idx, _, _ = ops.moe_init_routing_v3(x, idx, None, None, active_num, 0, e, 0)
    g = _ints(rng, ex.shape, dtype)
    # V2Grad's activeNum names the forward's row count: 0 for all N*K rows.
    active = 0 if drop_pad_mode == 1 or active_num in (0, -1) else min(active_num, n * k)
    gx = ops.moe_init_routing_v2_grad(g, row_idx, k, drop_pad_mode, active)
    return RoundTrip("moe_init_routing_v3", f"drop_pad_mode={drop_pad_mode}, active_num={active_num}",
                     [(_f64(ex), _f64(g), _f64(x), _f64(gx))])


PAIRS["moe_init_routing_v3"] = "moe_init_routing_v2_grad"
ROUND_TRIPS["moe_init_routing_v3"] = round_trip_init_routing_v3
# ---- MoeFinalizeRoutingV2: its backward, and the init-routing -> experts -> finalize chain -------------------
#
# FinalizeRoutingV2 is linear in expandedX (for fixed scales, without bias and skip inputs) and linear in the
# scales (for fixed expandedX, with a bias), so its backward is checked as the adjoint of each part. The pairing
# is by slot layout: forward dropPadMode 2 (dropless, row-major) <-> backward 0, forward 3 (drop/pad) <-> 1.

PAIRS["moe_finalize_routing_v2"] = "moe_finalize_routing_v2_grad"


def _slot_rows(rng, slots, rows, drop_pad):
    """A row index for `slots` slots into `rows` rows: a permutation (dropless), or distinct rows with some
    slots dropped (-1) in drop/pad mode."""
    if not drop_pad:
        return rng.permutation(slots).astype(np.int32)
    idx = np.full(slots, -1, np.int32)
    kept = rng.permutation(slots)[:min(slots, rows)]
    idx[kept] = rng.permutation(rows)[:kept.size]
    idx[rng.random(slots) < 0.2] = -1
    return idx


def round_trip_finalize_routing_v2(rng, dtype="float32", n=7, k=2, h=5, e=4, drop_pad_mode=2,
                                   capacity=2) -> RoundTrip:
    drop_pad = drop_pad_mode == 3
    ex_shape = (e, capacity, h) if drop_pad else (n * k, h)
    ex = _ints(rng, ex_shape, dtype, -3, 4)
    idx = _slot_rows(rng, n * k, e * capacity if drop_pad else n * k, drop_pad)
    scales = _ints(rng, (n, k), dtype, -3, 4)
    # A bias term breaks the identity for dropped slots (their gradScales is <bias, gradY> by design).
    bias = None if drop_pad else _ints(rng, (max(e, k), h), dtype, -3, 4)
    expert_idx = rng.integers(0, max(e, k), size=(n, k)).astype(np.int32)
    y_x = ops.moe_finalize_routing_v2(ex, idx, None, None, None, scales, None, drop_pad_mode)
    y_s = ops.moe_finalize_routing_v2(ex, idx, None, None, bias, scales, expert_idx if bias is not None else None,
                                      drop_pad_mode)
    g = _ints(rng, (n, h), dtype, -3, 4)
    grad_mode = 1 if drop_pad else 0
    gex, _ = ops.moe_finalize_routing_v2_grad(g, idx, ex, scales, None, None, grad_mode, 0,
                                              e if drop_pad else 0, capacity if drop_pad else 0)
    _, gsc = ops.moe_finalize_routing_v2_grad(g, idx, ex, scales, expert_idx if bias is not None else None, bias,
                                              grad_mode, 0, e if drop_pad else 0, capacity if drop_pad else 0)
    return RoundTrip("moe_finalize_routing_v2", f"drop_pad_mode={drop_pad_mode}, bias={bias is not None}",
                     [(_f64(y_x), _f64(g), _f64(ex), _f64(gex)), (_f64(y_s), _f64(g), _f64(scales), _f64(gsc))])


ROUND_TRIPS["moe_finalize_routing_v2"] = round_trip_finalize_routing_v2


@dataclass
class Chain:
    """An init-routing -> identity experts -> FinalizeRoutingV2 evaluation: ``out`` (float64) must equal
    ``expected``, the routing-weighted sum of each token's kept copies."""

    init: str
    mode: str
    out: np.ndarray
    expected: np.ndarray

    def mismatches(self) -> list[str]:
        if np.array_equal(self.out, self.expected):
            return []
        bad = np.argwhere(self.out != self.expected)[:3].tolist()
        return [f"{self.init} -> finalize [{self.mode}]: not the weighted tokens at {bad}"]


def chain_init_routing_v2(rng, dtype="float32", n=7, k=2, h=5, e=4, drop_pad_mode=0, capacity=2) -> Chain:
    """MoeInitRoutingV2 (dropless, or drop/pad with `capacity`) -> identity experts -> FinalizeRoutingV2 with the
    matching row-major mode (2, or 3): every token comes back as sum_k scales[t, k] * x[t] over its kept slots."""
    x = _ints(rng, (n, h), dtype, -3, 4)
    expert_idx = _topk_indices(rng, n, k, e)
    if drop_pad_mode == 1:
        ex, row_idx, _, _ = ops.moe_init_routing_v2(x, expert_idx, 0, capacity, e, 1)
    else:
        ex, row_idx, _, _ = ops.moe_init_routing_v2(x, expert_idx, 0, 0, e, 0)
    scales = _ints(rng, (n, k), dtype, -3, 4)
    out = ops.moe_finalize_routing_v2(ex, row_idx, None, None, None, scales, None, 3 if drop_pad_mode == 1 else 2)
    kept = (row_idx.reshape(n, k) >= 0).astype(np.float64)
    expected = np.sum(_f64(scales) * kept, axis=1)[:, None] * _f64(x)
    return Chain("moe_init_routing_v2", f"drop_pad_mode={drop_pad_mode}", _f64(out), expected)


def chain_init_routing_v3(rng, dtype="float32", n=7, k=2, h=5, e=4, drop_pad_mode=0, capacity=2) -> Chain:
    """MoeInitRoutingV3 (gather index; dropless, or drop/pad with `capacity`) -> identity experts ->
    FinalizeRoutingV2 in the matching row-major mode (2, or 3): the same weighted tokens as through V2."""
    x = _ints(rng, (n, h), dtype, -3, 4)
    expert_idx = _topk_indices(rng, n, k, e)
    capacity = capacity if drop_pad_mode == 1 else -1
    ex, row_idx, _, _ = ops.moe_init_routing_v3(x, expert_idx, expert_capacity=capacity, expert_num=e,
                                                drop_pad_mode=drop_pad_mode)
    scales = _ints(rng, (n, k), dtype, -3, 4)
    out = ops.moe_finalize_routing_v2(ex, row_idx, None, None, None, scales, None, 3 if drop_pad_mode == 1 else 2)
    kept = (row_idx.reshape(n, k) >= 0).astype(np.float64)
    expected = np.sum(_f64(scales) * kept, axis=1)[:, None] * _f64(x)
    return Chain("moe_init_routing_v3", f"drop_pad_mode={drop_pad_mode}", _f64(out), expected)


def chain_init_routing_v1(rng, dtype="float32", n=7, k=2, h=5, e=4, active_num=None, bias=True) -> Chain:
    """MoeInitRouting (V1: rowIdx[i, j] = j * n + i, as MoeGatingTopKSoftmax gives it) -> identity experts ->
    MoeFinalizeRouting (V1): token t comes back as x1[t] + sum_k scales[t, k] * (x[t] + bias[expert]), every row
    active (activeNum >= n)."""
    from .generic import run

    x = _ints(rng, (n, h), dtype, -3, 4)
    expert_idx = _topk_indices(rng, n, k, e)
    row_idx = np.arange(n * k, dtype=np.int32).reshape(k, n).T.copy()
    active = n if active_num is None else active_num
    ex = np.zeros((min(active, n) * k, h), x.dtype)
    erow, eexp = np.zeros(n * k, np.int32), np.zeros(n * k, np.int32)
    run("aclnnMoeInitRouting", x, row_idx, expert_idx, active, out=(ex, erow, eexp))
    scales = _ints(rng, (n, k), dtype, -3, 4)
    b = _ints(rng, (e, h), dtype, -3, 4) if bias else np.zeros((e, h), x.dtype)
    x1 = _ints(rng, (n, h), dtype, -3, 4)
    out = np.zeros((n, h), x.dtype)
    run("aclnnMoeFinalizeRouting", ex, x1, None, b, scales, erow, expert_idx, out=out)
    expected = _f64(x1) + np.einsum("tk,tkh->th", _f64(scales), _f64(x)[:, None, :] + _f64(b)[expert_idx])
    return Chain("moe_init_routing", f"bias={bias}", _f64(out), expected)


CHAINS: dict[str, Callable[..., Chain]] = {"moe_init_routing_v2": chain_init_routing_v2,
                                           "moe_init_routing_v3": chain_init_routing_v3,
                                           "moe_init_routing": chain_init_routing_v1}


def check_chain(init: str, rng=None, **kwargs) -> Chain:
    """Run one init-routing -> identity experts -> finalize-routing chain (CHAINS: V2, V3 into FinalizeRoutingV2;
    V1 into FinalizeRouting); raise AssertionError on a mismatch."""
    rng = rng if rng is not None else np.random.default_rng()
    chain = CHAINS[init](rng, **kwargs)
    bad = chain.mismatches()
    if bad:
        raise AssertionError("; ".join(bad))
    return chain


# ---- the expert-parallel combine: aclnnMoeTokenUnpermuteWithEp and its backward -------------------------

def round_trip_unpermute_ep(rng, dtype="float32", n=6, k=2, h=5, e=4, window=None, with_probs=True,
                            probs_dtype=None) -> RoundTrip:
    """The combine is linear in the expert outputs y and in the probs: <out, G> = <y, dy> = <probs, dprobs>
    with (dy, dprobs) from the backward over the same window. Values in [-4, 4] keep every sum exact,
    also in bfloat16."""
    tokens = _ints(rng, (n, h), dtype, -4, 5)
    idx = _topk_indices(rng, n, k, e)
    total = n * k
    if window is None:
        start = int(rng.integers(0, total))
        window = (start, int(rng.integers(start + 1, total + 1)))
    probs = _ints(rng, (n, k), probs_dtype or dtype, -4, 5) if with_probs else None
    _, sorted_idx, _ = ops.moe_token_permute_with_ep(tokens, idx, None, (0, total), 0)
    y = _ints(rng, (window[1] - window[0], h), dtype, -4, 5)  # the window's expert outputs
    out = ops.moe_token_unpermute_with_ep(y, sorted_idx, probs, k, window)
    g = _ints(rng, out.shape, dtype, -4, 5)
    dy, dprobs = ops.moe_token_unpermute_with_ep_grad(g, sorted_idx, y, probs, range=window, topk_num=k)
    pairs = [(_f64(out), _f64(g), _f64(y), _f64(dy))]
    if with_probs:
        pairs.append((_f64(out), _f64(g), _f64(probs), _f64(dprobs)))
    return RoundTrip("moe_token_unpermute_with_ep", f"range={tuple(window)}, probs={with_probs}", pairs)


PAIRS["moe_token_unpermute_with_ep"] = "moe_token_unpermute_with_ep_grad"
ROUND_TRIPS["moe_token_unpermute_with_ep"] = round_trip_unpermute_ep


@dataclass
class Sharding:
    """An expert-parallel step computed unsharded and by R ranks over disjoint windows of sorted rows:
    ``checks`` lists (what, combined result of the ranks, unsharded result) as float64 arrays."""

    mode: str
    windows: list[tuple[int, int]]
    checks: list[tuple[str, np.ndarray, np.ndarray]]

    def mismatches(self) -> list[str]:
        return [f"[{self.mode}] {what}: ranks give {got.tolist()}, unsharded {want.tolist()}"
                for what, got, want in self.checks if got.shape != want.shape or not np.array_equal(got, want)]


def expert_windows(indices: np.ndarray, experts: int, ranks: int) -> list[tuple[int, int]]:
    """Sorted-row window of each rank when rank r owns the experts [r*E/R, (r+1)*E/R): the permute sorts
    slots stably by expert id, so one rank's slots are one contiguous block of ranks."""
    bounds = np.concatenate([[0], np.cumsum(np.bincount(indices.reshape(-1), minlength=experts))])
    owned = np.linspace(0, experts, ranks + 1).astype(int)
    return [(int(bounds[owned[r]]), int(bounds[owned[r + 1]])) for r in range(ranks)]


def ep_sharding(rng, dtype="float32", n=8, k=2, h=5, e=6, ranks=3, with_probs=True, probs_dtype=None) -> Sharding:
    """Dispatch with aclnnMoeTokenPermuteWithEp per rank, an integer "expert" per row, combine with
    aclnnMoeTokenUnpermuteWithEp per rank, then the backward per rank. Identities: the ranks' partial
    outputs sum to the unsharded combine, which is sum_k probs[t, k] * expert(tokens[t]) (K * expert(tokens[t])
    without probs); the ranks' permuted-row gradients concatenate to the unsharded one and their probs
    gradients sum to it. Values in [-4, 4] keep every sum exact."""
    tokens = _ints(rng, (n, h), dtype, -4, 5)
    idx = _topk_indices(rng, n, k, e)
    probs = _ints(rng, (n, k), probs_dtype or dtype, -4, 5) if with_probs else None
    scale = rng.integers(-2, 3, size=e).astype(np.float32)  # expert x: scale[x] * row, exact

    total = n * k
    full_rows, sorted_idx, _ = ops.moe_token_permute_with_ep(tokens, idx, None, (0, total), 0)
    expert_of_row = np.sort(idx.reshape(-1), kind="stable")
    y_full = (_f64(full_rows) * scale[expert_of_row][:, None]).astype(full_rows.dtype)
    g = _ints(rng, (n, h), dtype, -4, 5)
    out_full = ops.moe_token_unpermute_with_ep(y_full, sorted_idx, probs, k, (0, total))
    dy_full, dp_full = ops.moe_token_unpermute_with_ep_grad(g, sorted_idx, y_full, probs, range=(0, total),
                                                            topk_num=k)

    windows = expert_windows(idx, e, ranks)
    out_sum, dp_sum, dy_parts, rows_parts = np.zeros((n, h)), np.zeros((n, k)), [], []
    for start, end in windows:
        if end == start:  # a rank whose experts received no slot has nothing to compute
            continue
        rows, _, _ = ops.moe_token_permute_with_ep(tokens, idx, None, (start, end), 0)
        rows_parts.append(_f64(rows))
        y = (_f64(rows) * scale[expert_of_row[start:end]][:, None]).astype(rows.dtype)
        out_sum += _f64(ops.moe_token_unpermute_with_ep(y, sorted_idx, probs, k, (start, end)))
        dy, dp = ops.moe_token_unpermute_with_ep_grad(g, sorted_idx, y, probs, range=(start, end), topk_num=k)
        dy_parts.append(_f64(dy))
        if with_probs:
            dp_sum += _f64(dp)
    weights = _f64(probs) if with_probs else np.ones((n, k))
    by_hand = np.einsum("tk,tkh->th", weights, scale[idx][:, :, None] * _f64(tokens)[:, None, :])
    checks = [
        ("dispatch: the ranks' rows concatenated", np.concatenate(rows_parts), _f64(full_rows)),
        ("combine: sum of the ranks' partial outputs", out_sum, _f64(out_full)),
        ("combine: unsharded output = sum_k probs * expert(tokens)", _f64(out_full), by_hand),
        ("backward: the ranks' permuted-row gradients concatenated", np.concatenate(dy_parts), _f64(dy_full)),
    ]
    if with_probs:
        checks.append(("backward: sum of the ranks' probs gradients", dp_sum, _f64(dp_full)))
    return Sharding(f"{ranks} ranks, n={n}, k={k}, e={e}, probs={with_probs}", windows, checks)


def check_ep_sharding(rng=None, **kwargs) -> Sharding:
    """Run one expert-parallel step (``ep_sharding``); raise AssertionError on any mismatch."""
    rng = rng if rng is not None else np.random.default_rng()
    sh = ep_sharding(rng, **kwargs)
    bad = sh.mismatches()
    if bad:
        raise AssertionError("; ".join(bad))
    return sh




# ---- the combine half of the routing-map dispatch ------------------------------------------------------------

def _routing_map_dispatch(rng, dtype, t, e, k, h, drop_and_pad, capacity, lo=-8, hi=9):
    """Tokens, a routing map (K experts per token, or random in drop/pad mode) and MoeTokenPermuteWithRoutingMap's
    outputs for them: (tokens, routing map, permuted tokens, sorted indices)."""
    tokens = _ints(rng, (t, h), dtype, lo, hi)
    if drop_and_pad:
        routing = rng.random((t, e)) < 0.5
        num_out = capacity * e
    else:
        routing = np.zeros((t, e), bool)
        routing[np.arange(t)[:, None], _topk_indices(rng, t, k, e)] = True
        num_out = t * k
    permuted, _, sorted_idx = ops.moe_token_permute_with_routing_map(tokens, routing, None, num_out, drop_and_pad)
    return tokens, routing, permuted, sorted_idx


def round_trip_unpermute_routing_map(rng, dtype="float32", t=6, e=4, k=2, h=5, drop_and_pad=False, capacity=3,
                                     with_probs=True) -> RoundTrip:
    """MoeTokenUnpermuteWithRoutingMap is linear in the permuted rows and in probs (bilinear); its backward must be
    the vector-Jacobian product for both. Data in [-2, 2] keeps every product, sum and dot product exact."""
    _, routing, permuted, sorted_idx = _routing_map_dispatch(rng, dtype, t, e, k, h, drop_and_pad, capacity, -2, 3)
    probs = _ints(rng, (t, e), dtype, -2, 3) if with_probs else None
    y, out_index, token_id, _ = ops.moe_token_unpermute_with_routing_map(permuted, sorted_idx, routing, probs,
                                                                         drop_and_pad, (t, h))
    g = _ints(rng, y.shape, dtype, -2, 3)
    if drop_and_pad:
        gx, gp = ops.moe_token_unpermute_with_routing_map_grad(g, out_index, token_id, routing, permuted, probs, True)
    else:  # the wiring of torch_npu: the forward's sortedIndices as both index inputs
        gx, gp = ops.moe_token_unpermute_with_routing_map_grad(g, sorted_idx, sorted_idx, routing, permuted, probs,
                                                               False)
    pairs = [(_f64(y), _f64(g), _f64(permuted), _f64(gx))]
    if with_probs:
        pairs.append((_f64(y), _f64(g), _f64(probs), _f64(gp)))
    return RoundTrip("moe_token_unpermute_with_routing_map", f"drop_and_pad={drop_and_pad}, probs={with_probs}",
                     pairs)


def check_unpermute_inverse_routing_map(rng=None, dtype="float32", t=6, e=4, k=2, h=5, drop_and_pad=False,
                                        capacity=3, with_probs=True) -> np.ndarray:
    """unpermute(permute(x)) with the routing map as unit probs (or no probs) is x times the number of rows that
    carried each token: K without drop/pad; in drop/pad mode, with unit probs the experts that kept the token (the
    padding rows weigh 0), without probs every row of the token, padding included. Exact for small integers.
    Returns the restored tokens; raises AssertionError on a mismatch."""
    rng = rng if rng is not None else np.random.default_rng()
    tokens, routing, permuted, sorted_idx = _routing_map_dispatch(rng, dtype, t, e, k, h, drop_and_pad, capacity)
    np_dtype = dtypes.as_numpy_dtype(dtype)
    probs = routing.astype(np_dtype) if with_probs else None
    restored = ops.moe_token_unpermute_with_routing_map(permuted, sorted_idx, routing, probs, drop_and_pad,
                                                        (t, h))[0]
    if not drop_and_pad:
        copies = np.full(t, k)
    elif with_probs:
        kept = np.zeros((t, e), bool)
        cap = sorted_idx.size // max(e, 1)
        for j, tok in enumerate(sorted_idx):
            kept[tok, j // cap] |= routing[tok, j // cap]
        copies = kept.sum(axis=1)
    else:
        copies = np.bincount(sorted_idx, minlength=t)[:t]
    expected = (_f64(tokens) * copies[:, None] + 0.0).astype(np.float32).astype(np_dtype)  # sums start at +0.0
    if restored.tobytes() != expected.tobytes():
        raise AssertionError(f"unpermute(permute(x)) [drop_and_pad={drop_and_pad}, probs={with_probs}]: got "
                             f"{_f64(restored).tolist()}, expected {_f64(expected).tolist()}")
    return restored


PAIRS["moe_token_unpermute_with_routing_map"] = "moe_token_unpermute_with_routing_map_grad"
ROUND_TRIPS["moe_token_unpermute_with_routing_map"] = round_trip_unpermute_routing_map
