"""aclnnMoeTokenUnpermute and aclnnMoeTokenUnpermuteGrad (specs ops/moe_token_unpermute.md and
ops/moe_token_unpermute_grad.md): bit-exact equality with the references (and with direct transcriptions of the
specs' normative loops) for all nine tokens/probs dtype pairs, the skip rules, the probs-gradient reduction with
its hidden chunks, strided views, empty tensors, thread counts, every validation rule with its status code, the
mirror layer's two phases, and the round trips with aclnnMoeTokenPermute."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import aclnn_py
from aclnn_py import acl, aclnn, reference, testing
from aclnn_py.reference.moe_token_unpermute_grad import hidden_chunk

from helpers_ops import (BF, BF16, FLOATS, FLOAT_IDS, FP16, I32, I64, I8, INVALID, NCL, NULLPTR, NZ, T, TILING,
                         Resources, assert_all_same, assert_rejected, assert_same, bits, c_validation_tests, phase1,
                         random_ranks, random_values, run_two_phases, threads, vector_block_rows)

forward = aclnn_py.moe_token_unpermute
backward = aclnn_py.moe_token_unpermute_grad
ref_forward = reference.moe_token_unpermute
ref_backward = reference.moe_token_unpermute_grad

PAIRS = list(itertools.product(FLOATS, FLOATS))  # (tokens dtype, probs dtype): all nine have a kernel
PAIR_IDS = [f"{FLOAT_IDS[FLOATS.index(a)]}-{FLOAT_IDS[FLOATS.index(b)]}" for a, b in PAIRS]


# ---- direct transcriptions of the specs' normative loops ---------------------------------------------------------

def spec_narrow(acc, dtype):
    acc = np.asarray(acc, np.float32)
    if dtype == np.float32:
        return acc.copy()
    if dtype == np.float16:
        with np.errstate(over="ignore"):
            return acc.astype(np.float16)
    u = acc.view(np.uint32).astype(np.uint64)
    out = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(acc)
    out[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return out.view(BF16)


def spec_forward(permuted, sorted_indices, probs=None):
    """moe_token_unpermute.md 3.1, element loops (finite data: NaN payload rules are tested elsewhere)."""
    x = permuted.astype(np.float32)
    p, h = x.shape
    si = [int(v) for v in sorted_indices]
    if probs is None:
        t, k, w = len(si), 1, None
    else:
        t, k = probs.shape
        w = probs.astype(np.float32).reshape(-1)
    acc = np.zeros((t, h), np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for tt in range(t):
            for kk in range(k):
                s = tt * k + kk
                idx = si[s]
                if not (0 <= idx < p and (w is None or w[s] != 0)):
                    continue
                term = x[idx] if w is None else (x[idx] * w[s]).astype(np.float32)
                acc[tt] = term if kk == 0 else (acc[tt] + term).astype(np.float32)
    return spec_narrow(acc, permuted.dtype)


def spec_tree_sum(v):
    v = np.asarray(v, np.float32)
    while v.shape[0] > 1:
        v = (v[0::2] + v[1::2]).astype(np.float32)
    return np.float32(v[0])


def spec_device_reduce_sum(x):
    v = np.array(x, np.float32)
    n = v.shape[0]

    def fold(total, threshold, offset):
        half = -(-((total + 1) // 2) // 8) * 8
        while total > threshold:
            c = total - half
            v[:c] = v[:c] + v[half:half + c]
            total, half = half, -(-((half + 1) // 2) // 8) * 8
        c = total - offset
        v[:c] = v[:c] + v[offset:offset + c]

    for lo, thr, off in ((4096, 8192, 4096), (512, 1024, 512), (64, 128, 64)):
        if n >= lo:
            fold(n, thr, off)
            return spec_tree_sum(v[:off])
    w = np.zeros(64, np.float32)
    w[:n] = v
    return spec_tree_sum(w)


def spec_backward(permuted, grad, sorted_indices, probs=None):
    """moe_token_unpermute_grad.md 3.4 (outputs start zero-filled)."""
    p = permuted.shape[0]
    t, h = grad.shape
    si = [int(v) for v in sorted_indices]
    g = grad.astype(np.float32)
    ptg = np.zeros((p, h), grad.dtype)
    if probs is None:
        for i in range(t):
            if 0 <= si[i] < p:
                ptg[si[i]] = grad[i]
        return ptg, None
    k = probs.shape[1]
    w = probs.astype(np.float32).reshape(-1)
    x = permuted.astype(np.float32)
    chunk = hidden_chunk(h, t, k, permuted.dtype.itemsize, probs.dtype.itemsize)
    pg = np.zeros(t * k, np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for tt in range(t):
            for kk in range(k):
                s = tt * k + kk
                ok = 0 <= si[s] < p
                if ok:
                    ptg[si[s]] = spec_narrow((g[tt] * w[s]).astype(np.float32), grad.dtype)
                row = x[si[s]] if ok else np.zeros(h, np.float32)
                prod = (row * g[tt]).astype(np.float32)
                acc = np.float32(0.0)
                for c0 in range(0, h, chunk):
                    acc = np.float32(acc + spec_device_reduce_sum(prod[c0:c0 + chunk]))
                pg[s] = acc
    return ptg, spec_narrow(pg.reshape(t, k), probs.dtype)


# ---- data ----------------------------------------------------------------------------------------------------------

def routed(rng, t, k, p, mode):
    """sortedIndices of T*K slots over P rows: a permutation (dropless), with rows >= P (a dropping forward), or wild
    (duplicates, negatives, the int32 extremes)."""
    total = t * k
    if mode == "perm":
        return random_ranks(rng, total) if p >= total else rng.permutation(max(p, total))[:total].astype(np.int32)
    if mode == "drop":
        return random_ranks(rng, total)  # with P < T*K: the slots whose row is >= P were dropped
    idx = rng.integers(-3, p + 3, size=total).astype(np.int32)
    idx[: min(2, total)] = [-2**31, 2**31 - 1][: min(2, total)]
    return idx


def weights(rng, shape, dtype, zeros=True):
    w = random_values(rng, shape, np.float32)
    if zeros and w.size:
        w.reshape(-1)[rng.random(w.size) < 0.2] = 0.0  # zero weights: skipped by the forward
    return w.astype(dtype)


MODES = {  # name: (T, K, P as a function of T*K, index mode)
    "dropless": (5, 3, lambda n: n, "perm"),
    "dropped_rows": (6, 2, lambda n: n - 5, "drop"),
    "wild_indices": (4, 4, lambda n: n, "wild"),
    "topk_1": (7, 1, lambda n: n, "perm"),
    "more_rows_than_slots": (3, 2, lambda n: n + 4, "perm"),
}


# ---- forward -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("tok_dtype,prob_dtype", PAIRS, ids=PAIR_IDS)
def test_forward_matches_reference(tok_dtype, prob_dtype):
    rng = np.random.default_rng(PAIRS.index((tok_dtype, prob_dtype)))
    for mode, (t, k, rows, kind) in MODES.items():
        p = rows(t * k)
        x = random_values(rng, (p, 6), tok_dtype)
        idx = routed(rng, t, k, p, kind)
        probs = weights(rng, (t, k), prob_dtype)
        got = forward(x, idx, probs)
        expected = ref_forward(x, idx, probs)
        assert_same(got, expected, mode)
        assert_same(expected, spec_forward(x, idx, probs), mode)
        assert got.shape == (t, 6) and got.dtype == tok_dtype


@pytest.mark.parametrize("tok_dtype,prob_dtype", PAIRS, ids=PAIR_IDS)
def test_forward_vector_blocks(tok_dtype, prob_dtype):
    """Rows long enough for the vectorised weighted sums, with special values, one NaN, zero weights and
    dropped slots; strided rows take the portable sum and must agree."""
    rng = np.random.default_rng(31 + PAIRS.index((tok_dtype, prob_dtype)))
    t, k = 40, 5
    x = vector_block_rows(rng, t * k - 6, tok_dtype)
    idx = random_ranks(rng, t * k)  # six slots point past P: dropped
    probs = weights(rng, (t, k), prob_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = ref_forward(x, idx, probs)
    assert_same(forward(x, idx, probs), expected)
    assert_same(forward(np.ascontiguousarray(x.T).T, idx, probs), expected)


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_without_probs_gathers_rows(dtype):
    rng = np.random.default_rng(3)
    x = random_values(rng, (9, 4), dtype)
    idx = np.array([3, 0, 8, 9, -1, 3, 2**31 - 1], np.int32)
    got = forward(x, idx)
    assert_same(got, ref_forward(x, idx))
    assert_same(got, spec_forward(x, idx))
    assert np.array_equal(bits(got[[0, 1, 2, 5]]), bits(x[[3, 0, 8, 3]]))
    assert not bits(got[[3, 4, 6]]).any()  # out of range: +0.0


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_official_example_by_hand(dtype):
    # Spec 5, intended data: rows [1, 2] and [3, 4], indices [0, 1], weights [1, 1] -> [4, 6]
    x = np.array([[1, 2], [3, 4]], np.float32).astype(dtype)
    out = forward(x, np.array([0, 1], np.int32), np.ones((1, 2), dtype))
    assert out.dtype == dtype and out.astype(np.float32).tolist() == [[4, 6]]
    # the sample's reinterpreted bytes: slot 0 has weight 0 (skipped), slot 1's index is out of range
    x = np.array([[0x0000, 0x3F80], [0x0000, 0x4000]], np.uint16).view(BF16)
    out = forward(x, np.array([0, 1065353216], np.int32), np.array([[0x0000, 0x3F80]], np.uint16).view(BF16))
    assert bits(out).tolist() == [[0, 0]]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_skips_zero_weights_and_keeps_signed_zeros(dtype):
    with np.errstate(invalid="ignore"):
        x = np.array([[np.inf, -0.0], [np.nan, 2.0], [-0.0, -0.0]], np.float32).astype(dtype)
    # token 0: weight 0 on the inf/NaN rows -> skipped, no 0 * inf; token 1: a -0.0 weight is zero too, so the
    # NaN row is skipped and row 0 is added to +0 (+0 + -0 = +0); token 2: the first slot is copied (-0 * 1 = -0
    # kept); token 3: first slot out of range -> +0, then + (-0) = +0
    idx = np.array([0, 1, 1, 0, 2, 2, 5, 2], np.int32)
    probs = np.array([[0.0, 0.0], [-0.0, 1.0], [1.0, 1.0], [1.0, 1.0]], np.float32)
    got = forward(x, idx, probs)
    assert_same(got, ref_forward(x, idx, probs))
    f = got.astype(np.float32)
    assert not bits(got[0]).any()
    assert f[1, 0] == np.inf and bits(got[1, 1:]).tolist() == [0]
    sign = {4: 0x80000000, 2: 0x8000}[np.dtype(dtype).itemsize]
    assert bits(got[2]).tolist() == [sign, sign]
    assert bits(got[3]).tolist() == [0, 0]
    # a NaN weight is taken (NaN != 0)
    got = forward(x, np.array([2, 5], np.int32), np.array([[np.nan, 1.0]], np.float32))
    assert np.isnan(got.astype(np.float32)).all()


@pytest.mark.parametrize("dtype,tiny", [(np.float16, 2.0 ** -11), (BF16, 2.0 ** -8)], ids=["float16", "bfloat16"])
def test_forward_rounds_once_after_float32_products_and_sums(dtype, tiny):
    x = np.array([[1.0], [tiny], [tiny]], np.float32).astype(dtype)
    out = forward(x, np.array([0, 1, 2], np.int32), np.ones((1, 3), np.float32))
    assert float(out[0, 0]) == 1 + 2 * tiny


def test_forward_adds_in_slot_order_and_products_are_not_fused():
    x = np.array([[1e8], [1.0], [-1e8]], np.float32)
    ones = np.ones((1, 3), np.float32)
    assert forward(x, np.array([0, 1, 2], np.int32), ones)[0, 0] == 0.0
    assert forward(x, np.array([0, 2, 1], np.int32), ones)[0, 0] == 1.0
    # a fused multiply-add would keep the low bits of x * w: 1 + (1 + 2^-23) * (1 - 2^-23) rounds the product first
    a = np.float32(1 + 2.0 ** -23)
    b = np.float32(1 - 2.0 ** -23)
    got = forward(np.array([[1.0], [a]], np.float32), np.array([0, 1], np.int32), np.array([[1.0, b]], np.float32))
    assert got[0, 0] == np.float32(np.float32(1.0) + np.float32(a * b))


@pytest.mark.parametrize("tok_dtype,prob_dtype", PAIRS[::4], ids=PAIR_IDS[::4])
def test_forward_strided_inputs(tok_dtype, prob_dtype):
    rng = np.random.default_rng(12)
    t, k, p, h = 6, 3, 18, 7
    x = random_values(rng, (p, h), tok_dtype)
    idx = random_ranks(rng, t * k)
    probs = weights(rng, (t, k), prob_dtype)
    expected = ref_forward(x, idx, probs)
    xb = random_values(rng, (2 * p, 2 * h), tok_dtype)
    xb[::2, ::2] = x
    ib = np.zeros(3 * t * k, np.int32)
    ib[::3] = idx
    pb = weights(rng, (t, 2 * k), prob_dtype)
    pb[:, ::2] = probs
    for xv, iv, pv in [(xb[::2, ::2], ib[::3], pb[:, ::2]), (np.asfortranarray(x), idx[::-1].copy()[::-1],
                                                            np.asfortranarray(probs))]:
        assert_same(forward(xv, iv, pv), expected)


def test_forward_empty_cases():
    for p, t, k, h in [(0, 3, 2, 4), (5, 0, 2, 4), (5, 3, 2, 0), (0, 0, 1, 0)]:
        x = np.ones((p, h), np.float32)
        idx = np.arange(t * k, dtype=np.int32)
        probs = np.ones((t, k), np.float32)
        got = forward(x, idx, probs)
        assert got.shape == (t, h) and not bits(got).any()
        assert_same(got, ref_forward(x, idx, probs))
    got = forward(np.ones((0, 3), np.float32), np.zeros(0, np.int32))
    assert got.shape == (0, 3)


def test_forward_padded_mode_is_rejected_and_restore_shape_ignored():
    x, idx, probs = np.ones((4, 3), np.float32), np.arange(4, dtype=np.int32), np.ones((2, 2), np.float32)
    for shape in (None, (1,), (16, 16), ()):
        assert forward(x, idx, probs, False, shape).tolist() == [[2, 2, 2], [2, 2, 2]]
    with pytest.raises(aclnn_py.AclnnError) as ei:
        forward(x, idx, probs, True)
    assert ei.value.status == INVALID and "paddedMode" in str(ei.value)


# ---- backward ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("tok_dtype,prob_dtype", PAIRS, ids=PAIR_IDS)
def test_backward_matches_reference(tok_dtype, prob_dtype):
    rng = np.random.default_rng(20 + PAIRS.index((tok_dtype, prob_dtype)))
    for mode, (t, k, rows, kind) in MODES.items():
        p = rows(t * k)
        h = 70  # the 64-lane reduction's fold
        x = random_values(rng, (p, h), tok_dtype)
        g = random_values(rng, (t, h), tok_dtype)
        idx = routed(rng, t, k, p, kind)
        probs = weights(rng, (t, k), prob_dtype)
        got = backward(x, g, idx, probs)
        expected = ref_backward(x, g, idx, probs)
        assert_all_same(got, expected, mode)
        assert_all_same(expected, spec_backward(x, g, idx, probs), mode)
        assert got[0].shape == (p, h) and got[1].shape == (t, k) and got[1].dtype == prob_dtype
        got = backward(x, g[:, :], idx.reshape(t, k)[:, 0].copy() if k == 1 else idx[:t].copy())
        assert got[1] is None


@pytest.mark.parametrize("h", [1, 63, 64, 511, 512, 1000, 4096, 5000])
def test_backward_reduction_levels(h):
    # every branch of the device's ReduceSum: lanes < 64, folds onto 64, 512 and 4096
    rng = np.random.default_rng(h)
    x = random_values(rng, (4, h), np.float32)
    g = random_values(rng, (2, h), np.float32)
    idx = np.array([1, 3, 0, 2], np.int32)
    probs = np.ones((2, 2), np.float32)
    got = backward(x, g, idx, probs)
    assert_all_same(got, ref_backward(x, g, idx, probs))
    assert_all_same(got, spec_backward(x, g, idx, probs))


@pytest.mark.parametrize("tok_dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_reduction_with_infinities_and_nan_payloads(tok_dtype):
    # inf - inf inside the tree makes NaNs; NaN rows with payloads meet each other: the sums' NaN rule decides
    rng = np.random.default_rng(77)
    h = 700
    x = random_values(rng, (6, h), np.float32)
    x[0, ::7] = np.inf
    x[0, 3::7] = -np.inf
    x[1, ::5] = np.array([0x7FA00001, 0xFFC00123], np.uint32).view(np.float32)[rng.integers(0, 2, size=140)]
    x[2, 10] = np.nan
    with np.errstate(invalid="ignore"):
        x = x.astype(tok_dtype)
    g = random_values(rng, (3, h), tok_dtype)
    idx = np.array([0, 1, 2, 3, 4, 5], np.int32)
    probs = np.ones((3, 2), np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        got = backward(x, g, idx, probs)
        assert_all_same(got, ref_backward(x, g, idx, probs))
    assert np.isnan(got[1].astype(np.float32).reshape(-1)[:3]).all()  # the rows with infinities or NaNs


def test_backward_reduction_is_the_device_tree_not_a_sequential_sum():
    # 1e8 + 1 - 1e8 + 1: the adjacent-pair tree gives (1e8 + 1) + (-1e8 + 1) = 0, a sequential sum 1
    x = np.array([[1e8, 1.0, -1e8, 1.0]], np.float32)
    _, pg = backward(x, np.ones((1, 4), np.float32), np.array([0], np.int32), np.ones((1, 1), np.float32))
    assert pg[0, 0] == 0.0


@pytest.mark.parametrize("tok_dtype,prob_dtype,h", [(BF16, BF16, 8000), (np.dtype(np.float32), BF16, 5400),
                                                    (np.dtype(np.float32), np.dtype(np.float32), 11000)],
                         ids=["bf16-8000", "fp32-5400", "fp32-11000"])
def test_backward_large_hidden_is_reduced_in_chunks(tok_dtype, prob_dtype, h):
    chunk = hidden_chunk(h, 2, 2, tok_dtype.itemsize, prob_dtype.itemsize)
    assert chunk < h  # spec 3.3: beyond about 7936 (16-bit tokens) / 5376 (fp32 tokens) the hidden axis is cut
    rng = np.random.default_rng(h)
    x = random_values(rng, (4, h), tok_dtype)
    g = random_values(rng, (2, h), tok_dtype)
    idx = np.array([2, 0, 3, 1], np.int32)
    probs = weights(rng, (2, 2), prob_dtype, zeros=False)
    got = backward(x, g, idx, probs)
    assert_all_same(got, ref_backward(x, g, idx, probs))
    assert_all_same(got, spec_backward(x, g, idx, probs))


def test_hidden_chunk_thresholds():
    # one chunk up to the spec's thresholds (small T), then chunks of that length
    assert hidden_chunk(7936, 4, 8, 2, 2) == 7936 and hidden_chunk(7937, 4, 8, 2, 2) < 7937
    assert hidden_chunk(5376, 4, 8, 4, 4) == 5376 and hidden_chunk(5377, 4, 8, 4, 4) < 5377
    assert hidden_chunk(7168, 4096, 8, 2, 2) == 7168  # the benchmark shape is one chunk


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_official_example_by_hand(dtype):
    # Spec 5 with proper data: every permutedTokensGrad row [1, 1], probsGrad [2, 2, 2]
    ones = np.ones
    ptg, pg = backward(ones((3, 2), dtype), ones((1, 2), dtype), np.arange(3, dtype=np.int32), ones((1, 3), dtype))
    assert ptg.astype(np.float32).tolist() == [[1, 1]] * 3 and pg.astype(np.float32).tolist() == [[2, 2, 2]]
    # the sample's reinterpreted bytes
    row = np.array([[0x0000, 0x3F80]], np.uint16).view(BF16)
    ptg, pg = backward(np.repeat(row, 3, 0), row, np.arange(3, dtype=np.int32),
                       np.array([[0, 0x3F80, 0]], np.uint16).view(BF16))
    assert bits(ptg).tolist() == [[0, 0], [0, 0x3F80], [0, 0]] and bits(pg).tolist() == [[0x3F80] * 3]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_duplicates_dropped_slots_and_untouched_rows(dtype):
    x = np.arange(1, 13, dtype=np.float32).reshape(6, 2).astype(dtype)
    g = np.array([[1, 2], [3, 4]], np.float32).astype(dtype)
    # slot 3 (token 1) and slot 0 (token 0) both point at row 4: the later slot wins; row 5, 1 untouched;
    # slot 2 is out of range: its probs gradient is <0, g> = 0, and so is slot 1's (negative)
    idx = np.array([4, -1, 9, 4], np.int32)
    probs = np.array([[2, 3], [5, 7]], np.float32).astype(dtype)
    ptg, pg = backward(x, g, idx, probs)
    assert_all_same((ptg, pg), ref_backward(x, g, idx, probs))
    assert ptg.astype(np.float32).tolist() == [[0, 0]] * 4 + [[21, 28], [0, 0]]
    assert pg.astype(np.float32).tolist() == [[9 + 20, 0], [0, 7 * 0 + 3 * 9 + 4 * 10]]
    # without probs: byte copies, the same last-writer rule, probs_grad not produced
    ptg, pg = backward(x, np.array([[1, 2], [3, 4], [5, 6]], np.float32).astype(dtype), np.array([4, 0, 4], np.int32))
    assert pg is None and ptg.astype(np.float32).tolist() == [[3, 4], [0, 0], [0, 0], [0, 0], [5, 6], [0, 0]]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_special_values(dtype):
    with np.errstate(invalid="ignore", over="ignore"):
        x = np.array([[np.inf, 1.0], [-0.0, 3e38], [np.nan, 0.0]], np.float32).astype(dtype)
        g = np.array([[0.0, 1.0], [2.0, 3e38]], np.float32).astype(dtype)
    idx = np.array([0, 5, 1, 2], np.int32)
    probs = np.array([[0.0, 1.0], [np.inf, -0.0]], np.float32)  # no zero-weight skip in the backward
    got = backward(x, g, idx, probs)
    assert_all_same(got, ref_backward(x, g, idx, probs))
    pg = got[1]
    assert np.isnan(pg[0, 0])  # inf * 0
    assert pg[0, 1] == 0.0 and not bits(pg[0, 1:]).any()  # dropped slot: <0, g> = +0
    assert np.isnan(pg[1, 1])  # NaN row


@pytest.mark.parametrize("tok_dtype,prob_dtype", PAIRS[::4], ids=PAIR_IDS[::4])
def test_backward_strided_inputs(tok_dtype, prob_dtype):
    rng = np.random.default_rng(31)
    t, k, p, h = 5, 2, 10, 66
    x = random_values(rng, (p, h), tok_dtype)
    g = random_values(rng, (t, h), tok_dtype)
    idx = random_ranks(rng, t * k)
    probs = weights(rng, (t, k), prob_dtype)
    expected = ref_backward(x, g, idx, probs)
    xb = random_values(rng, (p, 2 * h), tok_dtype)
    xb[:, 1::2] = x
    gb = random_values(rng, (2 * t, h), tok_dtype)
    gb[::2] = g
    for args in [(xb[:, 1::2], gb[::2], idx[::-1].copy()[::-1], probs.T.copy().T),
                 (np.asfortranarray(x), np.asfortranarray(g), np.concatenate([[7], idx]).astype(np.int32)[1:], probs)]:
        assert_all_same(backward(*args), expected)
    idx = idx[::2].copy()  # without probs: one slot per gradient row
    expected = ref_backward(x, g, idx, None)
    assert_all_same(backward(xb[:, 1::2], gb[::2], np.repeat(idx, 2)[::2]), expected)


def test_backward_empty_outputs():
    # both outputs empty: nothing to do, success
    ptg, pg = backward(np.ones((0, 3), np.float32), np.ones((4, 3), np.float32), np.zeros(4, np.int32))
    assert ptg.shape == (0, 3) and pg is None
    ptg, pg = backward(np.ones((4, 0), np.float32), np.ones((4, 0), np.float32), np.zeros(4, np.int32))
    assert ptg.shape == (4, 0)
    # an output is not empty but a dimension is zero: the tiling's "input shape has 0"
    with pytest.raises(aclnn_py.AclnnError) as ei:
        backward(np.ones((0, 3), np.float32), np.ones((2, 3), np.float32), np.zeros(4, np.int32),
                 np.ones((2, 2), np.float32))
    assert ei.value.status == TILING and "input shape has 0" in str(ei.value)


def test_backward_padded_mode_is_rejected():
    with pytest.raises(aclnn_py.AclnnError) as ei:
        backward(np.ones((4, 3), np.float32), np.ones((2, 3), np.float32), np.arange(4, dtype=np.int32),
                 np.ones((2, 2), np.float32), True)
    assert ei.value.status == INVALID and "paddedMode" in str(ei.value)


# ---- mirror layer ------------------------------------------------------------------------------------------------

def raw_bytes(t) -> np.ndarray:
    raw = np.empty(t.buffer.nbytes, np.uint8)
    if raw.size:
        t.buffer.download(raw)
    return raw


def test_mirror_forward_two_phases_writes_only_the_output():
    rng = np.random.default_rng(40)
    x = random_values(rng, (8, 5), BF16)
    idx = random_ranks(rng, 8)
    probs = weights(rng, (4, 2), np.float16)
    with Resources() as r:
        t_out = r.output((4, 5), BF16, fill=0x5A, offset=3, extra=5)
        shape = r.int_array([16, 16])
        run_two_phases(aclnn.aclnnMoeTokenUnpermuteGetWorkspaceSize, aclnn.aclnnMoeTokenUnpermute,
                       r.tensor(x[::-1].copy()[::-1]).handle, r.tensor(idx).handle, r.tensor(probs).handle, False,
                       shape, t_out.handle)
        raw = raw_bytes(t_out)
        out = t_out.numpy()
    assert_same(out, ref_forward(x, idx, probs))
    assert (raw[:6] == 0x5A).all() and (raw[6 + 40:] == 0x5A).all()


def test_mirror_backward_leaves_untouched_rows_and_probs_grad_alone():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    g = np.array([[1, 2], [3, 4]], np.float32)
    with Resources() as r:
        # without probs: rows 0, 2, 3, 5 keep their bytes and probsGradOut (any shape) is never written
        t_ptg = r.output((6, 2), np.float32, fill=0x33)
        t_pg = r.output((), np.float32, fill=0x44)
        run_two_phases(aclnn.aclnnMoeTokenUnpermuteGradGetWorkspaceSize, aclnn.aclnnMoeTokenUnpermuteGrad,
                       r.tensor(x).handle, r.tensor(g).handle, r.tensor(np.array([4, 1], np.int32)).handle, None,
                       False, None, t_ptg.handle, t_pg.handle)
        raw = raw_bytes(t_ptg).reshape(6, 8)
        assert (raw[[0, 2, 3, 5]] == 0x33).all() and (raw_bytes(t_pg) == 0x44).all()
        assert t_ptg.numpy()[[1, 4]].tolist() == [[3, 4], [1, 2]]
        # with probs
        t_ptg = r.output((6, 2), np.float32, fill=0x33)
        t_pg = r.output((2, 2), np.float16, fill=0x44)
        probs = np.array([[1, 2], [3, 4]], np.float16)
        idx = np.array([4, 1, 0, 7], np.int32)
        run_two_phases(aclnn.aclnnMoeTokenUnpermuteGradGetWorkspaceSize, aclnn.aclnnMoeTokenUnpermuteGrad,
                       r.tensor(x).handle, r.tensor(g).handle, r.tensor(idx).handle, r.tensor(probs).handle,
                       False, r.int_array([1]), t_ptg.handle, t_pg.handle)
        raw = raw_bytes(t_ptg).reshape(6, 8)
        assert (raw[[2, 3, 5]] == 0x33).all()
        exp_ptg, exp_pg = ref_backward(x, g, idx, probs)
        assert t_ptg.numpy()[[0, 1, 4]].tolist() == exp_ptg[[0, 1, 4]].tolist()
        assert_same(t_pg.numpy(), exp_pg)


def test_mirror_empty_outputs_give_an_empty_executor():
    with Resources() as r:
        t_out = r.output((0, 3), np.float32)
        ws, ex = aclnn.aclnnMoeTokenUnpermuteGetWorkspaceSize(
            r.tensor(np.ones((4, 3), np.float32)).handle, r.tensor(np.zeros(0, np.int32)).handle, None, False, None,
            t_out.handle)
        assert ws == 0 and aclnn.aclnnMoeTokenUnpermute(None, 0, ex, None) is None
        t_ptg, t_pg = r.output((0, 3), np.float32), r.output((0,), np.float32)
        ws, ex = aclnn.aclnnMoeTokenUnpermuteGradGetWorkspaceSize(
            r.tensor(np.ones((0, 3), np.float32)).handle, r.tensor(np.ones((2, 3), np.float32)).handle,
            r.tensor(np.zeros(2, np.int32)).handle, None, False, None, t_ptg.handle, t_pg.handle)
        assert ws == 0 and aclnn.aclnnMoeTokenUnpermuteGrad(None, 0, ex, None) is None
        acl.aclrtSynchronizeStream(None)


# ---- validation (phase 1, spec section 4 in order) ---------------------------------------------------------------

# Valid forward: P = 8 rows of H = 3, T = 4 tokens, K = 2 -> out (4, 3).
FWD_BASE = dict(x=T((8, 3)), idx=T((8,), I32), probs=T((4, 2)), padded=False, shape=None, out=T((4, 3)))

FWD_CASES = [
    ("ok", {}, 0),
    ("ok_probs_float16", {"probs": T((4, 2), FP16)}, 0),
    ("ok_bf16_tokens_fp32_probs", {"x": T((8, 3), BF), "out": T((4, 3), BF)}, 0),
    ("ok_no_probs", {"probs": None, "out": T((8, 3))}, 0),
    ("ok_restore_shape", {"shape": [16, 16]}, 0),
    ("ok_restore_shape_empty", {"shape": []}, 0),
    ("ok_P_below_TK", {"x": T((5, 3))}, 0),
    ("ok_P_0", {"x": T((0, 3))}, 0),
    ("ok_topk_512", {"probs": T((1, 512)), "idx": T((512,), I32), "out": T((1, 3))}, 0),
    ("ok_strided_inputs", {"x": T((8, 3), strides=(1, 8)), "idx": T((8,), I32, strides=(2,))}, 0),
    ("ok_format_ncl", {"x": T((8, 3), fmt=NCL)}, 0),
    # 1: NULL
    ("null_permuted_tokens", {"x": None}, NULLPTR),
    ("null_sorted_indices", {"idx": None}, NULLPTR),
    ("null_out", {"out": None}, NULLPTR),
    ("null_before_dtype", {"x": None, "idx": T((8,), I64)}, NULLPTR),
    # 2: dtype and format
    ("tokens_int8", {"x": T((8, 3), I8), "out": T((4, 3), I8)}, INVALID),
    ("indices_int64", {"idx": T((8,), I64)}, INVALID),
    ("probs_int32", {"probs": T((4, 2), I32)}, INVALID),
    ("out_dtype_differs", {"out": T((4, 3), FP16)}, INVALID),
    ("tokens_format_nz", {"x": T((8, 3), fmt=NZ)}, INVALID),
    # 3: out contiguous
    ("out_not_contiguous", {"out": T((4, 3), strides=(1, 4))}, INVALID),
    # 4: paddedMode, before the empty-output shortcut
    ("padded_mode", {"padded": True}, INVALID),
    ("padded_mode_empty_out", {"padded": True, "out": T((0, 3)), "probs": T((0, 2)), "idx": T((0,), I32)}, INVALID),
    # 5: out empty
    ("empty_T_0", {"probs": T((0, 2)), "idx": T((0,), I32), "out": T((0, 3))}, 0),
    ("empty_H_0", {"x": T((8, 0)), "out": T((4, 0))}, 0),
    ("empty_out_skips_later_checks", {"x": T((8,)), "out": T((0, 3))}, 0),
    # 6 - 9: tiling
    ("negative_dimension", {"x": T((-1, 3))}, TILING),
    ("tokens_1d", {"x": T((24,))}, TILING),
    ("tokens_3d", {"x": T((8, 3, 1))}, TILING),
    ("indices_2d", {"idx": T((4, 2), I32)}, TILING),
    ("probs_1d", {"probs": T((8,))}, TILING),
    ("topk_0", {"probs": T((4, 0)), "idx": T((0,), I32)}, TILING),
    ("topk_513", {"probs": T((1, 513)), "idx": T((513,), I32), "out": T((1, 3))}, TILING),
    ("L_not_T_times_K", {"idx": T((9,), I32)}, TILING),
    ("out_rows", {"out": T((5, 3))}, TILING),
    ("out_cols", {"out": T((4, 4))}, TILING),
    ("out_3d", {"out": T((4, 3, 1))}, TILING),
    ("no_probs_out_rows_are_L", {"probs": None}, TILING),
]

FWD_ORDER = [
    ("negative_before_rank", {"x": T((8, 3, -1))}, "negative dimension"),
    ("tokens_rank_before_indices_rank", {"x": T((24,)), "idx": T((4, 2), I32)}, "permutedTokens must be 2-D"),
    ("indices_rank_before_probs_rank", {"idx": T((4, 2), I32), "probs": T((8,))}, "sortedIndices must be 1-D"),
    ("probs_rank_before_topk", {"probs": T((8,))}, "probsOptional must be 2-D"),
    ("topk_before_length", {"probs": T((1, 513)), "idx": T((9,), I32)}, "topK"),
    ("length_before_out", {"idx": T((9,), I32), "out": T((5, 3))}, "sortedIndices length"),
    ("out_alone", {"out": T((5, 3))}, "out must have shape"),
]


def fwd_args(over):
    a = dict(FWD_BASE, **over)
    return [a["x"], a["idx"], a["probs"], a["padded"], a["shape"], a["out"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in FWD_CASES], ids=[c[0] for c in FWD_CASES])
def test_mirror_forward_validation(over, status):
    assert phase1(aclnn.aclnnMoeTokenUnpermuteGetWorkspaceSize, fwd_args(over))[0] == status


@pytest.mark.parametrize("over,fragment", [c[1:] for c in FWD_ORDER], ids=[c[0] for c in FWD_ORDER])
def test_mirror_forward_tiling_checks_run_in_spec_order(over, fragment):
    status, message = phase1(aclnn.aclnnMoeTokenUnpermuteGetWorkspaceSize, fwd_args(over))
    assert status == TILING and fragment in message, message


# Valid backward: P = 8, T = 4, K = 2, H = 3.
GRAD_BASE = dict(x=T((8, 3)), g=T((4, 3)), idx=T((8,), I32), probs=T((4, 2)), padded=False, shape=None,
                 ptg=T((8, 3)), pg=T((4, 2)))

GRAD_CASES = [
    ("ok", {}, 0),
    ("ok_bf16_tokens_fp16_probs", {"x": T((8, 3), BF), "g": T((4, 3), BF), "ptg": T((8, 3), BF),
                                   "probs": T((4, 2), FP16), "pg": T((4, 2), FP16)}, 0),
    ("ok_no_probs", {"probs": None, "g": T((8, 3)), "pg": T(())}, 0),
    ("ok_no_probs_any_probs_grad", {"probs": None, "g": T((8, 3)), "pg": T((5, 7), BF)}, 0),
    ("ok_no_probs_tokens_cols_unused", {"probs": None, "x": T((8, 9)), "g": T((8, 3))}, 0),
    ("ok_restore_shape", {"shape": [1, 1]}, 0),
    ("ok_topk_512", {"probs": T((1, 512)), "g": T((1, 3)), "idx": T((512,), I32), "pg": T((1, 512))}, 0),
    ("ok_P_above_L", {"x": T((11, 3)), "ptg": T((11, 3))}, 0),
    # 1: NULL (probsGradOut is required)
    ("null_permute_tokens", {"x": None}, NULLPTR),
    ("null_grad", {"g": None}, NULLPTR),
    ("null_sorted_indices", {"idx": None}, NULLPTR),
    ("null_permuted_tokens_grad_out", {"ptg": None}, NULLPTR),
    ("null_probs_grad_out", {"pg": None}, NULLPTR),
    ("null_probs_grad_out_without_probs", {"pg": None, "probs": None, "g": T((8, 3))}, NULLPTR),
    # 2: dtypes
    ("grad_dtype_differs", {"g": T((4, 3), FP16)}, INVALID),
    ("ptg_dtype_differs", {"ptg": T((8, 3), BF)}, INVALID),
    ("probs_grad_dtype_differs", {"pg": T((4, 2), FP16)}, INVALID),
    ("indices_int64", {"idx": T((8,), I64)}, INVALID),
    ("tokens_int32", {"x": T((8, 3), I32), "g": T((4, 3), I32), "ptg": T((8, 3), I32)}, INVALID),
    ("probs_grad_int32_without_probs", {"probs": None, "g": T((8, 3)), "pg": T((1,), I32)}, INVALID),
    # 3: contiguity of outputs
    ("ptg_not_contiguous", {"ptg": T((8, 3), strides=(1, 8))}, INVALID),
    ("pg_not_contiguous", {"pg": T((4, 2), strides=(1, 4))}, INVALID),
    # 4: paddedMode
    ("padded_mode", {"padded": True}, INVALID),
    # 5: both outputs empty
    ("empty_both", {"x": T((0, 3)), "ptg": T((0, 3)), "probs": None, "g": T((8, 3)), "pg": T((0,))}, 0),
    ("empty_hidden_no_probs", {"x": T((8, 0)), "g": T((8, 0)), "ptg": T((8, 0)), "probs": None, "pg": T((0,))}, 0),
    # 6 - 9: tiling
    ("negative_dimension", {"g": T((4, -3))}, TILING),
    ("grad_1d", {"g": T((12,))}, TILING),
    ("tokens_3d", {"x": T((8, 3, 1))}, TILING),
    ("indices_2d", {"idx": T((4, 2), I32)}, TILING),
    ("probs_3d", {"probs": T((4, 2, 1))}, TILING),
    ("P_0_with_probs", {"x": T((0, 3)), "ptg": T((0, 3))}, TILING),
    ("P_0_no_probs_probs_grad_0d", {"x": T((0, 3)), "ptg": T((0, 3)), "probs": None, "g": T((8, 3)), "pg": T(())},
     TILING),
    ("T_0", {"g": T((0, 3)), "probs": T((0, 2)), "idx": T((0,), I32), "pg": T((0, 2))}, TILING),
    ("K_0", {"probs": T((4, 0)), "idx": T((0,), I32), "pg": T((4, 0))}, TILING),
    ("topk_513", {"probs": T((1, 513)), "g": T((1, 3)), "idx": T((513,), I32), "pg": T((1, 513))}, TILING),
    # The kernel reads the first T x K indices: a longer sortedIndices is accepted, as the vendor's tiling tests
    # do (one of them: permuteTokens (30, 64), grad (10, 64), 30 indices without probs, probsGradOut (10, 3)).
    ("L_above_T_times_K", {"idx": T((9,), I32)}, 0),
    ("L_below_T_times_K", {"idx": T((7,), I32)}, TILING),
    ("vendor_tiling_test_prob_none", {"x": T((30, 64)), "g": T((10, 64)), "idx": T((30,), I32), "probs": None,
                                      "ptg": T((30, 64)), "pg": T((10, 3))}, 0),
    ("probs_rows", {"probs": T((5, 2)), "pg": T((5, 2))}, TILING),
    ("ptg_shape", {"ptg": T((8, 4))}, TILING),
    ("probs_grad_shape", {"pg": T((4, 3))}, TILING),
    ("tokens_cols_with_probs", {"x": T((8, 4))}, TILING),
]

GRAD_ORDER = [
    ("grad_rank_before_tokens_rank", {"g": T((12,)), "x": T((24,))}, "unpermutedTokensGrad must be 2-D"),
    ("tokens_rank_before_indices", {"x": T((24,)), "idx": T((4, 2), I32)}, "permuteTokens must be 2-D"),
    ("zero_before_topk", {"x": T((0, 3)), "probs": T((1, 513))}, "input shape has 0"),
    ("topk_before_length", {"probs": T((1, 513)), "g": T((1, 3))}, "topK"),
    ("length_before_probs_rows", {"idx": T((7,), I32), "probs": T((5, 2))}, "sortedIndices length"),
    ("probs_rows_before_ptg", {"probs": T((5, 2)), "ptg": T((8, 4))}, "probsOptional.shape[0]"),
    ("ptg_before_pg", {"ptg": T((8, 4)), "pg": T((4, 3))}, "permutedTokensGradOut must have shape"),
    ("pg_before_tokens_cols", {"pg": T((4, 3)), "x": T((8, 4)), "ptg": T((8, 3))}, "probsGradOut must have shape"),
]


def grad_args(over):
    a = dict(GRAD_BASE, **over)
    return [a["x"], a["g"], a["idx"], a["probs"], a["padded"], a["shape"], a["ptg"], a["pg"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_mirror_backward_validation(over, status):
    assert phase1(aclnn.aclnnMoeTokenUnpermuteGradGetWorkspaceSize, grad_args(over))[0] == status


@pytest.mark.parametrize("over,fragment", [c[1:] for c in GRAD_ORDER], ids=[c[0] for c in GRAD_ORDER])
def test_mirror_backward_tiling_checks_run_in_spec_order(over, fragment):
    status, message = phase1(aclnn.aclnnMoeTokenUnpermuteGradGetWorkspaceSize, grad_args(over))
    assert status == TILING and fragment in message, message


HIGH_LEVEL_CASES = [
    ("fwd_tokens_int32", lambda: forward(np.ones((4, 3), np.int32), np.arange(4, dtype=np.int32)), INVALID,
     "permutedTokens", "aclnnMoeTokenUnpermute"),
    ("fwd_indices_int64", lambda: forward(np.ones((4, 3), np.float32), np.arange(4)), INVALID, "sortedIndices",
     "aclnnMoeTokenUnpermute"),
    ("fwd_tokens_1d", lambda: forward(np.ones(4, np.float32), np.arange(4, dtype=np.int32)), TILING,
     "permuted_tokens", "aclnnMoeTokenUnpermute"),
    ("fwd_L_not_TK", lambda: forward(np.ones((4, 3), np.float32), np.arange(3, dtype=np.int32),
                                     np.ones((2, 2), np.float32)), TILING, "sortedIndices length",
     "aclnnMoeTokenUnpermute"),
    ("fwd_padded", lambda: forward(np.ones((4, 3), np.float32), np.arange(4, dtype=np.int32), None, True), INVALID,
     "padded_mode", "aclnnMoeTokenUnpermute"),
    ("bwd_grad_dtype", lambda: backward(np.ones((4, 3), np.float32), np.ones((4, 3), np.float16),
                                        np.arange(4, dtype=np.int32)), INVALID, "unpermutedTokensGrad",
     "aclnnMoeTokenUnpermuteGrad"),
    ("bwd_probs_2d_rule", lambda: backward(np.ones((4, 3), np.float32), np.ones((2, 3), np.float32),
                                           np.arange(4, dtype=np.int32), np.ones(4, np.float32)), TILING, "probs",
     "aclnnMoeTokenUnpermuteGrad"),
    ("bwd_topk_513", lambda: backward(np.ones((513, 3), np.float32), np.ones((1, 3), np.float32),
                                      np.arange(513, dtype=np.int32), np.ones((1, 513), np.float32)), TILING, "topK",
     "aclnnMoeTokenUnpermuteGrad"),
]


@pytest.mark.parametrize("call,status,fragment,op", [c[1:] for c in HIGH_LEVEL_CASES],
                         ids=[c[0] for c in HIGH_LEVEL_CASES])
def test_high_level_validation(call, status, fragment, op):
    assert_rejected(call, status, fragment, op + "GetWorkspaceSize")


# ---- properties ---------------------------------------------------------------------------------------------------

@st.composite
def cases(draw):
    t = draw(st.integers(0, 9))
    k = draw(st.integers(1, 5))
    h = draw(st.sampled_from([1, 3, 8, 65]))
    tok = draw(st.sampled_from(FLOATS))
    prob = draw(st.sampled_from(FLOATS))
    total = t * k
    p = draw(st.sampled_from([total, max(total - 2, 0), total + 3, 1]))
    with_probs = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["perm", "wild"]))
    idx = routed(rng, t, k, p, kind) if kind == "wild" or p >= total else random_ranks(rng, total)
    x = random_values(rng, (p, h), tok)
    probs = weights(rng, (t, k), prob) if with_probs else None
    g = random_values(rng, ((t if with_probs else total), h), tok)
    return x, idx, probs, g


@settings(max_examples=60, deadline=None)
@given(cases())
def test_property_forward(case):
    x, idx, probs, _ = case
    expected = ref_forward(x, idx, probs)
    assert_same(forward(x, idx, probs), expected)
    assert_same(expected, spec_forward(x, idx, probs))


@settings(max_examples=60, deadline=None)
@given(cases())
def test_property_backward(case):
    x, idx, probs, g = case
    p, t = x.shape[0], g.shape[0]
    outputs_empty = p == 0 and (probs is None or probs.size == 0)
    if (p == 0 or t == 0) and not outputs_empty:  # rule 7: "input shape has 0"
        with pytest.raises(aclnn_py.AclnnError) as ei:
            backward(x, g, idx, probs)
        assert ei.value.status == TILING
        return
    expected = ref_backward(x, g, idx, probs)
    assert_all_same(backward(x, g, idx, probs), expected)
    assert_all_same(expected, spec_backward(x, g, idx, probs))


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(PAIRS), st.integers(1, 8))
def test_property_results_do_not_depend_on_the_thread_count(seed, pair, k):
    rng = np.random.default_rng(seed)
    t = 40000 // k + int(rng.integers(0, 30))
    h = 9
    x = random_values(rng, (t * k, h), pair[0])
    idx = rng.integers(-2, t * k + 2, size=t * k).astype(np.int32)  # duplicates: the last slot must win everywhere
    probs = weights(rng, (t, k), pair[1])
    g = random_values(rng, (t, h), pair[0])
    results = []
    for count in (1, 2, 3):
        with threads(count):
            results.append((forward(x, idx, probs), *backward(x, g, idx, probs)))
    for res in results[1:]:
        assert_all_same(res, results[0])
    assert_same(results[0][0], ref_forward(x, idx, probs))
    assert_all_same(results[0][1:], ref_backward(x, g, idx, probs))


# ---- round trips --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_trip_adjoint(dtype):
    rng = np.random.default_rng(50)
    for num_out in (0, 13, -4, 1):
        rt = testing.check_pair("moe_token_unpermute", rng, dtype=dtype, num_out_tokens=num_out)
        assert len(rt.pairs) == 2 and any(np.any(p[3]) for p in rt.pairs)


@pytest.mark.parametrize("prob_dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_unpermute_inverts_permute(dtype, prob_dtype):
    rng = np.random.default_rng(51)
    for k in (1, 2, 4):
        testing.check_unpermute_inverts_permute(rng, dtype=dtype, prob_dtype=prob_dtype, k=k)


def test_round_trip_detects_a_wrong_gradient(monkeypatch):
    # the adjoint check is not vacuous: a backward that scales its probs gradient fails it
    real = aclnn_py.ops.moe_token_unpermute_grad

    def wrong(*args, **kwargs):
        ptg, pg = real(*args, **kwargs)
        return ptg, None if pg is None else pg * 2
    monkeypatch.setattr(testing.ops, "moe_token_unpermute_grad", wrong)
    with pytest.raises(AssertionError, match="part 1"):
        testing.check_pair("moe_token_unpermute", np.random.default_rng(0))


# ---- validation from C ---------------------------------------------------------------------------------------------

C_SOURCE = Path(__file__).resolve().parent / "c" / "validation_unpermute.c"

C_EXPECTED = {
    "fwd_ok": 0, "fwd_ok_restore_shape_1": 0, "fwd_ok_restore_shape_16_16": 0, "fwd_ok_no_probs": 0,
    "fwd_ok_probs_fp16": 0, "fwd_ok_P_0": 0,
    "fwd_null_permuted_tokens": NULLPTR, "fwd_null_sorted_indices": NULLPTR, "fwd_null_out": NULLPTR,
    "fwd_null_workspace_size": NULLPTR, "fwd_null_executor": NULLPTR,
    "fwd_sorted_int64": INVALID, "fwd_out_dtype": INVALID, "fwd_probs_int32": INVALID,
    "fwd_out_not_contiguous": INVALID, "fwd_padded_mode": INVALID,
    "fwd_tokens_1d": TILING, "fwd_topk_513": TILING, "fwd_L_not_TK": TILING, "fwd_out_rows": TILING,
    "fwd_negative_dim": TILING, "fwd_empty_hidden": 0,
    "bwd_ok": 0, "bwd_ok_restore_shape": 0, "bwd_ok_no_probs_0d": 0, "bwd_ok_no_probs_any_shape": 0,
    "bwd_null_permute_tokens": NULLPTR, "bwd_null_grad": NULLPTR, "bwd_null_sorted_indices": NULLPTR,
    "bwd_null_permuted_tokens_grad_out": NULLPTR, "bwd_null_probs_grad_out": NULLPTR,
    "bwd_null_workspace_size": NULLPTR, "bwd_null_executor": NULLPTR,
    "bwd_grad_dtype": INVALID, "bwd_probs_grad_dtype": INVALID, "bwd_sorted_int64": INVALID,
    "bwd_ptg_not_contiguous": INVALID, "bwd_padded_mode": INVALID,
    "bwd_grad_1d": TILING, "bwd_P_0": TILING, "bwd_topk_513": TILING, "bwd_ok_L_above_TK": 0, "bwd_L_below_TK": TILING,
    "bwd_ptg_shape": TILING, "bwd_probs_grad_shape": TILING, "bwd_empty": 0,
    "live_allocations": 0, "live_allocation_bytes": 0, "live_host_allocations": 0, "live_streams": 0,
    "live_tensors": 0, "live_scalars": 0, "live_int_arrays": 0, "live_executors": 0,
}

(c_results, test_c_forward_validation, test_c_backward_validation,
 test_c_program_releases_everything) = c_validation_tests(C_SOURCE, C_EXPECTED, werror=True)


def test_backward_reads_only_the_first_t_times_k_indices():
    """The vendor's tiling accepts a sortedIndices longer than T x K: its tail is never read."""
    rng = np.random.default_rng(43)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    g = rng.standard_normal((3, 4)).astype(np.float32)
    for probs in (None, rng.standard_normal((3, 1)).astype(np.float32)):
        idx = np.array([2, 0, 5, 1 << 30, -7], np.int32)  # the tail would be out of range if it were read
        got = aclnn_py.moe_token_unpermute_grad(x, g, idx, probs)
        want = reference.moe_token_unpermute_grad(x, g, idx[:3], probs)
        for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert (a is None and b is None) or np.array_equal(a, b)
