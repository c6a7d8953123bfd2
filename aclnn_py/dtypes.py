"""numpy dtype <-> aclDataType. bfloat16 and the 8-bit float types come from ``ml_dtypes``.

Every aclDataType whose elements are whole bytes has a numpy counterpart: the signed and unsigned integers, bool,
float16/32/64, bfloat16, complex64/128 and the 8-bit floats FLOAT8_E5M2, FLOAT8_E4M3FN and FLOAT8_E8M0
(``ml_dtypes.float8_e5m2``, ``float8_e4m3fn``, ``float8_e8m0fnu``). Without one: HIFLOAT8 (no numpy or ml_dtypes
type encodes it), COMPLEX32, STRING and the packed sub-byte types (INT4, UINT1, FLOAT6_*, FLOAT4_*), whose
device layout is not one numpy element per value.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._native import lib

bfloat16 = np.dtype(ml_dtypes.bfloat16)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)
float8_e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)
float8_e8m0fnu = np.dtype(ml_dtypes.float8_e8m0fnu)

_TO_ACL = {
    np.dtype(np.float32): lib.ACL_FLOAT,
    np.dtype(np.float16): lib.ACL_FLOAT16,
    bfloat16: lib.ACL_BF16,
    np.dtype(np.int8): lib.ACL_INT8,
    np.dtype(np.uint8): lib.ACL_UINT8,
    np.dtype(np.int16): lib.ACL_INT16,
    np.dtype(np.int32): lib.ACL_INT32,
    np.dtype(np.int64): lib.ACL_INT64,
    np.dtype(np.float64): lib.ACL_DOUBLE,
    np.dtype(np.bool_): lib.ACL_BOOL,
    np.dtype(np.uint16): lib.ACL_UINT16,
    np.dtype(np.uint32): lib.ACL_UINT32,
    np.dtype(np.uint64): lib.ACL_UINT64,
    np.dtype(np.complex64): lib.ACL_COMPLEX64,
    np.dtype(np.complex128): lib.ACL_COMPLEX128,
    float8_e5m2: lib.ACL_FLOAT8_E5M2,
    float8_e4m3fn: lib.ACL_FLOAT8_E4M3FN,
    float8_e8m0fnu: lib.ACL_FLOAT8_E8M0,
}
ML_DTYPES = frozenset({bfloat16, float8_e5m2, float8_e4m3fn, float8_e8m0fnu})
# Names accepted wherever a dtype is (``"bfloat16"``, ``"float8_e4m3fn"``...), for the ml_dtypes types numpy does
# not know by name.
_NAMES = {"bfloat16": bfloat16, "float8_e5m2": float8_e5m2, "float8_e4m3fn": float8_e4m3fn,
          "float8_e8m0fnu": float8_e8m0fnu}
_TO_NUMPY = {v: k for k, v in _TO_ACL.items()}


def to_acl(dtype) -> int:
    """The aclDataType of a numpy dtype (or dtype name such as ``"bfloat16"``)."""
    dt = as_numpy_dtype(dtype)
    try:
        return _TO_ACL[dt]
    except KeyError:
        supported = ", ".join(sorted(str(d) for d in _TO_ACL))
        raise TypeError(f"numpy dtype {dt} has no aclDataType counterpart; supported: {supported}") from None


def to_numpy(acl_dtype: int) -> np.dtype:
    """The numpy dtype of an aclDataType value."""
    try:
        return _TO_NUMPY[int(acl_dtype)]
    except KeyError:
        names = [n for n in dir(lib) if n.startswith("ACL_") and getattr(lib, n) == acl_dtype and
                 not n.startswith(("ACL_FORMAT", "ACL_MEM", "ACL_ERROR", "ACL_EVENT", "ACL_STREAM"))]
        name = f" ({names[0]})" if names else ""
        raise TypeError(f"aclDataType {acl_dtype}{name} has no numpy counterpart (packed sub-byte, HIFLOAT8, COMPLEX32 "
                        f"and STRING have none); pass its bytes through an acl.host_ptr span instead") from None


def as_numpy_dtype(name_or_dtype) -> np.dtype:
    """A numpy dtype from a dtype, a type or a name (the ml_dtypes names included)."""
    if isinstance(name_or_dtype, str) and name_or_dtype in _NAMES:
        return _NAMES[name_or_dtype]
    return np.dtype(name_or_dtype)
