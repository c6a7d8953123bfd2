"""Every high-level operator function takes what run() takes and answers in the caller's kind: torch CPU tensors
(float32, float16, bfloat16) in, torch tensors out; device Tensors in, Tensors out; results equal, bit for bit,
to the numpy call's. The calls replayed are the ones the round-trip checks make, so every operator is covered."""

from __future__ import annotations

import numpy as np
import pytest

import aclnn_py
from aclnn_py import Tensor, dtypes, ops, testing
from aclnn_py._optable import OPS

torch = pytest.importorskip("torch")

# Each forward's round trip also calls its backward; together they call every operator of the table.
FORWARDS = ["moe_token_permute", "moe_token_permute_with_routing_map", "moe_token_permute_with_ep",
            "moe_init_routing_v2", "moe_init_routing_v3", "moe_token_unpermute", "moe_token_unpermute_with_ep",
            "moe_token_unpermute_with_routing_map", "moe_finalize_routing_v2"]
FLOATS = ["float32", "float16", "bfloat16"]


def recorded_calls(monkeypatch) -> list:
    calls = []

    def recorder(op, values, stream=None):
        results = ops.call(op, values, stream)
        calls.append((op, values, results))
        return results

    for op in OPS:
        monkeypatch.setitem(getattr(aclnn_py, op.py_name).__globals__, "_call", recorder)
    return calls


@pytest.fixture(scope="module")
def calls():
    """(operator, arguments, numpy results) of the round trips, for every float dtype."""
    mp = pytest.MonkeyPatch()
    recorded = recorded_calls(mp)
    for forward in FORWARDS:
        for i, dtype in enumerate(FLOATS):
            testing.check_pair(forward, np.random.default_rng(i), dtype=dtype)
    mp.undo()
    return recorded


def test_the_round_trips_call_every_operator_in_every_float_dtype(calls):
    seen = {(op.py_name, str(v.dtype)) for op, values, _ in calls for v in values[:1] if isinstance(v, np.ndarray)}
    for op in OPS:
        assert {d for name, d in seen if name == op.py_name} >= set(FLOATS), op.py_name


def to_torch(a):
    if a.dtype in dtypes.ML_DTYPES:
        return torch.from_numpy(a.view(f"u{a.itemsize}")).view(getattr(torch, a.dtype.name))
    return torch.from_numpy(a)


def torch_bytes(t) -> bytes:
    return t.contiguous().view(torch.uint8).numpy().tobytes() if t.numel() else b""


def as_tuple(results):
    return results if isinstance(results, tuple) else (results,)


def test_torch_tensors_in_torch_tensors_out(calls):
    for op, values, expected in calls:
        args = [to_torch(v) if isinstance(v, np.ndarray) else v for v in values]
        got = getattr(aclnn_py, op.py_name)(*args)
        for g, e in zip(as_tuple(got), as_tuple(expected)):
            if e is None:
                assert g is None
                continue
            assert isinstance(g, torch.Tensor), op.py_name
            assert g.dtype == to_torch(np.zeros(1, e.dtype)).dtype and tuple(g.shape) == e.shape, op.py_name
            assert torch_bytes(g) == e.tobytes(), op.py_name


def test_device_tensors_in_tensors_out(calls):
    for op, values, expected in calls[:: max(1, len(calls) // 20)]:  # a sample: each call copies through the host
        args = [Tensor.from_numpy(v) if isinstance(v, np.ndarray) else v for v in values]
        got = getattr(aclnn_py, op.py_name)(*args)
        for g, e in zip(as_tuple(got), as_tuple(expected)):
            if e is None:
                assert g is None
                continue
            assert isinstance(g, Tensor) and g.dtype == e.dtype and g.shape == e.shape, op.py_name
            assert g.to_numpy().tobytes() == e.tobytes(), op.py_name
            g.close()
        for a in args:
            if isinstance(a, Tensor):
                a.close()


def test_a_tensor_outside_host_memory_is_refused_clearly():
    from aclnn_py import _dlpack

    class OnCuda:  # a producer whose capsule says kDLCUDA
        def __dlpack__(self, **kwargs):
            capsule = np.ones((2, 2), np.float32).__dlpack__(**kwargs)
            managed, _, _ = _dlpack._managed(capsule)
            managed.dl_tensor.device.device_type = 2
            return capsule

    with pytest.raises(BufferError, match="argument 'permuted_output_grad'.*not in host memory"):
        aclnn_py.moe_token_permute_grad(OnCuda(), np.arange(2, dtype=np.int32), 1)


def test_tensor_protocols():
    a = np.arange(6, dtype=np.float16).reshape(2, 3)
    with Tensor.from_numpy(a) as t:
        assert (t.ndim, t.size, t.nbytes, len(t)) == (2, 6, 12, 2)
        assert np.array_equal(np.asarray(t), a) and np.asarray(t).dtype == a.dtype
        assert np.array_equal(t.to_numpy(), a) and np.asarray(t, dtype=np.float32).dtype == np.float32
        assert float(np.sum(t)) == 15.0
        with pytest.raises(ValueError, match="copy=False"):
            t.__array__(copy=False)
    with Tensor((), "float32") as scalar:
        assert scalar.ndim == 0 and scalar.size == 1
        with pytest.raises(TypeError):
            len(scalar)
