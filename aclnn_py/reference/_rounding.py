"""Rounding helpers of the numpy references: the device's float32 -> fp16/bf16 narrowing (abi.md 7.2)."""

import ml_dtypes
import numpy as np

bfloat16 = np.dtype(ml_dtypes.bfloat16)


def narrow(acc: np.ndarray, dtype) -> np.ndarray:
    """Cast a float32 array to float32, float16 or bfloat16 with round-to-nearest-even.

    bfloat16 uses the device's bit formula (a NaN keeps its sign and becomes quiet), which is not
    guaranteed by a plain ``astype``.
    """
    dtype = np.dtype(dtype)
    acc = np.ascontiguousarray(acc, dtype=np.float32)
    if dtype == np.float32:
        return acc
    if dtype == np.float16:
        return acc.astype(np.float16)
    if dtype == bfloat16:
        u = acc.view(np.uint32).astype(np.uint64)
        out = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
        nan = np.isnan(acc)
        out[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
        return out.view(bfloat16)
    raise TypeError(f"narrow: unsupported dtype {dtype}")


def add_f32(acc: np.ndarray, term: np.ndarray) -> np.ndarray:
    """``acc + term`` in float32 with the stub's NaN rule: where the running sum ``acc`` is NaN the result
    is that NaN made quiet (sign and payload kept), whatever ``term`` is; elsewhere the IEEE sum. numpy alone
    returns either operand's payload for NaN + NaN depending on the element's position in the array."""
    acc = np.asarray(acc, dtype=np.float32)
    out = acc + np.asarray(term, dtype=np.float32)
    nan = np.isnan(acc)
    if nan.any():
        out[nan] = (acc[nan].view(np.uint32) | np.uint32(0x400000)).view(np.float32)
    return out


def widen(a: np.ndarray) -> np.ndarray:
    """float16/bfloat16/float32 -> float32, exactly."""
    return np.asarray(a).astype(np.float32)


def nan_left(left: np.ndarray, result: np.ndarray) -> np.ndarray:
    """``result`` of ``left op right`` in float32 with the stub's NaN rule: where ``left`` is NaN, that NaN made
    quiet (sign and payload kept); elsewhere ``result`` (the IEEE value)."""
    left = np.asarray(left, dtype=np.float32)
    out = np.array(result, dtype=np.float32)
    nan = np.isnan(left)
    if nan.any():
        out[nan] = (np.broadcast_to(left, out.shape)[nan].view(np.uint32) | np.uint32(0x400000)).view(np.float32)
    return out


def _quiet(a: np.ndarray) -> np.ndarray:
    return (np.asarray(a, np.float32).view(np.uint32) | np.uint32(0x400000)).view(np.float32)


def mul_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a * b`` in float32 (broadcasting) with the stub's NaN rule for products: a NaN ``a`` made quiet, else a
    NaN ``b`` made quiet; elsewhere the IEEE product."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float32), np.asarray(b, np.float32))
    out = a * b
    nan_a = np.isnan(a)
    nan_b = np.isnan(b) & ~nan_a
    if nan_a.any() or nan_b.any():
        out[nan_a] = _quiet(a[nan_a])
        out[nan_b] = _quiet(b[nan_b])
    return out


def device_reduce_sum(v: np.ndarray) -> np.ndarray:
    """The AI Core ReduceSum of each row of a float32 (S, n) array, in the device's order: halving folds of
    8-aligned halves down to 4096, 512 or 64 elements, then an adjacent-pair tree; below 64 elements one tree
    over 64 lanes whose idle lanes hold +0.0. Returns S float32 sums."""
    v = np.array(v, dtype=np.float32)
    s, n = v.shape

    def align8(x):
        return (x + 7) // 8 * 8

    for lo, threshold, offset in ((4096, 8192, 4096), (512, 1024, 512), (64, 128, 64)):
        if n >= lo:
            total, half = n, align8((n + 1) // 2)
            while total > threshold:
                c = total - half
                v[:, :c] = add_f32(v[:, :c], v[:, half:half + c])
                total, half = half, align8((half + 1) // 2)
            c = total - offset
            if c > 0:
                v[:, :c] = add_f32(v[:, :c], v[:, offset:offset + c])
            v = v[:, :offset]
            break
    else:
        lanes = np.zeros((s, 64), np.float32)
        lanes[:, :n] = v
        v = lanes
    while v.shape[1] > 1:
        v = add_f32(v[:, 0::2], v[:, 1::2])
    return v[:, 0].copy()


def chunked_reduce_sum(v: np.ndarray, chunk: int) -> np.ndarray:
    """Row sums of a float32 (m, H) array as a device reduces rows too long for its unified buffer: each chunk
    of ``chunk`` columns by ``device_reduce_sum``, the chunk sums added in order to +0.0."""
    acc = np.zeros(v.shape[0], np.float32)
    for off in range(0, v.shape[1], chunk):
        acc = add_f32(acc, device_reduce_sum(v[:, off:off + chunk]))
    return acc
