"""Whatever a Python caller passes fails cleanly (AclError/AclnnError/ValueError/TypeError) or works: no crash,
no leak, and an invalid call is an error whatever the shapes. One test per misuse class; the leak fixture of
conftest.py checks every test leaves the stub's live-object counters where it found them."""

import re

import numpy as np
import pytest

import aclnn_py
from aclnn_py import AclnnError, Device, DeviceBuffer, Stream, Tensor, acl, aclnn, errors

from helpers_acl import NULL, live_counts
from helpers_proc import run_json

TILING, INVALID = 561002, 161002
F32, I32 = np.float32, np.int32


# ---- calls before the libraries are bound (each in a fresh process) ----------------------------------------

@pytest.mark.parametrize("first_call", ["aclnn_py.Stream(123)", "aclnn_py.DeviceBuffer(64, device=5)",
                                        "aclnn_py.Tensor((2,), 'float32', device=7)"])
def test_objects_refuse_a_wrong_device_as_the_first_call(first_call):
    r = run_json(f'''
        import aclnn_py
        emit({{"error": error(lambda: {first_call}), "loaded": aclnn_py.loader.loaded() is not None}})
    ''', env={"ACLNN_PY_BACKEND": "stub"})
    assert r["error"]["type"] == "TypeError" and "'device'" in r["error"]["text"]


def test_every_symbol_is_safe_to_call_before_binding():
    # Each table slot starts at a "not bound" function of its signature: an error status, NULL or zero.
    r = run_json('''
        from aclnn_py import loader
        from aclnn_py._native import SIGNATURES, ffi, lib
        results = {}
        for name, sig in SIGNATURES.items():
            if name.startswith("aclnnpy"):
                continue
            args = [ffi.NULL if (t.endswith("*") or t in ("aclrtStream", "const aclrtStream", "aclrtContext",
                                                          "aclrtEvent", "aclrtCallback")) else 0
                    for _, t in sig["params"]]
            r = getattr(lib, name)(*args)
            results[name] = (sig["result"], r if isinstance(r, (int, float)) or r is None else r == ffi.NULL)
        emit({"results": results, "loaded": loader.loaded() is not None})
    ''', env={"ACLNN_PY_BACKEND": "stub"})
    assert not r["loaded"]
    results = r["results"]
    assert len(results) > 50
    for name, (result, value) in results.items():
        if result == "aclError":
            assert value == 200001, name  # ACL_ERROR_API_NOT_SUPPORT
        elif result == "aclnnStatus":
            assert value == 561000, name  # ACLNN_ERR_INNER
        elif result.endswith("*"):
            assert value is True, name  # NULL
        elif result != "void":
            assert value == 0, name


def test_error_text_before_binding_does_not_crash():
    r = run_json('''
        from aclnn_py import errors
        emit({"message": errors.recent_message(), "error": error(errors.check, 100000, "aclrtMalloc")})
    ''', env={"ACLNN_PY_BACKEND": "stub"})
    assert r["message"] is None and r["error"]["type"] == "AclErrorInvalidParam"


# ---- the mirror: counts checked against the arrays built from Python objects --------------------------------

@pytest.mark.parametrize("call, argument", [
    (lambda: acl.aclCreateIntArray([1, 2], 1 << 24), "'size'"),
    (lambda: acl.aclCreateIntArray((1, 2), 3), "'size'"),
    (lambda: acl.aclCreateTensor([2, 2], 1 << 20, acl.ACL_FLOAT, [2, 1], 0, acl.ACL_FORMAT_ND, [2, 2], 2, None),
     "'viewDimsNum'"),
    (lambda: acl.aclCreateTensor([2, 2, 2], 3, acl.ACL_FLOAT, [2, 1], 0, acl.ACL_FORMAT_ND, [8], 1, None),
     "'viewDimsNum'"),  # strides are read over viewDimsNum entries too
    (lambda: acl.aclCreateTensor([2, 2], 2, acl.ACL_FLOAT, [2, 1], 0, acl.ACL_FORMAT_ND, [4], 1 << 30, None),
     "'storageDimsNum'"),
    (lambda: acl.aclCreateIntArray([1, 2], -1), "'size'"),
])
def test_mirror_counts_beyond_the_array_are_value_errors(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


def test_mirror_counts_within_the_array_work():
    arr = acl.aclCreateIntArray([1, 2, 3], 2)  # a shorter count reads a prefix: allowed, as in C
    assert acl.aclGetIntArraySize(arr) == 2
    acl.aclDestroyIntArray(arr)


# ---- host spans -------------------------------------------------------------------------------------------

@pytest.fixture
def dev64():
    ptr = acl.aclrtMalloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    yield ptr
    acl.aclrtFree(ptr)


def test_host_span_describes_its_buffer():
    span = acl.host_ptr(np.zeros(3, np.int32))
    assert span.nbytes == len(span) == 12 and span.writable
    ro = acl.host_ptr(b"abcd")
    assert ro.nbytes == 4 and not ro.writable and "read-only" in repr(ro)
    with pytest.raises(ValueError, match="contiguous"):
        acl.host_ptr(np.zeros((4, 4))[:, ::2])
    with pytest.raises(TypeError, match="buffer protocol"):
        acl.host_ptr(12345)


def test_memcpy_counts_are_checked_against_the_host_span(dev64):
    H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST
    with pytest.raises(ValueError, match="'count'"):
        acl.aclrtMemcpy(dev64, 64, acl.host_ptr(np.zeros(4, np.uint8)), 64, H2D)
    with pytest.raises(ValueError, match="'destMax'"):  # the capacity declared for dst is checked too
        acl.aclrtMemcpy(acl.host_ptr(bytearray(8)), 64, dev64, 8, D2H)
    with pytest.raises(ValueError, match="'count'"):
        acl.aclrtMemcpy(acl.host_ptr(bytearray(8)), 8, dev64, 64, D2H)
    with pytest.raises(TypeError, match="read-only"):
        acl.aclrtMemcpy(acl.host_ptr(b"abcd"), 4, dev64, 4, D2H)
    with pytest.raises(TypeError, match="read-only"):
        acl.aclrtMemcpy(acl.host_ptr(np.frombuffer(b"abcd", np.uint8)), 4, dev64, 4, D2H)
    with pytest.raises(ValueError, match="'count'"):
        acl.aclrtMemset(acl.host_ptr(bytearray(4)), 4, 0, 8)
    stream = acl.aclrtCreateStream()
    try:
        with pytest.raises(ValueError, match="'count'"):
            acl.aclrtMemcpyAsync(dev64, 64, acl.host_ptr(b"ab"), 16, H2D, stream)
        with pytest.raises(TypeError, match="read-only"):
            acl.aclrtMemcpyAsync(acl.host_ptr(b"abcd"), 4, dev64, 4, D2H, stream)
    finally:
        acl.aclrtDestroyStream(stream)
    # Within the span: works, and a bytes source is fine for host-to-device.
    acl.aclrtMemcpy(dev64, 64, acl.host_ptr(b"abcd"), 4, H2D)
    back = bytearray(4)
    acl.aclrtMemcpy(acl.host_ptr(back), 4, dev64, 4, D2H)
    assert bytes(back) == b"abcd"


def test_scalar_value_must_hold_one_element():
    with pytest.raises(ValueError, match="dataType"):
        acl.aclCreateScalar(acl.host_ptr(np.zeros(1, np.int8)), acl.ACL_INT64)
    s = acl.aclCreateScalar(acl.host_ptr(np.array([7], np.int64)), acl.ACL_INT64)
    acl.aclDestroyScalar(s)


# ---- wrong argument types ---------------------------------------------------------------------------------

WRONG_TYPES = [
    (lambda: acl.aclrtMalloc("64", acl.ACL_MEM_MALLOC_HUGE_FIRST), "mirror: str size"),
    (lambda: acl.aclrtMalloc(64.0, acl.ACL_MEM_MALLOC_HUGE_FIRST), "mirror: float size"),
    (lambda: acl.aclCreateIntArray([1.5, 2], 2), "mirror: float in an int list"),
    (lambda: acl.aclCreateIntArray([1, 2], 2.0), "mirror: float count"),
    (lambda: acl.aclCreateIntArray("ab", 2), "mirror: str for an array"),
    (lambda: acl.aclrtSynchronizeStream(123), "mirror: int for a stream"),
    (lambda: acl.aclrtFree("ptr"), "mirror: str for a pointer"),
    (lambda: acl.aclrtMemcpy(NULL, 4, 5, 4, acl.ACL_MEMCPY_HOST_TO_DEVICE), "mirror: int for a pointer"),
    (lambda: acl.aclDestroyTensor(object()), "mirror: object for a handle"),
    (lambda: aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(1, 2, 3, False, 4), "mirror: ints for tensors"),
    (lambda: acl.host_ptr([1, 2, 3]), "host_ptr: a list"),
    (lambda: Device("0"), "Device: str id"),
    (lambda: Device(0.0), "Device: float id"),
    (lambda: Stream(device=0), "Stream: int device"),
    (lambda: DeviceBuffer("64"), "DeviceBuffer: str size"),
    (lambda: DeviceBuffer(64.5), "DeviceBuffer: float size"),
    (lambda: DeviceBuffer(64, device="npu:0"), "DeviceBuffer: str device"),
    (lambda: Tensor((2, 2.5), "float32"), "Tensor: float dim"),
    (lambda: Tensor((2,), "float32", buffer=b"12345678"), "Tensor: bytes buffer"),
    (lambda: Tensor((2,), "float32", offset=0.5), "Tensor: float offset"),
    (lambda: Tensor((2,), "datetime64[s]"), "Tensor: dtype without an aclDataType"),
    (lambda: aclnn_py.moe_token_permute_grad(np.ones((2, 2), F32), np.arange(2, dtype=I32), 2.5),
     "op: float attribute"),
    (lambda: aclnn_py.moe_token_permute_grad(np.ones((2, 2), F32), np.arange(2, dtype=I32), "2"),
     "op: str attribute"),
    (lambda: aclnn_py.moe_token_permute_grad(np.ones((2, 2), F32), np.arange(2, dtype=I32), 2, stream=123),
     "op: int stream"),
    (lambda: aclnn_py.moe_token_permute_grad(np.ones((2, 2), F32), np.arange(2, dtype=I32), 2, stream="s"),
     "op: str stream"),
    (lambda: aclnn_py.moe_token_permute_with_ep(np.ones((2, 2), F32), np.zeros((2, 1), I32), None, 5, 2),
     "op: int for an int array"),
    (lambda: aclnn_py.moe_token_permute_with_ep(np.ones((2, 2), F32), np.zeros((2, 1), I32), None, [0, 1.5], 2),
     "op: float in an int array"),
]


@pytest.mark.parametrize("call, what", WRONG_TYPES, ids=[w for _, w in WRONG_TYPES])
def test_wrong_argument_types_are_type_errors(call, what):
    with pytest.raises(TypeError):
        call()


def test_stream_type_error_names_the_argument():
    with pytest.raises(TypeError, match="'stream'.*aclnn_py.Stream"):
        aclnn_py.moe_token_permute_grad(np.ones((2, 2), F32), np.arange(2, dtype=I32), 2, stream=123)


# ---- objects: bounds and closed state ---------------------------------------------------------------------

def test_tensor_numpy_checks_its_view_against_the_buffer():
    with DeviceBuffer(16) as buf:
        for kwargs in ({"offset": -1}, {"strides": (100, 1)}, {"offset": 3}, {"strides": (-2, 1)},
                       {"offset": 1 << 40}):
            with Tensor((2, 2), F32, buffer=buf, **kwargs) as t:
                with pytest.raises(ValueError, match="outside its 16-byte buffer"):
                    t.numpy()
        with Tensor((2, 2), F32, strides=(-2, 1), offset=2, buffer=buf) as t:  # a valid negative stride
            assert t.numpy().shape == (2, 2)
    with pytest.raises(ValueError, match="strides"):
        Tensor((2, 2), F32, strides=(1,))


@pytest.mark.parametrize("action, error", [
    (lambda b: b.upload(b"ab", 10), "larger than the 2-byte host"),
    (lambda b: b.upload(b"ab", -1), ">= 0"),
    (lambda b: b.upload(b"ab", 2, -4), ">= 0"),
    (lambda b: b.upload(b"abcd", 4, 14), "outside the 16-byte buffer"),
    (lambda b: b.upload(np.zeros(17, np.uint8)), "outside the 16-byte buffer"),
    (lambda b: b.download(bytearray(4), 8), "larger than the 4-byte host"),
    (lambda b: b.download(bytearray(4), 4, 14), "outside the 16-byte buffer"),
    (lambda b: b.download(bytearray(4), -4), ">= 0"),
    (lambda b: b.download(bytearray(4), 4, -1), ">= 0"),
])
def test_device_buffer_copies_check_both_sides(action, error):
    with DeviceBuffer(16) as buf:
        with pytest.raises(ValueError, match=error):
            action(buf)


def test_device_buffer_download_refuses_read_only_hosts():
    with DeviceBuffer(8) as buf:
        for host in (b"12345678", np.frombuffer(b"12345678", np.uint8), memoryview(b"12345678")):
            with pytest.raises(TypeError, match="read-only"):
                buf.download(host)


def test_closed_objects_raise_instead_of_touching_released_resources():
    before = live_counts()
    d = Device(0)
    s = Stream(d)
    buf = DeviceBuffer(16, d)
    t = Tensor((2,), F32, buffer=buf)
    t.close()
    with pytest.raises(ValueError, match="closed Tensor"):
        t.numpy()
    buf.close()
    for action in (lambda: buf.upload(b"1234"), lambda: buf.download(bytearray(4)),
                   lambda: Tensor((2,), F32, buffer=buf)):
        with pytest.raises(ValueError, match="closed DeviceBuffer"):
            action()
    s.close()
    for action in (s.synchronize, lambda: s.workspace(64),
                   lambda: aclnn_py.moe_token_permute_grad(np.ones((2, 2), F32), np.arange(2, dtype=I32), 2,
                                                           stream=s)):
        with pytest.raises(ValueError, match="closed Stream"):
            action()
    d.close()
    with pytest.raises(ValueError, match="closed Device"):
        d.stream()
    with pytest.raises(ValueError, match="closed Device"):
        DeviceBuffer(8, d)
    assert live_counts() == before  # in particular the workspace after close() allocated nothing


def test_tensor_over_a_live_buffer_then_closed_buffer():
    buf = DeviceBuffer(8)
    t = Tensor((2,), F32, buffer=buf)
    buf.close()
    with pytest.raises(ValueError, match="closed DeviceBuffer"):
        t.numpy()
    t.close()


@pytest.mark.parametrize("make, error", [
    (lambda: Device(1 << 40), ValueError),
    (lambda: Device(-1), errors.AclStatusError),
    (lambda: Device(8), errors.AclStatusError),  # ids 0..7: eight devices
    (lambda: Tensor((2,), F32, format=1 << 40), ValueError),
    (lambda: Tensor((1 << 64,), F32), ValueError),
    (lambda: DeviceBuffer(1 << 64), ValueError),
    (lambda: acl.aclrtMalloc(-1, acl.ACL_MEM_MALLOC_HUGE_FIRST), ValueError),
    (lambda: acl.aclrtSetDevice(1 << 40), ValueError),
    (lambda: acl.aclCreateIntArray([1 << 64], 1), ValueError),
])
def test_values_outside_their_c_range_are_value_errors(make, error):
    with pytest.raises(error):
        make()


def test_bytes_where_c_takes_an_address_are_refused(dev64):
    # cffi would hand C a pointer into the immutable bytes object; the mirror asks for a host span instead.
    with pytest.raises(TypeError, match="host_ptr"):
        acl.aclrtMemcpy(b"abcd", 4, dev64, 4, acl.ACL_MEMCPY_DEVICE_TO_HOST)
    with pytest.raises(TypeError, match="host_ptr"):
        acl.aclrtSynchronizeStream(b"\x00")
    with pytest.raises(TypeError, match="host_ptr"):
        acl.aclCreateTensor([2], 1, acl.ACL_FLOAT, [1], 0, acl.ACL_FORMAT_ND, [2], 1, "data")


def test_workspace_checks_its_size():
    with Stream() as s:
        with pytest.raises(ValueError, match=">= 0"):
            s.workspace(-1)
        with pytest.raises(TypeError, match="'nbytes'"):
            s.workspace(1.5)


# ---- error paths release what they created ----------------------------------------------------------------

def test_failing_phase_two_releases_its_executor():
    g, idx = np.ones((4, 3), F32), np.arange(4, dtype=I32)
    s = Stream()
    acl.aclrtDestroyStream(s.handle)  # the object still believes it is open: phase 2 is what fails
    before = acl.aclStubLiveExecutors()
    for _ in range(1000):
        with pytest.raises(AclnnError) as ei:
            aclnn_py.moe_token_permute_grad(g, idx, 2, stream=s)
        assert ei.value.function == "aclnnMoeTokenPermuteGrad" and ei.value.status == INVALID
    assert acl.aclStubLiveExecutors() == before
    s.close()  # releasing the stale handle again is harmless


# ---- invalid attributes are errors whatever the shapes ----------------------------------------------------

def _g(rows, h=4):
    return np.ones((rows, h), F32)


INVALID_ATTRS = [
    # (function, args, kwargs, status, argument named)
    ("moe_token_permute_grad", (_g(2), np.arange(2, dtype=I32)), {"num_topk": 3}, TILING, "num_topk"),
    ("moe_token_permute_grad", (_g(2), np.arange(2, dtype=I32)), {"num_topk": 1000}, TILING, "num_topk"),
    ("moe_token_permute_grad", (_g(2, 0), np.arange(2, dtype=I32)), {"num_topk": -1}, TILING, "num_topk"),
    ("moe_token_permute_grad", (_g(0), np.arange(0, dtype=I32)), {"num_topk": 0}, TILING, "num_topk"),
    ("moe_token_permute_grad", (_g(0), np.arange(0, dtype=I32)), {"num_topk": 1, "padded_mode": True}, INVALID,
     "padded_mode"),
    ("moe_init_routing_v2_grad", (_g(2), np.arange(2, dtype=I32)), {"top_k": 3}, TILING, "top_k"),
    ("moe_init_routing_v2_grad", (_g(2, 0), np.arange(2, dtype=I32)), {"top_k": -1}, TILING, "top_k"),
    ("moe_init_routing_v2_grad", (_g(0), np.arange(0, dtype=I32)), {"top_k": 1, "drop_pad_mode": 2}, TILING,
     "drop_pad_mode"),
    ("moe_init_routing_v2_grad", (_g(0), np.arange(0, dtype=I32)), {"top_k": 1, "active_num": -1}, TILING,
     "active_num"),
    ("moe_token_permute_with_ep_grad", (_g(0), np.arange(0, dtype=I32), None), {"num_topk": 0, "range": None}, TILING,
     "num_topk"),
    ("moe_token_permute_with_ep_grad", (_g(2), np.arange(2, dtype=I32), None), {"num_topk": 3, "range": None}, TILING,
     "num_topk"),
    ("moe_token_permute_with_ep_grad", (_g(0), np.arange(0, dtype=I32), None),
     {"num_topk": 1, "range": [0, 1, 2]}, TILING, "range"),
    ("moe_token_permute_with_routing_map_grad", (_g(0), None, np.arange(0, dtype=I32), None),
     {"num_experts": 0, "tokens_num": 1}, INVALID, "num_experts"),
    ("moe_token_permute_with_routing_map_grad", (_g(0), None, np.arange(0, dtype=I32), None),
     {"num_experts": 1, "tokens_num": -3}, INVALID, "tokens_num"),
    ("moe_token_permute_with_routing_map", (_g(0), np.zeros((0, 4), np.bool_), None), {"num_out_tokens": -1},
     INVALID, "num_out_tokens"),
    ("moe_token_permute_with_ep", (_g(0), np.zeros((0, 2), I32), None), {"range": [0, 5], "num_out_tokens": 0},
     TILING, "range"),
    ("moe_token_permute_with_ep", (_g(0), np.zeros((0, 2), I32), None),
     {"range": None, "num_out_tokens": 0, "padded_mode": True}, TILING, "padded_mode"),
    ("moe_token_permute", (_g(0), np.zeros((0, 2), I32)), {"padded_mode": True}, TILING, "padded_mode"),
    ("moe_init_routing_v2", (_g(0), np.zeros((0, 2), I32)), {"drop_pad_mode": 5}, TILING, "drop_pad_mode"),
    ("moe_init_routing_v2", (_g(0), np.zeros((0, 2), I32)), {"expert_num": -1}, TILING, "expert_num"),
    ("moe_init_routing_v2", (_g(0), np.zeros((0, 2), I32)), {"expert_tokens_count_or_cumsum_flag": 3},
     TILING, "expert_tokens_count_or_cumsum_flag"),
]


@pytest.mark.parametrize("name, args, kwargs, status, argument", INVALID_ATTRS,
                         ids=[f"{n}-{a}-{i}" for i, (n, _, _, _, a) in enumerate(INVALID_ATTRS)])
def test_invalid_attributes_fail_whatever_the_shapes(name, args, kwargs, status, argument):
    with pytest.raises(AclnnError) as ei:
        getattr(aclnn_py, name)(*args, **kwargs)
    assert ei.value.status == status, str(ei.value)
    assert f"'{argument}'" in str(ei.value)
    assert ei.value.function.endswith("GetWorkspaceSize")


def test_table_rule_and_operator_agree_on_the_code():
    # The same broken attribute with shapes the operator does check: the operator's own status is the one
    # the table states (the rule only moves the check before the call).
    g, idx = _g(4), np.arange(4, dtype=I32)
    with Tensor.from_numpy(g) as tg, Tensor.from_numpy(idx) as ti, Tensor((1, 4), F32) as out:
        for k, status in ((3, TILING), (0, TILING), (1000, TILING)):
            with pytest.raises(AclnnError) as ei:
                aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(tg.handle, ti.handle, k, False, out.handle)
            assert ei.value.status == status
            with pytest.raises(AclnnError) as high:
                aclnn_py.moe_token_permute_grad(g, idx, k)
            assert type(high.value) is type(ei.value)


# ---- clear errors for common mistakes ---------------------------------------------------------------------

def test_plain_lists_get_a_dtype_hint():
    with pytest.raises(AclnnError) as ei:
        aclnn_py.moe_token_permute_grad([[1.0, 2.0], [3.0, 4.0]], np.arange(2, dtype=I32), 2)
    text = str(ei.value)
    assert ei.value.status == INVALID
    assert "'permuted_output_grad'" in text and "float64" in text and "list" in text
    assert "float32/float16/bfloat16" in text and "np.asarray(..., dtype=np.float32)" in text
    with pytest.raises(AclnnError) as ei:  # an array of the wrong dtype is named too
        aclnn_py.moe_token_permute_grad(_g(2), np.arange(2, dtype=np.int64), 2)
    assert "'sorted_indices'" in str(ei.value) and "int32" in str(ei.value)


def test_lists_of_an_accepted_dtype_work():
    tokens = np.arange(6, dtype=F32).reshape(3, 2)
    got = aclnn_py.moe_token_permute(tokens, [[2], [0], [1]])  # int64 indices are accepted
    expected = aclnn_py.moe_token_permute(tokens, np.array([[2], [0], [1]], I32))
    assert all(np.array_equal(a, b) for a, b in zip(got, expected))


def test_zero_d_arrays_and_numpy_integers_are_attribute_values():
    g, idx = np.arange(8, dtype=F32).reshape(4, 2), np.array([3, 1, 0, 2], I32)
    expected = aclnn_py.moe_token_permute_grad(g, idx, 2)
    for k in (np.array(2), np.int64(2), np.int32(2), np.array(2, np.int8)):
        assert np.array_equal(aclnn_py.moe_token_permute_grad(g, idx, k), expected)
    assert np.array_equal(aclnn_py.moe_token_permute_grad(g, idx, 2, np.array(False)), expected)
    with pytest.raises(TypeError, match="'num_topk'"):
        aclnn_py.moe_token_permute_grad(g, idx, np.array(2.0))
    with pytest.raises(ValueError, match="int64"):
        aclnn_py.moe_token_permute_grad(g, idx, 1 << 64)


def test_non_native_byte_order_is_converted():
    g, idx = np.arange(8, dtype=F32).reshape(4, 2), np.array([3, 1, 0, 2], I32)
    expected = aclnn_py.moe_token_permute_grad(g, idx, 2)
    swapped = g.astype(g.dtype.newbyteorder()), idx.astype(idx.dtype.newbyteorder())
    assert not swapped[0].dtype.isnative
    assert np.array_equal(aclnn_py.moe_token_permute_grad(*swapped, 2), expected)
    with Tensor.from_numpy(swapped[0]) as t:
        assert np.array_equal(t.numpy(), g)


@pytest.mark.parametrize("name, args, status", [
    ("moe_token_permute_grad", (np.ones(4, F32), np.arange(4, dtype=I32), 2), TILING),
    ("moe_init_routing_v2_grad", (np.ones(4, F32), np.arange(4, dtype=I32), 2), TILING),
    ("moe_token_permute_with_routing_map", (np.ones(4, F32), np.ones(4, np.bool_), None, 4), INVALID),
    ("moe_token_permute_with_ep_grad", (np.ones(4, F32), np.arange(4, dtype=I32), None, 2, None), TILING),
    ("moe_init_routing_v2", (np.ones(4, F32), np.zeros((4, 1), I32)), TILING),
])
def test_wrong_rank_reports_the_operator_rule(name, args, status):
    with pytest.raises(AclnnError) as ei:
        getattr(aclnn_py, name)(*args)
    assert ei.value.status == status
    assert re.search(r"must be 2-D( or 3-D)?, got 1-D", str(ei.value)), str(ei.value)
