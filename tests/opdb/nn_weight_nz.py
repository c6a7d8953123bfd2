"""The FRACTAL_NZ weight layout: TransMatmulWeight, NpuFormatCast, ConvertWeightToINT4Pack (the layout's bytes against
a numpy packing written from the docs' formula) and the matmuls taking an NZ weight (MatmulWeightNz,
BatchMatMulWeightNz, TransposeBatchMatMulWeightNz, QuantMatmulWeightNz: their ND oracles, the weight given in NZ).

A (..., R, C) matrix in NZ is the array (..., ceil(C / C0), ceil(R / 16), 16, C0), zero-padded, C0 = 32 bytes of the
dtype; a transposed view (K, N) of a physical (N, K) weight is stored as the NZ blocks of (N, K).
"""

import ml_dtypes
import numpy as np
import torch

import aclnn_py
from aclnn_py._native import ffi, lib

from . import OpInfo, Sample
from .nn_matmul import MM_TOL, arr, product, t_view, tbmm_ref, tbmm_samples
from .nn_quant_matmul import Q_TOL, V5_REF, v5_samples

NZ = 29


def c0_of(dtype) -> int:
    return 32 // np.dtype(dtype).itemsize


def nz_pack(a: np.ndarray, c0: int | None = None) -> np.ndarray:
    """The NZ array of the matrices a (..., R, C): (..., C1, R1, 16, C0), padding zero."""
    *b, r, c = a.shape
    c0 = c0 or c0_of(a.dtype)
    r1, c1 = -(-r // 16), -(-c // c0)
    p = np.zeros((*b, r1 * 16, c1 * c0), a.dtype)
    p[..., :r, :c] = a
    p = p.reshape(*b, r1, 16, c1, c0)
    nb = len(b)
    return np.ascontiguousarray(p.transpose(*range(nb), nb + 2, nb, nb + 1, nb + 3))


def nz_unpack(p: np.ndarray, shape) -> np.ndarray:
    """The matrices of shape (..., R, C) from their NZ array."""
    *b, c1, r1, r0, c0 = p.shape
    nb = len(b)
    m = p.transpose(*range(nb), nb + 1, nb + 2, nb, nb + 3).reshape(*b, r1 * r0, c1 * c0)
    return np.ascontiguousarray(m[..., :shape[-2], :shape[-1]])


def is_transposed(a: np.ndarray) -> bool:
    return a.ndim >= 2 and a.shape[-2] > 1 and a.strides[-2] == a.itemsize and a.strides[-1] != a.itemsize


def nz_tensor(a: np.ndarray) -> aclnn_py.Tensor:
    """An NZ tensor of view a.shape holding a's values (a transposed view: the NZ blocks of its transpose)."""
    t = is_transposed(a)
    phys = np.ascontiguousarray(np.swapaxes(a, -1, -2) if t else a)
    p = nz_pack(phys)
    buf = aclnn_py.Tensor.from_numpy(p.reshape(-1)).buffer
    strides = list(np.array(phys.strides) // phys.itemsize)
    if t:
        strides[-2], strides[-1] = strides[-1], strides[-2]
    return aclnn_py.Tensor(a.shape, a.dtype, strides=strides, buffer=buf, format=NZ, storage_shape=p.shape)


def np_of(t: torch.Tensor) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.contiguous().numpy()


def nz_call(name, index):
    """Run name with operand `index` given in NZ and an output shaped like the oracle's."""
    def call(sample, exp):
        ops = list(sample.operands)
        ops[index] = nz_tensor(ops[index])
        out = np.zeros(tuple(exp.shape), np_of(exp).dtype)
        aclnn_py.run(name, *ops, *sample.attrs, out=out)
        return out
    return call


def as_bytes(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(a).reshape(-1).view(np.uint8).copy())


# ---- aclnnTransMatmulWeight --------------------------------------------------------------------------------------

TMW_DTYPES = ("float16", "bfloat16", "int8", "uint8")


def tmw_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(32, 16),), (False,), "aligned"), Sample((a(20, 40),), (False,), "padded"),
            Sample((a(2, 3, 17, 33),), (False,), "batched, padded"),
            Sample((t_view(rng, (24, 40), dtype),), (True,), "transposed view (the (40, 24) weight)")]


def tmw_ref(w, transposed):
    a = np_of(w)
    return as_bytes(nz_pack(np.ascontiguousarray(np.swapaxes(a, -1, -2)) if transposed else a))


def tmw_call(sample, exp):
    w = sample.operands[0]
    t = is_transposed(w)
    phys = np.ascontiguousarray(np.swapaxes(w, -1, -2) if t else w)
    nbytes = exp.numel()
    buf = aclnn_py.DeviceBuffer(nbytes)
    raw = np.zeros(nbytes, np.uint8)
    raw[:phys.nbytes] = phys.reshape(-1).view(np.uint8)
    buf.upload(raw)
    strides = list(np.array(phys.strides) // phys.itemsize)
    if t:
        strides[-2], strides[-1] = strides[-1], strides[-2]
    x = aclnn_py.Tensor(w.shape, w.dtype, strides=strides, buffer=buf)
    aclnn_py.run("aclnnTransMatmulWeight", x)
    fmt = aclnn_py.acl.aclGetFormat(x.handle)
    assert fmt == NZ, f"mmWeightRef's format is {fmt} after the call"
    storage = tuple(aclnn_py.acl.aclGetStorageShape(x.handle))
    expect = nz_pack(phys).shape
    assert storage == expect, f"storage shape {storage}, expected {expect}"
    got = np.zeros(nbytes, np.uint8)
    buf.download(got)
    return got


# ---- aclnnNpuFormatCast -------------------------------------------------------------------------------------------

NFC_DTYPES = ("int8", "uint8", "float32", "float16", "bfloat16", "int32", "uint32")


def nfc_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(64, 128),), (), "aligned"), Sample((a(5, 17, 9),), (), "batched, padded")]


def nfc_ref(x):
    a = np_of(x)
    return as_bytes(nz_pack(a)), torch.from_numpy(np.ascontiguousarray(a).reshape(-1).view(np.uint8).copy())


def nfc_call(sample, exp):
    """ND -> NZ through CalculateSizeAndFormat and the cast, then NZ -> ND back."""
    x = np.ascontiguousarray(sample.operands[0])
    src = aclnn_py.Tensor.from_numpy(x)
    shape, fmt = aclnn_py.aclnn.aclnnNpuFormatCastCalculateSizeAndFormat(src.handle, NZ, -1)
    assert fmt == NZ and tuple(shape) == nz_pack(x).shape, (fmt, shape)
    nz = aclnn_py.Tensor(x.shape, x.dtype, format=NZ, storage_shape=shape,
                         buffer=aclnn_py.DeviceBuffer(int(np.prod(shape)) * x.itemsize))
    aclnn_py.run("aclnnNpuFormatCast", src, nz)
    packed = np.zeros(int(np.prod(shape)) * x.itemsize, np.uint8)
    nz.buffer.download(packed)
    back = aclnn_py.Tensor(x.shape, x.dtype)
    aclnn_py.run("aclnnNpuFormatCast", nz, back)
    return packed, back.numpy().reshape(-1).view(np.uint8)


# ---- aclnnConvertWeightToINT4Pack ----------------------------------------------------------------------------------

def cw_samples(dtype, rng):
    w = lambda *s: rng.integers(-8, 8, s).astype(np.int32)  # noqa: E731
    return [Sample((w(8, 16),), ("int4", False), "int4 ND"), Sample((w(5, 24),), ("int32", False), "int32 ND"),
            Sample((w(40, 130),), ("int4", True), "int4 NZ, padded"),
            Sample((w(2, 16, 64),), ("int32", True), "int32 NZ, batched")]


def cw_ref(w, out_dtype, nz):
    a = w.numpy().astype(np.uint32) & 0xF
    packed = (a[..., 0::2] | (a[..., 1::2] << 4)).astype(np.uint8)  # (..., k, n / 2) bytes
    return as_bytes(nz_pack(packed, 32) if nz else packed)


def cw_call(sample, exp):
    w = sample.operands[0]
    out_dtype, nz = sample.attrs
    k, n = w.shape[-2], w.shape[-1]
    if out_dtype == "int4":
        shape, dt, c0 = w.shape, aclnn_py.acl.ACL_INT4, 64
    else:
        shape, dt, c0 = w.shape[:-1] + (n // 8,), aclnn_py.acl.ACL_INT32, 8
    storage = shape[:-2] + (-(-shape[-1] // c0), -(-k // 16), 16, c0) if nz else shape
    buf = aclnn_py.DeviceBuffer(exp.numel())
    src = aclnn_py.Tensor.from_numpy(w)
    packed = aclnn_py.Tensor(shape, np.int32 if out_dtype == "int32" else np.int8, buffer=buf,
                             format=NZ if nz else None, storage_shape=storage)
    # the INT4 view: an aclTensor of dtype INT4 over the same buffer (numpy has no int4)
    handle = packed.handle
    if out_dtype == "int4":
        dims = ffi.new("int64_t[]", shape)
        strides = ffi.new("int64_t[]", [int(np.prod(shape[i + 1:])) for i in range(len(shape))])
        st = ffi.new("int64_t[]", storage)
        handle = lib.aclCreateTensor(dims, len(shape), dt, strides, 0, NZ if nz else 2, st, len(storage), buf.ptr)
    try:
        _, ex = aclnn_py.aclnn.aclnnConvertWeightToINT4PackGetWorkspaceSize(src.handle, handle)
        aclnn_py.aclnn.aclnnConvertWeightToINT4Pack(None, 0, ex, None)
        aclnn_py.acl.aclrtSynchronizeDevice()
    finally:
        if out_dtype == "int4":
            lib.aclDestroyTensor(handle)
    got = np.zeros(exp.numel(), np.uint8)
    buf.download(got)
    return got


# ---- the matmuls with an NZ weight ----------------------------------------------------------------------------------

def mm_nz_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(16, 32), a(32, 16)), (0,), "aligned"), Sample((a(7, 20), a(20, 33)), (0,), "padded"),
            Sample((a(5, 24), t_view(rng, (24, 40), dtype)), (1,), "transposed weight (n, k), cubeMathType 1")]


def bmm_nz_samples(dtype, rng):
    a = lambda *s: arr(rng, s, dtype)  # noqa: E731
    return [Sample((a(3, 5, 32), a(3, 32, 18)), (0,), "padded"), Sample((a(2, 4, 16), a(1, 16, 16)), (0,),
                                                                          "batch broadcast")]


def tbmm_nz_samples(dtype, rng):
    return [s for s in tbmm_samples(dtype, rng) if s.operands[5] == [0, 1, 2] and s.operands[8] == 1]


def qnz_samples(dtype, rng):
    """V5's int8 samples (k and n above 1), x2 given in NZ."""
    out = []
    for s in v5_samples(dtype, rng):
        x2 = s.operands[1]
        if x2.dtype == np.int8 and min(x2.shape[-2:]) > 1 and (s.operands[2] is None or s.operands[2].ndim == 1):
            out.append(s)
    return out


ENTRIES = [
    OpInfo("aclnnTransMatmulWeight", tmw_ref, TMW_DTYPES, kind="custom", samples=tmw_samples, call=tmw_call,
           native16=True),
    OpInfo("aclnnNpuFormatCast", nfc_ref, NFC_DTYPES, kind="custom", samples=nfc_samples, call=nfc_call,
           native16=True),
    OpInfo("aclnnConvertWeightToINT4Pack", cw_ref, ("int32",), kind="custom", samples=cw_samples, call=cw_call),
    OpInfo("aclnnMatmulWeightNz", lambda a, b, cmt: product(a, b, cmt), ("float32", "float16", "bfloat16"),
           kind="custom", samples=mm_nz_samples, call=nz_call("aclnnMatmulWeightNz", 1), tol=MM_TOL),
    OpInfo("aclnnBatchMatMulWeightNz", lambda a, b, cmt: product(a, b, cmt), ("float16", "bfloat16"),
           kind="custom", samples=bmm_nz_samples, call=nz_call("aclnnBatchMatMulWeightNz", 1), tol=MM_TOL),
    OpInfo("aclnnTransposeBatchMatMulWeightNz", tbmm_ref, ("float16", "bfloat16"), kind="custom",
           samples=tbmm_nz_samples, call=nz_call("aclnnTransposeBatchMatMulWeightNz", 1), tol=MM_TOL),
    OpInfo("aclnnQuantMatmulWeightNz", V5_REF, ("float16", "bfloat16", "int8", "int32"), kind="custom",
           samples=qnz_samples, call=nz_call("aclnnQuantMatmulWeightNz", 1), tol=Q_TOL, native16=True),
]
