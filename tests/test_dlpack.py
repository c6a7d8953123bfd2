"""DLPack both ways: Tensor.from_dlpack reads any producer (torch tensors of every float dtype, bfloat16 included,
without numpy in between; numpy arrays), and Tensor.__dlpack__ lends the tensor's memory (on the stub, device
memory is host memory: kDLCPU, so numpy and torch view it without a copy)."""

import gc
import sys

import ml_dtypes
import numpy as np
import pytest

from aclnn_py import Tensor, acl

try:
    import torch
except ImportError:  # optional: the numpy tests below cover the protocol without it
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

BF16 = np.dtype(ml_dtypes.bfloat16)


def test_device_is_the_host_on_the_stub():
    with Tensor((2,), "float32") as t:
        assert t.__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_numpy_views_a_tensor_without_a_copy(max_version):
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = Tensor.from_numpy(base[:, ::-2])  # a strided view with a negative stride
    view = np.from_dlpack(t) if max_version is None else np.from_dlpack(t, copy=False)
    assert np.array_equal(view, base[:, ::-2])
    view[0, 0] = -1.0  # written through the shared memory
    assert t.numpy()[0, 0] == -1.0
    capsule = t.__dlpack__(max_version=max_version)
    assert type(capsule).__name__ == "PyCapsule"
    del capsule, view, t


def test_the_consumer_keeps_the_tensor_alive():
    allocations = acl.aclStubLiveAllocations()
    t = Tensor.from_numpy(np.arange(4, dtype=np.int64))
    view = np.from_dlpack(t)
    del t
    gc.collect()
    assert acl.aclStubLiveAllocations() == allocations + 1
    assert view.tolist() == [0, 1, 2, 3]
    del view
    gc.collect()
    assert acl.aclStubLiveAllocations() == allocations


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int8, np.bool_, np.float64])
def test_from_dlpack_of_numpy_arrays(dtype):
    a = (np.arange(10) % 3).astype(dtype)[1::3]
    refs = sys.getrefcount(a)
    with Tensor.from_dlpack(a) as t:
        assert t.dtype == np.dtype(dtype) and np.array_equal(t.numpy(), a)
    gc.collect()
    assert sys.getrefcount(a) == refs  # the producer's deleter ran: nothing holds the array any more


def test_from_dlpack_of_a_tensor_shares_its_memory():
    with Tensor.from_numpy(np.arange(3, dtype=np.float32)) as t:
        with Tensor.from_dlpack(t) as u:
            assert u.buffer is t.buffer and u.handle != t.handle
            assert np.array_equal(u.numpy(), [0, 1, 2])


def test_export_and_import_errors():
    with Tensor((2,), "float32") as t:
        with pytest.raises(BufferError, match="device"):
            t.__dlpack__(dl_device=(2, 0))
        with pytest.raises(BufferError, match="copy=True"):
            t.__dlpack__(copy=True)
    with pytest.raises(TypeError, match="Tensor.from_dlpack: argument 'obj' must be an object with __dlpack__"):
        Tensor.from_dlpack([1, 2])
    if torch is not None:  # half-precision complex: a DLPack type (code 5, 32 bits) with no aclnn-py counterpart
        with pytest.raises(TypeError, match="has no aclDataType counterpart"):
            Tensor.from_dlpack(torch.zeros(2, dtype=torch.complex32))
    t = Tensor((2,), "float32")
    t.close()
    with pytest.raises(ValueError, match="closed Tensor"):
        t.__dlpack__()


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_torch_in_and_out_without_numpy(dtype):
    x = (torch.arange(24, dtype=torch.float32) / 8 - 1).to(getattr(torch, dtype)).reshape(4, 6)[1:, ::2]
    with Tensor.from_dlpack(x) as t:
        assert t.shape == (3, 3) and t.dtype == (BF16 if dtype == "bfloat16" else np.dtype(dtype))
        back = torch.from_dlpack(t)  # zero-copy: the tensor's own memory
        assert back.dtype == x.dtype and torch.equal(back, x)
        back[0, 0] = 7
        assert torch.from_dlpack(t)[0, 0].item() == 7
        raw = t.numpy()  # the same bits numpy (ml_dtypes for bfloat16) sees
        assert np.array_equal(raw.view(np.uint16 if dtype != "float32" else np.uint32),
                              back.contiguous().view(torch.int16 if dtype != "float32" else torch.int32).numpy()
                              .view(np.uint16 if dtype != "float32" else np.uint32))
        del back


# ---- exported memory lives as long as its consumers ---------------------------------------------------------

def _numpy_consumer(t):
    return np.from_dlpack(t)


def _torch_consumer(t):
    return torch.from_dlpack(t)


def _capsule_consumer(t):
    return t.__dlpack__()  # taken and never consumed: released when dropped


CONSUMERS = [pytest.param(_numpy_consumer, id="numpy"), pytest.param(_capsule_consumer, id="capsule"),
             pytest.param(_torch_consumer, id="torch", marks=needs_torch)]
# what the producer side does while the consumer still holds the memory
CLOSES = {"buffer": lambda t: t.buffer.close(), "tensor_then_buffer": lambda t: (t.close(), t.buffer.close()),
          "dropped": lambda t: None}


@pytest.mark.parametrize("close", CLOSES)
@pytest.mark.parametrize("consume", CONSUMERS)
def test_exported_memory_stays_alive_until_the_last_consumer_goes(consume, close):
    before = acl.aclStubLiveAllocations()
    t = Tensor.from_numpy(np.arange(64, dtype=np.float32))
    held = [consume(t) for _ in range(2)]  # two consumers of one export each
    CLOSES[close](t)
    del t
    gc.collect()
    assert acl.aclStubLiveAllocations() == before + 1, "the memory was freed while consumers hold it"
    others = [Tensor.from_numpy(np.full(64, -1, np.float32)) for _ in range(4)]  # must not land on it
    if consume is not _capsule_consumer:
        assert all(np.array_equal(np.asarray(h), np.arange(64, dtype=np.float32)) for h in held)
        held[0][0] = 9  # still the consumers' to write
        assert held[1][0] == 9
    assert all((o.numpy() == -1).all() for o in others)
    del others, held[0]
    gc.collect()
    assert acl.aclStubLiveAllocations() == before + 1, "the first consumer's release freed what the second holds"
    del held
    gc.collect()
    assert acl.aclStubLiveAllocations() == before, "the last consumer's release did not free the memory"


def test_a_closed_buffer_refuses_its_methods_while_consumers_keep_the_memory():
    t = Tensor.from_numpy(np.arange(4, dtype=np.float32))
    v = np.from_dlpack(t)
    t.buffer.close()
    with pytest.raises(ValueError, match="closed"):
        t.buffer.upload(np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="closed"):
        t.__dlpack__()  # no new export of a closed buffer
    assert v.tolist() == [0, 1, 2, 3]
