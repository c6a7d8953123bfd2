"""Build the mirror-layer wrappers from the signature table generated from the C headers.

Each C function becomes a Python function of the same name whose parameters are the C inputs in C
order; out-parameters (non-const pointers to a number, an enum or a pointer) become return values (one
value, or a tuple in C order); a non-zero ``aclError``/``aclnnStatus`` raises; a NULL handle from a
create function raises. Every count the C function reads an array by is checked against the array
when the array was built from a Python object (a list, a tuple, a cffi array, an ``acl.host_ptr`` span):
a count beyond it raises ``ValueError`` naming both arguments, a read-only host span given where C writes
raises ``TypeError``. Wrappers are generated as plain Python source once, on first use, so a call
costs one Python frame plus the cffi call. Where the compiled mirror (``_aclnn_py_native._mirror``) has a
wrapper for the function, that is what the module exposes: it converts the usual arguments in C and hands
anything else (and so every error message about an argument) to the Python wrapper.
"""

from __future__ import annotations

import operator
import threading

from _aclnn_py_native.mirror_rules import (CONSTANT_PREFIXES, RAW_POINTERS as _RAW_POINTERS,
                                           array_item as _array_item, doc as _doc, extents, is_array_out_pair,
                                           is_out_param, mirror_module, py_name as _pyname)

from . import dtypes, errors, loader
from ._native import SIGNATURES, ffi, lib


def _array_out(ptr, count):
    """An int64 array returned by the library, as a list; the C array is freed (the stub uses malloc;
    CANN uses new[] on a trivially destructible type, which glibc serves from malloc)."""
    try:
        return [int(ptr[i]) for i in range(int(count))]
    finally:
        if ptr != ffi.NULL:
            lib.aclnnpy_free(ptr)


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


# A raw address parameter (RAW_POINTERS) takes a cffi pointer, a host span or None. cffi would also accept
# bytes or a str there, handing C a pointer into an immutable Python object: refused, so a host buffer only
# reaches C as a checked HostSpan.


def _address(function: str, pname: str, obj):
    if obj is None:
        return ffi.NULL
    if type(obj) is HostSpan:
        return obj.cdata
    if isinstance(obj, ffi.CData):
        return obj
    raise errors.type_error(function, pname, obj, "a cffi pointer, an acl.host_ptr(...) span or None")


_compiled = None
_compiled_lock = threading.Lock()


def _compiled_mirror():
    """The compiled mirror module, initialised; None where it is not built."""
    global _compiled
    with _compiled_lock:
        if _compiled is None:
            try:
                from _aclnn_py_native import _mirror as module
            except ImportError:
                module = False
            else:
                module.init(tuple(ffi.typeof(t) for t in module.POINTER_TYPES), ffi.CData, ffi.typeof,
                            errors.raise_status, errors.check_handle, errors.AclError, errors.AclnnError)
            _compiled = module
    return _compiled or None


def make_wrapper(name: str, module: str = __name__):
    """The mirror function for C function ``name``, as a function of ``module`` (raises SymbolNotFoundError
    when called if the loaded libraries lack it): the compiled wrapper where there is one, over the Python one."""
    fn = make_python_wrapper(name)
    fn.__module__ = module
    compiled = _compiled_mirror() if name not in loader.load().missing_symbols else None
    if compiled is not None:
        fast = compiled.wrap(name, fn, int(ffi.cast("uintptr_t", ffi.addressof(lib, name))), module)
        if fast is not None:
            return fast
    return fn


def make_python_wrapper(name: str):
    """The Python mirror function for C function ``name``: every argument rule and message lives here."""
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
        if is_array_out_pair(params, i):
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
                                f"    else:\n        _n{i} = -1\n"
                                f"        if not _is_cdata({py}, _CData):\n"
                                f"            {py} = _as_array({name!r}, {pname!r}, 'int64_t', {py})")
            elif pname in rules and rules[pname][1] == "dtype":  # a number stored as the type the call names
                dtype_param = pynames[rules[pname][0][0]]
                prologue.append(f"    if not _is_cdata({py}, _CData) and type({py}) is not _HostSpan "
                                f"and {py} is not None:\n"
                                f"        {py} = _scalar_bytes({name!r}, {pname!r}, {py}, {dtype_param})")
            elif _array_item(ctype):  # a sequence (list, tuple, numpy array, range) becomes a C array
                prologue.append(f"    if not _is_cdata({py}, _CData):\n"
                                f"        {py} = _as_array({name!r}, {pname!r}, {_array_item(ctype)!r}, {py})")
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
        "_check_extent": _check_extent, "_address": _address, "_as_array": _as_array, "_scalar_bytes": _scalar_bytes,
        "_is_cdata": isinstance, "_CData": ffi.CData,
    }
    exec(compile(src, f"<aclnn_py mirror of {name}>", "exec"), namespace)
    fn = namespace[name]
    fn.__doc__ = _doc(name, result, params)
    fn.__source__ = src
    return fn


def _as_array(function: str, pname: str, item: str, value):
    """A C array of ``item`` for a sequence (list, tuple, range, numpy array...); None stays NULL (for an
    array of handles, a None element is a NULL handle); a host span passes as its address."""
    if value is None:
        return ffi.NULL
    if type(value) is HostSpan:
        return value
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") and not hasattr(value, "__iter__"):
        raise errors.type_error(function, pname, value, f"a sequence of {item.strip(' *')}"
                                f"{' handles' if item.endswith('*') else ' values'}, a cffi pointer or None")
    items = value.tolist() if hasattr(value, "tolist") else list(value)
    if item.endswith("*"):
        items = [ffi.NULL if v is None else v for v in items]
    try:
        return ffi.new(f"{item}[]", items)
    except OverflowError as exc:
        raise ValueError(f"{function}: argument {pname!r}: a value is outside the range of {item} ({exc})") from None
    except TypeError as exc:
        raise TypeError(f"{function}: argument {pname!r}: every element must be a {item.strip(' *')} "
                        f"{'handle or None' if item.endswith('*') else 'value'} ({exc})") from None


def _scalar_bytes(function: str, pname: str, value, data_type):
    """A Python or numpy number as the bytes of one ``data_type`` element (what ``aclCreateScalar`` reads)."""
    import numpy as np

    try:
        dt = dtypes.to_numpy(data_type)
    except TypeError:
        raise TypeError(f"{function}: argument {pname!r}: aclDataType {data_type} has no numpy counterpart; "
                        "pass the value as a cffi pointer") from None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not isinstance(value, (bool, int, float, complex, np.number, np.bool_)) and not (
            isinstance(value, np.generic) and value.dtype in dtypes.ML_DTYPES):  # bfloat16, the 8-bit floats
        raise errors.type_error(function, pname, value, "a number, a cffi pointer, an acl.host_ptr(...) or None")
    if isinstance(value, (complex, np.complexfloating)) and dt.kind != "c":
        raise TypeError(f"{function}: argument {pname!r}: a complex value ({value!r}) for the real type {dt}")
    if dt.kind in "iu" and not isinstance(value, (bool, np.bool_)):
        if isinstance(value, (float, np.floating)):
            raise TypeError(f"{function}: argument {pname!r}: a float ({value!r}) for the integer type {dt}")
        info = np.iinfo(dt)
        if not info.min <= int(value) <= info.max:
            raise ValueError(f"{function}: argument {pname!r} = {value} is outside the range of {dt}")
    data = np.asarray(value).astype(dt).tobytes()
    buf = ffi.new("char[]", len(data))  # exactly one element (a bytes initializer would add a NUL)
    ffi.memmove(buf, data, len(data))
    return buf


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


def constants(prefixes: tuple[str, ...]) -> dict[str, int]:
    """Integer constants (enum values, status codes) of ``lib`` whose names start with a prefix."""
    return {n: getattr(lib, n) for n in dir(lib) if n.startswith(prefixes) and isinstance(getattr(lib, n), int)}


class MirrorModule:
    """Module-level ``__getattr__``/``__dir__`` for a mirror module: wrappers are made on first use."""

    def __init__(self, module_globals: dict, module: str):
        self._globals = module_globals
        self.names = sorted(n for n in SIGNATURES if mirror_module(n) == module)
        self.constant_prefixes = CONSTANT_PREFIXES[module]

    def getattr(self, attr: str):
        if attr in self.names:
            fn = make_wrapper(attr, self._globals["__name__"])
            self._globals[attr] = fn
            return fn
        raise AttributeError(f"module {self._globals['__name__']!r} has no attribute {attr!r}")

    def dir(self):
        return sorted(set(self._globals) | set(self.names))
