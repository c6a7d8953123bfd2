"""Paged KV caches: ScatterPaKvCache and GatherPaKvCache (the "Norm" layout). The oracle is indexing in torch:
cache.view(-1, N, D)[slot] = key for every slot >= 0; the gather reads each sequence's rows through its block
table (blockTables[b, seqOffset[b] // blockSize + t // blockSize], row t % blockSize). Copies are exact."""

from __future__ import annotations

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype

KV = FLOATS + ("int8",)


def rnd(rng, shape, dtype):
    if dtype == "int8":
        return rng.integers(-128, 128, shape).astype(np.int8)
    return rng.standard_normal(shape).astype(np.float32).astype(np_dtype(dtype))


def to_np(t):
    return t.view(torch.int16).numpy().view(np_dtype("bfloat16")) if t.dtype == torch.bfloat16 else t.numpy()


def samples_scatter(dtype, rng):
    res = []
    for nb, bs, n, dk, dv, t in ((4, 8, 2, 16, 8, 11), (3, 16, 1, 64, 64, 5)):
        slots = rng.permutation(nb * bs)[:t].astype(np.int32)
        slots[1] = -1  # a padding token: skipped
        res.append(Sample((), (), f"blocks {nb}x{bs} heads {n}", {
            "key": rnd(rng, (t, n, dk), dtype), "keyCacheRef": rnd(rng, (nb, bs, n, dk), dtype), "slotMapping": slots,
            "value": rnd(rng, (t, n, dv), dtype), "valueCacheRef": rnd(rng, (nb, bs, n, dv), dtype),
            "compressLensOptional": None, "compressSeqOffsetOptional": None, "seqLensOptional": None,
            "cacheModeOptional": "Norm", "scatterModeOptional": None, "stridesOptional": None,
            "offsetsOptional": None}))
    return res


def ref_scatter(key, keyCacheRef, slotMapping, value, valueCacheRef, **_):
    out = []
    for x, cache in ((key, keyCacheRef), (value, valueCacheRef)):
        c = cache.clone()
        flat = c.view(-1, *c.shape[2:])
        keep = slotMapping >= 0
        flat[slotMapping[keep].long()] = x[keep]
        out.append(c)
    return tuple(to_np(t) for t in out)


def samples_gather(dtype, rng):
    res = []
    for cum, offset in ((False, False), (True, True)):
        nb, bs, n, dk, dv, b = 6, 4, 2, 8, 16, 3
        lens = np.array([5, 0, 7], np.int32)
        offs = np.array([4, 0, 0], np.int32) if offset else None
        bt = rng.integers(0, nb, (b, 4)).astype(np.int32)
        seq = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32) if cum else lens
        t = int(lens.sum())
        res.append(Sample((), (), f"cumsum={cum} offset={offset}", {
            "keyCache": rnd(rng, (nb, bs, n, dk), dtype), "valueCache": rnd(rng, (nb, bs, n, dv), dtype),
            "blockTables": bt, "seqLens": seq, "seqOffsetOptional": offs, "cacheMode": "Norm",
            "isSeqLensCumsum": cum, "_lens": lens, "_dtype": dtype, "_t": t, "_n": n, "_dk": dk, "_dv": dv}))
    return res


def ref_gather(keyCache, valueCache, blockTables, seqLens, seqOffsetOptional, cacheMode, isSeqLensCumsum, _lens,
               _dtype, _t, _n, _dk, _dv):
    bs = keyCache.shape[1]
    rows_k, rows_v = [], []
    for b, ln in enumerate(_lens.tolist()):
        first = int(seqOffsetOptional[b]) // bs if seqOffsetOptional is not None else 0
        for t in range(ln):
            blk = int(blockTables[b, first + t // bs])
            rows_k.append(keyCache[blk, t % bs])
            rows_v.append(valueCache[blk, t % bs])
    return to_np(torch.stack(rows_k)), to_np(torch.stack(rows_v))


ENTRIES = [
    OpInfo("aclnnScatterPaKvCache", ref_scatter, KV, kind="custom", samples=samples_scatter, native16=True,
           named_outputs=("keyCacheRef", "valueCacheRef")),
    OpInfo("aclnnGatherPaKvCache", ref_gather, KV, kind="custom", samples=samples_gather, native16=True,
           named_outputs=("keyRef", "valueRef")),
]
