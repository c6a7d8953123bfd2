"""Build the mirror-layer wrappers from the signature table generated from the C headers.

Each C function becomes a Python function of the same name whose parameters are the C inputs in C
order; out-parameters (non-const pointers to a number, an enum or a pointer) become return values (one
value, or a tuple in C order); a non-zero ``aclError``/``aclnnStatus`` raises; a NULL handle from a
create function raises. Every count the C function reads an array by is checked against the array
when the array was built from a Python object (a list, a tuple, a cffi array, an ``acl.host_ptr`` span):
a count beyond it raises ``ValueError`` naming both arguments, a read-only host span given where C writes
raises ``TypeError``. Wrappers are generated as plain Python source once, on first use, so a call
costs one Python frame plus the cffi call.
"""

from __future__ import annotations

import keyword
import operator
import re
import threading

from . import dtypes, errors, loader
from ._native import SIGNATURES, ffi, lib

# Scalar C types that, behind a non-const pointer, mark an out-parameter.
_SCALARS = {
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
    "int", "float", "double", "bool", "aclDataType", "aclFormat", "aclError", "aclnnStatus", "aclFloat16",
    "aclrtStream", "aclrtContext", "aclrtEvent",
}
_POINTER_TYPEDEFS = {"aclrtStream", "aclrtContext", "aclrtEvent", "const aclrtStream"}
# Handle types that no function returns through a pointer: T ** of these is an input array of handles.
_HANDLE_ARRAYS = {"aclTensor", "aclScalar"}
_OUT_POINTER = re.compile(r"^(?P<base>[A-Za-z_]\w*)\s*(?P<stars>\*+)$")


def is_out_param(ctype: str) -> bool:
    if ctype.startswith("const "):
        return False
    m = _OUT_POINTER.match(ctype.strip())
    if not m:
        return False
    stars = len(m.group("stars"))
    if stars == 2 and m.group("base") in _HANDLE_ARRAYS:
        return False  # an array of handles the caller passes (aclDumpOpTensors' tensors), not a result
    return stars >= 2 or (stars == 1 and m.group("base") in _SCALARS)


def _pyname(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


def _array_out(ptr, count):
    """An int64 array returned by the library, as a list; the C array is freed (the stub uses malloc;
    CANN uses new[] on a trivially destructible type, which glibc serves from malloc)."""
    try:
        return [int(ptr[i]) for i in range(int(count))]
    finally:
        if ptr != ffi.NULL:
            lib.aclnnpy_free(ptr)


# How far a C function reads or writes through a pointer parameter: {function: {pointer parameter:
# (length parameters, unit, written)}}. unit "elements" counts items of the array's C type, "bytes" bytes,
# "dtype" the size of one element of the aclDataType named by the length parameter.
_NAMED_EXTENTS = {
    "aclCreateTensor": {"stride": (("viewDimsNum",), "elements", False)},
    "aclCreateScalar": {"value": (("dataType",), "dtype", False)},
}
# A pointer followed by a length parameter with one of these names is an array of that length.
_LENGTH_NAMES = re.compile(r"^(size|count|num|.*Num|.*Size|.*Count)$")
_INTEGER_TYPES = {"uint64_t", "int64_t", "size_t", "uint32_t", "int32_t"}


def _is_handle(ctype: str) -> bool:
    """One opaque object (``const aclTensor *``), never an array, whatever parameter follows it."""
    base = ctype.replace("const", "").strip()
    return base.count("*") == 1 and base.startswith("acl")


def extents(name: str, params) -> dict[str, tuple[tuple[str, ...], str, bool]]:
    """The extent rules of C function ``name``: the table above, the memcpy/memset shapes of the runtime
    (by parameter names), and every pointer directly followed by a length parameter."""
    names = [n for n, _ in params]
    rules = dict(_NAMED_EXTENTS.get(name, {}))
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


class HostSpan:
    """A host buffer lent to C (``acl.host_ptr``): its address, its size in bytes, whether C may write it,
    and the object, kept alive as long as the span is. The mirror checks every count against ``nbytes``."""

    __slots__ = ("cdata", "nbytes", "writable", "obj")

    def __init__(self, obj):
        if isinstance(obj, HostSpan):
            obj = obj.obj
        try:
            try:
                self.cdata, self.writable = ffi.from_buffer(obj, require_writable=True), True
            except (BufferError, ValueError):  # read-only (bytes, a read-only array or memoryview), or worse
                self.cdata, self.writable = ffi.from_buffer(obj), False
        except (BufferError, ValueError) as exc:  # e.g. a non-contiguous numpy view
            raise ValueError(f"host_ptr: {exc}; pass a C-contiguous buffer (np.ascontiguousarray)") from None
        except TypeError:
            raise errors.type_error("host_ptr", "obj", obj, "an object with the buffer protocol "
                                    "(numpy array, bytes, bytearray, memoryview)") from None
        self.nbytes = ffi.sizeof(self.cdata)
        self.obj = obj

    @property
    def ptr(self):
        """The span's address as a cffi ``char[]``."""
        return self.cdata

    def __len__(self):
        return self.nbytes

    def __repr__(self):
        return f"<HostSpan {self.nbytes} bytes{'' if self.writable else ' read-only'} of {type(self.obj).__name__}>"


def _size_of(obj, unit: str):
    """How many ``unit`` the C function may touch through ``obj``; None when unknown (a raw pointer)."""
    if type(obj) is HostSpan:
        return obj.nbytes
    if isinstance(obj, (list, tuple)):
        return len(obj) if unit == "elements" else None
    if isinstance(obj, ffi.CData) and ffi.typeof(obj).kind == "array":
        return len(obj) if unit == "elements" else ffi.sizeof(obj)
    return None


def _check_extent(function: str, pname: str, obj, lengths, values, unit: str, written: bool):
    """Check that ``obj`` holds what ``function`` reads or writes through parameter ``pname``; return the
    value to pass to C (a HostSpan becomes its address)."""
    if obj is None:
        return ffi.NULL
    for lname, value in zip(lengths, values):
        if unit == "dtype":
            try:
                need = dtypes.to_numpy(value).itemsize
            except TypeError:
                continue  # an unknown data type: the library reports it
            lname = f"one element of {lname}"
        else:
            try:
                need = operator.index(value)
            except TypeError:
                raise errors.type_error(function, lname, value, "an int") from None
            if need < 0:
                raise ValueError(f"{function}: argument {lname!r} must be >= 0, got {need}")
        have = _size_of(obj, "bytes" if unit == "dtype" else unit)
        if have is not None and need > have:
            raise ValueError(f"{function}: argument {lname!r} is {value}, but {pname!r} holds only {have} "
                             f"{'bytes' if unit != 'elements' else 'elements'}")
    if type(obj) is not HostSpan and unit != "elements" and not isinstance(obj, ffi.CData):
        raise errors.type_error(function, pname, obj, "a cffi pointer, an acl.host_ptr(...) span or None")
    if type(obj) is HostSpan:
        if written and not obj.writable:
            raise TypeError(f"{function}: argument {pname!r} is a read-only {type(obj.obj).__name__} "
                            f"buffer, but {function} writes to it")
        return obj.cdata
    return obj


# Parameters that take a bare address. cffi would also accept bytes or a str there, handing C a pointer into
# an immutable Python object: refused, so a host buffer only reaches C as a checked HostSpan.
_RAW_POINTERS = {"void *", "const void *"} | _POINTER_TYPEDEFS


def _address(function: str, pname: str, obj):
    if obj is None:
        return ffi.NULL
    if type(obj) is HostSpan:
        return obj.cdata
    if isinstance(obj, ffi.CData):
        return obj
    raise errors.type_error(function, pname, obj, "a cffi pointer, an acl.host_ptr(...) span or None")


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
    rules = extents(name, params)
    pynames = {pname: _pyname(pname) for pname, _ in params}
    inputs, call_args, prologue, checks, outs = [], [], [], [], []
    i = 0
    while i < len(params):
        pname, ctype = params[i]
        py = pynames[pname]
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
                prologue.append(f"    if type({py}) is list or type({py}) is tuple:\n        _n{i} = len({py})\n"
                                f"        {py} = _arrays.get(tuple({py})) or _int64_array({py})\n"
                                f"    else:\n        _n{i} = -1")
            if pname in rules:
                lengths, unit, written = rules[pname]
                slow = (f"{py} = _check_extent({name!r}, {pname!r}, {py}, {lengths!r}, "
                        f"({', '.join(pynames[n] for n in lengths)},), {unit!r}, {written!r})")
                if ctype == "const int64_t *":  # fast path: a list whose length was just taken
                    fits = " and ".join(f"type({pynames[n]}) is int and 0 <= {pynames[n]} <= _n{i}" for n in lengths)
                    checks.append(f"    if not ({fits}):\n        {slow}")
                else:
                    checks.append(f"    {slow}")
            elif ctype in _RAW_POINTERS:  # an address: a cffi pointer, a host span or None (NULL), nothing else
                prologue.append(f"    if not _is_cdata({py}, _CData):\n        {py} = _address({name!r}, {pname!r}, {py})")
            elif ctype.endswith("*"):  # None stands for NULL, as in C
                prologue.append(f"    if {py} is None:\n        {py} = _NULL")
            call_args.append(py)
        i += 1

    body = prologue + checks
    # An int outside its C type's range is a ValueError naming the function, not cffi's OverflowError.
    body.append(f"    try:\n        _r = _f({', '.join(call_args)})\n    except OverflowError as _e:\n"
                f"        raise ValueError(f'{name}: an argument is outside the range of its C type ({{_e}})') from None")
    ret_outs = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")" if outs else "None"
    if result in ("aclError", "aclnnStatus"):
        family = "_AclError" if result == "aclError" else "_AclnnError"
        body.append(f"    if _r:\n        _raise(_r, {name!r}, {family})\n    return {ret_outs}")
    elif result.endswith("*") and result not in ("const char *", "char *", "void *"):
        body.append(f"    return _check_handle(_r, {name!r})")
    elif result in ("const char *", "char *"):
        body.append("    return None if _r == _NULL else _string(_r).decode(errors='replace')")
    elif result != "void":
        body.append("    return _r")
    src = f"def {name}({', '.join(inputs)}):\n" + "\n".join(body) + "\n"
    namespace = {
        "_f": getattr(lib, name), "_new": ffi.new, "_NULL": ffi.NULL, "_string": ffi.string,
        "_raise": errors.raise_status, "_AclError": errors.AclError, "_AclnnError": errors.AclnnError,
        "_check_handle": errors.check_handle, "_cstr": _cstr, "_array_out": _array_out, "_tl": threading.local(),
        "_int64_array": _int64_array, "_arrays": _INT64_ARRAYS, "_HostSpan": HostSpan,
        "_check_extent": _check_extent, "_address": _address,
        "_is_cdata": isinstance, "_CData": ffi.CData,
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
        try:
            arr = ffi.new("int64_t[]", key or (0,))
        except OverflowError as exc:
            raise ValueError(f"an int64_t array value is outside the int64 range ({exc})") from None
        _INT64_ARRAYS[key] = arr
    return arr


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
