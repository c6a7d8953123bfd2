"""Write the operator list page (``operators.md``) from the operator tables, at documentation build time.

Sources, so that an operator added anywhere appears without editing this page:
- every ``aclnnop/aclnn_*.h`` header of the installed package: the operators it declares (one per
  ``aclnn<Name>GetWorkspaceSize``) and their C parameters (``aclnn_py.aclnn.describe``);
- the stub's operator libraries (``libopapi_*.so``): which library implements each operator (its family);
- the Python operator table (``aclnn_py._optable.OPS``): the high-level function, with its real signature.

Run by mkdocs-gen-files (``mkdocs.yml``); ``python docs/gen_operators.py`` prints the page.
"""

from __future__ import annotations

import ctypes
import inspect
import re
from dataclasses import dataclass
from pathlib import Path

import aclnn_py
from aclnn_py import aclnn
from aclnn_py._optable import OPS

DECLARATION = re.compile(r"\b(aclnn\w+)GetWorkspaceSize\s*\(")
# The roles aclnn.describe gives that a reader passes (the workspace and executor are the two phases' own).
PHASE_ROLES = {"workspace size", "executor"}


@dataclass(frozen=True)
class Row:
    c_name: str
    header: str                 # as included: aclnnop/aclnn_xxx.h
    library: str | None         # the stub library exporting it, None when no library does
    params: tuple[tuple[str, str], ...]  # C parameters of phase 1 (name, role), workspace and executor left out
    function: str | None        # the high-level function, e.g. "moe_token_permute"
    signature: str | None       # its parameters as inspect shows them, without "(...)"


def operator_headers() -> dict[str, str]:
    """Each operator declared by the package's headers -> its header as included."""
    found = {}
    for path in sorted((Path(aclnn_py.get_include()) / "aclnnop").glob("aclnn_*.h")):
        for name in DECLARATION.findall(path.read_text(errors="replace")):
            found.setdefault(name, f"aclnnop/{path.name}")
    return found


def stub_libraries() -> list[tuple[str, ctypes.CDLL]]:
    lib_dir = Path(aclnn_py.get_lib_dir())
    # the repository libraries (libopapi_math.so...), not libopapi.so, which exports every operator
    return [(p.name, ctypes.CDLL(str(p))) for p in sorted(lib_dir.glob("libopapi_*.so"))]


def rows() -> list[Row]:
    libraries = stub_libraries()
    by_name = {op.c_name: op for op in OPS}
    result = []
    headers = operator_headers()
    for c_name in sorted(set(headers) | set(by_name)):
        op = by_name.get(c_name)
        library = next((n for n, lib in libraries if hasattr(lib, c_name + "GetWorkspaceSize")), None)
        params = tuple((p["name"], p["role"]) for p in aclnn.describe(c_name + "GetWorkspaceSize")
                       if p["role"] not in PHASE_ROLES)
        function = signature = None
        if op is not None:
            function = op.py_name
            signature = str(inspect.signature(getattr(aclnn_py, function)))[1:-1]
        result.append(Row(c_name, headers.get(c_name, op.header if op else ""), library, params, function,
                          signature))
    return result


def parameters(row: Row) -> str:
    """The C parameters grouped by role, in C order within each role: "input tensor: `a`, `b`<br>..."."""
    roles: dict[str, list[str]] = {}
    for name, role in row.params:
        roles.setdefault(role, []).append(f"`{name}`")
    return "<br>".join(f"{role}: {', '.join(names)}" for role, names in roles.items())


def family(row: Row) -> str:
    if row.library is None:
        return "declared only (headers without a stub implementation)"
    return row.library[len("lib"):-len(".so")]


def render() -> str:
    table = rows()
    families = sorted({family(r) for r in table}, key=lambda f: (f.startswith("declared"), f))
    out = [
        "# Operators",
        "",
        f"{len(table)} operators: every one declared by the headers under `aclnnop/` that aclnn-py installs, "
        "grouped by the stub library that implements it. Each is callable from Python three ways: the mirror "
        "(`aclnn_py.aclnn.aclnnXxxGetWorkspaceSize(...)` then `aclnn_py.aclnn.aclnnXxx(...)`), "
        "`aclnn_py.run(\"aclnnXxx\", ...)` on numpy arrays, torch tensors or device Tensors, and, where the "
        "table gives one, its high-level function `aclnn_py.xxx(...)`. This page is generated from the headers, "
        "the stub's libraries and the operator table when the documentation is built.",
        "",
        "High-level functions take inputs and attributes in C order with snake_case names, accept `None` for "
        "optional tensors, allocate the outputs and return them (a tuple when there are several; `None` for an "
        "optional output the call does not produce) in the kind of the first tensor argument (numpy arrays, torch "
        "tensors, device `Tensor`s); `stream=` is keyword-only. "
        "`aclnn_py.reference` holds a numpy reference of each with the same signature.",
        "",
    ]
    for fam in families:
        members = [r for r in table if family(r) == fam]
        out += [f"## {fam}", "", f"{len(members)} operators.", "",
                "| operator | high-level function | C parameters of phase 1 | header |", "|---|---|---|---|"]
        for r in members:
            fn = f"`{r.function}({r.signature})`" if r.function else ""
            out.append(f"| {r.c_name} | {fn} | {parameters(r)} | `{r.header}` |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(render())
elif __name__ == "<run_path>":  # mkdocs-gen-files
    import mkdocs_gen_files

    with mkdocs_gen_files.open("operators.md", "w") as f:
        f.write(render())
