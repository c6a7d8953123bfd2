"""What type checkers see of ``import aclnn_py``: every public name, with its real type (the package resolves them
lazily at run time, which checkers cannot follow). The operator functions come from ``ops.pyi`` and the per-code
exception classes from ``errors.pyi``, both generated with the extension."""

from os import PathLike

from . import acl as acl
from . import aclnn as aclnn
from . import dtypes as dtypes
from . import errors as errors
from . import generic as generic
from . import hccl as hccl
from . import loader as loader
from . import memory as memory
from . import ops as ops
from . import pyacl as pyacl
from . import reference as reference
from . import runtime as runtime
from . import testing as testing
from . import torch_npu as torch_npu
from .errors import AclBaseError as AclBaseError
from .errors import AclError as AclError
from .errors import AclnnError as AclnnError
from .errors import AclStatusError as AclStatusError
from .errors import BackendNotFoundError as BackendNotFoundError
from .errors import HcclError as HcclError
from .errors import SymbolNotFoundError as SymbolNotFoundError
from .generic import run as run
from .loader import Backend as Backend
from .memory import HostMemoryPool as HostMemoryPool
from .memory import MemoryPool as MemoryPool
from .memory import get_host_memory_pool as get_host_memory_pool
from .memory import get_memory_pool as get_memory_pool
from .ops import *
from .runtime import BoolArray as BoolArray
from .runtime import Context as Context
from .runtime import Device as Device
from .runtime import DeviceBuffer as DeviceBuffer
from .runtime import Event as Event
from .runtime import FloatArray as FloatArray
from .runtime import IntArray as IntArray
from .runtime import Scalar as Scalar
from .runtime import ScalarList as ScalarList
from .runtime import Stream as Stream
from .runtime import Tensor as Tensor
from .runtime import TensorList as TensorList
from .runtime import default_device as default_device

__version__: str

def get_include() -> str: ...
def get_lib_dir() -> str: ...
def add_include_dir(path: str | PathLike[str]) -> None: ...
def load_op_library(path: str | PathLike[str]) -> None: ...
def backend() -> Backend: ...
