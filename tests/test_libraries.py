"""The stub's libraries as a toolkit lays them out, and the flags ``config`` prints for them.

Each repository's official link line (``config --libs --repo R``) links our program tests/c/library_sets.c, which
then checks from C that the process holds one runtime (libascendcl.so and libacl_rt.so give the same functions
and state) and lists each operator of the line's libraries once; the same program with no library linked opens
them all with dlopen and closes them one at a time. The README's library table is what ``ops --markdown``
prints, and the libraries export what the registry lists."""

import contextlib
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import aclnn_py
from aclnn_py import _ops_table
from aclnn_py.__main__ import main as cli
from aclnn_py._elf import dynamic_exports, operators
from aclnn_py._repos import REPOS

from helpers_ops import parse_case_lines

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "c" / "library_sets.c"
README = ROOT / "README.md"
CC = os.environ.get("CC", "gcc")
CXX = os.environ.get("CXX", "g++")


def lib_dir() -> str:
    return os.environ.get("ACLNN_PY_LIB_DIR") or aclnn_py.get_lib_dir()


def config(*args: str) -> list[str]:
    """``python -m aclnn_py config ARGS``, split, pointing at the libraries under test."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["config", *args]) == 0
    flags = out.getvalue().split()
    return [f.replace(aclnn_py.get_lib_dir(), lib_dir()) for f in flags]


def line_operators(flags: list[str]) -> set[str]:
    """The operators the operator libraries named by -l flags export."""
    names = [f[2:] for f in flags if f.startswith("-lopapi")]
    return {op for n in names for op in operators(dynamic_exports(Path(lib_dir()) / f"lib{n}.so"))}


@pytest.fixture(scope="module")
def cc():
    assert shutil.which(CC), f"{CC} is needed to build the library checks"
    return CC


# (id, config arguments or None, extra -l names): every official line, and the runtime linked under both names.
LINES = [
    ("ops-math", ["--repo", "ops-math"], []),
    ("ops-nn", ["--repo", "ops-nn"], []),
    ("ops-nn-acl_rt", ["--repo", "ops-nn", "--acl-rt"], []),
    ("ops-cv", ["--repo", "ops-cv"], []),
    ("ops-transformer", ["--repo", "ops-transformer"], []),
    ("default", [], []),
    ("acl_rt-and-ascendcl", ["--repo", "ops-nn", "--acl-rt"], ["-lascendcl", "-lopapi"]),
]


@pytest.mark.parametrize("args, extra", [(a, e) for _, a, e in LINES], ids=[i for i, _, _ in LINES])
def test_official_link_line_gives_one_runtime_and_each_operator_once(cc, tmp_path, args, extra):
    cflags, libs = config("--cflags", *args), config("--libs", *args)
    libs += extra
    exe = tmp_path / "library_sets"
    # --no-as-needed: every library on the line is loaded, as by a linker that does not drop unused ones.
    subprocess.run([cc, "-std=gnu11", "-Wall", "-Wextra", "-Werror", str(SOURCE), *cflags, "-Wl,--no-as-needed",
                    *libs, "-ldl", "-o", str(exe)], check=True)
    # The program opens the runtime by both names itself; under a preloaded sanitizer, dlopen's caller is the
    # sanitizer's interceptor, whose search path lacks the program's rpath.
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir())
    proc = subprocess.run([str(exe), "linked"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = parse_case_lines(proc.stdout)
    listed = {k[3:] for k in results if k.startswith("op:")}
    checks = {k: v for k, v in results.items() if not k.startswith("op:")}
    assert checks and all(checks.values()), checks
    assert listed == line_operators(libs)
    if "--acl-rt" in args:
        assert "-lacl_rt" in libs and ("-lascendcl" in libs) == bool(extra)


def test_libraries_opened_and_closed_in_any_order(cc, tmp_path):
    exe = tmp_path / "library_sets"
    subprocess.run([cc, "-std=gnu11", "-Wall", "-Wextra", "-Werror", str(SOURCE), *config("--cflags"), "-ldl",
                    "-o", str(exe)], check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir())
    proc = subprocess.run([str(exe), "dlopen"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = parse_case_lines(proc.stdout)
    every = operators(dynamic_exports(Path(lib_dir()) / "libopapi.so"))
    assert results.pop("listed_while_open") == len(every)
    assert {k[3:] for k in results if k.startswith("op:")} == set(every)
    checks = {k: v for k, v in results.items() if not k.startswith("op:")}
    assert len(checks) == 17 and all(checks.values()), checks


def test_repository_libraries_hold_their_operators_and_libopapi_every_one():
    table = _ops_table.exported(lib_dir())
    union = {op for name, ops in table.items() if name != "libopapi.so" for op in ops}
    assert set(table["libopapi.so"]) == union
    assert set(table["libopapi_transformer.so"]) >= {"aclnnMoeTokenPermute", "aclnnMoeInitRoutingV3"}
    # each operator file is in one repository's library
    repo_libs = [f"lib{r.library}.so" for r in REPOS.values()]
    assert sum(len(table[n]) for n in repo_libs) == len(union)


def test_acl_rt_is_a_filter_of_ascendcl():
    """libacl_rt.so declares the runtime's every export, and defers each to libascendcl.so at run time."""
    rt, acl = Path(lib_dir()) / "libacl_rt.so", Path(lib_dir()) / "libascendcl.so"
    # A sanitizer build also exports bookkeeping names that are no C identifiers (__odr_asan.x): not the ABI.
    ours = {n for n in dynamic_exports(acl) if n.isidentifier()}
    assert ours and {n for n in dynamic_exports(rt) if n.isidentifier()} == ours
    dynamic = subprocess.run(["readelf", "-d", str(rt)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"\(FILTER\)\s+Filter library: \[libascendcl\.so\]", dynamic), dynamic


def test_registry_lists_what_libopapi_exports():
    from aclnn_py import acl

    aclnn_py.backend()
    names = []
    while (name := acl.aclStubRegisteredOp(len(names))) is not None:
        names.append(name)
    assert len(names) == len(set(names))
    exported = operators(dynamic_exports(Path(lib_dir()) / "libopapi.so"))
    assert set(exported) <= set(names)


def test_readme_library_table_is_what_the_generator_prints():
    text = README.read_text()
    assert _ops_table.BEGIN in text, "the README lacks the ops-table markers"
    block = text[text.index(_ops_table.BEGIN):text.index(_ops_table.END) + len(_ops_table.END) + 1]
    assert block == _ops_table.markdown(lib_dir()), \
        "README.md's library table is stale: run python -m aclnn_py ops --update README.md"


def test_ops_update_rewrites_only_the_table(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"before\n{_ops_table.BEGIN}\nold\n{_ops_table.END}\nafter\n")
    assert _ops_table.update_file(doc, lib_dir()) is True
    assert doc.read_text() == f"before\n{_ops_table.markdown(lib_dir())}after\n"
    assert _ops_table.update_file(doc, lib_dir()) is False
    with pytest.raises(ValueError, match="markers"):
        _ops_table.replace_block("no markers", "x")


def test_ops_listing_names_each_operator_and_its_libraries(capsys):
    assert cli(["ops", "--lib-dir", lib_dir()]) == 0
    lines = capsys.readouterr().out.splitlines()
    every = operators(dynamic_exports(Path(lib_dir()) / "libopapi.so"))
    assert lines[-1] == f"{len(every)} operators"
    rows = {ln.split()[0]: ln.split()[1:] for ln in lines[:-1]}
    assert set(rows) == set(every)
    assert rows["aclnnMoeTokenPermute"] == ["libopapi_transformer.so", "libopapi.so"]


OFFICIAL_STYLE_HEADER = """\
#ifndef ACLNN_LIBRARY_TEST_OP_H_
#define ACLNN_LIBRARY_TEST_OP_H_
#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"
#ifdef __cplusplus
extern "C" {
#endif
ACLNN_API aclnnStatus aclnnLibraryTestOpGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);
#ifdef __cplusplus
}
#endif
#endif
"""

SAMPLE = """\
#include <cstdio>
#include "acl/acl.h"
#include "aclnnop/aclnn_moe_token_permute.h"
#ifdef FOREIGN_HEADER
#include "aclnn_library_test_op.h"
#endif
int main() { std::printf("%d\\n", (int)sizeof(&aclnnMoeTokenPermuteGetWorkspaceSize)); return 0; }
"""


@pytest.mark.parametrize("args", [[], *(["--repo", r] for r in REPOS)], ids=["default", *REPOS])
def test_cflags_compile_official_headers_and_samples_unchanged(tmp_path, args):
    """A sample including "aclnnop/aclnn_xxx.h" (whose header includes "aclnn_util.h") compiles with each
    repository's include line; with the default flags, so does an official-style operator header kept outside
    our tree, which includes "aclnn_util.h" as if it sat next to it in a toolkit."""
    assert shutil.which(CXX), f"{CXX} is needed"
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "aclnn_library_test_op.h").write_text(OFFICIAL_STYLE_HEADER)
    (tmp_path / "sample.cpp").write_text(SAMPLE)
    foreign = [] if args else ["-DFOREIGN_HEADER", "-I", str(tmp_path / "ops")]
    proc = subprocess.run([CXX, "-c", "sample.cpp", *config("--cflags", *args), *foreign, "-o", "sample.o"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    if not args:  # without include/aclnnop on the path, the foreign header's "aclnn_util.h" is not found
        flags = [f for f in config("--cflags") if not f.endswith("aclnnop")]
        proc = subprocess.run([CXX, "-c", "sample.cpp", *flags, *foreign, "-o", "sample.o"], cwd=tmp_path,
                              capture_output=True, text=True)
        assert proc.returncode != 0 and "aclnn_util.h" in proc.stderr


def test_level2_headers_forward_to_the_operator_headers(tmp_path):
    """As in a toolkit, include/aclnnop/level2 holds every operator header again (ops-nn's gemm_v3 sample includes
    "aclnnop/level2/aclnn_gemm.h"); each forwards to the one in include/aclnnop."""
    aclnnop = Path(aclnn_py.get_include()) / "aclnnop"
    names = {p.name for p in aclnnop.glob("aclnn_*.h")}
    assert names and {p.name for p in (aclnnop / "level2").glob("*.h")} == names
    (tmp_path / "s.cpp").write_text('#include "aclnnop/level2/aclnn_gemm.h"\n#include "aclnnop/aclnn_gemm.h"\n'
                                    "int main() { return sizeof(&aclnnGemmGetWorkspaceSize) == 0; }\n")
    proc = subprocess.run([CXX, "-c", "s.cpp", *config("--cflags", "--repo", "ops-nn"), "-o", "s.o"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
