"""ops-math vector products: dot, ger, addr."""

import torch

from . import COMPLEX, FLOATS, OpInfo, Sample, random_array

DOT_DTYPES = FLOATS + ("int8", "int32", "uint8")
GER_DTYPES = ("float32", "float16", "int32", "float64", "int8", "uint8", "int16", "bool", "int64") + COMPLEX
ADDR_DTYPES = ("float64",) + FLOATS + ("int64", "int32", "int16", "int8", "uint8", "bool")
# the vector unit's reduction order against torch's
DOT_TOL = {"float32": (2e-5, 5e-5), "float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2)}


def arr(rng, shape, dtype):
    return random_array(rng, shape, dtype, (-2.0, 2.0), (-8, 8))


def dot_samples(dtype, rng):
    return [Sample((arr(rng, (n,), dtype), arr(rng, (n,), dtype)), (), f"n={n}") for n in (1, 7, 0, 300, 5000)] + [
        Sample((arr(rng, (12,), dtype)[::3], arr(rng, (8,), dtype)[::-2]), (), "strided views")]


def dot_ref(a, b):
    if a.dtype.is_floating_point:
        return torch.dot(a.double(), b.double()).to(a.dtype)
    return (a.long() * b.long()).sum().to(a.dtype)


def ger_samples(dtype, rng):
    return [Sample((arr(rng, (n,), dtype), arr(rng, (m,), dtype)), (), f"{n}x{m}")
            for n, m in ((3, 4), (1, 1), (0, 3), (40, 300))] + [
        Sample((arr(rng, (10,), dtype)[::2], arr(rng, (3,), dtype)[::-1]), (), "strided views")]


def outer(a, b):
    if a.dtype == torch.bool:
        return a[:, None] & b[None, :]
    return torch.outer(a, b)


def addr_ref(self, v1, v2, beta, alpha):
    """beta * self + (alpha * vec1) (x) vec2, BOOL as AND and OR; beta 0 ignores self, None means 1."""
    beta = 1 if beta is None else beta
    alpha = 1 if alpha is None else alpha
    if v1.dtype == torch.bool:
        prod = outer(v1 & bool(alpha), v2)
        return prod if not beta else prod | (self & bool(beta))
    prod = outer(v1 * alpha, v2)
    return prod if beta == 0 else prod + self * beta


def addr_samples(dtype, rng):
    ints = dtype not in FLOATS + ("float64",)
    if dtype == "bool":
        alpha, beta = True, True
    else:
        alpha, beta = (2, 3) if ints else (1.5, 0.5)
    s = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    return [
        Sample((s(3, 4), s(3), s(4)), (beta, alpha), "3x4"),
        Sample((s(4), s(3), s(4)), (beta, alpha), "self a row"),
        Sample((s(3, 4), s(3), s(4)), (None, None), "default beta and alpha"),
        Sample((s(3, 4), s(3), s(4)), (False if dtype == "bool" else 0, alpha), "beta 0"),
        Sample((s(20, 30), s(40)[::2], s(30)), (beta, alpha), "strided vec1"),
    ]


ENTRIES = [
    OpInfo("aclnnDot", dot_ref, DOT_DTYPES, kind="custom", samples=dot_samples, tol=DOT_TOL),
    OpInfo("aclnnGer", outer, GER_DTYPES, kind="custom", samples=ger_samples),
    OpInfo("aclnnAddr", addr_ref, ADDR_DTYPES, kind="custom", samples=addr_samples, inplace="aclnnInplaceAddr"),
]
