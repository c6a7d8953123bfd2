"""ops-nn renorms: Renorm, InplaceRenorm (torch.renorm) and EmbeddingRenorm (torch.embedding_renorm_). The oracle is
the formula in float64 from the widened input: a slice whose p-norm exceeds maxNorm is scaled by
maxNorm / (norm + 1e-7); as the op_api multiplies in the input's dtype, a 16-bit input's factor is rounded to that
dtype first and each product rounded once."""

from __future__ import annotations

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample
from .nn_norm import rnd

TOL = {"float32": (2e-6, 1e-6), "float16": (1e-3, 1e-3), "bfloat16": (8e-3, 8e-3)}
TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# (shape, p, dim, maxNorm): every norm kind, negative dim, a long slice over the thread threshold
CASES = [((4, 5), 2.0, 0, 1.5), ((3, 4, 5), 1.0, -1, 3.0), ((3, 4, 5), 3.0, 1, 2.0), ((2, 3, 4), float("inf"), 2, 1.0),
         ((3, 5), 0.0, 0, 2.0), ((2, 70000), 2.0, 0, 100.0)]


def factors(x, p, dims, max_norm, dtype):
    xa = x.abs()
    if p == float("inf"):
        norm = xa.amax(dims, keepdim=True)
    elif p == 0:
        norm = (x != 0).double().sum(dims, keepdim=True)
    else:
        norm = (xa ** p).sum(dims, keepdim=True) ** (1 / p)
    f = torch.where(norm > max_norm, max_norm / (norm + 1e-7), torch.ones_like(norm)).float()
    return f.to(TORCH[dtype]).float()


def samples_renorm(dtype, rng):
    return [Sample((rnd(rng, s, dtype),), (p, d, m), f"{s} p={p} dim={d} maxNorm={m}") for s, p, d, m in CASES]


def ref_renorm(x, p, dim, maxNorm):
    dtype = str(x.dtype).replace("torch.", "")
    d = dim % x.ndim
    f = factors(x.double(), p, [k for k in range(x.ndim) if k != d], maxNorm, dtype)
    return (x.float() * f).to(TORCH[dtype])


def samples_embedding(dtype, rng):
    res = []
    for shape, idx, p, m in (((10, 4), [1, 3, 3, 7], 2.0, 1.0), ((6, 300), [[0, 5], [2, 0]], 1.0, 50.0),
                             ((5, 3), [4], 3.0, 0.5)):
        res.append(Sample((rnd(rng, shape, dtype), np.array(idx, np.int64 if len(idx) > 1 else np.int32)), (m, p),
                          f"{shape} idx {idx} p={p} maxNorm={m}"))
    return res


def ref_embedding(selfRef, indices, maxNorm, normType):
    dtype = str(selfRef.dtype).replace("torch.", "")
    x = selfRef.float().clone()
    rows = torch.unique(indices.reshape(-1).long())
    f = factors(x[rows].double(), normType, [1], maxNorm, dtype)
    x[rows] = x[rows] * f
    return x.to(TORCH[dtype])


def call_embedding(sample, expected):
    import aclnn_py
    x = np.array(sample.operands[0], copy=True)
    aclnn_py.run("aclnnEmbeddingRenorm", x, sample.operands[1], *sample.attrs)
    return x


ENTRIES = [
    OpInfo("aclnnRenorm", ref_renorm, FLOATS, kind="custom", samples=samples_renorm, tol=TOL, native16=True,
           also=("aclnnInplaceRenorm",)),
    OpInfo("aclnnEmbeddingRenorm", ref_embedding, FLOATS, kind="custom", samples=samples_embedding, tol=TOL,
           native16=True, call=call_embedding),
]
