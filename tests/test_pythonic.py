"""The Pythonic layer: Device, Stream, DeviceBuffer, Tensor, and the high-level operator function."""

import gc
import importlib

import ml_dtypes
import numpy as np
import pytest

import aclnn_py
from aclnn_py import AclnnError, Device, DeviceBuffer, Stream, Tensor, acl, errors

from helpers_acl import NULL, addr, live_counts
from helpers_proc import run_python

reference = importlib.import_module("aclnn_py.reference.moe_token_permute_grad").moe_token_permute_grad

BF16 = np.dtype(ml_dtypes.bfloat16)


def bits(a: np.ndarray) -> np.ndarray:
    """The raw bytes of an array as unsigned integers of the same width (NaN- and -0.0-exact compare)."""
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def same_bits(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(bits(a), bits(b))


# ---- Device ----------------------------------------------------------------------------------------------

def test_device_context_manager_and_idempotent_close():
    with Device(0) as d:
        assert not d.closed and d.device_id == 0
        assert acl.aclrtGetDevice() == 0
        assert "Device 0" in repr(d)
    assert d.closed and "closed" in repr(d)
    d.close()
    d.close()
    # the shared default device is unaffected by another Device(0) going away
    assert acl.aclrtGetDevice() == 0
    assert not aclnn_py.default_device().closed


def test_default_device_is_shared():
    assert aclnn_py.default_device() is aclnn_py.default_device()


def test_invalid_device_raises_and_leaves_state_alone():
    with pytest.raises(errors.AclErrorRtInvalidDeviceid):
        Device(acl.aclrtGetDeviceCount())  # ids run from 0 to the count - 1
    assert acl.aclrtGetDevice() == 0
    with DeviceBuffer(16) as b:
        assert b.ptr != NULL


# ---- Stream ----------------------------------------------------------------------------------------------

def test_stream_lifecycle():
    base = acl.aclStubLiveStreams()
    with Stream() as s:
        assert acl.aclStubLiveStreams() == base + 1
        assert s.handle != NULL and not s.closed
        s.synchronize()
        s2 = aclnn_py.default_device().stream()
        assert acl.aclStubLiveStreams() == base + 2
        s2.close()
    assert s.closed and acl.aclStubLiveStreams() == base
    s.close()
    s2.close()
    assert acl.aclStubLiveStreams() == base


def test_default_stream():
    s = Stream.default()
    assert s.handle == NULL
    s.synchronize()
    s.close()
    with Stream.default():
        pass


def test_forgotten_stream_is_released_when_collected():
    base = acl.aclStubLiveStreams()
    Stream()
    gc.collect()
    assert acl.aclStubLiveStreams() == base


# ---- DeviceBuffer ----------------------------------------------------------------------------------------

def test_device_buffer_round_trip_and_close():
    before = live_counts()
    data = np.arange(100, dtype=np.uint8)
    with DeviceBuffer(100) as buf:
        assert addr(buf.ptr) % 64 == 0 and buf.nbytes == 100
        assert acl.aclStubLiveAllocations() == before["aclStubLiveAllocations"] + 1
        zeros = np.ones(100, np.uint8)
        buf.download(zeros)
        assert (zeros == 0).all()  # zero-filled
        buf.upload(data)
        out = np.zeros(100, np.uint8)
        buf.download(out)
        assert (out == data).all()
        buf.upload(np.full(10, 0xEE, np.uint8), offset=90)
        tail = np.zeros(20, np.uint8)
        buf.download(tail, offset=80)
        assert (tail[:10] == data[80:90]).all() and (tail[10:] == 0xEE).all()
    assert buf.closed
    buf.close()
    assert live_counts() == before


def test_device_buffer_bounds_are_checked():
    # Checked in Python against both sides, before any copy (a device would not check a host span).
    with DeviceBuffer(16) as buf:
        with pytest.raises(ValueError, match="outside the 16-byte buffer"):
            buf.upload(np.zeros(32, np.uint8))
        with pytest.raises(ValueError, match="outside the 16-byte buffer"):
            buf.download(np.zeros(8, np.uint8), offset=12)


def test_zero_and_negative_size_buffers():
    before = acl.aclStubLiveAllocations()
    b = DeviceBuffer(0)
    assert b.ptr == NULL and b.nbytes == 0
    assert acl.aclStubLiveAllocations() == before
    b.close()
    with pytest.raises(ValueError):
        DeviceBuffer(-1)


# ---- Tensor round trips ----------------------------------------------------------------------------------

def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    a = (rng.standard_normal(shape) * 100).astype(np.float32).astype(dt)
    flat = a.reshape(-1)
    if flat.size >= 4:  # special values survive the trip bit for bit
        flat[:4] = np.array([np.nan, -0.0, np.inf, -np.inf], np.float32).astype(dt)
    return a


DTYPES = [np.float32, np.float16, BF16, np.int8, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_contiguous_round_trip(dtype):
    for shape in [(7,), (3, 5), (2, 3, 4), ()]:
        a = sample(dtype, shape)
        with Tensor.from_numpy(a) as t:
            assert t.shape == a.shape and t.dtype == a.dtype
            assert t.strides == tuple(s // a.itemsize for s in a.strides) and t.offset == 0
            assert acl.aclGetDataType(t.handle) == aclnn_py.dtypes.to_acl(a.dtype)
            assert acl.aclGetViewShape(t.handle) == list(a.shape)
            back = t.numpy()
        assert same_bits(back, a), (shape, back, a)


def views(base):
    return {
        "slice_rows": base[1:4],
        "step": base[::2],
        "cols": base[:, 1:5],
        "transpose": base.T,
        "neg_rows": base[::-1],
        "neg_cols": base[:, ::-2],
        "neg_both_transposed": base[::-2, ::-1].T,
        "broadcast": np.broadcast_to(base[0], (3,) + base.shape[1:]),
    }


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_strided_views_keep_strides_and_round_trip(dtype):
    base = sample(dtype, (6, 7), seed=3)
    for name, v in views(base).items():
        item = v.itemsize
        lo = sum((d - 1) * s for d, s in zip(v.shape, v.strides) if s < 0)
        with Tensor.from_numpy(v) as t:
            assert t.strides == tuple(s // item for s in v.strides), name
            assert t.offset == -lo // item, name
            assert acl.aclGetViewStrides(t.handle) == list(t.strides)
            assert acl.aclGetViewOffset(t.handle) == t.offset
            hi = sum((d - 1) * s for d, s in zip(v.shape, v.strides) if s > 0) + item
            assert t.buffer.nbytes == hi - lo, name  # only the spanned bytes are uploaded
            back = t.numpy()
        assert same_bits(back, np.ascontiguousarray(v)), name


def test_strides_not_multiple_of_itemsize_are_copied():
    raw = np.arange(40, dtype=np.uint8)
    odd = np.ndarray((3,), dtype=np.int32, buffer=raw, offset=1, strides=(6,))
    with Tensor.from_numpy(odd) as t:
        assert t.strides == (1,) and t.offset == 0
        assert same_bits(t.numpy(), np.ascontiguousarray(odd))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4)])
def test_zero_size_arrays(shape):
    before = acl.aclStubLiveAllocations()
    a = np.zeros(shape, np.float32)
    with Tensor.from_numpy(a) as t:
        assert t.shape == shape
        assert acl.aclStubLiveAllocations() == before  # nothing to allocate
        back = t.numpy()
    assert back.shape == shape and back.dtype == np.float32
    with Tensor.from_numpy(np.zeros((4, 6), np.int32)[:, 3:3]) as t:
        assert t.numpy().shape == (4, 0)


def test_tensor_over_an_existing_buffer():
    with DeviceBuffer(4 * 12) as buf:
        buf.upload(np.arange(12, dtype=np.float32))
        with Tensor((3, 2), np.float32, strides=(2, 5), offset=1, buffer=buf) as t:
            # element (i, j) at 1 + 2*i + 5*j
            expected = np.array([[1 + 2 * i + 5 * j for j in range(2)] for i in range(3)], np.float32)
            assert same_bits(t.numpy(), expected)
        assert not buf.closed  # the tensor does not own a buffer it was given


def test_tensor_close_is_idempotent_and_counters_return():
    before = live_counts()
    t = Tensor.from_numpy(np.ones((4, 4), np.float16))
    assert acl.aclStubLiveTensors() == before["aclStubLiveTensors"] + 1
    t.close()
    t.close()
    assert t.closed
    assert acl.aclStubLiveTensors() == before["aclStubLiveTensors"]
    del t
    gc.collect()
    assert live_counts() == before


def test_unsupported_numpy_dtype():
    with pytest.raises(TypeError):
        Tensor.from_numpy(np.zeros(3, np.longdouble))


# ---- the high-level operator -----------------------------------------------------------------------------

def permute_grad_case(dtype, p=12, h=5, k=3, seed=0):
    rng = np.random.default_rng(seed)
    grad = (rng.standard_normal((p, h)) * 10).astype(np.float32).astype(dtype)
    idx = rng.permutation(p).astype(np.int32)
    return grad, idx, k


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_moe_token_permute_grad_matches_reference(dtype):
    for k in (1, 2, 3):
        grad, idx, _ = permute_grad_case(dtype, k=k, seed=k)
        got = aclnn_py.moe_token_permute_grad(grad, idx, k)
        want = reference(grad, idx, k)
        assert same_bits(got, want), k


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_moe_token_permute_grad_strided_inputs(dtype):
    grad, idx, k = permute_grad_case(dtype, seed=5)
    big = np.zeros((grad.shape[1], 2 * grad.shape[0]), dtype)
    big[:, ::2] = grad.T[:, ::-1]
    strided_grad = big[:, ::2].T[::-1]        # == grad, with strides (-2 * itemsize, 2P * itemsize)
    assert np.array_equal(bits(strided_grad), bits(grad)) and not strided_grad.flags.c_contiguous
    idx_store = np.zeros(2 * idx.size, np.int32)
    idx_store[::2] = idx[::-1]
    strided_idx = idx_store[-2::-2]            # == idx, stride -2
    assert np.array_equal(strided_idx, idx)
    got = aclnn_py.moe_token_permute_grad(strided_grad, strided_idx, k)
    assert same_bits(got, reference(grad, idx, k))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_moe_token_permute_grad_out_of_range_and_negative_indices(dtype):
    grad, idx, k = permute_grad_case(dtype, p=8, k=2, seed=9)
    idx = np.array([0, 9, -1, 3, 8, 7, -5, 2, 1, 100, 2 ** 31 - 1, -(2 ** 31), 5, 5, 6, 4], np.int32)
    got = aclnn_py.moe_token_permute_grad(grad, idx, k)
    want = reference(grad, idx, k)
    assert same_bits(got, want)
    g = grad.astype(np.float32)
    # token 1 = idx[2] (skipped) + idx[3]; token 5 has both skipped -> +0.0
    assert same_bits(got[1], g[3].astype(dtype))
    assert same_bits(got[5], np.zeros(grad.shape[1], dtype))


def test_moe_token_permute_grad_empty_and_with_a_stream():
    grad, idx, k = permute_grad_case(np.float32)
    with Stream() as s:
        got = aclnn_py.moe_token_permute_grad(grad, idx, k, stream=s)
    assert same_bits(got, reference(grad, idx, k))
    empty = aclnn_py.moe_token_permute_grad(np.zeros((0, 4), np.float32), np.zeros(0, np.int32), 2)
    assert empty.shape == (0, 4) and empty.dtype == np.float32
    # P = 0 with a non-empty output: every index is skipped
    zeros = aclnn_py.moe_token_permute_grad(np.zeros((0, 3), np.float32), np.arange(4, dtype=np.int32), 2)
    assert same_bits(zeros, np.zeros((2, 3), np.float32))


def test_moe_token_permute_grad_releases_everything_when_it_raises():
    """Bad dtypes make phase 1 fail after the tensors were created; nothing may stay allocated."""
    gc.collect()
    before = live_counts()
    during = {}
    for grad_dtype, idx_dtype in [(np.float64, np.int32), (np.float32, np.int64), (np.int32, np.int32)]:
        grad = np.ones((4, 3), grad_dtype)
        idx = np.arange(4, dtype=idx_dtype)
        try:
            aclnn_py.moe_token_permute_grad(grad, idx, 2)
        except AclnnError as exc:
            status, text = exc.status, str(exc)
            # while the caller still holds the exception, without a garbage collection
            during[grad_dtype.__name__, idx_dtype.__name__] = live_counts()
        else:
            pytest.fail("no AclnnError")
        assert status == 161002 and "GetWorkspaceSize" in text
        gc.collect()
        assert live_counts() == before
    # ops.py: "Everything created for the call is released before it returns, also when the operator raises."
    leaked = {case: {k: v for k, v in c.items() if v != before[k]} for case, c in during.items() if c != before}
    assert not leaked


def test_moe_token_permute_grad_releases_everything_on_a_tiling_error():
    before = live_counts()
    with pytest.raises(errors.AclnnErrInnerTilingError):
        aclnn_py.moe_token_permute_grad(np.ones((4, 3), np.float32), np.arange(4, dtype=np.int32), 3)
    gc.collect()
    assert live_counts() == before


# ---- interpreter exit ------------------------------------------------------------------------------------

EXIT_SNIPPET = '''
import atexit
import os
from aclnn_py._native import ffi, lib

def report():
    # runs after every weakref finalizer (registered before the first one exists, so it runs last)
    os.environ["ACLNN_STUB_LOG"] = "0"  # the failures below are expected
    counts = [lib.aclStubLiveAllocations(), lib.aclStubLiveHostAllocations(), lib.aclStubLiveStreams(),
              lib.aclStubLiveTensors(), lib.aclStubLiveExecutors()]
    dev = ffi.new("int32_t *")
    print("EXIT", counts, lib.aclrtGetDevice(dev), lib.aclFinalize(), flush=True)

atexit.register(report)

import numpy as np
import aclnn_py
from aclnn_py import Device, DeviceBuffer, Stream, Tensor

dev = Device(0)
stream = dev.stream()
buf = DeviceBuffer(256)
t1 = Tensor.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::-1])
t2 = Tensor((2, 2), np.int32, buffer=buf)
t3 = Tensor.from_numpy(np.ones((5, 5), np.float16))
held = [t1, t2, t3, stream, buf]
res = aclnn_py.moe_token_permute_grad(np.ones((4, 2), np.float32), np.arange(4, dtype=np.int32), 2, stream=stream)
cycle = {"tensor": t3}
cycle["self"] = cycle
print("OK", res.tolist(), flush=True)
'''


def test_objects_left_open_are_released_at_exit():
    proc = run_python(EXIT_SNIPPET, env={"ACLNN_STUB_LOG": "1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no traceback, no stub error (the stub logs every error with ACLNN_STUB_LOG=1)
    lines = proc.stdout.splitlines()
    assert lines[0] == "OK [[2.0, 2.0], [2.0, 2.0]]"
    # everything freed; the device was reset (107002: no current device) and aclFinalize already ran (100037)
    assert lines[-1] == "EXIT [0, 0, 0, 0, 0] 107002 100037", proc.stdout
