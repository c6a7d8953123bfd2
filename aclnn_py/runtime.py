"""The Pythonic layer: devices, streams, device buffers and tensors as objects.

Every object owns one native resource, releases it in ``close()`` (also as a context manager), and
has a finalizer so a forgotten object is released when collected or at interpreter exit, children
before parents. Errors are the same ``AclError``/``AclnnError`` as in the mirror layer.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from . import dtypes, loader
from ._mirror import _raise_acl, _raise_aclnn
from ._native import ffi, lib

_state_lock = threading.Lock()
_runtime_users = 0
_runtime_owned = False  # True when aclInit was called by us (so aclFinalize is ours too)
_device_users: dict[int, int] = {}
_tls = threading.local()  # per thread: the context default_device() made current there


def _check_acl(status, function):
    if status:
        _raise_acl(status, function)


def _current_context():
    """The calling thread's current context, or NULL when it has none (CANN's current device is per thread)."""
    if "aclStubCurrentContext" not in loader.load().missing_symbols:
        return lib.aclStubCurrentContext()  # the same answer, without recording (and logging) an error
    out = ffi.new("aclrtContext *")
    if lib.aclrtGetCurrentContext(out):
        lib.aclGetRecentErrMsg()  # having none is an answer here, not an error to report later
        return ffi.NULL
    return out[0]


class _OnDevice:
    """Run a block with ``context`` current in the calling thread, then restore the thread's own context."""

    __slots__ = ("context", "previous")

    def __init__(self, context):
        self.context = context

    def __enter__(self):
        self.previous = _current_context()
        if self.previous != self.context:
            _check_acl(lib.aclrtSetCurrentContext(self.context), "aclrtSetCurrentContext")

    def __exit__(self, *exc):
        if self.previous != self.context and self.previous != ffi.NULL:
            lib.aclrtSetCurrentContext(self.previous)


def _acquire(device_id: int):
    """aclInit (once) and aclrtSetDevice (reference-counted by the runtime); returns the device's default
    context. A thread that already had a current context keeps it: a Device object does not switch it."""
    global _runtime_users, _runtime_owned
    loader.load()
    with _state_lock:
        if _runtime_users == 0:
            status = lib.aclInit(ffi.NULL)
            if status not in (0, lib.ACL_ERROR_REPEAT_INITIALIZE):
                _raise_acl(status, "aclInit")
            _runtime_owned = status == 0  # REPEAT_INITIALIZE: someone else initialised and will finalise
        previous = _current_context()
        status = lib.aclrtSetDevice(device_id)
        if status:
            if _runtime_users == 0 and _runtime_owned:
                lib.aclFinalize()
            _raise_acl(status, "aclrtSetDevice")
        context = _current_context()
        if previous != ffi.NULL and previous != context:
            lib.aclrtSetCurrentContext(previous)
        _device_users[device_id] = _device_users.get(device_id, 0) + 1
        _runtime_users += 1
        return context


def _release(device_id: int) -> None:
    global _runtime_users
    with _state_lock:
        _device_users[device_id] -= 1
        if _device_users[device_id] == 0:
            lib.aclnnpy_workspace_release(ffi.NULL)  # the default stream's pooled workspace
        lib.aclrtResetDevice(device_id)
        _runtime_users -= 1
        if _runtime_users == 0 and _runtime_owned:
            lib.aclFinalize()


class _Resource:
    """Base of the resource objects: close() once, context manager, finalizer."""

    _finalizer: weakref.finalize | None = None

    def close(self) -> None:
        """Release the native resource now (idempotent)."""
        if self._finalizer is not None:
            self._finalizer()

    @property
    def closed(self) -> bool:
        return self._finalizer is None or not self._finalizer.alive

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Device(_Resource):
    """An initialised device: ``aclInit`` (once per process) and ``aclrtSetDevice`` (``aclrtResetDevice`` when
    closed). Buffers and streams made for it are made in its default context whichever thread makes them."""

    def __init__(self, device_id: int = 0):
        self.context = _acquire(device_id)
        self.device_id = device_id
        self._finalizer = weakref.finalize(self, _release, device_id)

    def activate(self) -> None:
        """Make this device current in the calling thread (``aclrtSetCurrentContext`` of its default context)."""
        _check_acl(lib.aclrtSetCurrentContext(self.context), "aclrtSetCurrentContext")

    def _on(self) -> _OnDevice:
        return _OnDevice(self.context)

    def stream(self) -> "Stream":
        return Stream(self)

    def __repr__(self):
        return f"<Device {self.device_id}{' closed' if self.closed else ''}>"


_default_device: Device | None = None


def default_device() -> Device:
    """Device 0, initialised on first use and released at interpreter exit. A thread that calls it without a
    current context of its own gets device 0's (CANN's current device is per thread)."""
    global _default_device
    device = _default_device
    if device is None or device.closed:
        device = _default_device = Device(0)
    if getattr(_tls, "context", None) is not device.context:
        if _current_context() == ffi.NULL:
            device.activate()
        _tls.context = device.context
    return device


def _destroy_stream(handle):
    lib.aclnnpy_workspace_release(handle)  # synchronises, then frees the stream's pooled workspace
    lib.aclrtSynchronizeStream(handle)
    lib.aclrtDestroyStream(handle)


class Context(_Resource):
    """An explicit context on a device (``aclrtCreateContext``). Streams and events made with ``context=``
    belong to it; closing it (``aclrtDestroyContext``) also releases the streams made in it."""

    def __init__(self, device: Device | None = None):
        self.device = device or default_device()
        previous = _current_context()
        out = ffi.new("aclrtContext *")
        _check_acl(lib.aclrtCreateContext(out, self.device.device_id), "aclrtCreateContext")
        if previous != ffi.NULL:  # creating a context makes it current; the thread keeps its own
            lib.aclrtSetCurrentContext(previous)
        self.handle = out[0]
        self._finalizer = weakref.finalize(self, lib.aclrtDestroyContext, self.handle)

    def activate(self) -> None:
        """Make this context current in the calling thread (``aclrtSetCurrentContext``)."""
        _check_acl(lib.aclrtSetCurrentContext(self.handle), "aclrtSetCurrentContext")

    def _on(self) -> _OnDevice:
        return _OnDevice(self.handle)

    def __repr__(self):
        return f"<Context on device {self.device.device_id}{' closed' if self.closed else ''}>"


class Stream(_Resource):
    """A stream (``aclrtCreateStream``), asynchronous: work queued on it runs after the call that queued it
    returns, so read results after ``synchronize()`` (the high-level functions do). ``Stream.default()`` is
    the NULL default stream of the device's (or the context's) default context."""

    def __init__(self, device: Device | None = None, *, context: Context | None = None, _handle=None):
        self.device = context.device if context is not None else device or default_device()
        self.context = context  # kept alive: closing a context releases its streams
        self._owner = context if context is not None else self.device
        if _handle is not None:
            self.handle = _handle
            return
        out = ffi.new("aclrtStream *")
        with self._owner._on():
            _check_acl(lib.aclrtCreateStream(out), "aclrtCreateStream")
        self.handle = out[0]
        self._finalizer = weakref.finalize(self, _destroy_stream, self.handle)

    @classmethod
    def default(cls, device: Device | None = None, *, context: Context | None = None) -> "Stream":
        return cls(device, context=context, _handle=ffi.NULL)

    def _call(self, fn, *args):
        """Call fn with this stream's context current (what the NULL stream means depends on it)."""
        if self.handle != ffi.NULL:
            return fn(*args)
        with self._owner._on():
            return fn(*args)

    def synchronize(self, timeout_ms: int | None = None) -> None:
        """Wait for the work queued so far (``aclrtSynchronizeStreamWithTimeout`` when ``timeout_ms`` is given;
        a timeout raises the runtime's error, 507046)."""
        if timeout_ms is None:
            _check_acl(self._call(lib.aclrtSynchronizeStream, self.handle), "aclrtSynchronizeStream")
        else:
            _check_acl(self._call(lib.aclrtSynchronizeStreamWithTimeout, self.handle, int(timeout_ms)),
                       "aclrtSynchronizeStreamWithTimeout")

    def query(self) -> bool:
        """True when every item queued on the stream has run (``aclrtStreamQuery``)."""
        out = ffi.new("aclrtStreamStatus *")
        _check_acl(self._call(lib.aclrtStreamQuery, self.handle, out), "aclrtStreamQuery")
        return out[0] == lib.ACL_STREAM_STATUS_COMPLETE

    def wait(self, event: "Event") -> None:
        """Work queued on this stream from now on waits for the event's latest record (``aclrtStreamWaitEvent``)."""
        _check_acl(self._call(lib.aclrtStreamWaitEvent, self.handle, event.handle), "aclrtStreamWaitEvent")

    def record(self, event: "Event | None" = None) -> "Event":
        """Record ``event`` (a new one when None) on this stream and return it."""
        event = event if event is not None else Event(self.device)
        event.record(self)
        return event

    def workspace(self, nbytes: int):
        """Device memory of at least ``nbytes`` for work queued on this stream, from a pool kept per
        stream: reused while the size fits, grown (after synchronising) when it does not, freed when the
        stream is closed. Valid until the next call for this stream. ``aclnn_py`` operators use it."""
        out = ffi.new("void **")
        _check_acl(self._call(lib.aclnnpy_workspace, self.handle, int(nbytes), out), "aclrtMalloc")
        return out[0]


class Event(_Resource):
    """An event (``aclrtCreateEvent``; ``aclrtCreateEventWithFlag`` when ``flags`` is given): recorded on a
    stream, it completes when the stream reaches the record; other streams can wait for it, the host can
    wait for it or poll it, and two completed records give the time between them."""

    def __init__(self, device: Device | None = None, *, flags: int | None = None):
        self.device = device or default_device()
        out = ffi.new("aclrtEvent *")
        with self.device._on():
            if flags is None:
                _check_acl(lib.aclrtCreateEvent(out), "aclrtCreateEvent")
            else:
                _check_acl(lib.aclrtCreateEventWithFlag(out, int(flags)), "aclrtCreateEventWithFlag")
        self.handle = out[0]
        self._finalizer = weakref.finalize(self, lib.aclrtDestroyEvent, self.handle)

    def record(self, stream: Stream | None = None) -> None:
        """Record the event on ``stream`` (default: the device's default stream) (``aclrtRecordEvent``)."""
        stream = stream if stream is not None else Stream.default(self.device)
        _check_acl(stream._call(lib.aclrtRecordEvent, self.handle, stream.handle), "aclrtRecordEvent")

    def synchronize(self, timeout_ms: int | None = None) -> None:
        """Wait until the latest record has run (a timeout raises the runtime's error, 507047)."""
        if timeout_ms is None:
            _check_acl(lib.aclrtSynchronizeEvent(self.handle), "aclrtSynchronizeEvent")
        else:
            _check_acl(lib.aclrtSynchronizeEventWithTimeout(self.handle, int(timeout_ms)),
                       "aclrtSynchronizeEventWithTimeout")

    def query(self) -> bool:
        """True when the latest record has run (or the event was never recorded)."""
        out = ffi.new("aclrtEventRecordedStatus *")
        _check_acl(lib.aclrtQueryEventStatus(self.handle, out), "aclrtQueryEventStatus")
        return out[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds from this event's completed record to ``end``'s (``aclrtEventElapsedTime``)."""
        out = ffi.new("float *")
        _check_acl(lib.aclrtEventElapsedTime(out, self.handle, end.handle), "aclrtEventElapsedTime")
        return float(out[0])


def _handle_of(stream) -> object:
    return ffi.NULL if stream is None else stream.handle


class DeviceBuffer(_Resource):
    """``nbytes`` of device memory (``aclrtMalloc``), zero-filled. A zero-byte buffer has a NULL pointer."""

    def __init__(self, nbytes: int, device: Device | None = None):
        self.device = device or default_device()
        self.nbytes = int(nbytes)
        if self.nbytes < 0:
            raise ValueError(f"DeviceBuffer: nbytes must be >= 0, got {nbytes}")
        if self.nbytes == 0:
            self.ptr = ffi.NULL
            return
        out = ffi.new("void **")
        with self.device._on():
            _check_acl(lib.aclrtMalloc(out, self.nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
            self.ptr = out[0]
            self._finalizer = weakref.finalize(self, lib.aclrtFree, self.ptr)
            # The stub zero-fills; a device does not, and outputs the operator leaves untouched must read as 0.
            if not loader.load().is_stub:
                _check_acl(lib.aclrtMemset(self.ptr, self.nbytes, 0, self.nbytes), "aclrtMemset")

    def upload(self, host, nbytes: int | None = None, offset: int = 0) -> None:
        """Copy ``nbytes`` from a host pointer or contiguous buffer into this buffer at ``offset``."""
        src = host if isinstance(host, ffi.CData) else ffi.from_buffer(host)
        n = len(src) if nbytes is None else nbytes
        with self.device._on():
            _check_acl(lib.aclrtMemcpy(ffi.cast("char *", self.ptr) + offset, self.nbytes - offset, src, n,
                                       lib.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")

    def download(self, host, nbytes: int | None = None, offset: int = 0) -> None:
        """Copy ``nbytes`` from this buffer at ``offset`` into a writable host buffer."""
        dst = ffi.from_buffer(host, require_writable=True)
        n = len(dst) if nbytes is None else nbytes
        with self.device._on():
            _check_acl(lib.aclrtMemcpy(dst, len(dst), ffi.cast("char *", self.ptr) + offset, n,
                                       lib.ACL_MEMCPY_DEVICE_TO_HOST), "aclrtMemcpy")


def view_layout(a: np.ndarray):
    """How an aclTensor describes a numpy view: element strides, element offset, and the byte span
    [lo, hi) the view touches relative to its data pointer (strides must be whole elements)."""
    item = a.itemsize
    lo = sum((d - 1) * s for d, s in zip(a.shape, a.strides) if s < 0 and d > 0)
    hi = sum((d - 1) * s for d, s in zip(a.shape, a.strides) if s > 0 and d > 0) + item
    return [s // item for s in a.strides], -lo // item, lo, hi


def contiguous_strides(shape) -> tuple[int, ...]:
    strides, s = [], 1
    for d in reversed(shape):
        strides.append(s)
        s *= d
    return tuple(reversed(strides))


class Tensor(_Resource):
    """An ``aclTensor`` over a device buffer: view shape, element strides and offset, dtype, ND format.

    ``Tensor.from_numpy(a)`` uploads an array (keeping its strides, so a sliced or transposed array stays
    a strided view without a host copy); ``t.numpy()`` downloads it.
    """

    def __init__(self, shape, dtype, *, strides=None, offset: int = 0, buffer: DeviceBuffer | None = None,
                 device: Device | None = None, format: int | None = None):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtypes.as_numpy_dtype(dtype)
        self.acl_dtype = dtypes.to_acl(self.dtype)
        self.strides = tuple(int(s) for s in strides) if strides is not None else contiguous_strides(self.shape)
        self.offset = int(offset)
        if buffer is None:
            numel = int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1
            buffer = DeviceBuffer(numel * self.dtype.itemsize if min(self.shape, default=1) > 0 else 0, device)
        self.buffer = buffer
        shape_arr = ffi.new("int64_t[]", self.shape or [0])
        stride_arr = ffi.new("int64_t[]", self.strides or [0])
        fmt = lib.ACL_FORMAT_ND if format is None else format
        handle = lib.aclCreateTensor(shape_arr, len(self.shape), self.acl_dtype, stride_arr, self.offset, fmt,
                                     shape_arr, len(self.shape), buffer.ptr)
        if handle == ffi.NULL:
            _raise_aclnn(lib.ACLNN_ERR_INNER_NULLPTR, "aclCreateTensor")
        self.handle = handle
        self._finalizer = weakref.finalize(self, lib.aclDestroyTensor, handle)

    @classmethod
    def from_numpy(cls, array, device: Device | None = None) -> "Tensor":
        a = np.asarray(array)
        item = a.itemsize
        if a.size == 0:
            return cls(a.shape, a.dtype, device=device)
        if a.flags.c_contiguous:
            t = cls(a.shape, a.dtype, device=device)
            t.buffer.upload(a)
            return t
        if any(s % item for s in a.strides):
            a = np.ascontiguousarray(a)
            return cls.from_numpy(a, device)
        # Copy only the bytes the view spans and describe the view with element strides and offset.
        strides, offset, lo, hi = view_layout(a)
        buf = DeviceBuffer(hi - lo, device)
        buf.upload(ffi.cast("char *", a.ctypes.data + lo), hi - lo)
        return cls(a.shape, a.dtype, strides=strides, offset=offset, buffer=buf, device=device)

    def numpy(self) -> np.ndarray:
        """A host copy of the tensor's view."""
        out = np.empty(self.shape, self.dtype)
        if out.size == 0:
            return out
        item = self.dtype.itemsize
        if self.strides == contiguous_strides(self.shape):
            self.buffer.download(out.reshape(-1).view(np.uint8), out.nbytes, self.offset * item)
            return out
        raw = np.empty(self.buffer.nbytes, np.uint8)
        self.buffer.download(raw)
        view = np.lib.stride_tricks.as_strided(
            raw[self.offset * item:].view(self.dtype), self.shape, [s * item for s in self.strides])
        out[...] = view
        return out

    def __repr__(self):
        return f"<Tensor shape={self.shape} dtype={self.dtype} strides={self.strides} offset={self.offset}>"
