"""What check mode costs, measured side by side in one run:

    python benchmarks/check_overhead.py [--base REF] [--iterations N] [--rounds R]

- off: the stub built from REF (default: the commit before check mode was added) against the stub of this
  tree with check mode off, on a copy + operator + synchronise loop (benchmarks/check_overhead.c); the
  ratio is the cost of the hooks' branches when nothing is checked;
- on: the same loop with ACLNN_CHECK=all (and each tool alone), and one official-style sample run as a
  whole process under ``python -m aclnn_py check`` against a plain run.

Both stubs are built here with the same compiler and flags; variants run in interleaved rounds and the
figures are medians. Nothing is asserted about speed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.append(str(Path(__file__).resolve().parent.parent))

from benchmarks.timing import median  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LINK = ["-lopapi", "-lopapi_transformer", "-lascendcl", "-lnnopbase", "-lpthread", "-lhccl"]


def git(*args) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def default_base() -> str:
    first = git("log", "--format=%H", "--diff-filter=A", "--", "stubs/check/check.h").splitlines()[-1]
    return first + "~1"


def build_stub(source: Path, build: Path) -> Path:
    subprocess.run(["cmake", "-S", str(source / "stubs"), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build), "-j2"], check=True, capture_output=True)
    return build


def build_program(source: Path, include: Path, libdir: Path, out: Path) -> Path:
    subprocess.run(["g++" if source.suffix == ".cpp" else "gcc", "-O2", str(source), "-I", str(include), "-I",
                    str(include / "aclnn"), "-L", str(libdir), f"-Wl,-rpath,{libdir}", *LINK, "-o", str(out)],
                   check=True)
    return out


def _one_cpu():
    """Run the loop on one CPU: its threads then take turns instead of racing to run the queued work, so
    the figures measure the work done rather than the machine's wake-up latencies."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})


def ns_per_iteration(exe: Path, iterations: int, env: dict) -> tuple[float, float]:
    """(wall, calling thread's CPU) nanoseconds per iteration."""
    out = subprocess.run([str(exe), str(iterations)], check=True, capture_output=True, text=True, env=env,
                         preexec_fn=_one_cpu).stdout
    wall, cpu = out.split()[-2:]
    return float(wall), float(cpu)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", help="git revision of the stub without check mode (default: before check mode)")
    p.add_argument("--iterations", type=int, default=2000, help="loop iterations per batch (default 2000)")
    p.add_argument("--rounds", type=int, default=15, help="interleaved rounds (default 15)")
    args = p.parse_args(argv)
    base = args.base or default_base()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_CHECK")}
    with tempfile.TemporaryDirectory(prefix="check-overhead-") as tmp:
        tmp = Path(tmp)
        old_src = tmp / "base"
        old_src.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", base, "stubs", "native/include"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old_src)], input=archive, check=True)
        print(f"building the stub at {git('rev-parse', '--short', base)} and at this tree ...", flush=True)
        old_lib = build_stub(old_src, tmp / "build-base")
        new_lib = build_stub(ROOT, tmp / "build-now")
        loop = ROOT / "benchmarks" / "check_overhead.c"
        exe_old = build_program(loop, ROOT / "native" / "include", old_lib, tmp / "loop-base")
        exe_new = build_program(loop, ROOT / "native" / "include", new_lib, tmp / "loop-now")
        variants = {
            "base (no check mode)": (exe_old, {}),
            "check mode off": (exe_new, {}),
            "ACLNN_CHECK=memcheck": (exe_new, {"ACLNN_CHECK": "memcheck"}),
            "ACLNN_CHECK=initcheck": (exe_new, {"ACLNN_CHECK": "initcheck"}),
            "ACLNN_CHECK=synccheck": (exe_new, {"ACLNN_CHECK": "synccheck"}),
            "ACLNN_CHECK=leakcheck": (exe_new, {"ACLNN_CHECK": "leakcheck"}),
            "ACLNN_CHECK=all": (exe_new, {"ACLNN_CHECK": "all"}),
        }
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        names = list(variants)
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[: r % len(names)]:
                exe, extra = variants[name]
                samples[name].append(ns_per_iteration(exe, args.iterations, {**env, **extra}))
        def medians(name):
            return median([w for w, _ in samples[name]]), median([c for _, c in samples[name]])

        base_wall, base_cpu = medians(names[0])
        print(f"\ncopy + aclnnMoeTokenPermute + synchronise + copy back, {args.iterations} iterations x 9 batches, "
              f"{args.rounds} interleaved rounds, one CPU (medians; CPU: the calling thread's)")
        print(f"{'variant':<26} {'wall ns/it':>11} {'vs base':>8} {'CPU ns/it':>10} {'vs base':>8}")
        for name in names:
            wall, cpu = medians(name)
            print(f"{name:<26} {wall:>11.0f} {wall / base_wall:>7.3f}x {cpu:>10.0f} {cpu / base_cpu:>7.3f}x")

        sample = ROOT / "examples" / "c" / "test_aclnn_moe_token_permute.cpp"
        exe = build_program(sample, ROOT / "native" / "include", new_lib, tmp / "sample")
        report = tmp / "report.%p.json"
        runs = {
            "plain": ([str(exe)], env),
            "ACLNN_CHECK=all": ([str(exe)], dict(env, ACLNN_CHECK="all", ACLNN_CHECK_REPORT=str(report))),
            "python -m aclnn_py check": ([sys.executable, "-m", "aclnn_py", "check", "--", str(exe)],
                                         dict(env, PYTHONPATH=str(ROOT))),
        }
        walls: dict[str, list[float]] = {name: [] for name in runs}
        order = list(runs)
        for r in range(args.rounds):
            for name in order[r % len(order):] + order[: r % len(order)]:
                cmd, e = runs[name]
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True, env=e)
                walls[name].append(time.perf_counter() - t0)
        print(f"\n{sample.name} as a whole process (wall, medians):")
        for name in order:
            print(f"  {name:<26} {median(walls[name]) * 1e3:8.1f} ms")
        print("  (the CLI's figure includes its Python start-up, the report and addr2line)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
