"""The type stub of the high-level operator functions (``aclnn_py/ops.pyi``), generated with the extension from the
operator table (``aclnn_py/_optable.py``) and the C signatures: one function per row with its real parameters,
overloaded on the first tensor argument, whose kind the results take (numpy arrays, ``aclnn_py.Tensor``, torch
tensors; anything else array-like gives numpy arrays)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

OPTABLE = Path(__file__).resolve().parent.parent.parent / "aclnn_py" / "_optable.py"

_HEADER = '''"""Generated with the extension from the operator table (native/cffi/ops_stubgen.py). Do not edit."""

from typing import Any, Protocol, Sequence, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from aclnn_py.runtime import Stream, Tensor

# torch is optional: without it this import does not resolve and its overloads read as Any.
from torch import Tensor as _TorchTensor


class _SupportsDLPack(Protocol):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...


_TensorLike = ArrayLike | _SupportsDLPack | Tensor

'''

# The kinds of the first tensor argument and what the results are then.
_KINDS = (("NDArray[Any]", "NDArray[Any]"), ("Tensor", "Tensor"), ("_TorchTensor", "_TorchTensor"),
          ("_TensorLike", "NDArray[Any]"))


def load_optable():
    spec = importlib.util.spec_from_file_location("_aclnn_py_optable", OPTABLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # for its dataclasses
    spec.loader.exec_module(module)
    return module


def _attr_type(ctype: str | None, default) -> str:
    base = (ctype or "").replace("const ", "").strip()
    if base == "bool" or isinstance(default, bool):
        return "bool"
    if base in ("float", "double") or isinstance(default, float):
        return "float"
    return "int"


def function_stub(op, table, signatures) -> str:
    ctypes = dict(signatures.get(op.c_name + "GetWorkspaceSize", {}).get("params", []))
    first = next(p for p in op.params if p.role == "in")
    outs = [p for p in op.params if p.role == "out"]
    lines = []
    for kind, result in _KINDS:
        args = []
        for p in op.params:
            if p.role == "out":
                continue
            if p.role == "in":
                t = kind if p is first else "_TensorLike"
                t += " | None" if p.optional else ""
            elif p.role == "intarray":
                t = "Sequence[int] | None"
            else:
                t = _attr_type(ctypes.get(p.name), p.default)
            default = "" if p.default is table.REQUIRED else f" = {p.default!r}" if p.role == "attr" else " = None"
            if p.role == "in" and p.optional and p.default is table.REQUIRED:
                default = ""
            args.append(f"{p.py_name}: {t}{default}")
        rets = [result + (" | None" if p.returned is not None else "") for p in outs]
        ret = rets[0] if len(rets) == 1 else f"tuple[{', '.join(rets)}]"
        lines.append(f"@overload\ndef {op.py_name}({', '.join(args + ['*', 'stream: Stream | None = None'])}) "
                     f"-> {ret}: ...\n")
    return "".join(lines)


def module_stub(signatures: dict) -> str:
    table = load_optable()
    names = [op.py_name for op in table.OPS]
    return (_HEADER + "".join(function_stub(op, table, signatures) + "\n" for op in table.OPS)
            + f"\nFUNCTIONS: dict[str, Any]\n__all__ = {sorted(names)!r}\n")


# ---- aclnn_py/errors.pyi: the module's classes and functions, and one class per named status code ----------

_ERRORS_HEADER = '''"""Generated with the extension from the C headers (native/cffi/ops_stubgen.py). Do not edit."""

from typing import Any


class AclBaseError(Exception): ...


class AclStatusError(AclBaseError):
    status: int
    name: str
    function: str
    message: str | None
    def __init__(self, status: int, function: str = "", message: str | None = None) -> None: ...


class AclError(AclStatusError): ...


class AclnnError(AclStatusError): ...


class SymbolNotFoundError(AclBaseError):
    function: str
    libraries: tuple[str, ...]
    def __init__(self, function: str, libraries: Any = ()) -> None: ...


class BackendNotFoundError(AclBaseError):
    message: str
    def __init__(self, message: str) -> None: ...


def status_name(status: int, aclnn: bool = False) -> str: ...
def error_for(base: type, status: int, function: str = "", message: str | None = None) -> AclStatusError: ...
def family_of(function: str) -> type: ...
def recent_message() -> str | None: ...
def raise_status(status: int, function: str, family: type | None = None, hint: str | None = None) -> Any: ...
def check(status: int, function: str, family: type | None = None) -> None: ...
def check_handle(handle: Any, function: str) -> Any: ...
def argument_error(function: str, message: str, status: int, family: type = ...) -> AclStatusError: ...
def type_error(where: str, argument: str, value: Any, expected: str, advice: str = "") -> TypeError: ...
def closed_error(obj: Any) -> ValueError: ...
def dtype_hint(argument: str, dtype: Any, accepted: Any, converted_from: str | None = None) -> str: ...

'''


def status_codes(header_texts) -> dict[str, int]:
    """Every status constant of the headers (``static const int ACL_ERROR_X = n;``, ``#define ACLNN_ERR_X n``)."""
    import re

    codes = {}
    for text in header_texts:
        for m in re.finditer(r"^(?:static const int|#define)\s+((?:ACL_ERROR_|ACL_SUCCESS|ACLNN_ERR|ACLNN_SUCCESS)\w*)"
                             r"\s*=?\s*\(?(-?\d+)\)?", text, re.M):
            codes.setdefault(m.group(1), int(m.group(2)))
    return codes


def errors_stub(header_texts) -> str:
    """``aclnn_py.errors`` as mypy sees it: the classes errors.py creates for the named codes follow the rule it
    follows (per family, one class per code, named after its first name in sorted order, CamelCase)."""
    codes = status_codes(header_texts)
    lines = [_ERRORS_HEADER]
    for base, prefixes in (("AclError", ("ACL_ERROR_", "ACL_SUCCESS")), ("AclnnError", ("ACLNN_ERR", "ACLNN_SUCCESS"))):
        names: dict[int, str] = {}
        for name in sorted(codes):
            if name.startswith(prefixes) and "CONFILICT" not in name:
                names.setdefault(codes[name], name)
        for code, name in sorted(names.items()):
            if code:
                camel = "".join(part.capitalize() for part in name.lower().split("_"))
                lines.append(f"class {camel}({base}): ...  # {code}\n")
    return "".join(lines)
