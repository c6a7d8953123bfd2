"""aclnnMoeFinalizeRoutingV2 and aclnnMoeFinalizeRoutingV2Grad (specs ops/moe_finalize_routing_v2.md and
ops/moe_finalize_routing_v2_grad.md): bit-exact equality with the references (and with direct transcriptions of
the specs' normative references) in every dropPadMode and dtype, the device's accumulation orders (float16 in half
precision, BF16 rounded once, gradScales' tree and chunk order), strided views, empty tensors, thread-count
independence, hypothesis properties, the mirror layer's two phases, every validation rule with its status code,
and the round trips of aclnn_py.testing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import aclnn_py
from aclnn_py import aclnn, reference, testing

from helpers_ops import (BF, BF16, C_LIVE, FLOATS, FLOAT_IDS, FP16, I32, I64, INVALID, NULLPTR, NZ, T, TILING, Resources,
                         assert_rejected, assert_same, bits, c_validation_tests, phase1, random_bits, random_values, run_two_phases,
                         threads)

forward = aclnn_py.moe_finalize_routing_v2
backward = aclnn_py.moe_finalize_routing_v2_grad
ref_forward = reference.moe_finalize_routing_v2
ref_backward = reference.moe_finalize_routing_v2_grad

F32 = np.dtype(np.float32)


# ---- the specs' normative references, transcribed loop by loop (finite inputs: no NaN payload rule) --------------

def _compute(dtype):
    return np.float16 if dtype == np.float16 else np.float32


def spec_forward(ex, idx, x1=None, x2=None, bias=None, scales=None, eidx=None, mode=0):
    dtype = ex.dtype
    tp = _compute(dtype)
    w = lambda a: None if a is None else a.astype(np.float32).astype(tp)
    e_, s1, s2, b, sc = w(ex), w(x1), w(x2), w(bias), w(scales) if scales is None or scales.dtype != F32 else scales
    h = e_.shape[-1]
    rows = e_.reshape(-1, h)
    r_count = rows.shape[0]
    idx = idx.astype(np.int64).reshape(-1)
    k = 1 if sc is None else sc.shape[1]
    n = idx.shape[0] // k
    out = np.empty((n, h), tp)
    for i in range(n):
        acc = None
        if s1 is not None:
            acc = (s1[i] + s2[i]).astype(tp) if s2 is not None else (s1[i] + tp(0)).astype(tp)
        for j in range(k):
            slot = i + j * n if mode in (0, 1) else i * k + j
            r = idx[slot]
            if r < 0 or r >= r_count:
                if acc is None:
                    acc = np.zeros(h, tp)
                continue
            e = int(eidx[i, j]) if b is not None else -1
            if b is not None and 0 <= e < b.shape[0]:
                t = (rows[r] + b[e]).astype(tp)
            elif dtype == BF16 and b is None:
                t = rows[r].astype(tp)
            else:
                t = (rows[r] + tp(0)).astype(tp)
            t = (t * (tp(1) if sc is None else tp(sc[i, j]))).astype(tp)
            acc = t if acc is None else (acc + t).astype(tp)
        out[i] = acc
    return out.astype(dtype)


UB = 196608


def _tree(v):
    v = v.astype(np.float32)
    while len(v) > 1:
        v = (v[0::2] + v[1::2]).astype(np.float32)
    return v[0]


def _chunk_sum(a, g):
    p = (a * g).astype(np.float32)
    nb = -(-len(p) // 8)
    p = np.concatenate([p, np.zeros(nb * 8 - len(p), np.float32)])
    blk = np.array([_tree(p[8 * m:8 * m + 8]) for m in range(nb)], np.float32)
    ng = -(-nb // 64)
    blk = np.concatenate([blk, np.zeros(ng * 64 - nb, np.float32)])
    acc = None
    for q in range(ng):
        c = _tree(blk[64 * q:64 * q + 64])
        acc = c if acc is None else np.float32(acc + c)
    return np.float32(0) if acc is None else acc


def spec_chunk_len(itemsize, has_bias):
    w = 8 + itemsize + (4 if has_bias else 0)
    return (((UB - 128) // w) * itemsize // 32) * 32 // itemsize


def spec_backward(gy, idx, ex=None, scales=None, eidx=None, bias=None, mode=0, active=0, e_num=0, cap=0):
    dtype = gy.dtype
    wid = lambda a: None if a is None else a.astype(np.float32)
    g32 = wid(gy)
    n, h = gy.shape
    idx = idx.astype(np.int64).reshape(-1)
    length = len(idx)
    d = e_num * cap if mode == 1 else (active if 0 < active < length else length)
    gex = np.zeros((d, h), dtype)
    gsc = None
    if scales is None:
        for i in range(length):
            if 0 <= idx[i] < d:
                gex[idx[i]] = gy[i]
    else:
        k = scales.shape[1]
        sc = wid(scales).reshape(-1)
        exr = wid(ex).reshape(d, h)
        b = wid(bias)
        eid = None if bias is None else eidx.reshape(-1)
        chunk = spec_chunk_len(dtype.itemsize, bias is not None)
        gsc = np.zeros(length, np.float32)
        for i in range(length):
            r, g = idx[i], g32[i // k]
            valid = 0 <= r < d
            if valid:
                gex[r] = (g * sc[i]).astype(np.float32).astype(dtype)
            a = None
            if b is not None:
                e = int(eid[i])
                brow = b[e] if 0 <= e < b.shape[0] else np.zeros(h, np.float32)
                a = (brow + exr[r]).astype(np.float32) if valid else brow
            elif valid:
                a = exr[r]
            s = np.float32(0)
            if a is not None:
                for c0 in range(0, h, chunk):
                    s = np.float32(s + _chunk_sum(a[c0:c0 + chunk], g[c0:c0 + chunk]))
            gsc[i] = s
        gsc = gsc.astype(dtype).reshape(n, k)
    if mode == 1:
        gex = gex.reshape(e_num, cap, h)
    return gex, gsc


# ---- forward cases -------------------------------------------------------------------------------------------

def fwd_case(rng, dtype, mode, n=5, k=3, h=6, e=4, cap=4, x1=True, x2=True, bias=True, scales=True,
             kind="forward", scale_dtype=None):
    """Arguments of one forward call. kind "forward": the row index of an init-routing call (a permutation, or
    drop/pad rows with -1); "wild": -1, duplicates, indices beyond the rows, INT32 extremes, bad expert ids."""
    k = k if scales else 1
    padded = mode in (1, 3)
    ex = random_values(rng, (e, cap, h) if padded else (n * k, h), dtype)
    rows = e * cap if padded else n * k
    if kind == "forward":
        idx = rng.permutation(rows)[:n * k] if rows >= n * k else np.concatenate(
            [rng.permutation(rows), np.full(n * k - rows, -1)])
        idx = idx.astype(np.int32)
        if padded:
            idx[rng.random(n * k) < 0.25] = -1
    else:
        idx = rng.integers(-3, rows + 4, size=n * k).astype(np.int32)
        extremes = rng.random(n * k) < 0.15
        idx[extremes] = rng.choice([-2**31, 2**31 - 1, -1, rows], size=int(extremes.sum()))
    e_bias = e if padded else max(e, k)
    eidx = rng.integers(0, e_bias, size=(n, k)).astype(np.int32)
    if kind == "wild":
        eidx[rng.random((n, k)) < 0.2] = rng.choice([-1, e_bias, 2**31 - 1])
    sd = scale_dtype or dtype
    return (ex, idx, random_values(rng, (n, h), dtype) if x1 else None,
            random_values(rng, (n, h), dtype) if x1 and x2 else None,
            random_values(rng, (e_bias, h), dtype) if bias else None,
            random_values(rng, (n, k), sd) if scales else None,
            eidx if bias or rng.random() < 0.5 else None, mode)


OPTIONALS = {  # name -> (x1, x2, bias, scales)
    "all": (True, True, True, True),
    "x1_only": (True, False, True, True),
    "no_skip": (False, False, True, True),
    "no_bias": (True, True, False, True),
    "scales_only": (False, False, False, True),
    "none": (False, False, False, False),
    "bias_no_scales": (False, False, True, False),
}

DTYPE_ROWS = [(np.float32, None), (np.float16, None), (BF16, None), (BF16, np.float32)]
DTYPE_IDS = ["float32", "float16", "bfloat16", "bfloat16_float_scales"]


@pytest.mark.parametrize("dtype,scale_dtype", DTYPE_ROWS, ids=DTYPE_IDS)
def test_forward_matches_reference_and_spec(dtype, scale_dtype):
    rng = np.random.default_rng(DTYPE_IDS.index(
        "bfloat16_float_scales" if scale_dtype else np.dtype(dtype).name if dtype != BF16 else "bfloat16"))
    for mode in range(4):
        for name, (x1, x2, bias, scales) in OPTIONALS.items():
            for kind in ("forward", "wild"):
                args = fwd_case(rng, dtype, mode, x1=x1, x2=x2, bias=bias, scales=scales, kind=kind,
                                scale_dtype=scale_dtype)
                what = f"mode {mode} {name} {kind}"
                got = forward(*args)
                expected = ref_forward(*args)
                assert_same(got, expected, what)
                assert_same(expected, spec_forward(*args), what)
                assert got.shape == (5, 6), what


def _official_forward(dtype=np.float32, scale_dtype=None):
    ex = np.array([[0.1, 1.1, 2.1, 3.1], [4.1, 5.1, 6.1, 7.1], [8.1, 9.1, 10.1, 11.1]] * 2, np.float32)
    x1 = np.array([[0.2, 1.2, 2.2, 3.2], [4.2, 5.2, 6.2, 7.2], [8.2, 9.2, 10.2, 11.2]], np.float32)
    bias = np.array([[0.2, 0.4, 0.2, 0.4]] * 2, np.float32)
    scales = np.array([[1.3, 1.6], [1.2, 1.8], [1.2, 2.3]], np.float32)
    c = lambda a: a.astype(dtype)
    return (c(ex), np.array([2, 1, 4, 3, 0, 5], np.int32), c(x1), c(x1), c(bias),
            scales.astype(scale_dtype or dtype), np.array([[0, 1]] * 3, np.int32))


def _hex(words):
    return [int(w, 16) for w in words.split()]


def test_forward_official_example_bits():
    args = _official_forward()
    out = forward(*args, 0)
    assert bits(out).reshape(-1).tolist() == _hex("413AB852 41893333 41ABC28F 41D7999A 41619999 419D999A 41C0CCCC "
                                                   "41ED9999 4222999A 423B6666 424E999A 42676666")
    assert ["%f" % v for v in forward(*args, 2).reshape(-1)] == [
        "18.070000", "23.549999", "27.869999", "33.349998", "14.099999", "19.700001", "24.099998", "29.699999",
        "35.849998", "42.049999", "46.849998", "53.049999"]
    f16 = forward(*_official_forward(np.float16), 0)
    assert bits(f16).reshape(-1).tolist() == _hex("49D6 4C4A 4D5D 4EBC 4B0D 4CED 4E07 4F6D 5116 51DC 5276 533C")
    b16 = forward(*_official_forward(BF16, np.float32), 0)
    assert bits(b16).reshape(-1).tolist() == _hex("413B 418A 41AC 41D8 4161 419D 41C0 41ED 4223 423C 424F 4268")


def test_forward_float16_computes_in_half_precision():
    # 2048 + 1 + 1 in half precision is 2048 (each + 1 ties to even); float32 would give 2050 -> 2050 in half
    ex = np.array([[1.0], [1.0]], np.float16)
    x1 = np.array([[2048.0]], np.float16)
    scales = np.ones((1, 2), np.float16)
    out = forward(ex, np.array([0, 1], np.int32), x1, None, None, scales, None, 2)
    assert out.tolist() == [[2048.0]]
    # the product is rounded to half before the sum: 0.1 * 3 in half then added to 1000
    ex = np.array([[np.float16(0.1)]], np.float16)
    out = forward(ex, np.array([0], np.int32), np.array([[1000.0]], np.float16), None, None,
                  np.array([[3.0]], np.float16), None, 2)
    assert out[0, 0] == np.float16(np.float16(1000.0) + np.float16(np.float16(0.1) * np.float16(3.0)))
    assert_same(out, ref_forward(ex, np.array([0], np.int32), np.array([[1000.0]], np.float16), None, None,
                                 np.array([[3.0]], np.float16), None, 2))


def test_forward_bfloat16_rounds_once():
    # 1 + 2^-8 + 2^-8: in bf16 each step would tie back to 1; float32 keeps 1 + 2^-7, exact in bf16
    tiny = 2.0 ** -8
    ex = np.array([[tiny], [tiny]], np.float32).astype(BF16)
    x1 = np.array([[1.0]], np.float32).astype(BF16)
    out = forward(ex, np.array([0, 1], np.int32), x1, None, None, np.ones((1, 2), np.float32), None, 2)
    assert float(out[0, 0]) == 1 + 2 * tiny


def test_forward_order_is_x1_x2_first_then_terms_in_k():
    # float32: (x1 + x2) + t0 + t1 with x1 = 1, x2 = 2^-24, t = 2^-24: ties to even at every step -> 1;
    # summing the terms first would give 1 + 2^-23
    tiny = np.float32(2.0 ** -24)
    ex = np.array([[tiny], [tiny]], np.float32)
    out = forward(ex, np.array([0, 1], np.int32), np.array([[1.0]], np.float32), np.array([[tiny]], np.float32),
                  None, np.ones((1, 2), np.float32), None, 2)
    assert out.tolist() == [[1.0]]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_dropped_slots_and_signed_zeros(dtype):
    # mode 3: token 0 drops slot 0 without x1 -> the sum starts at +0, and +0 + -0.0 = +0; token 1 keeps a -0.0
    # row first and drops slot 1: -0.0 stays for BF16 (no "+0"), the others add +0 to the row
    ex = np.zeros((2, 2, 1), dtype)
    ex.reshape(-1)[:] = -0.0
    idx = np.array([-1, 1, 0, -1], np.int32)
    out = forward(ex, idx, None, None, None, np.ones((2, 2), dtype), None, 3)
    assert (bits(out) >> (8 * out.itemsize - 1)).reshape(-1).tolist() == [0, int(dtype == BF16)]
    assert_same(out, ref_forward(ex, idx, None, None, None, np.ones((2, 2), dtype), None, 3))
    # a single kept -0.0 row without bias: +0 for FLOAT/FLOAT16 ("row + 0"), -0.0 for BF16 (no "+0")
    out = forward(ex, np.array([0, 1], np.int32), None, None, None, None, None, 3)
    sign = bits(out) >> (8 * out.itemsize - 1)
    assert (sign == (1 if dtype == BF16 else 0)).all()
    assert_same(out, ref_forward(ex, np.array([0, 1], np.int32), None, None, None, None, None, 3))


def test_forward_column_and_row_major_slots_by_hand():
    ex = np.arange(6, dtype=np.float32).reshape(6, 1) * 10
    idx = np.array([0, 1, 2, 3, 4, 5], np.int32)
    sc = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    # mode 0: token i uses idx[i], idx[i + 3]; mode 2: idx[2i], idx[2i + 1]
    assert forward(ex, idx, None, None, None, sc, None, 0).reshape(-1).tolist() == [0 + 60, 30 + 160, 100 + 300]
    assert forward(ex, idx, None, None, None, sc, None, 2).reshape(-1).tolist() == [0 + 20, 60 + 120, 200 + 300]


def test_forward_out_of_range_indices_and_expert_ids_add_nothing():
    ex = np.ones((4, 2), np.float32)
    bias = np.full((2, 2), 100.0, np.float32)
    idx = np.array([0, 7, -1, 3], np.int32)          # slot 1 and 2 are not rows
    eidx = np.array([[1, 0], [0, 5]], np.int32)       # expert 5 is not a bias row: bias taken as zeros
    sc = np.full((2, 2), 2.0, np.float32)
    out = forward(ex, idx, None, None, bias, sc, eidx, 2)
    assert out.tolist() == [[202.0, 202.0], [2.0, 2.0]]
    assert_same(out, ref_forward(ex, idx, None, None, bias, sc, eidx, 2))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_special_values_and_nan_payloads(dtype):
    rng = np.random.default_rng(5)
    for mode in (0, 2, 3):
        args = list(fwd_case(rng, dtype, mode, n=6, k=2, h=37))
        for j in (0, 2, 3, 4, 5):
            args[j] = random_bits(rng, args[j].shape, dtype)
        with np.errstate(all="ignore"):
            assert_same(forward(*args), ref_forward(*args), f"mode {mode}")


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_forward_strided_inputs(dtype):
    rng = np.random.default_rng(7)
    for mode in (1, 2):
        args = fwd_case(rng, dtype, mode, n=4, k=3, h=5)
        expected = ref_forward(*args)

        def spread(a):
            """a as a view with gaps between its elements (the same values)."""
            if a is None:
                return None
            big = np.zeros(tuple(2 * d + 1 for d in a.shape), a.dtype)
            sl = tuple(slice(1, None, 2) for _ in a.shape)
            big[sl] = a
            return big[sl]

        views = [spread(a) if isinstance(a, np.ndarray) else a for a in args]
        assert not views[0].flags.c_contiguous
        assert_same(forward(*views), expected, f"spread mode {mode}")
        reversed_views = [a[::-1].copy()[::-1] if isinstance(a, np.ndarray) else a for a in args]
        assert_same(forward(*reversed_views), expected, f"reversed mode {mode}")
        transposed = [np.ascontiguousarray(a.T).T if isinstance(a, np.ndarray) and a.ndim == 2 else a for a in args]
        assert_same(forward(*transposed), expected, f"transposed mode {mode}")


def test_forward_empty_tensors():
    # N = 0 or H = 0: the output is empty, nothing is computed
    assert forward(np.ones((0, 3), np.float32), np.zeros(0, np.int32)).shape == (0, 3)
    assert forward(np.ones((4, 0), np.float16), np.arange(4, dtype=np.int32), None, None, None,
                   np.ones((2, 2), np.float16), None, 2).shape == (2, 0)
    # drop/pad with no rows at all: every slot is dropped, the sums are +0 (or x1 + x2)
    x1 = np.full((2, 3), 1.5, np.float32)
    out = forward(np.ones((0, 4, 3), np.float32), np.array([-1, 0, 3, -1], np.int32), x1, x1, None,
                  np.ones((2, 2), np.float32), None, 3)
    assert out.tolist() == [[3.0] * 3] * 2


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(FLOATS), st.sampled_from([0, 1, 2, 3]))
def test_property_forward_results_do_not_depend_on_the_thread_count(seed, dtype, mode):
    rng = np.random.default_rng(seed)
    args = fwd_case(rng, dtype, mode, n=3000 + int(rng.integers(0, 50)), k=2, h=24, e=8, cap=800,
                    kind=str(rng.choice(["forward", "wild"])))
    results = []
    for count in (1, 2, 3):
        with threads(count):
            results.append(forward(*args))
    for r in results[1:]:
        assert_same(r, results[0])
    assert_same(results[0], ref_forward(*args))


@st.composite
def forward_cases(draw):
    mode = draw(st.integers(0, 3))
    dtype, scale_dtype = draw(st.sampled_from(DTYPE_ROWS))
    x1, x2, bias, scales = draw(st.sampled_from(list(OPTIONALS.values())))
    n, k, h = draw(st.integers(1, 7)), draw(st.integers(1, 5)), draw(st.integers(1, 9))
    e, cap = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    kind = draw(st.sampled_from(["forward", "wild"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    args = fwd_case(rng, dtype, mode, n=n, k=k, h=h, e=max(e, k) if mode in (1, 3) and bias else e, cap=cap,
                    x1=x1, x2=x2, bias=bias, scales=scales, kind=kind, scale_dtype=scale_dtype)
    if draw(st.booleans()):  # any bit pattern: NaN payloads, infinities, subnormals
        args = tuple(random_bits(rng, a.shape, a.dtype) if isinstance(a, np.ndarray) and a.dtype != np.int32
                     else a for a in args)
    return args


@settings(max_examples=80, deadline=None)
@given(forward_cases())
def test_property_forward(args):
    with np.errstate(all="ignore"):
        expected = ref_forward(*args)
        assert_same(forward(*args), expected)
        if all(not isinstance(a, np.ndarray) or a.dtype == np.int32 or np.isfinite(a.astype(np.float32)).all()
               for a in args):
            assert_same(expected, spec_forward(*args))


# ---- backward ------------------------------------------------------------------------------------------------

def bwd_case(rng, dtype, mode, n=5, k=3, h=6, e=4, cap=4, scales=True, bias=True, active=0, kind="forward"):
    """Arguments of one backward call (see fwd_case for the kinds)."""
    k = k if scales else 1
    length = n * k
    d = e * cap if mode == 1 else (active if 0 < active < length else length)
    if kind == "forward":
        if mode == 1:
            idx = (rng.permutation(d)[:length] if d >= length else
                   np.concatenate([rng.permutation(d), np.full(length - d, -1)])).astype(np.int32)
            idx[rng.random(length) < 0.25] = -1
        else:
            idx = rng.permutation(length).astype(np.int32)  # active: indices >= D are skipped
    else:
        idx = rng.integers(-3, d + 4, size=length).astype(np.int32)
        extremes = rng.random(length) < 0.15
        idx[extremes] = rng.choice([-2**31, 2**31 - 1, -1, d], size=int(extremes.sum()))
    gy = random_values(rng, (n, h), dtype)
    ex = random_values(rng, (e, cap, h) if mode == 1 else (d, h), dtype) if scales else None
    sc = random_values(rng, (n, k), dtype) if scales else None
    eidx = rng.integers(0, e, size=(n, k)).astype(np.int32)
    if kind == "wild":
        eidx[rng.random((n, k)) < 0.2] = rng.choice([-1, e, 2**31 - 1])
    b = random_values(rng, (e, h), dtype) if bias else None
    return (gy, idx, ex, sc, eidx if bias else None, b, mode, active if mode == 0 else 0,
            e if mode == 1 else 0, cap if mode == 1 else 0)


GRAD_OPTIONALS = {"scales_bias": (True, True), "scales": (True, False), "none": (False, False),
                  "bias_ignored_without_scales": (False, True)}
GRAD_MODES = {"dropless": (0, 0), "active": (0, 7), "drop_pad": (1, 0)}


def _assert_grad(got, expected, what=""):
    assert_same(got[0], expected[0], what + " gradExpandedX")
    assert_same(got[1], expected[1], what + " gradScales")


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_matches_reference_and_spec(dtype):
    rng = np.random.default_rng(20 + FLOATS.index(dtype))
    for mname, (mode, active) in GRAD_MODES.items():
        for oname, (scales, bias) in GRAD_OPTIONALS.items():
            for kind in ("forward", "wild"):
                args = bwd_case(rng, dtype, mode, scales=scales, bias=bias, active=active, kind=kind)
                what = f"{mname} {oname} {kind}"
                got = backward(*args)
                expected = ref_backward(*args)
                _assert_grad(got, expected, what)
                _assert_grad(expected, spec_backward(*args), what)
                assert (got[1] is None) == (not scales), what


def test_backward_official_example():
    gy = np.array([[0.3816, 0.3939], [0.8474, 0.1652]], np.float32)
    ex = np.array([[0.6049, 0.3315], [0.4954, 0.3284], [0.7060, 0.4359], [0.6514, 0.9476]], np.float32)
    sc = np.array([[0.4708, 0.0656], [0.9652, 0.9512]], np.float32)
    bias = np.array([[0.6452, 0.1981], [0.4159, 0.9575]], np.float32)
    gex, gsc = backward(gy, np.array([1, 3, 0, 2], np.int32), ex, sc, np.array([[0, 1], [0, 1]], np.int32), bias)
    assert ["%f" % v for v in gex.reshape(-1)] == ["0.817910", "0.159451", "0.179657", "0.185448", "0.806047",
                                                   "0.157138", "0.025033", "0.025840"]
    assert ["%f" % v for v in gsc.reshape(-1)] == ["0.642641", "1.157701", "1.146825", "1.180888"]
    assert gex[1, 0] == np.float32(np.float32(0.3816) * np.float32(0.4708))  # one correctly rounded product


def test_backward_grad_scales_sums_in_device_tree_order():
    # H = 16: two 8-blocks summed by pairs. Products [1, 2^-24, 2^-24, 0...]: the pair tree gives
    # (1 + 2^-24) + 2^-24 ... = 1 per block level, whereas a sequential sum gives the same 1 — so use values whose
    # tree and sequential sums differ: [1, -1, 2^-30, ...] vs [2^-30 + 1 - 1] orders.
    h = 16
    a = np.zeros((1, h), np.float32)
    a[0, :4] = [2.0 ** 24, 1.0, 1.0, -(2.0 ** 24)]
    g = np.ones((1, h), np.float32)
    # tree: (2^24 + 1) + (1 - 2^24) = 2^24 + (1 - 2^24) = 1; sequential: ((2^24 + 1) + 1) - 2^24 = 2
    gex, gsc = backward(g, np.array([0], np.int32), a, np.ones((1, 1), np.float32))
    assert gsc.tolist() == [[1.0]]
    assert_same(gsc, ref_backward(g, np.array([0], np.int32), a, np.ones((1, 1), np.float32))[1])


@pytest.mark.parametrize("dtype,bias", [(np.float32, False), (np.float32, True), (np.float16, False), (BF16, True)],
                         ids=["float32", "float32_bias", "float16", "bfloat16_bias"])
def test_backward_grad_scales_chunks_large_hidden(dtype, bias):
    # H above the chunk P (16368 / 12280 / 19648 / 14032): two chunks added in sequence
    itemsize = np.dtype(dtype).itemsize
    p = spec_chunk_len(itemsize, bias)
    assert p == {(4, False): 16368, (4, True): 12280, (2, False): 19648, (2, True): 14032}[(itemsize, bias)]
    rng = np.random.default_rng(30)
    args = bwd_case(rng, dtype, 0, n=2, k=2, h=p + 700, scales=True, bias=bias)
    with np.errstate(over="ignore"):  # float16 sums of 20000 products may overflow to inf, on the device too
        expected = ref_backward(*args)
        _assert_grad(backward(*args), expected)
        _assert_grad(expected, spec_backward(*args))
    # the chunk border matters: a chunk boundary adds partial sums where the tree would not
    gy = np.ones((1, p + 1), dtype)
    ex = np.zeros((1, p + 1), dtype)
    ex[0, 0], ex[0, 1], ex[0, p] = 1.0, 2.0 ** -24 if dtype == np.float32 else 0.0, 2.0 ** -24
    if dtype == np.float32:
        got = backward(gy, np.array([0], np.int32), ex, np.ones((1, 1), dtype))[1]
        # chunk 1: 1 + 2^-24 (tie -> 1); S = 1; chunk 2: + 2^-24 -> 1: exactly 1
        assert got.tolist() == [[1.0]]


def test_backward_duplicate_indices_last_slot_wins_and_untouched_rows():
    gy = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], np.float32)
    idx = np.array([1, 1, 0], np.int32)  # rows 1 twice (slot 1 wins); row 2 of 3 untouched
    gex, gsc = backward(gy, idx)
    assert gex.tolist() == [[3.0, 3.0], [2.0, 2.0], [0.0, 0.0]] and gsc is None
    # drop/pad: rows nobody writes are zero; dropped slots with a bias get <bias, gradY>
    gy = np.array([[1.0, 2.0]], np.float32)
    ex = np.full((2, 2, 2), 5.0, np.float32)
    bias = np.array([[1.0, 1.0], [10.0, 20.0]], np.float32)
    gex, gsc = backward(gy, np.array([3, -1], np.int32), ex, np.array([[2.0, 4.0]], np.float32),
                        np.array([[0, 1]], np.int32), bias, 1, 0, 2, 2)
    assert gex.reshape(4, 2).tolist() == [[0, 0], [0, 0], [0, 0], [2.0, 4.0]]
    assert gsc.tolist() == [[(5 + 1) * 1 + (5 + 1) * 2, 10 * 1 + 20 * 2]]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_special_values_and_nan_payloads(dtype):
    rng = np.random.default_rng(8)
    for mode in (0, 1):
        args = list(bwd_case(rng, dtype, mode, n=4, k=2, h=37))
        for j in (0, 2, 3, 5):
            args[j] = random_bits(rng, args[j].shape, dtype)
        with np.errstate(all="ignore"):
            _assert_grad(backward(*args), ref_backward(*args), f"mode {mode}")


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_backward_strided_inputs(dtype):
    rng = np.random.default_rng(9)
    for mode in (0, 1):
        args = bwd_case(rng, dtype, mode, n=4, k=3, h=5)
        expected = ref_backward(*args)
        views = [np.ascontiguousarray(a.T).T if isinstance(a, np.ndarray) and a.ndim == 2 else a for a in args]
        _assert_grad(backward(*views), expected, f"transposed mode {mode}")
        views = [a[..., ::-1].copy()[..., ::-1] if isinstance(a, np.ndarray) and a.ndim >= 2 else a for a in args]
        assert not views[0].flags.c_contiguous
        _assert_grad(backward(*views), expected, f"reversed mode {mode}")


def test_backward_empty_tensors():
    # H = 0 with scales: gradExpandedX is empty, gradScales is +0.0
    gex, gsc = backward(np.ones((2, 0), np.float32), np.arange(4, dtype=np.int32), np.ones((4, 0), np.float32),
                        np.ones((2, 2), np.float32))
    assert gex.shape == (4, 0) and gsc.tolist() == [[0.0, 0.0]] * 2 and not bits(gsc).any()
    # L = 0: both outputs empty
    gex, gsc = backward(np.ones((0, 3), np.float16), np.zeros(0, np.int32))
    assert gex.shape == (0, 3) and gsc is None
    # drop/pad with no slots: every row zero
    gex, gsc = backward(np.ones((0, 3), BF16), np.zeros(0, np.int32), np.ones((2, 2, 3), BF16),
                        np.ones((0, 0), BF16), None, None, 1, 0, 2, 2)
    assert gex.shape == (2, 2, 3) and not bits(gex).any()


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(FLOATS), st.sampled_from(list(GRAD_MODES.values())),
       st.booleans())
def test_property_backward_results_do_not_depend_on_the_thread_count(seed, dtype, mode_active, bias):
    rng = np.random.default_rng(seed)
    mode, active = mode_active
    args = bwd_case(rng, dtype, mode, n=3000 + int(rng.integers(0, 50)), k=2, h=24, e=8, cap=700, bias=bias,
                    active=active * 500, kind=str(rng.choice(["forward", "wild"])))
    results = []
    for count in (1, 2, 3):
        with threads(count):
            results.append(backward(*args))
    for r in results[1:]:
        _assert_grad(r, results[0])
    _assert_grad(results[0], ref_backward(*args))


@st.composite
def backward_cases(draw):
    mode, active = draw(st.sampled_from(list(GRAD_MODES.values())))
    dtype = draw(st.sampled_from(FLOATS))
    scales, bias = draw(st.sampled_from(list(GRAD_OPTIONALS.values())))
    n, k, h = draw(st.integers(1, 7)), draw(st.integers(1, 5)), draw(st.integers(0, 9))
    if active:
        active = draw(st.integers(1, n * k + 2))
    e, cap = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    kind = draw(st.sampled_from(["forward", "wild"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    args = bwd_case(rng, dtype, mode, n=n, k=k, h=h, e=e, cap=cap, scales=scales, bias=bias, active=active,
                    kind=kind)
    if draw(st.booleans()):
        args = tuple(random_bits(rng, a.shape, a.dtype) if isinstance(a, np.ndarray) and a.dtype != np.int32
                     else a for a in args)
    return args


@settings(max_examples=80, deadline=None)
@given(backward_cases())
def test_property_backward(args):
    with np.errstate(all="ignore"):
        expected = ref_backward(*args)
        _assert_grad(backward(*args), expected)
        if all(not isinstance(a, np.ndarray) or a.dtype == np.int32 or np.isfinite(a.astype(np.float32)).all()
               for a in args):
            _assert_grad(expected, spec_backward(*args))


# ---- mirror layer: both phases by hand ---------------------------------------------------------------------

def _handle(r, a):
    return None if a is None else r.tensor(a).handle


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_mirror_forward_two_phases(dtype):
    rng = np.random.default_rng(11)
    with Resources() as r:
        for mode in range(4):
            args = fwd_case(rng, dtype, mode)
            t_out = r.output((5, 6), dtype, fill=0x7F, offset=3)
            run_two_phases(aclnn.aclnnMoeFinalizeRoutingV2GetWorkspaceSize, aclnn.aclnnMoeFinalizeRoutingV2,
                           *[_handle(r, a) for a in args[:7]], mode, t_out.handle)
            raw = np.empty(t_out.buffer.nbytes, np.uint8)
            t_out.buffer.download(raw)
            assert (raw[:3 * np.dtype(dtype).itemsize] == 0x7F).all()
            assert_same(t_out.numpy(), ref_forward(*args), f"mode {mode}")


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_mirror_backward_two_phases_keeps_unwritten_rows(dtype):
    rng = np.random.default_rng(12)
    with Resources() as r:
        for mode, active in GRAD_MODES.values():
            args = bwd_case(rng, dtype, mode, active=active, kind="wild")
            gex_expected, gsc_expected = ref_backward(*args)
            t_gex = r.output(gex_expected.shape, dtype, fill=0x33)
            t_gsc = r.output((5, 3), dtype, fill=0x33)
            run_two_phases(aclnn.aclnnMoeFinalizeRoutingV2GradGetWorkspaceSize, aclnn.aclnnMoeFinalizeRoutingV2Grad,
                           *[_handle(r, a) for a in args[:6]], *args[6:], t_gex.handle, t_gsc.handle)
            got = t_gex.numpy().reshape(-1, 6)
            written = np.zeros(got.shape[0], bool)
            idx = args[1]
            written[idx[(idx >= 0) & (idx < got.shape[0])]] = True
            if mode == 1:  # drop/pad: every row written, unreferenced ones with zeros
                assert_same(t_gex.numpy(), gex_expected)
            else:  # dropless: rows no slot references keep the caller's bytes
                assert (bits(got[~written]).view(np.uint8) == 0x33).all()
                assert_same(got[written], gex_expected.reshape(-1, 6)[written])
            assert_same(t_gsc.numpy(), gsc_expected)


# ---- validation through the mirror layer ---------------------------------------------------------------------

# N = 3, K = 2, H = 4, E = 2, mode 0 (2-D expandedX of N*K rows); PAD: mode 3, expandedX (E, C, H) = (2, 3, 4)
FWD_BASE = dict(ex=T((6, 4)), idx=T((6,), I32), x1=T((3, 4)), x2=T((3, 4)), bias=T((2, 4)), sc=T((3, 2)),
                eidx=T((3, 2), I32), mode=0, out=T((3, 4)))
PAD = dict(ex=T((2, 3, 4)), mode=3)

FWD_CASES = [
    ("ok", {}, 0),
    ("ok_mode_1", dict(PAD, mode=1), 0),
    ("ok_mode_2", {"mode": 2}, 0),
    ("ok_mode_3", PAD, 0),
    ("ok_float16", {k: T(v.shape, FP16) for k, v in FWD_BASE.items() if k in ("ex", "x1", "x2", "bias", "sc", "out")},
     0),
    ("ok_bfloat16", {k: T(v.shape, BF) for k, v in FWD_BASE.items() if k in ("ex", "x1", "x2", "bias", "sc", "out")},
     0),
    ("ok_bfloat16_float_scales", {k: T(v.shape, BF) for k, v in FWD_BASE.items()
                                  if k in ("ex", "x1", "x2", "bias", "out")}, 0),
    ("ok_no_optionals", dict(x1=None, x2=None, bias=None, sc=None, eidx=None, idx=T((3,), I32)), 0),
    ("ok_expert_idx_without_bias", {"bias": None}, 0),
    ("ok_nk_not_multiple_of_k", {"idx": T((7,), I32)}, 0),
    ("ok_mode_0_rows_unchecked", {"ex": T((2, 4))}, 0),
    ("ok_strided_inputs", {"ex": T((6, 4), strides=(1, 6)), "x1": T((3, 4), strides=(1, 3))}, 0),
    ("ok_scales_more_rows", {"sc": T((5, 2))}, 0),
    # 1
    ("null_expanded_x", {"ex": None}, NULLPTR),
    ("null_row_idx", {"idx": None}, NULLPTR),
    ("null_out", {"out": None}, NULLPTR),
    # 2, 3
    ("x1_dtype", {"x1": T((3, 4), FP16)}, INVALID),
    ("x2_dtype", {"x2": T((3, 4), BF)}, INVALID),
    ("bias_dtype", {"bias": T((2, 4), FP16)}, INVALID),
    ("scales_float_with_float16", {"ex": T((6, 4), FP16), "x1": T((3, 4), FP16), "x2": T((3, 4), FP16),
                                   "bias": T((2, 4), FP16), "out": T((3, 4), FP16)}, INVALID),
    ("scales_bf16_with_float", {"sc": T((3, 2), BF)}, INVALID),
    ("expert_idx_int64", {"eidx": T((3, 2), I64)}, INVALID),
    ("row_idx_int64", {"idx": T((6,), I64)}, INVALID),
    ("out_dtype", {"out": T((3, 4), FP16)}, INVALID),
    ("expanded_x_int32", {"ex": T((6, 4), I32)}, INVALID),
    ("expanded_x_format_nz", {"ex": T((6, 4), fmt=NZ)}, INVALID),
    ("out_not_contiguous", {"out": T((3, 4), strides=(1, 3))}, INVALID),
    # 4
    ("empty_out", {"out": T((0, 4)), "mode": 9, "ex": T((1,))}, 0),
    ("empty_out_still_checks_dtypes", {"out": T((0, 4)), "x1": T((3, 4), FP16)}, INVALID),
    # 5 - 15
    ("mode_4", {"mode": 4}, TILING),
    ("mode_negative", {"mode": -1}, TILING),
    ("row_idx_2d", {"idx": T((3, 2), I32)}, TILING),
    ("scales_1d", {"sc": T((6,))}, TILING),
    ("scales_k_0", {"sc": T((3, 0))}, TILING),
    ("mode_0_expanded_x_3d", {"ex": T((2, 3, 4))}, TILING),
    ("mode_3_expanded_x_2d", {"mode": 3}, TILING),
    ("x1_1d", {"x1": T((12,))}, TILING),
    ("x1_rows", {"x1": T((4, 4))}, TILING),
    ("x1_cols", {"x1": T((3, 5))}, TILING),
    ("x2_without_x1", {"x1": None}, TILING),
    ("x2_rows", {"x2": T((2, 4))}, TILING),
    ("x2_cols", {"x2": T((3, 3))}, TILING),
    ("bias_without_expert_idx", {"eidx": None}, TILING),
    ("bias_3d", {"bias": T((2, 4, 1))}, TILING),
    ("mode_3_bias_rows_not_e", dict(PAD, bias=T((3, 4))), TILING),
    ("bias_cols", {"bias": T((2, 5))}, TILING),
    ("expert_idx_1d", {"eidx": T((6,), I32)}, TILING),
    ("expert_idx_rows", {"eidx": T((4, 2), I32)}, TILING),
    ("expert_idx_cols", {"eidx": T((3, 3), I32)}, TILING),
    ("bias_rows_below_k", {"bias": T((1, 4))}, TILING),
    ("bias_rows_0", {"bias": T((0, 4)), "sc": None, "eidx": T((6, 1), I32), "x1": T((6, 4)), "x2": T((6, 4)),
                     "out": T((6, 4))}, TILING),
    ("out_3d", {"out": T((3, 4, 1))}, TILING),
    ("out_rows", {"out": T((4, 4))}, TILING),
    ("out_cols", {"out": T((3, 5))}, TILING),
    # stub-only: reads the device would make out of bounds
    ("scales_fewer_rows", {"sc": T((2, 2)), "eidx": None, "bias": None}, TILING),
    ("expanded_x_negative_dim", {"ex": T((-1, 4))}, TILING),
]


def fwd_args(over):
    a = dict(FWD_BASE, **over)
    return [a["ex"], a["idx"], a["x1"], a["x2"], a["bias"], a["sc"], a["eidx"], a["mode"], a["out"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in FWD_CASES], ids=[c[0] for c in FWD_CASES])
def test_mirror_forward_validation(over, status):
    got, message = phase1(aclnn.aclnnMoeFinalizeRoutingV2GetWorkspaceSize, fwd_args(over))
    assert got == status, message
    if status:
        assert "aclnnMoeFinalizeRoutingV2GetWorkspaceSize" in message


# N = 2, K = 2, L = 4, H = 3, E = 2, mode 0; PAD1: mode 1, E = 2, C = 3
GRAD_BASE = dict(gy=T((2, 3)), idx=T((4,), I32), ex=T((4, 3)), sc=T((2, 2)), eidx=T((2, 2), I32), bias=T((2, 3)),
                 mode=0, active=0, e=0, cap=0, gex=T((4, 3)), gsc=T((2, 2)))
PAD1 = dict(mode=1, e=2, cap=3, ex=T((2, 3, 3)), gex=T((2, 3, 3)))

GRAD_CASES = [
    ("ok", {}, 0),
    ("ok_drop_pad", PAD1, 0),
    ("ok_drop_pad_expanded_x_other_split", dict(PAD1, ex=T((3, 2, 3))), 0),
    ("ok_active", {"active": 3, "ex": T((3, 3)), "gex": T((3, 3))}, 0),
    ("ok_active_not_below_L_ignored", {"active": 4}, 0),
    ("ok_no_bias", {"bias": None, "eidx": None}, 0),
    ("ok_float16", {k: T(v.shape, FP16) for k, v in GRAD_BASE.items() if k in ("gy", "ex", "sc", "bias", "gex", "gsc")},
     0),
    ("ok_bfloat16", {k: T(v.shape, BF) for k, v in GRAD_BASE.items() if k in ("gy", "ex", "sc", "bias", "gex", "gsc")},
     0),
    ("ok_no_scales_ignores_the_rest", {"gy": T((4, 3)), "sc": None, "ex": T((9, 9, 9)), "bias": T((1,)),
                                       "eidx": None, "gsc": T((7,))}, 0),
    # 1
    ("null_grad_y", {"gy": None}, NULLPTR),
    ("null_row_idx", {"idx": None}, NULLPTR),
    ("null_grad_expanded_x", {"gex": None}, NULLPTR),
    ("null_grad_scales_even_without_scales", {"gsc": None, "sc": None, "gy": T((4, 3))}, NULLPTR),
    # 2, 3
    ("scales_float_with_bf16", {k: T(v.shape, BF) for k, v in GRAD_BASE.items()
                                if k in ("gy", "ex", "bias", "gex", "gsc")}, INVALID),
    ("expert_idx_int64", {"eidx": T((2, 2), I64)}, INVALID),
    ("grad_scales_dtype_without_scales", {"gsc": T((2, 2), FP16), "sc": None, "gy": T((4, 3))}, INVALID),
    ("grad_expanded_x_dtype", {"gex": T((4, 3), FP16)}, INVALID),
    ("grad_y_format_nz", {"gy": T((2, 3), fmt=NZ)}, INVALID),
    ("grad_expanded_x_not_contiguous", {"gex": T((4, 3), strides=(1, 4))}, INVALID),
    ("grad_scales_not_contiguous", {"gsc": T((2, 2), strides=(1, 2))}, INVALID),
    # 4
    ("both_outputs_empty", {"gex": T((0, 3)), "gsc": T((0,)), "mode": 7}, 0),
    # 5 - 18
    ("scales_without_expanded_x", {"ex": None}, TILING),
    ("bias_without_expert_idx", {"eidx": None}, TILING),
    ("mode_2", {"mode": 2}, TILING),
    ("drop_pad_expert_num_0", dict(PAD1, e=0), TILING),
    ("drop_pad_capacity_0", dict(PAD1, cap=0), TILING),
    ("grad_y_3d", {"gy": T((2, 3, 1))}, TILING),
    ("row_idx_2d", {"idx": T((2, 2), I32)}, TILING),
    ("expanded_x_3d_in_mode_0", {"ex": T((4, 3, 1))}, TILING),
    ("scales_1d", {"sc": T((4,))}, TILING),
    ("expert_idx_1d", {"eidx": T((4,), I32)}, TILING),
    ("bias_1d", {"bias": T((6,))}, TILING),
    ("expanded_x_rows_not_d", {"ex": T((5, 3))}, TILING),
    ("drop_pad_expanded_x_rows_not_d", dict(PAD1, ex=T((2, 2, 3))), TILING),
    ("expanded_x_cols", {"ex": T((4, 4))}, TILING),
    ("scales_rows", {"sc": T((1, 4))}, TILING),
    ("scales_numel", {"sc": T((2, 3))}, TILING),
    ("expert_idx_rows", {"eidx": T((1, 4), I32)}, TILING),
    ("expert_idx_numel", {"eidx": T((2, 3), I32)}, TILING),
    ("bias_rows_0", {"bias": T((0, 3))}, TILING),
    ("drop_pad_bias_rows_not_expert_num", dict(PAD1, bias=T((3, 3))), TILING),
    ("bias_cols", {"bias": T((2, 4))}, TILING),
    ("no_scales_n_not_l", {"sc": None}, TILING),
    ("grad_expanded_x_1d", {"gex": T((12,))}, TILING),
    ("grad_expanded_x_3d_in_mode_0", {"gex": T((4, 3, 1))}, TILING),
    ("grad_expanded_x_2d_in_mode_1", dict(PAD1, gex=T((6, 3))), TILING),
    ("grad_expanded_x_rows", {"gex": T((5, 3))}, TILING),
    ("grad_expanded_x_cols", {"gex": T((4, 2))}, TILING),
    ("drop_pad_grad_expanded_x_cols", dict(PAD1, gex=T((2, 3, 4))), TILING),
    ("grad_scales_rows", {"gsc": T((1, 4))}, TILING),
    ("grad_scales_numel", {"gsc": T((2, 3))}, TILING),
    ("grad_scales_3d", {"gsc": T((2, 2, 1))}, TILING),
    ("expert_num_times_capacity_overflows", dict(PAD1, e=2**62, cap=4), TILING),
]


def grad_args(over):
    a = dict(GRAD_BASE, **over)
    return [a["gy"], a["idx"], a["ex"], a["sc"], a["eidx"], a["bias"], a["mode"], a["active"], a["e"], a["cap"],
            a["gex"], a["gsc"]]


@pytest.mark.parametrize("over,status", [c[1:] for c in GRAD_CASES], ids=[c[0] for c in GRAD_CASES])
def test_mirror_backward_validation(over, status):
    got, message = phase1(aclnn.aclnnMoeFinalizeRoutingV2GradGetWorkspaceSize, grad_args(over))
    assert got == status, message
    if status:
        assert "aclnnMoeFinalizeRoutingV2GradGetWorkspaceSize" in message


# ---- validation through the high-level functions -------------------------------------------------------------

def test_high_level_validation():
    ex, idx = np.ones((6, 4), np.float32), np.arange(6, dtype=np.int32)
    fwd_name, bwd_name = "aclnnMoeFinalizeRoutingV2GetWorkspaceSize", "aclnnMoeFinalizeRoutingV2GradGetWorkspaceSize"
    assert_rejected(lambda: forward(ex, idx, drop_pad_mode=4), TILING, "drop_pad_mode", fwd_name)
    assert_rejected(lambda: forward(ex, idx, x2=np.ones((6, 4), np.float32)), TILING, "x2Optional", fwd_name)
    assert_rejected(lambda: forward(ex, idx.reshape(2, 3)), TILING, "expanded_row_idx", fwd_name)
    assert_rejected(lambda: forward(ex, idx, scales=np.ones((3, 2), np.float16)), INVALID, "scales", fwd_name)
    assert_rejected(lambda: forward(ex, idx, drop_pad_mode=1), TILING, "expandedX must be 3-D", fwd_name)
    gy = np.ones((6, 4), np.float32)
    assert_rejected(lambda: backward(gy, idx, drop_pad_mode=2), TILING, "drop_pad_mode", bwd_name)
    assert_rejected(lambda: backward(gy, idx, drop_pad_mode=1, expert_num=0, expert_capacity=2), TILING,
                    "expert_num", bwd_name)
    assert_rejected(lambda: backward(gy, idx, scales=np.ones((6, 1), np.float32)), TILING, "expandedXOptional",
                    bwd_name)
    assert_rejected(lambda: backward(gy[:3], idx), TILING, "gradY.shape[0]", bwd_name)


# ---- round trips and chains (aclnn_py.testing) --------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("mode", [2, 3])
def test_finalize_backward_is_the_vjp(dtype, mode):
    rng = np.random.default_rng(40 + mode)
    for _ in range(3):
        rt = testing.check_pair("moe_finalize_routing_v2", rng, dtype=dtype, drop_pad_mode=mode)
        assert len(rt.pairs) == 2 and f"drop_pad_mode={mode}" in rt.mode


@pytest.mark.parametrize("init", ["moe_init_routing_v2", "moe_init_routing_v3"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("drop_pad_mode", [0, 1])
def test_init_routing_then_finalize_returns_the_weighted_tokens(init, dtype, drop_pad_mode):
    rng = np.random.default_rng(50 + drop_pad_mode)
    for _ in range(3):
        chain = testing.check_chain(init, rng, dtype=dtype, drop_pad_mode=drop_pad_mode)
        assert chain.out.shape == chain.expected.shape == (7, 5)


def test_check_pair_and_chain_detect_a_wrong_operator(monkeypatch):
    from aclnn_py import ops
    real = ops.moe_finalize_routing_v2_grad

    def broken(*args, **kwargs):
        gex, gsc = real(*args, **kwargs)
        return gex, gsc * 2
    monkeypatch.setattr(ops, "moe_finalize_routing_v2_grad", broken)
    with pytest.raises(AssertionError, match="part 1"):
        testing.check_pair("moe_finalize_routing_v2", np.random.default_rng(1))
    real_fwd = ops.moe_finalize_routing_v2
    monkeypatch.setattr(ops, "moe_finalize_routing_v2", lambda *a, **k: real_fwd(*a, **k) + 1)
    with pytest.raises(AssertionError, match="weighted tokens"):
        testing.check_chain("moe_init_routing_v2", np.random.default_rng(1))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_property_round_trips(data):
    n, k = data.draw(st.integers(1, 9)), data.draw(st.integers(1, 4))
    e = data.draw(st.integers(k, 6))
    h = data.draw(st.integers(1, 5))
    dtype = data.draw(st.sampled_from(["float32", "float16", "bfloat16"]))
    seed = data.draw(st.integers(0, 2**32 - 1))
    testing.check_pair("moe_finalize_routing_v2", np.random.default_rng(seed), dtype=dtype, n=n, k=k, h=h, e=e,
                       drop_pad_mode=data.draw(st.sampled_from([2, 3])), capacity=data.draw(st.integers(1, n)))
    testing.check_chain("moe_init_routing_v2", np.random.default_rng(seed), dtype=dtype, n=n, k=k, h=h, e=e,
                        drop_pad_mode=data.draw(st.sampled_from([0, 1])), capacity=data.draw(st.integers(1, n)))


# ---- validation from C ---------------------------------------------------------------------------------------

C_SOURCE = Path(__file__).resolve().parent / "c" / "validation_finalize_routing_v2.c"

_C_OK = ["fwd_ok", "fwd_ok_wild_indices_mode_0", "fwd_ok_wild_indices_mode_1", "fwd_ok_wild_indices_mode_2",
         "fwd_ok_wild_indices_mode_3", "fwd_ok_bf16_float_scales", "fwd_ok_strided_expanded_x",
         "bwd_ok", "bwd_ok_wild_indices", "bwd_ok_drop_pad_wild_indices", "bwd_ok_active_wild_indices",
         "bwd_ok_without_scales_wild_indices"]
_C_NULLPTR = ["fwd_null_expanded_x", "fwd_null_out", "fwd_null_workspace_size", "fwd_null_executor",
              "bwd_null_grad_y", "bwd_null_grad_scales", "bwd_null_workspace_size", "bwd_null_executor"]
_C_INVALID = ["fwd_scales_dtype", "fwd_out_not_contiguous", "bwd_scales_dtype", "bwd_grad_scales_dtype"]
_C_TILING = ["fwd_drop_pad_mode_4", "fwd_x2_without_x1", "fwd_bias_without_expert_idx", "fwd_scales_fewer_rows",
             "fwd_out_cols", "bwd_scales_without_expanded_x", "bwd_drop_pad_mode_2", "bwd_drop_pad_expert_num_0",
             "bwd_grad_expanded_x_3d_in_mode_0", "bwd_grad_scales_1d"]
C_EXPECTED = {**{n: 0 for n in _C_OK}, **{n: NULLPTR for n in _C_NULLPTR}, **{n: INVALID for n in _C_INVALID},
              **{n: TILING for n in _C_TILING}, **{n: 0 for n in C_LIVE}}

# The fixture c_results and the tests test_c_forward_validation, test_c_backward_validation and
# test_c_program_releases_everything: the program's statuses against C_EXPECTED (built with -Werror).
(c_results, test_c_forward_validation, test_c_backward_validation,
 test_c_program_releases_everything) = c_validation_tests(C_SOURCE, C_EXPECTED, werror=True)
