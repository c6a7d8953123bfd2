"""Build the C fuzzer (tests/c/fuzz_api.c) with AddressSanitizer and UndefinedBehaviorSanitizer against the
sanitizer build of the stub, and run it. A long session is one command, options going to the fuzzer:

    python tests/fuzz_api.py --calls 5000000 --threads 4 --seed 7 --keep-going

The sanitizer build is ACLNN_PY_LIB_DIR when that is one (CI points it at build/asan), else build/asan under
the repository root, configured and brought up to date here with cmake (-DACLNN_STUB_SANITIZE=ON).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import aclnn_py

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "c" / "fuzz_api.c"
CC = os.environ.get("CC", "gcc")
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]


# The fuzzer calls the runtime, the meta API and the MoE operators, so it links (and, building the sanitizer stub
# itself, builds) only their libraries, not every operator family.
FUZZER_LIBRARIES = ("opapi_transformer", "ascendcl", "nnopbase")


def _is_sanitizer_build(lib_dir: Path) -> bool:
    lib = lib_dir / "libascendcl.so"
    return lib.is_file() and b"__asan_init" in lib.read_bytes()


def sanitizer_lib_dir() -> Path:
    """The directory of the stub libraries built with ASan+UBSan, building them when needed."""
    given = os.environ.get("ACLNN_PY_LIB_DIR")
    if given and _is_sanitizer_build(Path(given)):
        return Path(given)
    if not shutil.which("cmake"):
        raise RuntimeError("the C fuzzer needs the sanitizer build of the stub: cmake is not installed, and "
                           "ACLNN_PY_LIB_DIR does not name a sanitizer build")
    build = ROOT / "build" / "asan"
    # The libraries the fuzzer links (FUZZER_LIBRARIES): the runtime, the meta API and the MoE operators.
    for cmd in (["cmake", "-S", str(ROOT / "stubs"), "-B", str(build), "-DACLNN_STUB_SANITIZE=ON"],
                ["cmake", "--build", str(build), "-j2", "--target", *FUZZER_LIBRARIES]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"building the sanitizer stub failed: {shlex.join(cmd)}\n{proc.stdout}{proc.stderr}")
    if not _is_sanitizer_build(build):
        raise RuntimeError(f"{build} holds no sanitizer build of libascendcl.so")
    return build


def build_fuzzer(out: Path, lib_dir: Path) -> Path:
    """Compile the fuzzer warning-free with the official link line, pointed at lib_dir."""
    if not shutil.which(CC):
        raise RuntimeError(f"{CC} is needed to build the C fuzzer")
    flags = subprocess.run([sys.executable, "-m", "aclnn_py", "config", "--cflags", "--libs"], check=True,
                           capture_output=True, text=True).stdout
    flags = [f.replace(aclnn_py.get_lib_dir(), str(lib_dir)) for f in shlex.split(flags)
             if not f.startswith("-l") or f[2:] in FUZZER_LIBRARIES + ("pthread",)]
    cmd = [CC, "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O1", "-g", *SANITIZE, str(SOURCE), *flags, "-ldl",
           "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"building the fuzzer failed: {shlex.join(cmd)}\n{proc.stderr}")
    return out


def fuzz_env(reuse: bool = True) -> dict:
    """Sanitizer settings for a run: stop at the first report, leaks included. With reuse, freed memory is
    handed out again at once (no quarantine), as a plain allocator does: a destroyed handle then shares its
    address with a new object, which is what finds handles whose identity is their address. Without it,
    ASan holds freed memory back and reports any later use of it."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # the fuzzer links its own runtimes
    env["ASAN_OPTIONS"] = "detect_leaks=1:halt_on_error=1" + (
        ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0" if reuse else "")
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    return env


def main(argv: list[str]) -> int:
    exe = ROOT / "build" / "fuzz_api"
    exe.parent.mkdir(parents=True, exist_ok=True)
    build_fuzzer(exe, sanitizer_lib_dir())
    args = argv or ["--calls", "2000000", "--keep-going"]
    print(shlex.join([str(exe), *args]), flush=True)
    return subprocess.run([str(exe), *args], env=fuzz_env()).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
