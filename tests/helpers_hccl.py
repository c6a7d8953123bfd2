"""Ranks of one process for the HCCL tests: a group made by HcclCommInitAll and a thread per rank, so every rank's
blocking call runs at the same time; plus the numpy references of the reductions."""

from __future__ import annotations

import concurrent.futures as cf

import ml_dtypes
import numpy as np

from aclnn_py import hccl

BF16 = np.dtype(ml_dtypes.bfloat16)
REDUCIBLE = [np.int8, np.int16, np.int32, np.int64, np.uint64, np.float16, np.float32, np.float64, BF16]
NO_PROD = {np.dtype(np.int16), BF16}


class Ranks:
    """``n`` ranks (devices 0 .. n-1) and a thread for each; ``run(fn)`` calls ``fn(comm)`` on every rank at once
    and returns the results in rank order (re-raising the first exception)."""

    def __init__(self, n: int):
        self.comms = hccl.Communicator.init_all(range(n))
        self.pool = cf.ThreadPoolExecutor(max_workers=n)

    def run(self, fn, timeout: float = 60):
        futures = [self.pool.submit(fn, c) for c in self.comms]
        return [f.result(timeout) for f in futures]

    def outcomes(self, fn, timeout: float = 60):
        """Like run, but each rank's result or exception."""
        def guarded(c):
            try:
                return fn(c)
            except Exception as exc:  # noqa: BLE001
                return exc
        return self.run(guarded, timeout)

    def close(self):
        for c in self.comms:
            c.close()
        self.pool.shutdown()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def step(acc: np.ndarray, x: np.ndarray, op: str) -> np.ndarray:
    """One step of a reduction, rounded to the data type (16-bit floats through float32)."""
    dt = acc.dtype
    wide = np.float32 if dt in (np.dtype(np.float16), BF16) else dt
    a, b = acc.astype(wide), x.astype(wide)
    with np.errstate(over="ignore", invalid="ignore"):
        r = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[op](a, b)
    return r.astype(dt)


def reduce_ref(xs, op: str) -> np.ndarray:
    acc = xs[0].copy()
    for x in xs[1:]:
        acc = step(acc, x, op)
    return acc


def rank_data(rng, rank: int, n: int, dtype, op: str = "sum") -> np.ndarray:
    """Values whose reductions are exact-comparable: small integers (products stay in range), normal floats."""
    dt = np.dtype(dtype)
    if dt.kind in "iub":
        lo = 0 if dt.kind == "u" else -3
        return rng.integers(lo, 4, n).astype(dt)
    return rng.standard_normal(n).astype(np.float32).astype(dt)
