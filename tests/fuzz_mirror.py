"""Stateful random misuse of the Python client: a seeded sequence of valid and invalid calls through the mirror
(``acl``/``aclnn``) and the objects (``DeviceBuffer``, ``Stream``, ``Tensor``, the numpy operators).

It creates, destroys and reuses resources after destroying them, copies spans at and across block edges (every
memcpy kind, including DEFAULT and device-to-device), runs both phases with stale and foreign handles (an
executor of another operator, a destroyed tensor, a closed stream), passes wrong argument types, and with
``--threads N`` runs N such sequences at once. Every call must succeed or raise one of the exceptions the
client promises (``AclStatusError`` subclasses, ``ValueError``, ``TypeError``; a wrong-type call exactly
``TypeError``); at the end everything still alive is released and the stub's live counters must be back where
they started. A crash ends the process, so run it in a subprocess (the test suite does).

    python tests/fuzz_mirror.py --seed 1 --calls 200000            # a long run
    python tests/fuzz_mirror.py --seed 7 --calls 5000 --threads 4  # concurrent sequences
    python tests/fuzz_mirror.py --seed 3 --calls 900 --trace       # print each call before making it

Exit status 0 and a final ``OK`` line on success; 1 with the seed, the call number and the last calls otherwise.
"""

from __future__ import annotations

import argparse
import collections
import gc
import random
import sys
import threading
import traceback

from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's aclnn_py, as the tests use

import aclnn_py  # noqa: E402
from aclnn_py import DeviceBuffer, Stream, Tensor, acl, aclnn, errors  # noqa: E402
from aclnn_py._native import ffi  # noqa: E402

COUNTERS = ("aclStubLiveAllocations", "aclStubLiveAllocationBytes", "aclStubLiveHostAllocations",
            "aclStubLiveStreams", "aclStubLiveTensors", "aclStubLiveScalars", "aclStubLiveIntArrays",
            "aclStubLiveExecutors")
EXPECTED = (errors.AclStatusError, ValueError, TypeError)
KINDS = (acl.ACL_MEMCPY_HOST_TO_HOST, acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST,
         acl.ACL_MEMCPY_DEVICE_TO_DEVICE, acl.ACL_MEMCPY_DEFAULT, 9)
DTYPES = (acl.ACL_FLOAT, acl.ACL_FLOAT16, acl.ACL_BF16, acl.ACL_INT32, acl.ACL_INT64, acl.ACL_DOUBLE, 999)
WRONG = ("x", 1.5, object(), [1, "a"], b"\x00", None)


class FuzzFailure(Exception):
    pass


def live_counts() -> dict:
    """The stub's live counters; what the client's memory pool caches is freed first (it is not a leak), what
    it handed out and never got back is counted."""
    gc.collect()
    pool = aclnn_py.get_memory_pool()
    pool.free_all_blocks()
    return {"pool used bytes": pool.used_bytes(), **{name: getattr(acl, name)() for name in COUNTERS}}


class Sequence:
    """One random call sequence and the resources it holds (a resource stays listed after it is released so
    later calls can misuse it; ``alive`` says which are still ours to release)."""

    def __init__(self, seed: int, trace: bool = False):
        self.rng = random.Random(seed)
        self.seed = seed
        self.trace = trace
        self.recent = collections.deque(maxlen=12)
        self.blocks = []      # [ptr, size, alive]
        self.streams = []     # [handle, alive]
        self.tensors = []     # [handle, alive, block index]
        self.arrays = []      # [handle, alive]
        self.executors = []   # [handle, maybe alive, op]
        self.objects = []     # DeviceBuffer / Stream / Tensor objects
        self.calls = 0

    def note(self, text: str):
        """Details of the current call, kept with the recent calls (and printed with --trace)."""
        self.recent.append(f"  {text}")
        if self.trace:
            print(f"  {text}", flush=True)

    def describe(self, ptr) -> str:
        if isinstance(ptr, aclnn_py.acl.HostSpan):
            return f"host[{ptr.nbytes}{'' if ptr.writable else ' ro'}]"
        for i, b in enumerate(self.blocks):
            if ffi.cast("char *", ptr) == ffi.cast("char *", b[0]):
                return f"block{i}[{b[1]}{'' if b[2] else ' freed'}]"
        return f"ptr {int(ffi.cast('uintptr_t', ptr)):#x}"

    # ---- choices --------------------------------------------------------------------------------------

    def pick(self, items):
        return self.rng.choice(items) if items else None

    def size(self) -> int:
        return self.rng.choice((0, 1, 3, 8, 16, 63, 64, 100, 256, 4096, -1, 1 << 62, 1 << 64))

    def host(self, n: int):
        n = max(0, min(n, 1 << 16))
        kind = self.rng.randrange(4)
        if kind == 0:
            return bytes(n)  # read-only
        if kind == 1:
            return bytearray(n)
        if kind == 2:
            return np.zeros(n, np.uint8)
        return memoryview(bytearray(n))

    def device_ptr(self):
        """A live, freed, interior, foreign or NULL device pointer."""
        r = self.rng.randrange(10)
        b = self.pick(self.blocks)
        if b is None or r == 0:
            return ffi.NULL
        if r == 1 and b[1] > 1:
            return ffi.cast("char *", b[0]) + self.rng.randrange(1, b[1])
        if r == 2:
            return ffi.cast("void *", self.rng.choice((8, 4096, 1 << 40)))
        return b[0]

    def stream_handle(self):
        r = self.rng.randrange(6)
        s = self.pick(self.streams)
        if s is None or r == 0:
            return ffi.NULL
        if r == 1:
            return ffi.cast("aclrtStream", 0x1234)
        return s[0]

    def tensor_handle(self):
        r = self.rng.randrange(8)
        t = self.pick(self.tensors)
        if t is None or r == 0:
            return ffi.NULL
        if r == 1 and self.arrays:  # a handle of another kind
            return ffi.cast("aclTensor *", self.pick(self.arrays)[0])
        return t[0]

    # ---- actions --------------------------------------------------------------------------------------

    def a_malloc(self):
        n = self.size()
        ptr = acl.aclrtMalloc(n, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        self.blocks.append([ptr, n, True])

    def a_free(self):
        b = self.pick(self.blocks)
        if b is None:
            return
        if self.rng.random() < 0.8 and b[2]:
            b[2] = False
            acl.aclrtFree(b[0])
        else:
            ptr = self.device_ptr()  # double free, interior, foreign, NULL, or a live block by another route
            acl.aclrtFree(ptr)
            for other in self.blocks:  # it was a live block after all: no longer ours
                if other[2] and ffi.cast("char *", other[0]) == ffi.cast("char *", ptr):
                    other[2] = False

    def live_ptr(self):
        """A pointer into device memory that is ours: a live block's start or interior, or NULL."""
        live = [b for b in self.blocks if b[2]]
        b = self.pick(live)
        if b is None or self.rng.random() < 0.1:
            return ffi.NULL
        if self.rng.random() < 0.3 and b[1] > 1:
            return ffi.cast("char *", b[0]) + self.rng.randrange(1, b[1])
        return b[0]

    def a_memcpy(self):
        # The host side of a copy is always a real host span: a freed or forged address given as host memory
        # cannot be told from host memory by any library (with DEFAULT, an unknown address *is* host memory).
        # Device sides get anything: live, interior, freed, forged, NULL or a host span of the wrong kind.
        kind = self.rng.choice(KINDS)
        b = self.pick(self.blocks)
        edge = b[1] if b else 64
        count = max(0, edge + self.rng.choice((-1, 0, 0, 1, 64, -edge, 1 << 16)))

        def side(host: bool):
            if host or (kind == acl.ACL_MEMCPY_DEFAULT and self.rng.random() < 0.5):
                return acl.host_ptr(self.host(count + self.rng.choice((0, 0, -1, 8))))
            if kind == acl.ACL_MEMCPY_DEFAULT:
                return self.live_ptr()
            return acl.host_ptr(self.host(count)) if self.rng.random() < 0.1 else self.device_ptr()

        dst = side(kind in (acl.ACL_MEMCPY_HOST_TO_HOST, acl.ACL_MEMCPY_DEVICE_TO_HOST))
        src = side(kind in (acl.ACL_MEMCPY_HOST_TO_HOST, acl.ACL_MEMCPY_HOST_TO_DEVICE))
        dest_max = max(count + self.rng.choice((0, 0, 1, -1)), 0)
        self.note(f"memcpy kind {kind} dst {self.describe(dst)} destMax {dest_max} src {self.describe(src)} "
                  f"count {count}")
        if self.rng.random() < 0.3 and self.streams:
            acl.aclrtMemcpyAsync(dst, dest_max, src, count, kind, self.stream_handle())
        else:
            acl.aclrtMemcpy(dst, dest_max, src, count, kind)

    def a_memset(self):
        b = self.pick(self.blocks)
        n = (b[1] if b else 16) + self.rng.choice((0, 1, -1))
        target = self.device_ptr() if self.rng.random() < 0.8 else acl.host_ptr(self.host(max(n, 0)))
        self.note(f"memset {self.describe(target)} maxCount {max(n, 0)}")
        acl.aclrtMemset(target, max(n, 0), self.rng.randrange(256), max(n + self.rng.choice((0, 1)), 0))

    def a_stream(self):
        if self.rng.random() < 0.5 or not self.streams:
            self.streams.append([acl.aclrtCreateStream(), True])
            return
        s = self.pick(self.streams)
        if self.rng.random() < 0.5 and s[1]:
            s[1] = False
            acl.aclrtDestroyStream(s[0])
        elif self.rng.random() < 0.5:
            acl.aclrtSynchronizeStream(self.stream_handle())
        else:
            acl.aclrtDestroyStream(self.stream_handle())

    def a_int_array(self):
        if self.rng.random() < 0.6 or not self.arrays:
            values = [self.rng.randrange(-5, 9) for _ in range(self.rng.randrange(4))]
            count = len(values) + self.rng.choice((0, 0, 0, 1, -1, 1 << 24))
            self.arrays.append([acl.aclCreateIntArray(values or ffi.NULL, count), True])
            return
        a = self.pick(self.arrays)
        if a[1]:
            a[1] = False
            acl.aclDestroyIntArray(a[0])
        else:
            acl.aclDestroyIntArray(a[0])  # destroyed before: an error, never a double free

    def a_tensor(self):
        if self.rng.random() < 0.7 or not self.tensors:
            ndim = self.rng.randrange(4)
            dims = [self.rng.choice((0, 1, 2, 3, 4, 8)) for _ in range(ndim)]
            strides = [self.rng.choice((1, 2, 4, 0, -1)) for _ in range(ndim)]
            i = self.rng.randrange(len(self.blocks)) if self.blocks else -1
            data = self.blocks[i][0] if i >= 0 and self.rng.random() < 0.9 else self.device_ptr()
            n = ndim + self.rng.choice((0, 0, 0, 1, 1 << 20))
            t = acl.aclCreateTensor(dims, n, self.rng.choice(DTYPES), strides, self.rng.choice((0, 1, -1, 1 << 61)),
                                    acl.ACL_FORMAT_ND, dims, ndim, data)
            self.tensors.append([t, True, i])
            return
        t = self.pick(self.tensors)
        if t[1]:
            t[1] = False
        acl.aclDestroyTensor(t[0])  # the second time: stale

    def a_phase1(self):
        if self.rng.random() < 0.5:
            ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(
                self.tensor_handle(), self.tensor_handle(), self.rng.choice((1, 2, 0, -1, 600)),
                self.rng.random() < 0.1, self.tensor_handle())
            op = "grad"
        else:
            ws, ex = aclnn.aclnnMoeTokenPermuteGetWorkspaceSize(
                self.tensor_handle(), self.tensor_handle(), self.rng.choice((0, 2, -3, 1 << 40)),
                self.rng.random() < 0.1, self.tensor_handle(), self.tensor_handle())
            op = "forward"
        self.executors.append([ex, True, op])

    def a_phase2(self):
        e = self.pick(self.executors)
        ex = e[0] if e else ffi.NULL
        run = aclnn.aclnnMoeTokenPermuteGrad if self.rng.random() < 0.5 else aclnn.aclnnMoeTokenPermute
        b = self.pick(self.blocks)
        ws = b[0] if b and self.rng.random() < 0.3 else None
        try:
            run(ws, self.rng.choice((0, 0, 16)), ex, self.stream_handle())
        finally:
            if e:
                e[1] = "maybe"  # consumed if phase 2 got as far as claiming it

    def a_two_phases(self):
        """A well-formed aclnnMoeTokenPermuteGrad whose operands may be destroyed or freed between the phases
        (and a bigger tensor created in between, which an allocator likes to place at the same address)."""
        L, H, K = self.rng.choice(((4, 3, 2), (6, 2, 3), (2, 8, 1)))
        grad = acl.aclrtMalloc(L * H * 4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        idx = acl.aclrtMalloc(L * 4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        out = acl.aclrtMalloc(L // K * H * 4, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        blocks = [[grad, L * H * 4, True], [idx, L * 4, True], [out, L // K * H * 4, True]]
        self.blocks.extend(blocks)
        acl.aclrtMemcpy(idx, L * 4, acl.host_ptr(np.arange(L, dtype=np.int32)[::-1].copy()), L * 4,
                        acl.ACL_MEMCPY_HOST_TO_DEVICE)
        shapes = (([L, H], [H, 1], grad, acl.ACL_FLOAT), ([L], [1], idx, acl.ACL_INT32),
                  ([L // K, H], [H, 1], out, acl.ACL_FLOAT))
        tensors = []
        for dims, strides, data, dtype in shapes:
            t = acl.aclCreateTensor(dims, len(dims), dtype, strides, 0, acl.ACL_FORMAT_ND, dims, len(dims), data)
            tensors.append([t, True, -1])
        self.tensors.extend(tensors)
        ws, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(tensors[0][0], tensors[1][0], K, False,
                                                                tensors[2][0])
        self.executors.append([ex, True, "grad"])
        victim = self.rng.randrange(4)
        if victim < 3 and self.rng.random() < 0.5:
            tensors[victim][1] = False
            acl.aclDestroyTensor(tensors[victim][0])
            self.note(f"two phases: tensor {victim} destroyed between the phases")
        elif victim < 3:
            blocks[victim][2] = False
            acl.aclrtFree(blocks[victim][0])
            self.note(f"two phases: block {victim} freed between the phases")
        if victim < 3:  # the allocator's favourite: the same addresses again, bigger
            big = acl.aclrtMalloc(4096, acl.ACL_MEM_MALLOC_HUGE_FIRST)
            self.blocks.append([big, 4096, True])
            dims = [64, 16]
            t = acl.aclCreateTensor(dims, 2, acl.ACL_FLOAT, [16, 1], 0, acl.ACL_FORMAT_ND, dims, 2, big)
            self.tensors.append([t, True, -1])
            if t == tensors[victim][0]:
                self.note("two phases: the new tensor has the destroyed tensor's address")
        try:
            aclnn.aclnnMoeTokenPermuteGrad(None, ws, ex, self.stream_handle() if self.rng.random() < 0.3 else None)
        finally:
            self.executors[-1][1] = "maybe"
        if victim < 3 and not tensors[victim][1]:
            raise FuzzFailure(f"phase 2 ran although tensor {victim} was destroyed after phase 1")
        if victim == 3:  # nothing released: the call must have worked
            back = np.empty(L // K * H, np.float32)
            acl.aclrtMemcpy(acl.host_ptr(back), back.nbytes, out, back.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)

    def a_destroy_executor(self):
        e = self.pick(self.executors)
        if e is None:
            return
        e[1] = False
        acl.aclDestroyAclOpExecutor(e[0])

    def a_objects(self):
        r = self.rng.randrange(10)
        if r == 9:
            aclnn_py.Device(self.rng.choice((0, 0, 1, 5, -1, 1 << 40))).close()
        elif r == 0 or not self.objects:
            self.objects.append(DeviceBuffer(self.size() if self.rng.random() < 0.3 else self.rng.randrange(64)))
        elif r == 1:
            self.objects.append(Stream())
        elif r == 2:
            buf = self.pick([o for o in self.objects if isinstance(o, DeviceBuffer)])
            if buf is not None:
                self.objects.append(Tensor((self.rng.randrange(4), 2), np.float32, buffer=buf,
                                           offset=self.rng.choice((0, 1, -1, 7)),
                                           strides=self.rng.choice((None, (2, 1), (1, 3), (-2, 1)))))
        elif r == 3:
            o = self.pick(self.objects)
            o.close()
        elif r == 4:
            o = self.pick(self.objects)
            if isinstance(o, DeviceBuffer):
                n = self.rng.choice((None, 0, o.nbytes, o.nbytes + 1, -1))
                o.upload(self.host(self.rng.randrange(80)), n, self.rng.choice((0, 1, o.nbytes, -1)))
            elif isinstance(o, Tensor):
                o.numpy()
            else:
                o.synchronize()
        elif r == 5:
            o = self.pick(self.objects)
            if isinstance(o, DeviceBuffer):
                o.download(self.host(self.rng.randrange(80)), self.rng.choice((None, 4, -1)),
                           self.rng.choice((0, 8, -1)))
            elif isinstance(o, Stream):
                o.workspace(self.rng.choice((0, 64, -1, 1 << 20)))
        elif r == 6:
            s = self.pick([o for o in self.objects if isinstance(o, Stream)])
            L = self.rng.choice((0, 2, 4))
            aclnn_py.moe_token_permute_grad(np.ones((L, self.rng.choice((0, 3))), np.float32),
                                            np.arange(L, dtype=np.int32), self.rng.choice((1, 2, 3, -1, 0)),
                                            stream=s if self.rng.random() < 0.7 else None)
        elif r == 7:
            t = self.pick([o for o in self.objects if isinstance(o, Tensor)])
            if t is not None:
                Tensor.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::-1]).close()
        else:
            Tensor.from_numpy(self.host(self.rng.randrange(16)) if self.rng.random() < 0.2
                              else np.zeros((self.rng.randrange(3), 2), np.float16)).close()

    def a_wrong_type(self):
        bad = self.rng.choice(WRONG)
        call = self.rng.choice((
            lambda: acl.aclrtMalloc(bad, 0),
            lambda: acl.aclrtFree(bad if bad is not None else "x"),
            lambda: acl.aclCreateIntArray(bad if bad is not None else 1.5, 1),
            lambda: acl.aclrtMemcpy(ffi.NULL, 4, bad if bad is not None else 3, 4, 1),
            lambda: acl.aclrtSynchronizeStream(bad if bad is not None else 5),
            lambda: DeviceBuffer(bad if bad is not None else "1"),
            lambda: Stream(bad if bad is not None else 0),
            lambda: Tensor((2,), "float32", offset=bad if bad is not None else 0.5),
            lambda: aclnn_py.moe_token_permute_grad(np.ones((2, 2), np.float32), np.arange(2, dtype=np.int32),
                                                    bad if bad is not None else 2.5),
            lambda: aclnn_py.moe_token_permute_grad(np.ones((2, 2), np.float32), np.arange(2, dtype=np.int32), 2,
                                                    stream=bad if bad is not None else 7),
        ))
        try:
            call()
        except TypeError:
            return
        except Exception as exc:  # noqa: BLE001
            raise FuzzFailure(f"a wrong-type call raised {type(exc).__name__}, not TypeError: {exc}") from exc
        raise FuzzFailure("a wrong-type call succeeded")

    ACTIONS = (("a_malloc", 8), ("a_free", 5), ("a_memcpy", 10), ("a_memset", 4), ("a_stream", 4),
               ("a_int_array", 4), ("a_tensor", 10), ("a_phase1", 8), ("a_phase2", 6),
               ("a_destroy_executor", 2), ("a_two_phases", 5), ("a_objects", 10), ("a_wrong_type", 3))

    def step(self):
        names, weights = zip(*self.ACTIONS)
        name = self.rng.choices(names, weights)[0]
        self.calls += 1
        self.recent.append(f"#{self.calls} {name}")
        if self.trace:
            print(f"seed {self.seed} call {self.calls}: {name}", flush=True)
        try:
            getattr(self, name)()
        except FuzzFailure:
            raise
        except EXPECTED:
            pass
        except Exception as exc:  # noqa: BLE001
            raise FuzzFailure(f"{name} raised {type(exc).__name__}: {exc}") from exc

    def release(self):
        """Release whatever may still be ours. A misused call may already have released a resource (a free
        through a stale pointer whose address was reused, a phase 2 that consumed its executor), so errors
        here are expected; the live counters decide whether anything leaked."""
        steps = [o.close for o in self.objects]
        steps += [lambda h=e[0]: acl.aclDestroyAclOpExecutor(h) for e in self.executors if e[1]]
        steps += [lambda h=t[0]: acl.aclDestroyTensor(h) for t in self.tensors if t[1]]
        steps += [lambda h=a[0]: acl.aclDestroyIntArray(h) for a in self.arrays if a[1]]
        steps += [lambda h=s[0]: acl.aclrtDestroyStream(h) for s in self.streams if s[1]]
        steps += [lambda h=b[0]: acl.aclrtFree(h) for b in self.blocks if b[2]]
        for step in steps:
            try:
                step()
            except errors.AclStatusError:
                pass


def run(seed: int, calls: int, threads: int = 1, trace: bool = False) -> int:
    aclnn_py.default_device()
    Stream().close()  # first use of the pools and the default stream, before the baseline
    before = live_counts()
    sequences = [Sequence(seed * 1000 + i, trace) for i in range(threads)]
    failures = []

    def worker(seq: Sequence, n: int):
        try:
            for _ in range(n):
                seq.step()
        except FuzzFailure as exc:
            failures.append((seq, exc, traceback.format_exc()))

    per_thread = max(calls // threads, 1)
    workers = [threading.Thread(target=worker, args=(s, per_thread)) for s in sequences]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for seq in sequences:
        seq.release()
    for seq, exc, tb in failures:
        print(f"FAIL seed {seq.seed} at call {seq.calls}: {exc}\nlast calls: {', '.join(seq.recent)}\n{tb}")
    after = live_counts()
    if after != before:
        print(f"FAIL leak: { {k: (before[k], after[k]) for k in before if before[k] != after[k]} }")
        failures.append(None)
    if failures:
        return 1
    print(f"OK seed {seed}: {sum(s.calls for s in sequences)} calls in {threads} sequence(s), no leak")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--trace", action="store_true", help="print every call before making it")
    args = parser.parse_args(argv)
    return run(args.seed, args.calls, args.threads, args.trace)


if __name__ == "__main__":
    sys.exit(main())
