"""Build the mirror-layer wrappers from the signature table generated from the C headers.

Each C function becomes a Python function of the same name whose parameters are the C inputs in C
order; out-parameters (non-const pointers to a number, an enum or a pointer) become return values (one
value, or a tuple in C order); a non-zero ``aclError``/``aclnnStatus`` raises; a NULL handle from a
create function raises. Wrappers are generated as plain Python source once, on first use, so a call
costs one Python frame plus the cffi call.
"""

from __future__ import annotations

import keyword
import re
import threading

from . import errors, loader
from ._native import SIGNATURES, ffi, lib

# Scalar C types that, behind a non-const pointer, mark an out-parameter.
_SCALARS = {
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
    "int", "float", "double", "bool", "aclDataType", "aclFormat", "aclError", "aclnnStatus", "aclFloat16",
    "aclrtStream", "aclrtContext", "aclrtEvent",
}
_POINTER_TYPEDEFS = {"aclrtStream", "aclrtContext", "aclrtEvent", "const aclrtStream"}
_OUT_POINTER = re.compile(r"^(?P<base>[A-Za-z_]\w*)\s*(?P<stars>\*+)$")


def is_out_param(ctype: str) -> bool:
    if ctype.startswith("const "):
        return False
    m = _OUT_POINTER.match(ctype.strip())
    if not m:
        return False
    stars = len(m.group("stars"))
    return stars >= 2 or (stars == 1 and m.group("base") in _SCALARS)


def _pyname(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def _raiser(base):
    def raise_status(status, function):
        msg = lib.aclGetRecentErrMsg() if "aclGetRecentErrMsg" not in loader.load().missing_symbols else ffi.NULL
        text = ffi.string(msg).decode(errors="replace") if msg != ffi.NULL else None
        raise errors.error_for(base, status, function, text)

    return raise_status


_raise_acl = _raiser(errors.AclError)
_raise_aclnn = _raiser(errors.AclnnError)


def _array_out(ptr, count):
    """An int64 array returned by the library, as a list; the C array is freed (the stub uses malloc;
    CANN uses new[] on a trivially destructible type, which glibc serves from malloc)."""
    try:
        return [int(ptr[i]) for i in range(int(count))]
    finally:
        if ptr != ffi.NULL:
            lib.aclnnpy_free(ptr)


def make_wrapper(name: str):
    """The mirror function for C function ``name`` (raises SymbolNotFoundError when called if the
    loaded libraries lack it)."""
    backend = loader.load()
    if name in backend.missing_symbols:
        libs = backend.libraries

        def missing(*args, **kwargs):
            raise errors.SymbolNotFoundError(name, libs)

        missing.__name__ = missing.__qualname__ = name
        return missing

    sig = SIGNATURES[name]
    result, params = sig["result"], sig["params"]
    inputs, call_args, prologue, outs = [], [], [], []
    i = 0
    while i < len(params):
        pname, ctype = params[i]
        py = _pyname(pname)
        nxt = params[i + 1] if i + 1 < len(params) else None
        if ctype == "int64_t **" and nxt and nxt[1] == "uint64_t *":
            prologue.append(_cell_code(i, "int64_t **") + "\n" + _cell_code(i + 1, "uint64_t *"))
            call_args += [f"_o{i}", f"_o{i + 1}"]
            outs.append(f"_array_out(_o{i}[0], _o{i + 1}[0])")
            i += 2
            continue
        if is_out_param(ctype):
            prologue.append(_cell_code(i, ctype))
            call_args.append(f"_o{i}")
            outs.append(f"_o{i}[0]")
        else:
            inputs.append(py)
            if ctype in ("const char *", "char *"):
                prologue.append(f"    {py} = _cstr({py})")
            elif ctype == "const int64_t *":  # a Python list of dims/strides/values, as in the samples
                prologue.append(f"    if type({py}) is list:\n        {py} = _arrays.get(tuple({py})) or _int64_array({py})")
            elif ctype.endswith("*") or ctype in _POINTER_TYPEDEFS:  # None stands for NULL, as in C
                prologue.append(f"    if {py} is None:\n        {py} = _NULL")
            call_args.append(py)
        i += 1

    body = list(prologue)
    call = f"_f({', '.join(call_args)})"
    ret_outs = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")" if outs else "None"
    if result in ("aclError", "aclnnStatus"):
        raiser = "_raise_acl" if result == "aclError" else "_raise_aclnn"
        body.append(f"    _s = {call}\n    if _s:\n        {raiser}(_s, {name!r})\n    return {ret_outs}")
    elif result.endswith("*") and result not in ("const char *", "char *", "void *"):
        body.append(f"    _r = {call}\n    if _r == _NULL:\n        _raise_null({name!r})\n    return _r")
    elif result in ("const char *", "char *"):
        body.append(f"    _r = {call}\n    return None if _r == _NULL else _string(_r).decode(errors='replace')")
    elif result == "void":
        body.append(f"    {call}")
    else:
        body.append(f"    return {call}")
    src = f"def {name}({', '.join(inputs)}):\n" + "\n".join(body) + "\n"
    namespace = {
        "_f": getattr(lib, name), "_new": ffi.new, "_NULL": ffi.NULL, "_string": ffi.string,
        "_raise_acl": _raise_acl, "_raise_aclnn": _raise_aclnn, "_raise_null": _raise_null,
        "_cstr": _cstr, "_array_out": _array_out, "_tl": threading.local(), "_int64_array": _int64_array,
        "_arrays": _INT64_ARRAYS,
    }
    exec(compile(src, f"<aclnn_py mirror of {name}>", "exec"), namespace)
    fn = namespace[name]
    fn.__doc__ = _doc(name, result, params)
    fn.__source__ = src
    return fn


def _cell_code(i: int, ctype: str) -> str:
    """Code fetching out-parameter storage: one cell per parameter and thread, made on first use and
    reused (a fresh ffi.new per call costs more than the call itself; the value is read before returning)."""
    return (f"    try:\n        _o{i} = _tl.o{i}\n    except AttributeError:\n"
            f"        _o{i} = _tl.o{i} = _new({ctype!r})")


_INT64_ARRAYS: dict = {}


def _int64_array(values: list):
    """An int64_t[] for a list of ints, cached by value: the C functions that take one copy it."""
    key = tuple(values)
    arr = _INT64_ARRAYS.get(key)
    if arr is None:
        if len(_INT64_ARRAYS) > 4096:
            _INT64_ARRAYS.clear()
        arr = _INT64_ARRAYS[key] = ffi.new("int64_t[]", key or (0,))
    return arr


def _raise_null(function):
    # Creation functions report failure as a NULL handle and a recent error message.
    _raise_aclnn(lib.ACLNN_ERR_INNER_NULLPTR, function)


def _cstr(value):
    if value is None:
        return ffi.NULL
    if isinstance(value, str):
        return value.encode()
    return value


def _doc(name, result, params) -> str:
    args = ", ".join(f"{t} {n}" for n, t in params)
    outs = [n for n, t in params if is_out_param(t)]
    text = f"Mirror of ``{result} {name}({args})``."
    if outs:
        text += f" Returns {', '.join(outs)}."
    return text


def constants(prefixes: tuple[str, ...]) -> dict[str, int]:
    """Integer constants (enum values, status codes) of ``lib`` whose names start with a prefix."""
    return {n: getattr(lib, n) for n in dir(lib) if n.startswith(prefixes) and isinstance(getattr(lib, n), int)}


class MirrorModule:
    """Module-level ``__getattr__``/``__dir__`` for a mirror module: wrappers are made on first use."""

    def __init__(self, module_globals: dict, predicate):
        self._globals = module_globals
        self.names = sorted(n for n in SIGNATURES if predicate(n))

    def getattr(self, attr: str):
        if attr in self.names:
            fn = make_wrapper(attr)
            fn.__module__ = self._globals["__name__"]
            self._globals[attr] = fn
            return fn
        raise AttributeError(f"module {self._globals['__name__']!r} has no attribute {attr!r}")

    def dir(self):
        return sorted(set(self._globals) | set(self.names))
