"""ops-math linear algebra: cross, cholesky, slogdet/logdet, qr/linalg_qr, svd, triangular_solve.

The stub factorises in float64 (LAPACK) and rounds once, so the oracles compute in float64 too (numpy's LAPACK for
QR and SVD, whose vectors' signs are LAPACK's as the stub's are) and the result is rounded to the output dtype."""

import numpy as np
import torch

from . import COMPLEX, OpInfo, Sample, np_dtype, random_array

CROSS_DTYPES = ("float32", "float16", "float64", "int8", "int16", "int32", "int64", "complex64", "complex128",
                "uint8", "bfloat16")
DET_DTYPES = ("float32", "float64") + COMPLEX
QR_DTYPES = ("float32", "float16", "float64") + COMPLEX
SVD_DTYPES = ("float64", "float32") + COMPLEX
TS_DTYPES = ("float32", "float64") + COMPLEX
# float32 results of float64 factorisations against the same: a rounding or two apart
LINALG_TOL = {"float32": (1e-5, 1e-5), "complex64": (1e-5, 1e-5), "float64": (1e-10, 1e-10),
              "complex128": (1e-10, 1e-10), "float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2)}


def arr(rng, shape, dtype, domain=(-2.0, 2.0)):
    return random_array(rng, shape, dtype, domain, (-8, 8))


def well_conditioned(rng, shape, dtype):
    """Random matrices plus a multiple of the identity (square) or of a diagonal (rectangular): well away from
    singular, with distinct singular values."""
    a = arr(rng, shape, dtype, (-1.0, 1.0)).astype(np.complex128 if dtype in COMPLEX else np.float64)
    m, n = shape[-2], shape[-1]
    for i in range(min(m, n)):
        a[..., i, i] += 4.0 + i
    return a.astype(np_dtype(dtype))


def t64(t):
    return t.to(torch.complex128 if t.is_complex() else torch.float64)


# ---- cross ----------------------------------------------------------------------------------------------------

def cross_ref(a, b, dim):
    if dim >= 0 and a.dim() < b.dim() and tuple(a.shape) != tuple(b.shape):
        dim += b.dim() - a.dim()  # the op_api reads dim in self's dimensions
    a, b = torch.broadcast_tensors(a, b)
    if a.dtype.is_floating_point or a.is_complex():
        return torch.linalg.cross(t64(a), t64(b), dim=dim).to(a.dtype)
    return torch.linalg.cross(a.long(), b.long(), dim=dim).to(a.dtype)


def cross_samples(dtype, rng):
    s = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    return [
        Sample((s(3), s(3)), (0,), "vectors"),
        Sample((s(4, 3), s(4, 3)), (-1,), "rows"),
        Sample((s(3, 5), s(3, 5)), (0,), "columns"),
        Sample((s(2, 3, 4), s(3, 1)), (-2,), "broadcast"),
        Sample((s(3, 4), s(2, 3, 4)), (0,), "self fewer dims, dim >= 0"),
        Sample((s(5, 3).T, s(3, 5)), (0,), "transposed self"),
        Sample((s(0, 3), s(0, 3)), (1,), "empty"),
        Sample((s(3000, 3), s(3000, 3)), (1,), "threads"),
    ]


# ---- cholesky -------------------------------------------------------------------------------------------------

def spd(rng, shape, dtype):
    a = arr(rng, shape, "float64", (-1.0, 1.0))
    a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    return a.astype(np_dtype(dtype))


def cholesky_ref(a, upper):
    lo = torch.linalg.cholesky(a.double())
    return (lo.mT if upper else lo).to(a.dtype)


def cholesky_samples(dtype, rng):
    return [
        Sample((spd(rng, (4, 4), dtype),), (False,), "lower"),
        Sample((spd(rng, (4, 4), dtype),), (True,), "upper"),
        Sample((spd(rng, (2, 3, 5, 5), dtype),), (False,), "batched"),
        Sample((spd(rng, (6, 6), dtype).T,), (True,), "transposed view"),
        Sample((spd(rng, (1, 1), dtype),), (False,), "1x1"),
        Sample((np.zeros((0, 3, 3), np_dtype(dtype)),), (False,), "empty"),
    ]


# ---- determinants ---------------------------------------------------------------------------------------------

def det_matrices(rng, dtype):
    sq = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    sing = arr(rng, (3, 3), dtype)
    sing[1] = 0  # singular: LU keeps the zero row exactly
    neg = np.diag(np.array([1, -2, 3])).astype(np_dtype(dtype))  # negative determinant
    return [(sq(4, 4), "4x4"), (sq(2, 3, 3), "batched"), (sq(5, 5).T, "transposed view"), (sing, "singular"),
            (neg, "negative determinant"), (sq(1, 1), "1x1"), (sq(0, 2, 2), "empty")]


def slogdet_ref(a):
    sign, logabs = torch.linalg.slogdet(t64(a))
    sign = torch.where(logabs == -torch.inf, torch.zeros_like(sign), sign)  # the kernel's sign of a singular matrix
    return sign.to(a.dtype), logabs.to(a.dtype)


def logdet_ref(a):
    r = torch.logdet(t64(a))
    if r.is_complex():  # a singular matrix: log(0 + 0j) = -inf + 0j (torch gives a NaN imaginary part)
        r = torch.where(r.real == -torch.inf, torch.complex(r.real, torch.zeros_like(r.real)), r)
    return r.to(a.dtype)


def slogdet_samples(dtype, rng):
    return [Sample((a,), (), name) for a, name in det_matrices(rng, dtype)]


# ---- qr ---------------------------------------------------------------------------------------------------------

def qr_np(a, mode):
    """numpy's LAPACK QR in float64/complex128 (mode 'reduced', 'complete', 'r'); Q is empty for 'r'."""
    a64 = a.numpy().astype(np.complex128 if a.is_complex() else np.float64)
    m, n = a64.shape[-2:]
    if a64.size == 0:
        k = min(m, n)
        q = np.broadcast_to(np.eye(m, m if mode == "complete" else k), a64.shape[:-2] + (m, m if mode == "complete" else k))
        r = np.zeros(a64.shape[:-2] + ((m if mode == "complete" else k), n), a64.dtype)
    elif mode == "r":
        q, r = None, np.linalg.qr(a64, mode="r")
    else:
        q, r = np.linalg.qr(a64, mode=mode)
    dt = a.dtype if a.dtype != torch.float16 else torch.float32
    to = lambda x: torch.from_numpy(np.ascontiguousarray(x)).to(dt).to(a.dtype)  # noqa: E731
    return (torch.zeros(0, dtype=a.dtype) if q is None else to(q)), to(r)


def linalg_qr_ref(a, mode):
    return qr_np(a, {0: "reduced", 1: "complete", 2: "r"}.get(mode, "reduced"))


def qr_ref(a, some):
    return qr_np(a, "reduced" if some else "complete")


def qr_matrices(rng, dtype):
    w = lambda *shape: well_conditioned(rng, shape, dtype)  # noqa: E731
    return [(w(4, 4), "4x4"), (w(5, 3), "tall"), (w(3, 5), "wide"), (w(2, 4, 3), "batched"), (w(4, 6).T, "transposed view")]


def linalg_qr_samples(dtype, rng):
    out = [Sample((a,), (mode,), f"{name} mode {mode}") for a, name in qr_matrices(rng, dtype) for mode in (0, 1, 2)]
    out.append(Sample((np.zeros((4, 0), np_dtype(dtype)),), (1,), "no columns, complete: Q = I"))
    return out


def qr_samples(dtype, rng):
    return [Sample((a,), (some,), f"{name} some={some}") for a, name in qr_matrices(rng, dtype) for some in (True, False)]


# ---- svd --------------------------------------------------------------------------------------------------------

def svd_ref(a, full, uv):
    a64 = a.numpy().astype(np.complex128 if a.is_complex() else np.float64)
    to = lambda x: torch.from_numpy(np.ascontiguousarray(x)).to(a.dtype)  # noqa: E731
    if not uv:
        empty = torch.zeros(0, dtype=a.dtype)  # u and v: shape [0], not written
        return to(np.linalg.svd(a64, compute_uv=False)), empty, empty
    u, s, vh = np.linalg.svd(a64, full_matrices=full)
    return to(s), to(u), to(np.conj(np.swapaxes(vh, -1, -2)))


def svd_samples(dtype, rng):
    w = lambda *shape: well_conditioned(rng, shape, dtype)  # noqa: E731
    out = []
    for a, name in ((w(4, 4), "4x4"), (w(5, 3), "tall"), (w(3, 5), "wide"), (w(2, 4, 3), "batched"),
                    (w(3, 6).T, "transposed view")):
        for full in (True, False):
            out.append(Sample((a,), (full, True), f"{name} full={full}"))
    out.append(Sample((w(4, 3),), (False, False), "values only"))
    return out


# ---- triangular solve ---------------------------------------------------------------------------------------------

def ts_ref(b, a, upper, transpose, unit):
    a64, b64 = t64(a), t64(b)
    batch = torch.broadcast_shapes(a64.shape[:-2], b64.shape[:-2])
    m = a64.broadcast_to(batch + a64.shape[-2:])
    op = m.mH if transpose else m  # the kernel's adjoint (the conjugate transpose for complex)
    x = torch.linalg.solve_triangular(op, b64.broadcast_to(batch + b64.shape[-2:]), upper=upper != transpose,
                                      unitriangular=unit)
    return x.to(a.dtype), m.to(a.dtype)


def ts_samples(dtype, rng):
    w = lambda *shape: well_conditioned(rng, shape, dtype)  # noqa: E731
    s = lambda *shape: arr(rng, shape, dtype)  # noqa: E731
    out = [
        Sample((s(4, 2), w(4, 4)), (True, False, False), "upper"),
        Sample((s(4, 3), w(4, 4)), (False, False, False), "lower"),
        Sample((s(4, 3), w(4, 4)), (True, True, False), "upper, transposed"),
        Sample((s(4, 3), w(4, 4)), (False, True, False), "lower, transposed"),
        Sample((s(2, 4, 3), w(4, 4)), (True, False, False), "A broadcast"),
        Sample((s(4, 3), w(3, 1, 4, 4)), (False, False, False), "b broadcast"),
        Sample((s(3, 4).T, w(4, 4).T), (True, False, False), "transposed views"),
    ]
    if dtype == "float32":
        out.append(Sample((s(4, 3), w(4, 4)), (False, False, True), "unitriangular"))
    return out


ENTRIES = [
    OpInfo("aclnnLinalgCross", cross_ref, CROSS_DTYPES, kind="custom", samples=cross_samples, native16=True,
           tol={"float32": (1e-6, 1e-5), "complex64": (1e-6, 1e-5)}),
    OpInfo("aclnnLinalgCholesky", cholesky_ref, ("float32", "bfloat16", "float16"), kind="custom",
           samples=cholesky_samples, tol=LINALG_TOL),
    OpInfo("aclnnSlogdet", slogdet_ref, DET_DTYPES, kind="custom", samples=slogdet_samples, tol=LINALG_TOL),
    OpInfo("aclnnLogdet", logdet_ref, DET_DTYPES, kind="custom", samples=slogdet_samples, tol=LINALG_TOL),
    OpInfo("aclnnLinalgQr", linalg_qr_ref, QR_DTYPES, kind="custom", samples=linalg_qr_samples, tol=LINALG_TOL),
    OpInfo("aclnnQr", qr_ref, QR_DTYPES, kind="custom", samples=qr_samples, tol=LINALG_TOL),
    OpInfo("aclnnSvd", svd_ref, SVD_DTYPES, kind="custom", samples=svd_samples, tol=LINALG_TOL),
    OpInfo("aclnnTriangularSolve", ts_ref, TS_DTYPES, kind="custom", samples=ts_samples, tol=LINALG_TOL),
]
