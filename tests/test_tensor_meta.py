"""aclTensor, aclScalar, aclIntArray and aclnnInit/aclnnFinalize through the mirror layer (abi.md 4.5)."""

import pytest

from aclnn_py import AclnnError, acl, aclnn, errors
from aclnn_py._native import ffi, lib

from helpers_acl import NULL, Arena, live_counts, row_major, status_of

ND, NCHW = acl.ACL_FORMAT_ND, acl.ACL_FORMAT_NCHW




def describe(t) -> dict:
    return {
        "shape": acl.aclGetViewShape(t), "strides": acl.aclGetViewStrides(t), "offset": acl.aclGetViewOffset(t),
        "storage": acl.aclGetStorageShape(t), "format": acl.aclGetFormat(t), "dtype": acl.aclGetDataType(t),
    }


# ---- aclCreateTensor -------------------------------------------------------------------------------------

def test_create_tensor_null_view_dims_with_count_raises():
    before = acl.aclStubLiveTensors()
    with pytest.raises(AclnnError) as ei:
        acl.aclCreateTensor(NULL, 2, acl.ACL_FLOAT, NULL, 0, ND, [2, 3], 2, NULL)
    assert ei.value.status == aclnn.ACLNN_ERR_INNER_NULLPTR == 561103
    assert isinstance(ei.value, errors.AclnnErrInnerNullptr)
    assert "aclCreateTensor" in str(ei.value) and "viewDims" in str(ei.value)
    assert acl.aclStubLiveTensors() == before


def test_create_tensor_null_storage_dims_with_count_raises():
    with pytest.raises(errors.AclnnErrInnerNullptr) as ei:
        acl.aclCreateTensor([2, 3], 2, acl.ACL_FLOAT, NULL, 0, ND, NULL, 1, NULL)
    assert "storageDims" in str(ei.value)


@pytest.mark.parametrize("shape, strides", [
    ([2, 3, 4], [12, 4, 1]),
    ([5], [1]),
    ([3, 1, 2], [2, 2, 1]),
    ([4, 0, 3], [0, 3, 1]),
    ([1, 2, 1, 2, 1, 2, 1, 2, 3, 2], row_major([1, 2, 1, 2, 1, 2, 1, 2, 3, 2])),  # rank above 8
])
def test_null_stride_means_row_major(shape, strides):
    with Arena() as a:
        t = a.tensor(shape, acl.ACL_FLOAT16, NULL)
        assert acl.aclGetViewStrides(t) == strides
        assert acl.aclGetViewShape(t) == shape
        assert acl.aclGetStorageShape(t) == shape
        assert acl.aclGetViewOffset(t) == 0


def test_zero_dim_tensor():
    with Arena() as a:
        t = a.tensor([], acl.ACL_INT64, NULL)
        assert describe(t) == {"shape": [], "strides": [], "offset": 0, "storage": [], "format": ND,
                               "dtype": acl.ACL_INT64}


def test_view_with_strides_offset_and_storage_reads_back():
    with Arena() as a:
        p = a.malloc(256)
        t = a.tensor([3, 2], acl.ACL_BF16, p, strides=[1, 6], offset=5, fmt=NCHW, storage=[4, 8])
        assert describe(t) == {"shape": [3, 2], "strides": [1, 6], "offset": 5, "storage": [4, 8],
                               "format": NCHW, "dtype": acl.ACL_BF16}


def test_negative_and_zero_strides_read_back():
    with Arena() as a:
        t = a.tensor([4, 3], acl.ACL_INT32, NULL, strides=[-3, 0], offset=9, storage=[12])
        assert describe(t)["strides"] == [-3, 0]
        assert describe(t)["offset"] == 9
        assert describe(t)["storage"] == [12]


def test_tensor_keeps_its_own_copies_of_the_arrays():
    dims, strides, storage = ffi.new("int64_t[]", [2, 5]), ffi.new("int64_t[]", [5, 1]), ffi.new("int64_t[]", [10])
    with Arena() as a:
        t = acl.aclCreateTensor(dims, 2, acl.ACL_FLOAT, strides, 0, ND, storage, 1, NULL)
        a.tensors.append(t)
        dims[0], dims[1], strides[0], storage[0] = 99, 98, 97, 96
        assert acl.aclGetViewShape(t) == [2, 5]
        assert acl.aclGetViewStrides(t) == [5, 1]
        assert acl.aclGetStorageShape(t) == [10]


def test_any_data_type_and_format_is_accepted_at_creation():
    with Arena() as a:
        for dtype in (acl.ACL_FLOAT, acl.ACL_FLOAT16, acl.ACL_BF16, acl.ACL_INT8, acl.ACL_INT32, acl.ACL_INT64,
                      acl.ACL_BOOL, acl.ACL_UINT8, acl.ACL_DOUBLE, acl.ACL_STRING, acl.ACL_DT_UNDEFINED, 999):
            for fmt in (acl.ACL_FORMAT_FRACTAL_NZ, acl.ACL_FORMAT_NC1HWC0, acl.ACL_FORMAT_UNDEFINED):
                t = a.tensor([2], dtype, NULL, fmt=fmt)
                assert (acl.aclGetDataType(t), acl.aclGetFormat(t)) == (dtype, fmt)


def test_tensor_data_may_be_null_or_host_memory():
    host = ffi.new("float[4]")
    with Arena() as a:
        a.tensor([4], acl.ACL_FLOAT, NULL)
        a.tensor([4], acl.ACL_FLOAT, host)


def test_tensor_counter_goes_back_to_baseline():
    base = acl.aclStubLiveTensors()
    handles = [acl.aclCreateTensor([i + 1], 1, acl.ACL_FLOAT, NULL, 0, ND, [i + 1], 1, NULL) for i in range(10)]
    assert acl.aclStubLiveTensors() == base + 10
    assert len({int(ffi.cast("uintptr_t", h)) for h in handles}) == 10
    for h in handles:
        assert acl.aclDestroyTensor(h) is None
    assert acl.aclStubLiveTensors() == base


# ---- aclDestroyTensor ------------------------------------------------------------------------------------

def test_destroy_null_tensor_is_ok():
    assert acl.aclDestroyTensor(NULL) is None


def test_destroy_tensor_twice():
    t = acl.aclCreateTensor([2], 1, acl.ACL_FLOAT, NULL, 0, ND, [2], 1, NULL)
    acl.aclDestroyTensor(t)
    with pytest.raises(errors.AclnnErrParamInvalid) as ei:
        acl.aclDestroyTensor(t)
    assert ei.value.status == 161002 and "aclDestroyTensor" in str(ei.value)


def test_destroy_unknown_tensor():
    not_a_tensor = ffi.new("char[256]")
    assert status_of(acl.aclDestroyTensor, ffi.cast("aclTensor *", not_a_tensor)) == 161002
    assert status_of(acl.aclDestroyTensor, ffi.cast("aclTensor *", 0x10)) == 161002


def test_getters_on_destroyed_tensor():
    t = acl.aclCreateTensor([2, 2], 2, acl.ACL_FLOAT, NULL, 0, ND, [2, 2], 2, NULL)
    acl.aclDestroyTensor(t)
    for getter in (acl.aclGetViewShape, acl.aclGetViewStrides, acl.aclGetStorageShape, acl.aclGetViewOffset,
                   acl.aclGetFormat, acl.aclGetDataType):
        with pytest.raises(errors.AclnnErrParamInvalid):
            getter(t)


def test_getters_on_null_tensor():
    for getter in (acl.aclGetViewShape, acl.aclGetViewStrides, acl.aclGetStorageShape, acl.aclGetViewOffset,
                   acl.aclGetFormat, acl.aclGetDataType):
        with pytest.raises(errors.AclnnErrParamNullptr) as ei:
            getter(NULL)
        assert ei.value.status == 161001 and getter.__name__ in str(ei.value)


def test_getters_with_null_out_parameter():
    with Arena() as a:
        t = a.tensor([2], acl.ACL_FLOAT, NULL)
        assert lib.aclGetViewOffset(t, NULL) == 161001
        assert lib.aclGetFormat(t, NULL) == 161001
        assert lib.aclGetViewShape(t, NULL, ffi.new("uint64_t *")) == 161001
        acl.aclGetRecentErrMsg()


# ---- aclCreateScalar -------------------------------------------------------------------------------------

def test_create_scalar_null_value_raises():
    before = acl.aclStubLiveScalars()
    with pytest.raises(AclnnError) as ei:
        acl.aclCreateScalar(NULL, acl.ACL_FLOAT)
    assert ei.value.status == 561103 and "value" in str(ei.value)
    assert acl.aclStubLiveScalars() == before


@pytest.mark.parametrize("ctype, dtype, value", [
    ("float *", acl.ACL_FLOAT, 1.5), ("double *", acl.ACL_DOUBLE, -2.25), ("int64_t *", acl.ACL_INT64, -(2 ** 40)),
    ("int32_t *", acl.ACL_INT32, 7), ("bool *", acl.ACL_BOOL, True), ("uint16_t *", acl.ACL_FLOAT16, 0x3C00),
])
def test_create_and_destroy_scalar(ctype, dtype, value):
    before = acl.aclStubLiveScalars()
    v = ffi.new(ctype, value)
    s = acl.aclCreateScalar(v, dtype)
    assert s != NULL
    assert acl.aclStubLiveScalars() == before + 1
    acl.aclDestroyScalar(s)
    assert acl.aclStubLiveScalars() == before


def test_scalar_copies_the_value_at_creation():
    v = ffi.new("float *", 3.0)
    s = acl.aclCreateScalar(v, acl.ACL_FLOAT)
    v[0] = 4.0  # the scalar is independent of the caller's storage; destroying it must still work
    del v
    acl.aclDestroyScalar(s)


def test_destroy_scalar_null_twice_unknown():
    assert acl.aclDestroyScalar(NULL) is None
    s = acl.aclCreateScalar(ffi.new("int64_t *", 1), acl.ACL_INT64)
    acl.aclDestroyScalar(s)
    assert status_of(acl.aclDestroyScalar, s) == 161002
    assert status_of(acl.aclDestroyScalar, ffi.cast("aclScalar *", ffi.new("char[64]"))) == 161002


# ---- aclIntArray -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("values", [[1], [3, -4, 5], list(range(100)), [2 ** 62, -(2 ** 62)]])
def test_int_array_size_and_destroy(values):
    before = acl.aclStubLiveIntArrays()
    arr = acl.aclCreateIntArray(values, len(values))
    assert acl.aclStubLiveIntArrays() == before + 1
    assert acl.aclGetIntArraySize(arr) == len(values)
    assert acl.aclDestroyIntArray(arr) is None
    assert acl.aclStubLiveIntArrays() == before


def test_empty_int_array():
    arr = acl.aclCreateIntArray(NULL, 0)
    try:
        assert acl.aclGetIntArraySize(arr) == 0
    finally:
        acl.aclDestroyIntArray(arr)


def test_int_array_null_value_with_size_raises():
    before = acl.aclStubLiveIntArrays()
    with pytest.raises(errors.AclnnErrInnerNullptr):
        acl.aclCreateIntArray(NULL, 3)
    assert acl.aclStubLiveIntArrays() == before


def test_int_array_copies_values():
    buf = ffi.new("int64_t[]", [1, 2, 3])
    arr = acl.aclCreateIntArray(buf, 3)
    buf[0] = 100
    try:
        assert acl.aclGetIntArraySize(arr) == 3
    finally:
        acl.aclDestroyIntArray(arr)


def test_int_array_destroy_null_twice_unknown_and_getters():
    assert acl.aclDestroyIntArray(NULL) is None
    arr = acl.aclCreateIntArray([1, 2], 2)
    acl.aclDestroyIntArray(arr)
    assert status_of(acl.aclDestroyIntArray, arr) == 161002
    assert status_of(acl.aclGetIntArraySize, arr) == 161002
    assert status_of(acl.aclGetIntArraySize, NULL) == 161001
    assert status_of(acl.aclDestroyIntArray, ffi.cast("aclIntArray *", ffi.new("char[64]"))) == 161002


# ---- aclnnInit / aclnnFinalize and the counters overall -------------------------------------------------

def test_aclnn_init_and_finalize_are_idempotent():
    assert aclnn.aclnnInit(NULL) is None
    assert aclnn.aclnnInit(NULL) is None
    assert aclnn.aclnnInit("/nonexistent/config.json") is None
    assert aclnn.aclnnFinalize() is None
    assert aclnn.aclnnFinalize() is None


def test_everything_released_returns_counters_to_baseline():
    before = live_counts()
    with Arena() as a:
        p = a.malloc(64)
        ts = [a.tensor([4, 4], acl.ACL_FLOAT, p) for _ in range(3)]
        s = acl.aclCreateScalar(ffi.new("double *", 1.0), acl.ACL_DOUBLE)
        arr = acl.aclCreateIntArray([1, 2, 3], 3)
        during = live_counts()
        assert during["aclStubLiveTensors"] == before["aclStubLiveTensors"] + 3
        assert during["aclStubLiveScalars"] == before["aclStubLiveScalars"] + 1
        assert during["aclStubLiveIntArrays"] == before["aclStubLiveIntArrays"] + 1
        assert during["aclStubLiveAllocations"] == before["aclStubLiveAllocations"] + 1
        acl.aclDestroyScalar(s)
        acl.aclDestroyIntArray(arr)
        for t in ts:
            a.destroy(t)
    assert live_counts() == before
