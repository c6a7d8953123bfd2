"""The operator SDK from the outside: a user operator built from a fresh install with `config --sdk` runs
the official-style sample; the header is valid C++; an author's table mistakes are clear 561000 errors;
`new-op` skeletons compile, link and refuse to run until written."""

import os
import shlex
import shutil
import struct
import subprocess
import sys

import pytest

from test_c_samples import CXX, ROOT, config_flags, lib_dir

import aclnn_py

CC = os.environ.get("CC", "gcc")
USER_OP = ROOT / "examples" / "user_op"
# what test_aclnn_add_custom.cpp uploads: x (4 x 2) and y (one row, broadcast over x)
SAMPLE_X = [1.5, -1.0, -0.0, -2.25, 2.0, -1e30, -3.0, 3.0]
SAMPLE_Y = [0.5, 0.25]


def sdk_flags() -> list[str]:
    out = subprocess.run([sys.executable, "-m", "aclnn_py", "config", "--sdk"], check=True, capture_output=True,
                         text=True).stdout
    flags = shlex.split(out)
    if os.environ.get("ACLNN_PY_LIB_DIR"):  # link and run against the libraries under test
        flags = [f.replace(aclnn_py.get_lib_dir(), lib_dir()) for f in flags]
    return flags


def build_library(source, out, *extra):
    subprocess.run([CC, "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-Wl,--no-undefined",
                    *extra, str(source), *sdk_flags(), "-o", str(out)], check=True)


def build_sample(sample, library, out):
    """The documented recipe: the user library beside the binary, found through ``$ORIGIN``."""
    assert library.parent == out.parent
    subprocess.run([CXX, str(sample), f"-I{USER_OP / 'include'}", *config_flags(), f"-L{library.parent}",
                    "-Wl,-rpath,$ORIGIN", f"-l{library.stem[3:]}", "-o", str(out)], check=True)


def as_float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


@pytest.fixture(scope="module", autouse=True)
def compilers():
    assert shutil.which(CC) and shutil.which(CXX), "a C and a C++ compiler are needed"


def test_config_sdk_flags():
    flags = sdk_flags()
    assert f"-I{aclnn_py.get_include()}" in flags and flags[-2:] == ["-lnnopbase", "-lascendcl"]
    assert any(f.startswith("-Wl,-rpath,") for f in flags)


def test_user_operator_runs_the_official_style_sample(tmp_path):
    library = tmp_path / "libuser_add.so"
    build_library(USER_OP / "add_custom.c", library, f"-I{USER_OP / 'include'}")
    exe = tmp_path / "test_aclnn_add_custom"
    build_sample(USER_OP / "test_aclnn_add_custom.cpp", library, exe)
    # From another directory: the $ORIGIN rpath, not the working directory, finds libuser_add.so.
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    sums = [as_float32(as_float32(x) + as_float32(SAMPLE_Y[i % 2])) for i, x in enumerate(SAMPLE_X)]
    expected = "".join(f"result[{i}] is: {v:f}\n" for i, v in enumerate(sums))
    assert result.stdout == expected


def test_the_user_operator_is_a_few_lines_of_c():
    """The SDK example: an elementwise operator is its loops, its row and its entry points."""
    code = [line for line in (USER_OP / "add_custom.c").read_text().splitlines()
            if line.strip() and not line.lstrip().startswith(("/*", "*", "#include"))]
    assert len(code) <= 15, code


def test_sdk_header_is_valid_cpp(tmp_path):
    source = tmp_path / "op.cpp"
    source.write_text('''#include "aclstub/op_sdk.h"
static aclnnStatus check(aclStubOpCall *c) { return aclStubOpNothingToDo(c); }
static aclnnStatus kernel(const aclStubOpCall *) { return OK; }
static const aclStubParam PARAMS[] = {{"self", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, nullptr, 0, 0, 0},
                                      {"alpha", ACLSTUB_FLOAT, 0, nullptr, 0, 0, 0},
                                      {"flag", ACLSTUB_BOOL, 0, nullptr, 0, 0, 0},
                                      {"out", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "self", 0, 0, 0}};
static const aclStubOpDef OP = {"aclnnCppOp", PARAMS, ACLSTUB_LEN(PARAMS), nullptr, check, kernel, 0};
ACLSTUB_DEFINE_OP(aclnnCppOp, OP, (const aclTensor *, self), (double, alpha), (bool, flag), (aclTensor *, out))
''')
    subprocess.run([CXX, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", str(source), *sdk_flags(),
                    "-o", str(tmp_path / "libcppop.so")], check=True)


def test_author_mistakes_are_clear_errors(tmp_path):
    exe = tmp_path / "mistakes"
    subprocess.run([CC, "-std=gnu11", "-Wall", "-Wextra", "-Werror", str(ROOT / "tests" / "c" / "sdk_author_mistakes.c"),
                    *sdk_flags(), "-o", str(exe)], check=True)
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(": 561000 ok") == 5 and "describe: ok" in result.stdout, result.stdout


def new_op(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclnn_py", "new-op", *args], capture_output=True, text=True)


def test_new_op_from_our_header_compiles(tmp_path):
    out = tmp_path / "permute_with_ep.c"
    result = new_op("aclnnMoeTokenPermuteWithEp", "-o", str(out))
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert '#include "aclnnop/aclnn_moe_token_permute_with_ep.h"' in text
    assert '[RANGE_OPTIONAL] = {"rangeOptional", ACLSTUB_INT_ARRAY, 0, NULL, ACLSTUB_NULLABLE}' in text
    assert '[PERMUTE_PROBS_OUT] = {"permuteProbsOut", ACLSTUB_OUTPUT' in text
    assert "(const aclIntArray *, rangeOptional), (int64_t, numOutTokens), (bool, paddedMode)" in text
    build_library(out, tmp_path / "libskeleton.so")


def test_new_op_skeleton_of_the_user_operator_refuses_to_run(tmp_path):
    out = tmp_path / "add_custom_skeleton.c"
    result = new_op("aclnnAddCustom", "--include-dir", str(USER_OP / "include"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    library = tmp_path / "libadd_skeleton.so"
    build_library(out, library, f"-I{USER_OP / 'include'}")
    exe = tmp_path / "sample"
    build_sample(USER_OP / "test_aclnn_add_custom.cpp", library, exe)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "aclnnAddCustomGetWorkspaceSize failed. ERROR: 561000" in run.stdout
    assert "aclnnAddCustomGetWorkspaceSize: not implemented" in run.stdout


def test_new_op_skeleton_compiles_whatever_the_parameter_names(tmp_path):
    """Names whose constants would collide: x_out and xOut (both X_OUT), op (the skeleton's OP), ok (OK)."""
    header = tmp_path / "aclnn_odd_names.h"
    header.write_text(
        '#include "aclnn/aclnn_base.h"\n'
        "aclnnStatus aclnnOddNamesGetWorkspaceSize(const aclTensor *op, const aclTensor *x_out, int64_t ok,\n"
        "    const aclTensor *xOut, aclTensor *aclOut, aclTensor *out, uint64_t *workspaceSize,\n"
        "    aclOpExecutor **executor);\n"
        "aclnnStatus aclnnOddNames(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,\n"
        "    aclrtStream stream);\n")
    out = tmp_path / "odd_names.c"
    result = new_op("aclnnOddNames", "--header", str(header), "-o", str(out))
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert "enum { OP_PARAM, X_OUT, OK_PARAM, X_OUT_2, ACL_OUT_PARAM, OUT };" in text
    build_library(out, tmp_path / "libodd.so", f"-I{tmp_path}")


@pytest.mark.parametrize("args, message", [
    (["aclnnNoSuchOp"], "no header declaring aclnnNoSuchOpGetWorkspaceSize"),
    (["notAnOp"], "is not an aclnn operator name"),
    (["aclnnAddCustom", "--header", "/nonexistent/aclnn_add_custom.h"], "no header"),
])
def test_new_op_errors_are_one_line(args, message):
    result = new_op(*args)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
