"""ops-transformer MoE routing, first generation: MoeGatingTopKSoftmax (V1, V2), MoeComputeExpertTokens,
MoeInitRouting, MoeFinalizeRouting. Oracles: torch.softmax and a stable descending sort (torch.sort), the
binary search of the expert counts, a stable key sort of the experts (the formulas of the docs and of torch_npu's
reference implementations)."""

from __future__ import annotations

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def rnd(rng, shape, dtype, lo=-2, hi=2):
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(np_dtype(dtype))


def out(t, dtype):
    t = t.to(TORCH[dtype])
    return t.view(torch.int16).numpy().view(np_dtype("bfloat16")) if dtype == "bfloat16" else t.numpy()


def topk_desc(v, k):
    """The k largest (descending), equal values in ascending index order."""
    vals, idx = torch.sort(v, dim=-1, descending=True, stable=True)
    return vals[..., :k], idx[..., :k]


def samples_gate(v2):
    def samples(dtype, rng):
        res = []
        for shape, k in (((6, 8), 2), ((2, 3, 16), 4), ((5, 4), 4)):
            fin = rng.random(shape[:-1]) < 0.3
            kw = {"x": rnd(rng, shape, dtype), "finishedOptional": fin, "k": k, "_dtype": dtype}
            if v2:
                for renorm, flag in ((0, True), (1, False)):
                    res.append(Sample((), (), f"{shape} k={k} renorm={renorm}",
                                      dict(kw, renorm=renorm, outputSoftmaxResultFlag=flag)))
            else:
                res.append(Sample((), (), f"{shape} k={k}", kw))
        return res
    return samples


def ref_gate(x, finishedOptional, k, _dtype, renorm=0, outputSoftmaxResultFlag=None):
    xf = x.float()
    e = x.shape[-1]
    if renorm:
        top, idx = topk_desc(xf, k)
        y = torch.softmax(top.double(), -1)
    else:
        p = torch.softmax(xf.double(), -1).float()
        y, idx = topk_desc(p, k)
    idx = torch.where(finishedOptional[..., None], torch.full_like(idx, e), idx).int()
    res = (out(y, _dtype), idx.numpy())
    if outputSoftmaxResultFlag is None:  # V1: rowIdx
        rows = int(np.prod(x.shape[:-1]))
        row = (torch.arange(k)[None, :] * rows + torch.arange(rows)[:, None]).int().reshape(*x.shape[:-1], k)
        return res + (row.numpy(),)
    soft = torch.softmax(xf.double(), -1).float().numpy() if (outputSoftmaxResultFlag and not renorm) else \
        np.zeros(x.shape, np.float32)
    return res + (soft,)


def samples_tokens(dtype, rng):
    return [Sample((), (), f"{n} slots, {e} experts", {"sortedExperts": np.sort(rng.integers(0, e, n)).astype(np.int32),
                                                       "numExperts": e + extra})
            for n, e, extra in ((20, 6, 0), (7, 3, 2), (1, 1, 0))]


def ref_tokens(sortedExperts, numExperts):
    return (torch.searchsorted(sortedExperts, torch.arange(numExperts, dtype=torch.int32), right=True).int().numpy(),)


def samples_init(dtype, rng):
    res = []
    for n, k, h, e, active in ((7, 2, 5, 4, 7), (9, 3, 4, 5, 4), (4, 1, 3, 2, 0)):
        res.append(Sample((), (), f"n={n} k={k} active={active}", {
            "x": rnd(rng, (n, h), dtype), "rowIdx": np.arange(n * k, dtype=np.int32).reshape(k, n).T.copy(),
            "expertIdx": rng.integers(0, e, (n, k)).astype(np.int32), "activeNum": active}))
    return res


def ref_init(x, rowIdx, expertIdx, activeNum):
    n, k = expertIdx.shape
    keys = expertIdx.reshape(-1)
    sorted_e, order = torch.sort(keys, stable=True)
    src = rowIdx.reshape(-1)[order]
    erow = torch.zeros(n * k, dtype=torch.int32)
    erow[src.long()] = torch.arange(n * k, dtype=torch.int32)
    a = min(activeNum, n) * k
    ex = x[(src[:a] % n).long()]
    ex = ex.view(torch.int16).numpy().view(np_dtype("bfloat16")) if x.dtype == torch.bfloat16 else ex.numpy()
    return ex, erow.numpy(), sorted_e.int().numpy()


def samples_init_quant(dtype, rng):
    res = []
    for s in samples_init(dtype, rng):
        for scale, offset in ((20.0, 1.0), (45.5, -3.0)):
            res.append(Sample((), (), s.name + f" scale={scale} offset={offset}",
                              dict(s.kw, scale=scale, offset=offset)))
    return res


def ref_init_quant(x, rowIdx, expertIdx, activeNum, scale, offset):
    """InitRouting's outputs, expandedX quantised: round half to even of float32(x * scale) + offset, saturated."""
    n, k = expertIdx.shape
    _, order = torch.sort(expertIdx.reshape(-1), stable=True)
    src = rowIdx.reshape(-1)[order]
    _, erow, eexp = ref_init(x, rowIdx, expertIdx, activeNum)
    a = min(activeNum, n) * k
    v = (x.float()[(src[:a] % n).long()] * torch.tensor(scale, dtype=torch.float32)) + torch.tensor(offset, dtype=torch.float32)
    q = torch.clamp(torch.round(v), -128, 127).to(torch.int8)
    return q.numpy(), erow, eexp


def samples_init_quant_v2(dtype, rng):
    res = []
    n, k, h, e = 7, 2, 6, 4
    for mode, quant, smooth in ((0, 0, None), (0, 1, None), (0, 1, "expert"), (1, 0, None), (1, 1, "one"),
                                (1, 1, "expert")):
        kw = {"x": rnd(rng, (n, h), dtype), "expertIdx": rng.integers(0, e, (n, k)).astype(np.int32),
              "activeNum": 0, "expertCapacity": 3 if mode else 0, "expertNum": e, "dropPadMode": mode,
              "expertTokensCountOrCumsumFlag": 0, "expertTokensBeforeCapacityFlag": False, "quantMode": quant,
              "expertTokensCountOrCumsumOutOptional": None, "expertTokensBeforeCapacityOutOptional": None}
        if quant == 0:
            kw.update(scaleOptional=np.array([25.5], np.float32), offsetOptional=np.array([-2.0], np.float32))
        else:
            rows = {None: None, "one": 1, "expert": e}[smooth]
            kw.update(scaleOptional=rnd(rng, (rows, h), "float32", 0.5, 2.0) if rows else None, offsetOptional=None)
        res.append(Sample((), (), f"dropPadMode={mode} quantMode={quant} smooth={smooth}", kw))
    return res


def ref_init_quant_v2(x, expertIdx, scaleOptional, offsetOptional, activeNum, expertCapacity, expertNum, dropPadMode,
                      quantMode, **_):
    """The routing by the keyed sort of the docs (stable by expert; drop/pad: the first `capacity` of each expert in
    row (expert, rank)), then the quantisation formula of the docs; padding rows are zeros (our documented rule)."""
    n, k = expertIdx.shape
    flat = expertIdx.reshape(-1)
    _, order = torch.sort(flat, stable=True)
    row_idx = torch.zeros(n * k, dtype=torch.int32)
    if dropPadMode == 0:
        row_idx[order] = torch.arange(n * k, dtype=torch.int32)
        src, experts = order // k, flat[order]
    else:
        src = torch.full((expertNum * expertCapacity,), -1, dtype=torch.long)
        experts = torch.arange(expertNum * expertCapacity) // expertCapacity
        rank = {}
        for j in order.tolist():
            e = int(flat[j])
            r = rank.get(e, 0)
            rank[e] = r + 1
            keep = r < expertCapacity
            row_idx[j] = e * expertCapacity + r if keep else -1
            if keep:
                src[e * expertCapacity + r] = j // k
    xf = x.float()
    rows = torch.where(src[:, None] >= 0, xf[src.clamp(min=0)], torch.zeros_like(xf[:1]))
    if quantMode == 0:
        v = rows * scaleOptional.float()[0] + offsetOptional.float()[0]
        q, ds = torch.clamp(torch.round(v), -128, 127), torch.zeros(rows.shape[0])
        q = torch.where(src[:, None] >= 0, q, torch.zeros_like(q))  # padding rows stay zero
    else:
        sm = rows if scaleOptional is None else rows * (scaleOptional[0] if scaleOptional.shape[0] == 1 else
                                                        scaleOptional[experts.long()])
        ds = (sm.abs().amax(-1) / 127).float()
        q = torch.clamp(torch.round(sm / torch.where(ds > 0, ds, torch.ones_like(ds))[:, None]), -128, 127)
        q = torch.where(src[:, None] >= 0, q, torch.zeros_like(q))
        ds = torch.where(src >= 0, ds, torch.zeros_like(ds))
    q = q.to(torch.int8).reshape((n * k, -1) if dropPadMode == 0 else (expertNum, expertCapacity, -1))
    return q.numpy(), row_idx.numpy(), ds.float().numpy()


def samples_fin(dtype, rng):
    res = []
    for n, k, h, e, x2 in ((6, 2, 5, 4, True), (5, 3, 8, 6, False)):
        perm = rng.permutation(n * k).astype(np.int32)
        res.append(Sample((), (), f"n={n} k={k} x2={x2}", {
            "expandedX": rnd(rng, (n * k, h), dtype), "x1": rnd(rng, (n, h), dtype),
            "x2Optional": rnd(rng, (n, h), dtype) if x2 else None, "bias": rnd(rng, (e, h), dtype),
            "scales": rnd(rng, (n, k), dtype), "expandedRowIdx": perm,
            "expandedExpertIdx": rng.integers(0, e, (n, k)).astype(np.int32), "_dtype": dtype}))
    return res


def ref_fin(expandedX, x1, x2Optional, bias, scales, expandedRowIdx, expandedExpertIdx, _dtype):
    n, k = scales.shape
    acc = x1.double() + (x2Optional.double() if x2Optional is not None else 0)
    for j in range(k):
        rows = expandedRowIdx[torch.arange(n) + j * n].long()
        acc = acc + scales[:, j:j + 1].double() * (expandedX[rows].double() + bias[expandedExpertIdx[:, j].long()].double())
    return (out(acc, _dtype),)


def samples_gtk(dtype, rng):
    res = []
    for rows, e, gc, kg, k, mode, norm, bias in ((5, 16, 4, 2, 3, 1, 1, True), (6, 24, 3, 1, 2, 0, 0, False),
                                                 (3, 12, 4, 4, 6, 1, 1, False)):
        res.append(Sample((), (), f"{rows}x{e} groups {gc} keep {kg} k={k} mode {mode} norm {norm}", {
            "x": rnd(rng, (rows, e), dtype), "biasOptional": rnd(rng, (e,), dtype, -0.5, 0.5) if bias else None,
            "k": k, "kGroup": kg, "groupCount": gc, "groupSelectMode": mode, "renorm": 0, "normType": norm,
            "outFlag": True, "routedScalingFactor": 2.5, "eps": 1e-20, "_dtype": dtype}))
    return res


def ref_gtk(x, biasOptional, k, kGroup, groupCount, groupSelectMode, renorm, normType, outFlag, routedScalingFactor,
            eps, _dtype):
    """torch_npu's reference of npu_moe_gating_top_k: the selection on norm + bias, the weights from the norm."""
    xf = x.float().double()
    s = torch.softmax(xf, -1) if normType == 0 else torch.sigmoid(xf)
    s = s.float().double()
    c = s + (biasOptional.float().double() if biasOptional is not None else 0)
    g = c.reshape(c.shape[0], groupCount, -1)
    gs = g.amax(-1) if groupSelectMode == 0 else torch.topk(g, 2, dim=-1).values.sum(-1)
    _, keep = topk_desc(gs, kGroup)
    mask = torch.ones_like(gs, dtype=torch.bool)
    mask.scatter_(1, keep, False)
    c = torch.where(mask[..., None], -torch.inf, g).reshape(c.shape)
    _, idx = topk_desc(c, k)
    y = torch.gather(s, 1, idx)
    if normType == 1:
        y = y / (y.sum(-1, keepdim=True) + eps)
    return out(y * routedScalingFactor, _dtype), idx.int().numpy(), s.float().numpy()


ENTRIES = [
    OpInfo("aclnnMoeGatingTopK", ref_gtk, FLOATS, kind="custom", samples=samples_gtk,
           named_outputs=("yOut", "expertIdxOut", "outOut")),
    OpInfo("aclnnMoeGatingTopKSoftmax", ref_gate, FLOATS, kind="custom", samples=samples_gate(False),
           named_outputs=("yOut", "expertIdxOut", "rowIdxOut")),
    OpInfo("aclnnMoeGatingTopKSoftmaxV2", ref_gate, FLOATS, kind="custom", samples=samples_gate(True),
           named_outputs=("yOut", "expertIdxOut", "softmaxResultOutOptional")),
    OpInfo("aclnnMoeComputeExpertTokens", ref_tokens, ("int32",), kind="custom", samples=samples_tokens,
           named_outputs=("out",)),
    OpInfo("aclnnMoeInitRouting", ref_init, FLOATS, kind="custom", samples=samples_init, native16=True,
           named_outputs=("expandedXOut", "expandedRowIdxOut", "expandedExpertIdxOut")),
    OpInfo("aclnnMoeInitRoutingQuant", ref_init_quant, FLOATS, kind="custom", samples=samples_init_quant,
           native16=True, named_outputs=("expandedXOut", "expandedRowIdxOut", "expandedExpertIdxOut")),
    OpInfo("aclnnMoeInitRoutingQuantV2", ref_init_quant_v2, FLOATS, kind="custom", samples=samples_init_quant_v2,
           native16=True, tol={"int8": (0, 1), "float32": (1e-6, 1e-7)},
           named_outputs=("expandedXOut", "expandedRowIdxOut", "dynamicQuantScaleOutOptional")),
    OpInfo("aclnnMoeFinalizeRouting", ref_fin, FLOATS, kind="custom", samples=samples_fin,
           tol={"float32": (2e-6, 2e-5), "float16": (2e-3, 4e-3), "bfloat16": (1.6e-2, 3e-2)}, named_outputs=("out",)),
]
