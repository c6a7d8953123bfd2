"""Generate the C source of the cffi extension ``_aclnn_py_native._cffi`` and its signature table.

The extension does not link against any CANN library. Every C function it exposes calls through a
table of function pointers that the loader fills at run time with dlopen/dlsym, from a real CANN
toolkit or from the stub, so one build serves both (cffi API mode speed, late binding).

Usage: python build_native.py --out-dir DIR   (writes DIR/_cffi.c, the compiled mirror DIR/_mirror.c,
DIR/signatures.py, the type stubs DIR/acl.pyi, DIR/aclnn.pyi of the mirror modules and DIR/errors.pyi of the
error classes)
"""

from __future__ import annotations

import argparse
import pprint
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cdef as cdef_mod  # noqa: E402
import mirror_gen  # noqa: E402
import mirror_rules  # noqa: E402
import errors_stubgen  # noqa: E402
import stubgen  # noqa: E402

# The extension's own functions (loader.c, memory_pool.c, fastpath.c): declared for Python by a real header.
OWN_HEADER = HERE / "aclnnpy.h"
GLUE_HEADER = HERE / "aclnnpy_glue.h"


def glue_limits() -> dict[str, int]:
    """The one-call path's per-kind parameter limits (ACLNNPY_MAX_TENSORS...) as the C glue header states them."""
    import re

    text = GLUE_HEADER.read_text()
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"#define ACLNNPY_MAX_(\w+) (\d+)", text)}


def _c_strings(items) -> str:
    return "{" + ", ".join(f'"{s}"' for s in items) + "}"


def _kind(ctype: str) -> str | None:
    """How the one-call path carries a parameter of C type ``ctype``: T (tensor), R (int array), A (an
    attribute held as an int64), or None (it cannot)."""
    base = ctype.replace("const ", "").strip()
    if base == "aclTensor *":
        return "T"
    if base == "aclIntArray *":
        return "R"
    return "A" if "*" not in base else None


def fastpath_ops(signatures) -> dict[str, str]:
    """{operator: parameter kinds} of every compiled operator the one-call path can run, in dispatch order:
    both phases declared, phase 1 ending in (uint64_t *workspaceSize, aclOpExecutor **executor), every other
    parameter a tensor, an int array or a scalar value, within the glue's limits."""
    limits = glue_limits()
    ops = {}
    for gws in sorted(signatures):
        name = gws[: -len("GetWorkspaceSize")]
        if not gws.startswith("aclnn") or not gws.endswith("GetWorkspaceSize") or name not in signatures:
            continue
        params = signatures[gws][1]
        if [t for _, t in params[-2:]] != ["uint64_t *", "aclOpExecutor **"]:
            continue
        kinds = [_kind(t) for _, t in params[:-2]]
        if None in kinds or any(kinds.count(k) > limits[key] for k, key in (("T", "TENSORS"), ("A", "ATTRS"),
                                                                               ("R", "ARRAYS"))):
            continue
        ops[name] = "".join(kinds)
    return ops


def dispatch_source(signatures, ops: dict[str, str]) -> str:
    """Per-operator glue of fastpath.c: parameter kinds, and both phases called with typed arguments."""
    gws_cases, exec_cases = [], []
    for i, (name, kinds) in enumerate(ops.items()):
        counts, args = {"T": 0, "A": 0, "R": 0}, []
        for kind, (_, ctype) in zip(kinds, signatures[name + "GetWorkspaceSize"][1]):
            j = counts[kind]
            counts[kind] += 1
            if kind == "A":
                args.append(f"a[{j}] != 0" if ctype == "bool" else f"({ctype})a[{j}]")
            else:
                args.append(f"{'t' if kind == 'T' else 'r'}[{j}]")
        gws_cases.append(f"    case {i}: return {name}GetWorkspaceSize({', '.join(args)}, ws, ex);")
        exec_cases.append(f"    case {i}: return {name}(w, n, ex, s);")
    return (
        f"const int aclnnpy_num_ops = {len(ops)};\n"
        f"const char *const aclnnpy_op_kinds[] = {_c_strings(ops.values())};\n"
        f"const char *const aclnnpy_gws_names[] = {_c_strings(n + 'GetWorkspaceSize' for n in ops)};\n"
        f"const char *const aclnnpy_exec_names[] = {_c_strings(ops)};\n"
        "aclnnStatus aclnnpy_gws(int op, aclTensor **t, const int64_t *a, aclIntArray **r, uint64_t *ws,\n"
        "                        aclOpExecutor **ex) {\n    switch (op) {\n" + "\n".join(gws_cases)
        + "\n    }\n    (void)t; (void)a; (void)r; (void)ws; (void)ex;\n    return ACLNN_ERR_PARAM_INVALID;\n}\n"
        "aclnnStatus aclnnpy_exec(int op, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) {\n"
        "    switch (op) {\n" + "\n".join(exec_cases)
        + "\n    }\n    (void)w; (void)n; (void)ex; (void)s;\n    return ACLNN_ERR_PARAM_INVALID;\n}\n"
    )


def unbound_source(names, signatures) -> str:
    """One "not bound" function per distinct signature, and the symbol table with every slot pointing at
    the one of its signature: a call that reaches a symbol before the libraries are bound (or one the
    libraries lack) returns an error status (ACL_ERROR_API_NOT_SUPPORT for aclError, ACLNN_ERR_INNER for
    aclnnStatus), NULL or zero instead of jumping through an unset pointer."""
    functions, slots, by_signature = [], [], {}
    for name in names:
        result, params = signatures[name]
        key = (result, tuple(t for _, t in params))
        if key not in by_signature:
            fn = by_signature[key] = f"aclnnpy_unbound_{len(by_signature)}"
            args = ", ".join(f"{t} p{i}" for i, t in enumerate(key[1])) or "void"
            body = "".join(f" (void)p{i};" for i in range(len(key[1])))
            if result == "void":
                ret = ""
            elif result == "aclError":
                ret = " return ACL_ERROR_API_NOT_SUPPORT;"
            elif result == "aclnnStatus":
                ret = " return ACLNN_ERR_INNER;"
            elif result.endswith("*"):
                ret = " return NULL;"
            else:
                ret = f" {result} zero; memset(&zero, 0, sizeof zero); return zero;"
            functions.append(f"static {result} {fn}({args}) {{{body}{ret} }}\n")
        slots.append(f"(void *){by_signature[key]}")
    init = "{" + ", ".join(slots) + "}"
    return ("#include <string.h>\n" + "".join(functions)
            + f"const int aclnnpy_num_symbols = {len(names)};\n"
            + f"const char *const aclnnpy_symbol_names[] = {_c_strings(names)};\n"
            + f"void *const aclnnpy_unbound[] = {init};\n"
            + f"void *aclnnpy_ptrs[] = {init};\n"
            + f"int aclnnpy_origin[{len(names)}];\n")


def generate(out_dir: Path, cc: str | None = None) -> None:
    import cffi

    cdef = cdef_mod.cdef_from_headers(cc=cc)
    enums = cdef_mod.enum_types(cdef)
    mirror_rules.ENUM_TYPES.update(enums)  # before any rule is applied: a pointer to an enum is an out-parameter
    signatures = cdef_mod.function_signatures(cdef)
    names = sorted(signatures)

    includes = "".join(f'#include "{h}"\n' for h in cdef_mod.all_headers()) + f'#include "{GLUE_HEADER.name}"\n'
    # After this point every call to NAME goes through slot i of the table. A macro is not expanded
    # inside its own replacement, so __typeof__(&NAME) still names the declared function type.
    redirects = "".join(
        f"#define {n} ((__typeof__(&{n}))aclnnpy_ptrs[{i}])\n" for i, n in enumerate(names)
    )
    ops = fastpath_ops(signatures)
    source = (
        includes
        + unbound_source(names, signatures)
        + (HERE / "loader.c").read_text()
        + redirects
        + dispatch_source(signatures, ops)
        + (HERE / "memory_pool.c").read_text()
        + (HERE / "fastpath.c").read_text()
    )

    ffi = cffi.FFI()
    ffi.cdef(cdef + cdef_mod.cdef_from_files([OWN_HEADER], cc=cc))
    ffi.set_source("_aclnn_py_native._cffi", source)
    out_dir.mkdir(parents=True, exist_ok=True)
    ffi.emit_c_code(str(out_dir / "_cffi.c"))
    (out_dir / "_mirror.c").write_text(mirror_gen.source(
        {n: {"result": r, "params": p} for n, (r, p) in signatures.items()}, ffi))

    for module in ("acl", "aclnn"):
        (out_dir / f"{module}.pyi").write_text(stubgen.module_stub(module, signatures, cdef_mod.constant_names(cdef)))
    (out_dir / "errors.pyi").write_text(errors_stubgen.errors_stub(
        p.read_text(errors="replace") for p in sorted(cdef_mod.INCLUDE_DIR.rglob("*.h"))))

    table = {n: {"result": signatures[n][0], "params": signatures[n][1]} for n in names}
    (out_dir / "signatures.py").write_text(
        '"""Generated from native/include by native/cffi/build_native.py: every C function the extension\n'
        'exposes, with its result type and its parameters (name, C type) in order. Do not edit."""\n\n'
        "SIGNATURES = " + pprint.pformat(table, width=110, sort_dicts=True) + "\n\n"
        "# The operators of the one-call path (aclnnpy_run), in dispatch order: {operator: parameter kinds in C\n"
        "# order, T tensor, A attribute, R aclIntArray}.\n"
        "FASTPATH_OPS = " + pprint.pformat(ops, width=110, sort_dicts=False) + "\n\n"
        "# The enum typedefs of the headers (mirror_rules.ENUM_TYPES: a pointer to one is an out-parameter).\n"
        "ENUM_TYPES = " + pprint.pformat(enums, width=110) + "\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--cc", default=None, help="C compiler used to preprocess the headers")
    args = parser.parse_args()
    generate(args.out_dir, args.cc)
