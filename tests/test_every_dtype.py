"""Every aclDataType from Python: each enumerator of the header either has a numpy counterpart, whose scalars
(through the mirror and aclnn_py.Scalar), tensors (from numpy and DLPack) and run() arguments reach C with their
bytes and type, or is one of the types no numpy dtype holds, refused with a message saying so."""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest

import aclnn_py
from aclnn_py import acl, dtypes
from aclnn_py._native import ffi

from test_sdk import CC, sdk_flags

import subprocess
from pathlib import Path

OP_DIR = Path(__file__).resolve().parent / "data" / "every_dtype_op"

# aclDataType enumerator -> numpy dtype (None: none holds it), a value of it other than 0
EVERY = {
    "ACL_FLOAT": (np.float32, 1.5), "ACL_FLOAT16": (np.float16, 1.5), "ACL_INT8": (np.int8, -3),
    "ACL_INT32": (np.int32, -3), "ACL_UINT8": (np.uint8, 200), "ACL_INT16": (np.int16, -3),
    "ACL_UINT16": (np.uint16, 65535), "ACL_UINT32": (np.uint32, 4294967295), "ACL_INT64": (np.int64, -3),
    "ACL_UINT64": (np.uint64, 18446744073709551615), "ACL_DOUBLE": (np.float64, 1.5), "ACL_BOOL": (np.bool_, True),
    "ACL_COMPLEX64": (np.complex64, 1.5 - 2j), "ACL_COMPLEX128": (np.complex128, 1.5 - 2j),
    "ACL_BF16": (ml_dtypes.bfloat16, 1.5), "ACL_FLOAT8_E5M2": (ml_dtypes.float8_e5m2, 1.5),
    "ACL_FLOAT8_E4M3FN": (ml_dtypes.float8_e4m3fn, 1.5), "ACL_FLOAT8_E8M0": (ml_dtypes.float8_e8m0fnu, 4.0),
    # no numpy dtype holds these: packed sub-byte types, Huawei's HIFLOAT8, half-precision complex, strings
    "ACL_DT_UNDEFINED": (None, None), "ACL_STRING": (None, None), "ACL_INT4": (None, None),
    "ACL_UINT1": (None, None), "ACL_COMPLEX32": (None, None), "ACL_HIFLOAT8": (None, None),
    "ACL_FLOAT6_E3M2": (None, None), "ACL_FLOAT6_E2M3": (None, None), "ACL_FLOAT4_E2M1": (None, None),
    "ACL_FLOAT4_E1M2": (None, None),
}
MAPPED = sorted(n for n, (d, _) in EVERY.items() if d is not None)


def test_the_table_names_every_enumerator_of_acl_data_type():
    assert set(EVERY) == set(ffi.typeof("aclDataType").relements)


@pytest.mark.parametrize("name", sorted(EVERY))
def test_numpy_counterparts(name):
    np_type, _ = EVERY[name]
    code = getattr(acl, name)
    if np_type is None:
        with pytest.raises(TypeError, match="no numpy counterpart"):
            dtypes.to_numpy(code)
        return
    dt = np.dtype(np_type)
    assert dtypes.to_numpy(code) == dt and dtypes.to_acl(dt) == code
    assert dt.itemsize == acl.aclDataTypeSize(code)  # one numpy element is one element on the device


@pytest.mark.parametrize("name", MAPPED)
def test_scalars_through_the_mirror_and_objects(name):
    np_type, value = EVERY[name]
    code = getattr(acl, name)
    for v in (value, np.asarray(value).astype(np_type)[()]):
        handle = acl.aclCreateScalar(v, code)
        acl.aclDestroyScalar(handle)
    with aclnn_py.Scalar(value, np.dtype(np_type)) as s:
        assert s.dtype == np.dtype(np_type) and s.value == np.asarray(value).astype(np_type).item()


@pytest.mark.parametrize("name", MAPPED)
def test_tensors_from_numpy_keep_type_and_bytes(name):
    np_type, value = EVERY[name]
    a = np.array([0, value, value, 0], dtype=np_type).reshape(2, 2)
    with aclnn_py.Tensor.from_numpy(a) as t:
        assert acl.aclGetDataType(t.handle) == getattr(acl, name)
        assert t.numpy().tobytes() == a.tobytes()


@pytest.fixture(scope="module")
def interleave(tmp_path_factory):
    """A test operator on the SDK that copies element bytes of any type (tests/data/every_dtype_op)."""
    lib = tmp_path_factory.mktemp("every_dtype") / "libpytest_interleave.so"
    subprocess.run([CC, "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-Wl,--no-undefined",
                    f"-I{OP_DIR}", str(OP_DIR / "every_dtype.c"), *sdk_flags(), "-o", str(lib)], check=True)
    aclnn_py.load_op_library(lib)
    aclnn_py.add_include_dir(OP_DIR)
    yield
    from aclnn_py import _headers

    _headers._user_dirs[:] = [d for d in _headers._user_dirs if d != OP_DIR]
    _headers._index.clear()


@pytest.mark.parametrize("name", MAPPED)
def test_run_passes_tensors_and_scalars_of_every_type(interleave, name):
    np_type, value = EVERY[name]
    x = np.array([value, 0, value, 0, value], dtype=np_type)
    scalar = np.asarray(value).astype(np_type)[()]
    out = np.zeros_like(x)
    aclnn_py.run("aclnnPytestInterleave", x, scalar, out=out)
    expected = x.copy()
    expected[1::2] = scalar
    assert out.tobytes() == expected.tobytes()
    # a Python number whose inferred type differs from the tensors' is refused by the operator's own check
    from aclnn_py.runtime import _infer_scalar_dtype

    if _infer_scalar_dtype(value) != np.dtype(np_type):
        with pytest.raises(aclnn_py.AclnnError, match="one data type"):
            aclnn_py.run("aclnnPytestInterleave", x, value, out=out)


TORCH_TYPES = {"ACL_UINT16": "uint16", "ACL_UINT32": "uint32", "ACL_UINT64": "uint64", "ACL_COMPLEX64": "complex64",
               "ACL_COMPLEX128": "complex128", "ACL_FLOAT8_E5M2": "float8_e5m2",
               "ACL_FLOAT8_E4M3FN": "float8_e4m3fn", "ACL_FLOAT8_E8M0": "float8_e8m0fnu", "ACL_BF16": "bfloat16"}


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
@pytest.mark.parametrize("name", sorted(TORCH_TYPES))
def test_torch_tensors_of_the_new_types_through_dlpack_and_run(interleave, name):
    import torch

    tdt = getattr(torch, TORCH_TYPES[name], None)
    if tdt is None:
        pytest.skip(f"this torch has no {TORCH_TYPES[name]}")
    np_type, value = EVERY[name]
    host = np.array([value, 0, value, 0], dtype=np_type)
    # torch reads the ml_dtypes types from numpy as unsigned integers of their size
    x = torch.from_numpy(host.view(f"u{host.itemsize}")).view(tdt) if host.dtype in dtypes.ML_DTYPES \
        else torch.from_numpy(host)
    with aclnn_py.Tensor.from_dlpack(x) as t:
        assert acl.aclGetDataType(t.handle) == getattr(acl, name)
        back = torch.from_dlpack(t)
        assert back.dtype == tdt and back.view(torch.uint8).numpy().tobytes() == host.tobytes()
    out = torch.zeros_like(x)
    aclnn_py.run("aclnnPytestInterleave", x, host[2], out=out)
    expected = host.copy()
    expected[1::2] = host[2]
    assert out.view(torch.uint8).numpy().tobytes() == expected.tobytes()
