"""ops-nn GroupQuant: y = round-half-even(x * scale[group] + offset) in float32 per group of rows (cumulative
ends), saturated to INT8 or to INT4 packed eight to an INT32; rows past the last end stay as they were (zeros)."""

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype
from .nn_quant import pack_int4

INT8, INT32 = 2, 3


def gq_samples(dtype, rng):
    def arr(shape, lo, hi):
        return rng.uniform(lo, hi, shape).astype(np.float32).astype(np_dtype(dtype))
    out = []
    for ends, dst, off, name in (([2, 2, 6], INT8, True, "an empty group, offset"),
                                 ([3, 5], INT8, False, "rows past the last end"),
                                 ([1, 6], INT32, True, "int4 packed in int32")):
        x = arr((6, 16), -8, 8)
        scale = arr((len(ends), 16), 0.5, 20)
        offset = arr((1,), -3, 3) if off else None
        out.append(Sample((x, scale, np.array(ends, np.int64 if dst == INT8 else np.int32), offset, dst), (), name))
    return out


def gq_ref(x, scale, group, offset, dst):
    xf, sf = x.float(), scale.float()
    y = torch.zeros(xf.shape)
    valid = torch.zeros(xf.shape[0], dtype=torch.bool)
    start = 0
    for g, end in enumerate(group.tolist()):
        v = xf[start:end] * sf[g]
        if offset is not None:
            v = v + offset.float().reshape(())
        y[start:end] = v
        valid[start:end] = True
        start = end
    if dst == INT32:
        q = torch.round(y).clamp(-8, 7).to(torch.int32) * valid[:, None]
        return pack_int4(q)
    return (torch.round(y).clamp(-128, 127) * valid[:, None]).to(torch.int8)


def gq_call(sample, expected):
    import aclnn_py

    y = np.zeros(tuple(expected.shape), np.int8 if sample.operands[4] == INT8 else np.int32)
    aclnn_py.run("aclnnGroupQuant", *sample.operands, y)
    return y


ENTRIES = [OpInfo("aclnnGroupQuant", gq_ref, FLOATS, kind="custom", samples=gq_samples, call=gq_call, native16=True,
                  tol={"int8": (0, 1), "int32": (0, 0)})]
