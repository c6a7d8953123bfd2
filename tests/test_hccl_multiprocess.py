"""HCCL across processes: four processes (multiprocessing), one rank each, run AllReduce, AllGather, AlltoAllV and
Send/Recv on 1 KiB to 1 MiB buffers through staging areas smaller than the data (so transfers take many rounds),
and every other collective once, with exact results; then a mismatched collective, a rank that never calls and a rank whose process dies all end
with a report on every other rank, not a hang. (64 MiB buffers: benchmarks/hccl.py.)"""

import os

import pytest

import aclnn_py

from helpers_proc import run_json, run_python

pytestmark = pytest.mark.skipif(not aclnn_py.backend().is_stub, reason="ranks as processes of the stub")

WORKERS = r'''
import multiprocessing as mp
import os
import time
import numpy as np


def worker(r, n, roots, q):
    from aclnn_py import hccl
    out = {}
    try:
        with hccl.Communicator(n, roots[0], r, device=0) as c:
            for nbytes in (1024, 65536, (1 << 20) + 4):
                count = nbytes // 4
                x = (np.arange(count, dtype=np.float32) % 13) * (r + 1)
                y = c.all_reduce(x)
                ok = np.array_equal(y, (np.arange(count, dtype=np.float32) % 13) * (n * (n + 1) // 2))
                g = c.all_gather(x)
                ok &= all(np.array_equal(g[j], (np.arange(count, dtype=np.float32) % 13) * (j + 1)) for j in range(n))
                send = [(count // n) * ((r + j) % 3) // 2 for j in range(n)]      # rows r sends to j
                recv = [(count // n) * ((j + r) % 3) // 2 for j in range(n)]      # rows j sends to r
                v = c.all_to_all_v(np.full(sum(send), r, np.int32), send, recv)
                ok &= v.tolist() == sum(([j] * recv[j] for j in range(n)), [])
                if r % 2 == 0:
                    c.send(x, r + 1)
                else:
                    got = c.recv(r - 1, count, np.float32)
                    ok &= np.array_equal(got, (np.arange(count, dtype=np.float32) % 13) * r)
                out[nbytes] = bool(ok)
            # every other collective once, with more bytes than a staging round holds
            count = 20000
            x = (np.arange(count * n, dtype=np.float32) % 11) + r
            every = {
                "broadcast": c.broadcast(x.copy() if r == 0 else np.zeros_like(x), 0),
                "reduce": c.reduce(x, 1, "max"),
                "reduce_scatter": c.reduce_scatter(x.reshape(n, -1)),
                "reduce_scatter_v": c.reduce_scatter_v(x[:10 * n], [7, 1, 2, 0][:n] + [0] * (n - 4)),
                "scatter": c.scatter(x.reshape(n, -1) if r == 0 else None, 0, shape=(1, count), dtype=np.float32),
                "all_gather_v": c.all_gather_v(x[:r + 1], list(range(1, n + 1))),
                "all_to_all": c.all_to_all(x.reshape(n, -1)),
                "all_to_all_vc": c.all_to_all_vc(np.full(n, r, np.int16), np.ones((n, n), int)),
            }
            base = np.arange(count * n, dtype=np.float32) % 11
            want = {
                "broadcast": base,
                "reduce": base + (n - 1) if r == 1 else None,
                "reduce_scatter": (base * n + n * (n - 1) / 2).reshape(n, -1)[r:r + 1],
                "reduce_scatter_v": (base[:10 * n] * n + n * (n - 1) / 2)[sum([7, 1, 2, 0][:r]):][:[7, 1, 2, 0][r]],
                "scatter": base.reshape(n, -1)[r:r + 1],
                "all_gather_v": np.concatenate([base[:j + 1] + j for j in range(n)]),
                "all_to_all": np.stack([base.reshape(n, -1)[r] + j for j in range(n)]),
                "all_to_all_vc": np.arange(n, dtype=np.int16),
            }
            for name, got in every.items():
                out[name] = (got is None and want[name] is None) or bool(np.array_equal(got, want[name]))
        # a collective whose ranks disagree: every rank gets the report
        with hccl.Communicator(n, roots[1], r, device=0) as c:
            try:
                c.all_reduce(np.ones(8 if r == 3 else 16, np.float32))
                out["mismatch"] = "no error"
            except Exception as exc:
                out["mismatch"] = str(exc)
        # rank 2 never calls (it sleeps past HCCL_EXEC_TIMEOUT), then finds the communicator broken
        with hccl.Communicator(n, roots[2], r, device=0) as c:
            try:
                if r == 2:
                    time.sleep(1.0)
                    c.barrier()
                else:
                    c.all_gather(np.ones(4, np.int8))
                out["missing"] = "no error"
            except Exception as exc:
                out["missing"] = str(exc)
        # rank 1's process dies in the middle
        c = hccl.Communicator(n, roots[3], r, device=0)
        if r == 1:
            q.put((r, out))
            q.close()
            q.join_thread()  # the result reaches the parent before the process vanishes
            os._exit(0)
        start = time.monotonic()
        try:
            c.barrier()
            out["died"] = "no error"
        except Exception as exc:
            out["died"] = str(exc)
        out["died_after"] = time.monotonic() - start
        c.close()
    except Exception as exc:  # noqa: BLE001
        out["crash"] = repr(exc)
    q.put((r, out))


if __name__ == "__main__":
    os.environ["HCCL_EXEC_TIMEOUT"] = "0.5"
    os.environ["ACLNN_STUB_HCCL_STAGING_BYTES"] = "65536"
    from aclnn_py import hccl
    ctx = mp.get_context("fork")
    n = 4
    roots = [hccl.get_root_info() for _ in range(4)]
    q = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(r, n, roots, q)) for r in range(n)]
    for p in procs:
        p.start()
    results = dict(q.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(30)
    emit({str(r): {str(k): v for k, v in results[r].items()} for r in range(n)} | {"codes": [p.exitcode for p in procs],
                                                                            "pid": os.getpid()})
'''


def test_four_processes():
    code = WORKERS.replace('if __name__ == "__main__":', "if True:")
    r = run_json(code, timeout=180)
    assert r["codes"] == [0, 0, 0, 0]
    for rank in map(str, range(4)):
        assert "crash" not in r[rank], r[rank]["crash"]
        for nbytes in ("1024", "65536", str((1 << 20) + 4)):
            assert r[rank][nbytes] is True, (rank, nbytes)
        for name in ("broadcast", "reduce", "reduce_scatter", "reduce_scatter_v", "scatter", "all_gather_v",
                     "all_to_all", "all_to_all_vc"):
            assert r[rank][name] is True, (rank, name)
        text = r[rank]["mismatch"]
        assert "do not match" in text and "rank 3: HcclAllReduce(count=8" in text and "count=16" in text
    for rank in ("0", "1", "3"):
        assert "rank 2 is idle" in r[rank]["missing"] or "another rank failed" in r[rank]["missing"]
    assert "broken" in r["2"]["missing"]
    assert any("timed out after 0.50 s (HCCL_EXEC_TIMEOUT)" in r[k]["missing"] for k in ("0", "1", "3"))
    for rank in ("0", "2", "3"):
        assert "rank 1 exited before calling it" in r[rank]["died"] or "rank 1" in r[rank]["died"]
        assert r[rank]["died_after"] < 5
    # shared memory is named after the process that wrote the root infos: nothing of it is left
    assert not [f for f in os.listdir("/dev/shm") if f.startswith("aclstub-hccl-") and f"-{r['pid']}-" in f]


def test_library_loads_alone_as_hccl_so_path(tmp_path):
    """What vllm-ascend does with HCCL_SO_PATH: ctypes.CDLL(path) on libhccl alone, then its functions; the
    runtime comes in as libhccl's dependency."""
    lib = os.path.join(aclnn_py.get_lib_dir(), "libhccl.so")
    if os.environ.get("ACLNN_PY_LIB_DIR"):
        lib = os.path.join(os.environ["ACLNN_PY_LIB_DIR"], "libhccl.so")
    code = r'''
import ctypes, os
hccl = ctypes.CDLL(os.environ["HCCL_SO_PATH"])
acl = ctypes.CDLL(os.path.join(os.path.dirname(os.environ["HCCL_SO_PATH"]), "libascendcl.so"))
class RootInfo(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_byte * 4108)]
hccl.HcclGetErrorString.restype = ctypes.c_char_p
root = RootInfo()
assert hccl.HcclGetRootInfo(ctypes.byref(root)) == 0
assert acl.aclInit(None) == 0 and acl.aclrtSetDevice(0) == 0
comm = ctypes.c_void_p()
status = hccl.HcclCommInitRootInfo(1, ctypes.byref(root), 0, ctypes.byref(comm))
buf = ctypes.c_void_p()
acl.aclrtMalloc(ctypes.byref(buf), ctypes.c_size_t(16), 0)
stream = ctypes.c_void_p()
acl.aclrtCreateStream(ctypes.byref(stream))
ar = hccl.HcclAllReduce(buf, buf, ctypes.c_size_t(4), 4, 0, comm, stream)
sync = acl.aclrtSynchronizeStream(stream)
emit({"init": status, "allreduce": ar, "sync": sync, "destroy": hccl.HcclCommDestroy(comm),
      "text": hccl.HcclGetErrorString(9).decode(), "para": hccl.HcclGetErrorString(1).decode()})
'''
    r = run_json(code, env={"HCCL_SO_PATH": lib})
    assert r == {"init": 0, "allreduce": 0, "sync": 0, "destroy": 0, "text": "timeout", "para": "parameter error"}
