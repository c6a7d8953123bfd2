"""aclnnMoeTokenUnpermuteWithEp and aclnnMoeTokenUnpermuteWithEpGrad (specs ops/moe_token_unpermute_with_ep.md and
ops/moe_token_unpermute_with_ep_grad.md): bit-exact equality with the references in every mode (every tokens/probs
dtype pair, every window kind), the device's reduction order of the probs gradient, the mirror layer's two phases,
strided views, empty tensors, random cases and thread counts, every validation rule with its status code, the
vector-Jacobian identities and the expert-parallel sharding identities."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import aclnn_py
from aclnn_py import aclnn, reference, testing

from helpers_ops import (BF, BF16, F64, FLOAT_IDS, FLOATS, FP16, I32, I64, INVALID, NULLPTR, NZ, T, TILING, Resources,
                         assert_all_same, assert_rejected, assert_same, bits, c_validation_tests, phase1, random_ranks,
                         random_values, run_two_phases, threads)

forward = aclnn_py.moe_token_unpermute_with_ep
backward = aclnn_py.moe_token_unpermute_with_ep_grad
ref_forward = reference.moe_token_unpermute_with_ep
ref_backward = reference.moe_token_unpermute_with_ep_grad
grad_ref_module = importlib.import_module("aclnn_py.reference.moe_token_unpermute_with_ep_grad")  # its helpers

PROBS_DTYPES = FLOATS + [None]
PROBS_IDS = FLOAT_IDS + ["no_probs"]


# ---- direct transcriptions of the specs' normative loops (they check the vectorised references) -------------

def _add(a, b):
    return np.float32(np.float32(a) + np.float32(b))


def spec_forward(x, sorted_idx, probs, k, rng_):
    start, end = (0, 0) if rng_ is None else rng_
    xf = x.astype(np.float32)
    n = probs.shape[0] if probs is not None else sorted_idx.size // k
    out = np.zeros((n, x.shape[1]), np.float32)
    for t in range(n):
        acc = np.zeros(x.shape[1], np.float32)
        for j in range(k):
            d = int(sorted_idx[t * k + j])
            if not start <= d < end:
                continue
            p = None if probs is None else np.float32(probs[t, j])
            if p is not None and p == 0:
                continue
            term = xf[d - start] if p is None else (xf[d - start] * p).astype(np.float32)
            acc = term.copy() if j == 0 else (acc + term).astype(np.float32)
        out[t] = acc
    return out.astype(x.dtype)  # finite values: astype rounds to nearest even


def spec_reduce(v):
    """ReduceSumFunc of spec 3.3.2 on one chunk, element by element."""
    v = [np.float32(a) for a in v]
    n = len(v)

    def tree(w):
        while len(w) > 1:
            w = [_add(w[2 * i], w[2 * i + 1]) for i in range(len(w) // 2)]
        return w[0]

    if n < 64:
        return tree(v + [np.float32(0)] * (64 - n))
    thr, off = (8192, 4096) if n >= 4096 else (1024, 512) if n >= 512 else (128, 64)
    total = n
    half = ((total + 1) // 2 + 7) // 8 * 8
    while total > thr:
        for i in range(total - half):
            v[i] = _add(v[i], v[half + i])
        total, half = half, ((half + 1) // 2 + 7) // 8 * 8
    for i in range(total - off):
        v[i] = _add(v[i], v[off + i])
    return tree(v[:off])


def spec_backward(g, sorted_idx, x, probs, rng_, k, chunk):
    total = sorted_idx.size
    s, hi = grad_ref_module.grad_window(total, None if x is None else x.shape[0], rng_)
    n, h = g.shape
    if probs is not None:
        k = probs.shape[1]
    ptg = np.zeros((hi, h), np.float32)
    pg = np.zeros((n, k), np.float32)
    gf = g.astype(np.float32)
    for j in range(n * k):
        t, d = j // k, int(sorted_idx[j])
        valid = s <= d < s + hi
        if probs is None:
            if valid:
                ptg[d - s] = gf[t]
            continue
        p = np.float32(probs[t, j % k])
        if valid:
            ptg[d - s] = (gf[t] * p).astype(np.float32)
        xr = x[d - s].astype(np.float32) if valid else np.zeros(h, np.float32)
        prod = (xr * gf[t]).astype(np.float32)
        acc = np.float32(0)
        for off in range(0, h, chunk):
            acc = _add(acc, spec_reduce(prod[off:off + chunk]))
        pg[t, j % k] = acc
    return ptg.astype(g.dtype), (None if probs is None else pg.astype(probs.dtype))


# ---- data ------------------------------------------------------------------------------------------------------

def probs_with_zeros(rng, shape, dtype):
    p = random_values(rng, shape, dtype)
    flat = p.reshape(-1)
    flat[rng.random(flat.size) < 0.2] = 0
    flat[rng.random(flat.size) < 0.1] = -0.0
    return p


N_TOK, TOPK, HID = 6, 3, 5
L = N_TOK * TOPK

# name -> (range, permutedTokens rows)
FWD_WINDOWS = {
    "full": ((0, L), L),
    "middle": ((4, 11), 7),
    "rows_beyond_window": ((4, 11), 10),
    "first_row": ((0, 1), 1),
    "last_row": ((L - 1, L), 1),
    "negative_start": ((-2, 5), 7),
    "end_beyond_L": ((L - 3, L + 4), 7),
    "start_eq_end": ((5, 5), 2),
    "start_gt_end": ((9, 3), 0),
    "none": (None, 3),
}


@pytest.mark.parametrize("probs_dtype", PROBS_DTYPES, ids=PROBS_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_matches_reference(dtype, probs_dtype):
    rng = np.random.default_rng(FLOATS.index(dtype) * 4 + PROBS_DTYPES.index(probs_dtype))
    for window, (rng_, rows) in FWD_WINDOWS.items():
        for ranks in ("permutation", "arbitrary"):
            x = random_values(rng, (rows, HID), dtype)
            idx = random_ranks(rng, L) if ranks == "permutation" else rng.integers(-4, L + 4, L).astype(np.int32)
            probs = None if probs_dtype is None else probs_with_zeros(rng, (N_TOK, TOPK), probs_dtype)
            mode = f"{window} {ranks}"
            got = forward(x, idx, probs, TOPK, rng_)
            expected = ref_forward(x, idx, probs, TOPK, rng_)
            assert_same(got, expected, mode)
            assert_same(expected, spec_forward(x, idx, probs, TOPK, rng_), mode)
            assert got.shape == (N_TOK, HID) and got.dtype == dtype, mode
            if rng_ is None or rng_[0] >= rng_[1]:
                assert not bits(got).any(), mode  # no slot taken: every element +0.0


def test_forward_official_example_by_hand():
    x = np.array([[2, 2], [1, 1], [3, 3], [2, 2]], np.float32)
    idx = np.array([2, 0, 4, 1, 5, 3], np.int32)
    out = forward(x, idx, np.ones((3, 2), np.float32), 2, [1, 5])
    assert out.tolist() == [[1, 1], [4, 4], [3, 3]]
    probs = np.array([[0.5, 2], [0.25, 4], [8, 0.125]], np.float32)
    # t0: 0.5 * row 1; t1: 0.25 * row 3 + 4 * row 0; t2: slot 0 outside, 0.125 * row 2
    assert forward(x, idx, probs, 2, [1, 5]).tolist() == [[0.5, 0.5], [8.5, 8.5], [0.375, 0.375]]
    # without probs the rows are summed as they are; a NULL range is the default [0, 0]: all zeros
    assert forward(x, idx, None, 2, [1, 5]).tolist() == [[1, 1], [4, 4], [3, 3]]
    assert forward(x, idx, probs, 2, None).tolist() == [[0, 0]] * 3


@pytest.mark.parametrize("probs_dtype", FLOATS, ids=FLOAT_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_mixed_dtypes_round_once(dtype, probs_dtype):
    # float32 products and sums, one rounding to the tokens dtype at the end
    tiny = {np.dtype(np.float16): 2.0 ** -11, BF16: 2.0 ** -8}.get(np.dtype(dtype), 2.0 ** -24)
    x = np.array([[1.0], [tiny], [tiny]], np.float32).astype(dtype)
    probs = np.ones((1, 3), np.float32).astype(probs_dtype)
    out = forward(x, np.array([0, 1, 2], np.int32), probs, 3, [0, 3])
    assert out.dtype == dtype
    in_float32 = np.float32(np.float32(1 + np.float32(tiny)) + np.float32(tiny))  # rounded once per step
    assert float(out[0, 0]) == float(in_float32.astype(dtype))
    if np.dtype(dtype) != np.float32:  # rounding after each step would lose both tiny terms (ties to even)
        assert float(out[0, 0]) == 1 + 2 * tiny
    assert_same(out, ref_forward(x, np.array([0, 1, 2], np.int32), probs, 3, [0, 3]))


def test_forward_zero_probs_skip_the_slot():
    # a prob of +0.0 or -0.0 skips its slot: an Inf or NaN row then does not poison the token; NaN is taken
    x = np.array([[np.inf], [np.nan], [-0.0], [2.0]], np.float32)
    idx = np.array([0, 3, 1, 3, 2, 3], np.int32)
    probs = np.array([[0.0, 1.0], [-0.0, 1.0], [np.nan, 0.0]], np.float32)
    out = forward(x, idx, probs, 2, [0, 4])
    assert out[:2, 0].tolist() == [2.0, 2.0]
    assert np.isnan(out[2, 0])
    assert_same(out, ref_forward(x, idx, probs, 2, [0, 4]))
    # slot 0 taken initialises the sum (a -0.0 term stays -0.0); slot 0 not taken starts from +0.0
    x = np.array([[-0.0], [-0.0]], np.float32)
    out = forward(x, np.array([0, 1, 5, 1], np.int32), None, 2, [0, 2])
    assert bits(out).tolist() == [[0x80000000], [0]]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_special_values(dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        specials = np.array([-0.0, 0.0, np.inf, -np.inf, 1e-40, -1e-42, 3.0e38, 3.0e38, 1.0, np.nan],
                            np.float32).astype(dtype)
        x = specials.reshape(10, 1)
        idx = np.array([0, 1, 4, 5, 6, 7, 2, 3, 9, 8], np.int32)
        probs = np.array([[1, 1], [1, -1], [2, 2], [1, 1], [np.nan, 3]], np.float32).astype(dtype)
        for p in (probs, None):
            assert_same(forward(x, idx, p, 2, [0, 10]), ref_forward(x, idx, p, 2, [0, 10]))


def test_forward_num_topk_is_read_as_32_bits_and_trailing_indices_are_ignored():
    x = np.arange(14, dtype=np.float32).reshape(7, 2)
    idx = np.array([0, 1, 2, 3, 4, 5, 6], np.int32)  # L = 7, K = 2: three tokens, index 6 unread
    out = forward(x, idx, None, 2 + 2**32, [0, 7])
    assert out.tolist() == [[2, 4], [10, 12], [18, 20]]
    assert_same(out, forward(x, idx, None, 2, [0, 7]))
    assert_same(out, ref_forward(x, idx, None, 2 + 2**32, [0, 7]))
    assert_rejected(lambda: forward(x, idx, None, 2**32, [0, 7]), TILING, "numTopk",
                    "aclnnMoeTokenUnpermuteWithEpGetWorkspaceSize")


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_strided_inputs(dtype):
    rng = np.random.default_rng(3)
    k, n, h, rng_ = 4, 9, 6, (5, 30)
    x_c = random_values(rng, (25, h), dtype)
    idx_c = random_ranks(rng, n * k)
    p_c = probs_with_zeros(rng, (n, k), np.float32)
    expected = ref_forward(x_c, idx_c, p_c, k, rng_)
    xb = random_values(rng, (50, 3 * h), dtype)
    xb[::2, ::3] = x_c
    ib = np.zeros(2 * n * k, np.int32)
    ib[::2] = idx_c
    views = [
        (xb[::2, ::3], ib[::2], np.ascontiguousarray(p_c.T).T),
        (x_c[::-1, ::-1].copy()[::-1, ::-1], idx_c[::-1].copy()[::-1], p_c[:, ::-1].copy()[:, ::-1]),
        (np.ascontiguousarray(x_c.T).T, np.concatenate([[7], idx_c]).astype(np.int32)[1:], p_c),
    ]
    for x, idx, p in views:
        assert np.array_equal(bits(x), bits(x_c)) and (idx == idx_c).all() and np.array_equal(p, p_c)
        assert_same(forward(x, idx, p, k, rng_), expected)
        assert_same(forward(x, idx, None, k, rng_), ref_forward(x_c, idx_c, None, k, rng_))


def test_forward_empty():
    # out empty: nothing to do, whatever else is wrong; P = 0 with an empty window gives zeros
    assert forward(np.ones((3, 0), np.float32), np.arange(6, dtype=np.int32), None, 2, [0, 3]).shape == (3, 0)
    assert forward(np.ones((0, 4), np.float32), np.zeros(0, np.int32), None, 2, [0, 3]).shape == (0, 4)
    out = forward(np.ones((0, 4), np.float32), np.arange(6, dtype=np.int32), None, 2, [3, 3])
    assert out.shape == (3, 4) and not bits(out).any()
    assert_same(out, ref_forward(np.ones((0, 4), np.float32), np.arange(6, dtype=np.int32), None, 2, [3, 3]))


# ---- backward --------------------------------------------------------------------------------------------------

# name -> (range, permutedTokens rows or None)
BWD_WINDOWS = {
    "full": ((0, L), L),
    "middle": ((4, 11), 7),
    "start_0_rows_cut_by_permuted_tokens": ((0, 11), 6),
    "start_0_extra_rows": ((0, 5), 9),
    "negative_values_count_from_L": ((-7, -1), 6),
    "clamped_end": ((3, L + 9), 15),
    "first_row": ((0, 1), 1),
    "last_row": ((L - 1, L), 1),
    "empty_window": ((6, 6), 2),
    "none_is_minus_one": (None, 3),
}


@pytest.mark.parametrize("probs_dtype", PROBS_DTYPES, ids=PROBS_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_matches_reference(dtype, probs_dtype):
    rng = np.random.default_rng(40 + FLOATS.index(dtype) * 4 + PROBS_DTYPES.index(probs_dtype))
    for window, (rng_, rows) in BWD_WINDOWS.items():
        for ranks in ("permutation", "arbitrary"):
            g = random_values(rng, (N_TOK, HID), dtype)
            x = random_values(rng, (rows, HID), dtype)
            idx = random_ranks(rng, L) if ranks == "permutation" else rng.integers(-4, L + 4, L).astype(np.int32)
            probs = None if probs_dtype is None else probs_with_zeros(rng, (N_TOK, TOPK), probs_dtype)
            mode = f"{window} {ranks}"
            got = backward(g, idx, x, probs, range=rng_, topk_num=TOPK)
            expected = ref_backward(g, idx, x, probs, range=rng_, topk_num=TOPK)
            assert_all_same(got, expected, mode)
            assert_all_same(expected, spec_backward(g, idx, x, probs, rng_, TOPK, HID), mode)
            assert (got[1] is None) == (probs is None), mode


def test_backward_official_example():
    # the sample: range NULL is the default [-1, -1], an empty window; with [0, 3) every slot is valid
    ones = np.ones((3, 2), BF16)
    ptg, pg = backward(np.ones((1, 2), BF16), np.array([0, 1, 2], np.int32), ones, np.ones((1, 3), BF16))
    assert ptg.shape == (0, 2) and pg.astype(np.float32).tolist() == [[0, 0, 0]]
    ptg, pg = backward(np.ones((1, 2), BF16), np.array([0, 1, 2], np.int32), ones, np.ones((1, 3), BF16),
                       range=[0, 3])
    assert ptg.astype(np.float32).tolist() == [[1, 1]] * 3 and pg.astype(np.float32).tolist() == [[2, 2, 2]]


def test_backward_by_hand():
    g = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    x = np.array([[1, 0], [0, 1], [2, 2], [1, 1]], np.float32)
    idx = np.array([2, 0, 4, 1, 5, 3], np.int32)
    probs = np.array([[2, 3], [4, 5], [6, 7]], np.float32)
    ptg, pg = backward(g, idx, x, probs, range=[1, 5], topk_num=2)
    # window rows r = rank - 1: rank 1 (t1 k1), 2 (t0 k0), 3 (t2 k1), 4 (t1 k0)
    assert ptg.tolist() == [[15, 20], [2, 4], [35, 42], [12, 16]]
    # pg[t, k] = <x[rank - 1], g[t]> in the window, else 0
    assert pg.tolist() == [[2, 0], [7, 3], [0, 22]]
    ptg, none = backward(g, idx, None, None, range=[1, 5], topk_num=2)
    assert ptg.tolist() == [[3, 4], [1, 2], [5, 6], [3, 4]] and none is None


def test_backward_duplicate_ranks_last_slot_wins():
    g = np.array([[1.0], [2.0], [3.0]], np.float32)
    idx = np.array([0, 1, 1, 0, 2, 7], np.int32)
    ptg, _ = backward(g, idx, None, None, range=[0, 3], topk_num=2)
    assert ptg[:, 0].tolist() == [2, 2, 3]
    assert_all_same(backward(g, idx, None, None, range=[0, 3], topk_num=2),
                    ref_backward(g, idx, None, None, range=[0, 3], topk_num=2))


@pytest.mark.parametrize("h", [1, 63, 64, 65, 130, 511, 512, 1030, 4095, 4096, 8200, 16500])
def test_backward_probs_grad_follows_the_device_reduction_order(h):
    # values of mixed magnitude make every summation order give different bits
    rng = np.random.default_rng(h)
    n, k = 2, 2
    g = random_values(rng, (n, h), np.float32)
    x = random_values(rng, (n * k, h), np.float32)
    idx = random_ranks(rng, n * k)
    probs = random_values(rng, (n, k), np.float32)
    got = backward(g, idx, x, probs, range=[0, n * k], topk_num=k)
    assert_all_same(got, ref_backward(g, idx, x, probs, range=[0, n * k], topk_num=k))
    chunk = grad_ref_module.hidden_chunk(h, n, k, 4, 4)
    if h <= 1030:  # the element-by-element transcription is slow beyond
        assert_all_same(got, spec_backward(g, idx, x, probs, [0, n * k], k, chunk))
    prods = (x[idx.astype(np.int64)] * np.repeat(g, k, axis=0)).astype(np.float32)
    assert got[1].reshape(-1).tolist() == [float(grad_ref_module.chunked_reduce_sum(r[None], chunk)[0]) for r in prods]


def test_hidden_chunks_match_the_vendor_tiling_data():
    # vendor tiling UT (UB 261888, 64 cores, N = 10, K = 3): FP32 H 8192 splits at 7168, BF16 does not
    hc = grad_ref_module.hidden_chunk
    assert hc(8192, 10, 3, 4, 4, ub=261888, cores=64) == 7168
    assert hc(8192, 10, 3, 2, 2, ub=261888, cores=64) == 8192
    assert hc(8192, 10, 3, 2, 4, ub=261888, cores=64) == 8192
    # Atlas A2/A3 (UB 196352, 48 cores): no split up to H = 4992 for any dtype pair and K
    for tb, pb in [(2, 2), (2, 4), (4, 2), (4, 4)]:
        for k in (1, 8, 256, 512):
            assert hc(4992, 4096, k, tb, pb) == 4992
    # at the benchmark shape the float32 reductions run in chunks, and the stub agrees bit for bit
    assert hc(7168, 4096, 8, 4, 4) < 7168
    rng = np.random.default_rng(5)
    g = random_values(rng, (48 * 3, 7168), np.float32)
    idx = random_ranks(rng, g.shape[0])
    x = random_values(rng, g.shape, np.float32)
    probs = random_values(rng, (g.shape[0], 1), np.float32)
    assert_all_same(backward(g, idx, x, probs, range=[0, g.shape[0]]),
                    ref_backward(g, idx, x, probs, range=[0, g.shape[0]]))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_special_values(dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        specials = np.array([-0.0, 0.0, np.inf, -np.inf, 1e-40, -1e-42, 3.0e38, 3.0e38, 1.0, np.nan],
                            np.float32).astype(dtype)
        g = specials.reshape(5, 2)
        x = specials[::-1].reshape(5, 2).copy()
        idx = np.array([0, 1, 4, 9, 2, 3, 7, 5, 6, 8], np.int32)
        probs = specials.reshape(5, 2)[:, ::-1].copy()
        for rng_ in ([0, 5], [2, 7], None):
            assert_all_same(backward(g, idx, x, probs, range=rng_), ref_backward(g, idx, x, probs, range=rng_))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_strided_inputs(dtype):
    rng = np.random.default_rng(8)
    n, k, h, rng_ = 7, 3, 9, (4, 17)
    g_c = random_values(rng, (n, h), dtype)
    idx_c = random_ranks(rng, n * k)
    x_c = random_values(rng, (13, h), dtype)
    p_c = random_values(rng, (n, k), np.float16)
    expected = ref_backward(g_c, idx_c, x_c, p_c, range=rng_)
    gb = random_values(rng, (2 * n, 2 * h), dtype)
    gb[::2, ::2] = g_c
    views = [
        (gb[::2, ::2], np.concatenate([idx_c, idx_c])[:n * k], x_c[::-1].copy()[::-1], np.ascontiguousarray(p_c.T).T),
        (np.ascontiguousarray(g_c.T).T, idx_c[::-1].copy()[::-1], np.ascontiguousarray(x_c.T).T, p_c),
    ]
    for g, idx, x, p in views:
        assert_all_same(backward(g, idx, x, p, range=rng_), expected)
        assert_all_same(backward(g, idx, x, None, range=rng_, topk_num=k),
                        ref_backward(g_c, idx_c, x_c, None, range=rng_, topk_num=k))


# ---- mirror layer: both phases, rows the operators do not write ----------------------------------------------

def test_mirror_forward_two_phases_with_mixed_dtypes():
    rng = np.random.default_rng(9)
    x = random_values(rng, (7, 4), BF16)
    idx = random_ranks(rng, 12)
    probs = probs_with_zeros(rng, (4, 3), np.float32)
    with Resources() as r:
        out = r.output((4, 4), BF16, fill=0x5A)
        run_two_phases(aclnn.aclnnMoeTokenUnpermuteWithEpGetWorkspaceSize, aclnn.aclnnMoeTokenUnpermuteWithEp,
                       r.tensor(x).handle, r.tensor(idx).handle, r.tensor(probs).handle, 3, r.int_array([2, 9]),
                       True, r.int_array([16, 16]), out.handle)
        assert_same(out.numpy(), ref_forward(x, idx, probs, 3, [2, 9]))


def test_mirror_backward_leaves_untargeted_rows_and_absent_outputs_alone():
    rng = np.random.default_rng(10)
    g = random_values(rng, (4, 3), np.float32)
    idx = np.array([0, 2, 9, 9, 3, 1, 2, 8], np.int32)  # window [1, 5) targets rows 0, 1, 2 (rank 4 unused)
    x = random_values(rng, (4, 3), np.float32)
    probs = random_values(rng, (4, 2), np.float32)
    exp_ptg, exp_pg = ref_backward(g, idx, x, probs, range=[1, 5])
    with Resources() as r:
        ptg, pg = r.output((6, 3), np.float32, fill=0x7F), r.output((4, 2), np.float32, fill=0x7F)
        run_two_phases(aclnn.aclnnMoeTokenUnpermuteWithEpGradGetWorkspaceSize, aclnn.aclnnMoeTokenUnpermuteWithEpGrad,
                       r.tensor(g).handle, r.tensor(idx).handle, r.tensor(x).handle, r.tensor(probs).handle, False,
                       None, r.int_array([1, 5]), 1, ptg.handle, pg.handle)
        got = ptg.numpy()
        assert_same(got[:3], exp_ptg[:3])
        assert (bits(got[3:]).view(np.uint8) == 0x7F).all()  # row 3 (rank 4) and rows past the window
        assert_same(pg.numpy(), exp_pg)
        # probs NULL: permutedTokens is not read (NULL is fine) and probsGradOut is not written
        ptg, pg = r.output((4, 3), np.float32, fill=0x33), r.output((1, 1), np.float16, fill=0x33)
        run_two_phases(aclnn.aclnnMoeTokenUnpermuteWithEpGradGetWorkspaceSize, aclnn.aclnnMoeTokenUnpermuteWithEpGrad,
                       r.tensor(g).handle, r.tensor(idx).handle, None, None, False, None, r.int_array([1, 5]), 2,
                       ptg.handle, pg.handle)
        assert_same(ptg.numpy()[:3], ref_backward(g, idx, None, None, range=[1, 5], topk_num=2)[0][:3])
        assert (bits(ptg.numpy()[3:]).view(np.uint8) == 0x33).all()
        assert (bits(pg.numpy()).view(np.uint8) == 0x33).all()


# ---- property-based tests -------------------------------------------------------------------------------------

@st.composite
def forward_cases(draw):
    n = draw(st.integers(0, 10))
    k = draw(st.integers(1, 4))
    h = draw(st.integers(1, 6))
    dtype = draw(st.sampled_from(FLOATS))
    probs_dtype = draw(st.sampled_from(PROBS_DTYPES))
    total = n * k
    if draw(st.booleans()):
        start = draw(st.integers(-3, total + 1))
        rng_ = (start, draw(st.integers(start - 3, total + 4)))
    else:
        rng_ = None
    rows = max(rng_[1] - rng_[0], 0) if rng_ is not None else 0
    rows += draw(st.integers(0, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = random_values(rng, (rows, h), dtype)
    idx = random_ranks(rng, total) if draw(st.booleans()) else rng.integers(-3, total + 3, total).astype(np.int32)
    probs = None if probs_dtype is None else probs_with_zeros(rng, (n, k), probs_dtype)
    return x, idx, probs, k, rng_


@settings(max_examples=60, deadline=None)
@given(forward_cases())
def test_property_forward(case):
    x, idx, probs, k, rng_ = case
    expected = ref_forward(x, idx, probs, k, rng_)
    assert_same(forward(x, idx, probs, k, rng_), expected)
    if x.shape[0] and idx.size:
        assert_same(expected, spec_forward(x, idx, probs, k, rng_))


@st.composite
def backward_cases(draw):
    n = draw(st.integers(1, 8))
    k = draw(st.integers(1, 4))
    h = draw(st.sampled_from([1, 3, 7, 64, 70]))
    dtype = draw(st.sampled_from(FLOATS))
    probs_dtype = draw(st.sampled_from(PROBS_DTYPES))
    total = n * k + draw(st.integers(0, 2))
    rng_ = draw(st.one_of(st.none(), st.tuples(st.integers(-total - 2, total + 2), st.integers(-total - 2, total + 2))))
    try:
        _, rows = grad_ref_module.grad_window(total, None, rng_)
    except ValueError:
        rng_ = (0, total)
        rows = total
    rows = rows + draw(st.integers(0, 2))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    g = random_values(rng, (n, h), dtype)
    x = random_values(rng, (max(rows, 1), h), dtype)
    idx = random_ranks(rng, total) if draw(st.booleans()) else rng.integers(-3, total + 3, total).astype(np.int32)
    probs = None if probs_dtype is None else probs_with_zeros(rng, (n, k), probs_dtype)
    return g, idx, x, probs, rng_, k


@settings(max_examples=60, deadline=None)
@given(backward_cases())
def test_property_backward(case):
    g, idx, x, probs, rng_, k = case
    expected = ref_backward(g, idx, x, probs, range=rng_, topk_num=k)
    assert_all_same(backward(g, idx, x, probs, range=rng_, topk_num=k), expected)
    chunk = grad_ref_module.hidden_chunk(g.shape[1], g.shape[0], k, g.dtype.itemsize,
                                         4 if probs is None else probs.dtype.itemsize)
    assert_all_same(expected, spec_backward(g, idx, x, probs, rng_, k, chunk))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(FLOATS), st.sampled_from(PROBS_DTYPES), st.integers(1, 8))
def test_property_results_do_not_depend_on_the_thread_count(seed, dtype, probs_dtype, k):
    # Big enough that every kernel is split between threads.
    rng = np.random.default_rng(seed)
    n, h = 12000 // k + int(rng.integers(0, 50)), 16
    total = n * k
    start = int(rng.integers(0, total))
    rng_ = (start, int(rng.integers(start + 1, total + 1)))
    x = random_values(rng, (rng_[1] - rng_[0], h), dtype)
    idx = random_ranks(rng, total)
    probs = None if probs_dtype is None else probs_with_zeros(rng, (n, k), probs_dtype)
    g = random_values(rng, (n, h), dtype)
    results = []
    for count in (1, 2, 3):
        with threads(count):
            results.append((forward(x, idx, probs, k, rng_), backward(g, idx, x, probs, range=rng_, topk_num=k)))
    for fwd, bwd in results[1:]:
        assert_same(fwd, results[0][0])
        assert_all_same(bwd, results[0][1])
    assert_same(results[0][0], ref_forward(x, idx, probs, k, rng_))
    assert_all_same(results[0][1], ref_backward(g, idx, x, probs, range=rng_, topk_num=k))


# ---- identities: vector-Jacobian products and expert-parallel sharding ---------------------------------------

@pytest.mark.parametrize("with_probs", [True, False], ids=["probs", "no_probs"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_trip(dtype, with_probs):
    rng = np.random.default_rng(21)
    for _ in range(4):
        rt = testing.check_pair("moe_token_unpermute_with_ep", rng, dtype=dtype, with_probs=with_probs)
        assert len(rt.pairs) == (2 if with_probs else 1)
    for window in [(0, 12), (0, 1), (11, 12), (3, 9)]:
        rt = testing.check_pair("moe_token_unpermute_with_ep", rng, dtype=dtype, with_probs=with_probs,
                                window=window, probs_dtype="float32")
        assert str(window) in rt.mode and rt.pairs[0][2].shape == (window[1] - window[0], 5)


def test_round_trip_detects_a_wrong_gradient():
    rt = testing.round_trip_unpermute_ep(np.random.default_rng(1), window=(0, 12))
    y, g, x, gx = rt.pairs[0]
    rt.pairs[0] = (y, g, x, gx + 1)
    assert rt.mismatches()


@pytest.mark.parametrize("with_probs", [True, False], ids=["probs", "no_probs"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_sharded_ranks_sum_to_the_unsharded_result(dtype, with_probs):
    rng = np.random.default_rng(31)
    for ranks, n, k, e in [(1, 6, 2, 4), (2, 8, 2, 6), (3, 10, 3, 7), (4, 16, 4, 16)]:
        sh = testing.check_ep_sharding(rng, dtype=dtype, with_probs=with_probs, ranks=ranks, n=n, k=k, e=e,
                                       probs_dtype="bfloat16" if with_probs and dtype == "float32" else None)
        assert sum(b - a for a, b in sh.windows) == n * k and len(sh.checks) == (5 if with_probs else 4)


def test_sharding_detects_a_wrong_partial():
    sh = testing.ep_sharding(np.random.default_rng(2))
    what, got, want = sh.checks[1]
    sh.checks[1] = (what, got + 1, want)
    assert sh.mismatches()


# ---- validation: the mirror layer ----------------------------------------------------------------------------

# N = 4, K = 2, H = 3, L = 8, range [1, 5) -> 4 permuted rows
FWD_BASE = dict(x=T((4, 3)), idx=T((8,), I32), probs=T((4, 2)), k=2, range=[1, 5], padded=False, restore=None,
                out=T((4, 3)))

FWD_CASES = [
    ("ok", {}, 0),
    ("ok_probs_absent", {"probs": None}, 0),
    ("ok_mixed_dtypes", {"x": T((4, 3), BF), "out": T((4, 3), BF), "probs": T((4, 2), FP16)}, 0),
    ("ok_range_none", {"range": None}, 0),
    ("ok_padded_mode_ignored", {"padded": True}, 0),
    ("ok_restore_shape_ignored", {"restore": [16, 16]}, 0),
    ("ok_rows_beyond_window", {"x": T((9, 3))}, 0),
    ("ok_negative_start", {"range": [-3, 1]}, 0),
    ("ok_start_ge_end_any_rows", {"range": [7, 2], "x": T((0, 3))}, 0),
    ("ok_num_topk_truncated", {"k": 2 + 2**32}, 0),
    ("ok_trailing_indices_without_probs", {"probs": None, "idx": T((9,), I32)}, 0),
    ("ok_strided_inputs", {"x": T((4, 3), strides=(1, 4)), "idx": T((8,), I32, strides=(2,))}, 0),
    # 1: NULL
    ("null_permuted_tokens", {"x": None}, NULLPTR),
    ("null_sorted_indices", {"idx": None}, NULLPTR),
    ("null_out", {"out": None}, NULLPTR),
    # 2: dtype and format
    ("permuted_tokens_int32", {"x": T((4, 3), I32)}, INVALID),
    ("permuted_tokens_double", {"x": T((4, 3), F64)}, INVALID),
    ("sorted_indices_int64", {"idx": T((8,), I64)}, INVALID),
    ("probs_int32", {"probs": T((4, 2), I32)}, INVALID),
    ("out_dtype_differs", {"out": T((4, 3), FP16)}, INVALID),
    ("permuted_tokens_format_nz", {"x": T((4, 3), fmt=NZ)}, INVALID),
    ("out_not_contiguous", {"out": T((4, 3), strides=(1, 4))}, INVALID),
    # 3: empty out
    ("empty_out_skips_later_checks", {"out": T((0, 3)), "k": 0, "x": T((4,))}, 0),
    ("empty_out_still_checks_dtypes", {"out": T((0, 3)), "idx": T((8,), I64)}, INVALID),
    # 4: device tiling
    ("num_topk_0", {"k": 0}, TILING),
    ("num_topk_low_32_bits_0", {"k": 2**32}, TILING),
    ("num_topk_negative", {"k": -2}, TILING),
    ("permuted_tokens_1d", {"x": T((12,))}, TILING),
    ("permuted_tokens_3d", {"x": T((4, 3, 1))}, TILING),
    ("probs_1d", {"probs": T((8,))}, TILING),
    ("probs_cols_not_num_topk", {"probs": T((2, 4))}, TILING),
    ("probs_size_not_L", {"probs": T((5, 2)), "out": T((5, 3))}, TILING),
    ("probs_cols_above_512", {"probs": T((1, 513)), "k": 513, "idx": T((513,), I32), "out": T((1, 3))}, TILING),
    # 5: stub-only
    ("range_size_3", {"range": [1, 5, 6]}, TILING),
    ("range_size_0", {"range": []}, TILING),
    ("num_topk_above_512_without_probs", {"probs": None, "k": 513, "idx": T((513,), I32), "out": T((1, 3))}, TILING),
    ("sorted_indices_2d", {"idx": T((8, 1), I32)}, TILING),
    ("out_rows", {"out": T((5, 3))}, TILING),
    ("out_cols", {"out": T((4, 4))}, TILING),
    ("out_3d", {"out": T((4, 3, 1))}, TILING),
    ("window_larger_than_permuted_tokens", {"x": T((3, 3))}, 0),  # as the vendor: rows past the end never read
    ("window_overflowing_int64", {"range": [-2**63, 2**63 - 1]}, 0),
]


def fwd_args(over):
    a = dict(FWD_BASE, **over)
    return [a["x"], a["idx"], a["probs"], a["k"], a["range"], a["padded"], a["restore"], a["out"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in FWD_CASES], ids=[c[0] for c in FWD_CASES])
def test_mirror_forward_validation(over, status):
    got, message = phase1(aclnn.aclnnMoeTokenUnpermuteWithEpGetWorkspaceSize, fwd_args(over))
    assert got == status, message


# N = 4, K = 2, H = 3, L = 8, range [1, 5) -> 4 window rows
GRAD_BASE = dict(g=T((4, 3)), idx=T((8,), I32), x=T((4, 3)), probs=T((4, 2)), padded=False, restore=None,
                 range=[1, 5], k=1, ptg=T((4, 3)), pg=T((4, 2)))

GRAD_CASES = [
    ("ok", {}, 0),
    ("ok_probs_absent", {"probs": None, "x": None, "k": 2, "pg": T((1,), FP16)}, 0),
    ("ok_mixed_dtypes", {"g": T((4, 3), FP16), "x": T((4, 3), FP16), "ptg": T((4, 3), FP16), "probs": T((4, 2), BF),
                         "pg": T((4, 2), BF)}, 0),
    ("ok_range_none_empty_window", {"range": None, "ptg": T((0, 3))}, 0),
    ("ok_negative_range", {"range": [-7, -3]}, 0),
    ("ok_ptg_more_rows", {"ptg": T((9, 3))}, 0),
    ("ok_padded_and_restore_shape_ignored", {"padded": True, "restore": [1]}, 0),
    ("ok_start_0_rows_cut_by_permuted_tokens", {"range": [0, 8], "x": T((2, 3)), "ptg": T((2, 3))}, 0),
    ("ok_indices_longer_than_N_K", {"idx": T((11,), I32)}, 0),
    # 1: NULL
    ("null_unpermuted_tokens_grad", {"g": None}, NULLPTR),
    ("null_sorted_indices", {"idx": None}, NULLPTR),
    ("null_permuted_tokens_grad_out", {"ptg": None}, NULLPTR),
    ("null_probs_grad_out", {"pg": None}, NULLPTR),
    ("null_probs_grad_out_without_probs", {"pg": None, "probs": None}, NULLPTR),
    ("null_permuted_tokens_with_probs", {"x": None}, NULLPTR),
    # 2: dtype and format
    ("grad_int32", {"g": T((4, 3), I32)}, INVALID),
    ("sorted_indices_int64", {"idx": T((8,), I64)}, INVALID),
    ("permuted_tokens_dtype_differs", {"x": T((4, 3), BF)}, INVALID),
    ("probs_double", {"probs": T((4, 2), F64)}, INVALID),
    ("permuted_tokens_grad_out_dtype_differs", {"ptg": T((4, 3), FP16)}, INVALID),
    ("probs_grad_out_dtype_differs_from_probs", {"pg": T((4, 2), FP16)}, INVALID),
    ("probs_grad_out_int32_without_probs", {"probs": None, "pg": T((4, 2), I32)}, INVALID),
    ("grad_format_nz", {"g": T((4, 3), fmt=NZ)}, INVALID),
    ("permuted_tokens_grad_out_not_contiguous", {"ptg": T((4, 3), strides=(1, 4))}, INVALID),
    # 3: both outputs empty
    ("empty_outputs_skip_later_checks", {"ptg": T((0, 3)), "pg": T((0, 2)), "range": [5]}, 0),
    # 4: device tiling
    ("sorted_indices_2d", {"idx": T((8, 1), I32)}, TILING),
    ("grad_rows_0", {"g": T((0, 3)), "probs": T((0, 2)), "pg": T((0, 2))}, TILING),
    ("hidden_0", {"g": T((4, 0)), "x": T((4, 0)), "ptg": T((4, 0))}, TILING),
    ("topk_num_0_without_probs", {"probs": None, "k": 0}, TILING),
    ("topk_above_512", {"probs": T((1, 513)), "g": T((1, 3)), "idx": T((513,), I32), "pg": T((1, 513))}, TILING),
    ("permuted_tokens_no_rows", {"x": T((0, 3))}, TILING),
    ("range_size_3", {"range": [1, 5, 6]}, TILING),
    ("range_end_below_start", {"range": [5, 2]}, TILING),
    # 5: stub-only
    ("grad_3d", {"g": T((4, 3, 1))}, TILING),
    ("probs_1d", {"probs": T((8,))}, TILING),
    ("probs_rows_not_N", {"probs": T((2, 4)), "pg": T((2, 4))}, TILING),
    ("indices_shorter_than_N_K", {"idx": T((7,), I32)}, TILING),
    ("permuted_tokens_cols", {"x": T((4, 4))}, TILING),
    ("permuted_tokens_fewer_rows_than_window", {"x": T((3, 3)), "range": [1, 5]}, TILING),
    ("permuted_tokens_grad_out_rows", {"ptg": T((3, 3))}, TILING),
    ("permuted_tokens_grad_out_cols", {"ptg": T((4, 4))}, TILING),
    ("probs_grad_out_shape", {"pg": T((4, 3))}, TILING),
]


def grad_args(over):
    a = dict(GRAD_BASE, **over)
    return [a["g"], a["idx"], a["x"], a["probs"], a["padded"], a["restore"], a["range"], a["k"], a["ptg"], a["pg"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_mirror_backward_validation(over, status):
    got, message = phase1(aclnn.aclnnMoeTokenUnpermuteWithEpGradGetWorkspaceSize, grad_args(over))
    assert got == status, message


# ---- validation: the high-level functions ---------------------------------------------------------------------

def _fx(**over):
    a = dict(x=np.ones((4, 3), np.float32), idx=np.arange(8, dtype=np.int32), probs=np.ones((4, 2), np.float32),
             k=2, range=(1, 5))
    a.update(over)
    return lambda: forward(a["x"], a["idx"], a["probs"], a["k"], a["range"])


def _bx(**over):
    a = dict(g=np.ones((4, 3), np.float32), idx=np.arange(8, dtype=np.int32), x=np.ones((4, 3), np.float32),
             probs=np.ones((4, 2), np.float32), range=(1, 5), k=1)
    a.update(over)
    return lambda: backward(a["g"], a["idx"], a["x"], a["probs"], range=a["range"], topk_num=a["k"])


HIGH_LEVEL_CASES = [
    ("fwd_tokens_int32", _fx(x=np.ones((4, 3), np.int32)), INVALID, "permutedTokens"),
    ("fwd_indices_int64", _fx(idx=np.arange(8)), INVALID, "sortedIndices"),
    ("fwd_tokens_1d", _fx(x=np.ones(12, np.float32)), TILING, "permutedTokens"),
    ("fwd_num_topk_0", _fx(k=0), TILING, "numTopk"),
    ("fwd_num_topk_2_pow_32", _fx(k=2**32), TILING, "numTopk"),
    ("fwd_range_size_3", _fx(range=(1, 5, 6)), TILING, "rangeOptional"),
    ("fwd_probs_cols", _fx(probs=np.ones((2, 4), np.float32)), TILING, "probsOptional"),
    ("bwd_grad_int32", _bx(g=np.ones((4, 3), np.int32)), INVALID, "unpermutedTokensGrad"),
    ("bwd_permuted_tokens_dtype", _bx(x=np.ones((4, 3), np.float16)), INVALID, "permutedTokensOptional"),
    ("bwd_permuted_tokens_none_with_probs", _bx(x=None), NULLPTR, "permutedTokensOptional"),
    ("bwd_topk_num_0_without_probs", _bx(probs=None, k=0), TILING, "topkNum"),
    ("bwd_range_size_1", _bx(range=(1,)), TILING, "rangeOptional"),
    ("bwd_range_end_below_start", _bx(range=(5, 2)), TILING, "rangeOptional"),
    ("bwd_permuted_tokens_rows", _bx(x=np.ones((3, 3), np.float32)), TILING, "permutedTokensOptional"),
]


@pytest.mark.parametrize("name,call,status,argument", HIGH_LEVEL_CASES, ids=[c[0] for c in HIGH_LEVEL_CASES])
def test_high_level_validation(name, call, status, argument):
    op = "aclnnMoeTokenUnpermuteWithEpGrad" if name.startswith("bwd_") else "aclnnMoeTokenUnpermuteWithEp"
    assert_rejected(call, status, argument, op + "GetWorkspaceSize")


# ---- validation from C ---------------------------------------------------------------------------------------

C_SOURCE = Path(__file__).resolve().parent / "c" / "validation_unpermute_with_ep.c"

C_EXPECTED = {
    "fwd_ok": 0, "fwd_ok_probs_null": 0, "fwd_ok_mixed_dtypes": 0, "fwd_ok_range_null": 0,
    "fwd_ok_restore_shape_and_padded_ignored": 0, "fwd_ok_topk_low_32_bits": 0, "fwd_ok_window_far_below_ranks": 0,
    "fwd_null_permuted_tokens": NULLPTR, "fwd_null_sorted_indices": NULLPTR, "fwd_null_out": NULLPTR,
    "fwd_null_workspace_size": NULLPTR, "fwd_null_executor": NULLPTR,
    "fwd_tokens_int32": INVALID, "fwd_sorted_int64": INVALID, "fwd_probs_double": INVALID, "fwd_out_dtype": INVALID,
    "fwd_tokens_format_nz": INVALID,
    "fwd_topk_low_32_bits_0": TILING, "fwd_topk_negative": TILING, "fwd_probs_cols": TILING,
    "fwd_range_size_3": TILING, "fwd_ok_window_overflowing": 0, "fwd_ok_window_beyond_rows": 0,
    "fwd_out_shape": TILING, "fwd_empty": 0,
    "bwd_ok": 0, "bwd_ok_probs_null": 0, "bwd_ok_range_null_empty_window": 0, "bwd_ok_range_clamped": 0,
    "bwd_ok_mixed_dtypes": 0,
    "bwd_null_grad": NULLPTR, "bwd_null_permuted_tokens_grad_out": NULLPTR,
    "bwd_null_probs_grad_out_without_probs": NULLPTR, "bwd_null_permuted_tokens_with_probs": NULLPTR,
    "bwd_null_workspace_size": NULLPTR, "bwd_null_executor": NULLPTR,
    "bwd_permuted_tokens_dtype": INVALID, "bwd_probs_grad_dtype": INVALID,
    "bwd_topk_above_512": TILING, "bwd_range_end_below_start": TILING, "bwd_permuted_tokens_grad_rows": TILING,
    "bwd_empty": 0,
    "live_allocations": 0, "live_allocation_bytes": 0, "live_host_allocations": 0, "live_streams": 0,
    "live_tensors": 0, "live_scalars": 0, "live_int_arrays": 0, "live_executors": 0,
}

# The fixture c_results and the tests test_c_forward_validation, test_c_backward_validation and
# test_c_program_releases_everything: the program's statuses against C_EXPECTED (built with -Werror).
(c_results, test_c_forward_validation, test_c_backward_validation,
 test_c_program_releases_everything) = c_validation_tests(C_SOURCE, C_EXPECTED, werror=True)


def test_window_wider_than_the_rows_reads_only_the_rows():
    """The vendor accepts a window wider than permutedTokens (its tiling test: 6143 rows, range [1, 49151]); the
    rows past the end are never read, so those slots are skipped."""
    rng = np.random.default_rng(41)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    idx = np.arange(8, dtype=np.int32)
    for probs in (None, rng.standard_normal((4, 2)).astype(np.float32)):
        got = aclnn_py.moe_token_unpermute_with_ep(x, idx, probs, 2, (1, 5))
        want = reference.moe_token_unpermute_with_ep(x, idx, probs, 2, (1, 5))
        assert np.array_equal(got, want)
        assert (got[2:] == 0).all() and (got[0] != 0).any()  # slots 4.. (rows 3.. of a 3-row tensor): skipped
