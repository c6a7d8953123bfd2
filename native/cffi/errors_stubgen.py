"""The type stub of ``aclnn_py.errors`` (``aclnn_py/errors.pyi``), generated with the extension from the C headers:
the module's classes and functions, and one class per named status code."""

from __future__ import annotations


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
