"""The compiled mirror (``_aclnn_py_native._mirror``): which functions it wraps, that each behaves as the Python
wrapper it falls back on (same result, same exception and message, for usual and unusual arguments), and that
out-parameters on the C stack are safe with threads."""

import inspect
import threading
import types

import numpy as np
import pytest

from _aclnn_py_native import _mirror as compiled
from aclnn_py import _mirror, acl, aclnn, errors
from aclnn_py._native import SIGNATURES, ffi

from helpers_acl import NULL, Arena, discard_executor

# The per-call functions of a ported sample: these must not fall back on Python for the usual arguments.
HOT = ("aclCreateTensor", "aclDestroyTensor", "aclnnMoeTokenPermuteGradGetWorkspaceSize", "aclnnMoeTokenPermuteGrad",
       "aclrtMalloc", "aclrtFree", "aclrtMemcpy", "aclrtSynchronizeStream", "aclCreateIntArray", "aclDestroyIntArray")


def module_of(name):
    return aclnn if name.startswith("aclnn") else acl


def test_the_per_call_functions_are_compiled():
    for name in HOT:
        assert name in compiled.NAMES, name
        assert isinstance(getattr(module_of(name), name), types.BuiltinFunctionType), name


# The runtime's lifetime is shared by the layers (docs/guide/layers.md, "How the layers mix"): acl.py wraps these.
SHARED_LIFETIME = ("aclInit", "aclFinalize")


@pytest.mark.parametrize("name", [n for n in compiled.NAMES if n not in SHARED_LIFETIME])
def test_compiled_wrapper_looks_like_the_python_one(name):
    fn, py = getattr(module_of(name), name), _mirror.make_python_wrapper(name)
    assert isinstance(fn, types.BuiltinFunctionType)
    assert fn.__name__ == name and fn.__module__ == module_of(name).__name__
    assert inspect.signature(fn) == inspect.signature(py)
    assert fn.__doc__ == py.__doc__


def test_functions_beyond_the_compiled_kinds_keep_the_python_wrapper():
    left = [n for n in SIGNATURES if _mirror.mirror_module(n) and n not in compiled.NAMES]
    assert "aclGetViewShape" in left and "aclCreateScalar" in left  # an array out-pair; a value read by dtype
    for name in left:
        assert not isinstance(getattr(module_of(name), name), types.BuiltinFunctionType), name


def outcome(fn, *args, **kwargs):
    """("raise", type, message) or ("ok", result)."""
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - compared, not handled
        return ("raise", type(exc), str(exc))


def same_outcome(name, release, describe, *args, **kwargs):
    """Call the compiled and the Python wrapper of ``name`` alike; both must raise the same exception with the
    same message, or both succeed with results that ``describe`` maps to equal values (then ``release``d)."""
    got = outcome(getattr(module_of(name), name), *args, **kwargs)
    want = outcome(_mirror.make_python_wrapper(name), *args, **kwargs)
    if got[0] == "ok" and want[0] == "ok":
        try:
            assert describe(got[1]) == describe(want[1]), (name, args, kwargs)
        finally:
            release(got[1])
            release(want[1])
    else:
        for o in (got, want):
            if o[0] == "ok":
                release(o[1])
        assert got == want, (name, args, kwargs)
    return got[0]


def tensor_facts(t):
    return (acl.aclGetViewShape(t), acl.aclGetViewStrides(t), acl.aclGetStorageShape(t), acl.aclGetViewOffset(t),
            acl.aclGetDataType(t), acl.aclGetFormat(t))


F, ND = acl.ACL_FLOAT, acl.ACL_FORMAT_ND
CREATE_CASES = [
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, None),
    ((2, 3), 2, F, (3, 1), 5, ND, (2, 3), 2, None),               # tuples, an offset
    ([], 0, F, [], 0, ND, [], 0, None),                           # a scalar tensor
    ([2, 3, 4], 2, F, [3, 1], 0, ND, [6], 1, None),               # counts below the lengths
    ([2, 3], 3, F, [3, 1, 1], 0, ND, [2, 3], 2, None),            # a count beyond viewDims
    ([2, 3], 2, F, [3], 0, ND, [2, 3], 2, None),                  # stride shorter than viewDimsNum
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 3, None),               # a count beyond storageDims
    ([2, 3], -1, F, [3, 1], 0, ND, [2, 3], 2, None),              # a negative count
    ([2, 3], 2.0, F, [3, 1], 0, ND, [2, 3], 2, None),             # a float count
    ([2, 3], True, F, [3, 1], 0, ND, [2, 3], 2, None),            # a bool count
    ([True, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, None),            # a bool element
    ([2.0, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, None),             # a float element
    ([2, "3"], 2, F, [3, 1], 0, ND, [2, 3], 2, None),             # a str element
    ([2, 2**63], 2, F, [3, 1], 0, ND, [2, 3], 2, None),           # an element beyond int64
    ([2, -(2**63)], 2, F, [3, 1], 0, ND, [2, 3], 2, None),        # int64's minimum
    (np.array([2, 3]), 2, F, np.array([3, 1]), 0, ND, [2, 3], 2, None),  # numpy arrays
    ([np.int64(2), 3], 2, F, [3, 1], 0, ND, [2, 3], 2, None),     # a numpy element
    (range(2, 4), 2, F, [3, 1], 0, ND, [2, 3], 2, None),          # a range
    (list(range(1, 101)), 2, F, [3, 1], 0, ND, [2, 3], 2, None),  # longer than the compiled path converts
    ([1] * 64, 64, F, [1] * 64, 0, ND, [1] * 64, 64, None),       # as long as it converts
    ([2, 3], 2, 999, [3, 1], 0, ND, [2, 3], 2, None),             # an unknown data type: the library says so
    ([2, 3], 2, -1, [3, 1], 0, ND, [2, 3], 2, None),              # a negative enum value
    ([2, 3], 2, 2**40, [3, 1], 0, ND, [2, 3], 2, None),           # an enum value beyond int
    ([2, 3], 2, F, [3, 1], 2**63, ND, [2, 3], 2, None),           # an offset beyond int64
    ([2, 3], 2, F, [3, 1], np.int64(1), ND, [2, 3], 2, None),     # a numpy offset
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, b"bytes"),           # bytes for an address
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, "str"),              # a str for an address
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, 1234),               # an int for an address
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, ffi.new("float[6]")),       # a cffi array
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, ffi.cast("void *", 4096)),  # a cffi pointer
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, acl.host_ptr(np.zeros(6, np.float32))),  # a host span
    (None, 0, F, None, 0, ND, None, 0, None),                     # NULL arrays
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 2),                     # an argument short
    ([2, 3], 2, F, [3, 1], 0, ND, [2, 3], 2, None, None),         # one too many
]


@pytest.mark.parametrize("args", CREATE_CASES, ids=range(len(CREATE_CASES)))
def test_create_tensor_matches_the_python_wrapper(args):
    same_outcome("aclCreateTensor", acl.aclDestroyTensor, tensor_facts, *args)


def test_keyword_arguments_take_the_python_wrapper():
    kwargs = dict(viewDims=[4], viewDimsNum=1, dataType=F, stride=[1], offset=0, format=ND, storageDims=[4],
                  storageDimsNum=1, tensorData=None)
    assert same_outcome("aclCreateTensor", acl.aclDestroyTensor, tensor_facts, **kwargs) == "ok"
    assert same_outcome("aclCreateTensor", acl.aclDestroyTensor, tensor_facts, [4], 1, **{
        k: v for k, v in kwargs.items() if k not in ("viewDims", "viewDimsNum")}) == "ok"
    assert same_outcome("aclCreateTensor", acl.aclDestroyTensor, tensor_facts, [4], nonsense=1) == "raise"


def test_int_arrays_match_the_python_wrapper():
    def facts(arr):
        return acl.aclGetIntArraySize(arr) if hasattr(acl, "aclGetIntArraySize") else ffi.typeof(arr)

    for args in ([[1, 2, 3], 3], [[], 0], [(5,), 1], [[1, 2], 3], [[1, 2], -1], [None, 0], [[1.5], 1],
                 [list(range(200)), 200], [np.arange(3), 3]):
        same_outcome("aclCreateIntArray", acl.aclDestroyIntArray, facts, *args)


def test_handles_and_statuses_match_the_python_wrapper():
    """Wrong handle types, None, and status errors (with the library's message) raise alike."""
    with Arena() as a:
        t = a.tensor([2, 3], F, NULL)
        arr = acl.aclCreateIntArray([1, 2], 2)
        try:
            for arg in (arr, None, 0, "x", ffi.NULL, ffi.new("int64_t[2]")):
                same_outcome("aclDestroyTensor", lambda r: None, repr, arg)
            gws = "aclnnMoeTokenPermuteGradGetWorkspaceSize"
            for args in ((None, None, 2, False, None), (t, t, 2, False, t), (t, arr, 2, False, t),
                         (t, t, 2, 1, t), (t, t, 2, 2, t), (t, t, 2.0, False, t), (t, t, 2**31, False, t)):
                same_outcome(gws, lambda r: discard_executor(r[1]), lambda r: r[0], *args)
            run = "aclnnMoeTokenPermuteGrad"
            for args in ((None, 0, None, None), (None, -1, None, None), (b"x", 1, None, None),
                         (None, 0, arr, None), (None, 0, None, "stream")):
                same_outcome(run, lambda r: None, repr, *args)
        finally:
            acl.aclDestroyIntArray(arr)


def test_runtime_calls_match_the_python_wrapper():
    host = np.arange(8, dtype=np.float32)
    dev = acl.aclrtMalloc(host.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    dev2 = acl.aclrtMalloc(host.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    try:
        H2D, D2H, D2D = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST, acl.ACL_MEMCPY_DEVICE_TO_DEVICE
        for args in ((dev, 32, acl.host_ptr(host), 32, H2D), (dev, 32, acl.host_ptr(host), 64, H2D),
                     (None, 32, acl.host_ptr(host), 32, H2D), (dev, 32, None, 32, H2D), (dev, 32, None, 0, H2D),
                     (dev, 32, host, 32, H2D), (dev, -1, acl.host_ptr(host), 32, H2D), (None, 0, None, 0, 77),
                     (dev, 32, ffi.new("char[8]"), 32, H2D), (dev, 32, ffi.new("char[64]"), 32, H2D),
                     (dev, 32, ffi.from_buffer(host), 64, H2D), (dev, 32, ffi.cast("char(*)[4]", dev)[0], 32, H2D),
                     (dev2, 32, dev, 32, D2D), (ffi.cast("char *", dev2) + 4, 28, dev, 28, D2D),
                     (dev2, 32, dev, -4, D2D), (dev2, 32, dev, 2**64, D2D), (dev2, 32, dev, 32.0, D2D)):
            same_outcome("aclrtMemcpy", lambda r: None, repr, *args)
        for args in ((dev, 32, None, None), (dev, -1, None, None), (ffi.new("char[4]"), 32, None, None)):
            same_outcome("aclnnMoeTokenPermuteGrad", lambda r: None, repr, *args)
        back = np.zeros_like(host)
        acl.aclrtMemcpy(dev, 32, acl.host_ptr(host), 32, H2D)  # the cases above overwrote it
        acl.aclrtMemcpy(dev2, 32, dev, 32, D2D)  # a bare address each side: the compiled path
        acl.aclrtMemcpy(acl.host_ptr(back), back.nbytes, dev2, back.nbytes, D2H)
        np.testing.assert_array_equal(back, host)
        for args in ((0, acl.ACL_MEM_MALLOC_HUGE_FIRST), (-1, acl.ACL_MEM_MALLOC_HUGE_FIRST), (16, 99), (16.0, 0)):
            same_outcome("aclrtMalloc", acl.aclrtFree, lambda p: ffi.typeof(p), *args)
    finally:
        acl.aclrtFree(dev)
        acl.aclrtFree(dev2)


def test_out_parameters_are_per_call_across_threads():
    """Threads create tensors of their own shapes and run phase 1 and 2 at once: every result is the thread's."""
    failures, barrier = [], threading.Barrier(4)
    stream = acl.aclrtCreateStream()

    def work(k):
        try:
            barrier.wait()
            for j in range(150):
                n = 1 + (k * 7 + j) % 5
                g = acl.aclCreateTensor([n * 2, 3], 2, F, [3, 1], 0, ND, [n * 2, 3], 2, None)
                i = acl.aclCreateTensor([n * 2], 1, acl.ACL_INT32, [1], 0, ND, [n * 2], 1, None)
                o = acl.aclCreateTensor([n, 3], 2, F, [3, 1], 0, ND, [n, 3], 2, None)
                try:
                    if acl.aclGetViewShape(g) != [n * 2, 3] or acl.aclGetViewShape(o) != [n, 3]:
                        failures.append((k, j, "shape"))
                    size, ex = aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize(g, i, 2, False, o)
                    if size != 0 or ffi.typeof(ex) is not ffi.typeof("aclOpExecutor *") or ex == ffi.NULL:
                        failures.append((k, j, "phase 1", size, ex))
                        continue
                    discard_executor(ex)
                finally:
                    for t in (g, i, o):
                        acl.aclDestroyTensor(t)
        except Exception as exc:  # noqa: BLE001 - reported below
            failures.append((k, repr(exc)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    acl.aclrtDestroyStream(stream)
    assert failures == []
