"""The extension's own C sources stand on their own: loader.c, memory_pool.c and fastpath.c compile warning-free against the
header that also gives Python their declarations (aclnnpy.h), and the one-call path's operators come from the
headers' C types, agreeing with the Python operator table."""

import re
import subprocess

import pytest

import aclnn_py
from aclnn_py._native import FASTPATH_OPS, SIGNATURES, lib
from aclnn_py._optable import OPS

from test_c_samples import ROOT
from test_sdk import CC

NATIVE = ROOT / "native" / "cffi"


@pytest.mark.parametrize("source", ["loader.c", "memory_pool.c", "fastpath.c"])
def test_sources_compile_on_their_own(source, tmp_path):
    subprocess.run([CC, "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-c", f"-I{aclnn_py.get_include()}",
                    f"-I{NATIVE}", str(NATIVE / source), "-o", str(tmp_path / "out.o")], check=True)


def test_python_sees_exactly_what_the_header_declares():
    declared = set(re.findall(r"\b(aclnnpy_\w+)\(", (NATIVE / "aclnnpy.h").read_text()))
    assert declared and declared == {n for n in dir(lib) if n.startswith("aclnnpy_")}
    assert not declared & set(SIGNATURES)  # not late-bound: the extension implements them


def test_fast_path_kinds_come_from_the_c_types_and_match_the_table():
    kinds = {"in": "T", "out": "T", "attr": "A", "intarray": "R"}
    for op in OPS:
        c_names = [n for n, _ in SIGNATURES[op.c_name + "GetWorkspaceSize"]["params"][:-2]]
        assert c_names == [p.name for p in op.params], op.c_name
        assert FASTPATH_OPS[op.c_name] == "".join(kinds[p.role] for p in op.params), op.c_name
    assert list(FASTPATH_OPS) == sorted(FASTPATH_OPS)


def test_the_build_reads_no_python_package_file():
    build = (NATIVE / "build_native.py").read_text() + (ROOT / "CMakeLists.txt").read_text()
    assert "_optable" not in build and "EXTRA_CDEF" not in build
