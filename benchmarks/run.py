"""aclnn-py benchmarks: one command, every table measured in one run.

    python benchmarks/run.py                 # the specification's big shapes (a few minutes)
    python benchmarks/run.py --quick         # small shapes, a smoke run (well under a minute)
    python benchmarks/run.py --plot gbps.png # also GB/s against the hidden size (needs matplotlib)
    python benchmarks/run.py --plot-calls calls.png  # the whole call against numpy and the kernel, per operator

Timings are medians of interleaved samples and every ratio compares numbers measured side by side in
this run; nothing is asserted about speed. The exit status is non-zero only when an implemented
operator fails or disagrees with its numpy reference.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make this package importable (aclnn_py stays the one installed)
    sys.path.append(str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import aclnn_py  # noqa: E402
from aclnn_py import acl  # noqa: E402

from benchmarks import client, kernels  # noqa: E402
from benchmarks.timing import fmt_ratio, fmt_time, ratio, table  # noqa: E402

PLOT_HIDDEN = (1024, 2048, 4096, 7168)
PLOT_HIDDEN_QUICK = (128, 256, 512)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small shapes and fewer samples (a CI smoke run)")
    p.add_argument("--plot", metavar="FILE.png", help="also plot GB/s against the hidden size (matplotlib)")
    p.add_argument("--plot-calls", metavar="FILE.png",
                   help="also plot the whole call against numpy and against the kernel, per operator (matplotlib)")
    p.add_argument("--ops", nargs="+", metavar="NAME",
                   help="operators to run (snake_case, aclnnXxx or Xxx; default: all)")
    p.add_argument("--dtypes", nargs="+", choices=kernels.FLOAT_DTYPES, help="float dtypes (default: all)")
    p.add_argument("--repeat", type=int, metavar="N",
                   help="samples per median (default 5; the whole calls, high-level, numpy and torch, "
                        "take min(N, 3) outside --quick: they are slow at the big shapes)")
    p.add_argument("--threads", type=int, metavar="N", help="stub kernel threads (default: the stub's own)")
    p.add_argument("--tokens", type=int, help="override the number of tokens")
    p.add_argument("--hidden", type=int, help="override the hidden size")
    p.add_argument("--topk", type=int, help="override topK")
    p.add_argument("--experts", type=int, help="override the number of experts")
    p.add_argument("--no-kernels", action="store_true", help="skip the kernel table")
    p.add_argument("--no-client", action="store_true", help="skip the client table")
    p.add_argument("--c-baseline", metavar="REV",
                   help="also time the C cycle against the stub of git revision REV of this repository, built in a "
                        "temporary directory (e.g. the last commit before the asynchronous runtime)")
    args = p.parse_args(argv)
    if args.repeat is not None and args.repeat < 1:
        p.error("--repeat must be >= 1")
    return args


def log(msg):
    print(f"  .. {msg}", file=sys.stderr, flush=True)


# ---- header -------------------------------------------------------------------------------------------

def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def kernel_threads():
    """The stub's kernel thread count (``aclStubSetNumThreads(0)`` returns it); None on real CANN."""
    if "aclStubSetNumThreads" in aclnn_py.backend().missing_symbols:
        return None
    return acl.aclStubSetNumThreads(0)


def print_header(args, shape, torch):
    be = aclnn_py.backend()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = kernel_threads()
    print("aclnn-py benchmarks")
    print(f"machine : {cpu_model()}, {os.cpu_count()} cores ({usable} usable), "
          f"load average {os.getloadavg()[0]:.2f} at start")
    print(f"python  : {platform.python_version()}, numpy {np.__version__}, "
          f"torch {torch.__version__ + f' ({torch.get_num_threads()} threads)' if torch else 'not installed'}")
    print(f"backend : {be.kind} ({be.reason}): {', '.join(Path(p).name for p in be.libraries)} "
          f"in {', '.join(sorted({str(Path(p).parent) for p in be.libraries}))}")
    print(f"threads : {threads if threads is not None else 'n/a (not the stub)'} kernel threads "
          f"(aclStubSetNumThreads(0))")
    print(f"shapes  : {shape}{'  (--quick)' if args.quick else ''}")
    print()


# ---- kernel table -------------------------------------------------------------------------------------

KERNEL_LEGEND = """\
Columns (medians; all variants of a row are interleaved in the same run):
  MB          bytes a perfect implementation must move, read + written, in 1e6 bytes (bytes model below)
  kernel ms   phase 2 only: aclnnXxx(...) + aclrtSynchronizeStream through the mirror layer, tensors
              created once, executor made repeatable (aclSetAclOpExecutorRepeatable), destroyed at the end
  GB/s        MB / kernel time
  memcpy GB/s np.copyto of a buffer of MB/2 bytes: it reads MB/2 and writes MB/2, so it moves the same
              MB; numpy copies with one thread
  %memcpy     kernel GB/s / memcpy GB/s
  hl ms       the whole high-level call aclnn_py.<op>(...): numpy in, both phases, numpy out (on the stub
              zero-copy: inputs and results lent to the device; elsewhere uploads and downloads)
  numpy ms    the whole numpy reference aclnn_py.reference.<op>(...) on the same inputs
  np/hl       numpy time / high-level time (above 1: the library call is faster)
  np/kern     numpy time / kernel time
  hl/kern     high-level time / kernel time (1 would be a call that costs nothing beyond its kernel)
  pool        hit rate of the client's memory pools over the timed high-level calls (device blocks; on the
              stub's zero-copy path, the host blocks of results of 1 MiB and more)
  torch ms    a straightforward torch CPU version (index_select + sum, sort, masked_select...);
              torch/kern = torch time / kernel time; n/a without torch
  check       kernel and high-level outputs bit-identical to the numpy reference"""


def run_kernels(args, ops, dts, shape, data, repeat, slow_repeat, torch):
    print("1. Kernels")
    print(KERNEL_LEGEND)
    print(f"samples: kernel, memcpy {repeat}; high-level, numpy, torch {slow_repeat}; each after one warm-up call; "
          f"a variant faster than {kernels.FAST_BUDGET * 1e3:.0f} ms / N gets more samples "
          f"(up to {kernels.MAX_SAMPLES}) so a single scheduler hiccup cannot decide its median")
    print()
    results = []
    for op in ops:
        for dt in dts:
            if dt not in kernels.op_dtypes(op):
                continue
            for variant in (None, *kernels.VARIANTS.get(op.py_name, ())):
                t0 = time.perf_counter()
                r = kernels.measure(op, dt, shape, data, repeat, slow_repeat, baselines=True, torch=torch,
                                    variant=variant)
                log(f"{r.op} {dt}: {r.status} ({time.perf_counter() - t0:.1f} s)")
                results.append(r)
                if r.status == "not implemented":
                    break  # the other variants would say the same
            if results[-1].status == "not implemented":
                break  # the other dtypes would say the same
    headers = ["operator", "dtype", "MB", "kernel ms", "GB/s", "memcpy GB/s", "%memcpy", "hl ms", "numpy ms",
               "np/hl", "np/kern", "hl/kern", "pool", "torch ms", "torch/kern", "check"]
    rows = []
    for r in results:
        if r.status != "ok":
            rows.append([r.op, "-", r.status] if r.status == "not implemented"
                        else [r.op, r.dtype, "ERROR (traceback below)"])
            continue
        rows.append([
            r.op, r.dtype, f"{r.bytes / 1e6:.0f}" if r.bytes >= 1e7 else f"{r.bytes / 1e6:.2f}",
            fmt_time(r.t("kernel")), f"{r.gbps:.2f}", f"{r.memcpy_gbps:.2f}",
            f"{100 * r.gbps / r.memcpy_gbps:.0f}%",
            fmt_time(r.t("high-level")), fmt_time(r.t("numpy")),
            fmt_ratio(ratio(r.t("numpy"), r.t("high-level"))), fmt_ratio(ratio(r.t("numpy"), r.t("kernel"))),
            fmt_ratio(ratio(r.t("high-level"), r.t("kernel"))),
            "n/a" if r.pool_hit_rate != r.pool_hit_rate else f"{100 * r.pool_hit_rate:.0f}%",
            fmt_time(r.t("torch")), fmt_ratio(ratio(r.t("torch"), r.t("kernel"))), r.check,
        ])
    print(table(headers, rows, "ll" + "r" * (len(headers) - 3) + "l"))
    print()
    print_targets(results)
    print("Bytes model (N tokens, H hidden, K topK, E experts, L = N*K; indices int32, routing map int8):")
    for op in ops:
        if op.py_name in kernels.BYTES_MODEL:
            print(f"  {op.py_name:42s} {kernels.BYTES_MODEL[op.py_name][0]}")
    for r in results:
        for note in r.notes:
            print(f"note: {r.op} {r.dtype}: {note}")
        if r.status == "not implemented":
            print(f"note: {r.op}: not implemented: {r.detail}")
        elif r.status == "error":
            print(f"\nERROR in {r.op} {r.dtype}:\n{r.detail}", file=sys.stderr)
    print()
    return results


# Targets of the whole call and the kernels: (label, value of a result, bound, True if the value must be >=).
TARGETS = (
    ("whole call vs numpy >= 2x", lambda r: ratio(r.t("numpy"), r.t("high-level")), 2.0, True),
    ("whole call / kernel <= 1.3x", lambda r: ratio(r.t("high-level"), r.t("kernel")), 1.3, False),
    ("fp32 kernel >= 80% of memcpy", lambda r: r.gbps / r.memcpy_gbps if r.dtype == "float32" else None, 0.8, True),
    ("16-bit kernel >= 60% of memcpy", lambda r: r.gbps / r.memcpy_gbps if r.dtype != "float32" else None, 0.6,
     True),
)


def print_targets(results):
    """Which rows meet each target, and by how much the others miss it."""
    ok = [r for r in results if r.status == "ok"]
    for label, value, bound, at_least in TARGETS:
        vals = [(r, value(r)) for r in ok]
        vals = [(r, v) for r, v in vals if v is not None and v == v]
        missed = [(r, v) for r, v in vals if (v < bound if at_least else v > bound)]
        line = f"target {label}: {len(vals) - len(missed)} of {len(vals)} rows"
        if missed:
            line += "; missed by " + ", ".join(f"{r.op} {r.dtype} ({v:.2f})" for r, v in missed)
        print(line)
    print()


def plot_calls(plt, path, results):
    """Per operator and dtype: the whole call's speed-up over numpy and its cost over the kernel alone."""
    from matplotlib import ticker

    ok = [r for r in results if r.status == "ok"]
    if not ok:
        print("  nothing to plot (no operator measured)")
        return
    labels = [f"{r.op.replace('moe_', '')} {r.dtype}" for r in ok]
    fig, axes = plt.subplots(1, 2, figsize=(13, 0.28 * len(ok) + 1.6), sharey=True)
    y = np.arange(len(ok))
    for ax, (title, key, bound) in zip(axes, (
            ("numpy time / whole-call time (higher is better)", lambda r: ratio(r.t("numpy"), r.t("high-level")), 2.0),
            ("whole-call time / kernel time (lower is better)", lambda r: ratio(r.t("high-level"), r.t("kernel")),
             1.3))):
        ax.barh(y, [key(r) for r in ok], color="tab:blue")
        ax.axvline(bound, color="tab:red", linestyle="--", label=f"target {bound:g}x")
        ax.axvline(1.0, color="k", linewidth=0.8)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_title(title, fontsize=10)
        ax.legend(loc="lower right", fontsize=8)
    axes[0].set_yticks(y, labels, fontsize=7)
    axes[0].invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"  plot written to {path}")


# ---- client table -------------------------------------------------------------------------------------

def run_client(args, samples, import_runs):
    print("2. Client overhead (aclnnMoeTokenPermuteGrad, 8 tokens, topK 2, hidden 16, float32)")
    print("""\
  (a) mirror cycle     3 aclCreateTensor + GetWorkspaceSize + aclnnMoeTokenPermuteGrad + 3 aclDestroyTensor
                       through aclnn_py.acl / aclnn_py.aclnn (shapes as Python lists, as a ported sample)
  (b) ctypes cycle     the same calls through ctypes on the same loaded libraries (argtypes set, statuses checked)
  (c) C cycle          the same calls in C, timed inside a program built with gcc: the floor
  (d) high-level call  aclnn_py.moe_token_permute_grad(grad, idx, 2): numpy in and out
      ctypes sequence  the same runtime and operator calls hand-written with ctypes: aclrtMalloc x3, aclrtMemcpy
                       H2D x2, aclCreateTensor x3, both phases, aclrtSynchronizeStream, aclrtMemcpy D2H,
                       aclDestroyTensor x3, aclrtFree x3 (fresh numpy result, like the high-level call)
  (e) import           wall time of a fresh `python -c ...`; the import's own time = minus `python -c pass`""")
    res = client.measure(samples, import_runs, progress=log, baseline=args.c_baseline)
    t = res.times
    names = [("(a) mirror cycle", "mirror cycle"), ("(b) ctypes cycle", "ctypes cycle"),
             ("(c) C cycle (floor)", "C cycle")]
    if "C cycle (baseline)" in t:
        names.append((f"(c) C cycle, stub of {args.c_baseline}", "C cycle (baseline)"))
    names += [("(d) high-level call", "high-level call"), ("(d) ctypes sequence", "ctypes sequence")]
    rows = [[name, fmt_time(t.get(key, float("nan")), "us"), str(res.samples.get(key, ""))] for name, key in names]
    start, imp_np, imp_acl = t["import python"], t["import numpy"], t["import aclnn_py"]
    numpy_own, added = imp_np - start, imp_acl - imp_np
    rows += [
        ["(e) python -c pass (start-up)", fmt_time(start, "us"), str(import_runs)],
        ["(e) python -c 'import numpy'", fmt_time(imp_np, "us"), str(import_runs)],
        ["(e) python -c 'import aclnn_py'", fmt_time(imp_acl, "us"), str(import_runs)],
    ]
    print()
    print(table(["measurement", "median us", "samples"], rows))
    print()
    ratios = [
        ["mirror vs ctypes cycle", fmt_ratio(ratio(t.get("ctypes cycle"), t.get("mirror cycle"))),
         "ctypes time / mirror time (above 1: the mirror is faster)", "target >= 4x"],
        ["mirror vs C floor", fmt_ratio(ratio(t.get("mirror cycle"), t.get("C cycle", float("nan")))),
         "mirror time / C time (what Python adds)", ""],
    ]
    if "C cycle (baseline)" in t:
        ratios.append(["C cycle vs baseline tree", fmt_ratio(ratio(t.get("C cycle"), t.get("C cycle (baseline)"))),
                       f"C time / C time with the stub of {args.c_baseline}", "target <= 1.5x"])
    ratios += [
        ["high-level vs ctypes sequence", fmt_ratio(ratio(t.get("high-level call"), t.get("ctypes sequence"))),
         "high-level time / ctypes time (at most 1: not slower)", "target <= 0.34x"],
        ["numpy's own import", fmt_time(numpy_own, "ms") + " ms", "(import numpy) - (start-up)", ""],
        ["import added by aclnn_py", fmt_time(added, "ms") + " ms", "(import aclnn_py) - (import numpy)", ""],
        ["import added vs numpy", fmt_ratio(ratio(added, numpy_own)), "added / numpy's own import time",
         "target <= 0.5x"],
    ]
    print(table(["ratio", "value", "definition", "target"], ratios, "lrll"))
    if res.import_breakdown:
        print("  largest self times among the modules aclnn_py imports beyond numpy (python -X importtime, one run): "
              + ", ".join(f"{name} {us / 1000:.1f} ms" for us, name in res.import_breakdown))
    for note in res.notes:
        print(f"note: {note}")
    print()
    return res


# ---- plot ---------------------------------------------------------------------------------------------

def require_matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise SystemExit("--plot needs matplotlib, an optional dependency: pip install 'aclnn-py[plot]'") from None
    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt
    return plt


def run_plot(plt, path, ops, dts, shape, data, repeat, hiddens):
    print(f"3. GB/s against the hidden size ({', '.join(map(str, hiddens))}), "
          f"tokens={shape.tokens}, topK={shape.topk}, experts={shape.experts} -> {path}")
    curves = kernels.sweep(ops, dts, shape, hiddens, data, repeat, progress=log)
    names = [op.py_name for op in ops if op.py_name in curves]
    if not names:
        print("  nothing to plot (no implemented operator selected)")
        return
    cols = min(4, len(names))
    rows_n = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(4.2 * cols, 3.4 * rows_n), squeeze=False, sharey=True)
    for ax, name in zip(axes.flat, names):
        memcpy = {}
        for dt, pts in curves[name].items():
            hs = [h for h, _, _ in pts]
            ax.plot(hs, [g for _, g, _ in pts], marker="o", label=dt)
            for h, _, m in pts:
                memcpy.setdefault(h, []).append(m)
        hs = sorted(memcpy)
        ax.plot(hs, [float(np.median(memcpy[h])) for h in hs], "k--", label="memcpy (same bytes)")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("hidden size")
        ax.set_xscale("log", base=2)
        ax.set_xticks(hs)
        ax.set_xticklabels([str(h) for h in hs])
        ax.grid(True, alpha=0.3)
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("GB/s")
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(f"aclnn-py kernels: GB/s vs hidden size ({cpu_model()}, {kernel_threads()} kernel threads)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print("  " + table(["operator", "dtype"] + [f"H={h} GB/s" for h in hiddens] + ["memcpy GB/s at max H"], [
        [name, dt] + [f"{g:.2f}" for _, g, _ in pts] + [""] * (len(hiddens) - len(pts)) + [f"{pts[-1][2]:.2f}"]
        for name in names for dt, pts in curves[name].items()]).replace("\n", "\n  "))
    print(f"  written: {path}")
    print()


# ---- main ---------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    args = parse_args(argv)
    plt = require_matplotlib() if args.plot or args.plot_calls else None  # fail before a long run, not after it
    base = kernels.QUICK if args.quick else kernels.BIG
    shape = kernels.Shape(args.tokens or base.tokens, args.hidden or base.hidden, args.topk or base.topk,
                          args.experts or base.experts)
    repeat = args.repeat or 5
    slow_repeat = repeat if args.quick else min(repeat, 3)
    ops = kernels.resolve_ops(args.ops)
    dts = tuple(args.dtypes or kernels.FLOAT_DTYPES)
    torch = kernels.torch_module()
    if args.threads is not None:
        if kernel_threads() is None:
            raise SystemExit("--threads: the loaded libraries are not the stub")
        acl.aclStubSetNumThreads(args.threads)
    print_header(args, shape, torch)
    data = kernels.Data()
    t0 = time.perf_counter()
    failed = False
    if not args.no_kernels:
        results = run_kernels(args, ops, dts, shape, data, repeat, slow_repeat, torch)
        failed = any(r.status == "error" or (r.check and r.check != "ok") for r in results)
        if args.plot_calls:
            plot_calls(plt, args.plot_calls, results)
    if not args.no_client:
        run_client(args, samples=7 if args.quick else 15, import_runs=5 if args.quick else 15)
    if args.plot:
        run_plot(plt, args.plot, ops, dts, shape, data, repeat, PLOT_HIDDEN_QUICK if args.quick else PLOT_HIDDEN)
    print(f"done in {time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.2f} at the end")
    if failed:
        print("FAILED: an implemented operator raised or disagreed with its numpy reference (see above)",
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
