"""ops-math comparisons: eq, ne, gt, ge, lt, le (tensor and scalar operands, in-place), isclose, equal, isin with
one scalar side."""

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


def isin_ts_samples(dtype, rng):
    """aclnnIsInTensorScalar: (element, testElement) and (assumeUnique, invert)."""
    a = random_array(rng, (3, 5), dtype, (-4.0, 4.0), (-4, 4))
    big = random_array(rng, (2, 17000), dtype, (-4.0, 4.0), (-4, 4))
    v = a.reshape(-1)[3]
    value = float(v) if a.dtype.kind == "f" or dtype == "bfloat16" else int(v)
    out = [Sample((a, value), (False, False), "present"), Sample((a, value), (True, True), "present, invert"),
           Sample((a[:0], value), (False, False), "empty"), Sample((big.T, value), (False, True), "long, strided")]
    if a.dtype.kind in "iu":
        out.append(Sample((a, 2.5), (False, False), "floating scalar, integer tensor"))
    return out


def isin_st_samples(dtype, rng):
    """aclnnIsInScalarTensor: (element, testElements) and (assumeUnique, invert): fewer and more than 10
    test elements (the op_api promotes differently), empty, absent, NaN."""
    small = random_array(rng, (2, 3), dtype, (-4.0, 4.0), (-4, 4))
    big = random_array(rng, (3, 40), dtype, (-4.0, 4.0), (-4, 4))
    num = (lambda x: float(x)) if small.dtype.kind == "f" or dtype == "bfloat16" else (lambda x: int(x))
    out = [Sample((num(small.reshape(-1)[4]), small), (False, False), "present, 6"),
           Sample((num(big.reshape(-1)[77]), big.T), (False, False), "present, 120, transposed"),
           Sample((num(big.reshape(-1)[7]), big), (True, True), "present, invert"),
           Sample((num(small.reshape(-1)[0]), small[:0]), (False, False), "empty"),
           Sample((num(small.reshape(-1)[0]), small[:0]), (False, True), "empty, invert"),
           Sample((99, small), (False, False), "absent")]
    if small.dtype.kind == "f" or dtype == "bfloat16":
        out.append(Sample((float("nan"), small), (False, True), "NaN"))
    else:
        out.append(Sample((0.5, small), (False, False), "floating element, integer tensor"))
    return out


def isin_ref(e, t, unique, invert):
    return torch.isin(e, t, assume_unique=unique, invert=invert)


ISIN = ("float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8")
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
    OpInfo("aclnnIsInTensorScalar", isin_ref, ISIN, kind="custom", samples=isin_ts_samples),
    OpInfo("aclnnIsInScalarTensor", isin_ref, ISIN, kind="custom", samples=isin_st_samples),
]
