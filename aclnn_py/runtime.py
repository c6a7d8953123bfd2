"""The Pythonic layer: devices, contexts, streams, events, device buffers and tensors as objects.

Every object owns one native resource, releases it in ``close()`` (also as a context manager), and
has a finalizer so a forgotten object is released when collected or at interpreter exit, children
before parents. Errors are the same ``AclError``/``AclnnError`` as in the mirror layer; a method of a closed
object raises ``ValueError``, a size or offset outside an object ``ValueError``, an argument of the wrong
type ``TypeError``. The libraries are loaded before any call into them.
"""

from __future__ import annotations

import functools
import math
import operator
import threading
import weakref

import numpy as np

from . import dtypes, errors, loader
from ._mirror import HostSpan, _as_array, _scalar_bytes
from ._native import ffi, lib

_state_lock = threading.RLock()
# How the layers share the one runtime of the process (README, "How the layers mix"): the objects hold it
# while any Device is open (_runtime_users, counted per device in _device_users), the mirror layer from its
# acl.aclInit to its acl.aclFinalize (_mirror_holds). It is finalised when the last holder lets go, if one of
# them initialised it (_runtime_owned). An aclFinalize that really ends it while objects hold it (acl.aclFinalize
# without the mirror's aclInit) starts a new generation: the older objects are closed, and the next use
# initialises again. _device_contexts: the default context of every device the objects hold.
_runtime_users = 0
_runtime_owned = False
_mirror_holds = False
_generation = 0
_device_users: dict[int, int] = {}
_device_contexts: dict[int, object] = {}
_tls = threading.local()  # per thread: the context default_device() made current there


_stub_current_context = None  # lib.aclStubCurrentContext once the libraries are known to export it


def _current_context():
    """The calling thread's current context, or NULL when it has none (CANN's current device is per thread)."""
    global _stub_current_context
    if _stub_current_context is not None:
        return _stub_current_context()
    if "aclStubCurrentContext" not in loader.load().missing_symbols:
        _stub_current_context = lib.aclStubCurrentContext  # the same answer, without recording an error
        return _stub_current_context()
    out = ffi.new("aclrtContext *")
    if lib.aclrtGetCurrentContext(out):
        lib.aclGetRecentErrMsg()  # having none is an answer here, not an error to report later
        return ffi.NULL
    return out[0]


class _OnDevice:
    """Run a block with ``context`` current in the calling thread, then restore the thread's own context (a
    thread that had none keeps ``context``: a context cannot be unset)."""

    __slots__ = ("context", "previous")

    def __init__(self, context):
        self.context = context

    def __enter__(self):
        self.previous = _current_context()
        if self.previous != self.context:
            errors.check(lib.aclrtSetCurrentContext(self.context), "aclrtSetCurrentContext")

    def __exit__(self, *exc):
        if self.previous != self.context and self.previous != ffi.NULL:
            lib.aclrtSetCurrentContext(self.previous)


def _in_context(generation: int, contexts, fn, *args):
    """``fn(*args)`` for a finalizer: nothing when the runtime was finalised since the object was made (its
    handles are gone, and an address may already be someone else's); else with the first of ``contexts``
    that can be made current (a closed Context's stream falls back to its device's), or as is."""
    if generation != _generation:
        return None
    for context in contexts:
        try:
            with _OnDevice(context):
                return fn(*args)
        except errors.AclError:
            continue
    return fn(*args)


def _acquire(device_id: int):
    """aclInit (unless a holder did) and aclrtSetDevice (reference-counted by the runtime); returns the device's
    default context. A thread that already had a current context keeps it: a Device object does not switch it."""
    global _runtime_users, _runtime_owned
    loader.load()
    with _state_lock:
        initialised_here = False
        if _runtime_users == 0 and not _mirror_holds:
            status = lib.aclInit(ffi.NULL)
            if status not in (0, lib.ACL_ERROR_REPEAT_INITIALIZE):
                errors.raise_status(status, "aclInit")
            if status == lib.ACL_ERROR_REPEAT_INITIALIZE:
                lib.aclGetRecentErrMsg()  # someone else initialised and will finalise: not an error here
            _runtime_owned = initialised_here = status == 0
        previous = _current_context()
        status = lib.aclrtSetDevice(device_id)
        if status:
            if initialised_here:
                lib.aclFinalize()
                _runtime_owned = False
            errors.raise_status(status, "aclrtSetDevice")
        context = _current_context()
        if previous != ffi.NULL and previous != context:
            lib.aclrtSetCurrentContext(previous)
        _device_users[device_id] = _device_users.get(device_id, 0) + 1
        _device_contexts[device_id] = context
        _runtime_users += 1
        return context


def _release(device_id: int, context, generation: int) -> None:
    global _runtime_users, _runtime_owned
    with _state_lock:
        if generation != _generation:
            return  # the runtime was finalised under this Device: nothing of it is left
        _device_users[device_id] -= 1
        if _device_users[device_id] == 0:
            del _device_users[device_id], _device_contexts[device_id]
            _release_device_memory(context)
        lib.aclrtResetDevice(device_id)
        _runtime_users -= 1
        if _runtime_users == 0 and _runtime_owned and not _mirror_holds:
            lib.aclFinalize()
            _runtime_owned = False


def _release_device_memory(context) -> None:
    """The workspaces and pooled blocks held on the device of ``context``, every stream's."""
    try:
        with _OnDevice(context):
            lib.aclnnpy_device_release()
    except errors.AclError:
        pass  # the context is gone (the runtime was finalised elsewhere): so is the memory


def mirror_init(c_init, config_path) -> None:
    """``acl.aclInit``: C's, except that a runtime aclnn_py's objects started is joined, not refused: the
    mirror layer then holds it too (the configuration file is still checked)."""
    global _mirror_holds, _runtime_owned
    with _state_lock:
        if _runtime_users > 0 and not _mirror_holds:
            try:
                c_init(config_path)
            except errors.AclError as exc:
                if exc.status != lib.ACL_ERROR_REPEAT_INITIALIZE:
                    raise
            _mirror_holds = True
            return
        c_init(config_path)  # the mirror's own second aclInit is refused, as in C
        _mirror_holds = _runtime_owned = True


def mirror_finalize(c_finalize) -> None:
    """``acl.aclFinalize``: C's, except that while aclnn_py's objects still use the runtime the mirror only lets
    go of it (the objects finalise it when they are done). Without the mirror's aclInit it really ends the
    runtime, the objects' resources with it: their pooled memory is freed first, and the objects made so far
    are closed (the next use initialises again)."""
    global _mirror_holds, _runtime_users, _runtime_owned, _generation, _default_device
    with _state_lock:
        if _mirror_holds and _runtime_users > 0:
            _mirror_holds = False
            return
        for context in list(_device_contexts.values()):
            _release_device_memory(context)
        c_finalize()
        _mirror_holds = _runtime_owned = False
        if _runtime_users:
            _generation += 1
            _runtime_users = 0
            _device_users.clear()
            _device_contexts.clear()
            _default_device = None


class _Resource:
    """Base of the resource objects: close() once, context manager, finalizer."""

    _finalizer: weakref.finalize | None = None

    def close(self) -> None:
        """Release the native resource now (idempotent)."""
        if self._finalizer is not None:
            self._finalizer()

    def _check_open(self) -> None:
        if self.closed:
            raise errors.closed_error(self)

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
        device_id = _index("Device", "device_id", device_id)
        if not -(1 << 31) <= device_id < (1 << 31):  # an int32_t in C
            raise ValueError(f"Device: device_id {device_id} is outside the int32 range")
        with _state_lock:
            self.context = _acquire(device_id)
            self._generation = _generation
        self.device_id = device_id
        self._finalizer = weakref.finalize(self, _release, device_id, self.context, self._generation)

    @property
    def closed(self) -> bool:
        """True after close(), and after an aclFinalize that ended the runtime under it."""
        return super().closed or self._generation != _generation

    def activate(self) -> None:
        """Make this device current in the calling thread (``aclrtSetCurrentContext`` of its default context)."""
        self._check_open()
        errors.check(lib.aclrtSetCurrentContext(self.context), "aclrtSetCurrentContext")

    def _on(self) -> _OnDevice:
        return _OnDevice(self.context)

    def stream(self) -> "Stream":
        self._check_open()
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
    lib.aclnnpy_stream_release(handle)  # synchronises, then frees the stream's workspace and pooled blocks
    lib.aclrtSynchronizeStream(handle)
    lib.aclrtDestroyStream(handle)


class Context(_Resource):
    """An explicit context on a device (``aclrtCreateContext``). Streams made with ``context=`` belong to it;
    closing it (``aclrtDestroyContext``) also releases the streams made in it."""

    def __init__(self, device: Device | None = None):
        self.device = _device_or_default("Context", device)
        previous = _current_context()
        out = ffi.new("aclrtContext *")
        errors.check(lib.aclrtCreateContext(out, self.device.device_id), "aclrtCreateContext")
        if previous != ffi.NULL:  # creating a context makes it current; the thread keeps its own
            lib.aclrtSetCurrentContext(previous)
        self.handle = out[0]
        self._finalizer = weakref.finalize(self, _in_context, self.device._generation, (), lib.aclrtDestroyContext,
                                           self.handle)

    def activate(self) -> None:
        """Make this context current in the calling thread (``aclrtSetCurrentContext``)."""
        self._check_open()
        errors.check(lib.aclrtSetCurrentContext(self.handle), "aclrtSetCurrentContext")

    def _on(self) -> _OnDevice:
        self._check_open()
        return _OnDevice(self.handle)

    def __repr__(self):
        return f"<Context on device {self.device.device_id}{' closed' if self.closed else ''}>"


class Stream(_Resource):
    """A stream (``aclrtCreateStream``), asynchronous: work queued on it runs after the call that queued it
    returns, so read results after ``synchronize()`` (the high-level functions do). ``Stream.default()`` is
    the NULL default stream of the device's (or the context's) default context."""

    _default = False

    def __init__(self, device: Device | None = None, *, context: Context | None = None, _handle=None):
        if context is not None and not isinstance(context, Context):
            raise errors.type_error("Stream", "context", context, "an aclnn_py.Context or None")
        self.device = context.device if context is not None else _device_or_default("Stream", device)
        self.context = context  # kept alive: closing a context releases its streams
        self._owner = context if context is not None else self.device
        if _handle is not None:
            self.handle = _handle
            self._default = True
            return
        out = ffi.new("aclrtStream *")
        with self._owner._on():
            errors.check(lib.aclrtCreateStream(out), "aclrtCreateStream")
        self.handle = out[0]
        # destroyed with its context current, from whichever thread closes or collects it
        contexts = (context.handle, self.device.context) if context is not None else (self.device.context,)
        self._finalizer = weakref.finalize(self, _in_context, self.device._generation, contexts, _destroy_stream,
                                           self.handle)

    @classmethod
    def default(cls, device: Device | None = None, *, context: Context | None = None) -> "Stream":
        return cls(device, context=context, _handle=ffi.NULL)

    @property
    def closed(self) -> bool:
        return self._owner.closed if self._default else super().closed or self.device._generation != _generation

    def _call(self, fn, *args):
        """Call fn with this stream's context current, whichever thread calls (what the NULL stream means, and
        where memory for the stream is allocated, depend on it)."""
        self._check_open()
        with self._owner._on():
            return fn(*args)

    def synchronize(self, timeout_ms: int | None = None) -> None:
        """Wait for the work queued so far (``aclrtSynchronizeStreamWithTimeout`` when ``timeout_ms`` is given;
        a timeout raises the runtime's error, 507046)."""
        if timeout_ms is None:
            errors.check(self._call(lib.aclrtSynchronizeStream, self.handle), "aclrtSynchronizeStream")
        else:
            timeout_ms = _index("Stream.synchronize", "timeout_ms", timeout_ms)
            errors.check(self._call(lib.aclrtSynchronizeStreamWithTimeout, self.handle, _int32(timeout_ms)),
                         "aclrtSynchronizeStreamWithTimeout")

    def query(self) -> bool:
        """True when every item queued on the stream has run (``aclrtStreamQuery``)."""
        out = ffi.new("aclrtStreamStatus *")
        errors.check(self._call(lib.aclrtStreamQuery, self.handle, out), "aclrtStreamQuery")
        return out[0] == lib.ACL_STREAM_STATUS_COMPLETE

    def wait(self, event: "Event") -> None:
        """Work queued on this stream from now on waits for the event's latest record (``aclrtStreamWaitEvent``)."""
        event = _open_event("Stream.wait", event)
        errors.check(self._call(lib.aclrtStreamWaitEvent, self.handle, event.handle), "aclrtStreamWaitEvent")

    def record(self, event: "Event | None" = None) -> "Event":
        """Record ``event`` (a new one when None) on this stream and return it."""
        event = _open_event("Stream.record", event) if event is not None else Event(self.device)
        event.record(self)
        return event

    def workspace(self, nbytes: int):
        """Device memory of at least ``nbytes`` for work queued on this stream, from a pool kept per
        stream: reused while the size fits, grown (after synchronising) when it does not, freed when the
        stream is closed. Valid until the next call for this stream. ``aclnn_py`` operators use it."""
        nbytes = _index("Stream.workspace", "nbytes", nbytes)
        if nbytes < 0:
            raise ValueError(f"Stream.workspace: nbytes must be >= 0, got {nbytes}")
        out = ffi.new("void **")
        errors.check(self._call(lib.aclnnpy_workspace, self.handle, nbytes, out), "aclrtMalloc")
        return out[0]


class Event(_Resource):
    """An event (``aclrtCreateEvent``; ``aclrtCreateEventWithFlag`` when ``flags`` is given): recorded on a
    stream, it completes when the stream reaches the record; other streams can wait for it, the host can
    wait for it or poll it, and two completed records give the time between them."""

    def __init__(self, device: Device | None = None, *, flags: int | None = None):
        self.device = _device_or_default("Event", device)
        out = ffi.new("aclrtEvent *")
        with self.device._on():
            if flags is None:
                errors.check(lib.aclrtCreateEvent(out), "aclrtCreateEvent")
            else:
                flags = _index("Event", "flags", flags)
                if not 0 <= flags < (1 << 32):  # a uint32_t in C
                    raise ValueError(f"Event: flags {flags} is outside the uint32 range")
                errors.check(lib.aclrtCreateEventWithFlag(out, flags), "aclrtCreateEventWithFlag")
        self.handle = out[0]
        self._finalizer = weakref.finalize(self, _in_context, self.device._generation, (self.device.context,),
                                           lib.aclrtDestroyEvent, self.handle)

    @property
    def closed(self) -> bool:
        return super().closed or self.device._generation != _generation

    def _call(self, fn, *args):
        """Call fn with the event's device current, whichever thread calls."""
        self._check_open()
        with self.device._on():
            return fn(*args)

    def record(self, stream: Stream | None = None) -> None:
        """Record the event on ``stream`` (default: the device's default stream) (``aclrtRecordEvent``)."""
        self._check_open()
        if stream is None:
            stream = Stream.default(self.device)
        elif not isinstance(stream, Stream):
            raise errors.type_error("Event.record", "stream", stream, "an aclnn_py.Stream or None")
        errors.check(stream._call(lib.aclrtRecordEvent, self.handle, stream.handle), "aclrtRecordEvent")

    def synchronize(self, timeout_ms: int | None = None) -> None:
        """Wait until the latest record has run (a timeout raises the runtime's error, 507047)."""
        if timeout_ms is None:
            errors.check(self._call(lib.aclrtSynchronizeEvent, self.handle), "aclrtSynchronizeEvent")
        else:
            timeout_ms = _int32(_index("Event.synchronize", "timeout_ms", timeout_ms))
            errors.check(self._call(lib.aclrtSynchronizeEventWithTimeout, self.handle, timeout_ms),
                         "aclrtSynchronizeEventWithTimeout")

    def query(self) -> bool:
        """True when the latest record has run (or the event was never recorded)."""
        out = ffi.new("aclrtEventRecordedStatus *")
        errors.check(self._call(lib.aclrtQueryEventStatus, self.handle, out), "aclrtQueryEventStatus")
        return out[0] == lib.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds from this event's completed record to ``end``'s (``aclrtEventElapsedTime``)."""
        self._check_open()
        end = _open_event("Event.elapsed_time", end)
        out = ffi.new("float *")
        errors.check(self._call(lib.aclrtEventElapsedTime, out, self.handle, end.handle), "aclrtEventElapsedTime")
        return float(out[0])


def _open_event(where: str, event) -> Event:
    if not isinstance(event, Event):
        raise errors.type_error(where, "event", event, "an aclnn_py.Event")
    event._check_open()
    return event


def _int32(value: int) -> int:
    if not -(1 << 31) <= value < (1 << 31):
        raise ValueError(f"{value} is outside the int32 range of the C parameter")
    return value


def stream_handle(where: str, stream) -> object:
    """The C handle for a ``stream=`` argument: None is the default stream; anything but an open Stream
    is refused (TypeError, or ValueError for a closed one)."""
    if stream is None:
        return ffi.NULL
    if not isinstance(stream, Stream):
        raise errors.type_error(where, "stream", stream, "an aclnn_py.Stream or None",
                                "make one with aclnn_py.Stream() or device.stream()")
    stream._check_open()
    return stream.handle


def _index(where: str, argument: str, value) -> int:
    """``value`` as an int64 (ints, numpy integers, 0-d integer arrays): TypeError naming the argument for
    another type, ValueError outside the int64 range every C parameter here has."""
    try:
        value = operator.index(value)
    except TypeError:
        raise errors.type_error(where, argument, value, "an int") from None
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError(f"{where}: argument {argument!r} = {value} is outside the int64 range")
    return value


def _device_or_default(where: str, device) -> "Device":
    if device is None:
        return default_device()
    if not isinstance(device, Device):
        raise errors.type_error(where, "device", device, "an aclnn_py.Device or None",
                                f"use aclnn_py.Device({device!r})" if isinstance(device, int) else "")
    device._check_open()
    return device


class _Memory:
    """Device memory with counted holders: the DeviceBuffer that allocated (or borrowed) it, and every DLPack
    export of a view over it (a consumer may outlive the buffer). The last ``release`` frees it."""

    __slots__ = ("ptr", "_free", "_holders", "_lock")

    def __init__(self, ptr, free):
        self.ptr, self._free, self._holders, self._lock = ptr, free, 1, threading.Lock()

    def hold(self) -> bool:
        """One more holder; False when the memory is already gone."""
        with self._lock:
            if self._holders == 0:
                return False
            self._holders += 1
            return True

    def release(self) -> None:
        with self._lock:
            self._holders -= 1
            last = self._holders == 0
        if last:
            self._free()




class DeviceBuffer(_Resource):
    """``nbytes`` of device memory (``aclrtMalloc``), zero-filled. A zero-byte buffer has a NULL pointer.
    ``close()`` ends the buffer; its memory is freed once no DLPack consumer of a view over it holds it."""

    _closed_empty = False
    _memory: _Memory | None = None

    def __init__(self, nbytes: int, device: Device | None = None):
        self.nbytes = _index("DeviceBuffer", "nbytes", nbytes)
        if self.nbytes < 0:
            raise ValueError(f"DeviceBuffer: nbytes must be >= 0, got {nbytes}")
        self.device = _device_or_default("DeviceBuffer", device)
        if self.nbytes == 0:
            self.ptr = ffi.NULL
            return
        out = ffi.new("void **")
        with self.device._on():
            errors.check(lib.aclrtMalloc(out, self.nbytes, lib.ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc")
            self.ptr = out[0]
            # freed with its device current, from whichever thread drops the last holder
            self._own(_Memory(self.ptr, functools.partial(_in_context, self.device._generation,
                                                          (self.device.context,), lib.aclrtFree, self.ptr)))
            # The stub zero-fills; a device does not, and outputs the operator leaves untouched must read as 0.
            if not loader.load().malloc_zero_fills:
                errors.check(lib.aclrtMemset(self.ptr, self.nbytes, 0, self.nbytes), "aclrtMemset")

    @classmethod
    def _borrow(cls, address: int, nbytes: int, device, owner) -> "DeviceBuffer":
        """Device memory someone else allocated (a DLPack producer's): not freed here; ``owner.close()`` runs
        when the buffer is closed or collected."""
        buf = cls.__new__(cls)
        buf.nbytes = nbytes
        buf.device = _device_or_default("DeviceBuffer", device)
        buf.ptr = ffi.cast("void *", address)
        buf._own(_Memory(buf.ptr, owner.close))
        return buf

    @classmethod
    def borrow(cls, address, nbytes: int, device: Device | None = None) -> "DeviceBuffer":
        """``nbytes`` of device memory at ``address`` that someone else allocated and frees (pyACL's
        ``acl.rt.malloc``, another library): an ``int`` address or a cffi pointer, trusted as C trusts it.
        Closing the buffer does not free the memory."""
        if isinstance(address, ffi.CData):
            address = int(ffi.cast("uintptr_t", address))
        address = _index("DeviceBuffer.borrow", "address", address)
        nbytes = _index("DeviceBuffer.borrow", "nbytes", nbytes)
        if address < 0 or nbytes < 0:
            raise ValueError(f"DeviceBuffer.borrow: address and nbytes must be >= 0, got {address}, {nbytes}")
        return cls._borrow(address, nbytes, device, _NotOwned())

    def _own(self, memory: _Memory) -> None:
        self._memory = memory
        self._finalizer = weakref.finalize(self, memory.release)

    def _hold(self) -> _Memory | None:
        """A holder's claim on the memory for a DLPack export (released by the caller); None for no memory."""
        self._check_open()
        memory = self._memory
        if memory is None:
            return None
        if not memory.hold():  # closed by another thread meanwhile
            raise errors.closed_error(self)
        return memory

    @property
    def closed(self) -> bool:
        if self.nbytes == 0:
            return self._closed_empty
        return super().closed or self.device._generation != _generation

    def close(self) -> None:
        self._closed_empty = True
        super().close()

    def _span(self, where: str, nbytes, offset, host_bytes) -> tuple[int, int]:
        """Check [offset, offset + nbytes) against this buffer and the host side; return both as ints."""
        self._check_open()
        offset = _index(where, "offset", offset)
        nbytes = host_bytes if nbytes is None else _index(where, "nbytes", nbytes)
        if nbytes is None:
            raise ValueError(f"{where}: nbytes is required with a raw host pointer")
        if offset < 0 or nbytes < 0:
            raise ValueError(f"{where}: offset and nbytes must be >= 0, got offset={offset}, nbytes={nbytes}")
        if offset + nbytes > self.nbytes:
            raise ValueError(f"{where}: [{offset}, {offset + nbytes}) is outside the {self.nbytes}-byte buffer")
        if host_bytes is not None and nbytes > host_bytes:
            raise ValueError(f"{where}: nbytes={nbytes} is larger than the {host_bytes}-byte host buffer")
        return nbytes, offset

    def upload(self, host, nbytes: int | None = None, offset: int = 0) -> None:
        """Copy ``nbytes`` (default: all of ``host``) from a contiguous host buffer, an ``acl.host_ptr`` span
        or a raw cffi pointer (then ``nbytes`` is required and trusted) into this buffer at ``offset``."""
        if isinstance(host, ffi.CData) and ffi.typeof(host).kind == "pointer":
            src, size = host, None
        else:
            span = host if isinstance(host, HostSpan) else HostSpan(host)
            src, size = span.cdata, span.nbytes
        n, offset = self._span("DeviceBuffer.upload", nbytes, offset, size)
        if n:
            with self.device._on():
                errors.check(lib.aclrtMemcpy(ffi.cast("char *", self.ptr) + offset, self.nbytes - offset, src, n,
                                             _copy_kind(lib.ACL_MEMCPY_HOST_TO_DEVICE)), "aclrtMemcpy")

    def download(self, host, nbytes: int | None = None, offset: int = 0) -> None:
        """Copy ``nbytes`` (default: the size of ``host``) from this buffer at ``offset`` into a writable
        contiguous host buffer."""
        span = host if isinstance(host, HostSpan) else HostSpan(host)
        if not span.writable:
            raise TypeError(f"DeviceBuffer.download: the host buffer ({type(span.obj).__name__}) is read-only")
        n, offset = self._span("DeviceBuffer.download", nbytes, offset, span.nbytes)
        if n:
            with self.device._on():
                errors.check(lib.aclrtMemcpy(span.cdata, span.nbytes, ffi.cast("char *", self.ptr) + offset, n,
                                             _copy_kind(lib.ACL_MEMCPY_DEVICE_TO_HOST)), "aclrtMemcpy")


class _NotOwned:
    """The owner of borrowed memory that this side must not free."""

    def close(self) -> None:
        pass


def _copy_kind(kind: int) -> int:
    """``kind`` for a copy between host and device memory; ACL_MEMCPY_DEFAULT on the stub, where the host side
    may be lent to the device for a call at that moment (an array passed to ``run`` twice), and so be device
    memory."""
    return lib.ACL_MEMCPY_DEFAULT if loader.load().lends_host_memory else kind


def view_layout(a: np.ndarray):
    """How an aclTensor describes a numpy view: element strides, element offset, and the byte span
    [lo, hi) the view touches relative to its data pointer (strides must be whole elements)."""
    item = a.itemsize
    lo = sum((d - 1) * s for d, s in zip(a.shape, a.strides) if s < 0 and d > 0)
    hi = sum((d - 1) * s for d, s in zip(a.shape, a.strides) if s > 0 and d > 0) + item
    return [s // item for s in a.strides], -lo // item, lo, hi


def _span(shape, strides, item: int) -> tuple[int, int]:
    """Byte offsets [lo, hi) of the memory a view (element strides) touches, relative to element 0."""
    if min(shape, default=1) == 0:
        return 0, 0
    lo = sum((d - 1) * s for d, s in zip(shape, strides) if s < 0) * item
    hi = (sum((d - 1) * s for d, s in zip(shape, strides) if s > 0) + 1) * item
    return lo, hi


def contiguous_strides(shape) -> tuple[int, ...]:
    strides, s = [], 1
    for d in reversed(shape):
        strides.append(s)
        s *= d
    return tuple(reversed(strides))


class Tensor(_Resource):
    """An ``aclTensor`` over a device buffer: view shape, element strides and offset, dtype, ND format.

    ``format`` and ``storage_shape`` (default: the view shape) are passed to ``aclCreateTensor`` as they are: a
    weight in the FRACTAL_NZ layout is ``Tensor(view_shape, dtype, format=ACL_FORMAT_FRACTAL_NZ,
    storage_shape=nz_shape, buffer=...)`` over a buffer of the NZ storage's size (docs/guide/matmul.md).

    ``Tensor.from_numpy(a)`` uploads an array (keeping its strides, so a sliced or transposed array stays
    a strided view without a host copy); ``t.numpy()`` downloads it.
    """

    def __init__(self, shape, dtype, *, strides=None, offset: int = 0, buffer: DeviceBuffer | None = None,
                 device: Device | None = None, format: int | None = None, storage_shape=None):
        self.shape = tuple(_index("Tensor", "shape", d) for d in shape)
        self.storage_shape = (None if storage_shape is None else
                              tuple(_index("Tensor", "storage_shape", d) for d in storage_shape))
        self.dtype = dtypes.as_numpy_dtype(dtype)
        self.acl_dtype = dtypes.to_acl(self.dtype)
        self.strides = (tuple(_index("Tensor", "strides", s) for s in strides) if strides is not None
                        else contiguous_strides(self.shape))
        if len(self.strides) != len(self.shape):
            raise ValueError(f"Tensor: {len(self.strides)} strides for {len(self.shape)} dimensions")
        self.offset = _index("Tensor", "offset", offset)
        if buffer is not None and not isinstance(buffer, DeviceBuffer):
            raise errors.type_error("Tensor", "buffer", buffer, "an aclnn_py.DeviceBuffer or None")
        if buffer is not None:
            buffer._check_open()
        if buffer is None:
            numel = math.prod(self.shape)
            buffer = DeviceBuffer(numel * self.dtype.itemsize if min(self.shape, default=1) > 0 else 0, device)
        self.buffer = buffer
        self.format = lib.ACL_FORMAT_ND if format is None else _index("Tensor", "format", format)
        if not -(1 << 31) <= self.format < (1 << 31):  # an aclFormat enum in C
            raise ValueError(f"Tensor: format {self.format} is outside the range of aclFormat")
        handle = self._new_handle()
        self.handle = handle
        self._finalizer = weakref.finalize(self, lib.aclDestroyTensor, handle)

    def _new_handle(self):
        """A new aclTensor with this tensor's description and data (a list owns the ones made for it)."""
        shape_arr = ffi.new("int64_t[]", self.shape or [0])
        stride_arr = ffi.new("int64_t[]", self.strides or [0])
        storage = self.shape if getattr(self, "storage_shape", None) is None else self.storage_shape
        storage_arr = ffi.new("int64_t[]", storage or [0])
        handle = lib.aclCreateTensor(shape_arr, len(self.shape), self.acl_dtype, stride_arr, self.offset,
                                     self.format, storage_arr, len(storage), self.buffer.ptr)
        return errors.check_handle(handle, "aclCreateTensor")

    @classmethod
    def from_numpy(cls, array, device: Device | None = None) -> "Tensor":
        a = np.asarray(array)
        if not a.dtype.isnative:  # the device has one byte order: the host's
            a = a.astype(a.dtype.newbyteorder("="))
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
        return cls._from_host(a.ctypes.data, a.shape, [s // item for s in a.strides], a.dtype, device)

    @classmethod
    def from_address(cls, address, shape, dtype, *, strides=None, device: Device | None = None) -> "Tensor":
        """A tensor over device memory someone else allocated and frees, at ``address`` (an ``int``, as pyACL's
        ``acl.rt.malloc`` returns, or a cffi pointer): the memory is neither copied nor freed. ``strides`` are
        in elements (default: contiguous)."""
        dtype = dtypes.as_numpy_dtype(dtype)
        shape = tuple(_index("Tensor.from_address", "shape", d) for d in shape)
        strides = contiguous_strides(shape) if strides is None else tuple(strides)
        lo, hi = _span(shape, strides, dtype.itemsize)
        if lo < 0:
            raise ValueError("Tensor.from_address: negative strides reach before the address")
        buf = DeviceBuffer.borrow(address, hi, device)
        return cls(shape, dtype, strides=strides, buffer=buf, device=buf.device)

    @classmethod
    def _from_host(cls, address: int, shape, strides, dtype, device=None) -> "Tensor":
        """Upload the host view at ``address`` (element strides): only the bytes it spans are copied, and the
        tensor describes the same view (strides and offset) over them."""
        dtype = np.dtype(dtype)
        lo, hi = _span(shape, strides, dtype.itemsize)
        buf = DeviceBuffer(hi - lo, device)
        if hi > lo:
            buf.upload(ffi.cast("char *", address + lo), hi - lo)
        return cls(shape, dtype, strides=strides, offset=-lo // dtype.itemsize, buffer=buf, device=device)

    def _to_host(self, address: int) -> None:
        """Write the buffer back over the host view this tensor was uploaded from (``_from_host``)."""
        lo = -self.offset * self.dtype.itemsize
        if self.buffer.nbytes:
            self.buffer.download(ffi.buffer(ffi.cast("char *", address + lo), self.buffer.nbytes))

    @classmethod
    def from_dlpack(cls, obj, device: Device | None = None) -> "Tensor":
        """A Tensor from anything with ``__dlpack__`` (torch tensors of any dtype aclnn has, bfloat16
        included, numpy arrays...). Host memory is uploaded (one copy of the bytes the view spans; torch
        memory is read directly, not through numpy); a tensor already on the device (``kDLAscend``, or an
        aclnn_py Tensor) is shared, not copied, and kept alive by the result."""
        if isinstance(obj, Tensor):
            obj._check_open()
            return cls(obj.shape, obj.dtype, strides=obj.strides, offset=obj.offset, buffer=obj.buffer,
                       format=obj.format)
        if not hasattr(obj, "__dlpack__"):
            raise errors.type_error("Tensor.from_dlpack", "obj", obj, "an object with __dlpack__")
        from ._dlpack import KDL_ASCEND, KDL_CPU, DLView

        view = DLView(obj, "Tensor.from_dlpack")
        try:
            if view.device[0] == KDL_CPU:
                return cls._from_host(view.address, view.shape, view.strides, view.dtype, device)
            if view.device[0] == KDL_ASCEND and not loader.load().is_stub:
                lo, hi = _span(view.shape, view.strides, view.dtype.itemsize)
                buf = DeviceBuffer._borrow(view.address + lo, hi - lo, device, view)
                shape, strides, dtype, view = view.shape, view.strides, view.dtype, None  # the buffer owns it now
                return cls(shape, dtype, strides=strides, offset=-lo // dtype.itemsize, buffer=buf)
            raise BufferError(f"Tensor.from_dlpack: DLPack device type {view.device[0]} is neither the host "
                              f"({KDL_CPU}) nor an Ascend device ({KDL_ASCEND})")
        finally:
            if view is not None:
                view.close()

    def __dlpack_device__(self) -> tuple[int, int]:
        """(kDLAscend = 21, device id) on a device; (kDLCPU = 1, 0) on the stub, whose device memory is host
        memory, so numpy and torch view it without a copy."""
        from ._dlpack import KDL_ASCEND, KDL_CPU

        if loader.load().is_stub:
            return (KDL_CPU, 0)
        return (KDL_ASCEND, self.buffer.device.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The tensor's view as a DLPack capsule, without a copy (the consumer keeps the memory alive, also past
        ``buffer.close()``). Work queued on streams is not waited for: synchronise the stream that writes the tensor first."""
        self._check_view()
        from ._dlpack import export

        return export(self, self.__dlpack_device__(), stream, max_version, dl_device, copy)

    def _check_view(self) -> None:
        """The view (offset and strides) must lie inside the buffer before it is read on the host."""
        self._check_open()
        self.buffer._check_open()
        if min(self.shape, default=1) == 0:
            return
        lo = self.offset + sum((d - 1) * s for d, s in zip(self.shape, self.strides) if s < 0)
        hi = self.offset + sum((d - 1) * s for d, s in zip(self.shape, self.strides) if s > 0)
        item = self.dtype.itemsize
        if lo < 0 or (hi + 1) * item > self.buffer.nbytes:
            raise ValueError(f"Tensor: the view (shape {self.shape}, strides {self.strides}, offset {self.offset}) "
                             f"reaches elements [{lo}, {hi}], outside its {self.buffer.nbytes}-byte buffer")

    def numpy(self) -> np.ndarray:
        """A host copy of the tensor's view."""
        self._check_view()
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

    def to_numpy(self) -> np.ndarray:
        """A host copy of the tensor's view (the same as ``numpy()``; ``from_numpy`` is the other way)."""
        return self.numpy()

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(tensor)``: a host copy of the view (``to_numpy()``), so numpy functions take Tensors.
        ``copy=False`` is refused: device memory is never a numpy array's own memory."""
        if copy is False:
            raise ValueError("Tensor.__array__: a Tensor lives in device memory; it can only be copied to the host "
                             "(copy=False is impossible)")
        out = self.to_numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """The bytes of the elements of the view (``size * itemsize``), as numpy counts them."""
        return self.size * self.dtype.itemsize

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d Tensor")
        return self.shape[0]

    def __repr__(self):
        return f"<Tensor shape={self.shape} dtype={self.dtype} strides={self.strides} offset={self.offset}>"


# ---- the rest of the tensor meta API: scalars, arrays, lists --------------------------------------------

def _infer_scalar_dtype(value) -> np.dtype:
    """A Python bool is bool, an int int64 (uint64 above int64's range), a float float64, a complex complex128
    (exact; the operator casts); a numpy scalar keeps its dtype."""
    if isinstance(value, (np.generic, np.ndarray)):
        return np.asarray(value).dtype
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        return np.dtype(np.uint64 if value > np.iinfo(np.int64).max else np.int64)
    if isinstance(value, float):
        return np.dtype(np.float64)
    if isinstance(value, complex):
        return np.dtype(np.complex128)
    raise TypeError(f"Scalar: value must be a bool, int, float, complex or numpy scalar, got {type(value).__name__}")


class _MetaObject(_Resource):
    """An object of the tensor meta API: one handle, released with its C destroy function."""

    _destroy = ""

    def _own(self, handle, create: str):
        self.handle = errors.check_handle(handle, create)
        self._finalizer = weakref.finalize(self, getattr(lib, self._destroy), self.handle)


def _scalar_parts(where: str, value, dtype):
    """(bytes for aclCreateScalar, value as C holds it, numpy dtype, aclDataType) of a number or Scalar."""
    if isinstance(value, Scalar):
        value, dtype = value.value, value.dtype if dtype is None else dtype
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    try:
        dt = _infer_scalar_dtype(value) if dtype is None else dtypes.as_numpy_dtype(dtype)
    except TypeError as exc:
        raise errors.type_error(where, "value", value, "a bool, int, float, complex or numpy scalar") from exc
    acl_dtype = dtypes.to_acl(dt)
    data = _scalar_bytes(where, "value", value, acl_dtype)
    return data, np.frombuffer(ffi.buffer(data), dt)[0].item(), dt, acl_dtype


class Scalar(_MetaObject):
    """An ``aclScalar``: ``Scalar(1.5)`` (dtype inferred: bool, int64 or float64; a numpy scalar keeps its
    own) or ``Scalar(2, "float16")``. The value is copied at creation; ``.value`` is what C holds."""

    _destroy = "aclDestroyScalar"

    def __init__(self, value, dtype=None):
        loader.load()
        data, self.value, self.dtype, self.acl_dtype = _scalar_parts("Scalar", value, dtype)
        self._own(lib.aclCreateScalar(data, self.acl_dtype), "aclCreateScalar")

    def __repr__(self):
        return f"<Scalar {self.value!r} dtype={self.dtype}{' closed' if self.closed else ''}>"


class _Array(_MetaObject):
    """An array of the meta API built from a sequence; ``.values`` is the tuple C received."""

    _create = _item = _kind = ""

    def __init__(self, values):
        where = type(self).__name__
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise errors.type_error(where, "values", values, f"a sequence of {self._kind}")
        items = values.tolist() if isinstance(values, np.ndarray) else list(values)
        loader.load()
        arr = _as_array(where, "values", self._item, [self._convert(where, v) for v in items])
        self.values = tuple(arr)
        self._own(getattr(lib, self._create)(arr, len(items)), self._create)

    def __len__(self):
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def __repr__(self):
        return f"<{type(self).__name__} {list(self.values)!r}{' closed' if self.closed else ''}>"


class IntArray(_Array):
    """An ``aclIntArray`` (int64 values) from a sequence of ints."""

    _create, _destroy, _item, _kind = "aclCreateIntArray", "aclDestroyIntArray", "int64_t", "ints"

    @staticmethod
    def _convert(where, v):
        try:
            return operator.index(v)
        except TypeError:
            raise errors.type_error(where, "values", v, "a sequence of ints (every element an int)") from None


class BoolArray(_Array):
    """An ``aclBoolArray`` from a sequence of bools."""

    _create, _destroy, _item, _kind = "aclCreateBoolArray", "aclDestroyBoolArray", "bool", "bools"

    @staticmethod
    def _convert(where, v):
        if not isinstance(v, (bool, np.bool_)):
            raise errors.type_error(where, "values", v, "a sequence of bools (every element a bool)")
        return bool(v)


class FloatArray(_Array):
    """An ``aclFloatArray`` (float32 values) from a sequence of numbers."""

    _create, _destroy, _item, _kind = "aclCreateFloatArray", "aclDestroyFloatArray", "float", "floats"

    @staticmethod
    def _convert(where, v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise errors.type_error(where, "values", v, "a sequence of numbers (every element an int or float)")
        return float(v)


class TensorList(_MetaObject):
    """An ``aclTensorList`` of Tensors (a None element is a NULL entry). The list owns aclTensors of its own
    describing the same views (C's list destroys its elements), and keeps the Tensors, so their memory,
    alive as long as it lives."""

    _destroy = "aclDestroyTensorList"

    def __init__(self, tensors):
        if isinstance(tensors, (str, bytes)) or not hasattr(tensors, "__iter__"):
            raise errors.type_error("TensorList", "tensors", tensors, "a sequence of aclnn_py.Tensor or None")
        self.tensors = tuple(tensors)
        for i, t in enumerate(self.tensors):
            if t is not None and not isinstance(t, Tensor):
                raise errors.type_error("TensorList", f"tensors[{i}]", t, "an aclnn_py.Tensor or None")
            if t is not None:
                t._check_open()
        handles = []
        try:
            for t in self.tensors:
                handles.append(ffi.NULL if t is None else t._new_handle())
            handle = lib.aclCreateTensorList(ffi.new("aclTensor *[]", handles), len(handles))
        except BaseException:
            for h in handles:
                if h != ffi.NULL:
                    lib.aclDestroyTensor(h)
            raise
        if handle == ffi.NULL:
            for h in handles:
                if h != ffi.NULL:
                    lib.aclDestroyTensor(h)
        self._own(handle, "aclCreateTensorList")

    def __len__(self):
        return len(self.tensors)

    def __getitem__(self, i):
        return self.tensors[i]

    def __repr__(self):
        return f"<TensorList of {len(self.tensors)}{' closed' if self.closed else ''}>"


class ScalarList(_MetaObject):
    """An ``aclScalarList`` from numbers or Scalars (``dtype`` as for Scalar; given, it applies to every
    element). The list owns scalars of its own (C's list destroys its elements); ``.values`` and
    ``.dtypes`` are what C holds."""

    _destroy = "aclDestroyScalarList"

    def __init__(self, values, dtype=None):
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise errors.type_error("ScalarList", "values", values, "a sequence of numbers or aclnn_py.Scalar")
        loader.load()
        parts = [_scalar_parts("ScalarList", v, dtype) for v in values]
        self.values = tuple(p[1] for p in parts)
        self.dtypes = tuple(p[2] for p in parts)
        handles = []
        try:
            for data, _, _, acl_dtype in parts:
                handles.append(errors.check_handle(lib.aclCreateScalar(data, acl_dtype), "aclCreateScalar"))
            handle = lib.aclCreateScalarList(ffi.new("aclScalar *[]", handles), len(handles))
        except BaseException:
            for h in handles:
                lib.aclDestroyScalar(h)
            raise
        if handle == ffi.NULL:
            for h in handles:
                lib.aclDestroyScalar(h)
        self._own(handle, "aclCreateScalarList")

    def __len__(self):
        return len(self.values)

    def __repr__(self):
        return f"<ScalarList {list(self.values)!r}{' closed' if self.closed else ''}>"
