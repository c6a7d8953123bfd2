"""Command line: ``python -m aclnn_py info | config | demo | new-op | check`` (also installed as ``aclnn-py``)."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

LINK_LIBRARIES = ("opapi", "opapi_transformer", "ascendcl", "nnopbase", "pthread", "hccl")
SDK_LIBRARIES = ("nnopbase", "ascendcl")  # what an operator built on aclstub/op_sdk.h links


def _cann_version(root: Path | None) -> str | None:
    if root is None:
        return None
    for name in ("version.cfg", "ascend_toolkit_install.info", "version.info"):
        f = root / name
        if f.is_file():
            for line in f.read_text(errors="replace").splitlines():
                if "version" in line.lower() and "=" in line:
                    return line.split("=", 1)[1].strip().strip('"')
    return None


def cmd_info(args) -> int:
    import aclnn_py
    from aclnn_py import acl

    backend = aclnn_py.backend()
    print(f"aclnn-py       {aclnn_py.__version__}")
    print(f"backend        {backend.kind} ({backend.reason})" + (" [stub libraries]" if backend.is_stub else ""))
    for p in backend.libraries:
        print(f"library        {p}")
    if backend.is_stub:
        print(f"stub           {acl.aclStubVersion()}")
    version = _cann_version(backend.root)
    print(f"CANN version   {version or ('n/a (stub)' if backend.is_stub else 'unknown')}")
    try:
        print(f"device count   {acl.aclrtGetDeviceCount()}")
    except aclnn_py.AclBaseError as exc:
        print(f"device count   unavailable ({exc})")
    print(f"include dir    {aclnn_py.get_include()}")
    print(f"stub lib dir   {aclnn_py.get_lib_dir()}")
    if backend.missing_symbols:
        print(f"missing        {', '.join(sorted(backend.missing_symbols))}")
    return 0


def cmd_config(args) -> int:
    import aclnn_py

    lib_dir = aclnn_py.get_lib_dir()
    parts = []
    if args.include_dir:
        parts.append(aclnn_py.get_include())
    if args.lib_dir:
        parts.append(lib_dir)
    if args.cflags:
        parts.append(f"-I{shlex.quote(aclnn_py.get_include())}")
    if args.libs:
        parts.append(f"-L{shlex.quote(lib_dir)} -Wl,-rpath,{shlex.quote(lib_dir)} "
                     + " ".join(f"-l{name}" for name in LINK_LIBRARIES))
    if args.sdk:
        parts.append(f"-I{shlex.quote(aclnn_py.get_include())} -L{shlex.quote(lib_dir)} "
                     f"-Wl,-rpath,{shlex.quote(lib_dir)} " + " ".join(f"-l{name}" for name in SDK_LIBRARIES))
    if not parts:
        print("config: give at least one of --include-dir, --lib-dir, --cflags, --libs, --sdk", file=sys.stderr)
        return 2
    print(" ".join(parts))
    return 0


def examples_dir() -> Path:
    from _aclnn_py_native import PACKAGE_DIR

    return PACKAGE_DIR / "examples"


def cmd_demo(args) -> int:
    """Run every ported sample on the stub, each in its own process (each initialises and finalises ACL), then
    the MoE layer example."""
    from aclnn_py._optable import OPS

    env = dict(os.environ)
    env.setdefault("ACLNN_PY_BACKEND", "stub")
    failures = 0
    for op in OPS:
        script = examples_dir() / f"{op.py_name}.py"
        print(f"=== {op.c_name}  ({script.name})", flush=True)
        if not script.exists():
            print(f"missing example {script}")
            failures += 1
            continue
        result = subprocess.run([sys.executable, str(script)], env=env)
        if result.returncode != 0:
            print(f"--- {script.name} failed with exit status {result.returncode}")
            failures += 1
    print(f"demo: {len(OPS) - failures} of {len(OPS)} samples ran")
    # A whole MoE layer, forward and backward, through the dispatch and combine operators.
    layer = examples_dir() / "moe_layer.py"
    print(f"=== MoE layer  ({layer.name})", flush=True)
    layer_failed = subprocess.run([sys.executable, str(layer)], env=env).returncode != 0
    if layer_failed:
        print(f"--- {layer.name} failed")
    return 1 if failures or layer_failed else 0


def cmd_new_op(args) -> int:
    from aclnn_py.new_op import NewOpError, new_op

    try:
        text = new_op(args.name, header=args.header, include_dir=args.include_dir)
    except (NewOpError, OSError) as exc:
        print(f"new-op: {exc}", file=sys.stderr)
        return 2
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
        print(f"new-op: wrote {args.output}")
    return 0


def cmd_check(args) -> int:
    from aclnn_py import check

    return check.main(args)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m aclnn_py", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="backend, library paths, CANN version, device count").set_defaults(fn=cmd_info)
    cfg = sub.add_parser("config", help="compiler and linker flags for C/C++ programs")
    cfg.add_argument("--include-dir", action="store_true", help="print the header directory")
    cfg.add_argument("--lib-dir", action="store_true", help="print the stub library directory")
    cfg.add_argument("--cflags", action="store_true", help="print -I flags")
    cfg.add_argument("--libs", action="store_true", help="print the official link line with an rpath")
    cfg.add_argument("--sdk", action="store_true",
                     help="print the flags of an operator library on the operator SDK (-I, -L, rpath, -lnnopbase -lascendcl)")
    cfg.set_defaults(fn=cmd_config)
    sub.add_parser("demo", help="run the ported official samples on the stub").set_defaults(fn=cmd_demo)
    new = sub.add_parser("new-op", help="write a skeleton C operator on the operator SDK from its official header")
    new.add_argument("name", help="the operator, e.g. aclnnAbs")
    where = new.add_mutually_exclusive_group()
    where.add_argument("--header", help="the header declaring it")
    where.add_argument("--include-dir", help="search the headers below DIR (default: ours, then the toolkit's)")
    new.add_argument("-o", "--output", default="-", help="file to write (default: standard output)")
    new.set_defaults(fn=cmd_new_op)
    chk = sub.add_parser("check", help="run a program against the stub in check mode and report its bugs",
                         description="Run PROGRAM (a C/C++ binary linked against the stub, or python script.py) "
                         "in check mode and report each distinct finding with its call site.")
    chk.add_argument("--tool", default="all",
                     help="memcheck, initcheck, synccheck, leakcheck, collcheck or all; comma-separated (default: all)")
    chk.add_argument("--error-exitcode", type=int, default=None, metavar="N",
                     help="exit with N when there are findings (default: the program's exit status)")
    chk.add_argument("--json", metavar="FILE", help="also write the findings as JSON to FILE")
    chk.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
    chk.set_defaults(fn=cmd_check)
    args = parser.parse_args(argv)
    from aclnn_py.errors import AclBaseError

    try:
        return args.fn(args)
    except AclBaseError as exc:  # e.g. a backend setting that finds no libraries: one line, not a traceback
        print(f"{parser.prog} {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
