"""A pyACL script: allocate device memory, copy the inputs to the device, run aclnnMoeTokenPermute, copy the
results back. Written against CANN's pyACL reference (``import acl``), with the operator run through aclnn-py
(pyACL has no aclnn bindings) on the device memory pyACL allocated. It runs unchanged on a device with the real
pyACL, and without one on aclnn-py's stub: through the ``import acl`` shim (``python -m aclnn_py pyacl
script.py``), or through ``aclnn_py.pyacl``, which the import below falls back on."""

import sys

import numpy as np

try:
    import acl
except ImportError:  # no pyACL, and the shim was not asked for: aclnn-py's pyACL interface
    from aclnn_py import pyacl as acl

import aclnn_py

# Constants as pyACL scripts define them (the values of acl/acl_rt.h).
ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
DEVICE_ID = 0


def check(ret, what):
    if ret != ACL_SUCCESS:
        sys.exit(f"{what} failed with {ret}: {acl.get_recent_err_msg()}")


def to_device(host):
    """Device memory holding a copy of the host array (pyACL: malloc, then memcpy host to device)."""
    dev_ptr, ret = acl.rt.malloc(host.nbytes, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "acl.rt.malloc")
    ret = acl.rt.memcpy(dev_ptr, host.nbytes, acl.util.numpy_to_ptr(host), host.nbytes, ACL_MEMCPY_HOST_TO_DEVICE)
    check(ret, "acl.rt.memcpy")
    return dev_ptr


def to_host(dev_ptr, like):
    """A host array shaped like ``like`` with the device memory's bytes (pyACL: memcpy device to host)."""
    host = np.empty_like(like)
    ret = acl.rt.memcpy(acl.util.numpy_to_ptr(host), host.nbytes, dev_ptr, host.nbytes, ACL_MEMCPY_DEVICE_TO_HOST)
    check(ret, "acl.rt.memcpy")
    return host


def main():
    check(acl.init(), "acl.init")
    check(acl.rt.set_device(DEVICE_ID), "acl.rt.set_device")
    context, ret = acl.rt.create_context(DEVICE_ID)
    check(ret, "acl.rt.create_context")

    tokens = np.arange(12, dtype=np.float32).reshape(4, 3)
    indices = np.array([[1], [0], [3], [2]], dtype=np.int32)          # one expert per token (top-1)
    permuted = np.zeros_like(tokens)
    sorted_indices = np.zeros(indices.size, dtype=np.int32)
    pointers = [to_device(a) for a in (tokens, indices, permuted, sorted_indices)]

    # The operator, on the memory pyACL allocated: aclnn-py tensors that borrow it.
    tensors = [aclnn_py.Tensor.from_address(p, a.shape, a.dtype)
               for p, a in zip(pointers, (tokens, indices, permuted, sorted_indices))]
    aclnn_py.run("aclnnMoeTokenPermute", tensors[0], tensors[1], 0, False, out=(tensors[2], tensors[3]))
    for t in tensors:
        t.close()

    permuted = to_host(pointers[2], permuted)
    sorted_indices = to_host(pointers[3], sorted_indices)
    for p in pointers:
        check(acl.rt.free(p), "acl.rt.free")
    check(acl.rt.destroy_context(context), "acl.rt.destroy_context")
    check(acl.rt.reset_device(DEVICE_ID), "acl.rt.reset_device")
    check(acl.finalize(), "acl.finalize")

    print("sorted_indices:", sorted_indices.tolist())
    print("permuted tokens:", permuted.tolist())
    expected = tokens[np.argsort(indices.reshape(-1), kind="stable")]
    return 0 if np.array_equal(permuted, expected) else 1


if __name__ == "__main__":
    sys.exit(main())
