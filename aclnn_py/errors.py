"""Exceptions for non-zero status codes.

``AclError`` carries a runtime ``aclError`` code, ``AclnnError`` an operator ``aclnnStatus`` code; both
have ``.status`` (the int), ``.name`` (e.g. ``"ACLNN_ERR_PARAM_INVALID"``), ``.function`` and the
library's recent error message in their text. Every named code also has its own subclass, named after
it in CamelCase (``AclnnErrParamInvalid``, ``AclErrorInvalidParam``, ``AclErrorRtParamInvalid``...), so
callers can catch exactly one condition.
"""

from __future__ import annotations

from ._native import lib


class AclBaseError(Exception):
    """A call into the ACL/aclnn libraries failed."""

    status: int
    name: str

    def __init__(self, status: int, function: str = "", message: str | None = None):
        self.status = int(status)
        self.name = status_name(self.status, aclnn=isinstance(self, AclnnError))
        self.function = function
        self.message = message
        text = f"{function} returned {self.status} ({self.name})" if function else f"{self.status} ({self.name})"
        if message:
            text += f": {message}"
        super().__init__(text)

    def __reduce__(self):
        return (type(self), (self.status, self.function, self.message))


class AclError(AclBaseError):
    """A runtime function (``aclInit``, ``aclrtMalloc``, ...) returned a non-zero ``aclError``."""


class AclnnError(AclBaseError):
    """A tensor-meta or operator function returned a non-zero ``aclnnStatus``."""


class SymbolNotFoundError(AclBaseError):
    """The loaded libraries do not export a function the caller asked for."""

    def __init__(self, function: str, libraries=()):
        self.libraries = tuple(str(p) for p in libraries)
        libs = ", ".join(self.libraries) or "no libraries"
        Exception.__init__(self, f"{function} is not exported by the loaded libraries ({libs})")
        self.status, self.name, self.function, self.message = -1, "SYMBOL_NOT_FOUND", function, None

    def __reduce__(self):
        return (type(self), (self.function, self.libraries))


def _collect_names(prefixes: tuple[str, ...]) -> dict[int, str]:
    names: dict[int, str] = {}
    for attr in sorted(dir(lib)):
        if attr.startswith(prefixes) and "CONFILICT" not in attr:  # keep the correctly spelt alias
            names.setdefault(int(getattr(lib, attr)), attr)
    return names


# Codes are looked up in the family the failing function belongs to first.
_ACL_NAMES = _collect_names(("ACL_ERROR_", "ACL_SUCCESS"))
_ACL_NAMES[0] = "ACL_SUCCESS"
_ACLNN_NAMES = _collect_names(("ACLNN_ERR", "ACLNN_SUCCESS"))


def status_name(status: int, aclnn: bool = False) -> str:
    first, second = (_ACLNN_NAMES, _ACL_NAMES) if aclnn else (_ACL_NAMES, _ACLNN_NAMES)
    return first.get(status) or second.get(status) or "UNKNOWN_STATUS"


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.lower().split("_"))


_SUBCLASSES: dict[tuple[type, int], type] = {}
for _base, _names in ((AclError, _ACL_NAMES), (AclnnError, _ACLNN_NAMES)):
    for _code, _name in _names.items():
        if _code:
            _cls = type(_camel(_name), (_base,), {"__doc__": f"Status {_code} ({_name})."})
            _cls.__module__ = __name__
            globals()[_cls.__name__] = _cls
            _SUBCLASSES[(_base, _code)] = _cls


def error_for(base: type, status: int, function: str = "", message: str | None = None) -> AclBaseError:
    """The most specific exception for ``status``: its own subclass when the code is named."""
    return _SUBCLASSES.get((base, int(status)), base)(status, function, message)
