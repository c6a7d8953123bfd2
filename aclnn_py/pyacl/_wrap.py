"""pyACL's calling convention over the C runtime: one Python function per C function, the C inputs in C order,
addresses and handles as ``int``, and the result a tuple of the out-parameters with the status last (``(ptr,
ret)``), or the status alone when there are none. Nothing raises on a status: the caller reads ``ret``, as with
pyACL. A wrong argument type or count is a ``TypeError``, an ``int`` outside its C type a ``ValueError``."""

from __future__ import annotations

import inspect
import operator
import re

from _aclnn_py_native.mirror_rules import POINTER_TYPEDEFS, is_out_param

from .. import loader
from .._native import SIGNATURES, ffi, lib

# Parameters that take an address or a handle: an int (pyACL's form), a cffi pointer, or None / 0 (NULL).
_ADDRESSES = {"void *", "const void *"} | POINTER_TYPEDEFS
_STATUS = ("aclError", "aclnnStatus")


def snake(name: str) -> str:
    """pyACL's parameter names: the C names in snake_case (``devPtr`` -> ``dev_ptr``)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def address(value) -> int:
    """The integer form of a C pointer (0 for NULL)."""
    return int(ffi.cast("uintptr_t", value))


def to_pointer(where: str, pname: str, value):
    if value is None:
        return ffi.NULL
    if isinstance(value, ffi.CData):
        return value
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{where}: argument {pname!r} must be an address (int), got {type(value).__name__}") from None
    if not 0 <= value < 1 << (8 * ffi.sizeof("void *")):
        raise ValueError(f"{where}: argument {pname!r} = {value} is not an address")
    return ffi.cast("void *", value)


def _convert(where: str, pname: str, ctype: str, value):
    if ctype in _ADDRESSES or ctype.endswith("*") and not ctype.endswith("char *"):  # addresses and handles
        return to_pointer(where, pname, value)
    if ctype in ("const char *", "char *"):
        if value is None:
            return ffi.NULL
        if isinstance(value, str):
            return value.encode()
        if isinstance(value, bytes):
            return value
        raise TypeError(f"{where}: argument {pname!r} must be a str, got {type(value).__name__}")
    if ctype in ("float", "double"):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise TypeError(f"{where}: argument {pname!r} must be a number, got {type(value).__name__}")
        return float(value)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{where}: argument {pname!r} must be an int, got {type(value).__name__}") from None


def _result(value, ctype: str):
    """An out-parameter's value: pointers and handles as int addresses, numbers and enums as numbers."""
    if ctype.count("*") >= 2 or ctype.rstrip(" *") in POINTER_TYPEDEFS:
        return address(value)
    return value


def make(where: str, c_name: str, optional=()):
    """The pyACL-style function ``where`` (e.g. ``"acl.rt.malloc"``) over C function ``c_name``. Parameters named
    in ``optional`` may be left out (they default to None: NULL)."""
    sig = SIGNATURES[c_name]
    result, params = sig["result"], sig["params"]
    outs = [(i, t) for i, (_, t) in enumerate(params) if is_out_param(t)]
    ins = [(i, n, t) for i, (n, t) in enumerate(params) if not is_out_param(t)]
    names = [n for _, n, _ in ins]
    required = len([n for n in names if n not in optional])

    def fn(*args):
        if not required <= len(args) <= len(ins):
            raise TypeError(f"{where}() takes {len(ins)} arguments ({', '.join(names)}), got {len(args)}")
        loader.load()
        cargs = [None] * len(params)
        for (i, n, t), value in zip(ins, args + (None,) * (len(ins) - len(args))):
            cargs[i] = _convert(where, n, t, value)
        cells = {i: ffi.new(t) for i, t in outs}
        for i, cell in cells.items():
            cargs[i] = cell
        try:
            r = getattr(lib, c_name)(*cargs)
        except OverflowError as exc:
            raise ValueError(f"{where}: an argument is outside the range of its C type ({exc})") from None
        values = [_result(cells[i][0], t) for i, t in outs]
        if result in _STATUS:
            return (*values, int(r)) if values else int(r)
        if result in ("const char *", "char *"):
            return "" if r == ffi.NULL else ffi.string(r).decode(errors="replace")
        if result.endswith("*"):
            return address(r)
        return r

    fn.__name__ = fn.__qualname__ = where.rsplit(".", 1)[1]
    fn.__signature__ = inspect.Signature(
        [inspect.Parameter(snake(n), inspect.Parameter.POSITIONAL_ONLY, default=None if n in optional else
                           inspect.Parameter.empty) for n in names])
    outs_text = ", ".join(snake(params[i][0]) for i, _ in outs)
    returns = f"({outs_text}, ret)" if outs and result in _STATUS else "ret" if result in _STATUS else result
    fn.__doc__ = (f"``{where}({', '.join(snake(n) for n in names)})`` -> ``{returns}``: pyACL's form of ``{c_name}``. Addresses "
                  f"and handles are ints; the status is returned, never raised.")
    return fn


def build(namespace: dict, prefix: str, table: dict, optional: dict | None = None) -> list[str]:
    """Fill ``namespace`` with ``table``'s functions ({pyACL name: C name}); return the names made. A C function
    the headers do not declare is left out."""
    made = []
    for name, c_name in table.items():
        if c_name in SIGNATURES:
            namespace[name] = make(f"{prefix}.{name}", c_name, (optional or {}).get(name, ()))
            made.append(name)
    return made
