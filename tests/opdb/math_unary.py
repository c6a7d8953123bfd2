"""ops-math unary operators: transcendental functions (correctly rounded FLOAT results: the oracle evaluates in
float64 and rounds once), rounding, sign and magnitude, predicates, fills, tanh's backward, and Cast between every
pair of its dtypes."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import torch

from aclnn_py.dtypes import bfloat16

from . import COMPLEX, FLOATS, INTS, REALS, OpInfo, Sample, np_dtype, special_values

INTB = INTS + ("bool",)
UINTS = ("uint16", "uint32", "uint64")
EVERY = REALS + INTS + UINTS + ("bool",) + COMPLEX  # aclnnCast's list on Atlas A2/A3

# One ulp (and the smallest subnormal) of each type: correctly rounded results may differ from the float64 oracle
# rounded once only where the oracle's own last bit decides a halfway case.
ULP = {"float32": (1.2e-7, 1.5e-45), "float16": (9.8e-4, 6e-8), "bfloat16": (7.9e-3, 1e-40),
       "float64": (1e-15, 1e-300)}
EXACT = {d: (0, 0) for d in REALS + COMPLEX}  # results that involve no rounding, or the same roundings as torch's


def cr(fn):
    """fn in float64 (complex128), rounded once to torch's result dtype for the input."""
    def ref(x):
        want = fn(x.reshape(-1)[:1]).dtype
        return fn(x.to(torch.complex128 if x.is_complex() else torch.float64)).to(want)
    return ref


def specials(dtype, rng):
    """Signed zeros, infinities, NaN, subnormals, values near 1 and large arguments (floating dtypes)."""
    if dtype not in REALS:
        return []
    return [Sample((special_values(dtype),), (), "special values")]


def math_op(name, fn, dtypes, **kw):
    kw.setdefault("tol", ULP)
    return OpInfo(name, cr(fn), dtypes, kind="unary", extra=specials, **kw)


def pair(name, fn, dtypes, **kw):
    """aclnnX with aclnnInplaceX."""
    return math_op(f"aclnn{name}", fn, dtypes, inplace=f"aclnnInplace{name}", **kw)


def floats_only(fn, other=lambda x: x):
    """fn for floating tensors, `other` for integers and BOOL."""
    return lambda x, *a: fn(x, *a) if x.is_floating_point() else other(x)


def sinc(x):
    """The op_api's composition on Atlas A2/A3, every step rounded to the computation's dtype (16-bit ones too)."""
    if not x.is_floating_point():
        x = x.float()
    t = x.dtype
    pi = torch.tensor(math.pi, dtype=torch.float64).to(t)
    p = (torch.where(x == 0, torch.ones_like(x), x).double() * pi.double()).to(t)
    if t == torch.float64:
        y = torch.sin(p) / p
    else:
        s = torch.sin(p.double()).float().to(t)
        y = (s.float() / p.float()).to(t)
    return torch.where(x == 0, torch.ones_like(y), y)


def signbit(x):
    """The docs' rule: x < 0, and -0 (NaN gives false); unsigned and BOOL false."""
    if x.dtype == torch.bool or x.dtype in (torch.uint16, torch.uint32, torch.uint64):
        return torch.zeros(x.shape, dtype=torch.bool)
    if x.is_floating_point():
        return (x < 0) | ((x == 0) & torch.signbit(x))
    return x < 0


def round_decimals(x, decimals):
    """The kernel's rule: p = 10^|decimals| in the computation's type; round half even of x * p, divided by p
    (decimals > 0), of x / p times p (decimals < 0); integers unchanged, or x / p * p with integer division."""
    if decimals == 0:
        return torch.round(x) if x.is_floating_point() else x.clone()
    p = 10 ** abs(decimals)
    if not x.is_floating_point():
        return x.clone() if decimals > 0 else torch.div(x, p, rounding_mode="trunc") * p
    pt = torch.tensor(float(p), dtype=torch.float64).to(x.dtype)
    return torch.round(x * pt) / pt if decimals > 0 else torch.round(x / pt) * pt


def digamma(x):
    """torch's, with NaN at 0 as at the other poles (the device's kernel; torch gives -inf and +inf at +0, -0)."""
    return torch.where(x == 0, torch.nan, torch.digamma(x))


def tanh_backward(g, y):
    return g * (1 - y * y)


MATH = [
    pair("Acos", torch.acos, REALS + INTB, domain=(-1.0, 1.0), int_domain=(-1, 1)),
    pair("Asin", torch.asin, REALS + INTB, domain=(-1.0, 1.0), int_domain=(-1, 1)),
    pair("Atan", torch.atan, REALS + INTB),
    pair("Sin", torch.sin, REALS + INTB + COMPLEX),
    pair("Cos", torch.cos, REALS + INTB + COMPLEX),
    pair("Tan", torch.tan, REALS + INTB + COMPLEX),
    pair("Sinh", torch.sinh, REALS + INTB + COMPLEX),
    pair("Cosh", torch.cosh, REALS + INTB + COMPLEX),
    pair("Tanh", torch.tanh, FLOATS + INTB),
    pair("Asinh", torch.asinh, REALS + INTB + COMPLEX),
    pair("Acosh", torch.acosh, REALS + INTB + COMPLEX, domain=(1.0, 6.0), int_domain=(1, 8)),
    pair("Atanh", torch.atanh, REALS + INTB + COMPLEX, domain=(-1.0, 1.0), int_domain=(-1, 1)),
    pair("Erf", torch.erf, REALS + ("bool", "int64")),
    pair("Erfc", torch.erfc, REALS + ("bool", "int64")),
    pair("Exp", torch.exp, REALS + COMPLEX + ("bool", "int64")),
    pair("Expm1", torch.expm1, FLOATS + ("bool", "int64")),
    pair("Exp2", torch.exp2, REALS + INTB),
    pair("Log", torch.log, REALS + COMPLEX + INTB, domain=(0.01, 10.0)),
    pair("Log2", torch.log2, REALS + COMPLEX + INTB, domain=(0.01, 10.0)),
    pair("Log10", torch.log10, REALS + COMPLEX + INTB, domain=(0.01, 10.0)),
    pair("Log1p", torch.log1p, REALS + INTB, domain=(-0.99, 10.0)),
    pair("Sqrt", torch.sqrt, REALS + COMPLEX + INTB),
    pair("Rsqrt", torch.rsqrt, REALS + COMPLEX + INTB),
    pair("Reciprocal", torch.reciprocal, REALS + COMPLEX + INTB),
    math_op("aclnnDigamma", digamma, ("float32", "float16", "float64"), domain=(-4.5, 6.0),
            tol={**ULP, "float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}),
    math_op("aclnnLgamma", torch.lgamma, ("float32", "float16", "float64"), domain=(-4.5, 6.0),
            tol={**ULP, "float32": (1e-6, 1e-6), "float64": (1e-12, 1e-12)}),
    OpInfo("aclnnSinc", sinc, REALS + INTB, kind="unary", inplace="aclnnInplaceSinc", native16=True, extra=specials,
           tol=ULP),
]

ROUNDING = [
    OpInfo("aclnnCeil", torch.ceil, REALS, kind="unary", inplace="aclnnInplaceCeil", extra=specials, tol=EXACT),
    OpInfo("aclnnFloor", floats_only(torch.floor), REALS + INTS + UINTS, kind="unary", inplace="aclnnInplaceFloor",
           extra=specials, tol=EXACT),
    OpInfo("aclnnTrunc", torch.trunc, FLOATS, kind="unary", inplace="aclnnInplaceTrunc", extra=specials, tol=EXACT),
    OpInfo("aclnnFrac", floats_only(torch.frac, torch.zeros_like), FLOATS + INTS, kind="unary",
           inplace="aclnnInplaceFrac", extra=specials, domain=(-40.0, 40.0), tol=EXACT),
    OpInfo("aclnnRound", floats_only(torch.round), REALS + ("int32", "int64"), kind="unary",
           inplace="aclnnInplaceRound", extra=specials, domain=(-8.0, 8.0), tol=EXACT),
    OpInfo("aclnnRoundDecimals", round_decimals, REALS + ("int32", "int64"), kind="unary", attrs=((0,), (2,), (-1,)),
           inplace="aclnnInplaceRoundDecimals", domain=(-300.0, 300.0), int_domain=(-300, 300), tol=EXACT),
]

SIGN = [
    OpInfo("aclnnAbs", lambda x: x if x.dtype == torch.bool else torch.abs(x), REALS + INTB + ("complex64",),
           kind="unary", extra=specials),
    OpInfo("aclnnNeg", torch.neg, REALS + ("int8", "int32", "int64") + COMPLEX, kind="unary",
           inplace="aclnnInplaceNeg", extra=specials, int_domain=(-128, 127), tol=EXACT),
    OpInfo("aclnnSign", lambda x: cr(torch.sgn)(x) if x.is_complex() else torch.sign(x),
           REALS + ("int32", "int64", "bool") + COMPLEX, kind="unary", extra=specials, any_rank=True,
           tol={**EXACT, "complex128": (1e-15, 1e-300)}),
    OpInfo("aclnnSignbit", signbit, REALS + INTB + UINTS, kind="unary", extra=specials),
]

PREDICATES = [
    OpInfo("aclnnIsFinite", torch.isfinite, REALS + INTB, kind="unary", extra=specials),
    OpInfo("aclnnIsInf", torch.isinf, FLOATS, kind="unary", extra=specials),
    OpInfo("aclnnIsNegInf", torch.isneginf, FLOATS + INTB, kind="unary", extra=specials),
    OpInfo("aclnnIsPosInf", torch.isposinf, FLOATS + INTB, kind="unary", extra=specials),
]

VALUES = [
    OpInfo("aclnnInplaceZero", torch.zeros_like, REALS + INTB + ("uint16",) + COMPLEX, kind="unary",
           any_rank=True, tol=EXACT),
    OpInfo("aclnnInplaceOne", torch.ones_like, REALS + INTB, kind="unary", tol=EXACT),
    OpInfo("aclnnTanhBackward", tanh_backward, REALS, kind="binary", mixed=False, domain=(-1.0, 1.0), tol=EXACT),
]


# ---- aclnnCast: the device's Cast rules, in exact arithmetic ------------------------------------------------

BITS = {"float16": (11, -14, 15), "bfloat16": (8, -126, 127), "float32": (24, -126, 127)}  # precision, emin, emax


def round_exact(v: Fraction, dtype: str) -> float:
    """v rounded once (to nearest, ties to even) to a binary floating type, as a float64 (inf beyond its range)."""
    if dtype == "float64":
        return float(v)  # Fraction -> float is correctly rounded
    p, emin, emax = BITS[dtype]
    if v == 0:
        return 0.0
    sign, m = (-1 if v < 0 else 1), abs(v)
    e = m.numerator.bit_length() - m.denominator.bit_length()  # 2^e <= m < 2^(e+2)
    while Fraction(2) ** e > m:
        e -= 1
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    q = Fraction(2) ** (max(e, emin) - p + 1)  # the ulp at m
    n, r = divmod(m / q, 1)
    n = int(n)
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2):
        n += 1
    out = n * q
    if out >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(out)


def as_numpy(x: torch.Tensor) -> np.ndarray:
    if x.dtype == torch.bfloat16:
        return x.contiguous().view(torch.int16).numpy().view(bfloat16)
    return x.numpy()


def cast_value(v, dst: str):
    """One real value (Python int or float) converted to dst (a numpy scalar's value)."""
    if dst == "bool":
        return v != 0 or v != v
    if dst in INTS + UINTS:
        info = np.iinfo(dst)
        if isinstance(v, float):
            if v != v:
                return 0
            v = max(info.min, min(info.max, int(v))) if math.isfinite(v) else (info.max if v > 0 else info.min)
            return v
        return (v - info.min) % (info.max - info.min + 1) + info.min  # integers wrap
    if isinstance(v, float) and not math.isfinite(v):
        return v
    return round_exact(Fraction(v), dst)


def cast_ref(x: torch.Tensor, dtype: str):
    a = as_numpy(x)
    src = "bfloat16" if a.dtype == bfloat16 else str(a.dtype)
    out = np.empty(a.shape, np_dtype(dtype))
    flat, res = a.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat):
        if src in COMPLEX:
            re, im = float(v.real), float(v.imag)
            if dtype == "bool":
                res[i] = re != 0 or im != 0 or re != re or im != im
            elif dtype in COMPLEX:
                part = "float32" if dtype == "complex64" else "float64"
                res[i] = complex(cast_value(re, part), cast_value(im, part))
            else:
                res[i] = cast_value(re, dtype)
            continue
        py = bool(v) if src == "bool" else (int(v) if src in INTS + UINTS else float(v))
        if src == "bool":
            py = int(py)
        if dtype in COMPLEX:
            res[i] = cast_value(py, "float32" if dtype == "complex64" else "float64")
        else:
            res[i] = cast_value(py, dtype)
    return out


CAST_VALUES = {
    "float": (0.0, -0.0, np.inf, -np.inf, np.nan, 0.49, -0.5, 1.5, -2.5, 127.9, 128.5, -128.7, -129.0, 255.7, 256.0,
              -1.0, 32767.5, 65504.0, 65519.0, 65520.0, 1e10, -1e10, 3e38, 1 + 2**-8 + 2**-30, 1e-40, 2.0**31,
              -2.0**31 - 1, 2.0**63, 2.0**64),
    "int": (0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, -32768, 65535, 65536, 2**31 - 1, -2**31, 2**53 + 1,
            2**62 + 2**55 + 2**54 - 1, -(2**63), 2**63 - 1, 2**64 - 1),
}


def cast_samples(dtype, rng):
    dt = np_dtype(dtype)
    if dtype == "bool":
        base = np.array([True, False, True, True], bool)
    elif dtype in INTS + UINTS:
        info = np.iinfo(dt)
        base = np.array([v for v in CAST_VALUES["int"] if info.min <= v <= info.max], dt)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            vals = np.array(CAST_VALUES["float"], np.float64)
            if dtype in COMPLEX:
                base = (vals + 1j * vals[::-1]).astype(dt)
            else:
                base = vals.astype(dt)
    out = [Sample((base,), (target,), f"to {target}") for target in EVERY]
    grid = np.resize(base, (5, 6))
    out.append(Sample((grid.T,), ("float32" if dtype != "float32" else "int32",), "transposed"))
    out.append(Sample((base[:0],), ("float16",), "empty"))
    out.append(Sample((base[:1].reshape(()),), ("int64",), "0-d"))
    return out


CAST = [OpInfo("aclnnCast", cast_ref, EVERY, kind="custom", samples=cast_samples, native16=True, tol=EXACT)]

ENTRIES = MATH + ROUNDING + SIGN + PREDICATES + VALUES + CAST
