"""The per-stream workspace pool used by the one-call operator path: reused while the size fits, grown
only after the stream's work is done, released with the stream (the stub's operators ask for no
workspace, so the pool is driven directly here)."""

from aclnn_py import Stream, acl


def test_same_size_reuses_the_buffer_without_allocating():
    with Stream() as s:
        before = acl.aclStubLiveAllocations()
        first = s.workspace(4096)
        assert acl.aclStubLiveAllocations() == before + 1
        assert s.workspace(4096) == first
        assert s.workspace(100) == first  # smaller requests fit too
        assert acl.aclStubLiveAllocations() == before + 1


def test_larger_size_replaces_the_buffer():
    with Stream() as s:
        before = acl.aclStubLiveAllocations()
        s.workspace(1024)
        s.workspace(1 << 20)
        assert acl.aclStubLiveAllocations() == before + 1
        assert acl.aclStubLiveAllocationBytes() >= 1 << 20


def test_streams_have_separate_buffers_released_with_the_stream():
    before = acl.aclStubLiveAllocations()
    a, b = Stream(), Stream()
    assert a.workspace(256) != b.workspace(256)
    assert acl.aclStubLiveAllocations() == before + 2
    a.close()
    assert acl.aclStubLiveAllocations() == before + 1
    b.close()
    assert acl.aclStubLiveAllocations() == before


def test_workspace_memory_is_device_memory():
    import numpy as np

    from aclnn_py._native import ffi

    with Stream() as s:
        ptr = s.workspace(64)
        data = np.arange(16, dtype=np.float32)
        acl.aclrtMemcpy(ptr, 64, acl.host_ptr(data), 64, acl.ACL_MEMCPY_HOST_TO_DEVICE)
        back = np.zeros(16, np.float32)
        acl.aclrtMemcpy(acl.host_ptr(back), 64, ptr, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST)
        assert (back == data).all()
        assert int(ffi.cast("uintptr_t", ptr)) % 64 == 0


def test_growing_one_streams_buffer_does_not_hold_up_the_others():
    """Growing a buffer synchronises its stream first; meanwhile another stream's request is served (the pool's
    lock is not held across the synchronisation, which may wait for work only that other thread will queue)."""
    import threading
    import time

    from aclnn_py._native import ffi

    NULL = ffi.NULL
    a, b = Stream(), Stream()
    a.workspace(1024)
    callback = ffi.callback("void(void *)", lambda user: None)
    acl.aclrtSubscribeReport(threading.get_ident(), a.handle)
    acl.aclrtLaunchCallback(callback, NULL, acl.ACL_CALLBACK_BLOCK, a.handle)  # holds a until processed here
    failures = []

    def request(stream, nbytes):
        acl.aclrtSetDevice(0)  # the streams' device, current in this thread too
        try:
            stream.workspace(nbytes)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)
        finally:
            acl.aclrtResetDevice(0)

    grower = threading.Thread(target=request, args=(a, 1 << 20))
    other = threading.Thread(target=request, args=(b, 1024))
    try:
        grower.start()
        time.sleep(0.2)  # let it reach the synchronisation of a (not a timing assertion: only a head start)
        other.start()
        other.join(timeout=30)
        served_meanwhile = not other.is_alive()
        assert grower.is_alive()  # still waiting for a, which only this thread can release
    finally:
        acl.aclrtProcessReport(-1)
        grower.join(timeout=30)
        other.join(timeout=30)
        acl.aclrtUnSubscribeReport(threading.get_ident(), a.handle)
        a.close()
        b.close()
    assert served_meanwhile and failures == []
