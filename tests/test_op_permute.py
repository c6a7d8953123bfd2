"""aclnnMoeTokenPermute and aclnnMoeTokenPermuteGrad (specs ops/moe_token_permute.md and
ops/moe_token_permute_grad.md): bit-exact equality with the references in every mode, the mirror layer's two
phases, random shapes, indices and thread counts, every validation rule with its status code (from Python and
from C), and forward/backward round trips."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import aclnn_py
from aclnn_py import AclnnError, Tensor, acl, aclnn, reference, testing

from helpers_ops import (BF, BF16, F64, FLOATS, FLOAT_IDS, FP16, FP32, I16, I32, I64, I8, INDEX, INDEX_IDS, INVALID,
                         NCHW, NCL, NULLPTR, NZ, T, TILING, U8, Resources, assert_all_same, assert_rejected,
                         assert_same, bits, c_validation_tests, phase1, random_bits, random_ranks, random_values,
                         run_two_phases, status_of, threads, vector_block_rows)

TOKENS = FLOATS + [np.dtype(np.int8)]  # the forward only moves bytes: INT8 tokens are accepted too
TOKEN_IDS = FLOAT_IDS + ["int8"]

forward = aclnn_py.moe_token_permute
backward = aclnn_py.moe_token_permute_grad
ref_forward = reference.moe_token_permute
ref_backward = reference.moe_token_permute_grad

T_LIMIT = 16777215  # N*K must stay below this


# ---- helpers ---------------------------------------------------------------------------------------------

def random_ids(rng, shape, dtype, experts=5, lo=0) -> np.ndarray:
    return (lo + rng.integers(0, experts, size=shape)).astype(dtype)


def permute_rows(total, num_out) -> int:
    """M of spec section 3.4."""
    m = num_out if num_out > 0 else num_out + total
    return min(max(m, 0), total)


# Direct transcriptions of the specs' normative text, to check the vectorised package references as well.
def spec_forward(tokens, indices, num_out):
    """Spec 3.1-3.5, in the kernel's form permuteTokensOut[sortedIndicesOut[i]] = tokens_rows[i // K]."""
    n = tokens.shape[0]
    k = 1 if indices.ndim == 1 else indices.shape[1]
    flat = [int(v) for v in indices.reshape(-1)]
    total = len(flat)
    order = sorted(range(total), key=lambda i: (flat[i], i))  # exact and stable
    sorted_idx = np.zeros(total, np.int32)
    for j, i in enumerate(order):
        sorted_idx[i] = j
    m = permute_rows(total, num_out)
    c = int(np.prod(tokens.shape[1:], dtype=np.int64))
    rows = tokens.reshape(n, c)
    out = np.zeros((m, c), tokens.dtype)
    for i in range(total):
        if sorted_idx[i] < m:
            out[sorted_idx[i]] = rows[i // k]
    return out.reshape((m,) + tokens.shape[1:]), sorted_idx


def spec_bf16_bits(a):
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    out = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a)
    out[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return out.view(BF16)


def spec_backward(grad, sorted_idx, k):
    """Spec section 3: first valid-at-k=0 term copied (else +0.0), later valid terms added in float32."""
    p, h = grad.shape
    idx = [int(v) for v in sorted_idx.reshape(-1)]
    n = len(idx) // k
    g = grad.astype(np.float32)
    acc = np.zeros((n, h), np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(n):
            for j in range(k):
                d = idx[t * k + j]
                if 0 <= d < p:
                    acc[t] = g[d].copy() if j == 0 else acc[t] + g[d]
    if grad.dtype == np.float32:
        return acc
    if grad.dtype == np.float16:
        with np.errstate(over="ignore"):
            return acc.astype(np.float16)
    return spec_bf16_bits(acc)


# ---- forward: reference equality in every mode -----------------------------------------------------------

N_TOK, TOPK = 7, 3  # 2-D indices: T = 21; 1-D indices: T = 7


def num_out_values(total):
    """Every kind of numOutTokens: 0, inside, T, beyond T (clamped), negative, -T, below -T, the extremes."""
    return [0, 1, total // 2, total - 1, total, total + 5, -1, -(total // 3), -total, -total - 4,
            2**63 - 1, -2**63, 2**31, -2**31 - 1]


# Trailing shapes of the tokens, i.e. the rows: rank 2 and rank 3 (rank 1 has its own test below).
ROWS = {"rank2": (5,), "rank3": (2, 3), "rank3_unit": (1, 4)}


# Each test runs every mode (indices 1-D/2-D, tokens rank 2/3, every kind of numOutTokens) for one dtype pair.
@pytest.mark.parametrize("idx_dtype", INDEX, ids=INDEX_IDS)
@pytest.mark.parametrize("dtype", TOKENS, ids=TOKEN_IDS)
def test_forward_matches_reference(dtype, idx_dtype):
    rng = np.random.default_rng(TOKENS.index(dtype) * 2 + INDEX.index(idx_dtype))
    for two_d in (True, False):
        shape = (N_TOK, TOPK) if two_d else (N_TOK,)
        total = N_TOK * (TOPK if two_d else 1)
        for rows_name, rows in ROWS.items():
            tokens = random_bits(rng, (N_TOK,) + rows, dtype)
            indices = random_ids(rng, shape, idx_dtype, experts=4)  # many ties: stability matters
            for num_out in num_out_values(total):
                mode = f"2d={two_d} {rows_name} num_out={num_out}"
                got = forward(tokens, indices, num_out)
                expected = ref_forward(tokens, indices, num_out)
                assert_all_same(got, expected, mode)
                assert_all_same(expected, spec_forward(tokens, indices, num_out), mode)
                assert got[0].shape == (permute_rows(total, num_out),) + rows, mode


@pytest.mark.parametrize("dtype", TOKENS, ids=TOKEN_IDS)
def test_forward_rank1_tokens_match_reference(dtype):
    # Spec 4: tokens.dim() < 2 is not checked; C = 1, each token is one element.
    rng = np.random.default_rng(40)
    tokens = random_bits(rng, (9,), dtype)
    for indices in [random_ids(rng, (9, 2), np.int32, 3), random_ids(rng, (9,), np.int64, 4)]:
        for num_out in [0, 4, -5, 100]:
            expected = ref_forward(tokens, indices, num_out)
            assert_all_same(expected, spec_forward(tokens, indices, num_out))
            assert_all_same(forward(tokens, indices, num_out), expected, f"num_out={num_out}")


def _official_example(dtype=np.float32, idx_dtype=np.int32):
    """The official example's routing (spec section 6) with genuine data: rows 1, 2, 3."""
    tokens = (np.array([[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]], np.float32)).astype(dtype)
    indices = np.array([[1, 2], [0, 1], [0, 2]], idx_dtype)
    return tokens, indices


@pytest.mark.parametrize("idx_dtype", INDEX, ids=INDEX_IDS)
@pytest.mark.parametrize("dtype", TOKENS, ids=TOKEN_IDS)
def test_forward_official_example_by_hand(dtype, idx_dtype):
    tokens, indices = _official_example(dtype, idx_dtype)
    out, sorted_idx = forward(tokens, indices)
    assert sorted_idx.dtype == np.int32 and out.dtype == dtype
    assert sorted_idx.tolist() == [2, 4, 0, 3, 1, 5]
    # permuted rows = token rows [1, 2, 0, 1, 0, 2] (1-based values below)
    assert out.astype(np.float32)[:, 0].tolist() == [2, 3, 1, 2, 1, 3]


def test_forward_is_not_the_documented_formula():
    # Spec 7: permuteTokens[j] = tokens[order[j] // K], not permuteTokens[order[i]] = tokens[i // K]
    # (the official example cannot tell them apart: its permutation is an involution).
    tokens = np.array([10, 20, 30], np.float32).reshape(3, 1)
    indices = np.array([2, 0, 1], np.int32)  # order = [1, 2, 0]
    out, sorted_idx = forward(tokens, indices)
    assert sorted_idx.tolist() == [2, 0, 1]
    assert out[:, 0].tolist() == [20, 30, 10]  # the doc formula would give [30, 10, 20]


def test_forward_num_out_tokens_is_a_slice_of_the_full_permutation():
    rng = np.random.default_rng(8)
    tokens = random_bits(rng, (6, 3), np.float32)
    indices = random_ids(rng, (6, 2), np.int64, experts=3)
    full_out, full_sorted = forward(tokens, indices, 0)
    for num_out in range(-15, 16):
        out, sorted_idx = forward(tokens, indices, num_out)
        assert_same(out, full_out if num_out == 0 else full_out[:num_out], f"num_out={num_out}")
        assert_same(sorted_idx, full_sorted)  # all T entries, also when rows are dropped


@pytest.mark.parametrize("idx_dtype", INDEX, ids=INDEX_IDS)
def test_forward_sorts_large_and_negative_indices_exactly(idx_dtype):
    info = np.iinfo(idx_dtype)
    # 16777217 and 16777216 are one float32 value: the device's float keys would tie them; the stub is exact
    ids = [16777217, 16777216, -5, 0, int(info.max), int(info.min), -1, 16777216, 2**24 + 3, 2**24 + 2]
    if idx_dtype == np.int64:  # beyond the int32 range, and values a double could not separate
        ids += [2**40, -2**40, 2**53 + 1, 2**53, -2**31 - 1, 2**31]
    ids = np.array(ids, idx_dtype)
    tokens = np.arange(ids.size, dtype=np.float32).reshape(-1, 1)
    out, sorted_idx = forward(tokens, ids)
    order = sorted(range(ids.size), key=lambda i: (int(ids[i]), i))
    assert out[:, 0].tolist() == order
    assert sorted_idx.tolist() == [order.index(i) for i in range(ids.size)]
    if idx_dtype == np.int32:
        assert order == [5, 2, 6, 3, 1, 7, 0, 9, 8, 4]
    assert_all_same((out, sorted_idx), ref_forward(tokens, ids))


def test_forward_equal_indices_keep_slot_order():
    tokens = np.arange(4, dtype=np.float32).reshape(4, 1)
    out, sorted_idx = forward(tokens, np.full((4, 3), 7, np.int32))
    assert sorted_idx.tolist() == list(range(12))
    assert out[:, 0].tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    out, sorted_idx = forward(tokens, np.array([[1, 0], [1, 0], [0, 1], [0, 1]], np.int64))
    assert sorted_idx.tolist() == [4, 0, 5, 1, 2, 6, 3, 7]
    assert out[:, 0].tolist() == [0, 1, 2, 3, 0, 1, 2, 3]


def test_forward_preserves_every_bit_pattern():
    # NaN payloads (signalling ones included), infinities, -0.0 and subnormals come out unchanged.
    for dt, pattern in [(np.float32, [0x7F800001, 0xFFC12345, 0x80000000, 0x00000001, 0x7F800000]),
                        (np.float16, [0x7C01, 0xFE3F, 0x8000, 0x0001, 0xFC00]),
                        (BF16, [0x7F81, 0xFFC1, 0x8000, 0x0001, 0xFF80])]:
        u = {2: np.uint16, 4: np.uint32}[np.dtype(dt).itemsize]
        tokens = np.array(pattern, u).view(dt).reshape(5, 1)
        out, _ = forward(tokens, np.array([4, 3, 2, 1, 0], np.int32))
        assert bits(out[:, 0]).tolist() == pattern[::-1]


@pytest.mark.parametrize("dtype", TOKENS, ids=TOKEN_IDS)
def test_forward_strided_inputs(dtype):
    for layout in ["step_slices", "negative_strides", "transposed_copies", "offset_views", "rank3_transposed"]:
        _check_forward_layout(dtype, layout)


def _check_forward_layout(dtype, layout):
    rng = np.random.default_rng(7)
    n, k, h = 9, 4, 6
    tokens_c = random_bits(rng, (n, h), dtype)
    idx_c = random_ids(rng, (n, k), np.int64, experts=6)
    if layout == "step_slices":
        tb = random_bits(rng, (2 * n, 3 * h), dtype)
        tb[::2, ::3] = tokens_c
        ib = np.zeros((n, 2 * k), np.int64)
        ib[:, ::2] = idx_c
        tokens, idx = tb[::2, ::3], ib[:, ::2]
    elif layout == "negative_strides":
        tokens = tokens_c[::-1, ::-1].copy()[::-1, ::-1]
        idx = idx_c[::-1].copy()[::-1]
    elif layout == "transposed_copies":
        tokens = np.ascontiguousarray(tokens_c.T).T
        idx = np.ascontiguousarray(idx_c.T).T
    elif layout == "offset_views":
        tokens = np.concatenate([random_bits(rng, (2, h), dtype), tokens_c])[2:]
        idx = np.concatenate([np.zeros((1, k), np.int64), idx_c])[1:]
    else:  # rank-3 tokens whose trailing dimensions are a transposed view: rows are read in logical order
        tokens_c = random_bits(rng, (n, 3, 2), dtype)
        tokens = np.ascontiguousarray(tokens_c.transpose(0, 2, 1)).transpose(0, 2, 1)
        idx = idx_c[:, ::-1].copy()[:, ::-1]
    assert np.array_equal(bits(tokens), bits(tokens_c)) and (idx == idx_c).all()
    if layout != "offset_views":
        assert not (tokens.flags.c_contiguous and idx.flags.c_contiguous)
    for num_out in [0, 11, -7]:
        got = forward(tokens, idx, num_out)
        assert_all_same(got, ref_forward(tokens_c, idx_c, num_out), layout)


def test_forward_strided_1d_indices_and_int32_views():
    rng = np.random.default_rng(3)
    tokens = random_bits(rng, (10, 3), np.float16)
    ib = random_ids(rng, (30,), np.int32, experts=3)
    idx = ib[::-3]
    got = forward(tokens, idx, -2)
    assert_all_same(got, ref_forward(tokens, idx.copy(), -2))
    ib2 = random_ids(rng, (10, 6), np.int32, experts=4)
    idx2 = ib2[:, 1::2]
    assert_all_same(forward(tokens, idx2, 0), ref_forward(tokens, idx2.copy(), 0))


def test_forward_row_copy_paths():
    """The row copy reads each token row once and writes all its output rows, except when the output keeps
    few rows of many tokens (it gathers then); an output above the streaming threshold (32 MiB) uses
    non-temporal stores, here with rows of an odd byte length so most rows start unaligned."""
    rng = np.random.default_rng(11)
    tokens = random_bits(rng, (1500, 3), np.float32)
    idx = random_ids(rng, (1500, 2), np.int32, experts=7)
    for num_out in [10, 1, 3000, -2990]:
        assert_all_same(forward(tokens, idx, num_out), ref_forward(tokens, idx, num_out), num_out)
    tokens = random_bits(rng, (2048, 1031), np.float16)
    idx = random_ids(rng, (2048, 8), np.int32, experts=16)
    for num_out in [0, -3]:
        got = forward(tokens, idx, num_out)
        assert got[0].nbytes > 32 << 20
        assert_all_same(got, ref_forward(tokens, idx, num_out), num_out)


def test_forward_empty_cases():
    # Spec 5: N = 0 or K = 0 -> both outputs empty; C = 0 or M = 0 with T > 0 -> only sortedIndicesOut.
    cases = [((0, 3), (0, 2), 0), ((0, 3), (0,), 0), ((4, 3), (4, 0), 0), ((0,), (0, 2), 0),
             ((4, 0), (4, 2), 0), ((4, 0, 2), (4,), 3), ((4, 3), (4, 2), -8), ((4, 3), (4, 2), -100)]
    for tshape, ishape, num_out in cases:
        tokens = np.ones(tshape, np.float32)
        indices = np.arange(int(np.prod(ishape)), dtype=np.int32)[::-1].reshape(ishape)
        got = forward(tokens, indices, num_out)
        expected = ref_forward(tokens, indices, num_out)
        assert_all_same(got, expected, (tshape, ishape, num_out))
        assert got[1].tolist() == list(range(indices.size))[::-1], (tshape, ishape)


# ---- backward: reference equality in every mode ----------------------------------------------------------

B_TOK, B_H = 6, 5


# name -> (topK, gradient rows P as a function of L, kind of sortedIndices)
GRAD_MODES = {
    "k1_full": (1, lambda total: total, "perm"),
    "k3_full": (3, lambda total: total, "perm"),
    "k8_full": (8, lambda total: total, "perm"),
    "k3_dropped_rows": (3, lambda total: total // 2, "perm"),     # P < N*K: the forward used numOutTokens
    "k3_one_row": (3, lambda total: 1, "perm"),
    "k3_no_rows": (3, lambda total: 0, "perm"),                     # P = 0: every index skipped
    "k3_more_rows_than_L": (3, lambda total: total + 4, "perm"),
    "k3_out_of_range_and_negative": (3, lambda total: total, "wild"),
    "k1_out_of_range_and_negative": (1, lambda total: total - 2, "wild"),
    "k4_duplicates": (4, lambda total: total, "dup"),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_matches_reference(dtype):
    rng = np.random.default_rng(FLOATS.index(dtype))
    for mode, (k, rows, kind) in GRAD_MODES.items():
        total = B_TOK * k
        p = rows(total)
        g = random_values(rng, (p, B_H), dtype)
        if kind == "perm":
            idx = random_ranks(rng, total)
        elif kind == "wild":  # negatives, >= P and the int32 extremes are skipped
            idx = rng.integers(-4, total + 4, size=total).astype(np.int32)
            idx[:3] = [-2**31, 2**31 - 1, p]
        else:
            idx = rng.integers(0, 3, size=total).astype(np.int32)
        got = backward(g, idx, k)
        expected = ref_backward(g, idx, k)
        assert_same(got, expected, mode)
        assert_same(expected, spec_backward(g, idx, k), mode)
        assert got.shape == (B_TOK, B_H)
        if p == 0:
            assert not bits(got).any(), mode


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_official_example_by_hand(dtype):
    # Spec 6 with properly typed data: rows [1, 2] and [3, 4], indices [0, 1], K = 2 -> [4, 6]
    g = np.array([[1, 2], [3, 4]], np.float32).astype(dtype)
    out = backward(g, np.array([0, 1], np.int32), 2)
    assert out.dtype == dtype and out.astype(np.float32).tolist() == [[4, 6]]
    # and the sample's reinterpreted data: row 0 = [0, 1], index 1065353216 skipped -> [0, 1]
    g = np.array([[0x0000, 0x3F80], [0x0000, 0x4000]], np.uint16).view(BF16)
    out = backward(g, np.array([0, 1065353216], np.int32), 2)
    assert bits(out).tolist() == [[0x0000, 0x3F80]]


@pytest.mark.parametrize("dtype,tiny", [(np.float16, 2.0 ** -11), (BF16, 2.0 ** -8)], ids=["float16", "bfloat16"])
def test_backward_rounds_once_after_a_float32_sum(dtype, tiny):
    # 1 + tiny + tiny: rounding after each step would give 1 (ties to even); float32 keeps 1 + 2 tiny
    g = np.array([[1.0], [tiny], [tiny]], np.float32).astype(dtype)
    idx = np.array([0, 1, 2], np.int32)
    out = backward(g, idx, 3)
    assert float(out[0, 0]) == 1 + 2 * tiny
    assert_same(out, ref_backward(g, idx, 3))


def test_backward_adds_in_slot_order():
    # (1e8 + 1) - 1e8 = 0 in float32 but 1e8 + (1 - 1e8) would not be: the k order is visible.
    g = np.array([[1e8], [1.0], [-1e8]], np.float32)
    assert backward(g, np.array([0, 1, 2], np.int32), 3)[0, 0] == 0.0
    assert backward(g, np.array([0, 2, 1], np.int32), 3)[0, 0] == 1.0


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_signed_zeros_and_special_values(dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        specials = np.array([-0.0, 0.0, np.inf, -np.inf, 1e-40, -1e-42, 3.0e38, 3.0e38, 1.0, np.nan, 65504.0,
                             65504.0], np.float32).astype(dtype)
    g = specials.reshape(-1, 1)
    p = g.shape[0]
    # K = 2 per token:
    idx = np.array([0, 0,     # -0 + -0 = -0: the first term is copied, not added to +0
                    p, 0,     # first skipped -> +0, then + -0 = +0
                    0, p,     # -0 alone stays -0
                    4, 5,     # subnormals
                    6, 7,     # float32 overflow -> inf
                    2, 3,     # inf - inf = NaN
                    9, 8,     # NaN
                    10, 11,   # 131008: above the float16 range
                    -1, -7],  # both skipped -> +0
                   np.int32)
    out = backward(g, idx, 2)
    with np.errstate(over="ignore", invalid="ignore"):  # the reference meets the same overflows and NaNs
        expected = ref_backward(g, idx, 2)
    assert_same(out, expected)
    assert_same(expected, spec_backward(g, idx, 2))
    sign = {4: 0x80000000, 2: 0x8000}[np.dtype(dtype).itemsize]
    assert bits(out[[0, 2], 0]).tolist() == [sign, sign]
    assert bits(out[[1, 8], 0]).tolist() == [0, 0]
    o = out[:, 0].astype(np.float32)
    assert o[4] == np.inf and np.isnan(o[5]) and np.isnan(o[6])
    # 65504 + 65504 in float32, then narrowed (bfloat16 already holds 65504 as 65536)
    assert o[7] == (np.inf if dtype == np.float16 else 2 * float(specials[10]))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_vector_blocks(dtype):
    rng = np.random.default_rng(23)
    for k, n in [(3, 50), (80, 3)]:  # K = 80: longer term lists than fit on the kernel's stack
        total = n * k
        g = vector_block_rows(rng, total - 4, dtype)
        idx = random_ranks(rng, total)  # four indices >= P: skipped slots
        with np.errstate(over="ignore", invalid="ignore"):
            assert_same(backward(g, idx, k), ref_backward(g, idx, k), k)
            # the slots beyond activeNum add +0.0 instead
            assert_same(aclnn_py.moe_init_routing_v2_grad(g, idx, k, 0, total - 4),
                        reference.moe_init_routing_v2_grad(g, idx, k, 0, total - 4), k)
        assert_same(backward(np.ascontiguousarray(g.T).T, idx, k), backward(g, idx, k), k)  # strided rows


def test_backward_streamed_output():
    """An output above the streaming threshold (32 MiB): non-temporal stores, rows of an odd byte length."""
    rng = np.random.default_rng(29)
    n, k, h = 2051, 2, 8195
    g = vector_block_rows(rng, n * k, np.float32, h)
    idx = random_ranks(rng, n * k)
    got = backward(g, idx, k)
    assert got.nbytes > 32 << 20
    with np.errstate(invalid="ignore"):
        assert_same(got, ref_backward(g, idx, k))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_out_of_range_and_negative_indices_are_skipped(dtype):
    g = np.arange(1, 13, dtype=np.float32).reshape(4, 3).astype(dtype)
    idx = np.array([-1, 2, 5, 3, 4, 1, -2**31, 2**31 - 1, 0, 0], np.int32)
    out = backward(g, idx, 2)
    assert out.astype(np.float32).tolist() == [[7, 8, 9], [10, 11, 12], [4, 5, 6], [0, 0, 0], [2, 4, 6]]
    assert_same(out, ref_backward(g, idx, 2))


@pytest.mark.parametrize("num_out", [1, 5, 11, -1, -6, -17], ids=lambda v: f"num_out={v}")
def test_backward_of_a_forward_that_dropped_rows(num_out):
    # The ST golden: the autograd of the permute with P = M gradient rows; dropped slots contribute 0.
    rng = np.random.default_rng(num_out + 50)
    n, k, h = 6, 3, 4
    tokens = random_values(rng, (n, h), np.float32)
    indices = random_ids(rng, (n, k), np.int32, experts=4)
    out, sorted_idx = forward(tokens, indices, num_out)
    m = out.shape[0]
    assert m == permute_rows(n * k, num_out) and m < n * k
    g = rng.integers(-8, 9, size=(m, h)).astype(np.float32)
    golden = np.zeros((n, h), np.float64)
    for slot, row in enumerate(sorted_idx):
        if row < m:
            golden[slot // k] += g[row]
    got = backward(g, sorted_idx, k)
    assert got.tolist() == golden.tolist()
    assert_same(got, ref_backward(g, sorted_idx, k))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_strided_inputs(dtype):
    rng = np.random.default_rng(11)
    k, total, p = 4, 32, 27
    g_c = random_values(rng, (p, 7), dtype)
    idx_c = random_ranks(rng, total)
    expected = ref_backward(g_c, idx_c, k)
    gb = random_values(rng, (2 * p, 14), dtype)
    gb[::2, ::2] = g_c
    ib = np.zeros(3 * total, np.int32)
    ib[::3] = idx_c
    views = [
        (gb[::2, ::2], ib[::3]),
        (g_c[::-1, ::-1].copy()[::-1, ::-1], idx_c[::-1].copy()[::-1]),
        (np.ascontiguousarray(g_c.T).T, np.concatenate([[5], idx_c]).astype(np.int32)[1:]),
    ]
    for g, idx in views:
        assert np.array_equal(bits(g), bits(g_c)) and (idx == idx_c).all()
        assert_same(backward(g, idx, k), expected)


def test_backward_empty_cases():
    # Spec 5: N = 0 or H = 0 -> out empty, success; P = 0 with a non-empty out -> zeros.
    for p, length, k, h in [(0, 0, 2, 3), (4, 0, 1, 3), (4, 8, 2, 0), (0, 8, 2, 0), (0, 6, 3, 2), (0, 4, 1, 5)]:
        g = np.ones((p, h), np.float32)
        idx = np.arange(length, dtype=np.int32)
        got = backward(g, idx, k)
        assert got.shape == (length // k, h)
        assert not bits(got).any()
        assert_same(got, ref_backward(g, idx, k))


def test_backward_padded_mode_is_rejected():
    g, idx = np.ones((4, 3), np.float32), np.arange(8, dtype=np.int32)
    with pytest.raises(AclnnError) as ei:
        backward(g, idx, 2, True)
    assert ei.value.status == INVALID and "paddedMode" in str(ei.value)
    # checked before the empty-output shortcut (spec 4 step 3 before step 4)
    with pytest.raises(AclnnError) as ei:
        backward(np.ones((0, 3), np.float32), np.arange(0, dtype=np.int32), 2, True)
    assert ei.value.status == INVALID


def test_forward_padded_mode_is_rejected():
    tokens, indices = _official_example()
    with pytest.raises(AclnnError) as ei:
        forward(tokens, indices, 0, True)
    assert ei.value.status == TILING and "paddedMode" in str(ei.value)
    # All outputs empty: the operator runs no tiling check (spec 4 step 3; see the mirror test below), but the
    # high-level function applies the table's rule first, so the error does not depend on the shapes.
    with pytest.raises(AclnnError) as ei:
        forward(np.ones((0, 3), np.float32), np.ones((0, 2), np.int32), 0, True)
    assert ei.value.status == TILING and "padded_mode" in str(ei.value)


# ---- mirror layer: both phases by hand ---------------------------------------------------------------------

def raw_bytes(t: Tensor) -> np.ndarray:
    raw = np.empty(t.buffer.nbytes, np.uint8)
    if raw.size:
        t.buffer.download(raw)
    return raw


def fwd_mirror(r, tokens, indices, num_out, out_shape=None, fill=None):
    total = indices.size
    m = permute_rows(total, num_out)
    t_out = r.output(out_shape or (m,) + (tokens.shape[1:] or (1,)), tokens.dtype, fill)
    t_sorted = r.output((total,), np.int32, fill)
    run_two_phases(aclnn.aclnnMoeTokenPermuteGetWorkspaceSize, aclnn.aclnnMoeTokenPermute,
                   r.tensor(tokens).handle, r.tensor(indices).handle, num_out, False, t_out.handle, t_sorted.handle)
    return t_out.numpy(), t_sorted.numpy()


@pytest.mark.parametrize("dtype", TOKENS, ids=TOKEN_IDS)
def test_mirror_forward_two_phases(dtype):
    rng = np.random.default_rng(1)
    tokens = random_bits(rng, (8, 5), dtype)
    for idx_dtype in INDEX:
        indices = random_ids(rng, (8, 3), idx_dtype)
        for num_out in [0, 9, -4, 100]:
            with Resources() as r:
                got = fwd_mirror(r, tokens, indices, num_out, fill=0x5A)
            assert_all_same(got, ref_forward(tokens, indices, num_out), f"{idx_dtype} {num_out}")


def test_mirror_forward_rank1_and_rank3_tokens_with_any_split_of_the_row():
    # Only prod(permuteTokensOut.shape[1:]) is checked; the rows are written row-major whatever the split.
    rng = np.random.default_rng(2)
    tokens1 = random_bits(rng, (6,), np.float16)
    idx1 = random_ids(rng, (6, 2), np.int32, 3)
    exp_out, exp_sorted = ref_forward(tokens1, idx1, -3)
    for out_shape in [(9, 1), (9, 1, 1)]:
        with Resources() as r:
            out, sorted_idx = fwd_mirror(r, tokens1, idx1, -3, out_shape=out_shape)
        assert_same(out.reshape(-1), exp_out.reshape(-1))
        assert_same(sorted_idx, exp_sorted)
    tokens3 = random_bits(rng, (5, 2, 3), BF16)
    idx3 = random_ids(rng, (5,), np.int64, 3)
    exp_out, exp_sorted = ref_forward(tokens3, idx3, 0)
    for out_shape in [(5, 2, 3), (5, 6), (5, 3, 2), (5, 1, 6, 1)]:
        with Resources() as r:
            out, sorted_idx = fwd_mirror(r, tokens3, idx3, 0, out_shape=out_shape)
        assert_same(out.reshape(5, 6), exp_out.reshape(5, 6), out_shape)
        assert_same(sorted_idx, exp_sorted)


def test_mirror_forward_strided_views_and_huge_ids():
    rng = np.random.default_rng(2)
    tb = random_bits(rng, (12, 10), BF16)
    ib = random_ids(rng, (6, 8), np.int64, experts=4, lo=2**33 - 2)
    tokens, indices = tb[::-2, 1::2], ib[:, ::-2]
    with Resources() as r:
        got = fwd_mirror(r, tokens, indices, 17)
    assert_all_same(got, ref_forward(tokens.copy(), indices.copy(), 17))


def test_mirror_forward_writes_only_the_output_extent():
    # Spec 6 (c): buffers larger than the tensors; bytes beyond the view and before its offset stay as they were.
    tokens, indices = _official_example(BF16)
    with Resources() as r:
        t_out = r.output((6, 4), BF16, fill=0x11, offset=3, extra=24)
        t_sorted = r.output((6,), np.int32, fill=0x22, extra=6)
        run_two_phases(aclnn.aclnnMoeTokenPermuteGetWorkspaceSize, aclnn.aclnnMoeTokenPermute,
                       r.tensor(tokens).handle, r.tensor(indices).handle, 0, False, t_out.handle, t_sorted.handle)
        out_raw, sorted_raw = raw_bytes(t_out), raw_bytes(t_sorted)
        out, sorted_idx = t_out.numpy(), t_sorted.numpy()
    assert_all_same((out, sorted_idx), ref_forward(tokens, indices))
    assert (out_raw[:6] == 0x11).all() and (out_raw[6 + 48:] == 0x11).all()
    assert (sorted_raw[24:] == 0x22).all()


def test_mirror_forward_writes_sorted_indices_when_no_row_is_kept():
    # Spec 5: C = 0 or M = 0 with T > 0 runs normally and writes only sortedIndicesOut.
    tokens, indices = _official_example()
    for tok, num_out, out_shape in [(tokens[:, :0], 0, (6, 0)), (tokens, -6, (0, 4)), (tokens, -2**63, (0, 4))]:
        with Resources() as r:
            got = fwd_mirror(r, tok, indices, num_out, out_shape=out_shape, fill=0x44)
        assert_all_same(got, ref_forward(tok, indices, num_out))
        assert got[1].tolist() == [2, 4, 0, 3, 1, 5]


def test_mirror_forward_all_outputs_empty_gives_an_empty_executor():
    with Resources() as r:
        t_out, t_sorted = r.output((0, 3), np.float32), r.output((0,), np.int32)
        # paddedMode and mismatching shapes are not looked at (spec 4 step 3)
        ws, ex = aclnn.aclnnMoeTokenPermuteGetWorkspaceSize(
            r.tensor(np.ones((0, 3), np.float32)).handle, r.tensor(np.ones((0, 2, 1), np.int32)).handle, -5, True,
            t_out.handle, t_sorted.handle)
        assert ws == 0
        assert aclnn.aclnnMoeTokenPermute(None, 0, ex, None) is None


def test_mirror_forward_phase1_writes_nothing_and_phase2_consumes_the_executor():
    tokens, indices = _official_example()
    with Resources() as r:
        t_out = r.output((6, 4), np.float32, fill=0x7F)
        t_sorted = r.output((6,), np.int32, fill=0x7F)
        before = acl.aclStubLiveExecutors()
        ws, ex = aclnn.aclnnMoeTokenPermuteGetWorkspaceSize(
            r.tensor(tokens).handle, r.tensor(indices).handle, 0, False, t_out.handle, t_sorted.handle)
        assert acl.aclStubLiveExecutors() == before + 1
        assert (raw_bytes(t_out) == 0x7F).all() and (raw_bytes(t_sorted) == 0x7F).all()
        aclnn.aclnnMoeTokenPermute(None, ws, ex, None)
        acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results exist after this
        assert acl.aclStubLiveExecutors() == before
        assert status_of(aclnn.aclnnMoeTokenPermute, None, ws, ex, None) == INVALID
        assert_all_same((t_out.numpy(), t_sorted.numpy()), ref_forward(tokens, indices))


def bwd_mirror(r, g, sorted_idx, k, fill=None):
    t_out = r.output((sorted_idx.size // k, g.shape[1]), g.dtype, fill)
    run_two_phases(aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize, aclnn.aclnnMoeTokenPermuteGrad,
                   r.tensor(g).handle, r.tensor(sorted_idx).handle, k, False, t_out.handle)
    return t_out.numpy()


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_mirror_backward_two_phases(dtype):
    rng = np.random.default_rng(6)
    for p, k in [(12, 3), (7, 3), (0, 2), (12, 1), (15, 4)]:
        g = random_values(rng, (p, 4), dtype)
        idx = random_ranks(rng, 12)
        with Resources() as r:
            got = bwd_mirror(r, g[::-1].copy()[::-1], idx[::-1].copy()[::-1], k, fill=0x33)
        assert_same(got, ref_backward(g, idx, k), (p, k))


def test_mirror_backward_strided_inputs_and_output_offset():
    rng = np.random.default_rng(9)
    g = random_values(rng, (10, 6), BF16)
    idx = random_ranks(rng, 16)
    with Resources() as r:
        t_out = r.output((8, 3), BF16, fill=0x55, offset=5, extra=4)
        run_two_phases(aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize, aclnn.aclnnMoeTokenPermuteGrad,
                       r.tensor(g[:, ::2]).handle, r.tensor(idx[::-1]).handle, 2, False, t_out.handle)
        raw = raw_bytes(t_out)
        out = t_out.numpy()
    assert_same(out, ref_backward(g[:, ::2].copy(), idx[::-1].copy(), 2))
    assert (raw[:10] == 0x55).all() and (raw[10 + 48:] == 0x55).all()


def test_mirror_backward_empty_out_gives_an_empty_executor():
    with Resources() as r:
        for g, idx, k, out_shape in [(np.ones((4, 3), np.float32), np.zeros(0, np.int32), 2, (0, 3)),
                                     (np.ones((4, 0), np.float32), np.arange(8, dtype=np.int32), 2, (4, 0)),
                                     (np.ones((4,), np.float32), np.zeros(3, np.int32), 0, (0, 3))]:
            t_out = r.output(out_shape, np.float32)
            ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(r.tensor(g).handle, r.tensor(idx).handle, k,
                                                                    False, t_out.handle)
            assert ws == 0
            assert aclnn.aclnnMoeTokenPermuteGrad(None, 0, ex, None) is None


def test_mirror_backward_phase1_writes_nothing():
    g, idx = np.ones((4, 3), np.float32), np.arange(4, dtype=np.int32)
    with Resources() as r:
        t_out = r.output((2, 3), np.float32, fill=0x7F)
        ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(r.tensor(g).handle, r.tensor(idx).handle, 2, False,
                                                                t_out.handle)
        assert (raw_bytes(t_out) == 0x7F).all()
        aclnn.aclnnMoeTokenPermuteGrad(None, ws, ex, None)
        acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results exist after this
        assert t_out.numpy().tolist() == [[2, 2, 2], [2, 2, 2]]


# ---- property-based tests ------------------------------------------------------------------------------------

@st.composite
def forward_cases(draw, max_tokens=20):
    n = draw(st.integers(0, max_tokens))
    two_d = draw(st.booleans())
    k = draw(st.integers(0 if draw(st.integers(0, 9)) == 0 else 1, 6)) if two_d else 1
    rows = draw(st.sampled_from([(1,), (0,), (4,), (2, 3), (3, 0), (1, 1)]))
    dtype = draw(st.sampled_from(TOKENS))
    idx_dtype = draw(st.sampled_from(INDEX))
    experts = draw(st.integers(1, 9))
    lo = draw(st.sampled_from([0, 0, -4, 2**24 - 3, 2**31 - 9] + ([-2**40, 2**53 - 2] if idx_dtype == np.int64
                                                                     else [-2**31])))
    total = n * k
    num_out = draw(st.one_of(st.integers(-total - 3, total + 3), st.integers(-2**63, 2**63 - 1)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    tokens = random_bits(rng, (n,) + rows, dtype)
    indices = random_ids(rng, (n, k) if two_d else (n,), idx_dtype, experts, lo)
    return tokens, indices, num_out


@settings(max_examples=60, deadline=None)
@given(forward_cases())
def test_property_forward(case):
    tokens, indices, num_out = case
    expected = ref_forward(tokens, indices, num_out)
    assert_all_same(forward(tokens, indices, num_out), expected)
    assert_all_same(expected, spec_forward(tokens, indices, num_out))


@st.composite
def backward_cases(draw, max_tokens=16):
    n = draw(st.integers(0, max_tokens))
    k = draw(st.integers(1, 6))
    h = draw(st.integers(0, 5))
    dtype = draw(st.sampled_from(FLOATS))
    total = n * k
    p = draw(st.sampled_from([total, total, 0, 1, max(total - 3, 0), total + 2]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    g = random_values(rng, (p, h), dtype)
    if draw(st.booleans()):
        idx = random_ranks(rng, total)
    else:  # arbitrary: duplicates, negatives, beyond P
        idx = rng.integers(-3, total + 3, size=total).astype(np.int32)
    return g, idx, k


@settings(max_examples=60, deadline=None)
@given(backward_cases())
def test_property_backward(case):
    g, idx, k = case
    expected = ref_backward(g, idx, k)
    assert_same(backward(g, idx, k), expected)
    assert_same(expected, spec_backward(g, idx, k))


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(TOKENS), st.sampled_from(INDEX), st.integers(1, 8))
def test_property_results_do_not_depend_on_the_thread_count(seed, dtype, idx_dtype, k):
    # T > 3 * 65536: the key load, the rank scatter, the row copies and the gather-sum split between threads.
    rng = np.random.default_rng(seed)
    n = 200000 // k + int(rng.integers(0, 50))
    total = n * k
    tokens = random_bits(rng, (n, 8), dtype)
    indices = random_ids(rng, (n, k), idx_dtype, experts=int(rng.integers(1, 300)), lo=int(rng.integers(-9, 9)))
    num_out = int(rng.integers(-total // 2, total))
    grad_dtype = dtype if dtype != np.int8 else np.dtype(np.float16)
    results = []
    for count in (1, 2, 3):
        with threads(count):
            out, sorted_idx = forward(tokens, indices, num_out)
            g = random_values(np.random.default_rng(seed), (out.shape[0], 8), grad_dtype)
            results.append((out, sorted_idx, backward(g, sorted_idx, k)))
    for res in results[1:]:
        assert_all_same(res, results[0])
    out, sorted_idx, gx = results[0]
    assert_all_same((out, sorted_idx), ref_forward(tokens, indices, num_out))
    g = random_values(np.random.default_rng(seed), (out.shape[0], 8), grad_dtype)
    assert_same(gx, ref_backward(g, sorted_idx, k))


# ---- round trips -----------------------------------------------------------------------------------------------

RT_NUM_OUT = [0, 1, 10, 20, 21, 30, -1, -7, -20, -21, -100]  # default pair: N = 7, K = 3, T = 21


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_trip(dtype):
    rng = np.random.default_rng(21)
    for num_out in RT_NUM_OUT:
        rt = testing.check_pair("moe_token_permute", rng, dtype=dtype, num_out_tokens=num_out)
        assert f"num_out_tokens={num_out}" in rt.mode
        (y, g, x, gx), = rt.pairs
        assert y.shape == (permute_rows(21, num_out), 5) and g.shape == y.shape and gx.shape == x.shape == (7, 5)
    # every row kept: the gradient of each token sums K cotangent rows (non-zero for random integer data)
    rt = testing.check_pair("moe_token_permute", rng, dtype=dtype, n=4, k=1, h=3, e=2)
    assert rt.pairs[0][0].shape == (4, 3)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_property_round_trip(data):
    n = data.draw(st.integers(1, 12))
    k = data.draw(st.integers(1, 4))
    e = data.draw(st.integers(k, 7))  # distinct experts per token
    h = data.draw(st.integers(1, 4))
    num_out = data.draw(st.integers(-n * k - 2, n * k + 2))
    testing.check_pair("moe_token_permute", np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))),
                       dtype=data.draw(st.sampled_from(["float32", "float16", "bfloat16"])), n=n, k=k, h=h, e=e,
                       num_out_tokens=num_out)


# ---- validation through the mirror layer ---------------------------------------------------------------------

# Valid call: N = 4, K = 2, H = 3, T = 8, numOutTokens = 0 -> M = 8.
FWD_BASE = dict(tokens=T((4, 3)), indices=T((4, 2), I32), num_out=0, padded=False, out=T((8, 3)),
                sorted=T((8,), I32))
FWD_EMPTY = dict(tokens=T((0, 3)), indices=T((0, 2), I32), out=T((0, 3)), sorted=T((0,), I32))
# T = 2^24 - 1 or more without backing memory: zero strides (phase 1 never reads the data)
BIG = 16777215


def _big(rows, k=None, idx_dtype=I32):
    idx = T((rows,), idx_dtype, strides=(0,)) if k is None else T((rows, k), idx_dtype, strides=(0, 0))
    return dict(tokens=T((rows, 3), strides=(0, 0)), indices=idx)


FWD_CASES = [
    # successes around the rules
    ("ok", {}, 0),
    ("ok_indices_int64", {"indices": T((4, 2), I64)}, 0),
    ("ok_float16", {"tokens": T((4, 3), FP16), "out": T((8, 3), FP16)}, 0),
    ("ok_bfloat16", {"tokens": T((4, 3), BF), "out": T((8, 3), BF)}, 0),
    ("ok_int8", {"tokens": T((4, 3), I8), "out": T((8, 3), I8)}, 0),
    ("ok_indices_1d", {"indices": T((4,), I32), "out": T((4, 3)), "sorted": T((4,), I32)}, 0),
    ("ok_tokens_1d", {"tokens": T((4,)), "out": T((8, 1))}, 0),
    ("ok_tokens_3d", {"tokens": T((4, 3, 2)), "out": T((8, 3, 2))}, 0),
    ("ok_tokens_3d_out_2d", {"tokens": T((4, 3, 2)), "out": T((8, 6))}, 0),
    ("ok_out_3d_same_row_size", {"out": T((8, 1, 3))}, 0),
    ("ok_num_out_positive", {"num_out": 5, "out": T((5, 3))}, 0),
    ("ok_num_out_negative", {"num_out": -3, "out": T((5, 3))}, 0),
    ("ok_num_out_beyond_T_clamped", {"num_out": 100, "out": T((8, 3))}, 0),
    ("ok_num_out_below_minus_T_clamped", {"num_out": -100, "out": T((0, 3))}, 0),
    ("ok_num_out_int64_min", {"num_out": -2**63, "out": T((0, 3))}, 0),
    ("ok_num_out_int64_max", {"num_out": 2**63 - 1}, 0),
    ("ok_topk_512", {"tokens": T((1, 3)), "indices": T((1, 512), I32), "out": T((512, 3)),
                     "sorted": T((512,), I32)}, 0),
    ("ok_T_below_limit", dict(_big(BIG - 1), out=T((1, 3)), num_out=1, sorted=T((BIG - 1,), I32, alloc=64)), 0),
    ("ok_strided_inputs", {"tokens": T((4, 3), strides=(1, 4)), "indices": T((4, 2), I32, strides=(1, 4))}, 0),
    ("ok_format_nchw", {"tokens": T((4, 3), fmt=NCHW), "out": T((8, 3), fmt=NCL)}, 0),
    ("ok_hidden_0_sorted_still_written", {"tokens": T((4, 0)), "out": T((8, 0))}, 0),
    ("ok_no_rows_kept_sorted_still_written", {"num_out": -8, "out": T((0, 3))}, 0),
    # 1: NULL
    ("null_tokens", {"tokens": None}, NULLPTR),
    ("null_indices", {"indices": None}, NULLPTR),
    ("null_permute_tokens_out", {"out": None}, NULLPTR),
    ("null_sorted_indices_out", {"sorted": None}, NULLPTR),
    ("null_before_dtype", {"tokens": None, "indices": T((4, 2), FP32)}, NULLPTR),
    # 2: dtype and format
    ("tokens_int32", {"tokens": T((4, 3), I32), "out": T((8, 3), I32)}, INVALID),
    ("tokens_double", {"tokens": T((4, 3), F64), "out": T((8, 3), F64)}, INVALID),
    ("tokens_uint8", {"tokens": T((4, 3), U8), "out": T((8, 3), U8)}, INVALID),
    ("indices_float32", {"indices": T((4, 2), FP32)}, INVALID),
    ("indices_int16", {"indices": T((4, 2), I16)}, INVALID),
    ("indices_int8", {"indices": T((4, 2), I8)}, INVALID),
    ("permute_tokens_out_dtype_differs", {"out": T((8, 3), FP16)}, INVALID),
    ("permute_tokens_out_int8_for_float_tokens", {"out": T((8, 3), I8)}, INVALID),
    ("sorted_indices_out_int64", {"sorted": T((8,), I64)}, INVALID),
    ("sorted_indices_out_float32", {"sorted": T((8,), FP32)}, INVALID),
    ("tokens_format_nz", {"tokens": T((4, 3), fmt=NZ)}, INVALID),
    ("indices_format_nz", {"indices": T((4, 2), I32, fmt=NZ)}, INVALID),
    ("permute_tokens_out_format_nz", {"out": T((8, 3), fmt=NZ)}, INVALID),
    ("sorted_indices_out_format_nz", {"sorted": T((8,), I32, fmt=NZ)}, INVALID),
    ("permute_tokens_out_not_contiguous", {"out": T((8, 3), strides=(1, 8))}, INVALID),
    ("sorted_indices_out_not_contiguous", {"sorted": T((8,), I32, strides=(2,))}, INVALID),
    ("dtype_before_tiling", {"padded": True, "tokens": T((4, 3), I32)}, INVALID),
    # 3: all outputs empty
    ("empty_N_0", FWD_EMPTY, 0),
    ("empty_K_0", {"indices": T((4, 0), I32), "out": T((0, 3)), "sorted": T((0,), I32)}, 0),
    ("empty_outputs_skip_later_checks", dict(FWD_EMPTY, padded=True, indices=T((0, 2, 1), I32), num_out=-7,
                                             tokens=T((5, 3)), out=T((0,))), 0),
    ("empty_outputs_still_check_dtypes", dict(FWD_EMPTY, indices=T((0, 2), FP32)), INVALID),
    ("empty_outputs_still_check_null", dict(FWD_EMPTY, tokens=None), NULLPTR),
    # 4.1 - 4.10: tiling
    ("padded_mode", {"padded": True}, TILING),
    ("indices_3d", {"indices": T((4, 2, 1), I32)}, TILING),
    ("indices_0d", {"indices": T((), I32)}, TILING),
    ("tokens_rows_differ_from_indices", {"tokens": T((5, 3))}, TILING),
    ("tokens_0d", {"tokens": T(())}, TILING),
    ("topk_513", {"indices": T((4, 513), I32)}, TILING),
    ("T_at_limit", dict(_big(BIG), num_out=1, out=T((1, 3)), sorted=T((BIG,), I32, alloc=64)), TILING),
    ("T_above_limit_2d", dict(_big(32768, 512, I64), num_out=1, out=T((1, 3)), sorted=T((BIG + 1,), I32, alloc=64)),
     TILING),
    ("permute_tokens_out_1d", {"out": T((24,))}, TILING),
    ("permute_tokens_out_1d_for_1d_tokens", {"tokens": T((4,)), "out": T((8,))}, TILING),
    ("sorted_indices_out_2d", {"sorted": T((8, 1), I32)}, TILING),
    ("sorted_indices_out_0d", {"sorted": T((), I32)}, TILING),
    ("sorted_indices_out_length", {"sorted": T((9,), I32)}, TILING),
    ("permute_tokens_out_row_size", {"out": T((8, 4))}, TILING),
    ("permute_tokens_out_row_size_3d", {"tokens": T((4, 3, 2)), "out": T((8, 3, 3))}, TILING),
    ("permute_tokens_out_rows", {"out": T((7, 3))}, TILING),
    ("permute_tokens_out_rows_num_out", {"num_out": 5}, TILING),
    ("permute_tokens_out_rows_num_out_negative", {"num_out": -1}, TILING),
    ("permute_tokens_out_rows_not_clamped", {"num_out": 9, "out": T((9, 3))}, TILING),
    ("negative_dimension_tokens", {"tokens": T((4, -3))}, TILING),
    ("negative_dimension_indices", {"tokens": T((-1, 3)), "indices": T((-1, 2), I32)}, TILING),
    ("negative_dimension_permute_tokens_out", {"out": T((-8, 3))}, TILING),
]


def fwd_args(over):
    a = dict(FWD_BASE, **over)
    return [a["tokens"], a["indices"], a["num_out"], a["padded"], a["out"], a["sorted"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in FWD_CASES], ids=[c[0] for c in FWD_CASES])
def test_mirror_forward_validation(over, status):
    got, _ = phase1(aclnn.aclnnMoeTokenPermuteGetWorkspaceSize, fwd_args(over))
    assert got == status


# Two consecutive rules of spec 4 step 4 broken at once: the earlier one is reported.
FWD_ORDER = [
    ("padded_before_indices_rank", {"padded": True, "indices": T((4, 2, 1), I32)}, "paddedMode"),
    ("indices_rank_before_rows", {"indices": T((5, 2, 1), I32)}, "indices must be 1-D or 2-D"),
    ("rows_before_topk", {"tokens": T((5, 3)), "indices": T((4, 513), I32)}, "tokens.shape[0]"),
    ("topk_before_T", dict(_big(32768, 513), num_out=1, out=T((1, 3))), "topK"),
    ("T_before_out_rank", dict(_big(BIG), num_out=1, out=T((3,))), "16777215"),
    ("out_rank_before_sorted_rank", {"out": T((24,)), "sorted": T((8, 1), I32)},
     "permuteTokensOut must be at least 2-D"),
    ("sorted_rank_before_length", {"sorted": T((9, 1), I32)}, "sortedIndicesOut must be 1-D"),
    ("sorted_length_before_row_size", {"sorted": T((9,), I32), "out": T((8, 4))}, "sortedIndicesOut.shape[0]"),
    ("row_size_before_rows", {"out": T((7, 4))}, "prod(permuteTokensOut.shape[1:])"),
    ("rows_alone", {"out": T((7, 3))}, "permuteTokensOut.shape[0]"),
]


@pytest.mark.parametrize("over,fragment", [c[1:] for c in FWD_ORDER], ids=[c[0] for c in FWD_ORDER])
def test_mirror_forward_tiling_checks_run_in_spec_order(over, fragment):
    status, message = phase1(aclnn.aclnnMoeTokenPermuteGetWorkspaceSize, fwd_args(over))
    assert status == TILING
    assert fragment in message


# Valid call: P = 4 rows of H = 3 (the forward kept 4 of 8 rows), L = 8, K = 2 -> out (4, 3).
GRAD_BASE = dict(g=T((4, 3)), idx=T((8,), I32), k=2, padded=False, out=T((4, 3)))

GRAD_CASES = [
    ("ok", {}, 0),
    ("ok_float16", {"g": T((4, 3), FP16), "out": T((4, 3), FP16)}, 0),
    ("ok_bfloat16", {"g": T((4, 3), BF), "out": T((4, 3), BF)}, 0),
    ("ok_P_equals_L", {"g": T((8, 3))}, 0),
    ("ok_P_above_L", {"g": T((11, 3))}, 0),
    ("ok_P_0", {"g": T((0, 3))}, 0),
    ("ok_topk_1", {"k": 1, "out": T((8, 3))}, 0),
    ("ok_topk_512", {"k": 512, "idx": T((1024,), I32), "out": T((2, 3))}, 0),
    ("ok_strided_inputs", {"g": T((4, 3), strides=(1, 4)), "idx": T((8,), I32, strides=(2,))}, 0),
    ("ok_format_ncl", {"g": T((4, 3), fmt=NCL), "out": T((4, 3), fmt=NCHW)}, 0),
    # 1: NULL
    ("null_permuted_output_grad", {"g": None}, NULLPTR),
    ("null_sorted_indices", {"idx": None}, NULLPTR),
    ("null_out", {"out": None}, NULLPTR),
    ("null_before_dtype", {"g": None, "idx": T((8,), I64)}, NULLPTR),
    # 2: dtype and format
    ("grad_int32", {"g": T((4, 3), I32), "out": T((4, 3), I32)}, INVALID),
    ("grad_int8", {"g": T((4, 3), I8), "out": T((4, 3), I8)}, INVALID),
    ("grad_double", {"g": T((4, 3), F64), "out": T((4, 3), F64)}, INVALID),
    ("sorted_indices_int64", {"idx": T((8,), I64)}, INVALID),
    ("sorted_indices_float32", {"idx": T((8,), FP32)}, INVALID),
    ("out_dtype_differs", {"out": T((4, 3), BF)}, INVALID),
    ("grad_format_nz", {"g": T((4, 3), fmt=NZ)}, INVALID),
    ("sorted_indices_format_nz", {"idx": T((8,), I32, fmt=NZ)}, INVALID),
    ("out_format_nz", {"out": T((4, 3), fmt=NZ)}, INVALID),
    ("out_not_contiguous", {"out": T((4, 3), strides=(1, 4))}, INVALID),
    # 3: paddedMode (before the empty-output shortcut and the tiling checks)
    ("padded_mode", {"padded": True}, INVALID),
    ("padded_mode_with_empty_out", {"padded": True, "out": T((0, 3)), "idx": T((0,), I32)}, INVALID),
    ("padded_mode_before_tiling", {"padded": True, "k": 0}, INVALID),
    # 4: out empty
    ("empty_L_0", {"idx": T((0,), I32), "out": T((0, 3))}, 0),
    ("empty_hidden_0", {"g": T((4, 0)), "out": T((4, 0))}, 0),
    ("empty_out_skips_later_checks", {"k": 0, "g": T((5,)), "idx": T((3, 2), I32), "out": T((0, 7))}, 0),
    ("empty_out_still_checks_dtypes", {"idx": T((0,), I64), "out": T((0, 3))}, INVALID),
    # 5.1 - 5.8: tiling
    ("num_topk_0", {"k": 0}, TILING),
    ("num_topk_negative", {"k": -1}, TILING),
    ("num_topk_513", {"k": 513, "idx": T((1026,), I32), "out": T((2, 3))}, TILING),
    ("num_topk_2_pow_32_plus_2", {"k": 2**32 + 2}, TILING),  # a 64-bit attribute, not truncated
    ("num_topk_int64_min", {"k": -2**63}, TILING),
    ("grad_1d", {"g": T((12,))}, TILING),
    ("grad_3d", {"g": T((4, 3, 1))}, TILING),
    ("sorted_indices_2d", {"idx": T((8, 1), I32)}, TILING),
    ("sorted_indices_0d", {"idx": T((), I32)}, TILING),
    ("out_1d", {"out": T((12,))}, TILING),
    ("out_3d", {"out": T((4, 3, 1))}, TILING),
    ("out_cols_differ_from_H", {"out": T((4, 4))}, TILING),
    ("L_not_multiple_of_topk", {"idx": T((9,), I32)}, TILING),
    ("out_rows_differ_from_L_over_K", {"out": T((5, 3))}, TILING),
    ("L_0_with_non_empty_out", {"idx": T((0,), I32)}, TILING),
    ("negative_dimension_grad", {"g": T((-1, 3))}, TILING),
]


def grad_args(over):
    a = dict(GRAD_BASE, **over)
    return [a["g"], a["idx"], a["k"], a["padded"], a["out"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_mirror_backward_validation(over, status):
    got, _ = phase1(aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize, grad_args(over))
    assert got == status


GRAD_ORDER = [
    ("topk_before_grad_rank", {"k": 0, "g": T((12,))}, "numTopk"),
    ("grad_rank_before_sorted_rank", {"g": T((12,)), "idx": T((8, 1), I32)}, "permutedOutputGrad must be 2-D"),
    ("sorted_rank_before_out_rank", {"idx": T((8, 1), I32), "out": T((12,))}, "sortedIndices must be 1-D"),
    ("out_rank_before_out_cols", {"out": T((4, 4, 1))}, "out must be 2-D"),
    ("out_cols_before_multiple", {"out": T((4, 4)), "idx": T((9,), I32)}, "out.shape[1]"),
    ("multiple_before_out_rows", {"idx": T((9,), I32), "out": T((5, 3))}, "not a multiple of numTopk"),
    ("out_rows_before_negative_dims", {"out": T((5, 3)), "g": T((-1, 3))}, "out.shape[0]"),
    ("negative_dims_alone", {"g": T((-1, 3))}, "negative dimension"),
]


@pytest.mark.parametrize("over,fragment", [c[1:] for c in GRAD_ORDER], ids=[c[0] for c in GRAD_ORDER])
def test_mirror_backward_tiling_checks_run_in_spec_order(over, fragment):
    status, message = phase1(aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize, grad_args(over))
    assert status == TILING
    assert fragment in message


# ---- validation through the high-level functions -------------------------------------------------------------

def _fx(**over):
    """High-level forward arguments: a valid call with some replaced."""
    a = dict(tokens=np.ones((4, 3), np.float32), indices=np.zeros((4, 2), np.int32), num_out_tokens=0,
             padded_mode=False)
    a.update(over)
    return lambda: forward(a["tokens"], a["indices"], a["num_out_tokens"], a["padded_mode"])


def _bx(**over):
    a = dict(g=np.ones((4, 3), np.float32), idx=np.arange(8, dtype=np.int32), k=2, padded_mode=False)
    a.update(over)
    return lambda: backward(a["g"], a["idx"], a["k"], a["padded_mode"])


HIGH_LEVEL_CASES = [
    ("fwd_tokens_int32", _fx(tokens=np.ones((4, 3), np.int32)), INVALID, "tokens"),
    ("fwd_tokens_float64", _fx(tokens=np.ones((4, 3))), INVALID, "tokens"),
    ("fwd_tokens_uint8", _fx(tokens=np.ones((4, 3), np.uint8)), INVALID, "tokens"),
    ("fwd_indices_float32", _fx(indices=np.zeros((4, 2), np.float32)), INVALID, "indices"),
    ("fwd_indices_uint8", _fx(indices=np.zeros((4, 2), np.uint8)), INVALID, "indices"),
    ("fwd_indices_int16", _fx(indices=np.zeros((4, 2), np.int16)), INVALID, "indices"),
    ("fwd_padded_mode", _fx(padded_mode=True), TILING, "paddedMode"),
    ("fwd_indices_3d", _fx(indices=np.zeros((4, 2, 1), np.int32)), TILING, "indices"),
    ("fwd_indices_0d", _fx(indices=np.zeros((), np.int32)), TILING, "indices"),
    ("fwd_tokens_0d", _fx(tokens=np.ones((), np.float32), indices=np.zeros(1, np.int32)), TILING, "tokens"),
    ("fwd_tokens_rows_differ", _fx(indices=np.zeros((5, 2), np.int32)), TILING, "indices.shape[0]"),
    ("fwd_topk_513", _fx(indices=np.zeros((4, 513), np.int32)), TILING, "topK"),
    ("fwd_T_at_limit", _fx(tokens=np.broadcast_to(np.float32(1), (T_LIMIT, 3)),
                           indices=np.broadcast_to(np.int32(0), (T_LIMIT,)), num_out_tokens=1), TILING, "16777215"),
    ("bwd_grad_int32", _bx(g=np.ones((4, 3), np.int32)), INVALID, "permutedOutputGrad"),
    ("bwd_grad_int8", _bx(g=np.ones((4, 3), np.int8)), INVALID, "permutedOutputGrad"),
    ("bwd_grad_float64", _bx(g=np.ones((4, 3))), INVALID, "permutedOutputGrad"),
    ("bwd_sorted_indices_int64", _bx(idx=np.arange(8)), INVALID, "sortedIndices"),
    ("bwd_sorted_indices_float32", _bx(idx=np.arange(8, dtype=np.float32)), INVALID, "sortedIndices"),
    ("bwd_padded_mode", _bx(padded_mode=True), INVALID, "paddedMode"),
    ("bwd_num_topk_513", _bx(k=513, idx=np.arange(1026, dtype=np.int32)), TILING, "numTopk"),
    ("bwd_grad_3d", _bx(g=np.ones((4, 3, 1), np.float32)), TILING, "permutedOutputGrad"),
    ("bwd_sorted_indices_2d", _bx(idx=np.arange(8, dtype=np.int32).reshape(8, 1)), TILING, "sortedIndices"),
    ("bwd_L_not_multiple_of_topk", _bx(idx=np.arange(9, dtype=np.int32)), TILING, "numTopk"),
]


@pytest.mark.parametrize("name,call,status,argument", HIGH_LEVEL_CASES, ids=[c[0] for c in HIGH_LEVEL_CASES])
def test_high_level_validation(name, call, status, argument):
    op = "aclnnMoeTokenPermuteGrad" if name.startswith("bwd_") else "aclnnMoeTokenPermute"
    assert_rejected(call, status, argument, op + "GetWorkspaceSize")


# ---- validation from C ---------------------------------------------------------------------------------------

C_SOURCE = Path(__file__).resolve().parent / "c" / "validation_permute.c"

C_EXPECTED = {
    "fwd_ok": 0, "fwd_ok_indices_int64": 0, "fwd_ok_fp16": 0, "fwd_ok_bf16": 0, "fwd_ok_int8": 0,
    "fwd_ok_indices_1d": 0, "fwd_ok_tokens_1d": 0, "fwd_ok_tokens_3d": 0, "fwd_ok_out_3d": 0,
    "fwd_ok_num_out_positive": 0, "fwd_ok_num_out_negative": 0, "fwd_ok_num_out_clamped": 0,
    "fwd_ok_num_out_int64_min": 0, "fwd_ok_topk_512": 0, "fwd_ok_format_nchw": 0, "fwd_ok_strided_inputs": 0,
    "fwd_null_tokens": NULLPTR, "fwd_null_indices": NULLPTR, "fwd_null_permute_tokens_out": NULLPTR,
    "fwd_null_sorted_indices_out": NULLPTR, "fwd_null_workspace_size": NULLPTR, "fwd_null_executor": NULLPTR,
    "fwd_tokens_int32": INVALID, "fwd_tokens_double": INVALID, "fwd_indices_float": INVALID,
    "fwd_indices_int16": INVALID, "fwd_out_dtype": INVALID, "fwd_sorted_int64": INVALID,
    "fwd_tokens_format_nz": INVALID, "fwd_sorted_format_nz": INVALID, "fwd_out_not_contiguous": INVALID,
    "fwd_sorted_not_contiguous": INVALID,
    "fwd_padded_mode": TILING, "fwd_indices_3d": TILING, "fwd_tokens_rows": TILING, "fwd_topk_513": TILING,
    "fwd_T_at_limit": TILING, "fwd_out_1d": TILING, "fwd_sorted_2d": TILING, "fwd_sorted_length": TILING,
    "fwd_out_row_size": TILING, "fwd_out_rows": TILING, "fwd_num_out_rows": TILING, "fwd_tokens_negative_dim": TILING,
    "fwd_empty": 0, "fwd_empty_k_0": 0, "fwd_empty_skips_checks": 0, "fwd_hidden_0": 0, "fwd_no_rows_kept": 0,
    "bwd_ok": 0, "bwd_ok_fp16": 0, "bwd_ok_bf16": 0, "bwd_ok_topk_1": 0, "bwd_ok_topk_512": 0, "bwd_ok_P_0": 0,
    "bwd_ok_P_eq_L": 0, "bwd_ok_strided_inputs": 0,
    "bwd_null_grad": NULLPTR, "bwd_null_sorted_indices": NULLPTR, "bwd_null_out": NULLPTR,
    "bwd_null_workspace_size": NULLPTR, "bwd_null_executor": NULLPTR,
    "bwd_grad_int32": INVALID, "bwd_grad_int8": INVALID, "bwd_sorted_int64": INVALID, "bwd_out_dtype": INVALID,
    "bwd_sorted_format_nz": INVALID, "bwd_out_not_contiguous": INVALID, "bwd_padded_mode": INVALID,
    "bwd_padded_mode_empty_out": INVALID,
    "bwd_topk_0": TILING, "bwd_topk_negative": TILING, "bwd_topk_513": TILING, "bwd_grad_1d": TILING,
    "bwd_sorted_2d": TILING, "bwd_out_1d": TILING, "bwd_out_cols": TILING, "bwd_L_not_multiple": TILING,
    "bwd_out_rows": TILING, "bwd_L_0_non_empty_out": TILING, "bwd_grad_negative_dim": TILING,
    "bwd_empty": 0, "bwd_hidden_0": 0, "bwd_empty_skips_checks": 0,
    "live_allocations": 0, "live_allocation_bytes": 0, "live_host_allocations": 0, "live_streams": 0,
    "live_tensors": 0, "live_scalars": 0, "live_int_arrays": 0, "live_executors": 0,
}


# The fixture c_results and the tests test_c_forward_validation, test_c_backward_validation and
# test_c_program_releases_everything: the program's statuses against C_EXPECTED.
(c_results, test_c_forward_validation, test_c_backward_validation,
 test_c_program_releases_everything) = c_validation_tests(C_SOURCE, C_EXPECTED, werror=True)
