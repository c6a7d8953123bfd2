"""One mixture-of-experts layer, forward and backward, on any machine.

    y = sum_k w[t, k] * FFN_{e(t, k)}(x[t]),   FFN_e(v) = relu(v @ W1[e]) @ W2[e]

Gating runs in numpy (router logits, top-K experts per token, softmax over the K selected logits). The
dispatch puts every token's K copies into contiguous per-expert blocks, each expert's small FFN runs as
numpy matmuls on its block, and the combine sums each token's K expert outputs weighted by the routing
weights. The backward goes through the combine's gradient (expert outputs and routing weights), the FFN,
the dispatch's gradient and the softmax, and gives the gradients of x, the router and every expert weight.

Each dispatch variant is one entry of VARIANTS: how tokens reach the expert blocks and come back, with its
operators: "indices" (MoeTokenPermute / MoeTokenUnpermute and their grads), "routing_map" (the routing-map
pair), "ep" (expert-parallel windows: PermuteWithEp / UnpermuteWithEp per rank, partial results summed) and
"init_routing" (MoeInitRoutingV3 / MoeFinalizeRoutingV2, torch_npu's init-routing path, back through
MoeFinalizeRoutingV2Grad and MoeInitRoutingV2Grad). Every variant is checked against a plain numpy
reference of the whole layer in float64 (a dense formulation: every expert on every token, masked by the
routing), for the forward output and every gradient. The table gives each variant's largest error (relative to the largest reference value) and the
time of each phase; the exit status is 1 when an error exceeds the variant's tolerance.

    python examples/moe_layer.py --tokens 256 --hidden 64 --ffn 128 --experts 8 --topk 2

Then a whole decoder layer serves a batch of sequences (inference): a prompt (prefill), then new tokens one at
a time (decode), each step

    h = RmsNorm(x);  q, k, v = h Wq, h Wk, h Wv;  q, k = RoPE(q, k) at the tokens' positions
    k, v -> a paged KV cache (blocks of --block-size rows, a shuffled block table per sequence)
    a = attention(q, cache) (causal over each sequence; GQA: --heads query heads, --kv-heads cache heads)
    x2 = x + a Wo;  h2 = RmsNorm(x2)                           (one AddRmsNorm)
    y = x2 + sum_k w[t, k] * SwiGLU_{e(t, k)}(h2[t])           (gating, dispatch, experts, combine)

on the stub's operators: RmsNorm, AddRmsNorm, RopeWithSinCosCache, ScatterPaKvCache, FusedInferAttentionScore
(paged cache, float16 queries and cache as the operator takes them), MoeGatingTopKSoftmaxV2, MoeInitRoutingV3,
MoeFinalizeRoutingV2. The projections and the expert GEMMs run as numpy float32 matmuls (no matmul operator
in this stub yet), SwiGLU in numpy. Every step is checked against a float64 numpy reference of the whole layer
(dense causal attention over the full sequences); the table prints the error and the time per token of the
prefill and of the decode.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import Callable

# The expert blocks are small matrices: BLAS threads cost more than they save there, and they would compete
# with the stub's own kernel threads. Set before numpy loads its BLAS; an explicit setting wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import aclnn_py  # noqa: E402


# ---- the layer's parameters and gating ---------------------------------------------------------------------

@dataclass
class Layer:
    router: np.ndarray  # (H, E)
    w1: np.ndarray      # (E, H, F)
    w2: np.ndarray      # (E, F, H)
    topk: int

    @property
    def experts(self) -> int:
        return self.router.shape[1]


def make_layer(hidden: int, ffn: int, experts: int, topk: int, rng) -> Layer:
    return Layer(router=(rng.standard_normal((hidden, experts)) / np.sqrt(hidden)).astype(np.float32),
                 w1=(rng.standard_normal((experts, hidden, ffn)) / np.sqrt(hidden)).astype(np.float32),
                 w2=(rng.standard_normal((experts, ffn, hidden)) / np.sqrt(ffn)).astype(np.float32),
                 topk=topk)


def gate(x: np.ndarray, layer: Layer):
    """Router logits, the top-K experts of every token (highest logit first) and their softmax weights."""
    logits = x @ layer.router
    idx = np.argsort(-logits, axis=1, kind="stable")[:, :layer.topk].astype(np.int32)
    top = np.take_along_axis(logits, idx, axis=1)
    e = np.exp(top - top.max(axis=1, keepdims=True))
    return logits, idx, (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def gate_backward(x: np.ndarray, layer: Layer, idx, weights, d_weights):
    """Through the softmax over the selected logits and the router matmul: (d_x, d_router)."""
    d_top = weights * (d_weights - np.sum(weights * d_weights, axis=1, keepdims=True))
    d_logits = np.zeros((x.shape[0], layer.experts), d_top.dtype)
    np.put_along_axis(d_logits, idx, d_top, axis=1)
    return d_logits @ layer.router.T, x.T @ d_logits


# ---- the experts on their contiguous blocks ----------------------------------------------------------------

def experts_forward(rows: np.ndarray, bounds: np.ndarray, layer: Layer):
    """FFN of expert e on rows[bounds[e]:bounds[e+1]]; keeps what the backward needs."""
    out = np.zeros_like(rows)
    saved = []
    for e in range(layer.experts):
        block = rows[bounds[e]:bounds[e + 1]]
        pre = block @ layer.w1[e]
        act = np.maximum(pre, 0)
        out[bounds[e]:bounds[e + 1]] = act @ layer.w2[e]
        saved.append((block, pre, act))
    return out, saved


def experts_backward(d_out: np.ndarray, bounds: np.ndarray, layer: Layer, saved):
    d_rows = np.zeros_like(d_out)
    d_w1, d_w2 = np.zeros_like(layer.w1), np.zeros_like(layer.w2)
    for e, (block, pre, act) in enumerate(saved):
        g = d_out[bounds[e]:bounds[e + 1]]
        d_w2[e] = act.T @ g
        d_pre = (g @ layer.w2[e].T) * (pre > 0)
        d_w1[e] = block.T @ d_pre
        d_rows[bounds[e]:bounds[e + 1]] = d_pre @ layer.w1[e].T
    return d_rows, d_w1, d_w2


# ---- dispatch variants -----------------------------------------------------------------------------------------

@dataclass
class Variant:
    """How the tokens reach the expert blocks and come back. ``dispatch(x, idx, weights, experts)`` returns
    (rows, bounds, state): the permuted rows, the block boundaries of the experts, and what the other three
    steps need. ``combine(expert_out, state)`` returns y; ``combine_grad(expert_out, d_y, state)`` returns
    (d_expert_out, d_weights); ``dispatch_grad(d_rows, state)`` returns d_x."""

    name: str
    dispatch: Callable
    combine: Callable
    combine_grad: Callable
    dispatch_grad: Callable
    tolerance: float  # largest accepted error, relative to the largest reference value


def _indices_dispatch(x, idx, weights, experts):
    rows, sorted_idx = aclnn_py.moe_token_permute(x, idx)  # stable sort by expert: one block per expert
    bounds = np.concatenate([[0], np.cumsum(np.bincount(idx.reshape(-1), minlength=experts))])
    return rows, bounds, {"sorted_idx": sorted_idx, "weights": weights, "topk": idx.shape[1]}


def _indices_combine(expert_out, s):
    return aclnn_py.moe_token_unpermute(expert_out, s["sorted_idx"], s["weights"])


def _indices_combine_grad(expert_out, d_y, s):
    return aclnn_py.moe_token_unpermute_grad(expert_out, d_y, s["sorted_idx"], s["weights"])


def _indices_dispatch_grad(d_rows, s):
    return aclnn_py.moe_token_permute_grad(d_rows, s["sorted_idx"], s["topk"])


def _routing_map_dispatch(x, idx, weights, experts):
    """MindSpeed's dispatch: a dense (T, E) routing map and probabilities; the rows come out expert-major."""
    t = x.shape[0]
    routing_map = np.zeros((t, experts), np.bool_)
    np.put_along_axis(routing_map, idx, True, axis=1)
    probs = np.zeros((t, experts), np.float32)
    np.put_along_axis(probs, idx, weights, axis=1)
    rows, _, sorted_idx = aclnn_py.moe_token_permute_with_routing_map(x, routing_map, None, idx.size, False)
    bounds = np.concatenate([[0], np.cumsum(routing_map.sum(axis=0))])
    return rows, bounds, {"sorted_idx": sorted_idx, "routing_map": routing_map, "probs": probs, "idx": idx}


def _routing_map_combine(expert_out, s):
    t, h = s["probs"].shape[0], expert_out.shape[1]
    return aclnn_py.moe_token_unpermute_with_routing_map(expert_out, s["sorted_idx"], s["routing_map"], s["probs"],
                                                         False, (t, h))[0]


def _routing_map_combine_grad(expert_out, d_y, s):
    # torch_npu's wiring: the forward's sortedIndices as both index inputs in non-pad mode
    d_rows, d_probs = aclnn_py.moe_token_unpermute_with_routing_map_grad(
        d_y, s["sorted_idx"], s["sorted_idx"], s["routing_map"], expert_out, s["probs"], False)
    return d_rows, np.take_along_axis(d_probs, s["idx"], axis=1)  # (T, E) -> the (T, K) routing weights


def _routing_map_dispatch_grad(d_rows, s):
    t, e = s["routing_map"].shape
    return aclnn_py.moe_token_permute_with_routing_map_grad(d_rows, None, s["sorted_idx"], s["routing_map"], e, t,
                                                            False)[0]


# The expert-parallel variant runs EP_RANKS ranks one after another in this process: each holds a contiguous
# range of experts (its window of sorted rows); the partial combines are summed as an all-reduce would.
EP_RANKS = 2


def _ep_ranges(bounds, experts: int, ranks: int):
    """Rank r holds experts [r*E/R, (r+1)*E/R): its window of sorted rows is their blocks."""
    cuts = [experts * r // ranks for r in range(ranks + 1)]
    return [(int(bounds[cuts[r]]), int(bounds[cuts[r + 1]])) for r in range(ranks)]


def _ep_dispatch(x, idx, weights, experts, ranks=EP_RANKS):
    """Each rank permutes the rows of its own experts (MoeTokenPermuteWithEp over its window); together
    the ranks' blocks are the whole permutation."""
    bounds = np.concatenate([[0], np.cumsum(np.bincount(idx.reshape(-1), minlength=experts))])
    windows = _ep_ranges(bounds, experts, ranks)
    parts = []
    for lo, hi in windows:
        rows, sorted_idx, _ = aclnn_py.moe_token_permute_with_ep(x, idx, None, [lo, hi], 0)
        parts.append(rows)
    state = {"sorted_idx": sorted_idx, "weights": weights, "topk": idx.shape[1], "windows": windows}
    return np.concatenate(parts), bounds, state


def _ep_combine(expert_out, s):
    """Each rank combines its window (MoeTokenUnpermuteWithEp); the partial outputs are summed, as an
    all-reduce across the ranks would."""
    return sum(aclnn_py.moe_token_unpermute_with_ep(expert_out[lo:hi], s["sorted_idx"], s["weights"], s["topk"],
                                                    [lo, hi]) for lo, hi in s["windows"])


def _ep_combine_grad(expert_out, d_y, s):
    d_rows, d_weights = [], 0
    for lo, hi in s["windows"]:
        d_r, d_w = aclnn_py.moe_token_unpermute_with_ep_grad(d_y, s["sorted_idx"], expert_out[lo:hi], s["weights"],
                                                             range=[lo, hi], topk_num=s["topk"])
        d_rows.append(d_r[:hi - lo])
        d_weights = d_weights + d_w  # the probs gradient of slots outside a window is zero
    return np.concatenate(d_rows), d_weights


def _ep_dispatch_grad(d_rows, s):
    return sum(aclnn_py.moe_token_permute_with_ep_grad(d_rows[lo:hi], s["sorted_idx"], None, s["topk"], [lo, hi])[0]
               for lo, hi in s["windows"])


def _init_routing_dispatch(x, idx, weights, experts):
    """MoeInitRoutingV3 (dropless, gather index, per-expert counts) as torch_npu's npu_moe_init_routing_v2 calls it."""
    rows, row_idx, counts, _ = aclnn_py.moe_init_routing_v3(x, idx, expert_num=experts, expert_tokens_num_type=1,
                                                            expert_tokens_num_flag=True)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    return rows, bounds, {"row_idx": row_idx, "weights": weights, "topk": idx.shape[1]}


def _init_routing_combine(expert_out, s):
    # dropPadMode 2: dropless, slots of a token adjacent (t * K + k), as MoeInitRoutingV3 numbers them
    return aclnn_py.moe_finalize_routing_v2(expert_out, s["row_idx"], scales=s["weights"], drop_pad_mode=2)


def _init_routing_combine_grad(expert_out, d_y, s):
    return aclnn_py.moe_finalize_routing_v2_grad(d_y, s["row_idx"], expanded_x=expert_out, scales=s["weights"])


def _init_routing_dispatch_grad(d_rows, s):
    return aclnn_py.moe_init_routing_v2_grad(d_rows, s["row_idx"], s["topk"])


VARIANTS: list[Variant] = [
    Variant("indices", _indices_dispatch, _indices_combine, _indices_combine_grad, _indices_dispatch_grad, 1e-4),
    Variant("routing_map", _routing_map_dispatch, _routing_map_combine, _routing_map_combine_grad,
            _routing_map_dispatch_grad, 1e-4),
    Variant("ep", _ep_dispatch, _ep_combine, _ep_combine_grad, _ep_dispatch_grad, 1e-4),
    Variant("init_routing", _init_routing_dispatch, _init_routing_combine, _init_routing_combine_grad,
            _init_routing_dispatch_grad, 1e-4),
]

PHASES = ("dispatch", "experts", "combine", "combine_grad", "experts_grad", "dispatch_grad")


def run_variant(v: Variant, x, d_y, layer: Layer):
    """Forward and backward of the layer through variant v: (results, seconds per phase)."""
    times = {}

    def timed(phase, fn, *args):
        t0 = time.perf_counter()
        r = fn(*args)
        times[phase] = time.perf_counter() - t0
        return r

    _, idx, weights = gate(x, layer)
    rows, bounds, state = timed("dispatch", v.dispatch, x, idx, weights, layer.experts)
    expert_out, saved = timed("experts", experts_forward, rows, bounds, layer)
    y = timed("combine", v.combine, expert_out, state)
    d_expert_out, d_weights = timed("combine_grad", v.combine_grad, expert_out, d_y, state)
    d_rows, d_w1, d_w2 = timed("experts_grad", experts_backward, d_expert_out, bounds, layer, saved)
    d_x = timed("dispatch_grad", v.dispatch_grad, d_rows, state)
    d_x_gate, d_router = gate_backward(x, layer, idx, weights, d_weights)
    return {"y": y, "d_x": d_x + d_x_gate, "d_router": d_router, "d_w1": d_w1, "d_w2": d_w2}, times


# ---- the reference: the whole layer in float64, densely -------------------------------------------------------

def reference(x, d_y, layer: Layer):
    x64 = x.astype(np.float64)
    router, w1, w2 = (a.astype(np.float64) for a in (layer.router, layer.w1, layer.w2))
    n, e_count = x.shape[0], layer.experts
    logits = x64 @ router
    idx = gate(x, layer)[1]  # the same experts (ties in float32 logits are not the point here)
    top = np.take_along_axis(logits, idx, axis=1)
    ex = np.exp(top - top.max(axis=1, keepdims=True))
    weights = ex / ex.sum(axis=1, keepdims=True)
    combine = np.zeros((n, e_count))  # combine[t, e]: the weight of expert e for token t (0 if not routed)
    np.put_along_axis(combine, idx, weights, axis=1)
    pre = np.einsum("nh,ehf->enf", x64, w1)
    act = np.maximum(pre, 0)
    outs = np.einsum("enf,efh->enh", act, w2)  # every expert on every token
    y = np.einsum("ne,enh->nh", combine, outs)
    d_combine = np.einsum("nh,enh->ne", d_y.astype(np.float64), outs)
    d_outs = np.einsum("ne,nh->enh", combine, d_y.astype(np.float64))
    d_w2 = np.einsum("enf,enh->efh", act, d_outs)
    d_pre = np.einsum("enh,efh->enf", d_outs, w2) * (pre > 0)
    d_w1 = np.einsum("nh,enf->ehf", x64, d_pre)
    d_x = np.einsum("enf,ehf->nh", d_pre, w1)
    d_sel = np.take_along_axis(d_combine, idx, axis=1)
    d_top = weights * (d_sel - np.sum(weights * d_sel, axis=1, keepdims=True))
    d_logits = np.zeros((n, e_count))
    np.put_along_axis(d_logits, idx, d_top, axis=1)
    return {"y": y, "d_x": d_x + d_logits @ router.T, "d_router": x64.T @ d_logits, "d_w1": d_w1, "d_w2": d_w2}


def max_error(got: dict, expected: dict) -> tuple[float, str]:
    """The largest error over every output, relative to that output's largest reference value."""
    worst = (0.0, "")
    for name, ref in expected.items():
        scale = max(float(np.max(np.abs(ref), initial=0.0)), 1e-30)
        err = float(np.max(np.abs(got[name].astype(np.float64) - ref), initial=0.0)) / scale
        worst = max(worst, (err, name))
    return worst


# ---- a decoder layer: attention with RoPE and a paged KV cache, then the MoE FFN ---------------------------------

def run_op(name: str, outputs: dict, **kw):
    """aclnn_py.run with every parameter not given passed as None (the unused optional operands); outputs by name."""
    for param in aclnn_py.aclnn.describe(name + "GetWorkspaceSize"):
        if param["role"] not in ("workspace size", "executor") and param["name"] not in kw \
                and param["name"] not in outputs:
            kw[param["name"]] = None
    aclnn_py.run(name, **kw, **outputs)
    return tuple(outputs.values())


@dataclass
class Decoder:
    g1: np.ndarray      # (H,) RMS-norm weights before attention
    g2: np.ndarray      # (H,) before the MoE
    wq: np.ndarray      # (H, N*D)
    wk: np.ndarray      # (H, NKV*D)
    wv: np.ndarray      # (H, NKV*D)
    wo: np.ndarray      # (N*D, H)
    router: np.ndarray  # (H, E)
    w13: np.ndarray     # (E, H, 2F): gate and up projections
    w2: np.ndarray      # (E, F, H)
    heads: int
    kv_heads: int
    topk: int
    rope: np.ndarray    # (max positions, D): cos | sin halves, the cache RopeWithSinCosCache reads

    @property
    def head_dim(self) -> int:
        return self.wq.shape[1] // self.heads


EPS = 1e-6


def make_decoder(hidden, ffn, experts, topk, heads, kv_heads, max_pos, rng) -> Decoder:
    d = hidden // heads
    f = lambda *shape, fan: (rng.standard_normal(shape) / np.sqrt(fan)).astype(np.float32)  # noqa: E731
    inv = 1.0 / (10000.0 ** (np.arange(0, d, 2) / d))
    ang = np.arange(max_pos)[:, None] * inv[None, :]
    rope = np.concatenate([np.cos(ang), np.sin(ang)], axis=1).astype(np.float32)
    return Decoder(g1=(1 + 0.1 * rng.standard_normal(hidden)).astype(np.float32),
                   g2=(1 + 0.1 * rng.standard_normal(hidden)).astype(np.float32),
                   wq=f(hidden, heads * d, fan=hidden), wk=f(hidden, kv_heads * d, fan=hidden),
                   wv=f(hidden, kv_heads * d, fan=hidden), wo=f(heads * d, hidden, fan=hidden),
                   router=f(hidden, experts, fan=hidden), w13=f(experts, hidden, 2 * ffn, fan=hidden),
                   w2=f(experts, ffn, hidden, fan=ffn), heads=heads, kv_heads=kv_heads, topk=topk, rope=rope)


class PagedCache:
    """Key and value caches of (blocks, block size, NKV, D) float16 rows and a shuffled block table."""

    def __init__(self, batch, max_len, block, kv_heads, d, rng):
        per = -(-max_len // block)
        self.block = block
        self.table = rng.permutation(batch * per + 1)[: batch * per].reshape(batch, per).astype(np.int32)
        self.k = np.zeros((batch * per + 1, block, kv_heads, d), np.float16)
        self.v = np.zeros_like(self.k)
        self.lens = np.zeros(batch, np.int64)

    def slots(self, b, positions):
        return self.table[b, positions // self.block] * self.block + positions % self.block


def decoder_step(dec: Decoder, cache: PagedCache, x: np.ndarray, prompt: bool, times: dict):
    """One step for every sequence: x (B, S, H) float32 at positions cache.lens ... + S; returns (B, S, H)."""
    b, s, h = x.shape
    n, nkv, d = dec.heads, dec.kv_heads, dec.head_dim
    t0 = time.perf_counter()
    flat = x.reshape(b * s, h)
    hn, _ = run_op("aclnnRmsNorm", {"yOut": np.zeros_like(flat), "rstdOut": np.zeros((b * s, 1), np.float32)},
                   x=flat, gamma=dec.g1, epsilon=EPS)
    q, k, v = hn @ dec.wq, hn @ dec.wk, hn @ dec.wv
    pos = (cache.lens[:, None] + np.arange(s)[None, :]).reshape(-1)
    q, k = run_op("aclnnRopeWithSinCosCache", {"queryOut": np.zeros_like(q), "keyOut": np.zeros_like(k)},
                  positions=pos.astype(np.int64), queryIn=q, keyIn=k, cosSinCache=dec.rope, headSize=d,
                  isNeoxStyle=True)
    slots = np.concatenate([cache.slots(i, pos[i * s:(i + 1) * s]) for i in range(b)]).astype(np.int32)
    run_op("aclnnScatterPaKvCache", {"keyCacheRef": cache.k, "valueCacheRef": cache.v},
           key=k.reshape(-1, nkv, d).astype(np.float16), slotMapping=slots,
           value=v.reshape(-1, nkv, d).astype(np.float16), cacheModeOptional="Norm")
    cache.lens += s
    kv_shape = (cache.k.shape[0], cache.block, nkv * d)
    attn = np.zeros((b, s, n * d), np.float16)
    causal = dict(attenMask=np.triu(np.ones((2048, 2048), np.bool_), 1), sparseMode=3) if prompt else {}
    run_op("aclnnFusedInferAttentionScore", {"attentionOut": attn},
           query=q.reshape(b, s, n * d).astype(np.float16), key=[cache.k.reshape(kv_shape)],
           value=[cache.v.reshape(kv_shape)], actualSeqLengths=[s] * b, actualSeqLengthsKv=cache.lens.tolist(),
           blockTable=cache.table, numHeads=n, scaleValue=1.0 / np.sqrt(d), preTokens=2147483647,
           nextTokens=2147483647, inputLayout="BSH", numKeyValueHeads=nkv, innerPrecise=0,
           blockSize=cache.block, antiquantMode=0, softmaxLseFlag=False, softmaxLse=None,
           **{"sparseMode": 0, **causal})
    o = attn.reshape(b * s, n * d).astype(np.float32) @ dec.wo
    t1 = time.perf_counter()
    h2, _, x2 = run_op("aclnnAddRmsNorm", {"yOut": np.zeros_like(flat), "rstdOut": np.zeros((b * s, 1), np.float32),
                                           "xOut": np.zeros_like(flat)}, x1=flat, x2=o, gamma=dec.g2, epsilon=EPS)
    logits = h2 @ dec.router
    e = dec.router.shape[1]
    weights, idx = run_op("aclnnMoeGatingTopKSoftmaxV2", {"yOut": np.zeros((b * s, dec.topk), np.float32),
                                                          "expertIdxOut": np.zeros((b * s, dec.topk), np.int32)},
                          x=logits, k=dec.topk, renorm=1, outputSoftmaxResultFlag=False)
    rows, row_idx, counts, _ = aclnn_py.moe_init_routing_v3(h2, idx, expert_num=e, expert_tokens_num_type=1,
                                                            expert_tokens_num_flag=True)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    ffn = dec.w2.shape[1]
    out = np.zeros_like(rows)
    for j in range(e):  # the grouped expert GEMMs, one block per expert, with SwiGLU between them
        gu = rows[bounds[j]:bounds[j + 1]] @ dec.w13[j]
        a, g = gu[:, :ffn], gu[:, ffn:]
        out[bounds[j]:bounds[j + 1]] = (a / (1 + np.exp(-a)) * g) @ dec.w2[j]
    y = aclnn_py.moe_finalize_routing_v2(out, row_idx, x1=x2, scales=weights, drop_pad_mode=2)
    t2 = time.perf_counter()
    times["attention"] = times.get("attention", 0.0) + t1 - t0
    times["moe"] = times.get("moe", 0.0) + t2 - t1
    return y.reshape(b, s, h)


def decoder_reference(dec: Decoder, xs: np.ndarray) -> np.ndarray:
    """The layer in float64 on whole sequences xs (B, L, H): dense causal attention, dense MoE."""
    b, length, h = xs.shape
    n, nkv, d = dec.heads, dec.kv_heads, dec.head_dim
    f64 = lambda a: a.astype(np.float64)  # noqa: E731
    x = f64(xs)

    def rms(v, g):
        return v / np.sqrt(np.mean(v * v, axis=-1, keepdims=True) + EPS) * f64(g)

    def rope(t, heads):
        t = t.reshape(b, length, heads, d)
        cs = f64(dec.rope[:length])
        cos, sin = cs[:, : d // 2][None, :, None, :], cs[:, d // 2:][None, :, None, :]
        t1, t2 = t[..., : d // 2], t[..., d // 2:]
        return np.concatenate([t1 * cos - t2 * sin, t2 * cos + t1 * sin], -1)

    hn = rms(x, dec.g1)
    q, k, v = rope(hn @ f64(dec.wq), n), rope(hn @ f64(dec.wk), nkv), (hn @ f64(dec.wv)).reshape(b, length, nkv, d)
    rep = n // nkv
    k, v = np.repeat(k, rep, axis=2), np.repeat(v, rep, axis=2)
    sc = np.einsum("bind,bjnd->bnij", q, k) / np.sqrt(d)
    sc = np.where(np.triu(np.ones((length, length), bool), 1), -np.inf, sc)
    p = np.exp(sc - sc.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    attn = np.einsum("bnij,bjnd->bind", p, v).reshape(b, length, n * d)
    x2 = x + attn @ f64(dec.wo)
    h2 = rms(x2, dec.g2)
    logits = h2 @ f64(dec.router)
    idx = np.argsort(-logits, axis=-1, kind="stable")[..., : dec.topk]
    top = np.take_along_axis(logits, idx, axis=-1)
    w = np.exp(top - top.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    ffn = dec.w2.shape[1]
    y = x2.copy()
    for j in range(dec.router.shape[1]):
        gu = h2 @ f64(dec.w13[j])
        a, g = gu[..., :ffn], gu[..., ffn:]
        out = (a / (1 + np.exp(-a)) * g) @ f64(dec.w2[j])
        y += np.sum(np.where(idx == j, w, 0.0), axis=-1, keepdims=True) * out
    return y


def run_decoder(args, rng) -> bool:
    """Prefill a batch of prompts, decode --decode-steps tokens each; check every step, print the table."""
    # the most query heads up to --heads with an even head dimension (RoPE rotates pairs), and KV heads dividing them
    args.heads = next(h for h in range(args.heads, 0, -1) if args.hidden % h == 0 and (args.hidden // h) % 2 == 0)
    args.kv_heads = math.gcd(args.kv_heads, args.heads)
    dec = make_decoder(args.hidden, args.ffn, args.experts, args.topk, args.heads, args.kv_heads,
                       args.prompt + args.decode_steps, rng)
    length = args.prompt + args.decode_steps
    xs = rng.standard_normal((args.batch, length, args.hidden)).astype(np.float32)
    expected = decoder_reference(dec, xs)
    cache = PagedCache(args.batch, length, args.block_size, args.kv_heads, dec.head_dim, rng)
    scale = float(np.max(np.abs(expected)))
    rows = []
    times = {}
    t0 = time.perf_counter()
    y = decoder_step(dec, cache, xs[:, : args.prompt], True, times)
    rows.append(("prefill", args.batch * args.prompt, time.perf_counter() - t0,
                 float(np.max(np.abs(y - expected[:, : args.prompt]))) / scale, dict(times)))
    times.clear()
    t0 = time.perf_counter()
    err = 0.0
    for step in range(args.decode_steps):
        i = args.prompt + step
        y = decoder_step(dec, cache, xs[:, i:i + 1], False, times)
        err = max(err, float(np.max(np.abs(y - expected[:, i:i + 1]))) / scale)
    rows.append(("decode", args.batch * args.decode_steps, time.perf_counter() - t0, err, dict(times)))
    d = dec.head_dim
    print(f"\ndecoder layer: batch {args.batch}, prompt {args.prompt}, {args.decode_steps} decode steps, hidden "
          f"{args.hidden}, {args.heads} heads ({args.kv_heads} KV heads, D={d}), paged cache of {args.block_size}-row "
          f"blocks, {args.experts} experts (top-{args.topk}, SwiGLU {args.ffn}); float16 attention operands")
    print(f"{'phase':<8} {'tokens':>6} {'max error':>10} {'tolerance':>9} {'ms/token':>9} {'attention':>10} {'moe':>8}")
    ok = True
    tol = args.decoder_tolerance
    for name, tokens, secs, e, ph in rows:
        good = e <= tol
        ok = ok and good
        per = 1e3 / max(tokens, 1)
        print(f"{name:<8} {tokens:>6} {e:>10.2e} {tol:>9.0e} {secs * per:>9.3f} {ph.get('attention', 0) * per:>10.3f}"
              f" {ph.get('moe', 0) * per:>8.3f}" + ("" if good else "  FAIL"))
    return ok


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokens", type=int, default=256)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--ffn", type=int, default=128)
    p.add_argument("--experts", type=int, default=8)
    p.add_argument("--topk", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tolerance", type=float, default=None, help="override every variant's tolerance")
    p.add_argument("--no-decoder", action="store_true", help="skip the decoder layer")
    p.add_argument("--batch", type=int, default=4, help="decoder: sequences")
    p.add_argument("--prompt", type=int, default=48, help="decoder: prompt length (prefill)")
    p.add_argument("--decode-steps", type=int, default=16, help="decoder: tokens generated one at a time")
    p.add_argument("--heads", type=int, default=4, help="decoder: query heads (hidden = heads * head dim)")
    p.add_argument("--kv-heads", type=int, default=2, help="decoder: key/value heads")
    p.add_argument("--block-size", type=int, default=16, help="decoder: rows per KV-cache block")
    p.add_argument("--decoder-tolerance", type=float, default=5e-3,
                   help="decoder: largest error relative to the largest reference value (float16 attention)")
    args = p.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    layer = make_layer(args.hidden, args.ffn, args.experts, args.topk, rng)
    x = rng.standard_normal((args.tokens, args.hidden)).astype(np.float32)
    d_y = rng.standard_normal((args.tokens, args.hidden)).astype(np.float32)
    expected = reference(x, d_y, layer)

    print(f"MoE layer: {args.tokens} tokens, hidden {args.hidden}, FFN {args.ffn}, {args.experts} experts, "
          f"top-{args.topk}, float32")
    print(f"{'variant':<12} {'max error':>10} {'in':<8} {'tolerance':>9}  " + "  ".join(f"{ph:>13}" for ph in PHASES))
    failed = []
    for v in VARIANTS:
        run_variant(v, x, d_y, layer)  # warm-up: library loading and first-call planning are not timed
        got, times = run_variant(v, x, d_y, layer)
        err, where = max_error(got, expected)
        tol = v.tolerance if args.tolerance is None else args.tolerance
        ok = err <= tol
        print(f"{v.name:<12} {err:>10.2e} {where:<8} {tol:>9.0e}  "
              + "  ".join(f"{times[ph] * 1e3:>10.2f} ms" for ph in PHASES) + ("" if ok else "  FAIL"))
        if not ok:
            failed.append(v.name)
    if not args.no_decoder and not run_decoder(args, rng):
        failed.append("decoder")
    if failed:
        print(f"error above tolerance: {', '.join(failed)}")
        return 1
    print(f"all {len(VARIANTS)} variants" + ("" if args.no_decoder else " and the decoder layer") +
          " within tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
