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
        ops._clear_plans()
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


# ---- lending never fails a call the copying path makes ------------------------------------------------------

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

# Operators with several float tensors, their float tensors (name, shape from T tokens, K top-k, H hidden; the
# outputs last) and the other arguments: every float tensor may be placed anywhere in one shared buffer.
LAYOUT_OPS = {
    "aclnnMoeTokenUnpermute": (
        [("permutedTokens", lambda t, k, h: (t * k, h)), ("probsOptional", lambda t, k, h: (t, k))],
        [("out", lambda t, k, h: (t, h))], lambda t, k, idx: {"paddedMode": False}),
    "aclnnMoeTokenUnpermuteGrad": (
        [("permuteTokens", lambda t, k, h: (t * k, h)), ("unpermutedTokensGrad", lambda t, k, h: (t, h)),
         ("probsOptional", lambda t, k, h: (t, k))],
        [("permutedTokensGradOut", lambda t, k, h: (t * k, h)), ("probsGradOut", lambda t, k, h: (t, k))],
        lambda t, k, idx: {"paddedMode": False}),
    "aclnnMoeTokenPermuteGrad": (
        [("permutedOutputGrad", lambda t, k, h: (t * k, h))], [("out", lambda t, k, h: (t, h))],
        lambda t, k, idx: {"numTopk": k, "paddedMode": False}),
    "aclnnMul": ([("self", lambda t, k, h: (t, h)), ("other", lambda t, k, h: (t, h))],
                 [("out", lambda t, k, h: (t, h))], lambda t, k, idx: {}),
}
# The same operators' high-level functions (inputs only: their results are fresh arrays).
FUNCTIONS = {"aclnnMoeTokenUnpermute": lambda f, idx: aclnn_py.moe_token_unpermute(f[0], idx, f[1]),
             "aclnnMoeTokenUnpermuteGrad": lambda f, idx: aclnn_py.moe_token_unpermute_grad(f[0], f[1], idx, f[2]),
             "aclnnMoeTokenPermuteGrad": lambda f, idx: aclnn_py.moe_token_permute_grad(f[0], idx, len(idx) // len(f[0]) or 1)}

# One tensor's place: its own array, or a view of the shared buffer at an element offset, its rows one element
# wider than the tensor (a strided view) or not, and in reverse order or not (outputs: contiguous, as the
# operators require).
placement = st.one_of(st.just(None), st.tuples(st.integers(0, 64), st.booleans(), st.booleans()))
out_placement = st.one_of(st.just(None), st.tuples(st.integers(0, 64), st.just(False), st.just(False)))


def _place(shared: np.ndarray, shape, where, shift: int) -> np.ndarray:
    rows, cols = shape
    if where is None:  # its own buffer, misaligned by the same shift
        raw = np.zeros(rows * cols * 4 + shift, np.uint8)
        return raw[shift:].view(np.float32).reshape(rows, cols)
    offset, wide, flip = where
    width = cols + wide
    offset %= max(1, shared.size - rows * width + 1)
    view = shared[offset:offset + rows * width].reshape(rows, width)[:, :cols]
    return view[::-1] if flip else view


def _layout_call(name, t, k, h, places, shift, order, via):
    """Builds the call's arrays in a fresh shared buffer, runs it, returns every byte it may have changed."""
    ins, outs, attrs = LAYOUT_OPS[name]
    tensors = ins + outs
    total = sum(int(np.prod(f(t, k, h))) for _, f in tensors)
    raw = np.zeros((2 * total + 64) * 4 + shift, np.uint8)
    shared = raw[shift:shift + (2 * total + 64) * 4].view(np.float32)
    shared[...] = (np.arange(shared.size) % 7 - 3) / 4
    arrays = []
    for (pname, f), where in zip(tensors, places):
        a = _place(shared, f(t, k, h), where, shift)
        if where is None:
            a[...] = np.arange(a.size).reshape(a.shape) % 5 - 2
        arrays.append(a)
    idx = np.asarray(order, np.int32)
    if via == "function" and name in FUNCTIONS:
        result = FUNCTIONS[name]([arrays[i] for i in range(len(ins))], idx)
        return [raw] + [np.asarray(r) for r in _as_tuple(result) if r is not None]
    kwargs = {pname: a for (pname, _), a in zip(tensors, arrays)}
    kwargs.update(attrs(t, k, idx))
    if name != "aclnnMul":  # an elementwise operator: no indices
        kwargs["sortedIndices"] = idx
    aclnn_py.run(name, **kwargs)
    return [raw] + [a for a, where in zip(arrays, places) if where is None]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), name=st.sampled_from(sorted(LAYOUT_OPS)), t=st.integers(1, 6), k=st.integers(1, 3),
       h=st.integers(1, 5), shift=st.sampled_from([0, 0, 1, 2, 4]), via=st.sampled_from(["run", "function"]))
def test_any_view_layout_gives_the_copying_paths_bytes(monkeypatch, data, name, t, k, h, shift, via):
    """Inputs overlapping each other, outputs straddling inputs, misaligned buffers: the zero-copy call succeeds
    and leaves every byte as the copying path (ACLNN_PY_ZERO_COPY=0) does."""
    ins, outs, _ = LAYOUT_OPS[name]
    places = data.draw(st.tuples(*[placement] * len(ins), *[out_placement] * len(outs)))
    order = data.draw(st.permutations(range(t * k)))
    def live():  # lent spans and device blocks, but for the ones the pool caches for the next call
        return acl.aclStubLiveAllocations() - POOL.n_free_blocks()

    before = live()
    monkeypatch.setenv("ACLNN_PY_ZERO_COPY", "1")
    lent = _layout_call(name, t, k, h, places, shift, order, via)
    assert live() == before, "a lent span was not reclaimed"
    monkeypatch.setenv("ACLNN_PY_ZERO_COPY", "0")
    copied = _layout_call(name, t, k, h, places, shift, order, via)
    assert len(lent) == len(copied)
    for a, b in zip(lent, copied):
        assert a.tobytes() == b.tobytes()


def test_spans_another_thread_has_lent_are_copied(monkeypatch):
    """Part of an array lent by someone else (here directly, as another thread's call would): calls on views of
    it, objects uploading from it and mirror copies from it succeed and read what the copying path reads."""
    base = np.arange(256, dtype=np.float32).reshape(64, 4)
    idx = np.arange(16, dtype=np.int32)
    lent_part = base[20:40]
    span = acl.host_ptr(lent_part)
    dev = acl.aclStubLendHostMemory(span, lent_part.nbytes)
    try:
        results = []
        for zero_copy in ("1", "0"):
            monkeypatch.setenv("ACLNN_PY_ZERO_COPY", zero_copy)
            got = [aclnn_py.moe_token_permute_grad(base[r:r + 16], idx, num_topk=1) for r in (10, 22, 30)]
            out = np.zeros((16, 4), np.float32)
            aclnn_py.run("aclnnMoeTokenPermuteGrad", base[14:30], idx, 1, False, out=out)
            with aclnn_py.Tensor.from_numpy(base[12:28]) as tensor:
                got += [out, tensor.numpy()]
            with aclnn_py.DeviceBuffer(64) as buf:
                buf.upload(base[18:22])
                back = np.zeros(16, np.float32)
                buf.download(back)
                got.append(back)
            results.append(got)
        assert_all_same(tuple(results[0]), tuple(results[1]))
        assert_all_same(results[0][0], base[10:26])
    finally:
        acl.aclStubReclaimHostMemory(dev)


def test_threads_lending_overlapping_views_all_succeed():
    base = np.arange(96 * 8, dtype=np.float32).reshape(96, 8)
    idx = np.arange(48, dtype=np.int32)
    errors_seen, done = [], []

    def work(start):
        try:
            for _ in range(30):
                got = aclnn_py.moe_token_permute_grad(base[start:start + 48], idx, num_topk=1)
                assert np.array_equal(got, base[start:start + 48])
            done.append(start)
        except Exception as exc:  # pragma: no cover - reported below
            errors_seen.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in (0, 8, 16, 24, 40)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors_seen == [] and len(done) == 5


@pytest.mark.parametrize("op", OPS, ids=[op.py_name for op in OPS])
def test_misaligned_inputs_of_every_operator(op, monkeypatch):
    """Every input moved to an address one byte past alignment (np.frombuffer(..., offset=1)): the copying path's
    results."""
    args = BUILDERS[op.py_name](QUICK, op_dtypes(op)[0], Data())

    def misaligned(a):
        if not isinstance(a, np.ndarray) or a.itemsize == 1:
            return a
        return np.frombuffer(b"\0" + a.tobytes(), a.dtype, offset=1).reshape(a.shape)

    moved = tuple(misaligned(a) for a in args)
    assert any(isinstance(a, np.ndarray) and not a.flags.aligned for a in moved)
    fn = getattr(aclnn_py, op.py_name)
    lent = _as_tuple(fn(*moved))
    monkeypatch.setenv("ACLNN_PY_ZERO_COPY", "0")
    assert_all_same(lent, _as_tuple(fn(*moved)))


# MoeInitRoutingV3 (x 8 x 4, 2 experts per token out of 4): the arguments after expertIdx, and which of the
# results the call zero-fills before lending them (expandedX, expandedRowIdx, counts, expandedScale).
V3_ZEROING = [
    # dropless over every expert, no quantisation: every slot fills a row; the empty expandedScaleOut placeholder
    # is not returned, so it does not make the call zero its results
    ((None, None, -1, -1, 4, 0, 1, True, -1, None, 0), [False, False, False]),
    ((np.array([0.5], np.float32), np.array([0.0], np.float32), -1, -1, 4, 0, 1, True, 0, None, 0),
     [False, False, False]),
    # an active range of half the experts: the rows beyond its slots stay unwritten
    ((None, None, -1, -1, 4, 0, 1, True, -1, [0, 2], 0), [True, False, False]),
]


@pytest.mark.parametrize("rest, zeroed", V3_ZEROING)
def test_init_routing_v3_zeroes_only_results_it_may_leave_unwritten(monkeypatch, rest, zeroed):
    from aclnn_py import memory, ops

    seen = []
    real = memory.host_array

    def spy(shape, dtype, nbytes, zero):
        seen.append(zero)
        return real(shape, dtype, nbytes, zero)

    monkeypatch.setattr(ops.memory, "host_array", spy)
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    idx = np.array([[i % 4, (i + 1) % 4] for i in range(8)], np.int32)
    aclnn_py.moe_init_routing_v3(x, idx, *rest)
    assert seen[:3] == zeroed
