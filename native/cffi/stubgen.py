"""Type stubs (``.pyi``) of the mirror modules ``aclnn_py.acl`` and ``aclnn_py.aclnn``, generated with the
extension from the same signature table and the same rules (``mirror_rules``) the wrappers are made by:
one function per C function (inputs in C order, out-parameters as the result), one ``int`` per constant.
"""

from __future__ import annotations

import keyword

import mirror_rules as rules

_INTS = {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
         "int", "long", "unsigned int", "aclDataType", "aclFormat", "aclError", "aclnnStatus", "aclFloat16"}
_FLOATS = {"float", "double"}
_HEADER = '''"""Generated with the extension from the C headers (native/cffi/stubgen.py). Do not edit."""

from typing import Any, Sequence

CData = Any  # a cffi pointer (cffi's CData type)
'''


def _value(ctype: str) -> str:
    """Python type of a value of C type ``ctype`` (no pointer)."""
    base = ctype.replace("const ", "").strip()
    if base == "bool":
        return "bool"
    if base in _FLOATS:
        return "float"
    if base in _INTS or base.startswith("acl") and "*" not in base and base not in rules.POINTER_TYPEDEFS:
        return "int"  # integer types and enums
    return "CData"


def _param(function: str, pname: str, ctype: str) -> str:
    if ctype in ("const char *", "char *"):
        return "str | bytes | None"
    item = rules.array_item(ctype)
    if item is not None:
        element = "CData | None" if item.endswith("*") else _value(item)
        return f"Sequence[{element}] | CData | None"
    if rules.NAMED_EXTENTS.get(function, {}).get(pname, ((), ""))[1] == "dtype":
        return "CData | HostSpan | float | None"  # a number stored as the aclDataType the call names
    if ctype in rules.RAW_POINTERS:
        return "CData | HostSpan | None"
    if ctype.endswith("*"):
        return "CData | None"
    return _value(ctype)


def _result(result: str, params) -> str:
    outs, i = [], 0
    while i < len(params):
        if rules.is_array_out_pair(params, i):
            outs.append("list[int]")
            i += 2
            continue
        if rules.is_out_param(params[i][1]):
            ctype = params[i][1]
            outs.append("CData" if ctype.count("*") > 1 else _value(ctype[:-1].strip()))
        i += 1
    if result in ("aclError", "aclnnStatus"):
        return "None" if not outs else outs[0] if len(outs) == 1 else f"tuple[{', '.join(outs)}]"
    if result in ("const char *", "char *"):
        return "str | None"
    if result == "void":
        return "None"
    return "CData" if result.endswith("*") else _value(result)


def _inputs(params) -> list[tuple[str, str]]:
    out, i = [], 0
    while i < len(params):
        if rules.is_array_out_pair(params, i):
            i += 2
            continue
        if not rules.is_out_param(params[i][1]):
            out.append(params[i])
        i += 1
    return out


def function_stub(name: str, result: str, params) -> str:
    args = ", ".join(f"{n + '_' if keyword.iskeyword(n) else n}: {_param(name, n, t)}" for n, t in _inputs(params))
    return f"def {name}({args}) -> {_result(result, params)}: ...\n"


_EXTRA = {
    "acl": '''
class HostSpan:
    """A host buffer lent to C (see host_ptr)."""
    cdata: CData
    nbytes: int
    writable: bool
    obj: Any
    def __init__(self, obj: Any) -> None: ...
    @property
    def ptr(self) -> CData: ...
    def __len__(self) -> int: ...

def host_ptr(obj: Any) -> HostSpan: ...
''',
    "aclnn": '''
from aclnn_py.acl import HostSpan

def describe(name: str) -> list[dict[str, str]]: ...
def __getattr__(name: str) -> Any: ...  # operators declared by headers found at run time
''',
}


def module_stub(module: str, signatures: dict, constants: list[str]) -> str:
    """The text of ``aclnn_py/<module>.pyi``."""
    lines = [_HEADER, _EXTRA[module]]
    prefixes = rules.CONSTANT_PREFIXES[module]
    lines.append("\n")
    lines += [f"{c}: int\n" for c in constants if c.startswith(prefixes)]
    lines.append("\n")
    lines += [function_stub(n, *signatures[n]) for n in sorted(signatures) if rules.mirror_module(n) == module]
    return "".join(lines)
