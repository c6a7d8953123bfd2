"""ops-math aclnnTransformBiasRescaleQkv against torch._transform_bias_rescale_qkv's computation in float32 (each
result rounded once to the dtype)."""

import numpy as np
import torch

import aclnn_py

from . import FLOATS, OpInfo, Sample, random_array


def qkv_ref(qkv, bias, heads):
    """torch._transform_bias_rescale_qkv's computation (the private function itself crashes on some views)."""
    x = qkv.float() + bias.float()
    b, t, three_d = x.shape
    d = three_d // 3
    dph = d // heads
    scale = torch.tensor(1.0) / torch.sqrt(torch.tensor(float(dph)))  # float32, as the kernel computes it
    q, k, v = x.split(d, -1)
    per_head = lambda y: y.reshape(b, t, heads, dph).permute(0, 2, 1, 3).contiguous().to(qkv.dtype)  # noqa: E731
    return per_head(q * scale), per_head(k), per_head(v)


def qkv_call(sample, expected):
    outs = tuple(np.zeros(tuple(e.shape), np.asarray(sample.operands[0]).dtype) for e in expected)
    aclnn_py.run("aclnnTransformBiasRescaleQkv", *sample.operands, *sample.attrs, *outs,
                 outputs=("qOut", "kOut", "vOut"))
    return outs


def qkv_samples(dtype, rng):
    a = lambda *s: random_array(rng, s, dtype, (-2.0, 2.0), (0, 0))  # noqa: E731
    return [
        Sample((a(2, 3, 24), a(24)), (2,), "2 heads"),
        Sample((a(1, 5, 48), a(48)), (4,), "4 heads"),
        Sample((a(3, 2, 36).transpose(1, 0, 2), a(36)), (3,), "transposed qkv"),
        Sample((a(0, 3, 12), a(12)), (2,), "empty"),
        Sample((a(4, 128, 192), a(192)), (8,), "threads"),
    ]


ENTRIES = [OpInfo("aclnnTransformBiasRescaleQkv", qkv_ref, FLOATS, kind="custom", samples=qkv_samples,
                  call=qkv_call)]
