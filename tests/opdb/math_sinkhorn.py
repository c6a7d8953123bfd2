"""ops-math aclnnSinkhorn: the documentation's iteration written out in numpy float32 with the stub's order of
operations (sums in index order, exp rounded once from float64), so both stop after the same round."""

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, random_array


def seq_sum(a, axis):
    """float32 sums in index order along axis."""
    return np.cumsum(a, axis=axis, dtype=np.float32).take(-1, axis=axis)


def sinkhorn_ref(cost, tol):
    c = np.exp(cost.float().numpy().astype(np.float64)).astype(np.float32)
    r, k = c.shape
    if c.size == 0:
        return torch.zeros(c.shape, dtype=cost.dtype)
    tol = np.float32(1e-4 if tol is None else tol)
    eps = np.float32(1e-8)
    d1 = np.ones(k, np.float32)
    for _ in range(100000):
        d0 = np.float32(1) / (np.float32(r) * (seq_sum(d1 * c, 1) + eps))
        d1n = np.float32(1) / (np.float32(k) * (seq_sum(d0[:, None] * c, 0) + eps))
        err = seq_sum(np.abs(d1 - d1n), 0) / np.float32(k)
        d1 = d1n
        if not err > tol:
            break
    p = d1[None, :] * c * d0[:, None]
    return torch.from_numpy(p).to(cost.dtype)


def sinkhorn_samples(dtype, rng):
    c = lambda *s: random_array(rng, s, dtype, (-1.0, 1.0), (0, 0))  # noqa: E731
    return [
        Sample((c(8, 2), 0.0001), (), "8 x 2"),
        Sample((c(16, 8), None), (), "tol NULL: 0.0001"),
        Sample((c(5, 6).T, 1e-6), (), "transposed, small tol"),
        Sample((c(0, 4), 0.0001), (), "empty"),
        Sample((c(256, 64), 0.001), (), "larger"),
    ]


ENTRIES = [OpInfo("aclnnSinkhorn", sinkhorn_ref, FLOATS, kind="custom", samples=sinkhorn_samples, native16=True,
                  tol={"float32": (1e-5, 1e-7), "float16": (1e-3, 1e-5), "bfloat16": (8e-3, 1e-4)})]
