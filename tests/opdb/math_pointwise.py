"""ops-math pointwise operators: addcdiv, addcmul, lerp, nan_to_num, real, s_where, complex, polar, scale, and the
tensor-list operators add_n, sum, maxN, minN."""

import numpy as np
import torch

from aclnn_py.dtypes import bfloat16

from . import COMPLEX, FLOATS, INTS, REALS, OpInfo, Sample, random_array


def as_torch(a):
    """A numpy array (bfloat16 included) as a torch tensor."""
    a = np.ascontiguousarray(a)
    if a.dtype == bfloat16:
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def addcdiv(a, b, c, value):
    """torch.addcdiv; integers (which torch refuses) as the op_api computes them: the quotient truncated, value
    converted to the integer dtype."""
    if not a.dtype.is_floating_point and not b.dtype.is_floating_point:
        return a + int(value) * torch.div(b, c, rounding_mode="trunc")
    return torch.addcdiv(a, b, c, value=value)


def nan_to_num_samples(dtype, rng):
    out = []
    for shape in ((2, 3), (), (0, 4), (34000,)):
        x = random_array(rng, shape, dtype, (-4.0, 4.0), (-8, 8))
        if x.size and dtype in FLOATS + ("float64",):
            flat = x.reshape(-1)
            flat[::3] = np.nan
            flat[1::5] = np.inf
            flat[2::7] = -np.inf
        for attrs in ((0.0, 100.0, -100.0), (-1.5, 3.0e38, -3.0e38)):
            out.append(Sample((x,), attrs, f"shape{shape} attrs={attrs}"))
    return out


def where_samples(dtype, rng):
    out = []
    for cond_dt in ("bool", "uint8"):
        for s, o, c in (((2, 3), (2, 3), (2, 3)), ((4, 1, 3), (5, 1), (3,)), ((34000,), (34000,), (34000,))):
            cond = rng.integers(0, 3, size=c).astype(cond_dt)
            a = random_array(rng, s, dtype, (-4.0, 4.0), (-8, 8))
            b = random_array(rng, o, dtype, (-4.0, 4.0), (-8, 8))
            out.append(Sample((cond, a, b), (), f"{cond_dt} condition {s} {o} {c}"))
    return out


def where(cond, a, b):
    return torch.where(cond.bool(), a, b)


def pair_samples(dtype, rng):
    out = []
    for s, o in (((2, 3), (2, 3)), ((4, 1, 3), (5, 1)), ((34000,), (34000,)), ((0, 3), (3,))):
        out.append(Sample((random_array(rng, s, dtype, (0.0, 4.0), (0, 8)),
                           random_array(rng, o, dtype, (-4.0, 4.0), (0, 8))), (), f"{s} {o}"))
    return out


def scale_samples(dtype, rng):
    x = random_array(rng, (2, 3, 4), dtype, (-4.0, 4.0), (0, 8))
    big = random_array(rng, (64, 300, 4), dtype, (-4.0, 4.0), (0, 8))
    s3 = random_array(rng, (3,), dtype, (-2.0, 2.0), (0, 8))
    s34 = random_array(rng, (3, 4), dtype, (-2.0, 2.0), (0, 8))
    one = random_array(rng, (1,), dtype, (-2.0, 2.0), (0, 8))
    s300 = random_array(rng, (300,), dtype, (-2.0, 2.0), (0, 8))
    return [Sample((x, s3, None), (1, 1, True), "axis 1, one axis"),
            Sample((x, s34, (s34 * 0.5).astype(s34.dtype)), (-2, -1, True), "axis -2, every axis after, bias"),
            Sample((x, s34, None), (1, 5, False), "scale's rank"),
            Sample((x, one, one), (0, 0, True), "one element"),
            Sample((x.transpose(1, 0, 2), s3, None), (0, 1, False), "strided x"),
            Sample((big, s300, s300), (1, 1, True), "long")]


def scale(x, s, b, axis, num_axes, from_blob):
    r = x.dim()
    ax = axis if axis >= 0 else r + axis
    if s.numel() == 1:
        view = [1] * r
    else:
        view = [1] * ax + list(s.shape) + [1] * (r - ax - s.dim())
    y = x * s.reshape(view)
    return y + b.reshape(view) if b is not None else y


def list_samples(n_max, broadcast):
    def samples(dtype, rng):
        out = []
        shapes = ([(2, 3)] * 3, [(34000,)] * 2, [(0, 3)] * 2, [(5,)] * 17)
        if broadcast:
            shapes += ([(4, 1, 3), (5, 1), (3,)],)
        for group in shapes:
            group = group[:n_max]
            ts = [random_array(rng, s, dtype, (-4.0, 4.0), (-8, 8)) for s in group]
            out.append(Sample((ts,), (), f"{len(ts)} tensors {group[0]}"))
        return out
    return samples


def reduce_list(fn):
    """fn over the list in list order, in float64 (int64 for integers), cast to the first tensor's dtype."""
    def call(tensors):
        ts = [as_torch(t) for t in tensors]
        dt = ts[0].dtype
        wide = torch.float64 if dt.is_floating_point else torch.int64
        acc = ts[0].to(wide)
        for t in ts[1:]:
            acc = fn(acc, t.to(wide))
        return acc.to(dt)
    return call


def angle(x):
    """torch.angle; integer and BOOL inputs give FLOAT (as FLOAT)."""
    return torch.angle(x if x.dtype.is_floating_point or x.dtype.is_complex else x.float())


def pack_samples(dtype, rng):
    out = []
    for n, size in ((14, 1), (16, 2), (1000, 5), (0, 1), (3, 1)):
        x = random_array(rng, (n,), dtype, (-2.0, 2.0), (0, 1))
        if n:
            x[0] = 0.0
        out.append(Sample((x, size), (), f"{n} elements, size {size}"))
    return out


def sign_bits_pack(x, size):
    bits = (x.float() >= 0).to(torch.uint8)
    pad = (-len(bits)) % 8
    bits = torch.cat([bits, torch.zeros(pad, dtype=torch.uint8)]).reshape(-1, 8)
    packed = (bits << torch.arange(8, dtype=torch.uint8)).sum(1).to(torch.uint8)
    return packed.reshape(size, -1)


def unpack_samples(dtype, rng):
    out = []
    for n, size in ((2, 1), (4, 2), (300, 8), (0, 1)):
        x = rng.integers(0, 256, size=n).astype(np.uint8)
        out.append(Sample((x, size, dtype), (), f"{n} bytes, size {size}"))
    return out


def sign_bits_unpack(x, size, dtype):
    bits = (x.reshape(-1, 1).long() >> torch.arange(8)) & 1
    return (bits.reshape(size, -1).float() * 2 - 1).to({"float32": torch.float32, "float16": torch.float16}[dtype])


ADDCDIV = ("float32", "int64", "float16", "float64", "bfloat16")
ADDCMUL = ("float32", "int32", "int64", "float16", "int8", "uint8", "float64", "bfloat16")
NAN_TO_NUM = FLOATS + ("int8", "int16", "int32", "int64", "uint8", "bool")

ENTRIES = [
    OpInfo("aclnnAddcdiv", addcdiv, ADDCDIV, kind="ternary", attrs=((2,), (0.5,)), nonzero=True,
           inplace="aclnnInplaceAddcdiv"),
    OpInfo("aclnnAddcmul", lambda a, b, c, value: torch.addcmul(a, b, c, value=value), ADDCMUL, kind="ternary",
           attrs=((2,), (3,)), inplace="aclnnInplaceAddcmul"),
    OpInfo("aclnnLerp", torch.lerp, FLOATS, kind="ternary", domain=(-1.0, 2.0), mixed=False, scalar="aclnnLerps",
           inplace="aclnnInplaceLerp", inplace_scalar="aclnnInplaceLerps"),
    OpInfo("aclnnNanToNum", lambda x, nan, pos, neg: torch.nan_to_num(x, nan, pos, neg), NAN_TO_NUM,
           kind="custom", samples=nan_to_num_samples, inplace="aclnnInplaceNanToNum", native16=True),
    OpInfo("aclnnReal", torch.real, ("float32", "float16") + COMPLEX, kind="unary"),
    OpInfo("aclnnAngleV2", angle, FLOATS + ("complex64", "bool", "uint8", "int8", "int16", "int32", "int64"),
           kind="unary"),
    OpInfo("aclnnSignBitsPack", sign_bits_pack, ("float32", "float16"), kind="custom", samples=pack_samples),
    OpInfo("aclnnSignBitsUnpack", sign_bits_unpack, ("float32", "float16"), kind="custom", samples=unpack_samples),
    OpInfo("aclnnSWhere", where, REALS + INTS + ("bool",) + COMPLEX, kind="custom", samples=where_samples),
    OpInfo("aclnnComplex", torch.complex, ("float32", "float64"), kind="custom", samples=pair_samples),
    OpInfo("aclnnPolar", torch.polar, ("float32",), kind="custom", samples=pair_samples),
    OpInfo("aclnnScale", scale, FLOATS, kind="custom", samples=scale_samples),
    OpInfo("aclnnAddN", reduce_list(torch.add), ("int32", "int64") + FLOATS, kind="custom",
           samples=list_samples(17, False)),
    OpInfo("aclnnSum", reduce_list(torch.add), ("float16", "float32", "int8", "int32", "uint8"), kind="custom",
           samples=list_samples(17, True)),
    OpInfo("aclnnMaxN", reduce_list(torch.maximum), FLOATS + ("int8", "int32", "int64"), kind="custom",
           samples=list_samples(17, True)),
    OpInfo("aclnnMinN", reduce_list(torch.minimum), FLOATS + ("int8", "int32", "int64"), kind="custom",
           samples=list_samples(17, True)),
]
