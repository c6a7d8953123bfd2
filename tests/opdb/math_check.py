"""ops-math numerical health checks: aclnnPrecisionCompare (bit-for-bit comparison: 0, or 501 when any element
differs) and aclnnAmpUpdateScale (dynamic loss scaling), their documentation's rules written out; the stub's
choices the documentation leaves open (the non-zero code, bits rather than values) are in docs/guide/math.md."""

import numpy as np
import torch

import aclnn_py

from . import FLOATS, OpInfo, Sample, np_dtype, random_array


def bits(t):
    return t.contiguous().view(torch.int16 if t.element_size() == 2 else torch.int32)


def precision_compare_ref(golden, realdata):
    same = torch.equal(bits(golden), bits(realdata))
    return np.array(0 if same else 501, np.uint32)


def precision_compare_samples(dtype, rng):
    g = random_array(rng, (4, 2), dtype, (-4.0, 4.0), (0, 0))
    other = np.array(g, copy=True)
    other.reshape(-1)[5] = np.asarray(other.reshape(-1)[5] * 2 + 1).astype(other.dtype)
    z = np.zeros((3,), np_dtype(dtype))
    nan = np.array([np.nan, 1.0], np_dtype(dtype))
    big = random_array(rng, (70000,), dtype, (-4.0, 4.0), (0, 0))
    big2 = np.array(big, copy=True)
    big2[-1] = np.asarray(big2[-1] + 1).astype(big2.dtype)
    return [
        Sample((g, np.array(g, copy=True)), (), "equal"),
        Sample((g, other), (), "one element differs"),
        Sample((z, -z), (), "+0 and -0 differ"),
        Sample((nan, np.array(nan, copy=True)), (), "the same NaN"),
        Sample((g.T, np.ascontiguousarray(g.T)), (), "transposed golden"),
        Sample((big, big2), (), "the last of many differs"),
    ]


def amp_ref(scale, tracker, found, growth, backoff, interval):
    s, f, t = np.float32(scale.float().item()), np.float32(found.float().item()), int(tracker.item())
    if f != 0 or np.isnan(f):
        s, t = np.float32(s * np.float32(backoff)), 0
    elif t + 1 == interval:
        with np.errstate(over="ignore"):
            grown = np.float32(s * np.float32(growth))
        s, t = (grown if np.isfinite(grown) else s), 0
    else:
        t += 1
    return (torch.tensor([s], dtype=torch.float32).to(scale.dtype).reshape(scale.shape),
            torch.tensor([t], dtype=torch.int32).reshape(tracker.shape))


def amp_call(sample, expected):
    scale, tracker, found = sample.operands
    us, ut = np.zeros_like(scale), np.zeros_like(tracker)
    aclnn_py.run("aclnnAmpUpdateScale", scale, tracker, found, *sample.attrs, us, ut,
                 outputs=("updatedScale", "updatedGrowthTracker"))
    return us, ut


def amp_samples(dtype, rng):
    dt = np_dtype(dtype)
    f = lambda v: np.array([v], dt)  # noqa: E731
    i = lambda v: np.array([v], np.int32)  # noqa: E731
    return [
        Sample((f(32768.0), i(0), f(0.0)), (2.0, 0.5, 1000), "no inf: the tracker grows"),
        Sample((f(32768.0), i(999), f(0.0)), (2.0, 0.5, 1000), "interval reached: the scale grows"),
        Sample((f(32768.0), i(5), f(1.0)), (2.0, 0.5, 1000), "inf found: the scale backs off"),
        Sample((f(32768.0), i(5), f(np.nan)), (2.0, 0.5, 1000), "NaN found"),
        Sample((f(3e38 if dtype != "float16" else 60000.0), i(0), f(0.0)), (4.0, 0.5, 1), "growth overflows: kept"),
        Sample((np.array(1024.0, dt), np.array(3, np.int32), np.array(0.0, dt)), (2.0, 0.5, 4), "0-d inputs"),
    ]


ENTRIES = [
    OpInfo("aclnnPrecisionCompare", precision_compare_ref, FLOATS, kind="custom", samples=precision_compare_samples,
           native16=True),
    OpInfo("aclnnAmpUpdateScale", amp_ref, FLOATS, kind="custom", samples=amp_samples, native16=True, call=amp_call),
]
