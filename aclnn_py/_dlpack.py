"""DLPack both ways, without numpy in between for the element types numpy lacks (bfloat16).

Reading (``read``): any object with ``__dlpack__`` (torch tensors, numpy arrays, jax arrays...) hands over a
capsule; its ``DLManagedTensor`` (or the versioned one) is read through an in-line cffi description of the
DLPack structs, and the view (address, shape, element strides, dtype, device, read-only flag) is kept with
the producer's deleter, which runs when the view is closed or collected.

Exporting (``export``): the tensor's memory is described as a numpy array (no copy; on a device, numpy never
dereferences the address) whose own ``__dlpack__`` makes the capsule, then the capsule's dtype and device
fields are set to what numpy cannot say: bfloat16 (numpy exports it as uint16) and the Ascend device
(kDLAscend) on a real device. On the stub, device memory is host memory: the device is kDLCPU, so numpy and
torch view it without a copy.
"""

from __future__ import annotations

import ctypes
import threading
import weakref

import numpy as np

from . import dtypes

KDL_CPU = 1
KDL_ASCEND = 21
_READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY

_CDEF = """
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct { void *data; DLDevice device; int32_t ndim; DLDataType dtype; int64_t *shape; int64_t *strides;
                 uint64_t byte_offset; } DLTensor;
typedef struct DLManagedTensor { DLTensor dl_tensor; void *manager_ctx;
                                 void (*deleter)(struct DLManagedTensor *self); } DLManagedTensor;
typedef struct { uint32_t major; uint32_t minor; } DLPackVersion;
typedef struct DLManagedTensorVersioned { DLPackVersion version; void *manager_ctx;
                                          void (*deleter)(struct DLManagedTensorVersioned *self); uint64_t flags;
                                          DLTensor dl_tensor; } DLManagedTensorVersioned;
"""
# The names a consumer gives the capsules it took. C keeps the pointer, so these must live as long as the
# process: module constants, never temporaries.
_USED = {b"dltensor": b"used_dltensor", b"dltensor_versioned": b"used_dltensor_versioned"}
_ffi = None
_ffi_lock = threading.Lock()

# (DLDataTypeCode, bits) -> numpy dtype; codes: 0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool, and
# DLPack 1.1's 8-bit floats: 10 float8_e4m3fn, 12 float8_e5m2, 14 float8_e8m0fnu.
_DTYPES = {(0, 8): np.int8, (0, 16): np.int16, (0, 32): np.int32, (0, 64): np.int64, (1, 8): np.uint8,
           (1, 16): np.uint16, (1, 32): np.uint32, (1, 64): np.uint64, (2, 16): np.float16, (2, 32): np.float32,
           (2, 64): np.float64, (4, 16): dtypes.bfloat16, (5, 64): np.complex64, (5, 128): np.complex128,
           (6, 8): np.bool_, (10, 8): dtypes.float8_e4m3fn, (12, 8): dtypes.float8_e5m2,
           (14, 8): dtypes.float8_e8m0fnu}
# The dtypes numpy cannot export itself: exported as unsigned integers of their size, the code patched after.
_PATCHED = {np.dtype(v): k for k, v in _DTYPES.items() if k[0] in (4, 10, 12, 14)}


def _abi():
    global _ffi
    if _ffi is None:
        with _ffi_lock:
            if _ffi is None:
                import cffi

                f = cffi.FFI()
                f.cdef(_CDEF)
                _ffi = f
    return _ffi


def _capsule_api():
    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_SetName.restype = ctypes.c_int
    api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return api


def _managed(capsule):
    """(pointer to the DLTensor, the managed struct, whether it is the versioned one) of a capsule."""
    api = _capsule_api()
    name = api.PyCapsule_GetName(capsule)
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise BufferError(f"DLPack: the capsule is named {name!r}, not 'dltensor' (already consumed?)")
    addr = api.PyCapsule_GetPointer(capsule, name)
    f = _abi()
    versioned = name == b"dltensor_versioned"
    managed = f.cast("DLManagedTensorVersioned *" if versioned else "DLManagedTensor *", addr)
    return managed, versioned, name


def _release(managed):
    if managed.deleter != _abi().NULL:
        managed.deleter(managed)


class DLView:
    """A producer's tensor as DLPack describes it: ``address`` of element 0, ``shape``, element ``strides``,
    numpy ``dtype``, ``device`` (type, id), ``readonly``. The producer's memory stays valid until ``close()``
    (or collection)."""

    def __init__(self, obj, where: str = "from_dlpack"):
        try:
            try:
                capsule = obj.__dlpack__(max_version=(1, 0))
            except TypeError:  # a producer of the first protocol version
                capsule = obj.__dlpack__()
        except (BufferError, RuntimeError, ValueError) as exc:
            raise BufferError(f"{where}: the object cannot be exported through DLPack: {exc}") from None
        managed, versioned, name = _managed(capsule)
        _capsule_api().PyCapsule_SetName(capsule, _USED[name])  # ours now: the capsule must not delete it
        self._finalizer = weakref.finalize(self, _release, managed)
        t = managed.dl_tensor
        if versioned and managed.version.major > 1:
            self.close()
            raise BufferError(f"{where}: DLPack version {managed.version.major} is not supported (1 is)")
        self.readonly = bool(versioned and managed.flags & _READ_ONLY)
        self.device = (int(t.device.device_type), int(t.device.device_id))
        key = (int(t.dtype.code), int(t.dtype.bits))
        if key not in _DTYPES or t.dtype.lanes != 1:
            self.close()
            raise TypeError(f"{where}: DLPack dtype (code {key[0]}, {key[1]} bits, {t.dtype.lanes} lanes) has no "
                            f"aclDataType counterpart")
        self.dtype = np.dtype(_DTYPES[key])
        self.shape = tuple(int(t.shape[i]) for i in range(t.ndim))
        if t.strides == _abi().NULL:
            from .runtime import contiguous_strides

            self.strides = contiguous_strides(self.shape)
        else:
            self.strides = tuple(int(t.strides[i]) for i in range(t.ndim))
        self.address = int(_abi().cast("uintptr_t", t.data)) + int(t.byte_offset)

    def close(self) -> None:
        self._finalizer()


class _Interface:
    """A tensor's memory as numpy's array interface; the array's base. It holds a claim on the buffer's memory,
    released when the last array (or DLPack consumer) over it goes, so closing the buffer meanwhile does not
    free what they read."""

    def __init__(self, tensor, typestr: str):
        memory = tensor.buffer._hold()
        if memory is not None:
            weakref.finalize(self, memory.release)
        item = tensor.dtype.itemsize
        address = int(_abi().cast("uintptr_t", tensor.buffer.ptr)) + tensor.offset * item
        self.__array_interface__ = {"data": (address, False), "shape": tensor.shape, "typestr": typestr,
                                    "strides": tuple(s * item for s in tensor.strides), "version": 3}


def host_array(tensor) -> np.ndarray:
    """The tensor's memory as a numpy array without a copy (bfloat16 as its ml_dtypes type); only
    meaningful where device memory is host memory (the stub)."""
    if min(tensor.shape, default=1) == 0:
        return np.empty(tensor.shape, tensor.dtype)
    return np.asarray(_Interface(tensor, tensor.dtype.str)).view(tensor.dtype)


def export(tensor, device: tuple[int, int], stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule of ``tensor``'s view (see the module docstring)."""
    if copy:
        raise BufferError("Tensor.__dlpack__: copy=True is not supported (export the memory itself)")
    if dl_device is not None and tuple(dl_device) != device:
        raise BufferError(f"Tensor.__dlpack__: the tensor is on DLPack device {device}, not {tuple(dl_device)}")
    patched = _PATCHED.get(tensor.dtype)
    typestr = f"<u{tensor.dtype.itemsize}" if patched else tensor.dtype.str
    if min(tensor.shape, default=1) == 0:
        arr = np.empty(tensor.shape, typestr)
    else:
        arr = np.asarray(_Interface(tensor, typestr))
    kwargs = {} if max_version is None else {"max_version": tuple(max_version)}
    capsule = arr.__dlpack__(**kwargs)
    if patched or device[0] != KDL_CPU:
        managed, _, _ = _managed(capsule)
        t = managed.dl_tensor
        if patched:
            t.dtype.code, t.dtype.bits = patched
        if device[0] != KDL_CPU:
            t.device.device_type, t.device.device_id = device
    return capsule


class _HostView:
    """Keeps a producer's tensor alive under the numpy array that views it (the array's base)."""

    def __init__(self, view: DLView, typestr: str):
        self.view = view
        item = view.dtype.itemsize
        self.__array_interface__ = {"data": (view.address, view.readonly), "shape": view.shape, "typestr": typestr,
                                    "strides": tuple(s * item for s in view.strides), "version": 3}


def as_numpy(obj, where: str) -> np.ndarray:
    """A numpy array over the host memory of anything with ``__dlpack__`` (a torch CPU tensor of any aclnn dtype,
    bfloat16 and the 8-bit floats included), without a copy; the producer stays alive with the array."""
    view = DLView(obj, where)
    if view.device[0] != KDL_CPU:
        view.close()
        raise BufferError(f"{where}: the tensor is on DLPack device {view.device}, not in host memory (kDLCPU); "
                          "move it to the CPU first")
    patched = _PATCHED.get(view.dtype)
    typestr = f"<u{view.dtype.itemsize}" if patched else view.dtype.str
    if min(view.shape, default=1) == 0:
        view.close()
        return np.empty(view.shape, view.dtype)
    arr = np.asarray(_HostView(view, typestr))
    return arr.view(view.dtype) if patched else arr
