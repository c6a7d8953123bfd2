"""aclnnMoeTokenPermuteWithEp and aclnnMoeTokenPermuteWithEpGrad (specs ops/moe_token_permute_with_ep.md and
ops/moe_token_permute_with_ep_grad.md): bit-exact equality with the references in every mode, the mirror
layer's two phases, random shapes, windows and thread counts, every validation rule with its status code
(from Python and from C), and forward/backward round trips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import aclnn_py
from aclnn_py import acl, aclnn, reference, testing

from helpers_ops import (BF, BF16, F64, FLOATS, FLOAT_IDS, FP16, FP32, I16, I32, I64, INDEX, INDEX_IDS, INVALID,
                         NULLPTR, NZ, T, TILING, Resources, assert_all_same, assert_rejected, assert_same, bits,
                         c_validation_tests, phase1, random_bits, random_ranks, random_values, run_two_phases,
                         status_of, threads)

forward = aclnn_py.moe_token_permute_with_ep
backward = aclnn_py.moe_token_permute_with_ep_grad
ref_forward = reference.moe_token_permute_with_ep
ref_backward = reference.moe_token_permute_with_ep_grad


# ---- helpers ---------------------------------------------------------------------------------------------

def random_ids(rng, shape, dtype, experts=5, lo=0) -> np.ndarray:
    return rng.integers(lo, lo + experts, size=shape).astype(dtype)


def ep_rows(total, rng_, num_out) -> int:
    start, end = rng_ if rng_ is not None else (0, 0)  # NULL range: the OpDef default; num_out unused
    n = end - start
    if n <= 0:
        n += total
    return min(max(n, 0), total)


# Direct transcriptions of the specs' normative loops, to check the vectorised package references as well.
def spec_forward(tokens, indices, probs, rng_, num_out):
    n_tok, h = tokens.shape
    k = 1 if indices.ndim == 1 else indices.shape[1]
    total = n_tok * k
    start, end = rng_ if rng_ is not None else (0, 0)
    assert 0 <= start <= total and 0 <= end <= total
    n = ep_rows(total, (start, end), 0)
    out = np.zeros((n, h), tokens.dtype)
    sorted_idx = np.zeros(total, np.int32)
    pout = None if probs is None else np.zeros(n, probs.dtype)
    if total == 0 or h == 0:  # the operator writes nothing
        return out, sorted_idx, pout
    order = np.argsort(indices.reshape(-1).astype(np.float32), kind="stable")
    sorted_idx[order] = np.arange(total, dtype=np.int32)
    shift = 0 if n == total else start
    for i in range(total):
        d = int(sorted_idx[i])
        if n == total or start <= d < start + n:
            out[d - shift] = tokens[i // k]
            if probs is not None:
                pout[d - shift] = probs.reshape(-1)[i]
    return out, sorted_idx, pout


def spec_backward(g, sorted_idx, pg, k, rng_):
    start, end = rng_ if rng_ is not None else (0, 0)
    total = sorted_idx.shape[0]
    n, h = total // k, g.shape[1]
    acc = np.zeros((n, h), np.float32)
    probs_out = None if pg is None else np.zeros((n, k), pg.dtype)
    if total == 0 or h == 0:
        return acc.astype(g.dtype), probs_out
    for t in range(n):
        for j in range(k):
            d = int(sorted_idx[t * k + j])
            if start <= d < end:
                acc[t] += g[d - start].astype(np.float32)
                if pg is not None:
                    probs_out[t, j] = pg[d - start]
    return acc.astype(g.dtype), probs_out  # finite values: astype rounds to nearest even


# ---- forward: reference equality in every mode -----------------------------------------------------------

N_TOK, TOPK, HID = 7, 3, 5  # 2-D indices: L = 21
L1 = 11                     # 1-D indices: 11 tokens, topK 1

# name -> (range or None, numOutTokens) as a function of L
WINDOWS = {
    "range_lt": lambda total: ((total // 4, total - total // 3), 12345),
    "range_eq_nonzero": lambda total: ((total // 2, total // 2), -9),
    "range_eq_zero": lambda total: ((0, 0), 0),
    "range_gt_wraps": lambda total: ((total - 3, 4), 0),
    "range_gt_end_zero": lambda total: ((3, 0), 0),
    "range_gt_start_L": lambda total: ((total, 2), 0),      # ranks L, L+1 do not exist: nothing written
    "range_gt_start_L_end_0": lambda total: ((total, 0), 0),  # n = 0
    "range_full": lambda total: ((0, total), 0),
    "range_single_row": lambda total: ((total // 2, total // 2 + 1), 0),
    "range_last_row": lambda total: ((total - 1, total), 0),
    "none_num_out_0": lambda total: (None, 0),
    "none_num_out_k": lambda total: (None, total // 3),
    "none_num_out_L": lambda total: (None, total),
    "none_num_out_negative": lambda total: (None, -total - 7),
    "none_num_out_above_L": lambda total: (None, 2**40),
}


# Each test runs every mode (indices 1-D/2-D, probs present/absent, every window) for one dtype pair.
@pytest.mark.parametrize("idx_dtype", INDEX, ids=INDEX_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_matches_reference(dtype, idx_dtype):
    rng = np.random.default_rng(FLOATS.index(dtype) * 2 + INDEX.index(idx_dtype))
    for two_d in (True, False):
        n_tok = N_TOK if two_d else L1
        shape = (n_tok, TOPK) if two_d else (n_tok,)
        total = n_tok * (TOPK if two_d else 1)
        for with_probs in (True, False):
            for window, make in WINDOWS.items():
                mode = f"2d={two_d} probs={with_probs} {window}"
                tokens = random_bits(rng, (n_tok, HID), dtype)
                indices = random_ids(rng, shape, idx_dtype, experts=4)  # many ties: stability matters
                probs = random_bits(rng, shape, dtype) if with_probs else None
                rng_, num_out = make(total)
                got = forward(tokens, indices, probs, rng_, num_out)
                expected = ref_forward(tokens, indices, probs, rng_, num_out)
                assert_all_same(got, expected, mode)
                assert_all_same(expected, spec_forward(tokens, indices, probs, rng_, num_out), mode)
                assert got[0].shape == (ep_rows(total, rng_, num_out), HID), mode
                assert (got[2] is None) == (not with_probs), mode


def _forward_example(dtype=np.float32, idx_dtype=np.int32):
    """The official example's routing with genuine data (spec section 5)."""
    tokens = np.array([[1, 1], [2, 2], [3, 3]], np.float32).astype(dtype)
    indices = np.array([[1, 2], [3, 1], [2, 3]], idx_dtype)
    probs = np.array([[0.5, 0.25], [0.75, 1.5], [2.0, 4.0]], np.float32).astype(dtype)
    return tokens, indices, probs


@pytest.mark.parametrize("idx_dtype", INDEX, ids=INDEX_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_official_example_by_hand(dtype, idx_dtype):
    tokens, indices, probs = _forward_example(dtype, idx_dtype)
    out, sorted_idx, pout = forward(tokens, indices, probs, (1, 5), 6)
    # order = [0, 3, 1, 4, 2, 5]; ranks 1..4 are slots 3, 1, 4, 2
    assert sorted_idx.tolist() == [0, 2, 4, 1, 3, 5]
    assert out.astype(np.float32).tolist() == [[2, 2], [1, 1], [3, 3], [2, 2]]
    assert pout.astype(np.float32).tolist() == [1.5, 0.25, 2.0, 0.75]


def test_forward_wrap_around_by_hand():
    tokens, indices, probs = _forward_example()
    # L = 6, [4, 2): n = 4; rows 0, 1 hold ranks 4, 5 (slots 2 and 5); rows 2, 3 are never written
    out, sorted_idx, pout = forward(tokens, indices, probs, (4, 2), 0)
    assert out.tolist() == [[2, 2], [3, 3], [0, 0], [0, 0]]
    assert pout.tolist() == [0.75, 4.0, 0, 0]
    assert sorted_idx.tolist() == [0, 2, 4, 1, 3, 5]


def test_forward_empty_range_is_the_full_unshifted_permutation():
    tokens, indices, probs = _forward_example()
    full = forward(tokens, indices, probs, (0, 6), 0)
    for rng_ in [(3, 3), (6, 6), (0, 0), (1, 1)]:
        assert_all_same(forward(tokens, indices, probs, rng_, 0), full)
    assert_all_same(forward(tokens, indices, probs, None, 0), full)
    assert_all_same(forward(tokens, indices, probs, None, 6), full)
    assert full[0].tolist() == [[1, 1], [2, 2], [1, 1], [3, 3], [2, 2], [3, 3]]
    assert full[2].tolist() == [0.5, 1.5, 0.25, 2.0, 0.75, 4.0]


def test_forward_range_none_is_the_full_permutation_whatever_num_out_tokens():
    # A NULL range reaches the tiling as the OpDef default [0, 0]: all L rows; numOutTokens is not read.
    tokens, indices, probs = _forward_example()
    full = forward(tokens, indices, probs, (0, 6), 0)
    for num_out in [0, 1, 5, 6, 7, -1, -2**63, 2**63 - 1]:
        got = forward(tokens, indices, probs, None, num_out)
        assert got[0].shape == (6, 2)
        assert_all_same(got, full, f"num_out_tokens={num_out}")
        assert_all_same(ref_forward(tokens, indices, probs, None, num_out), full, f"num_out_tokens={num_out}")


@pytest.mark.parametrize("idx_dtype", INDEX, ids=INDEX_IDS)
def test_forward_negative_and_huge_ids_sort_as_float32(idx_dtype):
    info = np.iinfo(idx_dtype)
    # 16777217 and 16777216 are the same float32: a tie, kept in flat order; negatives sort first
    ids = np.array([16777217, 16777216, -5, 0, info.max, info.min, -1, 16777216], idx_dtype)
    tokens = np.arange(8, dtype=np.float32).reshape(8, 1)
    probs = np.arange(8, dtype=np.float32) + 100
    out, sorted_idx, pout = forward(tokens, ids, probs, None, 0)
    # float32 keys: min, -5, -1, 0, 2^24 (slots 0, 1, 7 in flat order), max
    order = [5, 2, 6, 3, 0, 1, 7, 4]
    assert out[:, 0].tolist() == order
    assert pout.tolist() == [100 + s for s in order]
    assert sorted_idx.tolist() == [int(np.argwhere(np.array(order) == i)[0, 0]) for i in range(8)]
    assert_all_same((out, sorted_idx, pout), ref_forward(tokens, ids, probs, None, 0))


def test_forward_equal_ids_keep_token_then_slot_order():
    tokens = np.arange(4, dtype=np.float32).reshape(4, 1)
    indices = np.full((4, 3), 7, np.int32)
    out, sorted_idx, _ = forward(tokens, indices, None, (2, 9), 0)
    assert sorted_idx.tolist() == list(range(12))
    assert out[:, 0].tolist() == [0, 1, 1, 1, 2, 2, 2]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_strided_inputs(dtype):
    for layout in ["step_slices", "negative_strides", "transposed_copies", "offset_views"]:
        _check_forward_layout(dtype, layout)


def _check_forward_layout(dtype, layout):
    rng = np.random.default_rng(7)
    n, k, h = 9, 4, 6
    tokens_c = random_bits(rng, (n, h), dtype)
    idx_c = random_ids(rng, (n, k), np.int64, experts=6)
    probs_c = random_bits(rng, (n, k), dtype)
    if layout == "step_slices":
        tb = random_bits(rng, (2 * n, 3 * h), dtype)
        tb[::2, ::3] = tokens_c
        ib = np.zeros((n, 2 * k), np.int64)
        ib[:, ::2] = idx_c
        pb = random_bits(rng, (3 * n, k), dtype)
        pb[::3] = probs_c
        tokens, idx, probs = tb[::2, ::3], ib[:, ::2], pb[::3]
    elif layout == "negative_strides":
        tokens = tokens_c[::-1].copy()[::-1]
        idx = idx_c[::-1, ::-1].copy()[::-1, ::-1]
        probs = probs_c[:, ::-1].copy()[:, ::-1]
    elif layout == "transposed_copies":
        tokens = np.ascontiguousarray(tokens_c.T).T
        idx = np.ascontiguousarray(idx_c.T).T
        probs = np.ascontiguousarray(probs_c.T).T
    else:
        tokens = np.concatenate([random_bits(rng, (2, h), dtype), tokens_c])[2:]
        idx = np.concatenate([np.zeros((1, k), np.int64), idx_c])[1:]
        probs = np.concatenate([random_bits(rng, (n, 1), dtype), probs_c], axis=1)[:, 1:]
    assert np.array_equal(bits(tokens), bits(tokens_c)) and (idx == idx_c).all()
    if layout != "offset_views":
        assert not (tokens.flags.c_contiguous and idx.flags.c_contiguous and probs.flags.c_contiguous)
    for rng_, num_out in [((5, 30), 0), ((30, 7), 0), (None, 0), (None, 11)]:
        got = forward(tokens, idx, probs, rng_, num_out)
        assert_all_same(got, ref_forward(tokens_c, idx_c, probs_c, rng_, num_out), layout)


def test_forward_strided_1d_indices():
    rng = np.random.default_rng(3)
    tokens = random_bits(rng, (10, 3), np.float16)
    ib = random_ids(rng, (30,), np.int32, experts=3)
    pb = random_bits(rng, (20,), np.float16)
    idx, probs = ib[::-3], pb[::2]
    got = forward(tokens, idx, probs, (2, 8), 0)
    assert_all_same(got, ref_forward(tokens, idx.copy(), probs.copy(), (2, 8), 0))


def test_forward_empty_inputs_write_nothing():
    for shape in [(0, 3, 2), (0, 3, 1), (4, 0, 2), (4, 0, 1), (3, 2, 0)]:
        _check_forward_empty(*shape)


def _check_forward_empty(n, h, k):
    tokens = np.ones((n, h), np.float32)
    indices = np.ones((n, k) if k != 1 else (n,), np.int32)
    probs = np.ones(indices.shape, np.float32)
    got = forward(tokens, indices, probs, None, 0)
    total = n * k
    assert got[0].shape == (total, h) and got[1].shape == (total,) and got[2].shape == (total,)
    for a in got:
        assert not bits(a).any()  # sortedIndicesOut included: nothing written
    assert_all_same(got, ref_forward(tokens, indices, probs, None, 0))


# ---- backward: reference equality in every mode ----------------------------------------------------------

B_TOK, B_K, B_H = 6, 3, 5
B_L = B_TOK * B_K

# name -> (range, gradient rows)
GRAD_WINDOWS = {
    "range_lt": ((4, 13), 9),
    "range_full": ((0, B_L), B_L),
    "range_single_row": ((7, 8), 1),
    "range_first_row": ((0, 1), 1),
    "range_last_row": ((B_L - 1, B_L), 1),
    "range_none_zeros": (None, 4),
    "range_eq_zeros": ((5, 5), 3),
    "range_gt_zeros": ((12, 4), 2),
    "range_gt_beyond_L_zeros": ((B_L + 5, -3), 1),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_matches_reference(dtype):
    rng = np.random.default_rng(FLOATS.index(dtype))
    for topk in (1, B_K):
        for with_probs in (True, False):
            for window in GRAD_WINDOWS:
                _check_backward_mode(rng, dtype, topk, with_probs, window)


def _check_backward_mode(rng, dtype, topk, with_probs, window):
    rng_, rows = GRAD_WINDOWS[window]
    total = B_L if topk == B_K else B_TOK
    if rng_ is not None and rng_[0] < rng_[1]:
        rng_ = (min(rng_[0], total - 1), min(rng_[1], total))
        rows = rng_[1] - rng_[0]
    g = random_values(rng, (rows, B_H), dtype)
    sorted_idx = random_ranks(rng, total)
    pg = random_values(rng, (rows,), dtype) if with_probs else None
    mode = f"topk={topk} probs_grad={with_probs} {window}"
    got = backward(g, sorted_idx, pg, topk, rng_)
    expected = ref_backward(g, sorted_idx, pg, topk, rng_)
    assert_all_same(got, expected, mode)
    assert_all_same(expected, spec_backward(g, sorted_idx, pg, topk, rng_), mode)
    assert got[0].shape == (total // topk, B_H), mode
    assert (got[1] is None) == (not with_probs), mode
    if rng_ is None or rng_[0] >= rng_[1]:  # no window: every output is +0
        assert not bits(got[0]).any(), mode
        if with_probs:
            assert not bits(got[1]).any(), mode
    else:
        assert bits(got[0]).any(), mode


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_official_example_by_hand(dtype):
    g = np.array([[2, 2], [1, 1], [3, 3], [2, 2]], np.float32).astype(dtype)
    pg = np.array([0.25, 0.5, 0.75, 1.5], np.float32).astype(dtype)
    sorted_idx = np.array([2, 0, 4, 1, 5, 3], np.int32)
    token_grad, probs_grad = backward(g, sorted_idx, pg, 2, (1, 5))
    assert token_grad.dtype == dtype and probs_grad.dtype == dtype
    assert token_grad.astype(np.float32).tolist() == [[1, 1], [4, 4], [3, 3]]
    assert probs_grad.astype(np.float32).tolist() == [[0.5, 0], [1.5, 0.25], [0, 0.75]]


@pytest.mark.parametrize("dtype,tiny", [(np.float16, 2.0 ** -11), (BF16, 2.0 ** -8)], ids=["float16", "bfloat16"])
def test_backward_rounds_once_after_a_float32_sum(dtype, tiny):
    # 1 + tiny + tiny: rounding after each step would give 1 (ties to even); float32 keeps 1 + 2 tiny
    g = np.array([[1.0], [tiny], [tiny]], np.float32).astype(dtype)
    token_grad, _ = backward(g, np.array([0, 1, 2], np.int32), None, 3, (0, 3))
    assert float(token_grad[0, 0]) == 1 + 2 * tiny
    assert_same(token_grad, ref_backward(g, np.array([0, 1, 2], np.int32), None, 3, (0, 3))[0])


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_special_values(dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        specials = np.array([-0.0, 0.0, np.inf, -np.inf, 1e-40, -1e-42, 3.0e38, 3.0e38, 1.0, np.nan],
                            np.float32).astype(dtype)
        g = specials.reshape(10, 1)
        # K = 2: token 0 = -0 alone (sums from +0: +0), 1 = subnormals, 2 = overflow, 3 = inf - inf, 4 = NaN
        sorted_idx = np.array([0, 10, 4, 5, 6, 7, 2, 3, 9, 8], np.int32)
        got = backward(g, sorted_idx, specials, 2, (0, 10))
        assert_all_same(got, ref_backward(g, sorted_idx, specials, 2, (0, 10)))
    tg = got[0][:, 0].astype(np.float32)
    assert bits(got[0][0]).tolist() == [0]  # +0.0, not -0.0
    assert tg[2] == np.inf and np.isnan(tg[3]) and np.isnan(tg[4])
    expected_probs = np.zeros(10, dtype)
    inside = sorted_idx < 10
    expected_probs[inside] = specials[sorted_idx[inside]]  # exact copies, NaN and -0.0 included
    assert_same(got[1], expected_probs.reshape(5, 2))


def test_backward_out_of_range_and_negative_ranks_contribute_nothing():
    g = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
    pg = np.array([10, 20, 30, 40], np.float32)
    # window [2, 6): ranks outside it (negative, >= L, inside [0, 2)) give 0; duplicates are both summed
    sorted_idx = np.array([-1, 2, 5, 100, 3, 3, 1, -2147483648, 2147483647, 4], np.int32)
    token_grad, probs_grad = backward(g, sorted_idx, pg, 2, (2, 6))
    assert token_grad.tolist() == [[1, 2, 3], [10, 11, 12], [8, 10, 12], [0, 0, 0], [7, 8, 9]]
    assert probs_grad.tolist() == [[0, 10], [40, 0], [20, 20], [0, 0], [0, 30]]
    assert_all_same((token_grad, probs_grad), ref_backward(g, sorted_idx, pg, 2, (2, 6)))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_strided_inputs(dtype):
    rng = np.random.default_rng(11)
    k, total, rng_ = 4, 32, (3, 27)
    rows = rng_[1] - rng_[0]
    g_c = random_values(rng, (rows, 7), dtype)
    idx_c = random_ranks(rng, total)
    pg_c = random_values(rng, (rows,), dtype)
    expected = ref_backward(g_c, idx_c, pg_c, k, rng_)
    gb = random_values(rng, (2 * rows, 14), dtype)
    gb[::2, ::2] = g_c
    ib = np.zeros(3 * total, np.int32)
    ib[::3] = idx_c
    views = [
        (gb[::2, ::2], ib[::3], pg_c[::-1].copy()[::-1]),
        (g_c[::-1, ::-1].copy()[::-1, ::-1], idx_c[::-1].copy()[::-1], np.concatenate([pg_c, pg_c])[:rows]),
        (np.ascontiguousarray(g_c.T).T, np.concatenate([[5], idx_c]).astype(np.int32)[1:], pg_c),
    ]
    for g, idx, pg in views:
        assert np.array_equal(bits(g), bits(g_c)) and (idx == idx_c).all()
        assert_all_same(backward(g, idx, pg, k, rng_), expected)


def test_backward_empty_inputs_write_nothing():
    for shape in [(0, 2, 3), (5, 2, 0), (5, 1, 0)]:
        _check_backward_empty(*shape)


def _check_backward_empty(n, k, h):
    total = n * k
    g = np.ones((total, h), np.float32)
    pg = np.ones(total, np.float32)
    got = backward(g, np.arange(total, dtype=np.int32), pg, k, (0, total))
    assert got[0].shape == (n, h) and got[1].shape == (n, k)
    assert not bits(got[1]).any()  # probsGradOut is not written either
    assert_all_same(got, ref_backward(g, np.arange(total, dtype=np.int32), pg, k, (0, total)))


# ---- mirror layer: both phases by hand ---------------------------------------------------------------------

def fwd_mirror(r, tokens, indices, probs, rng_, num_out, fill=None, pout_shape=None):
    total = indices.size
    n = ep_rows(total, rng_, num_out)
    t_out = r.output((n, tokens.shape[1]), tokens.dtype, fill)
    t_sorted = r.output((total,), np.int32, fill)
    t_pout = r.output(pout_shape or (n,), tokens.dtype, fill)
    run_two_phases(aclnn.aclnnMoeTokenPermuteWithEpGetWorkspaceSize, aclnn.aclnnMoeTokenPermuteWithEp,
                   r.tensor(tokens).handle, r.tensor(indices).handle,
                   None if probs is None else r.tensor(probs).handle, r.int_array(rng_), num_out, False,
                   t_out.handle, t_sorted.handle, t_pout.handle)
    return t_out.numpy(), t_sorted.numpy(), t_pout.numpy()


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_mirror_forward_two_phases(dtype):
    for rng_, num_out in [((3, 17), 0), (None, 0), (None, 9), ((20, 20), 5)]:
        _check_mirror_forward(dtype, rng_, num_out)


def _check_mirror_forward(dtype, rng_, num_out):
    rng = np.random.default_rng(1)
    tokens = random_bits(rng, (8, 5), dtype)
    indices = random_ids(rng, (8, 3), np.int32)
    probs = random_bits(rng, (8, 3), dtype)
    with Resources() as r:
        out, sorted_idx, pout = fwd_mirror(r, tokens, indices, probs, rng_, num_out)
        assert_all_same((out, sorted_idx, pout), ref_forward(tokens, indices, probs, rng_, num_out))
        # probs absent (NULL): permuteProbsOut is still required (any shape), and left as it was
        out, sorted_idx, pout = fwd_mirror(r, tokens, indices, None, rng_, num_out, fill=0x5A, pout_shape=(2, 7))
        exp = ref_forward(tokens, indices, None, rng_, num_out)
        assert_all_same((out, sorted_idx), exp[:2])
        assert (bits(pout).view(np.uint8) == 0x5A).all()


def test_mirror_forward_strided_views_and_int64_ids():
    rng = np.random.default_rng(2)
    tb = random_bits(rng, (12, 10), BF16)
    ib = random_ids(rng, (6, 8), np.int64, experts=4, lo=-2)
    pb = random_bits(rng, (12, 4), BF16)
    tokens, indices, probs = tb[::-2, 1::2], ib[:, ::-2], np.ascontiguousarray(pb[::2].T).T
    with Resources() as r:
        got = fwd_mirror(r, tokens, indices, probs, (2, 21), 0)
    assert_all_same(got, ref_forward(tokens.copy(), indices.copy(), probs.copy(), (2, 21), 0))


def test_mirror_forward_wrap_around_leaves_the_tail_untouched():
    rng = np.random.default_rng(4)
    tokens = random_bits(rng, (5, 3), np.float32)
    indices = random_ids(rng, (5, 2), np.int32)
    probs = random_bits(rng, (5, 2), np.float32)
    total, rng_ = 10, (7, 3)  # n = 6: ranks 7, 8, 9 land in rows 0..2; rows 3..5 are never written
    with Resources() as r:
        out, sorted_idx, pout = fwd_mirror(r, tokens, indices, probs, rng_, 0, fill=0x7F)
    exp_out, exp_sorted, exp_pout = ref_forward(tokens, indices, probs, rng_, 0)
    assert_same(out[:3], exp_out[:3])
    assert_same(pout[:3], exp_pout[:3])
    assert_same(sorted_idx, exp_sorted)
    assert (bits(out[3:]).view(np.uint8) == 0x7F).all() and (bits(pout[3:]).view(np.uint8) == 0x7F).all()
    assert total == tokens.shape[0] * indices.shape[1]


def test_mirror_forward_output_offset_is_honoured():
    rng = np.random.default_rng(5)
    tokens = random_bits(rng, (4, 3), np.float16)
    indices = random_ids(rng, (4, 2), np.int32)
    with Resources() as r:
        t_out = r.output((3, 3), np.float16, fill=0x11, offset=4)
        t_sorted = r.output((8,), np.int32)
        t_pout = r.output((3,), np.float16)
        run_two_phases(aclnn.aclnnMoeTokenPermuteWithEpGetWorkspaceSize, aclnn.aclnnMoeTokenPermuteWithEp,
                       r.tensor(tokens).handle, r.tensor(indices).handle, None, r.int_array([1, 4]), 0, False,
                       t_out.handle, t_sorted.handle, t_pout.handle)
        raw = np.empty(t_out.buffer.nbytes, np.uint8)
        t_out.buffer.download(raw)
        out = t_out.numpy()
    assert (raw[:8] == 0x11).all()
    assert_same(out, ref_forward(tokens, indices, None, (1, 4), 0)[0])


def bwd_mirror(r, g, sorted_idx, pg, k, rng_, fill=None):
    n = sorted_idx.size // k
    t_out = r.output((n, g.shape[1]), g.dtype, fill)
    t_pout = r.output((n, k), g.dtype, fill)
    run_two_phases(aclnn.aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize, aclnn.aclnnMoeTokenPermuteWithEpGrad,
                   r.tensor(g).handle, r.tensor(sorted_idx).handle, None if pg is None else r.tensor(pg).handle,
                   k, r.int_array(rng_), False, t_out.handle, t_pout.handle)
    return t_out.numpy(), t_pout.numpy()


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_mirror_backward_two_phases(dtype):
    for rng_, rows in [((2, 9), 7), (None, 3), ((6, 2), 4), ((0, 12), 12)]:
        _check_mirror_backward(dtype, rng_, rows)


def _check_mirror_backward(dtype, rng_, rows):
    rng = np.random.default_rng(6)
    g = random_values(rng, (rows, 4), dtype)
    sorted_idx = random_ranks(rng, 12)
    pg = random_values(rng, (rows,), dtype)
    with Resources() as r:
        got = bwd_mirror(r, g[::-1].copy()[::-1], sorted_idx, pg, 3, rng_, fill=0x33)
        assert_all_same(got, ref_backward(g, sorted_idx, pg, 3, rng_))
        # probs grad absent (NULL): probsGradOut is required and left as it was
        token_grad, probs_grad = bwd_mirror(r, g, sorted_idx, None, 3, rng_, fill=0x33)
        assert_same(token_grad, ref_backward(g, sorted_idx, None, 3, rng_)[0])
        assert (bits(probs_grad).view(np.uint8) == 0x33).all()


def test_mirror_phase1_writes_nothing_and_phase2_consumes_the_executor():
    tokens, indices, probs = _forward_example()
    with Resources() as r:
        t_out = r.output((4, 2), np.float32, fill=0x7F)
        t_sorted = r.output((6,), np.int32, fill=0x7F)
        t_pout = r.output((4,), np.float32, fill=0x7F)
        before = acl.aclStubLiveExecutors()
        ws, ex = aclnn.aclnnMoeTokenPermuteWithEpGetWorkspaceSize(
            r.tensor(tokens).handle, r.tensor(indices).handle, r.tensor(probs).handle, r.int_array([1, 5]), 0,
            False, t_out.handle, t_sorted.handle, t_pout.handle)
        assert acl.aclStubLiveExecutors() == before + 1
        assert (bits(t_out.numpy()).view(np.uint8) == 0x7F).all()
        aclnn.aclnnMoeTokenPermuteWithEp(None, ws, ex, None)
        acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results exist after this
        assert acl.aclStubLiveExecutors() == before
        assert status_of(aclnn.aclnnMoeTokenPermuteWithEp, None, ws, ex, None) == INVALID
        assert_same(t_out.numpy(), ref_forward(tokens, indices, probs, (1, 5), 0)[0])


# ---- property-based tests ------------------------------------------------------------------------------------

@st.composite
def forward_cases(draw, max_tokens=24, max_hidden=5):
    n = draw(st.integers(0, max_tokens))
    two_d = draw(st.booleans())
    k = draw(st.integers(1, 5)) if two_d else 1
    h = draw(st.integers(0, max_hidden))
    dtype = draw(st.sampled_from(FLOATS))
    idx_dtype = draw(st.sampled_from(INDEX))
    experts = draw(st.integers(1, 7))
    lo = draw(st.sampled_from([0, 0, -3, 16777210]))
    with_probs = draw(st.booleans())
    total = n * k
    if draw(st.booleans()):
        rng_ = (draw(st.integers(0, total)), draw(st.integers(0, total)))
        num_out = draw(st.integers(-2**31, 2**31 - 1))  # ignored with a range
    else:
        rng_, num_out = None, draw(st.integers(0, total))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    tokens = random_bits(rng, (n, h), dtype)
    shape = (n, k) if two_d else (n,)
    indices = random_ids(rng, shape, idx_dtype, experts, lo)
    probs = random_bits(rng, shape, dtype) if with_probs else None
    return tokens, indices, probs, rng_, num_out


@settings(max_examples=60, deadline=None)
@given(forward_cases())
def test_property_forward(case):
    tokens, indices, probs, rng_, num_out = case
    expected = ref_forward(tokens, indices, probs, rng_, num_out)
    assert_all_same(forward(tokens, indices, probs, rng_, num_out), expected)
    assert_all_same(expected, spec_forward(tokens, indices, probs, rng_, num_out))


@st.composite
def backward_cases(draw, max_tokens=16, max_hidden=5):
    n = draw(st.integers(0, max_tokens))
    k = draw(st.integers(1, 5))
    h = draw(st.integers(0, max_hidden))
    dtype = draw(st.sampled_from(FLOATS))
    total = n * k
    kind = draw(st.sampled_from(["lt", "lt", "lt", "none", "ge"]))
    if kind == "lt" and total > 0:
        start = draw(st.integers(0, total - 1))
        rng_ = (start, draw(st.integers(start + 1, total)))
        rows = rng_[1] - rng_[0]
    elif kind == "ge":
        end = draw(st.integers(-2, total + 2))
        rng_ = (draw(st.integers(end, total + 3)), end)
        rows = draw(st.integers(0, 3))
    else:
        rng_, rows = None, draw(st.integers(0, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    g = random_values(rng, (rows, h), dtype)
    if draw(st.booleans()):
        sorted_idx = random_ranks(rng, total)
    else:  # arbitrary ranks: duplicates, negatives, beyond L
        sorted_idx = rng.integers(-3, total + 3, size=total).astype(np.int32)
    pg = random_values(rng, (rows,), dtype) if draw(st.booleans()) else None
    return g, sorted_idx, pg, k, rng_


@settings(max_examples=60, deadline=None)
@given(backward_cases())
def test_property_backward(case):
    g, sorted_idx, pg, k, rng_ = case
    expected = ref_backward(g, sorted_idx, pg, k, rng_)
    assert_all_same(backward(g, sorted_idx, pg, k, rng_), expected)
    assert_all_same(expected, spec_backward(g, sorted_idx, pg, k, rng_))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(FLOATS), st.booleans(), st.integers(1, 8))
def test_property_results_do_not_depend_on_the_thread_count(seed, dtype, with_probs, k):
    # Big enough that the row copies, the gather-sum and the rank scatter are split between threads.
    rng = np.random.default_rng(seed)
    n, h = 20000 // k + int(rng.integers(0, 50)), 16  # L > 16384: several chunks for every kernel
    total = n * k
    tokens = random_bits(rng, (n, h), dtype)
    indices = random_ids(rng, (n, k), np.int32, experts=int(rng.integers(1, 64)))
    probs = random_bits(rng, (n, k), dtype) if with_probs else None
    start = int(rng.integers(0, total))
    rng_ = (start, int(rng.integers(start + 1, total + 1)))
    wrap = (rng_[1], rng_[0])
    results = []
    for count in (1, 2, 3):
        with threads(count):
            fwd = forward(tokens, indices, probs, rng_, 0)
            fwd_wrap = forward(tokens, indices, probs, wrap, 0)
            g = random_values(np.random.default_rng(seed), fwd[0].shape, dtype)
            pg = random_values(np.random.default_rng(seed + 1), (fwd[0].shape[0],), dtype) if with_probs else None
            bwd = backward(g, fwd[1], pg, k, rng_)
        results.append((fwd, fwd_wrap, bwd))
    for fwd, fwd_wrap, bwd in results[1:]:
        assert_all_same(fwd, results[0][0])
        assert_all_same(fwd_wrap, results[0][1])
        assert_all_same(bwd, results[0][2])
    fwd, fwd_wrap, bwd = results[0]
    assert_all_same(fwd, ref_forward(tokens, indices, probs, rng_, 0))
    assert_all_same(fwd_wrap, ref_forward(tokens, indices, probs, wrap, 0))
    g = random_values(np.random.default_rng(seed), fwd[0].shape, dtype)
    pg = random_values(np.random.default_rng(seed + 1), (fwd[0].shape[0],), dtype) if with_probs else None
    assert_all_same(bwd, ref_backward(g, fwd[1], pg, k, rng_))


# ---- round trips -----------------------------------------------------------------------------------------------

RT_N, RT_K = 6, 2
RT_L = RT_N * RT_K


RT_WINDOWS = [(0, RT_L), (0, 1), (RT_L - 1, RT_L), (3, 4), (2, 9), (0, 7), (5, RT_L)]


@pytest.mark.parametrize("with_probs", [True, False], ids=["probs", "no_probs"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_trip(dtype, with_probs):
    rng = np.random.default_rng(21)
    for _ in range(4):  # windows drawn by the helper
        rt = testing.check_pair("moe_token_permute_with_ep", rng, dtype=dtype, with_probs=with_probs)
        assert len(rt.pairs) == (2 if with_probs else 1)
    # full window, first/last/single row, middle, prefix, suffix
    for window in RT_WINDOWS:
        rt = testing.check_pair("moe_token_permute_with_ep", rng, dtype=dtype, with_probs=with_probs, window=window)
        assert str(tuple(window)) in rt.mode
        y, g, x, gx = rt.pairs[0]
        assert y.shape == (window[1] - window[0], 5) and gx.shape == x.shape
        assert len(rt.pairs) == (2 if with_probs else 1)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_property_round_trip(data):
    n = data.draw(st.integers(1, 12))
    k = data.draw(st.integers(1, 4))
    e = data.draw(st.integers(k, 7))  # distinct experts per token
    h = data.draw(st.integers(1, 4))
    start = data.draw(st.integers(0, n * k - 1))
    window = (start, data.draw(st.integers(start + 1, n * k)))
    testing.check_pair("moe_token_permute_with_ep", np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))),
                       dtype=data.draw(st.sampled_from(["float32", "float16", "bfloat16"])), n=n, k=k, h=h, e=e,
                       window=window, with_probs=data.draw(st.booleans()))


# ---- validation through the mirror layer ---------------------------------------------------------------------

FWD_BASE = dict(tokens=T((4, 3)), indices=T((4, 2), I32), probs=T((4, 2)), range=[1, 5], num_out=0, padded=False,
                out=T((4, 3)), sorted=T((8,), I32), pout=T((4,)))
ONE_D = dict(indices=T((4,), I32), probs=T((4,)), range=[1, 3], out=T((2, 3)), sorted=T((4,), I32), pout=T((2,)))
EMPTY = dict(tokens=T((0, 3)), indices=T((0, 2), I32), probs=T((0, 2)), range=None, out=T((0, 3)),
             sorted=T((0,), I32), pout=T((0,)))

FWD_CASES = [
    # successes around the rules
    ("ok", {}, 0),
    ("ok_probs_absent", {"probs": None}, 0),
    ("ok_indices_int64", {"indices": T((4, 2), I64)}, 0),
    ("ok_float16", {"tokens": T((4, 3), FP16), "probs": T((4, 2), FP16), "out": T((4, 3), FP16),
                    "pout": T((4,), FP16)}, 0),
    ("ok_bfloat16", {"tokens": T((4, 3), BF), "probs": T((4, 2), BF), "out": T((4, 3), BF), "pout": T((4,), BF)}, 0),
    ("ok_indices_1d", ONE_D, 0),
    ("ok_range_none_num_out_L", {"range": None, "num_out": 8, "out": T((8, 3)), "pout": T((8,))}, 0),
    ("ok_range_none_num_out_negative_ignored", {"range": None, "num_out": -1, "out": T((8, 3)), "pout": T((8,))}, 0),
    ("ok_range_none_num_out_above_L_ignored", {"range": None, "num_out": 9, "out": T((8, 3)), "pout": T((8,))}, 0),
    ("ok_range_wraps", {"range": [6, 2], "out": T((4, 3)), "pout": T((4,))}, 0),
    ("ok_num_out_ignored_with_range", {"num_out": -2**40}, 0),
    ("ok_out_3d_trailing_product", {"out": T((4, 3, 1))}, 0),
    ("ok_pout_shape_unchecked_without_probs", {"probs": None, "pout": T((7, 2))}, 0),
    ("ok_strided_inputs", {"tokens": T((4, 3), strides=(1, 4)), "indices": T((4, 2), I32, strides=(1, 4))}, 0),
    ("ok_L_below_limit", {"tokens": T((16777214, 3), strides=(0, 0)),
                          "indices": T((16777214,), I32, strides=(0,)), "probs": None, "range": None,
                          "out": T((16777214, 3), alloc=64), "sorted": T((16777214,), I32, alloc=64)}, 0),
    # 1: NULL
    ("null_tokens", {"tokens": None}, NULLPTR),
    ("null_indices", {"indices": None}, NULLPTR),
    ("null_permute_tokens_out", {"out": None}, NULLPTR),
    ("null_sorted_indices_out", {"sorted": None}, NULLPTR),
    ("null_permute_probs_out", {"pout": None}, NULLPTR),
    ("null_permute_probs_out_without_probs", {"probs": None, "pout": None}, NULLPTR),
    # 2: dtype and format
    ("tokens_int32", {"tokens": T((4, 3), I32)}, INVALID),
    ("tokens_double", {"tokens": T((4, 3), F64)}, INVALID),
    ("indices_float32", {"indices": T((4, 2), FP32)}, INVALID),
    ("indices_int16", {"indices": T((4, 2), I16)}, INVALID),
    ("probs_dtype_differs", {"probs": T((4, 2), FP16)}, INVALID),
    ("probs_int32", {"probs": T((4, 2), I32)}, INVALID),
    ("permute_tokens_out_dtype_differs", {"out": T((4, 3), BF)}, INVALID),
    ("sorted_indices_out_int64", {"sorted": T((8,), I64)}, INVALID),
    ("permute_probs_out_dtype_differs", {"pout": T((4,), FP16)}, INVALID),
    ("permute_probs_out_dtype_differs_without_probs", {"probs": None, "pout": T((4,), FP16)}, INVALID),
    ("tokens_format_nz", {"tokens": T((4, 3), fmt=NZ)}, INVALID),
    ("indices_format_nz", {"indices": T((4, 2), I32, fmt=NZ)}, INVALID),
    ("probs_format_nz", {"probs": T((4, 2), fmt=NZ)}, INVALID),
    ("out_format_nz", {"out": T((4, 3), fmt=NZ)}, INVALID),
    ("permute_tokens_out_not_contiguous", {"out": T((4, 3), strides=(1, 4))}, INVALID),
    ("sorted_indices_out_not_contiguous", {"sorted": T((8,), I32, strides=(2,))}, INVALID),
    # 3: paddedMode
    ("padded_mode", {"padded": True}, TILING),
    # 4: window
    ("range_size_3", {"range": [1, 5, 6]}, TILING),
    ("range_size_1", {"range": [1]}, TILING),
    ("range_size_0", {"range": []}, TILING),
    ("range_start_negative", {"range": [-1, 5]}, TILING),
    ("range_start_above_L", {"range": [9, 5]}, TILING),
    ("range_end_negative", {"range": [1, -1]}, TILING),
    ("range_end_above_L", {"range": [1, 9]}, TILING),
    ("range_none_output_rows_not_L", {"range": None, "num_out": 4}, TILING),
    ("range_none_probs_output_length_not_L", {"range": None, "out": T((8, 3))}, TILING),
    # 5: indices shape
    ("indices_3d", {"indices": T((4, 2, 1), I32)}, TILING),
    ("indices_0d", {"indices": T((), I32), "probs": None, "range": None}, TILING),
    ("tokens_rows_differ_from_indices", {"tokens": T((5, 3))}, TILING),
    ("topk_0", {"indices": T((4, 0), I32), "probs": None, "range": None}, TILING),
    ("topk_513", {"indices": T((4, 513), I32), "probs": None}, TILING),
    ("L_at_limit", {"tokens": T((16777215, 3), strides=(0, 0)), "indices": T((16777215,), I32, strides=(0,)),
                    "probs": None, "range": None, "out": T((16777215, 3), alloc=64),
                    "sorted": T((16777215,), I32, alloc=64)}, TILING),
    ("L_above_limit_2d", {"tokens": T((32768, 3), strides=(0, 0)), "indices": T((32768, 512), I32, strides=(0, 0)),
                          "probs": None, "range": None}, TILING),
    # 6: probs shape
    ("probs_1d_with_2d_indices", {"probs": T((4,))}, TILING),
    ("probs_3d", {"probs": T((4, 2, 1))}, TILING),
    ("probs_rows_differ", {"probs": T((5, 2))}, TILING),
    ("probs_cols_differ_from_topk", {"probs": T((4, 3))}, TILING),
    ("probs_2d_with_1d_indices", dict(ONE_D, probs=T((4, 1))), TILING),
    # 7: output shapes
    ("permute_tokens_out_1d", {"out": T((12,))}, TILING),
    ("permute_tokens_out_row_size", {"out": T((4, 4))}, TILING),
    ("permute_tokens_out_rows_not_window", {"out": T((5, 3))}, TILING),
    ("sorted_indices_out_2d", {"sorted": T((8, 1), I32)}, TILING),
    ("sorted_indices_out_length", {"sorted": T((9,), I32)}, TILING),
    ("permute_probs_out_2d", {"pout": T((4, 1))}, TILING),
    ("permute_probs_out_length", {"pout": T((5,))}, TILING),
    # 8: stub-only tokens rank
    ("tokens_3d", {"tokens": T((4, 3, 1))}, TILING),
    ("tokens_1d", {"tokens": T((4,))}, TILING),
    # 9: empty
    ("empty_L_0", EMPTY, 0),
    ("empty_outputs_skip_later_checks", dict(EMPTY, padded=True, range=[7, 9], tokens=T((0, 3, 2))), 0),
    ("empty_outputs_still_check_dtypes", dict(EMPTY, indices=T((0, 2), FP32)), INVALID),
    ("hidden_0", {"tokens": T((4, 0)), "out": T((4, 0))}, 0),
]


def fwd_args(over):
    a = dict(FWD_BASE, **over)
    return [a["tokens"], a["indices"], a["probs"], a["range"], a["num_out"], a["padded"], a["out"], a["sorted"],
            a["pout"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in FWD_CASES], ids=[c[0] for c in FWD_CASES])
def test_mirror_forward_validation(over, status):
    got, _ = phase1(aclnn.aclnnMoeTokenPermuteWithEpGetWorkspaceSize, fwd_args(over))
    assert got == status


GRAD_BASE = dict(g=T((4, 3)), idx=T((8,), I32), pg=T((4,)), k=2, range=[1, 5], padded=False, out=T((4, 3)),
                 pout=T((4, 2)))
GRAD_EMPTY = dict(g=T((0, 3)), idx=T((0,), I32), pg=T((0,)), range=[0, 0], out=T((0, 3)), pout=T((0, 2)))

GRAD_CASES = [
    ("ok", {}, 0),
    ("ok_probs_grad_absent", {"pg": None}, 0),
    ("ok_float16", {"g": T((4, 3), FP16), "pg": T((4,), FP16), "out": T((4, 3), FP16), "pout": T((4, 2), FP16)}, 0),
    ("ok_bfloat16", {"g": T((4, 3), BF), "pg": T((4,), BF), "out": T((4, 3), BF), "pout": T((4, 2), BF)}, 0),
    ("ok_padded_mode_ignored", {"padded": True}, 0),
    ("ok_range_none_any_rows", {"range": None, "g": T((3, 3)), "pg": T((3,))}, 0),
    ("ok_start_eq_end_any_rows", {"range": [3, 3], "g": T((7, 3)), "pg": T((7,))}, 0),
    ("ok_start_gt_end_outside_L", {"range": [12, -4], "g": T((1, 3)), "pg": T((1,))}, 0),
    ("ok_range_full", {"range": [0, 8], "g": T((8, 3)), "pg": T((8,))}, 0),
    ("ok_topk_512", {"k": 512, "idx": T((512,), I32), "out": T((1, 3)), "pout": T((1, 512))}, 0),
    ("ok_strided_inputs", {"g": T((4, 3), strides=(1, 4)), "idx": T((8,), I32, strides=(2,))}, 0),
    # 1: NULL
    ("null_permuted_tokens_output_grad", {"g": None}, NULLPTR),
    ("null_sorted_indices", {"idx": None}, NULLPTR),
    ("null_token_grad_out", {"out": None}, NULLPTR),
    ("null_probs_grad_out", {"pout": None}, NULLPTR),
    ("null_probs_grad_out_without_probs_grad", {"pg": None, "pout": None}, NULLPTR),
    # 2: dtype and format
    ("grad_int32", {"g": T((4, 3), I32)}, INVALID),
    ("grad_double", {"g": T((4, 3), F64)}, INVALID),
    ("sorted_indices_int64", {"idx": T((8,), I64)}, INVALID),
    ("sorted_indices_float32", {"idx": T((8,), FP32)}, INVALID),
    ("probs_grad_dtype_differs", {"pg": T((4,), FP16)}, INVALID),
    ("token_grad_out_dtype_differs", {"out": T((4, 3), BF)}, INVALID),
    ("probs_grad_out_dtype_differs", {"pout": T((4, 2), FP16)}, INVALID),
    ("probs_grad_out_dtype_differs_without_probs_grad", {"pg": None, "pout": T((4, 2), FP16)}, INVALID),
    ("grad_format_nz", {"g": T((4, 3), fmt=NZ)}, INVALID),
    ("sorted_indices_format_nz", {"idx": T((8,), I32, fmt=NZ)}, INVALID),
    ("probs_grad_out_format_nz", {"pout": T((4, 2), fmt=NZ)}, INVALID),
    ("token_grad_out_not_contiguous", {"out": T((4, 3), strides=(1, 4))}, INVALID),
    ("probs_grad_out_not_contiguous", {"pout": T((4, 2), strides=(1, 4))}, INVALID),
    # 3: device tiling
    ("num_topk_0", {"k": 0}, TILING),
    ("num_topk_negative", {"k": -2}, TILING),
    ("grad_1d", {"g": T((12,))}, TILING),
    ("grad_3d", {"g": T((4, 3, 1))}, TILING),
    ("probs_grad_2d", {"pg": T((4, 1))}, TILING),
    # 4: stub-only
    ("num_topk_513", {"k": 513}, TILING),
    ("range_size_3", {"range": [1, 5, 6]}, TILING),
    ("range_size_1", {"range": [1]}, TILING),
    ("range_size_0", {"range": []}, TILING),
    ("range_start_negative", {"range": [-1, 3]}, TILING),
    ("range_end_above_L", {"range": [5, 9]}, TILING),
    ("grad_rows_not_window", {"range": [1, 4]}, TILING),
    ("probs_grad_length", {"pg": T((5,))}, TILING),
    ("L_not_multiple_of_topk", {"idx": T((9,), I32)}, TILING),
    ("sorted_indices_2d", {"idx": T((8, 1), I32)}, TILING),
    ("token_grad_out_rows", {"out": T((5, 3))}, TILING),
    ("token_grad_out_cols", {"out": T((4, 4))}, TILING),
    ("token_grad_out_3d", {"out": T((4, 3, 1))}, TILING),
    ("probs_grad_out_cols", {"pout": T((4, 3))}, TILING),
    ("probs_grad_out_1d", {"pout": T((8,))}, TILING),
    ("probs_grad_out_shape_checked_without_probs_grad", {"pg": None, "pout": T((4, 3))}, TILING),
    # 6: empty
    ("empty_L_0", GRAD_EMPTY, 0),
    ("empty_outputs_skip_later_checks", dict(GRAD_EMPTY, k=0, g=T((5,)), range=[1]), 0),
    ("empty_outputs_still_check_dtypes", dict(GRAD_EMPTY, idx=T((0,), I64)), INVALID),
    ("hidden_0", {"g": T((4, 0)), "out": T((4, 0))}, 0),
]


def grad_args(over):
    a = dict(GRAD_BASE, **over)
    return [a["g"], a["idx"], a["pg"], a["k"], a["range"], a["padded"], a["out"], a["pout"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_mirror_backward_validation(over, status):
    got, _ = phase1(aclnn.aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize, grad_args(over))
    assert got == status


def test_mirror_all_outputs_empty_gives_an_empty_executor():
    with Resources() as r:
        tokens, indices = np.ones((0, 3), np.float32), np.ones((0, 2), np.int32)
        t_out, t_sorted, t_pout = r.output((0, 3), np.float32), r.output((0,), np.int32), r.output((0,), np.float32)
        ws, ex = aclnn.aclnnMoeTokenPermuteWithEpGetWorkspaceSize(
            r.tensor(tokens).handle, r.tensor(indices).handle, None, r.int_array([3, 9]), -1, True, t_out.handle,
            t_sorted.handle, t_pout.handle)
        assert ws == 0
        aclnn.aclnnMoeTokenPermuteWithEp(None, 0, ex, None)
        g_out, g_pout = r.output((0, 3), np.float32), r.output((0, 2), np.float32)
        ws, ex = aclnn.aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize(
            r.tensor(np.ones((4, 3), np.float32)).handle, r.tensor(np.zeros(0, np.int32)).handle, None, 0, None,
            False, g_out.handle, g_pout.handle)
        assert ws == 0
        aclnn.aclnnMoeTokenPermuteWithEpGrad(None, 0, ex, None)


def test_mirror_hidden_0_writes_no_sorted_indices():
    with Resources() as r:
        t_sorted = r.output((8,), np.int32, fill=0x44)
        t_out, t_pout = r.output((4, 0), np.float32), r.output((4,), np.float32, fill=0x44)
        run_two_phases(aclnn.aclnnMoeTokenPermuteWithEpGetWorkspaceSize, aclnn.aclnnMoeTokenPermuteWithEp,
                       r.tensor(np.ones((4, 0), np.float32)).handle, r.tensor(np.ones((4, 2), np.int32)).handle,
                       r.tensor(np.ones((4, 2), np.float32)).handle, r.int_array([1, 5]), 0, False, t_out.handle,
                       t_sorted.handle, t_pout.handle)
        assert (t_sorted.numpy().view(np.uint8) == 0x44).all()
        assert (t_pout.numpy().view(np.uint8) == 0x44).all()


# ---- validation through the high-level functions -------------------------------------------------------------

def _fx(**over):
    """High-level forward arguments: a valid call with some replaced."""
    a = dict(tokens=np.ones((4, 3), np.float32), indices=np.zeros((4, 2), np.int32), probs=np.ones((4, 2), np.float32),
             range=(1, 5), num_out_tokens=0, padded_mode=False)
    a.update(over)
    return lambda: forward(a["tokens"], a["indices"], a["probs"], a["range"], a["num_out_tokens"], a["padded_mode"])


def _bx(**over):
    a = dict(g=np.ones((4, 3), np.float32), idx=np.arange(8, dtype=np.int32), pg=np.ones(4, np.float32), k=2,
             range=(1, 5), padded_mode=False)
    a.update(over)
    return lambda: backward(a["g"], a["idx"], a["pg"], a["k"], a["range"], a["padded_mode"])


HIGH_LEVEL_CASES = [
    ("fwd_tokens_int32", _fx(tokens=np.ones((4, 3), np.int32)), INVALID, "tokens"),
    ("fwd_tokens_float64", _fx(tokens=np.ones((4, 3))), INVALID, "tokens"),
    ("fwd_indices_float32", _fx(indices=np.zeros((4, 2), np.float32)), INVALID, "indices"),
    ("fwd_indices_uint8", _fx(indices=np.zeros((4, 2), np.uint8)), INVALID, "indices"),
    ("fwd_probs_dtype_differs", _fx(probs=np.ones((4, 2), np.float16)), INVALID, "probsOptional"),
    ("fwd_padded_mode", _fx(padded_mode=True), TILING, "paddedMode"),
    ("fwd_range_size_3", _fx(range=(1, 5, 6)), TILING, "rangeOptional"),
    ("fwd_range_end_above_L", _fx(range=(1, 9)), TILING, "rangeOptional"),
    ("fwd_range_start_negative", _fx(range=(-1, 5)), TILING, "rangeOptional"),
    ("fwd_range_start_above_L", _fx(range=(9, 2)), TILING, "rangeOptional"),
    ("fwd_indices_rows_differ", _fx(indices=np.zeros((5, 2), np.int32), probs=None), TILING, "indices.shape[0]"),
    ("fwd_indices_3d", _fx(indices=np.zeros((4, 2, 1), np.int32), probs=None), TILING, "indices"),
    ("fwd_topk_513", _fx(indices=np.zeros((4, 513), np.int32), probs=None), TILING, "topK"),
    ("fwd_probs_cols_differ", _fx(probs=np.ones((4, 3), np.float32)), TILING, "probsOptional"),
    ("fwd_probs_1d", _fx(probs=np.ones(4, np.float32)), TILING, "probsOptional"),
    ("fwd_tokens_3d", _fx(tokens=np.ones((4, 3, 1), np.float32)), TILING, "tokens"),
    ("bwd_grad_int32", _bx(g=np.ones((4, 3), np.int32)), INVALID, "permutedTokensOutputGrad"),
    ("bwd_sorted_indices_int64", _bx(idx=np.arange(8)), INVALID, "sortedIndices"),
    ("bwd_probs_grad_dtype_differs", _bx(pg=np.ones(4, BF16)), INVALID, "permutedProbsOutputGradOptional"),
    ("bwd_num_topk_513", _bx(k=513, idx=np.arange(513, dtype=np.int32)), TILING, "numTopk"),
    ("bwd_grad_rows_not_window", _bx(range=(1, 4)), TILING, "rangeOptional"),
    ("bwd_range_end_above_L", _bx(range=(5, 9)), TILING, "rangeOptional"),
    ("bwd_range_size_3", _bx(range=(1, 5, 0)), TILING, "rangeOptional"),
    ("bwd_probs_grad_length", _bx(pg=np.ones(5, np.float32)), TILING, "permutedProbsOutputGradOptional"),
    ("bwd_probs_grad_2d", _bx(pg=np.ones((4, 1), np.float32)), TILING, "permutedProbsOutputGradOptional"),
    ("bwd_grad_3d", _bx(g=np.ones((4, 3, 1), np.float32)), TILING, "permutedTokensOutputGrad"),
    ("bwd_L_not_multiple_of_topk", _bx(idx=np.arange(9, dtype=np.int32)), TILING, "numTopk"),
]


@pytest.mark.parametrize("name,call,status,argument", HIGH_LEVEL_CASES, ids=[c[0] for c in HIGH_LEVEL_CASES])
def test_high_level_validation(name, call, status, argument):
    op = "aclnnMoeTokenPermuteWithEpGrad" if name.startswith("bwd_") else "aclnnMoeTokenPermuteWithEp"
    assert_rejected(call, status, argument, op + "GetWorkspaceSize")


def test_high_level_padded_mode_is_ignored_by_the_backward():
    g, idx, pg = np.ones((4, 3), np.float32), np.arange(8, dtype=np.int32), np.ones(4, np.float32)
    assert_all_same(backward(g, idx, pg, 2, (1, 5), True), backward(g, idx, pg, 2, (1, 5), False))


# ---- validation from C ---------------------------------------------------------------------------------------

C_SOURCE = Path(__file__).resolve().parent / "c" / "validation_permute_with_ep.c"

C_EXPECTED = {
    "fwd_ok": 0, "fwd_ok_probs_null": 0, "fwd_ok_indices_int64": 0, "fwd_ok_bf16": 0, "fwd_ok_fp16": 0,
    "fwd_ok_indices_1d": 0, "fwd_ok_range_null": 0, "fwd_ok_range_wraps": 0, "fwd_ok_num_out_ignored": 0,
    "fwd_ok_out_3d": 0, "fwd_ok_pout_unchecked_without_probs": 0,
    "fwd_null_tokens": NULLPTR, "fwd_null_indices": NULLPTR, "fwd_null_permute_tokens_out": NULLPTR,
    "fwd_null_sorted_indices_out": NULLPTR, "fwd_null_permute_probs_out": NULLPTR,
    "fwd_null_workspace_size": NULLPTR, "fwd_null_executor": NULLPTR,
    "fwd_tokens_int32": INVALID, "fwd_tokens_double": INVALID, "fwd_indices_float": INVALID,
    "fwd_indices_int16": INVALID, "fwd_probs_dtype": INVALID, "fwd_out_dtype": INVALID, "fwd_sorted_int64": INVALID,
    "fwd_pout_dtype": INVALID, "fwd_tokens_format_nz": INVALID, "fwd_out_not_contiguous": INVALID,
    "fwd_padded_mode": TILING,
    "fwd_range_size_3": TILING, "fwd_range_size_1": TILING, "fwd_range_size_0": TILING,
    "fwd_range_start_negative": TILING, "fwd_range_start_above_L": TILING, "fwd_range_end_negative": TILING,
    "fwd_range_end_above_L": TILING, "fwd_ok_range_null_num_out_negative": 0,
    "fwd_ok_range_null_num_out_above_L": 0, "fwd_range_null_out_rows_not_L": TILING,
    "fwd_indices_3d": TILING, "fwd_tokens_rows": TILING, "fwd_topk_0": TILING, "fwd_topk_513": TILING,
    "fwd_L_at_limit": TILING,
    "fwd_probs_rank": TILING, "fwd_probs_rows": TILING, "fwd_probs_cols": TILING,
    "fwd_out_1d": TILING, "fwd_out_row_size": TILING, "fwd_out_rows": TILING, "fwd_sorted_2d": TILING,
    "fwd_sorted_length": TILING, "fwd_pout_2d": TILING, "fwd_pout_length": TILING, "fwd_tokens_3d": TILING,
    "fwd_empty": 0, "fwd_empty_skips_checks": 0, "fwd_hidden_0": 0,
    "bwd_ok": 0, "bwd_ok_probs_grad_null": 0, "bwd_ok_bf16": 0, "bwd_ok_fp16": 0, "bwd_ok_padded_ignored": 0,
    "bwd_ok_range_null": 0, "bwd_ok_start_ge_end": 0, "bwd_ok_topk_512": 0,
    "bwd_null_grad": NULLPTR, "bwd_null_sorted_indices": NULLPTR, "bwd_null_token_grad_out": NULLPTR,
    "bwd_null_probs_grad_out": NULLPTR, "bwd_null_workspace_size": NULLPTR, "bwd_null_executor": NULLPTR,
    "bwd_grad_int32": INVALID, "bwd_sorted_int64": INVALID, "bwd_probs_grad_dtype": INVALID,
    "bwd_out_dtype": INVALID, "bwd_pout_dtype": INVALID, "bwd_sorted_format_nz": INVALID,
    "bwd_out_not_contiguous": INVALID,
    "bwd_topk_0": TILING, "bwd_topk_negative": TILING, "bwd_grad_1d": TILING, "bwd_probs_grad_2d": TILING,
    "bwd_topk_513": TILING, "bwd_range_size_3": TILING, "bwd_range_size_0": TILING,
    "bwd_range_start_negative": TILING, "bwd_range_end_above_L": TILING, "bwd_grad_rows": TILING,
    "bwd_probs_grad_length": TILING, "bwd_L_not_multiple": TILING, "bwd_out_shape": TILING,
    "bwd_pout_shape": TILING,
    "bwd_empty": 0, "bwd_hidden_0": 0,
    "live_allocations": 0, "live_allocation_bytes": 0, "live_host_allocations": 0, "live_streams": 0,
    "live_tensors": 0, "live_scalars": 0, "live_int_arrays": 0, "live_executors": 0,
}


# The fixture c_results and the tests test_c_forward_validation, test_c_backward_validation and
# test_c_program_releases_everything: the program's statuses against C_EXPECTED.
(c_results, test_c_forward_validation, test_c_backward_validation,
 test_c_program_releases_everything) = c_validation_tests(C_SOURCE, C_EXPECTED)
