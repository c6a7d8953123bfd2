"""Mirror-layer resource bookkeeping for tests: device memory and tensors made with ``acl.*`` calls and
released however the test ends, so the leak fixture of conftest.py only sees what the code under test leaks."""

from __future__ import annotations

import numpy as np

import aclnn_py
from aclnn_py import AclStatusError, acl, dtypes, errors
from aclnn_py._native import ffi, lib

NULL = ffi.NULL


def addr(ptr) -> int:
    return int(ffi.cast("uintptr_t", ptr))


def offset_ptr(ptr, nbytes: int):
    return ffi.cast("char *", ptr) + nbytes


def host_ptr(array: np.ndarray):
    """A pointer to the bytes of a (contiguous) numpy array: host memory the runtime never allocated."""
    return ffi.from_buffer(array, require_writable=True) if array.flags.writeable else ffi.from_buffer(array)


def row_major(shape) -> list[int]:
    strides, s = [], 1
    for d in reversed(list(shape)):
        strides.append(s)
        s *= d
    return list(reversed(strides))


COUNTERS = ("aclStubLiveAllocations", "aclStubLiveAllocationBytes", "aclStubLiveHostAllocations",
            "aclStubLiveStreams", "aclStubLiveEvents", "aclStubLiveContexts", "aclStubLiveTensors",
            "aclStubLiveScalars", "aclStubLiveIntArrays", "aclStubLiveFloatArrays", "aclStubLiveBoolArrays",
            "aclStubLiveTensorLists", "aclStubLiveScalarLists", "aclStubLiveExecutors")


def live_counts() -> dict:
    """The stub's live-object counts. What the client's memory pool and its per-stream workspaces cache is not
    a leak (it is freed first); what the pool handed out and never got back is (its used bytes are counted)."""
    pool = aclnn_py.get_memory_pool()
    pool.free_all_blocks()
    from aclnn_py.runtime import _current_context

    if _current_context() != ffi.NULL:
        lib.aclnnpy_device_release()
    else:
        with aclnn_py.default_device()._on():
            lib.aclnnpy_device_release()
    return {"pool used bytes": pool.used_bytes(), **{name: getattr(acl, name)() for name in COUNTERS}}


def discard_executor(executor) -> None:
    """Destroy an executor whether or not a failed call consumed it (then the status is ACLNN_ERR_INNER)."""
    try:
        acl.aclDestroyAclOpExecutor(executor)
    except errors.AclnnError as exc:
        assert exc.status == lib.ACLNN_ERR_INNER, exc


class Arena:
    """Device blocks and tensors created through the mirror layer; everything still live is released on exit."""

    def __init__(self):
        self.blocks = []
        self.tensors = []
        self.keep = []  # host buffers that tensors point into

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for t in reversed(self.tensors):
            if lib.aclDestroyTensor(t):
                acl.aclGetRecentErrMsg()  # destroyed by the test already
        for p in reversed(self.blocks):
            if lib.aclrtFree(p):
                acl.aclGetRecentErrMsg()  # freed by the test already
        self.tensors.clear()
        self.blocks.clear()

    # ---- memory --------------------------------------------------------------------------------------
    def malloc(self, nbytes: int):
        p = acl.aclrtMalloc(nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
        self.blocks.append(p)
        return p

    def free(self, ptr) -> None:
        acl.aclrtFree(ptr)

    def upload(self, array: np.ndarray, ptr=None, offset: int = 0):
        """Copy a numpy array's bytes to the device (a new block unless ``ptr`` is given)."""
        a = np.ascontiguousarray(array)
        if ptr is None:
            ptr = self.malloc(max(a.nbytes, 1))
        if a.nbytes:
            acl.aclrtMemcpy(offset_ptr(ptr, offset), a.nbytes, host_ptr(a), a.nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE)
        return ptr

    def download(self, ptr, shape, dtype, offset: int = 0) -> np.ndarray:
        out = np.empty(shape, dtypes.as_numpy_dtype(dtype))
        if out.nbytes:
            acl.aclrtMemcpy(host_ptr(out), out.nbytes, offset_ptr(ptr, offset), out.nbytes,
                            acl.ACL_MEMCPY_DEVICE_TO_HOST)
        return out

    # ---- tensors -------------------------------------------------------------------------------------
    def tensor(self, shape, acl_dtype, data, strides=None, offset: int = 0, fmt=None, storage=None):
        shape = list(shape)
        storage = shape if storage is None else list(storage)
        t = acl.aclCreateTensor(shape or NULL, len(shape), acl_dtype, NULL if strides is None else (list(strides) or NULL),
                                offset, acl.ACL_FORMAT_ND if fmt is None else fmt, storage or NULL, len(storage), data)
        self.tensors.append(t)
        return t

    def from_numpy(self, array: np.ndarray, fmt=None):
        """(tensor handle, device pointer) of a contiguous device copy of ``array``."""
        a = np.ascontiguousarray(array)
        ptr = self.upload(a) if a.size else NULL
        return self.tensor(a.shape, dtypes.to_acl(a.dtype), ptr, fmt=fmt), ptr

    def zeros(self, shape, dtype):
        """(tensor handle, device pointer) of a zero-filled (aclrtMalloc zero-fills) contiguous tensor."""
        dt = dtypes.as_numpy_dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        ptr = self.malloc(n) if n else NULL
        return self.tensor(shape, dtypes.to_acl(dt), ptr), ptr

    def destroy(self, tensor) -> None:
        acl.aclDestroyTensor(tensor)


__all__ = ["NULL", "Arena", "addr", "offset_ptr", "host_ptr", "row_major", "live_counts", "discard_executor"]


def status_of(fn, *args) -> int:
    """0 if the call succeeds, else the status code of the AclError/AclnnError it raises."""
    try:
        fn(*args)
    except AclStatusError as exc:
        return exc.status
    return 0
