"""aclnnMoeInitRoutingV2 and aclnnMoeInitRoutingV2Grad (specs ops/moe_init_routing_v2.md and
ops/moe_init_routing_v2_grad.md): bit-exact equality with the references in every mode (dropless, active,
drop/pad, count outputs), the mirror layer's two phases, random shapes, routings and thread counts, every
validation rule with its status code (from Python and from C), and forward/backward round trips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import aclnn_py
from aclnn_py import acl, aclnn, reference, testing

from helpers_ops import (BF, BF16, C_LIVE, F64, FLOATS, FLOAT_IDS, FP16, FP32, I16, I32, I64, I8, INVALID, NULLPTR, NZ,
                         T, TILING, Resources, assert_all_same, assert_rejected, assert_same, bits, c_validation_tests,
                         phase1, random_bits, random_values, run_two_phases, status_of, threads)

forward = aclnn_py.moe_init_routing_v2
backward = aclnn_py.moe_init_routing_v2_grad
ref_forward = reference.moe_init_routing_v2
ref_backward = reference.moe_init_routing_v2_grad

I32_MIN, I32_MAX = -2**31, 2**31 - 1


# ---- helpers ---------------------------------------------------------------------------------------------

def random_ids(rng, shape, lo, hi) -> np.ndarray:
    return rng.integers(lo, hi, size=shape).astype(np.int32)


def rows_of(t, active):
    """A: rows of expandedX in mode 0."""
    return t if active == 0 else min(active, t)


# Direct transcriptions of the specs' section 3, loop by loop, to check the vectorised package references too.
def spec_forward(x, expert_idx, active_num=0, capacity=0, e=0, mode=0, count_flag=0, before_flag=False):
    n, h = x.shape
    k = expert_idx.shape[1]
    flat = [int(v) for v in expert_idx.reshape(-1)]
    t = n * k
    order = sorted(range(t), key=lambda i: flat[i])  # Python's sort is stable and exact on integers
    hist = {}
    for v in flat:
        if 0 <= v < e:
            hist[v] = hist.get(v, 0) + 1
    counts = np.array([hist.get(i, 0) for i in range(e)] if count_flag or before_flag else [], np.int32)
    xb = bits(x)
    row_idx = np.full(t, -1, np.int32)
    count_out = before_out = None
    if mode == 0:
        a = rows_of(t, active_num)
        exb = np.zeros((a, h), xb.dtype)
        for j, slot in enumerate(order):
            row_idx[slot] = j
            if j < a:
                exb[j] = xb[slot // k]
        if count_flag == 1:
            count_out = np.cumsum(counts, dtype=np.int64).astype(np.int32)
        elif count_flag == 2:
            count_out = counts
    else:
        exb = np.zeros((e, capacity, h), xb.dtype)
        seen = {}
        for slot in order:
            v = flat[slot]
            r = seen.get(v, 0)
            seen[v] = r + 1
            if 0 <= v < e and r < capacity:
                row_idx[slot] = v * capacity + r
                exb[v, r] = xb[slot // k]
        if before_flag:
            before_out = counts
    return exb.view(x.dtype), row_idx, count_out, before_out


def spec_backward(grad, row_idx, k):
    """Finite inputs only: the final astype rounds to nearest even like the device."""
    h = grad.shape[-1]
    r = int(np.prod(grad.shape[:-1], dtype=np.int64))
    rows = grad.reshape(r, h).astype(np.float32)
    n = row_idx.size // k
    out = np.zeros((n, h), np.float32)
    for t in range(n):
        acc = None
        for j in range(k):
            d = int(row_idx[t * k + j])
            term = rows[d] if 0 <= d < r else np.zeros(h, np.float32)
            acc = term.copy() if acc is None else acc + term  # float32 + float32, in increasing j
        out[t] = acc
    return out.astype(grad.dtype)


# ---- forward: reference equality in every mode -----------------------------------------------------------

N, K, H, E = 9, 3, 5, 4
T_ = N * K

# name -> (activeNum, expertCapacity, expertNum, dropPadMode, countFlag, beforeCapacityFlag)
FWD_MODES = {
    "dropless": (0, 0, E, 0, 0, False),
    "dropless_cumsum": (0, 0, E, 0, 1, False),
    "dropless_count": (0, 0, E, 0, 2, False),
    "dropless_before_flag_ignored": (0, 0, E, 0, 2, True),
    "dropless_capacity_ignored": (0, 7, E, 0, 1, True),
    "dropless_no_experts": (0, 0, 0, 0, 0, False),
    "dropless_one_expert": (0, 0, 1, 0, 2, False),
    "active_1": (1, 0, E, 0, 1, False),
    "active_half": (T_ // 2, 0, E, 0, 2, False),
    "active_T": (T_, 0, E, 0, 1, False),
    "active_above_T": (T_ + 5, 0, E, 0, 2, False),
    "active_no_counts": (5, 0, E, 0, 0, True),
    "drop_capacity_1": (0, 1, E, 1, 0, True),
    "drop_capacity_2": (0, 2, E, 1, 0, True),
    "pad_capacity_N": (0, N, E, 1, 0, True),
    "pad_before_flag_off": (0, N, E, 1, 0, False),
    "drop_count_flag_ignored": (0, 3, E, 1, 1, False),
    "drop_count_flag_2_ignored": (0, 3, E, 1, 2, True),
    "drop_active_ignored": (7, 2, E, 1, 0, True),
    "drop_one_expert": (0, 4, 1, 1, 0, True),
}

# name -> id range [lo, hi): in range, with negatives and ids >= E, far beyond 2^24
ID_KINDS = {"in_range": (0, E), "out_of_range": (-2, E + 2), "huge": (2**24 - 2, 2**24 + 3)}


def _expected_none(mode_args):
    active, cap, e, mode, flag, before = mode_args
    return (not (mode == 0 and flag in (1, 2)), not (mode == 1 and before))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_matches_reference(dtype):
    rng = np.random.default_rng(FLOATS.index(dtype))
    for kind, (lo, hi) in ID_KINDS.items():
        for name, args in FWD_MODES.items():
            what = f"{kind} {name}"
            x = random_bits(rng, (N, H), dtype)
            idx = random_ids(rng, (N, K), lo, hi)
            got = forward(x, idx, *args)
            expected = ref_forward(x, idx, *args)
            assert_all_same(got, expected, what)
            assert_all_same(expected, spec_forward(x, idx, *args), what)
            active, cap, e, mode, flag, before = args
            assert got[0].shape == ((e, cap, H) if mode == 1 else (rows_of(T_, active), H)), what
            no_count, no_before = _expected_none(args)
            assert (got[2] is None) == no_count and (got[3] is None) == no_before, what


def _official_example(dtype=np.float32):
    x = np.array([[0.1] * 4, [0.2] * 4, [0.3] * 4], np.float32).astype(dtype)
    idx = np.array([[1, 2], [0, 1], [0, 2]], np.int32)
    return x, idx


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_official_example_by_hand(dtype):
    x, idx = _official_example(dtype)
    ex, row_idx, count_out, before_out = forward(x, idx, 0, 2, 3, 1, 0, True)
    # stable order [2, 4, 0, 3, 1, 5]: expert 0 <- tokens 1, 2; expert 1 <- 0, 1; expert 2 <- 0, 2
    assert row_idx.tolist() == [2, 4, 0, 3, 1, 5]
    assert_same(ex, x[[1, 2, 0, 1, 0, 2]].reshape(3, 2, 4))
    assert count_out is None and before_out.tolist() == [2, 2, 2]


def test_forward_dropless_counts_by_hand():
    x, idx = _official_example()
    for flag, counts in [(1, [2, 4, 6]), (2, [2, 2, 2])]:
        ex, row_idx, count_out, before_out = forward(x, idx, 0, 0, 3, 0, flag, True)
        assert row_idx.tolist() == [2, 4, 0, 3, 1, 5]
        assert_same(ex, x[[1, 2, 0, 1, 0, 2]])
        assert count_out.tolist() == counts and before_out is None
    assert forward(x, idx, 0, 0, 3, 0, 0)[2:] == (None, None)


def test_forward_active_keeps_the_full_permutation_and_counts_every_slot():
    x, idx = _official_example()
    for active in (1, 4, 6, 7, 1000):
        ex, row_idx, count_out, _ = forward(x, idx, active, 0, 3, 0, 1)
        assert row_idx.tolist() == [2, 4, 0, 3, 1, 5]  # positions >= A included
        assert_same(ex, x[[1, 2, 0, 1, 0, 2][:min(active, 6)]])
        assert count_out.tolist() == [2, 4, 6]  # all T slots, not only the first A


def test_forward_drop_and_pad_by_hand():
    x = np.arange(1, 6, dtype=np.float32).reshape(5, 1) * np.float32(1.5)
    # K = 2: expert 0 has five slots (ranks 0..4), expert 1 one, expert 2 none
    idx = np.array([[0, 1], [0, 0], [0, 5], [-1, 0], [2**31 - 1, -7]], np.int32)
    ex, row_idx, count_out, before = forward(x, idx, 0, 3, 3, 1, 0, True)
    # sorted: -7 (slot 9), -1 (6), 0 (0, 2, 3, 4, 7), 1 (1), 5 (5), max (8); ids outside [0, 3) dropped
    assert row_idx.tolist() == [0, 3, 1, 2, -1, -1, -1, -1, -1, -1]
    assert ex[:, :, 0].tolist() == [[1.5, 3.0, 3.0], [1.5, 0, 0], [0, 0, 0]]
    assert not bits(ex[1, 1:]).any() and not bits(ex[2]).any()  # padding: +0.0 bits
    assert before.tolist() == [5, 1, 0] and count_out is None
    assert_all_same((ex, row_idx, count_out, before), ref_forward(x, idx, 0, 3, 3, 1, 0, True))


def test_forward_padding_rows_are_zero_bits_whatever_x_holds():
    x = np.full((4, 3), np.nan, np.float32)
    x.view(np.uint32)[:] = 0xFFFFFFFF  # negative NaN everywhere
    idx = np.array([[0], [0], [2], [2]], np.int32)
    ex, row_idx, _, _ = forward(x, idx, 0, 4, 3, 1)
    assert row_idx.tolist() == [0, 1, 8, 9]
    filled = np.zeros((3, 4), bool)
    filled[0, :2] = filled[2, :2] = True
    assert (bits(ex)[filled] == 0xFFFFFFFF).all() and (bits(ex)[~filled] == 0).all()


def test_forward_out_of_range_ids_in_mode_0_sort_normally_and_are_not_counted():
    x = np.arange(6, dtype=np.float16).reshape(6, 1)
    idx = np.array([[3], [-1], [1], [9], [-2**31], [1]], np.int32)
    ex, row_idx, count_out, _ = forward(x, idx, 0, 0, 3, 0, 1)
    # sorted: min (4), -1 (1), 1 (2), 1 (5), 3 (0), 9 (3)
    assert ex[:, 0].tolist() == [4, 1, 2, 5, 0, 3]
    assert row_idx.tolist() == [4, 1, 2, 5, 0, 3] and count_out.tolist() == [0, 2, 2]
    assert forward(x, idx, 0, 0, 3, 0, 2)[2].tolist() == [0, 2, 0]


def test_forward_ids_beyond_2_24_sort_exactly():
    # 2^24 + 1 is 2^24 as a float32: a float32 sort would tie it with the two 2^24 and keep slot order
    x = np.arange(4, dtype=np.float32).reshape(4, 1)
    idx = np.array([[2**24 + 1, 2**24], [I32_MAX, 2**24 + 2], [2**24, I32_MIN], [-5, 0]], np.int32)
    ex, row_idx, count_out, _ = forward(x, idx, 0, 0, 3, 0, 2)
    order = [5, 6, 7, 1, 4, 0, 3, 2]  # min, -5, 0, 2^24 (slots 1, 4), 2^24 + 1, 2^24 + 2, max
    assert ex[:, 0].tolist() == [s // 2 for s in order]
    assert row_idx.tolist() == [order.index(i) for i in range(8)]
    assert count_out.tolist() == [1, 0, 0]
    assert_all_same((ex, row_idx, count_out, None), ref_forward(x, idx, 0, 0, 3, 0, 2))
    # drop/pad with E = 2^24 + 3 and H = 0: the row indices alone show the exact groups
    x0 = np.zeros((4, 0), np.float32)
    got = forward(x0, idx, 0, 2, 2**24 + 3, 1)
    c = 2
    assert got[1].tolist() == [2**24 * c + c, 2**24 * c, -1, (2**24 + 2) * c, 2**24 * c + 1, -1, -1, 0]
    assert got[0].shape == (2**24 + 3, 2, 0)
    assert_all_same(got, spec_forward(x0, idx, 0, 2, 2**24 + 3, 1))


def test_forward_equal_ids_keep_slot_order():
    x = np.arange(4, dtype=np.float32).reshape(4, 1)
    idx = np.full((4, 3), 2, np.int32)
    ex, row_idx, _, before = forward(x, idx, 0, 4, 3, 1, 0, True)
    assert row_idx.tolist() == [8, 9, 10, 11] + [-1] * 8  # ranks 0..3 kept, in token then slot order
    assert ex[2, :, 0].tolist() == [0, 0, 0, 1] and before.tolist() == [0, 0, 12]
    ex, row_idx, _, _ = forward(x, idx)
    assert row_idx.tolist() == list(range(12)) and ex[:, 0].tolist() == [i // 3 for i in range(12)]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_strided_inputs(dtype):
    rng = np.random.default_rng(7)
    n, k, h = 8, 4, 6
    x_c = random_bits(rng, (n, h), dtype)
    idx_c = random_ids(rng, (n, k), -1, 6)
    xb = random_bits(rng, (2 * n, 3 * h), dtype)
    xb[::2, ::3] = x_c
    ib = np.zeros((n, 2 * k), np.int32)
    ib[:, ::2] = idx_c
    layouts = {
        "step_slices": (xb[::2, ::3], ib[:, ::2]),
        "negative_strides": (x_c[::-1, ::-1].copy()[::-1, ::-1], idx_c[::-1].copy()[::-1]),
        "transposed_copies": (np.ascontiguousarray(x_c.T).T, np.ascontiguousarray(idx_c.T).T),
        "offset_views": (np.concatenate([random_bits(rng, (3, h), dtype), x_c])[3:],
                         np.concatenate([np.zeros((n, 1), np.int32), idx_c], axis=1)[:, 1:]),
    }
    modes = [(0, 0, 5, 0, 1, False), (11, 0, 5, 0, 2, False), (0, 3, 5, 1, 0, True), (0, n, 6, 1, 0, True)]
    for layout, (x, idx) in layouts.items():
        assert np.array_equal(bits(x), bits(x_c)) and (idx == idx_c).all()
        if layout != "offset_views":
            assert not (x.flags.c_contiguous and idx.flags.c_contiguous)
        for args in modes:
            assert_all_same(forward(x, idx, *args), ref_forward(x_c, idx_c, *args), f"{layout} {args}")


def test_forward_empty_inputs():
    # N = 0: nothing to do, but requested counts are written (all zero)
    x, idx = np.ones((0, 3), np.float32), np.ones((0, 2), np.int32)
    got = forward(x, idx, 0, 0, 3, 0, 1)
    assert got[0].shape == (0, 3) and got[1].shape == (0,) and got[2].tolist() == [0, 0, 0]
    assert_all_same(got, ref_forward(x, idx, 0, 0, 3, 0, 1))
    assert_all_same(forward(x, idx), ref_forward(x, idx))
    # H = 0: expandedX is empty; the row indices and the counts are computed as usual
    rng = np.random.default_rng(8)
    x0 = np.ones((6, 0), np.float16)
    idx = random_ids(rng, (6, 2), -1, 4)
    for args in [(0, 0, 3, 0, 2, False), (4, 0, 3, 0, 1, False), (0, 2, 3, 1, 0, True)]:
        got = forward(x0, idx, *args)
        assert got[0].size == 0 and (got[1] != 0).any()
        assert_all_same(got, ref_forward(x0, idx, *args))
        assert_all_same(got, spec_forward(x0, idx, *args))
    # K = 0: no slot; drop/pad mode still produces E x C zero rows and zero counts
    x = random_bits(rng, (3, 2), np.float32)
    idx = np.zeros((3, 0), np.int32)
    got = forward(x, idx, 0, 2, 4, 1, 0, True)
    assert got[0].shape == (4, 2, 2) and not bits(got[0]).any() and got[3].tolist() == [0] * 4
    assert_all_same(got, ref_forward(x, idx, 0, 2, 4, 1, 0, True))
    assert_all_same(forward(x, idx, 0, 0, 2, 0, 1), ref_forward(x, idx, 0, 0, 2, 0, 1))


# ---- backward: reference equality in every mode ----------------------------------------------------------

def grad_case(rng, dtype, mode, n, k, h, e=4, c=3, active=0, kind="forward"):
    """(gradExpandedX, expandedRowIdx, attribute args) of one backward call.

    kind "forward": the row indices of a forward call (a permutation, or -1 for dropped slots); "wild":
    anything: -1, duplicates, values >= R, INT32 extremes."""
    t = n * k
    if mode == 1:
        g = random_values(rng, (e, c, h), dtype)
    else:
        g = random_values(rng, (active if active else t, h), dtype)
    r = int(np.prod(g.shape[:-1]))
    if kind == "forward":
        ids = random_ids(rng, (n, k), -1, e + 1)
        row_idx = ref_forward(np.zeros((n, 0), np.float32), ids, active, c, e, mode)[1]
    else:
        row_idx = rng.integers(-3, r + 4, size=t).astype(np.int32)
        extremes = rng.random(t) < 0.1
        row_idx[extremes] = rng.choice([I32_MIN, I32_MAX, -1, r], size=int(extremes.sum()))
    return g, row_idx, (k, mode, active if mode == 0 else 0)


# name -> (dropPadMode, activeNum)
GRAD_MODES = {"dropless": (0, 0), "active": (0, 7), "active_1": (0, 1), "drop_pad": (1, 0)}


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_matches_reference(dtype):
    rng = np.random.default_rng(10 + FLOATS.index(dtype))
    for name, (mode, active) in GRAD_MODES.items():
        for k in (1, 2, 3, 5):
            for kind in ("forward", "wild"):
                n = 6
                g, row_idx, args = grad_case(rng, dtype, mode, n, k, 4, active=active, kind=kind)
                what = f"{name} k={k} {kind}"
                got = backward(g, row_idx, *args)
                expected = ref_backward(g, row_idx, *args)
                assert_same(got, expected, what)
                assert_same(expected, spec_backward(g, row_idx, k), what)
                assert got.shape == (n, 4), what


def test_backward_official_example_by_hand():
    g = np.array([[0.1, 0.1], [0.3, 0.3], [0.2, 0.2], [0.4, 0.4]], np.float32)
    out = backward(g, np.array([2, 0, 1, 3], np.int32), 2)
    assert bits(out).tolist() == [[0x3E99999A] * 2, [0x3F333334] * 2]  # 0.2f + 0.1f, 0.3f + 0.4f


def test_backward_three_modes_by_hand():
    # forward of x (3 tokens, K = 2) with ids [[1, 0], [0, 0], [2, 1]], E = 3
    x, ids = np.zeros((3, 1), np.float32), np.array([[1, 0], [0, 0], [2, 1]], np.int32)
    g2 = np.arange(1, 13, dtype=np.float32).reshape(6, 2)
    # dropless: row_idx = inverse of the stable order [1, 2, 3, 0, 5, 4]
    row_idx = np.array([3, 0, 1, 2, 5, 4], np.int32)
    assert forward(x, ids, 0, 0, 3, 0)[1].tolist() == row_idx.tolist()
    assert backward(g2, row_idx, 2).tolist() == [[8, 10], [8, 10], [20, 22]]
    # active, A = 3: rows >= 3 are zero terms
    assert backward(g2[:3], row_idx, 2, 0, 3).tolist() == [[1, 2], [8, 10], [0, 0]]
    # drop/pad, C = 2: expert 0 keeps slots 1, 2 and drops 3 (-1)
    g3 = np.arange(1, 13, dtype=np.float32).reshape(3, 2, 2)
    row_idx = np.array([2, 0, 1, -1, 4, 3], np.int32)
    assert forward(x, ids, 0, 2, 3, 1)[1].tolist() == row_idx.tolist()
    assert backward(g3, row_idx, 2, 1).tolist() == [[6, 8], [3, 4], [16, 18]]


# (K, pattern, result is -0.0): per token, "z" picks a -0.0 row, "b" an index the mode treats as absent
NEG_ZERO_CASES = [(1, "z", True), (1, "b", False), (2, "zb", False), (2, "bz", False), (2, "zz", True),
                  (2, "bb", False), (3, "zzb", False), (3, "zbz", False), (3, "zzz", True), (4, "zzzb", False)]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
@pytest.mark.parametrize("mode", ["dropless", "active", "drop_pad"])
def test_backward_zero_terms_turn_negative_zero_positive(mode, dtype):
    # The first term is copied (keeps -0.0); an absent index adds a +0.0 row, and -0.0 + +0.0 = +0.0.
    drop_pad, active = GRAD_MODES[mode]
    n = 3
    for k, pattern, negative in NEG_ZERO_CASES:
        if drop_pad:
            g = np.zeros((2, 2, 1), dtype)
            bad = [-1, 4, I32_MAX]           # -1 (dropped) or beyond E * C
        elif active:
            g = np.zeros((active, 1), dtype)
            bad = [active, active + 1, -1]   # >= activeNum
        else:
            g = np.zeros((n * k, 1), dtype)
            bad = [n * k, -1, I32_MIN]       # outside [0, L)
        g.reshape(-1)[:2] = -0.0
        row_idx = np.array([(t + j) % 2 if c == "z" else bad[(t + j) % 3]
                            for t in range(n) for j, c in enumerate(pattern)], np.int32)
        args = (k, drop_pad, active)
        out = backward(g, row_idx, *args)
        sign = bits(out) >> (8 * out.dtype.itemsize - 1)
        assert (sign == int(negative)).all() and (out.astype(np.float32) == 0).all(), (k, pattern, out)
        assert_same(out, ref_backward(g, row_idx, *args))


@pytest.mark.parametrize("mode", ["dropless", "drop_pad"])
def test_backward_adds_sequentially_in_float32(mode):
    tiny = 2.0 ** -24  # half an ulp of 1.0
    # K = 4: ((1 + tiny) + tiny) + tiny = 1 (every step ties to even); a pairwise sum gives 1 + 2^-23
    # K = 4 reversed: 3 tiny + 1 = 1 + 1.5 ulp -> 1 + 2^-22; pairwise gives 1 + 2^-23
    # K = 5: 1 + 4 * tiny in order gives 1
    vals = [1.0, tiny, tiny, tiny, tiny, tiny, tiny, 1.0, 1.0, tiny, tiny, tiny, tiny]
    k_rows = [(4, [0, 1, 2, 3]), (4, [4, 5, 6, 7]), (5, [8, 9, 10, 11, 12])]
    expected = [1.0, 1.0 + 2.0 ** -22, 1.0]
    for (k, rows), value in zip(k_rows, expected):
        if mode == "dropless":
            g = np.array([vals[i] for i in rows], np.float32).reshape(k, 1)
            row_idx, args = np.arange(k, dtype=np.int32), (k,)
        else:
            g = np.zeros((k, 2, 1), np.float32)
            g[:, 1, 0] = [vals[i] for i in rows]
            row_idx, args = np.arange(k, dtype=np.int32) * 2 + 1, (k, 1)
        out = backward(g, row_idx, *args)
        assert out.tolist() == [[value]], (k, rows)
        assert_same(out, ref_backward(g, row_idx, *args))


@pytest.mark.parametrize("dtype,tiny", [(np.float16, 2.0 ** -11), (BF16, 2.0 ** -8)], ids=["float16", "bfloat16"])
def test_backward_rounds_once_after_a_float32_sum(dtype, tiny):
    # 1 + tiny + tiny: rounding after each step would give 1 (ties to even); float32 keeps 1 + 2 tiny
    g = np.array([[1.0], [tiny], [tiny]], np.float32).astype(dtype)
    out = backward(g, np.array([0, 1, 2], np.int32), 3)
    assert float(out[0, 0]) == 1 + 2 * tiny
    assert_same(out, ref_backward(g, np.array([0, 1, 2], np.int32), 3))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_special_values(dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        specials = np.array([np.inf, 1.0, 3.0e38, 3.0e38, np.inf, -np.inf, np.nan, 1.0, 1e-40, -1e-42,
                             60000.0, 60000.0], np.float32).astype(dtype)
    g = specials.reshape(12, 1)
    out = backward(g, np.arange(12, dtype=np.int32), 2)
    with np.errstate(over="ignore", invalid="ignore"):
        assert_same(out, ref_backward(g, np.arange(12, dtype=np.int32), 2))
    v = out[:, 0].astype(np.float32)
    # inf + 1, 3e38 + 3e38 (overflows float32, or is inf in float16 already), inf - inf, NaN + 1
    assert v[0] == np.inf and v[1] == np.inf and np.isnan(v[2]) and np.isnan(v[3])
    if dtype == np.float16:
        assert v[5] == np.inf  # 120000 narrows to inf


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_strided_inputs(dtype):
    rng = np.random.default_rng(11)
    # drop/pad: 3-D views
    g_c, row_idx_c, args = grad_case(rng, dtype, 1, 7, 3, 5, e=4, c=3)
    expected = ref_backward(g_c, row_idx_c, *args)
    gb = random_values(rng, (8, 6, 10), dtype)
    gb[::2, ::2, ::2] = g_c
    ib = np.zeros(3 * row_idx_c.size, np.int32)
    ib[::3] = row_idx_c
    views3 = [
        (gb[::2, ::2, ::2], ib[::3]),
        (g_c[::-1, :, ::-1].copy()[::-1, :, ::-1], row_idx_c[::-1].copy()[::-1]),
        (np.ascontiguousarray(g_c.transpose(2, 0, 1)).transpose(1, 2, 0), row_idx_c),
    ]
    for g, ri in views3:
        assert np.array_equal(bits(g), bits(g_c)) and (ri == row_idx_c).all()
        assert not g.flags.c_contiguous
        assert_same(backward(g, ri, *args), expected)
    # dropless and active: 2-D views
    for active in (0, 9):
        g_c, row_idx_c, args = grad_case(rng, dtype, 0, 6, 2, 7, active=active)
        expected = ref_backward(g_c, row_idx_c, *args)
        views2 = [np.ascontiguousarray(g_c.T).T, g_c[::-1].copy()[::-1],
                  np.concatenate([g_c, g_c], axis=1)[:, 7:]]
        for g in views2:
            assert_same(backward(g, row_idx_c[::-1].copy()[::-1], *args), expected)


def test_backward_empty_and_rowless_inputs():
    # out empty (N = 0, or H = 0): success, nothing computed
    for g, ri, args in [(np.ones((0, 3), np.float32), np.zeros(0, np.int32), (2,)),
                        (np.ones((8, 0), np.float32), np.arange(8, dtype=np.int32), (2,)),
                        (np.ones((3, 2, 0), np.float16), np.arange(8, dtype=np.int32), (4, 1))]:
        out = backward(g, ri, *args)
        assert out.size == 0 and out.shape == (ri.size // args[0], g.shape[-1])
        assert_same(out, ref_backward(g, ri, *args))
    # drop/pad with E * C = 0 rows: every index is outside, every output +0.0
    for shape in [(0, 3, 2), (3, 0, 2)]:
        g = np.ones(shape, BF16)
        ri = np.array([-1, 0, 5, -1], np.int32)
        out = backward(g, ri, 2, 1)
        assert out.shape == (2, 2) and not bits(out).any()
        assert_same(out, ref_backward(g, ri, 2, 1))


# ---- mirror layer: both phases by hand ---------------------------------------------------------------------

def fwd_mirror(r, x, idx, args, fill=None, count=None, before=None):
    """Run the forward through the mirror layer. count / before: shapes of the optional outputs to pass
    (None: pass NULL)."""
    active, cap, e, mode, flag, bflag = args
    t = idx.size
    ex_shape = (e, cap, x.shape[1]) if mode == 1 else (rows_of(t, active), x.shape[1])
    t_ex = r.output(ex_shape, x.dtype, fill)
    t_ri = r.output((t,), np.int32, fill)
    t_cnt = None if count is None else r.output(count, np.int32, fill)
    t_bef = None if before is None else r.output(before, np.int32, fill)
    run_two_phases(aclnn.aclnnMoeInitRoutingV2GetWorkspaceSize, aclnn.aclnnMoeInitRoutingV2,
                   r.tensor(x).handle, r.tensor(idx).handle, active, cap, e, mode, flag, bflag, t_ex.handle,
                   t_ri.handle, None if t_cnt is None else t_cnt.handle, None if t_bef is None else t_bef.handle)
    return (t_ex.numpy(), t_ri.numpy(), None if t_cnt is None else t_cnt.numpy(),
            None if t_bef is None else t_bef.numpy())


MIRROR_FWD_MODES = [(0, 0, 5, 0, 1, False), (0, 0, 5, 0, 2, False), (0, 0, 5, 0, 0, False),
                    (9, 0, 5, 0, 1, False), (0, 2, 5, 1, 0, True), (0, 6, 5, 1, 2, False)]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_mirror_forward_two_phases(dtype):
    rng = np.random.default_rng(1)
    x = random_bits(rng, (6, 4), dtype)
    idx = random_ids(rng, (6, 3), -1, 6)
    with Resources() as r:
        for args in MIRROR_FWD_MODES:
            _, _, e, mode, flag, bflag = args
            expected = ref_forward(x, idx, *args)
            want_count = (e,) if mode == 0 and flag else None
            want_before = (e,) if mode == 1 and bflag else None
            # outputs prefilled with 0x7F: every row is written, padding included
            got = fwd_mirror(r, x, idx, args, fill=0x7F, count=want_count, before=want_before)
            assert_all_same(got, expected, str(args))


def test_mirror_forward_leaves_unrequested_optional_outputs_untouched():
    rng = np.random.default_rng(2)
    x = random_bits(rng, (5, 3), np.float32)
    idx = random_ids(rng, (5, 2), 0, 3)
    with Resources() as r:
        for args in [(0, 0, 3, 0, 0, True), (0, 2, 3, 1, 2, False), (0, 2, 3, 1, 1, True), (4, 0, 3, 0, 1, True)]:
            _, _, e, mode, flag, bflag = args
            # both optional outputs given (any shape when not requested): only the requested one is written
            count = (e,) if mode == 0 and flag else (2, 7)
            before = (e,) if mode == 1 and bflag else (4,)
            ex, ri, cnt, bef = fwd_mirror(r, x, idx, args, fill=0x5A, count=count, before=before)
            expected = ref_forward(x, idx, *args)
            assert_all_same((ex, ri), expected[:2], str(args))
            for got, want in [(cnt, expected[2]), (bef, expected[3])]:
                if want is None:
                    assert (bits(got).view(np.uint8) == 0x5A).all(), args
                else:
                    assert_same(got, want, str(args))


def test_mirror_forward_strided_views_and_output_offset():
    rng = np.random.default_rng(3)
    xb = random_bits(rng, (12, 10), BF16)
    ib = random_ids(rng, (6, 8), -2, 5)
    x, idx = xb[::-2, 1::2], ib[:, ::-2]
    args = (0, 3, 4, 1, 0, True)
    with Resources() as r:
        t_ex = r.output((4, 3, 5), BF16, fill=0x11, offset=6)
        t_ri = r.output((24,), np.int32, offset=1)
        t_bef = r.output((4,), np.int32)
        run_two_phases(aclnn.aclnnMoeInitRoutingV2GetWorkspaceSize, aclnn.aclnnMoeInitRoutingV2,
                       r.tensor(x).handle, r.tensor(idx).handle, *args, t_ex.handle, t_ri.handle, None,
                       t_bef.handle)
        raw = np.empty(t_ex.buffer.nbytes, np.uint8)
        t_ex.buffer.download(raw)
        got = (t_ex.numpy(), t_ri.numpy(), None, t_bef.numpy())
    assert (raw[:12] == 0x11).all()  # the 6 elements before the offset
    assert_all_same(got, ref_forward(x.copy(), idx.copy(), *args))


def bwd_mirror(r, g, row_idx, args, fill=None):
    k = args[0]
    t_out = r.output((row_idx.size // k, g.shape[-1]), g.dtype, fill)
    run_two_phases(aclnn.aclnnMoeInitRoutingV2GradGetWorkspaceSize, aclnn.aclnnMoeInitRoutingV2Grad,
                   r.tensor(g).handle, r.tensor(row_idx).handle, *args, t_out.handle)
    return t_out.numpy()


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_mirror_backward_two_phases(dtype):
    rng = np.random.default_rng(6)
    with Resources() as r:
        for mode, active in GRAD_MODES.values():
            for kind in ("forward", "wild"):
                g, row_idx, args = grad_case(rng, dtype, mode, 5, 3, 4, active=active, kind=kind)
                got = bwd_mirror(r, g[..., ::-1].copy()[..., ::-1], row_idx, args, fill=0x33)
                assert_same(got, ref_backward(g, row_idx, *args), f"{mode} {active} {kind}")


def test_mirror_backward_output_offset_is_honoured():
    g = np.arange(24, dtype=np.float16).reshape(8, 3)
    row_idx = np.arange(8, dtype=np.int32)[::-1].copy()
    with Resources() as r:
        t_out = r.output((4, 3), np.float16, fill=0x22, offset=5)
        run_two_phases(aclnn.aclnnMoeInitRoutingV2GradGetWorkspaceSize, aclnn.aclnnMoeInitRoutingV2Grad,
                       r.tensor(g).handle, r.tensor(row_idx).handle, 2, 0, 0, t_out.handle)
        raw = np.empty(t_out.buffer.nbytes, np.uint8)
        t_out.buffer.download(raw)
        out = t_out.numpy()
    assert (raw[:10] == 0x22).all()
    assert_same(out, ref_backward(g, row_idx, 2))


def test_mirror_phase1_writes_nothing_and_phase2_consumes_the_executor():
    x, idx = _official_example()
    with Resources() as r:
        t_ex = r.output((3, 2, 4), np.float32, fill=0x7F)
        t_ri = r.output((6,), np.int32, fill=0x7F)
        t_bef = r.output((3,), np.int32, fill=0x7F)
        before = acl.aclStubLiveExecutors()
        ws, ex = aclnn.aclnnMoeInitRoutingV2GetWorkspaceSize(
            r.tensor(x).handle, r.tensor(idx).handle, 0, 2, 3, 1, 0, True, t_ex.handle, t_ri.handle, None,
            t_bef.handle)
        assert acl.aclStubLiveExecutors() == before + 1
        for t in (t_ex, t_ri, t_bef):
            assert (bits(t.numpy()).view(np.uint8) == 0x7F).all()
        aclnn.aclnnMoeInitRoutingV2(None, ws, ex, None)
        acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results exist after this
        assert acl.aclStubLiveExecutors() == before
        assert status_of(aclnn.aclnnMoeInitRoutingV2, None, ws, ex, None) == INVALID
        assert_all_same((t_ex.numpy(), t_ri.numpy(), None, t_bef.numpy()), ref_forward(x, idx, 0, 2, 3, 1, 0, True))
        g = r.tensor(np.ones((3, 2, 4), np.float32))
        t_out = r.output((3, 4), np.float32, fill=0x7F)
        ws, ex = aclnn.aclnnMoeInitRoutingV2GradGetWorkspaceSize(g.handle, t_ri.handle, 2, 1, 0, t_out.handle)
        assert (bits(t_out.numpy()).view(np.uint8) == 0x7F).all()
        aclnn.aclnnMoeInitRoutingV2Grad(None, ws, ex, None)
        acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results exist after this
        assert status_of(aclnn.aclnnMoeInitRoutingV2Grad, None, ws, ex, None) == INVALID
        assert t_out.numpy().tolist() == [[2.0] * 4] * 3


def test_mirror_all_outputs_empty_gives_an_empty_executor():
    with Resources() as r:
        t_ex, t_ri = r.output((0, 3), np.float32), r.output((0,), np.int32)
        t_cnt = r.output((0,), np.int32)
        # invalid attributes everywhere: no check runs once every output is empty
        ws, ex = aclnn.aclnnMoeInitRoutingV2GetWorkspaceSize(
            r.tensor(np.ones((0, 3), np.float32)).handle, r.tensor(np.ones((0, 2), np.int32)).handle, -1, -1, -1,
            7, 9, True, t_ex.handle, t_ri.handle, t_cnt.handle, None)
        assert ws == 0
        aclnn.aclnnMoeInitRoutingV2(None, 0, ex, None)
        t_out = r.output((0, 3), np.float32)
        ws, ex = aclnn.aclnnMoeInitRoutingV2GradGetWorkspaceSize(
            r.tensor(np.ones((5,), np.float32)).handle, r.tensor(np.zeros(4, np.int32)).handle, 0, 3, -1,
            t_out.handle)
        assert ws == 0
        aclnn.aclnnMoeInitRoutingV2Grad(None, 0, ex, None)


def test_mirror_hidden_0_still_writes_row_indices_and_counts():
    idx = np.array([[2, 0], [1, 2]], np.int32)
    with Resources() as r:
        got = fwd_mirror(r, np.ones((2, 0), np.float32), idx, (0, 0, 3, 0, 1, False), fill=0x44, count=(3,))
    assert got[1].tolist() == [2, 0, 1, 3] and got[2].tolist() == [1, 2, 4]


# ---- property-based tests ------------------------------------------------------------------------------------

@st.composite
def forward_cases(draw):
    mode = draw(st.sampled_from([0, 0, 1]))
    n = draw(st.integers(1 if mode == 1 else 0, 16))
    k = draw(st.sampled_from([0, 1, 1, 2, 3, 4, 6]))
    h = draw(st.sampled_from([0, 1, 2, 3, 5]))
    dtype = draw(st.sampled_from(FLOATS))
    if mode == 1:
        e, cap = draw(st.integers(1, 7)), draw(st.integers(1, n))
        flag = draw(st.integers(0, 2))
    else:
        e, cap = draw(st.integers(0, 7)), draw(st.integers(0, 20))
        flag = draw(st.integers(0, 2)) if e > 0 else 0
    active = draw(st.sampled_from([0, 0, 1, draw(st.integers(1, n * k + 4))]))
    before = draw(st.booleans())
    lo = draw(st.sampled_from([0, 0, -2, 2**24 - 3, I32_MAX - 8, I32_MIN]))
    span = draw(st.integers(1, e + 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x = random_bits(rng, (n, h), dtype)
    idx = rng.integers(lo, min(lo + span, I32_MAX), size=(n, k), endpoint=True).astype(np.int32)
    return x, idx, (active, cap, e, mode, flag, before)


@settings(max_examples=60, deadline=None)
@given(forward_cases())
def test_property_forward(case):
    x, idx, args = case
    expected = ref_forward(x, idx, *args)
    assert_all_same(forward(x, idx, *args), expected)
    assert_all_same(expected, spec_forward(x, idx, *args))


@st.composite
def backward_cases(draw):
    mode, active = draw(st.sampled_from(list(GRAD_MODES.values())))
    n = draw(st.integers(1, 10))
    k = draw(st.integers(1, 6))
    h = draw(st.integers(0, 5))
    dtype = draw(st.sampled_from(FLOATS))
    if mode == 0 and active:
        active = draw(st.integers(1, n * k + 3))
    e, c = draw(st.integers(0, 5)), draw(st.integers(0, 4))
    kind = draw(st.sampled_from(["forward", "wild"]))
    if kind == "forward" and mode == 1 and (e == 0 or c == 0):
        kind = "wild"
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return grad_case(rng, dtype, mode, n, k, h, e=e, c=c, active=active, kind=kind)


@settings(max_examples=60, deadline=None)
@given(backward_cases())
def test_property_backward(case):
    g, row_idx, args = case
    expected = ref_backward(g, row_idx, *args)
    assert_same(backward(g, row_idx, *args), expected)
    assert_same(expected, spec_backward(g, row_idx, args[0]))


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(FLOATS), st.sampled_from([0, 0, 1]), st.integers(1, 4),
       st.sampled_from([1, 3, 60, 5000]))
def test_property_results_do_not_depend_on_the_thread_count(seed, dtype, mode, k, e):
    # T > 2 * 65536 slots: the key load, the scatter, the row copies, the counts (E = 5000 > 4096) and the
    # gather-sum are split between threads; with few experts the groups of mode 1 cross the chunk borders.
    rng = np.random.default_rng(seed)
    n, h = 140000 // k + int(rng.integers(0, 50)), 4
    t = n * k
    idx = random_ids(rng, (n, k), -1, e + 1)
    x = random_bits(rng, (n, h), dtype)
    if mode == 1:
        cap = int(min(n, rng.integers(1, max(2, 300000 // e))))
        args = (0, cap, e, 1, 0, True)
    else:
        active = int(rng.choice([0, rng.integers(1, t + 1)]))
        args = (active, 0, e, 0, int(rng.integers(1, 3)), False)
    results = []
    for count in (1, 2, 3):
        with threads(count):
            fwd = forward(x, idx, *args)
            g = random_values(np.random.default_rng(seed), fwd[0].shape, dtype)
            gargs = (k, mode, args[0] if mode == 0 else 0)
            bwd = backward(g, fwd[1], *gargs)
        results.append((fwd, bwd))
    for fwd, bwd in results[1:]:
        assert_all_same(fwd, results[0][0])
        assert_same(bwd, results[0][1])
    fwd, bwd = results[0]
    assert_all_same(fwd, ref_forward(x, idx, *args))
    g = random_values(np.random.default_rng(seed), fwd[0].shape, dtype)
    assert_same(bwd, ref_backward(g, fwd[1], k, mode, args[0] if mode == 0 else 0))


# ---- round trips -----------------------------------------------------------------------------------------------

RT_N, RT_K = 7, 2
RT_T = RT_N * RT_K

# name -> check_pair keyword arguments (defaults: n = 7, k = 2, e = 4, capacity = 2)
RT_MODES = {
    "dropless": dict(drop_pad_mode=0, active_num=0),
    "active_1": dict(drop_pad_mode=0, active_num=1),
    "active_5": dict(drop_pad_mode=0, active_num=5),
    "active_T": dict(drop_pad_mode=0, active_num=RT_T),
    "drop_capacity_1": dict(drop_pad_mode=1, capacity=1),
    "drop_capacity_2": dict(drop_pad_mode=1, active_num=0),
    "pad_capacity_N": dict(drop_pad_mode=1, capacity=RT_N),
}


@pytest.mark.parametrize("mode", list(RT_MODES), ids=list(RT_MODES))
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_trip(dtype, mode):
    rng = np.random.default_rng(21)
    kwargs = RT_MODES[mode]
    for _ in range(3):
        rt = testing.check_pair("moe_init_routing_v2", rng, dtype=dtype, **kwargs)
        assert len(rt.pairs) == 1 and f"drop_pad_mode={kwargs['drop_pad_mode']}" in rt.mode
        y, g, x, gx = rt.pairs[0]
        assert gx.shape == x.shape == (RT_N, 5)
        if kwargs["drop_pad_mode"] == 1:
            assert y.shape == (4, kwargs.get("capacity", 2), 5)
        else:
            assert y.shape == (rows_of(RT_T, kwargs["active_num"]), 5)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_trip_active_above_T(dtype):
    # activeNum > T: the forward yields min(activeNum, T) rows, and their gradient must go back
    rt = testing.check_pair("moe_init_routing_v2", np.random.default_rng(22), dtype=dtype, drop_pad_mode=0,
                            active_num=RT_T + 6)
    assert rt.pairs[0][0].shape == (RT_T, 5)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_property_round_trip(data):
    n = data.draw(st.integers(1, 12))
    k = data.draw(st.integers(1, 4))
    e = data.draw(st.integers(k, 7))  # distinct experts per token
    h = data.draw(st.integers(1, 4))
    mode = data.draw(st.sampled_from([0, 1]))
    active = data.draw(st.integers(0, n * k)) if mode == 0 else 0
    testing.check_pair("moe_init_routing_v2", np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))),
                       dtype=data.draw(st.sampled_from(["float32", "float16", "bfloat16"])), n=n, k=k, h=h, e=e,
                       drop_pad_mode=mode, active_num=active, capacity=data.draw(st.integers(1, n)))


# ---- validation through the mirror layer ---------------------------------------------------------------------

# N = 4, K = 2, H = 3, T = 8, E = 3: dropless with cumulative counts; MODE1: drop/pad, C = 2
FWD_BASE = dict(x=T((4, 3)), idx=T((4, 2), I32), active=0, cap=0, e=3, mode=0, flag=1, before=False,
                ex=T((8, 3)), ri=T((8,), I32), cnt=T((3,), I32), bef=None)
MODE1 = dict(cap=2, mode=1, flag=0, before=True, ex=T((3, 2, 3)), cnt=None, bef=T((3,), I32))
EMPTY = dict(x=T((0, 3)), idx=T((0, 2), I32), ex=T((0, 3)), ri=T((0,), I32), flag=0, cnt=None)
BIG_T = 65536 * 32769  # > INT32_MAX slots; zero strides and H = 0 need no backing memory

FWD_CASES = [
    # successes around the rules
    ("ok", {}, 0),
    ("ok_count_flag_2", {"flag": 2}, 0),
    ("ok_flag_0_counts_absent", {"flag": 0, "cnt": None}, 0),
    ("ok_flag_0_count_out_shape_unchecked", {"flag": 0, "cnt": T((7, 2), I32)}, 0),
    ("ok_float16", {"x": T((4, 3), FP16), "ex": T((8, 3), FP16)}, 0),
    ("ok_bfloat16", {"x": T((4, 3), BF), "ex": T((8, 3), BF)}, 0),
    ("ok_active", {"active": 5, "ex": T((5, 3))}, 0),
    ("ok_active_T", {"active": 8}, 0),
    ("ok_active_above_T", {"active": 100}, 0),
    ("ok_mode_0_ignores_capacity", {"cap": 100}, 0),
    ("ok_mode_0_ignores_before_flag", {"before": True}, 0),
    ("ok_mode_0_before_out_shape_unchecked", {"before": True, "bef": T((2, 2), I32)}, 0),
    ("ok_expert_num_0_without_counts", {"e": 0, "flag": 0, "cnt": None}, 0),
    ("ok_strided_inputs", {"x": T((4, 3), strides=(1, 4)), "idx": T((4, 2), I32, strides=(1, 4))}, 0),
    ("ok_mode_1", MODE1, 0),
    ("ok_mode_1_before_flag_off", dict(MODE1, before=False, bef=None), 0),
    ("ok_mode_1_before_out_shape_unchecked_when_off", dict(MODE1, before=False, bef=T((5, 1), I32)), 0),
    ("ok_mode_1_ignores_count_flag", dict(MODE1, flag=2), 0),
    ("ok_mode_1_count_out_shape_unchecked", dict(MODE1, flag=1, cnt=T((9,), I32)), 0),
    ("ok_mode_1_capacity_N", dict(MODE1, cap=4, ex=T((3, 4, 3))), 0),
    ("ok_mode_1_ignores_active", dict(MODE1, active=3), 0),
    # 1: NULL
    ("null_x", {"x": None}, NULLPTR),
    ("null_expert_idx", {"idx": None}, NULLPTR),
    ("null_expanded_x_out", {"ex": None}, NULLPTR),
    ("null_expanded_row_idx_out", {"ri": None}, NULLPTR),
    ("null_before_dtype_check", {"x": None, "idx": T((4, 2), I64)}, NULLPTR),
    # 2: dtype, format, output layout
    ("x_int32", {"x": T((4, 3), I32)}, INVALID),
    ("x_double", {"x": T((4, 3), F64)}, INVALID),
    ("x_int8", {"x": T((4, 3), I8), "ex": T((8, 3), I8)}, INVALID),
    ("expert_idx_int64", {"idx": T((4, 2), I64)}, INVALID),
    ("expert_idx_float32", {"idx": T((4, 2), FP32)}, INVALID),
    ("expert_idx_int16", {"idx": T((4, 2), I16)}, INVALID),
    ("expanded_x_dtype_differs", {"ex": T((8, 3), FP16)}, INVALID),
    ("expanded_x_int32", {"ex": T((8, 3), I32)}, INVALID),
    ("row_idx_int64", {"ri": T((8,), I64)}, INVALID),
    ("row_idx_float32", {"ri": T((8,), FP32)}, INVALID),
    ("count_out_int64", {"cnt": T((3,), I64)}, INVALID),
    ("count_out_float32_when_not_requested", {"flag": 0, "cnt": T((3,), FP32)}, INVALID),
    ("before_out_int64", dict(MODE1, bef=T((3,), I64)), INVALID),
    ("before_out_float32_when_not_requested", {"bef": T((3,), FP32)}, INVALID),
    ("x_format_nz", {"x": T((4, 3), fmt=NZ)}, INVALID),
    ("expert_idx_format_nz", {"idx": T((4, 2), I32, fmt=NZ)}, INVALID),
    ("expanded_x_format_nz", {"ex": T((8, 3), fmt=NZ)}, INVALID),
    ("row_idx_format_nz", {"ri": T((8,), I32, fmt=NZ)}, INVALID),
    ("count_out_format_nz", {"cnt": T((3,), I32, fmt=NZ)}, INVALID),
    ("before_out_format_nz", dict(MODE1, bef=T((3,), I32, fmt=NZ)), INVALID),
    ("expanded_x_not_contiguous", {"ex": T((8, 3), strides=(1, 8))}, INVALID),
    ("expanded_x_3d_not_contiguous", dict(MODE1, ex=T((3, 2, 3), strides=(1, 3, 6))), INVALID),
    ("row_idx_not_contiguous", {"ri": T((8,), I32, strides=(2,))}, INVALID),
    ("count_out_not_contiguous", {"cnt": T((3,), I32, strides=(2,))}, INVALID),
    ("before_out_not_contiguous", dict(MODE1, bef=T((3,), I32, strides=(-1,))), INVALID),
    # 3: every output empty
    ("empty_all_outputs", EMPTY, 0),
    ("empty_outputs_skip_later_checks", dict(EMPTY, mode=7, flag=9, cap=-1, e=-1, active=-1, x=T((0, 3, 1))), 0),
    ("empty_outputs_zero_experts_with_counts", dict(EMPTY, flag=1, e=0, cnt=T((0,), I32)), 0),
    ("empty_outputs_still_check_dtypes", dict(EMPTY, idx=T((0, 2), I64)), INVALID),
    ("empty_outputs_still_check_nulls", dict(EMPTY, ri=None), NULLPTR),
    ("N_0_with_counts", dict(EMPTY, flag=1, cnt=T((3,), I32)), 0),
    ("hidden_0", {"x": T((4, 0)), "ex": T((8, 0))}, 0),
    ("mode_1_N_0", dict(MODE1, x=T((0, 3)), idx=T((0, 2), I32), ri=T((0,), I32)), TILING),
    ("mode_1_N_0_all_outputs_empty", dict(MODE1, x=T((0, 0)), idx=T((0, 2), I32), ex=T((3, 2, 0)),
                                          ri=T((0,), I32), before=False, bef=None), 0),
    # 4.1-4.3: x
    ("x_3d", {"x": T((4, 3, 1))}, TILING),
    ("x_1d", {"x": T((4,))}, TILING),
    ("x_rows_differ_from_expert_idx", {"x": T((5, 3))}, TILING),
    ("x_rows_negative", {"x": T((-1, 3)), "idx": T((-1, 2), I32)}, TILING),
    ("x_cols_negative", {"x": T((4, -3))}, TILING),
    # 4.4-4.10: attributes
    ("capacity_negative", {"cap": -1}, TILING),
    ("expert_num_negative", {"e": -1, "flag": 0, "cnt": None}, TILING),
    ("drop_pad_mode_2", {"mode": 2}, TILING),
    ("drop_pad_mode_negative", {"mode": -1}, TILING),
    ("mode_1_capacity_0", dict(MODE1, cap=0, ex=T((3, 0, 3))), TILING),
    ("mode_1_expert_num_0", dict(MODE1, e=0, ex=T((0, 2, 3)), bef=T((0,), I32)), TILING),
    ("count_flag_3", {"flag": 3}, TILING),
    ("count_flag_negative", {"flag": -1}, TILING),
    ("count_flag_without_experts", {"e": 0, "cnt": T((0,), I32)}, TILING),
    ("mode_1_capacity_above_N", dict(MODE1, cap=5, ex=T((3, 5, 3))), TILING),
    ("mode_1_experts_times_capacity_above_int32", dict(MODE1, e=2**30, cap=4), TILING),
    # 4.11: activeNum, expertIdx
    ("active_negative", {"active": -1}, TILING),
    ("mode_1_active_negative", dict(MODE1, active=-1), TILING),
    ("expert_idx_1d", {"idx": T((4,), I32), "ex": T((4, 3)), "ri": T((4,), I32)}, TILING),
    ("expert_idx_3d", {"idx": T((4, 2, 1), I32)}, TILING),
    ("expert_idx_0d", {"idx": T((), I32)}, TILING),
    ("expert_idx_cols_negative", {"idx": T((4, -2), I32)}, TILING),
    ("T_above_int32", {"x": T((65536, 0)), "idx": T((65536, 32769), I32, strides=(0, 0)), "ex": T((BIG_T, 0)),
                       "ri": T((BIG_T,), I32, alloc=64), "flag": 0, "cnt": None}, TILING),
    # 4.12: expandedXOut
    ("expanded_x_3d_in_mode_0", {"ex": T((8, 3, 1))}, TILING),
    ("expanded_x_1d_in_mode_0", {"ex": T((24,))}, TILING),
    ("expanded_x_rows_not_T", {"ex": T((7, 3))}, TILING),
    ("expanded_x_rows_not_active", {"active": 5}, TILING),
    ("expanded_x_rows_active_not_clamped", {"active": 100, "ex": T((100, 3))}, TILING),
    ("expanded_x_cols_not_H", {"ex": T((8, 4))}, TILING),
    ("expanded_x_2d_in_mode_1", dict(MODE1, ex=T((6, 3))), TILING),
    ("expanded_x_4d_in_mode_1", dict(MODE1, ex=T((3, 2, 3, 1))), TILING),
    ("expanded_x_dim0_not_E", dict(MODE1, ex=T((4, 2, 3))), TILING),
    ("expanded_x_dim1_not_C", dict(MODE1, ex=T((3, 3, 3))), TILING),
    ("expanded_x_dim2_not_H", dict(MODE1, ex=T((3, 2, 4))), TILING),
    # 4.13: expandedRowIdxOut
    ("row_idx_2d", {"ri": T((8, 1), I32)}, TILING),
    ("row_idx_length_not_T", {"ri": T((9,), I32)}, TILING),
    ("row_idx_length_not_T_in_mode_1", dict(MODE1, ri=T((7,), I32)), TILING),
    # 4.14: requested count output
    ("count_out_null_when_requested", {"cnt": None}, TILING),
    ("count_out_null_when_requested_flag_2", {"flag": 2, "cnt": None}, TILING),
    ("count_out_2d", {"cnt": T((3, 1), I32)}, TILING),
    ("count_out_0d", {"cnt": T((), I32)}, TILING),
    ("count_out_length_not_E", {"cnt": T((4,), I32)}, TILING),
    # 4.15: requested before-capacity output
    ("before_out_null_when_requested", dict(MODE1, bef=None), TILING),
    ("before_out_2d", dict(MODE1, bef=T((3, 1), I32)), TILING),
    ("before_out_length_not_E", dict(MODE1, bef=T((2,), I32)), TILING),
]


def fwd_args(over):
    a = dict(FWD_BASE, **over)
    return [a["x"], a["idx"], a["active"], a["cap"], a["e"], a["mode"], a["flag"], a["before"], a["ex"], a["ri"],
            a["cnt"], a["bef"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in FWD_CASES], ids=[c[0] for c in FWD_CASES])
def test_mirror_forward_validation(over, status):
    got, _ = phase1(aclnn.aclnnMoeInitRoutingV2GetWorkspaceSize, fwd_args(over))
    assert got == status


# L = 8, K = 2, N = 4, H = 3, dropless
GRAD_BASE = dict(g=T((8, 3)), ri=T((8,), I32), k=2, mode=0, active=0, out=T((4, 3)))
GRAD_EMPTY = dict(g=T((0, 3)), ri=T((0,), I32), out=T((0, 3)))

GRAD_CASES = [
    ("ok", {}, 0),
    ("ok_float16", {"g": T((8, 3), FP16), "out": T((4, 3), FP16)}, 0),
    ("ok_bfloat16", {"g": T((8, 3), BF), "out": T((4, 3), BF)}, 0),
    ("ok_active", {"active": 5, "g": T((5, 3))}, 0),
    ("ok_active_above_L", {"active": 20, "g": T((20, 3))}, 0),
    ("ok_drop_pad", {"mode": 1, "g": T((2, 3, 3))}, 0),
    ("ok_drop_pad_ignores_active", {"mode": 1, "active": 9, "g": T((2, 3, 3))}, 0),
    ("ok_drop_pad_no_experts", {"mode": 1, "g": T((0, 3, 3))}, 0),
    ("ok_drop_pad_no_capacity", {"mode": 1, "g": T((2, 0, 3))}, 0),
    ("ok_strided_inputs", {"g": T((8, 3), strides=(1, 8)), "ri": T((8,), I32, strides=(-1,))}, 0),
    ("ok_topk_1", {"k": 1, "out": T((8, 3))}, 0),
    ("ok_topk_L", {"k": 8, "out": T((1, 3))}, 0),
    # 1: NULL
    ("null_grad_expanded_x", {"g": None}, NULLPTR),
    ("null_expanded_row_idx", {"ri": None}, NULLPTR),
    ("null_out", {"out": None}, NULLPTR),
    ("null_before_dtype_check", {"out": None, "g": T((8, 3), I32)}, NULLPTR),
    # 2: dtype, format, output layout
    ("grad_int32", {"g": T((8, 3), I32)}, INVALID),
    ("grad_double", {"g": T((8, 3), F64)}, INVALID),
    ("row_idx_int64", {"ri": T((8,), I64)}, INVALID),
    ("row_idx_float32", {"ri": T((8,), FP32)}, INVALID),
    ("out_dtype_differs", {"out": T((4, 3), BF)}, INVALID),
    ("out_int32", {"out": T((4, 3), I32)}, INVALID),
    ("grad_format_nz", {"g": T((8, 3), fmt=NZ)}, INVALID),
    ("row_idx_format_nz", {"ri": T((8,), I32, fmt=NZ)}, INVALID),
    ("out_format_nz", {"out": T((4, 3), fmt=NZ)}, INVALID),
    ("out_not_contiguous", {"out": T((4, 3), strides=(1, 4))}, INVALID),
    # 3: empty out
    ("empty_out", GRAD_EMPTY, 0),
    ("empty_out_skips_later_checks", dict(GRAD_EMPTY, k=0, mode=5, active=-1, g=T((7,))), 0),
    ("empty_out_still_checks_dtypes", dict(GRAD_EMPTY, ri=T((0,), I64)), INVALID),
    ("hidden_0", {"g": T((8, 0)), "out": T((4, 0))}, 0),
    # 4: tiling
    ("drop_pad_mode_2", {"mode": 2}, TILING),
    ("drop_pad_mode_negative", {"mode": -1}, TILING),
    ("topk_0", {"k": 0}, TILING),
    ("topk_negative", {"k": -1}, TILING),
    ("active_negative", {"active": -1}, TILING),
    ("drop_pad_active_negative", {"mode": 1, "active": -1, "g": T((2, 3, 3))}, TILING),
    ("grad_1d", {"g": T((24,))}, TILING),
    ("grad_4d", {"g": T((2, 2, 2, 3))}, TILING),
    ("drop_pad_grad_2d", {"mode": 1}, TILING),
    ("row_idx_2d", {"ri": T((8, 1), I32)}, TILING),
    ("dropless_grad_rows_not_L", {"g": T((7, 3))}, TILING),
    ("active_grad_rows_not_active", {"active": 5}, TILING),
    ("out_1d", {"out": T((12,))}, TILING),
    ("out_3d", {"out": T((4, 3, 1))}, TILING),
    ("out_cols_not_H", {"out": T((4, 4))}, TILING),
    ("drop_pad_out_cols_not_dim_2", {"mode": 1, "g": T((2, 4, 3)), "out": T((4, 4))}, TILING),
    ("out_rows_not_L_over_topk", {"out": T((5, 3))}, TILING),
    ("L_0", {"g": T((0, 3)), "ri": T((0,), I32)}, TILING),
    ("drop_pad_grad_dim_negative", {"mode": 1, "g": T((2, -1, 3))}, TILING),
    ("L_not_multiple_of_topk", {"g": T((9, 3)), "ri": T((9,), I32)}, TILING),
    # 5: stub-only, stricter than CANN
    ("dropless_grad_3d", {"g": T((8, 1, 3)), "out": T((4, 1))}, TILING),
    ("active_grad_3d", {"active": 8, "g": T((8, 1, 3)), "out": T((4, 1))}, TILING),
]


def grad_args(over):
    a = dict(GRAD_BASE, **over)
    return [a["g"], a["ri"], a["k"], a["mode"], a["active"], a["out"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_mirror_backward_validation(over, status):
    got, _ = phase1(aclnn.aclnnMoeInitRoutingV2GradGetWorkspaceSize, grad_args(over))
    assert got == status


# ---- validation through the high-level functions -------------------------------------------------------------

def _fx(**over):
    """High-level forward arguments: a valid call (dropless, cumulative counts) with some replaced."""
    a = dict(x=np.ones((4, 3), np.float32), idx=np.zeros((4, 2), np.int32), active=0, cap=0, e=3, mode=0, flag=1,
             before=False)
    a.update(over)
    return lambda: forward(a["x"], a["idx"], a["active"], a["cap"], a["e"], a["mode"], a["flag"], a["before"])


def _bx(**over):
    a = dict(g=np.ones((8, 3), np.float32), ri=np.arange(8, dtype=np.int32), k=2, mode=0, active=0)
    a.update(over)
    return lambda: backward(a["g"], a["ri"], a["k"], a["mode"], a["active"])


HIGH_LEVEL_CASES = [
    ("fwd_x_int32", _fx(x=np.ones((4, 3), np.int32)), INVALID, "x"),
    ("fwd_x_float64", _fx(x=np.ones((4, 3))), INVALID, "x"),
    ("fwd_expert_idx_int64", _fx(idx=np.zeros((4, 2), np.int64)), INVALID, "expertIdx"),
    ("fwd_expert_idx_float32", _fx(idx=np.zeros((4, 2), np.float32)), INVALID, "expertIdx"),
    ("fwd_x_rows_differ", _fx(idx=np.zeros((5, 2), np.int32)), TILING, "expertIdx.shape[0]"),
    ("fwd_expert_idx_1d", _fx(idx=np.zeros(4, np.int32)), TILING, "expertIdx"),
    ("fwd_expert_idx_3d", _fx(idx=np.zeros((4, 2, 1), np.int32)), TILING, "expertIdx"),
    ("fwd_capacity_negative", _fx(cap=-1), TILING, "expertCapacity"),
    ("fwd_expert_num_negative", _fx(e=-1, flag=0), TILING, "expertNum"),
    ("fwd_drop_pad_mode_2", _fx(mode=2), TILING, "dropPadMode"),
    ("fwd_mode_1_capacity_0", _fx(mode=1, cap=0, flag=0), TILING, "expertCapacity"),
    ("fwd_mode_1_expert_num_0", _fx(mode=1, cap=2, e=0, flag=0), TILING, "expertNum"),
    ("fwd_count_flag_3", _fx(flag=3), TILING, "expertTokensCountOrCumsumFlag"),
    ("fwd_count_flag_without_experts", _fx(e=0), TILING, "expertNum"),
    ("fwd_mode_1_capacity_above_N", _fx(mode=1, cap=5, flag=0), TILING, "expertCapacity"),
    ("fwd_active_negative", _fx(active=-1), TILING, "activeNum"),
    # invalid attributes and ranks must reach the operator's checks, as for the other operators
    ("fwd_mode_1_capacity_negative", _fx(mode=1, cap=-1, flag=0), TILING, "expertCapacity"),
    ("fwd_mode_1_expert_num_negative", _fx(mode=1, cap=2, e=-1, flag=0), TILING, "expertNum"),
    ("fwd_expert_num_negative_with_counts", _fx(e=-1, flag=2), TILING, "expertNum"),
    ("fwd_x_3d", _fx(x=np.ones((4, 3, 1), np.float32)), TILING, "x"),
    ("fwd_x_1d", _fx(x=np.ones(4, np.float32)), TILING, "x"),
    ("bwd_grad_int32", _bx(g=np.ones((8, 3), np.int32)), INVALID, "gradExpandedX"),
    ("bwd_row_idx_int64", _bx(ri=np.arange(8)), INVALID, "expandedRowIdx"),
    ("bwd_drop_pad_mode_2", _bx(mode=2), TILING, "dropPadMode"),
    ("bwd_active_negative", _bx(active=-1), TILING, "activeNum"),
    ("bwd_grad_1d", _bx(g=np.ones(24, np.float32)), TILING, "gradExpandedX"),
    ("bwd_drop_pad_grad_2d", _bx(mode=1), TILING, "gradExpandedX"),
    ("bwd_dropless_grad_3d", _bx(g=np.ones((8, 1, 3), np.float32)), TILING, "gradExpandedX"),
    ("bwd_dropless_rows_not_L", _bx(g=np.ones((7, 3), np.float32)), TILING, "gradExpandedX"),
    ("bwd_active_rows_not_active", _bx(active=5), TILING, "activeNum"),
    ("bwd_row_idx_2d", _bx(ri=np.arange(8, dtype=np.int32).reshape(8, 1)), TILING, "expandedRowIdx"),
    ("bwd_L_not_multiple_of_topk", _bx(g=np.ones((9, 3), np.float32), ri=np.arange(9, dtype=np.int32)), TILING,
     "topK"),
]


@pytest.mark.parametrize("name,call,status,argument", HIGH_LEVEL_CASES, ids=[c[0] for c in HIGH_LEVEL_CASES])
def test_high_level_validation(name, call, status, argument):
    op = "aclnnMoeInitRoutingV2Grad" if name.startswith("bwd_") else "aclnnMoeInitRoutingV2"
    assert_rejected(call, status, argument, op + "GetWorkspaceSize")


# ---- validation from C ---------------------------------------------------------------------------------------

C_SOURCE = Path(__file__).resolve().parent / "c" / "validation_init_routing_v2.c"

_C_OK = ["fwd_ok", "fwd_ok_count_flag_2", "fwd_ok_flag_0_counts_null", "fwd_ok_flag_0_count_out_unchecked",
         "fwd_ok_fp16", "fwd_ok_bf16", "fwd_ok_active", "fwd_ok_active_above_T",
         "fwd_ok_mode_0_ignores_capacity_and_before_flag", "fwd_ok_expert_num_0_without_counts",
         "fwd_ok_strided_inputs", "fwd_ok_mode_1", "fwd_ok_mode_1_before_flag_off",
         "fwd_ok_mode_1_count_flag_ignored", "fwd_ok_mode_1_capacity_N", "fwd_empty", "fwd_empty_skips_checks",
         "fwd_N_0_with_counts", "fwd_hidden_0",
         "bwd_ok", "bwd_ok_fp16", "bwd_ok_bf16", "bwd_ok_active", "bwd_ok_drop_pad",
         "bwd_ok_drop_pad_ignores_active", "bwd_ok_drop_pad_no_rows", "bwd_ok_strided_grad", "bwd_ok_topk_1",
         "bwd_empty", "bwd_empty_skips_checks", "bwd_hidden_0"]
_C_NULLPTR = ["fwd_null_x", "fwd_null_expert_idx", "fwd_null_expanded_x_out", "fwd_null_expanded_row_idx_out",
              "fwd_null_workspace_size", "fwd_null_executor",
              "bwd_null_grad", "bwd_null_row_idx", "bwd_null_out", "bwd_null_workspace_size", "bwd_null_executor"]
_C_INVALID = ["fwd_x_int32", "fwd_x_double", "fwd_expert_idx_int64", "fwd_expert_idx_float", "fwd_expanded_x_dtype",
              "fwd_row_idx_int64", "fwd_count_out_int64", "fwd_before_out_float_in_mode_0", "fwd_x_format_nz",
              "fwd_row_idx_format_nz", "fwd_expanded_x_not_contiguous",
              "bwd_grad_int32", "bwd_row_idx_int64", "bwd_out_dtype", "bwd_grad_format_nz", "bwd_out_not_contiguous"]
_C_TILING = ["fwd_x_3d", "fwd_x_1d", "fwd_x_rows_differ", "fwd_x_rows_negative", "fwd_x_cols_negative",
             "fwd_capacity_negative", "fwd_expert_num_negative", "fwd_drop_pad_mode_2", "fwd_drop_pad_mode_negative",
             "fwd_mode_1_capacity_0", "fwd_mode_1_experts_0", "fwd_count_flag_3", "fwd_count_flag_negative",
             "fwd_count_flag_without_experts", "fwd_mode_1_capacity_above_N",
             "fwd_mode_1_experts_times_capacity_above_int32", "fwd_active_negative", "fwd_mode_1_active_negative",
             "fwd_expert_idx_1d", "fwd_expert_idx_3d", "fwd_expert_idx_0d", "fwd_expert_idx_cols_negative",
             "fwd_T_above_int32", "fwd_expanded_x_3d_in_mode_0", "fwd_expanded_x_rows_not_T",
             "fwd_expanded_x_rows_not_active", "fwd_expanded_x_rows_not_min_active_T", "fwd_expanded_x_cols",
             "fwd_expanded_x_2d_in_mode_1", "fwd_expanded_x_dim0_not_E", "fwd_expanded_x_dim1_not_C",
             "fwd_expanded_x_dim2_not_H", "fwd_row_idx_2d", "fwd_row_idx_length",
             "fwd_count_out_null_when_requested", "fwd_count_out_2d", "fwd_count_out_length",
             "fwd_before_out_null_when_requested", "fwd_before_out_2d", "fwd_before_out_length",
             "bwd_drop_pad_mode_2", "bwd_topk_0", "bwd_topk_negative", "bwd_active_negative",
             "bwd_drop_pad_active_negative", "bwd_grad_1d", "bwd_grad_4d", "bwd_drop_pad_grad_2d", "bwd_row_idx_2d",
             "bwd_dropless_rows_not_L", "bwd_active_rows_not_active", "bwd_out_1d", "bwd_out_3d", "bwd_out_cols",
             "bwd_drop_pad_out_cols", "bwd_out_rows", "bwd_L_0", "bwd_drop_pad_grad_dim_negative",
             "bwd_L_not_multiple", "bwd_dropless_grad_3d"]
C_EXPECTED = {**{n: 0 for n in _C_OK}, **{n: NULLPTR for n in _C_NULLPTR}, **{n: INVALID for n in _C_INVALID},
              **{n: TILING for n in _C_TILING}, **{n: 0 for n in C_LIVE}}


# The fixture c_results and the tests test_c_forward_validation, test_c_backward_validation and
# test_c_program_releases_everything: the program's statuses against C_EXPECTED.
(c_results, test_c_forward_validation, test_c_backward_validation,
 test_c_program_releases_everything) = c_validation_tests(C_SOURCE, C_EXPECTED)
