"""Every exception of aclnn-py, and the one place where a status code becomes an exception.

Hierarchy (catch ``AclBaseError`` for anything the library raises about the libraries or a call into them):

- ``AclBaseError``
  - ``AclStatusError``: a C function returned a non-zero status; ``.status`` (the int), ``.name`` (e.g.
    ``"ACLNN_ERR_PARAM_INVALID"``), ``.function`` and the library's recent error message in the text.
    - ``AclError``: a runtime ``aclError``; ``AclnnError``: a tensor-meta or operator ``aclnnStatus``.
      Every named code also has its own subclass, named after it in CamelCase (``AclnnErrParamInvalid``,
      ``AclErrorInvalidParam``, ``AclErrorRtParamInvalid``...), so callers can catch exactly one condition.
  - ``SymbolNotFoundError``: the loaded libraries lack a function (no status: nothing was called).
  - ``BackendNotFoundError``: no library set could be found or loaded (no status).

Every layer turns statuses into exceptions through ``check`` (or ``raise_status``), and builds the
messages for common caller mistakes (a Python list where an array of a given dtype is needed, a wrong
argument type, a closed object) with the helpers at the end of this module.
"""

from __future__ import annotations

from ._native import SIGNATURES, ffi, lib


class AclBaseError(Exception):
    """Base of every aclnn-py error about the libraries or a call into them."""


class AclStatusError(AclBaseError):
    """A call into the ACL/aclnn libraries returned a non-zero status."""

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


class AclError(AclStatusError):
    """A runtime function (``aclInit``, ``aclrtMalloc``, ...) returned a non-zero ``aclError``."""


class AclnnError(AclStatusError):
    """A tensor-meta or operator function returned a non-zero ``aclnnStatus``."""


class SymbolNotFoundError(AclBaseError):
    """The loaded libraries do not export a function the caller asked for."""

    def __init__(self, function: str, libraries=(), hint: str = ""):
        self.function = function
        self.libraries = tuple(str(p) for p in libraries)
        self.hint = hint
        libs = ", ".join(self.libraries) or "no libraries"
        super().__init__(f"{function} is not exported by the loaded libraries ({libs})" + (f"; {hint}" if hint else ""))

    def __reduce__(self):
        return (type(self), (self.function, self.libraries, self.hint))


class BackendNotFoundError(AclBaseError):
    """No library set could be found or loaded for the requested backend."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)

    def __reduce__(self):
        return (type(self), (self.message,))


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


def error_for(base: type, status: int, function: str = "", message: str | None = None) -> AclStatusError:
    """The most specific exception for ``status``: its own subclass when the code is named."""
    return _SUBCLASSES.get((base, int(status)), base)(status, function, message)


# ---- statuses into exceptions --------------------------------------------------------------------------

def family_of(function: str) -> type:
    """``AclError`` for a function whose C result is ``aclError``, ``AclnnError`` otherwise (from the
    signature table generated from the headers, not from the name)."""
    sig = SIGNATURES.get(function)
    return AclError if sig is not None and sig["result"] == "aclError" else AclnnError


def recent_message() -> str | None:
    """The library's message for the last failure on this thread (None if it has none). Safe before the
    libraries are loaded: an unbound function returns NULL."""
    msg = lib.aclGetRecentErrMsg()
    return ffi.string(msg).decode(errors="replace") if msg != ffi.NULL else None


# Check mode's apicheck (set by aclnn_py.check when it attaches to the stub): called with (function, status,
# message) for every error status a call returns, so the finding has the Python call site and the status.
api_error_hook = None


def raise_status(status: int, function: str, family: type | None = None, hint: str | None = None):
    """Raise the exception for non-zero ``status`` returned by ``function``, with the library's message
    (and ``hint``, advice for the caller, after it)."""
    message = recent_message()
    if api_error_hook is not None:
        api_error_hook(function, status, message)
    if hint:
        message = f"{message}; {hint}" if message else hint
    raise error_for(family or family_of(function), status, function, message)


def check(status: int, function: str, family: type | None = None) -> None:
    """Raise for a non-zero ``status`` of ``function``; ``family`` (``AclError``/``AclnnError``) defaults
    to the one of the function's C result type."""
    if status:
        raise_status(status, function, family)


def check_handle(handle, function: str):
    """A creation function reports failure as a NULL handle and a recent error message."""
    if handle == ffi.NULL:
        raise_status(lib.ACLNN_ERR_INNER_NULLPTR, function, AclnnError)
    return handle


def argument_error(function: str, message: str, status: int, family: type = AclnnError) -> AclStatusError:
    """The exception ``function`` raises for a broken rule, built without calling it (so the error does not
    depend on shapes): the function's own class and code, and ``message`` naming the argument and rule."""
    if api_error_hook is not None:
        api_error_hook(function, status, message)
    return error_for(family, status, function, message)


# ---- clear messages for common caller mistakes ---------------------------------------------------------

def type_error(where: str, argument: str, value, expected: str, advice: str = "") -> TypeError:
    """``TypeError`` for an argument of the wrong Python type."""
    text = f"{where}: argument {argument!r} must be {expected}, got {type(value).__name__}"
    return TypeError(text + (f" ({advice})" if advice else ""))


def closed_error(obj) -> ValueError:
    return ValueError(f"operation on a closed {type(obj).__name__}")


def dtype_hint(argument: str, dtype, accepted, converted_from: str | None = None) -> str:
    """Advice for an input whose dtype the operator refuses: what it accepts and how to convert."""
    names = "/".join(accepted)
    origin = f" (a Python {converted_from} becomes {dtype})" if converted_from else ""
    return (f"argument {argument!r} has dtype {dtype}{origin}; the operator accepts {names}: pass "
            f"np.asarray(..., dtype={_numpy_spelling(accepted[0])}) or .astype({_numpy_spelling(accepted[0])})")


def _numpy_spelling(name: str) -> str:
    return "ml_dtypes.bfloat16" if name == "bfloat16" else f"np.{name}"
