"""A bounded run of the Python fuzzer (tests/fuzz_mirror.py), each sequence in its own interpreter so a crash
is a failed test rather than a dead test session. A longer run is one command (see the fuzzer's docstring)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers_proc import PACKAGE_PARENT, child_env

FUZZER = Path(__file__).resolve().parent / "fuzz_mirror.py"

# (seed, calls, threads): 5,000 calls in all, seeded, so a failure is reproducible with the same arguments.
RUNS = [(1, 2000, 1), (2, 1500, 1), (3, 1500, 3)]


@pytest.mark.leaks_ok  # the child process checks its own live counters
@pytest.mark.parametrize("seed, calls, threads", RUNS)
def test_fuzz_mirror_bounded_run(seed, calls, threads):
    # Under the sanitizer job the libraries come from ACLNN_PY_LIB_DIR; keep it for the child.
    env = {"ACLNN_PY_BACKEND": "stub"}
    if os.environ.get("ACLNN_PY_LIB_DIR"):
        env["ACLNN_PY_LIB_DIR"] = os.environ["ACLNN_PY_LIB_DIR"]
    cmd = [sys.executable, str(FUZZER), "--seed", str(seed), "--calls", str(calls), "--threads", str(threads)]
    proc = subprocess.run(cmd, env=child_env(env), cwd=PACKAGE_PARENT, capture_output=True, text=True, timeout=300)
    detail = f"{' '.join(cmd[1:])} exited with {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    assert proc.returncode == 0, detail
    assert f"OK seed {seed}: {calls // threads * threads} calls" in proc.stdout, detail
