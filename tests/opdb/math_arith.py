"""ops-math arithmetic: add, sub, rsub, mul, div (and its rounding modes), floor_divide, remainder, fmod.

The oracles are torch's, adapted where the op_api's kernel chain differs from torch by design: a 16-bit quotient
is rounded to its dtype before it is truncated or floored (RealDiv, then Trunc, on the device), a scalar joins the
computation in the dtype the op_api converts it to, and BOOL operands divide as FLOAT."""

import torch

from . import ALL, COMPLEX, INTS, REALS, OpInfo, Sample, random_array

LOW = (torch.float16, torch.bfloat16)


def sub(a, b, alpha):
    """torch.sub, where torch refuses BOOL: two BOOL operands as the op_api computes them (alpha cast to BOOL,
    the difference nonzero); a BOOL operand beside another dtype is first cast to it, as promotion does."""
    bools = [isinstance(x, torch.Tensor) and x.dtype == torch.bool for x in (a, b)]
    if bools[0] and (bools[1] or isinstance(b, bool)):
        return (a.int() - bool(alpha) * (b.int() if isinstance(b, torch.Tensor) else int(b))).bool()
    if bools[0]:
        a = a.to(torch.result_type(a, b) if not isinstance(b, torch.Tensor) else b.dtype)
    if bools[1]:
        b = b.to(a.dtype)
    return torch.sub(a, b, alpha=alpha)


def rsub(a, b, alpha):
    """other - alpha * self; the op_api multiplies first (Mul, in the promoted dtype: a 16-bit product is rounded
    to it, alpha converted to it), then subtracts."""
    p = torch.result_type(a, b)
    if p not in LOW:
        return torch.rsub(a, b, alpha=alpha)
    f = lambda x: (x.to(p) if isinstance(x, torch.Tensor) else torch.tensor(x).to(p)).float()  # noqa: E731
    prod = (f(a) * f(alpha)).to(p).float()
    return (f(b) - prod).to(p)


def _is_bool(x):
    return isinstance(x, bool) or (isinstance(x, torch.Tensor) and x.dtype == torch.bool)


def rounded_div(a, b, mode):
    """DivMod and floor_divide as the op_api runs them: mode 0 true division, 1 toward zero, 2 toward minus
    infinity. A 16-bit quotient (two 16-bit tensors of one dtype, or a 16-bit tensor and a scalar converted to
    it) is rounded to its dtype first; a FLOAT16/BF16 tensor floor-divided by a float scalar computes in DOUBLE;
    BOOL operands divide as FLOAT (torch has no BOOL rounding division)."""
    p = torch.result_type(a, b)
    if mode != 2 and p == torch.float64 and isinstance(a, torch.Tensor) and a.dtype == torch.float64:
        # CompatibleInferDivModeDtype runs a DOUBLE quotient in FLOAT
        q = a.float() / (b.float() if isinstance(b, torch.Tensor) else torch.tensor(b, dtype=torch.float32))
        return (q if mode == 0 else torch.trunc(q)).to(p)
    if mode == 0:
        return torch.div(a, b)
    if _is_bool(a) and _is_bool(b):
        a = a.float()
        b = b.float() if isinstance(b, torch.Tensor) else float(b)
    low = isinstance(a, torch.Tensor) and a.dtype in LOW
    rnd = torch.trunc if mode == 1 else torch.floor
    if low and isinstance(b, torch.Tensor) and b.dtype == a.dtype:
        return rnd((a.float() / b.float()).to(a.dtype))
    if low and not isinstance(b, torch.Tensor):
        if mode == 2 and isinstance(b, float):  # FloorDiv in the promoted DOUBLE
            return torch.floor(a.double() / b).to(a.dtype)
        s = torch.tensor(b).to(a.dtype).float()  # the scalar converted to the tensor's dtype
        return rnd((a.float() / s).to(a.dtype))
    return torch.div(a, b, rounding_mode="trunc" if mode == 1 else "floor")


def remainder(a, b):
    """torch.remainder; a scalar divisor is converted to a 16-bit tensor's dtype first (PromoteTypeScalar keeps a
    floating tensor's dtype)."""
    if isinstance(a, torch.Tensor) and a.dtype in LOW and not isinstance(b, torch.Tensor):
        b = float(torch.tensor(b).to(a.dtype))
    return torch.remainder(a, b)


def add_v3_samples(dtype, rng):
    out = []
    for shape in ((2, 3), (), (0, 4), (34000,)):
        t = random_array(rng, shape, dtype, (-4.0, 4.0), (-8, 8))
        for scalar, alpha in ((1.5, 1), (-2.0, 3), (3, 2)):
            out.append(Sample((scalar, t), (alpha,), f"shape{shape} scalar={scalar} alpha={alpha}"))
    return out


def add_v3(s, t, alpha):
    return t * alpha + s if alpha != 1 else t + s


def remainder_st_samples(dtype, rng):
    out = []
    for shape in ((2, 3), (), (0, 4), (34000,)):
        t = random_array(rng, shape, dtype, (-4.0, 4.0), (-8, 8))
        t[t == 0] = 1
        for scalar in (5, -7, 2.5):
            out.append(Sample((scalar, t), (), f"shape{shape} scalar={scalar}"))
    return out


REMAINDER = ("int32", "int64", "float16", "float32", "float64", "bfloat16")
FMOD = ("float32", "int32", "int8", "float16", "uint8", "float64", "int64", "bfloat16")

ENTRIES = [
    OpInfo("aclnnAdd", lambda a, b, alpha: torch.add(a, b, alpha=alpha), ALL, attrs=((1,), (2,)),
           scalar="aclnnAdds", inplace="aclnnInplaceAdd", inplace_scalar="aclnnInplaceAdds"),
    # aclnnInplaceAddV3 writes its tensor operand: tests/test_math_elementwise.py drives it
    OpInfo("aclnnAddV3", add_v3, ("float32", "int32", "float16", "bfloat16", "int8"), kind="custom",
           samples=add_v3_samples, also=("aclnnInplaceAddV3",)),
    OpInfo("aclnnSub", sub, ALL, attrs=((1,), (3,)),
           scalar="aclnnSubs", inplace="aclnnInplaceSub", inplace_scalar="aclnnInplaceSubs"),
    OpInfo("aclnnRsub", rsub, REALS + INTS + COMPLEX, attrs=((1,), (3,)), native16=True, scalar="aclnnRsubs"),
    OpInfo("aclnnMul", torch.mul, ALL, scalar="aclnnMuls", inplace="aclnnInplaceMul", inplace_scalar="aclnnInplaceMuls"),
    OpInfo("aclnnDiv", torch.div, ALL, scalar="aclnnDivs", inplace="aclnnInplaceDiv", inplace_scalar="aclnnInplaceDivs"),
    OpInfo("aclnnDivMod", rounded_div, REALS + INTS + ("bool",), attrs=((0,), (1,), (2,)), nonzero=True,
           native16=True, scalar="aclnnDivMods", inplace="aclnnInplaceDivMod", inplace_scalar="aclnnInplaceDivMods"),
    OpInfo("aclnnFloorDivide", lambda a, b: rounded_div(a, b, 2), REALS + INTS + ("bool",), nonzero=True,
           native16=True, scalar="aclnnFloorDivides", inplace="aclnnInplaceFloorDivide",
           inplace_scalar="aclnnInplaceFloorDivides"),
    OpInfo("aclnnRemainderTensorTensor", remainder, REMAINDER, nonzero=True, native16=True,
           scalar="aclnnRemainderTensorScalar", inplace="aclnnInplaceRemainderTensorTensor",
           inplace_scalar="aclnnInplaceRemainderTensorScalar"),
    OpInfo("aclnnRemainderScalarTensor", torch.remainder, REMAINDER, kind="custom", samples=remainder_st_samples),
    OpInfo("aclnnFmodTensor", torch.fmod, FMOD, nonzero=True, scalar="aclnnFmodScalar",
           inplace="aclnnInplaceFmodTensor", inplace_scalar="aclnnInplaceFmodScalar"),
]

