"""ops-math scans and sorts (cumsum, cumprod, cummax, cummin, sort, argsort) and the selections of ops-nn index/
(topk, kthvalue, median, nanmedian). Orders follow a stable sort: ties keep their index order, NaN above every
number. Samples: dims (negative ones), a transposed view, a 0-d tensor, empty tensors, long lanes, ties, NaN."""

from __future__ import annotations

import numpy as np
import torch

from . import COMPLEX, FLOATS, INTS, REALS, OpInfo, Sample, np_dtype, random_array

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
         "int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64, "uint8": torch.uint8,
         "bool": torch.bool, "complex64": torch.complex64, "complex128": torch.complex128}


def tdtype(d):
    if isinstance(d, torch.dtype):
        return d
    return torch.bfloat16 if str(d) == "bfloat16" else TORCH[np.dtype(d).name]


def arr(rng, shape, dtype, nan=False, domain=(-4.0, 4.0)):
    a = random_array(rng, shape, dtype, domain, (-8, 8))
    if nan and dtype in REALS and a.size > 3:
        a = np.array(a)
        a.reshape(-1)[[1, 3]] = np.nan
    return a


def lane_samples(dtype, rng, attrs, *, nan=True, zero_d=True, long=9000):
    """attrs(dim) gives the attributes after self."""
    s = []
    x = arr(rng, (3, 4, 5), dtype)
    for dim in (1, -1, 0):
        s.append(Sample((x,), attrs(dim), f"dim {dim}"))
    s.append(Sample((arr(rng, (6, 5), dtype).T,), attrs(1), "transposed"))
    if zero_d:
        s.append(Sample((arr(rng, (), dtype),), attrs(0), "0-d"))
    s.append(Sample((arr(rng, (0, 4), dtype),), attrs(1), "empty"))
    if long:
        s.append(Sample((arr(rng, (2, long), dtype),), attrs(-1), "long lanes"))
    if nan and dtype in REALS:
        s.append(Sample((arr(rng, (3, 6), dtype, nan=True),), attrs(1), "NaN"))
    return s


# ---- scans ------------------------------------------------------------------------------------------------------

def wide(x, dt):
    x = x.to(dt)
    return x.double() if dt.is_floating_point else x.to(torch.complex128) if dt.is_complex else x


def cumsum(x, dim, dtype):
    dt = tdtype(dtype)
    return torch.cumsum(wide(x, dt), dim).to(dt) if x.dim() else x.to(dt)


def cumsum_v2(x, dim, exclusive, reverse):
    y = wide(x, x.dtype)
    if x.dim() == 0:
        return (torch.zeros_like(y) if exclusive else y).to(x.dtype)
    if reverse:
        y = y.flip(dim)
    c = torch.cumsum(y, dim)
    if exclusive:  # shifted by one: zeros first
        c = torch.cat([torch.zeros_like(c.narrow(dim, 0, 1)), c.narrow(dim, 0, c.shape[dim] - 1)], dim)
    if reverse:
        c = c.flip(dim)
    return c.to(x.dtype)


def cumprod(x, dim, dtype):
    dt = tdtype(dtype)
    return torch.cumprod(wide(x, dt), dim).to(dt) if x.dim() else x.to(dt)


def cum_ext(op):
    def ref(x, dim):
        if x.dim() == 0:
            return x.clone(), torch.zeros((), dtype=torch.int64)
        if x.dtype == torch.bool:
            v, i = op(x.to(torch.uint8), dim)
            return v.bool(), i
        return tuple(op(x, dim))
    return ref


SCAN_TOL = {"float32": (1e-5, 1e-3), "complex64": (1e-5, 1e-3), "float16": (2e-3, 2e-2), "bfloat16": (1e-2, 1e-1)}

# ---- sorts --------------------------------------------------------------------------------------------------------

def sort(x, stable, dim, descending):
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    if x.dtype == torch.bool:
        v, i = torch.sort(x.to(torch.uint8), dim=dim, descending=descending, stable=True)
        return v.bool(), i
    return tuple(torch.sort(x, dim=dim, descending=descending, stable=True))


def argsort(x, dim, descending):
    if x.dim() == 0:
        return torch.zeros((), dtype=torch.int64)
    return torch.sort(x, dim=dim, descending=descending, stable=True).indices


def topk(x, k, dim, largest, sorted_):
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    v, i = torch.sort(x, dim=dim, descending=largest, stable=True)
    return v.narrow(dim, 0, k), i.narrow(dim, 0, k)


def kthvalue(x, k, dim, keepdim):
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64)
    v, i = torch.sort(x, dim=dim, stable=True)
    v, i = v.select(dim, k - 1), i.select(dim, k - 1)
    return (v.unsqueeze(dim), i.unsqueeze(dim)) if keepdim else (v, i)


def median_lane(v, nan_skip):
    """The median of a 1-D tensor and its index, by the documented rule."""
    isnan = torch.isnan(v) if v.dtype.is_floating_point else torch.zeros_like(v, dtype=torch.bool)
    if not nan_skip and isnan.any():
        first = int(torch.nonzero(isnan)[0])
        return v[first], first
    count = int((~isnan).sum())
    if count == 0:
        return v[0], 0
    s, i = torch.sort(v, stable=True)
    r = (count - 1) // 2
    return s[r], int(i[r])


def median_dim_ref(nan_skip):
    def ref(x, dim, keepdim):
        if x.dim() == 0:
            return x.clone(), torch.zeros((), dtype=torch.int64)
        moved = x.movedim(dim, -1)
        flat = moved.reshape(-1, moved.shape[-1])
        vals, idx = [], []
        for row in flat:
            v, i = median_lane(row, nan_skip)
            vals.append(v)
            idx.append(i)
        shape = moved.shape[:-1]
        v = torch.stack(vals).reshape(shape) if vals else torch.empty(shape, dtype=x.dtype)
        i = torch.tensor(idx, dtype=torch.int64).reshape(shape)
        return (v.unsqueeze(dim), i.unsqueeze(dim)) if keepdim else (v, i)
    return ref


def median_all_ref(nan_skip):
    def ref(x):
        return median_lane(x.reshape(-1), nan_skip)[0].clone()
    return ref


def median_all_samples(dtype, rng):
    s = [Sample((arr(rng, (3, 4, 5), dtype),), (), "3-d"), Sample((arr(rng, (6, 5), dtype).T,), (), "transposed"),
         Sample((arr(rng, (4001,), dtype),), (), "long"), Sample((arr(rng, (), dtype),), (), "0-d")]
    if dtype in REALS:
        s.append(Sample((arr(rng, (3, 6), dtype, nan=True),), (), "NaN"))
        s.append(Sample((np.full((2, 2), np.nan).astype(np_dtype(dtype)),), (), "NaN only"))
    return s


def topk_samples(dtype, rng):
    s = []
    x = arr(rng, (3, 7, 5), dtype)
    for k, dim, largest in ((3, 1, True), (2, -1, False), (1, 0, True), (7, 1, False), (0, 1, True)):
        s.append(Sample((x,), (k, dim, largest, True), f"k {k} dim {dim} largest {largest}"))
    s.append(Sample((arr(rng, (6, 5), dtype).T,), (2, 1, True, False), "transposed, unsorted"))
    s.append(Sample((arr(rng, (2, 9000), dtype),), (50, -1, True, True), "long lanes, small k"))
    s.append(Sample((arr(rng, (2, 9000), dtype),), (100, -1, False, True), "long lanes, k selected by radix"))
    s.append(Sample((arr(rng, (2, 9000), dtype),), (6000, -1, False, True), "long lanes, large k"))
    s.append(Sample((arr(rng, (), dtype),), (1, 0, True, True), "0-d"))
    if dtype in REALS:
        s.append(Sample((arr(rng, (3, 6), dtype, nan=True),), (3, 1, True, True), "NaN"))
    return s


def kth_samples(dtype, rng):
    s = []
    x = arr(rng, (3, 7, 5), dtype)
    for k, dim, keep in ((3, 1, False), (2, -1, True), (1, 0, False), (7, 1, True)):
        s.append(Sample((x,), (k, dim, keep), f"k {k} dim {dim} keepdim {keep}"))
    s.append(Sample((arr(rng, (6, 5), dtype).T,), (2, 1, False), "transposed"))
    s.append(Sample((arr(rng, (2, 9000), dtype),), (4500, -1, False), "long lanes"))
    s.append(Sample((arr(rng, (2, 9000), dtype),), (300, -1, False), "long lanes, small k"))
    s.append(Sample((arr(rng, (), dtype),), (1, 0, False), "0-d"))
    if dtype in REALS:
        s.append(Sample((arr(rng, (3, 6), dtype, nan=True),), (5, 1, False), "NaN"))
    return s


SORTABLE = FLOATS + INTS
ENTRIES = [
    OpInfo("aclnnCumsum", cumsum, REALS + INTS + COMPLEX, kind="custom", native16=True, tol=SCAN_TOL,
           samples=lambda d, r: lane_samples(d, r, lambda dim: (dim, np_dtype(d)))),
    OpInfo("aclnnCumsumV2", cumsum_v2, REALS + INTS + COMPLEX, kind="custom", native16=True, tol=SCAN_TOL,
           samples=lambda d, r: [Sample(s.operands, s.attrs + ((i % 2) == 1, (i // 2) % 2 == 1), s.name)
                                 for i, s in enumerate(lane_samples(d, r, lambda dim: (dim,)))]),
    OpInfo("aclnnCumprod", cumprod, REALS + INTS, kind="custom", native16=True, tol=SCAN_TOL,
           also=("aclnnInplaceCumprod",),
           samples=lambda d, r: [Sample((np.asarray(s.operands[0] / 2 + 0.5) if d in REALS else s.operands[0],),
                                        s.attrs, s.name)
                                 for s in lane_samples(d, r, lambda dim: (dim, np_dtype(d)), long=300)]),
    OpInfo("aclnnCummax", cum_ext(torch.cummax), REALS + INTS + ("bool",), kind="custom",
           samples=lambda d, r: lane_samples(d, r, lambda dim: (dim,), zero_d=False)),
    OpInfo("aclnnCummin", cum_ext(torch.cummin), REALS + INTS + ("bool",), kind="custom",
           samples=lambda d, r: lane_samples(d, r, lambda dim: (dim,))),
    OpInfo("aclnnSort", sort, SORTABLE + ("bool",), kind="custom",
           samples=lambda d, r: [Sample(s.operands, (True,) + s.attrs + (i % 2 == 1,), s.name)
                                 for i, s in enumerate(lane_samples(d, r, lambda dim: (dim,)))]),
    OpInfo("aclnnArgsort", argsort, SORTABLE, kind="custom",
           samples=lambda d, r: [Sample(s.operands, s.attrs + (i % 2 == 1,), s.name)
                                 for i, s in enumerate(lane_samples(d, r, lambda dim: (dim,)))
                                 if not (d == "bfloat16" and s.operands[0].ndim and
                                         s.operands[0].shape[s.attrs[0]] == 1)]),
    OpInfo("aclnnTopk", topk, REALS + INTS, kind="custom", samples=topk_samples),
    OpInfo("aclnnKthvalue", kthvalue, SORTABLE, kind="custom", samples=kth_samples),
    OpInfo("aclnnMedian", median_all_ref(False), SORTABLE, kind="custom", samples=median_all_samples),
    OpInfo("aclnnNanMedian", median_all_ref(True), SORTABLE, kind="custom", samples=median_all_samples),
    OpInfo("aclnnMedianDim", median_dim_ref(False), SORTABLE, kind="custom",
           samples=lambda d, r: lane_samples(d, r, lambda dim: (dim, dim == -1), long=3001)),
    OpInfo("aclnnNanMedianDim", median_dim_ref(True), SORTABLE, kind="custom",
           samples=lambda d, r: lane_samples(d, r, lambda dim: (dim, dim == -1), long=3001)),
]
