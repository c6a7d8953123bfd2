"""Every out-parameter of the C API comes back from the mirror as a return value, enums included: the test finds
the functions by their prototypes (a non-const pointer to a number or an enum, by the cffi declarations, not by
the mirror's own rules), checks that no such parameter is asked of the caller, and calls every runtime and tensor
meta function that has one."""

import inspect
import re

import numpy as np
import pytest

from aclnn_py import acl, aclnn
from aclnn_py._native import SIGNATURES, ffi


def scalar_outs(params) -> list[str]:
    """Parameters declared ``T *`` with T a number or an enum (``char *`` is a buffer, not a number)."""
    found = []
    for name, ctype in params:
        m = re.fullmatch(r"([A-Za-z_]\w*) \*", ctype)
        if m and m.group(1) not in ("void", "char") and ffi.typeof(m.group(1)).kind in ("primitive", "enum"):
            found.append(name)
    return found


WITH_OUTS = {name: scalar_outs(SIGNATURES[name]["params"])
             for mod in (acl, aclnn) for name in mod._mirror.names if scalar_outs(SIGNATURES[name]["params"])}


def test_the_prototypes_have_enum_out_parameters():
    # the three of the issue, with enum out-parameters
    assert WITH_OUTS["aclrtQueryEventStatus"] == ["status"]
    assert WITH_OUTS["aclrtStreamQuery"] == ["status"]
    assert WITH_OUTS["aclrtGetRunMode"] == ["runMode"]


@pytest.mark.parametrize("name", sorted(WITH_OUTS))
def test_no_out_parameter_is_asked_of_the_caller(name):
    module = aclnn if name.startswith("aclnn") else acl
    params = list(inspect.signature(getattr(module, name)).parameters)
    assert not set(WITH_OUTS[name]) & set(params), name
    assert "Returns" in getattr(module, name).__doc__


@pytest.fixture
def env():
    acl.aclrtSetDevice(0)
    stream = acl.aclrtCreateStream()
    event = acl.aclrtCreateEvent()
    end = acl.aclrtCreateEvent()
    acl.aclrtRecordEvent(event, stream)
    acl.aclrtRecordEvent(end, stream)
    acl.aclrtSynchronizeStream(stream)
    tensor = acl.aclCreateTensor([2, 3], 2, acl.ACL_FLOAT16, [3, 1], 1, acl.ACL_FORMAT_ND, [2, 4], 2, None)
    objects = {
        "stream": stream, "event": event, "end": end, "tensor": tensor,
        "ints": acl.aclCreateIntArray([1, 2, 3], 3), "bools": acl.aclCreateBoolArray([True], 1),
        "floats": acl.aclCreateFloatArray([1.0, 2.0], 2),
        "scalars": acl.aclCreateScalarList([acl.aclCreateScalar(np.float32(1), acl.ACL_FLOAT)], 1),
        "tensors": acl.aclCreateTensorList(
            [acl.aclCreateTensor([1], 1, acl.ACL_INT32, [1], 0, acl.ACL_FORMAT_ND, [1], 1, None)] * 1, 1),
    }
    yield objects
    for key, destroy in (("tensor", acl.aclDestroyTensor), ("ints", acl.aclDestroyIntArray),
                         ("bools", acl.aclDestroyBoolArray), ("floats", acl.aclDestroyFloatArray),
                         ("scalars", acl.aclDestroyScalarList), ("tensors", acl.aclDestroyTensorList)):
        destroy(objects[key])
    acl.aclrtDestroyEvent(event)
    acl.aclrtDestroyEvent(end)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(0)


# name -> (arguments from the environment, what comes back)
CALLS = {
    "aclrtGetRunMode": (lambda e: (), lambda r: r in (acl.ACL_DEVICE, acl.ACL_HOST)),
    "aclrtStreamQuery": (lambda e: (e["stream"],), lambda r: r == acl.ACL_STREAM_STATUS_COMPLETE),
    "aclrtQueryEventStatus": (lambda e: (e["event"],), lambda r: r == acl.ACL_EVENT_RECORDED_STATUS_COMPLETE),
    "aclrtQueryEvent": (lambda e: (e["event"],), lambda r: r == acl.ACL_EVENT_STATUS_COMPLETE),
    "aclrtEventElapsedTime": (lambda e: (e["event"], e["end"]), lambda r: isinstance(r, float) and r >= 0),
    "aclrtGetDevice": (lambda e: (), lambda r: r == 0),
    "aclrtGetDeviceCount": (lambda e: (), lambda r: isinstance(r, int) and r >= 1),
    "aclrtGetMemInfo": (lambda e: (acl.ACL_HBM_MEM,), lambda r: len(r) == 2 and 0 <= r[0] <= r[1]),
    "aclrtDeviceCanAccessPeer": (lambda e: (0, 1), lambda r: r in (0, 1)),
    "aclGetDataType": (lambda e: (e["tensor"],), lambda r: r == acl.ACL_FLOAT16),
    "aclGetFormat": (lambda e: (e["tensor"],), lambda r: r == acl.ACL_FORMAT_ND),
    "aclGetViewOffset": (lambda e: (e["tensor"],), lambda r: r == 1),
    "aclGetViewShape": (lambda e: (e["tensor"],), lambda r: r == [2, 3]),
    "aclGetViewStrides": (lambda e: (e["tensor"],), lambda r: r == [3, 1]),
    "aclGetStorageShape": (lambda e: (e["tensor"],), lambda r: r == [2, 4]),
    "aclGetIntArraySize": (lambda e: (e["ints"],), lambda r: r == 3),
    "aclGetBoolArraySize": (lambda e: (e["bools"],), lambda r: r == 1),
    "aclGetFloatArraySize": (lambda e: (e["floats"],), lambda r: r == 2),
    "aclGetScalarListSize": (lambda e: (e["scalars"],), lambda r: r == 1),
    "aclGetTensorListSize": (lambda e: (e["tensors"],), lambda r: r == 1),
}


def test_every_runtime_and_meta_function_with_an_out_parameter_is_called_below():
    # operators' first phases (aclnn*, and aclStft, an operator named without the nn) are the operator tests'
    assert set(CALLS) == {n for n in WITH_OUTS if not n.startswith("aclnn") and not n.endswith("GetWorkspaceSize")}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_out_parameters_are_returned(env, name):
    args, expect = CALLS[name]
    result = getattr(acl, name)(*args(env))
    assert expect(result), (name, result)
