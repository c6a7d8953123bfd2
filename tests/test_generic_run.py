"""aclnn_py.run: the generic call of any operator. On our operators it gives the table-driven functions'
results; on the test operator library (tests/data/pytest_oplib.c, headers in tests/data/op_headers) every
parameter type arrives; on an operator built with the stub's SDK it computes; torch tensors go in and out
through DLPack; device Tensors chain without copies."""

from __future__ import annotations

import array
import os
from types import SimpleNamespace

import ml_dtypes
import numpy as np
import pytest

import aclnn_py
from aclnn_py import Tensor, TensorList, _dynamic, _headers, acl, aclnn, ops, testing
from aclnn_py._optable import OPS
from aclnn_py.errors import AclnnError

from helpers_proc import run_json
from test_header_mirror import DATA, HEADERS, build_oplib, record

try:
    import torch
except ImportError:  # torch is optional: the DLPack path is also tested through numpy (test_dlpack.py)
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

BF16 = np.dtype(ml_dtypes.bfloat16)
USER_OP = DATA.parent.parent / "examples" / "user_op"


@pytest.fixture(autouse=True)
def release_pooled_workspace():
    """run() keeps the default stream's workspace pooled, as the high-level functions do (freed with the
    device): released after each test so the leak check sees what the test itself left."""
    yield
    aclnn_py._native.lib.aclnnpy_stream_release(aclnn_py._native.ffi.NULL)


@pytest.fixture(scope="module")
def oplib(tmp_path_factory):
    """The test operator library loaded, its headers added, a fresh parse cache."""
    tmp = tmp_path_factory.mktemp("generic")
    saved = os.environ.get("ACLNN_PY_CACHE_DIR")
    os.environ["ACLNN_PY_CACHE_DIR"] = str(tmp / "cache")
    lib = build_oplib(tmp / "libpytest_generic.so", "generic", "-DPYTEST_OPLIB_COMPUTE_ONLY")
    aclnn_py.load_op_library(lib)
    added = [HEADERS]
    for d in added:
        aclnn_py.add_include_dir(d)
    # Another test module may have loaded a build that exports the same operators first: read the record of
    # the library the operator resolves to.
    handle = _dynamic._abi_ffi().dlopen(aclnn.aclnnPytestComputeGetWorkspaceSize.library)
    _dynamic._abi_ffi().cdef("const char *pytest_oplib_last(void);", override=True)
    yield lambda: {k: v for k, v in record(_dynamic._abi_ffi(), handle).items() if k != "lib"}
    _headers._user_dirs[:] = [d for d in _headers._user_dirs if d not in added]
    _headers._index.clear()
    if saved is None:
        del os.environ["ACLNN_PY_CACHE_DIR"]
    else:
        os.environ["ACLNN_PY_CACHE_DIR"] = saved


# ---- our operators: the same results as the table-driven functions -----------------------------------

def recorded_calls(monkeypatch):
    """Make every high-level operator function record (operator, values, results) of its calls."""
    calls = []

    def recorder(op, values, stream=None):
        results = ops.call(op, values, stream)
        calls.append((op, values, results))
        return results

    for op in OPS:
        monkeypatch.setitem(getattr(aclnn_py, op.py_name).__globals__, "_call", recorder)
    return calls


def replay(op, values):
    """run() on the values a high-level call received, with outputs allocated as the table says; the outputs
    in the high-level function's shapes (None where it returns None)."""
    ns = SimpleNamespace()
    it = iter(values)
    for p in op.params:
        if p.role != "out":
            setattr(ns, p.name, next(it))
    outs, shown = [], []
    for p in op.params:
        if p.role != "out":
            continue
        wanted = p.returned is None or bool(p.returned(ns))
        if p.optional and not wanted:
            outs.append(None)
            shown.append(None)
            continue
        a = np.full(tuple(p.shape(ns)), 7, ops._output_dtype(p, ns))  # run must overwrite what the op writes
        outs.append(a)
        shown.append(a.reshape(p.result_shape(ns)) if p.result_shape else a if wanted else None)
    got = aclnn_py.run(op.c_name, *values, out=outs if len(outs) > 1 else outs[0])
    assert all(g is o for g, o in zip(got if len(outs) > 1 else (got,), outs))  # the caller's arrays
    return shown


@pytest.mark.parametrize("forward, kwargs", [
    ("moe_token_permute", {}), ("moe_token_permute", {"dtype": "bfloat16", "num_out_tokens": 5}),
    ("moe_token_permute_with_routing_map", {"dtype": "float16"}),
    ("moe_token_permute_with_routing_map", {"drop_and_pad": True, "with_probs": False}),
    ("moe_token_permute_with_ep", {"dtype": "bfloat16"}), ("moe_token_permute_with_ep", {"with_probs": False}),
    ("moe_init_routing_v2", {}), ("moe_init_routing_v2", {"drop_pad_mode": 1, "dtype": "bfloat16"}),
])
def test_run_equals_the_table_driven_functions(monkeypatch, forward, kwargs):
    calls = recorded_calls(monkeypatch)
    testing.check_pair(forward, np.random.default_rng(len(forward)), **kwargs)
    assert len(calls) == 2  # the forward and its backward
    for op, values, results in calls:
        results = results if isinstance(results, tuple) else (results,)
        for got, expected in zip(replay(op, values), results):
            if expected is None:
                assert got is None
            else:
                assert got.dtype == expected.dtype and got.shape == expected.shape
                assert np.array_equal(got.view(np.uint8), expected.view(np.uint8)), op.c_name


def test_the_header_rule_finds_the_outputs_the_table_names():
    from aclnn_py.generic import signature

    for op in OPS:
        sig = signature(op.c_name)
        assert [sig.params[i][0] for i in sig.outputs] == [p.name for p in op.params if p.role == "out"]


def test_arguments_by_c_and_snake_case_name():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    idx = np.array([0, 3, 1, 2, 5, 4], np.int64)
    expected = aclnn_py.moe_token_permute(x, idx)
    out = (np.empty_like(expected[0]), np.empty_like(expected[1]))
    aclnn_py.run("aclnnMoeTokenPermute", tokens=x, indices=idx, num_out_tokens=0, paddedMode=False,
                 permute_tokens_out=out[0], sortedIndicesOut=out[1])
    assert np.array_equal(out[0], expected[0]) and np.array_equal(out[1], expected[1])


def test_binding_errors_name_the_parameters():
    x, idx = np.zeros((2, 2), np.float32), np.zeros(2, np.int32)
    with pytest.raises(TypeError, match="missing arguments: paddedMode, permuteTokensOut, sortedIndicesOut"):
        aclnn_py.run("aclnnMoeTokenPermute", x, idx, 0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        aclnn_py.run("aclnnMoeTokenPermute", x, idx, 0, False, bogus=1)
    with pytest.raises(TypeError, match="multiple values for argument 'tokens'"):
        aclnn_py.run("aclnnMoeTokenPermute", x, idx, 0, False, tokens=x)
    with pytest.raises(TypeError, match="takes 4 positional arguments .* or all 6 parameters in C order, got 5"):
        aclnn_py.run("aclnnMoeTokenPermute", x, idx, 0, False, x)
    with pytest.raises(TypeError, match="out= must be a sequence of 2 outputs"):
        aclnn_py.run("aclnnMoeTokenPermute", x, idx, 0, False, out=x)
    with pytest.raises(ValueError, match="named as in C without the phase suffix"):
        aclnn_py.run("aclnnMoeTokenPermuteGetWorkspaceSize", x)
    with pytest.raises(ValueError, match="read-only array"):
        ro = np.zeros((2, 2), np.float32)
        ro.flags.writeable = False
        aclnn_py.run("aclnnMoeTokenPermute", x, idx, 0, False, out=(ro, np.zeros(2, np.int32)))
    with pytest.raises(TypeError, match="argument 'tokens'.* has no aclDataType counterpart"):
        aclnn_py.run("aclnnMoeTokenPermute", x.astype(np.longdouble), idx, 0, False, out=(x, idx))


def test_operator_errors_raise_and_release_everything():
    # The leak check of conftest verifies that the uploaded tensors were released after the failure.
    x, idx = np.zeros((4, 3), np.float32), np.zeros((4, 1), np.int32)
    out = (np.zeros((4, 3), np.float32), np.zeros(4, np.int32))
    with pytest.raises(AclnnError) as info:
        aclnn_py.run("aclnnMoeTokenPermute", x.astype(np.float64), idx, 0, False, out=out)
    assert info.value.function == "aclnnMoeTokenPermuteGetWorkspaceSize"


# ---- every parameter type, on the test operator library ---------------------------------------------

def test_every_parameter_type_arrives(oplib):
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    other = Tensor.from_numpy(np.ones(3, np.float32))
    out = np.zeros((3, 4), np.float32)
    got = aclnn_py.run("aclnnPytestCompute", x, [x, None, other], 2.5, [1, 2.5, True], (0, 1), [True, False],
                       np.array([0.5, 0.25, 1.0], np.float32), 3.0, False, 2, "pos", out=out)
    assert got is out
    assert np.array_equal(out, x * np.float32(3.0) + np.float32(2))
    assert oplib() == {"op": "compute", "others": "3", "alpha": "1", "betas": "3",
                       "dims": "2", "mask": "2", "weights": "3", "mode": "pos"}
    # None for every optional handle, a bool and a string that change the result, keyword arguments.
    aclnn_py.run("aclnnPytestCompute", self=x, others=None, alpha=None, betas=None, dims=None, mask=None,
                 weights=None, scale=0.5, negate=True, bias=-1, mode="pos", out=out)
    assert np.array_equal(out, -(x * np.float32(0.5) - 1))
    assert oplib()["others"] == "-1" and oplib()["alpha"] == "0" and oplib()["weights"] == "-1"
    aclnn_py.run("aclnnPytestCompute", x, None, None, None, None, None, None, 1.0, False, 0, "neg", out=out)
    assert np.array_equal(out, -x) and oplib()["mode"] == "neg"


def test_objects_of_the_meta_api_pass_as_they_are(oplib):
    x = np.arange(4, dtype=np.float32)
    out = np.zeros(4, np.float32)
    with TensorList([Tensor.from_numpy(x)]) as tl, aclnn_py.Scalar(1.5) as alpha, \
            aclnn_py.ScalarList([1, 2]) as betas, aclnn_py.IntArray([4, 5, 6]) as dims, \
            aclnn_py.BoolArray([True]) as mask, aclnn_py.FloatArray([]) as weights:
        aclnn_py.run("aclnnPytestCompute", x, tl, alpha, betas, dims, mask, weights, 2.0, False, 0, "pos", out=out)
    assert np.array_equal(out, 2 * x)
    assert {k: oplib()[k] for k in ("others", "alpha", "betas", "dims", "mask", "weights")} == {
        "others": "1", "alpha": "1", "betas": "2", "dims": "3", "mask": "1", "weights": "0"}


def test_strided_and_foreign_buffers(oplib):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = base[::2, 1::2]  # a strided view is uploaded as a view, not copied on the host
    out_base = np.zeros((4, 6), np.float32)
    out = out_base[1::2, ::2]
    aclnn_py.run("aclnnPytestCompute", x, None, None, None, None, None, None, 2.0, False, 1, "pos", out=out)
    assert np.array_equal(out, x * 2 + 1)
    assert np.array_equal(out_base[::2], np.zeros((2, 6), np.float32))  # nothing written outside the view
    buf = array.array("f", [1.0, 2.0, 3.0])  # the buffer protocol
    res = np.zeros(3, np.float32)
    aclnn_py.run("aclnnPytestCompute", buf, None, None, None, None, None, None, 1.0, False, 1, "pos", out=res)
    assert res.tolist() == [2.0, 3.0, 4.0]
    swapped = np.arange(3, dtype=">f4")  # other byte order: converted on the way in and out
    res_swapped = np.zeros(3, ">f4")
    aclnn_py.run("aclnnPytestCompute", swapped, None, None, None, None, None, None, 1.0, True, 0, "pos",
                 out=res_swapped)
    assert res_swapped.tolist() == [-0.0, -1.0, -2.0]


def test_in_place_operand_is_uploaded_and_written_back(oplib):
    a = np.array([1.0, -2.0, 4.0], np.float32)
    assert aclnn.describe("aclnnPytestInplaceScaleGetWorkspaceSize")[0]["role"] == "output tensor"
    got = aclnn_py.run("aclnnPytestInplaceScale", a, 3.0)  # the rule: a non-const tensor is an output
    assert got is a and a.tolist() == [3.0, -6.0, 12.0]  # every parameter positionally, as in C
    aclnn_py.run("aclnnPytestInplaceScale", 0.5, self_ref=a)
    assert a.tolist() == [1.5, -3.0, 6.0]


def test_outputs_override_the_rule(oplib):
    a = np.array([1.0, 2.0], np.float32)
    assert aclnn_py.run("aclnnPytestInplaceScale", a, 5.0, outputs=()) == ()
    assert a.tolist() == [1.0, 2.0]  # an input now: not written back
    x, out = np.ones(2, np.float32), np.zeros(2, np.float32)
    got = aclnn_py.run("aclnnPytestCompute", None, None, None, None, None, None, 1.0, False, 1, "pos",
                       out=(x, out), outputs=["self", "out"])  # self an output too: uploaded, written back
    assert got[0] is x and got[1] is out and out.tolist() == [2.0, 2.0] and x.tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="outputs= names 'scale', which is not a tensor"):
        aclnn_py.run("aclnnPytestCompute", x, outputs=["scale"])
    with pytest.raises(ValueError, match="outputs= names 'nope', which is not a parameter"):
        aclnn_py.run("aclnnPytestCompute", x, outputs="nope")


def test_operator_built_with_the_sdk(tmp_path):
    # In a fresh interpreter: the SDK's registry of this process stays the stub's own operators.
    from test_sdk import build_library

    library = tmp_path / "libuser_add.so"
    build_library(USER_OP / "add_custom.c", library, f"-I{USER_OP / 'include'}")
    result = run_json(f'''
        import numpy as np
        import aclnn_py
        aclnn_py.load_op_library({str(library)!r})
        aclnn_py.add_include_dir({str(USER_OP / "include")!r})
        x = np.array([[-1.5, 2.0], [0.0, -3.25]], np.float32)
        z = np.zeros_like(x)
        aclnn_py.run("aclnnAddCustom", x, np.float32(1.0), out=z)
        emit({{"z": z.tolist(), "bad": error(lambda: aclnn_py.run("aclnnAddCustom", x, x, out=np.zeros(3, np.float32)))}})
    ''', env={"ACLNN_PY_CACHE_DIR": str(tmp_path / "cache")})
    assert result["z"] == [[-0.5, 3.0], [1.0, -2.25]]
    # The SDK's own checks come through, with the official code.
    assert result["bad"]["status"] == aclnn.ACLNN_ERR_PARAM_INVALID
    assert "shape of out should be [2, 2], but current is [3]" in result["bad"]["text"]


# ---- torch and device tensors -----------------------------------------------------------------------------

@needs_torch
def test_torch_tensors_in_and_out_through_dlpack(oplib):
    x = torch.arange(8, dtype=torch.float32).reshape(2, 4)
    out = torch.zeros(4, 2).t()  # a transposed (strided) output
    aclnn_py.run("aclnnPytestCompute", x, None, None, None, None, None, None, 0.5, False, 1, "pos", out=out)
    assert torch.equal(out, x * 0.5 + 1)


@needs_torch
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_torch_float_dtypes_on_our_operators(dtype):
    rng = np.random.default_rng(1)
    x = rng.integers(-8, 8, (6, 3)).astype(np.float32).astype(np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16"
                                                              else dtype)
    idx = rng.integers(0, 6, (6, 2)).astype(np.int32)
    expected = aclnn_py.moe_token_permute(x, idx)
    tx = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16) if dtype == "bfloat16" else torch.from_numpy(x)
    outs = (torch.zeros(12, 3, dtype=getattr(torch, dtype)), torch.zeros(12, dtype=torch.int32))
    aclnn_py.run("aclnnMoeTokenPermute", tx, torch.from_numpy(idx), 0, False, out=outs)
    assert np.array_equal(outs[0].view(torch.int16).numpy(), expected[0].view(np.int16))
    assert np.array_equal(outs[1].numpy(), expected[1])


def test_device_tensors_chain_without_copies(oplib):
    x = Tensor.from_numpy(np.arange(6, dtype=np.float32))
    mid, end = Tensor((6,), "float32"), Tensor((6,), "float32")
    mid_ptr = int(aclnn_py._native.ffi.cast("uintptr_t", mid.buffer.ptr))
    allocations = acl.aclStubLiveAllocations()
    assert aclnn_py.run("aclnnPytestCompute", x, None, None, None, None, None, None, 2.0, False, 0, "pos",
                        out=mid) is mid
    aclnn_py.run("aclnnPytestCompute", mid, None, None, None, None, None, None, 1.0, False, 1, "pos", out=end)
    aclnn_py._native.lib.aclnnpy_stream_release(aclnn_py._native.ffi.NULL)  # the pooled workspace
    assert acl.aclStubLiveAllocations() == allocations  # nothing uploaded: the operators used the Tensors
    assert int(aclnn_py._native.ffi.cast("uintptr_t", mid.buffer.ptr)) == mid_ptr
    assert end.numpy().tolist() == [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]
    for t in (x, mid, end):
        t.close()
