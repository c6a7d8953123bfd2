"""Client-side overhead: what the Python layers add around a tiny operator call.

(a) mirror-layer cycle, (b) the same cycle through ctypes, (c) the same cycle in C (the floor),
(d) the high-level call against a bare ctypes sequence of the same runtime and operator calls,
(e) ``import aclnn_py`` against ``import numpy``, in fresh interpreters.

The cycle is the per-call part of a ported sample: 3 x aclCreateTensor, phase 1, phase 2,
3 x aclDestroyTensor, on aclnnMoeTokenPermuteGrad with 8 tokens, topK 2, hidden 16, float32; the
device buffers and the stream are created once, outside the loop. The three variants share one
loaded library set (ctypes opens the very files the bindings loaded, so it gets the same handles).
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
from ctypes import POINTER, byref, c_bool, c_int, c_int64, c_size_t, c_uint64, c_void_p
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

import numpy as np

import aclnn_py
from aclnn_py import acl, aclnn, reference
from aclnn_py._native import ffi
from aclnn_py.runtime import default_device

from . import timing

N, K, H = 8, 2, 16   # tokens, topK, hidden
L = N * K
GRAD_SHAPE, IDX_SHAPE, OUT_SHAPE = (L, H), (L,), (N, H)


def tiny_inputs():
    grad = (np.arange(L * H, dtype=np.float32) % 7).reshape(GRAD_SHAPE)
    idx = np.random.default_rng(0).permutation(L).astype(np.int32)
    return grad, idx


def _addr(cdata) -> int:
    return int(ffi.cast("uintptr_t", cdata))


@dataclass
class ClientResult:
    times: Dict[str, float] = field(default_factory=dict)   # median seconds per call
    samples: Dict[str, int] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    import_breakdown: List[tuple] = field(default_factory=list)  # (self us, module) added by aclnn_py


# ---- ctypes bindings of the few functions used -------------------------------------------------------

class CtypesLib:
    """The runtime and operator functions through ctypes, argtypes/restype set from the headers."""

    def __init__(self, paths):
        self.libs = [ctypes.CDLL(str(p), mode=ctypes.RTLD_GLOBAL) for p in paths]
        P64 = POINTER(c_int64)
        self._bind("aclCreateTensor", c_void_p, [P64, c_uint64, c_int, P64, c_int64, c_int, P64, c_uint64, c_void_p])
        self._bind("aclDestroyTensor", c_int, [c_void_p])
        self._bind("aclnnMoeTokenPermuteGradGetWorkspaceSize", c_int,
                   [c_void_p, c_void_p, c_int64, c_bool, c_void_p, POINTER(c_uint64), POINTER(c_void_p)])
        self._bind("aclnnMoeTokenPermuteGrad", c_int, [c_void_p, c_uint64, c_void_p, c_void_p])
        self._bind("aclrtMalloc", c_int, [POINTER(c_void_p), c_size_t, c_int])
        self._bind("aclrtFree", c_int, [c_void_p])
        self._bind("aclrtMemcpy", c_int, [c_void_p, c_size_t, c_void_p, c_size_t, c_int])
        self._bind("aclrtSynchronizeStream", c_int, [c_void_p])

    def _bind(self, name, restype, argtypes):
        for lib in self.libs:
            try:
                fn = getattr(lib, name)
            except AttributeError:
                continue
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)
            return
        raise AttributeError(f"{name} is not exported by {', '.join(map(str, self.libs))}")


class StatusError(RuntimeError):
    pass


def _fail(name, status):
    raise StatusError(f"{name} returned {status}")


# ---- the cycles ----------------------------------------------------------------------------------------

class Cycles:
    """Shared state (stream, device buffers, workspace) and the cycle of each client."""

    def __init__(self):
        default_device()
        self.stream = acl.aclrtCreateStream()
        grad, idx = tiny_inputs()
        self.dev = []
        for arr in (grad, idx, np.zeros(OUT_SHAPE, np.float32)):
            p = acl.aclrtMalloc(arr.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
            acl.aclrtMemcpy(p, arr.nbytes, acl.host_ptr(arr), arr.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE)
            self.dev.append(p)
        # One phase 1 finds the workspace size; a workspace of that size is reused by every cycle.
        ts = self._mirror_tensors()
        self.ws_size, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(ts[0], ts[1], K, False, ts[2])
        self.workspace = acl.aclrtMalloc(self.ws_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if self.ws_size else None
        aclnn.aclnnMoeTokenPermuteGrad(self.workspace, self.ws_size, ex, self.stream)  # consumes the executor
        for t in ts:
            acl.aclDestroyTensor(t)
        self.ct = CtypesLib(aclnn_py.backend().libraries)

    def _mirror_tensors(self):
        g, i, o = self.dev
        return (acl.aclCreateTensor(list(GRAD_SHAPE), 2, acl.ACL_FLOAT, [H, 1], 0, acl.ACL_FORMAT_ND,
                                    list(GRAD_SHAPE), 2, g),
                acl.aclCreateTensor(list(IDX_SHAPE), 1, acl.ACL_INT32, [1], 0, acl.ACL_FORMAT_ND,
                                    list(IDX_SHAPE), 1, i),
                acl.aclCreateTensor(list(OUT_SHAPE), 2, acl.ACL_FLOAT, [H, 1], 0, acl.ACL_FORMAT_ND,
                                    list(OUT_SHAPE), 2, o))

    def mirror_cycle(self):
        """(a) as a ported sample writes it: shapes and strides as Python lists, names from the mirror."""
        create, destroy = acl.aclCreateTensor, acl.aclDestroyTensor
        gws, run = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize, aclnn.aclnnMoeTokenPermuteGrad
        FLOAT, INT32, ND = acl.ACL_FLOAT, acl.ACL_INT32, acl.ACL_FORMAT_ND
        gdev, idev, odev = self.dev
        stream, ws = self.stream, self.workspace
        gshape, ishape, oshape, rstride, one = list(GRAD_SHAPE), list(IDX_SHAPE), list(OUT_SHAPE), [H, 1], [1]

        def cycle():
            g = create(gshape, 2, FLOAT, rstride, 0, ND, gshape, 2, gdev)
            i = create(ishape, 1, INT32, one, 0, ND, ishape, 1, idev)
            o = create(oshape, 2, FLOAT, rstride, 0, ND, oshape, 2, odev)
            size, ex = gws(g, i, 2, False, o)
            run(ws, size, ex, stream)
            destroy(g)
            destroy(i)
            destroy(o)

        return cycle

    def ctypes_cycle(self):
        """(b) the same calls through ctypes; statuses and NULL handles are checked as the mirror does."""
        ct = self.ct
        create, destroy = ct.aclCreateTensor, ct.aclDestroyTensor
        gws, run = ct.aclnnMoeTokenPermuteGradGetWorkspaceSize, ct.aclnnMoeTokenPermuteGrad
        FLOAT, INT32, ND = acl.ACL_FLOAT, acl.ACL_INT32, acl.ACL_FORMAT_ND
        gdev, idev, odev = (_addr(p) for p in self.dev)
        stream = _addr(self.stream)
        ws = _addr(self.workspace) if self.workspace is not None else None
        A2, A1 = c_int64 * 2, c_int64 * 1
        gshape, ishape, oshape, rstride, one = A2(*GRAD_SHAPE), A1(*IDX_SHAPE), A2(*OUT_SHAPE), A2(H, 1), A1(1)
        size, ex = c_uint64(), c_void_p()
        psize, pex = byref(size), byref(ex)

        def cycle():
            g = create(gshape, 2, FLOAT, rstride, 0, ND, gshape, 2, gdev)
            i = create(ishape, 1, INT32, one, 0, ND, ishape, 1, idev)
            o = create(oshape, 2, FLOAT, rstride, 0, ND, oshape, 2, odev)
            if not (g and i and o):
                _fail("aclCreateTensor", "NULL")
            s = gws(g, i, 2, False, o, psize, pex)
            if s:
                _fail("aclnnMoeTokenPermuteGradGetWorkspaceSize", s)
            s = run(ws, size.value, ex, stream)
            if s:
                _fail("aclnnMoeTokenPermuteGrad", s)
            destroy(g)
            destroy(i)
            destroy(o)

        return cycle

    def high_level_call(self):
        """(d) the high-level function on numpy inputs (uploads, both phases, download, releases)."""
        grad, idx = tiny_inputs()
        fn = aclnn_py.moe_token_permute_grad
        return lambda: fn(grad, idx, K)

    def ctypes_sequence(self):
        """(d) the bare sequence the high-level call performs, hand-written with ctypes for this one
        shape: aclrtMalloc x3, aclrtMemcpy H2D x2, aclCreateTensor x3, phase 1, phase 2,
        aclrtSynchronizeStream, aclrtMemcpy D2H, aclDestroyTensor x3, aclrtFree x3. Like the high-level
        call it takes numpy arrays and returns a fresh numpy result."""
        ct = self.ct
        grad, idx = tiny_inputs()
        malloc, free, memcpy, sync = ct.aclrtMalloc, ct.aclrtFree, ct.aclrtMemcpy, ct.aclrtSynchronizeStream
        create, destroy = ct.aclCreateTensor, ct.aclDestroyTensor
        gws, run = ct.aclnnMoeTokenPermuteGradGetWorkspaceSize, ct.aclnnMoeTokenPermuteGrad
        FLOAT, INT32, ND = acl.ACL_FLOAT, acl.ACL_INT32, acl.ACL_FORMAT_ND
        HUGE, H2D, D2H = acl.ACL_MEM_MALLOC_HUGE_FIRST, acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
        stream = _addr(self.stream)
        ws = _addr(self.workspace) if self.workspace is not None else None
        A2, A1 = c_int64 * 2, c_int64 * 1
        gshape, ishape, oshape, rstride, one = A2(*GRAD_SHAPE), A1(*IDX_SHAPE), A2(*OUT_SHAPE), A2(H, 1), A1(1)
        gbytes, ibytes, obytes = L * H * 4, L * 4, N * H * 4
        gdev, idev, odev, size, ex = c_void_p(), c_void_p(), c_void_p(), c_uint64(), c_void_p()
        pg, pi, po, psize, pex = byref(gdev), byref(idev), byref(odev), byref(size), byref(ex)
        empty, f32 = np.empty, np.float32

        def seq(grad=grad, idx=idx):
            out = empty(OUT_SHAPE, f32)
            if malloc(pg, gbytes, HUGE) or malloc(pi, ibytes, HUGE) or malloc(po, obytes, HUGE):
                _fail("aclrtMalloc", "error")
            if memcpy(gdev, gbytes, grad.ctypes.data, gbytes, H2D) or memcpy(idev, ibytes, idx.ctypes.data, ibytes, H2D):
                _fail("aclrtMemcpy", "error")
            g = create(gshape, 2, FLOAT, rstride, 0, ND, gshape, 2, gdev)
            i = create(ishape, 1, INT32, one, 0, ND, ishape, 1, idev)
            o = create(oshape, 2, FLOAT, rstride, 0, ND, oshape, 2, odev)
            if not (g and i and o):
                _fail("aclCreateTensor", "NULL")
            s = gws(g, i, K, False, o, psize, pex)
            if s:
                _fail("aclnnMoeTokenPermuteGradGetWorkspaceSize", s)
            s = run(ws, size.value, ex, stream)
            if s:
                _fail("aclnnMoeTokenPermuteGrad", s)
            if sync(stream) or memcpy(out.ctypes.data, obytes, odev, obytes, D2H):
                _fail("aclrtSynchronizeStream/aclrtMemcpy", "error")
            destroy(g)
            destroy(i)
            destroy(o)
            free(gdev)
            free(idev)
            free(odev)
            return out

        return seq

    def close(self):
        if self.workspace is not None:
            acl.aclrtFree(self.workspace)
        for p in self.dev:
            acl.aclrtFree(p)
        acl.aclrtDestroyStream(self.stream)


# ---- the C floor -----------------------------------------------------------------------------------------

C_SOURCE = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_moe_token_permute_grad.h"

#define N 8
#define K 2
#define H 16
#define CHECK(x) do { long s_ = (long)(x); if (s_) { fprintf(stderr, "%s failed: %ld\n", #x, s_); exit(1); } } while (0)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int64_t gshape[2] = {N * K, H}, ishape[1] = {N * K}, oshape[2] = {N, H}, rstride[2] = {H, 1}, one[1] = {1};
static void *gdev, *idev, *odev, *ws;
static uint64_t ws_size;
static aclrtStream stream;

static void cycle(void) {
    aclTensor *g = aclCreateTensor(gshape, 2, ACL_FLOAT, rstride, 0, ACL_FORMAT_ND, gshape, 2, gdev);
    aclTensor *i = aclCreateTensor(ishape, 1, ACL_INT32, one, 0, ACL_FORMAT_ND, ishape, 1, idev);
    aclTensor *o = aclCreateTensor(oshape, 2, ACL_FLOAT, rstride, 0, ACL_FORMAT_ND, oshape, 2, odev);
    if (!g || !i || !o) { fprintf(stderr, "aclCreateTensor failed\n"); exit(1); }
    uint64_t size = 0;
    aclOpExecutor *ex = NULL;
    CHECK(aclnnMoeTokenPermuteGradGetWorkspaceSize(g, i, K, false, o, &size, &ex));
    CHECK(aclnnMoeTokenPermuteGrad(size ? ws : NULL, size, ex, stream));
    aclDestroyTensor(g);
    aclDestroyTensor(i);
    aclDestroyTensor(o);
}

int main(int argc, char **argv) {
    int samples = argc > 1 ? atoi(argv[1]) : 5;
    long inner = argc > 2 ? atol(argv[2]) : 10000;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&stream));
    float grad[N * K * H];
    int32_t idx[N * K];
    for (int j = 0; j < N * K * H; j++) grad[j] = (float)(j % 7);
    for (int j = 0; j < N * K; j++) idx[j] = (j * 5) % (N * K);
    CHECK(aclrtMalloc(&gdev, sizeof grad, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&idev, sizeof idx, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMalloc(&odev, N * H * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemcpy(gdev, sizeof grad, grad, sizeof grad, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(aclrtMemcpy(idev, sizeof idx, idx, sizeof idx, ACL_MEMCPY_HOST_TO_DEVICE));
    ws_size = 1 << 20; /* any phase-1 size up to 1 MiB is served without a per-cycle allocation */
    CHECK(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST));
    for (long j = 0; j < inner; j++) cycle(); /* warm-up */
    for (int s = 0; s < samples; s++) {
        double t0 = now();
        for (long j = 0; j < inner; j++) cycle();
        printf("%.9g\n", (now() - t0) / inner);
    }
    aclrtFree(ws);
    aclrtFree(gdev);
    aclrtFree(idev);
    aclrtFree(odev);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
"""


class CFloor:
    """The cycle compiled with gcc against headers and libraries: by default the package's headers and the loaded
    libraries; ``include``/``libraries`` name another build (the baseline tree of ``BaselineTree``)."""

    def __init__(self, include=None, libraries=None):
        self.tmp = None
        self.exe = None
        self.error = None
        gcc = shutil.which("gcc") or shutil.which("cc")
        if not gcc:
            self.error = "no C compiler (gcc) on PATH"
            return
        self.tmp = tempfile.mkdtemp(prefix="aclnn_bench_")
        src = Path(self.tmp) / "cycle.c"
        src.write_text(C_SOURCE)
        exe = Path(self.tmp) / "cycle"
        libs = [Path(p) for p in (libraries or aclnn_py.backend().libraries)]
        cmd = [gcc, "-O2", "-std=gnu11", str(src), "-o", str(exe), "-I", str(include or aclnn_py.get_include())]
        for d in dict.fromkeys(p.parent for p in libs):  # unique, in order
            cmd += ["-L", str(d), f"-Wl,-rpath,{d}"]
        cmd += ["-Wl,--no-as-needed"] + [f"-l{p.name[3:-3]}" for p in libs]  # libascendcl.so -> -lascendcl
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            self.error = "gcc failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
            return
        self.exe = exe

    def sample(self, inner: int) -> float:
        """One timed sample (seconds per cycle) from a fresh run of the program."""
        proc = subprocess.run([str(self.exe), "1", str(inner)], capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"C cycle program failed: {proc.stderr.strip()}")
        return float(proc.stdout.split()[-1])

    def close(self):
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


class BaselineTree:
    """The stub of another revision of this repository (``git archive REV``), built in a temporary directory
    with CMake, for the C cycle measured side by side with the current tree's (nothing of it is kept)."""

    def __init__(self, rev: str, progress=None):
        self.rev, self.tmp, self.floor, self.error = rev, tempfile.mkdtemp(prefix="aclnn_baseline_"), None, None
        repo = Path(__file__).resolve().parent.parent
        src, build = Path(self.tmp) / "src", Path(self.tmp) / "build"
        src.mkdir()
        try:
            archive = subprocess.run(["git", "-C", str(repo), "archive", rev], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
            if progress:
                progress(f"client: building the stub of {rev} (baseline C cycle)")
            subprocess.run(["cmake", "-S", str(src / "stubs"), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                           capture_output=True, check=True)
            subprocess.run(["cmake", "--build", str(build), "-j2"], capture_output=True, check=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            err = getattr(exc, "stderr", b"") or b""
            self.error = f"baseline {rev}: {exc}: {err.decode(errors='replace').strip()[-300:]}"
            return
        # the runtime, the meta API and whichever operator library exports the operator (libopapi was empty once)
        libs = [build / "libascendcl.so", build / "libnnopbase.so"]
        for cand in ("libopapi.so", "libopapi_transformer.so"):
            p = build / cand
            if p.exists() and b"aclnnMoeTokenPermuteGradGetWorkspaceSize" in p.read_bytes():
                libs.append(p)
                break
        self.floor = CFloor(src / "native" / "include", libs)
        self.error = self.floor.error

    def close(self):
        if self.floor is not None:
            self.floor.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


# ---- import time -----------------------------------------------------------------------------------------

def _package_root() -> str:
    """The directory from which this process imported aclnn_py, so the subprocesses import the same."""
    return str(Path(aclnn_py.__file__).resolve().parent.parent)


def _import_env():
    env = dict(os.environ)
    root = _package_root()
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def import_times(runs: int) -> Dict[str, float]:
    """Median wall time of fresh interpreters running ``pass``, ``import numpy``, ``import aclnn_py``
    (interleaved). Interpreter start-up is the ``pass`` time; each import's own cost is the difference."""
    env, cwd = _import_env(), tempfile.gettempdir()
    stmts = {"python": "pass", "numpy": "import numpy", "aclnn_py": "import aclnn_py"}

    def runner(stmt):
        def run():
            subprocess.run([sys.executable, "-c", stmt], check=True, env=env, cwd=cwd)
        return run

    samples = timing.interleave({k: (runner(v), runs) for k, v in stmts.items()})
    return {k: timing.median(v) for k, v in samples.items()}


def import_breakdown(top: int = 5) -> List[tuple]:
    """The modules ``import aclnn_py`` adds on top of numpy, by self time (``python -X importtime``)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import numpy; import aclnn_py"],
                          capture_output=True, text=True, env=_import_env(), cwd=tempfile.gettempdir())
    rows, after_numpy = [], False
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)", line)
        if not m:
            continue
        self_us, name = int(m.group(1)), m.group(4)
        if not after_numpy:
            after_numpy = name == "numpy" and len(m.group(3)) == 1  # numpy's top-level line closes it
            continue
        rows.append((self_us, name))
    return sorted(rows, reverse=True)[:top]


# ---- all of it -------------------------------------------------------------------------------------------

def measure(samples: int, import_runs: int, progress=None, baseline: str | None = None) -> ClientResult:
    res = ClientResult()
    cyc = Cycles()
    cfloor = CFloor()
    base = BaselineTree(baseline, progress) if baseline else None
    try:
        mirror, ctyp = cyc.mirror_cycle(), cyc.ctypes_cycle()
        hl, seq = cyc.high_level_call(), cyc.ctypes_sequence()
        # The high-level result must be right before its speed means anything.
        expected = reference.moe_token_permute_grad(*tiny_inputs(), K)
        if not (np.array_equal(hl(), expected) and np.array_equal(seq(), expected)):
            raise RuntimeError("tiny moe_token_permute_grad: high-level or ctypes result differs from the reference")
        fns = {"mirror cycle": mirror, "ctypes cycle": ctyp, "high-level call": hl, "ctypes sequence": seq}
        inner = {k: timing.calibrate(f) for k, f in fns.items()}
        variants = {k: (f, samples) for k, f in fns.items()}
        self_timed = []
        c_inner = max(inner["mirror cycle"] * 4, 1000)  # C is faster: more iterations, similar time
        if cfloor.exe is not None:
            variants["C cycle"] = (lambda: cfloor.sample(c_inner), samples)
            self_timed.append("C cycle")
        else:
            res.notes.append(f"C floor not measured: {cfloor.error}")
        if base is not None and base.error is None:
            variants["C cycle (baseline)"] = (lambda: base.floor.sample(c_inner), samples)
            self_timed.append("C cycle (baseline)")
        elif base is not None:
            res.notes.append(f"baseline C cycle not measured: {base.error}")
        if progress:
            progress("client: cycles")
        out = timing.interleave(variants, inner=inner, self_timed=self_timed)
        res.times = {k: timing.median(v) for k, v in out.items()}
        res.samples = {k: len(v) for k, v in out.items()}
    finally:
        cfloor.close()
        if base is not None:
            base.close()
        cyc.close()
    if progress:
        progress("client: import times")
    res.times.update({f"import {k}": v for k, v in import_times(import_runs).items()})
    res.samples["import"] = import_runs
    try:
        res.import_breakdown = import_breakdown()
    except Exception as exc:  # informational only
        res.notes.append(f"import breakdown unavailable: {exc}")
    return res
