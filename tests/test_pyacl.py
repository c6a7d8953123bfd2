"""aclnn_py.pyacl keeps CANN pyACL's conventions: its module layout (acl, acl.rt, acl.util, acl.op), its names and
argument orders (the C inputs in C order, snake_case), ints for addresses and handles, out-parameters then the
status in a tuple, never an exception for a status. The pyACL example runs unchanged three ways; the opt-in
``import acl`` never shadows a real pyACL."""

import inspect
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from aclnn_py import pyacl
from aclnn_py._native import SIGNATURES
from aclnn_py.pyacl import _wrap

from _aclnn_py_native.mirror_rules import is_out_param

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "pyacl" / "moe_token_permute_pyacl.py"
TABLES = [("acl", pyacl, pyacl.TOP), ("acl.rt", pyacl.rt, pyacl.rt.FUNCTIONS)]


@pytest.mark.parametrize("prefix, module, name, c_name",
                         [(p, m, n, c) for p, m, t in TABLES for n, c in t.items()])
def test_names_and_argument_orders_are_the_c_functions(prefix, module, name, c_name):
    fn = getattr(module, name)
    c_inputs = [_wrap.snake(n) for n, t in SIGNATURES[c_name]["params"] if not is_out_param(t)]
    assert list(inspect.signature(fn).parameters) == c_inputs
    assert name in module.__all__
    # pyACL's names are the C names without the prefix, in snake_case, but for a few it renames
    renamed = {"set_context", "get_context", "unsubscribe_report", "get_soc_name", "init", "finalize",
               "get_recent_err_msg", "float16_to_float", "float_to_float16", "data_type_size"}
    assert name in renamed or _wrap.snake(c_name[len("aclrt"):]) == name


@pytest.fixture
def device():
    assert pyacl.rt.set_device(0) == 0
    yield
    assert pyacl.rt.reset_device(0) == 0


def test_results_are_tuples_with_the_status_last_and_statuses_are_not_raised(device):
    ptr, ret = pyacl.rt.malloc(64, 0)
    assert ret == 0 and isinstance(ptr, int) and ptr != 0
    assert pyacl.rt.memset(ptr, 64, 7, 64) == 0
    host = np.zeros(64, np.uint8)
    assert pyacl.rt.memcpy(pyacl.util.numpy_to_ptr(host), 64, ptr, 64, 2) == 0
    assert (host == 7).all()
    assert pyacl.rt.free(ptr) == 0
    assert pyacl.rt.free(ptr) == 107003 or pyacl.rt.free(ptr) != 0  # a double free is a status, not an exception
    ptr, ret = pyacl.rt.malloc(1 << 62, 0)
    assert (ptr, ret) == (0, 207001) and "exceeds" in pyacl.get_recent_err_msg()
    stream, ret = pyacl.rt.create_stream()
    event, ret2 = pyacl.rt.create_event()
    assert ret == ret2 == 0 and pyacl.rt.record_event(event, stream) == 0
    assert pyacl.rt.synchronize_stream(stream) == 0
    assert pyacl.rt.stream_query(stream) == (0, 0)                 # (ACL_STREAM_STATUS_COMPLETE, ret)
    assert pyacl.rt.query_event_status(event) == (1, 0)            # (ACL_EVENT_RECORDED_STATUS_COMPLETE, ret)
    mode, ret = pyacl.rt.get_run_mode()
    assert ret == 0 and mode in (0, 1)
    free, total, ret = pyacl.rt.get_mem_info(0)
    assert ret == 0 and 0 < free <= total
    assert pyacl.rt.get_device() == (0, 0)
    assert pyacl.rt.destroy_event(event) == 0 and pyacl.rt.destroy_stream(stream) == 0
    assert isinstance(pyacl.get_soc_name(), str)
    assert pyacl.data_type_size(1) == 2  # ACL_FLOAT16
    assert pyacl.float16_to_float(pyacl.float_to_float16(1.5)) == 1.5


@pytest.mark.parametrize("call, error", [
    (lambda: pyacl.rt.malloc("64", 0), TypeError),
    (lambda: pyacl.rt.malloc(64), TypeError),
    (lambda: pyacl.rt.malloc(-1, 0), ValueError),
    (lambda: pyacl.rt.free("0x10"), TypeError),
    (lambda: pyacl.rt.free(-5), ValueError),
    (lambda: pyacl.util.numpy_to_ptr([1, 2]), TypeError),
    (lambda: pyacl.util.ptr_to_numpy(0, (2,), 999), ValueError),
    (lambda: pyacl.util.bytes_to_ptr(3), TypeError),
    (lambda: pyacl.op.get_workspace_size("Add"), TypeError),
])
def test_wrong_arguments_are_python_errors(call, error):
    with pytest.raises(error):
        call()


def test_util_addresses_round_trip():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    view = pyacl.util.ptr_to_numpy(pyacl.util.numpy_to_ptr(a), (2, 3), np.dtype(np.float32).num)
    assert np.array_equal(view, a)
    data = bytearray(b"abcdef")
    assert pyacl.util.ptr_to_bytes(pyacl.util.bytes_to_ptr(data), 4) == b"abcd"
    t = a.T  # not contiguous: the contiguous form is a copy in C order
    assert pyacl.util.ptr_to_bytes(pyacl.util.numpy_contiguous_to_ptr(t), t.nbytes) == t.copy().tobytes()


def test_aclnn_operator_in_pyacl_conventions(device):
    tokens = np.arange(6, dtype=np.float32).reshape(3, 2)
    idx = np.array([2, 0, 1], np.int32)
    ptrs, tensors = [], []
    for a in (tokens, idx, np.zeros_like(tokens), np.zeros_like(idx)):
        p, ret = pyacl.rt.malloc(a.nbytes, 0)
        assert pyacl.rt.memcpy(p, a.nbytes, pyacl.util.numpy_to_ptr(a), a.nbytes, 1) == 0
        strides = [a.strides[i] // a.itemsize for i in range(a.ndim)]
        tensors.append(pyacl.op.create_tensor(list(a.shape), 0 if a.dtype == np.float32 else 3, strides, 0, 2,
                                              list(a.shape), p))
        ptrs.append(p)
    assert all(tensors)
    ws, executor, ret = pyacl.op.get_workspace_size("aclnnMoeTokenPermute", *tensors[:2], 0, False, *tensors[2:])
    assert ret == 0 and executor
    stream, _ = pyacl.rt.create_stream()
    assert pyacl.op.execute("aclnnMoeTokenPermute", 0, ws, executor, stream) == 0
    assert pyacl.rt.synchronize_stream(stream) == 0
    out = np.zeros_like(tokens)
    assert pyacl.rt.memcpy(pyacl.util.numpy_to_ptr(out), out.nbytes, ptrs[2], out.nbytes, 2) == 0
    assert np.array_equal(out, tokens[np.argsort(idx, kind="stable")])
    ws, executor, ret = pyacl.op.get_workspace_size("aclnnMoeTokenPermute", *tensors[:2], 0, True, *tensors[2:])
    assert ret == 561002 and executor == 0  # padded mode is refused: a status, as pyACL returns it
    for t in tensors:
        assert pyacl.op.destroy_tensor(t) == 0
    for p in ptrs:
        assert pyacl.rt.free(p) == 0
    assert pyacl.rt.destroy_stream(stream) == 0


def run(*argv, env=None):
    import os

    full = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=300, env=full, cwd=ROOT)


EXPECTED = "sorted_indices: [1, 0, 3, 2]\npermuted tokens: [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0], [9.0, 10.0, 11.0], " \
           "[6.0, 7.0, 8.0]]\n"


@pytest.mark.parametrize("how", ["aclnn_py.pyacl", "python -m aclnn_py pyacl", "PYTHONPATH shim"])
def test_the_pyacl_example_runs_unchanged(how):
    if how == "aclnn_py.pyacl":
        result = run(str(EXAMPLE))  # `import acl` fails; the script falls back on aclnn_py.pyacl
    elif how == "python -m aclnn_py pyacl":
        result = run("-m", "aclnn_py", "pyacl", str(EXAMPLE))
    else:
        import os

        path = os.pathsep.join(filter(None, [pyacl.shim_dir(), os.environ.get("PYTHONPATH")]))
        result = run(str(EXAMPLE), env={"PYTHONPATH": path})
    assert result.returncode == 0, result.stderr
    assert result.stdout == EXPECTED


def test_the_example_is_written_for_import_acl():
    text = EXAMPLE.read_text()
    # pyACL first; aclnn_py.pyacl only where `import acl` fails
    assert re.search(r"^try:\n    import acl\nexcept ImportError:.*\n    from aclnn_py import pyacl as acl$", text, re.M)


def test_import_acl_never_shadows_a_real_pyacl(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "acl.py").write_text("REAL = True\n")
    result = run("-c", f"""
import sys
sys.path.append({str(real)!r})
from aclnn_py import pyacl
assert pyacl.install() is False          # a real pyACL is importable: left alone
import acl
assert getattr(acl, "REAL", False)
del sys.modules["acl"]
sys.path.remove({str(real)!r})
assert pyacl.install() is True
import acl, acl.rt
assert acl is pyacl and acl.rt is pyacl.rt
pyacl.uninstall()
assert "acl" not in sys.modules
print("ok")
""")
    assert result.returncode == 0 and result.stdout == "ok\n", result.stderr
    # the PYTHONPATH shim, with a real pyACL further along the path, hands `import acl` to it
    import os

    shim = run("-c", "import acl; print(getattr(acl, 'REAL', False))",
               env={"PYTHONPATH": os.pathsep.join(filter(None, [pyacl.shim_dir(), str(real),
                                                                 os.environ.get("PYTHONPATH")]))})
    assert shim.returncode == 0 and shim.stdout == "True\n", shim.stderr
