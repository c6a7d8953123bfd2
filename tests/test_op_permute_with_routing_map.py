"""aclnnMoeTokenPermuteWithRoutingMap and aclnnMoeTokenPermuteWithRoutingMapGrad (specs
ops/moe_token_permute_with_routing_map.md and ops/moe_token_permute_with_routing_map_grad.md): bit-exact
equality with the references in every mode, the mirror layer's two phases, random shapes, maps and thread
counts, every validation rule with its status code (from Python and from C), and forward/backward round trips."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import aclnn_py
from aclnn_py import acl, aclnn, reference, testing

from helpers_ops import (BF, BF16, BOOL, C_LIVE, F64, FLOATS, FLOAT_IDS, FP16, FP32, I32, I64, I8, INVALID, NCHW,
                         NULLPTR, NZ, T, U8, Resources, assert_all_same, assert_rejected, assert_same, bits,
                         c_validation_tests, phase1, random_bits, random_values, run_two_phases, status_of, threads)

MAPS = [np.dtype(np.int8), np.dtype(np.bool_)]
MAP_IDS = ["int8", "bool"]

forward = aclnn_py.moe_token_permute_with_routing_map
backward = aclnn_py.moe_token_permute_with_routing_map_grad
ref_forward = reference.moe_token_permute_with_routing_map
ref_backward = reference.moe_token_permute_with_routing_map_grad

INNER_NULLPTR = 561103


# ---- helpers ---------------------------------------------------------------------------------------------

def topk_mask(rng, t, e, k) -> np.ndarray:
    """(T, E) with exactly k distinct experts per token."""
    m = np.zeros((t, e), bool)
    if t and k:
        m[np.arange(t)[:, None], np.argsort(rng.random((t, e)), axis=1)[:, :k]] = True
    return m


def as_map(mask, dtype, rng=None) -> np.ndarray:
    """An INT8 or BOOL routing map; with rng, set entries hold arbitrary non-zero bytes (2, 0x80, 0xFF...)."""
    raw = mask.astype(np.uint8)
    if rng is not None:
        raw = np.where(mask, rng.integers(1, 256, size=mask.shape), 0).astype(np.uint8)
    return raw.view(np.dtype(dtype))


def routed(routing_map) -> np.ndarray:
    return np.ascontiguousarray(routing_map).view(np.uint8) != 0


def n_out_of(t, e, num_out, pad) -> int:
    align = max(e if pad else t, 1)
    return num_out // align * align


def narrow(acc, dtype):
    return acc.astype(np.dtype(dtype))  # finite values: astype rounds to nearest even


# Direct transcriptions of the specs' normative loops (with the empty-tensor rows of the validation
# tables: nothing is written, the outputs keep their zero fill), to check the package references too.
def spec_forward(tokens, routing_map, probs, num_out, pad):
    t_n, h = tokens.shape
    e_n = routing_map.shape[1]
    mask = routed(routing_map)
    n_out = n_out_of(t_n, e_n, num_out, pad)
    out = np.zeros((n_out, h), tokens.dtype)
    pout = None if probs is None else np.zeros(n_out, probs.dtype)
    sorted_idx = np.zeros(n_out, np.int32)
    if t_n * e_n == 0 or n_out * h == 0:
        return out, pout, sorted_idx
    if pad:
        cap = n_out // e_n
        for e in range(e_n):
            order = [t for t in range(t_n) if mask[t, e]] + [t for t in range(t_n) if not mask[t, e]]
            sorted_idx[e * cap:(e + 1) * cap] = order[:cap]
        for j in range(n_out):
            out[j] = tokens[sorted_idx[j]]
            if probs is not None:
                pout[j] = probs[sorted_idx[j], j // cap]
        return out, pout, sorted_idx
    topk = n_out // t_n
    entries = [(t, e) for e in range(e_n) for t in range(t_n) if mask[t, e]]  # expert-major
    m = min(len(entries), n_out)
    keys = [entries[j][0] for j in range(m)] + [t_n] * (n_out - m)
    sorted_idx[:] = sorted(range(n_out), key=keys.__getitem__)  # Python's sort is stable
    for i in range(n_out):
        out[sorted_idx[i]] = tokens[i // topk]
    if probs is not None:
        for j in range(m):
            pout[j] = probs[entries[j]]
    return out, pout, sorted_idx


def spec_backward(g, pg, sorted_idx, routing_map, e_n, t_n, pad):
    p, h = g.shape
    acc = np.zeros((t_n, h), np.float32)
    probs_grad = None if pg is None else np.zeros((t_n, e_n), pg.dtype)
    if p * h == 0:
        return narrow(acc, g.dtype), probs_grad
    if not pad:
        topk = p // t_n
        for t in range(t_n):
            for k in range(topk):
                r = int(sorted_idx[t * topk + k])
                if 0 <= r < p:
                    acc[t] += g[r].astype(np.float32)
        if pg is not None:
            mask = routed(routing_map)
            j = 0
            for e in range(e_n):
                for t in range(t_n):
                    if mask[t, e]:
                        if j < pg.size:
                            probs_grad[t, e] = pg[j]
                        j += 1
    else:
        for i in range(p):
            t = int(sorted_idx[i])
            if 0 <= t < t_n:  # stub rule: other targets are dropped
                acc[t] += g[i].astype(np.float32)
        if pg is not None:
            cap = p // e_n
            for i in range(e_n * cap):
                t = int(sorted_idx[i])
                if 0 <= t < t_n:
                    probs_grad[t, i // cap] = pg[i]
    return narrow(acc, g.dtype), probs_grad


def check_forward(tokens, routing_map, probs, num_out, pad, what=""):
    got = forward(tokens, routing_map, probs, num_out, pad)
    expected = ref_forward(tokens, routing_map, probs, num_out, pad)
    assert_all_same(got, expected, what)
    assert_all_same(got, spec_forward(tokens, routing_map, probs, num_out, pad), what)
    return got


def check_backward(g, pg, sorted_idx, routing_map, e_n, t_n, pad, what=""):
    got = backward(g, pg, sorted_idx, routing_map, e_n, t_n, pad)
    expected = ref_backward(g, pg, sorted_idx, routing_map, e_n, t_n, pad)
    assert_all_same(got, expected, what)
    assert_all_same(got, spec_backward(g, pg, sorted_idx, routing_map, e_n, t_n, pad), what)
    return got


# ---- forward: reference equality in every mode -----------------------------------------------------------

FT, FE, FH = 7, 5, 4


def _uneven_rows(rng, t, e):
    """Row counts 0..E that add up to 2T: the total of a topK = 2 map, the rows of an ill-formed one."""
    counts = np.array([0, 4, 2, 1, 3, 2, 2])[:t]
    assert counts.sum() == 2 * t and counts.max() <= e
    m = np.zeros((t, e), bool)
    for r, c in enumerate(counts):
        m[r, rng.permutation(e)[:c]] = True
    return m


def _one_full_one_empty(rng, t, e):
    m = rng.random((t, e)) < 0.5
    m[:, 1], m[:, 3] = True, False
    return m


MAP_KINDS = {
    "topk1": lambda rng: topk_mask(rng, FT, FE, 1),
    "topk2": lambda rng: topk_mask(rng, FT, FE, 2),
    "topk_all": lambda rng: topk_mask(rng, FT, FE, FE),
    "sparse": lambda rng: rng.random((FT, FE)) < 0.25,
    "dense": lambda rng: rng.random((FT, FE)) < 0.75,
    "uneven_rows": lambda rng: _uneven_rows(rng, FT, FE),
    "empty_rows": lambda rng: topk_mask(rng, FT, FE, 2) & (np.arange(FT) % 3 != 1)[:, None],
    "all_clear": lambda rng: np.zeros((FT, FE), bool),
    "one_expert_full_one_empty": lambda rng: _one_full_one_empty(rng, FT, FE),
}
# numOutTokens values: below, at and between multiples of the alignment (T non-pad, E pad), up to T * E
NUM_OUT = {False: [0, 6, 7, 10, 14, 20, 22, 34, 35], True: [0, 4, 5, 7, 10, 14, 19, 34, 35]}


# Each test runs every map kind (plain 0/1 and arbitrary non-zero bytes), both modes, every numOutTokens,
# probs present/absent, for one (dtype, map dtype) pair.
@pytest.mark.parametrize("map_dtype", MAPS, ids=MAP_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_matches_reference(dtype, map_dtype):
    rng = np.random.default_rng(FLOATS.index(dtype) * 2 + MAPS.index(map_dtype))
    for kind, make in MAP_KINDS.items():
        mask = make(rng)
        for odd_bytes in (False, True):
            routing_map = as_map(mask, map_dtype, rng if odd_bytes else None)
            for pad in (False, True):
                for num_out in NUM_OUT[pad]:
                    for with_probs in (True, False):
                        mode = f"{kind} odd_bytes={odd_bytes} pad={pad} num_out={num_out} probs={with_probs}"
                        tokens = random_bits(rng, (FT, FH), dtype)
                        probs = random_bits(rng, (FT, FE), dtype) if with_probs else None
                        out, pout, sorted_idx = check_forward(tokens, routing_map, probs, num_out, pad, mode)
                        n = n_out_of(FT, FE, num_out, pad)
                        assert out.shape == (n, FH) and sorted_idx.shape == (n,), mode
                        assert (pout is None) == (not with_probs), mode
                        if odd_bytes:  # any non-zero byte counts as set
                            plain = forward(tokens, as_map(mask, map_dtype), probs, num_out, pad)
                            assert_all_same((out, pout, sorted_idx), plain, mode)


def test_forward_official_example():
    # spec section 5 (newest doc): rows 0.1, 0.2, 0.3, an all-ones INT8 map, topK 2
    tokens = np.repeat(np.array([[0.1], [0.2], [0.3]], np.float32), 4, axis=1)
    out, pout, sorted_idx = forward(tokens, np.ones((3, 2), np.int8), None, 6, False)
    assert pout is None
    assert out.reshape(-1).tolist() == np.repeat(np.float32([0.1, 0.2, 0.3, 0.1, 0.2, 0.3]), 4).tolist()
    assert sorted_idx.tolist() == [0, 3, 1, 4, 2, 5]


def test_forward_mirror_example_under_the_stub_convention():
    # spec section 5 (mirror sample): float bytes read as BF16, an all-ones int vector read as a BOOL map (2 ones)
    floats = np.repeat(np.float32([0.1, 0.2, 0.3]), 4)
    tokens = floats.view(np.uint8)[:24].view(BF16).reshape(3, 4)
    routing_map = np.ones(6, np.int32).view(np.uint8)[:6].view(np.bool_).reshape(3, 2)
    assert routed(routing_map).tolist() == [[True, False], [False, False], [True, False]]
    out, _, sorted_idx = forward(tokens, routing_map, None, 6, False)
    assert sorted_idx.tolist() == [0, 1, 2, 3, 4, 5]
    assert_same(out, tokens[[0, 0, 1, 1, 2, 2]])
    printed = np.concatenate([bits(out).view(np.uint8).reshape(-1), np.zeros(48, np.uint8)]).view(np.float32)
    assert printed.tolist() == np.float32([0.1] * 8 + [0.2] * 4 + [0.0] * 12).tolist()


def test_forward_well_formed_by_hand():
    # token 0 -> experts 1, 2; token 1 -> 0, 2; token 2 -> 0, 1 (topK 2)
    tokens = np.arange(3, dtype=np.float32).reshape(3, 1) + 10
    routing_map = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], np.int8)
    probs = np.arange(9, dtype=np.float32).reshape(3, 3)
    out, pout, sorted_idx = forward(tokens, routing_map, probs, 6, False)
    # expert-major rows: e0 = tokens 1, 2; e1 = 0, 2; e2 = 0, 1
    assert out[:, 0].tolist() == [11, 12, 10, 12, 10, 11]
    assert pout.tolist() == [3, 6, 1, 7, 2, 5]
    # sortedIndicesOut[t * 2 + k] = the row of the k-th copy of token t (lower expert first)
    assert sorted_idx.tolist() == [2, 4, 0, 5, 1, 3]
    assert (out[sorted_idx, 0] == np.repeat(tokens[:, 0], 2)).all()


def test_forward_num_out_tokens_is_aligned_down():
    tokens = np.arange(4, dtype=np.float32).reshape(4, 1)
    routing_map = np.ones((4, 3), np.bool_)
    for num_out, rows in [(3, 0), (4, 4), (7, 4), (8, 8), (11, 8), (12, 12)]:
        assert forward(tokens, routing_map, None, num_out, False)[0].shape == (rows, 1)
    for num_out, rows in [(2, 0), (3, 3), (5, 3), (6, 6), (11, 9), (12, 12)]:
        assert forward(tokens, routing_map, None, num_out, True)[0].shape == (rows, 1)


def test_forward_pad_mode_drops_and_pads_by_hand():
    tokens = np.arange(5, dtype=np.float32).reshape(5, 1) + 10
    # expert 0: tokens 1, 2, 4 routed (more than the capacity 2); expert 1: token 3 (fewer); expert 2: none
    routing_map = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0], [1, 0, 0]], np.int8)
    probs = np.arange(15, dtype=np.float32).reshape(5, 3) + 100
    out, pout, sorted_idx = forward(tokens, routing_map, probs, 7, True)  # capacity 7 // 3 = 2
    assert sorted_idx.tolist() == [1, 2, 3, 0, 0, 1]  # drops token 4; pads with the lowest non-routed ids
    assert out[:, 0].tolist() == [11, 12, 13, 10, 10, 11]
    assert pout.tolist() == [103, 106, 110, 101, 102, 105]  # padding rows carry their real probs


@pytest.mark.parametrize("map_dtype", MAPS, ids=MAP_IDS)
def test_forward_ill_formed_maps_follow_the_stub_convention(map_dtype):
    tokens = np.arange(4, dtype=np.float32).reshape(4, 1)
    probs = np.arange(8, dtype=np.float32).reshape(4, 2) + 1
    # fewer set entries (3) than n_out (4): the missing keys are T = 4 and sort last
    few = as_map(np.array([[1, 0], [0, 0], [1, 1], [0, 0]], bool), map_dtype)
    out, pout, sorted_idx = forward(tokens, few, probs, 4, False)  # topK 1; tok_ids = [0, 2, 2]
    assert sorted_idx.tolist() == [0, 1, 2, 3]
    assert out[:, 0].tolist() == [0, 1, 2, 3]
    assert pout.tolist() == [1, 5, 6, 0]
    # more set entries (8) than n_out (4): only the first 4 in expert-major order count
    many = as_map(np.ones((4, 2), bool), map_dtype)
    out, pout, sorted_idx = forward(tokens, many, probs, 5, False)
    assert sorted_idx.tolist() == [0, 1, 2, 3] and out[:, 0].tolist() == [0, 1, 2, 3]
    assert pout.tolist() == [1, 3, 5, 7]
    # no set entry at all: identity order, probs 0
    out, pout, sorted_idx = forward(tokens, as_map(np.zeros((4, 2), bool), map_dtype), probs, 8, False)
    assert sorted_idx.tolist() == list(range(8)) and out[:, 0].tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert not pout.any()


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_strided_inputs(dtype):
    rng = np.random.default_rng(7)
    t, e, h = 9, 6, 5
    tokens_c = random_bits(rng, (t, h), dtype)
    map_c = as_map(rng.random((t, e)) < 0.4, np.int8, rng)
    probs_c = random_bits(rng, (t, e), dtype)
    tb = random_bits(rng, (2 * t, 3 * h), dtype)
    tb[::2, ::3] = tokens_c
    mb = rng.integers(-128, 128, size=(t, 2 * e)).astype(np.int8)  # garbage between the used columns
    mb[:, ::2] = map_c
    pb = random_bits(rng, (3 * t, e), dtype)
    pb[::3] = probs_c
    layouts = {
        "step_slices": (tb[::2, ::3], mb[:, ::2], pb[::3]),
        "negative_strides": (tokens_c[::-1, ::-1].copy()[::-1, ::-1], map_c[::-1].copy()[::-1],
                             probs_c[:, ::-1].copy()[:, ::-1]),
        "transposed_copies": (np.ascontiguousarray(tokens_c.T).T, np.ascontiguousarray(map_c.T).T,
                              np.ascontiguousarray(probs_c.T).T),
        "offset_views": (np.concatenate([random_bits(rng, (2, h), dtype), tokens_c])[2:],
                         np.concatenate([np.ones((t, 1), np.int8), map_c], axis=1)[:, 1:],
                         np.concatenate([random_bits(rng, (1, e), dtype), probs_c])[1:]),
    }
    for layout, (tokens, routing_map, probs) in layouts.items():
        assert np.array_equal(bits(tokens), bits(tokens_c)) and np.array_equal(bits(probs), bits(probs_c))
        assert np.array_equal(bits(routing_map), bits(map_c)), layout
        if layout != "offset_views":
            assert not (tokens.flags.c_contiguous and routing_map.flags.c_contiguous and probs.flags.c_contiguous)
        for pad, num_out in [(False, 18), (False, 31), (True, 12), (True, 40)]:
            got = forward(tokens, routing_map, probs, num_out, pad)
            assert_all_same(got, ref_forward(tokens_c, map_c, probs_c, num_out, pad), f"{layout} pad={pad}")


def test_forward_strided_bool_map():
    rng = np.random.default_rng(8)
    tokens = random_bits(rng, (6, 3), np.float16)
    mb = as_map(rng.random((12, 8)) < 0.5, np.bool_, rng)
    routing_map = mb[::-2, 1::2]  # negative row stride, every other column
    for pad, num_out in [(False, 12), (True, 8)]:
        got = forward(tokens, routing_map, None, num_out, pad)
        assert_all_same(got, ref_forward(tokens, routing_map.copy(), None, num_out, pad))


def test_forward_empty_inputs_write_nothing():
    for t, e, h, num_out, pad in [(0, 3, 2, 0, False), (0, 3, 2, 0, True), (4, 0, 2, 0, False), (4, 0, 2, 0, True),
                                  (4, 3, 2, 3, False), (4, 3, 2, 2, True)]:
        tokens = np.ones((t, h), np.float32)
        routing_map = np.ones((t, e), np.int8)
        probs = np.ones((t, e), np.float32)
        got = check_forward(tokens, routing_map, probs, num_out, pad)
        assert got[0].shape == (0, h) and got[1].shape == (0,) and got[2].shape == (0,)


@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
def test_forward_hidden_0_matches_reference(pad):
    # permuteTokensOut has no element (spec 4, row 14): nothing is written, so sortedIndicesOut and
    # permuteProbsOut keep their zero fill; the reference must say the same
    tokens = np.ones((3, 0), np.float32)
    routing_map = np.ones((3, 2), np.int8)
    probs = np.ones((3, 2), np.float32)
    got = forward(tokens, routing_map, probs, 6, pad)
    assert got[0].shape == (6, 0) and not bits(got[1]).any() and not bits(got[2]).any()
    assert_all_same(got, spec_forward(tokens, routing_map, probs, 6, pad))
    assert_all_same(ref_forward(tokens, routing_map, probs, 6, pad), got)


# ---- backward: reference equality in every mode ----------------------------------------------------------

BT, BE, BH = 6, 4, 5


def _arbitrary_indices(rng, p, hi):
    """Out-of-range, negative and duplicate indices among valid ones."""
    idx = rng.integers(-3, hi + 3, size=p)
    if p:
        idx[rng.integers(0, p, size=min(p, 3))] = rng.choice([-2**31, 2**31 - 1, hi, -1], size=min(p, 3))
    return idx.astype(np.int32)


@pytest.mark.parametrize("map_dtype", MAPS, ids=MAP_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_matches_reference(dtype, map_dtype):
    rng = np.random.default_rng(10 + FLOATS.index(dtype) * 2 + MAPS.index(map_dtype))
    tokens = random_values(rng, (BT, BH), dtype)
    num_outs = {False: [BT, 2 * BT, 3 * BT, BT * BE], True: [BE, 2 * BE, 5 * BE, BT * BE]}
    for pad, kind, map_kind, with_probs in itertools.product((False, True), ("forward", "arbitrary"),
                                                             ("topk", "bernoulli", "odd_bytes"), (True, False)):
        for num_out in num_outs[pad]:
            # non-pad "bernoulli" maps have the wrong number of set entries for the probs scatter
            if map_kind == "topk" and not pad:
                mask = topk_mask(rng, BT, BE, num_out // BT)
            else:
                mask = rng.random((BT, BE)) < 0.5
            routing_map = as_map(mask, map_dtype, rng if map_kind == "odd_bytes" else None)
            _, _, sorted_idx = forward(tokens, routing_map, None, num_out, pad)
            p = sorted_idx.size
            if kind == "arbitrary":
                sorted_idx = _arbitrary_indices(rng, p, p if not pad else BT)
            g = random_values(rng, (p, BH), dtype)
            pg = random_values(rng, (p,), dtype) if with_probs else None
            mode = f"pad={pad} num_out={num_out} {kind} {map_kind} probs_grad={with_probs}"
            tg, prg = check_backward(g, pg, sorted_idx, routing_map, BE, BT, pad, mode)
            assert tg.shape == (BT, BH) and (prg is None) == (not with_probs), mode
            if with_probs:
                assert prg.shape == (BT, BE), mode


@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
def test_backward_routing_map_absent_without_probs_grad(pad):
    rng = np.random.default_rng(12)
    g = random_values(rng, (8, 3), np.float32)
    sorted_idx = rng.permutation(8).astype(np.int32) if not pad else rng.integers(0, 4, 8).astype(np.int32)
    tg, prg = backward(g, None, sorted_idx, None, 2, 4, pad)
    assert prg is None
    assert_same(tg, ref_backward(g, None, sorted_idx, None, 2, 4, pad)[0])
    assert_same(tg, spec_backward(g, None, sorted_idx, None, 2, 4, pad)[0])


def test_backward_official_example():
    # spec section 5, with H = 16 instead of 7168: zero grads all sent to token 0, capacity 16
    t, h, e = 4096, 16, 256
    g = np.zeros((t, h), np.float32)
    pg = np.full(t, 0.1, np.float32)
    sorted_idx = np.zeros(t, np.int32)
    tg, prg = backward(g, pg, sorted_idx, np.ones((t, e), np.int8), e, t, True)
    assert not bits(tg).any()
    assert (prg[0] == np.float32(0.1)).all() and not prg[1:].any()


def test_backward_non_pad_by_hand():
    # topK 2, T 3: token t sums rows sorted[2t], sorted[2t + 1]; indices outside [0, P) are skipped
    g = np.arange(1, 7, dtype=np.float32).reshape(6, 1) * 10
    sorted_idx = np.array([2, 4, 0, 6, -1, 5], np.int32)
    routing_map = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], np.int8)
    pg = np.arange(1, 7, dtype=np.float32)
    tg, prg = backward(g, pg, sorted_idx, routing_map, 3, 3, False)
    assert tg[:, 0].tolist() == [30 + 50, 10, 60]
    # masked scatter in expert-major order: (1,0) (2,0) (0,1) (2,1) (0,2) (1,2)
    assert prg.tolist() == [[0, 3, 5], [1, 0, 6], [2, 4, 0]]


def test_backward_pad_by_hand():
    # capacity 2, E 3: row i came from token sorted[i] and expert i // 2
    g = np.arange(1, 7, dtype=np.float32).reshape(6, 1)
    sorted_idx = np.array([1, 2, 3, 1, 9, -1], np.int32)  # 9 and -1: outside [0, T), dropped
    pg = np.arange(1, 7, dtype=np.float32) * 10
    tg, prg = backward(g, pg, sorted_idx, np.zeros((4, 3), np.bool_), 3, 4, True)
    assert tg[:, 0].tolist() == [0, 1 + 4, 2, 3]
    assert prg.tolist() == [[0, 0, 0], [10, 40, 0], [20, 0, 0], [0, 30, 0]]  # the map is not read
    # duplicate targets: tokens sum, probs keep the last row
    tg, prg = backward(g, pg, np.array([0, 0, 0, 0, 2, 2], np.int32), np.zeros((1, 1), np.int8), 3, 4, True)
    assert tg[:, 0].tolist() == [1 + 2 + 3 + 4, 0, 5 + 6, 0]
    assert prg.tolist() == [[20, 40, 0], [0, 0, 0], [0, 0, 60], [0, 0, 0]]


@pytest.mark.parametrize("map_dtype", MAPS, ids=MAP_IDS)
def test_backward_probs_scatter_with_mismatched_counts(map_dtype):
    pg = np.arange(1, 5, dtype=np.float32)
    g = np.ones((4, 1), np.float32)
    idx = np.arange(4, dtype=np.int32)
    # 6 set entries, 4 values: the last two (expert-major) stay 0; odd bytes count as set
    many = as_map(np.array([[1, 1], [1, 0], [1, 1], [0, 1]], bool), map_dtype, np.random.default_rng(1))
    _, prg = backward(g, pg, idx, many, 2, 4, False)
    assert prg.tolist() == [[1, 4], [2, 0], [3, 0], [0, 0]]
    # 2 set entries, 4 values: the extra values are ignored
    few = as_map(np.array([[0, 1], [0, 0], [1, 0], [0, 0]], bool), map_dtype)
    _, prg = backward(g, pg, idx, few, 2, 4, False)
    assert prg.tolist() == [[0, 2], [0, 0], [1, 0], [0, 0]]


@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
@pytest.mark.parametrize("dtype,tiny", [(np.float16, 2.0 ** -11), (BF16, 2.0 ** -8)], ids=["float16", "bfloat16"])
def test_backward_rounds_once_after_a_float32_sum(dtype, tiny, pad):
    # 1 + tiny + tiny: rounding after each step would give 1 (ties to even); float32 keeps 1 + 2 tiny
    g = np.array([[1.0], [tiny], [tiny]], np.float32).astype(dtype)
    idx = np.array([0, 1, 2] if not pad else [0, 0, 0], np.int32)
    tg, _ = backward(g, None, idx, None, 3, 1, pad)
    assert float(tg[0, 0]) == 1 + 2 * tiny
    assert_same(tg, ref_backward(g, None, idx, None, 3, 1, pad)[0])


@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_special_values(dtype, pad):
    with np.errstate(over="ignore", invalid="ignore"):
        specials = np.array([-0.0, -0.0, np.inf, -np.inf, 1e-40, -1e-42, 3.0e38, 3.0e38, 1.0, np.nan],
                            np.float32).astype(dtype)
        g = specials.reshape(10, 1)
        # pairs per token: -0 + -0 (+0: the sum starts from +0), inf - inf, subnormals, overflow, NaN
        idx = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], np.int32) if not pad else np.repeat(np.arange(5), 2)
        idx = idx.astype(np.int32)
        got = backward(g, specials, idx, np.ones((5, 2), np.int8), 2, 5, pad)
        assert_all_same(got, ref_backward(g, specials, idx, np.ones((5, 2), np.int8), 2, 5, pad))
    tg = got[0][:, 0].astype(np.float32)
    assert bits(got[0][0]).tolist() == [0]  # +0.0, not -0.0
    assert np.isnan(tg[1]) and np.isnan(tg[4]) and tg[3] == np.inf
    expected = np.zeros((5, 2), dtype)  # probs are copied, NaN payloads and -0.0 included
    for i in range(10):
        if pad:  # row i: token idx[i], expert i // capacity 5; the last row wins
            expected[idx[i], i // 5] = specials[i]
        else:  # the i-th set entry of the all-ones map in expert-major order
            expected[i % 5, i // 5] = specials[i]
    assert_same(got[1], expected)


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_strided_inputs(dtype):
    rng = np.random.default_rng(11)
    t, e, k, h = 8, 5, 3, 7
    p = t * k
    mask = topk_mask(rng, t, e, k)
    map_c = as_map(mask, np.bool_)
    idx_c = rng.permutation(p).astype(np.int32)
    g_c = random_values(rng, (p, h), dtype)
    pg_c = random_values(rng, (p,), dtype)
    gb = random_values(rng, (2 * p, 2 * h), dtype)
    gb[::2, ::2] = g_c
    ib = np.zeros(3 * p, np.int32)
    ib[::3] = idx_c
    views = [
        (gb[::2, ::2], pg_c[::-1].copy()[::-1], ib[::3], np.ascontiguousarray(map_c.T).T),
        (g_c[::-1, ::-1].copy()[::-1, ::-1], np.concatenate([pg_c, pg_c])[:p], idx_c[::-1].copy()[::-1],
         map_c[::-1].copy()[::-1]),
        (np.ascontiguousarray(g_c.T).T, np.repeat(pg_c, 2)[::2], np.concatenate([[5], idx_c]).astype(np.int32)[1:],
         np.concatenate([map_c, map_c], axis=1)[:, e:]),
    ]
    for pad in (False, True):
        expected = ref_backward(g_c, pg_c, idx_c if not pad else idx_c % t, map_c, e, t, pad)
        for g, pg, idx, routing_map in views:
            assert np.array_equal(bits(g), bits(g_c)) and (idx == idx_c).all() and (routing_map == map_c).all()
            got = backward(g, pg, idx if not pad else (idx % t)[::-1].copy()[::-1], routing_map, e, t, pad)
            assert_all_same(got, expected, f"pad={pad}")


@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
def test_backward_empty_inputs_write_nothing(pad):
    g = np.ones((0, 3), np.float32)
    got = check_backward(g, np.ones(0, np.float32), np.zeros(0, np.int32), np.ones((4, 2), np.int8), 2, 4, pad)
    assert got[0].shape == (4, 3) and got[1].shape == (4, 2)
    assert not bits(got[0]).any() and not bits(got[1]).any()


@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
def test_backward_hidden_0_matches_reference(pad):
    # tokensGradOut has no element (spec 4, row 9): nothing is written, probsGradOut keeps its zero fill
    g = np.ones((6, 0), np.float32)
    pg = np.ones(6, np.float32)
    idx = np.arange(6, dtype=np.int32) % (6 if not pad else 3)
    routing_map = np.ones((3, 2), np.int8)
    got = backward(g, pg, idx, routing_map, 2, 3, pad)
    assert got[0].shape == (3, 0) and got[1].shape == (3, 2) and not bits(got[1]).any()
    assert_all_same(got, spec_backward(g, pg, idx, routing_map, 2, 3, pad))
    assert_all_same(ref_backward(g, pg, idx, routing_map, 2, 3, pad), got)


# ---- mirror layer: both phases by hand ---------------------------------------------------------------------

FWD_PHASES = (aclnn.aclnnMoeTokenPermuteWithRoutingMapGetWorkspaceSize, aclnn.aclnnMoeTokenPermuteWithRoutingMap)
BWD_PHASES = (aclnn.aclnnMoeTokenPermuteWithRoutingMapGradGetWorkspaceSize,
              aclnn.aclnnMoeTokenPermuteWithRoutingMapGrad)


def fwd_mirror(r, tokens, routing_map, probs, num_out, pad, fill=None, with_pout=True):
    n = n_out_of(*routing_map.shape, num_out, pad)
    t_out = r.output((n, tokens.shape[1]), tokens.dtype, fill)
    t_pout = r.output((n,), tokens.dtype, fill) if with_pout else None
    t_sorted = r.output((n,), np.int32, fill)
    run_two_phases(*FWD_PHASES, r.tensor(tokens).handle, r.tensor(routing_map).handle,
                   None if probs is None else r.tensor(probs).handle, num_out, pad, t_out.handle,
                   None if t_pout is None else t_pout.handle, t_sorted.handle)
    return t_out.numpy(), None if t_pout is None else t_pout.numpy(), t_sorted.numpy()


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_mirror_forward_two_phases(dtype):
    rng = np.random.default_rng(1)
    tokens = random_bits(rng, (8, 5), dtype)
    probs = random_bits(rng, (8, 4), dtype)
    for map_dtype in MAPS:
        for pad, num_out, mask in [(False, 16, topk_mask(rng, 8, 4, 2)), (False, 13, rng.random((8, 4)) < 0.5),
                                   (True, 14, rng.random((8, 4)) < 0.3), (True, 32, rng.random((8, 4)) < 0.7)]:
            routing_map = as_map(mask, map_dtype)
            with Resources() as r:
                got = fwd_mirror(r, tokens, routing_map, probs, num_out, pad, fill=0x5A)
                assert_all_same(got, ref_forward(tokens, routing_map, probs, num_out, pad))
                # probs absent: both probs tensors NULL
                got = fwd_mirror(r, tokens, routing_map, None, num_out, pad, fill=0x5A, with_pout=False)
                assert_all_same(got, ref_forward(tokens, routing_map, None, num_out, pad))


def test_mirror_forward_strided_inputs_and_outputs():
    # non-contiguous outputs are allowed (spec 4: op_api view-copies into them); the offset is honoured
    rng = np.random.default_rng(2)
    tb = random_bits(rng, (12, 10), BF16)
    mb = as_map(rng.random((12, 10)) < 0.5, np.int8, rng)
    pb = random_bits(rng, (12, 10), BF16)
    tokens, routing_map, probs = tb[::-2, 1::2], mb[::2, ::-2], np.ascontiguousarray(pb[::2, :5].T).T
    for pad, num_out in [(False, 18), (True, 15)]:
        n = n_out_of(6, 5, num_out, pad)
        with Resources() as r:
            t_out = r.output((n, 5), BF16, fill=0x11, offset=3, strides=(1, n))  # column-major
            t_pout = r.output((n,), BF16, fill=0x11, strides=(3,))
            t_sorted = r.output((n,), np.int32, fill=0x11, strides=(-1,), offset=n - 1)
            run_two_phases(*FWD_PHASES, r.tensor(tokens).handle, r.tensor(routing_map).handle, r.tensor(probs).handle,
                           num_out, pad, t_out.handle, t_pout.handle, t_sorted.handle)
            got = t_out.numpy(), t_pout.numpy(), t_sorted.numpy()
            raw_out = np.empty(t_out.buffer.nbytes, np.uint8)
            t_out.buffer.download(raw_out)
            raw_pout = np.empty(t_pout.buffer.nbytes, np.uint8)
            t_pout.buffer.download(raw_pout)
        assert_all_same(got, ref_forward(tokens.copy(), routing_map.copy(), probs.copy(), num_out, pad))
        assert (raw_out[:6] == 0x11).all()  # before the offset
        gaps = raw_pout.view(np.uint16).reshape(-1, 1)[np.arange(raw_pout.size // 2) % 3 != 0]
        assert (gaps.view(np.uint8) == 0x11).all()  # between the strided elements


def bwd_mirror(r, g, pg, sorted_idx, routing_map, e_n, t_n, pad, fill=None, with_pout=True):
    t_out = r.output((t_n, g.shape[1]), g.dtype, fill)
    t_pout = r.output((t_n, e_n), g.dtype, fill) if with_pout else None
    run_two_phases(*BWD_PHASES, r.tensor(g).handle, None if pg is None else r.tensor(pg).handle,
                   r.tensor(sorted_idx).handle, None if routing_map is None else r.tensor(routing_map).handle,
                   e_n, t_n, pad, t_out.handle, None if t_pout is None else t_pout.handle)
    return t_out.numpy(), None if t_pout is None else t_pout.numpy()


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_mirror_backward_two_phases(dtype):
    rng = np.random.default_rng(6)
    t_n, e_n = 6, 4
    tokens = random_values(rng, (t_n, 3), dtype)
    for map_dtype in MAPS:
        for pad, num_out in [(False, 12), (False, 24), (True, 8), (True, 20)]:
            routing_map = as_map(topk_mask(rng, t_n, e_n, num_out // t_n) if not pad else rng.random((t_n, e_n)) < .5,
                                 map_dtype)
            _, _, sorted_idx = forward(tokens, routing_map, None, num_out, pad)
            p = sorted_idx.size
            g = random_values(rng, (p, 3), dtype)
            pg = random_values(rng, (p,), dtype)
            with Resources() as r:
                got = bwd_mirror(r, g[::-1].copy()[::-1], pg, sorted_idx, routing_map, e_n, t_n, pad, fill=0x33)
                assert_all_same(got, ref_backward(g, pg, sorted_idx, routing_map, e_n, t_n, pad))
                # probs grad input absent (routing map absent too): probsGradOut given and left as it was
                tg, prg = bwd_mirror(r, g, None, sorted_idx, None, e_n, t_n, pad, fill=0x33)
                assert_same(tg, ref_backward(g, None, sorted_idx, None, e_n, t_n, pad)[0])
                assert (bits(prg).view(np.uint8) == 0x33).all()
                # probs grad input given, probsGradOut NULL: only the tokens
                tg, prg = bwd_mirror(r, g, pg, sorted_idx, routing_map, e_n, t_n, pad, fill=0x33, with_pout=False)
                assert prg is None
                assert_same(tg, ref_backward(g, pg, sorted_idx, routing_map, e_n, t_n, pad)[0])
                # neither
                tg, _ = bwd_mirror(r, g, None, sorted_idx, None, e_n, t_n, pad, with_pout=False)
                assert_same(tg, ref_backward(g, None, sorted_idx, None, e_n, t_n, pad)[0])


def test_mirror_phase1_writes_nothing_and_phase2_consumes_the_executor():
    tokens = np.arange(12, dtype=np.float32).reshape(3, 4)
    routing_map = np.ones((3, 2), np.int8)
    with Resources() as r:
        t_out, t_pout, t_sorted = r.output((6, 4), np.float32, 0x7F), r.output((6,), np.float32, 0x7F), \
            r.output((6,), np.int32, 0x7F)
        before = acl.aclStubLiveExecutors()
        ws, ex = FWD_PHASES[0](r.tensor(tokens).handle, r.tensor(routing_map).handle,
                               r.tensor(np.ones((3, 2), np.float32)).handle, 6, False, t_out.handle, t_pout.handle,
                               t_sorted.handle)
        assert acl.aclStubLiveExecutors() == before + 1
        for t in (t_out, t_pout, t_sorted):
            assert (bits(t.numpy()).view(np.uint8) == 0x7F).all()
        FWD_PHASES[1](None, ws, ex, None)
        acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results exist after this
        assert acl.aclStubLiveExecutors() == before
        assert status_of(FWD_PHASES[1], None, ws, ex, None) == INVALID
        assert status_of(FWD_PHASES[1], None, 0, None, None) == NULLPTR
        assert t_sorted.numpy().tolist() == [0, 3, 1, 4, 2, 5]

        g_out, g_pout = r.output((3, 4), np.float32, 0x7F), r.output((3, 2), np.float32, 0x7F)
        ws, ex = BWD_PHASES[0](r.tensor(t_out.numpy()).handle, r.tensor(np.ones(6, np.float32)).handle,
                               t_sorted.handle, r.tensor(routing_map).handle, 2, 3, False, g_out.handle, g_pout.handle)
        assert (bits(g_out.numpy()).view(np.uint8) == 0x7F).all()
        BWD_PHASES[1](None, ws, ex, None)
        acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results exist after this
        assert status_of(BWD_PHASES[1], None, ws, ex, None) == INVALID
        assert_same(g_out.numpy(), tokens * 2)
        assert (g_pout.numpy() == 1).all()


def test_mirror_all_outputs_empty_gives_an_empty_executor():
    with Resources() as r:
        # n_out = 0 (numOutTokens below T): every output empty
        t_out, t_pout, t_sorted = r.output((0, 3), np.float32), r.output((0,), np.float32), r.output((0,), np.int32)
        ws, ex = FWD_PHASES[0](r.tensor(np.ones((4, 3), np.float32)).handle, r.tensor(np.ones((4, 2), np.int8)).handle,
                               r.tensor(np.ones((4, 2), np.float32)).handle, 3, False, t_out.handle, t_pout.handle,
                               t_sorted.handle)
        assert ws == 0
        FWD_PHASES[1](None, 0, ex, None)
        g_out, g_pout = r.output((4, 3), np.float32, 0x44), r.output((4, 2), np.float32, 0x44)
        ws, ex = BWD_PHASES[0](r.tensor(np.ones((0, 3), np.float32)).handle, r.tensor(np.ones(0, np.float32)).handle,
                               r.tensor(np.zeros(0, np.int32)).handle, r.tensor(np.ones((4, 2), np.int8)).handle, 2, 4,
                               False, g_out.handle, g_pout.handle)
        assert ws == 0
        BWD_PHASES[1](None, 0, ex, None)
        acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results exist after this
        assert (bits(g_out.numpy()).view(np.uint8) == 0x44).all()
        assert (bits(g_pout.numpy()).view(np.uint8) == 0x44).all()


def test_mirror_hidden_0_writes_nothing():
    with Resources() as r:
        t_out, t_pout, t_sorted = r.output((6, 0), np.float32), r.output((6,), np.float32, 0x44), \
            r.output((6,), np.int32, 0x44)
        run_two_phases(*FWD_PHASES, r.tensor(np.ones((3, 0), np.float32)).handle,
                       r.tensor(np.ones((3, 2), np.int8)).handle, r.tensor(np.ones((3, 2), np.float32)).handle, 6,
                       False, t_out.handle, t_pout.handle, t_sorted.handle)
        assert (t_sorted.numpy().view(np.uint8) == 0x44).all() and (t_pout.numpy().view(np.uint8) == 0x44).all()
        g_out, g_pout = r.output((3, 0), np.float32), r.output((3, 2), np.float32, 0x44)
        run_two_phases(*BWD_PHASES, r.tensor(np.ones((6, 0), np.float32)).handle,
                       r.tensor(np.ones(6, np.float32)).handle, r.tensor(np.arange(6, dtype=np.int32)).handle,
                       r.tensor(np.ones((3, 2), np.int8)).handle, 2, 3, False, g_out.handle, g_pout.handle)
        assert (g_pout.numpy().view(np.uint8) == 0x44).all()


# ---- property-based tests ------------------------------------------------------------------------------------

@st.composite
def forward_cases(draw, max_tokens=12, max_experts=6, max_hidden=4):
    t = draw(st.integers(0, max_tokens))
    e = draw(st.integers(0, max_experts))
    h = draw(st.integers(0, max_hidden))
    dtype = draw(st.sampled_from(FLOATS))
    map_dtype = draw(st.sampled_from(MAPS))
    pad = draw(st.booleans())
    with_probs = draw(st.booleans())
    kind = draw(st.sampled_from(["topk", "topk", "bernoulli", "clear", "set"]))
    odd = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "topk":
        k = draw(st.integers(0, e))
        mask = topk_mask(rng, t, e, k)
        num_out = draw(st.sampled_from([t * k, t * k + draw(st.integers(0, max(t - 1, 0))),
                                        draw(st.integers(0, t * e))]))
        num_out = min(num_out, t * e)
    else:
        mask = {"bernoulli": rng.random((t, e)) < draw(st.floats(0, 1)), "clear": np.zeros((t, e), bool),
                "set": np.ones((t, e), bool)}[kind]
        num_out = draw(st.integers(0, t * e))
    tokens = random_bits(rng, (t, h), dtype)
    routing_map = as_map(mask, map_dtype, rng if odd else None)
    probs = random_bits(rng, (t, e), dtype) if with_probs else None
    return tokens, routing_map, probs, num_out, pad


@settings(max_examples=60, deadline=None)
@given(forward_cases())
def test_property_forward(case):
    tokens, routing_map, probs, num_out, pad = case
    check_forward(tokens, routing_map, probs, num_out, pad)


@st.composite
def backward_cases(draw, max_tokens=10, max_experts=6, max_hidden=4):
    t = draw(st.integers(1, max_tokens))
    e = draw(st.integers(1, max_experts))
    h = draw(st.integers(0, max_hidden))
    dtype = draw(st.sampled_from(FLOATS))
    map_dtype = draw(st.sampled_from(MAPS))
    pad = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if pad:
        p = draw(st.integers(0, t * e))
        mask = rng.random((t, e)) < 0.5
    else:
        k = draw(st.integers(1, e))
        p = t * k
        mask = topk_mask(rng, t, e, k) if draw(st.booleans()) else rng.random((t, e)) < 0.5
    routing_map = as_map(mask, map_dtype, rng if draw(st.booleans()) else None)
    source = draw(st.sampled_from(["forward", "arbitrary"]))
    if source == "forward" and h and (not pad or p // e * e == p):
        _, _, sorted_idx = forward(np.ones((t, 1), dtype), routing_map, None, p, pad)
    else:
        sorted_idx = _arbitrary_indices(rng, p, p if not pad else t)
    g = random_values(rng, (p, h), dtype)
    with_probs = draw(st.booleans())
    pg = random_values(rng, (p,), dtype) if with_probs else None
    if not with_probs and draw(st.booleans()):
        routing_map = None  # only needed with the probs gradient
    return g, pg, sorted_idx, routing_map, e, t, pad


@settings(max_examples=60, deadline=None)
@given(backward_cases())
def test_property_backward(case):
    g, pg, sorted_idx, routing_map, e, t, pad = case
    check_backward(g, pg, sorted_idx, routing_map, e, t, pad)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(FLOATS), st.sampled_from(MAPS), st.booleans(), st.booleans())
def test_property_results_do_not_depend_on_the_thread_count(seed, dtype, map_dtype, pad, with_probs):
    # Big enough that the map scans, row copies, gather-sums and index-adds are split between threads.
    rng = np.random.default_rng(seed)
    t, e, h = int(rng.integers(6000, 9000)), int(rng.integers(8, 40)), 16
    k = int(rng.integers(1, 5))
    mask = topk_mask(rng, t, e, k) if not pad else rng.random((t, e)) < rng.random()
    routing_map = as_map(mask, map_dtype, rng if rng.random() < 0.5 else None)
    tokens = random_bits(rng, (t, h), dtype)
    probs = random_bits(rng, (t, e), dtype) if with_probs else None
    num_out = t * k + int(rng.integers(0, t)) if not pad else int(rng.integers(e, t * e // 2))
    results = []
    for count in (1, 2, 3):
        with threads(count):
            fwd = forward(tokens, routing_map, probs, num_out, pad)
            p = fwd[0].shape[0]
            g = random_values(np.random.default_rng(seed), (p, h), dtype)
            pg = random_values(np.random.default_rng(seed + 1), (p,), dtype) if with_probs else None
            bwd = backward(g, pg, fwd[2], routing_map, e, t, pad)
        results.append((fwd, bwd))
    for fwd, bwd in results[1:]:
        assert_all_same(fwd, results[0][0])
        assert_all_same(bwd, results[0][1])
    fwd, bwd = results[0]
    assert_all_same(fwd, ref_forward(tokens, routing_map, probs, num_out, pad))
    assert_all_same(bwd, ref_backward(g, pg, fwd[2], routing_map, e, t, pad))


# ---- round trips -----------------------------------------------------------------------------------------------

RT_SIZES = {  # drop_and_pad -> extra sizes besides the defaults
    False: [dict(t=1, e=1, k=1), dict(t=5, e=6, k=6), dict(t=9, e=3, k=1), dict(t=2, e=8, k=3, h=1)],
    True: [dict(t=6, e=4, capacity=1), dict(t=6, e=4, capacity=6), dict(t=1, e=1, capacity=1),
           dict(t=9, e=2, capacity=7, h=1), dict(t=5, e=7, capacity=0)],
}


@pytest.mark.parametrize("with_probs", [True, False], ids=["probs", "no_probs"])
@pytest.mark.parametrize("drop_and_pad", [False, True], ids=["no_pad", "pad"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_trip(dtype, drop_and_pad, with_probs):
    rng = np.random.default_rng(21)
    for _ in range(3):
        rt = testing.check_pair("moe_token_permute_with_routing_map", rng, dtype=dtype, drop_and_pad=drop_and_pad,
                                with_probs=with_probs)
        assert len(rt.pairs) == (2 if with_probs else 1)
        assert f"drop_and_pad={drop_and_pad}" in rt.mode
        y, g, x, gx = rt.pairs[0]
        assert y.shape == ((3 * 4, 5) if drop_and_pad else (6 * 2, 5)) and gx.shape == x.shape == (6, 5)
    for sizes in RT_SIZES[drop_and_pad]:
        rt = testing.check_pair("moe_token_permute_with_routing_map", rng, dtype=dtype, drop_and_pad=drop_and_pad,
                                with_probs=with_probs, **sizes)
        assert len(rt.pairs) == (2 if with_probs else 1)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_property_round_trip(data):
    t = data.draw(st.integers(1, 10))
    e = data.draw(st.integers(1, 6))
    pad = data.draw(st.booleans())
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    testing.check_pair("moe_token_permute_with_routing_map", rng,
                       dtype=data.draw(st.sampled_from(["float32", "float16", "bfloat16"])), t=t, e=e,
                       k=data.draw(st.integers(1, e)), h=data.draw(st.integers(1, 4)), drop_and_pad=pad,
                       capacity=data.draw(st.integers(0, t)), with_probs=data.draw(st.booleans()))


# ---- validation through the mirror layer ---------------------------------------------------------------------

Z2, Z1 = (0, 0), (0,)  # zero strides: huge tensors over one element (phase 1 reads no data)
FWD_BASE = dict(tokens=T((4, 3)), map=T((4, 2), I8), probs=T((4, 2)), num_out=8, pad=False, out=T((8, 3)),
                pout=T((8,)), sorted=T((8,), I32))
NO_PROBS = dict(probs=None, pout=None)
FWD_EMPTY = dict(tokens=T((0, 3)), map=T((0, 2), I8), probs=T((0, 2)), num_out=0, out=T((0, 3)), pout=T((0,)),
                 sorted=T((0,), I32))
N_OUT_0 = dict(num_out=3, out=T((0, 3)), pout=T((0,)), sorted=T((0,), I32))
TOPK_513 = dict(NO_PROBS, tokens=T((1, 3)), map=T((1, 513), I8), num_out=513, out=T((513, 3)), sorted=T((513,), I32))


def _huge(t, e, n_out):
    return dict(NO_PROBS, tokens=T((t, 3), strides=Z2), map=T((t, e), I8, strides=Z2), num_out=n_out,
                out=T((n_out, 3), strides=Z2), sorted=T((n_out,), I32, strides=Z1))


FWD_CASES = [
    # successes around the rules
    ("ok", {}, 0),
    ("ok_probs_absent", NO_PROBS, 0),
    ("ok_bool_map", {"map": T((4, 2), BOOL)}, 0),
    ("ok_float16", {"tokens": T((4, 3), FP16), "probs": T((4, 2), FP16), "out": T((8, 3), FP16),
                    "pout": T((8,), FP16)}, 0),
    ("ok_bfloat16", {"tokens": T((4, 3), BF), "probs": T((4, 2), BF), "out": T((8, 3), BF), "pout": T((8,), BF)}, 0),
    ("ok_pad", {"pad": True, "num_out": 7, "out": T((6, 3)), "pout": T((6,)), "sorted": T((6,), I32)}, 0),
    ("ok_num_out_not_multiple", {"num_out": 7, "out": T((4, 3)), "pout": T((4,)), "sorted": T((4,), I32)}, 0),
    ("ok_num_out_T_times_E", {"num_out": 8}, 0),
    ("ok_strided_inputs", {"tokens": T((4, 3), strides=(1, 4)), "map": T((4, 2), I8, strides=(1, 4)),
                           "probs": T((4, 2), strides=(-2, -1))}, 0),
    ("ok_strided_outputs", {"out": T((8, 3), strides=(1, 8)), "pout": T((8,), strides=(2,)),
                            "sorted": T((8,), I32, strides=(3,))}, 0),
    ("ok_format_nchw", {"tokens": T((4, 3), fmt=NCHW), "map": T((4, 2), I8, fmt=NCHW)}, 0),
    ("ok_T_below_limit", _huge(16777214, 1, 16777214), 0),
    ("ok_pad_sort_length_unchecked", dict(_huge(8388608, 2, 16777216), pad=True), 0),
    # 1, 2: NULL
    ("null_tokens", {"tokens": None}, NULLPTR),
    ("null_routing_map", {"map": None}, NULLPTR),
    ("null_permute_tokens_out", {"out": None}, NULLPTR),
    ("null_sorted_indices_out", {"sorted": None}, NULLPTR),
    ("null_permute_probs_out_with_probs", {"pout": None}, NULLPTR),
    # 3: tokens / permuteTokensOut dtype, format
    ("tokens_int32", {"tokens": T((4, 3), I32)}, INVALID),
    ("tokens_double", {"tokens": T((4, 3), F64)}, INVALID),
    ("tokens_int8", {"tokens": T((4, 3), I8)}, INVALID),
    ("permute_tokens_out_int8", {"out": T((8, 3), I8)}, INVALID),
    ("tokens_format_nz", {"tokens": T((4, 3), fmt=NZ)}, INVALID),
    ("permute_tokens_out_format_nz", {"out": T((8, 3), fmt=NZ)}, INVALID),
    # 4: routing map dtype
    ("routing_map_int32", {"map": T((4, 2), I32)}, INVALID),
    ("routing_map_uint8", {"map": T((4, 2), U8)}, INVALID),
    ("routing_map_float16", {"map": T((4, 2), FP16)}, INVALID),
    ("routing_map_format_nz", {"map": T((4, 2), I8, fmt=NZ)}, INVALID),
    # 5, 6
    ("permute_tokens_out_dtype_differs", {"out": T((8, 3), BF)}, INVALID),
    ("sorted_indices_out_int64", {"sorted": T((8,), I64)}, INVALID),
    ("sorted_indices_out_format_nz", {"sorted": T((8,), I32, fmt=NZ)}, INVALID),
    # 7: probs dtype
    ("probs_int32", {"probs": T((4, 2), I32)}, INVALID),
    ("probs_dtype_differs", {"probs": T((4, 2), FP16)}, INVALID),
    ("probs_format_nz", {"probs": T((4, 2), fmt=NZ)}, INVALID),
    # 8: permuteProbsOut dtype; without probs the stub reports 161001 where the real op_api crashes
    ("permute_probs_out_int32", {"pout": T((8,), I32)}, INVALID),
    ("permute_probs_out_dtype_differs", {"pout": T((8,), FP16)}, INVALID),
    ("permute_probs_out_without_probs", {"probs": None}, NULLPTR),
    ("permute_probs_out_int32_without_probs", {"probs": None, "pout": T((8,), I32)}, INVALID),
    # 9: ranks
    ("routing_map_1d", {"map": T((8,), I8)}, INVALID),
    ("routing_map_3d", {"map": T((4, 2, 1), I8)}, INVALID),
    ("routing_map_0d", {"map": T((), I8)}, INVALID),
    ("probs_1d", {"probs": T((8,))}, INVALID),
    ("probs_3d", {"probs": T((4, 2, 1))}, INVALID),
    # 10: numOutTokens
    ("num_out_tokens_negative", {"num_out": -1}, INVALID),
    ("num_out_tokens_above_T_times_E", {"num_out": 9}, INVALID),
    ("num_out_tokens_int64_min", {"num_out": -2**63}, INVALID),
    # 11: T, E limits
    ("T_at_limit", dict(NO_PROBS, map=T((16777215, 1), I8, strides=Z2), num_out=0, out=T((0, 3)),
                        sorted=T((0,), I32)), INVALID),
    ("E_at_limit", dict(NO_PROBS, map=T((1, 16777215), I8, strides=Z2), num_out=0, out=T((0, 3)),
                        sorted=T((0,), I32)), INVALID),
    # 12, 13: output rows
    ("permute_tokens_out_rows", {"out": T((7, 3))}, INVALID),
    ("permute_tokens_out_rows_pad", {"pad": True, "num_out": 7, "out": T((7, 3)), "pout": T((6,)),
                                     "sorted": T((6,), I32)}, INVALID),
    ("permute_tokens_out_0d", {"out": T(())}, INVALID),
    ("permute_probs_out_length", {"pout": T((7,))}, INVALID),
    # 14: empty
    ("empty_T_0", FWD_EMPTY, 0),
    ("empty_E_0", dict(FWD_EMPTY, tokens=T((4, 3)), map=T((4, 0), I8), probs=T((4, 0))), 0),
    ("empty_n_out_0", N_OUT_0, 0),
    ("empty_outputs_skip_later_checks", dict(N_OUT_0, tokens=T((5, 3, 1)), probs=T((2, 9))), 0),
    ("empty_outputs_still_check_dtypes", dict(N_OUT_0, map=T((4, 2), I32)), INVALID),
    ("empty_outputs_still_check_num_out", dict(FWD_EMPTY, num_out=1), INVALID),
    ("hidden_0", {"tokens": T((4, 0)), "out": T((8, 0))}, 0),
    # 15: tiling
    ("tokens_rows_differ", {"tokens": T((5, 3))}, INNER_NULLPTR),
    ("topk_513", TOPK_513, INNER_NULLPTR),
    ("topk_513_pad", dict(TOPK_513, pad=True), INNER_NULLPTR),
    ("topk_512", dict(TOPK_513, map=T((1, 600), I8), num_out=512, out=T((512, 3)), sorted=T((512,), I32)), 0),
    ("sort_length_at_limit", _huge(8388608, 2, 16777216), INNER_NULLPTR),
    # 16: stub-only shapes
    ("tokens_1d", {"tokens": T((4,))}, INVALID),
    ("tokens_3d", {"tokens": T((4, 3, 1))}, INVALID),
    ("probs_cols_differ", {"probs": T((4, 3))}, INVALID),
    ("probs_rows_differ", {"probs": T((5, 2))}, INVALID),
    ("permute_tokens_out_1d", {"out": T((8,))}, INVALID),
    ("permute_tokens_out_cols", {"out": T((8, 4))}, INVALID),
    ("permute_tokens_out_3d", {"out": T((8, 3, 1))}, INVALID),
    ("sorted_indices_out_2d", {"sorted": T((8, 1), I32)}, INVALID),
    ("sorted_indices_out_length", {"sorted": T((9,), I32)}, INVALID),
    ("permute_probs_out_2d", {"pout": T((8, 1))}, INVALID),
]


def fwd_args(over):
    a = dict(FWD_BASE, **over)
    return [a["tokens"], a["map"], a["probs"], a["num_out"], a["pad"], a["out"], a["pout"], a["sorted"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in FWD_CASES], ids=[c[0] for c in FWD_CASES])
def test_mirror_forward_validation(over, status):
    got, _ = phase1(FWD_PHASES[0], fwd_args(over))
    assert got == status


GRAD_BASE = dict(g=T((8, 3)), pg=T((8,)), idx=T((8,), I32), map=T((4, 2), I8), e=2, t=4, pad=False, out=T((4, 3)),
                 pout=T((4, 2)))
NO_PG = dict(pg=None, map=None, pout=None)
TOPK_513_GRAD = dict(t=1, g=T((513, 3)), pg=T((513,)), idx=T((513,), I32), map=T((1, 2), I8), out=T((1, 3)),
                     pout=T((1, 2)))

GRAD_CASES = [
    ("ok", {}, 0),
    ("ok_probs_grad_absent", NO_PG, 0),
    ("ok_probs_grad_absent_map_given", {"pg": None, "pout": None}, 0),
    ("ok_probs_grad_out_unchecked_without_probs_grad", dict(NO_PG, pout=T((7, 7), FP16, strides=(1, 7))), 0),
    ("ok_probs_grad_without_probs_grad_out", {"pout": None}, 0),
    ("ok_map_shape_unchecked_without_probs_grad_out", {"pout": None, "map": T((3, 5), I8)}, 0),
    ("ok_bool_map", {"map": T((4, 2), BOOL)}, 0),
    ("ok_float16", {"g": T((8, 3), FP16), "pg": T((8,), FP16), "out": T((4, 3), FP16), "pout": T((4, 2), FP16)}, 0),
    ("ok_bfloat16", {"g": T((8, 3), BF), "pg": T((8,), BF), "out": T((4, 3), BF), "pout": T((4, 2), BF)}, 0),
    ("ok_pad", {"pad": True}, 0),
    ("ok_pad_any_rows", {"pad": True, "g": T((5, 3)), "pg": T((5,)), "idx": T((5,), I32)}, 0),
    ("ok_pad_map_shape_unchecked", {"pad": True, "map": T((3, 5), I8)}, 0),
    ("ok_pad_no_topk_limit", dict(TOPK_513_GRAD, pad=True), 0),
    ("ok_topk_512", dict(TOPK_513_GRAD, g=T((512, 3)), pg=T((512,)), idx=T((512,), I32)), 0),
    ("ok_strided_inputs", {"g": T((8, 3), strides=(1, 8)), "idx": T((8,), I32, strides=(-1,)),
                           "map": T((4, 2), I8, strides=(1, 4)), "pg": T((8,), strides=(2,))}, 0),
    # 1: attributes, before the NULL checks
    ("num_experts_0", {"e": 0}, INVALID),
    ("num_experts_negative", {"e": -1}, INVALID),
    ("tokens_num_0", {"t": 0}, INVALID),
    ("tokens_num_negative", {"t": -4}, INVALID),
    ("attributes_before_nulls", {"t": 0, "g": None, "idx": None}, INVALID),
    # 2, 3: NULL
    ("null_permuted_token_output_grad", {"g": None}, NULLPTR),
    ("null_sorted_indices", {"idx": None}, NULLPTR),
    ("null_tokens_grad_out", {"out": None}, NULLPTR),
    ("null_routing_map_with_probs_grad", {"map": None}, NULLPTR),
    ("null_routing_map_with_probs_grad_pad", {"map": None, "pad": True}, NULLPTR),
    ("null_routing_map_with_probs_grad_no_output", {"map": None, "pout": None}, NULLPTR),
    # 4..7: dtypes and formats
    ("grad_int32", {"g": T((8, 3), I32)}, INVALID),
    ("grad_double", {"g": T((8, 3), F64)}, INVALID),
    ("grad_format_nz", {"g": T((8, 3), fmt=NZ)}, INVALID),
    ("probs_grad_int32", {"pg": T((8,), I32)}, INVALID),
    ("probs_grad_dtype_differs", {"pg": T((8,), FP16)}, INVALID),
    ("routing_map_int32", {"map": T((4, 2), I32)}, INVALID),
    ("routing_map_uint8", {"map": T((4, 2), U8)}, INVALID),
    ("routing_map_dtype_checked_without_probs_grad", {"pg": None, "pout": None, "map": T((4, 2), FP32)}, INVALID),
    ("sorted_indices_int64", {"idx": T((8,), I64)}, INVALID),
    ("sorted_indices_float32", {"idx": T((8,), FP32)}, INVALID),
    ("sorted_indices_format_nz", {"idx": T((8,), I32, fmt=NZ)}, INVALID),
    # 8: ranks
    ("grad_1d", {"g": T((24,))}, INVALID),
    ("grad_3d", {"g": T((8, 3, 1))}, INVALID),
    ("routing_map_1d", {"map": T((8,), I8)}, INVALID),
    ("routing_map_3d", {"map": T((4, 2, 1), I8)}, INVALID),
    ("probs_grad_2d", {"pg": T((8, 1))}, INVALID),
    # 9: empty
    ("empty_P_0", {"g": T((0, 3)), "pg": T((0,)), "idx": T((0,), I32)}, 0),
    ("hidden_0", {"g": T((8, 0)), "out": T((4, 0))}, 0),
    ("tokens_grad_out_empty", {"out": T((4, 0))}, 0),
    ("empty_outputs_skip_later_checks", {"g": T((0, 3)), "idx": T((5,), I32), "pg": T((2,)), "out": T((7, 3)),
                                         "pout": T((1,), FP16), "map": T((9, 9), I8)}, 0),
    ("empty_outputs_still_check_dtypes", {"g": T((0, 3)), "pg": T((0,)), "idx": T((0,), I64)}, INVALID),
    # 10: tiling
    ("topk_513", TOPK_513_GRAD, INNER_NULLPTR),
    # 11: stub-only
    ("tokens_grad_out_dtype_differs", {"out": T((4, 3), BF)}, INVALID),
    ("tokens_grad_out_not_contiguous", {"out": T((4, 3), strides=(1, 4))}, INVALID),
    ("tokens_grad_out_rows", {"out": T((5, 3))}, INVALID),
    ("tokens_grad_out_cols", {"out": T((4, 4))}, INVALID),
    ("tokens_grad_out_1d", {"out": T((12,))}, INVALID),
    ("sorted_indices_2d", {"idx": T((8, 1), I32)}, INVALID),
    ("sorted_indices_length", {"idx": T((9,), I32)}, INVALID),
    ("sorted_indices_length_pad", {"idx": T((7,), I32), "pad": True}, INVALID),
    ("P_not_multiple_of_T", {"g": T((9, 3)), "pg": T((9,)), "idx": T((9,), I32)}, INVALID),
    ("P_below_T", {"g": T((2, 3)), "pg": T((2,)), "idx": T((2,), I32)}, INVALID),
    ("probs_grad_length", {"pg": T((7,))}, INVALID),
    ("probs_grad_out_dtype_differs", {"pout": T((4, 2), FP16)}, INVALID),
    ("probs_grad_out_not_contiguous", {"pout": T((4, 2), strides=(1, 4))}, INVALID),
    ("probs_grad_out_shape", {"pout": T((4, 3))}, INVALID),
    ("probs_grad_out_shape_pad", {"pout": T((5, 2)), "pad": True}, INVALID),
    ("probs_grad_out_1d", {"pout": T((8,))}, INVALID),
    ("routing_map_shape", {"map": T((4, 3), I8)}, INVALID),
]


def grad_args(over):
    a = dict(GRAD_BASE, **over)
    return [a["g"], a["pg"], a["idx"], a["map"], a["e"], a["t"], a["pad"], a["out"], a["pout"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_mirror_backward_validation(over, status):
    got, _ = phase1(BWD_PHASES[0], grad_args(over))
    assert got == status


# ---- validation through the high-level functions -------------------------------------------------------------

def _fx(**over):
    """High-level forward arguments: a valid call with some replaced."""
    a = dict(tokens=np.ones((4, 3), np.float32), routing_map=np.ones((4, 2), np.int8),
             probs=np.ones((4, 2), np.float32), num_out_tokens=8, drop_and_pad=False)
    a.update(over)
    return lambda: forward(a["tokens"], a["routing_map"], a["probs"], a["num_out_tokens"], a["drop_and_pad"])


def _bx(**over):
    a = dict(g=np.ones((8, 3), np.float32), pg=np.ones(8, np.float32), idx=np.arange(8, dtype=np.int32),
             routing_map=np.ones((4, 2), np.int8), num_experts=2, tokens_num=4, drop_and_pad=False)
    a.update(over)
    return lambda: backward(a["g"], a["pg"], a["idx"], a["routing_map"], a["num_experts"], a["tokens_num"],
                            a["drop_and_pad"])


HIGH_LEVEL_CASES = [
    ("fwd_tokens_int32", _fx(tokens=np.ones((4, 3), np.int32)), INVALID, "tokens"),
    ("fwd_tokens_float64", _fx(tokens=np.ones((4, 3))), INVALID, "tokens"),
    ("fwd_routing_map_int32", _fx(routing_map=np.ones((4, 2), np.int32)), INVALID, "routingMap"),
    ("fwd_routing_map_uint8", _fx(routing_map=np.ones((4, 2), np.uint8)), INVALID, "routingMap"),
    ("fwd_probs_dtype_differs", _fx(probs=np.ones((4, 2), np.float16)), INVALID, "probsOptional"),
    ("fwd_probs_1d", _fx(probs=np.ones(8, np.float32)), INVALID, "probsOptional"),
    ("fwd_probs_shape", _fx(probs=np.ones((4, 3), np.float32)), INVALID, "probsOptional"),
    ("fwd_num_out_tokens_negative", _fx(num_out_tokens=-1), INVALID, "numOutTokens"),
    ("fwd_num_out_tokens_above_T_times_E", _fx(num_out_tokens=9), INVALID, "numOutTokens"),
    ("fwd_tokens_rows_differ", _fx(tokens=np.ones((5, 3), np.float32)), INNER_NULLPTR, "tokens.shape[0]"),
    ("fwd_topk_513", _fx(tokens=np.ones((1, 3), np.float32), routing_map=np.ones((1, 513), np.bool_), probs=None,
                         num_out_tokens=513), INNER_NULLPTR, "topK"),
    ("fwd_topk_513_pad", _fx(tokens=np.ones((1, 3), np.float32), routing_map=np.ones((1, 513), np.bool_), probs=None,
                             num_out_tokens=513, drop_and_pad=True), INNER_NULLPTR, "topK"),
    ("fwd_tokens_3d", _fx(tokens=np.ones((4, 3, 1), np.float32)), INVALID, "tokens"),
    ("bwd_num_experts_0", _bx(num_experts=0), INVALID, "numExperts"),
    ("bwd_num_experts_negative", _bx(num_experts=-1), INVALID, "numExperts"),
    ("bwd_tokens_num_0", _bx(tokens_num=0), INVALID, "tokensNum"),
    ("bwd_tokens_num_negative", _bx(tokens_num=-4), INVALID, "tokensNum"),
    ("bwd_grad_int32", _bx(g=np.ones((8, 3), np.int32)), INVALID, "permutedTokenOutputGrad"),
    ("bwd_probs_grad_dtype_differs", _bx(pg=np.ones(8, BF16)), INVALID, "permutedProbsOutputGradOptional"),
    ("bwd_probs_grad_2d", _bx(pg=np.ones((8, 1), np.float32)), INVALID, "permutedProbsOutputGradOptional"),
    ("bwd_routing_map_int32", _bx(routing_map=np.ones((4, 2), np.int32)), INVALID, "routingMapOptional"),
    ("bwd_routing_map_absent", _bx(routing_map=None), NULLPTR, "routingMapOptional"),
    ("bwd_routing_map_absent_pad", _bx(routing_map=None, drop_and_pad=True), NULLPTR, "routingMapOptional"),
    ("bwd_routing_map_shape", _bx(routing_map=np.ones((4, 3), np.int8)), INVALID, "routingMapOptional"),
    ("bwd_sorted_indices_int64", _bx(idx=np.arange(8)), INVALID, "sortedIndices"),
    ("bwd_sorted_indices_length", _bx(idx=np.arange(9, dtype=np.int32)), INVALID, "sortedIndices"),
    ("bwd_grad_3d", _bx(g=np.ones((8, 3, 1), np.float32)), INVALID, "permutedTokenOutputGrad"),
    ("bwd_topk_513", _bx(g=np.ones((513, 3), np.float32), pg=None, idx=np.arange(513, dtype=np.int32),
                         tokens_num=1), INNER_NULLPTR, "topK"),
    ("bwd_P_not_multiple_of_T", _bx(g=np.ones((9, 3), np.float32), pg=None, idx=np.arange(9, dtype=np.int32)),
     INVALID, "tokensNum"),
    ("bwd_probs_grad_length", _bx(pg=np.ones(7, np.float32)), INVALID, "permutedProbsOutputGradOptional"),
]


@pytest.mark.parametrize("name,call,status,argument", HIGH_LEVEL_CASES, ids=[c[0] for c in HIGH_LEVEL_CASES])
def test_high_level_validation(name, call, status, argument):
    op = "aclnnMoeTokenPermuteWithRoutingMapGrad" if name.startswith("bwd_") else "aclnnMoeTokenPermuteWithRoutingMap"
    assert_rejected(call, status, argument, op + "GetWorkspaceSize")


# ---- validation from C ---------------------------------------------------------------------------------------

C_SOURCE = Path(__file__).resolve().parent / "c" / "validation_permute_with_routing_map.c"

_C_OK = ["fwd_ok", "fwd_ok_probs_null", "fwd_ok_bool_map", "fwd_ok_bf16", "fwd_ok_fp16", "fwd_ok_pad",
         "fwd_ok_num_out_not_multiple", "fwd_ok_out_not_contiguous", "fwd_ok_format_nchw", "fwd_empty_T_0",
         "fwd_empty_n_out_0_skips_later_checks", "fwd_hidden_0",
         "bwd_ok", "bwd_ok_probs_grad_null", "bwd_ok_pout_unchecked", "bwd_ok_probs_grad_without_pout",
         "bwd_ok_bool_map", "bwd_ok_bf16", "bwd_ok_fp16", "bwd_ok_pad", "bwd_ok_pad_map_shape_unchecked",
         "bwd_ok_pad_large_ratio", "bwd_empty_P_0", "bwd_hidden_0", "bwd_empty_skips_later_checks"]
_C_NULLPTR = ["fwd_null_tokens", "fwd_null_routing_map", "fwd_null_permute_tokens_out", "fwd_null_sorted_indices_out",
              "fwd_null_workspace_size", "fwd_null_executor", "fwd_null_permute_probs_out_with_probs",
              "fwd_pout_without_probs",
              "bwd_null_grad", "bwd_null_sorted_indices", "bwd_null_tokens_grad_out", "bwd_null_workspace_size",
              "bwd_null_executor", "bwd_null_routing_map_with_probs_grad", "bwd_null_routing_map_with_probs_grad_pad"]
_C_INNER_NULLPTR = ["fwd_tokens_rows", "fwd_topk_513", "fwd_topk_513_pad", "fwd_sort_length_at_limit",
                    "bwd_topk_513"]
_C_INVALID = [
    "fwd_tokens_int32", "fwd_tokens_double", "fwd_out_int8", "fwd_tokens_format_nz", "fwd_routing_map_int32",
    "fwd_routing_map_uint8", "fwd_routing_map_fp16", "fwd_routing_map_format_nz", "fwd_out_dtype_differs",
    "fwd_sorted_int64", "fwd_probs_int32", "fwd_probs_dtype_differs", "fwd_pout_int32", "fwd_pout_dtype_differs",
    "fwd_routing_map_1d", "fwd_routing_map_3d", "fwd_probs_1d", "fwd_probs_3d", "fwd_num_out_negative",
    "fwd_num_out_above_T_times_E", "fwd_T_at_limit", "fwd_E_at_limit", "fwd_out_rows", "fwd_out_rows_pad",
    "fwd_pout_length", "fwd_tokens_1d", "fwd_tokens_3d", "fwd_probs_cols", "fwd_probs_rows", "fwd_out_1d",
    "fwd_out_cols", "fwd_out_3d", "fwd_sorted_2d", "fwd_sorted_length", "fwd_pout_2d",
    "bwd_num_experts_0", "bwd_num_experts_negative", "bwd_tokens_num_0", "bwd_tokens_num_negative",
    "bwd_attributes_before_nulls", "bwd_grad_int32", "bwd_grad_double", "bwd_grad_format_nz", "bwd_probs_grad_int32",
    "bwd_probs_grad_dtype_differs", "bwd_routing_map_int32", "bwd_routing_map_uint8", "bwd_sorted_int64",
    "bwd_sorted_float", "bwd_grad_1d", "bwd_grad_3d", "bwd_routing_map_1d", "bwd_routing_map_3d",
    "bwd_probs_grad_2d", "bwd_out_dtype_differs", "bwd_out_not_contiguous", "bwd_out_rows", "bwd_out_cols",
    "bwd_sorted_2d", "bwd_sorted_length", "bwd_P_not_multiple_of_T", "bwd_P_below_T", "bwd_probs_grad_length",
    "bwd_pout_dtype_differs", "bwd_pout_not_contiguous", "bwd_pout_shape", "bwd_pout_1d", "bwd_routing_map_shape",
]
C_EXPECTED = {**{k: 0 for k in _C_OK}, **{k: NULLPTR for k in _C_NULLPTR},
              **{k: INNER_NULLPTR for k in _C_INNER_NULLPTR}, **{k: INVALID for k in _C_INVALID},
              **{k: 0 for k in C_LIVE}}


# The fixture c_results and the tests test_c_forward_validation, test_c_backward_validation and
# test_c_program_releases_everything: the program's statuses against C_EXPECTED.
(c_results, test_c_forward_validation, test_c_backward_validation,
 test_c_program_releases_everything) = c_validation_tests(C_SOURCE, C_EXPECTED)
