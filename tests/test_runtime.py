"""The runtime rules of abi.md 4.4 (and the tables of 5.1 and 7.2), exercised through the mirror layer.

aclInit/aclFinalize and device selection change process-wide state that the session shares (the leak
fixture keeps device 0 initialised), so those rules run in a child interpreter; everything else runs here
with device 0 current.
"""

import struct
import threading

import numpy as np
import pytest

from aclnn_py import AclError, acl, errors
from aclnn_py._native import ffi, lib

from helpers_acl import NULL, addr, host_ptr, offset_ptr, status_of
from helpers_proc import run_json

HUGE = acl.ACL_MEM_MALLOC_HUGE_FIRST
H2H, H2D, D2H, D2D, DEFAULT, H2BUF2D = (acl.ACL_MEMCPY_HOST_TO_HOST, acl.ACL_MEMCPY_HOST_TO_DEVICE,
                                        acl.ACL_MEMCPY_DEVICE_TO_HOST, acl.ACL_MEMCPY_DEVICE_TO_DEVICE,
                                        acl.ACL_MEMCPY_DEFAULT, acl.ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)




@pytest.fixture
def dev():
    """Allocate device blocks; whatever the test did not free is freed afterwards."""
    blocks = []

    def malloc(n):
        p = acl.aclrtMalloc(n, HUGE)
        blocks.append(p)
        return p

    yield malloc
    for p in blocks:
        if lib.aclrtFree(p):
            acl.aclGetRecentErrMsg()


def read_device(ptr, n, offset=0) -> bytes:
    out = np.zeros(n, np.uint8)
    acl.aclrtMemcpy(host_ptr(out), n, offset_ptr(ptr, offset), n, D2H)
    return out.tobytes()


def write_device(ptr, data: bytes, offset=0) -> None:
    src = np.frombuffer(data, np.uint8).copy()
    acl.aclrtMemcpy(offset_ptr(ptr, offset), len(data), host_ptr(src), len(data), H2D)


# ---- aclInit / aclFinalize / devices (child interpreter) --------------------------------------------------

INIT_SNIPPET = '''
import os, tempfile
from aclnn_py import acl
from aclnn_py._native import ffi

r = {}
host = ffi.new("char[]", 16)
r["finalize_without_init"] = status(acl.aclFinalize)
r["set_device_before_init"] = status(acl.aclrtSetDevice, 0)
r["get_device_before_init"] = status(acl.aclrtGetDevice)
r["create_stream_before_init"] = status(acl.aclrtCreateStream)
r["malloc_before_init"] = status(acl.aclrtMalloc, 64, 0)
r["memcpy_before_init"] = status(acl.aclrtMemcpy, host, 16, host + 8, 8, acl.ACL_MEMCPY_HOST_TO_HOST)

r["init_missing_file"] = status(acl.aclInit, "/nonexistent-aclnn-py/acl.json")
r["set_device_after_failed_init"] = status(acl.aclrtSetDevice, 0)
d = tempfile.mkdtemp()
r["init_directory"] = status(acl.aclInit, d)
r["init_none"] = status(acl.aclInit, None)
r["init_again"] = status(acl.aclInit, None)
r["init_again_msg"] = error(acl.aclInit, None)
r["finalize"] = status(acl.aclFinalize)
r["finalize_again"] = status(acl.aclFinalize)
r["finalize_again_err"] = error(acl.aclFinalize)
r["init_empty"] = status(acl.aclInit, "")
r["finalize_after_empty"] = status(acl.aclFinalize)
cfg = os.path.join(d, "acl.json")
with open(cfg, "w") as f:
    f.write("{}")
r["init_file"] = status(acl.aclInit, cfg)

r["get_device_unset"] = status(acl.aclrtGetDevice)
r["create_stream_no_device"] = status(acl.aclrtCreateStream)
r["malloc_no_device"] = status(acl.aclrtMalloc, 64, 0)
r["memcpy_no_device"] = status(acl.aclrtMemcpy, host, 16, host + 8, 8, acl.ACL_MEMCPY_HOST_TO_HOST)
r["memset_no_device"] = status(acl.aclrtMemset, host, 16, 0, 8)
r["set_device_8"] = status(acl.aclrtSetDevice, 8)
r["set_device_8_err"] = error(acl.aclrtSetDevice, 8)
r["set_device_minus_1"] = status(acl.aclrtSetDevice, -1)
r["set_device_0"] = status(acl.aclrtSetDevice, 0)
r["set_device_0_again"] = status(acl.aclrtSetDevice, 0)
r["get_device"] = acl.aclrtGetDevice()
r["device_count"] = acl.aclrtGetDeviceCount()
s = acl.aclrtCreateStream()
r["destroy_stream"] = status(acl.aclrtDestroyStream, s)
p = acl.aclrtMalloc(64, 0)
r["free"] = status(acl.aclrtFree, p)
r["reset_device_8"] = status(acl.aclrtResetDevice, 8)
r["reset_device_minus_1"] = status(acl.aclrtResetDevice, -1)
r["reset_device_0"] = status(acl.aclrtResetDevice, 0)
r["get_device_after_one_reset"] = acl.aclrtGetDevice()  # set twice, reset once: still set
r["reset_device_0_second"] = status(acl.aclrtResetDevice, 0)
r["get_device_after_reset"] = status(acl.aclrtGetDevice)
r["malloc_after_reset"] = status(acl.aclrtMalloc, 64, 0)
r["reset_device_never_set"] = status(acl.aclrtResetDevice, 0)
r["set_device_0_third"] = status(acl.aclrtSetDevice, 0)
r["finalize_with_device"] = status(acl.aclFinalize)
r["set_device_after_finalize"] = status(acl.aclrtSetDevice, 0)
r["reinit"] = status(acl.aclInit, None)
r["get_device_after_reinit"] = status(acl.aclrtGetDevice)
r["final_finalize"] = status(acl.aclFinalize)
emit(r)
'''


@pytest.fixture(scope="module")
def init_results():
    return run_json(INIT_SNIPPET, env={"ACLNN_PY_BACKEND": "stub"})


INIT_EXPECTED = {
    "finalize_without_init": 100037,
    "set_device_before_init": 100001,
    "get_device_before_init": 107002,
    "create_stream_before_init": 107002,
    "malloc_before_init": 107002,
    "memcpy_before_init": 107002,
    "init_missing_file": 100003,
    "set_device_after_failed_init": 100001,  # a failed aclInit leaves the runtime uninitialised
    "init_directory": 100003,
    "init_none": 0,
    "init_again": 100002,
    "finalize": 0,
    "finalize_again": 100037,
    "init_empty": 0,
    "finalize_after_empty": 0,
    "init_file": 0,  # any readable file, no parsing
    "get_device_unset": 107002,
    "create_stream_no_device": 107002,
    "malloc_no_device": 107002,
    "memcpy_no_device": 107002,
    "memset_no_device": 107002,
    "set_device_8": 107001,  # ids 0..7: eight devices by default
    "set_device_minus_1": 107001,
    "set_device_0": 0,
    "set_device_0_again": 0,
    "get_device": 0,
    "device_count": 8,
    "destroy_stream": 0,
    "free": 0,
    "reset_device_8": 107001,
    "reset_device_minus_1": 107001,
    "reset_device_0": 0,
    "get_device_after_one_reset": 0,
    "reset_device_0_second": 0,
    "get_device_after_reset": 107002,
    "malloc_after_reset": 107002,
    "reset_device_never_set": 0,
    "set_device_0_third": 0,
    "finalize_with_device": 0,
    "set_device_after_finalize": 100001,
    "reinit": 0,
    "get_device_after_reinit": 107002,  # aclFinalize dropped the current device
    "final_finalize": 0,
}


def test_init_and_device_rules(init_results):
    assert {k: init_results[k] for k in INIT_EXPECTED} == INIT_EXPECTED


def test_init_errors_are_specific_classes_with_messages(init_results):
    again = init_results["init_again_msg"]
    assert again["type"] == "AclErrorRepeatInitialize" and "AclError" in again["mro"]
    assert "aclInit" in again["text"] and "100002" in again["text"]
    fin = init_results["finalize_again_err"]
    assert fin["type"] == "AclErrorRepeatFinalize" and fin["status"] == 100037
    bad = init_results["set_device_8_err"]
    assert bad["type"] == "AclErrorRtInvalidDeviceid" and bad["status"] == 107001
    assert "aclrtSetDevice" in bad["text"] and "deviceId" in bad["text"]


# ---- devices (in process: device 0 is current) ------------------------------------------------------------

def test_device_count_and_current_device():
    assert acl.aclrtGetDeviceCount() == 8
    assert acl.aclrtGetDevice() == 0
    acl.aclrtSynchronizeDevice()


def test_set_invalid_device_keeps_current_device():
    with pytest.raises(errors.AclErrorRtInvalidDeviceid):
        acl.aclrtSetDevice(8)
    assert acl.aclrtGetDevice() == 0
    acl.aclrtSetDevice(0)  # setting the current device again adds a reference ...
    acl.aclrtResetDevice(0)  # ... which a reset takes away again
    assert acl.aclrtGetDevice() == 0


def test_null_out_parameters_through_the_raw_library():
    """NULL out-parameters cannot be written through the mirror (it allocates them); call the C functions."""
    codes = {"aclrtCreateStream": lib.aclrtCreateStream(NULL), "aclrtMalloc": lib.aclrtMalloc(NULL, 8, HUGE),
             "aclrtMallocHost": lib.aclrtMallocHost(NULL, 8), "aclrtGetDeviceCount": lib.aclrtGetDeviceCount(NULL),
             "aclrtGetDevice": lib.aclrtGetDevice(NULL)}
    acl.aclGetRecentErrMsg()
    assert codes == dict.fromkeys(codes, 100000)


def test_malloc_host_too_large():
    assert status_of(acl.aclrtMallocHost, 1 << 62) == 207001


# ---- streams ----------------------------------------------------------------------------------------------

def test_stream_lifecycle_and_counter():
    before = acl.aclStubLiveStreams()
    s1, s2 = acl.aclrtCreateStream(), acl.aclrtCreateStream()
    assert s1 != NULL and s2 != NULL and s1 != s2
    assert acl.aclStubLiveStreams() == before + 2
    acl.aclrtSynchronizeStream(s1)
    acl.aclrtDestroyStream(s1)
    acl.aclrtDestroyStream(s2)
    assert acl.aclStubLiveStreams() == before


def test_synchronize_null_stream_is_default_stream():
    acl.aclrtSynchronizeStream(NULL)


def test_destroy_null_stream_is_invalid_param():
    with pytest.raises(errors.AclErrorInvalidParam) as ei:
        acl.aclrtDestroyStream(NULL)
    assert ei.value.status == 100000


def test_destroy_unknown_stream_handle():
    not_a_stream = ffi.new("char[64]")
    assert status_of(acl.aclrtDestroyStream, ffi.cast("void *", not_a_stream)) == 107000
    assert status_of(acl.aclrtSynchronizeStream, ffi.cast("void *", not_a_stream)) == 107000


def test_destroyed_stream_handle_is_rejected():
    s = acl.aclrtCreateStream()
    acl.aclrtDestroyStream(s)
    assert status_of(acl.aclrtDestroyStream, s) == 107000
    assert status_of(acl.aclrtSynchronizeStream, s) == 107000
    host = np.zeros(8, np.uint8)
    assert status_of(acl.aclrtMemcpyAsync, host_ptr(host), 8, host_ptr(host), 4, H2H, s) == 107000
    # a stream created afterwards is a different, live handle
    s2 = acl.aclrtCreateStream()
    try:
        acl.aclrtSynchronizeStream(s2)
        assert status_of(acl.aclrtSynchronizeStream, s) == 107000
    finally:
        acl.aclrtDestroyStream(s2)


def test_memcpy_async_on_live_and_default_stream(dev):
    p = dev(16)
    s = acl.aclrtCreateStream()
    try:
        src = np.arange(16, dtype=np.uint8)
        acl.aclrtMemcpyAsync(p, 16, host_ptr(src), 16, H2D, s)
        acl.aclrtSynchronizeStream(s)
        assert read_device(p, 16) == src.tobytes()
        src2 = src[::-1].copy()
        acl.aclrtMemcpyAsync(p, 16, host_ptr(src2), 16, H2D, NULL)
        acl.aclrtSynchronizeStream(NULL)  # asynchronous: the copy is only known to be done after this
        assert read_device(p, 16) == src2.tobytes()
    finally:
        acl.aclrtDestroyStream(s)


# ---- aclrtMalloc / aclrtFree -----------------------------------------------------------------------------

def test_malloc_size_zero_is_invalid_param():
    with pytest.raises(errors.AclErrorInvalidParam) as ei:
        acl.aclrtMalloc(0, HUGE)
    assert ei.value.status == 100000
    assert "aclrtMalloc" in str(ei.value) and "size" in ei.value.message


def test_malloc_too_large_is_allocation_error():
    assert status_of(acl.aclrtMalloc, 1 << 62, HUGE) == 207001


def test_malloc_is_aligned_zero_filled_and_counted(dev):
    for size in (1, 7, 31, 32, 33, 64, 100, 4096, 100_003):
        blocks, nbytes = acl.aclStubLiveAllocations(), acl.aclStubLiveAllocationBytes()
        p = dev(size)
        assert addr(p) % 64 == 0, size
        assert acl.aclStubLiveAllocations() == blocks + 1
        assert acl.aclStubLiveAllocationBytes() == nbytes + size
        assert read_device(p, size) == bytes(size)
        acl.aclrtFree(p)
        assert acl.aclStubLiveAllocations() == blocks and acl.aclStubLiveAllocationBytes() == nbytes


def test_malloc_policy_is_ignored():
    for policy in (0, 1, 2, 3, 7, 0x100, 0x1000, 0x100000, 12345):
        p = acl.aclrtMalloc(8, policy)
        acl.aclrtFree(p)


def test_malloc_blocks_do_not_overlap(dev):
    ps = sorted(addr(dev(100)) for _ in range(20))
    assert all(b - a >= 100 for a, b in zip(ps, ps[1:]))


def test_free_null_is_invalid_param():
    assert status_of(acl.aclrtFree, NULL) == 100000


def test_free_unknown_pointer():
    host = np.zeros(64, np.uint8)
    assert status_of(acl.aclrtFree, host_ptr(host)) == 107000
    assert status_of(acl.aclrtFree, ffi.cast("void *", 0x40)) == 107000


def test_double_free():
    p = acl.aclrtMalloc(32, HUGE)
    acl.aclrtFree(p)
    with pytest.raises(errors.AclErrorRtParamInvalid) as ei:
        acl.aclrtFree(p)
    assert ei.value.status == 107000 and "devPtr" in str(ei.value)


def test_free_interior_pointer_keeps_block(dev):
    blocks = acl.aclStubLiveAllocations()
    p = dev(128)
    write_device(p, b"\x5a" * 128)
    assert status_of(acl.aclrtFree, offset_ptr(p, 8)) == 107000
    assert status_of(acl.aclrtFree, offset_ptr(p, 128)) == 107000
    assert acl.aclStubLiveAllocations() == blocks + 1
    assert read_device(p, 128) == b"\x5a" * 128  # block untouched
    acl.aclrtFree(p)
    assert acl.aclStubLiveAllocations() == blocks


def test_free_host_allocation_is_rejected():
    h = acl.aclrtMallocHost(64)
    try:
        assert status_of(acl.aclrtFree, h) == 107000
    finally:
        acl.aclrtFreeHost(h)


# ---- aclrtMemcpy -----------------------------------------------------------------------------------------

def test_memcpy_count_zero_ignores_pointers_and_kind():
    acl.aclrtMemcpy(NULL, 0, NULL, 0, H2D)
    acl.aclrtMemcpy(NULL, 0, NULL, 0, 99)
    host = np.zeros(4, np.uint8)
    acl.aclrtMemcpy(host_ptr(host), 4, host_ptr(host), 0, D2D)  # host pointers, but nothing to copy


def test_memcpy_null_pointers(dev):
    p = dev(16)
    host = np.zeros(16, np.uint8)
    assert status_of(acl.aclrtMemcpy, NULL, 16, host_ptr(host), 8, H2D) == 100000
    assert status_of(acl.aclrtMemcpy, p, 16, NULL, 8, H2D) == 100000
    assert status_of(acl.aclrtMemcpy, host_ptr(host), 16, NULL, 8, D2H) == 100000


def test_memcpy_bad_kind(dev):
    p = dev(16)
    host = np.zeros(16, np.uint8)
    for kind in (6, 7, 8, 1000, 0x7FFFFFFF):
        with pytest.raises(errors.AclErrorInvalidParam) as ei:
            acl.aclrtMemcpy(p, 16, host_ptr(host), 8, kind)
        assert "kind" in str(ei.value)


def test_memcpy_count_above_dest_max(dev):
    p = dev(16)
    host = np.zeros(16, np.uint8)
    with pytest.raises(errors.AclErrorRtParamInvalid) as ei:
        acl.aclrtMemcpy(p, 8, host_ptr(host), 9, H2D)
    assert "count" in str(ei.value) and "destMax" in str(ei.value)
    assert status_of(acl.aclrtMemcpy, host_ptr(host), 4, host_ptr(host), 16, H2H) == 107000


@pytest.mark.parametrize("kind, dst_dev, src_dev", [
    (H2D, False, False),   # dst must be device memory
    (H2D, True, True),     # src must be host memory
    (D2H, False, False),   # src must be device memory
    (D2H, True, True),     # dst must be host memory
    (D2D, True, False),
    (D2D, False, True),
    (H2H, True, False),    # host-to-host must not touch device blocks
    (H2H, False, True),
    (H2BUF2D, False, False),
])
def test_memcpy_kind_checked_against_registry(dev, kind, dst_dev, src_dev):
    d1, d2 = dev(32), dev(32)
    write_device(d1, bytes(range(32)))
    h1, h2 = np.full(32, 7, np.uint8), np.full(32, 9, np.uint8)
    dst = d1 if dst_dev else host_ptr(h1)
    src = d2 if src_dev else host_ptr(h2)
    assert status_of(acl.aclrtMemcpy, dst, 32, src, 32, kind) == 107000
    # nothing was copied
    assert read_device(d1, 32) == bytes(range(32))
    assert (h1 == 7).all() and (h2 == 9).all()


def test_memcpy_device_span_overflow(dev):
    p = dev(64)  # 96 bytes with the padding aclrtMalloc adds (rounded up to 32, plus 32)
    host = np.zeros(128, np.uint8)
    assert status_of(acl.aclrtMemcpy, p, 128, host_ptr(host), 97, H2D) == 107000
    assert status_of(acl.aclrtMemcpy, offset_ptr(p, 92), 128, host_ptr(host), 5, H2D) == 107000
    assert status_of(acl.aclrtMemcpy, host_ptr(host), 128, offset_ptr(p, 1), 96, D2H) == 107000
    q = dev(64)
    assert status_of(acl.aclrtMemcpy, q, 128, p, 97, D2D) == 107000
    # exactly up to the end of the block and its padding is fine
    acl.aclrtMemcpy(offset_ptr(p, 92), 4, host_ptr(host), 4, H2D)
    acl.aclrtMemcpy(host_ptr(host), 128, p, 96, D2H)


def test_memcpy_default_kind_checks_device_spans(dev):
    """ACL_MEMCPY_DEFAULT infers each side from where it starts and checks the whole span like the other kinds."""
    p, q = dev(64), dev(64)
    host = np.zeros(64 << 10, np.uint8)
    assert status_of(acl.aclrtMemcpy, p, 64 << 10, host_ptr(host), 64 << 10, DEFAULT) == 107000
    assert status_of(acl.aclrtMemcpy, host_ptr(host), 64 << 10, p, 97, DEFAULT) == 107000  # past the padding
    assert status_of(acl.aclrtMemcpy, q, 128, p, 97, DEFAULT) == 107000
    assert status_of(acl.aclrtMemcpyAsync, p, 128, host_ptr(host), 128, DEFAULT, NULL) == 107000
    assert status_of(acl.aclrtMemsetAsync, p, 128, 0, 128, NULL) == 107000
    assert read_device(p, 64) == bytes(64)


def test_memcpy_freed_block_is_not_device_memory(dev):
    p = acl.aclrtMalloc(64, HUGE)
    acl.aclrtFree(p)
    host = np.zeros(64, np.uint8)
    assert status_of(acl.aclrtMemcpy, p, 64, host_ptr(host), 16, H2D) == 107000


def test_memcpy_each_kind_round_trip(dev):
    data = np.random.default_rng(1).integers(0, 256, 200, dtype=np.uint8)
    a, b = dev(200), dev(256)
    acl.aclrtMemcpy(a, 200, host_ptr(data), 200, H2D)
    acl.aclrtMemcpy(offset_ptr(b, 40), 216, a, 200, D2D)
    back = np.zeros(200, np.uint8)
    acl.aclrtMemcpy(host_ptr(back), 200, offset_ptr(b, 40), 200, D2H)
    assert (back == data).all()
    assert read_device(b, 40) == bytes(40)  # bytes before the destination untouched

    h = np.zeros(200, np.uint8)
    acl.aclrtMemcpy(host_ptr(h), 200, host_ptr(data), 200, H2H)
    assert (h == data).all()

    # DEFAULT infers the direction; HOST_TO_BUF_TO_DEVICE behaves as host-to-device
    c = dev(200)
    rev = data[::-1].copy()
    acl.aclrtMemcpy(c, 200, host_ptr(rev), 200, DEFAULT)
    assert read_device(c, 200) == rev.tobytes()
    out = np.zeros(200, np.uint8)
    acl.aclrtMemcpy(host_ptr(out), 200, c, 200, DEFAULT)
    assert (out == rev).all()
    acl.aclrtMemcpy(a, 200, c, 200, DEFAULT)
    assert read_device(a, 200) == rev.tobytes()
    h2 = np.zeros(200, np.uint8)
    acl.aclrtMemcpy(host_ptr(h2), 200, host_ptr(data), 200, DEFAULT)
    assert (h2 == data).all()
    acl.aclrtMemcpy(c, 200, host_ptr(data), 200, H2BUF2D)
    assert read_device(c, 200) == data.tobytes()


def test_memcpy_overlapping_device_ranges(dev):
    p = dev(16)
    write_device(p, bytes(range(16)))
    acl.aclrtMemcpy(offset_ptr(p, 4), 12, p, 8, D2D)  # memmove semantics
    assert read_device(p, 16) == bytes([0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15])


# ---- aclrtMemset -----------------------------------------------------------------------------------------

def test_memset_fills_bytes(dev):
    p = dev(64)
    acl.aclrtMemset(offset_ptr(p, 8), 56, 0x1AB, 16)  # byte-wise: (uint8_t)0x1AB == 0xAB
    assert read_device(p, 64) == bytes(8) + b"\xab" * 16 + bytes(40)
    acl.aclrtMemset(p, 64, -1, 64)
    assert read_device(p, 64) == b"\xff" * 64


def test_memset_rules(dev):
    p = dev(32)
    acl.aclrtMemset(NULL, 0, 1, 0)  # count 0: nothing checked
    assert status_of(acl.aclrtMemset, NULL, 8, 0, 8) == 100000
    assert status_of(acl.aclrtMemset, p, 8, 0, 9) == 107000
    host = np.zeros(32, np.uint8)
    assert status_of(acl.aclrtMemset, host_ptr(host), 32, 1, 32) == 107000
    assert (host == 0).all()
    assert status_of(acl.aclrtMemset, offset_ptr(p, 16), 64, 1, 49) == 107000  # runs past the block's padding
    assert read_device(p, 32) == bytes(32)


# ---- host memory -----------------------------------------------------------------------------------------

def test_malloc_host_and_free_host(dev):
    before = acl.aclStubLiveHostAllocations()
    h = acl.aclrtMallocHost(100)
    try:
        assert acl.aclStubLiveHostAllocations() == before + 1
        buf = ffi.buffer(ffi.cast("char *", h), 100)
        buf[:] = bytes(range(100))
        p = dev(100)
        acl.aclrtMemcpy(p, 100, h, 100, H2D)  # pinned host memory is host memory
        assert read_device(p, 100) == bytes(range(100))
        assert status_of(acl.aclrtMemcpy, h, 100, p, 100, D2D) == 107000
    finally:
        acl.aclrtFreeHost(h)
    assert acl.aclStubLiveHostAllocations() == before
    assert status_of(acl.aclrtFreeHost, h) == 107000


def test_malloc_host_and_free_host_rules(dev):
    assert status_of(acl.aclrtMallocHost, 0) == 100000
    assert status_of(acl.aclrtFreeHost, NULL) == 100000
    assert status_of(acl.aclrtFreeHost, dev(16)) == 107000
    host = np.zeros(16, np.uint8)
    assert status_of(acl.aclrtFreeHost, host_ptr(host)) == 107000


# ---- aclGetRecentErrMsg ----------------------------------------------------------------------------------

def test_recent_error_message_read_once():
    acl.aclGetRecentErrMsg()
    assert lib.aclrtFree(ffi.cast("void *", 0x1000)) == 107000
    msg = acl.aclGetRecentErrMsg()
    assert isinstance(msg, str) and "aclrtFree" in msg and "devPtr" in msg
    assert acl.aclGetRecentErrMsg() is None


def test_recent_error_message_survives_later_successes():
    assert lib.aclrtMallocHost(ffi.new("void **"), 0) == 100000
    acl.aclrtGetDeviceCount()
    acl.aclrtSynchronizeStream(NULL)
    msg = acl.aclGetRecentErrMsg()
    assert msg is not None and "aclrtMallocHost" in msg and "size" in msg
    assert acl.aclGetRecentErrMsg() is None


def test_recent_error_message_is_consumed_by_the_raised_exception():
    with pytest.raises(AclError) as ei:
        acl.aclrtMalloc(0, HUGE)
    assert ei.value.message and "aclrtMalloc" in ei.value.message
    assert acl.aclGetRecentErrMsg() is None


def test_recent_error_message_is_per_thread():
    acl.aclGetRecentErrMsg()  # drop anything an earlier test left pending in this thread
    seen = {}

    def worker():
        lib.aclrtFree(ffi.cast("void *", 0x2000))
        seen["worker"] = acl.aclGetRecentErrMsg()

    th = threading.Thread(target=worker)
    th.start()
    th.join()
    assert seen["worker"] and "aclrtFree" in seen["worker"]
    assert acl.aclGetRecentErrMsg() is None


@pytest.mark.parametrize("call, words", [
    (lambda: acl.aclrtMalloc(0, HUGE), ("aclrtMalloc", "size")),
    (lambda: acl.aclrtFree(NULL), ("aclrtFree", "devPtr")),
    (lambda: acl.aclrtMemcpy(NULL, 8, NULL, 8, H2D), ("aclrtMemcpy", "dst")),
    (lambda: acl.aclrtMemcpy(ffi.new("char[8]"), 8, ffi.new("char[8]"), 8, 42), ("aclrtMemcpy", "kind")),
    (lambda: acl.aclrtMemset(NULL, 8, 0, 8), ("aclrtMemset", "devPtr")),
    (lambda: acl.aclrtDestroyStream(NULL), ("aclrtDestroyStream", "stream")),
    (lambda: acl.aclrtMallocHost(0), ("aclrtMallocHost", "size")),
    (lambda: acl.aclrtFreeHost(NULL), ("aclrtFreeHost", "hostPtr")),
    (lambda: acl.aclrtSetDevice(99), ("aclrtSetDevice", "deviceId")),
    (lambda: acl.aclrtResetDevice(99), ("aclrtResetDevice", "deviceId")),
])
def test_error_messages_name_function_and_argument(call, words):
    with pytest.raises(AclError) as ei:
        call()
    for w in words:
        assert w in ei.value.message, (w, ei.value.message)
        assert w in str(ei.value)


# ---- aclDataTypeSize -------------------------------------------------------------------------------------

DATA_TYPE_SIZES = dict([
    (-1, 0), (0, 4), (1, 2), (2, 1), (3, 4), (4, 1), (6, 2), (7, 2), (8, 4), (9, 8), (10, 8), (11, 8), (12, 1),
    (13, 0), (16, 8), (17, 16), (27, 2), (29, 1), (30, 1), (33, 4), (34, 1), (35, 1), (36, 1), (37, 1),
    (38, 8), (39, 8), (40, 8), (41, 8),
    # unassigned values fall into the default branch
    (5, 8), (14, 8), (15, 8), (18, 8), (26, 8), (28, 8), (31, 8), (32, 8), (42, 8), (1000, 8),
])


def test_data_type_size():
    assert {dt: acl.aclDataTypeSize(dt) for dt in DATA_TYPE_SIZES} == DATA_TYPE_SIZES


def test_data_type_size_by_name():
    assert acl.aclDataTypeSize(acl.ACL_BF16) == 2
    assert acl.aclDataTypeSize(acl.ACL_FLOAT) == 4
    assert acl.aclDataTypeSize(acl.ACL_INT64) == 8
    assert acl.aclDataTypeSize(acl.ACL_BOOL) == 1


# ---- fp16 helpers (saturating, abi.md 7.2) ---------------------------------------------------------------

def f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


FLOAT_TO_HALF = [
    (0.0, 0x0000), (-0.0, 0x8000), (1.0, 0x3C00), (-2.0, 0xC000), (0.1, 0x2E66), (65504.0, 0x7BFF),
    (-65504.0, 0xFBFF), (65519.0, 0x7BFF), (65520.0, 0x7BFF), (1e6, 0x7BFF), (-1e6, 0xFBFF), (3.4e38, 0x7BFF),
    (float("inf"), 0x7BFF), (float("-inf"), 0xFBFF), (float("nan"), 0x7BFF),
    (2.0 ** -14, 0x0400), (2.0 ** -24, 0x0001), (2.0 ** -25, 0x0000), (3 * 2.0 ** -25, 0x0002),
    (2.0 ** -26, 0x0000), (-(2.0 ** -24), 0x8001), (1 + 2.0 ** -11, 0x3C00), (1 + 3 * 2.0 ** -11, 0x3C02),
    (f32(0x387FE000), 0x0400),  # rounds up from the largest subnormal into the smallest normal
]


def test_float_to_float16():
    wrong = [(v, hex(acl.aclFloatToFloat16(v)), hex(b)) for v, b in FLOAT_TO_HALF if acl.aclFloatToFloat16(v) != b]
    assert not wrong


def test_float_to_float16_matches_ieee_inside_the_range():
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 0x477FE000, 20000, dtype=np.uint32, endpoint=True)
    raw |= rng.integers(0, 2, raw.size, dtype=np.uint32) << 31
    values = raw.view(np.float32)
    expected = values.astype(np.float16).view(np.uint16)
    got = np.array([acl.aclFloatToFloat16(float(v)) for v in values], np.uint16)
    bad = np.nonzero(got != expected)[0]
    assert bad.size == 0, [(hex(int(raw[i])), hex(int(got[i])), hex(int(expected[i]))) for i in bad[:5]]


HALF_TO_FLOAT = [
    (0x7C00, 65536.0), (0xFC00, -65536.0), (0x7E00, 98304.0), (0xFE00, -98304.0), (0x7BFF, 65504.0),
    (0x0001, 2.0 ** -24), (0x8000, -0.0), (0x3C00, 1.0),
]


def test_float16_to_float():
    for bits, value in HALF_TO_FLOAT:
        got = acl.aclFloat16ToFloat(bits)
        assert got == value and np.signbit(got) == np.signbit(value), (hex(bits), got)


def test_float16_to_float_exact_for_every_finite_value():
    bits = np.arange(0x10000, dtype=np.uint32)
    finite = bits[((bits >> 10) & 0x1F) != 0x1F].astype(np.uint16)
    expected = finite.view(np.float16).astype(np.float32).view(np.uint32)
    got = np.array([acl.aclFloat16ToFloat(int(b)) for b in finite], np.float32).view(np.uint32)
    assert (got == expected).all()
    # and narrowing the result again gives the same half back
    back = np.array([acl.aclFloatToFloat16(float(v)) for v in got.view(np.float32)[::17]], np.uint16)
    assert (back == finite[::17]).all()


# ---- fork while other threads are inside the runtime (child interpreter) -----------------------------------

FORK_SNIPPET = '''
import os, signal, threading
import numpy as np
import aclnn_py
from aclnn_py import acl

stop = threading.Event()

def hammer():
    aclnn_py.default_device()  # this thread's current context
    host = np.full(4096, 3, np.uint8)
    s = acl.aclrtCreateStream()
    while not stop.is_set():
        p = acl.aclrtMalloc(4096, 0)
        acl.aclrtMemcpy(p, 4096, acl.host_ptr(host), 4096, acl.ACL_MEMCPY_HOST_TO_DEVICE)
        acl.aclrtMemsetAsync(p, 4096, 1, 4096, s)
        acl.aclrtSynchronizeStream(s)
        acl.aclrtFree(p)
    acl.aclrtDestroyStream(s)

aclnn_py.default_device()
threads = [threading.Thread(target=hammer) for _ in range(4)]
for t in threads:
    t.start()
codes = []
for _ in range(12):
    pid = os.fork()
    if pid == 0:
        signal.alarm(30)  # a deadlocked child dies instead of hanging the test
        try:
            a = np.arange(256, dtype=np.uint8)
            out = aclnn_py.moe_token_permute_grad(np.ones((2, 2), np.float32), np.array([0, 1], np.int32), 1)
            with aclnn_py.DeviceBuffer(256) as b:
                b.upload(a)
                back = np.zeros(256, np.uint8)
                b.download(back)
            os._exit(0 if (back == a).all() and out.shape == (2, 2) else 1)
        except BaseException:
            os._exit(2)
    codes.append(os.waitpid(pid, 0)[1])
stop.set()
for t in threads:
    t.join()
emit({"codes": codes})
'''


def test_fork_while_threads_use_the_runtime():
    """A child forked while four threads allocate, copy, queue work and free can use the library."""
    r = run_json(FORK_SNIPPET, env={"ACLNN_PY_BACKEND": "stub"})
    assert r["codes"] == [0] * 12
