"""CANN's pyACL interface over libascendcl: the toolkit's when one is found, the bundled stub otherwise.

Scripts written for pyACL (``import acl``) run unchanged against ``aclnn_py.pyacl``: the same module layout
(``rt``, ``util``, ``op``), the same function names and argument orders as CANN's pyACL reference, addresses and
handles as ``int``, and results as tuples with the status last::

    from aclnn_py import pyacl as acl

    ret = acl.init()
    ret = acl.rt.set_device(0)
    dev_ptr, ret = acl.rt.malloc(size, 0)            # ACL_MEM_MALLOC_HUGE_FIRST
    ret = acl.rt.memcpy(dev_ptr, size, acl.util.numpy_to_ptr(host), size, 1)   # ACL_MEMCPY_HOST_TO_DEVICE

A status is returned, not raised (``acl.get_recent_err_msg()`` says why). To make ``import acl`` itself resolve
here, for scripts and tests that cannot change, see :func:`install` and ``python -m aclnn_py pyacl``; a real
pyACL, when one is installed, is never shadowed.
"""

from __future__ import annotations

import importlib.machinery
import sys
from pathlib import Path

from . import _wrap

# The top-level functions: {pyACL name: C function}.
TOP = {
    "init": "aclInit",
    "finalize": "aclFinalize",
    "get_soc_name": "aclrtGetSocName",
    "get_recent_err_msg": "aclGetRecentErrMsg",
    "float16_to_float": "aclFloat16ToFloat",
    "float_to_float16": "aclFloatToFloat16",
    "data_type_size": "aclDataTypeSize",
}
__all__ = _wrap.build(globals(), "acl", TOP, {"init": ("configPath",)})

from . import op, rt, util  # noqa: E402  (after the top-level functions, as pyACL's module fills them first)

__all__ += ["rt", "util", "op", "install", "uninstall", "shim_dir"]

SHIM_DIR = Path(__file__).resolve().parent / "_shim"


def shim_dir() -> str:
    """A directory holding an ``acl`` module that is this one: put it first on ``PYTHONPATH`` so that
    ``import acl`` resolves here in a process (and its children) that cannot change its imports. When a real
    pyACL is on the path as well, that module hands ``import acl`` to it."""
    return str(SHIM_DIR)


def _is_shim(entry: str) -> bool:
    """``entry`` of sys.path is a shim directory (this installation's or another's: a source tree, another venv)."""
    try:
        return "ACLNN_PY_PYACL_SHIM" in (Path(entry or ".") / "acl.py").read_text(errors="replace")
    except OSError:
        return False


def _real_pyacl():
    """The import spec of a real pyACL on ``sys.path`` (not a shim), or None."""
    return importlib.machinery.PathFinder.find_spec("acl", [p for p in sys.path if not _is_shim(p)])


def install() -> bool:
    """Make ``import acl`` (and ``acl.rt``, ``acl.util``, ``acl.op``) resolve to this module in this process.
    Does nothing and returns False when a real pyACL can be imported (a module named ``acl`` on ``sys.path``)
    or is already imported; returns True when installed."""
    current = sys.modules.get("acl")
    if current is sys.modules[__name__]:
        return True
    if current is not None or _real_pyacl() is not None:
        return False
    sys.modules["acl"] = sys.modules[__name__]
    for name in ("rt", "util", "op"):
        sys.modules[f"acl.{name}"] = sys.modules[f"{__name__}.{name}"]
    return True


def uninstall() -> None:
    """Undo :func:`install`."""
    if sys.modules.get("acl") is sys.modules[__name__]:
        for name in ("acl", "acl.rt", "acl.util", "acl.op"):
            sys.modules.pop(name, None)
