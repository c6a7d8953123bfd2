"""Collectives on the stub, reported the way nccl-tests reports them: per operation and size, the time of one
operation (the slowest rank's average), the algorithm bandwidth (size / time) and the bus bandwidth (algbw times the
operation's factor: 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 otherwise),
and the number of wrong result elements. A single-thread memcpy of the same bytes is timed in the same run, in
interleaved rounds, and every figure is a median over the rounds.

    python benchmarks/hccl.py                      # 8 ranks as threads of one process, 1 KiB to 64 MiB
    python benchmarks/hccl.py --procs --ranks 4    # ranks as processes (data through shared memory)
    python benchmarks/hccl.py --ops allreduce --min 64M --max 64M --rounds 7

The last lines compare all-reduce with memcpy at the largest size: the bus bandwidth against memcpy's bandwidth, and
the memory traffic (a rank of one process reads every rank's input and writes every rank's output: n times the size
read and n times written, where a memcpy reads and writes the size once) against memcpy's. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
OPS = ("allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "alltoallv", "sendrecv")
BUS_FACTOR = {"allreduce": lambda n: 2 * (n - 1) / n, "allgather": lambda n: (n - 1) / n,
              "reducescatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
              "alltoallv": lambda n: (n - 1) / n}


def size_arg(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def build(out: Path) -> Path:
    import aclnn_py

    lib = os.environ.get("ACLNN_PY_LIB_DIR") or aclnn_py.get_lib_dir()
    exe = out / "hccl_bench"
    subprocess.run(["gcc", "-O2", "-std=gnu11", str(ROOT / "hccl_bench.c"), "-I", aclnn_py.get_include(), "-L", lib,
                    f"-Wl,-rpath,{lib}", "-lhccl", "-lascendcl", "-lpthread", "-o", str(exe)], check=True)
    return exe


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--procs", action="store_true", help="one process per rank (default: threads of one process)")
    p.add_argument("--ops", default=",".join(OPS), help=f"comma-separated, from {', '.join(OPS)}")
    p.add_argument("--min", type=size_arg, default=1 << 10, help="smallest size (bytes, or 1K, 4M...)")
    p.add_argument("--max", type=size_arg, default=64 << 20, help="largest size")
    p.add_argument("--iters", type=int, default=20, help="operations timed per round (a quarter from 16 MiB)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians are reported)")
    args = p.parse_args(argv)
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    if args.ranks > 8:
        env.setdefault("ACLNN_STUB_DEVICE_COUNT", str(args.ranks))
    mode = "procs" if args.procs else "threads"
    results: dict[tuple[str, int], list[tuple[float, float, int, int]]] = {}
    with tempfile.TemporaryDirectory(prefix="hccl-bench-") as tmp:
        exe = build(Path(tmp))
        for op in args.ops.split(","):
            proc = subprocess.run([str(exe), str(args.ranks), mode, op, str(args.min), str(args.max), str(args.iters),
                                   str(args.rounds)], capture_output=True, text=True, env=env, timeout=3600)
            if proc.returncode != 0:
                print(proc.stdout + proc.stderr, file=sys.stderr)
                return 1
            for line in proc.stdout.splitlines():
                name, size, count, t, mt, wrong = line.split()
                results.setdefault((name, int(size)), []).append((float(t), float(mt), int(wrong), int(count)))
    n = args.ranks
    print(f"# {n} ranks as {'processes' if args.procs else 'threads of one process'}; float32; medians of "
          f"{args.rounds} rounds")
    print(f"# {'size':>12} {'count':>12} {'type':>6} {'redop':>6} {'root':>5} {'time':>10} {'algbw':>7} {'busbw':>7} "
          f"{'#wrong':>6} {'memcpy':>10} {'memcpy':>7}")
    print(f"# {'(B)':>12} {'(elements)':>12} {'':>6} {'':>6} {'':>5} {'(us)':>10} {'(GB/s)':>7} {'(GB/s)':>7} "
          f"{'':>6} {'(us)':>10} {'(GB/s)':>7}")
    summary = {}
    for op in args.ops.split(","):
        print(f"# {op}")
        for (name, size), rows in sorted(results.items()):
            if name != op:
                continue
            t = statistics.median(r[0] for r in rows)
            mt = statistics.median(r[1] for r in rows)
            wrong = max(r[2] for r in rows)
            algbw = size / t / 1e3
            busbw = algbw * BUS_FACTOR.get(op, lambda n: 1.0)(n)
            redop = "sum" if op in ("allreduce", "reducescatter", "reduce") else "none"
            root = 0 if op in ("broadcast", "reduce") else -1
            print(f"  {size:>12} {rows[0][3]:>12} {'float':>6} {redop:>6} {root:>5} {t:>10.1f} {algbw:>7.2f} "
                  f"{busbw:>7.2f} {wrong:>6} {mt:>10.1f} {size / mt / 1e3:>7.2f}")
            summary[(op, size)] = (t, mt, busbw)
    ar = [k for k in summary if k[0] == "allreduce"]
    if ar:
        size = max(s for _, s in ar)
        t, mt, busbw = summary[("allreduce", size)]
        memcpy_bw = size / mt / 1e3
        print(f"# all-reduce of {size >> 20} MiB float32 across {n} ranks: bus bandwidth {busbw:.2f} GB/s, memcpy of "
              f"the same bytes {memcpy_bw:.2f} GB/s: ratio {busbw / memcpy_bw:.2f}")
        if not args.procs:
            traffic = 2 * n * size / t / 1e3  # every rank's input read once, every rank's output written once
            print(f"# memory traffic of that all-reduce ({n} inputs read and {n} outputs written): {traffic:.2f} GB/s "
                  f"against memcpy's {2 * memcpy_bw:.2f} GB/s (read and write): ratio {traffic / (2 * memcpy_bw):.2f}; "
                  f"the bus-bandwidth ratio of an all-reduce moving data at memcpy's speed would be "
                  f"{BUS_FACTOR['allreduce'](n) / n:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
