"""Generate the C source of the cffi extension ``_aclnn_py_native._cffi`` and its signature table.

The extension does not link against any CANN library. Every C function it exposes calls through a
table of function pointers that the loader fills at run time with dlopen/dlsym, from a real CANN
toolkit or from the stub, so one build serves both (cffi API mode speed, late binding).

Usage: python build_native.py --out-dir DIR   (writes DIR/_cffi.c and DIR/signatures.py)
"""

from __future__ import annotations

import argparse
import pprint
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cdef as cdef_mod  # noqa: E402

# What the extension adds to the headers' functions, implemented in loader.c and fastpath.c.
EXTRA_CDEF = """
const char *aclnnpy_open(const char *path);
int aclnnpy_bind(void);
int aclnnpy_symbol_count(void);
const char *aclnnpy_symbol_name(int index);
const char *aclnnpy_symbol_library(int index);
void aclnnpy_free(void *ptr);
int aclnnpy_library_count(void);
const char *aclnnpy_library_path(int library);
void *aclnnpy_symbol_in(int library, const char *name);
void *aclnnpy_symbol_address(const char *name, int *library);
int aclnnpy_run(int op, void *const *host, const int64_t *meta, aclrtStream stream, int zero_outputs,
                const char **failed);
int aclnnpy_workspace(aclrtStream stream, uint64_t size, void **ptr);
int aclnnpy_stream_release(aclrtStream stream);
int aclnnpy_pool_malloc(aclrtStream stream, uint64_t size, void **ptr, int *fresh);
void aclnnpy_pool_free(aclrtStream stream, void *ptr, uint64_t size);
int aclnnpy_pool_release_blocks(aclrtStream stream, int all);
void aclnnpy_pool_stats(uint64_t *out);
void aclnnpy_pool_set_enabled(int on);
"""



OPTABLE = HERE.parent.parent / "aclnn_py" / "_optable.py"


def load_optable():
    """The operator table, loaded by path: it needs only the standard library."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("aclnn_py_optable", OPTABLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _c_strings(items) -> str:
    return "{" + ", ".join(f'"{s}"' for s in items) + "}"


def dispatch_source(signatures) -> str:
    """Per-operator glue of fastpath.c: parameter kinds, and both phases called with typed arguments."""
    ops = load_optable().OPS
    kinds, gws_cases, exec_cases = [], [], []
    for i, op in enumerate(ops):
        gws = op.c_name + "GetWorkspaceSize"
        c_params = signatures[gws][1]
        names = [p.name for p in op.params]
        if [n for n, _ in c_params[:-2]] != names:
            raise SystemExit(f"{OPTABLE}: parameters of {op.c_name} do not match its header: {names}")
        args, nt, na, nr, k = [], 0, 0, 0, ""
        for p, (_, ctype) in zip(op.params, c_params):
            if p.role in ("in", "out"):
                args.append(f"t[{nt}]")
                nt, k = nt + 1, k + "T"
            elif p.role == "intarray":
                args.append(f"r[{nr}]")
                nr, k = nr + 1, k + "R"
            else:
                args.append(f"a[{na}] != 0" if ctype == "bool" else f"({ctype})a[{na}]")
                na, k = na + 1, k + "A"
        kinds.append(k)
        gws_cases.append(f"    case {i}: return {gws}({', '.join(args)}, ws, ex);")
        exec_cases.append(f"    case {i}: return {op.c_name}(w, n, ex, s);")
    return (
        f"#define ACLNNPY_NUM_OPS {len(ops)}\n"
        f"static const char *const aclnnpy_op_kinds[] = {_c_strings(kinds)};\n"
        f"static const char *const aclnnpy_gws_names[] = {_c_strings(op.c_name + 'GetWorkspaceSize' for op in ops)};\n"
        f"static const char *const aclnnpy_exec_names[] = {_c_strings(op.c_name for op in ops)};\n"
        "static aclnnStatus aclnnpy_gws(int op, aclTensor **t, const int64_t *a, aclIntArray **r, uint64_t *ws,\n"
        "                               aclOpExecutor **ex) {\n    switch (op) {\n" + "\n".join(gws_cases)
        + "\n    }\n    return ACLNN_ERR_PARAM_INVALID;\n}\n"
        "static aclnnStatus aclnnpy_exec(int op, void *w, uint64_t n, aclOpExecutor *ex, aclrtStream s) {\n"
        "    switch (op) {\n" + "\n".join(exec_cases) + "\n    }\n    return ACLNN_ERR_PARAM_INVALID;\n}\n"
    )


def unbound_source(names, signatures) -> str:
    """One "not bound" function per distinct signature, and the table's initial value pointing every slot
    at the one of its signature: a call that reaches a symbol before the libraries are bound (or one the
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
    return ("#include <string.h>\n" + "".join(functions)
            + "#define ACLNNPY_UNBOUND_INIT {" + ", ".join(slots) + "}\n")


def generate(out_dir: Path, cc: str | None = None) -> None:
    import cffi

    cdef = cdef_mod.cdef_from_headers(cc=cc)
    signatures = cdef_mod.function_signatures(cdef)
    names = sorted(signatures)

    includes = "".join(f'#include "{h}"\n' for h in cdef_mod.all_headers())
    symbol_names = _c_strings(names)
    # After this point every call to NAME goes through slot i of the table. A macro is not expanded
    # inside its own replacement, so __typeof__(&NAME) still names the declared function type.
    redirects = "".join(
        f"#define {n} ((__typeof__(&{n}))aclnnpy_ptrs[{i}])\n" for i, n in enumerate(names)
    )
    source = (
        includes
        + f"#define ACLNNPY_NUM_SYMBOLS {len(names)}\n"
        + f"static const char *const aclnnpy_symbol_names[] = {symbol_names};\n"
        + unbound_source(names, signatures)
        + (HERE / "loader.c").read_text()
        + redirects
        + dispatch_source(signatures)
        + (HERE / "device_pool.c").read_text()
        + (HERE / "fastpath.c").read_text()
    )

    ffi = cffi.FFI()
    ffi.cdef(cdef + EXTRA_CDEF)
    ffi.set_source("_aclnn_py_native._cffi", source)
    out_dir.mkdir(parents=True, exist_ok=True)
    ffi.emit_c_code(str(out_dir / "_cffi.c"))

    table = {n: {"result": signatures[n][0], "params": signatures[n][1]} for n in names}
    (out_dir / "signatures.py").write_text(
        '"""Generated from native/include by native/cffi/build_native.py: every C function the extension\n'
        'exposes, with its result type and its parameters (name, C type) in order. Do not edit."""\n\n'
        "SIGNATURES = " + pprint.pformat(table, width=110, sort_dicts=True) + "\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--cc", default=None, help="C compiler used to preprocess the headers")
    args = parser.parse_args()
    generate(args.out_dir, args.cc)
