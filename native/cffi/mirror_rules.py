"""How the mirror layer reads a C prototype: which parameters are out-parameters, which pointers take an array
built from a Python sequence, which take a raw address, and how far a function reads through a pointer.

Pure Python, shared by the build (the type stubs it generates) and by ``aclnn_py._mirror`` (the wrappers), so
both follow one set of rules. Installed as ``_aclnn_py_native.mirror_rules``.
"""

from __future__ import annotations

import keyword
import re

# Scalar C types that, behind a non-const pointer, mark an out-parameter.
SCALARS = {
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
    "int", "float", "double", "bool", "aclDataType", "aclFormat", "aclError", "aclnnStatus", "aclFloat16",
    "aclrtStream", "aclrtContext", "aclrtEvent",
}
# The enum typedefs of the headers (aclrtRunMode, aclrtEventRecordedStatus...): a non-const pointer to one is an
# out-parameter too. Filled from the declarations: by the build before it generates anything, and by
# aclnn_py._native from the table the build wrote (signatures.ENUM_TYPES).
ENUM_TYPES: set[str] = set()
POINTER_TYPEDEFS = {"aclrtStream", "aclrtContext", "aclrtEvent", "const aclrtStream"}
# Handle types that no function returns through a pointer: T ** of these is an input array of handles.
HANDLE_ARRAYS = {"aclTensor", "aclScalar"}
_OUT_POINTER = re.compile(r"^(?P<base>[A-Za-z_]\w*)\s*(?P<stars>\*+)$")

# Parameters that take a bare address: a cffi pointer, a host span or None.
RAW_POINTERS = {"void *", "const void *"} | POINTER_TYPEDEFS

# C element types that a pointer parameter reads as an array built from a Python sequence.
ARRAY_ITEMS = {"int64_t", "int32_t", "uint64_t", "uint32_t", "bool", "float", "double", "uint16_t", "int8_t",
               "uint8_t"}
_HANDLE_ITEM = re.compile(r"^(?:const )?(acl(?:Tensor|Scalar)) \* ?(?:const )?\*$")

# How far a C function reads or writes through a pointer parameter: {function: {pointer parameter:
# (length parameters, unit, written)}}. unit "elements" counts items of the array's C type, "bytes" bytes,
# "dtype" the size of one element of the aclDataType named by the length parameter.
NAMED_EXTENTS = {
    "aclCreateTensor": {"stride": (("viewDimsNum",), "elements", False)},
    "aclCreateScalar": {"value": (("dataType",), "dtype", False)},
}
# A pointer followed by a length parameter with one of these names is an array of that length.
_LENGTH_NAMES = re.compile(r"^(size|count|num|.*Num|.*Size|.*Count)$")
_INTEGER_TYPES = {"uint64_t", "int64_t", "size_t", "uint32_t", "int32_t"}


def is_out_param(ctype: str) -> bool:
    if ctype.startswith("const "):
        return False
    m = _OUT_POINTER.match(ctype.strip())
    if not m:
        return False
    stars = len(m.group("stars"))
    if stars == 2 and m.group("base") in HANDLE_ARRAYS:
        return False  # an array of handles the caller passes (aclDumpOpTensors' tensors), not a result
    return stars >= 2 or (stars == 1 and (m.group("base") in SCALARS or m.group("base") in ENUM_TYPES))


def array_item(ctype: str) -> str | None:
    """The element type when ``ctype`` is an input array the mirror builds from a sequence: ``const T *`` of a
    number type, or an array of tensor/scalar handles (``const aclTensor *const *``, ``aclTensor **``)."""
    if ctype.startswith("const ") and ctype.endswith(" *") and ctype[6:-2] in ARRAY_ITEMS:
        return ctype[6:-2]
    m = _HANDLE_ITEM.match(ctype)
    return f"{m.group(1)} *" if m else None


def is_array_out_pair(params, i: int) -> bool:
    """Parameters i and i + 1 are an ``int64_t **`` array the library allocates and its ``uint64_t *`` length."""
    return (i + 1 < len(params) and params[i][1] == "int64_t **" and params[i + 1][1] == "uint64_t *")


def _is_handle(ctype: str) -> bool:
    """One opaque object (``const aclTensor *``), never an array, whatever parameter follows it."""
    base = ctype.replace("const", "").strip()
    return base.count("*") == 1 and base.startswith("acl")


def extents(name: str, params) -> dict[str, tuple[tuple[str, ...], str, bool]]:
    """The extent rules of C function ``name``: the table above, the memcpy/memset shapes of the runtime
    (by parameter names), and every pointer directly followed by a length parameter."""
    names = [n for n, _ in params]
    rules = dict(NAMED_EXTENTS.get(name, {}))
    if {"dst", "destMax", "src", "count"} <= set(names):  # aclrtMemcpy and its Async variant
        rules.setdefault("dst", (("destMax", "count"), "bytes", True))
        rules.setdefault("src", (("count",), "bytes", False))
    if {"devPtr", "maxCount", "count"} <= set(names):    # aclrtMemset and its Async variant
        rules.setdefault("devPtr", (("maxCount", "count"), "bytes", True))
    for (pname, ctype), nxt in zip(params, params[1:]):
        if pname in rules or not ctype.endswith("*") or is_out_param(ctype) or _is_handle(ctype):
            continue
        if nxt[1] in _INTEGER_TYPES and _LENGTH_NAMES.match(nxt[0]):
            rules[pname] = ((nxt[0],), "bytes" if "void" in ctype else "elements", False)
    return rules


# The mirror modules: which C functions and integer constants each one holds.
# The tensor meta API's own objects (libnnopbase): creating, destroying, initialising and reading them only takes
# the stub's handle-table locks for a moment and never waits for queued work or calls back into Python, so their
# compiled wrappers keep the GIL (releasing and retaking it costs more than the call). Executors are not among them:
# destroying one can wait for its kernel.
_KEEPS_GIL = re.compile(r"^acl(Create|Destroy|Init|Get)(Tensor|Scalar|IntArray|FloatArray|BoolArray|TensorList|"
                        r"ScalarList|DataType|Format|ViewShape|ViewOffset|ViewStrides|StorageShape|RawTensorAddr|"
                        r"IntArraySize|FloatArraySize|BoolArraySize|TensorListSize|ScalarListSize)$")


def keeps_gil(name: str) -> bool:
    """Whether the compiled wrapper of C function `name` calls it without releasing the GIL."""
    return _KEEPS_GIL.match(name) is not None


CONSTANT_PREFIXES = {"acl": ("ACL_", "OK"), "aclnn": ("ACLNN_",)}


def mirror_module(name: str) -> str | None:
    """``"acl"`` (runtime, tensor meta API, stub introspection), ``"aclnn"`` (operators) or None (the
    extension's own ``aclnnpy_*`` helpers)."""
    if name.startswith("aclnnpy"):
        return None
    if name.startswith("aclnn"):
        return "aclnn"
    return "acl" if name.startswith(("acl", "Acl")) else None


def py_name(name: str) -> str:
    """The Python parameter name of C parameter ``name`` (a keyword gets a trailing underscore)."""
    return name + "_" if keyword.iskeyword(name) else name


_INT_WORDS = {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
              "int", "aclFloat16"}


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def describe_param(function: str, pname: str, ctype: str) -> str:
    """What the mirror takes for parameter ``pname`` of C type ``ctype``, in words."""
    base = ctype.replace("const ", "").strip()
    if ctype in ("const char *", "char *"):
        return "a str (None for NULL)"
    item = array_item(ctype)
    if item is not None:
        if item.endswith("*"):
            return f"a sequence of {item.strip(' *')} handles (None for a NULL entry), or a cffi array"
        return f"a sequence of {item} (list, tuple, numpy array) or a cffi array; None for NULL"
    if NAMED_EXTENTS.get(function, {}).get(pname, ((), ""))[1] == "dtype":
        lengths = NAMED_EXTENTS[function][pname][0]
        return f"a number, stored as one element of the aclDataType `{lengths[0]}` names (or a cffi pointer to one)"
    if base in POINTER_TYPEDEFS:
        return f"{_a(base)} handle (None for NULL{': the default stream' if base == 'aclrtStream' else ''})"
    if ctype in RAW_POINTERS:
        return "an address: a cffi pointer, an acl.host_ptr(...) span or None (NULL)"
    if ctype.endswith("*"):
        return f"{_a(base.rstrip(' *'))} handle, or None for NULL"
    if base == "bool":
        return "a bool"
    if base in ("float", "double"):
        return f"a float ({base})"
    if base in ENUM_TYPES or base in ("aclDataType", "aclFormat"):
        return f"an int, {_a(base)} value (the module's constants)"
    if base in _INT_WORDS:
        return f"an int ({base})"
    return _a(base)


def _describe_out(ctype: str) -> str:
    base = ctype.strip()[:-1].strip()
    if ctype.count("*") >= 2 or base in POINTER_TYPEDEFS:
        return f"{_a(base)} (cffi pointer)"
    if base in ENUM_TYPES:
        return f"an int, {_a(base)} value"
    return "a float" if base in ("float", "double") else "a bool" if base == "bool" else "an int"


def doc(name: str, result: str, params) -> str:
    """The docstring of the mirror of C function ``name``: the prototype, what each parameter takes, what comes
    back and how a failure shows."""
    args = ", ".join(f"{t} {n}" for n, t in params)
    outs = [n for n, t in params if is_out_param(t)]
    text = f"Mirror of ``{result} {name}({args})``."
    if outs:
        text += f" Returns {', '.join(outs)}."
    rules = extents(name, params)
    lines = []
    i = 0
    while i < len(params):
        pname, ctype = params[i]
        if is_array_out_pair(params, i):
            i += 2
            continue
        if not is_out_param(ctype):
            words = describe_param(name, pname, ctype)
            if pname in rules and rules[pname][1] != "dtype":
                lengths, unit, written = rules[pname]
                words += (f"; checked to hold {' and '.join(lengths)} {unit}"
                          + (" and to be writable" if written else ""))
            lines.append(f"  {py_name(pname)}: {words}")
        i += 1
    if lines:
        text += "\n\nParameters:\n" + "\n".join(lines)
    returned = []
    i = 0
    while i < len(params):
        if is_array_out_pair(params, i):
            returned.append(f"  {params[i][0]}: a list of int ({params[i + 1][0]} of them)")
            i += 2
            continue
        if is_out_param(params[i][1]):
            returned.append(f"  {params[i][0]}: {_describe_out(params[i][1])}")
        i += 1
    if returned:
        text += "\n\nReturns (a tuple in C order when several):\n" + "\n".join(returned)
    if result in ("aclError", "aclnnStatus"):
        family = "AclError" if result == "aclError" else "AclnnError"
        text += (f"\n\nA non-zero {result} raises aclnn_py.{family} (the code's own subclass), with the "
                 "library's message.")
    elif result.endswith("*") and result not in ("const char *", "char *", "void *"):
        text += "\n\nReturns the new handle; NULL (a failure) raises aclnn_py.AclnnError with the library's message."
    return text
