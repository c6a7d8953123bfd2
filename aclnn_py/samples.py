"""``python -m aclnn_py samples DIR``: build every official sample of a hicann operator repository checkout
unchanged, with that repository's official include and link line against the stub, run each, and report.

The samples are the ``examples/**/test_aclnn_*.cpp`` files under DIR, outside its top-level ``experimental/`` and
``scripts/`` (the operator generator's templates).
Each is compiled alone (``g++ -c``, the compiler's default standard, as the official scripts do) with the
repository's ``-I`` line applied to our include tree first and, after it, to a directory holding the
checkout's own operator headers (``**/op_api/aclnn_*.h`` first), so a sample of an operator we do not ship
still compiles when its header allows; then linked with the repository's official ``-L``/``-l`` line against
the stub libraries, and run with them on ``LD_LIBRARY_PATH`` (optionally in check mode).

Results, one per sample:

- ``ok``: built, ran, exited with 0 (and, in check mode, no finding);
- ``failed`` / ``timeout`` / ``findings``: built, and the run exited non-zero or was killed, did not finish in
  time, or had check-mode findings;
- ``not exported``: the sample calls an operator the libraries on its link line do not export (its header is
  not ours and is missing or does not compile alone, or the link leaves ``aclnn*`` entry points undefined);
- ``compile error`` / ``link error``: a real failure: a header of ours, the sample's own code, or a symbol our
  headers declare (runtime, tensor API) that the libraries lack.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ._elf import dynamic_exports
from ._repos import REPOS, Repo, include_flags, lib_flags, repo_for

SAMPLE_PATTERN = re.compile(r"(^|/)examples/(.*/)?test_aclnn_[^/]*\.cpp$")
OP_HEADER_PATTERN = re.compile(r"^aclnn_[^/]*\.h$")
# Top-level folders that hold no operator's samples: experimental operators, build output, and scripts/ (the
# operator generator's templates).
SKIPPED_TOP = {"experimental", "build", "build_out", "output", "scripts"}
INCLUDE_LINE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
MISSING_HEADER = re.compile(r"^(?P<file>[^:\n]+):\d+:\d+: fatal error: (?P<header>[^:\n]+): No such file or directory",
                            re.M)
FIRST_ERROR = re.compile(r"^(?P<file>[^:\n]+):\d+:\d+: (?:fatal )?error: (?P<msg>.*)$", re.M)
UNDEFINED = re.compile(r"undefined reference to [`'](?P<sym>[^'`]+)'")
CANNOT_FIND = re.compile(r"cannot find (?P<lib>-l\S+)")
DECLARED = re.compile(r"\b(acl[A-Za-z0-9_]+)\s*\(")

STATUSES = ("ok", "failed", "timeout", "findings", "not exported", "compile error", "link error")
FAILURES = ("failed", "timeout", "findings", "compile error", "link error")


@dataclass
class Sample:
    path: str  # relative to DIR
    folder: str  # its top-level folder (math, conversion, moe...)
    name: str  # file stem
    built: bool = False
    ran: bool = False
    exit_status: int | None = None  # negative: killed by that signal
    findings: int | None = None  # check mode only
    status: str = ""
    reason: str = ""
    operators: list[str] = field(default_factory=list)  # not exported
    output: str = ""  # the end of the run's output, on failure
    check: list[dict] = field(default_factory=list)  # check mode's findings

    @property
    def operator_dir(self) -> str:
        parts = self.path.split("/")[:-1]
        cut = len(parts) - 1 - parts[::-1].index("examples") if "examples" in parts else len(parts)
        return "/".join(parts[:cut]) or self.folder


def discover(root: Path) -> list[Sample]:
    """Every sample under root (outside the top-level experimental/ and build output), sorted by path."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        top = rel == Path(".")
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not (top and d in SKIPPED_TOP))
        for f in filenames:
            path = (rel / f).as_posix()
            if SAMPLE_PATTERN.search(path):
                found.append(Sample(path, path.split("/", 1)[0] if "/" in path else ".", Path(f).stem))
    return sorted(found, key=lambda s: s.path)


def vendor_headers(root: Path, include_dir: Path, ours: set[str], dest: Path) -> Path:
    """dest/aclnnop/ holding one link to each operator header of the checkout whose name we do not ship
    (``op_api/`` ones first, then others, experimental/ last), and our aclnn_util.h, which official operator
    headers include from their own directory. Returns dest."""
    out = dest / "aclnnop"
    out.mkdir(parents=True, exist_ok=True)
    candidates = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for f in filenames:
            if OP_HEADER_PATTERN.match(f) and f not in ours:
                p = Path(dirpath) / f
                rel = p.relative_to(root).as_posix()
                candidates.append((rel.startswith("experimental/"), "/op_api/" not in f"/{rel}", rel, p))
    for _, _, _, p in sorted(candidates):
        target = out / p.name
        if not target.exists():
            _link(p, target)
    util = include_dir / "aclnnop" / "aclnn_util.h"
    if util.exists():
        _link(util, out / util.name)
    return dest


def _link(src: Path, dest: Path) -> None:
    try:
        dest.symlink_to(src.resolve())
    except OSError:
        shutil.copyfile(src, dest)


@dataclass
class Setup:
    """Everything the workers share."""

    root: Path
    repo: Repo
    include_dir: Path
    lib_dir: Path
    work: Path
    cxx: str
    acl_rt: bool
    timeout: float
    check: str | None
    ours: set[str]  # operator header names we ship
    declared: set[str]  # acl* functions our non-operator headers declare
    exports: dict[str, set[str]]  # library file name -> its exports

    @property
    def include(self) -> list[str]:
        vendor = str(self.work / "vendor")
        return include_flags(str(self.include_dir), self.repo.include) + include_flags(vendor, self.repo.include)

    @property
    def libs(self) -> list[str]:
        return lib_flags(str(self.lib_dir), self.repo.link_libs(self.acl_rt), rpath=False)

    def exporters(self, symbol: str) -> list[str]:
        return sorted(name for name, syms in self.exports.items() if symbol in syms)


def _first_error(stderr: str) -> tuple[str, str]:
    """(file, message) of the first error."""
    m = FIRST_ERROR.search(stderr)
    if not m:
        lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
        return "", lines[-1] if lines else "unknown error"
    return m.group("file"), re.sub(r"\s+", " ", m.group("msg")).strip()


def _is_op_header(header: str) -> bool:
    """An operator's header: aclnn_*.h, or any header under aclnnop/."""
    return bool(OP_HEADER_PATTERN.match(Path(header).name)) or header.startswith("aclnnop/")


def _op_name(symbol: str) -> str:
    return symbol[: -len("GetWorkspaceSize")] if symbol.endswith("GetWorkspaceSize") else symbol


def _tail(text: str, lines: int = 6) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


COMPILE_TIMEOUT = 600.0  # seconds a compile or link may take before it counts as failed

_live: set[subprocess.Popen] = set()  # running children, killed when the command is interrupted
_live_lock = threading.Lock()
_stopping = threading.Event()  # set on interruption: no new child starts


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _run(argv, cwd, env=None, timeout=None) -> tuple[int | None, str]:
    """(exit status, or None on timeout; stdout and stderr together). The process and its children are killed
    on timeout."""
    with _live_lock:
        if _stopping.is_set():
            raise RuntimeError("interrupted")
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        _live.add(proc)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        _kill(proc)
        out, _ = proc.communicate()
        return None, out.decode(errors="replace")
    finally:
        with _live_lock:
            _live.discard(proc)


def _compile(argv, cwd) -> tuple[int, str]:
    code, out = _run(argv, cwd, timeout=COMPILE_TIMEOUT)
    return (1, out + f"\nerror: {Path(argv[0]).name} did not finish in {COMPILE_TIMEOUT:g} s") if code is None \
        else (code, out)


def _compile_failed(sample: Sample, out: str, foreign: list[str], setup: Setup) -> None:
    """Classify a failed compile: an operator header we do not ship (missing, or not compiling alone) makes the
    operator "not exported"; anything else is a compile error."""
    missing = MISSING_HEADER.search(out)
    header = missing.group("header") if missing else ""
    origin, message = _first_error(out)
    if missing and _is_op_header(header) and Path(header).name not in setup.ours:
        sample.status, sample.reason = "not exported", f"no header {header} (ours or the checkout's)"
        sample.operators = [Path(header).name]
    elif foreign and str(setup.work / "vendor") in origin:
        sample.status = "not exported"
        sample.reason = f"the checkout's {Path(origin).name} does not compile alone: {message}"
        sample.operators = foreign
    else:
        where = "sample" if origin.endswith(".cpp") else Path(origin).name
        sample.status, sample.reason = "compile error", f"{message} [{where}]" if origin else message
        sample.output = _tail(out)


def _link_failed(sample: Sample, out: str, setup: Setup) -> None:
    """Classify a failed link: only aclnn* symbols our non-operator headers do not declare undefined makes the
    operators "not exported"; anything else (a runtime or tensor API symbol, a missing library) is a link
    error."""
    undefined = sorted(set(UNDEFINED.findall(out)))
    cannot = sorted(set(CANNOT_FIND.findall(out)))
    ops = [s for s in undefined if s.startswith("aclnn") and s not in setup.declared]
    gaps = [s for s in undefined if s not in ops]
    sample.operators = sorted({_op_name(s) for s in ops})
    if ops and not gaps and not cannot:
        where = sorted({lib for s in ops for lib in setup.exporters(s)})
        sample.status = "not exported"
        sample.reason = ", ".join(sample.operators) + (
            f" (exported by {', '.join(where)}, not on this link line)" if where else "")
    else:
        parts = [f"cannot find {', '.join(cannot)}"] if cannot else []
        parts += [f"undefined {', '.join(gaps)}"] if gaps else []
        parts += [f"operator not exported: {', '.join(sample.operators)}"] if ops else []
        sample.status, sample.reason = "link error", "; ".join(parts) or _first_error(out)[1]
        sample.output = _tail(out)


def _run_sample(sample: Sample, exe: Path, work: Path, setup: Setup) -> None:
    """Run a built sample (libraries found through LD_LIBRARY_PATH, as the official line leaves them) and
    record how it ended."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACLNN_CHECK")}
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(setup.lib_dir), env.get("LD_LIBRARY_PATH")]))
    if setup.check:
        env["ACLNN_CHECK"] = setup.check
        env["ACLNN_CHECK_REPORT"] = str(work / "check.%p.json")
    code, out = _run([str(exe)], cwd=work, env=env, timeout=setup.timeout)
    sample.ran, sample.exit_status = code is not None, code
    if setup.check:
        from .check import findings_from_reports

        found = findings_from_reports([json.loads(p.read_text()) for p in sorted(work.glob("check.*.json"))])
        sample.findings, sample.check = len(found), [f.to_dict() for f in found]
    if code is None:
        sample.status, sample.reason = "timeout", f"did not finish in {setup.timeout:g} s (killed)"
    elif code != 0:
        last = next((ln.strip() for ln in reversed(out.splitlines()) if ln.strip()), "")
        how = f"killed by {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() else \
            f"exit status {code}"
        sample.status, sample.reason = "failed", how + (f": {last}" if last else "")
    elif sample.findings:
        sample.status = "findings"
        sample.reason = "; ".join(sorted({f"[{f['tool']}] {f['what']} in {f['call']}" for f in sample.check}))
    else:
        sample.status = "ok"
    if sample.status != "ok":
        sample.output = _tail(out)


def build_and_run(sample: Sample, index: int, setup: Setup) -> Sample:
    """Compile, link and run one sample in a directory of its own, and record the outcome in sample."""
    source = setup.root / sample.path
    work = setup.work / f"{index:05d}"
    work.mkdir()
    obj, exe = work / "sample.o", work / sample.name
    foreign = sorted({Path(h).name for h in INCLUDE_LINE.findall(source.read_text(errors="replace"))
                      if _is_op_header(h) and Path(h).name not in setup.ours})
    try:
        debug = ["-g"] if setup.check else []  # call sites with file:line in the findings
        code, out = _compile([setup.cxx, "-c", str(source), *setup.include, *debug, "-o", str(obj)], cwd=work)
        if code != 0:
            _compile_failed(sample, out, foreign, setup)
            return sample
        code, out = _compile([setup.cxx, str(obj), *setup.libs, "-o", str(exe)], cwd=work)
        if code != 0:
            _link_failed(sample, out, setup)
            return sample
        sample.built = True
        _run_sample(sample, exe, work, setup)
        return sample
    finally:
        shutil.rmtree(work, ignore_errors=True)


def summary(samples: list[Sample]) -> dict[str, dict[str, int]]:
    """Per top-level folder (and "total"): samples, built, ran, and the count of each status."""
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for s in samples:
        for key in (s.folder, "total"):
            c = table[key]
            c["samples"] += 1
            c["built"] += s.built
            c["ran"] += s.ran
            c[s.status] += 1
    order = sorted(k for k in table if k != "total") + ["total"]
    return {k: {n: table[k][n] for n in ("samples", "built", "ran", *STATUSES)} for k in order if k in table}


def _yn(flag: bool) -> str:
    return "yes" if flag else "no"


def format_table(samples: list[Sample], check: bool) -> str:
    header = ["sample", "folder", "built", "ran", "exit", *(["findings"] if check else []), "result"]
    rows = []
    for s in samples:
        exit_text = "-" if s.exit_status is None else str(s.exit_status)
        if s.status == "timeout":
            exit_text = "timeout"
        result = s.status + (f": {s.reason}" if s.reason else "")
        rows.append([s.name, s.operator_dir, _yn(s.built), _yn(s.ran) if s.built else "-", exit_text,
                     *([("-" if s.findings is None else str(s.findings))] if check else []), result])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for r in [header, *rows]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
    return "\n".join(lines)


def format_summary(table: dict[str, dict[str, int]]) -> str:
    cols = ["samples", "built", "ran", *STATUSES]
    width = max(len("folder"), *(len(k) for k in table))
    lines = ["folder".ljust(width) + "  " + "  ".join(c.rjust(max(len(c), 5)) for c in cols)]
    for k, counts in table.items():
        lines.append(k.ljust(width) + "  " + "  ".join(str(counts[c]).rjust(max(len(c), 5)) for c in cols))
    return "\n".join(lines)


def format_gaps(samples: list[Sample], limit: int = 15) -> str:
    """The operators most samples miss, and every undefined non-operator symbol (gaps of ours)."""
    missing = collections.Counter(op for s in samples if s.status == "not exported" for op in s.operators)
    lines = []
    if missing:
        lines.append(f"operators not exported (or their missing headers), by samples that need them "
                     f"({len(missing)} distinct; top {limit}):")
        lines += [f"  {n:4d}  {op}" for op, n in missing.most_common(limit)]
    failures = collections.Counter(s.reason for s in samples if s.status in ("compile error", "link error"))
    if failures:
        lines.append("compile and link errors, by cause:")
        lines += [f"  {n:4d}  {reason}" for reason, n in failures.most_common()]
    return "\n".join(lines)


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "samples", help="build and run every official sample of an operator repository checkout on the stub",
        description="Build every examples/**/test_aclnn_*.cpp of DIR (a checkout of hicann ops-math, ops-nn, "
        "ops-cv or ops-transformer; experimental/ left out) unchanged, with the repository's official include "
        "and link line against the stub, run each and print a table and a summary per top-level folder. Exit "
        "status 1 when a sample that should work did not (failed, timeout, findings, compile or link error).")
    p.add_argument("dir", type=Path, help="the repository checkout")
    p.add_argument("--repo", choices=sorted(REPOS),
                   help="whose include and link line to use (default: guessed from DIR's name)")
    p.add_argument("--only", metavar="REGEX", help="only the samples whose path under DIR matches")
    p.add_argument("--json", metavar="FILE", type=Path, help="also write every result as JSON")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="samples built and run at once")
    p.add_argument("--check", nargs="?", const="all", metavar="TOOLS",
                   help="run each sample in check mode (ACLNN_CHECK=TOOLS, default all) and count its findings")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds a sample may run (default 60)")
    p.add_argument("--acl-rt", action="store_true", help="link the runtime as -lacl_rt, as newer builds do")
    p.add_argument("--lib-dir", type=Path,
                   help="the stub libraries (default: ACLNN_PY_LIB_DIR, else the bundled stub)")
    p.add_argument("--cxx", default=os.environ.get("CXX", "g++"), help="the C++ compiler (default: $CXX or g++)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on standard error")
    return p


def main(args) -> int:
    import aclnn_py

    root = args.dir.resolve()
    if not root.is_dir():
        print(f"samples: {args.dir} is not a directory", file=sys.stderr)
        return 2
    repo = REPOS[args.repo] if args.repo else repo_for(root.name)
    if repo is None:
        print(f"samples: cannot tell which repository {root.name} is; give --repo ({', '.join(REPOS)})",
              file=sys.stderr)
        return 2
    if args.check:
        from .check import CheckError, parse_tools

        try:
            args.check = parse_tools(args.check)
        except CheckError as exc:
            print(f"samples: --check: {exc}", file=sys.stderr)
            return 2
    if shutil.which(args.cxx) is None:
        print(f"samples: the C++ compiler {args.cxx} was not found", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("samples: -j must be at least 1", file=sys.stderr)
        return 2
    _stopping.clear()
    samples = discover(root)
    if args.only:
        try:
            pattern = re.compile(args.only)
        except re.error as exc:
            print(f"samples: --only: {exc}", file=sys.stderr)
            return 2
        samples = [s for s in samples if pattern.search(s.path)]
    include_dir = Path(aclnn_py.get_include())
    lib_dir = (args.lib_dir or Path(os.environ.get("ACLNN_PY_LIB_DIR") or aclnn_py.get_lib_dir())).resolve()
    ours = {p.name for p in (include_dir / "aclnnop").glob("aclnn_*.h")}
    # Functions our non-operator headers declare (runtime, tensor API...): a sample missing one is a gap of ours.
    declared = {name for h in include_dir.rglob("*.h") if h.parent != include_dir / "aclnnop"
                for name in DECLARED.findall(h.read_text(errors="replace"))}
    exports = {p.name: dynamic_exports(p) for p in sorted(lib_dir.glob("lib*.so"))}

    with tempfile.TemporaryDirectory(prefix="aclnn-samples-") as tmp:
        work = Path(tmp)
        vendor_headers(root, include_dir, ours, work / "vendor")
        setup = Setup(root, repo, include_dir, lib_dir, work, args.cxx, args.acl_rt, args.timeout, args.check,
                      ours, declared, exports)
        if not args.quiet:
            print(f"samples: {len(samples)} in {root} ({repo.name}), -j{args.jobs}\n"
                  f"  include: {' '.join(setup.include[:len(repo.include)])}\n  link:    {' '.join(setup.libs)}",
                  file=sys.stderr, flush=True)
        done, lock = 0, threading.Lock()

        def task(i, s):
            nonlocal done
            try:
                build_and_run(s, i, setup)
            except Exception as exc:  # noqa: BLE001 - one broken sample must not stop the others
                s.status, s.reason = "compile error", f"samples: {type(exc).__name__}: {exc}"
            with lock:
                done += 1
                if not args.quiet:
                    print(f"[{done}/{len(samples)}] {s.path}: {s.status}", file=sys.stderr, flush=True)
            return s

        pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
        try:
            list(pool.map(lambda a: task(*a), enumerate(samples)))
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            with _live_lock:
                _stopping.set()
                for proc in list(_live):
                    _kill(proc)
            pool.shutdown(wait=True)
            print("samples: interrupted", file=sys.stderr)
            return 130
        pool.shutdown(wait=True)

    table = summary(samples)
    print(format_table(samples, bool(args.check)))
    print()
    print(format_summary(table))
    gaps = format_gaps(samples)
    if gaps:
        print()
        print(gaps)
    if args.json:
        args.json.write_text(json.dumps({
            "dir": str(root), "repo": repo.name, "include": setup.include[:len(repo.include)], "link": setup.libs,
            "check": args.check, "summary": table, "samples": [asdict(s) for s in samples]}, indent=1))
    return 1 if any(s.status in FAILURES for s in samples) else 0
