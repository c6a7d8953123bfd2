"""Exceptions, the generated mirror functions, the C constants and the operator table."""

import importlib
import inspect
import pickle
from pathlib import Path

import numpy as np
import pytest

import aclnn_py
from aclnn_py import AclBaseError, AclError, AclnnError, SymbolNotFoundError, acl, aclnn, errors
from aclnn_py._mirror import is_out_param
from _aclnn_py_native.mirror_rules import mirror_module, py_name
from aclnn_py._native import SIGNATURES, ffi
from aclnn_py._optable import DISTRIBUTED_OPS, OPS, REQUIRED
from aclnn_py.loader import BackendNotFoundError

from helpers_acl import NULL, Arena, discard_executor

# The mirror's functions: the runtime, tensor meta API and operators (collectives are aclnn_py.hccl's).
MIRRORED = sorted(n for n in SIGNATURES if mirror_module(n) is not None)


def module_of(name):
    return aclnn if name.startswith("aclnn") else acl


# ---- exceptions ------------------------------------------------------------------------------------------

def test_error_attributes_and_text():
    e = errors.error_for(AclError, 100000, "aclrtMalloc", "aclrtMalloc: argument 'size' is 0")
    assert type(e) is errors.AclErrorInvalidParam
    assert isinstance(e, AclError) and isinstance(e, AclBaseError) and not isinstance(e, AclnnError)
    assert (e.status, e.name, e.function) == (100000, "ACL_ERROR_INVALID_PARAM", "aclrtMalloc")
    assert e.message == "aclrtMalloc: argument 'size' is 0"
    text = str(e)
    assert "aclrtMalloc" in text and "100000" in text and "ACL_ERROR_INVALID_PARAM" in text
    assert "argument 'size' is 0" in text


def test_error_text_without_function_or_message():
    e = AclnnError(161002)
    assert e.name == "ACLNN_ERR_PARAM_INVALID" and e.function == "" and e.message is None
    assert "161002" in str(e) and "ACLNN_ERR_PARAM_INVALID" in str(e)


SUBCLASSES = [
    (AclError, 100000, "AclErrorInvalidParam", "ACL_ERROR_INVALID_PARAM"),
    (AclError, 100001, "AclErrorUninitialize", "ACL_ERROR_UNINITIALIZE"),
    (AclError, 100002, "AclErrorRepeatInitialize", "ACL_ERROR_REPEAT_INITIALIZE"),
    (AclError, 100003, "AclErrorInvalidFile", "ACL_ERROR_INVALID_FILE"),
    (AclError, 100037, "AclErrorRepeatFinalize", "ACL_ERROR_REPEAT_FINALIZE"),
    (AclError, 107000, "AclErrorRtParamInvalid", "ACL_ERROR_RT_PARAM_INVALID"),
    (AclError, 107001, "AclErrorRtInvalidDeviceid", "ACL_ERROR_RT_INVALID_DEVICEID"),
    (AclError, 107002, "AclErrorRtContextNull", "ACL_ERROR_RT_CONTEXT_NULL"),
    (AclError, 207001, "AclErrorRtMemoryAllocation", "ACL_ERROR_RT_MEMORY_ALLOCATION"),
    (AclError, 507015, "AclErrorRtAicoreException", "ACL_ERROR_RT_AICORE_EXCEPTION"),
    (AclnnError, 161001, "AclnnErrParamNullptr", "ACLNN_ERR_PARAM_NULLPTR"),
    (AclnnError, 161002, "AclnnErrParamInvalid", "ACLNN_ERR_PARAM_INVALID"),
    (AclnnError, 361001, "AclnnErrRuntimeError", "ACLNN_ERR_RUNTIME_ERROR"),
    (AclnnError, 561000, "AclnnErrInner", "ACLNN_ERR_INNER"),
    (AclnnError, 561002, "AclnnErrInnerTilingError", "ACLNN_ERR_INNER_TILING_ERROR"),
    (AclnnError, 561103, "AclnnErrInnerNullptr", "ACLNN_ERR_INNER_NULLPTR"),
    (AclnnError, 561105, "AclnnErrInnerKeyConflict", "ACLNN_ERR_INNER_KEY_CONFLICT"),  # not the misspelt alias
]


def test_subclass_per_code():
    for base, status, cls_name, name in SUBCLASSES:
        cls = getattr(errors, cls_name)
        assert issubclass(cls, base) and cls is not base, cls_name
        e = errors.error_for(base, status, "f")
        assert type(e) is cls and e.status == status and e.name == name, cls_name
        assert cls(status).name == name


def test_every_named_code_has_its_own_class():
    for prefix, base in (("ACL_ERROR_", AclError), ("ACLNN_ERR", AclnnError)):
        mod = acl if base is AclError else aclnn
        for const in dir(mod):
            if not const.startswith(prefix) or "CONFILICT" in const:
                continue
            code = getattr(mod, const)
            if code == 0:  # ACL_ERROR_NONE is success, not an error
                continue
            e = errors.error_for(base, code)
            assert type(e) is not base and isinstance(e, base), const
            assert getattr(mod, e.name) == code


def test_codes_of_the_other_family_and_unknown_codes():
    assert AclnnError(100000).name == "ACL_ERROR_INVALID_PARAM"
    assert AclError(161002).name == "ACLNN_ERR_PARAM_INVALID"
    e = errors.error_for(AclError, 123457, "f")
    assert type(e) is AclError and e.name == "UNKNOWN_STATUS" and e.status == 123457
    assert type(errors.error_for(AclnnError, 999)) is AclnnError
    assert AclError(0).name == "ACL_SUCCESS" and AclnnError(0).name == "ACLNN_SUCCESS"


def test_mirror_raises_the_specific_class():
    with pytest.raises(errors.AclErrorInvalidParam) as ei:
        acl.aclrtMalloc(0, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ei.value.function == "aclrtMalloc" and ei.value.message
    with pytest.raises(aclnn_py.AclnnError) as ei:
        acl.aclDestroyAclOpExecutor(NULL)
    assert type(ei.value) is errors.AclnnErrInnerNullptr and ei.value.function == "aclDestroyAclOpExecutor"


@pytest.mark.parametrize("make", [
    lambda: errors.error_for(AclError, 107000, "aclrtFree", "aclrtFree: argument 'devPtr' ..."),
    lambda: errors.error_for(AclnnError, 161002, "aclnnMoeTokenPermuteGrad", None),
    lambda: AclError(100000, "aclInit"),
    lambda: AclnnError(777, "", "message only"),
    lambda: errors.error_for(AclnnError, 561105),
])
def test_status_errors_pickle_round_trip(make):
    e = make()
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e)
    assert (back.status, back.name, back.function, back.message, str(back)) == \
           (e.status, e.name, e.function, e.message, str(e))


@pytest.mark.parametrize("make", [
    lambda: SymbolNotFoundError("aclrtMemset", ["/opt/lib/libascendcl.so"]),
    lambda: BackendNotFoundError("ACLNN_PY_BACKEND=cann but no CANN toolkit was found; looked in: /x"),
])
def test_loader_errors_pickle_round_trip(make):
    e = make()
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e)
    assert (back.__dict__, str(back)) == (e.__dict__, str(e))


def test_symbol_and_backend_errors_are_base_errors_without_a_status():
    s = SymbolNotFoundError("aclX", ["/a/libascendcl.so"])
    assert isinstance(s, AclBaseError) and not isinstance(s, errors.AclStatusError)
    assert s.function == "aclX" and "aclX" in str(s) and "/a/libascendcl.so" in str(s)
    assert s.libraries == ("/a/libascendcl.so",)
    b = BackendNotFoundError("nothing")
    assert isinstance(b, AclBaseError) and not isinstance(b, errors.AclStatusError) and str(b) == "nothing"
    for e in (s, b):  # nothing was called, so there is no status to pretend
        assert not hasattr(e, "status") and not hasattr(e, "name")
    assert aclnn_py.BackendNotFoundError is errors.BackendNotFoundError is aclnn_py.loader.BackendNotFoundError


def test_status_errors_share_one_base():
    for cls in (AclError, AclnnError, errors.AclnnErrParamInvalid, errors.AclErrorRtParamInvalid):
        assert issubclass(cls, errors.AclStatusError) and issubclass(cls, AclBaseError)
    assert aclnn_py.AclStatusError is errors.AclStatusError


def test_check_raises_by_the_family_of_the_c_result_type():
    errors.check(0, "aclrtMalloc")  # success: nothing
    with pytest.raises(errors.AclErrorRtParamInvalid) as ei:
        errors.check(107000, "aclrtMalloc")  # returns aclError
    assert ei.value.function == "aclrtMalloc"
    with pytest.raises(errors.AclnnErrParamInvalid):
        errors.check(161002, "aclnnMoeTokenPermuteGradGetWorkspaceSize")  # returns aclnnStatus
    with pytest.raises(errors.AclnnErrParamInvalid):
        errors.check(161002, "aclrtMalloc", AclnnError)  # an explicit family wins
    assert errors.family_of("aclrtSynchronizeStream") is AclError
    assert errors.family_of("aclCreateTensor") is AclnnError  # a handle-returning meta function


def test_layers_use_the_errors_module_only():
    # One place turns statuses into exceptions: no layer defines or imports a raiser of its own.
    root = Path(aclnn_py.__file__).parent
    for name in ("runtime.py", "ops.py", "_mirror.py", "loader.py"):
        text = (root / name).read_text()
        assert "_raise_acl" not in text and "_raise_aclnn" not in text, name
        assert "startswith((\"aclrt\"" not in text, name


# ---- the mirror functions --------------------------------------------------------------------------------

OUT_PARAMS = [
    ("int64_t *", True), ("uint64_t *", True), ("uint32_t *", True), ("int32_t *", True), ("aclDataType *", True),
    ("aclFormat *", True), ("aclrtStream *", True), ("void **", True), ("aclOpExecutor **", True),
    ("int64_t **", True), ("const int64_t *", False), ("void *", False), ("const void *", False),
    ("aclTensor *", False), ("const aclTensor *", False), ("aclOpExecutor *", False), ("char *", False),
    ("const char *", False), ("int64_t", False), ("aclrtStream", False),
]


def test_is_out_param():
    assert {c: is_out_param(c) for c, _ in OUT_PARAMS} == dict(OUT_PARAMS)


def test_every_function_is_mirrored_with_inputs_only():
    problems = []
    for name in MIRRORED:
        fn = getattr(module_of(name), name)
        sig = SIGNATURES[name]
        params = sig["params"]
        expected = [py_name(n) for n, t in params if not is_out_param(t)]  # a keyword gets a trailing "_"
        got = list(inspect.signature(fn).parameters)
        if got != expected:
            problems.append((name, got, expected))
        if fn.__name__ != name or fn.__module__ != module_of(name).__name__:
            problems.append((name, fn.__name__, fn.__module__))
        doc = fn.__doc__ or ""
        if f"{sig['result']} {name}(" not in doc:
            problems.append((name, "doc lacks the C prototype", doc))
        outs = [n for n, t in params if is_out_param(t)]
        if outs and "Returns " + ", ".join(outs) not in doc:
            problems.append((name, "doc lacks the returned out-parameters", doc))
    assert not problems


def test_modules_split_the_functions():
    acl_names = {n for n in dir(acl) if n in SIGNATURES}
    aclnn_names = {n for n in dir(aclnn) if n in SIGNATURES}
    assert acl_names | aclnn_names == set(MIRRORED)
    assert not acl_names & aclnn_names
    assert all(n.startswith("aclnn") for n in aclnn_names)
    assert "aclCreateTensor" in acl_names and "aclnnMoeTokenPermuteGrad" in aclnn_names
    with pytest.raises(AttributeError):
        acl.aclnnMoeTokenPermuteGrad  # noqa: B018
    with pytest.raises(AttributeError):
        acl.aclNoSuchFunction  # noqa: B018
    with pytest.raises(AttributeError):
        aclnn.aclnnNoSuchOperator  # noqa: B018


def test_specific_signatures():
    params = lambda f: list(inspect.signature(f).parameters)  # noqa: E731
    assert params(acl.aclrtMalloc) == ["size", "policy"]
    assert params(acl.aclrtCreateStream) == []
    assert params(acl.aclrtGetDeviceCount) == []
    assert params(acl.aclrtMemcpy) == ["dst", "destMax", "src", "count", "kind"]
    assert params(acl.aclGetViewShape) == ["tensor"]
    assert params(acl.aclCreateTensor) == ["viewDims", "viewDimsNum", "dataType", "stride", "offset", "format",
                                           "storageDims", "storageDimsNum", "tensorData"]
    assert params(aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize) == [
        "permutedOutputGrad", "sortedIndices", "numTopk", "paddedMode", "out"]
    assert params(aclnn.aclnnMoeTokenPermuteGrad) == ["workspace", "workspaceSize", "executor", "stream"]


def test_return_values():
    assert acl.aclrtSynchronizeStream(NULL) is None            # status only -> None
    assert acl.aclrtGetDeviceCount() == 8                      # one out-parameter -> the value
    assert acl.aclDataTypeSize(acl.ACL_BF16) == 2              # plain result -> the value
    assert isinstance(acl.aclStubVersion(), str)               # const char * -> str
    with Arena() as a:
        t = a.tensor([2, 3], acl.ACL_FLOAT, NULL)
        assert acl.aclGetViewShape(t) == [2, 3]                # int64_t ** + uint64_t * -> list
        out = np.zeros((1, 3), np.float32)
        t_g, _ = a.from_numpy(np.ones((2, 3), np.float32))
        t_i, _ = a.from_numpy(np.array([0, 1], np.int32))
        t_o, _ = a.from_numpy(out)
        result = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(t_g, t_i, 2, False, t_o)
        assert isinstance(result, tuple) and len(result) == 2  # two out-parameters -> a tuple in C order
        ws, ex = result
        assert ws == 0 and ffi.typeof(ex) is ffi.typeof("aclOpExecutor *")
        discard_executor(ex)


def test_documented_acl_example_runs():
    """The usage shown in aclnn_py.acl's docstring, with Python lists for the shapes."""
    nbytes, shape, strides = 4 * 2 * 3, [2, 3], [3, 1]
    host = np.arange(12, dtype=np.uint16)
    stream = acl.aclrtCreateStream()
    dev = acl.aclrtMalloc(nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    try:
        acl.aclrtMemcpy(dev, nbytes, ffi.from_buffer(host), nbytes, acl.ACL_MEMCPY_HOST_TO_DEVICE)
        t = acl.aclCreateTensor(shape, len(shape), acl.ACL_BF16, strides, 0, acl.ACL_FORMAT_ND, shape, len(shape), dev)
        assert acl.aclGetViewStrides(t) == strides
        acl.aclDestroyTensor(t)
    finally:
        acl.aclrtFree(dev)
        acl.aclrtDestroyStream(stream)


def test_documented_aclnn_example_with_none():
    """aclnn_py.aclnn's docstring: pass None for a NULL workspace (and the default stream)."""
    with Arena() as a:
        grad = np.arange(6, dtype=np.float32).reshape(3, 2)
        t_g, _ = a.from_numpy(grad)
        t_i, _ = a.from_numpy(np.array([2, 0, 1], np.int32))
        t_o, p_o = a.zeros((3, 2), np.float32)
        ws_size, executor = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(t_g, t_i, 1, False, t_o)
        workspace = acl.aclrtMalloc(ws_size, acl.ACL_MEM_MALLOC_HUGE_FIRST) if ws_size else None
        try:
            aclnn.aclnnMoeTokenPermuteGrad(workspace, ws_size, executor, None)
            acl.aclrtSynchronizeStream(None)  # phase 2 is queued: results exist after this
        except TypeError:
            discard_executor(executor)
            raise
        np.testing.assert_array_equal(a.download(p_o, (3, 2), np.float32), grad[[2, 0, 1]])


def test_none_is_null_for_pointer_arguments():
    """None stands for NULL wherever C takes a pointer (as aclInit(None) already does)."""
    assert acl.aclDestroyTensor(None) is None
    assert acl.aclrtSynchronizeStream(None) is None
    with pytest.raises(errors.AclnnErrParamNullptr):
        aclnn.aclnnMoeTokenPermuteGrad(None, 0, None, None)
    with pytest.raises(errors.AclnnErrInnerNullptr):
        acl.aclCreateScalar(None, acl.ACL_FLOAT)


# ---- constants (abi.md 5 and 6) --------------------------------------------------------------------------

DATA_TYPES = dict(
    ACL_DT_UNDEFINED=-1, ACL_FLOAT=0, ACL_FLOAT16=1, ACL_INT8=2, ACL_INT32=3, ACL_UINT8=4, ACL_INT16=6, ACL_UINT16=7,
    ACL_UINT32=8, ACL_INT64=9, ACL_UINT64=10, ACL_DOUBLE=11, ACL_BOOL=12, ACL_STRING=13, ACL_COMPLEX64=16,
    ACL_COMPLEX128=17, ACL_BF16=27, ACL_INT4=29, ACL_UINT1=30, ACL_COMPLEX32=33, ACL_HIFLOAT8=34,
    ACL_FLOAT8_E5M2=35, ACL_FLOAT8_E4M3FN=36, ACL_FLOAT8_E8M0=37, ACL_FLOAT6_E3M2=38, ACL_FLOAT6_E2M3=39,
    ACL_FLOAT4_E2M1=40, ACL_FLOAT4_E1M2=41,
)
FORMATS = dict(
    ACL_FORMAT_UNDEFINED=-1, ACL_FORMAT_NCHW=0, ACL_FORMAT_NHWC=1, ACL_FORMAT_ND=2, ACL_FORMAT_NC1HWC0=3,
    ACL_FORMAT_FRACTAL_Z=4, ACL_FORMAT_NC1HWC0_C04=12, ACL_FORMAT_HWCN=16, ACL_FORMAT_NDHWC=27,
    ACL_FORMAT_FRACTAL_NZ=29, ACL_FORMAT_NCDHW=30, ACL_FORMAT_NDC1HWC0=32, ACL_FRACTAL_Z_3D=33, ACL_FORMAT_NC=35,
    ACL_FORMAT_NCL=47, ACL_FORMAT_FRACTAL_NZ_C0_16=50, ACL_FORMAT_FRACTAL_NZ_C0_32=51, ACL_FORMAT_FRACTAL_NZ_C0_2=52,
    ACL_FORMAT_FRACTAL_NZ_C0_4=53, ACL_FORMAT_FRACTAL_NZ_C0_8=54,
)
MALLOC_POLICIES = dict(
    ACL_MEM_MALLOC_HUGE_FIRST=0, ACL_MEM_MALLOC_HUGE_ONLY=1, ACL_MEM_MALLOC_NORMAL_ONLY=2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P=3, ACL_MEM_MALLOC_HUGE_ONLY_P2P=4, ACL_MEM_MALLOC_NORMAL_ONLY_P2P=5,
    ACL_MEM_MALLOC_HUGE1G_ONLY=6, ACL_MEM_MALLOC_HUGE1G_ONLY_P2P=7, ACL_MEM_TYPE_LOW_BAND_WIDTH=0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH=0x1000, ACL_MEM_ACCESS_USER_SPACE_READONLY=0x100000,
)
MEMCPY_KINDS = dict(
    ACL_MEMCPY_HOST_TO_HOST=0, ACL_MEMCPY_HOST_TO_DEVICE=1, ACL_MEMCPY_DEVICE_TO_HOST=2,
    ACL_MEMCPY_DEVICE_TO_DEVICE=3, ACL_MEMCPY_DEFAULT=4, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE=5,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE=6, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE=7,
)
ACL_CODES = dict(
    ACL_SUCCESS=0, ACL_ERROR_NONE=0, ACL_ERROR_INVALID_PARAM=100000, ACL_ERROR_UNINITIALIZE=100001,
    ACL_ERROR_REPEAT_INITIALIZE=100002, ACL_ERROR_INVALID_FILE=100003, ACL_ERROR_WRITE_FILE=100004,
    ACL_ERROR_INVALID_FILE_SIZE=100005, ACL_ERROR_PARSE_FILE=100006, ACL_ERROR_FILE_MISSING_ATTR=100007,
    ACL_ERROR_FILE_ATTR_INVALID=100008, ACL_ERROR_INVALID_DUMP_CONFIG=100009,
    ACL_ERROR_INVALID_PROFILING_CONFIG=100010, ACL_ERROR_INVALID_MODEL_ID=100011,
    ACL_ERROR_DESERIALIZE_MODEL=100012, ACL_ERROR_PARSE_MODEL=100013, ACL_ERROR_READ_MODEL_FAILURE=100014,
    ACL_ERROR_MODEL_SIZE_INVALID=100015, ACL_ERROR_MODEL_MISSING_ATTR=100016, ACL_ERROR_MODEL_INPUT_NOT_MATCH=100017,
    ACL_ERROR_MODEL_OUTPUT_NOT_MATCH=100018, ACL_ERROR_MODEL_NOT_DYNAMIC=100019, ACL_ERROR_OP_TYPE_NOT_MATCH=100020,
    ACL_ERROR_OP_INPUT_NOT_MATCH=100021, ACL_ERROR_OP_OUTPUT_NOT_MATCH=100022, ACL_ERROR_OP_ATTR_NOT_MATCH=100023,
    ACL_ERROR_OP_NOT_FOUND=100024, ACL_ERROR_OP_LOAD_FAILED=100025, ACL_ERROR_UNSUPPORTED_DATA_TYPE=100026,
    ACL_ERROR_FORMAT_NOT_MATCH=100027, ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED=100028,
    ACL_ERROR_KERNEL_NOT_FOUND=100029, ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED=100030,
    ACL_ERROR_KERNEL_ALREADY_REGISTERED=100031, ACL_ERROR_INVALID_QUEUE_ID=100032,
    ACL_ERROR_REPEAT_SUBSCRIBE=100033, ACL_ERROR_STREAM_NOT_SUBSCRIBE=100034,
    ACL_ERROR_THREAD_NOT_SUBSCRIBE=100035, ACL_ERROR_WAIT_CALLBACK_TIMEOUT=100036,
    ACL_ERROR_REPEAT_FINALIZE=100037, ACL_ERROR_NOT_STATIC_AIPP=100038, ACL_ERROR_COMPILING_STUB_MODE=100039,
    ACL_ERROR_GROUP_NOT_SET=100040, ACL_ERROR_GROUP_NOT_CREATE=100041, ACL_ERROR_PROF_ALREADY_RUN=100042,
    ACL_ERROR_PROF_NOT_RUN=100043, ACL_ERROR_DUMP_ALREADY_RUN=100044, ACL_ERROR_DUMP_NOT_RUN=100045,
    ACL_ERROR_PROF_REPEAT_SUBSCRIBE=148046, ACL_ERROR_PROF_API_CONFLICT=148047,
    ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG=148048, ACL_ERROR_INVALID_OPP_PATH=148049,
    ACL_ERROR_OP_UNSUPPORTED_DYNAMIC=148050, ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED=148051,
    ACL_ERROR_UNSUPPORTED_JPEG=148052, ACL_ERROR_INVALID_BUNDLE_MODEL_ID=148053, ACL_ERROR_BAD_ALLOC=200000,
    ACL_ERROR_API_NOT_SUPPORT=200001, ACL_ERROR_INVALID_DEVICE=200002, ACL_ERROR_MEMORY_ADDRESS_UNALIGNED=200003,
    ACL_ERROR_RESOURCE_NOT_MATCH=200004, ACL_ERROR_INVALID_RESOURCE_HANDLE=200005,
    ACL_ERROR_FEATURE_UNSUPPORTED=200006, ACL_ERROR_PROF_MODULES_UNSUPPORTED=200007,
    ACL_ERROR_STORAGE_OVER_LIMIT=300000, ACL_ERROR_INTERNAL_ERROR=500000, ACL_ERROR_FAILURE=500001,
    ACL_ERROR_GE_FAILURE=500002, ACL_ERROR_RT_FAILURE=500003, ACL_ERROR_DRV_FAILURE=500004,
    ACL_ERROR_PROFILING_FAILURE=500005,
    ACL_RT_SUCCESS=0, ACL_ERROR_RT_PARAM_INVALID=107000, ACL_ERROR_RT_INVALID_DEVICEID=107001,
    ACL_ERROR_RT_CONTEXT_NULL=107002, ACL_ERROR_RT_STREAM_CONTEXT=107003, ACL_ERROR_RT_INVALID_HANDLE=107017,
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT=207000, ACL_ERROR_RT_MEMORY_ALLOCATION=207001, ACL_ERROR_RT_MEMORY_FREE=207002,
    ACL_ERROR_RT_NO_DEVICE=207004, ACL_ERROR_RT_INTERNAL_ERROR=507000, ACL_ERROR_RT_AICORE_EXCEPTION=507015,
)
ACLNN_CODES = dict(
    ACLNN_SUCCESS=0, ACLNN_ERR_PARAM_NULLPTR=161001, ACLNN_ERR_PARAM_INVALID=161002, ACLNN_ERR_RUNTIME_ERROR=361001,
    ACLNN_ERR_INNER=561000, ACLNN_ERR_INNER_INFERSHAPE_ERROR=561001, ACLNN_ERR_INNER_TILING_ERROR=561002,
    ACLNN_ERR_INNER_FIND_KERNEL_ERROR=561003, ACLNN_ERR_INNER_CREATE_EXECUTOR=561101,
    ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR=561102, ACLNN_ERR_INNER_NULLPTR=561103,
    ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE=561104, ACLNN_ERR_INNER_KEY_CONFILICT=561105,
    ACLNN_ERR_INNER_KEY_CONFLICT=561105, ACLNN_ERR_INNER_INVALID_IMPL_MODE=561106,
    ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND=561107, ACLNN_ERR_INNER_LOAD_JSON_FAILED=561108,
    ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND=561109, ACLNN_ERR_INNER_JSON_FORMAT_INVALID=561110,
    ACLNN_ERR_INNER_JSON_DTYPE_INVALID=561111, ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND=561112,
    ACLNN_ERR_INNER_OP_FILE_INVALID=561113, ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND=561114,
    ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH=561115, ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE=561116,
    ACLNN_ERR_INNER_INPUT_JSON_IS_NULL=561117, ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID=561118,
    ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID=561119,
)


@pytest.mark.parametrize("table", [DATA_TYPES, FORMATS, MALLOC_POLICIES, MEMCPY_KINDS, ACL_CODES],
                         ids=["aclDataType", "aclFormat", "aclrtMemMallocPolicy", "aclrtMemcpyKind", "aclError"])
def test_acl_constants(table):
    assert {k: getattr(acl, k, None) for k in table} == table


def test_aclnn_constants():
    assert {k: getattr(aclnn, k, None) for k in ACLNN_CODES} == ACLNN_CODES
    assert acl.OK == 0


def test_constants_are_plain_ints():
    for mod in (acl, aclnn):
        for k in dir(mod):
            if k.startswith(("ACL_", "ACLNN_")):
                assert type(getattr(mod, k)) is int, k


# ---- the operator table against the generated C signatures ----------------------------------------------

TENSOR_TYPES = ("const aclTensor *", "aclTensor *")
ATTR_TYPES = ("int64_t", "bool")
INTARRAY_TYPES = ("const aclIntArray *", "aclIntArray *")


def test_every_moe_operator_in_the_headers_has_a_row():
    """The table-driven high-level functions cover the MoE operators they were written for; every other MoE
    operator of the headers runs on the stub through run() and the mirror, without a row."""
    in_headers = {n[: -len("GetWorkspaceSize")] for n in SIGNATURES if n.endswith("GetWorkspaceSize")}
    moe = {n for n in in_headers if n.startswith("aclnnMoe")}
    rows = {op.c_name for op in OPS} | set(DISTRIBUTED_OPS)
    assert rows <= moe
    # the rest (routing V1, gating, quantised routing) go through run() and the mirror: the stub must run them
    registered = set()
    while (name := acl.aclStubRegisteredOp(len(registered))) is not None:
        registered.add(name)
    assert moe - rows <= registered, sorted(moe - rows - registered)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_op_table_row_matches_c_signature(op):
    p1 = SIGNATURES[op.c_name + "GetWorkspaceSize"]
    assert p1["result"] == "aclnnStatus"
    names = [n for n, _ in p1["params"]]
    assert names == [p.name for p in op.params] + ["workspaceSize", "executor"]
    types = dict(p1["params"])
    for p in op.params:
        allowed = {"in": TENSOR_TYPES, "out": TENSOR_TYPES, "attr": ATTR_TYPES, "intarray": INTARRAY_TYPES}[p.role]
        assert types[p.name] in allowed, (p.name, p.role, types[p.name])
    assert types["workspaceSize"] == "uint64_t *" and types["executor"] == "aclOpExecutor **"
    p2 = SIGNATURES[op.c_name]
    assert p2["result"] == "aclnnStatus"
    assert [n for n, _ in p2["params"]] == ["workspace", "workspaceSize", "executor", "stream"]
    t2 = [t for _, t in p2["params"]]
    assert t2[:3] == ["void *", "uint64_t", "aclOpExecutor *"] and t2[3] in ("aclrtStream", "const aclrtStream")


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_op_table_row_is_consistent(op):
    types = dict(SIGNATURES[op.c_name + "GetWorkspaceSize"]["params"])
    for p in op.params:
        # An ...Optional tensor is optional, and an input without the suffix is required. An output without it
        # may still be one the op_api accepts as NULL (aclnnMoeTokenUnpermuteWithRoutingMap's index outputs).
        if p.role == "in" or (p.role == "out" and p.name.endswith("Optional")):
            assert p.optional == p.name.endswith("Optional"), p.name
        if p.role == "attr" and p.default is not REQUIRED:
            want = bool if types[p.name] == "bool" else int
            assert type(p.default) is want, (p.name, p.default)
        if p.role == "attr" and p.name.endswith("Optional"):
            assert p.default is not REQUIRED, p.name
        if p.role == "out":
            assert p.shape is not None and p.dtype is not None
    header = Path(aclnn_py.get_include()) / op.header
    assert header.is_file()
    assert op.c_name + "GetWorkspaceSize" in header.read_text()


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_high_level_function_and_reference_follow_the_row(op):
    fn = getattr(aclnn_py, op.py_name)
    assert op.py_name in aclnn_py.__all__
    params = inspect.signature(fn).parameters
    inputs = [p for p in op.params if p.role != "out"]
    assert list(params) == [p.py_name for p in inputs] + ["stream", "sync"]
    assert params["stream"].kind is inspect.Parameter.KEYWORD_ONLY and params["stream"].default is None
    assert params["sync"].kind is inspect.Parameter.KEYWORD_ONLY and params["sync"].default is True
    for p in inputs:
        default = params[p.py_name].default
        assert default is inspect.Parameter.empty if p.default is REQUIRED else default == p.default
    assert fn.__doc__ and op.c_name in fn.__doc__
    ref = getattr(importlib.import_module(f"aclnn_py.reference.{op.py_name}"), op.py_name)
    ref_params = inspect.signature(ref).parameters
    assert [(n, q.default) for n, q in ref_params.items()] == [(n, q.default) for n, q in params.items()
                                                               if n not in ("stream", "sync")]
