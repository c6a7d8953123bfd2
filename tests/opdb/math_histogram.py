"""ops-math histograms: aclnnHistc and aclnnBincount.

aclnnHistc's oracle is its Atlas A2/A3 kernel's formula written out in numpy: min and max converted to self's dtype,
the bin (v - min) * bins / (max - min) in float32 (FLOAT, FLOAT16) or in self's integer type (int32 arithmetic,
int64 for INT64; integer division), v == max in the last bin, the data's range when min and max are equal, widened
by 1 on each side when that is a single value (torch.histc's rules; torch divides before it multiplies, which moves
values on bin edges). aclnnBincount's oracle is torch.bincount."""

import numpy as np
import torch

from . import INTS, OpInfo, Sample, np_dtype, random_array

HISTC_DTYPES = ("float32", "float16") + INTS


def histc_ref(x, bins, lo, hi):
    dt = x.dtype
    if dt == torch.float16:
        v = x.numpy().astype(np.float32)
        mn, mx = np.float32(np.float16(lo)), np.float32(np.float16(hi))
        same = abs(np.float32(hi) - np.float32(lo)) < 1e-6
    elif dt.is_floating_point:
        v = x.numpy().astype(np.float32)
        mn, mx = np.float32(lo), np.float32(hi)
        same = abs(np.float32(hi) - np.float32(lo)) < 1e-6
    else:
        wide = np.int64 if dt == torch.int64 else np.int32
        v = x.numpy().astype(wide)
        mn, mx = wide(np.array(lo).astype(x.numpy().dtype)), wide(np.array(hi).astype(x.numpy().dtype))
        same = int(lo) == int(hi)
    if same and v.size:
        mn, mx = v.min(), v.max()
    if mn == mx:
        mn, mx = mn - 1, mx + 1
    v = v.reshape(-1)
    keep = v[(v >= mn) & (v <= mx)]
    with np.errstate(over="ignore"):
        if v.dtype.kind == "f":
            idx = ((keep - mn) * np.float32(bins) / (mx - mn)).astype(np.int32)
        else:
            idx = (keep - mn) * v.dtype.type(bins) // (mx - mn)
    idx = np.minimum(idx, bins - 1)
    counts = np.bincount(idx, minlength=bins)[:bins]
    return torch.from_numpy(counts).to(torch.float32 if dt == torch.float16 else dt)


def histc_samples(dtype, rng):
    if dtype in ("float32", "float16"):
        x = lambda *s: random_array(rng, s, dtype, (-4.0, 4.0), (0, 0))  # noqa: E731
        edge = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 2.0, 3.5, -3.0, np.nan], np.float32).astype(np_dtype(dtype))
        return [
            Sample((x(3, 4),), (5, -3.0, 3.0), "range"),
            Sample((edge,), (4, -2.0, 2.0), "edges, max in the last bin, NaN and outside not counted"),
            Sample((x(2, 3, 5),), (7, 1.0, 1.0), "min == max: the data's range"),
            Sample((np.full((4,), 1.5, np_dtype(dtype)),), (3, 0.0, 0.0), "one value: widened by 1"),
            Sample((x(6, 5).T,), (10, -4.0, 4.0), "transposed"),
            Sample((x(0, 3),), (4, -1.0, 1.0), "empty: zeros"),
            Sample((x(300000),), (100, -3.9, 3.9), "threads"),
        ]
    x = lambda *s: random_array(rng, s, dtype, (0, 0), (-20, 20))  # noqa: E731
    return [
        Sample((x(3, 4),), (5, -10, 10), "range"),
        Sample((x(5, 7),), (3, 0, 0), "min == max: the data's range"),
        Sample((x(4, 3).T,), (8, -20, 20), "transposed"),
        Sample((x(0,),), (2, 0, 5), "empty: zeros"),
        Sample((x(200000),), (13, -15, 15), "threads"),
    ]


def bincount_ref(x, w, minlength):
    got = torch.bincount(x.long(), None if w is None else w.double(), minlength)
    if w is None:
        return got
    return got.to(torch.float32 if w.dtype == torch.float32 else torch.float64)


def bincount_samples(dtype, rng):
    hi = 7 if dtype in ("int8", "uint8") else 40
    x = lambda *s: random_array(rng, s, dtype, (0, 0), (0, hi))  # noqa: E731
    w = lambda wd, *s: random_array(rng, s, wd, (-2.0, 2.0), (-5, 5))  # noqa: E731
    return [
        Sample((x(20), None), (0,), "counts"),
        Sample((x(20), None), (hi + 5,), "minlength"),
        Sample((x(12), w("float32", 12)), (0,), "float weights"),
        Sample((x(12), w("float16", 12)), (3,), "FLOAT16 weights (in double)"),
        Sample((x(12), w("int32", 12)), (0,), "INT32 weights (in double)"),
        Sample((x(12), w("bool", 12)), (0,), "BOOL weights"),
        Sample((x(12), w("float64", 12)), (0,), "DOUBLE weights"),
        Sample((x(30)[::2], None), (0,), "strided"),
        Sample((x(0), None), (4,), "empty: minlength zeros"),
    ]


ENTRIES = [
    OpInfo("aclnnHistc", histc_ref, HISTC_DTYPES, kind="custom", samples=histc_samples, native16=True),
    OpInfo("aclnnBincount", bincount_ref, INTS, kind="custom", samples=bincount_samples, native16=True),
]
