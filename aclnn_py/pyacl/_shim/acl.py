"""``import acl`` for a process started with this directory on ``PYTHONPATH`` (``python -m aclnn_py pyacl``): a
real pyACL further along the path is imported when there is one; otherwise this module becomes aclnn_py.pyacl."""

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

ACLNN_PY_PYACL_SHIM = True  # the marker by which shims (of any installation) skip each other


def _is_shim(entry):
    try:
        return "ACLNN_PY_PYACL_SHIM" in (Path(entry or ".") / "acl.py").read_text(errors="replace")
    except OSError:
        return False


_spec = importlib.machinery.PathFinder.find_spec("acl", [p for p in sys.path if not _is_shim(p)])
if _spec is not None:  # a real pyACL: never shadowed
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["acl"] = _module
    _spec.loader.exec_module(_module)
else:
    del sys.modules["acl"]  # this placeholder; install() puts aclnn_py.pyacl in its place
    from aclnn_py import pyacl as _pyacl

    _pyacl.install()
