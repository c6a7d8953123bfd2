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
"""

from __future__ import annotations

from ._native import ffi, lib

_STATS = ("used", "total", "hits", "misses", "free_blocks", "enabled")


class MemoryPool:
    """The process's pool (``get_memory_pool()``); it has no state of its own beyond the extension's."""

    def _stats(self) -> dict:
        out = ffi.new("uint64_t[]", len(_STATS))
        lib.aclnnpy_pool_stats(out)
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
        return (f"<MemoryPool used={s['used']} total={s['total']} hits={s['hits']} misses={s['misses']}"
                f"{'' if s['enabled'] else ' disabled'}>")


_POOL = MemoryPool()


def get_memory_pool() -> MemoryPool:
    return _POOL
