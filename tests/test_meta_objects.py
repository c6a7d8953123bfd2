"""The tensor meta API from Python: the mirror builds C arrays, lists and scalars from Python values, and
the objects (Scalar, IntArray, BoolArray, FloatArray, TensorList, ScalarList) own their handles."""

import gc

import ml_dtypes
import numpy as np
import pytest

import aclnn_py
from aclnn_py import BoolArray, FloatArray, IntArray, Scalar, ScalarList, Tensor, TensorList, acl
from aclnn_py._native import ffi

ND = acl.ACL_FORMAT_ND


def handle_tensor(shape=(2, 3)):
    shape = list(shape)
    return acl.aclCreateTensor(shape, len(shape), acl.ACL_FLOAT, None, 0, ND, shape, len(shape), None)


# ---- the mirror: Python values where C takes arrays and values -----------------------------------------

def test_mirror_tensor_list_with_a_none_element_is_a_null_entry():
    before = acl.aclStubLiveTensors()
    t = handle_tensor()
    lst = acl.aclCreateTensorList([t, None, t][:2], 2)
    assert acl.aclGetTensorListSize(lst) == 2
    acl.aclDestroyTensorList(lst)  # destroys t with it; the NULL entry is skipped
    assert acl.aclStubLiveTensors() == before


@pytest.mark.parametrize("create, size_of, destroy, values", [
    ("aclCreateIntArray", "aclGetIntArraySize", "aclDestroyIntArray", np.array([3, -1, 7], np.int64)),
    ("aclCreateIntArray", "aclGetIntArraySize", "aclDestroyIntArray", range(5)),
    ("aclCreateBoolArray", "aclGetBoolArraySize", "aclDestroyBoolArray", np.array([True, False])),
    ("aclCreateFloatArray", "aclGetFloatArraySize", "aclDestroyFloatArray", np.array([0.5, 2.0], np.float32)),
    ("aclCreateFloatArray", "aclGetFloatArraySize", "aclDestroyFloatArray", (1.0, 2.0, 3.0, 4.0)),
])
def test_mirror_arrays_from_any_sequence(create, size_of, destroy, values):
    array = getattr(acl, create)(values, len(values))
    assert getattr(acl, size_of)(array) == len(values)
    getattr(acl, destroy)(array)


def test_mirror_array_count_is_checked_against_a_converted_sequence():
    with pytest.raises(ValueError, match="'size' is 3, but 'value' holds only 2"):
        acl.aclCreateIntArray(np.array([1, 2]), 3)
    with pytest.raises(TypeError, match="aclCreateBoolArray: argument 'value' must be a sequence"):
        acl.aclCreateBoolArray(7, 1)
    with pytest.raises(ValueError, match="outside the range of int64_t"):
        acl.aclCreateIntArray(np.array([1 << 63], dtype=np.uint64), 1)


@pytest.mark.parametrize("value, dtype", [(1.5, acl.ACL_FLOAT), (-3, acl.ACL_INT32), (True, acl.ACL_BOOL),
                                          (np.float16(0.25), acl.ACL_FLOAT16), (2.0, acl.ACL_DOUBLE)])
def test_mirror_scalar_from_a_python_number(value, dtype):
    before = acl.aclStubLiveScalars()
    s = acl.aclCreateScalar(value, dtype)
    assert acl.aclStubLiveScalars() == before + 1
    acl.aclDestroyScalar(s)


def test_mirror_scalar_refuses_what_the_type_cannot_hold():
    with pytest.raises(ValueError, match="'value' = 4294967296 is outside the range of int32"):
        acl.aclCreateScalar(1 << 32, acl.ACL_INT32)
    with pytest.raises(TypeError, match="a float .* for the integer type int64"):
        acl.aclCreateScalar(0.5, acl.ACL_INT64)
    with pytest.raises(TypeError, match="argument 'value' must be a number"):
        acl.aclCreateScalar("1", acl.ACL_FLOAT)


# ---- objects ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, dtype, expected_dtype, expected", [
    (True, None, np.bool_, True), (7, None, np.int64, 7), (0.1, None, np.float64, 0.1),
    (np.float16(1.5), None, np.float16, 1.5), (3, "float32", np.float32, 3.0),
    (1.0 / 3, "bfloat16", ml_dtypes.bfloat16, float(ml_dtypes.bfloat16(1.0 / 3))),
])
def test_scalar_dtype_inferred_or_given(value, dtype, expected_dtype, expected):
    before = acl.aclStubLiveScalars()
    with Scalar(value, dtype) as s:
        assert s.dtype == np.dtype(expected_dtype)
        assert s.value == expected
        assert acl.aclStubLiveScalars() == before + 1
    assert s.closed and acl.aclStubLiveScalars() == before
    s.close()  # idempotent


def test_scalar_errors_name_the_argument():
    with pytest.raises(TypeError, match="Scalar: argument 'value' must be a bool, int, float"):
        Scalar(None)
    with pytest.raises(TypeError, match="ScalarList: argument 'value' must be a bool, int, float"):
        ScalarList([1, "x"])
    with pytest.raises(TypeError, match="Scalar: argument 'value' must be a number"):
        Scalar("x", "float32")
    with pytest.raises(ValueError, match="Scalar: argument 'value' = 300 is outside the range of int8"):
        Scalar(300, "int8")


@pytest.mark.parametrize("cls, values, counter, size_of", [
    (IntArray, [1, -2, 3], "aclStubLiveIntArrays", "aclGetIntArraySize"),
    (IntArray, np.arange(4), "aclStubLiveIntArrays", "aclGetIntArraySize"),
    (BoolArray, [True, False], "aclStubLiveBoolArrays", "aclGetBoolArraySize"),
    (FloatArray, [0.5, 1, 2.25], "aclStubLiveFloatArrays", "aclGetFloatArraySize"),
    (IntArray, [], "aclStubLiveIntArrays", "aclGetIntArraySize"),
])
def test_arrays_own_their_handle(cls, values, counter, size_of):
    before = getattr(acl, counter)()
    arr = cls(values)
    assert getattr(acl, counter)() == before + 1
    assert getattr(acl, size_of)(arr.handle) == len(values)
    assert list(arr) == [type(x)(v) for x, v in zip(arr.values, list(values))]
    del arr
    gc.collect()
    assert getattr(acl, counter)() == before


def test_array_element_errors():
    with pytest.raises(TypeError, match=r"IntArray: argument 'values' must be a sequence of ints .* got float"):
        IntArray([1, 2.5])
    with pytest.raises(TypeError, match="BoolArray: argument 'values' must be a sequence of bools .* got int"):
        BoolArray([True, 1])
    with pytest.raises(TypeError, match="FloatArray: argument 'values' must be a sequence of numbers"):
        FloatArray(["1"])
    with pytest.raises(ValueError, match="outside the range of int64_t"):
        IntArray([1 << 64])


def test_tensor_list_keeps_its_tensors_alive_and_owns_its_own_handles():
    tensors_before, allocs_before = acl.aclStubLiveTensors(), acl.aclStubLiveAllocations()
    a = Tensor.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    lst = TensorList([a, None, Tensor((4,), "float16")])
    assert acl.aclGetTensorListSize(lst.handle) == 3
    assert lst[1] is None and lst[0] is a
    del a
    gc.collect()
    assert acl.aclStubLiveAllocations() == allocs_before + 2  # both buffers kept by the list
    assert np.array_equal(lst[0].numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))
    lst.close()
    lst[0].close()  # the Tensor's own handle is independent of the list's copy
    del lst
    gc.collect()
    assert acl.aclStubLiveTensors() == tensors_before
    assert acl.aclStubLiveAllocations() == allocs_before


def test_tensor_list_refuses_other_elements_and_closed_tensors():
    with pytest.raises(TypeError, match=r"TensorList: argument 'tensors\[1\]' must be an aclnn_py.Tensor or None"):
        TensorList([None, np.zeros(2)])
    t = Tensor((2,), "float32")
    t.close()
    with pytest.raises(ValueError, match="closed Tensor"):
        TensorList([t])


def test_scalar_list_from_numbers_and_scalars():
    before = acl.aclStubLiveScalars()
    with Scalar(2, "int32") as two, ScalarList([1.5, two, True]) as lst:
        assert acl.aclGetScalarListSize(lst.handle) == 3
        assert list(lst.values) == [1.5, 2, True]
        assert list(lst.dtypes) == [np.float64, np.int32, np.bool_]
    gc.collect()
    assert acl.aclStubLiveScalars() == before
    with ScalarList([1, 2], dtype="float16") as lst:
        assert lst.dtypes == (np.dtype(np.float16),) * 2 and lst.values == (1.0, 2.0)


def test_objects_pass_to_the_header_driven_mirror_as_their_handles():
    from aclnn_py import _dynamic

    with IntArray([1, 2]) as arr:
        assert _dynamic._handle("f", "dims", "aclIntArray", arr) == int(ffi.cast("uintptr_t", arr.handle))
    with pytest.raises(ValueError, match="closed IntArray"):
        _dynamic._handle("f", "dims", "aclIntArray", arr)


def test_objects_are_exported():
    for name in ("Scalar", "ScalarList", "IntArray", "BoolArray", "FloatArray", "TensorList"):
        assert getattr(aclnn_py, name) is globals()[name] and name in aclnn_py.__all__
