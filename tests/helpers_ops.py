"""Helpers shared by the operator test files (test_op_*.py): bit-exact comparisons, random data, the mirror layer's
two phases, validation-case tensors, and the build and run of the C validation programs under tests/c."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import aclnn_py
from aclnn_py import AclnnError, DeviceBuffer, Tensor, acl, dtypes

from helpers_acl import NULL, Arena, discard_executor, status_of  # noqa: F401 (status_of re-exported)

BF16 = dtypes.bfloat16
FLOATS = [np.dtype(np.float32), np.dtype(np.float16), BF16]
FLOAT_IDS = ["float32", "float16", "bfloat16"]
INDEX = [np.dtype(np.int32), np.dtype(np.int64)]
INDEX_IDS = ["int32", "int64"]

NULLPTR, INVALID, TILING = 161001, 161002, 561002

# aclDataType and aclFormat values of the validation cases
FP32, FP16, BF, I8, U8, I16, I32, I64, F64, BOOL = (acl.ACL_FLOAT, acl.ACL_FLOAT16, acl.ACL_BF16, acl.ACL_INT8,
                                                    acl.ACL_UINT8, acl.ACL_INT16, acl.ACL_INT32, acl.ACL_INT64,
                                                    acl.ACL_DOUBLE, acl.ACL_BOOL)
NZ, NCHW, NCL = acl.ACL_FORMAT_FRACTAL_NZ, acl.ACL_FORMAT_NCHW, acl.ACL_FORMAT_NCL


# ---- comparisons and data ------------------------------------------------------------------------------------

def bits(a) -> np.ndarray:
    """Raw bytes as unsigned integers of the same width: NaN payloads and -0.0 compare exactly."""
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def assert_same(got, expected, what=""):
    if expected is None:
        assert got is None, what
        return
    assert got is not None, what
    assert got.dtype == expected.dtype, (what, got.dtype, expected.dtype)
    assert got.shape == expected.shape, (what, got.shape, expected.shape)
    assert np.array_equal(bits(got), bits(expected)), (what, got, expected)


def assert_all_same(got, expected, what=""):
    assert len(got) == len(expected), (what, len(got), len(expected))
    for i, (g, e) in enumerate(zip(got, expected)):
        assert_same(g, e, f"{what} output {i}")


def random_bits(rng, shape, dtype) -> np.ndarray:
    """Every bit pattern (NaNs with payloads, infinities, -0.0, subnormals): the forward only copies."""
    dt = np.dtype(dtype)
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32}[dt.itemsize]
    return rng.integers(0, np.iinfo(u).max, size=shape, dtype=u, endpoint=True).view(dt)


def random_values(rng, shape, dtype) -> np.ndarray:
    """Finite values of mixed magnitude: the backward adds them, so the sum order shows in the bits."""
    a = rng.standard_normal(shape).astype(np.float32) * np.float32(2.0) ** rng.integers(-6, 7, size=shape)
    return a.astype(np.dtype(dtype))


def vector_block_rows(rng, rows, dtype, h=32 * 3 + 7):
    """Rows long enough for the vectorised sums (blocks of 32 elements, then a tail) holding values
    that test the narrowing: halfway cases of both 16-bit types, overflow, subnormals, signed zeros; one NaN
    sits in a single block of one row, so its neighbours stay on the fast path."""
    g = random_values(rng, (rows, h), np.float32)
    with np.errstate(over="ignore"):
        specials = np.array([1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 3.0e38, 65504.0,
                             1e-40, -1e-42, -0.0, 0.0, np.inf, -2.0 ** -24, 2.0 ** -25], np.float32)
    pos = rng.integers(0, g.size, size=6 * specials.size)
    g.reshape(-1)[pos] = np.resize(specials, pos.size)
    g[rows // 2, 40] = np.nan
    return g.astype(dtype)


def random_ranks(rng, total):
    return rng.permutation(total).astype(np.int32)




@contextlib.contextmanager
def threads(n):
    acl.aclStubSetNumThreads(n)
    try:
        yield
    finally:
        acl.aclStubSetNumThreads(0)


# ---- mirror layer: both phases by hand -------------------------------------------------------------------------

class Resources(contextlib.ExitStack):
    """Tensors, buffers and int arrays of one mirror-layer call, released however the test ends."""

    def tensor(self, array):
        return self.enter_context(Tensor.from_numpy(array))

    def output(self, shape, dtype, fill=None, offset=0, extra=0, strides=None):
        """An output tensor in a buffer of its own: ``offset`` elements before the view, ``extra`` after it."""
        dt = dtypes.as_numpy_dtype(dtype)
        if strides is None:
            span = int(np.prod(shape, dtype=np.int64))
        else:
            span = sum((d - 1) * abs(s) for d, s in zip(shape, strides)) + 1 if min(shape, default=1) > 0 else 0
        buf = self.enter_context(DeviceBuffer((span + offset + extra) * dt.itemsize))
        if fill is not None and buf.nbytes:
            buf.upload(np.full(buf.nbytes, fill, np.uint8))
        return self.enter_context(Tensor(shape, dt, offset=offset, strides=strides, buffer=buf))

    def int_array(self, values):
        if values is None:
            return None
        values = list(values)
        arr = acl.aclCreateIntArray(values or NULL, len(values))
        self.callback(acl.aclDestroyIntArray, arr)
        return arr


def run_two_phases(phase1, phase2, *args):
    ws, ex = phase1(*args)
    assert ws == 0, ws  # the stub needs no workspace
    workspace = DeviceBuffer(ws) if ws else None
    try:
        assert phase2(None if workspace is None else workspace.ptr, ws, ex, None) is None
        acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results (and the workspace's use) end here
    finally:
        if workspace is not None:
            workspace.close()


# ---- validation through the mirror layer ---------------------------------------------------------------------

class T:
    """A device tensor to build for a validation case: shape, aclDataType, format, strides."""

    def __init__(self, shape, dtype=FP32, fmt=None, strides=None, alloc=None):
        self.shape, self.dtype, self.fmt, self.strides = tuple(shape), dtype, fmt, strides
        self.alloc = alloc  # bytes to allocate when the tensor is too big to back (phase 1 reads no data)

    def build(self, arena: Arena):
        if self.strides is not None:
            span = sum((d - 1) * abs(s) for d, s in zip(self.shape, self.strides)) + 1
        else:
            span = int(np.prod(self.shape, dtype=np.int64))
        nbytes = self.alloc or max(span, 1) * 8
        ptr = arena.malloc(nbytes) if min(self.shape, default=1) > 0 else NULL  # empty or negative dimensions: no data
        return arena.tensor(self.shape, self.dtype, ptr, strides=self.strides, fmt=self.fmt)


def phase1(fn, args):
    """Run phase 1 in an Arena of its own, with T specs turned into tensors and lists into aclIntArrays:
    (status, message); 0 = success."""
    arrays, built = [], []
    with Arena() as arena:
        for a in args:
            if isinstance(a, T):
                built.append(a.build(arena))
            elif isinstance(a, list):
                arr = acl.aclCreateIntArray(a or NULL, len(a))
                arrays.append(arr)
                built.append(arr)
            else:
                built.append(a)
        try:
            ws, ex = fn(*built)
        except AclnnError as exc:
            return exc.status, str(exc)
        finally:
            for arr in arrays:
                acl.aclDestroyIntArray(arr)
        assert ws == 0, ws
        discard_executor(ex)
        return 0, ""


# ---- validation through the high-level functions -------------------------------------------------------------

def assert_rejected(call, status, fragment, function):
    """``call()`` raises an AclnnError with ``status``, reported by ``function``, whose message names ``fragment``."""
    with pytest.raises(AclnnError) as ei:
        call()
    assert ei.value.status == status, (ei.value.status, status, str(ei.value))
    assert fragment in str(ei.value), (fragment, str(ei.value))
    assert ei.value.function == function, (ei.value.function, function)


# ---- validation from C ---------------------------------------------------------------------------------------

# The stub's live-object counters every C validation program prints last (each must be 0).
C_LIVE = ["live_allocations", "live_allocation_bytes", "live_host_allocations", "live_streams", "live_tensors",
          "live_scalars", "live_int_arrays", "live_executors"]


def _c_flags() -> list[str]:
    out = subprocess.run([sys.executable, "-m", "aclnn_py", "config", "--cflags", "--libs"], check=True,
                         capture_output=True, text=True).stdout
    flags = shlex.split(out)
    lib_dir = os.environ.get("ACLNN_PY_LIB_DIR")
    if lib_dir:  # link and run against the libraries under test
        flags = [f.replace(aclnn_py.get_lib_dir(), lib_dir) for f in flags]
    return flags


def run_c_validation(source: Path, tmp_path_factory, werror: bool = False) -> dict[str, int]:
    """Build a C validation program (``werror``: warnings fail the build), run it and return the status each of
    its cases prints, one ``name status`` line a case."""
    cc = os.environ.get("CC", "gcc")
    assert shutil.which(cc), f"{cc} is needed to build the C validation program"
    exe = tmp_path_factory.mktemp("c") / source.stem
    warnings = ["-Wall", "-Wextra"] + (["-Werror"] if werror else [])
    subprocess.run([cc, "-std=gnu11", *warnings, str(source), *_c_flags(), "-o", str(exe)], check=True)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return parse_case_lines(proc.stdout)


def parse_case_lines(stdout: str) -> dict[str, int]:
    """The ``name value`` lines a C test program prints, one per case, as a dict (a name may not repeat)."""
    results = {}
    for line in stdout.splitlines():
        name, value = line.split()
        assert name not in results, f"duplicate case {name}"
        results[name] = int(value)
    return results


def c_mismatches(results, expected, prefix):
    """The cases starting with ``prefix`` whose printed status differs from the ``expected`` table."""
    expected = {k: v for k, v in expected.items() if k.startswith(prefix)}
    got = {k: v for k, v in results.items() if k.startswith(prefix)}
    assert sorted(got) == sorted(expected), ("the program and the table list different cases",
                                             sorted(set(got) ^ set(expected)))
    return {k: (got[k], expected[k]) for k in expected if got[k] != expected[k]}  # case: (printed, expected)


def c_validation_tests(source: Path, expected: dict, werror: bool = False):
    """The module fixture ``c_results`` (``source`` built and run once, see run_c_validation) and the three tests
    comparing its statuses with the ``expected`` table. A test module binds them under these names, and pytest
    collects them there as that module's own tests."""

    @pytest.fixture(scope="module")
    def c_results(tmp_path_factory):
        return run_c_validation(source, tmp_path_factory, werror)

    def test_c_forward_validation(c_results):
        mismatches = c_mismatches(c_results, expected, "fwd_")
        assert mismatches == {}, mismatches

    def test_c_backward_validation(c_results):
        mismatches = c_mismatches(c_results, expected, "bwd_")
        assert mismatches == {}, mismatches

    def test_c_program_releases_everything(c_results):
        mismatches = c_mismatches(c_results, expected, "live_")
        assert mismatches == {}, mismatches
        assert set(c_results) == set(expected), sorted(set(c_results) ^ set(expected))

    return c_results, test_c_forward_validation, test_c_backward_validation, test_c_program_releases_everything
