"""Generate the compiled mirror ``_aclnn_py_native._mirror``: one C wrapper per C function whose parameters are
all of the kinds a ported sample passes (handles, ints, enums, bools, lists of int64, raw addresses, scalar
and handle out-parameters), sharing mirror_fast.c.

It reads each prototype with the rules of ``mirror_rules`` in the order ``aclnn_py._mirror.make_wrapper``
does, and leaves out every function with a parameter or result the compiled path does not handle: those keep
the Python wrapper alone.
"""

from __future__ import annotations

from pathlib import Path

import mirror_rules as rules

HERE = Path(__file__).resolve().parent
RESULT_STATUS = {"aclError": 0, "aclnnStatus": 1}  # index into mirror_families[]


class Unsupported(Exception):
    pass


class _Types:
    """C type facts from the cffi declarations, and the pointer types the module needs as cffi ctypes."""

    def __init__(self, ffi):
        self.ffi = ffi
        self.pointer_types: list[str] = []

    def pointer_index(self, ctype: str) -> int:
        if ctype not in self.pointer_types:
            self.pointer_types.append(ctype)
        return self.pointer_types.index(ctype)

    def number(self, ctype: str):
        """("bool"|"enum"|"signed"|"unsigned"|"float", lo, hi) of a number type; Unsupported otherwise."""
        try:
            t = self.ffi.typeof(ctype)
        except Exception as exc:  # noqa: BLE001 - a type cffi cannot name here
            raise Unsupported(ctype) from exc
        if t.kind == "enum":
            return "enum", 0, 2**31 - 1  # what any enum's cffi base type (int or unsigned int) holds
        if t.kind != "primitive":
            raise Unsupported(ctype)
        if t.cname == "_Bool":
            return "bool", 0, 1
        if t.cname in ("float", "double"):
            return "float", 0, 0
        if t.cname in ("char", "wchar_t", "char16_t", "char32_t", "long double"):
            raise Unsupported(ctype)
        bits = 8 * self.ffi.sizeof(t)
        if int(self.ffi.cast(t, -1)) < 0:
            return "signed", -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        return "unsigned", 0, 2**bits - 1


def _c_int(value: int) -> str:
    if value == -(2**63):
        return "INT64_MIN"
    return f"{value}LL" if value < 2**63 else f"{value}ULL"


def _wrapper(index: int, name: str, sig: dict, types: _Types) -> str:
    result, params = sig["result"], sig["params"]
    extent = rules.extents(name, params)
    decls, convert, call_args, checks, outs = [], [], [], [], []
    lengths_of = {}  # int64-list parameter -> its length variable
    counted = []  # the length parameters of spans passed as bare addresses
    i = 0
    while i < len(params):
        pname, ctype = params[i]
        if rules.is_array_out_pair(params, i):
            raise Unsupported(ctype)
        if rules.is_out_param(ctype):
            base = ctype.rsplit("*", 1)[0].strip()
            if base.endswith("*") or base in rules.POINTER_TYPEDEFS:
                decls.append(f"    {base} o{i} = NULL;")
                call_args.append(f"&o{i}")
                outs.append(f"mirror_from_pointer((char *)o{i}, mirror_ctypes[{types.pointer_index(base)}])")
            else:
                kind, _, _ = types.number(base)
                decls.append(f"    {base} o{i} = 0;")
                call_args.append(f"&o{i}")
                outs.append({"bool": f"PyBool_FromLong(o{i})", "float": f"PyFloat_FromDouble((double)o{i})",
                             "signed": f"PyLong_FromLongLong((long long)o{i})",
                             "enum": f"PyLong_FromLongLong((long long)o{i})",
                             "unsigned": f"PyLong_FromUnsignedLongLong((unsigned long long)o{i})"}[kind])
            i += 1
            continue
        arg = f"args[{sum(1 for _, t in params[:i] if not rules.is_out_param(t))}]"
        rule = extent.get(pname)
        if ctype in ("const char *", "char *"):
            raise Unsupported(ctype)
        if ctype == "const int64_t *":
            if rule and rule[1] != "elements":
                raise Unsupported(ctype)
            decls.append(f"    int64_t b{i}[MIRROR_MAX_INTS], *a{i};\n    Py_ssize_t n{i};")
            convert.append(f"mirror_int64s({arg}, b{i}, &a{i}, &n{i})")
            lengths_of[pname] = f"n{i}"
        elif rule and rule[1] == "dtype" or rules.array_item(ctype):
            raise Unsupported(ctype)
        elif ctype in rules.RAW_POINTERS or ctype.endswith("*"):
            decls.append(f"    void *a{i};")
            target = types.pointer_index("void *" if ctype in rules.RAW_POINTERS else ctype)
            if rule:  # a counted span: None or a cffi pointer (the Python path checks arrays and host spans)
                convert.append(f"mirror_address({arg}, {target}, &a{i})")
                counted.append(rule[0])
            else:
                convert.append(f"mirror_pointer({arg}, {target}, &a{i})")
        else:
            base = ctype[6:] if ctype.startswith("const ") else ctype
            kind, lo, hi = types.number(base)
            if kind == "float":
                raise Unsupported(ctype)
            if kind == "bool":
                decls.append(f"    int a{i};")
                convert.append(f"mirror_bool({arg}, &a{i})")
            elif kind == "unsigned":
                decls.append(f"    unsigned long long a{i};")
                convert.append(f"mirror_unsigned({arg}, {_c_int(hi)}, &a{i})")
            else:
                decls.append(f"    long long a{i};")
                convert.append(f"mirror_signed({arg}, {_c_int(lo)}, {_c_int(hi)}, &a{i})")
        call_args.append(f"({ctype[6:] if ctype.startswith('const ') and not ctype.endswith('*') else ctype})a{i}")
        i += 1
    # A span's counts must be ints >= 0, and every count a list is read by must be within the list, as the
    # Python path checks.
    for lengths in counted:
        for lname in lengths:
            j = [n for n, _ in params].index(lname)
            kind, _, _ = types.number(params[j][1].replace("const ", ""))
            if kind not in ("signed", "unsigned"):
                raise Unsupported(params[j][1])
            if kind == "signed":
                checks.append(f"(a{j} >= 0)")
    for pname, (lengths, unit, _) in extent.items():
        if pname not in lengths_of:
            continue
        for lname in lengths:
            j = [n for n, _ in params].index(lname)
            kind, _, _ = types.number(params[j][1].replace("const ", ""))
            if kind not in ("signed", "unsigned"):
                raise Unsupported(params[j][1])
            low = f"a{j} >= 0 && " if kind == "signed" else ""
            checks.append(f"({low}(unsigned long long)a{j} <= (unsigned long long){lengths_of[pname]})")

    fn = f"((__typeof__(&{name}))mirror_functions[{index}])"
    nin = sum(1 for _, t in params if not rules.is_out_param(t))
    body = [f"static PyObject *m_{name}(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {{"]
    body += decls
    if result in RESULT_STATUS or result != "void":
        rdecl = "int32_t r;" if result in RESULT_STATUS else f"{result} r;"
        body.append(f"    {rdecl}")
    body.append("    (void)self;")
    guard = [f"nargs != {nin}", "kwnames != NULL"] + convert + [f"!{c}" for c in checks]
    body.append("    if (" + "\n        || ".join(guard) + ")")
    body.append(f"        return mirror_fallback({index}, args, nargs, kwnames);")
    call = f"{fn}({', '.join(call_args)})"
    if rules.keeps_gil(name):
        body.append(f"    {'r = ' if result != 'void' else ''}{call};")
    else:
        body.append("    Py_BEGIN_ALLOW_THREADS")
        body.append(f"    {'r = ' if result != 'void' else ''}{call};")
        body.append("    Py_END_ALLOW_THREADS")
    if result in RESULT_STATUS:
        body.append(f"    if (r != 0)\n        return mirror_status(r, \"{name}\", {RESULT_STATUS[result]});")
        if not outs:
            body.append("    Py_RETURN_NONE;")
        elif len(outs) == 1:
            body.append(f"    return {outs[0]};")
        else:
            body.append(f"    return mirror_outs({len(outs)}, " + ", ".join(outs) + ");")
    elif outs:
        raise Unsupported("out-parameters without a status")
    elif result == "void":
        body.append("    Py_RETURN_NONE;")
    elif result.endswith("*") and result not in ("const char *", "char *", "void *"):
        body.append(f"    return mirror_handle((void *)r, {types.pointer_index(result)}, \"{name}\");")
    else:
        kind, _, _ = types.number(result)
        if kind == "float":
            raise Unsupported(result)
        conv = {"bool": "PyBool_FromLong(r)", "unsigned": "PyLong_FromUnsignedLongLong((unsigned long long)r)"}
        body.append(f"    return {conv.get(kind, 'PyLong_FromLongLong((long long)r)')};")
    body.append("}\n")
    return "\n".join(body)


def _text_signature(name: str, params, doc: str) -> str:
    names = [rules.py_name(n) for n, t in params if not rules.is_out_param(t)]
    text = f"{name}({', '.join(names)})\n--\n\n{doc}"
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def source(signatures: dict, ffi) -> str:
    """The C source of the compiled mirror for ``signatures`` ({name: {"result", "params"}})."""
    types = _Types(ffi)
    wrappers, names, docs = [], [], []
    for name in sorted(signatures):
        if rules.mirror_module(name) is None:
            continue
        sig = signatures[name]
        try:
            code = _wrapper(len(names), name, sig, types)
        except Unsupported:
            continue
        wrappers.append(code)
        names.append(name)
        docs.append(_text_signature(name, sig["params"], rules.doc(name, sig["result"], sig["params"])))
    defs = "".join(
        f'    {{"{n}", (PyCFunction)(void (*)(void))m_{n}, METH_FASTCALL | METH_KEYWORDS, "{d}"}},\n'
        for n, d in zip(names, docs))
    quoted = lambda items: "{" + ", ".join(f'"{s}"' for s in items) + "}"  # noqa: E731
    return (
        (HERE / "mirror_fast.c").read_text()
        + "\n/* ---- generated by mirror_gen.py ---- */\n\n"
        + "".join(f'#include "{h}"\n' for h in _headers()) + "\n"
        + "\n".join(wrappers)
        + f"\nMIRROR_HIDDEN const int mirror_count = {len(names)};\n"
        + f"MIRROR_HIDDEN const char *const mirror_names[] = {quoted(names)};\n"
        + f"MIRROR_HIDDEN const int mirror_pointer_type_count = {len(types.pointer_types)};\n"
        + f"MIRROR_HIDDEN const char *const mirror_pointer_types[] = {quoted(types.pointer_types)};\n"
        + "MIRROR_HIDDEN PyMethodDef mirror_defs[] = {\n" + defs + "    {NULL, NULL, 0, NULL}\n};\n"
    )


def _headers():
    import cdef

    return cdef.all_headers()
