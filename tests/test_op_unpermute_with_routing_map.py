"""aclnnMoeTokenUnpermuteWithRoutingMap and aclnnMoeTokenUnpermuteWithRoutingMapGrad (specs
ops/moe_token_unpermute_with_routing_map.md and ops/moe_token_unpermute_with_routing_map_grad.md): bit-exact equality
with the references (and with the specs' own loop references) in every mode, the device's reduction order and hidden
chunks, the mirror layer's two phases with strided outputs, random shapes, maps and thread counts, every validation
rule with its status code, and the round trips with MoeTokenPermuteWithRoutingMap."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import aclnn_py
from aclnn_py import aclnn, reference, testing
from aclnn_py.reference._rounding import add_f32, device_reduce_sum, mul_f32, narrow
from aclnn_py.reference.moe_token_unpermute_with_routing_map_grad import chunk_non_pad, chunk_pad

from helpers_ops import (Arena, BF, BF16, BOOL, C_LIVE, FLOATS, FLOAT_IDS, FP16, I32, I64, I8, INVALID, NULLPTR, NZ, T,
                         TILING, Resources, assert_all_same, assert_rejected, c_validation_tests, phase1, random_bits,
                         random_values, run_two_phases, threads)

MAPS = [np.dtype(np.int8), np.dtype(np.bool_)]
MAP_IDS = ["int8", "bool"]
INNER_NULLPTR = 561103

forward = aclnn_py.moe_token_unpermute_with_routing_map
backward = aclnn_py.moe_token_unpermute_with_routing_map_grad
ref_forward = reference.moe_token_unpermute_with_routing_map
ref_backward = reference.moe_token_unpermute_with_routing_map_grad


# ---- the specs' loop references (sections 3.3 and 3.5), kept literal to check the vectorised ones ----------------

def f32(a):
    return np.asarray(a).astype(np.float32)


def add(a, b):
    return add_f32(np.float32(a) if np.ndim(a) == 0 else a, b)


def mul(a, b):
    return mul_f32(a, b)


def quiet(a):
    """NaNs made quiet (sign and payload kept)."""
    a = np.array(a, np.float32)
    nan = np.isnan(a)
    a[nan] = (a[nan].view(np.uint32) | np.uint32(0x400000)).view(np.float32)
    return a


def routed(routing_map):
    m = np.asarray(routing_map)
    return (m.view(np.uint8) if m.dtype.itemsize == 1 else m) != 0


def spec_forward(x, si, routing_map, probs, pad, restore, out_rows):
    """Spec 3.3 with the stub's stored-byte copies; returns (unpermuted, outIndex, permuteTokenId, permuteProbs) as
    the high-level function does (None for outputs that are not written in the mode)."""
    dtype = x.dtype
    p, h = x.shape
    si = np.asarray(si, np.int64)
    length = si.size
    if x.size == 0 or length == 0:  # spec 4 row 11: nothing is written
        pout = None if probs is None else np.zeros(length, probs.dtype)
        idx = (np.zeros(length, np.int32), np.zeros(length, np.int32)) if pad else (None, None)
        return (np.zeros((out_rows, h), dtype),) + idx + (pout,)
    xf = f32(x)
    if pad:
        src = xf
        pout = None
        if probs is not None:
            t_n, e_n = probs.shape
            cap = length // e_n
            pout = np.zeros(length, probs.dtype)
            for j in range(e_n * cap):
                if 0 <= si[j] < t_n:
                    pout[j] = probs[si[j], j // cap]
            src = f32(narrow(mul(xf, f32(pout)[:, None]), dtype))
        order = np.argsort(si, kind="stable")
        acc = np.zeros((out_rows, h), np.float32)
        for j in order:
            if 0 <= si[j] < out_rows:
                acc[si[j]] = add(acc[si[j]], src[j])
        return narrow(acc, dtype), order.astype(np.int32), si[order].astype(np.int32), pout
    pout = w = None
    if probs is not None:
        t_n = probs.shape[0]
        sel = probs[routed(routing_map)]
        pout = np.zeros(length, probs.dtype)
        m = min(sel.size, length)
        pout[:m] = sel[:m]
        w = f32(pout)
    else:
        t_n = restore[0]
    k_n = p // t_n
    acc = np.zeros((t_n, h), np.float32)
    for t in range(t_n):
        for k in range(k_n):
            s = t * k_n + k
            idx = si[s]
            if not (0 <= idx < p and (w is None or w[s] != 0)):
                continue
            if w is None:  # float16 widening (the hardware conversion) quiets a signalling NaN
                term = quiet(xf[idx]) if dtype == np.float16 else xf[idx]
            else:
                term = mul(xf[idx], w[s])
            acc[t] = term if k == 0 else add(acc[t], term)
    return narrow(acc, dtype), None, None, pout


def tree_sum(v):
    v = np.asarray(v, np.float32)
    while v.shape[0] > 1:
        v = add(v[0::2], v[1::2])
    return np.float32(v[0])


def spec_reduce_sum(x):
    """device_reduce_sum of moe_token_unpermute_grad.md 3.4, one vector at a time."""
    v = np.array(x, np.float32)
    n = v.shape[0]

    def align8(a):
        return (a + 7) // 8 * 8

    def fold(total, threshold, offset):
        half = align8((total + 1) // 2)
        while total > threshold:
            c = total - half
            v[:c] = add(v[:c], v[half:half + c])
            total, half = half, align8((half + 1) // 2)
        c = total - offset
        v[:c] = add(v[:c], v[offset:offset + c])

    for lo, thr, off in ((4096, 8192, 4096), (512, 1024, 512), (64, 128, 64)):
        if n >= lo:
            fold(n, thr, off)
            return tree_sum(v[:off])
    w = np.zeros(64, np.float32)
    w[:n] = v
    return tree_sum(w)


def spec_backward(grad, oi, tid, routing_map, x, probs, pad):
    """Spec 3.5 of the grad (outputs start as zeros, as the high-level function allocates them)."""
    dtype = grad.dtype
    t_n, h = grad.shape
    oi, tid = np.asarray(oi, np.int64), np.asarray(tid, np.int64)
    p = oi.size
    g = f32(grad)
    ptg = np.zeros((p, h), dtype)
    if probs is None:
        k_n = None if pad else p // t_n
        for i in range(p):
            row, src = oi[i], (tid[i] if pad else i // k_n)
            if 0 <= row < p and 0 <= src < t_n:
                ptg[row] = grad[src]
        return ptg, None
    b = dtype.itemsize
    e_n = probs.shape[1]
    pf, xf = f32(probs), f32(x)
    pg = np.zeros((t_n, e_n), np.float32)
    if pad:
        cap = p // e_n
        chunk = chunk_pad(h, b)
        for i in range(p):
            row, t = oi[i], tid[i]
            if not (0 <= row < p and 0 <= t < t_n):
                continue
            e = row // cap
            prod = mul(xf[row], g[t])
            parts = np.array([spec_reduce_sum(prod[s:s + chunk]) for s in range(0, h, chunk or 1)], np.float32)
            pg[t, e] = spec_reduce_sum(parts)
            ptg[row] = narrow(mul(g[t], pf[t, e]), dtype)
    else:
        k_n = p // t_n
        chunk = chunk_non_pad(h, t_n, k_n, e_n, b)
        sel = routed(routing_map)
        for t in range(t_n):
            experts = np.flatnonzero(sel[t])
            for k in range(min(k_n, experts.shape[0])):
                row, e = oi[t * k_n + k], experts[k]
                if not (0 <= row < p):
                    continue
                ptg[row] = narrow(mul(g[t], pf[t, e]), dtype)
                prod = mul(xf[row], g[t])
                acc = np.float32(0.0)
                for s in range(0, h, chunk or 1):  # H = 0: no chunk
                    acc = add(acc, spec_reduce_sum(prod[s:s + chunk]))
                pg[t, e] = acc
    return ptg, narrow(pg, dtype)


# ---- data -------------------------------------------------------------------------------------------------------

def topk_mask(rng, t, e, k):
    m = np.zeros((t, e), bool)
    if t and k:
        m[np.arange(t)[:, None], np.argsort(rng.random((t, e)), axis=1)[:, :k]] = True
    return m


def as_map(mask, dtype, rng=None):
    """A routing map of mask in dtype; with rng, INT8 maps mark routes with random non-zero bytes."""
    if dtype == np.int8 and rng is not None:
        vals = rng.integers(1, 256, size=mask.shape).astype(np.uint8).view(np.int8)
        return np.where(mask, vals, np.int8(0))
    return mask.astype(dtype)


def non_pad_case(rng, dtype, map_dtype, t, e, k, h, with_probs, bits=False):
    """A non-pad call made by a real forward: sortedIndices is a permutation of the T*K slots."""
    mask = topk_mask(rng, t, e, k)
    gen = random_bits if bits else random_values
    x = gen(rng, (t * k, h), dtype)
    si = rng.permutation(t * k).astype(np.int32)
    probs = gen(rng, (t, e), dtype) if with_probs else None
    return x, si, as_map(mask, map_dtype, rng), probs


def pad_case(rng, dtype, map_dtype, t, e, cap, h, with_probs, bits=False):
    """A pad call: per expert `cap` token ids (a forward's sortedIndicesOut)."""
    gen = random_bits if bits else random_values
    si = np.concatenate([rng.permutation(t)[:cap] for _ in range(e)]).astype(np.int32) if e else \
        np.zeros(0, np.int32)
    x = gen(rng, (e * cap, h), dtype)
    probs = gen(rng, (t, e), dtype) if with_probs else None
    return x, si, as_map(rng.random((t, e)) < 0.5, map_dtype), probs


def check_forward(x, si, routing_map, probs, pad, restore, literal=True):
    got = forward(x, si, routing_map, probs, pad, restore)
    want = ref_forward(x, si, routing_map, probs, pad, restore)
    assert_all_same(got, want, "library vs reference")
    if literal:
        with np.errstate(invalid="ignore", over="ignore"):
            spec = spec_forward(x, si, routing_map, probs, pad, restore, got[0].shape[0])
        assert_all_same(want, spec, "reference vs spec")
    return got


def check_backward(grad, oi, tid, routing_map, x, probs, pad, literal=True):
    got = backward(grad, oi, tid, routing_map, x, probs, pad)
    want = ref_backward(grad, oi, tid, routing_map, x, probs, pad)
    assert_all_same(got, want, "library vs reference")
    if literal:
        with np.errstate(invalid="ignore", over="ignore"):
            spec = spec_backward(grad, oi, tid, routing_map, x, probs, pad)
        assert_all_same(want, spec, "reference vs spec")
    return got


# ---- forward: exactness -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("with_probs", [True, False], ids=["probs", "no_probs"])
@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
@pytest.mark.parametrize("map_dtype", MAPS, ids=MAP_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_matches_reference(dtype, map_dtype, pad, with_probs):
    rng = np.random.default_rng(3)
    for t, e, k, h in [(7, 5, 3, 6), (1, 1, 1, 1), (12, 8, 8, 33), (40, 16, 2, 300)]:
        for bits in (False, True):
            if pad:
                x, si, rm, probs = pad_case(rng, dtype, map_dtype, t, e, min(k, t), h, with_probs, bits)
                check_forward(x, si, rm, probs, True, (t, h))
            else:
                x, si, rm, probs = non_pad_case(rng, dtype, map_dtype, t, e, k, h, with_probs, bits)
                check_forward(x, si, rm, probs, False, (t, h))


def test_forward_official_example():
    # spec 5: padded mode, every token id 1, unit probs
    got = forward(np.ones((2, 2), np.float32), np.array([1, 1], np.int32), np.ones((2, 2), np.int8),
                  np.ones((2, 2), np.float32), True, [2, 2])
    assert got[0].tolist() == [[0.0, 0.0], [2.0, 2.0]]
    assert got[1].tolist() == [0, 1] and got[2].tolist() == [1, 1] and got[3].tolist() == [1.0, 1.0]


def test_forward_non_pad_by_hand():
    # token 0 -> experts 0, 2 (probs 0.5, 2), token 1 -> experts 1, 2 (probs 4, 0.25); rows hold token-slot values
    x = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
    si = np.array([2, 0, 3, 1], np.int32)  # slot t*K + k -> permuted row
    rm = np.array([[1, 0, 1], [0, 1, 1]], np.bool_)
    probs = np.array([[0.5, 9, 2], [9, 4, 0.25]], np.float32)
    out, oi, tid, pout = forward(x, si, rm, probs, False, None)
    assert out.tolist() == [[0.5 * 5 + 2 * 1, 0.5 * 6 + 2 * 2], [4 * 7 + 0.25 * 3, 4 * 8 + 0.25 * 4]]
    assert pout.tolist() == [0.5, 2, 4, 0.25]  # token-major, not the forward's expert-major order
    assert oi is None and tid is None
    # without probs: restoreShape gives T, rows are summed unweighted
    out, _, _, pout = forward(x, si, None, None, False, [2, 2])
    assert out.tolist() == [[6, 8], [10, 12]] and pout is None


def test_forward_zero_weights_are_skipped_and_sums_start_at_plus_zero():
    x = np.array([[-0.0, np.inf], [-0.0, -1.0]], np.float32)
    rm = np.ones((1, 2), np.int8)
    # slot 0 weight 0: skipped (inf * 0 would give NaN); slot 1 adds -0.0 * 1 to +0.0
    out = forward(x, np.array([0, 1], np.int32), rm, np.array([[0.0, 1.0]], np.float32), False, None)[0]
    assert np.signbit(out[0, 0]) == np.False_ and out[0, 1] == -1.0
    # slot 0 taken: the sum starts from its term (-0.0 stays)
    out = forward(x, np.array([1, 0], np.int32), rm, np.array([[1.0, 0.0]], np.float32), False, None)[0]
    assert np.signbit(out[0, 0]) and out[0, 1] == -1.0


@pytest.mark.parametrize("dtype,tiny", [(np.float16, 2.0 ** -11), (BF16, 2.0 ** -8)], ids=["float16", "bfloat16"])
def test_forward_pad_rounds_products_non_pad_does_not(dtype, tiny):
    # 1 + tiny is not representable: padded mode rounds each product to the dtype before the float32 sum
    x = np.array([[1.0], [1.0]], dtype)
    probs = np.array([[1.0 + tiny, 1.0 + tiny]], np.float32).astype(dtype)  # rounds to 1 or 1 + 2 ulp
    rm = np.ones((1, 2), np.int8)
    non_pad = forward(x, np.array([0, 1], np.int32), rm, probs, False, None)[0]
    padded = forward(x, np.array([0, 0], np.int32), rm, probs, True, None)[0]
    assert_all_same(non_pad, narrow(f32(probs)[0].sum(dtype=np.float32)[None, None], dtype))
    assert_all_same(padded, narrow(np.float32(2 * np.float32(probs[0, 0]))[None, None], dtype))


@pytest.mark.parametrize("map_dtype", MAPS, ids=MAP_IDS)
def test_forward_ill_formed_maps_follow_the_stub_rule(map_dtype):
    # fewer set entries than L: the missing weights are +0.0 (slots skipped); more: the first L are used
    rng = np.random.default_rng(4)
    x = random_values(rng, (6, 4), np.float32)
    si = rng.permutation(6).astype(np.int32)
    probs = random_values(rng, (3, 4), np.float32)
    for mask in [np.array([[1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]]), np.ones((3, 4))]:
        got = check_forward(x, si, as_map(mask.astype(bool), map_dtype, rng), probs, False, None)
        sel = probs[mask.astype(bool)][:6]
        assert got[3][:sel.size].tolist() == sel.tolist() and not got[3][sel.size:].any()


def test_forward_indices_out_of_range_follow_the_stub_rule():
    rng = np.random.default_rng(5)
    x = random_values(rng, (6, 3), np.float32)
    probs = random_values(rng, (3, 4), np.float32)
    rm = as_map(topk_mask(rng, 3, 4, 2), np.int8)
    si = np.array([0, -1, 6, 2, 2**31 - 1, -2**31], np.int32)
    check_forward(x, si, rm, probs, False, None)
    check_forward(x, si, rm, None, True, (3, 3))  # out-of-range token ids: not accumulated, sorted as integers
    check_forward(x, si, rm[:, :3], probs[:, :3], True, (5, 3))  # more output rows than probs rows: weight 0 beyond T


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_strided_inputs(dtype):
    rng = np.random.default_rng(6)
    for pad in (False, True):
        x, si, rm, probs = (pad_case(rng, dtype, np.int8, 5, 4, 3, 3, True) if pad else
                            non_pad_case(rng, dtype, np.int8, 5, 4, 2, 3, True))
        xb = np.zeros((2 * x.shape[0], 7), dtype)
        xb[::2, 2:5][:] = x
        sb = np.zeros(3 * si.size, np.int32)
        sb[::3] = si
        pb = np.ascontiguousarray(probs[::-1].T).T[::-1]  # column-major, rows reversed twice
        mb = np.zeros((5, 8), np.int8)
        mb[:, ::2] = rm
        views = (xb[::2, 2:5], sb[::3], mb[:, ::2], pb)
        assert not any(v.flags.c_contiguous for v in views)
        got = check_forward(*views, pad, (5, 3))
        assert_all_same(got, forward(x, si, rm, probs, pad, (5, 3)))


def test_forward_empty_and_hidden_0():
    rm = np.ones((2, 2), np.int8)
    probs = np.ones((2, 2), np.float32)
    out, _, _, pout = forward(np.zeros((0, 3), np.float32), np.zeros(0, np.int32), rm, probs, False, None)
    assert out.shape == (2, 3) and not out.any() and pout.shape == (0,)
    for pad in (False, True):
        got = check_forward(np.zeros((4, 0), np.float32), np.array([0, 1, 1, 0], np.int32), rm, probs, pad, None)
        assert got[0].shape == (2, 0)


# ---- backward: exactness --------------------------------------------------------------------------------------------

def backward_inputs(rng, dtype, map_dtype, t, e, k, h, pad, with_probs):
    """A forward's index outputs and the inputs of the backward for them."""
    if pad:
        x, si, rm, probs = pad_case(rng, dtype, map_dtype, t, e, k, h, with_probs)
        _, oi, tid, _ = forward(x, si, rm, probs, True, (t, h))
    else:
        x, si, rm, probs = non_pad_case(rng, dtype, map_dtype, t, e, k, h, with_probs)
        oi = tid = si
    g = random_values(rng, (t, h), dtype)
    return g, oi, tid, rm, x, probs


@pytest.mark.parametrize("with_probs", [True, False], ids=["probs", "no_probs"])
@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
@pytest.mark.parametrize("map_dtype", MAPS, ids=MAP_IDS)
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_matches_reference(dtype, map_dtype, pad, with_probs):
    rng = np.random.default_rng(7)
    for t, e, k, h in [(7, 5, 3, 6), (1, 1, 1, 1), (12, 8, 8, 70), (40, 16, 2, 600)]:
        check_backward(*backward_inputs(rng, dtype, map_dtype, t, e, min(k, t), h, pad, with_probs), pad)


@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_special_values(dtype, pad):
    # every bit pattern (NaN payloads, infinities, -0.0): products and sums keep the NaN rules exactly
    rng = np.random.default_rng(15)
    for t, e, k, h in [(5, 4, 2, 9), (3, 2, 2, 700)]:
        g, oi, tid, rm, x, probs = backward_inputs(rng, dtype, np.int8, t, e, k, h, pad, True)
        g, x, probs = random_bits(rng, g.shape, dtype), random_bits(rng, x.shape, dtype), random_bits(rng, probs.shape,
                                                                                                      dtype)
        check_backward(g, oi, tid, rm, x, probs, pad)


def test_backward_official_example():
    # spec 5 of the grad: T = 1, two experts with probs 1, rows of ones
    ptg, pg = backward(np.ones((1, 2), np.float32), np.array([0, 1], np.int32), np.array([0, 0], np.int32),
                       np.ones((1, 2), np.bool_), np.ones((2, 2), np.float32), np.ones((1, 2), np.float32), False)
    assert ptg.tolist() == [[1, 1], [1, 1]] and pg.tolist() == [[2, 2]]


def test_backward_by_hand():
    g = np.array([[1, 2], [3, 4]], np.float32)
    x = np.array([[1, 1], [2, 2], [3, 3], [4, 4]], np.float32)
    rm = np.array([[1, 0, 1], [0, 1, 1]], np.int8)
    probs = np.array([[0.5, 9, 2], [9, 4, 0.25]], np.float32)
    si = np.array([2, 0, 3, 1], np.int32)
    ptg, pg = backward(g, si, si, rm, x, probs, False)
    assert ptg.tolist() == [[2, 4], [0.75, 1], [0.5, 1], [12, 16]]
    assert pg.tolist() == [[3 * 3, 0, 3 * 1], [0, 7 * 4, 7 * 2]]
    ptg, pg = backward(g, si, si, None, None, None, False)
    assert ptg.tolist() == [[1, 2], [3, 4], [1, 2], [3, 4]] and pg is None


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_device_reduce_sum_order(dtype):
    # the vectorised reduction and the C one (through the grad) follow the spec's loop at every size class
    rng = np.random.default_rng(8)
    for n in [1, 7, 63, 64, 65, 200, 511, 512, 513, 1000, 4095, 4096, 4097, 9001]:
        v = random_values(rng, (3, n), np.float32)
        assert np.array_equal(device_reduce_sum(v), np.array([spec_reduce_sum(r) for r in v], np.float32)), n
    # through the operator: a token with one expert, prob 1, gradient of ones -> the dot is the sum of the row
    for n in [1, 63, 64, 511, 513, 4097]:
        x = random_values(rng, (1, n), dtype)
        _, pg = backward(np.ones((1, n), dtype), np.array([0], np.int32), np.array([0], np.int32),
                         np.ones((1, 1), np.int8), x, np.ones((1, 1), dtype), False)
        assert_all_same(pg, narrow(np.float32(0) + spec_reduce_sum(f32(x)[0]), dtype).reshape(1, 1), n)


@pytest.mark.parametrize("pad", [False, True], ids=["no_pad", "pad"])
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_hidden_chunks(dtype, pad):
    # H beyond the tiling's one-chunk limit: the dot products are summed chunk by chunk (spec 3.4)
    b = np.dtype(dtype).itemsize
    h = 9800 if pad else (8200 if b == 2 else 5500)
    chunk = chunk_pad(h, b) if pad else chunk_non_pad(h, 3, 2, 4, b)
    assert chunk < h
    rng = np.random.default_rng(9)
    check_backward(*backward_inputs(rng, dtype, np.int8, 3, 4, 2, h, pad, True), pad)


def test_backward_ill_formed_inputs_follow_the_stub_rules():
    rng = np.random.default_rng(10)
    g = random_values(rng, (3, 4), np.float32)
    x = random_values(rng, (6, 4), np.float32)
    probs = random_values(rng, (3, 4), np.float32)
    oi = np.array([0, 5, 5, -1, 9, 2], np.int32)  # duplicates (the last slot wins), out of range (skipped)
    tid = np.array([0, 1, 1, 2, 7, -3], np.int32)
    for mask in [np.array([[1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]]), topk_mask(rng, 3, 4, 2)]:
        rm = mask.astype(np.int8)
        check_backward(g, oi, tid, rm, x, probs, False)
        for pad in (False, True):
            check_backward(g, oi, tid, rm, x, None, pad)
        for e in (2, 3):  # pad with probs: P a multiple of E, capacity 3 or 2
            check_backward(g, oi, tid, rm[:, :e], x, probs[:, :e], True)


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_strided_inputs(dtype):
    rng = np.random.default_rng(11)
    for pad in (False, True):
        g, oi, tid, rm, x, probs = backward_inputs(rng, dtype, np.int8, 6, 4, 2, 5, pad, True)
        gb = np.zeros((12, 10), dtype)
        gb[::2, 1:10:2] = g
        xb = np.zeros((x.shape[0], 15), dtype)
        xb[:, ::3] = x
        pb = np.ascontiguousarray(probs.T).T
        mb = np.ascontiguousarray(rm.T).T
        ob = np.zeros(2 * oi.size, np.int32)
        ob[::2] = oi
        got = check_backward(gb[::2, 1:10:2], ob[::2], tid[::-1][::-1], mb, xb[:, ::3], pb, pad, literal=False)
        assert_all_same(got, backward(g, oi, tid, rm, x, probs, pad))


def test_backward_empty():
    rm = np.ones((2, 2), np.int8)
    probs = np.ones((2, 2), np.float32)
    for pad in (False, True):
        # P = 0 with probs: the probs gradient is zero-filled
        ptg, pg = backward(np.ones((2, 3), np.float32), np.zeros(0, np.int32), np.zeros(0, np.int32), rm,
                           np.zeros((0, 3), np.float32), probs, pad)
        assert ptg.shape == (0, 3) and pg.tolist() == [[0, 0], [0, 0]]
        # H = 0
        check_backward(np.ones((2, 0), np.float32), np.arange(4, dtype=np.int32), np.array([0, 1, 0, 1], np.int32),
                       rm, np.zeros((4, 0), np.float32), probs, pad)


# ---- mirror layer: both phases, strided outputs, nothing written when there is nothing to do ---------------------

FWD_PHASES = (aclnn.aclnnMoeTokenUnpermuteWithRoutingMapGetWorkspaceSize, aclnn.aclnnMoeTokenUnpermuteWithRoutingMap)
BWD_PHASES = (aclnn.aclnnMoeTokenUnpermuteWithRoutingMapGradGetWorkspaceSize,
              aclnn.aclnnMoeTokenUnpermuteWithRoutingMapGrad)


def test_mirror_forward_strided_outputs():
    rng = np.random.default_rng(12)
    for pad in (False, True):
        if pad:
            x, si, rm, probs = pad_case(rng, BF16, np.int8, 6, 4, 3, 5, True)
        else:
            x, si, rm, probs = non_pad_case(rng, BF16, np.int8, 6, 4, 2, 5, True)
        n = si.size
        with Resources() as r:
            t_out = r.output((6, 5), BF16, fill=0x11, offset=3, strides=(1, 6))  # column-major
            t_oi = r.output((n,), np.int32, fill=0x11, strides=(-1,), offset=n - 1)
            t_tid = r.output((n,), np.int32, fill=0x11, strides=(2,))
            t_pp = r.output((n,), BF16, fill=0x11, strides=(3,))
            rs = r.int_array([6, 5])
            run_two_phases(*FWD_PHASES, r.tensor(x).handle, r.tensor(si).handle, r.tensor(rm).handle,
                           r.tensor(probs).handle, pad, rs, t_out.handle, t_oi.handle, t_tid.handle, t_pp.handle)
            got = [t_out.numpy(), t_oi.numpy(), t_tid.numpy(), t_pp.numpy()]
            raw = np.empty(t_out.buffer.nbytes, np.uint8)
            t_out.buffer.download(raw)
        want = ref_forward(x, si, rm, probs, pad, (6, 5))
        assert_all_same(got[:1] + got[3:], want[:1] + want[3:])
        if pad:
            assert_all_same(got[1:3], want[1:3])
        else:  # not written in non-pad mode
            assert (got[1].view(np.uint8) == 0x11).all() and (got[2].view(np.uint8) == 0x11).all()
        assert (raw[:6] == 0x11).all()  # before the offset


def test_mirror_nothing_written_when_empty():
    with Resources() as r:
        t_out = r.output((2, 3), np.float32, fill=0x44)
        run_two_phases(*FWD_PHASES, r.tensor(np.ones((0, 3), np.float32)).handle,
                       r.tensor(np.zeros(0, np.int32)).handle, None, None, False, r.int_array([2, 3]),
                       t_out.handle, None, None, None)
        assert (t_out.numpy().view(np.uint8) == 0x44).all()  # unpermutedTokens is not zeroed
        g_out, g_pg = r.output((0, 3), np.float32), r.output((0, 2), np.float32)
        run_two_phases(*BWD_PHASES, r.tensor(np.ones((2, 3), np.float32)).handle,
                       r.tensor(np.zeros(0, np.int32)).handle, r.tensor(np.zeros(0, np.int32)).handle, None, None,
                       None, False, None, g_out.handle, g_pg.handle)


def test_mirror_backward_keeps_rows_no_index_touches():
    g = np.arange(6, dtype=np.float32).reshape(2, 3)
    with Resources() as r:
        t_out = r.output((4, 3), np.float32, fill=0x44)
        oi = np.array([0, 7, 2, -1], np.int32)
        run_two_phases(*BWD_PHASES, r.tensor(g).handle, r.tensor(oi).handle, r.tensor(oi).handle, None, None, None,
                       False, None, t_out.handle, None)
        got = t_out.numpy()
    assert got[0].tolist() == [0, 1, 2] and got[2].tolist() == [3, 4, 5]
    assert (got[[1, 3]].view(np.uint8) == 0x44).all()


# ---- property-based tests ---------------------------------------------------------------------------------------

@st.composite
def forward_cases(draw):
    t = draw(st.integers(1, 8))
    e = draw(st.integers(1, 6))
    h = draw(st.integers(0, 5))
    dtype = draw(st.sampled_from(FLOATS))
    map_dtype = draw(st.sampled_from(MAPS))
    pad = draw(st.booleans())
    with_probs = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    bits = draw(st.booleans())
    gen = random_bits if bits else random_values
    if pad:
        cap = draw(st.integers(0, t))
        p = e * cap
        si = rng.integers(-1, t + 2, size=p).astype(np.int32) if draw(st.booleans()) else \
            (np.concatenate([rng.permutation(t)[:cap] for _ in range(e)]).astype(np.int32) if p else
             np.zeros(0, np.int32))
        mask = rng.random((t, e)) < 0.5
        restore = (draw(st.integers(1, t + 2)), h)
    else:
        k = draw(st.integers(1, e))
        p = t * k
        si = rng.permutation(p).astype(np.int32) if draw(st.booleans()) else \
            rng.integers(-1, p + 2, size=p).astype(np.int32)
        mask = topk_mask(rng, t, e, k) if draw(st.booleans()) else rng.random((t, e)) < 0.5
        restore = (t, h)
    x = gen(rng, (p, h), dtype)
    probs = gen(rng, (t, e), dtype) if with_probs else None
    if with_probs and draw(st.booleans()):
        probs[rng.random((t, e)) < 0.3] = 0  # zero weights are skipped in non-pad mode
    return x, si, as_map(mask, map_dtype, rng), probs, pad, restore


@settings(max_examples=80, deadline=None)
@given(forward_cases())
def test_property_forward(case):
    check_forward(*case)


@st.composite
def backward_cases(draw):
    t = draw(st.integers(1, 8))
    e = draw(st.integers(1, 6))
    h = draw(st.integers(0, 5))
    dtype = draw(st.sampled_from(FLOATS))
    pad = draw(st.booleans())
    with_probs = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if pad:
        cap = draw(st.integers(0, t))
        p = e * cap if with_probs else draw(st.integers(0, 2 * t * e))
        mask = rng.random((t, e)) < 0.5
    else:
        k = draw(st.integers(1, e))
        p = t * k
        mask = topk_mask(rng, t, e, k) if draw(st.booleans()) else rng.random((t, e)) < 0.5
    if draw(st.booleans()):  # a forward's outputs
        oi = rng.permutation(p).astype(np.int32)
        tid = np.sort(rng.integers(0, t, size=p)).astype(np.int32)
    else:  # anything, out of range and duplicates included
        oi = rng.integers(-1, p + 2, size=p).astype(np.int32)
        tid = rng.integers(-1, t + 2, size=p).astype(np.int32)
    g = random_values(rng, (t, h), dtype)
    x = random_values(rng, (p, h), dtype)
    probs = random_values(rng, (t, e), dtype) if with_probs else None
    return g, oi, tid, as_map(mask, draw(st.sampled_from(MAPS)), rng), x, probs, pad


@settings(max_examples=80, deadline=None)
@given(backward_cases())
def test_property_backward(case):
    check_backward(*case)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(FLOATS), st.booleans(), st.booleans())
def test_property_results_do_not_depend_on_the_thread_count(seed, dtype, pad, with_probs):
    # big enough that the masked select, row combines, index-add and dot products are split between threads
    rng = np.random.default_rng(seed)
    t, e, h = int(rng.integers(3000, 5000)), int(rng.integers(8, 24)), 24
    k = int(rng.integers(1, 5))
    fwd_in = (pad_case(rng, dtype, np.int8, t, e, k, h, with_probs) if pad else
              non_pad_case(rng, dtype, np.int8, t, e, k, h, with_probs))
    g = random_values(rng, (t, h), dtype)
    results = []
    for count in (1, 2, 3):
        with threads(count):
            fwd = forward(*fwd_in, pad, (t, h))
            oi, tid = (fwd[1], fwd[2]) if pad else (fwd_in[1], fwd_in[1])
            bwd = backward(g, oi, tid, fwd_in[2], fwd_in[0], fwd_in[3], pad)
        results.append((fwd, bwd))
    for fwd, bwd in results[1:]:
        assert_all_same(fwd, results[0][0])
        assert_all_same(bwd, results[0][1])
    assert_all_same(results[0][0], ref_forward(*fwd_in, pad, (t, h)))
    oi, tid = (results[0][0][1], results[0][0][2]) if pad else (fwd_in[1], fwd_in[1])
    assert_all_same(results[0][1], ref_backward(g, oi, tid, fwd_in[2], fwd_in[0], fwd_in[3], pad))


# ---- round trips with MoeTokenPermuteWithRoutingMap ------------------------------------------------------------

RT_SIZES = [dict(), dict(t=1, e=1, k=1, capacity=1), dict(t=9, e=5, k=5, capacity=9), dict(t=5, e=3, capacity=0),
            dict(t=4, e=8, k=3, h=1)]


@pytest.mark.parametrize("with_probs", [True, False], ids=["probs", "no_probs"])
@pytest.mark.parametrize("drop_and_pad", [False, True], ids=["no_pad", "pad"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_trip(dtype, drop_and_pad, with_probs):
    rng = np.random.default_rng(13)
    for sizes in RT_SIZES:
        rt = testing.check_pair("moe_token_unpermute_with_routing_map", rng, dtype=dtype, drop_and_pad=drop_and_pad,
                                with_probs=with_probs, **sizes)
        assert len(rt.pairs) == (2 if with_probs else 1)
        restored = testing.check_unpermute_inverse_routing_map(rng, dtype=dtype, drop_and_pad=drop_and_pad,
                                                               with_probs=with_probs, **sizes)
        assert restored.shape == (sizes.get("t", 6), sizes.get("h", 5))


def test_round_trip_detects_a_wrong_backward(monkeypatch):
    # the identities can fail: a backward that forgets the weights breaks the token part
    real = aclnn_py.ops.moe_token_unpermute_with_routing_map_grad

    def unweighted(g, oi, tid, rm, x, probs, pad, restore=None):
        return real(g, oi, tid, rm, x, None, pad)[0], real(g, oi, tid, rm, x, probs, pad)[1]

    monkeypatch.setattr(testing.ops, "moe_token_unpermute_with_routing_map_grad", unweighted)
    with pytest.raises(AssertionError, match="part 0"):
        testing.check_pair("moe_token_unpermute_with_routing_map", np.random.default_rng(14), t=8, e=4, k=2)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_property_round_trip(data):
    t = data.draw(st.integers(1, 10))
    e = data.draw(st.integers(1, 6))
    kw = dict(dtype=data.draw(st.sampled_from(["float32", "float16", "bfloat16"])), t=t, e=e,
              k=data.draw(st.integers(1, e)), h=data.draw(st.integers(1, 4)), drop_and_pad=data.draw(st.booleans()),
              capacity=data.draw(st.integers(0, t)), with_probs=data.draw(st.booleans()))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    testing.check_pair("moe_token_unpermute_with_routing_map", rng, **kw)
    testing.check_unpermute_inverse_routing_map(rng, **kw)


# ---- validation through the mirror layer, in the spec's order (forward 4, grad 4) ------------------------------

Z2 = (0, 0)
FWD_BASE = dict(x=T((4, 3)), si=T((4,), I32), map=T((2, 2), I8), probs=T((2, 2)), pad=False, restore=[2, 3],
                out=T((2, 3)), oi=T((4,), I32), tid=T((4,), I32), pp=T((4,)))
NO_PROBS = dict(probs=None, map=None, pp=None)
PAD = dict(pad=True)

FWD_CASES = [
    ("ok", {}, 0),
    ("ok_no_probs", NO_PROBS, 0),
    ("ok_no_probs_empty_permute_probs", dict(NO_PROBS, pp=T((0,))), 0),
    ("no_probs_map_dtype_still_checked", dict(NO_PROBS, map=T((3, 7), I32)), INVALID),  # non-pad: the kernel runs
    ("ok_index_outputs_null", {"oi": None, "tid": None}, 0),
    ("ok_index_outputs_any_shape", {"oi": T((9,), I32), "tid": T((1, 1), I32)}, 0),  # non-pad: never written
    ("ok_permute_probs_null", {"pp": None}, 0),
    ("ok_restore_ignored_with_probs", {"restore": [1, 2, 3]}, 0),
    ("ok_restore_null_with_probs", {"restore": None}, 0),
    ("ok_bool_map", {"map": T((2, 2), BOOL)}, 0),
    ("ok_float16", {"x": T((4, 3), FP16), "probs": T((2, 2), FP16), "out": T((2, 3), FP16), "pp": T((4,), FP16)}, 0),
    ("ok_bfloat16", {"x": T((4, 3), BF), "probs": T((2, 2), BF), "out": T((2, 3), BF), "pp": T((4,), BF)}, 0),
    ("ok_strided", {"x": T((4, 3), strides=(1, 4)), "si": T((4,), I32, strides=(-1,)), "out": T((2, 3), strides=(1, 2)),
                    "pp": T((4,), strides=(2,)), "map": T((2, 2), I8, strides=(1, 2))}, 0),
    ("ok_pad", PAD, 0),
    ("ok_pad_any_rows", dict(PAD, out=T((7, 3))), 0),
    ("ok_pad_no_probs", dict(PAD, **NO_PROBS), 0),
    ("ok_pad_no_probs_map_unchecked", dict(PAD, probs=None, pp=None, map=T((3, 7), I32)), 0),
    ("ok_pad_bf16", dict(PAD, x=T((4, 3), BF), probs=T((2, 2), BF), out=T((2, 3), BF), pp=T((4,), BF)), 0),
    # 1-3: NULL arguments
    ("null_permuted_tokens", {"x": None}, NULLPTR),
    ("null_sorted_indices", {"si": None}, NULLPTR),
    ("probs_and_restore_null", dict(NO_PROBS, restore=None), NULLPTR),
    # 4-8: dtypes
    ("permuted_tokens_int32", {"x": T((4, 3), I32)}, INVALID),
    ("sorted_indices_int64", {"si": T((4,), I64)}, INVALID),
    ("probs_int8", {"probs": T((2, 2), I8)}, INVALID),
    ("permute_probs_dtype", {"pp": T((4,), FP16)}, INVALID),
    ("unpermuted_tokens_dtype", {"out": T((2, 3), FP16)}, INVALID),
    ("out_index_int64", {"oi": T((4,), I64)}, INVALID),
    ("permute_token_id_float", {"tid": T((4,))}, INVALID),
    # 9-10: the output NULL (before the ranks), ranks
    ("unpermuted_tokens_null", {"out": None}, NULLPTR),
    ("unpermuted_tokens_null_before_ranks", {"out": None, "x": T((4, 3, 1))}, NULLPTR),
    ("permuted_tokens_3d", {"x": T((4, 3, 1))}, INVALID),
    ("sorted_indices_2d", {"si": T((4, 1), I32)}, INVALID),
    ("unpermuted_tokens_1d", {"out": T((6,))}, INVALID),
    # 11: empty inputs: nothing to do, nothing else checked
    ("empty_permuted_tokens", {"x": T((0, 3)), "out": T((9, 9)), "map": None}, 0),
    ("empty_sorted_indices", {"si": T((0,), I32), "pad": True, "oi": None}, 0),
    # 12-15
    ("probs_without_map", {"map": None}, NULLPTR),
    ("pad_out_index_null", dict(PAD, oi=None), NULLPTR),
    ("pad_permute_token_id_null", dict(PAD, tid=None), NULLPTR),
    ("pad_probs_without_permute_probs", dict(PAD, pp=None), NULLPTR),
    ("mixed_precision", {"probs": T((2, 2), FP16), "pp": T((4,), FP16)}, INVALID),
    ("map_int32", {"map": T((2, 2), I32)}, INVALID),
    ("map_nz_format", {"map": T((2, 2), I8, fmt=NZ)}, INVALID),
    ("permuted_tokens_nz_format", {"x": T((4, 3), fmt=NZ)}, INVALID),
    ("probs_1d", {"probs": T((4,))}, INVALID),
    # The kernel reads the map's first T x E entries: a larger map is accepted (the vendor's tiling tests pass a
    # (4096, 256) map with (4096, 8) probs), a smaller one is not.
    ("map_larger_than_probs", {"map": T((2, 3), I8)}, 0),
    ("map_fewer_entries_than_probs", {"map": T((1, 3), I8)}, INVALID),
    ("map_1d", {"map": T((4,), I8)}, INVALID),
    # 16-19: non-pad
    ("restore_size_1", dict(NO_PROBS, restore=[2]), INNER_NULLPTR),
    ("tokens_0", dict(NO_PROBS, restore=[0, 3]), TILING),
    ("top_k_0", dict(NO_PROBS, restore=[5, 3]), TILING),
    ("top_k_513", dict(NO_PROBS, x=T((513, 3), strides=Z2), si=T((513,), I32), restore=[1, 3], out=T((1, 3))),
     TILING),
    ("top_k_512", dict(NO_PROBS, x=T((512, 3), strides=Z2), si=T((512,), I32), restore=[1, 3], out=T((1, 3))), 0),
    ("length_not_t_times_k", {"si": T((5,), I32)}, TILING),
    ("unpermuted_tokens_shape", {"out": T((3, 3))}, INNER_NULLPTR),
    ("permute_probs_shape", {"pp": T((5,))}, INNER_NULLPTR),
    ("permute_probs_without_probs_not_empty", dict(NO_PROBS, pp=T((4,))), INNER_NULLPTR),
    ("permute_probs_without_probs_dtype", dict(NO_PROBS, pp=T((0,), FP16)), INNER_NULLPTR),
    # 20-23: pad
    ("pad_length_not_multiple_of_e", dict(PAD, probs=T((2, 3)), map=T((2, 3), I8)), TILING),
    ("pad_no_experts", dict(PAD, probs=T((2, 0)), map=T((2, 0), I8)), TILING),
    ("pad_rows_not_length", dict(PAD, x=T((5, 3))), INNER_NULLPTR),
    ("pad_no_probs_rows_not_length", dict(PAD, x=T((5, 3)), **NO_PROBS), INNER_NULLPTR),
    ("pad_unpermuted_tokens_empty", dict(PAD, out=T((0, 3))), INNER_NULLPTR),
    ("pad_unpermuted_tokens_hidden", dict(PAD, out=T((2, 4))), INNER_NULLPTR),
    ("pad_permute_probs_shape", dict(PAD, pp=T((5,))), INNER_NULLPTR),
    ("pad_out_index_shape", dict(PAD, oi=T((5,), I32)), INNER_NULLPTR),
    ("pad_permute_token_id_shape", dict(PAD, tid=T((3,), I32)), INNER_NULLPTR),
]


def fwd_args(over):
    a = dict(FWD_BASE, **over)
    return [a["x"], a["si"], a["map"], a["probs"], a["pad"], a["restore"], a["out"], a["oi"], a["tid"], a["pp"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in FWD_CASES], ids=[c[0] for c in FWD_CASES])
def test_mirror_forward_validation(over, status):
    got, message = phase1(FWD_PHASES[0], fwd_args(over))
    assert got == status, message


GRAD_BASE = dict(g=T((2, 3)), oi=T((4,), I32), tid=T((4,), I32), map=T((2, 2), I8), x=T((4, 3)), probs=T((2, 2)),
                 pad=False, restore=None, out=T((4, 3)), pg=T((2, 2)))
NO_PG = dict(map=None, x=None, probs=None, pg=None)
BIG_E = 40000  # E * 5 bytes of the UB: no room for a hidden chunk (fp32)

GRAD_CASES = [
    ("ok", {}, 0),
    ("ok_no_probs", NO_PG, 0),
    ("ok_no_probs_grad_out_untouched", dict(NO_PG, pg=T((7, 7))), 0),
    ("ok_probs_grad_null", {"pg": None}, 0),
    ("ok_restore_never_read", {"restore": [1, 2, 3]}, 0),
    ("ok_bool_map", {"map": T((2, 2), BOOL)}, 0),
    ("ok_float16", {"g": T((2, 3), FP16), "x": T((4, 3), FP16), "probs": T((2, 2), FP16), "out": T((4, 3), FP16),
                    "pg": T((2, 2), FP16)}, 0),
    ("ok_bfloat16", {"g": T((2, 3), BF), "x": T((4, 3), BF), "probs": T((2, 2), BF), "out": T((4, 3), BF),
                     "pg": T((2, 2), BF)}, 0),
    ("ok_pad", PAD, 0),
    ("ok_pad_no_probs_any_rows", dict(PAD, oi=T((5,), I32), tid=T((5,), I32), out=T((5, 3)), **NO_PG), 0),
    ("ok_strided_inputs", {"g": T((2, 3), strides=(1, 2)), "oi": T((4,), I32, strides=(-1,)),
                           "x": T((4, 3), strides=(1, 4)), "map": T((2, 2), I8, strides=(1, 2))}, 0),
    # 1: NULL
    ("null_grad", {"g": None}, NULLPTR),
    ("null_out_index", {"oi": None}, NULLPTR),
    ("null_permute_token_id", {"tid": None}, NULLPTR),
    ("null_permuted_tokens_grad_out", {"out": None}, NULLPTR),
    # 2-3: dtypes, formats, contiguous outputs
    ("grad_int32", {"g": T((2, 3), I32)}, INVALID),
    ("out_index_int64", {"oi": T((4,), I64)}, INVALID),
    ("map_int32", {"map": T((2, 2), I32)}, INVALID),
    ("permuted_tokens_float16", {"x": T((4, 3), FP16)}, INVALID),
    ("probs_float16", {"probs": T((2, 2), FP16)}, INVALID),
    ("grad_out_float16", {"out": T((4, 3), FP16)}, INVALID),
    ("probs_grad_out_float16", {"pg": T((2, 2), FP16)}, INVALID),
    ("map_nz_format", {"map": T((2, 2), I8, fmt=NZ)}, INVALID),
    ("grad_out_strided", {"out": T((4, 3), strides=(1, 4))}, INVALID),
    # 4: every output empty
    ("all_outputs_empty", {"out": T((0, 3)), "pg": None, "g": T((2, 3, 1)), "oi": T((4, 1), I32)}, 0),
    # 5-11
    ("grad_3d", {"g": T((2, 3, 1))}, TILING),
    ("out_index_2d", {"oi": T((4, 1), I32)}, TILING),
    ("permute_token_id_2d", {"tid": T((4, 1), I32)}, TILING),
    ("index_lengths_differ", {"tid": T((5,), I32)}, TILING),
    ("no_probs_no_tokens", dict(NO_PG, g=T((0, 3))), TILING),
    ("probs_without_map", {"map": None}, TILING),
    ("probs_map_1d", {"map": T((4,), I8)}, TILING),
    ("probs_without_permuted_tokens", {"x": None}, TILING),
    ("probs_permuted_tokens_1d", {"x": T((12,))}, TILING),
    ("probs_1d", {"probs": T((4,)), "pg": None}, TILING),
    ("pad_no_experts", dict(PAD, probs=T((2, 0)), map=T((2, 0), I8), pg=T((2, 0))), TILING),
    ("pad_capacity_above_tokens", dict(PAD, oi=T((8,), I32), tid=T((8,), I32), x=T((8, 3)), out=T((8, 3))), TILING),
    ("pad_too_many_hidden_chunks", dict(PAD, g=T((2, 4200000), strides=Z2), x=T((4, 4200000), strides=Z2),
                                        out=T((4, 4200000), alloc=8)), TILING),
    ("non_pad_no_tokens", {"g": T((0, 3)), "probs": T((0, 2)), "map": T((0, 2), I8), "pg": T((0, 2)),
                           "out": T((4, 3))}, TILING),
    ("top_k_513", {"g": T((1, 3)), "oi": T((513,), I32), "tid": T((513,), I32), "x": T((513, 3), strides=Z2),
                   "out": T((513, 3)), "probs": T((1, 600), strides=Z2), "map": T((1, 600), I8, strides=Z2),
                   "pg": T((1, 600))}, TILING),
    ("top_k_above_experts", {"probs": T((2, 1)), "map": T((2, 1), I8), "pg": T((2, 1))}, TILING),
    ("routing_map_too_large", {"probs": T((2, BIG_E), strides=Z2), "map": T((2, BIG_E), I8, strides=Z2),
                               "pg": None}, TILING),
    ("grad_out_shape", {"out": T((4, 4))}, TILING),
    ("rows_not_multiple_of_tokens", dict(NO_PG, oi=T((5,), I32), tid=T((5,), I32), out=T((5, 3))), TILING),
    ("probs_rows", {"probs": T((3, 2)), "map": T((3, 2), I8), "pg": T((3, 2))}, TILING),
    ("map_shape", {"map": T((2, 3), I8)}, TILING),
    ("permuted_tokens_shape", {"x": T((4, 2))}, TILING),
    ("probs_grad_out_shape", {"pg": T((2, 3))}, TILING),
    # No multiple-of-E rule in drop-and-pad mode (the vendor's tiling tests pass P = 30 with E = 64: capacity 0,
    # which phase 2 reports as the device's division by zero).
    ("pad_rows_not_multiple_of_experts", dict(PAD, probs=T((2, 3)), map=T((2, 3), I8), pg=T((2, 3))), 0),
    ("pad_capacity_0", dict(PAD, probs=T((2, 5)), map=T((2, 5), I8), pg=T((2, 5))), 0),
]


def grad_args(over):
    a = dict(GRAD_BASE, **over)
    return [a["g"], a["oi"], a["tid"], a["map"], a["x"], a["probs"], a["pad"], a["restore"], a["out"], a["pg"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_mirror_backward_validation(over, status):
    got, message = phase1(BWD_PHASES[0], grad_args(over))
    assert got == status, message


# ---- validation through the high-level functions --------------------------------------------------------------

FWD_FN = "aclnnMoeTokenUnpermuteWithRoutingMapGetWorkspaceSize"
BWD_FN = "aclnnMoeTokenUnpermuteWithRoutingMapGradGetWorkspaceSize"
X, SI, RM, PR = (np.ones((4, 3), np.float32), np.arange(4, dtype=np.int32), np.ones((2, 2), np.int8),
                 np.ones((2, 2), np.float32))

HIGH_LEVEL_CASES = [
    ("restore_shape_needed_without_probs", lambda: forward(X, SI, None, None, False, None), NULLPTR, "restore_shape",
     FWD_FN),
    ("restore_shape_two_values", lambda: forward(X, SI, None, None, False, [2]), INNER_NULLPTR, "restore_shape",
     FWD_FN),
    ("permuted_tokens_rank", lambda: forward(X[0], SI, RM, PR), INVALID, "permuted_tokens", FWD_FN),
    ("mixed_precision", lambda: forward(X, SI, RM, PR.astype(np.float16)), INVALID, "probsOptional", FWD_FN),
    ("top_k_above_512", lambda: forward(np.ones((513, 1), np.float32), np.arange(513, dtype=np.int32), None, None,
                                        False, [1, 1]), TILING, "topK", FWD_FN),
    ("grad_rank", lambda: backward(X[0], SI, SI, RM, X, PR), TILING, "unpermuted_tokens_grad", BWD_FN),
    ("grad_top_k_above_experts", lambda: backward(np.ones((1, 3), np.float32), SI, SI, RM[:1], X, PR[:1]), TILING,
     "topK", BWD_FN),
]


@pytest.mark.parametrize("name,call,status,fragment,function", HIGH_LEVEL_CASES, ids=[c[0] for c in HIGH_LEVEL_CASES])
def test_high_level_validation(name, call, status, fragment, function):
    assert_rejected(call, status, fragment, function)


# ---- validation from C ---------------------------------------------------------------------------------------

C_SOURCE = Path(__file__).resolve().parent / "c" / "validation_unpermute_with_routing_map.c"
_C_OK = ["fwd_ok", "fwd_ok_no_probs", "fwd_ok_index_outputs_null", "fwd_ok_pad", "fwd_ok_pad_no_probs",
         "fwd_ok_out_not_contiguous", "fwd_ok_bf16", "fwd_empty_writes_nothing",
         "bwd_ok", "bwd_ok_no_probs", "bwd_ok_probs_grad_null", "bwd_ok_pad", "bwd_ok_restore_shape_never_read",
         "bwd_ok_fp16"]
_C_NULLPTR = ["fwd_null_workspace_size", "fwd_null_executor", "fwd_null_permuted_tokens", "fwd_null_sorted_indices",
              "fwd_null_probs_and_restore_shape", "fwd_null_unpermuted_tokens", "fwd_null_output_before_ranks",
              "fwd_null_routing_map_with_probs", "fwd_pad_null_out_index", "fwd_pad_null_permute_probs",
              "bwd_null_workspace_size", "bwd_null_executor", "bwd_null_grad", "bwd_null_out_index",
              "bwd_null_permute_token_id", "bwd_null_permuted_tokens_grad_out"]
_C_INVALID = ["fwd_dtype_before_null_output"]
_C_TILING = ["bwd_null_routing_map_with_probs", "bwd_null_permuted_tokens_with_probs"]
C_EXPECTED = {**{k: 0 for k in _C_OK}, **{k: NULLPTR for k in _C_NULLPTR}, **{k: INVALID for k in _C_INVALID},
              **{k: TILING for k in _C_TILING}, **{k: 0 for k in C_LIVE}}

# The fixture c_results and the tests test_c_forward_validation, test_c_backward_validation and
# test_c_program_releases_everything: the program's statuses against C_EXPECTED (built with -Werror).
(c_results, test_c_forward_validation, test_c_backward_validation,
 test_c_program_releases_everything) = c_validation_tests(C_SOURCE, C_EXPECTED, werror=True)


# ---- where the vendor accepts what the stub once refused (spec README, errata) ----------------------------------

def test_forward_reads_the_first_t_times_e_entries_of_a_larger_map():
    rng = np.random.default_rng(31)
    tokens = rng.standard_normal((4, 3)).astype(np.float32)
    probs = rng.standard_normal((2, 2)).astype(np.float32)
    routing_map = np.array([[1, 1, 0], [1, 1, 1]], np.int8)  # read as [[1, 1], [0, 1]]
    sorted_indices = np.array([0, 2, 1, 3], np.int32)
    got = forward(tokens, sorted_indices, routing_map, probs)
    want = ref_forward(tokens, sorted_indices, routing_map, probs)
    for g, w in zip(got, want):
        assert (g is None and w is None) or np.array_equal(g, w)
    assert got[3].tolist() == [probs[0, 0], probs[0, 1], probs[1, 1], 0.0]  # permuteProbs: the map's selection


def test_backward_capacity_0_fails_when_the_kernel_runs():
    """Drop-and-pad with P < E: the vendor's tiling accepts capacity P / E = 0, the device's kernel divides by it.
    Phase 1 and the launch succeed; the synchronisation reports the fault (with P = 0 nothing divides)."""
    args = [T((2, 3)), T((4,), I32), T((4,), I32), T((2, 5), I8), T((4, 3)), T((2, 5)), True, None, T((4, 3)),
            T((2, 5))]
    with Arena() as arena:
        built = [a.build(arena) if isinstance(a, T) else a for a in args]
        ws, ex = aclnn.aclnnMoeTokenUnpermuteWithRoutingMapGradGetWorkspaceSize(*built)
        aclnn.aclnnMoeTokenUnpermuteWithRoutingMapGrad(None, ws, ex, None)
        with pytest.raises(aclnn_py.AclError) as info:
            aclnn_py.acl.aclrtSynchronizeStream(None)
    assert info.value.status == 507015 and "division by zero" in str(info.value)
