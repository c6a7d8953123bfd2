"""Access to the compiled half (package ``_aclnn_py_native``): the cffi ``ffi``/``lib`` pair, the
signature table generated from the headers (and the operators of the one-call path, in dispatch order),
and the installed headers and stub libraries."""

from __future__ import annotations

try:
    import _aclnn_py_native as _pkg
    from _aclnn_py_native import _cffi
    from _aclnn_py_native import mirror_rules as _rules
    from _aclnn_py_native.signatures import ENUM_TYPES as _ENUM_TYPES, FASTPATH_OPS, SIGNATURES
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "aclnn_py's compiled part (_aclnn_py_native) is not installed; build it with `pip install .` "
        f"from the repository root ({exc})"
    ) from exc

_rules.ENUM_TYPES.update(_ENUM_TYPES)  # the mirror's rules see the headers' enums, as the build did
ffi = _cffi.ffi
lib = _cffi.lib
INCLUDE_DIR = _pkg.INCLUDE_DIR
STUB_LIB_DIR = _pkg.STUB_LIB_DIR
NULL = ffi.NULL

__all__ = ["ffi", "lib", "SIGNATURES", "FASTPATH_OPS", "INCLUDE_DIR", "STUB_LIB_DIR", "NULL"]
