"""The client's caching device-memory pool: steady-state calls allocate nothing, reused blocks never leak
a previous call's bytes into a result, the counters add up, and it can be turned off and emptied."""

import sys

import numpy as np
import pytest

import aclnn_py
from aclnn_py import acl, reference
from aclnn_py._native import ffi, lib
from aclnn_py._optable import OPS

from helpers_ops import assert_all_same
from test_c_samples import ROOT

sys.path.append(str(ROOT))  # the benchmarks' input builders: every operator's inputs at small shapes
from benchmarks.kernels import BUILDERS, QUICK, Data, op_dtypes  # noqa: E402

POOL = aclnn_py.get_memory_pool()


@pytest.fixture(autouse=True)
def copying_path(monkeypatch):
    """The device pool serves the calls that copy: a real toolkit's, and the stub's without zero-copy
    (tests/test_zero_copy.py covers the stub's default)."""
    monkeypatch.setenv("ACLNN_PY_ZERO_COPY", "0")


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _poison(nbytes: int) -> None:
    """Fill the cached block of nbytes' size class (the default stream's) with 0xA5 bytes."""
    ptr, fresh = ffi.new("void **"), ffi.new("int *")
    assert lib.aclnnpy_pool_malloc(ffi.NULL, nbytes, ptr, fresh) == 0
    acl.aclrtMemset(ptr[0], nbytes, 0xA5, nbytes)
    lib.aclnnpy_pool_free(ffi.NULL, ptr[0], nbytes)


@pytest.mark.parametrize("op", OPS, ids=[op.py_name for op in OPS])
def test_steady_state_allocates_nothing_and_reused_blocks_do_not_leak_into_results(op):
    args = BUILDERS[op.py_name](QUICK, op_dtypes(op)[0], Data())
    fn, ref = getattr(aclnn_py, op.py_name), getattr(reference, op.py_name)
    expected = _as_tuple(ref(*args))
    first = _as_tuple(fn(*args))
    assert_all_same(first, expected)
    # Every block the call used is now cached: fill them all with garbage, then call again.
    for a in (*args, *first):
        if isinstance(a, np.ndarray) and a.nbytes:
            _poison(a.nbytes)
    misses, live = POOL.misses(), acl.aclStubLiveAllocations()
    for _ in range(3):
        again = _as_tuple(fn(*args))
        assert_all_same(again, expected)
    assert POOL.misses() == misses, "a steady-state call allocated device memory"
    assert acl.aclStubLiveAllocations() == live
    assert POOL.used_bytes() == 0


def test_counters_size_classes_and_free_all_blocks():
    POOL.free_all_blocks()
    hits, misses = POOL.hits(), POOL.misses()
    ptr, fresh = ffi.new("void **"), ffi.new("int *")
    assert lib.aclnnpy_pool_malloc(ffi.NULL, 1000, ptr, fresh) == 0 and fresh[0] == 1
    assert POOL.used_bytes() == 1024  # 1000 rounds up to the class 1024 (four classes per power of two)
    lib.aclnnpy_pool_free(ffi.NULL, ptr[0], 1000)
    assert (POOL.used_bytes(), POOL.free_bytes(), POOL.n_free_blocks()) == (0, 1024, 1)
    assert lib.aclnnpy_pool_malloc(ffi.NULL, 1020, ptr, fresh) == 0 and fresh[0] == 0  # same class: reused
    lib.aclnnpy_pool_free(ffi.NULL, ptr[0], 1020)
    assert (POOL.hits() - hits, POOL.misses() - misses) == (1, 1)
    live = acl.aclStubLiveAllocations()
    assert POOL.free_all_blocks() == 1
    assert acl.aclStubLiveAllocations() == live - 1 and POOL.total_bytes() == 0


def test_blocks_are_reused_only_on_their_stream_and_freed_with_it():
    POOL.free_all_blocks()
    g, idx = np.ones((64, 16), np.float32), np.arange(64, dtype=np.int32)
    with aclnn_py.Stream() as stream:
        aclnn_py.moe_token_permute_grad(g, idx, num_topk=1, stream=stream)
        held = POOL.n_free_blocks()
        assert held > 0
        misses = POOL.misses()
        aclnn_py.moe_token_permute_grad(g, idx, num_topk=1)  # the default stream: its own blocks
        assert POOL.misses() > misses
        live = acl.aclStubLiveAllocations()
    assert acl.aclStubLiveAllocations() == live - held  # closing the stream freed its blocks


def test_disabled_pool_allocates_every_call():
    POOL.free_all_blocks()
    g, idx = np.ones((64, 16), np.float32), np.arange(64, dtype=np.int32)
    POOL.set_enabled(False)
    try:
        assert not POOL.enabled
        per_call = []
        for _ in range(2):
            misses = POOL.misses()
            aclnn_py.moe_token_permute_grad(g, idx, num_topk=1)
            per_call.append(POOL.misses() - misses)
        assert per_call == [3, 3] and POOL.n_free_blocks() == 0  # grad, indices, output: new every time
    finally:
        POOL.set_enabled(True)


def test_reused_output_blocks_are_zeroed_where_the_operator_writes_nothing():
    """MoeTokenUnpermuteGrad leaves the permuted rows no slot points at untouched; the function returns zeros
    there, also when its output block comes back from the pool holding another call's bytes."""
    x = np.ones((8, 16), np.float32)  # 8 permuted rows, only 4 of them referenced
    grad = np.ones((4, 16), np.float32)
    idx = np.arange(4, dtype=np.int32)
    probs = np.ones((4, 1), np.float32)
    first = aclnn_py.moe_token_unpermute_grad(x, grad, idx, probs)[0]
    assert not first[4:].any()
    # Every cached block of the size class (inputs and output share it) filled with 0xA5 bytes.
    ptrs, fresh = [ffi.new("void **") for _ in range(6)], ffi.new("int *")
    for p in ptrs:
        assert lib.aclnnpy_pool_malloc(ffi.NULL, first.nbytes, p, fresh) == 0
        acl.aclrtMemset(p[0], first.nbytes, 0xA5, first.nbytes)
    for p in ptrs:
        lib.aclnnpy_pool_free(ffi.NULL, p[0], first.nbytes)
    again = aclnn_py.moe_token_unpermute_grad(x, grad, idx, probs)[0]
    assert not again[4:].any() and (again[:4] == 1).all()
