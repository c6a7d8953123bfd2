"""``import acl`` for a process started with this directory on ``PYTHONPATH`` (``python -m aclnn_py pyacl``): a
real pyACL further along the path is imported when there is one; otherwise this module becomes aclnn_py.pyacl."""

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

_here = Path(__file__).resolve().parent
_path = [p for p in sys.path if Path(p or ".").resolve() != _here]
_spec = importlib.machinery.PathFinder.find_spec("acl", _path)
if _spec is not None:  # a real pyACL: never shadowed
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["acl"] = _module
    _spec.loader.exec_module(_module)
else:
    del sys.modules["acl"]  # this placeholder; install() puts aclnn_py.pyacl in its place
    from aclnn_py import pyacl as _pyacl

    _pyacl.install()
