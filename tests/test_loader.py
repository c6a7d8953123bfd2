"""Backend selection (the rules in aclnn_py.loader's docstring) and missing symbols.

Environment variables are read when the libraries are loaded, once per process, so every end-to-end case
runs in a child interpreter; the ordering rules are also checked in process through ``loader.choose()``,
which only reads the environment and the file system.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import aclnn_py
from aclnn_py import _mirror, errors, loader
from aclnn_py.loader import Backend, BackendNotFoundError

from helpers_proc import run_json

REPO = Path(__file__).resolve().parent.parent
STUB_DIR = Path(aclnn_py.get_lib_dir())
ALL_LIBS = ("libascendcl.so", "libnnopbase.so", "libopapi_transformer.so", "libopapi.so", "libhccl.so")
# What a toolkit directory holding ALL_LIBS loads: the runtime, libnnopbase, then every operator library present.
TOOLKIT_LOADS = ("libascendcl.so", "libnnopbase.so", "libopapi.so", "libopapi_transformer.so")

PROBE = '''
import aclnn_py
from aclnn_py import loader
loaded_at_import = loader.loaded() is not None
b = aclnn_py.backend()
from aclnn_py import acl
import numpy as np
grad = np.arange(8, dtype=np.float32).reshape(4, 2)
res = aclnn_py.moe_token_permute_grad(grad, np.array([3, 0, 1, 3], np.int32), 2)
mapped = sorted({ln.split()[-1] for ln in open("/proc/self/maps") if ln.rstrip().endswith(
    ("libascendcl.so", "libnnopbase.so", "libopapi_transformer.so", "libopapi.so"))})
emit({"kind": b.kind, "reason": b.reason, "libraries": [str(p) for p in b.libraries],
      "root": None if b.root is None else str(b.root), "missing": sorted(b.missing_symbols), "is_stub": b.is_stub,
      "loaded_at_import": loaded_at_import, "same_backend": aclnn_py.backend() is b,
      "device_count": acl.aclrtGetDeviceCount(), "result": res.tolist(), "mapped": mapped})
'''
PROBE_RESULT = [[6.0, 8.0], [8.0, 10.0]]  # rows 3+0 and 1+3 of grad


def make_toolkit(root: Path, lib64: str = "lib64", skip=(), opp=()) -> Path:
    """A directory laid out like a CANN toolkit, holding copies of the bundled stub libraries."""
    (root / lib64).mkdir(parents=True, exist_ok=True)
    for name in ALL_LIBS:
        if name in skip:
            continue
        dest = root / ("opp/lib64" if name in opp else lib64)
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(STUB_DIR / name, dest / name)
    return root


@pytest.fixture(scope="module")
def toolkit(tmp_path_factory) -> Path:
    return make_toolkit(tmp_path_factory.mktemp("toolkit") / "latest")


@pytest.fixture(scope="module")
def other_toolkit(tmp_path_factory) -> Path:
    return make_toolkit(tmp_path_factory.mktemp("toolkit2") / "ascend")


def under(paths, root) -> bool:
    return all(Path(p).resolve().is_relative_to(Path(root).resolve()) for p in paths)


def default_toolkit_complete() -> bool:
    root = Path(loader.DEFAULT_TOOLKIT)
    dirs = [root / "lib64", root / "opp" / "lib64"]
    return loader._complete(dirs)


# ---- end to end, in child interpreters -------------------------------------------------------------------

def test_backend_stub_wins_over_a_toolkit(toolkit):
    r = run_json(PROBE, env={"ACLNN_PY_BACKEND": "stub", "ASCEND_HOME_PATH": str(toolkit)})
    assert r["kind"] == "stub" and r["is_stub"] and "ACLNN_PY_BACKEND" in r["reason"]
    assert r["libraries"] == [str(STUB_DIR / n) for n in loader.STUB_LIBRARIES]
    assert r["mapped"] and under(r["mapped"], STUB_DIR)
    assert r["root"] is None and r["missing"] == []
    assert r["loaded_at_import"] is False and r["same_backend"] is True
    assert r["device_count"] == 8 and r["result"] == PROBE_RESULT


def test_no_variables_falls_back_to_the_stub():
    r = run_json(PROBE)
    if default_toolkit_complete():  # a real toolkit at the default location takes precedence
        assert r["kind"] == "cann" and "default location" in r["reason"]
    else:
        assert r["kind"] == "stub" and r["reason"] == "no CANN toolkit found"
        assert under(r["libraries"], STUB_DIR) and under(r["mapped"], STUB_DIR)
    assert r["result"] == PROBE_RESULT


@pytest.mark.parametrize("variable", ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"])
def test_toolkit_found_through_variable(toolkit, variable):
    r = run_json(PROBE, env={variable: str(toolkit)})
    assert r["kind"] == "cann" and variable in r["reason"]
    assert r["root"] == str(toolkit)
    assert r["libraries"] == [str(toolkit / "lib64" / n) for n in TOOLKIT_LOADS]
    assert r["mapped"] and under(r["mapped"], toolkit)  # the copies were loaded, not the bundled ones
    assert r["missing"] == [] and r["is_stub"]  # optional stub symbols present: these are stub libraries
    assert r["device_count"] == 8 and r["result"] == PROBE_RESULT


def test_lib_dir_wins_over_everything(tmp_path, toolkit):
    lib_dir = make_toolkit(tmp_path / "custom", lib64=".")
    r = run_json(PROBE, env={"ACLNN_PY_LIB_DIR": str(lib_dir), "ACLNN_PY_BACKEND": "cann",
                             "ASCEND_HOME_PATH": str(toolkit), "ASCEND_TOOLKIT_HOME": str(toolkit)})
    assert "ACLNN_PY_LIB_DIR" in r["reason"]
    assert r["kind"] == "stub"  # what the directory holds decides the kind
    assert r["libraries"] == [str(lib_dir / n) for n in TOOLKIT_LOADS]
    assert under(r["mapped"], lib_dir)
    assert r["result"] == PROBE_RESULT


NOT_FOUND = '''
import aclnn_py
from aclnn_py import acl
first = error(aclnn_py.backend)
second = error(aclnn_py.backend)
mirror = error(lambda: acl.aclrtGetDeviceCount())
device = error(aclnn_py.Device)
emit({"first": first, "second": second, "mirror": mirror, "device": device})
'''


def test_backend_cann_without_toolkit_lists_every_place(tmp_path):
    home, tk, opp = tmp_path / "home", tmp_path / "tk", tmp_path / "opp"
    make_toolkit(home, skip=("libnnopbase.so",))  # incomplete: does not count
    r = run_json(NOT_FOUND, env={"ACLNN_PY_BACKEND": "cann", "ASCEND_HOME_PATH": str(home),
                                 "ASCEND_TOOLKIT_HOME": str(tk), "ASCEND_OPP_PATH": str(opp)})
    first = r["first"]
    assert first["type"] == "BackendNotFoundError" and "AclBaseError" in first["mro"]
    text = first["text"]
    for place in (home / "lib64", home / "opp" / "lib64", tk / "lib64", tk / "opp" / "lib64", opp / "lib64",
                  Path(loader.DEFAULT_TOOLKIT) / "lib64", Path(loader.DEFAULT_TOOLKIT) / "opp" / "lib64"):
        assert str(place) in text, (place, text)
    for name in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ACLNN_PY_BACKEND=cann", *loader.RUNTIME_LIBRARIES,
                 loader.BASE_LIBRARY, *loader.OPERATOR_LIBRARIES):
        assert name in text
    # nothing half-loaded: every later use fails the same way
    assert r["second"] == first
    assert r["mirror"]["type"] == "BackendNotFoundError"
    assert r["device"]["type"] == "BackendNotFoundError"


def test_lib_dir_without_libraries_is_an_error(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run_json(NOT_FOUND, env={"ACLNN_PY_LIB_DIR": str(empty), "ACLNN_PY_BACKEND": "stub"})
    assert r["first"]["type"] == "BackendNotFoundError"
    assert str(empty) in r["first"]["text"] and "libascendcl.so" in r["first"]["text"]


def test_bad_backend_value_is_an_error():
    r = run_json(NOT_FOUND, env={"ACLNN_PY_BACKEND": "gpu"})
    assert r["first"]["type"] == "BackendNotFoundError"
    assert "gpu" in r["first"]["text"] and "stub" in r["first"]["text"] and "cann" in r["first"]["text"]


# ---- a library set that lacks a symbol -------------------------------------------------------------------

def build_runtime(dest: Path, hidden: tuple[str, ...]) -> Path:
    """libascendcl.so from the stub sources with ``hidden`` renamed away, next to copies of the other libraries."""
    dest.mkdir(parents=True)
    cmd = ["gcc", "-shared", "-fPIC", "-O1", "-std=gnu11", "-fvisibility=hidden",
           f"-I{REPO / 'native' / 'include'}", f"-I{REPO / 'stubs' / 'common'}", f"-I{REPO / 'stubs' / 'check'}",
           *map(str, sorted((REPO / "stubs" / "runtime").glob("*.c"))),
           *map(str, sorted((REPO / "stubs" / "check").glob("*.c"))), str(REPO / "stubs" / "common" / "ptr_set.c"),
           str(REPO / "stubs" / "common" / "handle_table.c"),
           "-o", str(dest / "libascendcl.so"), "-Wl,-soname,libascendcl.so", "-lpthread", "-ldl",
           *(f"-D{name}=aclnnpyTestHidden_{name}" for name in hidden)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    for name in ALL_LIBS[1:]:
        shutil.copy2(STUB_DIR / name, dest / name)
    return dest


MISSING = '''
import aclnn_py
from aclnn_py import acl, loader
import numpy as np
r = {"loaded_at_import": loader.loaded() is not None}
b = aclnn_py.backend()
r.update(kind=b.kind, is_stub=b.is_stub, missing=sorted(b.missing_symbols))
fn = getattr(acl, NAME)  # looking the function up is fine
r["fn_name"] = fn.__name__
r["call"] = error(fn, *ARGS)
r["device_count"] = acl.aclrtGetDeviceCount()
r["op"] = aclnn_py.moe_token_permute_grad(np.ones((2, 2), np.float32), np.array([0, 1], np.int32), 1).tolist()
emit(r)
'''


def test_missing_symbol_raises_when_called(tmp_path):
    lib_dir = build_runtime(tmp_path / "lib", ("aclrtMemcpyAsync",))
    code = MISSING.replace("NAME", "'aclrtMemcpyAsync'").replace("*ARGS", "None, 8, None, 8, 1, None")
    r = run_json(code, env={"ACLNN_PY_LIB_DIR": str(lib_dir)})
    assert r["loaded_at_import"] is False
    assert r["missing"] == ["aclrtMemcpyAsync"]
    assert r["kind"] == "stub" and r["is_stub"]
    assert r["fn_name"] == "aclrtMemcpyAsync"
    call = r["call"]
    assert call["type"] == "SymbolNotFoundError" and "AclBaseError" in call["mro"]
    assert "aclrtMemcpyAsync" in call["text"] and str(lib_dir / "libascendcl.so") in call["text"]
    assert r["device_count"] == 8 and r["op"] == [[1.0, 1.0], [1.0, 1.0]]


def test_library_set_without_a_function_the_client_needs_is_refused_at_load(tmp_path):
    lib_dir = build_runtime(tmp_path / "lib", ("aclrtMemset",))
    r = run_json(NOT_FOUND, env={"ACLNN_PY_LIB_DIR": str(lib_dir)})
    assert r["first"]["type"] == "BackendNotFoundError"
    assert "aclrtMemset" in r["first"]["text"] and str(lib_dir) in r["first"]["text"]


def test_library_without_stub_symbols_is_not_a_stub(tmp_path):
    lib_dir = build_runtime(tmp_path / "lib", ("aclStubVersion",))
    code = MISSING.replace("NAME", "'aclStubVersion'").replace("*ARGS", "")
    r = run_json(code, env={"ACLNN_PY_LIB_DIR": str(lib_dir)})
    assert r["missing"] == ["aclStubVersion"]
    assert r["kind"] == "cann" and r["is_stub"] is False
    assert r["call"]["type"] == "SymbolNotFoundError" and "aclStubVersion" in r["call"]["text"]
    assert r["device_count"] == 8 and r["op"] == [[1.0, 1.0], [1.0, 1.0]]


def test_make_wrapper_for_a_missing_symbol(monkeypatch):
    real = aclnn_py.backend()
    fake = Backend(real.kind, real.reason, real.libraries, real.root,
                   frozenset(real.missing_symbols | {"aclrtGetDeviceCount"}))
    monkeypatch.setattr(loader, "_backend", fake)
    fn = _mirror.make_wrapper("aclrtGetDeviceCount")  # no error yet
    assert fn.__name__ == "aclrtGetDeviceCount"
    with pytest.raises(errors.SymbolNotFoundError) as ei:
        fn()
    assert ei.value.function == "aclrtGetDeviceCount"
    assert "aclrtGetDeviceCount" in str(ei.value)
    assert all(str(p) in str(ei.value) for p in real.libraries)
    assert isinstance(ei.value, aclnn_py.AclBaseError) and not isinstance(ei.value, aclnn_py.AclError)
    # other symbols are unaffected
    assert _mirror.make_wrapper("aclrtGetDevice")() == 0


# ---- ordering rules, in process (choose() only reads the environment) ------------------------------------

@pytest.fixture
def clean_env(monkeypatch):
    for var in ("ACLNN_PY_BACKEND", "ACLNN_PY_LIB_DIR", "ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_choose_prefers_ascend_home_path(clean_env, toolkit, other_toolkit):
    clean_env.setenv("ASCEND_HOME_PATH", str(toolkit))
    clean_env.setenv("ASCEND_TOOLKIT_HOME", str(other_toolkit))
    kind, reason, paths, root = loader.choose()
    assert (kind, root) == ("cann", toolkit) and "ASCEND_HOME_PATH" in reason
    assert paths == tuple(toolkit / "lib64" / n for n in TOOLKIT_LOADS)


def test_choose_skips_an_incomplete_toolkit(clean_env, tmp_path, other_toolkit):
    incomplete = make_toolkit(tmp_path / "incomplete", skip=("libopapi_transformer.so", "libopapi.so"))
    clean_env.setenv("ASCEND_HOME_PATH", str(incomplete))
    clean_env.setenv("ASCEND_TOOLKIT_HOME", str(other_toolkit))
    kind, reason, paths, root = loader.choose()
    assert (kind, root) == ("cann", other_toolkit) and "ASCEND_TOOLKIT_HOME" in reason


def test_choose_finds_operator_library_under_opp(clean_env, tmp_path):
    root = make_toolkit(tmp_path / "tk", opp=("libopapi_transformer.so",))
    clean_env.setenv("ASCEND_HOME_PATH", str(root))
    kind, reason, paths, _ = loader.choose()
    assert kind == "cann"
    assert paths[-1] == root / "opp" / "lib64" / "libopapi_transformer.so"
    assert paths[0] == root / "lib64" / "libascendcl.so" and paths[2] == root / "lib64" / "libopapi.so"


def test_choose_uses_ascend_opp_path(clean_env, tmp_path):
    root = make_toolkit(tmp_path / "tk", skip=("libopapi_transformer.so", "libopapi.so"))
    opp = tmp_path / "vendor_opp"
    (opp / "lib64").mkdir(parents=True)
    shutil.copy2(STUB_DIR / "libopapi_transformer.so", opp / "lib64")
    clean_env.setenv("ASCEND_TOOLKIT_HOME", str(root))
    clean_env.setenv("ASCEND_OPP_PATH", str(opp))
    kind, _, paths, _ = loader.choose()
    assert kind == "cann" and paths[2:] == (opp / "lib64" / "libopapi_transformer.so",)


@pytest.mark.parametrize("present, loaded", [
    # the runtime under either name (libascendcl.so first), and every operator library present, in a fixed order
    (("libacl_rt.so", "libnnopbase.so", "libopapi_nn.so", "libopapi_math.so"),
     ("libacl_rt.so", "libnnopbase.so", "libopapi_math.so", "libopapi_nn.so")),
    (("libacl_rt.so", "libascendcl.so", "libnnopbase.so", "libopapi_cv.so"),
     ("libascendcl.so", "libnnopbase.so", "libopapi_cv.so")),
    (("libascendcl.so", "libnnopbase.so", "libopapi_transformer.so", "libopapi_math.so", "libopapi.so"),
     ("libascendcl.so", "libnnopbase.so", "libopapi.so", "libopapi_math.so", "libopapi_transformer.so")),
    (("libascendcl.so", "libnnopbase.so", "libhccl.so"), None),  # no operator library
    (("libnnopbase.so", "libopapi.so"), None),  # no runtime
], ids=["acl_rt", "both_runtimes", "split_and_all", "no_operators", "no_runtime"])
def test_choose_library_set_of_a_toolkit(clean_env, tmp_path, present, loaded):
    lib_dir = tmp_path / "lib64"
    lib_dir.mkdir()
    for name in present:  # choose() reads names only: empty files will do
        (lib_dir / name).touch()
    clean_env.setenv("ACLNN_PY_LIB_DIR", str(lib_dir))
    if loaded is None:
        with pytest.raises(BackendNotFoundError) as ei:
            loader.choose()
        text = str(ei.value)
        assert ("an operator library" in text) == ("libopapi.so" not in present)
        assert ("libascendcl.so or libacl_rt.so not found" in text) == ("libascendcl.so" not in present)
        return
    kind, _, paths, _ = loader.choose()
    assert kind == "custom" and paths == tuple(lib_dir / n for n in loaded)


def test_bundled_stub_loads_libopapi_with_every_operator(clean_env):
    clean_env.setenv("ACLNN_PY_BACKEND", "stub")
    _, _, paths, _ = loader.choose()
    assert [p.name for p in paths] == ["libascendcl.so", "libnnopbase.so", "libopapi.so"]


@pytest.mark.parametrize("value, kind", [("stub", "stub"), ("STUB", "stub"), (" Stub ", "stub"), ("auto", None),
                                         ("", None)])
def test_choose_backend_values(clean_env, value, kind):
    clean_env.setenv("ACLNN_PY_BACKEND", value)
    got = loader.choose()[0]
    if kind is not None:
        assert got == kind
    else:
        assert got == ("cann" if default_toolkit_complete() else "stub")


@pytest.mark.parametrize("value", ["gpu", "cpu", "stub,cann", "1"])
def test_choose_rejects_bad_backend_values(clean_env, value):
    clean_env.setenv("ACLNN_PY_BACKEND", value)
    with pytest.raises(BackendNotFoundError) as ei:
        loader.choose()
    assert repr(value.strip().lower()) in str(ei.value)


def test_choose_lib_dir_missing_one_library(clean_env, tmp_path):
    d = make_toolkit(tmp_path / "d", lib64=".", skip=("libnnopbase.so",))
    clean_env.setenv("ACLNN_PY_LIB_DIR", str(d))
    with pytest.raises(BackendNotFoundError) as ei:
        loader.choose()
    assert "libnnopbase.so" in str(ei.value) and str(d) in str(ei.value)
    assert "libascendcl.so not found" not in str(ei.value)


def test_backend_cann_lists_unset_toolkit_variables_too(clean_env):
    clean_env.setenv("ACLNN_PY_BACKEND", "cann")
    if default_toolkit_complete():  # the default location answers: nothing to list
        assert loader.choose()[0] == "cann"
        return
    with pytest.raises(BackendNotFoundError) as ei:
        loader.choose()
    text = str(ei.value)
    assert "ASCEND_HOME_PATH (not set)" in text and "ASCEND_TOOLKIT_HOME (not set)" in text
    assert str(Path(loader.DEFAULT_TOOLKIT) / "lib64") in text


@pytest.mark.parametrize("env, words", [
    ({"ACLNN_PY_BACKEND": "gpu"}, ("'gpu'", "stub", "cann")),
    ({"ACLNN_PY_BACKEND": "cann"}, ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "looked in")),
])
def test_info_with_a_bad_backend_prints_one_line(env, words):
    from helpers_proc import PACKAGE_PARENT, child_env

    proc = subprocess.run([sys.executable, "-m", "aclnn_py", "info"], env=child_env(env), cwd=PACKAGE_PARENT,
                          capture_output=True, text=True, timeout=60)
    if env["ACLNN_PY_BACKEND"] == "cann" and default_toolkit_complete():  # the default location answers
        assert proc.returncode == 0 and "backend        cann" in proc.stdout
        return
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "BackendNotFoundError" in lines[0], proc.stderr
    for w in words:
        assert w in lines[0]
