"""aclnn-py: call CANN aclnn operators from Python, on an Ascend host or on the bundled CPU stub.

Layers:
- ``aclnn_py.acl`` / ``aclnn_py.aclnn``: the C API mirrored name for name (two phases, status codes
  become exceptions, out-parameters become return values);
- ``aclnn_py.Device``, ``Context``, ``Stream``, ``Event``, ``DeviceBuffer``, ``Tensor``: resources as Python
  objects;
- ``aclnn_py.moe_token_permute_grad(...)`` and the other operators: numpy in, numpy out;
- ``aclnn_py.reference``: numpy references of every operator.
"""

from . import loader
from ._native import INCLUDE_DIR as _INCLUDE_DIR, STUB_LIB_DIR as _STUB_LIB_DIR
from .errors import (AclBaseError, AclError, AclnnError, AclStatusError, BackendNotFoundError,
                     SymbolNotFoundError)
from .loader import Backend
from .ops import *  # noqa: F401,F403  (one function per operator)
from .ops import __all__ as _op_names
from .runtime import (BoolArray, Context, Device, DeviceBuffer, Event, FloatArray, IntArray, Scalar, ScalarList,
                      Stream, Tensor, TensorList, default_device)

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


def run(name: str, *args, out=None, outputs=None, stream=None, **kwargs):
    """Run any aclnn operator on numpy arrays, torch tensors or device Tensors (``aclnn_py.generic``):
    ``run("aclnnAdd", x, y, 1.0, out=z)``; returns the outputs, written back."""
    from .generic import run as generic_run

    return generic_run(name, *args, out=out, outputs=outputs, stream=stream, **kwargs)


def backend() -> Backend:
    """Load the libraries (if not yet done) and describe what was loaded."""
    return loader.load()


__all__ = [
    "AclBaseError", "AclStatusError", "AclError", "AclnnError", "SymbolNotFoundError", "Backend",
    "BackendNotFoundError",
    "Context", "Device", "DeviceBuffer", "Event", "Stream", "Tensor", "default_device", "get_include",
    "Scalar", "ScalarList", "IntArray", "BoolArray", "FloatArray", "TensorList",
    "get_lib_dir", "backend", "add_include_dir", "load_op_library", "run",
    *_op_names,
]
