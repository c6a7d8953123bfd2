"""Seeded bugs for check mode through the Python mirror of the C API: ``python check_seeded_bugs.py NAME``.
Each scenario has exactly one bug, on the line marked "# BUG: <what>"; "clean" has none."""

import sys

import numpy as np

from aclnn_py import AclError, acl

H2D, D2H = acl.ACL_MEMCPY_HOST_TO_DEVICE, acl.ACL_MEMCPY_DEVICE_TO_HOST


def clean(stream):
    host = np.arange(16, dtype=np.uint8)
    dev = acl.aclrtMalloc(16, 0)
    acl.aclrtMemsetAsync(dev, 16, 7, 16, stream)
    acl.aclrtSynchronizeStream(stream)
    acl.aclrtMemcpy(acl.host_ptr(host), 16, dev, 16, D2H)
    acl.aclrtFree(dev)


def use_after_free(stream):
    host = np.zeros(16, dtype=np.uint8)
    dev = acl.aclrtMalloc(16, 0)
    acl.aclrtMemcpy(dev, 16, acl.host_ptr(host), 16, H2D)
    acl.aclrtFree(dev)
    try:
        acl.aclrtMemcpy(acl.host_ptr(host), 16, dev, 16, D2H)  # BUG: use-after-free
    except AclError:
        pass


def uninitialized_read(stream):
    host = np.zeros(16, dtype=np.uint8)
    dev = acl.aclrtMalloc(16, 0)
    acl.aclrtMemcpy(acl.host_ptr(host), 16, dev, 16, D2H)  # BUG: uninitialized-read
    acl.aclrtFree(dev)


def read_before_sync(stream):
    host = np.zeros(16, dtype=np.uint8)
    dev = acl.aclrtMalloc(16, 0)
    acl.aclrtMemsetAsync(dev, 16, 7, 16, stream)
    acl.aclrtMemcpy(acl.host_ptr(host), 16, dev, 16, D2H)  # BUG: host-read-before-sync
    acl.aclrtSynchronizeStream(stream)
    acl.aclrtFree(dev)


def leak(stream):
    acl.aclrtMalloc(16, 0)  # BUG: leaked-device-memory


def main(name):
    acl.aclInit(None)
    acl.aclrtSetDevice(0)
    stream = acl.aclrtCreateStream()
    globals()[name.replace("-", "_")](stream)
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(0)
    acl.aclFinalize()


if __name__ == "__main__":
    main(sys.argv[1])
