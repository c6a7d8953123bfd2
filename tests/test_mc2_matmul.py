"""The MC2 matmul operators (a matmul fused with a collective): aclnnMatmulAllReduce(V2), aclnnQuantMatmulAllReduce(V2),
aclnnWeightQuantMatmulAllReduce, aclnnAllGatherMatmul and aclnnMatmulReduceScatter on ranks of one process (threads;
the group name resolved to the communicator of that name, as the toolkit does), against numpy: each rank's product
rounded to the output dtype, then the collective summing in rank order with a rounding per step (as HCCL's
reductions do). Small integer data keep float32 sums exact, so results compare bit for bit. Plus the op_api's
argument checks and status codes (the vendor's op_api gtest cases of these operators as data)."""

import ml_dtypes
import numpy as np
import pytest

import aclnn_py
from aclnn_py import AclnnError

from helpers_hccl import Ranks, reduce_ref

pytestmark = pytest.mark.skipif(not aclnn_py.backend().is_stub, reason="ranks as threads of the stub")

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)


def ints(rng, shape, dtype, lo=-3, hi=4):
    return rng.integers(lo, hi, shape).astype(np.float32).astype(dtype)


def run(name, *args, out, outputs, c):
    """Every parameter in C order (the outputs among them are written in place); outputs names them, as their
    prototypes declare them const."""
    del out
    return aclnn_py.run(name, *args, outputs=outputs, stream=aclnn_py.Stream.default(c.device))


def mm_ref(x1, x2, bias=None, x3=None, dtype=None):
    """One rank's product: float32 sums plus the bias, rounded once to dtype; x3 added in dtype."""
    dtype = dtype or x1.dtype
    p = x1.astype(np.float32) @ x2.astype(np.float32)
    if bias is not None:
        p = p + bias.astype(np.float32)
    y = p.astype(dtype)
    if x3 is not None:
        y = (y.astype(np.float32) + x3.astype(np.float32)).astype(dtype)
    return y


# ---- aclnnMatmulAllReduce, aclnnMatmulAllReduceV2 -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F16, BF16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("w, shape1, n, bias, x3", [
    (2, (8, 16), 12, True, False),
    (4, (2, 5, 16), 7, False, True),
    (3, (9, 32), 5, True, True),
], ids=["2 ranks, bias", "4 ranks, 3-D x1, x3", "3 ranks, bias and x3"])
def test_matmul_all_reduce(dtype, w, shape1, n, bias, x3):
    rng = np.random.default_rng(len(shape1) * 10 + w)
    k = shape1[-1]
    x1s = [ints(rng, shape1, dtype) for _ in range(w)]
    x2s = [ints(rng, (k, n), dtype) for _ in range(w)]
    bs = [ints(rng, (n,), dtype) if bias else None for _ in range(w)]
    x3s = [ints(rng, shape1[:-1] + (n,), dtype, -40, 40) if x3 else None for _ in range(w)]
    v2 = x3

    def body(c):
        r = c.rank
        out = np.zeros(shape1[:-1] + (n,), dtype)
        if v2:
            run("aclnnMatmulAllReduceV2", x1s[r], x2s[r], bs[r], x3s[r], c.name, "sum", 0, 1, out, out=out,
                outputs=["output"], c=c)
        else:
            run("aclnnMatmulAllReduce", x1s[r], x2s[r], bs[r], c.name, "sum", 0, 1, out, out=out,
                outputs=["output"], c=c)
        return out

    with Ranks(w) as rs:
        outs = rs.run(body)
    want = reduce_ref([mm_ref(x1s[r], x2s[r], bs[r], x3s[r]) for r in range(w)], "sum")
    for out in outs:
        np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))


def test_matmul_all_reduce_rounds_each_rank_step():
    """fp16: 2048 + 1 + 1 over three ranks rounds after every rank (2048 + 1 -> 2048), as HCCL's sum does."""
    w = 3
    x1 = np.ones((1, 16), F16)
    vals = [2048.0, 1.0, 1.0]

    def body(c):
        x2 = np.zeros((16, 1), F16)
        x2[0, 0] = vals[c.rank]
        out = np.zeros((1, 1), F16)
        run("aclnnMatmulAllReduce", x1, x2, None, c.name, "sum", 0, 1, out, out=out, outputs=["output"], c=c)
        return out

    with Ranks(w) as rs:
        outs = rs.run(body)
    for out in outs:
        assert float(out[0, 0]) == 2048.0


def test_matmul_all_reduce_transposed_x2():
    w, dtype = 2, BF16
    rng = np.random.default_rng(7)
    x1s = [ints(rng, (6, 16), dtype) for _ in range(w)]
    x2ts = [ints(rng, (10, 16), dtype) for _ in range(w)]

    def body(c):
        out = np.zeros((6, 10), dtype)
        run("aclnnMatmulAllReduce", x1s[c.rank], x2ts[c.rank].T, None, c.name, "sum", 0, 1, out, out=out,
            outputs=["output"], c=c)
        return out

    with Ranks(w) as rs:
        outs = rs.run(body)
    want = reduce_ref([mm_ref(x1s[r], x2ts[r].T) for r in range(w)], "sum")
    for out in outs:
        np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))


# ---- aclnnQuantMatmulAllReduce(V2) ------------------------------------------------------------------------------

def pack_scale(s):
    """aclnnTransQuantParam's packing: the float32 bits in the low 32 bits."""
    return s.astype(np.float32).view(np.uint32).astype(np.int64)


@pytest.mark.parametrize("out_dtype, scale_kind, pertoken", [
    (F16, "float", True), (F16, "int64", False), (BF16, "bf16", False), (BF16, "bf16", True), (F16, "uint64", False),
], ids=["fp16 float scale pertoken", "fp16 int64 scale", "bf16 bf16 scale", "bf16 bf16 scale pertoken",
        "fp16 uint64 scale"])
def test_quant_matmul_all_reduce(out_dtype, scale_kind, pertoken):
    w, m, k, n = 2, 6, 32, 8
    rng = np.random.default_rng(3)
    x1s = [rng.integers(-5, 6, (m, k)).astype(np.int8) for _ in range(w)]
    x2s = [rng.integers(-5, 6, (k, n)).astype(np.int8) for _ in range(w)]
    biases = [rng.integers(-50, 50, (n,)).astype(np.int32) for _ in range(w)]
    scales = [(2.0 ** rng.integers(-3, 2, (n,))).astype(np.float32) for _ in range(w)]
    pts = [(2.0 ** rng.integers(-2, 2, (m,))).astype(np.float32) for _ in range(w)]
    x3s = [ints(rng, (m, n), out_dtype, -20, 20) for _ in range(w)]

    def scale_arg(s):
        return {"float": s, "bf16": s.astype(BF16), "int64": pack_scale(s),
                "uint64": pack_scale(s).astype(np.uint64)}[scale_kind]

    def body(c):
        r = c.rank
        out = np.zeros((m, n), out_dtype)
        if pertoken:
            run("aclnnQuantMatmulAllReduceV2", x1s[r], x2s[r], biases[r], x3s[r], scale_arg(scales[r]), pts[r], c.name,
                "sum", 0, 1, out, out=out, outputs=["output"], c=c)
        else:
            run("aclnnQuantMatmulAllReduce", x1s[r], x2s[r], biases[r], x3s[r], scale_arg(scales[r]), c.name, "sum",
                0, 1, out, out=out, outputs=["output"], c=c)
        return out

    with Ranks(w) as rs:
        outs = rs.run(body)
    locals_ = []
    for r in range(w):
        a = (x1s[r].astype(np.int64) @ x2s[r].astype(np.int64) + biases[r]).astype(np.float32)
        v = a * scales[r]
        if pertoken:
            v = v * pts[r][:, None]
        y = (v.astype(out_dtype).astype(np.float32) + x3s[r].astype(np.float32)).astype(out_dtype)
        locals_.append(y)
    want = reduce_ref(locals_, "sum")
    for out in outs:
        np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))


# ---- aclnnWeightQuantMatmulAllReduce ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F16, BF16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("group", [0, 32], ids=["per channel", "per group"])
def test_weight_quant_matmul_all_reduce(dtype, group):
    w, m, k, n = 2, 4, 64, 6
    rng = np.random.default_rng(11)
    x1s = [ints(rng, (m, k), dtype) for _ in range(w)]
    ws = [rng.integers(-4, 5, (k, n)).astype(np.int8) for _ in range(w)]
    sshape = (k // group, n) if group else (n,)
    scales = [(2.0 ** rng.integers(-2, 2, sshape)).astype(dtype) for _ in range(w)]
    offs = [rng.integers(-2, 3, sshape).astype(dtype) for _ in range(w)]
    bias = [ints(rng, (n,), dtype) for _ in range(w)]

    def body(c):
        r = c.rank
        out = np.zeros((m, n), dtype)
        run("aclnnWeightQuantMatmulAllReduce", x1s[r], ws[r], bias[r], scales[r], offs[r], None, c.name, "sum", 0, 1,
            group, out, out=out, outputs=["output"], c=c)
        return out

    with Ranks(w) as rs:
        outs = rs.run(body)
    locals_ = []
    for r in range(w):
        s = np.repeat(scales[r], group, axis=0) if group else scales[r]
        o = np.repeat(offs[r], group, axis=0) if group else offs[r]
        wd = ((ws[r].astype(np.float32) + o.astype(np.float32)).astype(dtype).astype(np.float32)
              * s.astype(np.float32)).astype(dtype)
        locals_.append(mm_ref(x1s[r], wd, bias[r]))
    want = reduce_ref(locals_, "sum")
    for out in outs:
        np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))


# ---- aclnnAllGatherMatmul, aclnnMatmulReduceScatter -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [F16, BF16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("w, gather_out", [(2, True), (4, False)], ids=["2 ranks, gatherOut", "4 ranks"])
def test_all_gather_matmul(dtype, w, gather_out):
    m, k, n = 3, 256, 5
    rng = np.random.default_rng(w)
    x1s = [ints(rng, (m, k), dtype) for _ in range(w)]
    x2s = [ints(rng, (k, n), dtype) for _ in range(w)]
    bs = [ints(rng, (n,), dtype) for _ in range(w)]

    def body(c):
        r = c.rank
        out = np.zeros((m * w, n), dtype)
        go = np.zeros((m * w, k), dtype) if gather_out else None
        run("aclnnAllGatherMatmul", x1s[r], x2s[r], bs[r], c.name, 0, 0, 1, out, go, out=(out, go),
            outputs=["output", "gatherOut"], c=c)
        return out, go

    with Ranks(w) as rs:
        outs = rs.run(body)
    gathered = np.concatenate(x1s)
    for r, (out, go) in enumerate(outs):
        np.testing.assert_array_equal(out.astype(np.float32), mm_ref(gathered, x2s[r], bs[r]).astype(np.float32))
        if gather_out:
            np.testing.assert_array_equal(go.astype(np.float32), gathered.astype(np.float32))


@pytest.mark.parametrize("dtype", [F16, BF16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("w", [2, 4])
def test_matmul_reduce_scatter(dtype, w):
    m, k, n = 2 * w, 256, 6
    rng = np.random.default_rng(w + 1)
    x1s = [ints(rng, (m, k), dtype) for _ in range(w)]
    x2s = [ints(rng, (k, n), dtype) for _ in range(w)]
    bs = [ints(rng, (n,), dtype) for _ in range(w)]

    def body(c):
        r = c.rank
        out = np.zeros((m // w, n), dtype)
        run("aclnnMatmulReduceScatter", x1s[r], x2s[r], bs[r], c.name, "sum", 0, 1, out, out=out,
            outputs=["output"], c=c)
        return out

    with Ranks(w) as rs:
        outs = rs.run(body)
    total = reduce_ref([mm_ref(x1s[r], x2s[r], bs[r]) for r in range(w)], "sum")
    for r, out in enumerate(outs):
        np.testing.assert_array_equal(out.astype(np.float32), total[r * (m // w):(r + 1) * (m // w)].astype(np.float32))


# ---- argument checks ---------------------------------------------------------------------------------------------
# The vendor's op_api gtest cases (tests/ut/op_host/op_api of mc2/matmul_all_reduce and friends) as data: the phase-1
# status of each call, on one rank of a group of one.

H = np.float16
CASES = [
    # (operator, x1 shape/dtype, x2, bias, output, reduceOp, streamMode, status)
    ("aclnnMatmulAllReduce", ((16, 32), H), ((32, 16), H), ((16,), H), ((16, 16), H), "sum", 1, 0),
    ("aclnnMatmulAllReduce", ((16, 0), H), ((0, 16), H), ((16,), H), ((16, 16), H), "sum", 1, 0),  # empty K
    ("aclnnMatmulAllReduce", ((0, 32), H), ((32, 16), H), ((16,), H), ((0, 16), H), "sum", 1, 161002),  # empty M
    ("aclnnMatmulAllReduce", (None, H), ((32, 16), H), ((16,), H), ((16, 16), H), "sum", 1, 161001),
    ("aclnnMatmulAllReduce", ((16, 32), H), (None, H), ((16,), H), ((16, 16), H), "sum", 1, 161001),
    ("aclnnMatmulAllReduce", ((16, 32), H), ((32, 16), H), ((16,), H), (None, H), "sum", 1, 161001),
    ("aclnnMatmulAllReduce", ((16, 32), H), ((32, 16), H), ((16,), H), ((16, 16), H), "max", 1, 161002),
    ("aclnnMatmulAllReduce", ((16, 32), H), ((32, 16), H), ((16,), H), ((16, 16), H), "sum", 0, 161002),
    ("aclnnMatmulAllReduce", ((16, 32), np.float32), ((32, 16), np.float32), None, ((16, 16), np.float32), "sum", 1,
     161002),
    ("aclnnMatmulAllReduce", ((16, 32), H), ((32, 16), BF16), None, ((16, 16), H), "sum", 1, 161002),
    ("aclnnMatmulAllReduce", ((16, 32), H), ((31, 16), H), None, ((16, 16), H), "sum", 1, 161002),
    ("aclnnMatmulAllReduce", ((16, 32), H), ((32, 16), H), None, ((16, 15), H), "sum", 1, 161002),
    ("aclnnMatmulAllReduce", ((32,), H), ((32, 16), H), None, ((16,), H), "sum", 1, 161002),
    ("aclnnMatmulAllReduce", ((16, 32), H), ((32, 16), H), ((15,), H), ((16, 16), H), "sum", 1, 161002),
    ("aclnnMatmulReduceScatter", ((16, 32), H), ((32, 16), H), None, ((16, 16), H), "sum", 1, 161002),  # k < 256
    ("aclnnMatmulReduceScatter", ((16, 256), H), ((256, 16), H), None, ((16, 16), H), "sum", 0, 161002),
    ("aclnnMatmulReduceScatter", ((16, 256), H), ((256, 16), H), None, ((16, 16), H), "sum", 1, 0),
    ("aclnnMatmulReduceScatter", ((16, 0), H), ((0, 16), H), None, ((16, 16), H), "sum", 1, 161002),
]


def tensor(spec):
    shape, dt = spec
    return None if shape is None else np.zeros(shape, dt)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_argument_checks(case):
    name, x1, x2, bias, out, op, sm, status = case

    def body(c):
        args = (tensor(x1), tensor(x2), tensor(bias) if bias else None, c.name, op, 0, sm)
        o = tensor(out)
        try:
            run(name, *args, o, out=o, outputs=["output"], c=c)
        except AclnnError as e:
            return e.status
        return 0

    with Ranks(1) as rs:
        got = rs.run(body)[0]
    assert got == status


def test_unknown_group_is_named():
    x = np.zeros((4, 8), F16)

    def body(c):
        with pytest.raises(AclnnError, match="no-such-group") as info:
            run("aclnnMatmulAllReduce", x, np.zeros((8, 4), F16), None, "no-such-group", "sum", 0, 1,
                np.zeros((4, 4), F16), out=np.zeros((4, 4), F16), outputs=["output"], c=c)
        return info.value.status

    with Ranks(1) as rs:
        assert rs.run(body)[0] == 161002


# ---- the AddRmsNorm variants -------------------------------------------------------------------------------------

def arn_ref(mm_out, residual, gamma, eps):
    v = mm_out.astype(np.float32) + residual.astype(np.float32)
    rstd = 1.0 / np.sqrt((v.astype(np.float64) ** 2).mean(-1, keepdims=True) + eps)
    return v.astype(mm_out.dtype), (v * rstd * gamma.astype(np.float32)).astype(mm_out.dtype)


@pytest.mark.parametrize("dtype", [F16, BF16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("kind", ["plain", "quant", "weight"])
@pytest.mark.parametrize("inplace", [False, True], ids=["y", "in place"])
def test_matmul_all_reduce_add_rms_norm(dtype, kind, inplace):
    w, m, k, n, eps = 2, 5, 32, 24, 1e-6
    rng = np.random.default_rng(5)
    if kind == "quant":
        x1s = [rng.integers(-5, 6, (m, k)).astype(np.int8) for _ in range(w)]
        x2s = [rng.integers(-5, 6, (k, n)).astype(np.int8) for _ in range(w)]
        scales = [(2.0 ** rng.integers(-3, 0, (n,))).astype(np.float32) for _ in range(w)]
        bias = [None] * w
    else:
        scales = None
        x1s = [ints(rng, (2, m, k), dtype) for _ in range(w)]
        x2s = ([rng.integers(-4, 5, (k, n)).astype(np.int8) for _ in range(w)] if kind == "weight"
               else [ints(rng, (k, n), dtype) for _ in range(w)])
        bias = [ints(rng, (n,), dtype) for _ in range(w)]
    shape = (m, n) if kind == "quant" else (2, m, n)
    residuals = [ints(rng, shape, dtype, -9, 9) for _ in range(w)]
    gammas = [rng.standard_normal(n).astype(dtype) for _ in range(w)]
    ascales = [(2.0 ** rng.integers(-1, 2, (n,))).astype(dtype) for _ in range(w)]
    prefix = "aclnnInplace" if inplace else "aclnn"
    op = {"plain": "MatmulAllReduceAddRmsNorm", "quant": "QuantMatmulAllReduceAddRmsNorm",
          "weight": "WeightQuantMatmulAllReduceAddRmsNorm"}[kind]

    def body(c):
        r = c.rank
        res = residuals[r].copy()
        y = np.zeros(shape, dtype)
        no = np.zeros(shape, dtype)
        if kind == "plain":
            head = (x1s[r], x2s[r], bias[r])
        elif kind == "quant":
            head = (x1s[r], x2s[r], None, scales[r].astype(BF16) if dtype == BF16 else scales[r])
        else:
            head = (x1s[r], x2s[r], bias[r], ascales[r], None)
        tail = (res, gammas[r], eps, c.name, "sum", 0, 1) + ((0,) if kind == "weight" else ())
        if inplace:
            run(prefix + op, *head, *tail, no, out=(res, no), outputs=["residual", "normOut"], c=c)
            return res, no
        run(prefix + op, *head, *tail, y, no, out=(y, no), outputs=["y", "normOut"], c=c)
        return y, no

    with Ranks(w) as rs:
        outs = rs.run(body)
    locals_ = []
    for r in range(w):
        if kind == "quant":
            a = (x1s[r].astype(np.int64) @ x2s[r].astype(np.int64)).astype(np.float32)
            locals_.append((a * scales[r]).astype(dtype))
        elif kind == "weight":
            locals_.append(mm_ref(x1s[r], (x2s[r].astype(np.float32) * ascales[r].astype(np.float32)).astype(dtype),
                                  bias[r]))
        else:
            locals_.append(mm_ref(x1s[r], x2s[r], bias[r]))
    mm_out = reduce_ref(locals_, "sum")
    for r, (y, no) in enumerate(outs):
        want_y, want_no = arn_ref(mm_out, residuals[r], gammas[r], eps)
        np.testing.assert_array_equal(y.astype(np.float32), want_y.astype(np.float32))
        tol = 1e-2 if dtype == BF16 else 2e-3
        np.testing.assert_allclose(no.astype(np.float32), want_no.astype(np.float32), rtol=tol, atol=tol)


# ---- aclnnQuantMatmulAllReduceV3 ----------------------------------------------------------------------------------

def sat8(v):
    return np.clip(np.rint(v), -128, 127).astype(np.int8)


@pytest.mark.parametrize("out_dtype", [F16, BF16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("comm_quant", [False, True], ids=["as V2", "low-bit communication"])
def test_quant_matmul_all_reduce_v3(out_dtype, comm_quant):
    """Without commQuantScale1/2, V3 is V2; with them, the rows travel as INT8 (uneven row blocks: 5 rows on 3
    ranks)."""
    w, m, k, n = 3, 5, 32, 8
    rng = np.random.default_rng(13)
    x1s = [rng.integers(-5, 6, (m, k)).astype(np.int8) for _ in range(w)]
    x2s = [rng.integers(-5, 6, (k, n)).astype(np.int8) for _ in range(w)]
    scales = [(2.0 ** rng.integers(-3, 0, (n,))).astype(np.float32) for _ in range(w)]
    deq = [s.astype(BF16) if out_dtype == BF16 else s for s in scales]
    s1 = (2.0 ** rng.integers(-1, 2, (n,))).astype(out_dtype)
    s2 = (2.0 ** rng.integers(0, 3, (n,))).astype(out_dtype)

    def body(c):
        r = c.rank
        out = np.zeros((m, n), out_dtype)
        run("aclnnQuantMatmulAllReduceV3", x1s[r], x2s[r], None, None, deq[r], None, s1 if comm_quant else None,
            s2 if comm_quant else None, c.name, "sum", 0, 1, out, out=out, outputs=["output"], c=c)
        return out

    with Ranks(w) as rs:
        outs = rs.run(body)
    locals_ = [((x1s[r].astype(np.int64) @ x2s[r].astype(np.int64)).astype(np.float32) * scales[r]).astype(out_dtype)
               for r in range(w)]
    if comm_quant:
        f1, f2 = s1.astype(np.float32), s2.astype(np.float32)
        qs = [sat8(l.astype(np.float32) / f1) for l in locals_]
        total = sum(q.astype(np.int32) for q in qs)
        want = (sat8(total.astype(np.float32) * (f1 / f2)).astype(np.float32) * f2).astype(out_dtype)
    else:
        want = reduce_ref(locals_, "sum")
    for out in outs:
        np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))


# ---- aclnnAlltoAllvGroupedMatMul, aclnnGroupedMatMulAlltoAllv ------------------------------------------------------

def a2av_counts(rng, w, e):
    """send[r][j * e + x]: rows rank r sends to expert x of rank j; recv[j][r * e + x] is the same number."""
    send = [rng.integers(0, 4, w * e) for _ in range(w)]
    recv = [np.array([send[r][j * e + x] for r in range(w) for x in range(e)]) for j in range(w)]
    return send, recv


@pytest.mark.parametrize("dtype", [F16, BF16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("trans, shared", [(False, True), (True, False)], ids=["shared expert", "transposed weights"])
def test_alltoallv_grouped_matmul_round_trip(dtype, trans, shared):
    """Dispatch with AlltoAllvGroupedMatMul (permuteOut: the rows each expert received, expert-major), then back with
    GroupedMatMulAlltoAllv using the transposed counts: the numpy model of the exchange and products."""
    w, e, h, n = 3, 2, 16, 8
    rng = np.random.default_rng(17)
    send, recv = a2av_counts(rng, w, e)
    xs = [ints(rng, (int(send[r].sum()), h), dtype) for r in range(w)]
    ws = [ints(rng, (e, h, n), dtype) for _ in range(w)]
    w2s = [ints(rng, (e, n, h), dtype) for _ in range(w)]
    mx = [ints(rng, (4, h), dtype) for _ in range(w)]
    mw = [ints(rng, (h, 5), dtype) for _ in range(w)]

    def body(c):
        r = c.rank
        a = int(recv[r].sum())
        gy = np.zeros((a, n), dtype)
        perm = np.zeros((a, h), dtype)
        my = np.zeros((4, 5), dtype) if shared else None
        wt = np.ascontiguousarray(ws[r].transpose(0, 2, 1)) if trans else ws[r]
        aclnn_py.run("aclnnAlltoAllvGroupedMatMul", xs[r], wt, None, None, mx[r] if shared else None,
                     mw[r] if shared else None, c.name, w, [int(v) for v in send[r]], [int(v) for v in recv[r]],
                     trans, False, True, gy, my, perm, stream=aclnn_py.Stream.default(c.device))
        back = np.zeros((xs[r].shape[0], h), dtype)
        aclnn_py.run("aclnnGroupedMatMulAlltoAllv", gy, w2s[r], None, None, None, None, c.name, w,
                     [int(v) for v in recv[r]], [int(v) for v in send[r]], False, False, back, None,
                     stream=aclnn_py.Stream.default(c.device))
        return perm, gy, my, back

    with Ranks(w) as rs:
        outs = rs.run(body)

    def token_rows(r):  # rank r's token rows by (destination rank, expert)
        rows, at = {}, 0
        for j in range(w):
            for x in range(e):
                cnt = int(send[r][j * e + x])
                rows[(j, x)] = xs[r][at:at + cnt]
                at += cnt
        return rows

    toks = [token_rows(r) for r in range(w)]
    for j, (perm, gy, my, back) in enumerate(outs):
        want_perm = np.concatenate([toks[r][(j, x)] for x in range(e) for r in range(w)])
        np.testing.assert_array_equal(perm.astype(np.float32), want_perm.astype(np.float32))
        groups = [np.concatenate([toks[r][(j, x)] for r in range(w)]) for x in range(e)]
        want_gy = np.concatenate([mm_ref(g, ws[j][x]) for x, g in enumerate(groups)])
        np.testing.assert_array_equal(gy.astype(np.float32), want_gy.astype(np.float32))
        if shared:
            np.testing.assert_array_equal(my.astype(np.float32), mm_ref(mx[j], mw[j]).astype(np.float32))
    # the way back: rank r's row for (rank j, expert x) is expert x of rank j's second product of it
    for r in range(w):
        pieces = []
        for j in range(w):
            for x in range(e):
                first = mm_ref(toks[r][(j, x)], ws[j][x])
                pieces.append(mm_ref(first, w2s[j][x]))
        np.testing.assert_array_equal(outs[r][3].astype(np.float32), np.concatenate(pieces).astype(np.float32))


# ---- aclnnDistributeBarrier --------------------------------------------------------------------------------------

def test_distribute_barrier_orders_ranks():
    """No rank leaves the barrier before every rank has entered it."""
    import threading
    import time
    w = 3
    entered = []
    lock = threading.Lock()

    def body(c):
        time.sleep(0.02 * c.rank)
        with lock:
            entered.append(c.rank)
        aclnn_py.run("aclnnDistributeBarrier", np.zeros(4, np.int32), c.name, w, outputs=["xRef"],
                     stream=aclnn_py.Stream.default(c.device))
        with lock:
            return len(entered)

    with Ranks(w) as rs:
        assert rs.run(body) == [w] * w


@pytest.mark.parametrize("group, size, status", [("", 2, 161001), ("x" * 200, 2, 161001), (None, 1, 561002),
                                                 (None, 3, 561002)], ids=["empty group", "long group", "worldSize 1",
                                                                          "worldSize not the group's"])
def test_distribute_barrier_checks(group, size, status):
    def body(c):
        with pytest.raises(AclnnError) as info:
            aclnn_py.run("aclnnDistributeBarrier", np.zeros(4, np.int32), c.name if group is None else group, size,
                         outputs=["xRef"], stream=aclnn_py.Stream.default(c.device))
        return info.value.status

    with Ranks(2) as rs:
        assert rs.run(body) == [status, status]
