"""ops-nn matrix products: matmul, mm, batch_matmul, addmm, baddbmm, addbmm, mv, addmv.

The oracle is torch in float32 (16-bit inputs widened exactly, the result rounded once), with the cube's
cubeMathType rules applied to the operands first: HFLOAT32 (11-bit significands) for float32 under
ALLOW_FP32_DOWN_PRECISION (1) and USE_HF32 (3), FLOAT16 under USE_FP16 (2), whose product is rounded to FLOAT16.
Tolerances allow for another float32 accumulation order (the BLAS's against torch's).
"""

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, random_array

# float32 sums of up to a few hundred products of values in [-2, 2] in another order
MM_TOL = {"float32": (2e-5, 5e-5), "float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2)}


def hf32(t: torch.Tensor) -> torch.Tensor:
    """float32 rounded to HFLOAT32: an 11-bit significand, round to nearest even."""
    u = t.contiguous().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    finite = (u & 0x7F800000) != 0x7F800000
    r = (u + 0x0FFF + ((u >> 13) & 1)) & 0xFFFFE000
    u = torch.where(finite, r, u)
    return (u - ((u & 0x80000000) << 1)).to(torch.int32).view(torch.float32).reshape(t.shape)


def cube(a, b, cmt):
    """The operands as the cube rounds them, and whether the product is rounded to FLOAT16."""
    if cmt in (1, 3):
        a, b = (hf32(x) if x.dtype == torch.float32 else x for x in (a, b))
    if cmt == 2:
        a, b = a.half().float(), b.half().float()
    return a, b, cmt == 2


def product(a, b, cmt, op=torch.matmul):
    a, b, to16 = cube(a, b, cmt)
    r = op(a, b)
    return r.half().float() if to16 else r


def arr(rng, shape, dtype, domain=(-2.0, 2.0)):
    return random_array(rng, shape, dtype, domain, (-8, 8))


def t_view(rng, shape, dtype):
    """A transposed (column-major) view of the given shape."""
    return arr(rng, shape[:-2] + (shape[-1], shape[-2]), dtype).swapaxes(-1, -2)


# ---- matmul, mm, batch_matmul ---------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)), ((5,), (5,)), ((4,), (4, 3)), ((3, 4), (4,)), ((2, 3, 4), (4, 5)), ((4,), (2, 4, 3)),
    ((2, 1, 3, 4), (5, 4, 6)), ((3, 4), (2, 4, 2)), ((0, 4), (4, 3)), ((3, 0), (0, 2)), ((300, 70), (70, 600)),
    ((2, 5000), (5000, 3)),
]


def matmul_samples(dtype, rng):
    out = [Sample((arr(rng, a, dtype), arr(rng, b, dtype)), (0,), f"{a}@{b}") for a, b in MATMUL_SHAPES]
    out.append(Sample((t_view(rng, (2, 6, 5), dtype), t_view(rng, (5, 7), dtype)), (0,), "transposed views"))
    base = arr(rng, (8, 9), dtype)
    out.append(Sample((base[::2, 1::2], arr(rng, (4, 3), dtype)[::-1]), (0,), "strided and reversed views"))
    for cmt in (1, 2, 3, 4, -1):
        out.append(Sample((arr(rng, (6, 40), dtype), arr(rng, (40, 7), dtype)), (cmt,), f"cubeMathType {cmt}"))
    other = "float32" if dtype != "float32" else "float16"
    out.append(Sample((arr(rng, (3, 8), dtype), arr(rng, (8, 2), other)), (0,), f"mixed with {other}"))
    return out


def mm_samples(dtype, rng):
    out = [Sample((arr(rng, (m, k), dtype), arr(rng, (k, n), dtype)), (0,), f"{m}x{k}x{n}")
           for m, k, n in ((3, 4, 5), (1, 7, 1), (0, 3, 4), (5, 0, 2), (257, 33, 513))]
    out.append(Sample((t_view(rng, (6, 9), dtype), t_view(rng, (9, 4), dtype)), (1,), "transposed, cubeMathType 1"))
    out.append(Sample((arr(rng, (6, 20), dtype), arr(rng, (20, 4), dtype)), (2,), "cubeMathType 2"))
    return out


def bmm_samples(dtype, rng):
    return [
        Sample((arr(rng, (3, 4, 5), dtype), arr(rng, (3, 5, 6), dtype)), (0,), "3 batches"),
        Sample((arr(rng, (1, 4, 5), dtype), arr(rng, (3, 5, 2), dtype)), (0,), "broadcast batch"),
        Sample((t_view(rng, (4, 6, 5), dtype), arr(rng, (4, 5, 3), dtype)), (3,), "transposed, cubeMathType 3"),
        Sample((arr(rng, (2, 3, 0), dtype), arr(rng, (2, 0, 4), dtype)), (0,), "empty reduction"),
        Sample((arr(rng, (64, 8, 8), dtype), arr(rng, (64, 8, 8), dtype)), (4,), "many small matrices"),
    ]


# ---- addmm, baddbmm, addbmm -------------------------------------------------------------------------------------


def addmm_ref(self, m1, m2, beta, alpha, cmt):
    """The op_api's branches: alpha 0 gives beta * self, beta 0 leaves self out, an empty reduction gives
    beta * self (addmm); the addition takes the float32 product (the cube's 16-bit one under USE_FP16)."""
    if alpha == 0 or (m1.dim() == 2 and m1.shape[-1] == 0):
        return (beta * self.float()).expand(m1.shape[:-1] + m2.shape[-1:])
    r = product(m1.float(), m2.float(), cmt)
    r = alpha * r if alpha != 1 else r
    return r if beta == 0 else r + beta * self.float()


def addbmm_ref(self, b1, b2, beta, alpha, cmt):
    """Addbmm (16-bit operands as they are): the products, each rounded to the operands' dtype, summed over the
    batch in float32; alpha 0 gives beta * self (zeros when beta is 0 too), beta 0 leaves self out."""
    dt = b1.dtype
    shape = (b1.shape[1], b2.shape[2])
    if alpha == 0:
        return (beta * self.float()).expand(shape).to(dt) if beta != 0 else torch.zeros(shape, dtype=dt)
    p = product(b1.float(), b2.float(), cmt).to(dt).float().sum(0) if b1.shape[0] else torch.zeros(shape)
    r = alpha * p if alpha != 1 else p
    return (r if beta == 0 else r + beta * self.float()).to(dt)


def addmm_samples(dtype, rng):
    s = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    return [
        Sample((s(3, 5), s(3, 4), s(4, 5)), (1.0, 1.0, 0), "alpha 1 beta 1"),
        Sample((s(5), s(3, 4), s(4, 5)), (0.5, 2.0, 0), "self a row"),
        Sample((s(3, 1), s(3, 4), s(4, 5)), (2.0, -1.0, 1), "self a column, cubeMathType 1"),
        Sample((s(3, 5), s(3, 4), s(4, 5)), (0.0, 1.5, 0), "beta 0"),
        Sample((s(3, 5), s(3, 4), s(4, 5)), (1.0, 0.0, 0), "alpha 0"),
        Sample((s(3, 5), s(3, 0), s(0, 5)), (0.5, 1.0, 0), "empty reduction"),
        Sample((s(6, 7), t_view(rng, (6, 9), dtype), s(9, 7)), (1.0, 1.0, 2), "transposed, cubeMathType 2"),
    ]


def baddbmm_samples(dtype, rng):
    s = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    return [
        Sample((s(2, 3, 5), s(2, 3, 4), s(2, 4, 5)), (1.0, 1.0, 0), "alpha 1 beta 1"),
        Sample((s(5), s(2, 3, 4), s(2, 4, 5)), (0.5, 2.0, 0), "self broadcast"),
        Sample((s(2, 3, 5), s(2, 3, 4), s(1, 4, 5)), (0.0, 1.5, 1), "beta 0, batch2 broadcast"),
        Sample((s(2, 3, 5), s(2, 3, 4), s(2, 4, 5)), (1.0, 0.0, 0), "alpha 0"),
        Sample((s(2, 3, 5), s(2, 3, 0), s(2, 0, 5)), (0.5, 1.0, 0), "empty reduction"),
    ]


def addbmm_samples(dtype, rng):
    s = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    return [
        Sample((s(3, 5), s(4, 3, 6), s(4, 6, 5)), (1.0, 1.0, 0), "alpha 1 beta 1"),
        Sample((s(5), s(4, 3, 6), s(4, 6, 5)), (0.5, 2.0, 0), "self a row"),
        Sample((s(3, 5), s(2, 3, 6), s(2, 6, 5)), (0.0, 1.5, 0), "beta 0"),
        Sample((s(3, 5), s(2, 3, 6), s(2, 6, 5)), (2.0, 0.0, 0), "alpha 0"),
        Sample((s(3, 5), s(0, 3, 6), s(0, 6, 5)), (1.0, 1.0, 0), "no batch"),
    ]


# ---- mv, addmv ------------------------------------------------------------------------------------------------------


def mv_samples(dtype, rng):
    return [
        Sample((arr(rng, (5, 7), dtype), arr(rng, (7,), dtype)), (0,), "5x7"),
        Sample((t_view(rng, (33, 20), dtype), arr(rng, (20,), dtype)[::-1]), (1,), "transposed, reversed vec"),
        Sample((arr(rng, (0, 3), dtype), arr(rng, (3,), dtype)), (0,), "no rows"),
        Sample((arr(rng, (4, 0), dtype), arr(rng, (0,), dtype)), (0,), "empty reduction"),
    ]


ADDMV_DTYPES = FLOATS + ("float64", "int32", "int64", "int16", "int8", "uint8", "bool")


def addmv_ref(self, mat, vec, alpha, beta, cmt):
    """The op_api's chain (16-bit operands as they are): the product in the operands' dtype (the cube for float
    types, exact for integers, any(mat & vec) for BOOL), then beta * self + alpha * product."""
    dt = mat.dtype
    if dt == torch.bool:
        p = (mat & vec).any(1)
    elif dt in (torch.float16, torch.bfloat16, torch.float32):
        p = product(mat.float(), vec.float(), cmt).to(dt)
    elif dt == torch.float64:
        p = mat @ vec
    else:
        p = (mat.long() * vec.long()).sum(1).to(dt)
    with_p = alpha != 0 and mat.numel() != 0
    if dt == torch.bool:
        r = p & bool(alpha) if with_p else None
        sv = self & bool(beta)
        r = sv.expand(mat.shape[:1]) if r is None else (r if beta == 0 else r | sv)
        return r
    wide = torch.float64 if dt.is_floating_point else torch.int64
    sv = self.to(wide) * beta
    if not with_p:
        return sv.expand(mat.shape[:1]).to(dt)
    r = p.to(wide) * alpha
    return (r if beta == 0 else r + sv).to(dt)


def addmv_samples(dtype, rng):
    s = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    ints = dtype not in FLOATS + ("float64",)
    alpha, beta = (2, 3) if ints else (1.5, 0.5)
    if dtype == "bool":
        alpha, beta = True, True
    return [
        Sample((s(4), s(4, 6), s(6)), (alpha, beta, 0), "4x6"),
        Sample((s(1), s(4, 6), s(6)), (alpha, beta, 0) if dtype == "bool" else (1, 1, 0), "self broadcast"),
        Sample((s(4), s(4, 6), s(6)), (False if dtype == "bool" else 0, beta, 0), "alpha 0"),
        Sample((s(4), s(4, 0), s(0)), (alpha, beta, 0), "empty reduction"),
    ]


# ---- gemm, transpose_batch_mat_mul ------------------------------------------------------------------------------------


def gemm_ref(a, b, c, alpha, beta, ta, tb, cmt):
    """alpha * op(A) @ op(B) + beta * C with the cube's product (16-bit operands: rounded to their type first)."""
    a, b = (a.T if ta else a), (b.T if tb else b)
    if a.shape[1] == 0:
        return (beta * c.float()).expand(a.shape[0], b.shape[1]).to(a.dtype)
    p = product(a.float(), b.float(), cmt)
    if a.dtype in (torch.float16, torch.bfloat16):
        p = p.to(a.dtype).float()
    r = alpha * p if alpha != 1 else p
    return (r if beta == 0 else r + beta * c.float()).to(a.dtype)


def gemm_samples(dtype, rng):
    s = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    return [Sample((s(3, 4), s(4, 5), s(3, 5), 1.5, 0.5, 0, 0), (0,), "plain"),
            Sample((s(4, 3), s(5, 4), s(5), 1.0, 1.0, 1, 1), (1,), "both transposed, C a row"),
            Sample((s(3, 4), s(4, 5), s(3, 5), 2.0, 0.0, 0, 0), (0,), "beta 0"),
            Sample((s(3, 0), s(0, 5), s(3, 1), 1.0, 2.0, 0, 0), (0,), "empty reduction")]


def tbmm_ref(x1, x2, bias, scale, p1, p2, py, cmt, bsf):
    """x1 and x2 permuted to (B, M, K) and (B, K, N); the (B, M, N) product written as (M, B, N), or as
    (f, M, B / f * N) for a batch split f."""
    a, b = x1.permute(*p1).float(), x2.permute(*p2).float()
    if x1.dtype == torch.float32 and cmt == 3:
        a, b = hf32(a), hf32(b)
    r = torch.matmul(a, b)  # (B, M, N)
    if bsf > 1:
        bb, m, n = r.shape
        return r.reshape(bsf, bb // bsf, m, n).permute(0, 2, 1, 3).reshape(bsf, m, bb // bsf * n)
    return r.permute(1, 0, 2)


def tbmm_samples(dtype, rng):
    s = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    return [Sample((s(5, 3, 8), s(3, 8, 4), None, None, [1, 0, 2], [0, 1, 2], [1, 0, 2], 0, 1), (), "x1 (M, B, K)"),
            Sample((s(3, 5, 8), s(3, 8, 4), None, None, [0, 1, 2], [0, 1, 2], [1, 0, 2], 3, 1), (), "x1 (B, M, K)"),
            Sample((s(5, 3, 8), s(3, 4, 8), None, None, [1, 0, 2], [0, 2, 1], [1, 0, 2], 1, 1), (), "x2 (B, N, K)"),
            Sample((s(5, 4, 8), s(4, 8, 3), None, None, [1, 0, 2], [0, 1, 2], [1, 0, 2], 0, 2), (), "batch split 2")]


ENTRIES = [
    OpInfo("aclnnMatmul", lambda a, b, cmt: product(a, b, cmt), FLOATS, kind="custom", samples=matmul_samples,
           tol=MM_TOL),
    OpInfo("aclnnMm", lambda a, b, cmt: product(a, b, cmt), FLOATS, kind="custom", samples=mm_samples, tol=MM_TOL),
    OpInfo("aclnnBatchMatMul", lambda a, b, cmt: product(a, b, cmt), FLOATS, kind="custom", samples=bmm_samples,
           tol=MM_TOL),
    OpInfo("aclnnAddmm", addmm_ref, FLOATS, kind="custom", samples=addmm_samples, inplace="aclnnInplaceAddmm",
           tol=MM_TOL),
    OpInfo("aclnnBaddbmm", addmm_ref, FLOATS, kind="custom", samples=baddbmm_samples,
           inplace="aclnnInplaceBaddbmm", tol=MM_TOL),
    OpInfo("aclnnAddbmm", addbmm_ref, FLOATS, kind="custom", samples=addbmm_samples, inplace="aclnnInplaceAddbmm",
           tol=MM_TOL, native16=True),
    OpInfo("aclnnMv", lambda a, v, cmt: product(a, v, cmt), FLOATS, kind="custom", samples=mv_samples, tol=MM_TOL),
    OpInfo("aclnnAddmv", addmv_ref, ADDMV_DTYPES, kind="custom", samples=addmv_samples, tol=MM_TOL, native16=True),
    OpInfo("aclnnGemm", gemm_ref, FLOATS, kind="custom", samples=gemm_samples, tol=MM_TOL, native16=True),
    OpInfo("aclnnTransposeBatchMatMul", tbmm_ref, FLOATS, kind="custom", samples=tbmm_samples, tol=MM_TOL),
]
