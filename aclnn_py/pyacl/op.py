"""``acl.op``: aclnn operators in pyACL's conventions (handles and addresses as ``int``, the status last).

CANN's pyACL has no aclnn bindings (its ``acl.op`` is the older single-operator API, which the stub does not
provide); these follow its conventions so that a pyACL-style script can run an aclnn operator without another
API::

    tensor = acl.op.create_tensor([2, 3], ACL_FLOAT, [3, 1], 0, ACL_FORMAT_ND, [2, 3], dev_ptr)
    workspace_size, executor, ret = acl.op.get_workspace_size("aclnnMoeTokenPermute", x, idx, 0, False, out, order)
    ret = acl.op.execute("aclnnMoeTokenPermute", workspace, workspace_size, executor, stream)
    ret = acl.op.destroy_tensor(tensor)

Operators are those compiled into aclnn_py (the headers it ships); their parameters are the C inputs of
``aclnnXxxGetWorkspaceSize`` in C order (tensors, arrays and scalars as int handles, attributes as numbers).
"""

from __future__ import annotations

import functools
import operator

from .._native import SIGNATURES, ffi, lib
from .. import loader
from ._wrap import address, make, to_pointer

__all__ = ["create_tensor", "destroy_tensor", "get_workspace_size", "execute"]


def create_tensor(view_dims, data_type, stride, offset, format, storage_dims, tensor_data) -> int:
    """``aclCreateTensor`` with the dimension counts taken from the lists: the tensor handle, 0 on failure
    (``acl.get_recent_err_msg()`` says why)."""
    where = "acl.op.create_tensor"
    loader.load()
    try:
        view = [operator.index(d) for d in view_dims]
        strides = [operator.index(d) for d in stride]
        storage = [operator.index(d) for d in storage_dims]
    except TypeError:
        raise TypeError(f"{where}: view_dims, stride and storage_dims must be lists of ints") from None
    if len(strides) != len(view):
        raise ValueError(f"{where}: {len(strides)} strides for {len(view)} dimensions")
    handle = lib.aclCreateTensor(ffi.new("int64_t[]", view or [0]), len(view), operator.index(data_type),
                                 ffi.new("int64_t[]", strides or [0]), operator.index(offset),
                                 operator.index(format), ffi.new("int64_t[]", storage or [0]), len(storage),
                                 to_pointer(where, "tensor_data", tensor_data))
    return address(handle)


def destroy_tensor(tensor) -> int:
    """``aclDestroyTensor``: the status."""
    loader.load()
    return int(lib.aclDestroyTensor(to_pointer("acl.op.destroy_tensor", "tensor", tensor)))


@functools.lru_cache(maxsize=None)
def _phase(c_name: str):
    if c_name not in SIGNATURES:
        raise ValueError(f"acl.op: no compiled operator function {c_name!r}")
    return make(f"acl.op.{c_name}", c_name)


def _operator(op_type) -> str:
    if not isinstance(op_type, str) or not op_type.startswith("aclnn"):
        raise TypeError(f"acl.op: op_type must be an operator name such as 'aclnnAdd', got {op_type!r}")
    return op_type


def get_workspace_size(op_type, *args):
    """Phase 1 of ``op_type``: ``(workspace_size, executor, ret)`` (and any other out-parameters first)."""
    return _phase(_operator(op_type) + "GetWorkspaceSize")(*args)


def execute(op_type, workspace, workspace_size, executor, stream) -> int:
    """Phase 2 of ``op_type`` on ``stream``: the status."""
    return _phase(_operator(op_type))(workspace, workspace_size, executor, stream)
