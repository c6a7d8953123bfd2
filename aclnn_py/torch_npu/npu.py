"""`torch_npu.npu` on the stub: the basics test suites touch (device count, current device, synchronize, streams,
events, memory queries). The tensors stay on the CPU: every operator of `aclnn_py.torch_npu` runs synchronously
on the calling thread, so synchronising and stream switching have nothing to wait for."""
from __future__ import annotations

import contextlib
import threading

_tls = threading.local()   # the calling thread's device index (CANN's current device is per thread)
_devices: dict = {}        # index -> aclnn_py.Device, made on first use
_lock = threading.Lock()


def _device_object(index: int):
    from .. import runtime
    with _lock:
        device = _devices.get(index)
        if device is None or device.closed:
            device = _devices[index] = runtime.Device(index)
    return device


def _stream():
    """The stub stream the operators run on: the default stream of the thread's device (set_device), else None
    (aclnn_py's default device)."""
    index = getattr(_tls, "index", None)
    if index is None:
        return None
    from .. import runtime
    return runtime.Stream.default(_device_object(index))


def is_available() -> bool:
    """True: the functions of `aclnn_py.torch_npu` run (on the stub's CPU implementation)."""
    return True


def device_count() -> int:
    """The stub's device count (`aclrtGetDeviceCount`)."""
    from .. import acl
    return int(acl.aclrtGetDeviceCount())


def current_device() -> int:
    return getattr(_tls, "index", None) or 0


def set_device(device) -> None:
    """The calling thread's device (as on CANN, per thread): the operators it calls run on that stub device,
    where an HCCL communicator made for it (`aclnn_py.hccl`) is found by its name."""
    index = device if isinstance(device, int) else getattr(device, "index", None) or 0
    if isinstance(device, str):
        index = int(device.rsplit(":", 1)[1]) if ":" in device else 0
    if not 0 <= index < device_count():
        raise ValueError(f"set_device: device {index} is outside [0, {device_count()})")
    _device_object(index).activate()
    _tls.index = index


def synchronize(device=None) -> None:
    """Waits for the stub's default stream (the operators have already finished: their calls are synchronous)."""
    from .. import runtime
    (_stream() or runtime.Stream.default()).synchronize()


def get_device_name(device=None) -> str:
    return "aclnn-py stub (CPU)"


def is_initialized() -> bool:
    return True


class Event:
    """A completed-at-once event: the work it would mark has finished when `record` returns."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False):
        self.enable_timing = enable_timing

    def record(self, stream=None) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass

    def elapsed_time(self, end_event) -> float:
        return 0.0


class Stream:
    """A stream whose work is done when it is issued (the operators run synchronously)."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        self.device = device
        self.priority = priority

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True

    def wait_stream(self, stream) -> None:
        pass

    def wait_event(self, event) -> None:
        pass

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event


_default_stream = Stream()


def current_stream(device=None) -> Stream:
    return _default_stream


def default_stream(device=None) -> Stream:
    return _default_stream


@contextlib.contextmanager
def stream(s=None):
    yield s


def empty_cache() -> None:
    pass


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def mem_get_info(device=None) -> tuple:
    """(free, total) bytes of the stub's device memory (`aclrtGetMemInfo`)."""
    from .. import acl
    free, total = acl.aclrtGetMemInfo(acl.ACL_HBM_MEM)
    return int(free), int(total)


def manual_seed(seed: int) -> None:
    pass


def manual_seed_all(seed: int) -> None:
    pass
