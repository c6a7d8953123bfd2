"""ops-transformer attention: FlashAttentionScore (V2, VarLen V1-V4) and its grad (V2, Unpadding V1-V4),
PromptFlashAttention V1-V3, IncreFlashAttention V1-V4, FusedInferAttentionScore V1-V4.

The oracle is torch.nn.functional.scaled_dot_product_attention in float64 (on (B, N, S, D) views of every
layout, GQA by repeated key/value heads, the sparse modes as boolean masks), its autograd for the grads, and
the documented formulas for what SDPA does not give (softmax max/sum repeated 8 times, the LSE, dropout by the
mask's bits, pse before or after the scale). A query row that sees no key gives zeros (our documented rule).
"""

from __future__ import annotations

import functools

import numpy as np
import torch

from aclnn_py import aclnn

from . import OpInfo, Sample, np_dtype

TRAIN = ("float32", "float16", "bfloat16")
INFER = ("float16", "bfloat16")
TOL = {"float32": (2e-5, 2e-5), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
INF = 2147483647
TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


# ---- the oracle ----------------------------------------------------------------------------------------------

def to_bnsd(x, layout, n, lens=None):
    """(B, N, S, D) float64 of a sequence operand; TND needs the per-batch lengths (a list of tensors then)."""
    x = x.double()
    if layout == "BSH":
        b, s, h = x.shape
        return x.reshape(b, s, n, h // n).transpose(1, 2)
    if layout == "SBH":
        s, b, h = x.shape
        return x.reshape(s, b, n, h // n).permute(1, 2, 0, 3)
    if layout == "BSND":
        return x.transpose(1, 2)
    if layout == "BNSD":
        return x
    out, t = [], 0
    for ln in lens:
        out.append(x[t:t + ln].transpose(0, 1).unsqueeze(0))
        t += ln
    return out


def from_bnsd(x, layout):
    if layout == "BSH":
        b, n, s, d = x.shape
        return x.transpose(1, 2).reshape(b, s, n * d)
    if layout == "SBH":
        b, n, s, d = x.shape
        return x.permute(2, 0, 1, 3).reshape(s, b, n * d)
    if layout == "BSND":
        return x.transpose(1, 2)
    return x


def visible(sq, skv, sparse, pre, nxt, mask=None, prefix=0, band_this=False):
    """(Sq, Skv) bool, True = attended, of a sparse mode (mask: the explicit one, True = masked)."""
    i = torch.arange(sq)[:, None]
    j = torch.arange(skv)[None, :]
    shift = skv - sq
    if sparse in (7, 8) and band_this:
        return (j - i - shift <= nxt) & (i + shift - j <= pre)
    if sparse == 0:
        ok = (j - i <= nxt) & (i - j <= pre)
        return ok & ~mask if mask is not None else ok
    if sparse == 1:
        return ~mask
    if sparse in (2, 8):
        return j <= i
    if sparse == 3 or sparse == 7:
        return j <= i + shift
    if sparse == 4:
        return (j - i - shift <= nxt) & (i + shift - j <= pre)
    return (j <= i + shift) | (j < prefix)  # 5, 6


def attend(q, k, v, vis, scale, pse=None, pse_before=False, drop=None, keep=1.0, sink=None):
    """One batch: q (N, Sq, D), k/v (N, Skv, D) float64 with heads already repeated; vis (N|1, Sq, Skv) bool.
    Returns out, max, sum (of the scaled scores), lse."""
    if pse is None and drop is None and sink is None:
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=vis, scale=scale)
    s = q @ k.transpose(-1, -2)
    s = (s + pse) * scale if pse is not None and pse_before else s * scale + (pse if pse is not None else 0)
    s = s.masked_fill(~vis, -torch.inf)
    m = s.amax(-1, keepdim=True)
    if sink is not None:
        m = torch.maximum(m, sink.double().reshape(-1, 1, 1))
    mz = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(s - mz)
    lsum = e.sum(-1, keepdim=True)
    if sink is not None:
        lsum = lsum + torch.exp(sink.double().reshape(-1, 1, 1) - mz)
    p = e / torch.where(lsum > 0, lsum, torch.ones_like(lsum))
    if drop is not None:
        p = p * drop / keep
    if pse is not None or drop is not None or sink is not None:
        out = p @ v
    dead = lsum[..., 0] == 0
    out = torch.where(dead[..., None], torch.zeros_like(out), out)
    lse = torch.where(dead, torch.full_like(mz[..., 0], torch.inf), (mz + torch.log(lsum))[..., 0])
    return out, m[..., 0], lsum[..., 0], lse


def drop_bits(mask_bytes, shape):
    bits = np.unpackbits(np.asarray(mask_bytes, np.uint8), bitorder="little")[: int(np.prod(shape))]
    return torch.from_numpy(bits.reshape(shape).astype(np.float64))


# ---- the calls -----------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def params(op):
    return [(p["name"], p["ctype"], p["role"]) for p in aclnn.describe(op + "GetWorkspaceSize")
            if p["role"] not in ("workspace size", "executor")]


DEFAULTS = {"scaleValue": 1.0, "keepProb": 1.0, "preTokens": INF, "nextTokens": INF, "innerPrecise": 0,
            "sparseMode": 0, "pseType": 1, "numKeyValueHeads": 0, "blockSize": 0, "antiquantMode": 0,
            "softmaxLseFlag": False, "keyAntiquantMode": 0, "valueAntiquantMode": 0, "queryQuantMode": 0,
            "softmaxOutLayout": "", "softmaxInLayout": ""}
SYNONYMS = {"key": ("keyIn",), "pse": ("realShiftOptional", "pseShiftOptional", "pseShift"),
            "mask": ("attenMaskOptional", "attenMask"), "heads": ("headNum", "numHeads"),
            "seq_q": ("actualSeqQLenOptional", "actualSeqLengths", "actualSeqLengthsOptional"),
            "seq_kv": ("actualSeqKvLenOptional", "actualSeqLengthsKv", "actualSeqLengthsKvOptional"),
            "block_table": ("blocktable", "blockTableOptional", "blockTable"), "sink": ("learnableSinkOptional",),
            "drop": ("dropMaskOptional",), "prefix": ("prefixOptional",)}


def call_kw(op, outputs, **given):
    """Every input parameter of op by C name: the given values (under their C name or a synonym of SYNONYMS), the
    defaults above, None for the rest; outputs (named) are left to the test."""
    alias = {c: k for k, cs in SYNONYMS.items() for c in cs}
    kw = {}
    for name, ctype, role in params(op):
        if name in outputs:
            continue
        if name in given:
            kw[name] = given[name]
        elif alias.get(name) in given:
            kw[name] = given[alias[name]]
        elif name in DEFAULTS:
            kw[name] = DEFAULTS[name]
        else:
            kw[name] = None
    if "key" in kw and "tensor list" in dict((n, r) for n, _, r in params(op)).get("key", ""):
        kw["key"], kw["value"] = [kw["key"]], [kw["value"]]
    return kw


def rnd(rng, shape, dtype):
    return rng.standard_normal(shape).astype(np.float32).astype(np_dtype(dtype))


def tt(a):
    """numpy (bfloat16 included) -> torch, float64 (torch tensors as they are, in float64)."""
    if isinstance(a, torch.Tensor):
        return a.double()
    a = np.asarray(a)
    if a.dtype.name == "bfloat16":
        return torch.from_numpy(a.astype(np.float32)).double()
    return torch.from_numpy(a.astype(np.float64))


def round_to(x, dtype):
    t = x.to(TORCH[dtype])
    return t.view(torch.int16).numpy().view(np_dtype("bfloat16")) if dtype == "bfloat16" else t.numpy()


# ---- a case and its expected results -----------------------------------------------------------------------------

class Case:
    """One attention problem in the layout's terms, with its expected results."""

    def __init__(self, rng, dtype, layout="BNSD", b=2, n=4, nkv=2, sq=37, skv=45, d=16, dv=None, sparse=0,
                 mask=False, pre=INF, nxt=INF, pse=False, pse_before=True, keep=1.0, lens=None, kvlens=None,
                 prefix=None, scale=0.25, sink=False, rope=0):
        dv = dv or d
        self.dtype, self.layout, self.b, self.n, self.nkv, self.d, self.dv = dtype, layout, b, n, nkv, d, dv
        self.sparse, self.pre, self.nxt, self.scale, self.keep = sparse, pre, nxt, scale, keep
        tnd = layout == "TND"
        self.lens = lens or [sq] * b
        self.kvlens = kvlens or [skv] * b
        sq, skv = max(self.lens), max(self.kvlens)
        self.sq, self.skv = sq, skv

        def seq(nh, dd, s, lens):
            if tnd:
                return rnd(rng, (sum(lens), nh, dd), dtype)
            shape = {"BSH": (b, s, nh * dd), "SBH": (s, b, nh * dd), "BSND": (b, s, nh, dd),
                     "BNSD": (b, nh, s, dd)}[layout]
            return rnd(rng, shape, dtype)

        self.q, self.k, self.v = seq(n, d, sq, self.lens), seq(nkv, d, skv, self.kvlens), seq(nkv, dv, skv, self.kvlens)
        self.q_rope = seq(n, rope, sq, self.lens) if rope else None
        self.k_rope = seq(nkv, rope, skv, self.kvlens) if rope else None
        self.mask = None
        if mask:
            if sparse <= 1:
                self.mask = rng.random((sq, skv)) < 0.3 if not tnd else rng.random((sq, skv)) < 0.3
                if sparse == 0 and not tnd:
                    self.mask = self.mask.reshape(1, 1, sq, skv).repeat(b, 0)
            else:
                self.mask = np.triu(np.ones((2048, 2048), bool), 1)
        self.pse = rnd(rng, (b, n, sq, skv), dtype) if pse else None
        self.pse_before = pse_before
        self.prefix = prefix
        self.drop = None
        if keep < 1.0:
            nbits = sum(n * a * c for a, c in zip(self.lens, self.kvlens))
            self.drop = np.packbits(rng.random(nbits) < keep, bitorder="little")
        self.sink = (rng.standard_normal(n).astype(np.float32)) if sink else None

    def per_batch(self):
        """Yield (b, q, k, v, vis, pse, drop) float64 per batch, key/value heads repeated."""
        g = self.n // self.nkv
        tnd = self.layout == "TND"
        qs = to_bnsd(tt(self.q), self.layout, self.n, self.lens)
        ks = to_bnsd(tt(self.k), self.layout, self.nkv, self.kvlens)
        if self.q_rope is not None:  # the rope parts extend the head dimension of query and key
            qr = to_bnsd(tt(self.q_rope), self.layout, self.n, self.lens)
            kr = to_bnsd(tt(self.k_rope), self.layout, self.nkv, self.kvlens)
            qs = [torch.cat([a, c], -1) for a, c in zip(qs, qr)]
            ks = [torch.cat([a, c], -1) for a, c in zip(ks, kr)]
        vs = to_bnsd(tt(self.v), self.layout, self.nkv, self.kvlens)
        bit = 0
        for bi in range(self.b):
            lq, lk = self.lens[bi], self.kvlens[bi]
            q = qs[bi][0] if tnd else qs[bi, :, :lq]
            k = (ks[bi][0] if tnd else ks[bi, :, :lk]).repeat_interleave(g, 0)
            v = (vs[bi][0] if tnd else vs[bi, :, :lk]).repeat_interleave(g, 0)
            if self.mask is None:
                vis = torch.ones(1, lq, lk, dtype=torch.bool)
            else:
                m = torch.from_numpy(np.asarray(self.mask))
                m = m[bi] if m.ndim == 4 else m
                m = m.reshape(-1, m.shape[-2], m.shape[-1])[:, :lq, :lk] if self.sparse <= 1 else None
                live = [x for x in range(self.b) if self.lens[x] > 0 and self.kvlens[x] > 0]
                special = bool(live) and bi == (live[-1] if self.sparse == 7 else live[0])
                vis = visible(lq, lk, self.sparse, self.pre, self.nxt, m if m is None else m[0],
                              self.prefix[bi] if self.prefix else 0, special).reshape(1, lq, lk)
            pse = tt(self.pse)[bi, :, :lq, :lk] if self.pse is not None else None
            drop = None
            if self.drop is not None:
                cnt = self.n * lq * lk
                drop = drop_bits(self.drop, (bit + cnt,))[bit:].reshape(self.n, lq, lk)
                bit += cnt
            yield bi, q, k, v, vis, pse, drop

    def forward(self):
        """out in the layout (float64, padded rows 0), smax and ssum (B, N, Sq) / TND (T, N), lse likewise."""
        outs, mx, sm, lse = [], [], [], []
        for bi, q, k, v, vis, pse, drop in self.per_batch():
            sink = torch.from_numpy(self.sink) if self.sink is not None else None
            o, m, l_, ls = attend(q, k, v, vis, self.scale, pse, self.pse_before, drop, self.keep, sink)
            outs.append(o), mx.append(m), sm.append(l_), lse.append(ls)
        if self.layout == "TND":
            cat = lambda xs: torch.cat([x.transpose(0, 1) for x in xs], 0)  # noqa: E731
            return torch.cat([o.transpose(0, 1) for o in outs], 0), cat(mx), cat(sm), cat(lse)
        pad = lambda x, s: torch.nn.functional.pad(x, (0, 0, 0, s - x.shape[-2])) if x.ndim == 3 else \
            torch.nn.functional.pad(x, (0, s - x.shape[-1]))  # noqa: E731
        out = torch.stack([pad(o, self.sq) for o in outs])
        return (from_bnsd(out, self.layout), torch.stack([pad(m, self.sq) for m in mx]),
                torch.stack([pad(m, self.sq) for m in sm]), torch.stack([pad(m, self.sq) for m in lse]))

    def kw(self):
        kw = {"query": self.q, "key": self.k, "value": self.v, "scaleValue": self.scale, "keepProb": self.keep,
              "preTokens": self.pre, "nextTokens": self.nxt, "heads": self.n, "inputLayout": self.layout,
              "sparseMode": self.sparse, "numKeyValueHeads": self.nkv}
        if self.mask is not None:
            kw["mask"] = self.mask.astype(np.uint8)
        if self.pse is not None:
            kw["pse"] = self.pse
            kw["pseType"] = 1 if self.pse_before else 0
        if self.drop is not None:
            kw["drop"] = self.drop
        if self.prefix:
            kw["prefix"] = list(self.prefix)
        if self.sink is not None:
            kw["sink"] = self.sink
        if self.q_rope is not None:
            kw.update(queryRope=self.q_rope, keyRope=self.k_rope, keyInRope=self.k_rope)
        if self.layout == "TND":
            kw["seq_q"] = list(np.cumsum(self.lens))
            kw["seq_kv"] = list(np.cumsum(self.kvlens))
        elif self.lens != [self.sq] * self.b or self.kvlens != [self.skv] * self.b:
            kw["seq_q"], kw["seq_kv"] = list(self.lens), list(self.kvlens)
        return kw


def stats8(x, tnd, tnd_first):
    """(B, N, S) or (T, N) statistics as the operators lay them out: repeated 8 times."""
    x = x.float()
    if tnd and not tnd_first:
        x = x.transpose(0, 1)
    return x.unsqueeze(-1).expand(*x.shape, 8).contiguous()


# ---- FlashAttentionScore ----------------------------------------------------------------------------------------

FA_OUTS = ("softmaxMaxOut", "softmaxSumOut", "attentionOutOut")

FA_CASES = [
    dict(layout="BNSD"),
    dict(layout="BSH", mask=True, sparse=0, pre=INF, nxt=0),
    dict(layout="SBH", nkv=4, mask=True, sparse=1),
    dict(layout="BSND", sq=45, mask=True, sparse=2),
    dict(layout="BNSD", sq=30, skv=70, mask=True, sparse=3, pse=True),
    dict(layout="BSND", sq=50, skv=50, mask=True, sparse=4, pre=9, nxt=3, keep=0.75),
    dict(layout="BNSD", sq=20, skv=40, mask=True, sparse=6, prefix=[3, 25], pse=True, pse_before=False, dv=8),
]
FA_VL_CASES = [
    dict(layout="TND", lens=[7, 0, 30], kvlens=[9, 5, 30], b=3),
    dict(layout="TND", lens=[17, 23], kvlens=[17, 40], mask=True, sparse=3, keep=0.8),
    dict(layout="TND", lens=[5, 12, 9], kvlens=[8, 12, 20], b=3, mask=True, sparse=7, pre=30, nxt=-1),
    dict(layout="TND", lens=[12, 9], kvlens=[20, 9], mask=True, sparse=1),
]


def fa_samples(op, cases, tnd_first=False):
    def samples(dtype, rng):
        out = []
        for spec in cases:
            if spec.get("pse") and "pseType" not in dict((n, 0) for n, _, _ in params(op)) and \
                    not spec.get("pse_before", True):
                continue
            c = Case(rng, dtype, **spec)
            kw = call_kw(op, FA_OUTS + ("softmaxOutOut",), **c.kw())
            if tnd_first:
                kw["softmaxOutLayout"] = "same_as_input"
            kw["softmaxOutOut"] = None
            kw["_case"] = c
            out.append(Sample((), (), str(spec), kw))
        return out
    return samples


def fa_ref(tnd_first=False):
    def ref(_case, **kw):
        case = _case
        out, mx, sm, _ = case.forward()
        tnd = case.layout == "TND"
        return (stats8(mx, tnd, tnd_first), stats8(sm, tnd, tnd_first), round_to(out, case.dtype))
    return ref


# ---- the grad -----------------------------------------------------------------------------------------------------

FAG_OUTS = ("dqOut", "dkOut", "dvOut")
FAG_ROPE_OUTS = ("dqOut", "dqRopeOut", "dkOut", "dkRopeOut", "dvOut")


def fag_samples(op, cases, tnd_first=False, outs=FAG_OUTS):
    def samples(dtype, rng):
        out = []
        for spec in cases:
            if spec.get("pse") and not any(n == "pseType" for n, _, _ in params(op)) and \
                    not spec.get("pse_before", True):
                continue
            c = Case(rng, dtype, **spec)
            fo, mx, sm, _ = c.forward()
            tnd = c.layout == "TND"
            c.attn_in = round_to(fo, dtype)
            c.dy = rnd(rng, c.attn_in.shape, dtype)
            kw = call_kw(op, outs + ("dpseOut",), **c.kw())
            kw.update(dy=c.dy, attentionInOptional=c.attn_in, softmaxMaxOptional=stats8(mx, tnd, tnd_first).numpy(),
                      softmaxSumOptional=stats8(sm, tnd, tnd_first).numpy(), dpseOut=None, _case=c)
            if tnd_first:
                kw["softmaxInLayout"] = "same_as_input"
            out.append(Sample((), (), str(spec), kw))
        return out
    return samples


def fag_ref(_case, **kw):
    """d(sum(out * dy)) by autograd through the forward oracle (float64)."""
    case = _case
    names = ("q", "q_rope", "k", "k_rope", "v") if case.q_rope is not None else ("q", "k", "v")
    saved = {n: getattr(case, n) for n in names}
    leaves = {n: tt(a).requires_grad_(True) for n, a in saved.items()}
    for n, t in leaves.items():
        setattr(case, n, t)
    out, _, _, _ = case.forward()
    for n, a in saved.items():
        setattr(case, n, a)
    (out * tt(case.dy)).sum().backward()
    return tuple(round_to(leaves[n].grad, case.dtype) for n in names)


# ---- inference: PromptFlashAttention, IncreFlashAttention, FusedInferAttentionScore ---------------------------------

PFA_CASES = [
    dict(layout="BSH", b=2, n=4, nkv=4, sq=20, skv=20, mask=True, sparse=0, pre=INF, nxt=0),
    dict(layout="BNSD", b=2, n=4, nkv=1, sq=16, skv=33, lens=[16, 9], kvlens=[33, 12]),
    dict(layout="BSND", b=1, n=8, nkv=2, sq=24, skv=24, mask=True, sparse=3),
]
IFA_CASES = [
    dict(layout="BSH", b=3, n=4, nkv=4, sq=1, skv=40, kvlens=[40, 7, 23], mask=True, sparse=1),
    dict(layout="BNSD", b=2, n=8, nkv=2, sq=1, skv=64, kvlens=[64, 30]),
]


def infer_samples(op, cases, outputs, lse=False, paged=False):
    def samples(dtype, rng):
        out = []
        for spec in cases:
            if not any(n == "sparseMode" for n, _, _ in params(op)) and spec.get("sparse", 0) > 1:
                continue
            c = Case(rng, dtype, **spec)
            kw = call_kw(op, outputs, **c.kw())
            if paged:
                add_paged(c, kw, rng)
            if lse:
                kw["softmaxLseFlag"] = True
            if op.startswith("aclnnIncreFlashAttention"):  # one query row: its lengths are the keys'
                kw["actualSeqLengths"] = list(c.kvlens)
            kw["_case"] = c
            out.append(Sample((), (), str(spec) + (" paged" if paged else ""), kw))
        return out
    return samples


def add_paged(c, kw, rng, block=16):
    """Move the (BSH) key and value into a shuffled block cache with a block table."""
    nblk = -(-c.skv // block)
    total = c.b * nblk + 2
    perm = rng.permutation(total)[: c.b * nblk].reshape(c.b, nblk).astype(np.int32)
    kc = np.zeros((total, block, c.k.shape[-1]), c.k.dtype)
    vc = np.zeros((total, block, c.v.shape[-1]), c.v.dtype)
    for bi in range(c.b):
        for j in range(nblk):
            rows = slice(j * block, min((j + 1) * block, c.skv))
            kc[perm[bi, j], : rows.stop - rows.start] = c.k[bi, rows]
            vc[perm[bi, j], : rows.stop - rows.start] = c.v[bi, rows]
    kw["key"], kw["value"] = [kc], [vc]
    for name in ("blockTableOptional", "blocktable"):
        if name in kw:
            kw[name] = perm
    kw["blockSize"] = block
    seq = "actualSeqLengthsKvOptional" if "actualSeqLengthsKvOptional" in kw else "actualSeqLengths"
    kw[seq] = list(c.kvlens)


def infer_ref(lse=False):
    def ref(_case, **kw):
        case = _case
        out, _, _, ls = case.forward()
        res = (round_to(out, case.dtype),)
        if lse:
            res += (ls.float().unsqueeze(-1).numpy(),)
        return res
    return ref


def entry(name, samples, ref, dtypes, outputs):
    return OpInfo(name, ref, dtypes, kind="custom", samples=samples, tol=TOL, named_outputs=outputs)


FIA_CASES = PFA_CASES[:2] + IFA_CASES + [dict(layout="TND", b=2, n=4, nkv=2, lens=[9, 14], kvlens=[20, 14],
                                              mask=True, sparse=3)]

ENTRIES = [
    entry("aclnnFlashAttentionScore", fa_samples("aclnnFlashAttentionScore", FA_CASES[:4] + FA_CASES[5:6]),
          fa_ref(), TRAIN, FA_OUTS),
    entry("aclnnFlashAttentionScoreV2", fa_samples("aclnnFlashAttentionScoreV2", FA_CASES), fa_ref(), TRAIN,
          FA_OUTS),
    entry("aclnnFlashAttentionVarLenScore", fa_samples("aclnnFlashAttentionVarLenScore", FA_VL_CASES), fa_ref(),
          TRAIN, FA_OUTS),
    entry("aclnnFlashAttentionVarLenScoreV2", fa_samples("aclnnFlashAttentionVarLenScoreV2", FA_VL_CASES[:2]),
          fa_ref(), TRAIN, FA_OUTS),
    entry("aclnnFlashAttentionVarLenScoreV3", fa_samples("aclnnFlashAttentionVarLenScoreV3",
          [dict(FA_VL_CASES[1], rope=8)]), fa_ref(), TRAIN, FA_OUTS),
    entry("aclnnFlashAttentionUnpaddingScoreGradV3", fag_samples("aclnnFlashAttentionUnpaddingScoreGradV3",
          [dict(FA_VL_CASES[0], rope=8)], outs=FAG_ROPE_OUTS), fag_ref, TRAIN, FAG_ROPE_OUTS),
    entry("aclnnFlashAttentionVarLenScoreV4", fa_samples("aclnnFlashAttentionVarLenScoreV4", FA_VL_CASES[:2], True),
          fa_ref(True), TRAIN, FA_OUTS),
    entry("aclnnFlashAttentionScoreGrad", fag_samples("aclnnFlashAttentionScoreGrad", FA_CASES[:3] + FA_CASES[5:6]),
          fag_ref, TRAIN, FAG_OUTS),
    entry("aclnnFlashAttentionScoreGradV2", fag_samples("aclnnFlashAttentionScoreGradV2", FA_CASES[3:5]), fag_ref,
          TRAIN, FAG_OUTS),
    entry("aclnnFlashAttentionUnpaddingScoreGrad",
          fag_samples("aclnnFlashAttentionUnpaddingScoreGrad", FA_VL_CASES[:2]), fag_ref, TRAIN, FAG_OUTS),
    entry("aclnnFlashAttentionUnpaddingScoreGradV2",
          fag_samples("aclnnFlashAttentionUnpaddingScoreGradV2", FA_VL_CASES[2:3]), fag_ref, TRAIN, FAG_OUTS),
    entry("aclnnFlashAttentionUnpaddingScoreGradV4",
          fag_samples("aclnnFlashAttentionUnpaddingScoreGradV4", FA_VL_CASES[3:], True), fag_ref, TRAIN, FAG_OUTS),
    entry("aclnnPromptFlashAttention", infer_samples("aclnnPromptFlashAttention", PFA_CASES[:1], ("attentionOut",)),
          infer_ref(), INFER, ("attentionOut",)),
    entry("aclnnPromptFlashAttentionV2", infer_samples("aclnnPromptFlashAttentionV2", PFA_CASES[1:2],
          ("attentionOut",)), infer_ref(), INFER, ("attentionOut",)),
    entry("aclnnPromptFlashAttentionV3", infer_samples("aclnnPromptFlashAttentionV3", PFA_CASES, ("attentionOut",)),
          infer_ref(), INFER, ("attentionOut",)),
    entry("aclnnIncreFlashAttention", infer_samples("aclnnIncreFlashAttention", IFA_CASES[:1], ("attentionOut",)),
          infer_ref(), INFER, ("attentionOut",)),
    entry("aclnnIncreFlashAttentionV2", infer_samples("aclnnIncreFlashAttentionV2", IFA_CASES[1:],
          ("attentionOut",)), infer_ref(), INFER, ("attentionOut",)),
    entry("aclnnIncreFlashAttentionV3", infer_samples("aclnnIncreFlashAttentionV3", IFA_CASES[:1], ("attentionOut",),
          paged=True), infer_ref(), INFER, ("attentionOut",)),
    entry("aclnnIncreFlashAttentionV4", infer_samples("aclnnIncreFlashAttentionV4", IFA_CASES, ("attentionOut",)),
          infer_ref(), INFER, ("attentionOut",)),
    entry("aclnnFusedInferAttentionScore", infer_samples("aclnnFusedInferAttentionScore", FIA_CASES,
          ("attentionOut", "softmaxLse"), lse=True), infer_ref(True), INFER, ("attentionOut", "softmaxLse")),
    entry("aclnnFusedInferAttentionScoreV2", infer_samples("aclnnFusedInferAttentionScoreV2", IFA_CASES[:1],
          ("attentionOut", "softmaxLse"), lse=True, paged=True), infer_ref(True), INFER,
          ("attentionOut", "softmaxLse")),
    entry("aclnnFusedInferAttentionScoreV3", infer_samples("aclnnFusedInferAttentionScoreV3", PFA_CASES[2:],
          ("attentionOut", "softmaxLse"), lse=True), infer_ref(True), INFER, ("attentionOut", "softmaxLse")),
    entry("aclnnFusedInferAttentionScoreV4", infer_samples("aclnnFusedInferAttentionScoreV4",
          [dict(IFA_CASES[1], sink=True), PFA_CASES[0]], ("attentionOut", "softmaxLse"), lse=True),
          infer_ref(True), INFER, ("attentionOut", "softmaxLse")),
]
