"""ops-nn vector p-norms (norm/lp_norm_v2): aclnnNorm, aclnnLinalgVectorNorm, computed in float32."""

from __future__ import annotations

import math

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype, random_array


def pnorm(x, p, dims, keep):
    d = list(dims) if len(dims) else None
    x = x.double()
    return torch.linalg.vector_norm(x, ord=p, dim=d, keepdim=keep).float() if x.dim() else x.abs().float()


def linalg(x, p, dims, keep, dtype):
    return pnorm(x, p, dims, keep)


def samples(extra):
    def make(dtype, rng):
        s = []
        x = random_array(rng, (3, 4, 5), dtype, (-3.0, 3.0), (-8, 8))
        for p, dims, keep in ((2.0, [1], False), (1.0, [-1, 0], True), (3.0, [], False), (math.inf, [2], False),
                              (-math.inf, [0], True), (0.0, [1], False), (0.5, [1], False)):
            s.append(Sample((x,), (p, dims, keep) + extra(dtype), f"p {p} dims {dims}"))
        s.append(Sample((random_array(rng, (6, 5), dtype, (-3.0, 3.0), (-8, 8)).T,), (2.0, [0], False) + extra(dtype),
                        "transposed"))
        s.append(Sample((random_array(rng, (2, 9000), dtype, (-3.0, 3.0), (-8, 8)),), (2.0, [1], False) + extra(dtype),
                        "long rows"))
        s.append(Sample((random_array(rng, (0, 3), dtype, (-3.0, 3.0), (-8, 8)),), (2.0, [0], False) + extra(dtype),
                        "empty"))
        return s
    return make


TOL = {"float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2)}
ENTRIES = [
    OpInfo("aclnnNorm", pnorm, FLOATS, kind="custom", samples=samples(lambda d: ()), tol=TOL),
    OpInfo("aclnnLinalgVectorNorm", linalg, FLOATS, kind="custom", samples=samples(lambda d: (np_dtype(d),)),
           out_dtype=lambda d: d,
           tol=TOL),
]
