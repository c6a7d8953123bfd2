"""The header-driven mirror: operators declared by headers found at run time, implemented by a small operator
library built here (tests/data/pytest_oplib.c, headers in tests/data/op_headers), called through aclnn_py.aclnn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import aclnn_py
from aclnn_py import _dynamic, _headers, acl, aclnn
from aclnn_py._native import NULL, ffi
from aclnn_py.errors import AclnnError, SymbolNotFoundError

from helpers_acl import Arena, addr, discard_executor
from helpers_proc import run_json

DATA = Path(__file__).resolve().parent / "data"
HEADERS = DATA / "op_headers"
EXPERIMENTAL = DATA / "op_headers_experimental"


def build_oplib(out: Path, name: str, *flags: str) -> Path:
    lib_dir = subprocess.run([sys.executable, "-m", "aclnn_py", "config", "--lib-dir"], check=True,
                             capture_output=True, text=True).stdout.strip()
    subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-std=gnu11", "-shared", "-fPIC",
                    f'-DPYTEST_OPLIB_NAME="{name}"', *flags, "-I", aclnn_py.get_include(), str(DATA / "pytest_oplib.c"),
                    "-o", str(out), "-L", lib_dir, "-lnnopbase", "-lascendcl"], check=True)
    return out


@pytest.fixture(scope="module")
def oplibs(tmp_path_factory):
    """Two builds of the operator library (a, then b), loaded in that order; the test headers added, and a
    fresh parse cache."""
    tmp = tmp_path_factory.mktemp("oplib")
    saved = os.environ.get("ACLNN_PY_CACHE_DIR")
    os.environ["ACLNN_PY_CACHE_DIR"] = str(tmp / "cache")
    a, b = build_oplib(tmp / "libpytest_a.so", "a"), build_oplib(tmp / "libpytest_b.so", "b")
    aclnn_py.load_op_library(a)
    aclnn_py.load_op_library(b)
    aclnn_py.add_include_dir(HEADERS)
    aclnn_py.add_include_dir(EXPERIMENTAL)
    last = {p: _dynamic._abi_ffi().dlopen(str(p)) for p in (a, b)}
    _dynamic._abi_ffi().cdef("const char *pytest_oplib_last(void);", override=True)
    yield {"a": a, "b": b, "tmp": tmp,
           "last": lambda which="a": record(_dynamic._abi_ffi(), last[a if which == "a" else b])}
    _headers._user_dirs[:] = [d for d in _headers._user_dirs if d not in (HEADERS, EXPERIMENTAL)]
    _headers._index.clear()
    if saved is None:
        del os.environ["ACLNN_PY_CACHE_DIR"]
    else:
        os.environ["ACLNN_PY_CACHE_DIR"] = saved


def record(abi, lib) -> dict:
    text = abi.string(lib.pytest_oplib_last()).decode()
    return dict(item.split("=", 1) for item in text.split())


def test_describe_every_parameter_type(oplibs):
    params = aclnn.describe("aclnnPytestEveryTypeGetWorkspaceSize")
    assert [(p["name"], p["ctype"], p["role"]) for p in params] == [
        ("self", "const aclTensor *", "input tensor"),
        ("tensors", "const aclTensorList *", "tensor list"),
        ("alpha", "const aclScalar *", "scalar"),
        ("dims", "const aclIntArray *", "int array"),
        ("mask", "const aclBoolArray *", "bool array"),
        ("weights", "const aclFloatArray *", "float array"),
        ("eps", "double", "attribute"),
        ("reduction", "const char *", "string"),
        ("groups", "int64_t", "attribute"),
        ("keepDim", "bool", "attribute"),
        ("dtype", "aclDataType", "dtype"),
        ("mode", "PytestReduceMode", "attribute"),
        ("out", "aclTensor *", "output tensor"),
        ("workspaceSize", "uint64_t *", "workspace size"),
        ("executor", "aclOpExecutor **", "executor"),
    ]
    assert [p["role"] for p in aclnn.describe("aclnnPytestEveryType")] == [
        "workspace", "workspace size", "executor", "stream"]
    # The compiled operators are described from the same rules.
    assert [p["role"] for p in aclnn.describe("aclnnMoeTokenPermuteGradGetWorkspaceSize")][-2:] == [
        "workspace size", "executor"]


def handles(*types):
    """Distinct non-NULL handles of the given types (the operator library only records their addresses)."""
    cells = [ffi.new("char[8]") for _ in types]
    return cells, [ffi.cast(f"{t} *", c) for t, c in zip(types, cells)]


def test_both_phases_receive_every_argument(oplibs):
    keep, (self_, tl, sc, ia, ba, fa, out) = handles(
        "aclTensor", "aclTensorList", "aclScalar", "aclIntArray", "aclBoolArray", "aclFloatArray", "aclTensor")
    ws, ex = aclnn.aclnnPytestEveryTypeGetWorkspaceSize(self_, tl, sc, ia, ba, fa, 0.1, "mean", 3, True,
                                                         acl.ACL_BF16, 7, out)
    got = oplibs["last"]()
    assert got == {"lib": "a", "op": "every", "self": str(addr(self_)), "tensors": str(addr(tl)),
                   "alpha": str(addr(sc)), "dims": str(addr(ia)), "mask": str(addr(ba)), "weights": str(addr(fa)),
                   "eps": "0.10000000000000001", "reduction": "mean", "groups": "3", "keepDim": "1",
                   "dtype": str(acl.ACL_BF16), "mode": "7", "out": str(addr(out))}
    assert ws == 256 and ffi.typeof(ex) is ffi.typeof("aclOpExecutor *")
    host = np.zeros(256, np.uint8)
    stream = acl.aclrtCreateStream()
    try:
        assert aclnn.aclnnPytestEveryType(acl.host_ptr(host), ws, ex, stream) is None
        got = oplibs["last"]()
        assert got["op"] == "every" and got["executor_ok"] == "1" and got["workspaceSize"] == "256"
        assert got["workspace"] == str(addr(ffi.from_buffer(host))) and got["stream"] == str(addr(stream))
    finally:
        acl.aclrtDestroyStream(stream)
    del keep


def test_none_is_null_and_statuses_raise(oplibs):
    keep, (out,) = handles("aclTensor")
    with pytest.raises(AclnnError) as info:
        aclnn.aclnnPytestEveryTypeGetWorkspaceSize(None, None, None, None, None, None, 0.0, None, 0, False, 0, 0, out)
    assert info.value.status == 161001 and "aclnnPytestEveryTypeGetWorkspaceSize" in str(info.value)
    got = oplibs["last"]()
    assert got["self"] == "0" and got["tensors"] == "0" and got["reduction"] == "(null)"
    keep2, (self_,) = handles("aclTensor")
    with pytest.raises(AclnnError) as info:
        aclnn.aclnnPytestEveryTypeGetWorkspaceSize(self_, None, None, None, None, None, 0.0, b"sum", -1, False,
                                                   0, 0, out)
    assert info.value.status == 161002
    with pytest.raises(AclnnError) as info:  # phase 2 with an executor the library did not make
        aclnn.aclnnPytestEveryType(None, 0, ffi.cast("aclOpExecutor *", ffi.new("char[8]")), None)
    assert info.value.status == 161002
    del keep, keep2


def test_argument_checks_name_the_argument(oplibs):
    keep, (self_, out) = handles("aclTensor", "aclTensor")
    args = [self_, None, None, None, None, None, 0.0, "sum", 1, False, 0, 0, out]
    bad = {
        0: (ffi.cast("aclScalar *", self_), TypeError, "self"),  # a handle of the wrong type
        0 + 7: (3, TypeError, "reduction"),
        8: (2 ** 63, ValueError, "groups"),
        6: ("x", TypeError, "eps"),
        12: (5, TypeError, "out"),
    }
    for index, (value, exc, name) in bad.items():
        call = list(args)
        call[index] = value
        with pytest.raises(exc, match=name):
            aclnn.aclnnPytestEveryTypeGetWorkspaceSize(*call)
    with pytest.raises(TypeError, match="takes 13 arguments"):
        aclnn.aclnnPytestEveryTypeGetWorkspaceSize(self_)
    del keep


def test_deprecated_operator_and_cxx_includes(oplibs):
    keep, (self_, out) = handles("aclTensor", "aclTensor")
    ws, ex = aclnn.aclnnPytestOldGetWorkspaceSize(self_, out)
    assert ws == 0 and oplibs["last"]()["op"] == "old"
    aclnn.aclnnPytestOld(None, 0, ex, None)
    assert oplibs["last"]()["executor_ok"] == "1"
    del keep


def test_duplicate_declarations_first_header_wins_and_others_resolve(oplibs):
    assert [p["ctype"] for p in aclnn.describe("aclnnPytestDupGetWorkspaceSize")][:3] == [
        "const aclTensor *", "int64_t", "aclTensor *"]
    assert aclnn.aclnnPytestDupGetWorkspaceSize.header == str(HEADERS / "aclnn_pytest_dup.h")
    keep, (self_, out) = handles("aclTensor", "aclTensor")
    aclnn.aclnnPytestDupGetWorkspaceSize(self_, 5, out)
    assert oplibs["last"]()["times"] == "5"
    aclnn.aclnnPytestDupV2GetWorkspaceSize(self_, out)  # declared only by the experimental copy
    assert oplibs["last"]()["op"] == "dupv2"
    del keep


def test_name_in_two_libraries_resolves_to_the_first_and_says_so(oplibs):
    fn = aclnn.aclnnPytestOldGetWorkspaceSize
    assert fn.library == str(oplibs["a"]) and fn.also_in == [str(oplibs["b"])]
    keep, (self_, out) = handles("aclTensor", "aclTensor")
    fn(self_, out)
    assert oplibs["last"]("a")["self"] == str(addr(self_))
    assert oplibs["last"]("b").get("self") != str(addr(self_))
    del keep


def test_header_without_symbol_raises_when_called(oplibs):
    fn = aclnn.aclnnPytestAbsentGetWorkspaceSize
    with pytest.raises(SymbolNotFoundError, match="aclnnPytestAbsentGetWorkspaceSize"):
        fn(None, None)
    assert fn.library is None and fn.header == str(HEADERS / "aclnn_pytest_absent.h")
    assert [p["role"] for p in aclnn.describe("aclnnPytestAbsent")] == ["workspace", "workspace size", "executor",
                                                                        "stream"]


def test_unknown_name_names_the_places_looked(oplibs):
    with pytest.raises(AttributeError) as info:
        aclnn.aclnnPytestNoSuchOperator  # noqa: B018
    assert str(HEADERS) in str(info.value) and "aclnnop" in str(info.value)
    with pytest.raises(ValueError, match="aclnnPytestNoSuchOperator"):
        aclnn.describe("aclnnPytestNoSuchOperator")


def test_dir_lists_header_operators(oplibs):
    names = dir(aclnn)
    for name in ("aclnnPytestEveryTypeGetWorkspaceSize", "aclnnPytestEveryType", "aclnnPytestDupV2",
                 "aclnnPytestAbsent", "aclnnMoeTokenPermuteGrad", "describe"):
        assert name in names


def test_bad_paths_are_refused(tmp_path):
    with pytest.raises(ValueError, match="path"):
        aclnn_py.add_include_dir(tmp_path / "missing")
    with pytest.raises(ValueError, match="path"):
        aclnn_py.load_op_library(tmp_path / "missing.so")


def test_header_driven_and_compiled_mirror_agree():
    """Our own operator called through the wrapper made from its header and through the compiled one."""
    name = "aclnnMoeTokenPermuteGradGetWorkspaceSize"
    header, decl = _dynamic.find(name)
    assert header.endswith("aclnn_moe_token_permute_grad.h")
    phase1 = _dynamic.make_wrapper(name, header, decl)
    phase2 = _dynamic.make_wrapper("aclnnMoeTokenPermuteGrad", *_dynamic.find("aclnnMoeTokenPermuteGrad"))
    grad = np.arange(6, dtype=np.float32).reshape(3, 2)
    idx = np.array([2, 0, 1], np.int32)
    results = []
    for gws, run in ((phase1, phase2), (aclnn.aclnnMoeTokenPermuteGradGetWorkspaceSize,
                                         aclnn.aclnnMoeTokenPermuteGrad)):
        with Arena() as a:
            t_g, _ = a.from_numpy(grad)
            t_i, _ = a.from_numpy(idx)
            t_o, p_o = a.zeros((3, 2), np.float32)
            ws, ex = gws(t_g, t_i, 1, False, t_o)
            try:
                w = a.malloc(ws) if ws else None
                run(w, ws, ex, None)
            except BaseException:
                discard_executor(ex)
                raise
            acl.aclrtSynchronizeStream(NULL)
            results.append(a.download(p_o, (3, 2), np.float32))
    np.testing.assert_array_equal(results[0], results[1])
    assert results[0].any()


def test_cache_spares_the_parser_in_a_later_process(tmp_path):
    code = """
        import sys
        if {no_parser}:
            sys.modules["pycparser"] = None  # importing the parser fails: only the cache can answer
        import aclnn_py
        from aclnn_py import aclnn
        aclnn_py.add_include_dir({headers!r})
        emit([p["role"] for p in aclnn.describe("aclnnPytestEveryTypeGetWorkspaceSize")])
    """
    env = {"ACLNN_PY_CACHE_DIR": str(tmp_path / "cache")}
    first = run_json(code.format(no_parser=False, headers=str(HEADERS)), env)
    assert len(list((tmp_path / "cache" / "headers").glob("*.json"))) == 1
    assert run_json(code.format(no_parser=True, headers=str(HEADERS)), env) == first
    # Without a preprocessor the header cannot be read (the cache is keyed by its output): said so, naming it.
    failed = run_json(code.format(no_parser=False, headers=str(HEADERS)).replace(
        "emit([", "emit(error(aclnn.describe, 'aclnnPytestEveryTypeGetWorkspaceSize') or [", 1), dict(env, CC="false"))
    assert failed["type"] == "AttributeError" and "aclnn_pytest_every_type.h" in failed["text"]


def test_environment_variables_and_toolkit_headers(oplibs, tmp_path):
    """ACLNN_PY_OP_LIBS opens libraries; a toolkit's custom op package headers are searched after
    ACLNN_PY_INCLUDE_PATH (which wins for a name both declare)."""
    root = tmp_path / "toolkit"
    (root / "lib64").mkdir(parents=True)
    for lib in Path(aclnn_py.get_lib_dir()).iterdir():
        (root / "lib64" / lib.name).symlink_to(lib)
    vendor = root / "opp" / "vendors" / "custom" / "op_api" / "include"
    vendor.mkdir(parents=True)
    for name in ("aclnn_pytest_deprecated.h", "aclnn_pytest_dup.h"):
        (vendor / name).write_bytes((HEADERS / name).read_bytes())
    result = run_json("""
        from aclnn_py import aclnn, backend
        from aclnn_py._native import ffi
        keep = [ffi.new("char[8]") for _ in range(2)]
        self_, out = (ffi.cast("aclTensor *", k) for k in keep)
        old = aclnn.aclnnPytestOldGetWorkspaceSize
        ws, ex = old(self_, out)
        emit({"backend": backend().kind, "old": [old.header, old.library, old.also_in, ws],
              "dup": [aclnn.aclnnPytestDupGetWorkspaceSize.header, aclnn.aclnnPytestDupV2GetWorkspaceSize.header]})
    """,
        {"ASCEND_HOME_PATH": str(root), "ACLNN_PY_OP_LIBS": os.pathsep.join(map(str, (oplibs["b"], oplibs["a"]))),
         "ACLNN_PY_INCLUDE_PATH": str(EXPERIMENTAL), "ACLNN_PY_CACHE_DIR": str(tmp_path / "cache")})
    assert result == {"backend": "cann",
                      "old": [str(vendor / "aclnn_pytest_deprecated.h"), str(oplibs["b"]), [str(oplibs["a"])], 0],
                      "dup": [str(EXPERIMENTAL / "aclnn_pytest_dup.h")] * 2}


# ---- the parse cache and late libraries --------------------------------------------------------------------

LATE_HEADER = """#include "aclnn/aclnn_base.h"
#include "pytest_late_types.h"
ACLNN_API aclnnStatus aclnnPytestLate{tag}GetWorkspaceSize(const aclTensor *self, PYTEST_LATE_SCALE scale,
                                                          aclTensor *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);
"""


def late_header(tmp: Path, tag: str, scale_type: str = "int32_t") -> Path:
    """A header (in its own directory) whose parameter type comes from a header it includes."""
    d = tmp / f"late_{tag}"
    d.mkdir(exist_ok=True)
    (d / f"aclnn_pytest_late_{tag.lower()}.h").write_text(LATE_HEADER.format(tag=tag))
    (d / "pytest_late_types.h").write_text(f"#define PYTEST_LATE_SCALE {scale_type}\n")
    return d


def scale_type(name: str) -> str:
    return next(p["ctype"] for p in aclnn.describe(name) if p["name"] == "scale")


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """A fresh parse cache for this test, and the header directories it adds dropped afterwards."""
    monkeypatch.setenv("ACLNN_PY_CACHE_DIR", str(tmp_path / "cache"))
    dirs = list(_headers._user_dirs)
    yield tmp_path / "cache"
    _headers._user_dirs[:] = dirs
    _headers._index.clear()


# What a cache entry may be that is not a parse result: each is ignored and rewritten.
WRONG_SHAPES = [[], {"functions": []}, {"functions": {}}, {"functions": {"aclnnX": 1}, "unsupported": {}},
                {"functions": {"aclnnX": {"result": "int", "result_abi": "int", "params": [["a"]]}},
                 "unsupported": {}}, "text", None]


def test_a_changed_included_header_is_seen(tmp_path, own_cache):
    """The cache is keyed by the preprocessed text: the parameter's type follows the included header."""
    d = late_header(tmp_path, "Inc")
    aclnn_py.add_include_dir(d)
    name = "aclnnPytestLateIncGetWorkspaceSize"
    assert scale_type(name) == "int32_t"
    (d / "pytest_late_types.h").write_text("#define PYTEST_LATE_SCALE double\n")
    assert scale_type(name) == "double"
    assert len(list((own_cache / "headers").glob("*.json"))) == 2


@pytest.mark.parametrize("blocked", ["cache", "cache/deeper"])
def test_an_unwritable_cache_directory_is_skipped(tmp_path, monkeypatch, own_cache, blocked):
    """A file where the cache directory (or one of its parents) should be: the header is parsed all the same."""
    (tmp_path / "cache").write_text("")
    monkeypatch.setenv("ACLNN_PY_CACHE_DIR", str(tmp_path / blocked))
    tag = "Blocked" + str(blocked.count("/"))
    aclnn_py.add_include_dir(late_header(tmp_path, tag))
    assert scale_type(f"aclnnPytestLate{tag}GetWorkspaceSize") == "int32_t"
    assert scale_type(f"aclnnPytestLate{tag}GetWorkspaceSize") == "int32_t"  # from this process's memory


@pytest.mark.parametrize("entry", WRONG_SHAPES, ids=[f"shape{i}" for i in range(len(WRONG_SHAPES))])
def test_a_cache_entry_of_the_wrong_shape_is_parsed_again_and_rewritten(tmp_path, own_cache, entry):
    tag = f"Shape{WRONG_SHAPES.index(entry)}"
    aclnn_py.add_include_dir(late_header(tmp_path, tag))
    name = f"aclnnPytestLate{tag}GetWorkspaceSize"
    assert scale_type(name) == "int32_t"
    [path] = (own_cache / "headers").glob("*.json")
    good = path.read_text()
    path.write_text(json.dumps(entry))
    _headers._parsed.clear()  # this process's copy: the next lookup reads the file
    assert scale_type(name) == "int32_t"
    assert json.loads(path.read_text()) == json.loads(good)


def test_a_library_opened_after_a_failed_lookup_provides_the_symbol(tmp_path, own_cache):
    d = late_header(tmp_path, "Lib")
    aclnn_py.add_include_dir(d)
    name = "aclnnPytestLateLibGetWorkspaceSize"
    fn = getattr(aclnn, name)
    assert fn.library is None
    with pytest.raises(SymbolNotFoundError) as info:
        fn(None, 1, None)
    for words in ("load_op_library", "ACLNN_PY_OP_LIBS", "add_include_dir", str(d / "aclnn_pytest_late_lib.h")):
        assert words in str(info.value)
    src = tmp_path / "late.c"
    src.write_text("#include <stdint.h>\n"
                   f"int {name}(const void *self, int32_t scale, void *out, uint64_t *ws, void **ex) {{\n"
                   "    (void)self; (void)out; *ws = (uint64_t)scale * 2; *ex = 0; return 0;\n}\n")
    so = tmp_path / "liblate.so"
    subprocess.run(["gcc", "-shared", "-fPIC", str(src), "-o", str(so)], check=True)
    aclnn_py.load_op_library(so)
    assert fn(None, 21, None)[0] == 42  # the function already handed out binds on its next call
    assert getattr(aclnn, name).library == str(so)  # and the module's attribute is looked up again
