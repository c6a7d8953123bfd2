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


# ---- sync=False: device Tensors chain on a stream without a synchronisation between calls ----------------------

def _chain_inputs():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 8)).astype(np.float32)
    ids = np.argsort(rng.random((16, 6)), axis=1)[:, :2].astype(np.int32)
    return x, ids


def _chain(s, x, ids, sync, keep):
    """permute -> permute_grad -> unpermute on device Tensors, each call's results the next one's inputs (the
    input Tensors are kept in ``keep``: freeing them before the queued work has run would be a caller's bug)."""
    from aclnn_py import Tensor

    xt, it = Tensor.from_numpy(x), Tensor.from_numpy(ids)
    probs = Tensor.from_numpy(np.full(ids.shape, 0.5, np.float32))
    keep += [xt, it, probs]
    permuted, order = aclnn_py.moe_token_permute(xt, it, stream=s, sync=sync)
    grad = aclnn_py.moe_token_permute_grad(permuted, order, 2, stream=s, sync=sync)
    combined = aclnn_py.moe_token_unpermute(permuted, order, probs, stream=s, sync=sync)
    return permuted, order, grad, combined


def _chain_expected(x, ids):
    ref = aclnn_py.reference
    permuted, order = ref.moe_token_permute(x, ids)
    return (permuted, order, ref.moe_token_permute_grad(permuted, order, 2),
            ref.moe_token_unpermute(permuted, order, np.full(ids.shape, 0.5, np.float32)))


@pytest.mark.parametrize("sync", [True, False])
def test_device_tensors_chain_and_sync_false_leaves_the_work_queued(sync):
    """Operator functions on device Tensors run on the device and return Tensors; with sync=False three chained
    calls return while their stream still waits (behind an event of a held stream), and the results are right
    once it is synchronised. With sync=True the same chain on an idle stream is finished when it returns."""
    from aclnn_py import Tensor

    x, ids = _chain_inputs()
    expected = _chain_expected(x, ids)
    with Stream() as s:
        if sync:
            results = _chain(s, x, ids, True, [])
            assert s.query()
        else:
            held = HeldStream()
            with Event() as e:
                e.record(held.stream)
                s.wait(e)
                keep: list = []
                results = _chain(s, x, ids, False, keep)
                assert not s.query()  # queued behind the event: nothing ran, and nothing waited for it
                held.release()
                s.synchronize()
        assert all(isinstance(r, Tensor) for r in results)
        for got, want in zip(results, expected):
            assert np.array_equal(got.numpy(), want)


def test_run_sync_false_leaves_device_work_queued_and_waits_for_host_outputs():
    from aclnn_py import Tensor

    x, ids = _chain_inputs()
    permuted, order = aclnn_py.reference.moe_token_permute(x, ids)
    with Stream() as s, Event() as e:
        held = HeldStream()
        e.record(held.stream)
        s.wait(e)
        out = Tensor((16, 8), np.float32)
        host_out = np.zeros((16, 8), np.float32)
        pt, ot = Tensor.from_numpy(permuted), Tensor.from_numpy(order)
        assert aclnn_py.run("aclnnMoeTokenPermuteGrad", pt, ot, 2, False, out=out, stream=s, sync=False) is out
        assert not s.query()
        waiter = threading.Thread(target=lambda: aclnn_py.run("aclnnMoeTokenPermuteGrad", pt, ot, 2, False,
                                                                    out=host_out, stream=s, sync=False))
        waiter.start()
        waiter.join(0.2)
        assert waiter.is_alive()  # a host output is written back: the call waits for the stream
        held.release()
        waiter.join()
        s.synchronize()
        expected = aclnn_py.reference.moe_token_permute_grad(permuted, order, 2)
        assert np.array_equal(out.numpy(), expected) and np.array_equal(host_out, expected)


def test_sync_false_with_an_uploaded_input_waits_for_the_stream():
    """An operator function on a device Tensor with a host array input uploads it for the call and frees it after:
    sync=False then waits for the work, as it does with host outputs."""
    from aclnn_py import Tensor

    x, ids = _chain_inputs()
    xt, got = Tensor.from_numpy(x), []
    with Stream() as s, Event() as e:
        held = HeldStream()
        e.record(held.stream)
        s.wait(e)
        waiter = threading.Thread(target=lambda: got.extend(aclnn_py.moe_token_permute(xt, ids, stream=s,
                                                                                       sync=False)))
        waiter.start()
        waiter.join(0.2)
        assert waiter.is_alive()
        held.release()
        waiter.join()
        assert s.query()
        for r, want in zip(got, aclnn_py.reference.moe_token_permute(x, ids)):
            assert np.array_equal(r.numpy(), want)


def test_sync_false_failure_is_reported_by_the_synchronisation():
    """A kernel failure of work left queued surfaces at Stream.synchronize() as 507015, with the kernel's message
    (drop-and-pad with fewer rows than experts: the kernel divides by a capacity of 0)."""
    from aclnn_py import Tensor

    t, e, h = 2, 4, 8
    args = (np.ones((t, h), np.float32), np.array([0, 1], np.int32), np.array([0, 1], np.int32),
            np.ones((t, e), np.int8), np.ones((2, h), np.float32), np.ones((t, e), np.float32), True)
    inputs = [Tensor.from_numpy(a) for a in args[:-1]]  # all on the device: nothing to upload, nothing waits
    with Stream() as s:
        aclnn_py.moe_token_unpermute_with_routing_map_grad(*inputs, args[-1], stream=s, sync=False)
        with pytest.raises(AclError) as ei:
            s.synchronize()
        assert ei.value.status == 507015 and "integer division by zero" in str(ei.value)
        s.synchronize()  # reported once


@pytest.mark.parametrize("bad", [0, 1, None, "no"])
def test_sync_must_be_a_bool(bad):
    x, ids = _chain_inputs()
    aclnn_py.moe_token_permute(x, ids)  # the plan is known: the fast path checks sync too
    with pytest.raises(TypeError, match="sync"):
        aclnn_py.moe_token_permute(x, ids, sync=bad)
    with pytest.raises(TypeError, match="sync"):
        aclnn_py.run("aclnnMoeTokenPermute", x, ids, 0, False, out=(np.zeros((32, 8), np.float32),
                                                                   np.zeros(32, np.int32)), sync=bad)


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


# ---- objects act in their own context, from any thread ---------------------------------------------------------

from aclnn_py import runtime  # noqa: E402

from helpers_proc import run_json  # noqa: E402


class RecordingLib:
    """Stands in for the runtime module's ``lib``: records which context is current at every runtime call the
    objects make (aclrt* functions and the client's pool functions, which allocate on the current device)."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        fn = getattr(lib, name)
        if not (name.startswith(("aclrt", "aclnnpy_")) and callable(fn)) or "Context" in name:
            return fn

        def recorded(*args):
            self.calls.append((name, lib.aclStubCurrentContext()))
            return fn(*args)

        return recorded


def in_thread(fn, activate=None):
    """Run fn in a new thread (with ``activate``'s context current first, else none); return or raise."""
    out = {}

    def work():
        try:
            if activate is not None:
                activate.activate()
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            out["error"] = exc

    th = threading.Thread(target=work)
    th.start()
    th.join()
    if "error" in out:
        raise out["error"]
    return out.get("value")


def _objects(d1, ctx):
    s = Stream(d1)
    e1, e2 = Event(d1), Event(d1)
    return {"stream": s, "context_stream": Stream(context=ctx), "default_stream": Stream.default(d1),
            "event": e1, "event2": e2, "buffer": DeviceBuffer(256, d1),
            "tensor": aclnn_py.Tensor.from_numpy(np.arange(8, dtype=np.float32), d1)}


# (object, what is done with it): run in a thread with no current context, and in one whose context is device
# 0's; every runtime call it makes must see the object's own context current.
METHODS = [
    ("stream", lambda o: o["stream"].synchronize()),
    ("stream", lambda o: o["stream"].synchronize(timeout_ms=1000)),
    ("stream", lambda o: o["stream"].query()),
    ("stream", lambda o: o["stream"].workspace(4096)),
    ("stream", lambda o: o["stream"].record(o["event"])),
    ("stream", lambda o: o["stream"].wait(o["event"])),
    ("stream", lambda o: o["stream"].close()),
    ("context_stream", lambda o: o["context_stream"].synchronize()),
    ("context_stream", lambda o: o["context_stream"].workspace(512)),
    ("context_stream", lambda o: o["context_stream"].close()),
    ("default_stream", lambda o: o["default_stream"].workspace(2048)),
    ("event", lambda o: (o["event"].record(), o["event"].synchronize())),
    ("event", lambda o: (o["event"].record(o["stream"]), o["event"].synchronize(timeout_ms=1000))),
    ("event", lambda o: o["event"].query()),
    ("event", lambda o: (o["event"].record(), o["event2"].record(), o["event"].synchronize(),
                         o["event2"].synchronize(), o["event"].elapsed_time(o["event2"]))),
    ("event", lambda o: o["event"].close()),
    ("buffer", lambda o: o["buffer"].upload(np.ones(64, np.float32))),
    ("buffer", lambda o: o["buffer"].download(np.zeros(64, np.float32))),
    ("buffer", lambda o: o["buffer"].close()),
    ("tensor", lambda o: o["tensor"].numpy()),
    ("tensor", lambda o: (o["tensor"].buffer.close(), o["tensor"].close())),
]


@pytest.mark.parametrize("thread_device", ["none", "device0"])
@pytest.mark.parametrize("case", range(len(METHODS)), ids=[f"{o}{i}" for i, (o, _) in enumerate(METHODS)])
def test_object_methods_run_in_their_own_context(monkeypatch, case, thread_device):
    owner, action = METHODS[case]
    recorder = RecordingLib()
    monkeypatch.setattr(runtime, "lib", recorder)
    with Device(1) as d1, Context(Device(2)) as ctx:
        objects = _objects(d1, ctx)
        expected = ctx.handle if owner == "context_stream" else d1.context
        recorder.calls.clear()
        in_thread(lambda: action(objects), aclnn_py.default_device() if thread_device == "device0" else None)
        assert recorder.calls, "the action made no runtime call"
        wrong = [(name, ctx_seen) for name, ctx_seen in recorder.calls if ctx_seen != expected]
        assert wrong == [], f"runtime calls made outside the object's context: {wrong}"
        for o in objects.values():
            o.close()


def test_workspaces_and_operator_memory_land_on_the_streams_device(monkeypatch):
    """From a thread whose device is 0, a stream of device 1: its workspace and the pooled blocks of an operator
    called on it are device 1's; the NULL streams of two devices have two workspaces."""
    monkeypatch.setenv("ACLNN_PY_ZERO_COPY", "0")  # the operator's buffers come from the pool
    d0 = aclnn_py.default_device()
    grad, idx = np.ones((64, 16), np.float32), np.arange(64, dtype=np.int32)
    before0 = free_memory(d0)
    with Device(1) as d1, Device(2) as d2:
        s1 = Stream(d1)
        before1, before2 = free_memory(d1), free_memory(d2)
        in_thread(lambda: s1.workspace(1 << 16), d0)
        assert free_memory(d0) == before0 and free_memory(d1) <= before1 - (1 << 16)
        got = in_thread(lambda: aclnn_py.moe_token_permute_grad(grad, idx, 1, stream=s1), d0)
        assert np.array_equal(got, grad)
        assert free_memory(d0) == before0, "the operator allocated on the calling thread's device"
        assert free_memory(d1) < before1 - (1 << 16)
        in_thread(s1.close)  # from a thread with no context: its workspace and pooled blocks are freed
        assert free_memory(d1) == before1
        ws1 = in_thread(lambda: Stream.default(d1).workspace(1 << 12), d0)
        ws2 = in_thread(lambda: Stream.default(d2).workspace(1 << 12), d0)
        assert ws1 != ws2 and free_memory(d1) <= before1 - (1 << 12) and free_memory(d2) <= before2 - (1 << 12)
        assert ws1 == in_thread(lambda: Stream.default(d1).workspace(1 << 12))  # kept for that default stream
    assert free_memory(d0) == before0


def test_a_stream_closed_by_another_thread_releases_its_pooled_blocks(monkeypatch):
    monkeypatch.setenv("ACLNN_PY_ZERO_COPY", "0")
    pool = aclnn_py.get_memory_pool()
    grad, idx = np.ones((64, 16), np.float32), np.arange(64, dtype=np.int32)
    for closer in (None, aclnn_py.default_device()):  # a thread with no context, one with device 0's
        with Device(1) as d1:
            s = Stream(d1)
            cached, before1 = pool.n_free_blocks(), free_memory(d1)
            aclnn_py.moe_token_permute_grad(grad, idx, 1, stream=s)
            assert pool.n_free_blocks() > cached
            in_thread(s.close, closer)
            assert pool.n_free_blocks() == cached and free_memory(d1) == before1


MIXING = '''
import numpy as np
import aclnn_py
from aclnn_py import acl

def op():
    return aclnn_py.moe_token_permute_grad(np.ones((4, 2), np.float32), np.arange(4, dtype=np.int32), 1).tolist()

def sample():  # the runtime part of an official sample, line by line
    acl.aclrtSetDevice(0)
    stream = acl.aclrtCreateStream()
    p = acl.aclrtMalloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    acl.aclrtFree(p)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(0)

steps = []
def step(name, fn, *args):
    steps.append([name, status(fn, *args)])

step("high-level call", op)
step("aclInit after it", acl.aclInit, None)
step("aclInit again", acl.aclInit, None)
step("sample", sample)
step("aclFinalize", acl.aclFinalize)
step("high-level call after the mirror finalised", op)
stream, buf = aclnn_py.Stream(), aclnn_py.DeviceBuffer(64)
step("aclFinalize without aclInit", acl.aclFinalize)
steps.append(["objects closed by it", [stream.closed, buf.closed]])
step("their methods", stream.synchronize)
del stream, buf
step("high-level call after the runtime ended", op)
step("again", op)
aclnn_py.default_device().close()
step("aclInit alone", acl.aclInit, None)
step("aclInit alone again", acl.aclInit, None)
step("sample alone", sample)
step("aclFinalize alone", acl.aclFinalize)
step("aclFinalize alone again", acl.aclFinalize)
step("aclInit then high-level call", lambda: (acl.aclInit(None), op()))
step("aclFinalize", acl.aclFinalize)
step("high-level call", op)
emit(steps)
'''


def test_the_layers_mix_in_any_order():
    """The objects and the mirror layer share the runtime (README, "How the layers mix"): an aclInit after a
    high-level call joins it, an aclFinalize while objects use it lets go of it, one without aclInit ends it and
    the objects with it; the mirror alone keeps C's statuses (100002 for a second aclInit, 100037 for a second
    aclFinalize)."""
    steps = run_json(MIXING)
    assert steps == [
        ["high-level call", 0], ["aclInit after it", 0], ["aclInit again", 100002], ["sample", 0],
        ["aclFinalize", 0], ["high-level call after the mirror finalised", 0], ["aclFinalize without aclInit", 0],
        ["objects closed by it", [True, True]], ["their methods", "ValueError: operation on a closed Stream"],
        ["high-level call after the runtime ended", 0], ["again", 0], ["aclInit alone", 0],
        ["aclInit alone again", 100002], ["sample alone", 0], ["aclFinalize alone", 0],
        ["aclFinalize alone again", 100037], ["aclInit then high-level call", 0], ["aclFinalize", 0],
        ["high-level call", 0]]
