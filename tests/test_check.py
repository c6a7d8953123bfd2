"""Check mode (``python -m aclnn_py check``, ACLNN_CHECK, ``aclnn_py.check``): every seeded bug is reported
with the right tool, class, API call and call site (file:line of the marked line), and correct programs (the
official-style samples, the Python examples, the demo) run clean under every tool."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from test_c_samples import CXX, ROOT, SAMPLES, config_flags
from test_sdk import build_library

import aclnn_py
from aclnn_py import acl, check

C_BUGS = ROOT / "tests" / "c" / "check_seeded_bugs.cpp"
PY_BUGS = ROOT / "tests" / "data" / "check_seeded_bugs.py"
PACKAGE_PARENT = str(Path(aclnn_py.__file__).resolve().parent.parent)

pytestmark = pytest.mark.skipif(not aclnn_py.backend().is_stub, reason="check mode is a feature of the stub")


def marked_lines(source: Path, tag: str, scenario_function: str | None = None) -> dict[str, int]:
    """what -> line of each "<tag>: what" comment (inside one function of the source when given)."""
    lines = source.read_text().splitlines()
    if scenario_function:
        start = next(i for i, line in enumerate(lines) if re.match(rf"(static int |def ){scenario_function}\(", line))
        end = next((i for i in range(start + 1, len(lines)) if re.match(r"(static int |def )\w+\(", lines[i])),
                   len(lines))
        span = range(start, end)
    else:
        span = range(len(lines))
    found = {}
    for i in span:
        m = re.search(rf"(//|#) {tag}: ([\w-]+)", lines[i])
        if m:
            found[m.group(2)] = i + 1
    return found


def env_for_child() -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = PACKAGE_PARENT + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e["ACLNN_PY_BACKEND"] = "stub"
    return e


def run_check(argv, *options, tmp_path) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """The CLI on argv with --json; its result and the findings it wrote."""
    out = tmp_path / "findings.json"
    result = subprocess.run([sys.executable, "-m", "aclnn_py", "check", *options, "--json", str(out), "--", *argv],
                            capture_output=True, text=True, env=env_for_child(), timeout=300)
    findings = json.loads(out.read_text())["findings"] if out.exists() else None
    return result, findings


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    """The C++ seeded-bug program, with debug information (file:line) and the workspace-asking operator."""
    d = tmp_path_factory.mktemp("check")
    build_library(ROOT / "tests" / "c" / "check_scratch_op.c", d / "libscratch.so")
    exe = d / "check_seeded_bugs"
    subprocess.run([CXX, "-g", "-O0", "-Wall", "-Wextra", "-Werror", str(C_BUGS), "-o", str(exe), *config_flags(),
                    f"-L{d}", f"-Wl,-rpath,{d}", "-lscratch"], check=True)
    return exe


# scenario -> (function in the source, tool, class, API call)
C_SCENARIOS = {
    "out-of-bounds": ("OutOfBounds", "memcheck", "out-of-bounds", "aclrtMemcpy"),
    "use-after-free": ("UseAfterFree", "memcheck", "use-after-free", "aclrtMemcpy"),
    "double-free": ("DoubleFree", "memcheck", "double-free", "aclrtFree"),
    "view-larger-than-buffer": ("ViewLargerThanBuffer", "memcheck", "out-of-bounds", "aclnnMoeTokenPermute"),
    "workspace-too-small": ("WorkspaceTooSmall", "memcheck", "workspace-too-small", "aclnnScratchCopy"),
    "uninitialized-input": ("UninitializedInput", "initcheck", "uninitialized-read", "aclnnMoeTokenPermute"),
    "uninitialized-copy": ("UninitializedCopy", "initcheck", "uninitialized-read", "aclrtMemcpy"),
    "read-before-sync": ("ReadBeforeSync", "synccheck", "host-read-before-sync", "aclrtMemcpy"),
    "write-before-sync": ("WriteBeforeSync", "synccheck", "host-write-before-sync", "aclrtMemcpy"),
    "free-before-sync": ("FreeBeforeSync", "synccheck", "free-with-queued-work", "aclrtFree"),
    "destroy-stream-before-sync": ("DestroyStreamBeforeSync", "synccheck", "release-with-queued-work",
                                   "aclrtDestroyStream"),
    "reset-device-before-sync": ("ResetDeviceBeforeSync", "synccheck", "release-with-queued-work",
                                 "aclrtResetDevice"),
    "two-streams": ("TwoStreams", "synccheck", "unordered-streams", "aclnnMoeTokenPermute"),
}


def top_frame(finding: dict) -> dict:
    return finding["site"][0]


@pytest.mark.parametrize("scenario", sorted(C_SCENARIOS))
def test_cpp_seeded_bug_is_reported_at_its_line(seeded, scenario, tmp_path):
    function, tool, what, call = C_SCENARIOS[scenario]
    result, findings = run_check([str(seeded), scenario], tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr  # the program's own status: the stub refused or survived the bug
    assert [(f["tool"], f["what"], f["call"]) for f in findings] == [(tool, what, call)], result.stderr
    frame = top_frame(findings[0])
    assert Path(frame["file"]).name == C_BUGS.name and frame["function"].startswith(function), frame
    assert frame["line"] == marked_lines(C_BUGS, "BUG", function)[what]
    assert f"[{tool}] {what} in {call}" in result.stderr and "SUMMARY: 1 finding(s)" in result.stderr


def test_cpp_related_sites_name_the_allocation_and_the_queued_work(seeded, tmp_path):
    _, findings = run_check([str(seeded), "uninitialized-input"], tmp_path=tmp_path)
    related = findings[0]["related"]
    assert related["label"] == "block allocated at" and related["site"][0]["function"].startswith("int CreateAclTensor")
    _, findings = run_check([str(seeded), "read-before-sync"], tmp_path=tmp_path)
    assert findings[0]["related"]["site"][0]["function"].startswith("RunPermute")
    assert "aclnnMoeTokenPermute" in findings[0]["message"]


def test_cpp_leaks_are_reported_at_their_creation_lines(seeded, tmp_path):
    result, findings = run_check([str(seeded), "leaks"], tmp_path=tmp_path)
    expected = marked_lines(C_BUGS, "LEAK", "Leaks")
    assert {f["what"] for f in findings} == set(expected), result.stderr
    assert all(f["tool"] == "leakcheck" and f["count"] == 1 for f in findings)
    for f in findings:  # the marked line is on the creation's call stack (the executor's through PlanPermute)
        lines = [fr["line"] for fr in f["site"] if Path(fr.get("file") or "").name == C_BUGS.name]
        assert expected[f["what"]] in lines, f


@pytest.mark.parametrize("scenario", ["clean", "events"])
def test_cpp_correct_programs_are_clean(seeded, scenario, tmp_path):
    result, findings = run_check([str(seeded), scenario], "--error-exitcode", "42", tmp_path=tmp_path)
    assert findings == [] and result.returncode == 0, result.stderr
    assert "SUMMARY: 0 finding(s)" in result.stderr


def test_error_exitcode_and_tool_selection(seeded, tmp_path):
    result, findings = run_check([str(seeded), "use-after-free"], "--error-exitcode", "42", tmp_path=tmp_path)
    assert result.returncode == 42 and len(findings) == 1
    # leakcheck alone does not see a use after free; initcheck alone does not see a leak
    result, findings = run_check([str(seeded), "use-after-free"], "--tool", "leakcheck", "--error-exitcode", "42",
                                 tmp_path=tmp_path)
    assert findings == [] and result.returncode == 0
    result, findings = run_check([str(seeded), "leaks"], "--tool", "initcheck,synccheck", tmp_path=tmp_path)
    assert findings == []
    result, findings = run_check([str(seeded), "read-before-sync"], "--tool", "synccheck", tmp_path=tmp_path)
    assert [f["what"] for f in findings] == ["host-read-before-sync"]


def test_cli_rejects_bad_arguments(tmp_path):
    result, _ = run_check(["true"], "--tool", "racecheck", tmp_path=tmp_path)
    assert result.returncode == 2 and "racecheck is not one of memcheck" in result.stderr
    result = subprocess.run([sys.executable, "-m", "aclnn_py", "check"], capture_output=True, text=True,
                            env=env_for_child())
    assert result.returncode == 2 and "give the program" in result.stderr
    result, _ = run_check(["/nonexistent/program"], tmp_path=tmp_path)
    assert result.returncode == 127 and "cannot run /nonexistent/program" in result.stderr


def test_environment_variables_without_the_cli(seeded, tmp_path):
    report = tmp_path / "report.%p.json"
    env = dict(os.environ, ACLNN_CHECK="memcheck", ACLNN_CHECK_REPORT=str(report), ACLNN_CHECK_ERROR_EXITCODE="7")
    result = subprocess.run([str(seeded), "double-free"], env=env, capture_output=True, text=True)
    assert result.returncode == 7
    [written] = list(tmp_path.glob("report.*.json"))
    data = json.loads(written.read_text())
    assert data["tools"] == ["memcheck"] and [f["what"] for f in data["findings"]] == ["double-free"]
    assert data["pid"] == int(written.name.split(".")[1])
    # without a report file: a summary on stderr
    env = dict(os.environ, ACLNN_CHECK="all")
    result = subprocess.run([str(seeded), "double-free"], env=env, capture_output=True, text=True)
    assert result.returncode == 0 and "memcheck double-free in aclrtFree" in result.stderr
    # an unknown tool leaves check mode off, and says so
    env = dict(os.environ, ACLNN_CHECK="memcheck,bogus")
    result = subprocess.run([str(seeded), "double-free"], env=env, capture_output=True, text=True)
    assert result.returncode == 0 and "names an unknown tool" in result.stderr and "double-free" not in result.stderr


PY_SCENARIOS = {
    "use-after-free": ("memcheck", "aclrtMemcpy"),
    "uninitialized-read": ("initcheck", "aclrtMemcpy"),
    "read-before-sync": ("synccheck", "aclrtMemcpy"),
    "leak": ("leakcheck", "aclrtMalloc"),
}


@pytest.mark.parametrize("scenario", sorted(PY_SCENARIOS))
def test_python_seeded_bug_is_reported_at_its_line(scenario, tmp_path):
    tool, call = PY_SCENARIOS[scenario]
    result, findings = run_check([sys.executable, str(PY_BUGS), scenario], tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [(f["tool"], f["call"]) for f in findings] == [(tool, call)], result.stderr
    [(what, line)] = marked_lines(PY_BUGS, "BUG", scenario.replace("-", "_")).items()
    assert findings[0]["what"] == what
    frame = top_frame(findings[0])
    assert Path(frame["file"]).name == PY_BUGS.name and frame["line"] == line and frame["function"] == \
        scenario.replace("-", "_")


def test_python_clean_program(tmp_path):
    result, findings = run_check([sys.executable, str(PY_BUGS), "clean"], tmp_path=tmp_path)
    assert findings == [] and result.returncode == 0, result.stderr


# ---- correct programs we ship run clean ---------------------------------------------------------------------

@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_official_style_sample_is_clean(sample, tmp_path):
    exe = tmp_path / sample.stem
    subprocess.run([CXX, str(sample), "-o", str(exe), *config_flags()], check=True)
    result, findings = run_check([str(exe)], "--error-exitcode", "42", tmp_path=tmp_path)
    assert findings == [] and result.returncode == 0, result.stderr


def test_demo_and_python_examples_are_clean(tmp_path):
    """The demo runs every Python example of a shipped operator, each in its own process."""
    result, findings = run_check([sys.executable, "-m", "aclnn_py", "demo"], "--error-exitcode", "42",
                                 tmp_path=tmp_path)
    assert result.returncode == 0 and findings == [], result.stderr
    from aclnn_py._optable import OPS

    assert result.stdout.count("=== aclnn") == len(OPS)


def test_expert_parallel_example_is_clean(tmp_path):
    script = ROOT / "examples" / "expert_parallel.py"
    result, findings = run_check([sys.executable, str(script), "--ranks", "2", "--tokens", "32", "--hidden", "8",
                                  "--experts", "4", "--topk", "2"], "--error-exitcode", "42", tmp_path=tmp_path)
    assert result.returncode == 0 and findings == [], result.stderr


# ---- in-process API and the pytest fixture ------------------------------------------------------------------

def test_run_returns_findings_with_python_sites():
    def buggy():
        host = np.zeros(32, dtype=np.uint8)
        dev = acl.aclrtMalloc(32, 0)
        acl.aclrtMemcpy(acl.host_ptr(host), 32, dev, 32, acl.ACL_MEMCPY_DEVICE_TO_HOST)  # reads poison
        acl.aclrtFree(dev)
        assert (host == 0xFF).all()  # fresh memory is poisoned, not zeroed

    aclnn_py.default_device()
    findings = check.run(buggy)
    assert [(f.tool, f.what, f.call) for f in findings] == [("initcheck", "uninitialized-read", "aclrtMemcpy")]
    frame = findings[0].site[0]
    assert frame.file == __file__ and frame.function == "buggy"
    assert frame.line == buggy.__code__.co_firstlineno + 3


def test_session_reports_leaks_of_the_block_and_stops_after():
    aclnn_py.default_device()
    with check.session("leakcheck") as s:
        ptr = acl.aclrtMalloc(64, 0)
    try:
        assert [(f.what, f.site[0].function) for f in s.findings] == [
            ("leaked-device-memory", "test_session_reports_leaks_of_the_block_and_stops_after")]
    finally:
        acl.aclrtFree(ptr)
    with check.session("all") as s:  # a block from before the session is unknown to it: nothing to report
        pass
    assert s.findings == []


def test_session_rejects_unknown_tools():
    with pytest.raises(check.CheckError, match="racecheck is not one of"):
        check.session("racecheck")


def test_pytest_fixture_fails_a_buggy_test(tmp_path):
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["aclnn_py.pytest_plugin"]\n')
    (tmp_path / "test_user.py").write_text(
        "import numpy as np\n"
        "import aclnn_py\n"
        "from aclnn_py import acl\n\n"
        "def test_clean(aclnn_check):\n"
        "    x = np.arange(6, dtype=np.float32)\n"
        "    assert aclnn_py.default_device() is not None\n\n"
        "def test_leaky(aclnn_check):\n"
        "    aclnn_py.default_device()\n"
        "    acl.aclrtMalloc(16, 0)\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                            capture_output=True, text=True, env=env_for_child(), cwd=tmp_path, timeout=300)
    assert "2 passed, 1 error" in result.stdout, result.stdout + result.stderr  # the leak fails teardown
    assert "[leakcheck] leaked-device-memory in aclrtMalloc" in result.stdout
    assert "test_user.py:11 in test_leaky" in result.stdout


def test_documented_report_is_what_check_prints(tmp_path):
    """The check-mode guide's buggy program prints the guide's report (addresses aside)."""
    section = (ROOT / "docs" / "guide" / "check.md").read_text()
    block = section[section.index("$ python -m aclnn_py check"):]
    block = block[:block.index("```")]
    documented = [line for line in block.splitlines() if line.startswith("=========")]
    exe = tmp_path / "permute_with_bugs"
    subprocess.run([CXX, "-g", "examples/check/permute_with_bugs.cpp", *config_flags(), "-o", str(exe)], check=True,
                   cwd=ROOT)
    result = subprocess.run([sys.executable, "-m", "aclnn_py", "check", "--", str(exe)], capture_output=True,
                            text=True, env=env_for_child(), cwd=ROOT, timeout=300)
    printed = [line for line in result.stderr.splitlines() if line.startswith("=========")]

    def addresses_aside(lines):
        return [re.sub(r"0x[0-9a-f]+", "0x?", line) for line in lines]

    assert addresses_aside(printed) == addresses_aside(documented)


def test_forked_child_reports_only_its_own_findings(tmp_path):
    script = tmp_path / "fork.py"
    script.write_text(
        "import os, sys\n"
        "from aclnn_py import AclError, acl\n"
        "acl.aclInit(None)\n"
        "acl.aclrtSetDevice(0)\n"
        "p = acl.aclrtMalloc(16, 0)\n"
        "acl.aclrtFree(p)\n"
        "try:\n"
        "    acl.aclrtFree(p)  # parent: double free\n"
        "except AclError:\n"
        "    pass\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    acl.aclrtMalloc(8, 0)  # child: leaked at exit\n"
        "    sys.exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "acl.aclrtResetDevice(0)\n"
        "acl.aclFinalize()\n")
    result, findings = run_check([sys.executable, str(script)], tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    whats = sorted((f["what"], f["site"][0]["line"]) for f in findings)
    assert whats == [("double-free", 8), ("leaked-device-memory", 13)], result.stderr
