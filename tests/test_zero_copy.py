"""The stub's zero-copy calls: inputs and results are lent to the device (aclStubLendHostMemory) instead of
copied, large results come from the host pool, and the results are the copying path's, bit for bit."""

import sys
import threading

import numpy as np
import pytest

import aclnn_py
from aclnn_py import acl, reference
from aclnn_py._optable import OPS

from helpers_ops import assert_all_same
from helpers_proc import run_json
from test_c_samples import ROOT

sys.path.append(str(ROOT))  # the benchmarks' input builders: every operator's inputs at small shapes
from benchmarks.kernels import BUILDERS, QUICK, Data, op_dtypes  # noqa: E402

POOL, HOST_POOL = aclnn_py.get_memory_pool(), aclnn_py.get_host_memory_pool()
BIG = 1 << 20  # results from here on come from the host pool


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _device_requests():
    return POOL.hits() + POOL.misses()


@pytest.mark.parametrize("op", OPS, ids=[op.py_name for op in OPS])
def test_results_equal_the_copying_path_and_use_no_device_memory(op, monkeypatch):
    args = BUILDERS[op.py_name](QUICK, op_dtypes(op)[0], Data())
    # distinct buffers (a builder may pass one array twice, and the second use is then copied)
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    fn = getattr(aclnn_py, op.py_name)
    requests, live = _device_requests(), acl.aclStubLiveAllocations()
    lent = _as_tuple(fn(*args))
    assert _device_requests() == requests, "a zero-copy call took device memory from the pool"
    assert acl.aclStubLiveAllocations() == live, "a lent buffer was not reclaimed"
    monkeypatch.setenv("ACLNN_PY_ZERO_COPY", "0")
    copied = _as_tuple(fn(*args))
    assert _device_requests() > requests  # the switch works: this call copied through the pool
    assert_all_same(lent, copied)
    assert_all_same(lent, _as_tuple(getattr(reference, op.py_name)(*args)))


def test_large_results_come_from_the_host_pool_and_go_back_to_it():
    tokens = np.ones((512, 1024), np.float32)  # 2 MiB of tokens, 4 MiB of permuted rows
    indices = np.tile(np.arange(2, dtype=np.int32), (512, 1))
    permuted, order = aclnn_py.moe_token_permute(tokens, indices)
    assert permuted.nbytes == 4 * BIG and HOST_POOL.used_bytes() >= permuted.nbytes
    del permuted, order
    assert HOST_POOL.used_bytes() == 0 and HOST_POOL.n_free_blocks() >= 1
    misses, requests = HOST_POOL.misses(), _device_requests()
    for _ in range(3):
        permuted, order = aclnn_py.moe_token_permute(tokens, indices)
        assert (permuted == 1).all()
        del permuted, order
    assert HOST_POOL.misses() == misses, "a steady-state call mapped new host memory"
    assert _device_requests() == requests
    assert HOST_POOL.free_all_blocks() >= 1 and HOST_POOL.total_bytes() == 0


def test_reused_host_blocks_are_zeroed_where_the_operator_writes_nothing():
    """MoeTokenUnpermuteGrad leaves the permuted rows no slot points at untouched: zeros, also when the result's
    block comes back from the host pool holding what the caller wrote into the previous result."""
    rows = BIG // (64 * 4) * 2  # a 2 MiB result
    x = np.ones((rows, 64), np.float32)
    grad = np.ones((rows // 2, 64), np.float32)
    idx = np.arange(rows // 2, dtype=np.int32)
    probs = np.ones((rows // 2, 1), np.float32)
    first = aclnn_py.moe_token_unpermute_grad(x, grad, idx, probs)[0]
    assert first.nbytes >= BIG and not first[rows // 2:].any()
    first.view(np.uint8)[...] = 0xA5
    del first
    again = aclnn_py.moe_token_unpermute_grad(x, grad, idx, probs)[0]
    assert HOST_POOL.hits() > 0
    assert not again[rows // 2:].any() and (again[: rows // 2] == 1).all()


def test_poisoned_results_catch_a_table_that_claims_too_much():
    """ACLNN_PY_DEBUG_POISON_OUTPUTS=1 fills results the table says the operator writes entirely with 0xff: with
    the real table the untouched rows are zeros, with a row claiming every element is written they are not."""
    result = run_json('''
        import numpy as np
        import aclnn_py
        from aclnn_py import _optable, ops
        x, grad = np.ones((8, 4), np.float32), np.ones((4, 4), np.float32)
        idx, probs = np.arange(4, dtype=np.int32), np.ones((4, 1), np.float32)
        honest = aclnn_py.moe_token_unpermute_grad(x, grad, idx, probs)[0]
        op = _optable.OPS_BY_NAME["moe_token_unpermute_grad"]
        object.__setattr__(op.params[-2], "writes_all", True)
        ops._plans.clear()
        claimed = aclnn_py.moe_token_unpermute_grad(x, grad, idx, probs)[0]
        emit([bool(honest[4:].any()), bool(np.isnan(claimed[4:]).all())])
    ''', env={"ACLNN_PY_DEBUG_POISON_OUTPUTS": "1"})
    assert result == [False, True]


def test_an_input_lent_twice_or_by_two_threads_is_copied_instead():
    x = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)
    idx = np.arange(64, dtype=np.int32)
    expected = reference.moe_token_permute_grad(x, idx, 1)
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(aclnn_py.moe_token_permute_grad(x, idx, num_topk=1))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(results) == 80
    for r in results:
        assert_all_same(r, expected)
    # one array as two arguments: lent once, copied once
    assert_all_same(aclnn_py.moe_token_unpermute_grad(x, x, idx, None), reference.moe_token_unpermute_grad(x, x, idx, None))


def test_generic_call_writes_outputs_in_place_without_device_memory():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    idx = np.arange(3, dtype=np.int32)
    out = np.full((3, 2), 7, np.float32)
    requests = _device_requests()
    got = aclnn_py.run("aclnnMoeTokenPermuteGrad", x, idx, 1, False, out=out)
    assert got is out and np.array_equal(out, x) and _device_requests() == requests
    # the same array as two arguments: the second one cannot be lent again and is copied
    aclnn_py.run("aclnnMoeTokenPermuteGrad", out, idx, 1, False, out=out)
    assert np.array_equal(out, x)
