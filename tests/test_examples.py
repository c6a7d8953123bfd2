"""The Python examples run to completion: each ported sample checks its own results (and the two API
layers against each other), and the expert-parallel example checks its sharded results against the
unsharded ones."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_py._optable import OPS

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(script: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.setdefault("ACLNN_PY_BACKEND", "stub")
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env,
                          timeout=300)


@pytest.mark.parametrize("op", [op.py_name for op in OPS])
def test_ported_sample_runs(op):
    result = run(EXAMPLES / f"{op}.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip(), "the sample prints its results"


def test_expert_parallel_across_processes_equals_one_device():
    result = run(EXAMPLES / "expert_parallel.py", "--ranks", "3", "--tokens", "64", "--hidden", "16",
                 "--experts", "6", "--topk", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert sum(line.startswith("ok ") for line in lines) == 3, result.stdout
    assert any("the ranks' outputs = the layer on one device" in line for line in lines), result.stdout
    assert not any(line.startswith("FAIL") for line in lines)
    assert sum(1 for line in lines if line.strip()[:1].isdigit()) >= 3  # one row per rank


def test_moe_layer_matches_its_reference_and_reports_errors_beyond_tolerance():
    small = ("--tokens", "48", "--hidden", "16", "--ffn", "24", "--experts", "4", "--topk", "2")
    result = run(EXAMPLES / "moe_layer.py", *small)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("indices ")]
    assert len(rows) == 1 and "FAIL" not in rows[0], result.stdout
    assert float(rows[0][1]) <= 1e-4  # the largest relative error over the output and every gradient
    # float32 against the float64 reference is never exact: a zero tolerance must fail with exit status 1
    strict = run(EXAMPLES / "moe_layer.py", *small, "--tolerance", "0")
    assert strict.returncode == 1 and "FAIL" in strict.stdout, strict.stdout + strict.stderr


@pytest.fixture(scope="module")
def moe_layer_run():
    return run(EXAMPLES / "moe_layer.py", "--tokens", "40", "--hidden", "12", "--ffn", "20", "--experts", "5",
               "--topk", "3")


@pytest.mark.parametrize("variant", ["indices", "routing_map", "ep", "init_routing"])
def test_every_moe_layer_variant_matches_its_reference(moe_layer_run, variant):
    # each dispatch pair (and its grads) -> experts -> combine, against the float64 reference of the layer
    result = moe_layer_run
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith(variant + " ")]
    assert len(rows) == 1 and "FAIL" not in rows[0], result.stdout
    assert float(rows[0][1]) <= 1e-4
