"""HCCL on the stub, in one process: every collective on every data type and reduction against numpy references,
the rounding of 16-bit sums, the argument checks with their official codes, failures that name the ranks and their
calls (disagreeing ranks, unmatched point to point, a rank that never calls, a destroyed communicator), timeouts,
sub-communicators, rank tables and check mode's collective checker."""

import json
import os
import threading
import time

import numpy as np
import pytest

import aclnn_py
from aclnn_py import check, hccl
from aclnn_py._native import ffi, lib
from aclnn_py.errors import HcclError

from helpers_hccl import BF16, NO_PROD, REDUCIBLE, Ranks, rank_data, reduce_ref

pytestmark = pytest.mark.skipif(not aclnn_py.backend().is_stub, reason="runs ranks as threads of the stub")

N = 4
OPS = ["sum", "prod", "max", "min"]
MOVABLE = REDUCIBLE + [np.uint8, np.uint16, np.uint32, np.bool_] + [
    np.dtype(getattr(__import__("ml_dtypes"), n)) for n in ("float8_e4m3fn", "float8_e5m2")]


@pytest.fixture(scope="module")
def ranks():
    with Ranks(N) as r:
        yield r


def bits(a):
    a = np.ascontiguousarray(a)
    return a.reshape(-1).view(np.uint8).tolist(), a.shape


# ---- results ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, op", [(np.dtype(d), op) for d in REDUCIBLE for op in OPS
                                       if not (op == "prod" and np.dtype(d) in NO_PROD)], ids=str)
def test_reductions(ranks, dtype, op):
    rng = np.random.default_rng(hash((str(dtype), op)) % 2**32)
    xs = [rank_data(rng, r, 4 * N * 3, dtype) for r in range(N)]
    if dtype.kind == "f" or dtype == BF16:  # a NaN propagates through MAX and MIN
        xs[2][5] = np.nan
    counts = [1, 0, 5, 3]  # rows of the V variant, one per rank
    vx = [x[:sum(counts)] for x in xs]

    def body(c):
        x = xs[c.rank]
        return (c.all_reduce(x, op), c.reduce(x, 2, op), c.reduce_scatter(x.reshape(N, -1), op),
                c.reduce_scatter_v(vx[c.rank], counts, op))

    full = reduce_ref(xs, op)
    vfull = reduce_ref(vx, op)
    starts = np.cumsum([0] + counts)
    for r, (ar, red, rs, rsv) in enumerate(ranks.run(body)):
        assert bits(ar) == bits(full)
        assert (red is None) == (r != 2) and (red is None or bits(red) == bits(full))
        assert bits(rs) == bits(full.reshape(N, -1)[r:r + 1])
        assert bits(rsv) == bits(vfull[starts[r]:starts[r + 1]])


@pytest.mark.parametrize("dtype", [np.dtype(d) for d in MOVABLE], ids=str)
def test_data_movement(ranks, dtype):
    rng = np.random.default_rng(7)
    xs = [rng.integers(0, 100, (N, 3)).astype(np.float32).astype(dtype) for _ in range(N)]
    gv = [1, 3, 0, 2]  # rows each rank contributes to all_gather_v
    sc = [[(i + j) % 3 for j in range(N)] for i in range(N)]  # rows rank i sends to rank j
    m = np.array(sc)

    def body(c):
        r, x = c.rank, xs[c.rank]
        rows = x.reshape(-1)[:sum(sc[r]) * 1]
        return (c.all_gather(x), c.all_gather_v(x[:gv[r]], gv), c.broadcast(x.copy(), 1),
                c.scatter(x if r == 3 else None, 3, shape=(1, 3), dtype=dtype), c.all_to_all(x),
                c.all_to_all_v(rows, sc[r], m[:, r]), c.all_to_all_vc(rows, m))

    flat = [x.reshape(-1) for x in xs]
    for r, (ag, agv, bc, sct, a2a, a2av, a2avc) in enumerate(ranks.run(body)):
        assert bits(ag) == bits(np.stack(xs))
        assert bits(agv) == bits(np.concatenate([xs[j][:gv[j]] for j in range(N)]))
        assert bits(bc) == bits(xs[1])
        assert bits(sct) == bits(xs[3][r:r + 1])
        assert bits(a2a) == bits(np.stack([xs[j][r] for j in range(N)]))
        pieces = [flat[j][sum(sc[j][:r]):sum(sc[j][:r + 1])] for j in range(N)]
        assert bits(a2av) == bits(np.concatenate(pieces)) == bits(a2avc)


def test_point_to_point(ranks):
    x = [np.full(6, r, np.int32) for r in range(N)]

    def body(c):
        r = c.rank
        if r % 2 == 0:
            c.send(x[r], r + 1)
            got = c.recv(r + 1, 6, np.int32)
        else:
            got = c.recv(r - 1, 6, np.int32)
            c.send(x[r], r - 1)
        ring = np.zeros(6, np.int32)
        c.batch_send_recv([("send", x[r], (r + 1) % N), ("recv", ring, (r - 1) % N)])
        c.barrier()
        return got, ring

    for r, (got, ring) in enumerate(ranks.run(body)):
        assert got.tolist() == [r ^ 1] * 6 and ring.tolist() == [(r - 1) % N] * 6


def test_in_place_all_reduce_and_tensors(ranks):
    def body(c):
        t = aclnn_py.Tensor.from_numpy(np.full((2, 3), c.rank + 1, np.float32), device=c.device)
        y = c.all_reduce(t, "max")
        buf = np.full(5, c.rank, np.int64)
        c.all_reduce(buf, out=buf)  # sendBuf == recvBuf
        out = y.numpy(), buf.copy()
        y.close()
        t.close()
        return out

    for y, buf in ranks.run(body):
        assert y.tolist() == [[N] * 3] * 2 and buf.tolist() == [N * (N - 1) // 2] * 5


@pytest.mark.parametrize("dtype, one_ulp_half", [(np.float16, 2.0 ** -11), (BF16, 2.0 ** -8)], ids=["fp16", "bf16"])
def test_16_bit_sums_round_after_every_rank(ranks, dtype, one_ulp_half):
    """1 + h + h + h with h half an ulp of 1: rounded after every step it stays 1 (ties to even); rounded once at
    the end it would be 1 + ulp."""
    xs = [np.array([1.0 if r == 0 else one_ulp_half], dtype) for r in range(N)]
    results = ranks.run(lambda c: c.all_reduce(xs[c.rank]))
    assert all(float(y[0]) == 1.0 for y in results)
    once = np.float32(1.0) + np.float32(3 * one_ulp_half)
    assert float(np.array(once).astype(dtype)) != 1.0  # the test tells the two roundings apart


# ---- argument checks -------------------------------------------------------------------------------------------

def raw_call(comm, fn, *args):
    """Status of a raw C call on comm's device; no rank has to take part (it fails before queueing)."""
    with comm.device._on():
        status = getattr(lib, fn)(*args)
    msg = lib.aclGetRecentErrMsg()
    return status, ffi.string(msg).decode() if msg != ffi.NULL else ""


def device_array(comm, nbytes):
    buf = aclnn_py.DeviceBuffer(nbytes, comm.device)
    return buf, buf.ptr


CHECKS = [
    # name, function, arguments (d: a device buffer, h: host memory, s: a stream, c: the communicator), status, words
    ("reduce unsigned", "HcclAllReduce", ("d", "d", 4, 7, 0, "c", "s"), lib.HCCL_E_NOT_SUPPORT, "UINT8"),
    ("prod bfloat16", "HcclAllReduce", ("d", "d", 4, 11, 1, "c", "s"), lib.HCCL_E_NOT_SUPPORT, "PROD"),
    ("unknown op", "HcclAllReduce", ("d", "d", 4, 4, 7, "c", "s"), lib.HCCL_E_PARA, "op"),
    ("int128", "HcclAllGather", ("d", "d", 1, 12, "c", "s"), lib.HCCL_E_NOT_SUPPORT, "INT128"),
    ("no stream", "HcclAllReduce", ("d", "d", 4, 4, 0, "c", None), lib.HCCL_E_PTR, "stream"),
    ("null buffer", "HcclAllReduce", (None, "d", 4, 4, 0, "c", "s"), lib.HCCL_E_PTR, "sendBuf"),
    ("host memory", "HcclAllReduce", ("h", "d", 4, 4, 0, "c", "s"), lib.HCCL_E_PARA, "device memory"),
    ("too long", "HcclAllReduce", ("d", "d", 1 << 20, 4, 0, "c", "s"), lib.HCCL_E_PARA, "not inside"),
    ("misaligned", "HcclAllReduce", ("d+1", "d", 4, 4, 0, "c", "s"), lib.HCCL_E_PARA, "aligned"),
    ("huge count", "HcclAllReduce", ("d", "d", 1 << 40, 4, 0, "c", "s"), lib.HCCL_E_PARA, "largest count"),
    ("root", "HcclBroadcast", ("d", 4, 4, N, "c", "s"), lib.HCCL_E_PARA, "root"),
    ("send to self", "HcclSend", ("d", 4, 4, 0, "c", "s"), lib.HCCL_E_NOT_SUPPORT, "itself"),
    ("recv rank", "HcclRecv", ("d", 4, 4, N + 3, "c", "s"), lib.HCCL_E_PARA, "srcRank"),
    ("alltoall counts", "HcclAlltoAll", ("d", 1, 4, "d2", 2, 4, "c", "s"), lib.HCCL_E_PARA, "recvCount"),
    ("alltoall in place", "HcclAlltoAll", ("d", 1, 4, "d", 1, 4, "c", "s"), lib.HCCL_E_PARA, "in-place"),
    ("zero count", "HcclAllReduce", (None, None, 0, 4, 0, None, None), 0, ""),
    ("not a comm", "HcclBarrier", ("s", "s"), lib.HCCL_E_PARA, "not a live communicator"),
]


@pytest.mark.parametrize("name, fn, args, status, words", CHECKS, ids=[c[0] for c in CHECKS])
def test_argument_checks(ranks, name, fn, args, status, words):
    c = ranks.comms[0]
    buf, ptr = device_array(c, 256)
    buf2, ptr2 = device_array(c, 256)
    host = ffi.new("char[256]")
    stream = aclnn_py.Stream(c.device)
    values = {"d": ptr, "d2": ptr2, "d+1": ffi.cast("char *", ptr) + 1, "h": host, "s": stream.handle, "c": c.handle,
              None: ffi.NULL}
    try:
        got, msg = raw_call(c, fn, *[values[a] if isinstance(a, str) or a is None else a for a in args])
        assert got == status, msg
        assert words in msg
    finally:
        stream.close()
        buf.close()
        buf2.close()


def test_python_errors(ranks):
    c = ranks.comms[0]
    with pytest.raises(HcclError) as info:
        c.all_reduce(np.ones(3, np.uint16))
    assert info.value.status == lib.HCCL_E_NOT_SUPPORT and info.value.name == "HCCL_E_NOT_SUPPORT"
    assert type(info.value).__name__ == "HcclENotSupport"
    with pytest.raises(ValueError, match="reduce op"):
        c.all_reduce(np.ones(3, np.float32), "mean")
    with pytest.raises(ValueError, match="multiple of the communicator size"):
        c.reduce_scatter(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="HcclDataType"):
        c.all_gather(np.ones(2, np.complex64))
    assert hccl.error_string(9) == "timeout" and hccl.error_string(0) == "no error"


# ---- failures that name the ranks and their calls ------------------------------------------------------------

def failures(outcomes):
    assert all(isinstance(o, Exception) for o in outcomes), outcomes
    return [str(o) for o in outcomes]


MISMATCHES = [
    ("count", lambda c: c.all_reduce(np.ones(8 if c.rank else 4, np.float32)), "count=4", "count=8"),
    ("dtype", lambda c: c.all_reduce(np.ones(4, np.float32 if c.rank else np.int32)), "INT32", "FP32"),
    ("op", lambda c: c.all_reduce(np.ones(4, np.float32), "max" if c.rank == 2 else "sum"), "MAX", "SUM"),
    ("root", lambda c: c.broadcast(np.ones(4, np.float32), c.rank % 2), "root=0", "root=1"),
    ("operation", lambda c: c.barrier() if c.rank == 1 else c.all_gather(np.ones(2, np.int8)), "HcclBarrier(",
     "HcclAllGather(sendCount=2"),
    ("all-to-all counts", lambda c: c.all_to_all_v(np.ones(3, np.int8), [1, 1, 1], [1, 1, 2 if c.rank == 0 else 1]),
     "rank 2 sends 1 element(s) to rank 0, which expects 2", "HcclAlltoAllV(INT8"),
]


@pytest.mark.parametrize("name, body, a, b", MISMATCHES, ids=[m[0] for m in MISMATCHES])
def test_disagreeing_ranks_fail_on_every_rank(name, body, a, b):
    with Ranks(3) as rs:
        texts = failures(rs.outcomes(body))
        errs = [c.async_error() for c in rs.comms]
    for r, text in enumerate(texts):
        assert "507015" in text and "do not match" in text and f"rank {r} of 3" in text
        assert a in text and b in text and "rank 0:" in text and "rank 2:" in text
    assert errs == [lib.HCCL_E_PARA] * 3


def test_unmatched_send_and_recv():
    def body(c):
        if c.rank == 0:
            c.send(np.ones(4, np.float32), 1)
        elif c.rank == 1:
            c.recv(0, 5, np.float32)
        return "idle"

    with Ranks(3) as rs:
        send, recv, idle = rs.outcomes(body)
    assert "HcclSend #1" in str(send) and "rank 1's matching HcclRecv does not match" in str(send)
    assert "HcclRecv #1" in str(recv) and "count=4, FP32" in str(recv) and "expects count=5, FP32" in str(recv)
    assert idle == "idle"


def test_rank_that_never_calls_times_out_with_a_report(monkeypatch):
    monkeypatch.setenv("HCCL_EXEC_TIMEOUT", "0.3")  # read when the communicator is created
    with Ranks(3) as rs:
        start = time.monotonic()
        outcomes = rs.outcomes(lambda c: c.all_reduce(np.ones(4, np.float32)) if c.rank != 1 else time.sleep(0.8))
        elapsed = time.monotonic() - start
        later = rs.outcomes(lambda c: c.barrier())
    texts = failures([outcomes[0], outcomes[2]])
    assert any("timed out after 0.30 s (HCCL_EXEC_TIMEOUT) waiting for 1 rank(s) to call it: rank 1 is idle" in t
               for t in texts)
    assert elapsed < 5
    assert all("broken" in str(o) or "failed" in str(o) for o in failures(later))  # no second wait


def test_destroyed_peer_fails_the_others_at_once():
    with Ranks(3) as rs:
        rs.comms[2].close()
        start = time.monotonic()
        outcomes = rs.outcomes(lambda c: c.all_reduce(np.ones(4, np.float32)) if c.rank != 2 else "gone")
        elapsed = time.monotonic() - start
    assert outcomes[2] == "gone"
    for text in failures(outcomes[:2]):
        assert "rank 2 destroyed its communicator before calling it" in text
    assert elapsed < 2


def test_destroyed_communicator_in_use(ranks):
    rs = Ranks(2)
    handle, c = rs.comms[0].handle, rs.comms[0]
    rs.close()
    status, msg = raw_call(c, "HcclGetRankSize", handle, ffi.new("uint32_t *"))
    assert status == lib.HCCL_E_PARA and "not a live communicator" in msg
    assert raw_call(c, "HcclCommDestroy", handle)[0] == lib.HCCL_E_PARA
    with pytest.raises(ValueError, match="closed"):
        c.all_reduce(np.ones(2, np.float32))


# ---- communicators ------------------------------------------------------------------------------------------

def test_root_info_ranks_in_any_order_and_connect_timeout(monkeypatch):
    root = hccl.get_root_info()
    assert len(root) == 4108
    results = {}

    def rank(r, delay):
        time.sleep(delay)
        with hccl.Communicator(3, root, r, device=r) as c:
            results[r] = (c.size, c.rank, c.name, c.all_gather(np.array([r], np.int16)).tolist())

    threads = [threading.Thread(target=rank, args=(r, 0.05 * (2 - r))) for r in range(3)]  # rank 2 first
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert [results[r][:2] for r in range(3)] == [(3, 0), (3, 1), (3, 2)]
    assert len({results[r][2] for r in range(3)}) == 1 and all(results[r][3] == [[0], [1], [2]] for r in range(3))

    monkeypatch.setenv("ACLNN_STUB_HCCL_CONNECT_TIMEOUT_MS", "200")
    with pytest.raises(HcclError) as info:
        hccl.Communicator(2, hccl.get_root_info(), 0, device=0)
    assert info.value.status == lib.HCCL_E_TIMEOUT and "waiting for rank(s) 1 of 2 to join" in str(info.value)


@pytest.mark.parametrize("variable, value, words", [
    ("HCCL_CONNECT_TIMEOUT", "60", "[120, 7200]"),
    ("HCCL_EXEC_TIMEOUT", "1.234", "at most 2 decimals"),
    ("HCCL_EXEC_TIMEOUT", "soon", "non-negative number"),
])
def test_timeout_variables_are_read_as_cann_reads_them(monkeypatch, variable, value, words):
    monkeypatch.setenv(variable, value)
    with pytest.raises(HcclError) as info:
        hccl.Communicator(1, hccl.get_root_info(), 0, device=0)
    assert info.value.status == lib.HCCL_E_PARA and variable in str(info.value) and words in str(info.value)


def test_root_info_and_config_checks():
    with pytest.raises(HcclError) as info:
        hccl.Communicator(2, bytes(4108), 0, device=0)
    assert info.value.status == lib.HCCL_E_PARA and "rootInfo" in str(info.value)
    with pytest.raises(HcclError) as info:
        hccl.Communicator(2, hccl.get_root_info(), 2, device=0)
    assert info.value.status == lib.HCCL_E_PARA and "'rank' (2)" in str(info.value)
    with hccl.Communicator(1, hccl.get_root_info(), 0, device=0, name="named_group") as c:
        assert c.name == "named_group" and c.all_reduce(np.array([2.5], np.float32)).tolist() == [2.5]
    assert lib.HcclGetCommConfigCapability() == lib.HCCL_COMM_CONFIG_RESERVED


def test_sub_communicators(ranks):
    def body(c):
        evens = [0, 2] if c.rank % 2 == 0 else [1, 3]
        with c.split(evens, 7, name=f"half{c.rank % 2}") as sub:
            return sub.rank, sub.size, sub.name, sub.all_reduce(np.array([c.rank], np.int32)).tolist()

    out = ranks.run(body)
    assert out == [(0, 2, "half0", [2]), (0, 2, "half1", [4]), (1, 2, "half0", [2]), (1, 2, "half1", [4])]


def test_rank_table(tmp_path):
    table = {"status": "completed", "version": "1.0", "server_count": "1", "server_list": [
        {"server_id": "node_0", "device": [{"device_id": str(d), "device_ip": "192.168.1.8", "rank_id": str(d)}
                                           for d in range(2)]}]}
    path = tmp_path / "rank_table.json"
    path.write_text(json.dumps(table))
    out = {}

    def rank(r):
        with hccl.Communicator.from_rank_table(path, r, device=r) as c:
            out[r] = (c.size, c.all_reduce(np.array([r + 1.0], np.float64)).tolist())

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert out == {0: (2, [3.0]), 1: (2, [3.0])}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**table, "status": "initializing"}))
    with pytest.raises(HcclError, match="completed"):
        hccl.Communicator.from_rank_table(bad, 0, device=0)
    with pytest.raises(HcclError) as info:
        hccl.Communicator.from_rank_table(tmp_path / "absent.json", 0, device=0)
    assert info.value.status == lib.HCCL_E_OPEN_FILE_FAILURE


def test_init_all_checks():
    for devices, status in (([0, 0], lib.HCCL_E_PARA), ([0, 99], lib.HCCL_E_PARA), ([], lib.HCCL_E_PARA)):
        with pytest.raises(HcclError) as info:
            hccl.Communicator.init_all(devices)
        assert info.value.status == status


# ---- check mode -------------------------------------------------------------------------------------------

def test_collcheck_reports_each_rank_with_its_call_site():
    with Ranks(2) as rs:
        with check.session(tools="collcheck", leaks=False) as s:
            rs.outcomes(lambda c: c.all_reduce(np.ones(2 + c.rank, np.float32)))  # the bug: counts differ
    found = [f for f in s.findings if f.tool == "collcheck"]
    assert [f.what for f in found] == ["mismatched-collective"] and found[0].count == 2
    assert "count=2" in found[0].message and "count=3" in found[0].message
    assert found[0].site[0].file.endswith("test_hccl.py")  # the line that made the call
    assert "test_hccl.py" in found[0].message  # every rank's call site, in the message
