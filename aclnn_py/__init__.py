"""aclnn-py: call CANN aclnn operators from Python, on an Ascend host or on the bundled CPU stub.

Layers:
- ``aclnn_py.acl`` / ``aclnn_py.aclnn``: the C API mirrored name for name (two phases, status codes
  become exceptions, out-parameters become return values);
- ``aclnn_py.Device``, ``Context``, ``Stream``, ``Event``, ``DeviceBuffer``, ``Tensor``: resources as Python
  objects;
- ``aclnn_py.moe_token_permute_grad(...)`` and the other operators: numpy in, numpy out;
- ``aclnn_py.reference``: numpy references of every operator;
- ``aclnn_py.get_memory_pool()``: the caching device-memory pool the operator functions allocate from.
"""

from . import loader
from ._native import INCLUDE_DIR as _INCLUDE_DIR, STUB_LIB_DIR as _STUB_LIB_DIR
from .errors import (AclBaseError, AclError, AclnnError, AclStatusError, BackendNotFoundError,
                     SymbolNotFoundError)
from .loader import Backend
from .memory import MemoryPool, get_memory_pool
from .ops import *  # noqa: F401,F403  (one function per operator)
from .ops import __all__ as _op_names
from .runtime import Context, Device, DeviceBuffer, Event, Stream, Tensor, default_device

__version__ = "0.1.0"


def get_include() -> str:
    """Directory of the C headers (``acl/acl.h``, ``aclnn/acl_meta.h``, ``aclnnop/...``)."""
    return str(_INCLUDE_DIR)


def get_lib_dir() -> str:
    """Directory of the bundled stub libraries (``libascendcl.so``, ``libopapi_transformer.so``, ...)."""
    return str(_STUB_LIB_DIR)


def add_include_dir(path) -> None:
    """Search ``path`` for operator headers (``aclnn_*.h`` or ``aclnnop/aclnn_*.h``) before the toolkit's:
    their functions appear in ``aclnn_py.aclnn``."""
    from . import _headers

    _headers.add_include_dir(path)


def load_op_library(path) -> None:
    """Open an operator library so the ``aclnn*`` functions it exports resolve in ``aclnn_py.aclnn``."""
    from . import _dynamic

    _dynamic.load_op_library(path)


def backend() -> Backend:
    """Load the libraries (if not yet done) and describe what was loaded."""
    return loader.load()


__all__ = [
    "AclBaseError", "AclStatusError", "AclError", "AclnnError", "SymbolNotFoundError", "Backend",
    "BackendNotFoundError",
    "Context", "Device", "DeviceBuffer", "Event", "Stream", "Tensor", "default_device", "get_include",
    "get_lib_dir", "backend", "add_include_dir", "load_op_library", "MemoryPool", "get_memory_pool",
    *_op_names,
]
