"""A bounded run of the C fuzzer (tests/c/fuzz_api.c) under AddressSanitizer and UndefinedBehaviorSanitizer, on
a fixed list of seeds: no crash, no hang, no sanitizer report, no leak, and no call whose outcome contradicts
the fuzzer's model (valid calls succeed, invalid ones fail, the live-object counters return to zero)."""

from __future__ import annotations

import re
import subprocess

import pytest

from fuzz_api import build_fuzzer, fuzz_env, sanitizer_lib_dir

CALLS = 50_000
# (seed, threads, reuse): single-threaded sequences, then threads sharing objects that one of them destroys;
# each with freed memory reused at once (finds stale handles) and held back (finds use after free).
RUNS = [(1, 1, True), (2, 1, True), (3, 1, True), (4, 1, False), (5, 1, False), (6, 1, False), (7, 4, True),
        (8, 4, False)]


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory):
    return build_fuzzer(tmp_path_factory.mktemp("fuzz") / "fuzz_api", sanitizer_lib_dir())


def run(fuzzer, *args: str, reuse: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([str(fuzzer), "--timeout", "120", *args], capture_output=True, text=True,
                          env=fuzz_env(reuse), timeout=300)


def assert_clean(proc: subprocess.CompletedProcess):
    """No sanitizer report, no finding of the model, exit status 0; else fail with the fuzzer's own report
    (seed, last calls, sanitizer stack)."""
    problems = [what for what, seen in [
        ("AddressSanitizer report", "ERROR: AddressSanitizer" in proc.stderr),
        ("LeakSanitizer report", "ERROR: LeakSanitizer" in proc.stderr),
        ("UndefinedBehaviorSanitizer report", "runtime error:" in proc.stderr),
        ("finding of the model", "FINDING" in proc.stderr),
        ("no summary: the run did not finish", "findings: " not in proc.stdout),
        (f"exit status {proc.returncode}", proc.returncode != 0),
    ] if seen]
    if problems:
        pytest.fail(f"{', '.join(problems)}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-20000:]}",
                    pytrace=False)


@pytest.mark.parametrize("seed,threads,reuse", RUNS,
                         ids=[f"seed{s}-threads{t}-{'reuse' if r else 'quarantine'}" for s, t, r in RUNS])
def test_fuzz_run_is_clean(fuzzer, seed, threads, reuse):
    proc = run(fuzzer, "--seed", str(seed), "--calls", str(CALLS), "--threads", str(threads), reuse=reuse)
    assert_clean(proc)
    calls = int(re.search(r"(\d+) calls in (\d+) sequences", proc.stdout).group(1))
    assert calls >= CALLS
    # Every operator of the stub is called, and ran both phases successfully at least once: the model's valid
    # calls reach the kernels.
    from aclnn_py._optable import OPS

    covered = set()
    for line in proc.stdout.splitlines():
        if line.startswith("aclnnMoe"):
            ok1, ok2 = (int(x) for x in re.findall(r"\((\d+)\)", line))
            assert ok1 > 0 and ok2 > 0, line
            covered.add(line.split()[0])
    assert covered == {f"aclnn{op.name}" for op in OPS}


def test_replay_runs_one_sequence(fuzzer):
    proc = run(fuzzer, "--replay", "12345")
    assert_clean(proc)
    assert re.search(r"calls in 1 sequences", proc.stdout), proc.stdout


def test_bad_option_is_refused(fuzzer):
    proc = run(fuzzer, "--calls", "many")
    assert proc.returncode == 2
    assert "--calls needs a non-negative integer" in proc.stderr
