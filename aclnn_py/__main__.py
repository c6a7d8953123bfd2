"""Command line: ``python -m aclnn_py info | config | ops | samples | demo | new-op | check | pyacl`` (also
installed as ``aclnn-py``)."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

from aclnn_py._repos import DEFAULT_INCLUDE, DEFAULT_REPO, REPOS, SDK_LIBS, include_flags, lib_flags


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

    inc, lib_dir = aclnn_py.get_include(), aclnn_py.get_lib_dir()
    repo = REPOS[args.repo or DEFAULT_REPO]
    parts: list[str] = []
    if args.include_dir:
        parts.append(inc)
    if args.lib_dir:
        parts.append(lib_dir)
    if args.cflags:
        parts += include_flags(inc, repo.include if args.repo else DEFAULT_INCLUDE)
    if args.libs:
        parts += lib_flags(lib_dir, repo.link_libs(args.acl_rt))
    if args.sdk:
        parts += [f"-I{inc}", *lib_flags(lib_dir, SDK_LIBS)]
    if not parts:
        print("config: give at least one of --include-dir, --lib-dir, --cflags, --libs, --sdk", file=sys.stderr)
        return 2
    print(" ".join(shlex.quote(p) for p in parts))
    return 0


def cmd_ops(args) -> int:
    from aclnn_py import _ops_table

    lib_dir = Path(args.lib_dir) if args.lib_dir else None
    if args.update:
        changed = _ops_table.update_file(Path(args.update), lib_dir)
        print(f"ops: {args.update} {'updated' if changed else 'already up to date'}")
        return 0
    text = _ops_table.markdown(lib_dir) if args.markdown else _ops_table.listing(lib_dir)
    sys.stdout.write(text)
    return 0


def cmd_samples(args) -> int:
    from aclnn_py import samples

    return samples.main(args)


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


def cmd_pyacl(args) -> int:
    """Run a pyACL script with ``import acl`` resolving to aclnn_py.pyacl (a real pyACL is never shadowed), or
    print the directory to put on PYTHONPATH for the same effect in any process."""
    from aclnn_py import pyacl

    if args.path:
        print(pyacl.shim_dir())
        return 0
    argv = args.script[1:] if args.script[:1] == ["--"] else args.script
    if not argv:
        print("pyacl: give a script: python -m aclnn_py pyacl [--path] [--] SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    import runpy

    # Child processes the script starts see the same `import acl`.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [pyacl.shim_dir(), os.environ.get("PYTHONPATH")]))
    pyacl.install()
    sys.argv = list(argv)
    sys.path.insert(0, str(Path(argv[0]).resolve().parent))
    try:
        runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


def cmd_check(args) -> int:
    from aclnn_py import check

    return check.main(args)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m aclnn_py", description=__doc__)
    from aclnn_py import __version__

    parser.add_argument("--version", action="version", version=f"aclnn-py {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="backend, library paths, CANN version, device count").set_defaults(fn=cmd_info)
    cfg = sub.add_parser("config", help="compiler and linker flags for C/C++ programs")
    cfg.add_argument("--include-dir", action="store_true", help="print the header directory")
    cfg.add_argument("--lib-dir", action="store_true", help="print the stub library directory")
    cfg.add_argument("--cflags", action="store_true",
                     help="print the -I flags under which official samples and operator headers compile "
                     "(include, include/aclnn, include/aclnnop; with --repo, that repository's)")
    cfg.add_argument("--libs", action="store_true",
                     help="print the official link line with -L and an rpath (with --repo, that repository's; "
                     "default: ops-transformer's, whose -lopapi holds every operator)")
    cfg.add_argument("--repo", choices=sorted(REPOS), help="the include and link line of this repository's samples")
    cfg.add_argument("--acl-rt", action="store_true",
                     help="--libs names the runtime -lacl_rt instead of -lascendcl, as newer builds do")
    cfg.add_argument("--sdk", action="store_true",
                     help="print the flags of an operator library on the operator SDK (-I, -L, rpath, -lnnopbase -lascendcl)")
    cfg.set_defaults(fn=cmd_config)
    ops = sub.add_parser("ops", help="the operators each stub library exports")
    ops.add_argument("--markdown", action="store_true", help="print the README's library table")
    ops.add_argument("--update", metavar="FILE",
                     help="rewrite the table between the ops-table markers of FILE (README.md)")
    ops.add_argument("--lib-dir", help="read the libraries of DIR (default: the bundled stub's)")
    ops.set_defaults(fn=cmd_ops)
    from aclnn_py import samples as samples_mod

    samples_mod.add_parser(sub).set_defaults(fn=cmd_samples)
    sub.add_parser("demo", help="run the ported official samples on the stub").set_defaults(fn=cmd_demo)
    new = sub.add_parser("new-op", help="write a skeleton C operator on the operator SDK from its official header")
    new.add_argument("name", help="the operator, e.g. aclnnAddCustom")
    where = new.add_mutually_exclusive_group()
    where.add_argument("--header", help="the header declaring it")
    where.add_argument("--include-dir", help="search the headers below DIR (default: ours, then the toolkit's)")
    new.add_argument("-o", "--output", default="-", help="file to write (default: standard output)")
    new.set_defaults(fn=cmd_new_op)
    pya = sub.add_parser("pyacl", help="run a pyACL script with `import acl` resolving to aclnn_py.pyacl",
                         description="Run SCRIPT with `import acl` resolving to aclnn_py.pyacl (unless a real pyACL is "
                         "installed), or print the directory that does the same from PYTHONPATH.")
    pya.add_argument("--path", action="store_true", help="print the directory to put first on PYTHONPATH")
    pya.add_argument("script", nargs=argparse.REMAINDER, help="[--] SCRIPT [ARGS...]")
    pya.set_defaults(fn=cmd_pyacl)
    chk = sub.add_parser("check", help="run a program against the stub in check mode and report its bugs",
                         description="Run PROGRAM (a C/C++ binary linked against the stub, or python script.py) "
                         "in check mode and report each distinct finding with its call site.")
    chk.add_argument("--tool", default="all",
                     help="memcheck, initcheck, synccheck, leakcheck, apicheck or all; comma-separated "
                     "(default: all)")
    chk.add_argument("--error-exitcode", type=int, default=None, metavar="N",
                     help="exit with N when there are findings other than warnings (default: the program's exit "
                     "status; 3 when no process loaded the stub)")
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
