"""numpy dtype <-> aclDataType. bfloat16 arrays come from ``ml_dtypes``."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._native import lib

bfloat16 = np.dtype(ml_dtypes.bfloat16)

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
}
_TO_NUMPY = {v: k for k, v in _TO_ACL.items()}


def to_acl(dtype) -> int:
    """The aclDataType of a numpy dtype (or dtype name such as ``"bfloat16"``)."""
    dt = bfloat16 if (isinstance(dtype, str) and dtype == "bfloat16") else np.dtype(dtype)
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
        raise TypeError(f"aclDataType {acl_dtype} has no numpy counterpart") from None


def as_numpy_dtype(name_or_dtype) -> np.dtype:
    return bfloat16 if name_or_dtype == "bfloat16" else np.dtype(name_or_dtype)
