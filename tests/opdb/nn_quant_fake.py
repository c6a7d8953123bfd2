"""ops-nn fake quantisation: FakeQuantPerTensorAffineCachemask, FakeQuantPerChannelAffineCachemask.

The oracles are torch's fake_quantize_per_{tensor,channel}_affine_cachemask on float32 (torch computes
rint(x * (1 / scale)) + zeroPoint in float32, as the kernel does), the output rounded once to self's dtype.
"""

import numpy as np
import torch

from . import OpInfo, Sample, np_dtype


def f32(a):
    return a.float() if isinstance(a, torch.Tensor) else torch.from_numpy(np.asarray(a, np.float32))


def tensor_samples(dtype, rng):
    out = []
    for shape, scale, zp, qmin, qmax, name in (((5, 7), 0.05, 3, -128, 127, "int8 range, values clipped"),
                                               ((300,), 0.2, 0, 0, 15, "4-bit range"),
                                               ((2, 3, 4), 0.125, -2, -8, 7, "3-D")):
        x = rng.uniform(-10, 10, shape).astype(np_dtype(dtype))
        out.append(Sample((x, np.array([scale], np_dtype(dtype)), np.array([zp], np.int32)), (1.0, qmin, qmax), name))
    x = rng.uniform(-10, 10, (4, 3)).astype(np_dtype(dtype))
    out.append(Sample((x, np.array([0.1], np_dtype(dtype)), np.array([1], np.int32)), (0.0, -128, 127),
                      "fake quantisation disabled"))
    return out


def tensor_ref(x, scale, zp, enabled, qmin, qmax):
    xf = f32(x)
    if enabled < 1.0:
        return xf.to(x.dtype), torch.ones(x.shape, dtype=torch.bool)
    o, m = torch.ops.aten.fake_quantize_per_tensor_affine_cachemask(xf, float(f32(scale).item()), int(zp[0]), qmin,
                                                                    qmax)
    return o.to(x.dtype), m


def channel_samples(dtype, rng):
    out = []
    for shape, axis, name in (((6, 5), 1, "last axis"), ((4, 3, 5), 0, "first axis"), ((3, 70, 2), -2, "axis -2")):
        c = shape[axis]
        x = rng.uniform(-10, 10, shape).astype(np_dtype(dtype))
        scale = rng.uniform(0.05, 0.3, (c,)).astype(np_dtype(dtype))
        zp = rng.integers(-5, 5, (c,)).astype(np.int32)
        out.append(Sample((x, scale, zp), (axis, -128, 127) if axis else (axis, -8, 7), name))
    return out


def channel_ref(x, scale, zp, axis, qmin, qmax):
    o, m = torch.ops.aten.fake_quantize_per_channel_affine_cachemask(f32(x), f32(scale), zp, axis % x.ndim, qmin,
                                                                     qmax)
    return o.to(x.dtype), m


DTYPES = ("float32", "float16")
ENTRIES = [
    OpInfo("aclnnFakeQuantPerTensorAffineCachemask", tensor_ref, DTYPES, kind="custom", samples=tensor_samples,
           named_outputs=("out", "mask")),
    OpInfo("aclnnFakeQuantPerChannelAffineCachemask", channel_ref, DTYPES, kind="custom", samples=channel_samples,
           named_outputs=("out", "mask")),
]
