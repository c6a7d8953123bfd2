"""ops-transformer FFN, FFNV2, FFNV3 (the non-quantised modes).

The oracle: per expert (consecutive rows, counts or cumulative ends), h = act(x @ W1 + b1) in float32 (16-bit
operands widened exactly; gelu with the tanh approximation; the GLU forms activate the first half and multiply by
the second), rounded to x's dtype, y = h @ W2 + b2 in float32 rounded to y's dtype.
"""

import numpy as np
import torch

from . import OpInfo, Sample, np_dtype

F = torch.nn.functional
ACT = {"relu": torch.relu, "silu": F.silu, "gelu": lambda v: F.gelu(v, approximate="tanh"),
       "fastgelu": lambda v: v / (1 + torch.exp(-1.702 * v.abs())) * torch.exp(0.851 * (v - v.abs()))}
GLU = {"swiglu": F.silu, "reglu": torch.relu, "geglu": lambda v: F.gelu(v, approximate="tanh")}


def arr(rng, shape, dtype, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(np_dtype(dtype))


def tt(a):
    if a is None or isinstance(a, torch.Tensor):
        return a
    a = np.ascontiguousarray(a)
    if a.dtype == np_dtype("bfloat16"):
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def ffn_ref(x, w1, w2, tokens, b1, b2, act, flag=False):
    x, w1, w2, b1, b2 = tt(x), tt(w1), tt(w2), tt(b1), tt(b2)
    dt = x.dtype
    rows = x.reshape(-1, x.shape[-1]).float()
    if tokens is None:
        counts, experts = [rows.shape[0]], False
    else:
        t = [int(v) for v in (tokens.tolist() if isinstance(tokens, torch.Tensor) else tokens)]
        counts, experts = (list(np.diff([0] + t)) if flag else t), True
    out = torch.zeros(rows.shape[0], w2.shape[-1])
    start = 0
    for g, m in enumerate(counts):
        xg = rows[start:start + m]
        wa, wb = (w1[g], w2[g]) if experts else (w1, w2)
        h = xg @ wa.float()
        if b1 is not None:
            h = h + (b1[g] if experts else b1).float()
        if act in GLU:
            n = h.shape[1] // 2
            h = GLU[act](h[:, :n]) * h[:, n:]
        else:
            h = ACT[act](h)
        h = h.to(dt).float()
        yg = h @ wb.float()
        if b2 is not None:
            yg = yg + (b2[g] if experts else b2).float()
        out[start:start + m] = yg
        start += m
    return out.to(dt).reshape(*x.shape[:-1], w2.shape[-1])


def ffn_samples(version):
    def samples(dtype, rng):
        out = []
        k, n = 16, 24
        bias_dt = "float32" if dtype == "bfloat16" else dtype
        prec = 0 if dtype == "bfloat16" else 1
        x = arr(rng, (2, 5, k), dtype)
        w1, w2 = arr(rng, (k, n), dtype), arr(rng, (n, k), dtype)
        b1, b2 = arr(rng, (n,), bias_dt), arr(rng, (k,), bias_dt)
        acts = ("relu", "gelu") if dtype == "bfloat16" else ("relu", "fastgelu")
        for act in acts:
            out.append(((x, w1, w2, None, b1, b2, act, prec, False), f"no experts, {act}"))
        counts = [3, 0, 7]
        w1e, w2e = arr(rng, (3, k, n), dtype), arr(rng, (3, n, k), dtype)
        b1e, b2e = arr(rng, (3, n), bias_dt), arr(rng, (3, k), bias_dt)
        out.append(((x, w1e, w2e, counts, b1e, None, "silu", 0, False), "experts, silu, high precision"))
        if version > 1:
            out.append(((x, w1e, w2e, list(np.cumsum(counts)), None, b2e, "gelu", prec, True),
                        "experts, cumulative ends"))
        if dtype == "float16":
            wg1, wg2 = arr(rng, (k, 2 * n), dtype), arr(rng, (n, k), dtype)
            for act in ("swiglu", "reglu", "geglu"):
                out.append(((x, wg1, wg2, None, arr(rng, (2 * n,), dtype), None, act, 1, False), f"glu {act}"))
        return [Sample(ops, (), name) for ops, name in out]
    return samples


def ffn_call(name, version):
    def call(sample, expected):
        import aclnn_py

        x, w1, w2, tokens, b1, b2, act, prec, flag = sample.operands
        y = np.zeros(expected.shape, x.dtype)
        if version == 3 and tokens is not None:
            tokens = np.array(tokens, np.int64)
        tail = (act, prec) + ((flag,) if version > 1 else ())
        aclnn_py.run(name, x, w1, w2, tokens, b1, b2, None, None, None, None, None, None, None, None, *tail, y,
                     outputs=("y",))
        return y
    return call


def ref_of(x, w1, w2, tokens, b1, b2, act, prec, flag):
    return ffn_ref(x, w1, w2, tokens, b1, b2, act, flag)


TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
ENTRIES = [OpInfo(name, ref_of, ("float16", "bfloat16"), kind="custom", samples=ffn_samples(v),
                  call=ffn_call(name, v), native16=True, tol=TOL)
           for name, v in (("aclnnFFN", 1), ("aclnnFFNV2", 2), ("aclnnFFNV3", 3))]
