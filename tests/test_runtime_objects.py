"""The runtime's objects: Device(n) for any device, Context, Event, Stream.wait/query/record, buffers on a
given device, per-thread current devices, and the high-level functions on streams of other devices."""

import threading

import numpy as np
import pytest

import aclnn_py
from aclnn_py import AclError, Context, Device, DeviceBuffer, Event, Stream, acl
from aclnn_py._native import ffi, lib

from helpers_acl import NULL


def free_memory(device: Device) -> int:
    with device._on():
        return acl.aclrtGetMemInfo(acl.ACL_HBM_MEM)[0]


def test_buffers_on_other_devices_use_that_device_and_leave_the_thread_alone():
    with Device(3) as d3:
        assert acl.aclrtGetDevice() == 0  # a Device object does not switch the thread's device
        before3, before0 = free_memory(d3), free_memory(aclnn_py.default_device())
        with DeviceBuffer(1 << 20, device=d3):
            assert free_memory(d3) == before3 - (1 << 20)
            assert free_memory(aclnn_py.default_device()) == before0
        assert free_memory(d3) == before3


def test_cross_device_copy():
    data = np.arange(4096, dtype=np.uint8) * 7
    with Device(5) as d5, DeviceBuffer(4096, device=d5) as src, DeviceBuffer(4096) as dst:
        src.upload(data)
        acl.aclrtMemcpy(dst.ptr, 4096, src.ptr, 4096, acl.ACL_MEMCPY_DEVICE_TO_DEVICE)
        back = np.zeros(4096, np.uint8)
        dst.download(back)
        assert (back == data).all()


def test_device_out_of_range():
    with pytest.raises(AclError) as ei:
        Device(acl.aclrtGetDeviceCount())
    assert ei.value.status == 107001


def test_current_device_is_per_thread():
    seen = {}

    def worker():
        try:
            acl.aclrtMalloc(64, 0)
        except AclError as exc:
            seen["before"] = exc.status
        aclnn_py.default_device()  # gives the thread device 0's context
        p = acl.aclrtMalloc(64, 0)
        acl.aclrtFree(p)
        seen["after"] = acl.aclrtGetDevice()
        grad = np.arange(8, dtype=np.float32).reshape(4, 2)
        seen["op"] = aclnn_py.moe_token_permute_grad(grad, np.array([3, 2, 1, 0], np.int32), 1)

    th = threading.Thread(target=worker)
    th.start()
    th.join()
    assert seen["before"] == 107002 and seen["after"] == 0
    expected = aclnn_py.moe_token_permute_grad(np.arange(8, dtype=np.float32).reshape(4, 2),
                                               np.array([3, 2, 1, 0], np.int32), 1)
    assert np.array_equal(seen["op"], expected)


def test_high_level_call_on_a_stream_of_another_device_is_bitwise_identical():
    rng = np.random.default_rng(3)
    grad = rng.standard_normal((64, 16)).astype(np.float32)
    idx = rng.permutation(64).astype(np.int32)
    expected = aclnn_py.moe_token_permute_grad(grad, idx, 1)
    with Device(1) as d1, Stream(d1) as s:
        for _ in range(3):
            assert np.array_equal(aclnn_py.moe_token_permute_grad(grad, idx, 1, stream=s).view(np.uint32),
                                  expected.view(np.uint32))


def test_event_record_synchronize_query_and_elapsed_time():
    with Stream() as s, Event() as start, Event() as end, DeviceBuffer(1 << 16) as buf:
        assert start.query()  # never recorded: complete
        with pytest.raises(AclError) as ei:
            start.elapsed_time(end)
        assert ei.value.status == 507006
        start.record(s)
        acl.aclrtMemsetAsync(buf.ptr, 1 << 16, 9, 1 << 16, s.handle)
        s.record(end)
        end.synchronize()
        assert start.query() and end.query()
        assert start.elapsed_time(end) >= 0.0
        back = np.zeros(1 << 16, np.uint8)
        buf.download(back)
        assert (back == 9).all()


class HeldStream:
    """A stream held by a blocking callback until release(): what queued after it has not run."""

    def __init__(self):
        self.stream = Stream()
        self.callback = ffi.callback("void(void *)", lambda user: None)
        acl.aclrtSubscribeReport(threading.get_ident(), self.stream.handle)
        acl.aclrtLaunchCallback(self.callback, NULL, acl.ACL_CALLBACK_BLOCK, self.stream.handle)

    def release(self):
        acl.aclrtProcessReport(-1)
        self.stream.synchronize()
        acl.aclrtUnSubscribeReport(threading.get_ident(), self.stream.handle)
        self.stream.close()


def test_stream_waits_for_an_event_of_another_stream():
    held = HeldStream()
    with Stream() as waiter, Event() as e, DeviceBuffer(256) as buf:
        e.record(held.stream)
        waiter.wait(e)
        acl.aclrtMemsetAsync(buf.ptr, 256, 0x5A, 256, waiter.handle)
        back = np.zeros(256, np.uint8)
        assert not e.query() and not waiter.query() and not held.stream.query()
        with pytest.raises(AclError) as ei:
            waiter.synchronize(timeout_ms=20)
        assert ei.value.status == 507046
        with pytest.raises(AclError) as ei:
            e.synchronize(timeout_ms=20)
        assert ei.value.status == 507047
        buf.download(back)
        assert (back == 0).all()  # the memset waits behind the event
        held.release()
        waiter.synchronize()
        assert e.query() and waiter.query()
        buf.download(back)
        assert (back == 0x5A).all()


def test_context_streams_and_current_device():
    with Device(2) as d2, Context(d2) as ctx:
        assert acl.aclrtGetDevice() == 0  # the thread keeps its own context
        s = Stream(context=ctx)
        assert s.device is d2
        s.synchronize()
        ctx.activate()
        assert acl.aclrtGetDevice() == 2
        aclnn_py.default_device().activate()
        assert acl.aclrtGetDevice() == 0
        s.close()
    with pytest.raises(ValueError, match="closed"):
        ctx.activate()
    acl.aclGetRecentErrMsg()
    assert lib.aclrtSetCurrentContext(ctx.handle) == 107000  # the handle itself stays invalid
    acl.aclGetRecentErrMsg()


def test_closing_a_context_releases_its_streams():
    ctx = Context()
    s = Stream(context=ctx)
    handle = s.handle
    ctx.close()
    assert lib.aclrtSynchronizeStream(handle) == 107000
    acl.aclGetRecentErrMsg()
    s.close()  # its handle is already gone; closing is still clean
