#!/usr/bin/env python3
"""Write official-path operator headers (native/include/aclnnop/aclnn_<op>.h) from a vendor operator repository.

    python tools/gen_op_headers.py --repo ../ops-math aclnnAdd aclnnRelu ...      # the headers declaring these
    python tools/gen_op_headers.py --repo ../ops-nn --folder activation            # every header of a folder

A header is found where the official samples include it from (``#include "aclnnop/aclnn_<x>.h"`` in an
operator's ``examples/``): its prototypes come from the repository's ``op_api``/``op_host/op_api`` header of that
name, or, for operators whose header the toolkit generates at build time, from the ``aclnn*.md`` documents of the
operator (their prototype blocks). Only the prototypes are taken, reformatted in this project's style under a
one-line comment; a header with anything else (types, enums) is reported for a hand-written one. Existing files
are left alone unless ``--force``.
"""

import argparse
import pathlib
import re
import sys
import textwrap

PROTO = re.compile(r"(?:ACLNN_API|__attribute__\s*\(\(visibility\(\"default\"\)\)\))\s+"
                   r"((?:ACL_DEPRECATED_MESSAGE\([^)]*\)\s*|\[\[deprecated[^\]]*\]\]\s*)?)"
                   r"aclnnStatus\s+(aclnn\w+)\s*\(([^;{]*?)\)\s*;", re.S)
# Prototypes written without an export macro (the toolkit exports them through a version script).
BARE_PROTO = re.compile(r"^\s*()aclnnStatus\s+(aclnn\w+)\s*\(([^;{]*?)\)\s*;", re.S | re.M)
DOC_PROTO = re.compile(r"aclnnStatus\s+(aclnn\w+)\s*\(([^;{)]*(?:\([^)]*\)[^;{)]*)*)\)", re.S)
INCLUDE = re.compile(r'#include\s*"aclnnop/(aclnn_\w+\.h)"')
SKIP_DIRS = {"experimental", "tests", "build", "build_out", "third_party"}


def skipped(path: pathlib.Path, repo: pathlib.Path) -> bool:
    return any(part in SKIP_DIRS for part in path.relative_to(repo).parts)


def normalise_params(text: str) -> list:
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    params = []
    for p in text.split(","):
        p = " ".join(p.split())
        p = re.sub(r"\s*\*\s*", " *", p).replace("* *", "**").replace(" *", " *")
        p = re.sub(r"\*\s+", "*", p)
        p = p.replace("& ", "&")
        if p:
            params.append(p)
    return params


def format_proto(attrs: str, name: str, params: list) -> str:
    head = f"ACLNN_API {attrs.strip() + ' ' if attrs.strip() else ''}aclnnStatus {name}("
    one = head + ", ".join(params) + ");"
    if len(one) <= 118:
        return one
    indent = " " * len(head)
    if len(indent) > 60:
        body = textwrap.fill(", ".join(params) + ");", width=114, initial_indent="    ",
                             subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)
        return head + "\n" + body
    lines, line = [], head
    for i, p in enumerate(params):
        piece = p + (");" if i == len(params) - 1 else ",")
        if len(line) + len(piece) + 1 > 118 and line.strip() != head.strip():
            lines.append(line.rstrip())
            line = indent + piece + " "
        else:
            line += piece + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def header_sources(repo: pathlib.Path) -> dict:
    """header file name -> list of vendor files (op_api headers) defining it."""
    found = {}
    for path in repo.rglob("aclnn_*.h"):
        if skipped(path, repo) or "op_api" not in path.parts:
            continue
        found.setdefault(path.name, []).append(path)
    return found


def sample_headers(repo: pathlib.Path) -> dict:
    """header name -> operator directories whose samples include it."""
    found = {}
    for path in repo.rglob("test_aclnn_*.cpp"):
        if skipped(path, repo) or path.parent.name != "examples":
            continue
        for name in INCLUDE.findall(path.read_text(errors="replace")):
            found.setdefault(name, set()).add(path.parent.parent)
    return found


def prototypes_from_header(path: pathlib.Path) -> tuple:
    text = path.read_text(errors="replace")
    protos = [(a, n, normalise_params(p)) for a, n, p in PROTO.findall(text)]
    if not protos:
        protos = [(a, n, normalise_params(p)) for a, n, p in BARE_PROTO.findall(re.sub(r"/\*.*?\*/", "", text, flags=re.S))]
    extra = bool(re.search(r"^\s*(typedef|enum|struct|class)\b", text, re.M))
    hccl = '#include "hccl/hccl' in text
    return protos, extra, hccl


def prototypes_from_docs(op_dir: pathlib.Path, header: str) -> list:
    stem = header[len("aclnn_"):-2]
    protos, seen = [], set()
    for doc in sorted((op_dir / "docs").glob("aclnn*.md")) if (op_dir / "docs").is_dir() else []:
        for block in re.findall(r"```(?:[Cc]pp|[Cc]\+\+|[Cc])?\s*\n(.*?)```", doc.read_text(errors="replace"), re.S):
            for name, params in DOC_PROTO.findall(block):
                if name in seen:
                    continue
                seen.add(name)
                protos.append(("", name, normalise_params(params)))
    # keep only the functions of this header: names made of the header's words
    key = stem.replace("_", "").lower()
    keep = [p for p in protos if key in p[1].lower().replace("inplace", "").replace("getworkspacesize", "")
            or p[1].lower().replace("getworkspacesize", "").endswith(key)]
    return keep or protos


def render(header: str, protos: list, hccl: bool, origin: str) -> str:
    guard = "ACLNNOP_" + header[:-2].upper() + "_H_"
    names = [n for _, n, _ in protos if not n.endswith("GetWorkspaceSize")]
    lines = [f"/* {', '.join(names)} ({origin}). */", f"#ifndef {guard}", f"#define {guard}", "",
             '#include "aclnn/aclnn_base.h"', '#include "aclnn_util.h"']
    if hccl:
        lines.append('#include "hccl/hccl_types.h"')
    lines += ["", "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    for attrs, name, params in protos:
        lines.append(format_proto(attrs, name, params))
        lines.append("")
    lines += ["#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", required=True, type=pathlib.Path, help="a checkout of a hicann ops repository")
    ap.add_argument("--folder", action="append", default=[], help="every header included by samples under it")
    ap.add_argument("--out", type=pathlib.Path,
                    default=pathlib.Path(__file__).resolve().parent.parent / "native/include/aclnnop")
    ap.add_argument("--force", action="store_true", help="overwrite existing headers")
    ap.add_argument("ops", nargs="*", help="aclnn operator names (with or without their variants)")
    args = ap.parse_args(argv)
    repo = args.repo.resolve()
    sources, samples = header_sources(repo), sample_headers(repo)
    wanted = set()
    for folder in args.folder:
        base = (repo / folder).resolve()
        wanted |= {h for h, dirs in samples.items() if any(base in d.parents or d == base for d in dirs)}
    if args.ops:
        for header in set(sources) | set(samples):
            text = "".join(p.read_text(errors="replace") for p in sources.get(header, []))
            if any(re.search(rf"\b{op}GetWorkspaceSize\b", text) for op in args.ops):
                wanted.add(header)
        for op in args.ops:
            snake = re.sub(r"(?<!^)(?=[A-Z])", "_", op[len("aclnn"):]).lower()
            if f"aclnn_{snake}.h" in samples:
                wanted.add(f"aclnn_{snake}.h")
    status = 0
    for header in sorted(wanted):
        target = args.out / header
        if target.exists() and not args.force:
            print(f"kept     {header}")
            continue
        protos, extra, hccl = [], False, False
        origin = repo.name
        for path in sources.get(header, []):
            protos, extra, hccl = prototypes_from_header(path)
            origin = f"{repo.name} {path.parent.parent.relative_to(repo).as_posix()}".replace("/op_host", "")
            if protos:
                break
        if not protos:
            for op_dir in sorted(samples.get(header, [])):
                protos = prototypes_from_docs(op_dir, header)
                origin = f"{repo.name} {op_dir.relative_to(repo).as_posix()}"
                if protos:
                    break
        if not protos:
            print(f"MISSING  {header}: no prototype found", file=sys.stderr)
            status = 1
            continue
        if extra:
            print(f"REVIEW   {header}: the official header declares types too; write it by hand", file=sys.stderr)
            status = 1
            continue
        target.write_text(render(header, protos, hccl, origin))
        print(f"wrote    {header} ({len(protos)} functions)")
    return status


if __name__ == "__main__":
    sys.exit(main())
