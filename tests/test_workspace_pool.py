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
