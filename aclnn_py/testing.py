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
