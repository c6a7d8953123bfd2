"""ops-math data movement (conversion/ and the tile, expand and zero operators of math/): copy, cat, stack, split,
slice, permute, roll, flatten, expand, repeat, zero and fill.

Every entry runs through `call_like_ref`: the oracle's result decides the outputs' shapes and dtypes, the outputs
are allocated (strided ones for samples named "...strided out"), and the operator's results are compared with the
oracle's. Data movement is exact, so 16-bit inputs go to the oracle as they are (native16)."""

from __future__ import annotations

import numpy as np
import torch

from . import Sample, OpInfo, np_dtype, random_array

F = ("float32", "float16", "bfloat16", "float64")
I = ("int8", "int16", "int32", "int64", "uint8")
U = ("uint16", "uint32", "uint64")
C = ("complex64", "complex128")

COPY_DT = F + I + U + ("bool",) + C
CAT_DT = F + I + ("bool", "complex64")
STACK_DT = F + I + U + ("bool",) + C
SPLIT_DT = F + I + ("bool",) + C
SLICE_DT = ("float32", "float16", "bfloat16", "int64", "int8", "int32", "uint8", "bool")
PERMUTE_DT = F + I + U + ("bool",) + C
ROLL_DT = ("float32", "float16", "bfloat16", "int8", "uint8", "int32", "uint32", "bool", "int64", "int16")
FLATTEN_DT = ("float32", "float16", "bfloat16") + I + U + ("bool",)
EXPAND_DT = ("float32", "float16", "bfloat16", "uint8", "int8", "int32", "int64", "bool")
REPEAT_DT = F + I + U + ("bool",) + C
FILL_SCALAR_DT = F + I + U + ("bool",) + C
FILL_TENSOR_DT = F + I + ("bool",) + C
TRI_DT = F + I + U + ("bool",)
MASKED_FILL_DT = ("float32", "int32", "int64", "float16", "int8", "bool", "bfloat16")
WHERE_DT = F + I + U + ("bool",) + C
DIAG_DT = F + I + ("bool", "complex64")
FILL_DIAG_DT = F + I + ("bool",)

LONG = 40000  # elements: over the iterator's threading threshold


# ---- numpy <-> torch for lists and nested results ------------------------------------------------------------

def tt(a):
    """A numpy array (bfloat16 included) as a torch tensor; lists element-wise; anything else as it is."""
    if isinstance(a, (list, tuple)):
        return type(a)(tt(x) for x in a)
    if not isinstance(a, np.ndarray):
        return a
    a = np.array(a, order="C")
    if a.dtype == np_dtype("bfloat16"):
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


TORCH_TO_NAME = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
                 torch.float64: "float64", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32",
                 torch.int64: "int64", torch.uint8: "uint8", torch.bool: "bool", torch.complex64: "complex64",
                 torch.complex128: "complex128", torch.uint16: "uint16", torch.uint32: "uint32",
                 torch.uint64: "uint64"}


def empty_out(shape, dtype_name: str, strided: bool) -> np.ndarray:
    """Zeros of the shape; a non-contiguous view (every other element of the last dimension) when strided."""
    dt = np_dtype(dtype_name)
    if not strided or len(shape) == 0:
        return np.zeros(shape, dt)
    base = np.zeros(tuple(shape[:-1]) + (2 * shape[-1],), dt)
    return base[..., ::2]


def call_like_ref(name: str, ref, inplace: bool = False, outputs=None):
    """A call hook: the outputs shaped like the oracle's results (a list for a sequence), then the operator run.
    inplace: the first operand is the in-place target (True: parameter selfRef, or the parameter's name), copied
    first (strided when the sample says so)."""

    def call(sample: Sample, exp):
        strided = "strided out" in sample.name
        if inplace:
            first = sample.operands[0]
            target = empty_out(first.shape, str(first.dtype) if first.dtype != np_dtype("bfloat16") else "bfloat16",
                               strided)
            target[...] = first
            target_name = inplace if isinstance(inplace, str) else "selfRef"
            aclnn_py.run(name, *sample.operands[1:], *sample.attrs, out=target, outputs=(target_name,))
            return target
        many = isinstance(exp, (list, tuple))
        outs = [empty_out(tuple(e.shape), TORCH_TO_NAME[e.dtype], strided) for e in (exp if many else [exp])]
        aclnn_py.run(name, *sample.operands, *sample.attrs, out=outs if many else outs[0], outputs=outputs)
        return outs if many else outs[0]

    return call


import aclnn_py  # noqa: E402  (after the helpers: the module is imported by the test session only)


def arr(rng, shape, dtype, lo=-4.0, hi=4.0):
    return random_array(rng, shape, dtype, (lo, hi), (-8, 8))


def transposed(a: np.ndarray) -> np.ndarray:
    """The same values in a non-contiguous (column-major) layout."""
    return np.asfortranarray(a) if a.ndim >= 2 else a


UNSIGNED = (torch.uint16, torch.uint32, torch.uint64)


def via_int64(ref, values=None):
    """torch implements few operators for uint16/32/64: those operands run as int64 (the samples' values are small)
    and int64 results (those at positions `values` of a sequence, when given) come back in the unsigned dtype."""

    def run(*args):
        found = []

        def widen(a):
            if isinstance(a, (list, tuple)):
                return type(a)(widen(x) for x in a)
            if isinstance(a, torch.Tensor) and a.dtype in UNSIGNED:
                found.append(a.dtype)
                return a.to(torch.int64)
            return a

        res = ref(*widen(list(args)))
        if not found:
            return res
        back = lambda r: r.to(found[0]) if isinstance(r, torch.Tensor) and r.dtype == torch.int64 else r  # noqa: E731
        if isinstance(res, (list, tuple)):
            return type(res)(back(r) if values is None or k in values else r for k, r in enumerate(res))
        return back(res)

    return run


LOW = (torch.float16, torch.bfloat16)


def in_float32(ref):
    """16-bit floating operands computed in float32 and the results rounded once (sums that accumulate in float32)."""

    def run(*args):
        low = [a.dtype for a in args if isinstance(a, torch.Tensor) and a.dtype in LOW]
        if not low:
            return ref(*args)
        res = ref(*[a.float() if isinstance(a, torch.Tensor) and a.dtype in LOW else a for a in args])
        back = lambda r: r.to(low[0]) if isinstance(r, torch.Tensor) and r.dtype == torch.float32 else r  # noqa: E731
        return type(res)(back(r) for r in res) if isinstance(res, (list, tuple)) else back(res)

    return run


def entry(name, ref, dtypes, samples, inplace=False, outputs=None, accumulate16=False, **kw):
    """accumulate16: the operator sums 16-bit floats in float32 (the oracle too)."""
    wide = via_int64(in_float32(ref) if accumulate16 else ref)

    def oracle(*args):
        return wide(*tt(list(args)))

    return OpInfo(name, oracle, dtypes, kind="custom", samples=samples, call=call_like_ref(name, oracle, inplace, outputs),
                  native16=True, **kw)


# ---- samples ----------------------------------------------------------------------------------------------------

def copy_samples(dtype, rng):
    out = [Sample((np.zeros((3, 4), np_dtype(dtype)), arr(rng, (3, 4), dtype)), (), "same shape"),
           Sample((np.zeros((5, 6), np_dtype(dtype)), arr(rng, (6,), dtype)), (), "broadcast, strided out"),
           Sample((np.zeros((4, 5), np_dtype(dtype)), transposed(arr(rng, (4, 5), dtype))), (), "transposed src"),
           Sample((np.zeros((LONG,), np_dtype(dtype)), arr(rng, (LONG,), dtype)), (), "long"),
           Sample((np.zeros((0, 3), np_dtype(dtype)), arr(rng, (0, 3), dtype)), (), "empty")]
    other = "int32" if dtype != "int32" else "float32"
    src = rng.integers(0, 8, size=(2, 7)).astype(np_dtype(other))
    out.append(Sample((np.zeros((2, 7), np_dtype(dtype)), src), (), f"from {other}"))
    return out


def copy_ref(self, src):
    return src.expand(self.shape).to(self.dtype)


def cat_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    partner = "bool" if dtype != "bool" else "uint8"
    return [Sample(([a(2, 3), a(4, 3)],), (0,), "dim 0"),
            Sample(([a(2, 3), a(2, 1), a(2, 5)],), (-1,), "dim -1, strided out"),
            Sample(([transposed(a(3, 4)), a(3, 2)],), (1,), "transposed input"),
            Sample(([a(2, 3), np.zeros((0,), np_dtype(dtype)), a(1, 3)],), (0,), "1-D empty skipped"),
            Sample(([a(0, 3), a(2, 3)],), (0,), "empty piece"),
            Sample(([a(3, 2), arr(rng, (3, 3), partner)],), (1,), f"with {partner}"),
            Sample(([a(200, 100), a(200, 150)],), (1,), "long")]


def stack_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample(([a(2, 3), a(2, 3), a(2, 3)],), (0,), "dim 0"),
            Sample(([a(2, 3), transposed(a(2, 3))],), (-1,), "dim -1, transposed"),
            Sample(([a(4), a(4)],), (1,), "dim 1, strided out"),
            Sample(([a(0, 2), a(0, 2)],), (0,), "empty"),
            Sample(([a(100, 250), a(100, 250)],), (2,), "long")]


def split_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(7, 3),), (3, 0), "sections 3 of 7"), Sample((a(4, 6),), (2, -1), "dim -1, strided out"),
            Sample((transposed(a(5, 4)),), (5, 0), "one piece"), Sample((a(3, 200, 60),), (64, 1), "long")]


def split_sizes_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(7, 3),), ([2, 0, 5], 0), "with a zero size"), Sample((a(4, 6),), ([1, 5], -1), "strided out"),
            Sample((transposed(a(5, 4)),), ([4], 1), "one piece"), Sample((a(3, 200, 60),), ([100, 100], 1), "long")]


def slice_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(5, 6),), (1, 1, 5, 2), "step 2"), Sample((a(5, 6),), (0, -3, 100, 1), "negative start"),
            Sample((transposed(a(4, 9)),), (-1, 2, -2, 3), "transposed, strided out"),
            Sample((a(4, 5),), (0, 3, 1, 1), "empty result"), Sample((a(300, 300),), (0, 7, 290, 1), "long")]


def slice_v2_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(5, 6, 4),), ([1, 0], [5, -1], [0, 2], [2, 1]), "two axes"),
            Sample((transposed(a(6, 7)),), ([-4], [100], [-1], [2]), "negative, strided out"),
            Sample((a(300, 300),), ([3, 5], [290, 300], [0, 1], [1, 3]), "long")]


def slice_ref(x, dim, start, end, step):
    idx = [slice(None)] * x.dim()
    idx[dim] = slice(start, end, step)
    return x[tuple(idx)]


def slice_v2_ref(x, starts, ends, axes, steps):
    idx = [slice(None)] * x.dim()
    for s, e, a, st in zip(starts, ends, axes, steps):
        idx[a] = slice(s, e, st)
    return x[tuple(idx)]


def permute_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(2, 3, 4),), ([2, 0, 1],), "3-D"), Sample((a(3, 4),), ([-1, 0],), "negative, strided out"),
            Sample((transposed(a(5, 6)),), ([1, 0],), "transposed back"), Sample((a(0, 3),), ([1, 0],), "empty"),
            Sample((a(300, 200),), ([1, 0],), "long")]


def roll_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(4, 5),), ([1, -2], [0, 1]), "two dims"), Sample((a(4, 5),), ([7], []), "flattened"),
            Sample((transposed(a(3, 6)),), ([2, 3], [1, 1]), "repeated dim, strided out"),
            Sample((a(200, 300),), ([-5], [1]), "long")]


def roll_ref(x, shifts, dims):
    return torch.roll(x, shifts, dims) if dims else torch.roll(x, shifts[0])


def flatten_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(2, 3, 4),), (1,), "axis 1"), Sample((a(2, 3, 4),), (0,), "axis 0"),
            Sample((transposed(a(3, 5)),), (-1,), "transposed, strided out"), Sample((a(7),), (0,), "1-D"),
            Sample((a(100, 5, 80),), (2,), "long")]


def flatten_ref(x, axis):
    axis = axis + max(x.dim(), 1) if axis < 0 else axis
    return x.reshape(int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:])))


def expand_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(3, 1),), ([2, 3, 4],), "new and broadcast dims"), Sample((a(4),), ([3, 4],), "strided out"),
            Sample((transposed(a(2, 3)),), ([2, 3],), "same shape"), Sample((a(1, 300),), ([200, 300],), "long")]


def repeat_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(2, 3),), ([2, 2],), "2x2"), Sample((a(3),), ([2, 1, 3],), "new dims, strided out"),
            Sample((transposed(a(2, 3)),), ([1, 3],), "transposed"), Sample((a(2, 3),), ([0, 2],), "zero repeat"),
            Sample((a(100, 100),), ([3, 2],), "long")]


def inplace_samples(dtype, rng, extra=lambda rng: ()):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(3, 4),) + extra(rng), (), "contiguous"), Sample((a(3, 4),) + extra(rng), (), "strided out"),
            Sample((a(0, 2),) + extra(rng), (), "empty"), Sample((a(LONG),) + extra(rng), (), "long")]


def fill_scalar_samples(dtype, rng):
    # a scalar of the tensor's own kind (CANN promotes unsigned types with themselves only)
    value = True if dtype == "bool" else np_dtype(dtype).type(3) if dtype in U else 3 if dtype in I else 2.5
    return inplace_samples(dtype, rng, lambda rng: (value,))


def fill_tensor_samples(dtype, rng):
    value = np.array(6, np.int64) if dtype in I + U + ("bool",) else np.array([1.5], np.float32)
    return inplace_samples(dtype, rng, lambda rng: (value,))


def fill_ref(self, value):
    v = value.reshape(()).item() if isinstance(value, torch.Tensor) else value.item() if isinstance(value, np.generic) else value
    return torch.full_like(self, v)


def tri_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(4, 5),), (0,), "main"), Sample((a(2, 4, 5),), (1,), "batch, +1, strided out"),
            Sample((transposed(a(5, 4)),), (-2,), "transposed, -2"), Sample((a(3, 3),), (7,), "beyond"),
            Sample((a(0, 3),), (0,), "empty"), Sample((a(4, 200, 60),), (-3,), "long")]


def tri_inplace_samples(dtype, rng):
    return [s for s in tri_samples(dtype, rng) if s.name != "empty"]


def masked_fill_samples(dtype, rng, value):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    m = lambda *s: rng.integers(0, 2, size=s).astype(bool)  # noqa: E731
    return [Sample((a(3, 4), m(3, 4), value), (), "same shape"), Sample((a(3, 4), m(4), value), (), "broadcast mask, strided out"),
            Sample((a(LONG), m(LONG), value), (), "long"), Sample((a(0, 2), m(0, 2), value), (), "empty")]


def masked_fill_scalar_samples(dtype, rng):
    return masked_fill_samples(dtype, rng, True if dtype == "bool" else 5 if dtype in I else -1.5)


def masked_fill_tensor_samples(dtype, rng):
    return masked_fill_samples(dtype, rng, np.array(3, np_dtype(dtype)))


def masked_fill_ref(self, mask, value):
    v = value.to(self.dtype) if isinstance(value, torch.Tensor) else value
    return self.masked_fill(mask, v)


def where_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    m = lambda *s: rng.integers(0, 2, size=s).astype(bool)  # noqa: E731
    # CANN promotes uint16/32/64 with themselves only
    partner = dtype if dtype in U else "bool" if dtype != "bool" else "uint8"
    return [Sample((m(3, 4), a(3, 4), a(3, 4)), (), "same shape"),
            Sample((m(4), a(3, 1), a(1, 4)), (), "broadcast, strided out"),
            Sample((m(3, 4).astype(np.uint8), transposed(a(3, 4)), arr(rng, (3, 4), partner)), (), f"uint8 cond, {partner}"),
            Sample((m(LONG), a(LONG), a(LONG)), (), "long"), Sample((m(0, 2), a(0, 2), a(0, 2)), (), "empty")]


def diag_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(4),), (0,), "vector"), Sample((a(3),), (2,), "vector +2, strided out"),
            Sample((a(4, 5),), (-1,), "matrix -1"), Sample((transposed(a(5, 4)),), (2,), "transposed +2"),
            Sample((a(300, 300),), (1,), "long")]


def diag_flat_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(2, 2),), (0,), "2x2"), Sample((a(3),), (-2,), "-2, strided out"),
            Sample((transposed(a(2, 3)),), (1,), "transposed"), Sample((a(250),), (0,), "long")]


def fill_diagonal_samples(dtype, rng):
    value = True if dtype == "bool" else 7 if dtype in I else -2.5
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(4, 4), value, False), (), "square"), Sample((a(7, 3), value, True), (), "wrap"),
            Sample((a(7, 3), value, False), (), "tall, strided out"), Sample((a(3, 5), value, True), (), "wide"),
            Sample((a(3, 3, 3), value, False), (), "3-D"), Sample((a(300, 300), value, False), (), "long")]


def fill_diagonal_ref(self, value, wrap):
    return self.clone().fill_diagonal_(value, wrap)


def one_hot_samples(dtype, rng):
    idx = lambda *s: rng.integers(-1, 5, size=s).astype(np_dtype(dtype))  # noqa: E731
    on, off = np.array(1.5, np.float32), np.array(-0.5, np.float32)
    return [Sample((idx(6), 4, on, off), (-1,), "last, with out-of-range"),
            Sample((idx(2, 3), 5, on, off), (0,), "axis 0, strided out"),
            Sample((idx(2, 3), 3, on.astype(np.int32), off.astype(np.int32)), (1,), "int32 values"),
            Sample((idx(500, 40), 8, on, off), (1,), "long")]


def one_hot_ref(idx, classes, on, off, axis):
    hot = (idx.long().unsqueeze(-1) == torch.arange(classes))
    res = torch.where(hot, on.reshape(()), off.reshape(()))
    return res.movedim(-1, axis if axis >= 0 else res.dim() - 1)


CONST_PAD_DT = F + I + U + ("bool",) + C
REFLECT_DT = F + I + ("bool",) + C
REPLICATE_DT = F + I + C
CIRCULAR_DT = ("float32", "float16", "bfloat16", "int32", "int8")
PAD_GRAD_DT = F + C
CIRCULAR_GRAD_DT = ("float32", "float16", "bfloat16")
TORCH_MODE = {"Reflection": "reflect", "Replication": "replicate", "Circular": "circular"}


def wide(x):
    """A float64 (complex128) copy of x: torch pads every dtype exactly through it."""
    return x.to(torch.complex128 if x.is_complex() else torch.float64)


def pad_ref(mode):
    def ref(x, padding):
        return torch.nn.functional.pad(wide(x), padding, mode=mode).to(x.dtype)
    return ref


def pad_grad_ref(mode):
    def ref(grad, x, padding):
        xw = wide(x).requires_grad_(True)
        y = torch.nn.functional.pad(xw, padding, mode=mode)
        (g,) = torch.autograd.grad(y, xw, wide(grad))
        return g.to(x.dtype)
    return ref


def pad_samples(k, mode, grad=False):
    def samples(dtype, rng):
        a = lambda *s: arr(rng, s, dtype)  # noqa: E731
        small = [1, 2] * k if mode != "circular" else [2, 1] * k
        base = [(2, 3) + (5,) * k, (3,) + (6,) * k, (2, 1) + (40,) * (k - 1) + (300,)]
        if grad:  # the oracle differentiates in float64: smaller, but still above the threading threshold
            base[2] = (9, 1) + (20,) * (k - 1) + (200,) if k < 3 else (16, 1, 6, 6, 8)
        names = ["batched", "unbatched, strided out", "long"]
        pads = [small, [0, 3] * k if mode != "reflect" else [2, 0] * k, [3, 4] * k]
        out = []
        for shape, pad, name in zip(base, pads, names):
            if k == 3 and name == "long" and not grad:
                shape = (2, 1, 20, 20, 60)
            x = a(*shape)
            if name == "batched":
                x = transposed(x)
            if grad:
                gshape = list(shape)
                for p in range(k):
                    gshape[-1 - p] += pad[2 * p] + pad[2 * p + 1]
                out.append(Sample((a(*gshape), x, pad), (), name))
            else:
                out.append(Sample((x, pad), (), name))
        return out
    return samples


def constant_pad_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    value = True if dtype == "bool" else np_dtype(dtype).type(2) if dtype in U else 2 if dtype in I else -1.5
    return [Sample((a(3, 4), [1, 2], value), (), "last dim"), Sample((a(2, 3, 4), [1, 0, 2, 1], value), (), "two dims, strided out"),
            Sample((transposed(a(5, 6)), [-1, 2, 1, -2], value), (), "negative crops"),
            Sample((a(2, 3), [], value), (), "no pad"), Sample((a(200, 300), [3, 5, 0, 7], value), (), "long")]


def constant_pad_ref(x, pad, value):
    v = value.item() if isinstance(value, np.generic) else value
    return torch.nn.functional.pad(wide(x), pad, mode="constant", value=v).to(x.dtype)


PAD_ENTRIES = []
for _mode, _dts in (("Reflection", REFLECT_DT), ("Replication", REPLICATE_DT), ("Circular", CIRCULAR_DT)):
    for _k in (1, 2, 3):
        if _mode == "Circular" and _k == 1:
            continue
        _m = TORCH_MODE[_mode]
        PAD_ENTRIES.append(entry(f"aclnn{_mode}Pad{_k}d", pad_ref(_m), _dts, pad_samples(_k, _m)))
        _gdts = CIRCULAR_GRAD_DT if _mode == "Circular" else PAD_GRAD_DT
        PAD_ENTRIES.append(entry(f"aclnn{_mode}Pad{_k}dBackward", pad_grad_ref(_m), _gdts, pad_samples(_k, _m, True), outputs=("gradInput",),
                                 tol={"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}))


# ---- clamp and hardtanh (conversion/clip_by_value_v2) -------------------------------------------------------

CLAMP_DT = ("float16", "float32", "int32", "int64", "int16", "int8", "uint8", "float64", "bfloat16")


def bounds(dtype):
    """Bounds exactly representable in every dtype (ints for integral tensors: the op_api converts the scalars to
    out's dtype, torch would promote)."""
    return (-2, 3) if dtype in I else (-1.5, 2.5)


def clamp_scalar_samples(which):
    def samples(dtype, rng):
        a = lambda *s: arr(rng, s, dtype)  # noqa: E731
        lo, hi = bounds(dtype)
        if dtype == "uint8":
            lo = 2
        pick = {"both": lambda lo_, hi_: (lo_, hi_), "min": lambda lo_, hi_: (lo_,), "max": lambda lo_, hi_: (hi_,)}[which]
        out = [Sample((a(3, 4), *pick(lo, hi)), (), "bounds"), Sample((transposed(a(4, 5)), *pick(lo, hi)), (), "transposed, strided out"),
               Sample((a(LONG), *pick(lo, hi)), (), "long"), Sample((a(0, 3), *pick(lo, hi)), (), "empty")]
        if which == "both":
            out += [Sample((a(3, 4), None, hi), (), "no min"), Sample((a(3, 4), lo, None), (), "no max"),
                    Sample((a(3, 4), hi, lo), (), "min above max")]
            if dtype in F:
                x = a(2, 3)
                x[0, 1] = np.nan
                out.append(Sample((x, lo, hi), (), "nan"))
        return out
    return samples


def clamp_tensor_samples(which, inplace=False):
    def samples(dtype, rng):
        a = lambda *s: arr(rng, s, dtype)  # noqa: E731
        both = which == "both"
        def ops(x, lo, hi):
            return (x, lo, hi) if both else (x, lo) if which == "min" else (x, hi)
        out = [Sample(ops(a(3, 4), a(3, 4), a(3, 4)), (), "same shape"),
               Sample(ops(a(3, 4), a(4), a(3, 1)), (), "broadcast bounds, strided out"),
               Sample(ops(transposed(a(4, 5)), transposed(a(4, 5)), a(5)), (), "transposed"),
               Sample(ops(a(LONG), a(LONG), a(1)), (), "long")]
        if not inplace:
            out.append(Sample(ops(a(4, 1), a(1, 3), a(4, 3)), (), "broadcast self"))
            if dtype in ("float16", "bfloat16", "int32"):
                out.append(Sample(ops(a(2, 3), arr(rng, (2, 3), "float32"), arr(rng, (2, 3), "float32")), (), "float32 bounds"))
        if both:
            out += [Sample((a(3, 4), None, a(4)), (), "no min"), Sample((a(3, 4), a(4), None), (), "no max")]
        return out
    return samples


def clamp_ref(x, lo=None, hi=None):
    """torch.clamp in the tensor's dtype (scalars as the tensor's dtype: the op_api converts them to out's)."""
    return torch.clamp(x, lo, hi).to(x.dtype) if not isinstance(lo, torch.Tensor) and not isinstance(hi, torch.Tensor) \
        else torch.clamp(x, lo, hi)


def clamp_min_ref(x, lo):
    return clamp_ref(x, lo, None)


def clamp_max_ref(x, hi):
    return clamp_ref(x, None, hi)


def hardtanh_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    lo, hi = bounds(dtype)
    if dtype == "uint8":
        lo = 2
    return [Sample((a(3, 4), lo, hi), (), "bounds"), Sample((transposed(a(4, 5)), lo, hi), (), "transposed, strided out"),
            Sample((a(LONG), lo, lo), (), "min equals max, long"), Sample((a(0, 3), lo, hi), (), "empty")]


CLAMP_ENTRIES = [
    entry("aclnnClamp", clamp_ref, CLAMP_DT, clamp_scalar_samples("both")),
    entry("aclnnClampMin", clamp_min_ref, CLAMP_DT, clamp_scalar_samples("min")),
    entry("aclnnClampMax", clamp_max_ref, CLAMP_DT, clamp_scalar_samples("max")),
    entry("aclnnInplaceClampMax", clamp_max_ref, CLAMP_DT, clamp_scalar_samples("max"), inplace=True),
    entry("aclnnClampTensor", clamp_ref, CLAMP_DT, clamp_tensor_samples("both")),
    entry("aclnnClampMinTensor", clamp_min_ref, CLAMP_DT, clamp_tensor_samples("min")),
    entry("aclnnInplaceClampMinTensor", clamp_min_ref, CLAMP_DT, clamp_tensor_samples("min", True), inplace=True),
    entry("aclnnClampMaxTensor", clamp_max_ref, CLAMP_DT, clamp_tensor_samples("max")),
    entry("aclnnInplaceClampMaxTensor", clamp_max_ref, CLAMP_DT, clamp_tensor_samples("max", True), inplace=True),
    entry("aclnnHardtanh", clamp_ref, CLAMP_DT, hardtanh_samples),
    entry("aclnnInplaceHardtanh", clamp_ref, CLAMP_DT, hardtanh_samples, inplace=True),
]


# ---- im2col, unfold_grad, channel_shuffle, confusion_transpose, chunk_cat, strided_slice_assign_v2, search_sorted ----

def im2col_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(2, 3, 5, 6), [2, 2], [1, 1], [1, 1], [2, 2]), (), "batched"),
            Sample((a(3, 7, 5), [3, 2], [2, 1], [0, 1], [1, 2]), (), "unbatched, dilated, strided out"),
            Sample((transposed(a(6, 6)).reshape(1, 1, 6, 6), [3, 3], [1, 1], [2, 2], [1, 1]), (), "wide padding"),
            Sample((a(0, 2, 4, 4), [2, 2], [1, 1], [0, 0], [1, 1]), (), "empty batch"),
            Sample((a(2, 8, 24, 24), [3, 3], [1, 1], [1, 1], [1, 1]), (), "long")]


def im2col_ref(x, k, d, p, s):
    return torch.nn.functional.unfold(x, k, d, p, s)


def unfold_grad_samples(dtype, rng):
    out = []
    for sizes, dim, size, step, name in (([7], 0, 2, 1, "1-D overlapping"), ([3, 9], 1, 3, 2, "last dim, strided out"),
                                         ([2, 10, 3], 1, 4, 3, "middle dim, gaps"), ([5, 4], 0, 2, 2, "exact windows"),
                                         ([64, 600], 1, 16, 4, "long")):
        shape = list(sizes)
        shape[dim] = (sizes[dim] - size) // step + 1
        out.append(Sample((arr(rng, tuple(shape + [size]), dtype), sizes, dim, size, step), (), name))
    return out


def unfold_grad_ref(g, sizes, dim, size, step):
    return torch.ops.aten.unfold_backward(g, sizes, dim, size, step)


def channel_shuffle_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(2, 6, 3), 3), (), "3-D"), Sample((a(1, 8, 2, 2), 2), (), "4-D, strided out"),
            Sample((transposed(a(4, 6)).reshape(1, 6, 4), 6), (), "groups = channels"),
            Sample((a(0, 4, 2), 2), (), "empty"), Sample((a(4, 32, 40, 8), 8), (), "long")]


def channel_shuffle_ref(x, g):
    n, c = x.shape[:2]
    return x.reshape(n, g, c // g, *x.shape[2:]).transpose(1, 2).reshape(x.shape)


def confusion_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(2, 3, 4), [2, 0, 1], [4, 6], True), (), "transpose first"),
            Sample((a(4, 6), [1, 0, 2], [2, 4, 3], False), (), "reshape first, strided out"),
            Sample((transposed(a(6, 4)), [1, 0], [3, 8], True), (), "transposed input"),
            Sample((a(0, 3), [1, 0], [3, 0], False), (), "empty"),
            Sample((a(32, 32, 48), [1, 0, 2], [32, 1536], True), (), "long")]


def confusion_ref(x, perm, shape, first):
    return x.permute(perm).reshape(shape) if first else x.reshape(shape).permute(perm)


def chunk_cat_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample(([a(4, 3), a(6)],), (0, 2), "even"),
            Sample(([a(5, 2, 2), a(3, 3), a(1)],), (0, 3), "padded chunks, strided out"),
            Sample(([a(0, 3), transposed(a(7, 2))],), (0, 4), "empty piece, transposed"),
            Sample(([a(1000, 40), a(333, 7)],), (0, 8), "long")]


def chunk_cat_ref(ts, dim, n):
    return torch._chunk_cat([t for t in ts if t.numel()], dim, n)


def strided_slice_assign_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(4, 3), a(2, 2), [1, 0], [4, 2], [2, 1], [0, 1]), (), "the official sample"),
            Sample((a(5, 6, 4), a(2, 5, 4), [0, -5], [3, 10], [2, 1], [0, 1]), (), "negative begin, end clamped, strided out"),
            Sample((a(3, 8), a(3, 5), [0, 2], [3, 7], [1, 1], None), (), "no axes"),
            Sample((a(6, 5), a(2, 5), [-3], [-1], [1], [0]), (), "one axis"),
            Sample((a(300, 200), a(100, 150), [0, 10], [300, 160], [3, 1], [0, 1]), (), "long")]


def strided_slice_assign_ref(var, value, begin, end, strides, axes):
    out = var.clone()
    idx = [slice(None)] * var.dim()
    for k, a in enumerate(axes if axes is not None else range(len(begin))):
        idx[a] = slice(begin[k], end[k], strides[k])
    out[tuple(idx)] = value
    return out


SEARCH_DT = ("float16", "float32", "int16", "int8", "uint8", "int32", "int64", "float64")


def sorted_array(rng, shape, dtype):
    return np.sort(arr(rng, shape, dtype), axis=-1)


def search_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    seq = sorted_array(rng, (9,), dtype)
    rows = sorted_array(rng, (3, 7), dtype)
    unsorted = a(8)
    other = "float32" if dtype in I else "int32"
    return [Sample((seq, a(4, 5), False, False, None), (), "1-D sequence"),
            Sample((rows, a(3, 6), True, True, None), (), "rows, int32 out, right, strided out"),
            Sample((unsorted, a(5), False, False, np.argsort(unsorted, kind="stable").astype(np.int64)), (), "sorter"),
            Sample((seq, np.concatenate([seq, seq[:2]]), False, True, None), (), "ties, right"),
            Sample((seq, seq.copy(), False, False, None), (), "ties, left"),
            Sample((sorted_array(rng, (9,), other), a(6), False, False, None), (), f"{other} sequence"),
            Sample((seq, a(0, 2), False, False, None), (), "empty"),
            Sample((sorted_array(rng, (4000,), dtype), a(100, 400), False, False, None), (), "long")]


def search_ref(seq, values, out_int32, right, sorter):
    p = torch.promote_types(seq.dtype, values.dtype)
    return torch.searchsorted(seq.to(p), values.to(p), out_int32=out_int32, right=right, sorter=sorter)


def searchs_samples(dtype, rng):
    seq = sorted_array(rng, (9,), dtype)
    v = 2 if dtype in I else 1.25
    return [Sample((seq, v, False, False, None), (), "scalar"), Sample((seq, v, True, True, None), (), "int32 out, right"),
            Sample((seq, seq[3].item(), False, True, None), (), "tie, right")]


def searchs_ref(seq, value, out_int32, right, sorter):
    v = torch.tensor([float(np.float32(value))], dtype=torch.float32).to(seq.dtype)
    return torch.searchsorted(seq, v, out_int32=out_int32, right=right, sorter=sorter)


MORE_ENTRIES = [
    entry("aclnnIm2col", im2col_ref, ("float32", "float16", "bfloat16"), im2col_samples, outputs=("out",),
          accumulate16=True),
    entry("aclnnUnfoldGrad", unfold_grad_ref, ("float32", "float16", "bfloat16"), unfold_grad_samples,
          outputs=("gradIn",), accumulate16=True, tol={"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}),
    entry("aclnnChannelShuffle", channel_shuffle_ref, ("float16", "float32", "float64", "int8", "uint8", "int16", "int32",
                                                      "int64", "bool", "complex64", "complex128", "bfloat16"),
          channel_shuffle_samples),
    entry("aclnnConfusionTranspose", confusion_ref, I + U + ("float16", "float32", "bfloat16"), confusion_samples),
    entry("aclnnChunkCat", chunk_cat_ref, ("float32", "float16", "bfloat16"), chunk_cat_samples),
    entry("aclnnStridedSliceAssignV2", strided_slice_assign_ref, ("float16", "float32", "bfloat16", "int32", "int64",
                                                                  "float64", "int8"),
          strided_slice_assign_samples, inplace="varRef", also=("aclnnStridedSlice",)),
    entry("aclnnSearchSorted", search_ref, SEARCH_DT, search_samples),
    entry("aclnnSearchSorteds", searchs_ref, SEARCH_DT, searchs_samples),
]


ENTRIES = PAD_ENTRIES + CLAMP_ENTRIES + MORE_ENTRIES + [
    entry("aclnnConstantPadNd", constant_pad_ref, CONST_PAD_DT, constant_pad_samples),
    entry("aclnnInplaceCopy", copy_ref, COPY_DT, copy_samples, inplace=True),
    entry("aclnnCat", lambda ts, dim: torch.cat(ts, dim), CAT_DT, cat_samples),
    entry("aclnnStack", lambda ts, dim: torch.stack(ts, dim), STACK_DT, stack_samples),
    entry("aclnnSplitTensor", lambda x, n, dim: torch.split(x, n, dim), SPLIT_DT, split_samples),
    entry("aclnnSplitWithSize", lambda x, sizes, dim: torch.split(x, sizes, dim), SPLIT_DT, split_sizes_samples),
    entry("aclnnSlice", slice_ref, SLICE_DT, slice_samples),
    entry("aclnnSliceV2", slice_v2_ref, SLICE_DT, slice_v2_samples),
    entry("aclnnPermute", lambda x, dims: x.permute(dims), PERMUTE_DT, permute_samples),
    entry("aclnnRoll", roll_ref, ROLL_DT, roll_samples),
    entry("aclnnFlatten", flatten_ref, FLATTEN_DT, flatten_samples),
    entry("aclnnExpand", lambda x, size: x.expand(size), EXPAND_DT, expand_samples),
    entry("aclnnRepeat", lambda x, reps: x.repeat(reps), REPEAT_DT, repeat_samples),
    entry("aclnnInplaceFillScalar", fill_ref, FILL_SCALAR_DT, fill_scalar_samples, inplace=True),
    entry("aclnnInplaceFillTensor", fill_ref, FILL_TENSOR_DT, fill_tensor_samples, inplace=True),
    entry("aclnnTril", torch.tril, TRI_DT, tri_samples),
    entry("aclnnTriu", torch.triu, TRI_DT, tri_samples),
    entry("aclnnInplaceTril", torch.tril, TRI_DT, tri_inplace_samples, inplace=True),
    entry("aclnnInplaceTriu", torch.triu, TRI_DT, tri_inplace_samples, inplace=True),
    entry("aclnnInplaceMaskedFillScalar", masked_fill_ref, MASKED_FILL_DT, masked_fill_scalar_samples, inplace=True),
    entry("aclnnInplaceMaskedFillTensor", masked_fill_ref, MASKED_FILL_DT, masked_fill_tensor_samples, inplace=True),
    entry("aclnnSWhere", torch.where, WHERE_DT, where_samples),
    entry("aclnnDiag", torch.diag, DIAG_DT, diag_samples),
    entry("aclnnDiagFlat", torch.diagflat, DIAG_DT, diag_flat_samples),
    entry("aclnnInplaceFillDiagonal", fill_diagonal_ref, FILL_DIAG_DT, fill_diagonal_samples, inplace=True),
    entry("aclnnOneHot", one_hot_ref, ("int32", "int64"), one_hot_samples),
]


# ---- CoalesceSparse: newIndices[u[i]] = indices[i], newValues[u[i]] += values[i] (torch's coalesce with the slots of
# torch.unique's inverse; newValues starts at zero, as the README asks of the caller) ----------------------------------

def coalesce_samples(dtype, rng):
    res = []
    for n, m, tail, idt in ((8, 4, (), "int32"), (50, 2, (3,), "int64"), (1, 3, (), "int64"), (2000, 3, (2,), "int32")):
        coords = rng.integers(0, 4, size=(n, m))
        _, inverse = np.unique(coords, axis=0, return_inverse=True)
        values = (rng.integers(-8, 8, size=(n,) + tail) if dtype == "int32" else
                  rng.uniform(-4, 4, size=(n,) + tail)).astype(np_dtype(dtype))
        res.append(Sample((np.array([inverse.max() + 1]).astype(np_dtype(idt)), inverse.reshape(-1).astype(np_dtype(idt)),
                           coords.astype(np_dtype(idt)), values), (), f"n {n} m {m} values {tail}"))
    return res


def coalesce_ref(ulen, uidx, indices, values):
    rows = indices.shape[0]
    wide = values.double() if values.is_floating_point() else values.long()
    new_i = torch.zeros_like(indices)
    new_i[uidx.long()] = indices
    if values.dtype == torch.float16:  # each addition rounded to FLOAT16, in increasing i (the stub's order)
        acc = np.zeros((rows,) + tuple(values.shape[1:]), np.float16)
        vals = values.numpy()
        for i, u in enumerate(uidx.long().tolist()):
            acc[u] = (acc[u].astype(np.float32) + vals[i].astype(np.float32)).astype(np.float16)
        return new_i, torch.from_numpy(acc)
    new_v = torch.zeros((rows,) + tuple(values.shape[1:]), dtype=wide.dtype).index_add_(0, uidx.long(), wide)
    return new_i, new_v.to(values.dtype)


def coalesce_call(sample, expected):
    ulen, uidx, indices, values = sample.operands
    new_i = np.zeros(indices.shape, indices.dtype)
    new_v = np.zeros((indices.shape[0],) + values.shape[1:], values.dtype)
    aclnn_py.run("aclnnCoalesceSparse", ulen, uidx, indices, values, new_i, new_v, outputs=("newIndices", "newValues"))
    return new_i, new_v


ENTRIES.append(OpInfo("aclnnCoalesceSparse", coalesce_ref, ("float32", "float16", "int32"), kind="custom",
                      samples=coalesce_samples, call=coalesce_call, native16=True,
                      tol={"float16": (1e-3, 1e-3), "int32": (0, 0)}))
