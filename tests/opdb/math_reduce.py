"""ops-math reductions: sum, mean, amax/amin, max/min, all/any, prod, nansum, log-sum(-exp), var/std, arg max/min.

Samples cover dims (negative ones, several, none = every dimension), keepdim both ways, a transposed view, a 0-d
tensor, empty tensors (an empty reduced set and an empty kept dimension), rows and columns longer than one
summation chunk, and NaN."""

from __future__ import annotations

import numpy as np
import torch

from . import COMPLEX, FLOATS, INTS, REALS, OpInfo, Sample, np_dtype, random_array

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
         "int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64, "uint8": torch.uint8,
         "bool": torch.bool, "complex64": torch.complex64, "complex128": torch.complex128}
SUM = REALS + INTS + ("bool",) + COMPLEX
EXTREME = REALS + INTS + ("bool",)
# summation order differs from torch's: a little more room than one rounding for float32
SUM_TOL = {"float32": (1e-5, 1e-4), "complex64": (1e-5, 1e-4)}


def tdtype(d) -> torch.dtype:
    if isinstance(d, torch.dtype):
        return d
    return TORCH[np.dtype(d).name if not isinstance(d, str) else d] if str(d) != "bfloat16" else torch.bfloat16


def dims_of(x, dims):
    return list(dims) if len(dims) else list(range(x.dim()))


def arr(rng, shape, dtype, nan=False):
    a = random_array(rng, shape, dtype, (-2.0, 2.0), (-8, 8))
    if nan and dtype in REALS + COMPLEX and a.size > 1:
        a = np.array(a)
        a.reshape(-1)[1] = np.nan
    return a


def dim_samples(dtype, rng, attrs, *, nan=True, empty_reduced=True, zero_d=True, long=True):
    """Samples of a reduction over an int-array of dims: attrs(dims, keep) gives the attributes after self.
    Complex outputs of empty inputs are refused (Fill writes no complex dtype): no empty samples for them."""
    empty = dtype not in COMPLEX
    empty_reduced = empty_reduced and empty
    s = []
    x = arr(rng, (3, 4, 5), dtype)
    s.append(Sample((x,), attrs([1], False), "dim 1"))
    s.append(Sample((x,), attrs([-1, 0], True), "dims -1, 0 keepdim"))
    s.append(Sample((x,), attrs([], False), "every dim"))
    s.append(Sample((x,), attrs([0, 2], False), "dims 0, 2"))
    s.append(Sample((arr(rng, (6, 5), dtype).T,), attrs([0], True), "transposed"))
    if empty:
        s.append(Sample((arr(rng, (0, 4), dtype),), attrs([1], False), "empty kept dim"))
    if empty_reduced:
        s.append(Sample((arr(rng, (3, 0), dtype),), attrs([1], False), "empty reduced dim"))
    if zero_d:
        s.append(Sample((arr(rng, (), dtype),), attrs([], False), "0-d"))
    if long:
        s.append(Sample((arr(rng, (2, 9000), dtype),), attrs([-1], False), "long rows"))
        s.append(Sample((arr(rng, (9000, 3), dtype),), attrs([0], False), "long columns"))
    if nan and dtype in REALS:
        s.append(Sample((arr(rng, (3, 4), dtype, nan=True),), attrs([1], False), "NaN"))
    return s


# ---- the oracles -------------------------------------------------------------------------------------------

def wide(x, dt):
    """x cast to dt (as the op_api's Cast does first), then widened for an exact-enough oracle."""
    x = x.to(dt)
    return x.double() if dt.is_floating_point else x.to(torch.complex128) if dt.is_complex else x


def reduce_sum(x, dims, keep, dtype):
    dt = tdtype(dtype)
    if dt == torch.bool:
        return torch.any(x, dim=tuple(dims_of(x, dims)), keepdim=keep) if x.dim() else x.bool()
    return torch.sum(wide(x, dt), dim=dims_of(x, dims), keepdim=keep).to(dt)


def mean(x, dims, keep, dtype):
    dt = tdtype(dtype)
    d = dims_of(x, dims)
    if dt.is_floating_point or dt.is_complex:
        return torch.mean(wide(x, dt), dim=d, keepdim=keep).to(dt)
    n = 1
    for i in d:
        n *= x.shape[i] if x.dim() else 1
    s = x.to(dt).to(torch.int64).sum(dim=d, keepdim=keep)
    return torch.div(s, n, rounding_mode="trunc").to(dt)


def mean_v2(x, dims, keep, noop):
    if not dims and noop:
        return x.clone()
    return mean(x, dims, keep, x.dtype)


def amax(x, dims, keep):
    return torch.amax(x, dim=dims_of(x, dims), keepdim=keep) if x.dim() else x.clone()


def amin(x, dims, keep):
    return torch.amin(x, dim=dims_of(x, dims), keepdim=keep) if x.dim() else x.clone()


def max_v2(x, dims, keep, noop):
    if not dims and noop:
        return x.clone()
    return amax(x, dims, keep)


def all_(x, dims, keep):
    return torch.all(x, dim=tuple(dims_of(x, dims)), keepdim=keep) if x.dim() else x.bool()


def any_(x, dims, keep):
    return torch.any(x, dim=tuple(dims_of(x, dims)), keepdim=keep) if x.dim() else x.bool()


def prod_dim(x, dim, keep, dtype):
    dt = tdtype(dtype)
    if dt == torch.bool:
        return torch.prod(x.double(), dim=dim, keepdim=keep) != 0 if x.dim() else x.bool()
    return torch.prod(wide(x, dt), dim=dim, keepdim=keep).to(dt) if x.dim() else x.to(dt)


def prod(x, dtype):
    dt = tdtype(dtype)
    if dt == torch.bool:
        return torch.prod(x.double()) != 0
    return torch.prod(wide(x, dt)).to(dt)


# ---- samples -----------------------------------------------------------------------------------------------

def sum_dtype(dtype):
    return {"bool": "int64"}.get(dtype, dtype)


def reduce_sum_samples(dtype, rng):
    out = np_dtype(sum_dtype(dtype))
    s = dim_samples(dtype, rng, lambda d, k: (d, k, out))
    if dtype == "float16":  # accumulate a FLOAT16 tensor into FLOAT
        s.append(Sample((arr(rng, (4, 300), dtype),), ([1], False, np.dtype(np.float32)), "float16 to float32"))
    if dtype == "bool":
        s.append(Sample((arr(rng, (4, 5), dtype),), ([0], False, np.dtype(bool)), "bool: any"))
    if dtype == "int8":
        s.append(Sample((arr(rng, (4, 50), dtype) * 5,), ([1], False, np.dtype(np.int8)), "int8 wraps"))
    return s


def mean_samples(dtype, rng):
    out = np_dtype(dtype)
    s = dim_samples(dtype, rng, lambda d, k: (d, k, out), empty_reduced=False)
    if dtype in INTS:
        s.append(Sample((arr(rng, (3, 4), dtype),), ([1], False, np.dtype(np.float32)), "as float32"))
    return s


def mean_v2_samples(dtype, rng):
    s = dim_samples(dtype, rng, lambda d, k: (d, k, False), empty_reduced=False)
    s.append(Sample((arr(rng, (3, 4), dtype),), ([], False, True), "no dims, noop"))
    return s


def extreme_samples(dtype, rng):
    return dim_samples(dtype, rng, lambda d, k: (d, k), empty_reduced=False)


def max_v2_samples(dtype, rng):
    s = dim_samples(dtype, rng, lambda d, k: (d, k, False), empty_reduced=False)
    s.append(Sample((arr(rng, (3, 4), dtype),), ([], True, True), "no dims, noop"))
    return s


def whole_samples(dtype, rng):
    s = [Sample((arr(rng, (3, 4, 5), dtype),), (), "3-d"), Sample((arr(rng, (), dtype),), (), "0-d"),
         Sample((arr(rng, (6, 5), dtype).T,), (), "transposed"), Sample((arr(rng, (20000,), dtype),), (), "long")]
    if dtype in REALS:
        s.append(Sample((arr(rng, (3, 4), dtype, nan=True),), (), "NaN"))
    return s


def bool_samples(dtype, rng):
    s = dim_samples(dtype, rng, lambda d, k: (d, k), nan=False)
    x = arr(rng, (3, 4), dtype)
    if dtype in REALS:
        x = np.array(x)
        x[0] = 0
        x[1, 2] = np.nan  # NaN is true
    s.append(Sample((x,), ([1], False), "zeros and NaN"))
    return s


def prod_dim_samples(dtype, rng):
    out = np_dtype(sum_dtype(dtype)) if dtype != "bool" else np.dtype(bool)
    s = []
    x = arr(rng, (3, 4, 5), dtype)
    for dim, keep in ((1, False), (-1, True), (0, False)):
        s.append(Sample((x,), (dim, keep, out), f"dim {dim}"))
    s.append(Sample((arr(rng, (6, 5), dtype).T,), (0, False, out), "transposed"))
    if dtype not in COMPLEX:
        s.append(Sample((arr(rng, (3, 0), dtype),), (1, False, out), "empty"))
    s.append(Sample((arr(rng, (), dtype),), (0, False, out), "0-d"))
    if dtype in FLOATS:
        s.append(Sample((arr(rng, (2, 5000), dtype) / 4 + 1,), (1, False, np.dtype(np.float32)), "long rows"))
    return s


def prod_samples(dtype, rng):
    out = np_dtype(sum_dtype(dtype)) if dtype != "bool" else np.dtype(bool)
    s = [Sample((arr(rng, (3, 4), dtype),), (out,), "2-d"), Sample((arr(rng, (), dtype),), (out,), "0-d")]
    if dtype not in COMPLEX:
        s.append(Sample((arr(rng, (0, 3), dtype),), (out,), "empty"))
    return s


ENTRIES = [
    OpInfo("aclnnReduceSum", reduce_sum, SUM, kind="custom", samples=reduce_sum_samples, tol=SUM_TOL, native16=True),
    OpInfo("aclnnMean", mean, REALS + INTS + COMPLEX, kind="custom", samples=mean_samples, tol=SUM_TOL, native16=True),
    OpInfo("aclnnMeanV2", mean_v2, REALS + INTS + COMPLEX, kind="custom", samples=mean_v2_samples, tol=SUM_TOL),
    OpInfo("aclnnAmax", amax, EXTREME, kind="custom", samples=extreme_samples),
    OpInfo("aclnnAmin", amin, EXTREME, kind="custom", samples=extreme_samples),
    OpInfo("aclnnMaxV2", max_v2, EXTREME, kind="custom", samples=max_v2_samples),
    OpInfo("aclnnMax", torch.max, EXTREME, kind="custom", samples=whole_samples),
    OpInfo("aclnnMin", torch.min, EXTREME, kind="custom", samples=whole_samples),
    OpInfo("aclnnAll", all_, EXTREME, kind="custom", samples=bool_samples),
    OpInfo("aclnnAny", any_, EXTREME, kind="custom", samples=bool_samples),
    OpInfo("aclnnProdDim", prod_dim, SUM, kind="custom", samples=prod_dim_samples, tol=SUM_TOL, native16=True),
    OpInfo("aclnnProd", prod, SUM, kind="custom", samples=prod_samples, tol=SUM_TOL, native16=True),
]


# ---- nansum, log-sum, log-sum-exp ------------------------------------------------------------------------------

def nansum(x, dims, keep, dtype):
    dt = tdtype(dtype)
    d = dims_of(x, dims)
    if dt == torch.bool:
        return torch.any(x.bool(), dim=tuple(d), keepdim=keep) if x.dim() else x.bool()
    if not x.dtype.is_floating_point:
        return torch.sum(x.to(dt), dim=d, keepdim=keep, dtype=dt)
    return torch.nansum(wide(x, dt), dim=d, keepdim=keep).to(dt)


def nansum_samples(dtype, rng):
    out = np_dtype(sum_dtype(dtype))
    s = dim_samples(dtype, rng, lambda d, k: (d, k, out))
    if dtype in FLOATS:
        x = np.array(arr(rng, (3, 5), dtype))
        x[0, 1] = x[2, 2] = x[2, 4] = np.nan
        s.append(Sample((x,), ([1], False, out), "NaN terms"))
    return s


def log_sum(x, axes, keep, noop):
    if not axes and noop:
        return x.clone()
    return torch.log(torch.sum(x.double(), dim=dims_of(x, axes), keepdim=keep)).to(x.dtype)


def log_sum_samples(dtype, rng):
    s = [Sample((np.asarray(np.abs(sm.operands[0]) + 0.1),), sm.attrs, sm.name)
         for sm in dim_samples(dtype, rng, lambda d, k: (d, k, False), nan=False, empty_reduced=False)]
    s.append(Sample((np.abs(arr(rng, (3, 4), dtype)) + 0.1,), ([], False, True), "no axes, noop"))
    return s


def logsumexp(x, dims, keep):
    return torch.logsumexp(x.double(), dim=dims_of(x, dims), keepdim=keep).float()


def logsumexp_samples(dtype, rng):
    s = dim_samples(dtype, rng, lambda d, k: (d, k), empty_reduced=False, zero_d=False)
    if dtype in FLOATS:
        x = np.array(arr(rng, (3, 4), dtype))
        x[0, :] = -np.inf
        x[1, 2] = np.inf
        x[2, 1] = 80  # exp overflows float32 without the shift
        s.append(Sample((x,), ([1], False), "infinities, large values"))
    return s


# ---- variance and standard deviation ----------------------------------------------------------------------------

def var_dims(x, dims):
    return None if dims is None or not len(dims) else list(dims)


def var(x, dims, unbiased, keep):
    return torch.var(x, dim=var_dims(x, dims), unbiased=unbiased, keepdim=keep)


def var_correction(x, dims, correction, keep):
    return torch.var(x, dim=var_dims(x, dims), correction=correction, keepdim=keep)


def var_mean(x, dims, correction, keep):
    return torch.var_mean(x, dim=var_dims(x, dims), correction=correction, keepdim=keep)


def std(x, dims, correction, keep):
    return torch.std(x, dim=var_dims(x, dims), correction=correction, keepdim=keep)


def std_mean(x, dims, correction, keep):
    return torch.std_mean(x, dim=var_dims(x, dims), correction=correction, keepdim=keep)


def var_samples(second):
    """second(name) gives the attribute between dims and keepdim (unbiased, or a correction)."""
    def samples(dtype, rng):
        s = []
        x = arr(rng, (3, 4, 5), dtype)
        s.append(Sample((x,), ([1], second(1), False), "dim 1"))
        s.append(Sample((x,), ([-1, 0], second(0), True), "dims -1, 0 keepdim"))
        s.append(Sample((x,), ([], second(1), False), "every dim"))
        s.append(Sample((x,), (None, second(1), False), "dims NULL"))
        s.append(Sample((arr(rng, (6, 5), dtype).T,), ([0], second(1), True), "transposed"))
        s.append(Sample((arr(rng, (2, 9000), dtype),), ([1], second(1), False), "long rows"))
        s.append(Sample((arr(rng, (9000, 2), dtype),), ([0], second(1), False), "long columns"))
        s.append(Sample((arr(rng, (0, 4), dtype),), ([1], second(1), False), "empty"))
        s.append(Sample((arr(rng, (3, 1), dtype),), ([1], second(1), False), "one term"))
        s.append(Sample((arr(rng, (3, 4), dtype, nan=True),), ([1], second(0), False), "NaN"))
        if second(3) == 3:
            s.append(Sample((arr(rng, (3, 2), dtype),), ([1], 3, False), "correction above the terms"))
        return s
    return samples


# ---- arg max / min and the value-and-index reductions -----------------------------------------------------------

ARG = REALS + INTS
DIM_DT = ("float32", "float16", "bfloat16", "int64", "bool")


def arg_samples(dtype, rng):
    s = []
    x = arr(rng, (3, 4, 5), dtype)
    for dim, keep in ((1, False), (-1, True), (0, False)):
        s.append(Sample((x,), (dim, keep), f"dim {dim}"))
    s.append(Sample((arr(rng, (6, 5), dtype).T,), (0, False), "transposed"))
    s.append(Sample((arr(rng, (), dtype),), (0, False), "0-d"))
    s.append(Sample((arr(rng, (2, 9000), dtype),), (1, False), "long rows"))
    s.append(Sample((arr(rng, (9000, 3), dtype),), (0, False), "long columns"))
    if dtype in REALS:
        x = np.array(arr(rng, (3, 5), dtype))
        x[0, 1] = x[0, 3] = np.nan
        s.append(Sample((x,), (1, False), "NaN first"))
    return s


def argmax(x, dim, keep):
    return torch.argmax(x, dim=dim, keepdim=keep)


def argmin(x, dim, keep):
    return torch.argmin(x, dim=dim, keepdim=keep)


def max_dim(x, dim, keep):
    return tuple(torch.max(x, dim=dim, keepdim=keep))


def min_dim(x, dim, keep):
    return tuple(torch.min(x, dim=dim, keepdim=keep))


def aminmax(x, dims, keep):
    if len(dims) == 1:
        return tuple(torch.aminmax(x, dim=dims[0], keepdim=keep))
    return tuple(torch.aminmax(x))


def aminmax_samples(dtype, rng):
    s = []
    x = arr(rng, (3, 4, 5), dtype)
    s.append(Sample((x,), ([1], False), "dim 1"))
    s.append(Sample((x,), ([-1], True), "dim -1 keepdim"))
    s.append(Sample((x,), ([], False), "every dim"))
    s.append(Sample((arr(rng, (6, 5), dtype).T,), ([0], False), "transposed"))
    s.append(Sample((arr(rng, (), dtype),), ([0], False), "0-d"))
    return s


def aminmax_all_samples(dtype, rng):
    return [Sample((arr(rng, (3, 4, 5), dtype),), (), "3-d"), Sample((arr(rng, (9000, 3), dtype),), (), "long")]


def aminmax_dim(x, dim, keep):
    return tuple(torch.aminmax(x, dim=dim, keepdim=keep))


MINMAX = REALS + INTS + ("bool",)

ENTRIES += [
    OpInfo("aclnnReduceNansum", nansum, FLOATS + INTS + ("bool",), kind="custom", samples=nansum_samples,
           tol=SUM_TOL, native16=True),
    OpInfo("aclnnReduceLogSum", log_sum, ("float32", "float16"), kind="custom", samples=log_sum_samples),
    OpInfo("aclnnLogSumExp", logsumexp, ("float32", "float16", "bfloat16") + INTS + ("bool",), kind="custom",
           samples=logsumexp_samples),
    OpInfo("aclnnVar", var, FLOATS, kind="custom", samples=var_samples(lambda c: bool(c)), tol=SUM_TOL),
    OpInfo("aclnnVarCorrection", var_correction, FLOATS, kind="custom", samples=var_samples(lambda c: c),
           tol=SUM_TOL),
    OpInfo("aclnnVarMean", var_mean, ("float32", "float16"), kind="custom", samples=var_samples(lambda c: c),
           tol=SUM_TOL),
    OpInfo("aclnnStd", std, FLOATS, kind="custom", samples=var_samples(lambda c: c), tol=SUM_TOL),
    OpInfo("aclnnStdMeanCorrection", std_mean, FLOATS, kind="custom", samples=var_samples(lambda c: c),
           tol=SUM_TOL),
    OpInfo("aclnnArgMax", argmax, ARG, kind="custom", samples=arg_samples),
    OpInfo("aclnnArgMin", argmin, ARG, kind="custom", samples=arg_samples),
    OpInfo("aclnnMaxDim", max_dim, DIM_DT, kind="custom", samples=arg_samples),
    OpInfo("aclnnMinDim", min_dim, DIM_DT, kind="custom", samples=arg_samples),
    OpInfo("aclnnAminmax", aminmax, MINMAX, kind="custom", samples=aminmax_samples),
    OpInfo("aclnnAminmaxAll", torch.aminmax, MINMAX, kind="custom", samples=aminmax_all_samples),
    OpInfo("aclnnAminmaxDim", aminmax_dim, MINMAX, kind="custom", samples=arg_samples),
]


# ---- global pools, batch-norm statistics ------------------------------------------------------------------------

def pool_samples(dtype, rng):
    return [Sample((arr(rng, (2, 3, 4, 5), dtype),), (), "NCHW"),
            Sample((arr(rng, (1, 2, 3, 2, 2), dtype),), (), "5-d"),
            Sample((arr(rng, (2, 3, 90, 100), dtype),), (), "large planes"),
            Sample((np.ascontiguousarray(arr(rng, (2, 5, 4, 3), dtype).transpose(0, 3, 2, 1)),), (), "channels")]


def global_max_pool(x):
    return torch.amax(x, dim=tuple(range(2, x.dim())), keepdim=True)


def global_average_pool(x):
    return torch.mean(x, dim=tuple(range(2, x.dim())), keepdim=True)


def batch_norm_stats(x, eps):
    x = x.double()
    dims = [d for d in range(x.dim()) if d != 1]
    var, mean = torch.var_mean(x, dim=dims, correction=0)
    return mean.float(), (1 / torch.sqrt(var + eps)).float()


def batch_norm_stats_samples(dtype, rng):
    return [Sample((arr(rng, (4, 3, 5), dtype),), (1e-5,), "3-d"), Sample((arr(rng, (2, 6), dtype),), (0.1,), "2-d"),
            Sample((arr(rng, (8, 3, 40, 40), dtype),), (1e-5,), "large"),
            Sample((arr(rng, (0, 3), dtype),), (1e-5,), "empty")]


def batch_norm_stats_oracle(x, eps):
    if x.numel() == 0:
        return torch.zeros(x.shape[1]), torch.full((x.shape[1],), float("nan"))
    return batch_norm_stats(x, eps)


ENTRIES += [
    OpInfo("aclnnGlobalMaxPool", global_max_pool, ("float32", "float16", "float64"), kind="custom",
           samples=pool_samples),
    OpInfo("aclnnGlobalAveragePool", global_average_pool, REALS, kind="custom", samples=pool_samples, tol=SUM_TOL),
    OpInfo("aclnnBatchNormStats", batch_norm_stats_oracle, ("float32", "float16"), kind="custom",
           samples=batch_norm_stats_samples, tol=SUM_TOL, native16=True),
]


# ---- trace ---------------------------------------------------------------------------------------------------------

def trace(x):
    if x.dtype == torch.bool or not (x.dtype.is_floating_point or x.dtype.is_complex):
        return torch.trace(x.to(torch.int64))
    return torch.trace(wide(x, x.dtype)).to(x.dtype) if x.dtype != torch.float32 else torch.trace(x.double()).float()


def trace_samples(dtype, rng):
    return [Sample((arr(rng, (3, 3), dtype),), (), "square"), Sample((arr(rng, (2, 5), dtype),), (), "wide"),
            Sample((arr(rng, (7, 4), dtype).T,), (), "transposed"), Sample((arr(rng, (0, 3), dtype),), (), "empty"),
            Sample((arr(rng, (3000, 3000), dtype),), (), "large")]


ENTRIES += [
    OpInfo("aclnnTrace", trace, REALS + COMPLEX + ("int32", "int64", "int16", "int8", "uint8", "bool"),
           kind="custom", samples=trace_samples, native16=True, tol=SUM_TOL),
]
