"""The client's caching device-memory pool, in the manner of CuPy's ``MemoryPool``.

The high-level operator functions take their device buffers from it: a buffer freed at the end of a call
is kept and handed to the next call that needs the same size class on the same device and stream, so a
loop of calls allocates nothing after the first iteration. Sizes are rounded up to a class (512 bytes at
least, then four classes per power of two, so at most a quarter is wasted).

Safety with asynchronous streams: a cached block is reused only on the stream it was last used on, where
queued work runs in order. Closing a ``Stream`` frees its blocks (after synchronising it); releasing a
``Device`` frees the blocks held for it.

    pool = aclnn_py.get_memory_pool()
    pool.used_bytes(), pool.total_bytes(), pool.hits(), pool.misses()
    pool.free_all_blocks()        # give cached blocks back to the runtime (aclrtFree)
    pool.set_enabled(False)       # or ACLNN_PY_MEMORY_POOL=0 in the environment: allocate every time

The counters cover the whole process (every device); ``free_all_blocks`` acts on the current device.

The host pool (``get_host_memory_pool()``, the same methods) holds the large result arrays of the stub's
zero-copy calls: the stub's device memory is host memory, so the high-level functions lend their inputs and
results to it for the call (``aclStubLendHostMemory``) instead of copying, and a result of 1 MiB or more is a
numpy array over a pooled host block, which goes back to the pool when the array is collected (fresh pages
would cost page faults on every call, as much as the copy saved). ``ACLNN_PY_ZERO_COPY=0`` turns lending off;
``ACLNN_PY_MEMORY_POOL=0`` turns off both pools. For tests, ``ACLNN_PY_DEBUG_POISON_OUTPUTS=1`` takes every
result from the host pool and fills it with 0xff bytes unless the operator table says the operator may leave
elements of it untouched, so an element an operator fails to write shows up as a wrong result.
"""

from __future__ import annotations

import os

import numpy as np

from ._native import ffi, lib

_STATS = ("used", "total", "hits", "misses", "free_blocks", "enabled")
HOST_POOL_MIN_BYTES = 1 << 20  # smaller results are plain numpy arrays: malloc reuses them, and they fault little
_POISON = os.environ.get("ACLNN_PY_DEBUG_POISON_OUTPUTS") == "1"


class MemoryPool:
    """The process's device pool (``get_memory_pool()``); it has no state of its own beyond the extension's."""

    _stats_into = staticmethod(lambda out: lib.aclnnpy_pool_stats(out))

    def _stats(self) -> dict:
        out = ffi.new("uint64_t[]", len(_STATS))
        self._stats_into(out)
        return dict(zip(_STATS, out))

    def used_bytes(self) -> int:
        """Bytes handed out and not yet returned (rounded to size classes)."""
        return self._stats()["used"]

    def total_bytes(self) -> int:
        """Bytes the pool holds from the runtime: used plus cached."""
        return self._stats()["total"]

    def free_bytes(self) -> int:
        """Bytes cached for reuse."""
        stats = self._stats()
        return stats["total"] - stats["used"]

    def n_free_blocks(self) -> int:
        return self._stats()["free_blocks"]

    def hits(self) -> int:
        """Requests served from the cache."""
        return self._stats()["hits"]

    def misses(self) -> int:
        """Requests that called ``aclrtMalloc``."""
        return self._stats()["misses"]

    @property
    def enabled(self) -> bool:
        return bool(self._stats()["enabled"])

    def set_enabled(self, enabled: bool) -> None:
        """Turn caching on or off; turning it off keeps what is cached until ``free_all_blocks``."""
        lib.aclnnpy_pool_set_enabled(1 if enabled else 0)

    def free_all_blocks(self) -> int:
        """Free every cached block of the current device (synchronising the streams they belong to);
        returns how many were freed."""
        from .runtime import _current_context, default_device

        if _current_context() != ffi.NULL:
            return lib.aclnnpy_pool_release_blocks(ffi.NULL, 1)
        with default_device()._on():
            return lib.aclnnpy_pool_release_blocks(ffi.NULL, 1)

    def __repr__(self):
        s = self._stats()
        return (f"<{type(self).__name__} used={s['used']} total={s['total']} hits={s['hits']} misses={s['misses']}"
                f"{'' if s['enabled'] else ' disabled'}>")


class HostMemoryPool(MemoryPool):
    """The process's host pool (``get_host_memory_pool()``): blocks behind the large results of zero-copy
    calls. ``used_bytes`` counts the results still alive; ``misses`` the blocks newly mapped."""

    _stats_into = staticmethod(lambda out: lib.aclnnpy_host_stats(out))

    def free_all_blocks(self) -> int:
        """Free every cached block; returns how many were freed (results still alive keep theirs)."""
        return lib.aclnnpy_host_release_blocks()


_POOL = MemoryPool()
_HOST_POOL = HostMemoryPool()


def get_memory_pool() -> MemoryPool:
    return _POOL


def get_host_memory_pool() -> HostMemoryPool:
    return _HOST_POOL


def host_array(shape, dtype: np.dtype, nbytes: int, zero: bool) -> np.ndarray:
    """A C-contiguous array for a result the device writes in place: zero-filled when ``zero``, otherwise
    with undefined contents; 1 MiB and more from the host pool (returned to it when the array dies)."""
    if nbytes == 0 or (nbytes < HOST_POOL_MIN_BYTES and not _POISON):
        return np.zeros(shape, dtype) if zero else np.empty(shape, dtype)
    block = lib.aclnnpy_host_alloc(nbytes, 1 if zero else 0)
    if block == ffi.NULL:
        raise MemoryError(f"out of host memory for a {nbytes}-byte result")
    return np.frombuffer(ffi.buffer(ffi.gc(block, lib.aclnnpy_host_free), nbytes), dtype).reshape(shape)
