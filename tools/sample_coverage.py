#!/usr/bin/env python3
"""How many official aclnn sample programs build against this project's headers and link against its stub.

A developer tool (it needs local clones of the vendor operator repositories, so CI does not run it):

    python tools/sample_coverage.py GITDIR [GITDIR ...] [--runtime GITDIR --opbase GITDIR]
                                    [-j 2] [--lib-dir DIR] [--json FILE] [--list] [--only REGEX]

Each GITDIR is a clone (bare or not) of one of hicann/ops-transformer, ops-nn, ops-math, ops-cv; --runtime
and --opbase are clones of hicann/runtime and hicann/opbase, whose public headers (include/external/acl,
include/nnopbase, include/aclnnop) tell a sample's own bug from a gap of ours. The tool reads the commit at
HEAD with ``git archive``, so nothing in the clones changes. It takes about 20 minutes on two cores.

What it counts:

1. The samples are every ``examples/**/test_aclnn_*.cpp`` of the given repositories.
2. Operator headers: every ``**/op_api/aclnn_*.h`` (then any other ``aclnn_*.h`` of the repositories, for the
   few samples that include a header kept elsewhere) is placed in a temporary ``aclnnop/`` directory. Our own
   headers come first on the include path, so a header we ship (``aclnnop/aclnn_moe_*.h``, ``aclnn_util.h``)
   is ours, and ``acl/*``, ``aclnn/*`` are always ours.
3. Each sample is compiled alone (``g++ -c``, the compiler's default language standard, as the official
   build script does) with ``-I native/include -I native/include/aclnnop`` and the operator-header
   directories.
4. The undefined symbols of each object (``nm -u``) are checked against the dynamic exports of the stub
   libraries (built from ``stubs/`` into the temporary directory, or ``--lib-dir``), of the C and C++
   runtime libraries and the linker's own (``__dso_handle``...). Operator symbols are not checked (they belong to operator libraries we do not ship):
   ``aclnnXxxGetWorkspaceSize`` and ``aclnnXxx`` when ``aclnnXxxGetWorkspaceSize`` is declared.

Samples left out of the denominator, each counted in the report:

- HCCL samples: a missing ``hccl/*`` header, or an undefined ``Hccl*`` symbol (collectives are a separate
  library, not part of this measurement);
- samples whose operator headers are not available: a missing ``aclnn_*.h`` header, or an operator header
  that needs a vendor-internal header (``opdev/*``, ``aclnn_kernels/*``, ...) that no public include tree has;
- with --runtime and --opbase: samples that fail to compile against the official headers as well (a bug of the
  sample or of its operator header, e.g. a call that does not match the operator's prototype);
- samples that call an op-library helper beside the operator (an ``aclnn*`` function declared by a vendor
  operator header that is not an operator entry point, e.g. ``aclnnCalculateMatmulWeightSize``,
  ``aclnnTransQuantParam``), unless the stub exports it.

Everything else is measured: it passes when it compiles and every checked symbol resolves. The report lists
compile failures by cause (the first error, with the file it comes from) and link gaps by missing symbol,
with the number of samples each one affects, and prints the percentage.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUR_INCLUDE = ROOT / "native" / "include"
SAMPLE_PATTERN = re.compile(r"(^|/)examples/(.*/)?test_aclnn_[^/]*\.cpp$")
OP_HEADER_PATTERN = re.compile(r"(^|/)aclnn_[^/]*\.h$")
OP_API_HEADER_PATTERN = re.compile(r"(^|/)op_api/aclnn_[^/]*\.h$")
MISSING_HEADER = re.compile(r"^(?P<file>[^:\n]+):\d+:\d+: fatal error: (?P<header>[^:\n]+): No such file or directory",
                            re.M)
FIRST_ERROR = re.compile(r"^(?P<file>[^:\n]+):\d+:\d+: (?:fatal )?error: (?P<msg>.*)$", re.M)
SYSTEM_LIBS = ("libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1")
LINKER_SYMBOLS = {"_GLOBAL_OFFSET_TABLE_", "__dso_handle", "_DYNAMIC", "__ehdr_start"}  # the linker defines them
CALL_PATTERN = re.compile(r"\b(aclnn[A-Za-z0-9_]+)\s*\(")


@dataclass
class Sample:
    repo: str
    path: str  # inside the repository
    source: Path  # materialised copy
    status: str = ""  # passed | compile_failed | link_gap | hccl | no_op_header | official_fails | op_helper
    detail: list[str] = field(default_factory=list)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def extract(gitdir: Path, dest: Path, pathspecs: list[str]) -> None:
    """Extract the files of HEAD matching pathspecs into dest."""
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.Popen(["git", "-C", str(gitdir), "archive", "--format=tar", "HEAD", "--", *pathspecs],
                               stdout=subprocess.PIPE)
    with tarfile.open(fileobj=archive.stdout, mode="r|") as tar:
        tar.extractall(dest, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(dest)
    if archive.wait() != 0:
        raise SystemExit(f"git archive failed in {gitdir}")


def materialise(gitdir: Path, dest: Path) -> tuple[list[str], list[str]]:
    """Extract the samples and aclnn_*.h headers at HEAD into dest; return (sample paths, header paths)."""
    names = run(["git", "-C", str(gitdir), "ls-tree", "-r", "--name-only", "HEAD"]).stdout.splitlines()
    samples = sorted(n for n in names if SAMPLE_PATTERN.search(n))
    headers = sorted(n for n in names if OP_HEADER_PATTERN.search(n))
    extract(gitdir, dest, [":(glob)**/examples/**/test_aclnn_*.cpp", ":(glob)**/aclnn_*.h"])
    return samples, headers


def official_include_dir(runtime: Path, opbase: Path, dest: Path) -> Path:
    """The official public headers at the paths an installed toolkit has them: acl/, aclnn/, aclnn/opdev/,
    aclnnop/aclnn_util.h."""
    extract(runtime, dest / "runtime", ["include/external/acl"])
    extract(opbase, dest / "opbase", ["include/nnopbase", "include/aclnnop"])
    inc = dest / "include"
    shutil.copytree(dest / "runtime" / "include" / "external" / "acl", inc / "acl")
    shutil.copytree(dest / "opbase" / "include" / "nnopbase" / "aclnn", inc / "aclnn")
    shutil.copytree(dest / "opbase" / "include" / "nnopbase" / "opdev", inc / "aclnn" / "opdev")
    shutil.copytree(dest / "opbase" / "include" / "aclnnop", inc / "aclnnop")
    return inc


def op_include_dir(trees: list[tuple[Path, list[str]]], dest: Path) -> set[str]:
    """Fill dest/aclnnop with one copy of each operator header name (op_api ones first); return the names.
    aclnn_util.h is left out: it belongs to the headers under test (or the official ones), not to operators."""
    ours = {"aclnn_util.h"}
    out = dest / "aclnnop"
    out.mkdir(parents=True)
    chosen: set[str] = set()
    for preferred in (True, False):
        for tree, headers in trees:
            for h in headers:
                name = h.rsplit("/", 1)[-1]
                if name in chosen or name in ours or bool(OP_API_HEADER_PATTERN.search(h)) != preferred:
                    continue
                shutil.copyfile(tree / h, out / name)
                chosen.add(name)
    return chosen


def declared_aclnn_functions(include_dir: Path) -> set[str]:
    names: set[str] = set()
    for h in (include_dir / "aclnnop").glob("*.h"):
        names.update(re.findall(r"\b(aclnn[A-Za-z0-9_]+)\s*\(", h.read_text(errors="replace")))
    return names


def dynamic_exports(lib: Path) -> set[str]:
    out = run(["nm", "-D", "--defined-only", str(lib)]).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def system_exports() -> set[str]:
    names: set[str] = set()
    for lib in SYSTEM_LIBS:
        path = run(["g++", f"-print-file-name={lib}"]).stdout.strip()
        if os.path.isabs(path) and os.path.exists(path):
            names |= dynamic_exports(Path(path))
    return names


def build_stub(tmp: Path) -> Path:
    build = tmp / "stub-build"
    run(["cmake", "-S", str(ROOT / "stubs"), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", str(build), "-j2"])
    return build


def is_operator(symbol: str, vendor_declared: set[str]) -> bool:
    return symbol.endswith("GetWorkspaceSize") or symbol + "GetWorkspaceSize" in vendor_declared


def classify_compile_error(stderr: str, tmp: Path) -> tuple[str, str]:
    """(status, cause) of a failed compile."""
    missing = MISSING_HEADER.search(stderr)
    if missing:
        header = missing.group("header")
        origin = Path(missing.group("file"))
        if header.startswith("hccl/"):
            return "hccl", header
        ours = header.startswith(("acl/", "aclnn/"))
        op_header_missing = header.rsplit("/", 1)[-1].startswith("aclnn_")
        from_vendor_header = (tmp / "opinc") in origin.parents
        if not ours and (op_header_missing or from_vendor_header):
            return "no_op_header", header
        return "compile_failed", f"missing header {header}"
    first = FIRST_ERROR.search(stderr)
    if not first:
        return "compile_failed", stderr.strip().splitlines()[-1] if stderr.strip() else "unknown"
    origin = Path(first.group("file"))
    where = "sample" if origin.suffix == ".cpp" else ("vendor header " + origin.name if tmp in origin.parents
                                                     else origin.as_posix().split("/include/", 1)[-1])
    msg = re.sub(r"\s+", " ", first.group("msg")).strip()
    return "compile_failed", f"{msg} [{where}]"


def compile_sample(sample: Sample, include_flags: list[str], obj: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["g++", "-c", "-w", "-O0", *include_flags, str(sample.source), "-o", str(obj)],
                          capture_output=True, text=True, timeout=600)


def measure(sample: Sample, index: int, tmp: Path, include_flags: list[str], official_flags: list[str] | None,
            resolved: set[str], vendor_declared: set[str]) -> Sample:
    obj = tmp / "obj" / f"{index}.o"
    proc = compile_sample(sample, include_flags, obj)
    if proc.returncode != 0:
        sample.status, cause = classify_compile_error(proc.stderr, tmp)
        sample.detail = [cause]
        if sample.status == "compile_failed" and official_flags is not None:
            if compile_sample(sample, official_flags, obj).returncode != 0:
                sample.status = "official_fails"
            obj.unlink(missing_ok=True)
        return sample
    undefined = {line.split()[-1] for line in run(["nm", "-u", str(obj)]).stdout.splitlines() if line.strip()}
    obj.unlink()
    if any(s.startswith("Hccl") for s in undefined):
        sample.status, sample.detail = "hccl", sorted(s for s in undefined if s.startswith("Hccl"))
        return sample
    helpers, gaps = [], []
    for s in sorted(undefined):
        if s in resolved or (s.startswith("aclnn") and is_operator(s, vendor_declared)):
            continue
        (helpers if s.startswith("aclnn") and s in vendor_declared else gaps).append(s)
    if helpers:
        sample.status, sample.detail = "op_helper", helpers
    elif gaps:
        sample.status, sample.detail = "link_gap", gaps
    else:
        sample.status = "passed"
    return sample


def report(samples: list[Sample], out=sys.stdout, list_all: bool = False) -> dict:
    by_status = collections.Counter(s.status for s in samples)
    measured = [s for s in samples if s.status in ("passed", "compile_failed", "link_gap")]
    passed = by_status["passed"]
    causes = collections.Counter(s.detail[0] for s in samples if s.status == "compile_failed")
    gaps = collections.Counter(sym for s in samples if s.status == "link_gap" for sym in s.detail)
    helpers = collections.Counter(sym for s in samples if s.status == "op_helper" for sym in s.detail)
    missing_op = collections.Counter(s.detail[0] for s in samples if s.status == "no_op_header")
    official = collections.Counter(s.detail[0] for s in samples if s.status == "official_fails")
    pct = 100.0 * passed / len(measured) if measured else 0.0
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"samples found:                    {len(samples)}")
    p(f"  left out, HCCL:                 {by_status['hccl']}")
    p(f"  left out, op header unavailable: {by_status['no_op_header']}")
    p(f"  left out, op-library helpers:   {by_status['op_helper']}")
    p(f"  left out, fail with the official headers too: {by_status['official_fails']}")
    p(f"measured:                         {len(measured)}")
    p(f"  compile failures:               {by_status['compile_failed']}")
    p(f"  compiled, link gaps:            {by_status['link_gap']}")
    p(f"  compiled and resolved:          {passed}")
    p(f"coverage: {passed} of {len(measured)} ({pct:.1f}%)")
    for title, counter in (("compile failures by cause", causes), ("link gaps by missing symbol", gaps),
                           ("op-library helpers (left out)", helpers),
                           ("unavailable operator headers (left out)", missing_op),
                           ("failing with the official headers too (left out)", official)):
        if counter:
            p(f"\n{title} (samples):")
            for key, n in counter.most_common(None if list_all else 40):
                p(f"  {n:5d}  {key}")
    if list_all:
        p("\nper sample:")
        for s in sorted(samples, key=lambda s: (s.status, s.repo, s.path)):
            p(f"  {s.status:15s} {s.repo}:{s.path}  {' '.join(s.detail)}")
    return {"found": len(samples), "measured": len(measured), "passed": passed, "percent": round(pct, 2),
            "status": dict(by_status), "compile_failures": dict(causes), "link_gaps": dict(gaps),
            "op_helpers": dict(helpers),
            "samples": [{"repo": s.repo, "path": s.path, "status": s.status, "detail": s.detail} for s in samples]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="+", type=Path, help="git clones of the vendor operator repositories")
    ap.add_argument("--runtime", type=Path, help="git clone of hicann/runtime (official acl headers)")
    ap.add_argument("--opbase", type=Path, help="git clone of hicann/opbase (official aclnn headers)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--lib-dir", type=Path, help="directory of built stub libraries (default: build stubs/ here)")
    ap.add_argument("--json", type=Path, help="also write the full result as JSON")
    ap.add_argument("--list", action="store_true", help="list every cause and every sample's result")
    ap.add_argument("--only", metavar="REGEX", help="measure only the samples whose path matches (a quick check)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="sample-coverage-")).resolve()
    try:
        lib_dir = args.lib_dir or build_stub(tmp)
        libs = sorted(lib_dir.glob("lib*.so"))
        if not libs:
            raise SystemExit(f"no stub libraries in {lib_dir}")
        resolved = system_exports() | LINKER_SYMBOLS
        for lib in libs:
            resolved |= dynamic_exports(lib)

        samples: list[Sample] = []
        trees = []
        for i, repo in enumerate(args.repos):
            name = repo.resolve().name
            if name in ("repo", ".git"):
                name = repo.resolve().parent.name
            tree = tmp / "src" / f"{i}"
            paths, headers = materialise(repo, tree)
            trees.append((tree, headers))
            samples += [Sample(name, p, tree / p) for p in paths]
        if args.only:
            samples = [s for s in samples if re.search(args.only, s.path)]
        op_include_dir(trees, tmp / "opinc")
        vendor_declared = declared_aclnn_functions(tmp / "opinc")
        (tmp / "obj").mkdir()
        include_flags = ["-I", str(OUR_INCLUDE), "-I", str(OUR_INCLUDE / "aclnnop"),
                         "-I", str(tmp / "opinc"), "-I", str(tmp / "opinc" / "aclnnop")]
        official_flags = None
        if args.runtime and args.opbase:
            official = official_include_dir(args.runtime, args.opbase, tmp / "official")
            official_flags = ["-I", str(official), "-I", str(official / "aclnnop"),
                              "-I", str(tmp / "opinc"), "-I", str(tmp / "opinc" / "aclnnop")]
        print(f"compiling {len(samples)} samples with -j{args.jobs} ...", file=sys.stderr)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(measure, s, i, tmp, include_flags, official_flags, resolved, vendor_declared)
                       for i, s in enumerate(samples)]
            for n, _ in enumerate(concurrent.futures.as_completed(futures), 1):
                if n % 100 == 0:
                    print(f"  {n}/{len(samples)}", file=sys.stderr)
        result = report(samples, list_all=args.list)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
        return 0
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
