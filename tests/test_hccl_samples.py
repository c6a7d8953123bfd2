"""The official HCCL samples' behaviour, with a program of ours (tests/c/hccl_samples.cpp) built with the samples'
own flags (-std=c++14 -Werror ... -lhccl -lascendcl): one thread per device, the root info from the main thread,
and the output lines the samples' READMEs document, for every sample (plus HcclCommInitAll)."""

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers_ops import _c_flags

SOURCE = Path(__file__).resolve().parent / "c" / "hccl_samples.cpp"
# The samples' Makefile flags, then the include and library directories of the stub.
SAMPLE_FLAGS = ["-std=c++14", "-Werror", "-fstack-protector-strong", "-fPIE", "-pie", "-O2", "-s", "-Wl,-z,relro",
                "-Wl,-z,now", "-Wl,-z,noexecstack", "-Wl,--copy-dt-needed-entries"]
N = 8  # the stub's device count, as on an Atlas 800 A2


def ramp(step=1):
    return [step * i for i in range(N)]


# mode -> {rank: the values it prints}; ranks absent print nothing
EXPECTED = {
    "send_recv": {r: [r - 1] * N for r in range(1, N, 2)},
    "batch_send_recv_ring": {r: [(r - 1) % N] * N for r in range(N)},
    "allreduce": {r: ramp(N) for r in range(N)},
    "initall": {r: ramp(N) for r in range(N)},
    "broadcast": {r: ramp() for r in range(N)},
    "allgather": {r: ramp() for r in range(N)},
    "reduce_scatter": {r: [N * r] for r in range(N)},
    "reduce": {r: ramp(N) if r == 0 else [0] * N for r in range(N)},
    "alltoall": {r: ramp() for r in range(N)},
    "alltoallv": {r: ramp() for r in range(N)},
    "alltoallvc": {r: ramp() for r in range(N)},
    "scatter": {r: [r] for r in range(N)},
}


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    cxx = os.environ.get("CXX", "g++")
    assert shutil.which(cxx), f"{cxx} is needed to build the sample program"
    exe = tmp_path_factory.mktemp("hccl") / "hccl_samples"
    flags = [f for f in _c_flags() if not f.startswith("-l")]  # -I, -L and the rpath; the samples' own -l below
    subprocess.run([cxx, *SAMPLE_FLAGS, str(SOURCE), *flags, "-lhccl", "-lascendcl", "-o", str(exe)], check=True)
    return exe


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_sample_output(program, mode):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_STUB_")}
    proc = subprocess.run([str(program), mode], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = [f"Found {N} NPU device(s) available"] + [
        f"rankId: {r}, output: [ {' '.join(str(v) for v in values)} ]" for r, values in sorted(EXPECTED[mode].items())]
    assert proc.stdout.splitlines() == expected
