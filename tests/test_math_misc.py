"""Rules of the other ops-math math/ operators (distances, histograms, segment sums, Sinkhorn, grouped sums, qkv,
the health checks) that the operator database and the vendor's gtests do not reach: the shapes the op_api leaves
to its final ViewCopy (ACLNN_ERR_INNER_NULLPTR), the tiling's refusals of the generated APIs
(ACLNN_ERR_INNER_TILING_ERROR), formats accepted with a warning only, and data the kernel refuses (index out of
range). Each row is one call and the status it must give."""

from __future__ import annotations

import numpy as np
import pytest

import aclnn_py

INVALID, INNER_NULLPTR, TILING = 161002, 561103, 561002
KERNEL = 507015  # the kernel refused its data: aclrtSynchronizeStream's ACL_ERROR_RT_AICORE_EXCEPTION
F32, I32, I64 = np.float32, np.int32, np.int64


def z(*shape, dtype=F32):
    return np.zeros(shape, dtype)


def run(name, *args, **kw):
    """The status of the call (0 for success)."""
    try:
        aclnn_py.run(name, *args, **kw)
    except (aclnn_py.AclnnError, aclnn_py.AclError) as exc:
        return exc.status
    return 0


# (case, operator, arguments, keywords, status)
CASES = [
    ("cdist: out not (B, P, R)", "aclnnCdist", (z(3, 2), z(4, 2), 2.0, 2), {"out": z(3, 5)}, INNER_NULLPTR),
    ("cdist: out of the broadcast shape", "aclnnCdist", (z(1, 3, 2), z(4, 5, 2), 1.0, 0), {"out": z(4, 3, 5)}, 0),
    ("cdist: NaN p", "aclnnCdist", (z(3, 2), z(4, 2), float("nan"), 0), {"out": z(3, 4)}, INVALID),
    ("cdist backward: x1 broadcast along the batch", "aclnnCdistBackward",
     (z(2, 3, 4), z(1, 3, 2), z(2, 4, 2), z(2, 3, 4), 2.0), {"out": z(1, 3, 2)}, INNER_NULLPTR),
    ("cdist backward: p = -1 (inf)", "aclnnCdistBackward", (z(3, 4), z(3, 2), z(4, 2), z(3, 4), -1.0),
     {"out": z(3, 2)}, 0),
    ("histc: bins 0", "aclnnHistc", (z(4), 0, -1.0, 1.0), {"out": z(0)}, INVALID),
    ("histc: out not of bins elements", "aclnnHistc", (z(4), 3, -1.0, 1.0), {"out": z(4)}, INVALID),
    ("histc: an infinite range", "aclnnHistc", (z(4), 3, -np.inf, 1.0), {"out": z(3)}, INVALID),
    ("histc: floating self into an integer out", "aclnnHistc", (z(4), 3, -1.0, 1.0), {"out": z(3, dtype=I32)},
     INVALID),
    ("bincount: out shorter than minlength", "aclnnBincount", (np.array([1, 2], I32), None, 5),
     {"out": z(3, dtype=I64)}, INNER_NULLPTR),
    ("bincount: a negative value", "aclnnBincount", (np.array([1, -2], I32), None, 0), {"out": z(3, dtype=I64)},
     KERNEL),
    ("bincount: self 2-D", "aclnnBincount", (np.zeros((2, 2), I32), None, 0), {"out": z(3, dtype=I64)}, INVALID),
    ("affine grid: size of 3", "aclnnAffineGrid", (z(1, 2, 3), [1, 1, 2], False), {"out": z(1, 1, 2, 2)}, INVALID),
    ("affine grid: theta empty", "aclnnAffineGrid", (z(0, 2, 3), [0, 1, 2, 3], False), {"out": z(0, 2, 3, 2)},
     INVALID),
    ("exp segsum: empty self, any out", "aclnnExpSegsum", (z(2, 0, 3),), {"out": z(5, dtype=I32)}, 0),
    ("sinkhorn: more than 4096 columns", "aclnnSinkhorn", (z(2, 4097), None), {"p": z(2, 4097)}, INVALID),
    ("grouped bias grad: ends going down", "aclnnGroupedBiasAddGrad", (z(6, 2), np.array([4, 2], I32)),
     {"out": z(2, 2)}, KERNEL),
    ("grouped bias grad: an end past the rows", "aclnnGroupedBiasAddGrad", (z(6, 2), np.array([4, 7], I64)),
     {"out": z(2, 2)}, KERNEL),
    ("grouped bias grad V2: groupIdxType 2", "aclnnGroupedBiasAddGradV2", (z(6, 2), np.array([4, 6], I32), 2),
     {"out": z(2, 2)}, INVALID),
    ("qkv: numHeads 0", "aclnnTransformBiasRescaleQkv", (z(1, 2, 12), z(12), 0, z(1, 1, 2, 4), z(1, 1, 2, 4),
                                                        z(1, 1, 2, 4)), {"outputs": ("qOut", "kOut", "vOut")},
     TILING),
    ("qkv: D not a multiple of numHeads", "aclnnTransformBiasRescaleQkv",
     (z(1, 2, 12), z(12), 3, z(1, 3, 2, 1), z(1, 3, 2, 1), z(1, 3, 2, 1)), {"outputs": ("qOut", "kOut", "vOut")},
     TILING),
    ("amp update scale: growthInterval 0", "aclnnAmpUpdateScale",
     (z(1), z(1, dtype=I32), z(1), 2.0, 0.5, 0, z(1), z(1, dtype=I32)),
     {"outputs": ("updatedScale", "updatedGrowthTracker")}, TILING),
    ("amp update scale: two elements", "aclnnAmpUpdateScale",
     (z(2), z(1, dtype=I32), z(1), 2.0, 0.5, 10, z(1), z(1, dtype=I32)),
     {"outputs": ("updatedScale", "updatedGrowthTracker")}, TILING),
    ("precision compare: out not 0-d", "aclnnPrecisionCompare", (z(2), z(2)), {"out": z(1, dtype=np.uint32)},
     INVALID),
]


D = np.float64  # in none of these operators' Atlas A2/A3 lists
CASES += [
    ("cdist: DOUBLE", "aclnnCdist", (z(3, 2, dtype=D), z(4, 2, dtype=D), 2.0, 2), {"out": z(3, 4, dtype=D)}, INVALID),
    ("cdist backward: DOUBLE", "aclnnCdistBackward", (z(3, 4, dtype=D), z(3, 2, dtype=D), z(4, 2, dtype=D),
                                                      z(3, 4, dtype=D), 2.0), {"out": z(3, 2, dtype=D)}, INVALID),
    ("histc: DOUBLE", "aclnnHistc", (z(4, dtype=D), 3, -1.0, 1.0), {"out": z(3)}, INVALID),
    ("bincount: FLOAT self", "aclnnBincount", (z(4), None, 0), {"out": z(3, dtype=I64)}, INVALID),
    ("bincount: FLOAT16 out", "aclnnBincount", (np.array([1], I32), None, 0), {"out": z(2, dtype=np.float16)},
     INVALID),
    ("affine grid: DOUBLE", "aclnnAffineGrid", (z(1, 2, 3, dtype=D), [1, 1, 2, 3], False),
     {"out": z(1, 2, 3, 2, dtype=D)}, INVALID),
    ("exp segsum: DOUBLE", "aclnnExpSegsum", (z(1, 2, 3, dtype=D),), {"out": z(1, 2, 3, 3, dtype=D)}, INVALID),
    ("sinkhorn: DOUBLE", "aclnnSinkhorn", (z(2, 3, dtype=D), None), {"p": z(2, 3, dtype=D)}, INVALID),
    ("grouped bias grad: DOUBLE", "aclnnGroupedBiasAddGrad", (z(2, 3, 4, dtype=D), None), {"out": z(2, 4, dtype=D)},
     INVALID),
    ("qkv: DOUBLE", "aclnnTransformBiasRescaleQkv", (z(1, 2, 12, dtype=D), z(12, dtype=D), 2, z(1, 2, 2, 2, dtype=D),
                                                     z(1, 2, 2, 2, dtype=D), z(1, 2, 2, 2, dtype=D)),
     {"outputs": ("qOut", "kOut", "vOut")}, INVALID),
    ("precision compare: DOUBLE", "aclnnPrecisionCompare", (z(2, dtype=D), z(2, dtype=D)),
     {"out": z(dtype=np.uint32)}, INVALID),
    ("amp update scale: DOUBLE scale", "aclnnAmpUpdateScale",
     (z(1, dtype=D), z(1, dtype=I32), z(1, dtype=D), 2.0, 0.5, 10, z(1, dtype=D), z(1, dtype=I32)),
     {"outputs": ("updatedScale", "updatedGrowthTracker")}, INVALID),
]


@pytest.mark.parametrize("name,args,kw,status", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_status(name, args, kw, status):
    assert run(name, *args, **kw) == status


def test_histc_accepts_a_format_it_only_warns_about():
    """The op_api warns about other formats and computes (the vendor's HWCN case): the counts are ND's."""
    x = np.array([[0.5, -0.5], [0.25, 2.0]], F32)
    t = aclnn_py.Tensor(x.shape, x.dtype, format=aclnn_py.acl.ACL_FORMAT_HWCN)
    t.buffer.upload(x)
    out = np.zeros(2, F32)
    aclnn_py.run("aclnnHistc", t, 2, -1.0, 1.0, out=out)
    np.testing.assert_array_equal(out, [1, 2])


def test_bincount_ignores_values_past_the_output():
    """A value at or above the output's length is not counted (the AI CPU kernel's rule)."""
    out = np.zeros(3, I64)
    aclnn_py.run("aclnnBincount", np.array([0, 2, 2, 1], I32), None, 3, out=out)
    np.testing.assert_array_equal(out, [1, 1, 2])


def test_precision_compare_codes():
    a = np.array([1.0, -0.0, np.nan], F32)
    out = np.zeros((), np.uint32)
    aclnn_py.run("aclnnPrecisionCompare", a, a.copy(), out=out)
    assert out == 0
    b = a.copy()
    b[1] = 0.0
    aclnn_py.run("aclnnPrecisionCompare", a, b, out=out)
    assert out == 501


# ---- aclStft: named outside the aclnn* family (aclnnop/acl_stft.h), so run() does not reach it ------------------

STFT_CASES = [
    # (self shape, window length or None, nFft, hop, winLength, normalized, onesided, returnComplex)
    ((5,), 4, 4, 2, 4, False, True, False),       # the official sample's call
    ((2, 40), None, 16, 4, 16, False, True, True),
    ((3, 33), 10, 16, 5, 10, True, True, False),   # a window shorter than nFft, centred
    ((50,), 12, 12, 7, 12, False, False, True),    # two-sided
    ((2, 64), 8, 8, 8, 8, True, False, False),
]


def stft_call(x, window, nfft, hop, win, normalized, onesided, ret_complex, out_dtype):
    """aclStft on device tensors through the C entry points; returns out as numpy."""
    from aclnn_py._native import ffi, lib

    frames, n = (x.shape[-1] - nfft) // hop + 1, (nfft // 2 + 1 if onesided else nfft)
    shape = x.shape[:-1] + (n, frames) + (() if ret_complex else (2,))
    t = aclnn_py.Tensor.from_numpy(x)
    w = aclnn_py.Tensor.from_numpy(window) if window is not None else None
    out = aclnn_py.Tensor(shape, out_dtype)
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    status = lib.aclStftGetWorkspaceSize(t.handle, w.handle if w is not None else ffi.NULL, out.handle, nfft, hop,
                                         win, normalized, onesided, ret_complex, ws, ex)
    assert status == 0, aclnn_py.errors.recent_message()
    stream = aclnn_py.Stream.default()
    assert lib.aclStft(stream.workspace(ws[0]) if ws[0] else ffi.NULL, ws[0], ex[0], stream.handle) == 0
    stream.synchronize()
    return out.numpy()


# a complex input takes onesided = false (refused otherwise: test_stft_refusals)
STFT_PARAMS = [(case, dtype) for case in STFT_CASES for dtype in ("float32", "float64", "complex64", "complex128")
               if not (dtype.startswith("complex") and case[6])]


@pytest.mark.parametrize("case,dtype", STFT_PARAMS, ids=[f"{c[0]}-{c[2]}-{d}" for c, d in STFT_PARAMS])
def test_stft_matches_torch(case, dtype):
    torch = pytest.importorskip("torch")
    shape, wlen, nfft, hop, win, normalized, onesided, ret_complex = case
    rng = np.random.default_rng(len(shape) * 100 + nfft)
    x = rng.uniform(-2, 2, shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.uniform(-2, 2, shape)
    x = x.astype(dtype)
    window = rng.uniform(0.5, 1.5, wlen).astype(dtype) if wlen is not None else None
    wide = dtype in ("float64", "complex128")
    out_dtype = ({True: np.complex128, False: np.float64} if wide else {True: np.complex64, False: np.float32})[
        ret_complex]
    got = stft_call(x, window, nfft, hop, win, normalized, onesided, ret_complex, out_dtype)
    tw = torch.from_numpy(window).to(torch.complex128 if window.dtype.kind == "c" else torch.float64) \
        if window is not None else torch.ones(win, dtype=torch.float64)
    tx = torch.from_numpy(x).to(torch.complex128 if x.dtype.kind == "c" else torch.float64)
    want = torch.stft(tx, nfft, hop_length=hop, win_length=win, window=tw, center=False, normalized=normalized,
                      onesided=onesided, return_complex=True)
    want = want.numpy() if ret_complex else torch.view_as_real(want).numpy()
    tol = 1e-12 if wide else 2e-5
    np.testing.assert_allclose(got, want.astype(out_dtype), rtol=tol, atol=tol * 10)


STFT_REFUSALS = [
    # (self, window, out shape, out dtype, nFft, hop, winLength, onesided, returnComplex, status)
    (z(8), None, (3, 3, 2), F32, 4, 2, 4, True, False, 0),
    (z(8), None, (3, 3, 2), F32, 9, 2, 4, True, False, INVALID),        # nFft above the input's length
    (z(8), None, (3, 3, 2), F32, 4, 0, 4, True, False, INVALID),        # hopLength 0
    (z(8), None, (3, 3, 2), F32, 4, 2, 5, True, False, INVALID),        # winLength above nFft
    (z(8), z(3), (3, 3, 2), F32, 4, 2, 4, True, False, INVALID),        # a window of the wrong length
    (z(8, dtype=np.complex64), None, (3, 3, 2), F32, 4, 2, 4, True, False, INVALID),  # complex and onesided
    (z(8), None, (3, 3), F32, 4, 2, 4, True, False, INVALID),           # out without the pairs' dimension
    (z(8), None, (3, 3), F32, 4, 2, 4, True, True, INNER_NULLPTR),      # a complex result into a real out
    (z(8, dtype=I32), None, (3, 3, 2), I32, 4, 2, 4, True, False, INVALID),  # INT32
]


@pytest.mark.parametrize("x,window,shape,dtype,nfft,hop,win,onesided,rc,status", STFT_REFUSALS)
def test_stft_refusals(x, window, shape, dtype, nfft, hop, win, onesided, rc, status):
    from aclnn_py._native import ffi, lib

    t = aclnn_py.Tensor.from_numpy(x)
    w = aclnn_py.Tensor.from_numpy(window) if window is not None else None
    out = aclnn_py.Tensor(shape, dtype)
    ws, ex = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
    got = lib.aclStftGetWorkspaceSize(t.handle, w.handle if w is not None else ffi.NULL, out.handle, nfft, hop, win,
                                      False, onesided, rc, ws, ex)
    if got == 0:
        lib.aclDestroyAclOpExecutor(ex[0])
    assert got == status
