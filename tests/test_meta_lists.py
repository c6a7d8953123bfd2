"""aclFloatArray, aclBoolArray, aclTensorList and aclScalarList through the mirror layer and from C."""

from pathlib import Path

import pytest

from aclnn_py import acl, aclnn, errors
from aclnn_py._native import ffi

from helpers_acl import NULL
from helpers_ops import run_c_validation

ND = acl.ACL_FORMAT_ND
PARAM_NULLPTR, PARAM_INVALID = aclnn.ACLNN_ERR_PARAM_NULLPTR, aclnn.ACLNN_ERR_PARAM_INVALID


def tensor(shape=(2, 3)):
    shape = list(shape)
    return acl.aclCreateTensor(shape, len(shape), acl.ACL_FLOAT, NULL, 0, ND, shape, len(shape), NULL)


def scalar(value=1.0):
    return acl.aclCreateScalar(ffi.new("float *", value), acl.ACL_FLOAT)


# ---- float and bool arrays -------------------------------------------------------------------------------

@pytest.mark.parametrize("create, size_of, destroy, values", [
    ("aclCreateFloatArray", "aclGetFloatArraySize", "aclDestroyFloatArray", [1.5, -2.0, 3.25]),
    ("aclCreateBoolArray", "aclGetBoolArraySize", "aclDestroyBoolArray", [True, False, True, True]),
])
def test_array_round_trip(create, size_of, destroy, values):
    counter = "aclStubLiveFloatArrays" if "Float" in create else "aclStubLiveBoolArrays"
    before = getattr(acl, counter)()
    array = getattr(acl, create)(values, len(values))
    assert getattr(acl, size_of)(array) == len(values)
    assert getattr(acl, counter)() == before + 1
    getattr(acl, destroy)(array)
    assert getattr(acl, counter)() == before
    with pytest.raises(errors.AclnnErrParamInvalid) as ei:
        getattr(acl, destroy)(array)
    assert destroy in str(ei.value) and "'array'" in str(ei.value)
    with pytest.raises(errors.AclnnErrParamInvalid):
        getattr(acl, size_of)(array)


def test_empty_arrays_and_null_destroy():
    fa = acl.aclCreateFloatArray(NULL, 0)
    assert acl.aclGetFloatArraySize(fa) == 0
    acl.aclDestroyFloatArray(fa)
    acl.aclDestroyFloatArray(None)  # NULL is a no-op, as in CANN
    acl.aclDestroyBoolArray(None)


def test_null_values_with_a_size_is_refused():
    with pytest.raises(errors.AclnnError) as ei:
        acl.aclCreateBoolArray(NULL, 2)
    assert "aclCreateBoolArray" in str(ei.value) and "'value'" in str(ei.value)


def test_size_beyond_the_values_is_refused_before_reading():
    # The mirror checks the count against the array it built; the C limit itself is a case of the C program.
    with pytest.raises(ValueError) as ei:
        acl.aclCreateFloatArray([1.0], 1 << 50)
    assert "'size'" in str(ei.value) and "'value'" in str(ei.value)
    t = tensor()
    try:
        with pytest.raises(ValueError):
            acl.aclCreateTensorList([t], 2)
    finally:
        acl.aclDestroyTensor(t)


def test_get_size_null_arguments():
    with pytest.raises(errors.AclnnErrParamNullptr) as ei:
        acl.aclGetFloatArraySize(None)
    assert ei.value.status == PARAM_NULLPTR and "'array'" in str(ei.value)
    with pytest.raises(errors.AclnnErrParamNullptr) as ei:
        acl.aclGetTensorListSize(None)
    assert "'tensorList'" in str(ei.value)
    with pytest.raises(errors.AclnnErrParamNullptr) as ei:
        acl.aclGetScalarListSize(None)
    assert "'scalarList'" in str(ei.value)


def test_a_handle_of_one_kind_is_not_another():
    fa = acl.aclCreateFloatArray([1.0], 1)
    try:
        for fn, typ in (("aclGetBoolArraySize", "aclBoolArray *"), ("aclGetIntArraySize", "aclIntArray *"),
                        ("aclGetTensorListSize", "aclTensorList *"), ("aclGetScalarListSize", "aclScalarList *")):
            with pytest.raises(errors.AclnnErrParamInvalid):
                getattr(acl, fn)(ffi.cast(typ, fa))
    finally:
        acl.aclDestroyFloatArray(fa)


# ---- tensor and scalar lists -----------------------------------------------------------------------------

def test_tensor_list_owns_its_tensors():
    before = acl.aclStubLiveTensors()
    t0, t1 = tensor(), tensor((4,))
    lst = acl.aclCreateTensorList(ffi.new("aclTensor *[]", [t0, NULL, t1]), 3)
    assert acl.aclGetTensorListSize(lst) == 3
    assert acl.aclStubLiveTensorLists() >= 1
    acl.aclDestroyTensorList(lst)
    assert acl.aclStubLiveTensors() == before  # the list destroyed both tensors
    with pytest.raises(errors.AclnnErrParamInvalid):
        acl.aclDestroyTensor(t0)
    with pytest.raises(errors.AclnnErrParamInvalid) as ei:
        acl.aclDestroyTensorList(lst)
    assert "not a live aclTensorList" in str(ei.value)


def test_tensor_list_from_a_python_list_of_handles():
    t = tensor()
    lst = acl.aclCreateTensorList([t], 1)
    assert acl.aclGetTensorListSize(lst) == 1
    acl.aclDestroyTensorList(lst)


def test_tensor_list_refuses_a_dead_element_and_creates_nothing():
    t, dead = tensor(), tensor()
    acl.aclDestroyTensor(dead)
    lists = acl.aclStubLiveTensorLists()
    with pytest.raises(errors.AclnnError) as ei:
        acl.aclCreateTensorList([t, dead], 2)
    assert "element 1" in str(ei.value) and "not a live aclTensor" in str(ei.value)
    assert acl.aclStubLiveTensorLists() == lists
    acl.aclDestroyTensor(t)


def test_destroying_a_list_reports_an_element_destroyed_on_its_own():
    before = acl.aclStubLiveTensors()
    a, b = tensor(), tensor()
    lst = acl.aclCreateTensorList([a, b], 2)
    acl.aclDestroyTensor(b)
    with pytest.raises(errors.AclnnErrParamInvalid) as ei:
        acl.aclDestroyTensorList(lst)
    assert "first: element 1" in str(ei.value)
    assert acl.aclStubLiveTensors() == before  # a was still destroyed: nothing leaks


def test_scalar_list_owns_its_scalars():
    before = acl.aclStubLiveScalars()
    s0, s1 = scalar(1.0), scalar(2.0)
    lst = acl.aclCreateScalarList([s0, s1], 2)
    assert acl.aclGetScalarListSize(lst) == 2
    acl.aclDestroyScalarList(lst)
    assert acl.aclStubLiveScalars() == before


def test_scalar_list_refuses_a_tensor_as_element():
    t = tensor()
    try:
        with pytest.raises(errors.AclnnError) as ei:
            acl.aclCreateScalarList([ffi.cast("aclScalar *", t)], 1)
        assert "not a live aclScalar" in str(ei.value)
    finally:
        acl.aclDestroyTensor(t)


# ---- from C: accessors, threads, fork, counters ------------------------------------------------------------

C_SOURCE = Path(__file__).resolve().parent / "c" / "meta_lists.c"
C_EXPECTED = {
    "float_create": 1,
    "float_size": 0,
    "float_size_value": 3,
    "float_values_ok": 1,
    "float_values_equal": 1,
    "float_values_capacity": 1,
    "float_size_only": 1,
    "float_size_null_out": 161001,
    "float_size_null_array": 161001,
    "float_size_null_array_message": 1,
    "float_as_bool_array": 161002,
    "float_destroy": 0,
    "float_destroy_again": 161002,
    "float_destroy_again_message": 1,
    "float_size_dead": 161002,
    "float_values_dead": 0,
    "float_destroy_null": 0,
    "float_null_with_size": 1,
    "float_null_with_size_message": 1,
    "float_too_large": 1,
    "float_too_large_message": 1,
    "float_empty": 1,
    "float_empty_destroy": 0,
    "float_stack_pointer": 161002,
    "bool_create": 1,
    "bool_size": 4,
    "bool_values_ok": 1,
    "bool_values_normalised": 1,
    "bool_as_float_array": 161002,
    "bool_destroy": 0,
    "bool_destroy_again": 161002,
    "tlist_create": 1,
    "tlist_size": 3,
    "tlist_elements_ok": 1,
    "tlist_elements_equal": 1,
    "tlist_size_null_list": 161001,
    "tlist_size_null_list_message": 1,
    "tlist_as_scalar_list": 161002,
    "tlist_live": 1,
    "tlist_destroy": 0,
    "tlist_destroy_frees_tensors": 0,
    "tlist_element_destroyed": 161002,
    "tlist_destroy_again": 161002,
    "tlist_elements_dead": 0,
    "tlist_dead_element": 1,
    "tlist_dead_element_message": 1,
    "tlist_foreign_element": 1,
    "tlist_null_with_size": 1,
    "tlist_too_large": 1,
    "tlist_element_destroyed_first": 161002,
    "tlist_element_destroyed_first_message": 1,
    "tlist_twice_create": 1,
    "tlist_twice_destroy": 161002,
    "tlist_twice_message": 1,
    "tlist_leftover_tensors": 0,
    "tlist_empty": 1,
    "tlist_empty_destroy": 0,
    "slist_create": 1,
    "slist_size": 2,
    "slist_elements_equal": 1,
    "slist_destroy": 0,
    "slist_destroy_frees_scalars": 0,
    "slist_destroy_again": 161002,
    "slist_dead_element": 1,
    "slist_dead_element_message": 1,
    "slist_null_element": 1,
    "slist_null_element_destroy": 0,
    "slist_size_null_out": 161001,
    "slist_leftover_scalars": 0,
    "threads_churn_failures": 0,
    "threads_racing_destroys_one_wins": 50,
    "fork_children_ok": 20,
    "live_float_arrays": 0,
    "live_bool_arrays": 0,
    "live_tensor_lists": 0,
    "live_scalar_lists": 0,
    "live_tensors": 0,
    "live_scalars": 0,
}


def test_c_program(tmp_path_factory):
    results = run_c_validation(C_SOURCE, tmp_path_factory, werror=True)
    mismatches = {k: (results.get(k), v) for k, v in C_EXPECTED.items() if results.get(k) != v}
    assert mismatches == {}, mismatches  # case: (printed, expected)
    assert set(results) == set(C_EXPECTED)
