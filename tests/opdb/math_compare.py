"""ops-math comparisons: eq, ne, gt, ge, lt, le (tensor and scalar operands, in-place), isclose, equal."""

import numpy as np
import torch

from . import ALL, INTS, REALS, OpInfo, Sample, random_array

UINTS = ("uint16", "uint32", "uint64")
WIDE = (torch.uint16, torch.uint32, torch.uint64)


def wide(fn):
    """fn on operands whose unsigned 16/32/64-bit tensors are read as int64 (torch's CPU kernels lack them)."""
    def call(*args):
        return fn(*(a.long() if isinstance(a, torch.Tensor) and a.dtype in WIDE else a for a in args))
    call.__name__ = getattr(fn, "__name__", "wide")
    return call


def equal_samples(dtype, rng):
    a = random_array(rng, (3, 4), dtype, (-4.0, 4.0), (-8, 8))
    b = a.copy()
    b.reshape(-1)[5] = b.reshape(-1)[5] + (1 if dtype != "bool" else True) if dtype != "bool" else not b.reshape(-1)[5]
    big = random_array(rng, (34000,), dtype, (-4.0, 4.0), (-8, 8))
    return [Sample((a, a.copy()), (), "equal"), Sample((a, b), (), "one element differs"),
            Sample((a, a[:2]), (), "shapes differ"), Sample((a[:0], a[:0].copy()), (), "both empty"),
            Sample((big, big.copy()), (), "long equal"), Sample((a.T, np.ascontiguousarray(a.T)), (), "transposed")]


EQ = ALL
GT = REALS + INTS + ("bool",) + UINTS
GE = REALS + INTS + ("bool",) + UINTS
LE = REALS + INTS + ("bool", "uint16")
ISCLOSE = REALS + INTS + ("bool",)
SCALAR = ALL  # a Python int scalar is INT64: CANN promotes no unsigned 16-64-bit dtype with it


ENTRIES = [
    OpInfo("aclnnEqTensor", wide(torch.eq), EQ, scalar="aclnnEqScalar", scalar_dtypes=SCALAR, inplace="aclnnInplaceEqTensor",
           inplace_scalar="aclnnInplaceEqScalar"),
    OpInfo("aclnnNeTensor", wide(torch.ne), EQ, scalar="aclnnNeScalar", scalar_dtypes=SCALAR, inplace="aclnnInplaceNeTensor",
           inplace_scalar="aclnnInplaceNeScalar"),
    OpInfo("aclnnGtTensor", wide(torch.gt), GT, scalar="aclnnGtScalar", scalar_dtypes=SCALAR, inplace="aclnnInplaceGtTensor",
           inplace_scalar="aclnnInplaceGtScalar"),
    OpInfo("aclnnGeTensor", wide(torch.ge), GE, scalar="aclnnGeScalar", scalar_dtypes=SCALAR, inplace="aclnnInplaceGeTensor",
           inplace_scalar="aclnnInplaceGeScalar"),
    OpInfo("aclnnLtTensor", wide(torch.lt), GT, scalar="aclnnLtScalar", scalar_dtypes=SCALAR, inplace="aclnnInplaceLtTensor",
           inplace_scalar="aclnnInplaceLtScalar"),
    OpInfo("aclnnLeTensor", wide(torch.le), LE, scalar="aclnnLeScalar", scalar_dtypes=SCALAR, inplace="aclnnInplaceLeTensor",
           inplace_scalar="aclnnInplaceLeScalar"),
    OpInfo("aclnnIsClose", lambda a, b, rtol, atol, nan: torch.isclose(a, b, rtol, atol, nan), ISCLOSE,
           attrs=((1e-5, 1e-8, False), (0.05, 0.1, True)), mixed=False),
    OpInfo("aclnnEqual", lambda a, b: torch.tensor([torch.equal(a, b)]), EQ[:-2] + ("uint16", "uint32", "uint64"),
           kind="custom", samples=equal_samples),
]
