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


# scenario -> (function in the source, tool, class, API call); the calls the stub refuses are also API errors
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


REFUSED = {"out-of-bounds", "use-after-free", "double-free", "view-larger-than-buffer", "workspace-too-small"}


def top_frame(finding: dict) -> dict:
    return finding["site"][0]


@pytest.mark.parametrize("scenario", sorted(C_SCENARIOS))
def test_cpp_seeded_bug_is_reported_at_its_line(seeded, scenario, tmp_path):
    function, tool, what, call = C_SCENARIOS[scenario]
    result, findings = run_check([str(seeded), scenario], tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr  # the program's own status: the stub refused or survived the bug
    expected = [(tool, what, call)] + ([("apicheck", "api-error", call)] if scenario in REFUSED else [])
    assert sorted((f["tool"], f["what"], f["call"]) for f in findings) == sorted(expected), result.stderr
    for f in findings:  # both at the marked line
        frame = top_frame(f)
        assert Path(frame["file"]).name == C_BUGS.name and frame["function"].startswith(function), frame
        assert frame["line"] == marked_lines(C_BUGS, "BUG", function)[what]
    assert f"[{tool}] {what} in {call}" in result.stderr
    assert f"SUMMARY: {len(expected)} finding(s)" in result.stderr


def test_padding_access_is_a_warning_at_its_line(seeded, tmp_path):
    """64 bytes into a 32-byte block (the official aclnnMoeTokenPermuteWithEp sample's copy): legal, as on a
    device, reported as a warning that never sets the error exit status."""
    result, findings = run_check([str(seeded), "padding"], "--error-exitcode", "42", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [(f["tool"], f["what"], f["severity"], f["call"]) for f in findings] == [
        ("memcheck", "padding-access", "warning", "aclrtMemcpy")], result.stderr
    assert top_frame(findings[0])["line"] == marked_lines(C_BUGS, "BUG", "Padding")["padding-access"]
    assert "32 byte(s) into the padding of the 32-byte block" in findings[0]["message"]
    assert "[memcheck] padding-access (warning) in aclrtMemcpy" in result.stderr
    assert "1 of them warning(s)" in result.stderr


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
    assert result.returncode == 42 and sorted(f["tool"] for f in findings) == ["apicheck", "memcheck"]
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
    refused = [("apicheck", call)] if scenario == "use-after-free" else []  # the program catches the AclError
    assert [(f["tool"], f["call"]) for f in findings] == [(tool, call)] + refused, result.stderr
    [(what, line)] = marked_lines(PY_BUGS, "BUG", scenario.replace("-", "_")).items()
    assert findings[0]["what"] == what
    for f in findings:
        frame = top_frame(f)
        assert Path(frame["file"]).name == PY_BUGS.name and frame["line"] == line and frame["function"] == \
            scenario.replace("-", "_")
    if refused:
        assert findings[1]["message"].startswith("aclrtMemcpy returned 107000: aclrtMemcpy: ")


def test_python_clean_program(tmp_path):
    result, findings = run_check([sys.executable, str(PY_BUGS), "clean"], tmp_path=tmp_path)
    assert findings == [] and result.returncode == 0, result.stderr


# ---- correct programs we ship run clean ---------------------------------------------------------------------

# Two official samples fill an INT32 index tensor from float host data: the index 1065353216 (the bits of 1.0f)
# is outside the valid range, which a device may read out of bounds with (the stub skips it).
SAMPLE_BUGS = {
    "test_aclnn_moe_token_permute_grad": [("memcheck", "index-out-of-range", "aclnnMoeTokenPermuteGrad")],
    "test_aclnn_moe_token_unpermute": [("memcheck", "index-out-of-range", "aclnnMoeTokenUnpermute")],
}


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_official_style_sample_is_clean(sample, tmp_path):
    exe = tmp_path / sample.stem
    subprocess.run([CXX, str(sample), "-o", str(exe), *config_flags()], check=True)
    result, findings = run_check([str(exe)], "--error-exitcode", "42", tmp_path=tmp_path)
    expected = SAMPLE_BUGS.get(sample.stem, [])
    assert [(f["tool"], f["what"], f["call"]) for f in findings] == expected, result.stderr
    assert result.returncode == (42 if expected else 0), result.stderr
    for f in findings:
        assert "= 1065353216 is outside" in f["message"]


def test_demo_and_python_examples_are_clean(tmp_path):
    """The demo runs every Python example of a shipped operator, each in its own process. The one API error is
    the init-routing example's deliberate call with the official sample's INT8 declaration, which it catches."""
    result, findings = run_check([sys.executable, "-m", "aclnn_py", "demo"], tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [(f["tool"], f["call"], f["site"][0]["function"]) for f in findings] == [
        ("apicheck", "aclnnMoeInitRoutingV3GetWorkspaceSize", "phase1")], result.stderr
    assert findings[0]["message"].startswith("aclnnMoeInitRoutingV3GetWorkspaceSize returned 161002: ")
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
    assert whats == [("api-error", 8), ("double-free", 8), ("leaked-device-memory", 13)], result.stderr


# ---- reports that survive _exit and signals; what check says when nothing was checked ----------------------

ENDINGS = {  # how the process ends after its bug, and the exit status the CLI passes on
    "os._exit": ("os._exit(0)", 0),
    "multiprocessing": (None, 0),
    "SIGKILL": ("os.kill(os.getpid(), signal.SIGKILL)", -9),
    "SIGSEGV": ("ctypes.string_at(0)", -11),
    "SIGABRT": ("os.abort()", -6),
}


def ending_script(ending: str) -> str:
    bug = ("    p = acl.aclrtMalloc(16, 0)\n"
           "    acl.aclrtFree(p)\n"
           "    try:\n"
           "        acl.aclrtFree(p)  # double free\n"
           "    except AclError:\n"
           "        pass\n")
    head = ("import ctypes, multiprocessing, os, signal, sys\n"
            "from aclnn_py import AclError, acl\n"
            "acl.aclInit(None)\n"
            "acl.aclrtSetDevice(0)\n"
            "def work():\n" + bug)
    end, _ = ENDINGS[ending]
    if end is None:  # a fork worker of multiprocessing leaves through os._exit
        return head + ("if __name__ == '__main__':\n"
                       "    proc = multiprocessing.get_context('fork').Process(target=work)\n"
                       "    proc.start()\n"
                       "    proc.join()\n"
                       "    sys.exit(proc.exitcode)\n")
    return head + f"work()\nsys.stdout.flush()\n{end}\n"


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_findings_survive_exit_without_handlers(ending, tmp_path):
    script = tmp_path / "ending.py"
    script.write_text(ending_script(ending))
    result, findings = run_check([sys.executable, str(script)], "--tool", "memcheck", tmp_path=tmp_path)
    # the program's status, passed on (a sanitizer's handler may turn a fatal signal into its own exit status)
    assert (result.returncode != 0) == (ENDINGS[ending][1] != 0), result.stderr
    assert [(f["what"], f["call"], f["site"][0]["line"]) for f in findings] == [("double-free", "aclrtFree", 9)], \
        result.stderr
    assert "ended without running its exit handlers" in result.stderr
    assert "nothing was checked" not in result.stderr


def test_a_process_that_loads_the_stub_is_counted_even_without_findings(tmp_path):
    script = tmp_path / "quiet.py"
    script.write_text("import os\nfrom aclnn_py import acl\nacl.aclInit(None)\nos._exit(0)\n")
    result, findings = run_check([sys.executable, str(script)], tmp_path=tmp_path)
    assert result.returncode == 0 and findings == [], result.stderr
    assert "nothing was checked" not in result.stderr and "SUMMARY: 0 finding(s)" in result.stderr


def test_nothing_checked_is_an_error(tmp_path):
    result, findings = run_check(["true"], tmp_path=tmp_path)
    assert result.returncode == check.NOTHING_CHECKED and findings == [], result.stderr
    assert "nothing was checked: no process loaded the aclnn stub" in result.stderr
    result, _ = run_check(["false"], tmp_path=tmp_path)  # the program's own failure comes first
    assert result.returncode == 1 and "nothing was checked" in result.stderr


@pytest.mark.parametrize("target, problem", [(".", "is a directory"), ("missing/out.json", "does not exist")])
def test_json_target_is_checked_before_the_program_runs(target, problem, tmp_path):
    marker = tmp_path / "ran"
    result = subprocess.run([sys.executable, "-m", "aclnn_py", "check", "--json", str(tmp_path / target), "--",
                             "touch", str(marker)], capture_output=True, text=True, env=env_for_child(), timeout=300)
    assert result.returncode == 2 and problem in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not marker.exists()


def test_every_distinct_finding_is_kept():
    """4,200 distinct findings (one double free at each of 4,200 lines): all kept, none summarised away."""
    lines = 4200
    code = compile("\n".join(f"try: free(p)\nexcept AclError: pass" for _ in range(lines)), "many.py", "exec")

    def many():
        p = acl.aclrtMalloc(16, 0)
        acl.aclrtFree(p)
        exec(code, {"free": acl.aclrtFree, "p": p, "AclError": aclnn_py.AclError})

    aclnn_py.default_device()
    findings = check.run(many, tools="memcheck", leaks=False)
    assert len(findings) == lines and {f.what for f in findings} == {"double-free"}
    assert sorted(f.site[0].line for f in findings) == list(range(1, 2 * lines, 2))


def test_padded_copies_of_the_official_sample_are_warnings_only(tmp_path):
    source = ROOT / "tests" / "c" / "padded_outputs_permute_with_ep.cpp"
    exe = tmp_path / source.stem
    subprocess.run([CXX, "-g", str(source), "-o", str(exe), *config_flags()], check=True)
    result, findings = run_check([str(exe)], "--error-exitcode", "42", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert findings and {(f["what"], f["severity"]) for f in findings} == {("padding-access", "warning")}
    assert {f["call"] for f in findings} == {"aclrtMemcpy"}  # the operator stays inside the requested sizes


# ---- index inputs outside their valid range ------------------------------------------------------------------

def unpermute_with(indices):
    def call():
        tokens = np.ones((2, 2), np.float32)
        probs = np.array([[0.0, 1.0]], np.float32)
        aclnn_py.moe_token_unpermute(tokens, np.array(indices, np.int32), probs)
    return call


@pytest.mark.parametrize("indices, reported", [
    ([0, 1065353216], (1, 1065353216)),  # the official sample: float bits in an INT32 buffer
    ([-3, 1], (0, -3)),
    ([1, 0], None),
    ([0, 1], None),
])
def test_index_outside_its_range_is_a_finding(indices, reported):
    aclnn_py.default_device()
    findings = check.run(unpermute_with(indices), tools="memcheck", leaks=False)
    if reported is None:
        assert findings == []
        return
    [f] = findings
    position, value = reported
    assert (f.tool, f.what, f.call, f.severity) == ("memcheck", "index-out-of-range", "aclnnMoeTokenUnpermute", "error")
    assert f.message.startswith(f"'sortedIndices'[{position}] = {value} is outside [0, 2)")
    assert f.site[0].function == "call" and f.site[0].file == __file__
