"""``python -m aclnn_py samples DIR`` on a small repository tree of our own: one sample per outcome (runs, exits
non-zero, times out, calls an operator the stub does not export, lacks its operator's header, fails to compile,
misses a runtime symbol, leaks under check mode), and samples the command must leave out."""

import json
import shutil
from pathlib import Path

import pytest

import aclnn_py
from aclnn_py.__main__ import main as cli
from aclnn_py.samples import discover

ROOT = Path(__file__).resolve().parent.parent

RUNTIME = """\
#include <cstdio>
#include "acl/acl.h"
static int up() {
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
    return 0;
}
static int down() { return aclrtResetDevice(0) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS; }
"""

MISSING_OP_HEADER = """\
#ifndef ACLNN_MISSING_OP_H_
#define ACLNN_MISSING_OP_H_
#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"
#ifdef __cplusplus
extern "C" {
#endif
ACLNN_API aclnnStatus aclnnMissingOpGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMissingOp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);
#ifdef __cplusplus
}
#endif
#endif
"""

# path under the tree -> (text, or None for our own MoE sample; expected status; a piece of the reason)
TREE = {
    "moe/good/examples/test_aclnn_good.cpp": (None, "ok", ""),
    "moe/missing_op/op_api/aclnn_missing_op.h": (MISSING_OP_HEADER, None, None),
    "moe/missing_op/examples/test_aclnn_missing_op.cpp": (
        RUNTIME + '#include "aclnnop/aclnn_missing_op.h"\nint main() { uint64_t ws = 0; aclOpExecutor *ex = nullptr;\n'
        "  return up() || aclnnMissingOpGetWorkspaceSize(nullptr, nullptr, &ws, &ex) || down(); }\n",
        "not exported", "aclnnMissingOp"),
    "moe/no_header/examples/test_aclnn_no_header.cpp": (
        RUNTIME + '#include "aclnnop/aclnn_nowhere.h"\nint main() { return up() || down(); }\n',
        "not exported", "no header aclnnop/aclnn_nowhere.h"),
    "math/exit3/examples/test_aclnn_exit3.cpp": (
        RUNTIME + 'int main() { if (up() || down()) return 1; std::puts("result mismatch"); return 3; }\n',
        "failed", "exit status 3: result mismatch"),
    "math/syntax/examples/test_aclnn_syntax.cpp": (
        RUNTIME + "int main() { return up( }\n", "compile error", "[sample]"),
    "math/gap/examples/test_aclnn_gap.cpp": (
        RUNTIME + 'extern "C" aclError aclrtNoSuchCall(void);\nint main() { return up() || aclrtNoSuchCall(); }\n',
        "link error", "undefined aclrtNoSuchCall"),
    "math/leak/examples/test_aclnn_leak.cpp": (
        RUNTIME + "int main() { void *p = nullptr; if (up()) return 1;\n"
        "  if (aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 1; return down(); }\n",
        "ok", ""),
    "math/slow/examples/test_aclnn_slow.cpp": (
        "#include <unistd.h>\nint main() { sleep(60); return 0; }\n", "timeout", "did not finish in 1.5 s"),
    # left out: experimental operators, the generator's templates, a file outside examples/
    "experimental/math/x/examples/test_aclnn_x.cpp": ("not C++", None, None),
    "scripts/opgen/template/add/examples/test_aclnn_add_example.cpp": ("not C++", None, None),
    "math/exit3/test_aclnn_not_in_examples.cpp": ("not C++", None, None),
}
SAMPLES = {p: (status, reason) for p, (_, status, reason) in TREE.items() if status}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    assert shutil.which("g++"), "g++ is needed to build the samples"
    root = tmp_path_factory.mktemp("checkout") / "ops-transformer"
    for path, (text, _, _) in TREE.items():
        f = root / path
        f.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            shutil.copyfile(ROOT / "examples" / "c" / "test_aclnn_moe_token_permute.cpp", f)  # clean in check mode
        else:
            f.write_text(text)
    return root


def lib_dir() -> str:
    import os

    return os.environ.get("ACLNN_PY_LIB_DIR") or aclnn_py.get_lib_dir()


def run(tree, tmp_path, capsys, *args) -> tuple[int, dict, str]:
    out = tmp_path / "result.json"
    code = cli(["samples", str(tree), "-j", "2", "--timeout", "1.5", "--lib-dir", lib_dir(), "--json", str(out),
                *args])
    text = capsys.readouterr()
    return code, json.loads(out.read_text()), text.out + text.err


@pytest.fixture(scope="module")
def full_run(tree, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "result.json"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        code = cli(["samples", str(tree), "-j", "2", "--timeout", "1.5", "--lib-dir", lib_dir(), "--json",
                    str(out)])
    return code, json.loads(out.read_text()), buf.getvalue()


def test_discover_leaves_out_experimental_scripts_and_files_outside_examples(tree):
    assert [s.path for s in discover(tree)] == sorted(SAMPLES)


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_each_sample_gets_its_outcome(full_run, path):
    _, result, _ = full_run
    got = {s["path"]: s for s in result["samples"]}[path]
    status, reason = SAMPLES[path]
    assert got["status"] == status, got
    assert reason in got["reason"], got
    assert got["built"] == (status in ("ok", "failed", "timeout"))
    assert got["ran"] == (status in ("ok", "failed"))
    assert got["exit_status"] == {"ok": 0, "failed": 3}.get(status)
    assert got["findings"] is None


def test_table_summary_and_exit_status(full_run):
    code, result, out = full_run
    assert code == 1  # a sample that built failed
    assert result["repo"] == "ops-transformer"
    assert result["link"][-6:] == ["-lopapi", "-lopapi_transformer", "-lascendcl", "-lnnopbase", "-lpthread",
                                   "-lhccl"]
    assert result["summary"]["moe"] == {"samples": 3, "built": 1, "ran": 1, "ok": 1, "failed": 0, "timeout": 0,
                                        "findings": 0, "not exported": 2, "compile error": 0, "link error": 0}
    assert result["summary"]["math"] == {"samples": 5, "built": 3, "ran": 2, "ok": 1, "failed": 1, "timeout": 1,
                                         "findings": 0, "not exported": 0, "compile error": 1, "link error": 1}
    assert result["summary"]["total"]["samples"] == len(SAMPLES)
    assert list(result["summary"]) == ["math", "moe", "total"]
    lines = out.splitlines()
    assert lines[0].split() == ["sample", "folder", "built", "ran", "exit", "result"]
    row = next(ln for ln in lines if ln.startswith("test_aclnn_good "))
    assert row.split()[1:6] == ["moe/good", "yes", "yes", "0", "ok"]
    assert any(ln.split()[:3] == ["total", str(len(SAMPLES)), "4"] for ln in lines)
    assert "1  aclnnMissingOp" in out


def test_check_mode_counts_findings(tree, tmp_path, capsys):
    code, result, out = run(tree, tmp_path, capsys, "--check", "--only", "leak|good")
    got = {s["path"]: s for s in result["samples"]}
    assert set(got) == {"math/leak/examples/test_aclnn_leak.cpp", "moe/good/examples/test_aclnn_good.cpp"}
    leak, good = got["math/leak/examples/test_aclnn_leak.cpp"], got["moe/good/examples/test_aclnn_good.cpp"]
    assert leak["status"] == "findings" and leak["findings"] == 1 and leak["exit_status"] == 0
    assert leak["reason"] == "[leakcheck] leaked-device-memory in aclrtMalloc"
    assert good["status"] == "ok" and good["findings"] == 0
    assert code == 1 and result["check"] == "all"
    assert "findings" in out.splitlines()[0].split()


def test_operator_of_another_library_is_named(tree, tmp_path, capsys):
    code, result, _ = run(tree, tmp_path, capsys, "--repo", "ops-math", "--only", "good")
    (s,) = result["samples"]
    assert s["status"] == "not exported" and s["operators"] == ["aclnnMoeTokenPermute"]
    assert "exported by libopapi.so, libopapi_transformer.so, not on this link line" in s["reason"]
    assert result["link"][-3:] == ["-lopapi_math", "-lascendcl", "-lnnopbase"]
    assert code == 0  # an operator we do not export is not a failure


@pytest.mark.parametrize("args, message", [
    (["--repo", "ops-nope"], "invalid choice"),
    (["--only", "("], "--only"),
    (["--check", "nocheck"], "--check"),
    (["-j", "0"], "-j must be at least 1"),
])
def test_bad_arguments(tree, capsys, args, message):
    try:
        code = cli(["samples", str(tree), *args])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code == 2 and message in capsys.readouterr().err


def test_unknown_repository_name_asks_for_repo(tmp_path, capsys):
    assert cli(["samples", str(tmp_path)]) == 2
    assert "--repo" in capsys.readouterr().err
