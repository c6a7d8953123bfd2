"""aclnn-py: call CANN aclnn operators from Python, on an Ascend host or on the bundled CPU stub.

Layers:
- ``aclnn_py.acl`` / ``aclnn_py.aclnn``: the C API mirrored name for name (two phases, status codes
  become exceptions, out-parameters become return values);
- ``aclnn_py.Device``, ``Context``, ``Stream``, ``Event``, ``DeviceBuffer``, ``Tensor`` and the tensor meta
  API's ``Scalar``, ``ScalarList``, ``IntArray``, ``BoolArray``, ``FloatArray``, ``TensorList``: resources
  as Python objects;
- ``aclnn_py.moe_token_permute_grad(...)`` and the other operators: numpy in, numpy out;
  ``aclnn_py.run("aclnnXxx", ...)``: any operator, numpy arrays, torch tensors or device Tensors in;
- ``aclnn_py.reference``: numpy references of every operator; ``aclnn_py.testing``: round-trip checks;
- ``aclnn_py.hccl``: communicators and collectives (HCCL) on Tensors and numpy arrays, across threads or
  processes;
- ``aclnn_py.torch_npu``: torch_npu's functions (same signatures) on torch CPU tensors, computed by the operators;
  ``aclnn_py.torch_npu.install()`` makes ``import torch_npu`` give it;
- ``aclnn_py.get_memory_pool()``: the caching device-memory pool the operator functions allocate from;
  ``get_host_memory_pool()``: the host blocks behind the stub's zero-copy results.

Importing the package loads neither numpy nor the libraries: every name above is an attribute resolved on
first use (PEP 562), so ``import aclnn_py`` stays cheap.
"""

import importlib

from ._native import INCLUDE_DIR as _INCLUDE_DIR, STUB_LIB_DIR as _STUB_LIB_DIR
from .errors import (AclBaseError, AclError, AclnnError, AclStatusError, BackendNotFoundError, HcclError,
                     SymbolNotFoundError)
from .loader import Backend

__version__ = "0.1.0"

_SUBMODULES = frozenset({"acl", "aclnn", "reference", "testing", "generic", "ops", "runtime", "dtypes", "errors",
                         "loader", "memory", "pyacl", "hccl", "torch_npu"})
_RUNTIME = ("BoolArray", "Context", "Device", "DeviceBuffer", "Event", "FloatArray", "IntArray", "Scalar",
            "ScalarList", "Stream", "Tensor", "TensorList", "default_device")


def _operator_names() -> list[str]:
    from ._optable import OPS

    return [op.py_name for op in OPS]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")  # also sets the package attribute
    if name in _RUNTIME:
        module = importlib.import_module(f"{__name__}.runtime")
    elif name == "run":
        module = importlib.import_module(f"{__name__}.generic")
    elif name in ("MemoryPool", "get_memory_pool", "HostMemoryPool", "get_host_memory_pool"):
        module = importlib.import_module(f"{__name__}.memory")
    elif not name.startswith("_") and name in _operator_names():
        module = importlib.import_module(f"{__name__}.ops")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__():
    return sorted(set(globals()) | _SUBMODULES | set(__all__))


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
    from . import loader

    return loader.load()


__all__ = [
    "AclBaseError", "AclStatusError", "AclError", "AclnnError", "HcclError", "SymbolNotFoundError", "Backend",
    "BackendNotFoundError", *_RUNTIME, "get_include", "get_lib_dir", "backend", "add_include_dir",
    "load_op_library", "run", "MemoryPool", "get_memory_pool", "HostMemoryPool", "get_host_memory_pool",
    *_operator_names(),
]
