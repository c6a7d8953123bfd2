"""Collective communication (HCCL) from Python: communicators and collectives on Tensors and numpy arrays.

    from aclnn_py import hccl
    root = hccl.get_root_info()                   # bytes: hand it to every rank (it pickles: multiprocessing)
    with hccl.Communicator(4, root, rank, device=rank) as comm:   # in each rank's thread or process
        total = comm.all_reduce(x)                # numpy in, numpy out (Tensors in, Tensors out)
    comms = hccl.Communicator.init_all([0, 1, 2, 3])               # one per device of this process

A communicator is one rank: create it in the thread or process that uses it, with its device (made current in
that thread, as ``aclrtSetDevice`` does). Every call queues the operation on the communicator's stream (or
``stream=``) and waits for it; a numpy array is lent to the device for the call on the stub (no copy) and copied
to and from device memory on a real toolkit; a Tensor is used in place and results are new Tensors on the
communicator's device. Counts and shapes follow the C API: ``all_gather`` stacks the ranks' arrays,
``reduce_scatter`` and ``all_to_all`` split the first dimension into ``size`` blocks, the ``_v`` variants take
counts of rows (elements of 1-D arrays). A non-zero ``HcclResult`` raises ``aclnn_py.HcclError``
(``HcclEPara``, ``HcclETimeout``...); a failure while the operation runs (ranks disagreeing, a rank that never
calls, a destroyed communicator) is raised by the synchronisation as ``AclError`` 507015 with the report.
"""

from __future__ import annotations

import threading
import weakref

import ml_dtypes
import numpy as np

from . import errors, loader, runtime
from ._native import ffi, lib
from .errors import HcclError
from .runtime import Device, DeviceBuffer, Stream, Tensor

ROOT_INFO_BYTES = 4108
REDUCE_OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3}

_HCCL_TYPES = {
    np.dtype(np.int8): 0, np.dtype(np.int16): 1, np.dtype(np.int32): 2, np.dtype(np.float16): 3,
    np.dtype(np.float32): 4, np.dtype(np.int64): 5, np.dtype(np.uint64): 6, np.dtype(np.uint8): 7,
    np.dtype(np.uint16): 8, np.dtype(np.uint32): 9, np.dtype(np.float64): 10, np.dtype(ml_dtypes.bfloat16): 11,
    np.dtype(np.bool_): 7,  # moved as bytes
}
for _name, _code in (("float8_e4m3fn", 15), ("float8_e5m2", 16), ("float8_e8m0fnu", 17)):
    if hasattr(ml_dtypes, _name):
        _HCCL_TYPES[np.dtype(getattr(ml_dtypes, _name))] = _code


def hccl_dtype(dtype) -> int:
    """The HcclDataType of a numpy dtype."""
    dt = np.dtype(dtype)
    try:
        return _HCCL_TYPES[dt]
    except KeyError:
        names = ", ".join(sorted({str(d) for d in _HCCL_TYPES}))
        raise TypeError(f"numpy dtype {dt} has no HcclDataType; supported: {names}") from None


def _check(status: int, function: str) -> None:
    if status:
        errors.raise_status(status, function, HcclError)


def _fn(name: str):
    """The C function, or SymbolNotFoundError when the loaded libraries have no libhccl."""
    backend = loader.load()
    if name in backend.missing_symbols:
        raise errors.SymbolNotFoundError(name, backend.libraries)
    return getattr(lib, name)


def get_root_info() -> bytes:
    """A new root info (``HcclGetRootInfo``): the 4108 bytes every rank passes to ``Communicator``."""
    info = ffi.new("HcclRootInfo *")
    _check(_fn("HcclGetRootInfo")(info), "HcclGetRootInfo")
    return bytes(ffi.buffer(info))


def error_string(code: int) -> str:
    """``HcclGetErrorString``."""
    return ffi.string(_fn("HcclGetErrorString")(int(code))).decode()


def _destroy(handle, stream):
    lib.HcclCommDestroy(handle)
    if stream is not None:
        stream.close()


def _device_of(where: str, device) -> Device:
    if isinstance(device, Device):
        return device
    if device is None:
        return runtime.default_device()
    if isinstance(device, (int, np.integer)) and not isinstance(device, bool):
        return Device(int(device))
    raise errors.type_error(where, "device", device, "an aclnn_py.Device, a device number or None")


class Communicator:
    """One rank of a communicator (an ``HcclComm``), its device and the stream its operations run on."""

    def __init__(self, nranks: int, root_info: bytes, rank: int, device=None, *, name: str | None = None):
        if not isinstance(root_info, (bytes, bytearray)) or len(root_info) != ROOT_INFO_BYTES:
            raise TypeError(f"Communicator: argument 'root_info' must be the {ROOT_INFO_BYTES} bytes of "
                            f"get_root_info()")
        for arg, value in (("nranks", nranks), ("rank", rank)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 0 <= value < 1 << 32:
                raise ValueError(f"Communicator: argument {arg!r} must be a uint32, got {value!r}")
        self.device = _device_of("Communicator", device)
        self.device.activate()  # the rank's thread runs on its device, as aclrtSetDevice makes it
        info = ffi.new("HcclRootInfo *")
        ffi.memmove(info, bytes(root_info), ROOT_INFO_BYTES)
        out = ffi.new("HcclComm *")
        if name is None:
            _check(_fn("HcclCommInitRootInfo")(int(nranks), info, int(rank), out), "HcclCommInitRootInfo")
        else:
            config = _config(name)
            _check(_fn("HcclCommInitRootInfoConfig")(int(nranks), info, int(rank), config, out),
                   "HcclCommInitRootInfoConfig")
        self._adopt(out[0])

    @classmethod
    def from_rank_table(cls, path, rank: int, device=None, *, name: str | None = None) -> "Communicator":
        """``HcclCommInitClusterInfo``: rank ``rank`` of the communicator a rank table file describes."""
        c = cls.__new__(cls)
        c.device = _device_of("Communicator.from_rank_table", device)
        c.device.activate()
        out = ffi.new("HcclComm *")
        p = str(path).encode()
        if name is None:
            _check(_fn("HcclCommInitClusterInfo")(p, int(rank), out), "HcclCommInitClusterInfo")
        else:
            _check(_fn("HcclCommInitClusterInfoConfig")(p, int(rank), _config(name), out),
                   "HcclCommInitClusterInfoConfig")
        c._adopt(out[0])
        return c

    @classmethod
    def init_all(cls, devices) -> list["Communicator"]:
        """``HcclCommInitAll``: one communicator per device of ``devices`` (numbers), rank i on devices[i], all
        in this process. Use each from the thread that drives its device."""
        ids = [int(d) for d in devices]
        arr = ffi.new("int32_t[]", ids or [0])
        out = ffi.new("HcclComm[]", max(len(ids), 1))
        _check(_fn("HcclCommInitAll")(len(ids), arr, out), "HcclCommInitAll")
        comms = []
        for i, d in enumerate(ids):
            c = cls.__new__(cls)
            c.device = Device(d)
            c._adopt(out[i])
            comms.append(c)
        return comms

    def split(self, ranks, sub_id: int, *, name: str | None = None) -> "Communicator":
        """``HcclCreateSubCommConfig``: the sub-communicator of ``ranks`` (ranks of this one, in order) that this
        rank belongs to; every member calls it with the same ``ranks`` and ``sub_id``."""
        ranks = [int(r) for r in ranks]
        if self.rank not in ranks:
            raise ValueError(f"Communicator.split: this rank ({self.rank}) is not in ranks {ranks}")
        arr = ffi.new("uint32_t[]", ranks)
        parent = ffi.new("HcclComm *", self._handle())
        out = ffi.new("HcclComm *")
        with self.device._on():
            _check(_fn("HcclCreateSubCommConfig")(parent, len(ranks), arr, int(sub_id), ranks.index(self.rank),
                                                  _config(name or ""), out), "HcclCreateSubCommConfig")
        c = Communicator.__new__(Communicator)
        c.device = self.device
        c._adopt(out[0])
        return c

    def _adopt(self, handle) -> None:
        self.handle = handle
        self._lock = threading.Lock()
        self._stream = Stream(self.device)
        self._finalizer = weakref.finalize(self, _destroy, handle, self._stream)
        rank, size = ffi.new("uint32_t *"), ffi.new("uint32_t *")
        name = ffi.new("char[128]")
        _check(lib.HcclGetRankId(handle, rank), "HcclGetRankId")
        _check(lib.HcclGetRankSize(handle, size), "HcclGetRankSize")
        _check(lib.HcclGetCommName(handle, name), "HcclGetCommName")
        self.rank, self.size, self.name = int(rank[0]), int(size[0]), ffi.string(name).decode()

    # ---- lifetime -------------------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def close(self) -> None:
        """``HcclCommDestroy`` (idempotent), then the communicator's stream."""
        self._finalizer()

    destroy = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = " closed" if self.closed else ""
        return f"<Communicator {self.name!r} rank {self.rank} of {self.size} on device {self.device.device_id}{state}>"

    def _handle(self):
        if self.closed:
            raise errors.closed_error(self)
        return self.handle

    def async_error(self) -> int:
        """``HcclGetCommAsyncError``: the first failure of queued work (0 when none)."""
        out = ffi.new("HcclResult *")
        _check(lib.HcclGetCommAsyncError(self._handle(), out), "HcclGetCommAsyncError")
        return int(out[0])

    # ---- the calls ---------------------------------------------------------------------------------------------

    def _run(self, function: str, stream, build):
        """Queue one operation: build(call) returns the C arguments (device pointers from call.input/output);
        then wait for the stream and hand back the results."""
        handle = self._handle()
        s = self._stream if stream is None else stream
        if not isinstance(s, Stream):
            raise errors.type_error(function, "stream", stream, "an aclnn_py.Stream or None")
        with self.device._on():
            call = _Call(self.device, s)
            try:
                args = build(call)
                _check(_fn(function)(*args, handle, s.handle), function)
                s.synchronize()
                return call.results()
            finally:
                call.close()

    def all_reduce(self, x, op: str = "sum", *, out=None, stream: Stream | None = None):
        """Every rank gets op (``"sum"``, ``"prod"``, ``"max"``, ``"min"``) over the ranks' ``x``."""
        def build(call):
            p, n, dt = call.input(x)
            return (p, call.output(out, call.shape, call.dtype), n, dt, _op(op))
        return self._run("HcclAllReduce", stream, build)

    def reduce(self, x, root: int, op: str = "sum", *, out=None, stream: Stream | None = None):
        """Rank ``root`` gets op over the ranks' ``x`` (the others get None)."""
        def build(call):
            p, n, dt = call.input(x)
            q = call.output(out, call.shape, call.dtype) if self.rank == root else call.scratch(n * call.dtype.itemsize)
            return (p, q, n, dt, _op(op), int(root))
        result = self._run("HcclReduce", stream, build)
        return result if self.rank == root else None

    def broadcast(self, x, root: int, *, stream: Stream | None = None):
        """Every rank gets rank ``root``'s ``x``; the others' ``x`` give the shape and dtype (a numpy array or
        Tensor passed as ``x`` is written in place and returned)."""
        def build(call):
            p, n, dt = call.inout(x)
            return (p, n, dt, int(root))
        return self._run("HcclBroadcast", stream, build)

    def all_gather(self, x, *, out=None, stream: Stream | None = None):
        """The ranks' ``x`` stacked in rank order: shape ``(size, *x.shape)``."""
        def build(call):
            p, n, dt = call.input(x)
            return (p, call.output(out, (self.size, *call.shape), call.dtype), n, dt)
        return self._run("HcclAllGather", stream, build)

    def all_gather_v(self, x, counts, *, stream: Stream | None = None):
        """The ranks' ``x`` (``counts[j]`` rows from rank j) concatenated along the first dimension."""
        def build(call):
            p, n, dt = call.input(x)
            row = _row_elements(call.shape)
            rc = [int(c) for c in counts]
            _check_len("all_gather_v", "counts", rc, self.size)
            displs = np.cumsum([0] + rc[:-1]).tolist()
            shape = (sum(rc), *call.shape[1:]) if call.shape else (sum(rc),)
            q = call.output(None, shape, call.dtype)
            return (p, n, q, call.u64([c * row for c in rc]), call.u64([d * row for d in displs]), dt)
        return self._run("HcclAllGatherV", stream, build)

    def reduce_scatter(self, x, op: str = "sum", *, out=None, stream: Stream | None = None):
        """Block ``rank`` of op over the ranks' ``x``, whose first dimension is ``size`` blocks."""
        def build(call):
            p, n, dt = call.input(x)
            shape = _block_shape("reduce_scatter", call.shape, self.size)
            return (p, call.output(out, shape, call.dtype), n // self.size, dt, _op(op))
        return self._run("HcclReduceScatter", stream, build)

    def reduce_scatter_v(self, x, counts, op: str = "sum", *, stream: Stream | None = None):
        """Rows [sum(counts[:rank]), +counts[rank]) of op over the ranks' ``x``."""
        def build(call):
            p, n, dt = call.input(x)
            row = _row_elements(call.shape)
            sc = [int(c) for c in counts]
            _check_len("reduce_scatter_v", "counts", sc, self.size)
            displs = np.cumsum([0] + sc[:-1]).tolist()
            shape = (sc[self.rank], *call.shape[1:]) if call.shape else (sc[self.rank],)
            q = call.output(None, shape, call.dtype)
            return (p, call.u64([c * row for c in sc]), call.u64([d * row for d in displs]), q, sc[self.rank] * row,
                    dt, _op(op))
        return self._run("HcclReduceScatterV", stream, build)

    def scatter(self, x, root: int, *, shape=None, dtype=None, stream: Stream | None = None):
        """Block ``rank`` of rank ``root``'s ``x`` (first dimension ``size`` blocks). Off the root ``x`` may be
        None: then ``shape`` and ``dtype`` describe the block."""
        def build(call):
            if self.rank == root or x is not None:
                p, n, dt = call.input(x)
                block = _block_shape("scatter", call.shape, self.size)
            else:
                if shape is None or dtype is None:
                    raise ValueError("scatter: pass x, or shape and dtype of the block, on ranks other than the root")
                call.dtype, block = np.dtype(dtype), tuple(int(d) for d in shape)
                p, n, dt = ffi.NULL, int(np.prod(block, dtype=np.int64)) * self.size, hccl_dtype(call.dtype)
            return (p if self.rank == root else ffi.NULL, call.output(None, block, call.dtype), n // self.size, dt,
                    int(root))
        return self._run("HcclScatter", stream, build)

    def all_to_all(self, x, *, out=None, stream: Stream | None = None):
        """Block j of ``x`` (first dimension ``size`` blocks) goes to rank j; block j of the result came from it."""
        def build(call):
            p, n, dt = call.input(x)
            _block_shape("all_to_all", call.shape, self.size)
            q = call.output(out, call.shape, call.dtype)
            return (p, n // self.size, dt, q, n // self.size, dt)
        return self._run("HcclAlltoAll", stream, build)

    def all_to_all_v(self, x, send_counts, recv_counts, *, stream: Stream | None = None):
        """``send_counts[j]`` rows of ``x`` (in order) go to rank j; the result holds ``recv_counts[j]`` rows from
        each rank j, in rank order."""
        def build(call):
            p, n, dt = call.input(x)
            row = _row_elements(call.shape)
            sc, rc = [int(c) for c in send_counts], [int(c) for c in recv_counts]
            _check_len("all_to_all_v", "send_counts", sc, self.size)
            _check_len("all_to_all_v", "recv_counts", rc, self.size)
            if sum(sc) * row != n:
                raise ValueError(f"all_to_all_v: send_counts add up to {sum(sc)} rows but x has "
                                 f"{n // row if row else 0}")
            sd, rd = np.cumsum([0] + sc[:-1]).tolist(), np.cumsum([0] + rc[:-1]).tolist()
            shape = (sum(rc), *call.shape[1:]) if call.shape else (sum(rc),)
            q = call.output(None, shape, call.dtype)
            return (p if n else ffi.NULL, call.u64([c * row for c in sc]), call.u64([d * row for d in sd]), dt,
                    q if sum(rc) * row else ffi.NULL, call.u64([c * row for c in rc]), call.u64([d * row for d in rd]),
                    dt)
        return self._run("HcclAlltoAllV", stream, build)

    def all_to_all_vc(self, x, matrix, *, stream: Stream | None = None):
        """``HcclAlltoAllVC``: ``matrix[i][j]`` rows go from rank i to rank j (the same matrix on every rank)."""
        m = np.asarray(matrix, dtype=np.int64)
        if m.shape != (self.size, self.size):
            raise ValueError(f"all_to_all_vc: matrix must be {self.size} x {self.size}, got shape {m.shape}")

        def build(call):
            p, n, dt = call.input(x)
            row = _row_elements(call.shape)
            rc = int(m[:, self.rank].sum())
            shape = (rc, *call.shape[1:]) if call.shape else (rc,)
            q = call.output(None, shape, call.dtype)
            return (p if n else ffi.NULL, call.u64((m * row).reshape(-1).tolist()), dt,
                    q if rc * row else ffi.NULL, dt)
        return self._run("HcclAlltoAllVC", stream, build)

    def send(self, x, dest: int, *, stream: Stream | None = None) -> None:
        """``HcclSend``: matched, in order, with rank ``dest``'s ``recv`` from this rank."""
        def build(call):
            p, n, dt = call.input(x)
            return (p, n, dt, int(dest))
        self._run("HcclSend", stream, build)

    def recv(self, src: int, shape=None, dtype=None, *, out=None, stream: Stream | None = None):
        """``HcclRecv`` from rank ``src``: a new array of ``shape`` and ``dtype``, or ``out`` filled in place."""
        def build(call):
            if out is not None:
                p, n, dt = call.inout(out)
            else:
                if shape is None or dtype is None:
                    raise ValueError("recv: pass shape and dtype, or out")
                call.dtype = np.dtype(dtype)
                dims = tuple(int(d) for d in np.atleast_1d(shape)) if np.ndim(shape) else (int(shape),)
                p = call.output(None, dims, call.dtype)
                n, dt = int(np.prod(dims, dtype=np.int64)), hccl_dtype(call.dtype)
            return (p, n, dt, int(src))
        return self._run("HcclRecv", stream, build)

    def batch_send_recv(self, items, *, stream: Stream | None = None) -> None:
        """``HcclBatchSendRecv``: items ``("send", x, peer)`` and ``("recv", out, peer)`` run together; every
        ``out`` (a writable numpy array or a Tensor) is filled in place."""
        def build(call):
            arr = ffi.new("HcclSendRecvItem[]", max(len(items), 1))
            for i, item in enumerate(items):
                kind, obj, peer = item
                if kind not in ("send", "recv"):
                    raise ValueError(f"batch_send_recv: item {i} kind must be 'send' or 'recv', got {kind!r}")
                p, n, dt = call.input(obj) if kind == "send" else call.inout(obj)
                arr[i].sendRecvType = 0 if kind == "send" else 1
                arr[i].buf, arr[i].count, arr[i].dataType, arr[i].remoteRank = p, n, dt, int(peer)
            call.keep(arr)
            return (arr, len(items))
        self._run("HcclBatchSendRecv", stream, build)

    def barrier(self, *, stream: Stream | None = None) -> None:
        """``HcclBarrier``: returns once every rank has reached it."""
        self._run("HcclBarrier", stream, lambda call: ())


# ---- helpers ------------------------------------------------------------------------------------------------

def _config(name: str):
    if len(name.encode()) >= 128:
        raise ValueError("communicator names are at most 127 bytes")
    config = ffi.new("HcclCommConfig *")
    # HcclCommConfigInit is inline C: its effect, field by field (header: size, magic word, version)
    header = ffi.cast("uint64_t *", config)
    header[0] = ffi.sizeof("HcclCommConfig")
    words = ffi.cast("uint32_t *", config)
    words[2], words[3] = lib.HCCL_COMM_CONFIG_MAGIC_WORD, lib.HCCL_COMM_CONFIG_VERSION
    header[2] = 0
    config.hcclBufferSize = lib.HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET
    config.hcclDeterministic = lib.HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET
    config.hcclOpExpansionMode = lib.HCCL_COMM_DEFAULT_OP_EXPANSION_MODE
    config.hcclRdmaTrafficClass = lib.HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET
    config.hcclRdmaServiceLevel = lib.HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET
    ffi.memmove(config.hcclCommName, name.encode() + b"\0", len(name.encode()) + 1)
    return config


def _op(op) -> int:
    try:
        return REDUCE_OPS[op]
    except (KeyError, TypeError):
        raise ValueError(f"reduce op must be one of {', '.join(REDUCE_OPS)}, got {op!r}") from None


def _row_elements(shape) -> int:
    return int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1


def _block_shape(where: str, shape, size: int):
    if not shape or shape[0] % size:
        raise ValueError(f"{where}: the first dimension of x ({shape[0] if shape else 'a 0-d array'}) must be a "
                         f"multiple of the communicator size ({size})")
    return (shape[0] // size, *shape[1:])


def _check_len(where: str, name: str, values, size: int) -> None:
    if len(values) != size or any(v < 0 for v in values):
        raise ValueError(f"{where}: {name} must hold {size} non-negative counts, got {values}")


class _Call:
    """Device memory for one call: numpy arrays lent to the device (the stub) or copied to device buffers (a
    toolkit, or memory that cannot be lent: the same array used by two ranks at once), Tensors in place."""

    def __init__(self, device: Device, stream: Stream):
        self.device, self.stream = device, stream
        self.lent, self.buffers, self.keepalive, self.copy_back = [], [], [], []
        self.result = None
        self.shape, self.dtype = (), None

    def keep(self, obj):
        self.keepalive.append(obj)
        return obj

    def u64(self, values):
        return self.keep(ffi.new("uint64_t[]", [int(v) for v in values] or [0]))

    def _device_ptr(self, array: np.ndarray, writable: bool):
        """A device pointer to array's bytes (lent, or a copy: written back when writable)."""
        if array.nbytes == 0:
            return ffi.NULL
        host = ffi.cast("char *", array.ctypes.data)
        if loader.load().lends_host_memory:
            cell = ffi.new("void **")
            if lib.aclStubLendHostMemory(host, array.nbytes, cell) == 0:
                self.lent.append(cell[0])
                return cell[0]
            lib.aclGetRecentErrMsg()  # refused (already lent elsewhere): copy instead
        buf = DeviceBuffer(array.nbytes, self.device)
        self.buffers.append(buf)
        errors.check(lib.aclrtMemcpy(buf.ptr, array.nbytes, host, array.nbytes, runtime._copy_kind(
            lib.ACL_MEMCPY_HOST_TO_DEVICE)), "aclrtMemcpy")
        if writable:
            self.copy_back.append((array, buf))
        return buf.ptr

    def _tensor_ptr(self, t: Tensor):
        t._check_view()
        if t.strides != runtime.contiguous_strides(t.shape):
            raise ValueError("collectives need contiguous Tensors")
        return ffi.cast("char *", t.buffer.ptr) + t.offset * t.dtype.itemsize

    def input(self, x):
        """(device pointer, element count, HcclDataType) of an input; records its shape and dtype."""
        if isinstance(x, Tensor):
            self.shape, self.dtype, self.tensor = x.shape, x.dtype, True
            return self._tensor_ptr(x), int(np.prod(x.shape, dtype=np.int64)), hccl_dtype(x.dtype)
        a = np.ascontiguousarray(x)
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        self.keep(a)
        self.shape, self.dtype, self.tensor = a.shape, a.dtype, False
        return self._device_ptr(a, False), a.size, hccl_dtype(a.dtype)

    def inout(self, x):
        """An array or Tensor read and written in place (broadcast, receives); it is the result."""
        if isinstance(x, Tensor):
            self.result = x
            return self.input(x)
        if not isinstance(x, np.ndarray) or not x.flags.c_contiguous or not x.flags.writeable:
            raise TypeError("this argument is written in place: pass a writable C-contiguous numpy array or a Tensor")
        self.result, self.shape, self.dtype, self.tensor = x, x.shape, x.dtype, False
        return self._device_ptr(x, True), x.size, hccl_dtype(x.dtype)

    def output(self, out, shape, dtype):
        """A new result (numpy if the input was, else a Tensor on the device), or ``out`` filled in place."""
        shape = tuple(int(d) for d in shape)
        if out is not None:
            if tuple(getattr(out, "shape", ())) != shape or np.dtype(out.dtype) != np.dtype(dtype):
                raise ValueError(f"out must have shape {shape} and dtype {np.dtype(dtype)}")
            p, _, _ = self.inout(out)
            return p
        if getattr(self, "tensor", False):
            self.result = Tensor(shape, dtype, device=self.device)
            return self._tensor_ptr(self.result)
        self.result = np.empty(shape, dtype)
        return self._device_ptr(self.result, True)

    def scratch(self, nbytes: int):
        buf = DeviceBuffer(max(int(nbytes), 1), self.device)
        self.buffers.append(buf)
        return buf.ptr

    def results(self):
        for array, buf in self.copy_back:
            errors.check(lib.aclrtMemcpy(ffi.cast("char *", array.ctypes.data), array.nbytes, buf.ptr, array.nbytes,
                                         runtime._copy_kind(lib.ACL_MEMCPY_DEVICE_TO_HOST)), "aclrtMemcpy")
        return self.result

    def close(self):
        for ptr in self.lent:
            lib.aclStubReclaimHostMemory(ptr)  # waits for the queued work that uses it
        for buf in self.buffers:
            buf.close()
        self.lent, self.buffers = [], []
