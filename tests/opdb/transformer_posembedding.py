"""ops-transformer rotary position embeddings: RotaryPositionEmbedding (+Grad), ApplyRotaryPosEmb (V1, V2),
RopeWithSinCosCache. The oracle is the documented formula in torch (torch.cat of the rotated halves, quarters
or pairs), in float64 from the widened inputs, rounded once; the grad by autograd through it."""

from __future__ import annotations

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
TOL = {"float32": (2e-5, 2e-5)}


def rnd(rng, shape, dtype):
    return rng.uniform(-2, 2, shape).astype(np.float32).astype(np_dtype(dtype))


def out(t, dtype):
    t = t.to(TORCH[dtype])
    return t.view(torch.int16).numpy().view(np_dtype("bfloat16")) if dtype == "bfloat16" else t.numpy()


def rotate(x, mode):
    """(x part read with cos, x part read with sin) of a mode, as the docs write them."""
    d = x.shape[-1]
    if mode == 0:
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
        return x, torch.cat((-x2, x1), -1)
    if mode == 1:
        x1, x2 = x[..., ::2], x[..., 1::2]
        return x, torch.stack((-x2, x1), -1).reshape(x.shape)
    if mode == 2:
        q = d // 4
        x1, x2, x3, x4 = x[..., :q], x[..., q:2 * q], x[..., 2 * q:3 * q], x[..., 3 * q:]
        return x, torch.cat((-x2, x1, -x4, x3), -1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.cat((x1, x2), -1), torch.cat((-x2, x1), -1)


def rope(x, cos, sin, mode):
    a, b = rotate(x, mode)
    return a * cos + b * sin


# (x shape, cos shape) pairs: full, broadcast over batch and heads, over sequence, a long row set
SHAPES = [((2, 3, 4, 8), (2, 3, 4, 8)), ((2, 5, 3, 16), (1, 5, 1, 16)), ((3, 2, 6, 8), (3, 1, 6, 8)),
          ((1, 64, 8, 64), (1, 64, 1, 64))]


def samples_rope(dtype, rng):
    res = []
    for mode in range(4):
        for xs, cs in SHAPES[: 2 + (mode == 0) * 2]:
            res.append(Sample((), (), f"mode {mode} {xs} cos {cs}",
                              {"x": rnd(rng, xs, dtype), "cos": rnd(rng, cs, dtype), "sin": rnd(rng, cs, dtype),
                               "mode": mode, "_dtype": dtype}))
    return res


def ref_rope(x, cos, sin, mode, _dtype):
    return (out(rope(x.double(), cos.double(), sin.double(), mode), _dtype),)


def samples_grad(dtype, rng):
    res = []
    for mode in range(4):
        for xs, cs in SHAPES[:3]:
            res.append(Sample((), (), f"mode {mode} {xs} cos {cs}",
                              {"dy": rnd(rng, xs, dtype), "cos": rnd(rng, cs, dtype), "sin": rnd(rng, cs, dtype),
                               "xOptional": rnd(rng, xs, dtype), "mode": mode, "_dtype": dtype}))
    return res


def ref_grad(dy, cos, sin, xOptional, mode, _dtype):
    x, c, s = (t.double().requires_grad_(True) for t in (xOptional, cos, sin))
    (rope(x, c, s, mode) * dy.double()).sum().backward()
    return out(x.grad, _dtype), out(c.grad, _dtype), out(s.grad, _dtype)


def samples_apply(v2):
    def samples(dtype, rng):
        res = []
        modes = ("half", "interleave", "quarter") if v2 else ("half",)
        layouts = (1, 2, 3) if v2 else (1,)
        for mode in modes:
            for layout in layouts:
                b, s, n, k, d = 2, 5, 4, 2, 16
                q = {1: (b, s, n, d), 2: (s, b, n, d), 3: (b, n, s, d)}[layout]
                kk = {1: (b, s, k, d), 2: (s, b, k, d), 3: (b, k, s, d)}[layout]
                cs = {1: (b, s, 1, d), 2: (s, b, 1, d), 3: (b, 1, s, d)}[layout]
                kw = {"queryRef": rnd(rng, q, dtype), "keyRef": rnd(rng, kk, dtype), "cos": rnd(rng, cs, dtype),
                      "sin": rnd(rng, cs, dtype), "layout": layout, "_dtype": dtype, "_mode": mode}
                if v2:
                    kw["rotaryMode"] = mode
                res.append(Sample((), (), f"{mode} layout {layout}", kw))
        return res
    return samples


def ref_apply(queryRef, keyRef, cos, sin, layout, _dtype, _mode, rotaryMode=None):
    m = {"half": 0, "interleave": 1, "quarter": 2}[_mode]
    c, s = cos.double(), sin.double()
    return out(rope(queryRef.double(), c, s, m), _dtype), out(rope(keyRef.double(), c, s, m), _dtype)


def samples_cache(dtype, rng):
    res = []
    for neox in (True, False):
        for hs, rot, nq, nk in ((32, 32, 2, 1), (64, 32, 4, 2)):
            t, maxpos = 7, 20
            res.append(Sample((), (), f"neox={neox} headSize {hs} rotary {rot}",
                              {"positions": rng.integers(0, maxpos, t).astype(np.int64),
                               "queryIn": rnd(rng, (t, nq * hs), dtype), "keyIn": rnd(rng, (t, nk * hs), dtype),
                               "cosSinCache": rnd(rng, (maxpos, rot), dtype), "mropeSection": None, "headSize": hs,
                               "isNeoxStyle": neox, "_dtype": dtype}))
    return res


def ref_cache(positions, queryIn, keyIn, cosSinCache, mropeSection, headSize, isNeoxStyle, _dtype):
    """vLLM's rotary embedding: the first rotary-dim elements of each head rotated (neox: halves; else pairs)."""
    cs = cosSinCache.double()[positions.long()]
    rot = cs.shape[-1]
    cos, sin = cs[:, : rot // 2], cs[:, rot // 2:]

    def apply(x):
        t = x.shape[0]
        x = x.double().reshape(t, -1, headSize)
        xr, xp = x[..., :rot], x[..., rot:]
        c, s = cos[:, None, :], sin[:, None, :]
        if isNeoxStyle:
            x1, x2 = xr[..., : rot // 2], xr[..., rot // 2:]
            y = torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), -1)
        else:
            x1, x2 = xr[..., ::2], xr[..., 1::2]
            y = torch.stack((x1 * c - x2 * s, x2 * c + x1 * s), -1).reshape(xr.shape)
        return out(torch.cat((y, xp), -1).reshape(t, -1), _dtype)
    return apply(queryIn), apply(keyIn)


ENTRIES = [
    OpInfo("aclnnRotaryPositionEmbedding", ref_rope, FLOATS, kind="custom", samples=samples_rope, tol=TOL,
           named_outputs=("out",)),
    OpInfo("aclnnRotaryPositionEmbeddingGrad", ref_grad, FLOATS, kind="custom", samples=samples_grad,
           tol={"float32": (2e-5, 1e-4), "float16": (2e-3, 4e-3), "bfloat16": (1.6e-2, 3e-2)},
           named_outputs=("dxOut", "dcosOut", "dsinOut")),
    OpInfo("aclnnApplyRotaryPosEmb", ref_apply, FLOATS, kind="custom", samples=samples_apply(False), tol=TOL,
           named_outputs=("queryRef", "keyRef")),
    OpInfo("aclnnApplyRotaryPosEmbV2", ref_apply, FLOATS, kind="custom", samples=samples_apply(True), tol=TOL,
           named_outputs=("queryRef", "keyRef")),
    OpInfo("aclnnRopeWithSinCosCache", ref_cache, FLOATS, kind="custom", samples=samples_cache, tol=TOL,
           named_outputs=("queryOut", "keyOut")),
]
