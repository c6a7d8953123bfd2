"""Turn the C headers of native/include into cffi declarations.

The headers are the single source of the ABI: the C compiler's preprocessor expands them (so the
result is exactly what a C program sees), and only the lines that come from our own header tree are
kept. Attributes are dropped, ``static const int X = 1;`` becomes cffi's ``static const int X;`` (the
value is read from the compiled header), and integer ``#define`` constants are kept.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
from pathlib import Path

INCLUDE_DIR = Path(__file__).resolve().parent.parent / "include"

# Every header whose declarations Python sees, in include order.
HEADERS = (
    "acl/acl.h",
    "aclnn/aclnn_base.h",
    "aclnn/opdev/op_errno.h",
    "aclstub/aclstub.h",
    "hccl/hccl.h",
)


def all_headers(include_dir: Path = INCLUDE_DIR) -> list[str]:
    # operator headers: aclnn_<op>.h, and the few the toolkit names acl_<op>.h (acl_stft.h: aclStft)
    ops = sorted(p.relative_to(include_dir).as_posix() for pattern in ("aclnn_*.h", "acl_*.h")
                 for p in (include_dir / "aclnnop").glob(pattern))
    return list(HEADERS) + ops


_LINE_MARKER = re.compile(r'^# \d+ "(.*)"')
_INT_DEFINE = re.compile(r"^#define\s+([A-Za-z_]\w*)\s+(-?(?:0x[0-9A-Fa-f]+|\d+))\s*(?:/\*.*\*/)?\s*$")
_STATIC_CONST = re.compile(r"^(\s*static\s+const\s+[\w\s]+?\b\w+)\s*=\s*[^;]+;")


def preprocess(include_dir: Path = INCLUDE_DIR, cc: str | None = None) -> str:
    cc = cc or os.environ.get("CC") or "cc"
    source = "".join(f'#include "{h}"\n' for h in all_headers(include_dir))
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "all_headers.c"
        src.write_text(source)
        cmd = shlex.split(cc) + ["-E", "-dD", "-std=gnu11", "-D__attribute__(x)=", "-I", str(include_dir), str(src)]
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def cdef_from_headers(include_dir: Path = INCLUDE_DIR, cc: str | None = None) -> str:
    include_dir = include_dir.resolve()
    keep, out = False, []
    for line in preprocess(include_dir, cc).splitlines():
        marker = _LINE_MARKER.match(line)
        if marker:
            keep = Path(marker.group(1)).resolve().is_relative_to(include_dir)
            continue
        if not keep or not line.strip():
            continue
        if line.startswith("#"):
            m = _INT_DEFINE.match(line)
            if m:
                out.append(f"#define {m.group(1)} {m.group(2)}")
            continue
        out.append(_STATIC_CONST.sub(r"\1;", line).replace("_Bool", "bool"))  # stdbool's macro, undone
    return _drop_inline_definitions("\n".join(out)) + "\n"


def _drop_inline_definitions(text: str) -> str:
    """Remove ``static inline`` function definitions (cffi declares, it does not define; the headers' inline
    helpers, such as HcclCommConfigInit, stay C-only)."""
    out, i = [], 0
    for m in re.finditer(r"static\s+inline\b[^;{]*\{", text):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        out.append(text[i:m.start()])
        i = j
    out.append(text[i:])
    return "".join(out)


def cdef_from_files(headers, include_dir: Path = INCLUDE_DIR, cc: str | None = None) -> str:
    """The declarations of ``headers`` alone (not of what they include), preprocessed as above."""
    cc = cc or os.environ.get("CC") or "cc"
    wanted = {Path(h).resolve() for h in headers}
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "own_headers.c"
        src.write_text("".join(f'#include "{h}"\n' for h in sorted(wanted)))
        cmd = shlex.split(cc) + ["-E", "-std=gnu11", "-D__attribute__(x)=", "-I", str(include_dir), str(src)]
        text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    keep, out = False, []
    for line in text.splitlines():
        marker = _LINE_MARKER.match(line)
        if marker:
            keep = Path(marker.group(1)).resolve() in wanted
        elif keep and line.strip():
            out.append(line)
    return "\n".join(out) + "\n"


def function_signatures(cdef: str) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """{name: (result C type, [(parameter name, parameter C type), ...])} of every declared function."""
    import pycparser
    from pycparser import c_ast, c_generator

    text = "\n".join(l for l in cdef.splitlines() if not l.startswith("#"))
    ast = pycparser.CParser().parse(_fake_typedefs() + text)
    gen = c_generator.CGenerator()
    sigs: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    for node in ast.ext:
        if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl):
            fn = node.type
            result = gen.visit(c_ast.Typename(None, [], None, _strip_name(fn.type))).strip()
            params = []
            for p in fn.args.params if fn.args else []:
                if isinstance(p, c_ast.Typename) and gen.visit(p).strip() == "void":
                    continue
                ctype = gen.visit(c_ast.Typename(None, p.quals, None, _strip_name(p.type))).strip()
                params.append((p.name, ctype))
            sigs[node.name] = (result, params)
    return sigs


def constant_names(cdef: str) -> list[str]:
    """Names of the integer constants the extension exposes: enumerators, ``#define``s, static consts."""
    import pycparser
    from pycparser import c_ast

    names = [m.group(1) for m in re.finditer(r"^#define\s+(\w+)\s", cdef, re.M)]
    text = "\n".join(l for l in cdef.splitlines() if not l.startswith("#"))

    class Visitor(c_ast.NodeVisitor):
        def visit_Enumerator(self, node):
            names.append(node.name)

        def visit_Decl(self, node):
            if "static" in node.storage and "const" in node.quals and not isinstance(node.type, c_ast.FuncDecl):
                names.append(node.name)
            self.generic_visit(node)

    Visitor().visit(pycparser.CParser().parse(_fake_typedefs() + text))
    return sorted(set(names))


def _strip_name(t):
    """A copy of a declarator type without its identifier, so it prints as a type name."""
    import copy

    from pycparser import c_ast

    t = copy.deepcopy(t)
    node = t
    while not isinstance(node, c_ast.TypeDecl):
        node = node.type
    node.declname = None
    return t


def _fake_typedefs() -> str:
    return "".join(
        f"typedef int {name};\n"
        for name in ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
                     "size_t", "bool", "intptr_t", "uintptr_t")
    )


if __name__ == "__main__":
    print(cdef_from_headers())


def enum_types(cdef: str) -> list[str]:
    """The names of the enum typedefs in the declarations (``typedef enum { ... } aclrtRunMode;``)."""
    return sorted(set(re.findall(r"typedef\s+enum\b[^{;]*\{[^}]*\}\s*(\w+)\s*;", cdef)))
