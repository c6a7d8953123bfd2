"""``acl.rt``: devices, contexts, streams, events and memory, as CANN's pyACL names them (``acl.rt.malloc(size,
policy)`` -> ``(dev_ptr, ret)``). Functions whose C counterpart the headers lack are absent, as are those that
take a Python callback (``launch_callback``)."""

from __future__ import annotations

from . import _wrap

# {pyACL name: C function}; arguments are the C inputs in C order, results the C out-parameters then the status.
FUNCTIONS = {
    "set_device": "aclrtSetDevice",
    "reset_device": "aclrtResetDevice",
    "reset_device_force": "aclrtResetDeviceForce",
    "get_device": "aclrtGetDevice",
    "get_run_mode": "aclrtGetRunMode",
    "get_device_count": "aclrtGetDeviceCount",
    "create_context": "aclrtCreateContext",
    "destroy_context": "aclrtDestroyContext",
    "set_context": "aclrtSetCurrentContext",
    "get_context": "aclrtGetCurrentContext",
    "ctx_get_current_default_stream": "aclrtCtxGetCurrentDefaultStream",
    "malloc": "aclrtMalloc",
    "free": "aclrtFree",
    "get_mem_info": "aclrtGetMemInfo",
    "malloc_host": "aclrtMallocHost",
    "free_host": "aclrtFreeHost",
    "memcpy": "aclrtMemcpy",
    "memcpy_async": "aclrtMemcpyAsync",
    "memset": "aclrtMemset",
    "memset_async": "aclrtMemsetAsync",
    "create_stream": "aclrtCreateStream",
    "create_stream_with_config": "aclrtCreateStreamWithConfig",
    "destroy_stream": "aclrtDestroyStream",
    "stream_query": "aclrtStreamQuery",
    "synchronize_stream": "aclrtSynchronizeStream",
    "synchronize_stream_with_timeout": "aclrtSynchronizeStreamWithTimeout",
    "stream_wait_event": "aclrtStreamWaitEvent",
    "synchronize_device": "aclrtSynchronizeDevice",
    "synchronize_device_with_timeout": "aclrtSynchronizeDeviceWithTimeout",
    "create_event": "aclrtCreateEvent",
    "create_event_with_flag": "aclrtCreateEventWithFlag",
    "create_event_ex_with_flag": "aclrtCreateEventExWithFlag",
    "destroy_event": "aclrtDestroyEvent",
    "record_event": "aclrtRecordEvent",
    "reset_event": "aclrtResetEvent",
    "query_event": "aclrtQueryEvent",
    "query_event_status": "aclrtQueryEventStatus",
    "synchronize_event": "aclrtSynchronizeEvent",
    "synchronize_event_with_timeout": "aclrtSynchronizeEventWithTimeout",
    "event_elapsed_time": "aclrtEventElapsedTime",
    "subscribe_report": "aclrtSubscribeReport",
    "unsubscribe_report": "aclrtUnSubscribeReport",
    "process_report": "aclrtProcessReport",
    "device_can_access_peer": "aclrtDeviceCanAccessPeer",
    "device_enable_peer_access": "aclrtDeviceEnablePeerAccess",
    "device_disable_peer_access": "aclrtDeviceDisablePeerAccess",
}

__all__ = _wrap.build(globals(), "acl.rt", FUNCTIONS)
