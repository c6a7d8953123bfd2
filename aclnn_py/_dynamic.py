"""Mirror functions for operators whose headers are found at run time (see ``_headers``).

The compiled extension cannot take new declarations, so these functions call the symbol's address through
an in-line (ABI mode) cffi FFI whose function types use only C value types: handles from the compiled ffi
(``aclTensor *``...) cross as addresses (``uintptr_t``), enums as ``int``. Symbols are looked up by name in
the opened libraries, in opening order (the backend's, then ``ACLNN_PY_OP_LIBS``, then
``load_op_library`` in call order), first match wins; the function's ``library`` attribute names it, and
``also_in`` lists the other libraries that export the same name.
"""

from __future__ import annotations

import os
import threading

from . import _headers, errors, loader
from ._native import ffi, lib

_lock = threading.Lock()
_abi = None
_op_libs_opened = False
_user_libs: list[str] = []


def _abi_ffi():
    global _abi
    if _abi is None:
        import cffi

        _abi = cffi.FFI()
    return _abi


def _ensure_libraries() -> None:
    """Load the backend, then the libraries named by ``ACLNN_PY_OP_LIBS`` (once)."""
    global _op_libs_opened
    loader.load()
    with _lock:
        if not _op_libs_opened:
            _op_libs_opened = True
            for p in os.environ.get("ACLNN_PY_OP_LIBS", "").split(os.pathsep):
                if p:
                    _open(p, "ACLNN_PY_OP_LIBS")


def _open(path: str, what: str) -> None:
    err = lib.aclnnpy_open(os.fsencode(path))
    if err != ffi.NULL:
        raise OSError(f"{what}: cannot load {path}: {ffi.string(err).decode(errors='replace')}")
    _user_libs.append(path)


def load_op_library(path) -> None:
    """Open an operator library (e.g. built against ``aclnn_py.get_include()``) so its ``aclnn*`` symbols
    resolve; libraries opened earlier win when a name is exported twice."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"load_op_library: argument 'path' must be an existing file, got {path!r}")
    _ensure_libraries()
    with _lock:
        if path not in _user_libs:
            _open(path, "load_op_library")
    from . import aclnn

    aclnn._forget_unbound()  # functions made while no library exported their symbol: looked up again


def libraries() -> list[str]:
    return [ffi.string(lib.aclnnpy_library_path(i)).decode(errors="replace")
            for i in range(lib.aclnnpy_library_count())]


def symbol(name: str) -> tuple[int, str, list[str]] | None:
    """(address, library, other libraries exporting it) of ``name``, or None."""
    _ensure_libraries()
    cname = name.encode()
    which = ffi.new("int *")
    addr = lib.aclnnpy_symbol_address(cname, which)
    if addr == ffi.NULL:
        return None
    libs = libraries()
    others = [libs[i] for i in range(which[0] + 1, len(libs))
              if lib.aclnnpy_symbol_in(i, cname) not in (ffi.NULL, addr)]
    return int(ffi.cast("uintptr_t", addr)), libs[which[0]], others


def find(name: str) -> tuple[str, dict] | None:
    """(header path, declaration) from the first header that declares ``name``, or None when no header
    mentions it. Raises AttributeError when headers mention it but none declares it usably (with the reasons)."""
    headers = _headers.index().get(name)
    if not headers:
        return None
    reasons = []
    for header in headers:
        parsed = _headers.declarations(header)
        if name in parsed["functions"]:
            return str(header), parsed["functions"][name]
        reason = parsed.get("error") or parsed["unsupported"].get(name) or "no such declaration after preprocessing"
        reasons.append(f"{header}: {reason}")
    raise AttributeError(f"{name} is mentioned by headers but not usable: " + "; ".join(reasons))


def describe(name: str, decl: dict) -> list[dict]:
    return [{"name": n, "ctype": t, "role": role} for n, t, _, role in decl["params"]]


def _handle(function, pname, base, obj):
    """Address of a compiled-ffi handle (or NULL for None), checking its type."""
    if obj is None:
        return 0
    if not isinstance(obj, ffi.CData) and isinstance(getattr(obj, "handle", None), ffi.CData):
        obj._check_open()  # an aclnn_py object (Tensor, Scalar, IntArray, TensorList...): its handle
        obj = obj.handle
    if not isinstance(obj, ffi.CData) or ffi.typeof(obj).kind != "pointer":
        raise errors.type_error(function, pname, obj, f"a {base} * (cffi pointer) or None")
    item = ffi.typeof(obj).item
    try:
        expected = ffi.typeof(base)
    except ffi.error:  # a type our headers do not declare: any pointer
        expected = item
    if item is not expected and item.cname != "void":
        raise TypeError(f"{function}: argument {pname!r} must be a {base} *, got a {item.cname} *")
    return int(ffi.cast("uintptr_t", obj))


def make_wrapper(name: str, header: str, decl: dict):
    """A function calling ``name`` with the mirror's rules: inputs in C order, out-parameters returned (one
    value or a tuple), a non-zero status raised through ``errors``, None for NULL handles."""
    found = symbol(name)
    return _unbound(name, header, decl) if found is None else _bound(name, header, decl, found)


def _unbound(name: str, header: str, decl: dict):
    """The function of a declared operator no opened library exports yet: each call looks the symbol up again
    (a library opened since, by load_op_library, may export it) and raises SymbolNotFoundError saying how to
    provide it while none does. Its ``library`` is None."""
    bound = []

    def unbound(*args, **kwargs):
        if not bound:
            found = symbol(name)
            if found is None:
                raise errors.SymbolNotFoundError(
                    name, libraries(),
                    f"it is declared in {header}: open the library that implements it with "
                    f"aclnn_py.load_op_library(path) or ACLNN_PY_OP_LIBS (before the first call), and make sure "
                    f"the header matches it (aclnn_py.add_include_dir or ACLNN_PY_INCLUDE_PATH choose which "
                    f"headers are read)")
            bound.append(_bound(name, header, decl, found))
        return bound[0](*args, **kwargs)

    unbound.__name__ = unbound.__qualname__ = name
    unbound.library, unbound.also_in, unbound.header = None, [], header
    return unbound


def _bound(name: str, header: str, decl: dict, found: tuple[int, str, list[str]]):
    from ._mirror import _address

    abi = _abi_ffi()
    params = decl["params"]
    address, library, also_in = found
    fntype = abi.typeof(f"{decl['result_abi']} (*)({', '.join(p[2] for p in params) or 'void'})")
    cfn = abi.cast(fntype, address)
    inputs = [p for p in params if not _is_out(p)]
    status = decl["result"] in ("aclnnStatus", "aclError")
    family = errors.AclError if decl["result"] == "aclError" else errors.AclnnError

    def call(*args):
        if len(args) != len(inputs):
            raise TypeError(f"{name}() takes {len(inputs)} arguments ({', '.join(p[0] for p in inputs)}), "
                            f"got {len(args)}")
        it = iter(args)
        cargs, outs, keep = [], [], []
        for pname, ctype, abitype, role in params:
            base = ctype.replace("const ", "").replace("*", "").strip()
            if _is_out((pname, ctype, abitype, role)):
                cell = abi.new(abitype)
                outs.append((cell, base, abitype))
                cargs.append(cell)
                continue
            value = next(it)
            if abitype == "char *":
                if value is None:
                    value = abi.NULL
                else:
                    if isinstance(value, str):
                        value = value.encode()
                    if not isinstance(value, bytes):
                        raise errors.type_error(name, pname, value, "a str, bytes or None")
                    value = abi.new("char[]", value)
                    keep.append(value)
            elif abitype.endswith("*") and role == "value array":
                if value is None:
                    value = abi.NULL
                else:
                    try:
                        value = abi.new(f"{abitype[:-1].strip()}[]", list(value))
                    except (TypeError, OverflowError) as exc:
                        raise ValueError(f"{name}: argument {pname!r}: {exc}") from None
                    keep.append(value)
            elif abitype == "void *":
                if role in ("workspace", "pointer", "stream", "handle") and not _is_typed_handle(base):
                    value = _address(name, pname, value)
                    value = int(ffi.cast("uintptr_t", value)) if value != ffi.NULL else 0
                else:
                    value = _handle(name, pname, base, value)
                value = abi.cast("void *", value)
            else:
                if isinstance(value, ffi.CData) or value is None:
                    raise errors.type_error(name, pname, value, f"a Python number ({ctype})")
                try:
                    abi.new(f"{abitype} *", value)
                except OverflowError as exc:
                    raise ValueError(f"{name}: argument {pname!r} is outside the range of {ctype} ({exc})") from None
                except TypeError:
                    raise errors.type_error(name, pname, value, f"a Python number ({ctype})") from None
            cargs.append(value)
        r = cfn(*cargs)
        if status and r:
            errors.raise_status(r, name, family)
        values = [_out_value(cell, base, abitype) for cell, base, abitype in outs]
        if not status and decl["result"] != "void":
            values.insert(0, r)
        return values[0] if len(values) == 1 else tuple(values) if values else None

    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"Mirror of ``{decl['result']} {name}({', '.join(f'{t} {n}' for n, t, _, _ in params)})``, "
                    f"declared in {header}, called from {library}.")
    call.library, call.also_in, call.header = library, also_in, header
    return call


def _is_out(p) -> bool:
    pname, ctype, abitype, role = p
    return (not ctype.startswith("const ") and ctype.endswith("*")
            and (abitype == "void * *" or role in ("workspace size", "output value")))


def _is_typed_handle(base: str) -> bool:
    try:
        return ffi.typeof(base).kind == "struct"
    except Exception:
        return False


def _out_value(cell, base, abitype):
    if abitype == "void * *":
        addr = int(_abi_ffi().cast("uintptr_t", cell[0]))
        try:
            return ffi.cast(f"{base} *", addr)
        except Exception:
            return ffi.cast("void *", addr)
    return cell[0]
