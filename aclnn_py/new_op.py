"""``python -m aclnn_py new-op <aclnnName>``: a skeleton C file for an operator on the stub's operator SDK.

The parameter table and the entry-point macro are filled in from the operator's official header (its
``<aclnnName>GetWorkspaceSize`` prototype); the accepted dtype sets, the operator's check and its kernel are
left to write. Until they are written the skeleton's phase 1 fails with a "not implemented" error, so a
skeleton can never pass for a working operator.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

# C type (without const and spaces) -> SDK role; tensors are decided by name and constness below.
ROLES = {
    "aclIntArray*": "ACLSTUB_INT_ARRAY",
    "aclBoolArray*": "ACLSTUB_BOOL_ARRAY",
    "aclFloatArray*": "ACLSTUB_FLOAT_ARRAY",
    "aclScalar*": "ACLSTUB_SCALAR",
    "aclTensorList*": "ACLSTUB_TENSOR_LIST",
    "aclScalarList*": "ACLSTUB_SCALAR_LIST",
    "int64_t": "ACLSTUB_INT",
    "bool": "ACLSTUB_BOOL",
    "double": "ACLSTUB_FLOAT",
    "float": "ACLSTUB_FLOAT",
    "char*": "ACLSTUB_STRING",
    "aclDataType": "ACLSTUB_DTYPE",
}
HANDLE_ROLES = {"ACLSTUB_INT_ARRAY", "ACLSTUB_BOOL_ARRAY", "ACLSTUB_FLOAT_ARRAY", "ACLSTUB_SCALAR",
                "ACLSTUB_TENSOR_LIST", "ACLSTUB_SCALAR_LIST"}


class NewOpError(Exception):
    """The header or the prototype cannot be turned into a skeleton (the message says why)."""


@dataclass(frozen=True)
class Param:
    c_type: str  # as written in the header, e.g. "const aclTensor *"
    name: str
    role: str
    enum: str = ""  # the index constant in the skeleton (unique: see enum_names)


# Identifiers the skeleton or its headers define, which no index constant may take.
RESERVED = {"OK", "OP", "PARAMS", "NULL", "EOF", "TRUE", "FALSE"}


def enum_names(names: list[str]) -> list[str]:
    """An index constant per parameter: its name in upper snake case (xOut and x_out both X_OUT), made unique
    with a suffix, and never a name the skeleton or the SDK headers define (OK, OP, ACL..., ...)."""
    taken, out = set(RESERVED), []
    for name in names:
        base = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()
        if base in RESERVED or base.startswith(("ACL", "_")):
            base = f"{base.lstrip('_')}_PARAM"
        enum, n = base, 2
        while enum in taken:
            enum, n = f"{base}_{n}", n + 1
        taken.add(enum)
        out.append(enum)
    return out


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def _param(decl: str) -> Param:
    decl = " ".join(decl.split())
    m = re.fullmatch(r"(.*?[\s*&])([A-Za-z_]\w*)", decl)
    if not m:
        raise NewOpError(f"cannot read the parameter {decl!r}")
    c_type, name = m.group(1).strip(), m.group(2)
    key = c_type.replace("const", "").replace(" ", "")
    if key == "aclTensor*":
        is_out = "const" not in c_type.split("*")[0].split() or re.search(r"(Out|out)(Optional)?$", name)
        role = "ACLSTUB_OPTIONAL_" if name.endswith("Optional") else "ACLSTUB_"
        role += "OUTPUT" if is_out else "INPUT"
    elif key in ROLES:
        role = ROLES[key]
    else:
        raise NewOpError(f"parameter '{name}' has the type {c_type!r}, which the operator SDK does not know")
    return Param(re.sub(r"\s*\*", " *", c_type).replace("* *", "**"), name, role)


def parse_prototype(header_text: str, op: str) -> list[Param]:
    text = _strip_comments(header_text)
    m = re.search(rf"\b{re.escape(op)}GetWorkspaceSize\s*\(([^)]*)\)", text)
    if not m:
        raise NewOpError(f"no prototype of {op}GetWorkspaceSize in the header")
    decls = [d.strip() for d in m.group(1).split(",") if d.strip()]
    if len(decls) < 2 or not decls[-2].replace(" ", "").startswith("uint64_t*") or "aclOpExecutor" not in decls[-1]:
        raise NewOpError(f"{op}GetWorkspaceSize does not end with (uint64_t *workspaceSize, aclOpExecutor **executor)")
    params = [_param(d) for d in decls[:-2]]
    return [Param(p.c_type, p.name, p.role, e) for p, e in zip(params, enum_names([p.name for p in params]))]


def find_header(op: str, include_dirs: list[Path]) -> tuple[Path, str]:
    """The header declaring op and the path to #include it by, searched in include_dirs."""
    pattern = re.compile(rf"\b{re.escape(op)}GetWorkspaceSize\s*\(")
    for root in include_dirs:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.h")):
            try:
                if pattern.search(path.read_text(errors="replace")):
                    return path, path.relative_to(root).as_posix()
            except OSError:
                continue
    raise NewOpError(f"no header declaring {op}GetWorkspaceSize under " + ", ".join(map(str, include_dirs)))


def default_include_dirs() -> list[Path]:
    import aclnn_py

    dirs = [Path(aclnn_py.get_include())]
    for var in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"):
        if os.environ.get(var):
            dirs.append(Path(os.environ[var]) / "include")
    return dirs


def skeleton(op: str, params: list[Param], include: str, source: str) -> str:
    rows = []
    for p in params:
        if p.role.endswith(("INPUT", "OUTPUT")):
            extra = ", 0 /* TODO: accepted data types, e.g. ACLSTUB_DT_FLOATS */"
        elif p.role in HANDLE_ROLES and p.name.endswith("Optional"):
            extra = ", 0, NULL, ACLSTUB_NULLABLE"
        else:
            extra = ""
        rows.append(f'    [{p.enum}] = {{"{p.name}", {p.role}{extra}}},')
    unsupported = [p.name for p in params if p.role in HANDLE_ROLES - {"ACLSTUB_INT_ARRAY", "ACLSTUB_SCALAR"}]
    note = ("\n * Note: this version of the SDK declares but does not snapshot " + ", ".join(unsupported) +
            "; phase 1 reports that until it does.") if unsupported else ""
    pairs = ", ".join(f"({p.c_type}, {p.name})" for p in params)
    enum = ", ".join(p.enum for p in params)
    return f"""/*
 * {op} on the aclnn-py CPU stub: skeleton from {source}
 * (written by `python -m aclnn_py new-op {op}`). The parameter table follows the official prototype; fill in
 * the accepted data types, the operator's check and its kernel (see aclstub/op_sdk.h).{note}
 *
 *   cc -std=gnu11 -O2 -shared -fPIC this_file.c $(python -m aclnn_py config --sdk) -o libmy_ops.so
 */
#include "aclstub/op_sdk.h"
#include "{include}"

enum {{ {enum} }};

static const aclStubParam PARAMS[] = {{
{chr(10).join(rows)}
}};

/* Shapes and attributes, after the SDK's generic checks; record what the kernel needs in c->plan. */
static aclnnStatus check(aclStubOpCall *c) {{
    /* TODO: the operator's rules, e.g.
     *   ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(c, X)->ndim != 2, c, ACLNN_ERR_PARAM_INVALID, "x must be 2-D");
     *   if (aclStubNumel(aclStubOpTensor(c, OUT)) == 0) return aclStubOpNothingToDo(c);
     * then delete the line below. */
    return aclStubOpFail(c, ACLNN_ERR_INNER, "not implemented: the check and kernel of this operator are still to "
                         "be written");
}}

/* The computation, on views the work item owns (aclStubOpTensor(call, X)), from phase 2 on the stream. */
static aclnnStatus kernel(const aclStubOpCall *call) {{
    return aclStubKernelFail(call, ACLNN_ERR_INNER, "not implemented");
}}

static const aclStubOpDef OP = {{"{op}", PARAMS, ACLSTUB_LEN(PARAMS), NULL, check, kernel, 0}};

ACLSTUB_DEFINE_OP({op}, OP, {pairs})
"""


def new_op(op: str, header: str | None = None, include_dir: str | None = None) -> str:
    if not re.fullmatch(r"aclnn[A-Z]\w*", op):
        raise NewOpError(f"{op!r} is not an aclnn operator name (aclnn followed by a capitalised name)")
    if header:
        path = Path(header)
        if not path.is_file():
            raise NewOpError(f"no header {header}")
        include = path.name if path.parent.name != "aclnnop" else f"aclnnop/{path.name}"
    else:
        dirs = [Path(include_dir)] if include_dir else default_include_dirs()
        path, include = find_header(op, dirs)
    params = parse_prototype(path.read_text(errors="replace"), op)
    if not params:
        raise NewOpError(f"{op}GetWorkspaceSize has no parameters besides workspaceSize and executor")
    return skeleton(op, params, include, path.name)
