"""ops-nn index/: gathers (GatherV2/V3, IndexSelect, Take, Embedding, Gather, GatherNd, Flip) and scatters (Scatter,
ScatterValue, ScatterAdd, ScatterReduce and in-place variants, IndexAdd(V2), IndexCopy, IndexFill(Tensor), ScatterNd,
ScatterNdUpdate, TfScatterAdd, InplacePut) against torch. Samples keep duplicate indices only where the result does
not depend on their order (sums), and name the out-of-range cases in tests/test_op_index.py."""

from __future__ import annotations

import numpy as np
import torch

from . import Sample, np_dtype
from .math_conversion import F, I, U, C, LONG, arr, entry, transposed

GATHER_V2_DT = F + I + ("bool",) + C
INDEX_SELECT_DT = F + I + U + ("bool",) + C
GATHER_DT = F + I + U + ("bool",)
GATHER_ND_DT = ("float32", "int32", "int64", "float16", "int8", "uint8", "bool", "bfloat16")
SCATTER_DT = F + I + ("bool",) + C
INDEX_ADD_DT = F + I + ("bool",)
INDEX_COPY_DT = F + I + ("bool",) + C
INDEX_FILL_DT = ("int32", "float16", "float32", "int64", "bool", "bfloat16")
SCATTER_ND_DT = ("float16", "float32", "bool", "bfloat16")
SCATTER_ND_UPDATE_DT = ("float32", "float16", "bfloat16", "bool", "int16", "int64", "int8", "int32")
PUT_DT = F + I + ("bool",) + C
TF_SCATTER_ADD_DT = ("float32", "float16", "bfloat16", "int32", "int8", "uint8")
SUM_TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}


def idx(rng, size, shape, dtype="int64", unique=False):
    """Indices in [0, size): distinct along the first dimension when unique (then shape[0] <= size)."""
    if unique:
        return np.stack([rng.permutation(size)[:shape[0]] for _ in range(int(np.prod(shape[1:])))], -1) \
                 .reshape(shape).astype(dtype) if len(shape) > 1 else rng.permutation(size)[:shape[0]].astype(dtype)
    return rng.integers(0, size, size=shape).astype(dtype)


def value_for(dtype):
    return True if dtype == "bool" else 3 if dtype in I + U else -1.5


# ---- gathers ------------------------------------------------------------------------------------------------------

def gather_v2_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(5, 4), 0, idx(rng, 5, (3,))), (), "dim 0"),
            Sample((a(3, 6, 2), -2, idx(rng, 6, (2, 2), "int32")), (), "2-D index, int32, strided out"),
            Sample((transposed(a(4, 7)), 1, idx(rng, 7, ())), (), "0-D index"),
            Sample((a(3, 5), 0, idx(rng, 3, (0,))), (), "empty index"),
            Sample((a(500, 64), 0, idx(rng, 500, (300,))), (), "long")]


def gather_v2_negative_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return gather_v2_samples(dtype, rng) + [Sample((a(4, 3), 0, idx(rng, 4, (2, 3)) - 4), (), "negative indices")]


def gather_v2_ref(x, dim, index):
    shape = x.shape[:dim] + (index.shape if index.dim() else (1,)) + x.shape[dim + 1:]
    i = index.reshape(-1).long()
    return x.index_select(dim, torch.where(i < 0, i + x.shape[dim], i)).reshape(shape)


def gather_v3_samples(dtype, rng):
    return [Sample((s.operands[0], 0, s.operands[2], 0, 1), (), s.name) for s in gather_v2_samples(dtype, rng)
            if s.operands[1] == 0]


def gather_v3_ref(x, dim, index, batch_dims, mode):
    return gather_v2_ref(x, dim, index)


def index_select_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(5, 4), 1, idx(rng, 4, (6,))), (), "dim 1, repeats"),
            Sample((transposed(a(6, 3)), -2, idx(rng, 6, (2,), "int32")), (), "transposed, strided out"),
            Sample((a(7), 0, idx(rng, 7, ())), (), "0-D index"), Sample((a(400, 100), 0, idx(rng, 400, (300,))), (), "long")]


def take_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(3, 4), idx(rng, 12, (2, 5))), (), "2-D index"),
            Sample((transposed(a(4, 5)), idx(rng, 20, (7,), "int32")), (), "transposed, strided out"),
            Sample((a(200, 200), idx(rng, 40000, (40000,))), (), "long")]


def embedding_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(10, 4), idx(rng, 10, (2, 3))), (), "2-D indices"),
            Sample((transposed(a(6, 5)), idx(rng, 6, (4,), "int32")), (), "transposed, strided out"),
            Sample((a(1000, 128), idx(rng, 1000, (512,))), (), "long")]


def gather_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(4, 5), 1, idx(rng, 5, (4, 3))), (), "dim 1"),
            Sample((a(4, 5), 0, idx(rng, 4, (2, 5), "int32")), (), "dim 0, strided out"),
            Sample((transposed(a(3, 6)), -1, idx(rng, 6, (2, 4))), (), "transposed, smaller index"),
            Sample((a(300, 200), 1, idx(rng, 200, (300, 150))), (), "long")]


def gather_nd_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    i2 = np.stack([idx(rng, 4, (6,)), idx(rng, 5, (6,))], -1)
    i1 = idx(rng, 4, (3, 1), "int32")
    neg = np.stack([-idx(rng, 4, (5,)) - 1, idx(rng, 5, (5,))], -1)
    big = np.stack([idx(rng, 300, (2000,)), idx(rng, 40, (2000,))], -1)
    return [Sample((a(4, 5, 3), i2, False), (), "pairs"), Sample((a(4, 5), i1, False), (), "rows, strided out"),
            Sample((a(4, 5), neg, True), (), "negative indices"), Sample((a(300, 40, 8), big, False), (), "long")]


def gather_nd_ref(x, indices, negative):
    return x[tuple(indices.long().unbind(-1))]


def flip_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(3, 4, 5), [0, 2]), (), "two dims"), Sample((transposed(a(4, 6)), [-1]), (), "transposed, strided out"),
            Sample((a(5), []), (), "no dims"), Sample((a(200, 300), [1]), (), "long")]


# ---- scatters -------------------------------------------------------------------------------------------------------

def scatter_samples(dtype, rng, reduce=0, with_value=False):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    unique = reduce == 0
    cases = [((4, 5), 0, (3, 5), "dim 0"), ((4, 5), 1, (4, 2), "dim 1, strided out"), ((3, 6), -1, (2, 4), "smaller index"),
             ((300, 200), 0, (250, 200), "long")]
    out = []
    for shape, dim, ishape, name in cases:
        d = dim % len(shape)
        index = idx(rng, shape[d], ishape if d == 0 else ishape[::-1], unique=unique)
        if d != 0:
            index = np.ascontiguousarray(index.T)
        src = value_for(dtype) if with_value else a(*ishape)
        self_ = transposed(a(*shape)) if name == "smaller index" else a(*shape)
        out.append(Sample((self_, dim, index, src, reduce), (), name))
    return out


def scatter_ref(self, dim, index, src, reduce):
    kw = {"reduce": ("add", "multiply")[reduce - 1]} if reduce else {}
    if self.dtype == torch.bool and reduce:  # torch refuses these for bool: add is "or", mul is "and"
        s = src if isinstance(src, torch.Tensor) else torch.full(index.shape, bool(src))
        return torch.scatter_reduce(self.int(), dim, index.long(), s.int(), ("sum", "prod")[reduce - 1]).bool()
    if isinstance(src, torch.Tensor):
        return torch.scatter(self, dim, index.long(), src, **kw)
    return torch.scatter(self, dim, index.long(), src, **kw)


def scatter_add_samples(dtype, rng):
    return [Sample(s.operands[:4], (), s.name) for s in scatter_samples(dtype, rng, reduce=1)]


def scatter_add_ref(self, dim, index, src):
    if self.dtype == torch.bool:
        return scatter_ref(self, dim, index, src, 1)
    return torch.scatter_add(self, dim, index.long(), src)


def scatter_reduce_samples(dtype, rng):
    return [Sample(s.operands[:4] + (1, True), (), s.name) for s in scatter_samples(dtype, rng, reduce=1)]


def scatter_reduce_ref(self, dim, index, src, reduce, include_self):
    return torch.scatter_reduce(self, dim, index.long(), src, "sum", include_self=include_self)


def index_add_samples(dtype, rng, v2=False):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    alpha = True if dtype == "bool" else 2 if dtype in I else 1.5
    cases = [((5, 4), 0, 7, "dim 0, repeats"), ((3, 6), 1, 4, "dim 1, strided out"), ((4, 6), -1, 3, "negative dim"),
             ((400, 100), 0, 300, "long")]
    out = []
    for shape, dim, n, name in cases:
        d = dim % 2
        sshape = list(shape)
        sshape[d] = n
        extra = (0,) if v2 else ()
        out.append(Sample((a(*shape), dim, idx(rng, shape[d], (n,)), a(*sshape), alpha) + extra, (), name))
    return out


def index_add_ref(self, dim, index, source, alpha, mode=None):
    if self.dtype == torch.bool:
        return (self.int().index_add(dim, index.long(), source.int() * int(alpha))).bool()
    return self.index_add(dim, index.long(), source, alpha=alpha)


def index_copy_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(5, 4), 0, idx(rng, 5, (3,), unique=True), a(3, 4)), (), "dim 0"),
            Sample((a(3, 6), 1, idx(rng, 6, (4,), "int32", unique=True), a(3, 4)), (), "dim 1, strided out"),
            Sample((a(400, 100), 0, idx(rng, 400, (300,), unique=True), a(300, 100)), (), "long")]


def index_copy_ref(self, dim, index, source):
    return self.index_copy(dim, index.long(), source)


def index_fill_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    v = value_for(dtype)
    return [Sample((a(5, 4), 0, idx(rng, 5, (3,)), v), (), "dim 0"),
            Sample((a(3, 6), -1, idx(rng, 6, (4,), "int32"), v), (), "dim -1, strided out"),
            Sample((a(400, 100), 1, idx(rng, 100, (30,)), v), (), "long")]


def index_fill_tensor_samples(dtype, rng):
    return [Sample((s.operands[0], s.operands[1], [int(x) - 1 if k % 2 else int(x) for k, x in
                                                  enumerate(s.operands[2])], s.operands[3]), (), s.name)
            for s in index_fill_samples(dtype, rng)]


def index_fill_ref(self, dim, index, value):
    index = torch.tensor(index) if isinstance(index, list) else index
    size = self.shape[dim]
    return self.index_fill(dim, torch.where(index < 0, index + size, index).long(), value)


def scatter_nd_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    pairs = np.stack(np.unravel_index(rng.permutation(20)[:6], (4, 5)), -1).astype(np.int64)
    rows = idx(rng, 6, (3, 1), "int32", unique=True)
    big = idx(rng, 500, (300, 1), unique=True)
    return [Sample((a(4, 5, 3), pairs, a(6, 3)), (), "pairs"), Sample((a(6, 4), rows, a(3, 4)), (), "rows, strided out"),
            Sample((a(500, 64), big, a(300, 64)), (), "long")]


def scatter_nd_ref(data, indices, updates):
    out = data.clone()
    out[tuple(indices.long().unbind(-1))] = updates
    return out


def tf_scatter_add_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(6, 4), idx(rng, 6, (5,)), a(5, 4)), (), "scatter_add, repeats"),
            Sample((a(6, 4), idx(rng, 6, (2, 3), "int32"), a(2, 3, 4)), (), "2-D indices"),
            Sample((a(4, 5, 2), np.stack([idx(rng, 4, (7,)), idx(rng, 5, (7,))], -1), a(7, 2)), (), "scatter_nd_add"),
            Sample((a(500, 64), idx(rng, 500, (400,)), a(400, 64)), (), "long")]


def tf_scatter_add_ref(var, indices, updates):
    out = var.clone()
    if updates.shape == indices.shape + var.shape[1:]:
        out.index_put_((indices.long(),), updates, accumulate=True)
    else:
        out.index_put_(tuple(indices.long().unbind(-1)), updates, accumulate=True)
    return out


def put_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(4, 5), idx(rng, 20, (6,), unique=True) - 10, a(6), False), (), "negative indices"),
            Sample((a(4, 5), idx(rng, 20, (2, 4), "int32"), a(2, 4), dtype not in ("bfloat16", "bool")), (),
                   "accumulate, strided out"),
            Sample((a(200, 200), idx(rng, 40000, (30000,), unique=True), a(30000), False), (), "long")]


def put_ref(self, index, source, accumulate):
    return self.clone().put_(index.long(), source, accumulate=accumulate)


ENTRIES = [
    entry("aclnnGatherV2", gather_v2_ref, GATHER_V2_DT, gather_v2_negative_samples),
    entry("aclnnGatherV3", gather_v3_ref, GATHER_V2_DT, gather_v3_samples),
    entry("aclnnIndexSelect", lambda x, dim, i: x.index_select(dim, i.reshape(-1).long()), INDEX_SELECT_DT,
          index_select_samples),
    entry("aclnnTake", lambda x, i: torch.take(x, i.long()), INDEX_SELECT_DT, take_samples),
    entry("aclnnEmbedding", lambda w, i: w[i.long()], GATHER_V2_DT, embedding_samples),
    entry("aclnnGather", lambda x, dim, i: torch.gather(x, dim, i.long()), GATHER_DT, gather_samples),
    entry("aclnnGatherNd", gather_nd_ref, GATHER_ND_DT, gather_nd_samples),
    entry("aclnnFlip", lambda x, dims: torch.flip(x, dims), GATHER_V2_DT, flip_samples),
    entry("aclnnScatter", scatter_ref, SCATTER_DT, lambda d, r: scatter_samples(d, r) + scatter_samples(d, r, 1)[:2],
          accumulate16=True),
    entry("aclnnScatterValue", scatter_ref, SCATTER_DT, lambda d, r: scatter_samples(d, r, 0, True)),
    entry("aclnnInplaceScatter", scatter_ref, SCATTER_DT, lambda d, r: scatter_samples(d, r, 2)[:2], inplace=True,
          accumulate16=True),
    entry("aclnnInplaceScatterValue", scatter_ref, SCATTER_DT, lambda d, r: scatter_samples(d, r, 1, True)[:2],
          inplace=True, accumulate16=True),
    entry("aclnnScatterAdd", scatter_add_ref, SCATTER_DT, scatter_add_samples, accumulate16=True),
    entry("aclnnScatterReduce", scatter_reduce_ref, ("float32",), scatter_reduce_samples),
    entry("aclnnInplaceScatterReduce", scatter_reduce_ref, ("float32",), lambda d, r: scatter_reduce_samples(d, r)[:2],
          inplace=True),
    entry("aclnnIndexAdd", index_add_ref, INDEX_ADD_DT, index_add_samples, accumulate16=True),
    entry("aclnnIndexAddV2", index_add_ref, INDEX_ADD_DT, lambda d, r: index_add_samples(d, r, True)[:2], accumulate16=True),
    entry("aclnnIndexCopy", index_copy_ref, INDEX_COPY_DT, index_copy_samples, outputs=("outRef",)),
    entry("aclnnInplaceIndexCopy", index_copy_ref, INDEX_COPY_DT, lambda d, r: index_copy_samples(d, r)[:2],
          inplace=True),
    entry("aclnnIndexFill", index_fill_ref, INDEX_FILL_DT, index_fill_samples),
    entry("aclnnInplaceIndexFill", index_fill_ref, INDEX_FILL_DT, lambda d, r: index_fill_samples(d, r)[:2],
          inplace=True),
    entry("aclnnIndexFillTensor", index_fill_ref, INDEX_FILL_DT, index_fill_tensor_samples),
    entry("aclnnInplaceIndexFillTensor", index_fill_ref, INDEX_FILL_DT,
          lambda d, r: index_fill_tensor_samples(d, r)[:2], inplace=True),
    entry("aclnnScatterNd", scatter_nd_ref, SCATTER_ND_DT, scatter_nd_samples),
    entry("aclnnScatterNdUpdate", scatter_nd_ref, SCATTER_ND_UPDATE_DT, scatter_nd_samples, inplace="varRef"),
    entry("aclnnTfScatterAdd", tf_scatter_add_ref, TF_SCATTER_ADD_DT, tf_scatter_add_samples, inplace="varRef",
          accumulate16=True),
    entry("aclnnInplacePut", put_ref, PUT_DT, put_samples, inplace=True, accumulate16=True),
]


# ---- data-dependent outputs: device tensors at their largest shape, trimmed to the shape the operator gives them --

def call_dynamic(name, alloc):
    """A call hook for operators that refresh their outputs' view shapes: alloc(sample) gives each output's largest
    shape and dtype; the results are the outputs' data at the shapes aclGetViewShape reports after the call."""
    from aclnn_py import acl

    def call(sample, exp):
        outs = [aclnn_py.Tensor(shape, np.dtype(dt)) for shape, dt in alloc(sample)]
        aclnn_py.run(name, *sample.operands, *sample.attrs, out=outs if len(outs) > 1 else outs[0])
        res = []
        for t in outs:
            shape = tuple(acl.aclGetViewShape(t.handle))
            res.append(t.numpy().reshape(-1)[:int(np.prod(shape))].reshape(shape))
        return res if len(res) > 1 else res[0]

    return call


import aclnn_py  # noqa: E402
from . import OpInfo  # noqa: E402
from .math_conversion import tt, via_int64  # noqa: E402


def dynamic_entry(name, ref, dtypes, samples, alloc, pick=None):
    """pick: which of the oracle's results the call returns (indices), when the operator leaves some out."""
    wide = via_int64(ref, values=(0,))

    def oracle(*args):
        res = wide(*tt(list(args)))
        return [res[i] for i in pick] if pick is not None else res

    return OpInfo(name, oracle, dtypes, kind="custom", samples=samples, call=call_dynamic(name, alloc), native16=True)


NONZERO_DT = F + I + ("bool",)
UNIQUE_DT = F + I + U + ("bool",)


def nonzero_samples(dtype, rng):
    a = lambda *s: np.where(rng.random(s) < 0.5, 0, arr(rng, s, dtype)).astype(arr(rng, (1,), dtype).dtype)  # noqa: E731
    return [Sample((a(4, 5),), (), "2-D"), Sample((transposed(a(3, 6)),), (), "transposed"), Sample((a(2, 3, 4),), (), "3-D"),
            Sample((np.zeros((3, 3), arr(rng, (1,), dtype).dtype),), (), "all zero"), Sample((a(50000),), (), "long")]


def nonzero_alloc(transpose):
    def alloc(sample):
        x = sample.operands[0]
        return [((x.ndim, x.size) if transpose else (x.size, x.ndim), "int64")]
    return alloc


def masked_select_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    m = lambda *s: rng.integers(0, 2, size=s).astype(bool)  # noqa: E731
    return [Sample((a(3, 4), m(3, 4)), (), "same shape"), Sample((a(3, 1), m(4).astype(np.uint8)), (), "broadcast, uint8 mask"),
            Sample((transposed(a(4, 5)), m(4, 5)), (), "transposed"), Sample((a(40000), m(40000)), (), "long")]


def masked_select_alloc(sample):
    x, m = sample.operands
    return [((int(np.prod(np.broadcast_shapes(x.shape, m.shape))),), str(x.dtype))]


def unique_values(dtype, rng, *shape):
    """Few distinct values (repeats), for every dtype."""
    return np.asarray(rng.integers(0, 5, size=shape)).astype(arr(rng, (1,), dtype).dtype)


def unique_samples(dtype, rng, extra=()):
    return [Sample((unique_values(dtype, rng, 12),) + extra, (), "1-D"),
            Sample((transposed(unique_values(dtype, rng, 3, 4)),) + extra, (), "2-D transposed"),
            Sample((unique_values(dtype, rng, 5000),) + extra, (), "long")]


def unique_alloc(counts):
    def alloc(sample):
        x = sample.operands[0]
        out = [((x.size,), str(x.dtype)), (x.shape, "int64")]
        return out + [((x.size,), "int64")] if counts else out
    return alloc


def unique_ref(x, sorted_, inverse, counts=None):
    v, inv, c = torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
    return (v, inv) if counts is None else (v, inv, c)


def unique_consecutive_samples(dtype, rng):
    return [Sample((unique_values(dtype, rng, 12), True, True, 1000), (), "flat"),
            Sample((transposed(unique_values(dtype, rng, 3, 4)), True, True, 1000), (), "flat, transposed"),
            Sample((np.repeat(unique_values(dtype, rng, 5000), 2), True, True, 1000), (), "long")]


def unique_consecutive_ref(x, inverse, counts, dim):
    if not x.is_complex():
        return torch.unique_consecutive(x, return_inverse=True, return_counts=True)
    flat = x.reshape(-1).numpy()  # torch has no complex unique_consecutive: the same rule in numpy
    starts = np.concatenate([[True], flat[1:] != flat[:-1]])
    inverse_ = np.cumsum(starts) - 1
    counts_ = np.diff(np.append(np.flatnonzero(starts), flat.size))
    return torch.from_numpy(flat[starts]), torch.from_numpy(inverse_.reshape(x.shape)), torch.from_numpy(counts_)


def unique_dim_samples(dtype, rng):
    rows = unique_values(dtype, rng, 3, 2)
    x = rows[rng.integers(0, 3, size=7)]
    return [Sample((x, True, True, 0), (), "rows"), Sample((np.ascontiguousarray(x.T), True, True, 1), (), "columns"),
            Sample((unique_values(dtype, rng, 2, 3, 4), True, True, -1), (), "last dim")]


def unique_dim_alloc(sample):
    x, _, _, dim = sample.operands
    return [(x.shape, str(x.dtype)), ((x.shape[dim],), "int64"), ((x.shape[dim],), "int64")]


def unique_dim_ref(x, sorted_, inverse, dim):
    return torch.unique(x, sorted=True, return_inverse=True, return_counts=True, dim=dim)


ENTRIES += [
    dynamic_entry("aclnnNonzero", lambda x: torch.nonzero(x), NONZERO_DT, nonzero_samples, nonzero_alloc(False)),
    dynamic_entry("aclnnNonzeroV2", lambda x: torch.nonzero(x).T, NONZERO_DT, nonzero_samples, nonzero_alloc(True)),
    dynamic_entry("aclnnMaskedSelect", lambda x, m: torch.masked_select(x, m.bool()),
                  ("float32", "int32", "int64", "float16", "int16", "int8", "uint8", "float64", "bool", "bfloat16"),
                  masked_select_samples, masked_select_alloc),
    dynamic_entry("aclnnUnique", unique_ref, UNIQUE_DT, lambda d, r: unique_samples(d, r, (True, True)),
                  unique_alloc(False)),
    dynamic_entry("aclnnUnique2", unique_ref, UNIQUE_DT, lambda d, r: unique_samples(d, r, (True, True, True)),
                  unique_alloc(True)),
    dynamic_entry("aclnnUniqueConsecutive", unique_consecutive_ref, UNIQUE_DT + C, unique_consecutive_samples,
                  unique_alloc(True)),
    dynamic_entry("aclnnUniqueDim", unique_dim_ref, UNIQUE_DT, unique_dim_samples, unique_dim_alloc),
]


# ---- advanced indexing, masked scatter, repeat_interleave ----------------------------------------------------------

EMPTY = np.zeros((0,), np.int64)  # an empty entry of an index list: the whole dimension


def index_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    mask = rng.integers(0, 2, size=(4, 5)).astype(bool)
    return [Sample((a(4, 5), [idx(rng, 4, (3,)), idx(rng, 5, (3,), "int32")]), (), "two int indices"),
            Sample((a(4, 5, 6), [EMPTY, idx(rng, 5, (2, 2))]), (), "second dim, 2-D index"),
            Sample((a(4, 5, 6), [idx(rng, 4, (3,)), EMPTY, idx(rng, 6, (3,))]), (), "non-adjacent, strided out"),
            Sample((transposed(a(4, 5)), [mask]), (), "bool mask"),
            Sample((a(4, 5), [idx(rng, 4, (2,)) - 4]), (), "negative"),
            Sample((a(300, 200), [idx(rng, 300, (250,))]), (), "long")]


def index_ref(x, indices):
    key = tuple(slice(None) if t.numel() == 0 else (t if t.dtype == torch.bool else t.long()) for t in indices)
    return x[key]


def index_put_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    acc = dtype != "bool"
    mask = rng.integers(0, 2, size=(4, 5)).astype(bool)
    return [Sample((a(4, 5), [idx(rng, 4, (3,), unique=True), idx(rng, 5, (3,), unique=True)], a(3), False, False), (),
                   "two indices"),
            Sample((a(4, 5), [idx(rng, 4, (6,))], a(6, 5), acc, False), (), "accumulate repeats, strided out"),
            Sample((a(4, 5, 6), [idx(rng, 4, (2,), unique=True), EMPTY, idx(rng, 6, (2,), unique=True)], a(1), False,
                    False), (), "non-adjacent, broadcast value"),
            Sample((a(4, 5), [mask], a(1), False, False), (), "bool mask"),
            Sample((a(300, 200), [idx(rng, 300, (250,), unique=not acc)], a(250, 200), acc, False), (), "long")]


def index_put_ref(x, indices, values, accumulate, unsafe):
    key = tuple(slice(None) if t.numel() == 0 else (t if t.dtype == torch.bool else t.long()) for t in indices)
    out = x.clone()
    if accumulate:
        return out.index_put_(key, values, accumulate=True)
    out[key] = values
    return out


def masked_scatter_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    m = lambda *s: rng.integers(0, 2, size=s).astype(bool)  # noqa: E731
    return [Sample((a(3, 4), m(3, 4), a(12)), (), "same shape"), Sample((a(3, 4), m(4), a(3, 4)), (), "broadcast mask, strided out"),
            Sample((a(LONG), m(LONG).astype(np.uint8), a(LONG)), (), "long, uint8 mask")]


def repeat_samples(dtype, rng, kind):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    rep = lambda n: rng.integers(0, 4, size=n).astype(np.int64)  # noqa: E731
    if kind == "tensor":
        r1, r2 = rep(6), rep(3)
        return [Sample((a(2, 3), r1, int(r1.sum())), (), "flat"), Sample((a(3), r2.astype(np.int32), int(r2.sum())), (), "int32"),
                Sample((a(200, 100), np.array([2]), 40000), (), "long one count")]
    if kind == "dim":
        r = rep(4)
        return [Sample((a(4, 3), r, 0, int(r.sum())), (), "dim 0"), Sample((a(2, 3), np.array([2]), -1, 6), (), "one count"),
                Sample((a(100, 300), rep(100), 0, None), (), "long")]
    if kind == "int":
        return [Sample((a(2, 3), 2, 12), (), "flat"), Sample((a(5), 1, 5), (), "one"), Sample((a(200, 100), 2, 40000), (), "long")]
    if kind == "int_dim":
        return [Sample((a(2, 3), 2, 1, 6), (), "dim 1"), Sample((a(4, 3), 3, 0, 12), (), "dim 0"),
                Sample((a(200, 100), 2, 0, 400), (), "long")]
    r = rep(5)
    return [Sample((r, int(r.sum())), (), "positions"), Sample((r.astype(np.int32), int(r.sum())), (), "int32")]


def fix_output_size(samples):
    """Fill a None outputSize with the sum of the repeats (a sample's 4th operand)."""
    out = []
    for s in samples:
        ops = list(s.operands)
        if ops[-1] is None:
            ops[-1] = int(np.asarray(ops[1]).sum())
        out.append(Sample(tuple(ops), s.attrs, s.name))
    return out


RI_DT = ("uint8", "int8", "int16", "int32", "int64", "bool", "float32", "float16", "bfloat16")

ENTRIES += [
    entry("aclnnIndex", index_ref, ("float32", "float16", "bfloat16", "int64", "int32", "bool", "int8", "uint8",
                                     "float64", "int16"), index_samples),
    entry("aclnnIndexPutImpl", index_put_ref, ("float32", "int32", "int64", "float16", "int16", "int8", "uint8",
                                               "float64", "bool", "bfloat16"), index_put_samples, inplace=True,
          accumulate16=True),
    entry("aclnnInplaceMaskedScatter", lambda x, m, s: x.masked_scatter(m.bool(), s),
          ("float32", "int32", "int64", "float16", "int16", "int8", "uint8", "float64", "bool", "bfloat16"),
          masked_scatter_samples, inplace=True),
    entry("aclnnRepeatInterleave", lambda x, r, n: torch.repeat_interleave(x.reshape(-1), r.long(), output_size=n),
          RI_DT, lambda d, r: repeat_samples(d, r, "tensor")),
    entry("aclnnRepeatInterleaveWithDim", lambda x, r, dim, n: torch.repeat_interleave(x, r.long(), dim, output_size=n),
          RI_DT, lambda d, r: fix_output_size(repeat_samples(d, r, "dim"))),
    entry("aclnnRepeatInterleaveInt", lambda x, r, n: torch.repeat_interleave(x.reshape(-1), r), RI_DT,
          lambda d, r: repeat_samples(d, r, "int")),
    entry("aclnnRepeatInterleaveIntWithDim", lambda x, r, dim, n: torch.repeat_interleave(x, r, dim), RI_DT,
          lambda d, r: repeat_samples(d, r, "int_dim")),
    entry("aclnnRepeatInterleaveTensor", lambda r, n: torch.repeat_interleave(r), ("int32", "int64"),
          lambda d, r: repeat_samples(d, r, "positions")),
]


# ---- max unpooling (index/scatter_elements, index/gather_elements) ------------------------------------------------

UNPOOL_DT = ("float32", "float16", "int8", "uint8", "int16", "int32", "int64", "float64")
UNPOOL2D_GRAD_DT = ("float32", "float16", "int8", "uint8", "int16", "int32", "int64", "bool")


def plane_idx(rng, rows, k, plane, dtype="int64"):
    """Per row, k distinct positions in a plane of `plane` elements (max pooling's indices are distinct)."""
    return np.stack([rng.permutation(plane)[:k] for _ in range(rows)]).astype(dtype)


def unpool_samples(three):
    def samples(dtype, rng):
        a = lambda *s: arr(rng, s, dtype)  # noqa: E731
        out = []
        spatial_in, spatial_out = ((2, 2, 3), (3, 4, 4)) if three else ((2, 3), (4, 5))
        for lead, name in (((2, 3), "batched"), ((3,), "unbatched" if three else "unbatched, strided out"),
                           ((4, 16), "long")):
            if name == "long":
                spatial_in, spatial_out = ((2, 8, 8), (4, 16, 16)) if three else ((16, 16), (32, 32))
            rows = int(np.prod(lead))
            k, plane = int(np.prod(spatial_in)), int(np.prod(spatial_out))
            i = plane_idx(rng, rows, k, plane, "int64" if three else ("int32" if name == "batched" else "int64"))
            extra = ([1, 1, 1], [0, 0, 0]) if three else ()
            out.append(Sample((a(*lead, *spatial_in), i.reshape(*lead, *spatial_in), list(spatial_out), *extra), (), name))
        return out
    return samples


def unpool_ref(x, idx, osize, *_):
    k = len(osize)
    lead = x.shape[:-k]
    rows = int(np.prod(lead)) if lead else 1
    out = torch.zeros(rows, int(np.prod(osize)), dtype=x.dtype)
    out.scatter_(1, idx.reshape(rows, -1).long(), x.reshape(rows, -1))
    return out.reshape(*lead, *osize)


def unpool_grad_samples(three, dts=None):
    def samples(dtype, rng):
        outs = []
        for s in unpool_samples(three)(dtype, rng):
            x, i, osize, *extra = s.operands
            grad = arr(rng, x.shape[:x.ndim - len(osize)] + tuple(osize), dtype)
            outs.append(Sample((grad, x, i, osize, *extra), (), s.name))
        return outs
    return samples


def unpool_grad_ref(grad, self, idx, osize, *_):
    k = len(osize)
    rows = int(np.prod(self.shape[:-k])) if self.dim() > k else 1
    return grad.reshape(rows, -1).gather(1, idx.reshape(rows, -1).long()).reshape(self.shape)


# ---- slab updates: InplaceScatterUpdate, InplaceQuantScatter --------------------------------------------------------

SCATTER_UPDATE_DT = ("int8", "float16", "float32", "bfloat16", "int32")


def scatter_update_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(4, 2, 10, 8), np.array([0, 3, 7, 5]), a(4, 2, 3, 8), -2), (), "1-D indices, axis -2"),
            Sample((a(3, 2, 6), np.array([1, 4, 0], np.int32), a(3, 2, 2), -1), (), "axis -1, int32"),
            Sample((a(4, 5, 3), np.array([[2, 1], [0, 3]]), a(2, 2, 3), 1), (), "2-D indices (batch, offset)"),
            Sample((a(2, 6, 4), np.array(2), a(1, 1, 4), 1), (), "0-D indices"),
            Sample((a(4, 4, 64, 64), np.arange(4) * 7, a(4, 4, 8, 64), 2), (), "long")]


def scatter_update_ref(data, indices, updates, axis):
    out = data.clone()
    ax = axis % data.dim()
    idx = indices.reshape(-1, 2) if indices.dim() == 2 else indices.reshape(-1)
    for b in range(updates.shape[0]):
        t, off = (int(idx[b][0]), int(idx[b][1])) if indices.dim() == 2 else (b if indices.dim() == 1 else 0, int(idx[b]))
        key = [t] + [slice(None)] * (data.dim() - 1)
        key[ax] = slice(off, off + updates.shape[ax])
        out[tuple(key)] = updates[b]
    return out


def quant_scatter_samples(dtype, rng):
    """dtype: the updates' (FLOAT16 with float32 scales and int32 zero points, BFLOAT16 with bfloat16 ones)."""
    upd = lambda *s: arr(rng, s, dtype, -40.0, 40.0)  # noqa: E731
    sdt, zdt = ("float32", "int32") if dtype == "float16" else ("bfloat16", "bfloat16")
    q = 32
    def scales(n=q):
        return rng.uniform(0.25, 2.0, size=(1, 1, n)).astype(np.float32).astype(np_dtype(sdt))

    def zeros(n=q):
        return rng.integers(-3, 4, size=(1, 1, n)).astype(np.float32).astype(np_dtype(zdt))

    self_ = lambda *s: rng.integers(-100, 100, size=s).astype(np.int8)  # noqa: E731
    return [Sample((self_(4, 16, q), np.array([0, 5, 2, 9]), upd(4, 1, q), scales(), zeros(), -2, -1, 1), (), "with zero points"),
            Sample((self_(3, 8, q), np.array([7, 0, 3], np.int32), upd(3, 1, q), scales(), None, -2, -1, 1), (), "no zero points"),
            Sample((self_(2, 10, q), np.array([1, 4]), upd(2, 5, q), scales(), zeros(), -2, -1, 1), (), "5 rows per batch"),
            Sample((self_(8, 64, 128), np.arange(8) * 5, arr(rng, (8, 1, 128), dtype, -40.0, 40.0),
                    scales(128), zeros(128), -2, -1, 1), (), "long")]


def quant_scatter_ref(self_, indices, updates, scales, zeros, axis, quant_axis, reduction):
    y = updates.float() / scales.float().reshape(-1)
    if zeros is not None:
        y = y + zeros.float().reshape(-1)
    y = torch.round(y).clamp(-128, 127).to(torch.int8)
    return scatter_update_ref(self_, indices, y, axis)


ENTRIES += [
    entry("aclnnMaxUnpool2d", unpool_ref, UNPOOL_DT, unpool_samples(False)),
    entry("aclnnMaxUnpool3d", unpool_ref, UNPOOL_DT, unpool_samples(True), outputs=("outRef",)),
    entry("aclnnMaxUnpool2dBackward", unpool_grad_ref, UNPOOL2D_GRAD_DT, unpool_grad_samples(False), outputs=("out",)),
    entry("aclnnMaxUnpool3dBackward", unpool_grad_ref, UNPOOL_DT, unpool_grad_samples(True), outputs=("out",)),
    entry("aclnnInplaceScatterUpdate", scatter_update_ref, SCATTER_UPDATE_DT, scatter_update_samples, inplace="data"),
    entry("aclnnInplaceQuantScatter", quant_scatter_ref, ("float16", "bfloat16"), quant_scatter_samples,
          inplace="selfRef", also=("aclnnInplaceQuantScatterV2",)),
]


# ---- embedding gradients and bags, scatter list, jagged permute ---------------------------------------------------

EMB_GRAD_INDEX_DT = ("float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool")


def emb_grad_samples(dtype, rng):
    g = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((g(2, 3, 4), idx(rng, 5, (2, 3)), 5, 100, False), (), "2-D indices"),
            Sample((g(6, 3), idx(rng, 4, (6,), "int32"), 4, 1, False), (), "padding row, strided out"),
            Sample((g(7, 2), idx(rng, 3, (7,)), 3, 100, True), (), "scale by frequency"),
            Sample((g(5, 4), idx(rng, 6, (5,)).astype(np.float32) + 0.5, 6, 100, False), (), "float indices truncated"),
            Sample((g(0, 4), idx(rng, 3, (0,)), 3, 100, False), (), "empty"),
            Sample((g(4000, 64), idx(rng, 500, (4000,)), 500, 7, False), (), "long")]


def emb_grad_ref(grad, indices, num, pad, scale):
    i = indices.long() if indices.dtype != torch.bool else indices.long()
    return torch.ops.aten.embedding_dense_backward(grad, i, num, pad if pad < num else -1, scale)


def bag_samples(dtype, rng):
    w = lambda *s: arr(rng, s, dtype)  # noqa: E731
    out = []
    for mode in (0, 1, 2):
        out += [Sample((w(6, 3), np.array([0, 2, 4, 5, 1, 3, 4]), np.array([0, 2, 2, 5]), False, mode, False, None,
                        False, 4), (), f"mode {mode}, empty bag, padding"),
                Sample((w(8, 5), idx(rng, 8, (9,), "int32"), np.array([0, 3, 7, 9], np.int32), False, mode, False,
                        None, True, -1), (), f"mode {mode}, include last offset")]
    out.append(Sample((w(5, 2), idx(rng, 5, (6,)), np.array([0, 1, 4]), False, 0, False, w(6), False, -1), (),
                      "per-sample weights"))
    out.append(Sample((w(1000, 64), idx(rng, 1000, (5000,)), np.arange(0, 5000, 50), False, 1, False, None, False, -1),
                      (), "long"))
    return out


def bag_ref(weight, indices, offsets, scale, mode, sparse, psw, last, pad):
    return torch._embedding_bag(weight, indices.long(), offsets.long(), scale, mode, sparse, psw, last, pad)


def jagged_samples(dtype, rng):
    out = []
    for lens, name in (([3, 2, 3], "the official sample's"), ([0, 4, 1, 2, 5], "an empty table"),
                       (list(rng.integers(0, 50, size=200)), "long")):
        L = len(lens)
        perm = rng.permutation(L).astype(np.int32)
        in_off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        out_off = np.concatenate([[0], np.cumsum([lens[p] for p in perm])]).astype(np.int32)
        out.append(Sample((perm, in_off, out_off, int(out_off[-1])), (), name))
    return out


def jagged_ref(perm, in_off, out_off, size):
    res = torch.zeros(size, dtype=torch.int32)
    for i in range(perm.numel()):
        n = int(out_off[i + 1] - out_off[i])
        start = int(in_off[int(perm[i])])
        res[int(out_off[i]):int(out_off[i]) + n] = torch.arange(start, start + n, dtype=torch.int32)
    return res


SCATTER_LIST_DT = ("int8", "int16", "int32", "uint8", "float16", "bfloat16", "float32")


def scatter_list_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample(([a(2, 8, 4), a(2, 6, 4)], np.array([1, 3]), a(2, 2, 3, 4), None, "update", -2), (), "offsets"),
            Sample(([a(3, 10)], np.array([[2, 3]]), a(1, 3, 4), None, None, -1), (), "(offset, length) pairs"),
            Sample(([a(4, 5, 2), a(4, 5, 2), a(4, 5, 2)], np.array([0, 1, 2], np.int32), a(3, 4, 2, 2),
                    np.array([1, 0, 1], np.uint8), "update", 2), (), "mask"),
            Sample(([a(16, 256, 64) for _ in range(4)], np.array([0, 100, 200, 37]), a(4, 16, 32, 64), None,
                    "update", -2), (), "long")]


def scatter_list_ref(vars_, indice, updates, mask, reduce, axis):
    outs = [v.clone() for v in vars_]
    ax = axis % updates.dim()
    for b, v in enumerate(outs):
        if mask is not None and int(mask[b]) == 0:
            continue
        off, n = (int(indice[b][0]), int(indice[b][1])) if indice.dim() == 2 else (int(indice[b]), updates.shape[ax])
        key = [slice(None)] * v.dim()
        key[ax - 1] = slice(off, off + n)
        src = [slice(None)] * (updates.dim() - 1)
        src[ax - 1] = slice(0, n)
        v[tuple(key)] = updates[b][tuple(src)]
    return outs


def scatter_list_call(sample, expected):
    """varRef is read and written: the sample's tensors copied, passed as the output list."""
    targets = [np.array(v, copy=True) for v in sample.operands[0]]
    aclnn_py.run("aclnnScatterList", targets, *sample.operands[1:], outputs=("varRef",))
    return targets


import aclnn_py  # noqa: E402

ENTRIES += [
    entry("aclnnEmbeddingDenseBackward", emb_grad_ref, ("float32", "float16", "bfloat16"), emb_grad_samples,
          outputs=("out",), accumulate16=True, tol=SUM_TOL),
    entry("aclnnEmbeddingBag", bag_ref, ("float32", "float16", "bfloat16"), bag_samples,
          outputs=("output", "offset2bag", "bagSize", "maxIndices"), accumulate16=True, tol=SUM_TOL),
    entry("aclnnExpandIntoJaggedPermute", jagged_ref, ("int32",), jagged_samples, outputs=("outputPermuteOut",)),
]
_sl = entry("aclnnScatterList", scatter_list_ref, SCATTER_LIST_DT, scatter_list_samples)
_sl.call = scatter_list_call
ENTRIES.append(_sl)


# ---- RepeatInterleaveGrad: yGrad's slices along axis summed in groups of repeats[k] (float32 accumulation) ---------

def rig_samples(dtype, rng):
    res = []
    for shape, reps, axis, out_shape, rdt in (
            ((4, 3), [2, 2], 0, (2, 3), "int64"),
            ((2, 6), [1, 2, 2, 1], 1, (2, 4), "int64"),
            ((2, 6), [2], 1, (2, 3), "int32"),
            ((2, 6), 3, -1, (4,), "int64"),              # 0-d repeats, an out of another shape of the same size
            ((5, 4, 3), [0, 3, 1, 1], 0, (4, 4, 3), "int32"),  # a zero count: a group of zeros
            ((3, 40000), [4], 1, (3, 10000), "int64"),   # long rows: the engine's threads
            ((7,), [7], 0, (1,), "int64")):
        y = arr(rng, shape, dtype)
        r = np.array(reps, np.int64).astype(np_dtype(rdt))
        res.append(Sample((y, r), (axis, out_shape), f"{shape} repeats {reps} axis {axis}"))
    y = transposed(arr(rng, (6, 5), dtype))
    res.append(Sample((y, np.array([3, 3], np.int64)), (0, (2, 5)), "transposed yGrad"))
    return res


def rig_ref(y, r, axis, out_shape):
    y = y.float() if y.dtype in (torch.float16, torch.bfloat16) else y
    ax = axis % y.dim()
    n = y.shape[ax]
    reps = r.reshape(-1).long()
    if reps.numel() == 1:
        reps = reps.repeat(n // int(reps[0]))
    groups = torch.repeat_interleave(torch.arange(reps.numel()), reps)
    shape = list(y.shape)
    shape[ax] = reps.numel()
    out = torch.zeros(shape, dtype=torch.float64).index_add_(ax, groups, y.double())
    return out.float().reshape(out_shape)


def rig_call(sample, expected):
    y, r = sample.operands
    axis, out_shape = sample.attrs
    out = np.zeros(out_shape, y.dtype)
    aclnn_py.run("aclnnRepeatInterleaveGrad", y, r, axis, out, outputs=("out",))
    return out


# ---- ApplyTopKTopP: top-k, then top-p over the sorted row (the docs' formulas, in float64) --------------------------

def topp_samples(dtype, rng):
    res = []
    for b, v, with_p, with_k in ((3, 4, True, True), (4, 50, True, False), (4, 50, False, True), (5, 300, True, True),
                                 (2, 1, True, True), (3, 6, False, False), (0, 5, True, True)):
        logits = rng.permutation(b * v).reshape(b, v).astype(np.float64) / max(v / 4, 1) - 2
        logits = logits.astype(np_dtype(dtype))
        p = rng.uniform(0.1, 0.9, size=(b,)).astype(np_dtype(dtype)) if with_p else None
        k = rng.integers(-1, v + 2, size=(b,)).astype(np.int32) if with_k else None
        res.append(Sample((logits, p, k), (), f"{b} x {v} p {with_p} k {with_k}"))
    return res


def topp_ref(logits, p, k):
    x = logits.double()
    out = x.clone()
    V = x.shape[1] if x.dim() == 2 else 0
    for b in range(x.shape[0]):
        s, order = torch.sort(x[b], stable=True)
        if k is not None and 0 < int(k[b]) < V:
            s = torch.where(s < s[V - int(k[b])], torch.tensor(-torch.inf, dtype=s.dtype), s)
        if p is not None and V > 1:
            cum = torch.cumsum(torch.softmax(s.float(), 0).double(), 0)
            mask = cum <= 1 - float(p[b].float())
            mask[-1] = False
            s = torch.where(mask, torch.tensor(-torch.inf, dtype=s.dtype), s)
        out[b, order] = s
    return out.to(logits.dtype)


def topp_call(sample, expected):
    logits, p, k = sample.operands
    out = np.zeros(logits.shape, logits.dtype)
    aclnn_py.run("aclnnApplyTopKTopP", logits, p, k, out)
    return out


# ---- Inverse: torch.linalg.inv_ex in float64 / complex128 (a singular matrix: NaN) ---------------------------------

INVERSE_DT = ("float32", "float64", "complex64", "complex128", "float16")


def inverse_samples(dtype, rng):
    res = []
    for shape in ((4, 4), (3, 5, 5), (2, 1, 3, 3), (1, 1), (0, 3, 3), (40, 8, 8)):
        a = rng.uniform(-1, 1, size=shape)
        if dtype.startswith("complex"):
            a = a + 1j * rng.uniform(-1, 1, size=shape)
        if shape[-1]:
            a = a + np.eye(shape[-1]) * shape[-1]  # well conditioned
        res.append(Sample((a.astype(np_dtype(dtype)),), (), f"{shape}"))
    res.append(Sample((transposed(res[0].operands[0]),), (), "transposed"))
    sing = np.zeros((2, 3, 3), np_dtype(dtype))
    sing[0] = np.eye(3)
    res.append(Sample((sing,), (), "a singular matrix"))
    return res


def inverse_ref(a):
    wide = a.to(torch.complex128 if a.is_complex() else torch.float64)
    inv, info = torch.linalg.inv_ex(wide)
    inv[info != 0] = float("nan")
    return inv.to(a.dtype)


def inverse_call(sample, expected):
    (a,) = sample.operands
    out = np.zeros(a.shape, a.dtype)
    aclnn_py.run("aclnnInverse", a, out=out)
    return out


ENTRIES += [
    entry("aclnnRepeatInterleaveGrad", rig_ref, ("float32", "float16", "bfloat16"), rig_samples, accumulate16=True,
          tol=SUM_TOL),
    entry("aclnnApplyTopKTopP", topp_ref, ("float32", "float16", "bfloat16"), topp_samples),
    entry("aclnnInverse", inverse_ref, INVERSE_DT, inverse_samples,
          tol={"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12), "complex64": (1e-5, 1e-5),
               "complex128": (1e-12, 1e-12), "float16": (2e-3, 2e-3)}),
]
ENTRIES[-3].call = rig_call
ENTRIES[-2].call = topp_call
ENTRIES[-1].call = inverse_call


# ---- TopKTopPSample: top-k, top-p over the descending probabilities, then the q-weighted argmax (the kernel's rules, in
# float64 here; values distinct so that no tie decides) ----------------------------------------------------------------

def tkps_samples(dtype, rng):
    res = []
    for b, v, ks, ps, with_q, need in (
            (4, 50, [5, 50, 1, 2000], [0.5, 0.9, 0.3, 1.0], True, True),    # top-k + top-p; top-k alone (p >= 1)
            (3, 40, [3000, 3000, -1], [0.6, 0.0, 2.0], True, True),        # top-p alone; neither; neither
            (3, 40, [7, 3000, 40], [0.8, 0.7, 0.95], False, True),         # no q: the most probable kept value
            (2, 3000, [1024, 3000], [0.9, 0.9], True, False)):             # long rows, logits left alone
        logits = (rng.permutation(b * v).reshape(b, v) / (b * v) * 8 - 4).astype(np_dtype(dtype))
        k = np.array(ks, np.int32)
        p = np.array(ps, np.float32).astype(np_dtype(dtype))
        q = rng.uniform(0.05, 1.0, size=(b, v)).astype(np.float32) if with_q else None
        res.append(Sample((logits, k, p, q), (1e-8, need, 32), f"{b} x {v} k {ks} p {ps} q {with_q}"))
    return res


def tkps_ref(logits, k, p, q, eps, need, guess):
    x = logits.double()
    B, V = x.shape
    idx = torch.zeros(B, dtype=torch.int64)
    sel = torch.full((B, V), -torch.inf, dtype=torch.float64)
    for b in range(B):
        kb, pb = int(k[b]), float(p[b].float())
        use_k = 0 < kb <= min(V, 1024)
        use_p = 0 < pb < 1
        if not use_k and not use_p:
            pr = torch.softmax(x[b], 0)
            if q is not None:
                pr = pr / (q[b].double().abs() + eps)
            idx[b] = int(torch.argmax(pr))
            continue
        n = kb if use_k else V
        s, order = torch.sort(x[b], descending=True, stable=True)
        s, order = s[:n], order[:n]
        kept = n
        if use_p:
            cum = torch.cumsum(torch.softmax(s, 0), 0)
            over = torch.nonzero(cum > pb)
            kept = int(over[0]) + 1 if len(over) else n
        pr = torch.softmax(s[:kept], 0)
        if q is not None:
            pr = pr / (q[b, :kept].double().abs() + eps)
        idx[b] = int(order[int(torch.argmax(pr))])
        sel[b, order[:kept]] = s[:kept]
    return (idx, sel.float()) if need else (idx,)


def tkps_call(sample, expected):
    logits, k, p, q = sample.operands
    eps, need, guess = sample.attrs
    idx = np.zeros(logits.shape[:1], np.int64)
    sel = np.full(logits.shape, 7.0, np.float32)
    aclnn_py.run("aclnnTopKTopPSample", logits, k, p, q, eps, need, guess, idx, sel,
                 outputs=("logitsSelectIdx", "logitsTopKPSelect"))
    if not need:
        assert (sel == 7.0).all(), "logitsTopKPSelect is left alone without isNeedLogits"
        return (idx,)
    return idx, sel


ENTRIES.append(entry("aclnnTopKTopPSample", tkps_ref, ("float16", "bfloat16"), tkps_samples))
ENTRIES[-1].call = tkps_call
