"""ops-math aclnnGroupedBiasAddGrad and its V2: the rows of gradY summed per group (cumulative ends, or group sizes
with V2's groupIdxType 1; 3-D gradY: one group per leading index), in float64 and rounded to the dtype."""

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, random_array


def grouped_ref(grad, idx, group_type=0):
    g = grad.double()
    if idx is None:
        return g.sum(1).to(grad.dtype)
    ends = np.cumsum(idx.numpy()) if group_type == 1 else idx.numpy()
    begins = np.concatenate([[0], ends[:-1]])
    return torch.stack([g[b:e].sum(0) for b, e in zip(begins, ends)]).to(grad.dtype)


def samples(dtype, rng, v2):
    a = lambda *s: random_array(rng, s, dtype, (-2.0, 2.0), (0, 0))  # noqa: E731
    t = (0,) if v2 else ()
    out = [
        Sample((a(40, 10), np.array([5, 15, 30, 40], np.int32)), t, "cumulative ends"),
        Sample((a(12, 7), np.array([0, 4, 4, 9], np.int64)), t, "empty groups, rows after the last end"),
        Sample((a(3, 6, 5), None), t, "3-D, no groupIdx"),
        Sample((a(8, 30).T, np.array([10, 30], np.int32)), t, "transposed gradY"),
        Sample((a(2000, 64), np.array([500, 1200, 1900, 2000], np.int64)), t, "threads"),
    ]
    if v2:
        out.append(Sample((a(20, 6), np.array([3, 0, 7, 10], np.int32)), (1,), "group sizes"))
    return out


ENTRIES = [
    OpInfo("aclnnGroupedBiasAddGrad", grouped_ref, FLOATS, kind="custom",
           samples=lambda dtype, rng: samples(dtype, rng, False), tol={"float32": (1e-5, 1e-4)}),
    OpInfo("aclnnGroupedBiasAddGradV2", grouped_ref, FLOATS, kind="custom",
           samples=lambda dtype, rng: samples(dtype, rng, True), tol={"float32": (1e-5, 1e-4)}),
]
