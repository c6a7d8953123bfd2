"""``acl.util``: host buffers as addresses and back, as CANN's pyACL has them. ``numpy_to_ptr(array)`` and
``bytes_to_ptr(data)`` give the address of the object's memory (valid while the object lives; C may write
through it, as pyACL allows); ``ptr_to_numpy(ptr, shape, npy_type)`` views memory at an address as an array
(numpy's type numbers: 11 float32, 5 int32...); ``ptr_to_bytes(ptr, size)`` copies it into ``bytes``.
Addresses are trusted as C trusts them: an address that is not readable memory crashes the process, as with
pyACL. ``start_thread``/``stop_thread`` (callbacks) are not provided."""

from __future__ import annotations

import operator
import weakref

from .._native import ffi
from ._wrap import address, to_pointer

__all__ = ["numpy_to_ptr", "numpy_contiguous_to_ptr", "ptr_to_numpy", "bytes_to_ptr", "ptr_to_bytes"]


def _array(where: str, data):
    import numpy as np

    if not isinstance(data, np.ndarray):
        raise TypeError(f"{where}: argument 'data' must be a numpy.ndarray, got {type(data).__name__}")
    return data


def numpy_to_ptr(data) -> int:
    """The address of ``data``'s first element (``data.ctypes.data``); a non-contiguous array is not copied:
    use ``numpy_contiguous_to_ptr`` for one that a copy must read in order."""
    return int(_array("acl.util.numpy_to_ptr", data).ctypes.data)


def numpy_contiguous_to_ptr(data) -> int:
    """The address of ``data``'s elements in C order: ``data`` itself when C-contiguous; otherwise a C-contiguous
    copy, kept alive with ``data`` (as pyACL keeps its copy)."""
    import numpy as np

    data = _array("acl.util.numpy_contiguous_to_ptr", data)
    if data.flags.c_contiguous:
        return int(data.ctypes.data)
    copy = np.ascontiguousarray(data)
    _keep[id(data)] = copy
    weakref.finalize(data, _keep.pop, id(data), None)
    return int(copy.ctypes.data)


_keep: dict[int, object] = {}  # id(array) -> its contiguous copy, until the array is collected


def _npy_dtype(where: str, npy_type: int):
    import numpy as np

    for t in set(np.sctypeDict.values()):
        d = np.dtype(t)
        if d.num == npy_type:
            return d
    raise ValueError(f"{where}: argument 'type' = {npy_type} is not a numpy type number")


def ptr_to_numpy(ptr, shape, npy_type) -> "object":
    """A numpy array of ``shape`` and numpy type number ``npy_type`` over the memory at ``ptr`` (no copy: the
    memory must outlive the array)."""
    import numpy as np

    where = "acl.util.ptr_to_numpy"
    dtype = _npy_dtype(where, operator.index(npy_type))
    shape = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"{where}: argument 'shape' {shape} has a negative dimension")
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes == 0:
        return np.empty(shape, dtype)
    buf = ffi.buffer(ffi.cast("char *", to_pointer(where, "ptr", ptr)), nbytes)
    return np.frombuffer(buf, dtype).reshape(shape)


def bytes_to_ptr(data) -> int:
    """The address of the bytes of ``data`` (``bytes``, ``bytearray`` or any buffer), valid while it lives."""
    try:
        return address(ffi.from_buffer(data))
    except TypeError:
        raise TypeError(f"acl.util.bytes_to_ptr: argument 'data' must be bytes or a buffer, "
                        f"got {type(data).__name__}") from None


def ptr_to_bytes(ptr, size) -> bytes:
    """A copy of the ``size`` bytes at ``ptr``."""
    size = operator.index(size)
    if size < 0:
        raise ValueError(f"acl.util.ptr_to_bytes: argument 'size' must be >= 0, got {size}")
    if size == 0:
        return b""
    return ffi.buffer(ffi.cast("char *", to_pointer("acl.util.ptr_to_bytes", "ptr", ptr)), size)[:]
