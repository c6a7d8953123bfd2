"""The official-style C++ samples compile with the official link line against our headers and the
libraries in use (the bundled stub, or ACLNN_PY_LIB_DIR such as a sanitizer build), run, and print
exactly what the specification says a correct device prints."""

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import aclnn_py

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "examples" / "c").glob("test_aclnn_*.cpp"))
EXPECTED = Path(__file__).resolve().parent / "expected"
CXX = os.environ.get("CXX", "g++")


def lib_dir() -> str:
    return os.environ.get("ACLNN_PY_LIB_DIR") or aclnn_py.get_lib_dir()


def config_flags() -> list[str]:
    out = subprocess.run([sys.executable, "-m", "aclnn_py", "config", "--cflags", "--libs"], check=True,
                         capture_output=True, text=True).stdout
    flags = shlex.split(out)
    if os.environ.get("ACLNN_PY_LIB_DIR"):  # link and run against the libraries under test
        stub = aclnn_py.get_lib_dir()
        flags = [f.replace(stub, lib_dir()) for f in flags]
    return flags


def test_every_operator_has_a_sample():
    from aclnn_py._optable import OPS

    names = {p.stem for p in SAMPLES}
    assert {f"test_aclnn_{op.py_name}" for op in OPS} <= names


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_prints_the_spec_output(sample, tmp_path):
    assert shutil.which(CXX), f"{CXX} is needed to build the C++ samples"
    exe = tmp_path / sample.stem
    subprocess.run([CXX, str(sample), "-o", str(exe), *config_flags()], check=True)
    env = dict(os.environ)
    result = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = (EXPECTED / f"{sample.stem}.txt").read_text()
    assert result.stdout == expected


def test_official_link_line_without_rpath(tmp_path):
    """The unmodified build.sh command line: -I/-L flags only, libraries found through LD_LIBRARY_PATH."""
    sample = ROOT / "examples" / "c" / "test_aclnn_moe_token_permute_grad.cpp"
    inc = aclnn_py.get_include()
    exe = tmp_path / "sample"
    subprocess.run([CXX, str(sample), "-I", inc, "-I", f"{inc}/aclnn", "-L", lib_dir(), "-lopapi",
                    "-lopapi_transformer", "-lascendcl", "-lnnopbase", "-lpthread", "-lhccl", "-o", str(exe)],
                   check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir())
    result = subprocess.run([str(exe)], capture_output=True, text=True, env=env)
    assert result.returncode == 0
    assert result.stdout == (EXPECTED / "test_aclnn_moe_token_permute_grad.txt").read_text()


# One sample per repository, built with that repository's official line (its scripts' -I/-L flags and libraries, no
# rpath), the libraries found through LD_LIBRARY_PATH: (sample, libraries, expected output).
OFFICIAL_LINES = [
    ("math/test_aclnn_add.cpp", ["-lopapi_math", "-lascendcl", "-lnnopbase"], "test_aclnn_add.txt"),
    ("nn/test_aclnn_relu.cpp", ["-lopapi_nn", "-lopapi_math", "-lascendcl", "-lnnopbase"], "test_aclnn_relu.txt"),
    ("nn/test_aclnn_relu.cpp", ["-lopapi_nn", "-lopapi_math", "-lacl_rt", "-lnnopbase"], "test_aclnn_relu.txt"),
    ("cv/test_aclnn_upsample_nearest2d.cpp", ["-lopapi_cv", "-lascendcl", "-lnnopbase"],
     "test_aclnn_upsample_nearest2d.txt"),
]


@pytest.mark.parametrize("sample, libs, expected", OFFICIAL_LINES,
                         ids=[f"{s}:{' '.join(l)}" for s, l, _ in OFFICIAL_LINES])
def test_repository_link_lines(sample, libs, expected, tmp_path):
    """ops-math's, ops-nn's (with -lascendcl and with the newer -lacl_rt) and ops-cv's official lines build our
    sample of an operator of that repository unchanged, and it prints the expected values."""
    inc = aclnn_py.get_include()
    exe = tmp_path / "sample"
    subprocess.run([CXX, str(ROOT / "examples" / "c" / sample), "-I", inc, "-I", f"{inc}/aclnnop", "-L", lib_dir(),
                    *libs, "-o", str(exe)], check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir())
    result = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == (EXPECTED / expected).read_text()


def test_outputs_read_back_from_the_padding(tmp_path):
    """A sample that allocates each buffer at its tensor's size but copies the official sample's float sizes (64
    bytes out of a 32-byte BF16 output) prints the official sample's output, as on a device."""
    source = ROOT / "tests" / "c" / "padded_outputs_permute_with_ep.cpp"
    exe = tmp_path / source.stem
    subprocess.run([CXX, str(source), "-o", str(exe), *config_flags()], check=True)
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == (EXPECTED / "test_aclnn_moe_token_permute_with_ep.txt").read_text()
