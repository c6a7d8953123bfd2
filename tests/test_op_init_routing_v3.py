"""aclnnMoeInitRoutingV3 (spec ops/moe_init_routing_v3.md): bit-exact equality with the reference in every mode
(dropless / active / drop-pad, active expert range, gather / scatter index, count / cumsum / key-value statistics,
no / static / dynamic INT8 quantisation), the spec's rounding and saturation, the mirror layer's two phases,
random cases and thread counts, every validation rule with its status code, the identity with
MoeInitRoutingV2 and the round trip through MoeInitRoutingV2Grad."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import aclnn_py
from aclnn_py import aclnn, reference, testing

from helpers_ops import (BF, BF16, C_LIVE, F64, FLOATS, FLOAT_IDS, FP16, I32, I64, I8, INVALID, NULLPTR, NZ, T,
                         TILING, Resources, assert_all_same, assert_rejected, assert_same, bits, c_validation_tests,
                         phase1, random_bits, random_values, run_two_phases, threads)

forward = aclnn_py.moe_init_routing_v3
ref = reference.moe_init_routing_v3
GWS = "aclnnMoeInitRoutingV3GetWorkspaceSize"
ALL_X = FLOATS + [np.dtype(np.int8)]
ALL_X_IDS = FLOAT_IDS + ["int8"]


def random_ids(rng, shape, lo, hi) -> np.ndarray:
    return rng.integers(lo, hi, size=shape).astype(np.int32)


def f32(*v):
    return np.array(v, dtype=np.float32)


# ---- the spec's section 3, loop by loop (checks the vectorised reference too) --------------------------------

def _q8(v: np.float32) -> int:
    if np.isnan(v):
        return 0
    r = float(np.rint(v))
    return int(min(max(r, -128.0), 127.0))


def spec_forward(x, expert_idx, scale=None, offset=None, active_num=-1, capacity=-1, e_num=1, mode=0, num_type=0,
                 flag=False, quant=-1, rng_=None, row_idx_type=0):
    """Finite inputs only (the reference's NaN rules are tested separately)."""
    n, h = x.shape
    k = expert_idx.shape[1]
    t = n * k
    s, e = (0, e_num) if not rng_ else rng_
    flat = [int(v) for v in expert_idx.reshape(-1)]
    key = [v if v >= s else 2**62 for v in flat]
    order = sorted(range(t), key=lambda i: key[i])
    avail = sum(1 for v in flat if s <= v < e)
    xf = x.astype(np.float32)
    counts = None
    if flag:
        cnt = [sum(1 for v in flat if v == s + u) for u in range(e - s)]
        if num_type == 1:
            counts = np.array(cnt, np.int64)
        elif num_type == 0:
            counts = np.cumsum(np.array(cnt, np.int64))
        else:
            kv = [(s + u, c) for u, c in enumerate(cnt) if c]
            counts = np.zeros((e_num, 2), np.int64)
            for i, (a, b) in enumerate(kv):
                counts[i] = (a, b)

    def quantize(tok, smooth_row):
        row = xf[tok]
        if quant == 0:
            return [_q8(np.float32(np.float32(v * scale[0]) + offset[0])) for v in row], None
        if smooth_row is not None:
            row = np.array([np.float32(a * b) for a, b in zip(row, smooth_row)], np.float32)
        amax = max((abs(float(v)) for v in row), default=0.0)
        ds = np.float32(np.float32(amax) / np.float32(127))
        return [_q8(np.float32(v / ds)) if ds else 0 for v in row], ds

    def smooth(u):
        if quant != 1 or scale is None:
            return None
        return scale[0] if scale.shape[0] == 1 else scale[u - s]

    out_dt = x.dtype if quant == -1 else np.dtype(np.int8)
    writes_scale = quant == 1 or (quant == -1 and scale is not None)
    if mode == 0:
        a = t if active_num in (0, -1) else min(active_num, t)
        ex = np.zeros((a, h), out_dt)
        es = np.zeros(a, np.float32) if writes_scale else None
        ri = np.full(t, -1, np.int32)
        for j, slot in enumerate(order):
            if row_idx_type == 1:
                ri[j] = slot
            elif j < avail:
                ri[slot] = j
            if j < min(a, avail):
                tok = slot // k
                if quant == -1:
                    ex[j] = x[tok]
                    if scale is not None:
                        es[j] = scale[tok]
                else:
                    q, ds = quantize(tok, smooth(flat[slot]))
                    ex[j] = q
                    if ds is not None:
                        es[j] = ds
        return ex, ri, counts, es
    ex = np.zeros((e_num * capacity, h), out_dt)
    es = np.zeros(e_num * capacity, np.float32) if writes_scale else None
    ri = np.full(t, -1, np.int32)
    seen = {}
    for slot in order:
        v = flat[slot]
        r = seen.get(v, 0)
        seen[v] = r + 1
        if 0 <= v < e_num and r < capacity:
            d = v * capacity + r
            ri[slot] = d
            tok = slot // k
            if quant == -1:
                ex[d] = x[tok]
                if scale is not None:
                    es[d] = scale[tok]
            else:
                q, ds = quantize(tok, smooth(v))
                ex[d] = q
                if ds is not None:
                    es[d] = ds
    return ex.reshape(e_num, capacity, h), ri, counts, es


# ---- reference equality in every mode --------------------------------------------------------------------

N, K, H, E = 9, 3, 6, 5
T_ = N * K

# name -> keyword arguments of the high-level function (scale/offset kinds are filled in by make_inputs)
MODES = {
    "dropless": dict(expert_num=E),
    "dropless_all_0": dict(active_num=0, expert_num=E, expert_tokens_num_flag=True, expert_tokens_num_type=1),
    "dropless_cumsum": dict(expert_num=E, expert_tokens_num_flag=True, expert_tokens_num_type=0),
    "dropless_key_value": dict(expert_num=E, expert_tokens_num_flag=True, expert_tokens_num_type=2),
    "dropless_scatter": dict(expert_num=E, row_idx_type=1, expert_tokens_num_flag=True),
    "active_1": dict(active_num=1, expert_num=E, expert_tokens_num_flag=True, expert_tokens_num_type=1),
    "active_half": dict(active_num=T_ // 2, expert_num=E, expert_tokens_num_flag=True),
    "active_above_T": dict(active_num=T_ + 4, expert_num=E, row_idx_type=1),
    "range_middle": dict(expert_num=E, active_expert_range=[1, 4], expert_tokens_num_flag=True,
                         expert_tokens_num_type=1),
    "range_middle_key_value": dict(expert_num=E, active_expert_range=[1, 4], expert_tokens_num_flag=True,
                                   expert_tokens_num_type=2),
    "range_middle_scatter_cumsum": dict(expert_num=E, active_expert_range=[2, 5], row_idx_type=1,
                                        expert_tokens_num_flag=True, expert_tokens_num_type=0),
    "range_one_expert_active": dict(expert_num=E, active_expert_range=[3, 4], active_num=5,
                                    expert_tokens_num_flag=True, expert_tokens_num_type=1),
    "range_active_cap_below_avail": dict(expert_num=E, active_expert_range=[0, 3], active_num=4),
    "drop_capacity_1": dict(expert_num=E, drop_pad_mode=1, expert_capacity=1, expert_tokens_num_flag=True,
                            expert_tokens_num_type=1),
    "drop_capacity_3": dict(expert_num=E, drop_pad_mode=1, expert_capacity=3, active_num=2),
    "pad_capacity_N": dict(expert_num=E, drop_pad_mode=1, expert_capacity=N, expert_tokens_num_flag=True,
                           expert_tokens_num_type=1),
}
QUANTS = {"none": -1, "none_scaled": -1, "static": 0, "dynamic": 1, "dynamic_shared_smooth": 1,
          "dynamic_expert_smooth": 1}
# name -> id range: in range, and with negative ids and ids >= E (never counted nor copied)
ID_KINDS = {"in_range": (0, E), "out_of_range": (-2, E + 2)}


def make_inputs(rng, quant_kind, kwargs, dtype, n=N, k=K, h=H, lo=0, hi=E):
    """x, expert_idx and the scale / offset the quantisation kind needs."""
    x = random_values(rng, (n, h), dtype) if dtype != np.int8 else rng.integers(-128, 128, (n, h)).astype(np.int8)
    idx = random_ids(rng, (n, k), lo, hi)
    scale = offset = None
    r = kwargs.get("active_expert_range") or [0, kwargs["expert_num"]]
    if quant_kind == "none_scaled":
        scale = random_values(rng, (n,), np.float32)
    elif quant_kind == "static":
        scale, offset = f32(rng.uniform(-3, 3)), f32(rng.uniform(-2, 2))
    elif quant_kind == "dynamic_shared_smooth":
        scale = random_values(rng, (1, h), np.float32)
    elif quant_kind == "dynamic_expert_smooth":
        scale = random_values(rng, (r[1] - r[0], h), np.float32)
    return x, idx, scale, offset


def modes_for(quant_kind):
    for name, kw in MODES.items():
        if quant_kind == "dynamic_expert_smooth" and kw.get("drop_pad_mode") == 1:
            continue  # drop/pad uses the full range: covered with E rows below
        yield name, kw


# INT8 x only with quantMode -1 (the other modes are validation cases)
FWD_COMBOS = [(d, q) for d in ALL_X for q in QUANTS if d != np.int8 or QUANTS[q] == -1]


@pytest.mark.parametrize("dtype,quant_kind", FWD_COMBOS,
                         ids=[f"{ALL_X_IDS[ALL_X.index(d)]}-{q}" for d, q in FWD_COMBOS])
def test_forward_matches_reference(dtype, quant_kind):
    rng = np.random.default_rng(FWD_COMBOS.index((dtype, quant_kind)))
    for kind, (lo, hi) in ID_KINDS.items():
        for name, kw in modes_for(quant_kind):
            x, idx, scale, offset = make_inputs(rng, quant_kind, kw, dtype, lo=lo, hi=hi)
            kw = dict(kw, quant_mode=QUANTS[quant_kind])
            got = forward(x, idx, scale, offset, **kw)
            assert_all_same(got, ref(x, idx, scale, offset, **kw), f"{kind} {name}")


def _spec_args(kw):
    return dict(active_num=kw.get("active_num", -1), capacity=kw.get("expert_capacity", -1), e_num=kw["expert_num"],
                mode=kw.get("drop_pad_mode", 0), num_type=kw.get("expert_tokens_num_type", 0),
                flag=kw.get("expert_tokens_num_flag", False), quant=kw.get("quant_mode", -1),
                rng_=kw.get("active_expert_range"), row_idx_type=kw.get("row_idx_type", 0))


@pytest.mark.parametrize("quant_kind", list(QUANTS), ids=list(QUANTS))
def test_reference_matches_the_spec_loops(quant_kind):
    rng = np.random.default_rng(5)
    for kind, (lo, hi) in ID_KINDS.items():
        for name, kw in modes_for(quant_kind):
            x, idx, scale, offset = make_inputs(rng, quant_kind, kw, np.float16, lo=lo, hi=hi)
            kw = dict(kw, quant_mode=QUANTS[quant_kind])
            expected = spec_forward(x, idx, scale, offset, **_spec_args(kw))
            assert_all_same(ref(x, idx, scale, offset, **kw), expected, f"{kind} {name}")


@pytest.mark.parametrize("quant", [-1, 1], ids=["none_scaled", "dynamic"])
def test_drop_pad_smoothing_per_expert_and_scales(quant):
    rng = np.random.default_rng(6)
    x = random_values(rng, (N, H), BF16)
    idx = random_ids(rng, (N, K), -1, E + 1)
    scale = random_values(rng, (N,) if quant == -1 else (E, H), np.float32)
    for cap in (1, 2, N):
        kw = dict(expert_num=E, drop_pad_mode=1, expert_capacity=cap, quant_mode=quant, expert_tokens_num_flag=True,
                  expert_tokens_num_type=1)
        got = forward(x, idx, scale, None, **kw)
        assert_all_same(got, ref(x, idx, scale, None, **kw), str(cap))
        assert_all_same(got, spec_forward(x, idx, scale, None, **_spec_args(kw)), str(cap))
        # padding rows: zero rows and a zero scale
        pad = got[0].reshape(E * cap, H)[np.setdiff1d(np.arange(E * cap), got[1])]
        assert not pad.any() and not got[3][np.setdiff1d(np.arange(E * cap), got[1])].any()


# ---- by hand: the official example, the spec's test vectors, rounding and special values ----------------------

def test_official_example_by_hand():
    x = f32(0.1, 0.1, 0.2, 0.2, 0.3, 0.3).reshape(3, 2)
    idx = np.array([[1, 2, 0, 3], [0, 2, 1, 3], [0, 1, 3, 2]], np.int32)
    scale = f32(0.3423, 0.1652, 0.2652)
    ex, ri, cnt, es = forward(x, idx, scale, f32(1.8369), 12, 4, 256, 0, 1, True, -1, [0, 4], 1)
    order = [2, 4, 8, 0, 6, 9, 1, 5, 11, 3, 7, 10]
    assert ri.tolist() == order
    assert cnt.dtype == np.int64 and cnt.tolist() == [3, 3, 3, 3]
    assert_same(ex, x[np.array(order) // 4])
    assert_same(es, scale[np.array(order) // 4])
    # the same call in gather form: the inverse permutation
    _, gather, _, _ = forward(x, idx, scale, None, 12, 4, 256, 0, 1, True, -1, [0, 4], 0)
    assert gather[np.array(order)].tolist() == list(range(12))


def test_spec_quantisation_vectors():
    x = f32(1, 254, -3, 127, 0, 0, 0, 0, 2.5, -2.5, 0.5, 1.0).reshape(3, 4)
    idx = np.array([[0], [0], [0]], np.int32)
    ex, _, _, es = forward(x, idx, expert_num=2, quant_mode=1)
    assert ex.tolist() == [[0, 127, -2, 64], [0, 0, 0, 0], [127, -127, 25, 51]]
    assert bits(es).tolist() == [0x40000000, 0, 0x3CA14285]
    ex, _, _, es = forward(x, idx, f32(0.5), f32(0.0), expert_num=2, quant_mode=0)
    assert ex.tolist() == [[0, 127, -2, 64], [0, 0, 0, 0], [1, -1, 0, 0]]
    assert es is None


def test_static_rounds_half_to_even_saturates_and_maps_nan_to_zero():
    row = f32(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5, -128.5, -129, 1e10, -np.inf, np.inf, np.nan, -0.0, 3.49)
    ex, _, _, _ = forward(row[None, :], np.zeros((1, 1), np.int32), f32(1.0), f32(0.0), expert_num=1, quant_mode=0)
    assert ex[0].tolist() == [0, 2, 2, 0, -2, -2, 126, 127, -128, -128, 127, -128, 127, 0, 0, 3]


def test_static_is_two_roundings_not_a_fused_multiply_add():
    """offset = 0.5 - fl32(x * scale): two roundings land exactly on the tie 0.5 (-> 0), while a fused
    multiply-add keeps the product's rounding error and rounds to 1 whenever that error is positive."""
    rng = np.random.default_rng(7)
    differing = 0
    for _ in range(40):
        x, s = np.float32(rng.uniform(64, 128)), np.float32(rng.uniform(0.5, 1))
        p = np.float64(x) * np.float64(s)  # exact
        o = np.float32(0.5) - np.float32(p)
        assert np.float64(o) == 0.5 - np.float64(np.float32(p))  # o is exact
        two = np.rint(np.float32(np.float32(x * s) + o))
        fused = np.rint(np.float32(p + np.float64(o)))
        differing += two != fused
        ex, _, _, _ = forward(f32(x)[None, :], np.zeros((1, 1), np.int32), f32(s), f32(o), expert_num=1,
                              quant_mode=0)
        assert ex[0, 0] == two == 0, (x, s, o)
    assert differing >= 5


def test_dynamic_special_rows():
    rows = np.array([[0.0, -0.0, 0.0, 0.0],           # all zero: scale 0, every value 0
                     [1.0, np.nan, -3.0, 2.0],         # NaN: the maximum is NaN, every value 0
                     [1.0, np.inf, -2.0, 0.0],         # inf: scale inf, finite values 0, inf / inf = NaN -> 0
                     [-127.0, 63.5, 0.5, -0.5]],       # ties of x / 1.0 round half to even
                    np.float32)
    ex, _, _, es = forward(rows, np.arange(4, dtype=np.int32)[:, None], expert_num=4, quant_mode=1)
    assert ex.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [-127, 64, 0, 0]]
    assert es[0] == 0 and np.isnan(es[1]) and es[2] == np.inf and es[3] == 1.0
    assert_all_same((ex, es), ref(rows, np.arange(4, dtype=np.int32)[:, None], expert_num=4, quant_mode=1)[::3])


def test_dynamic_nan_scale_is_the_first_nan_made_quiet():
    rng = np.random.default_rng(8)
    x = random_bits(rng, (64, 16), np.float32)  # NaNs with payloads, infinities, subnormals
    idx = random_ids(rng, (64, 2), 0, 4)
    for scale in (None, random_bits(rng, (1, 16), np.float32), random_bits(rng, (4, 16), np.float32)):
        got = forward(x, idx, scale, None, expert_num=4, quant_mode=1)
        assert_all_same(got, ref(x, idx, scale, None, expert_num=4, quant_mode=1))


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_static_every_bit_pattern(dtype):
    rng = np.random.default_rng(9)
    x = random_bits(rng, (40, 33), dtype)
    idx = random_ids(rng, (40, 3), 0, 6)
    for s, o in [(1.0, 0.0), (0.013, -0.5), (-300.0, 7.25), (np.inf, 0.0), (0.0, np.nan)]:
        kw = dict(expert_num=6, quant_mode=0, drop_pad_mode=1, expert_capacity=7)
        got = forward(x, idx, f32(s), f32(o), **kw)
        assert_all_same(got, ref(x, idx, f32(s), f32(o), **kw), str((s, o)))


def test_ids_below_the_range_go_last_in_slot_order():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    idx = np.array([[0], [3], [1], [5], [2], [0]], np.int32)
    ex, ri, cnt, _ = forward(x, idx, None, None, -1, 0, 6, 0, 1, True, -1, [1, 3], 1)
    # active: ids 1, 2 (slots 2, 4); then id 3, id 5 (>= end, ascending); then ids 0 (< start) in slot order
    assert ri.tolist() == [2, 4, 1, 3, 0, 5]
    assert cnt.tolist() == [1, 1]
    assert_same(ex[:2], x[[2, 4]])
    assert not ex[2:].any()  # rows R..A-1 are not written
    _, gather, _, _ = forward(x, idx, None, None, -1, 0, 6, 0, 1, True, -1, [1, 3], 0)
    assert gather.tolist() == [-1, -1, 0, -1, 1, -1]


def test_key_value_statistics_list_the_used_experts_then_zero_rows():
    idx = np.array([[7, 2], [2, 9], [4, 7]], np.int32)
    _, _, kv, _ = forward(np.zeros((3, 1), np.float32), idx, None, None, -1, 0, 12, 0, 2, True, -1, [2, 8], 0)
    assert kv.shape == (12, 2) and kv[:3].tolist() == [[2, 2], [4, 1], [7, 2]] and not kv[3:].any()


def test_ids_beyond_the_range_sort_exactly_after_the_active_ones():
    """Ids >= end (here beyond 2^24, where float32 keys would collide) follow the active slots in id order."""
    big = 2**24
    idx = np.array([[big + 1], [1], [big], [0], [big + 1]], np.int32)
    x = np.arange(5, dtype=np.float32)[:, None]
    ex, ri, cnt, _ = forward(x, idx, None, None, -1, 0, 4, 0, 1, True, -1, None, 1)
    assert ri.tolist() == [3, 1, 2, 0, 4] and cnt.tolist() == [1, 1, 0, 0]
    assert_same(ex[:2], x[[3, 1]])


# ---- strided views, empty tensors, thread counts -----------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_strided_inputs(dtype):
    rng = np.random.default_rng(10)
    xb = random_values(rng, (16, 14), dtype)
    ib = random_ids(rng, (8, 8), -1, 6)
    sb = random_values(rng, (14, 24), np.float32)
    x, idx = xb[::-2, 1::2], ib[:, ::-2]  # (8, 7), (8, 4)
    cases = [(None, None, dict(quant_mode=-1, row_idx_type=1)),
             (sb[0, ::-2][:8], None, dict(quant_mode=-1)),                    # per-token scales, strided
             (sb[:1, 0:14:2], None, dict(quant_mode=1)),                      # shared smoothing row, strided
             (sb[::2, 1::2][:4, :7], None, dict(quant_mode=1, active_expert_range=[1, 5])),
             (sb[0, 3:4], sb[2, 5:6], dict(quant_mode=0)),
             (sb[::2, ::3][:6, :7], None, dict(quant_mode=1, drop_pad_mode=1, expert_capacity=3))]
    for scale, offset, kw in cases:
        kw = dict(kw, expert_num=6, expert_tokens_num_flag=True, expert_tokens_num_type=1)
        got = forward(x, idx, scale, offset, **kw)
        assert_all_same(got, ref(np.ascontiguousarray(x), np.ascontiguousarray(idx),
                                 None if scale is None else np.ascontiguousarray(scale), offset, **kw), str(kw))


def test_empty_inputs():
    for n, k in [(0, 2), (3, 0)]:
        x = np.zeros((n, 4), np.float32)
        idx = np.zeros((n, k), np.int32)
        for kw in [dict(expert_tokens_num_flag=True, expert_tokens_num_type=1),
                   dict(expert_tokens_num_flag=True, expert_tokens_num_type=2, quant_mode=1),
                   dict(active_expert_range=[1, 3], expert_tokens_num_flag=True)]:
            got = forward(x, idx, None, None, expert_num=4, **kw)
            assert_all_same(got, ref(x, idx, None, None, expert_num=4, **kw), str((n, k, kw)))
    # K = 0 in drop/pad: N*K = 0 slots, nothing but the (zero) counts is touched
    got = forward(np.zeros((3, 2), np.float32), np.zeros((3, 0), np.int32), None, None, -1, 2, 4, 1, 1, True)
    assert got[0].shape == (4, 2, 2) and not got[0].any() and got[2].tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("quant", [-1, 0, 1])
def test_hidden_0(quant):
    x = np.zeros((5, 0), np.float32)
    idx = random_ids(np.random.default_rng(11), (5, 2), 0, 3)
    scale, offset = (f32(1.0), f32(0.0)) if quant == 0 else (None, None)
    for kw in [dict(), dict(drop_pad_mode=1, expert_capacity=2), dict(active_expert_range=[1, 3], active_num=3)]:
        kw = dict(kw, expert_num=3, quant_mode=quant, expert_tokens_num_flag=True, expert_tokens_num_type=1)
        got = forward(x, idx, scale, offset, **kw)
        assert_all_same(got, ref(x, idx, scale, offset, **kw), str(kw))


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["float32", "bfloat16", "float16"]), st.sampled_from([-1, 0, 1]),
       st.sampled_from([0, 1]), st.booleans())
def test_property_results_do_not_depend_on_the_thread_count(seed, dtype, quant, mode, with_range):
    rng = np.random.default_rng(seed)
    n, k, h, e = 700, 8, 40, 64
    x = random_values(rng, (n, h), aclnn_py.dtypes.as_numpy_dtype(dtype))
    idx = random_ids(rng, (n, k), -1, e + 1)
    scale = offset = None
    if quant == 0:
        scale, offset = f32(0.37), f32(-1.5)
    elif quant == 1:
        scale = random_values(rng, (e if mode == 1 or not with_range else 32, h), np.float32)
    kw = dict(expert_num=e, quant_mode=quant, expert_tokens_num_flag=True, expert_tokens_num_type=1)
    if mode == 1:
        kw.update(drop_pad_mode=1, expert_capacity=n // 3)
    elif with_range:
        kw.update(active_expert_range=[16, 48], active_num=3000)
    results = []
    for nt in (1, 2, 5):
        with threads(nt):
            results.append(forward(x, idx, scale, offset, **kw))
    assert_all_same(results[0], ref(x, idx, scale, offset, **kw))
    for r in results[1:]:
        assert_all_same(r, results[0])


@st.composite
def cases(draw):
    n = draw(st.integers(0, 10))
    k = draw(st.integers(1, 4))
    h = draw(st.integers(0, 6))
    e = draw(st.integers(1, 7))
    mode = draw(st.sampled_from([0, 0, 1])) if n > 0 else 0
    quant = draw(st.sampled_from([-1, 0, 1]))
    dtype = draw(st.sampled_from(ALL_X if quant == -1 else FLOATS))
    kw = dict(expert_num=e, drop_pad_mode=mode, quant_mode=quant, expert_tokens_num_flag=draw(st.booleans()))
    if mode == 1:
        kw.update(expert_capacity=draw(st.integers(1, n)), expert_tokens_num_type=1)
        s, end = 0, e
    else:
        s = draw(st.integers(0, e - 1))
        end = draw(st.integers(s + 1, e))
        if (s, end) != (0, e) or draw(st.booleans()):
            kw["active_expert_range"] = [s, end]
        kw.update(active_num=draw(st.sampled_from([-1, 0, 1, 3, n * k, n * k + 2])),
                  expert_tokens_num_type=draw(st.sampled_from([0, 1, 2])),
                  row_idx_type=draw(st.sampled_from([0, 1])))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if dtype == np.int8:
        x = rng.integers(-128, 128, (n, h)).astype(np.int8)
    else:
        x = random_values(rng, (n, h), dtype)
    idx = random_ids(rng, (n, k), -1, e + 1)
    scale = offset = None
    scale_kind = draw(st.sampled_from(["none", "some"]))
    if quant == 0:
        scale, offset = f32(rng.uniform(-2, 2)), f32(rng.uniform(-2, 2))
    elif scale_kind == "some" and quant == -1:
        scale = random_values(rng, (n,), np.float32)
    elif scale_kind == "some" and quant == 1:
        scale = random_values(rng, (draw(st.sampled_from([1, end - s])), h), np.float32)
    return x, idx, scale, offset, kw


@settings(max_examples=150, deadline=None)
@given(cases())
def test_property_forward(case):
    x, idx, scale, offset, kw = case
    got = forward(x, idx, scale, offset, **kw)
    assert_all_same(got, ref(x, idx, scale, offset, **kw), str(kw))
    ri = got[1]
    t = idx.size
    if kw["drop_pad_mode"] == 0 and kw.get("row_idx_type", 0) == 1:
        assert sorted(ri.tolist()) == list(range(t))  # the scatter index is a permutation
    elif kw["drop_pad_mode"] == 1:
        kept = ri[ri >= 0]
        assert len(set(kept.tolist())) == len(kept)   # kept slots land on distinct rows
    if kw.get("expert_tokens_num_flag") and kw.get("expert_tokens_num_type") == 1 and x.dtype != np.int8:
        s, e = kw.get("active_expert_range") or (0, kw["expert_num"])
        assert got[2].sum() == ((idx >= s) & (idx < e)).sum()


# ---- identity with V2 and the round trip through V2Grad ------------------------------------------------------

V2_IDENTITY = {
    "dropless": dict(), "all_0": dict(active_num=0), "cumsum": dict(tokens_num_type=0), "active": dict(active_num=5),
    "active_above_T": dict(active_num=100), "drop_pad": dict(drop_pad_mode=1), "drop": dict(drop_pad_mode=1,
                                                                                          capacity=1),
}


@pytest.mark.parametrize("name", list(V2_IDENTITY))
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_gather_form_reproduces_v2(dtype, name):
    ident = testing.check_init_routing_v3_vs_v2(np.random.default_rng(12), dtype=dtype, **V2_IDENTITY[name])
    assert len(ident.pairs) == 3


def test_identity_detects_a_difference():
    ident = testing.init_routing_v3_vs_v2(np.random.default_rng(13))
    ident.pairs[1] = ("expanded_row_idx", ident.pairs[1][1], ident.pairs[1][2][::-1].copy())
    assert ident.mismatches()


@pytest.mark.parametrize("kw", [dict(), dict(active_num=4), dict(drop_pad_mode=1), dict(drop_pad_mode=1, capacity=1)],
                         ids=["dropless", "active", "drop_pad", "drop"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_round_trip_through_v2_grad(dtype, kw):
    rt = testing.check_pair("moe_init_routing_v3", np.random.default_rng(14), dtype=dtype, **kw)
    assert testing.PAIRS[rt.forward] == "moe_init_routing_v2_grad"


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_property_round_trip_and_identity(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n, e = data.draw(st.integers(1, 9)), data.draw(st.integers(2, 6))
    k = data.draw(st.integers(1, e))
    mode = data.draw(st.sampled_from([0, 1]))
    kw = dict(n=n, k=k, e=e, h=data.draw(st.integers(1, 5)), drop_pad_mode=mode,
              dtype=data.draw(st.sampled_from(["float32", "float16", "bfloat16"])))
    if mode == 1:
        kw["capacity"] = data.draw(st.integers(1, n))
    else:
        kw["active_num"] = data.draw(st.sampled_from([-1, 0, 1, n * k, n * k + 3]))
    testing.check_pair("moe_init_routing_v3", rng, **kw)
    testing.check_init_routing_v3_vs_v2(rng, **kw)


# ---- mirror layer: both phases by hand ---------------------------------------------------------------------

def v3_mirror(r, x, idx, scale, offset, kw, ex_shape, ex_dtype, cnt_shape, es_shape, fill=None):
    t_ex = r.output(ex_shape, ex_dtype, fill)
    t_ri = r.output((idx.size,), np.int32, fill)
    t_cnt = r.output(cnt_shape, np.int64, fill)
    t_es = r.output(es_shape, np.float32, fill)
    a = dict(dict(active_num=-1, expert_capacity=-1, drop_pad_mode=0, expert_tokens_num_type=0,
                  expert_tokens_num_flag=False, quant_mode=-1, active_expert_range=None, row_idx_type=0), **kw)
    run_two_phases(aclnn.aclnnMoeInitRoutingV3GetWorkspaceSize, aclnn.aclnnMoeInitRoutingV3,
                   r.tensor(x).handle, r.tensor(idx).handle, None if scale is None else r.tensor(scale).handle,
                   None if offset is None else r.tensor(offset).handle, a["active_num"], a["expert_capacity"],
                   a["expert_num"], a["drop_pad_mode"], a["expert_tokens_num_type"], a["expert_tokens_num_flag"],
                   a["quant_mode"], r.int_array(a["active_expert_range"]), a["row_idx_type"], t_ex.handle,
                   t_ri.handle, t_cnt.handle, t_es.handle)
    return t_ex.numpy(), t_ri.numpy(), t_cnt.numpy(), t_es.numpy()


def test_mirror_untouched_rows_and_outputs_keep_their_bytes():
    rng = np.random.default_rng(15)
    x = random_values(rng, (6, 4), np.float32)
    idx = random_ids(rng, (6, 2), 0, 5)
    kw = dict(expert_num=5, active_expert_range=[1, 3], quant_mode=1)
    with Resources() as r:
        ex, ri, cnt, es = v3_mirror(r, x, idx, None, None, kw, (12, 4), np.int8, (3, 3), (12,), fill=0x5A)
    want = ref(x, idx, None, None, **kw)
    rows = int(((idx >= 1) & (idx < 3)).sum())
    assert_same(ex[:rows], want[0][:rows])
    assert_same(es[:rows], want[3][:rows])
    assert_same(ri, want[1])
    assert (bits(ex[rows:]).view(np.uint8) == 0x5A).all() and (bits(es[rows:]).view(np.uint8) == 0x5A).all()
    assert (bits(cnt).view(np.uint8) == 0x5A).all()  # the flag is false: any shape, never written


def test_mirror_static_quant_leaves_expanded_scale_alone_and_writes_padding():
    rng = np.random.default_rng(16)
    x = random_values(rng, (5, 3), BF16)
    idx = random_ids(rng, (5, 2), 0, 3)
    kw = dict(expert_num=3, drop_pad_mode=1, expert_capacity=4, quant_mode=0, expert_tokens_num_flag=True,
              expert_tokens_num_type=1)
    with Resources() as r:
        got = v3_mirror(r, x, idx, f32(0.25), f32(1.0), kw, (3, 4, 3), np.int8, (3,), (2, 2), fill=0x7F)
    want = ref(x, idx, f32(0.25), f32(1.0), **kw)
    assert_all_same(got[:3], want[:3])
    assert (bits(got[3]).view(np.uint8) == 0x7F).all()


def test_mirror_official_sample_declaration_is_refused():
    """The official sample's INT8 expandedX with quantMode -1 and FLOAT x (the device would write past it)."""
    status, message = phase1(aclnn.aclnnMoeInitRoutingV3GetWorkspaceSize, v3_args(dict(
        x=T((3, 2)), idx=T((3, 4), I32), scale=T((3,)), offset=T((3,)), active=12, cap=4, e=256, type=1,
        rng=[0, 4], rit=1, ex=T((12, 2), I8), ri=T((12,), I32), cnt=T((4,), I64), es=T((12,)))))
    assert status == INVALID and "expandedXOut" in message and "quantMode = -1" in message


# ---- validation: the spec's section 4, row by row ---------------------------------------------------------

# N = 4, K = 2, H = 3, T = 8, E = 4: dropless, counts per expert
BASE = dict(x=T((4, 3)), idx=T((4, 2), I32), scale=None, offset=None, active=-1, cap=-1, e=4, mode=0, type=1,
            flag=True, quant=-1, rng=None, rit=0, ex=T((8, 3)), ri=T((8,), I32), cnt=T((4,), I64), es=T((8,)))
DROP = dict(mode=1, cap=2, ex=T((4, 2, 3)))
STATIC = dict(quant=0, scale=T((1,)), offset=T((1,)), ex=T((8, 3), I8))
DYN = dict(quant=1, ex=T((8, 3), I8))
EMPTY_N = dict(x=T((0, 3)), idx=T((0, 2), I32), ex=T((0, 3)), ri=T((0,), I32), es=T((0,)))


def v3_args(over):
    a = dict(BASE, **over)
    return [a[k] for k in ("x", "idx", "scale", "offset", "active", "cap", "e", "mode", "type", "flag", "quant", "rng",
                           "rit", "ex", "ri", "cnt", "es")]


CASES = [
    ("ok", {}, 0),
    ("ok_float16", {"x": T((4, 3), FP16), "ex": T((8, 3), FP16)}, 0),
    ("ok_bfloat16", {"x": T((4, 3), BF), "ex": T((8, 3), BF)}, 0),
    ("ok_int8", {"x": T((4, 3), I8), "ex": T((8, 3), I8)}, 0),
    ("ok_active_0", {"active": 0}, 0),
    ("ok_active_5", {"active": 5, "ex": T((5, 3))}, 0),
    ("ok_active_above_T", {"active": 50}, 0),
    ("ok_empty_range", {"rng": []}, 0),
    ("ok_range", {"rng": [1, 3], "cnt": T((2,), I64)}, 0),
    ("ok_scatter", {"rit": 1}, 0),
    ("ok_cumsum", {"type": 0}, 0),
    ("ok_key_value", {"type": 2, "cnt": T((4, 2), I64)}, 0),
    ("ok_flag_false_counts_any_shape", {"flag": False, "cnt": T((7, 7), I64)}, 0),
    ("ok_flag_false_type_2_counts_any_shape", {"flag": False, "type": 2, "cnt": T((1,), I64)}, 0),
    ("ok_scale_copied", {"scale": T((4,))}, 0),
    ("ok_no_scale_expanded_scale_any_shape", {"es": T((2, 9))}, 0),
    ("ok_offset_ignored_without_static", {"offset": T((5, 5))}, 0),
    ("ok_static", STATIC, 0),
    ("ok_static_expanded_scale_any_shape", dict(STATIC, es=T((1,))), 0),
    ("ok_dynamic", DYN, 0),
    ("ok_dynamic_shared_smooth", dict(DYN, scale=T((1, 3))), 0),
    ("ok_dynamic_expert_smooth", dict(DYN, scale=T((2, 3)), rng=[1, 3], cnt=T((2,), I64)), 0),
    ("ok_drop_pad", DROP, 0),
    ("ok_drop_pad_capacity_N", dict(DROP, cap=4, ex=T((4, 4, 3))), 0),
    ("ok_drop_pad_active_ignored", dict(DROP, active=-7), 0),
    ("ok_drop_pad_type_0_without_flag", dict(DROP, type=0, flag=False), 0),
    ("ok_drop_pad_dynamic", dict(DROP, quant=1, ex=T((4, 2, 3), I8), scale=T((4, 3)), es=T((8,))), 0),
    ("ok_drop_pad_full_range_given", dict(DROP, rng=[0, 4]), 0),
    ("ok_strided_inputs", {"x": T((4, 3), strides=(1, 4)), "idx": T((4, 2), I32, strides=(1, 4))}, 0),
    # 1-2: NULL
    ("null_x", {"x": None}, NULLPTR),
    ("null_expert_idx", {"idx": None}, NULLPTR),
    ("null_expanded_x", {"ex": None}, NULLPTR),
    ("null_row_idx", {"ri": None}, NULLPTR),
    ("null_counts_even_unused", {"cnt": None, "flag": False}, NULLPTR),
    ("null_expanded_scale_even_unused", {"es": None}, NULLPTR),
    # 3-8: dtypes and formats
    ("x_int32", {"x": T((4, 3), I32)}, INVALID),
    ("x_double", {"x": T((4, 3), F64)}, INVALID),
    ("expert_idx_int64", {"idx": T((4, 2), I64)}, INVALID),
    ("scale_float16", {"scale": T((4,), FP16)}, INVALID),
    ("offset_float16_even_unused", {"offset": T((1,), FP16)}, INVALID),
    ("expanded_x_int32", {"ex": T((8, 3), I32)}, INVALID),
    ("row_idx_int64", {"ri": T((8,), I64)}, INVALID),
    ("counts_int32", {"cnt": T((4,), I32)}, INVALID),
    ("counts_int32_even_unused", {"cnt": T((4,), I32), "flag": False}, INVALID),
    ("expanded_scale_float16", {"es": T((8,), FP16)}, INVALID),
    ("x_format_nz", {"x": T((4, 3), fmt=NZ)}, INVALID),
    ("pair_int8_x_float_out", {"x": T((4, 3), I8)}, INVALID),
    ("pair_float_x_float16_out", {"ex": T((8, 3), FP16)}, INVALID),
    # 9-11: what quantMode implies for the dtypes; output layout
    ("none_with_int8_out", {"ex": T((8, 3), I8)}, INVALID),
    ("dynamic_with_float_out", dict(DYN, ex=T((8, 3))), INVALID),
    ("static_with_float16_out", dict(STATIC, ex=T((8, 3), FP16)), INVALID),
    ("expanded_x_not_contiguous", {"ex": T((8, 3), strides=(1, 8))}, INVALID),
    ("row_idx_overlapping", {"ri": T((8,), I32, strides=(0,))}, INVALID),
    # 12-24: attributes
    ("drop_pad_mode_2", {"mode": 2}, TILING),
    ("active_minus_2", {"active": -2}, TILING),
    ("expert_num_0", {"e": 0}, TILING),
    ("range_one_value", {"rng": [1]}, TILING),
    ("range_three_values", {"rng": [0, 1, 2]}, TILING),
    ("drop_pad_capacity_0", dict(DROP, cap=0, ex=T((4, 0, 3))), TILING),
    ("drop_pad_capacity_above_N", dict(DROP, cap=5, ex=T((4, 5, 3))), TILING),
    ("drop_pad_scatter", dict(DROP, rit=1), TILING),
    ("drop_pad_range", dict(DROP, rng=[0, 3]), TILING),
    ("type_3", {"type": 3}, TILING),
    ("type_minus_1_without_flag", {"type": -1, "flag": False}, TILING),
    ("drop_pad_cumsum", dict(DROP, type=0), TILING),
    ("drop_pad_key_value", dict(DROP, type=2, cnt=T((4, 2), I64)), TILING),
    ("range_start_negative", {"rng": [-1, 2]}, TILING),
    ("range_empty", {"rng": [2, 2]}, TILING),
    ("range_end_above_expert_num", {"rng": [0, 5], "cnt": T((5,), I64)}, TILING),
    ("key_value_range_above_5120", {"type": 2, "e": 5121, "cnt": T((5121, 2), I64)}, TILING),
    ("range_above_10240", {"e": 10241, "cnt": T((10241,), I64)}, TILING),
    ("quant_mode_2", {"quant": 2, "ex": T((8, 3), I8)}, TILING),
    ("row_idx_type_2", {"rit": 2}, TILING),
    # 25: input shapes
    ("x_3d", {"x": T((4, 3, 1))}, TILING),
    ("x_1d", {"x": T((4,))}, TILING),
    ("expert_idx_1d", {"idx": T((8,), I32)}, TILING),
    ("rows_differ", {"x": T((5, 3))}, TILING),
    ("x_cols_negative", {"x": T((4, -3))}, TILING),
    # 26-28: scale and offset
    ("copied_scale_not_per_token", {"scale": T((3,))}, TILING),
    ("copied_scale_2d", {"scale": T((4, 1))}, TILING),
    ("static_scale_null", dict(STATIC, scale=None), TILING),
    ("static_offset_null", dict(STATIC, offset=None), TILING),
    ("static_scale_2d", dict(STATIC, scale=T((1, 1))), TILING),
    ("static_scale_two_values", dict(STATIC, scale=T((2,))), TILING),
    ("static_offset_2d", dict(STATIC, offset=T((1, 1))), TILING),
    ("static_offset_two_values", dict(STATIC, offset=T((2,))), TILING),
    ("dynamic_smooth_1d", dict(DYN, scale=T((3,))), TILING),
    ("dynamic_smooth_rows_not_range", dict(DYN, scale=T((2, 3))), TILING),
    ("dynamic_smooth_cols_not_H", dict(DYN, scale=T((1, 4))), TILING),
    # 29-34: output shapes
    ("expanded_x_rows_not_A", {"ex": T((7, 3))}, TILING),
    ("expanded_x_active_rows", {"active": 5}, TILING),
    ("expanded_x_cols_not_H", {"ex": T((8, 4))}, TILING),
    ("expanded_x_3d_dropless", {"ex": T((8, 3, 1))}, TILING),
    ("expanded_x_2d_drop_pad", dict(DROP, ex=T((8, 3))), TILING),
    ("expanded_x_dim1_not_capacity", dict(DROP, ex=T((4, 3, 3))), TILING),
    ("row_idx_length", {"ri": T((9,), I32)}, TILING),
    ("row_idx_2d", {"ri": T((8, 1), I32)}, TILING),
    ("counts_length_not_range", {"rng": [1, 3]}, TILING),
    ("counts_key_value_1d", {"type": 2}, TILING),
    ("counts_key_value_rows", {"type": 2, "cnt": T((3, 2), I64)}, TILING),
    ("copied_scale_rows", {"scale": T((4,)), "es": T((7,))}, TILING),
    ("dynamic_smooth_expanded_scale_rows", dict(DYN, scale=T((1, 3)), es=T((8, 1))), TILING),
    ("drop_pad_expanded_scale_rows", dict(DROP, scale=T((4,)), es=T((6,))), TILING),
    ("int8_x_dynamic", {"x": T((4, 3), I8), "ex": T((8, 3), I8), "quant": 1}, TILING),
    ("int8_x_static", dict(STATIC, x=T((4, 3), I8)), TILING),
    ("dynamic_no_smooth_expanded_scale_rows", dict(DYN, es=T((7,))), TILING),
    ("rows_above_int32", dict(DROP, e=2**30, cap=4, x=T((4, 0)), ex=T((2**30, 4, 0)), flag=False), TILING),
    # 35: no slots
    ("N_0", EMPTY_N, 0),
    ("K_0", {"idx": T((4, 0), I32), "ex": T((0, 3)), "ri": T((0,), I32), "es": T((0,))}, 0),
    ("N_0_still_checks_shapes", dict(EMPTY_N, cnt=T((3,), I64)), TILING),
    ("N_0_drop_pad_capacity", dict(EMPTY_N, **DROP), TILING),
]


@pytest.mark.parametrize("over,status", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_mirror_validation(over, status):
    got, message = phase1(aclnn.aclnnMoeInitRoutingV3GetWorkspaceSize, v3_args(over))
    assert got == status, message
    if status:
        assert GWS in message


def test_validation_order_follows_the_spec():
    """Several broken rules at once: the first row of section 4 decides (its argument named in the message)."""
    order = [({"x": T((4, 3), I32), "mode": 2, "ri": T((9,), I32)}, INVALID, "'x'"),
             ({"ex": T((8, 3), I8), "mode": 2}, INVALID, "quantMode = -1"),
             ({"mode": 2, "e": 0}, TILING, "dropPadMode"),
             ({"e": 0, "rng": [1]}, TILING, "expertNum"),
             ({"type": 5, "rng": [3, 1]}, TILING, "expertTokensNumType"),
             ({"rng": [3, 1], "quant": 5}, TILING, "start < end"),
             ({"quant": 5, "x": T((4, 3, 1))}, TILING, "quantMode"),
             ({"x": T((5, 3)), "scale": T((2,))}, TILING, "x.shape[0]"),
             ({"scale": T((2,)), "ex": T((7, 3))}, TILING, "scaleOptional"),
             ({"ex": T((7, 3)), "ri": T((9,), I32)}, TILING, "expandedXOut"),
             ({"ri": T((9,), I32), "cnt": T((3,), I64)}, TILING, "expandedRowIdxOut"),
             ({"cnt": T((3,), I64), "scale": T((4,)), "es": T((1,))}, TILING, "expertTokensCountOrCumsumOut"),
             ({"scale": T((1, 3)), "es": T((1,)), "x": T((4, 3), I8), "ex": T((8, 3), I8), "quant": 1}, TILING,
              "expandedScaleOut"),
             ({"x": T((4, 3), I8), "ex": T((8, 3), I8), "quant": 1, "es": T((1,))}, TILING, "ACL_INT8")]
    for over, status, fragment in order:
        got, message = phase1(aclnn.aclnnMoeInitRoutingV3GetWorkspaceSize, v3_args(over))
        assert (got, fragment in message) == (status, True), (over, message)


# ---- high-level validation ------------------------------------------------------------------------------

def _x(**over):
    a = dict(x=np.zeros((4, 3), np.float32), expert_idx=np.zeros((4, 2), np.int32), expert_num=4)
    a.update(over)
    return lambda: forward(**a)


HIGH_LEVEL_CASES = [
    ("expert_num_default", _x(expert_num=-1), TILING, "expert_num"),
    ("drop_pad_mode", _x(drop_pad_mode=3), TILING, "drop_pad_mode"),
    ("active_num", _x(active_num=-3), TILING, "active_num"),
    ("capacity", _x(drop_pad_mode=1, expert_capacity=9), TILING, "expert_capacity"),
    ("type", _x(expert_tokens_num_type=7), TILING, "expert_tokens_num_type"),
    ("quant_mode", _x(quant_mode=3), TILING, "quant_mode"),
    ("range", _x(active_expert_range=[2, 9]), TILING, "active_expert_range"),
    ("row_idx_type", _x(row_idx_type=4), TILING, "row_idx_type"),
    ("x_rank", _x(x=np.zeros((4, 3, 1), np.float32)), TILING, "'x'"),
    ("x_float64", _x(x=np.zeros((4, 3))), INVALID, "x"),
    ("static_without_scale", _x(quant_mode=0), TILING, "scaleOptional"),
    ("int8_x_dynamic", _x(x=np.zeros((4, 3), np.int8), quant_mode=1), TILING, "ACL_INT8"),
    ("copied_scale_shape", _x(scale=np.zeros(3, np.float32)), TILING, "scaleOptional"),
]


@pytest.mark.parametrize("name,call,status,argument", HIGH_LEVEL_CASES, ids=[c[0] for c in HIGH_LEVEL_CASES])
def test_high_level_validation(name, call, status, argument):
    assert_rejected(call, status, argument, GWS)


def test_high_level_returns_none_for_what_the_call_does_not_produce():
    x, idx = np.ones((3, 2), np.float32), np.array([[0], [1], [1]], np.int32)
    ex, ri, cnt, es = forward(x, idx, expert_num=2)
    assert ex.dtype == np.float32 and cnt is None and es is None
    ex, ri, cnt, es = forward(x, idx, expert_num=2, quant_mode=1, expert_tokens_num_flag=True)
    assert ex.dtype == np.int8 and cnt.tolist() == [1, 3] and es.shape == (3,)


# ---- validation from C: NULL handles, the official sample's call, releases --------------------------------

C_EXPECTED = {
    "fwd_ok": 0, "fwd_ok_dynamic": 0, "fwd_ok_static": 0, "fwd_ok_drop_pad": 0, "fwd_ok_range_null_array": 0,
    "fwd_null_x": NULLPTR, "fwd_null_expert_idx": NULLPTR, "fwd_null_expanded_x": NULLPTR, "fwd_null_row_idx": NULLPTR,
    "fwd_null_counts": NULLPTR, "fwd_null_expanded_scale": NULLPTR, "fwd_null_workspace_size": NULLPTR,
    "fwd_null_executor": NULLPTR, "fwd_official_int8_expanded_x": INVALID, "fwd_official_offset_shape_3": 0,
    "fwd_quant_mode_minus_2": TILING, "fwd_range_destroyed": INVALID,
    **{k: 0 for k in C_LIVE},
}
c_results, test_c_forward_validation, _unused_backward, test_c_program_releases_everything = c_validation_tests(
    Path(__file__).parent / "c" / "validation_init_routing_v3.c", C_EXPECTED, werror=True)
del _unused_backward
