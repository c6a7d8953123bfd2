"""ops-nn synchronised batch norm: BatchNormElemt, BatchNormReduce, SyncBatchNormGatherStats,
BatchNormGatherStatsWithCounts, BatchNormReduceBackward, BatchNormElemtBackward. The oracle is the formula of torch's
batch_norm_* functions of the same names (CUDA-only in torch, so written out here) in float64 from the widened
inputs, each result rounded once to its output's dtype."""

from __future__ import annotations

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype
from .nn_norm import f64, out, rnd

TOL = {"float32": (3e-5, 3e-5), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
RTOL = {"float32": (1e-4, 1e-4), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
# input shapes (channel dimension 1): 2-D, 4-D, one long channel over the thread threshold
SHAPES = [(4, 3), (2, 5, 3, 4), (2, 3, 40000)]


def to_t(a):
    """counts travels among the attributes (after them in C order): as a tensor for the formula"""
    if isinstance(a, np.ndarray) and a.dtype == np_dtype("bfloat16"):
        return torch.from_numpy(a.astype(np.float32))
    return torch.from_numpy(a) if isinstance(a, np.ndarray) else a


def per_channel(t, x):
    return t.reshape((1, -1) + (1,) * (x.ndim - 2))


def sums(t):
    return t.sum([d for d in range(t.ndim) if d != 1])


def samples_elemt(dtype, rng):
    res = []
    for i, xs in enumerate(SHAPES):
        c = xs[1]
        res.append(Sample((), (), f"{xs}", {
            "input": rnd(rng, xs, dtype), "weight": rnd(rng, (c,), dtype) if i != 1 else None,
            "bias": rnd(rng, (c,), dtype) if i != 1 else None, "mean": rnd(rng, (c,), dtype),
            "invstd": rnd(rng, (c,), dtype, 0.5, 2.0), "eps": 1e-5, "_dtype": dtype}))
    return res


def ref_elemt(input, weight, bias, mean, invstd, eps, _dtype, **_):
    x = f64(input)
    w = per_channel(f64(weight), x) if weight is not None else 1.0
    b = per_channel(f64(bias), x) if bias is not None else 0.0
    return (out((x - per_channel(f64(mean), x)) * per_channel(f64(invstd), x) * w + b, _dtype),)


def samples_reduce(dtype, rng):
    return [Sample((rnd(rng, xs, dtype),), (), f"{xs}") for xs in ((2, 5, 3, 4), (3, 2, 100, 200))]


def ref_reduce(x):
    v = f64(x)
    return sums(v).float().numpy(), sums(v * v).float().numpy()


def samples_gather(dtype, rng):
    res = []
    for n, c, cnt in ((2, 3, dtype), (4, 5, "int32")):
        counts = rng.integers(2, 50, (n,))
        mean = rnd(rng, (n, c), "float32")
        var = rnd(rng, (n, c), "float32", 0.5, 2.0)
        res.append(Sample(((mean * counts[:, None]).astype(dtype), ((var + mean * mean) * counts[:, None]).astype(dtype),
                           counts.astype(cnt), rnd(rng, (c,), dtype), rnd(rng, (c,), dtype, 0.5, 2.0)), (0.1, 1e-5),
                          f"{n} ranks, counts {cnt}"))
    return res


def call_with(name, params, outputs, inplace=(), nchw=()):
    """A custom call: the sample's operands and attributes named by `params`, `inplace` ones copied (the operator
    updates them), `nchw` ones as NCHW device tensors, one zeroed output per name shaped like the oracle's; the
    results in the oracle's order (the updated in-place tensors first)."""
    def call(sample, expected):
        import aclnn_py
        kw = dict(zip(params, sample.operands + sample.attrs))
        for k in inplace:
            if kw[k] is not None:
                kw[k] = kw[k].copy()
        for k in nchw:
            t = aclnn_py.Tensor.from_numpy(kw[k])
            kw[k] = aclnn_py.Tensor(t.shape, t.dtype, strides=t.strides, offset=t.offset, buffer=t.buffer, format=0)
        exp = list(expected)
        outs = {n: np.zeros_like(e) for n, e in zip(outputs, exp[len([k for k in inplace if kw[k] is not None]):])}
        aclnn_py.run(name, **kw, **outs)
        return tuple([kw[k] for k in inplace if kw[k] is not None] + [outs[n] for n in outputs])
    return call


def ref_gather(totalSum, totalSquareSum, sampleCount, mean, variance, momentum, eps):
    _dtype = str(totalSum.dtype).replace("torch.", "")
    n = f64(sampleCount).sum()
    bm = f64(totalSum).sum(0) / n
    bv = f64(totalSquareSum).sum(0) / n - bm * bm
    m = 0.1
    return (out(f64(mean) * (1 - m) + m * bm, _dtype), out(f64(variance) * (1 - m) + m * bv * n / (n - 1), _dtype),
            out(bm, _dtype), out(1 / torch.sqrt(bv + 1e-5), _dtype))


def samples_gather_counts(dtype, rng):
    res = []
    for n, c, running in ((2, 3, True), (4, 6, False)):
        counts = np.round(rng.uniform(2, 50, (n,))).astype(np.float32).astype(np_dtype(dtype))
        res.append(Sample((rnd(rng, (5, c, 2), dtype), rnd(rng, (n, c), dtype), rnd(rng, (n, c), dtype, 0.5, 2.0),
                           rnd(rng, (c,), dtype) if running else None,
                           rnd(rng, (c,), dtype, 0.5, 2.0) if running else None), (0.1, 1e-5, counts),
                          f"{n} ranks running {running}"))
    return res


def ref_gather_counts(input, mean, invstd, runningMean, runningVar, momentum, eps, counts):
    _dtype = str(input.dtype).replace("torch.", "")
    cn = f64(to_t(counts))[:, None]
    n = cn.sum()
    m_all = (cn * f64(mean)).sum(0) / n
    var = (cn * (1 / f64(invstd) ** 2 - 1e-5 + (f64(mean) - m_all) ** 2)).sum(0) / n
    res = [out(m_all, _dtype), out(1 / torch.sqrt(var + 1e-5), _dtype)]
    if runningMean is not None:
        res = [out(f64(runningMean) * 0.9 + 0.1 * m_all, _dtype),
               out(f64(runningVar) * 0.9 + 0.1 * var * n / (n - 1), _dtype)] + res
    return tuple(res)


def samples_reduce_bwd(dtype, rng):
    res = []
    for i, xs in enumerate(SHAPES):
        c = xs[1]
        res.append(Sample((), (), f"{xs}", {
            "gradOut": rnd(rng, xs, dtype), "input": rnd(rng, xs, dtype), "mean": rnd(rng, (c,), dtype),
            "invstd": rnd(rng, (c,), dtype, 0.5, 2.0), "weight": rnd(rng, (c,), dtype),
            "inputG": True, "weightG": True, "biasG": True, "_dtype": dtype}))
    return res


def ref_reduce_bwd(gradOut, input, mean, invstd, weight, inputG, weightG, biasG, _dtype, **_):
    dy, x = f64(gradOut), f64(input)
    sdy = sums(dy)
    sdx = sums(dy * (x - per_channel(f64(mean), x)))
    return out(sdy, _dtype), out(sdx, _dtype), out(sdx * f64(invstd), _dtype), out(sdy, _dtype)


def samples_elemt_bwd(dtype, rng):
    res = []
    for i, xs in enumerate(SHAPES):
        c = xs[1]
        res.append(Sample((), (), f"{xs}", {
            "gradOut": rnd(rng, xs, dtype), "input": rnd(rng, xs, dtype), "mean": rnd(rng, (c,), dtype),
            "invstd": rnd(rng, (c,), dtype, 0.5, 2.0), "weight": rnd(rng, (c,), dtype) if i != 1 else None,
            "sumDy": rnd(rng, (c,), dtype, -20, 20), "sumDyXmu": rnd(rng, (c,), dtype, -20, 20),
            "counter": rng.integers(2, 50, (3,)).astype(np.int32), "_dtype": dtype}))
    return res


def ref_elemt_bwd(gradOut, input, mean, invstd, weight, sumDy, sumDyXmu, counter, _dtype, **_):
    dy, x = f64(gradOut), f64(input)
    n = f64(counter).sum()
    inv = per_channel(f64(invstd), x)
    w = per_channel(f64(weight), x) if weight is not None else 1.0
    dx = (dy - per_channel(f64(sumDy), x) / n - (x - per_channel(f64(mean), x)) * inv * inv
          * per_channel(f64(sumDyXmu), x) / n) * inv * w
    return (out(dx, _dtype),)


ENTRIES = [
    OpInfo("aclnnBatchNormElemt", ref_elemt, FLOATS, kind="custom", samples=samples_elemt, tol=TOL,
           named_outputs=("output",)),
    OpInfo("aclnnBatchNormReduce", ref_reduce, FLOATS, kind="custom", samples=samples_reduce, tol=RTOL,
           native16=True, call=call_with("aclnnBatchNormReduce", ("x",), ("sum", "squareSum"), nchw=("x",))),
    OpInfo("aclnnSyncBatchNormGatherStats", ref_gather, ("float32", "float16"), kind="custom",
           samples=samples_gather, tol=RTOL, native16=True,
           call=call_with("aclnnSyncBatchNormGatherStats", ("totalSum", "totalSquareSum", "sampleCount", "mean",
                                                            "variance", "momentum", "eps"),
                          ("batchMean", "batchInvstd"), ("mean", "variance"))),
    OpInfo("aclnnBatchNormGatherStatsWithCounts", ref_gather_counts, FLOATS, kind="custom",
           samples=samples_gather_counts, tol=RTOL, native16=True,
           call=call_with("aclnnBatchNormGatherStatsWithCounts", ("input", "mean", "invstd", "runningMean",
                                                                  "runningVar", "momentum", "eps", "counts"),
                          ("meanAll", "invstdAll"), ("runningMean", "runningVar"))),
    OpInfo("aclnnBatchNormReduceBackward", ref_reduce_bwd, FLOATS, kind="custom", samples=samples_reduce_bwd,
           tol=RTOL, named_outputs=("sumDy", "sumDyXmu", "gradWeight", "gradBias")),
    OpInfo("aclnnBatchNormElemtBackward", ref_elemt_bwd, FLOATS, kind="custom", samples=samples_elemt_bwd,
           tol=RTOL, named_outputs=("gradInput",)),
]
