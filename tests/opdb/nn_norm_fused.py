"""ops-nn fused layer norms: AddLayerNorm, AddLayerNormGrad, DeepNorm, DeepNormGrad, AdaLayerNorm, AdaLayerNormV2.
The oracle is the documented formula in torch, in float64 from the widened inputs (the layer norm of
v = alpha * x1 + x2 + bias, then AdaLayerNorm's y * (1 + scale) + shift; the gradients by the textbook formula, which
autograd gives too); each result is rounded once to its output's dtype."""

from __future__ import annotations

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype
from .nn_norm import f64, out, rnd

TOL = {"float32": (3e-5, 3e-5), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
GTOL = {"float32": (1e-4, 1e-4), "float16": (4e-3, 4e-3), "bfloat16": (2e-2, 2e-2)}
EPS = 1e-5
# (x shape, gamma shape): one normalised dimension, two, a long row over the thread threshold, a single row
SHAPES = [((3, 5, 16), (16,)), ((4, 3, 8), (3, 8)), ((70, 1000), (1000,)), ((1, 7), (7,))]


def layer_norm(v, g, b, k, eps):
    dims = tuple(range(v.ndim - k, v.ndim))
    mean = v.mean(dims, keepdim=True)
    rstd = torch.rsqrt(((v - mean) ** 2).mean(dims, keepdim=True) + eps)
    return (v - mean) * rstd * g + b, mean, rstd


def stats(v, k, eps):
    _, mean, rstd = layer_norm(v, 1.0, 0.0, k, eps)
    return mean.float().numpy(), rstd.float().numpy()


def ln_grad(dy, v, mean, rstd, g, k):
    """dv, dgamma, dbeta of the layer norm over the last k dimensions (mean and rstd given)."""
    dims = tuple(range(v.ndim - k, v.ndim))
    n = float(np.prod([v.shape[d] for d in dims]))
    xhat = (v - mean) * rstd
    gg = dy * g
    dv = rstd * (gg - gg.sum(dims, keepdim=True) / n - xhat * (gg * xhat).sum(dims, keepdim=True) / n)
    lead = tuple(range(v.ndim - k))
    return dv, (dy * xhat).sum(lead).float().numpy(), dy.sum(lead).float().numpy()


# ---- AddLayerNorm ----------------------------------------------------------------------------------------------------

def samples_add(dtype, rng):
    res = []
    for i, (xs, gs) in enumerate(SHAPES):
        for gd in ((dtype, "float32") if dtype != "float32" else (dtype,)):
            bias = (None, gs, xs)[i % 3]
            res.append(Sample((), (), f"{xs} gamma {gd} bias {bias}", {
                "x1": rnd(rng, xs, dtype), "x2": rnd(rng, xs, dtype), "gamma": rnd(rng, gs, gd),
                "beta": rnd(rng, gs, gd), "biasOptional": None if bias is None else rnd(rng, bias, dtype),
                "epsilon": EPS, "additionalOutput": True, "_dtype": dtype}))
    return res


def ref_add(x1, x2, gamma, beta, biasOptional, epsilon, additionalOutput, _dtype, **_):
    v = x1.float() + x2.float()
    if biasOptional is not None:
        v = v + biasOptional.float()
    v = v.double()
    y, mean, rstd = layer_norm(v, f64(gamma), f64(beta), gamma.ndim, epsilon)
    return out(y, _dtype), mean.float().numpy(), rstd.float().numpy(), out(v, _dtype)


def samples_add_grad(dtype, rng):
    res = []
    for i, (xs, gs) in enumerate(SHAPES):
        x1, x2 = rnd(rng, xs, dtype), rnd(rng, xs, dtype)
        v = torch.from_numpy(x1.astype(np.float32)).double() + torch.from_numpy(x2.astype(np.float32)).double()
        mean, rstd = stats(v, len(gs), EPS)
        res.append(Sample((), (), f"{xs} dsum {i % 2 == 0}", {
            "dy": rnd(rng, xs, dtype), "x1": x1, "x2": x2, "rstd": rstd, "mean": mean, "gamma": rnd(rng, gs, dtype),
            "dsumOptional": rnd(rng, xs, dtype) if i % 2 == 0 else None, "_dtype": dtype}))
    return res


def ref_add_grad(dy, x1, x2, rstd, mean, gamma, dsumOptional, _dtype, **_):
    v = x1.double() + x2.double()
    dv, dg, db = ln_grad(f64(dy), v, f64(mean), f64(rstd), f64(gamma), gamma.ndim)
    if dsumOptional is not None:
        dv = dv + f64(dsumOptional)
    return out(dv, _dtype), dg, db


# ---- DeepNorm ---------------------------------------------------------------------------------------------------------

ALPHA = 0.3


def samples_deep(dtype, rng):
    return [Sample((), (), f"{xs}", {"x": rnd(rng, xs, dtype), "gx": rnd(rng, xs, dtype), "beta": rnd(rng, gs, dtype),
                                     "gamma": rnd(rng, gs, dtype), "alpha": ALPHA, "epsilon": 1e-6, "_dtype": dtype})
            for xs, gs in SHAPES]


def deep_input(x, gx):
    # alpha * x + gx in float32, as the kernel forms it
    return (torch.tensor(ALPHA, dtype=torch.float32) * x.float() + gx.float()).double()


def ref_deep(x, gx, beta, gamma, alpha, epsilon, _dtype, **_):
    y, mean, rstd = layer_norm(deep_input(x, gx), f64(gamma), f64(beta), gamma.ndim, epsilon)
    return mean.float().numpy(), rstd.float().numpy(), out(y, _dtype)


def samples_deep_grad(dtype, rng):
    res = []
    for xs, gs in SHAPES:
        x, gx = rnd(rng, xs, dtype), rnd(rng, xs, dtype)
        mean, rstd = stats(deep_input(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(gx.astype(np.float32))),
                           len(gs), 1e-6)
        res.append(Sample((), (), f"{xs}", {"dy": rnd(rng, xs, dtype), "x": x, "gx": gx, "gamma": rnd(rng, gs, dtype),
                                            "mean": mean, "rstd": rstd, "alpha": ALPHA, "_dtype": dtype}))
    return res


def ref_deep_grad(dy, x, gx, gamma, mean, rstd, alpha, _dtype, **_):
    dv, dg, db = ln_grad(f64(dy), deep_input(x, gx), f64(mean), f64(rstd), f64(gamma), gamma.ndim)
    return out(dv * ALPHA, _dtype), out(dv, _dtype), db, dg


# ---- AdaLayerNorm -----------------------------------------------------------------------------------------------------

# (x shape, scale shape, weight dtype: "same", "float32" (V2 only) or None)
ADA_CASES = [((2, 4, 8), (2, 8), "same"), ((2, 3, 5, 16), (2, 3, 1, 16), None), ((2, 40, 1000), (2, 1000), "same"),
             ((1, 1, 7), (1, 1, 7), "float32")]


def samples_ada(v2):
    def samples(dtype, rng):
        res = []
        for xs, ss, wd in ADA_CASES:
            if wd == "float32" and not v2:
                wd = "same"
            wdt = dtype if wd == "same" else wd
            h = (xs[-1],)
            res.append(Sample((), (), f"{xs} scale {ss} weight {wd}", {
                "x": rnd(rng, xs, dtype), "scale": rnd(rng, ss, dtype, -1, 1), "shift": rnd(rng, ss, dtype),
                "weightOptional": rnd(rng, h, wdt) if wd else None, "biasOptional": rnd(rng, h, wdt) if wd else None,
                "epsilon": EPS, "_dtype": dtype}))
        return res
    return samples


def ref_ada(x, scale, shift, weightOptional, biasOptional, epsilon, _dtype, **_):
    xv = f64(x)
    w = f64(weightOptional) if weightOptional is not None else 1.0
    b = f64(biasOptional) if biasOptional is not None else 0.0
    y, mean, rstd = layer_norm(xv, w, b, 1, epsilon)
    shape = xv.shape[:-2] + (1, xv.shape[-1])
    y = y * (1 + f64(scale).reshape(shape)) + f64(shift).reshape(shape)
    return out(y, _dtype), out(mean, _dtype), out(rstd, _dtype)


def ref_ada1(*args, **kw):
    return (ref_ada(*args, **kw)[0],)


ENTRIES = [
    OpInfo("aclnnAddLayerNorm", ref_add, FLOATS, kind="custom", samples=samples_add, tol=TOL,
           named_outputs=("yOut", "meanOut", "rstdOut", "xOut")),
    OpInfo("aclnnAddLayerNormGrad", ref_add_grad, FLOATS, kind="custom", samples=samples_add_grad, tol=GTOL,
           named_outputs=("dxOut", "dgammaOut", "dbetaOut")),
    OpInfo("aclnnDeepNorm", ref_deep, FLOATS, kind="custom", samples=samples_deep, tol=TOL,
           named_outputs=("meanOut", "rstdOut", "yOut")),
    OpInfo("aclnnDeepNormGrad", ref_deep_grad, FLOATS, kind="custom", samples=samples_deep_grad, tol=GTOL,
           named_outputs=("dxOut", "dgxOut", "dbetaOut", "dgammaOut")),
    OpInfo("aclnnAdaLayerNorm", ref_ada1, FLOATS, kind="custom", samples=samples_ada(False), tol=TOL,
           named_outputs=("out",)),
    OpInfo("aclnnAdaLayerNormV2", ref_ada, FLOATS, kind="custom", samples=samples_ada(True), tol=TOL,
           named_outputs=("out", "meanOutOptional", "rstdOutOptional")),
]


# ---- RmsNormQuant, RmsNormDynamicQuant (the RMS family of nn_norm.py, with beta; a row is x's last dimension) ---------

QTOL = {"float32": (2e-5, 2e-5), "int8": (0, 1)}  # a value within float32 rounding of a .5 boundary: INT8 +-1
RMS_CASES = [((3, 5, 16), (16,)), ((4, 8), (1, 8)), ((70, 1000), (1000,))]


def rms_beta(x, gamma, beta, eps):
    xv = f64(x)
    rstd = torch.rsqrt((xv * xv).mean(-1, keepdim=True) + eps)
    y = xv * rstd * f64(gamma).reshape(-1)
    return y + f64(beta).reshape(-1) if beta is not None else y


def samples_rms_quant(dtype, rng):
    res = []
    for xs, gs in RMS_CASES:
        res.append(Sample((), (), f"{xs} gamma {gs}", {
            "x": rnd(rng, xs, dtype), "gamma": rnd(rng, gs, dtype), "beta": rnd(rng, gs, dtype, -0.5, 0.5),
            "scale": rnd(rng, (1,), dtype, 0.01, 0.05), "offset": rng.integers(-5, 5, (1,)).astype(np.int8),
            "epsilon": 1e-6, "_dtype": dtype}))
    return res


def ref_rms_quant(x, gamma, beta, scale, offset, epsilon, **_):
    y = rms_beta(x, gamma, beta, epsilon).float()
    v = (y / scale.float()).float() + offset.float()
    return (torch.clamp(torch.round(v), -128, 127).to(torch.int8).numpy(),)


def samples_rms_dyn_quant(dtype, rng):
    res = []
    for k, (xs, gs) in enumerate(RMS_CASES[::2]):
        for smooth in (False, True):
            h = (xs[-1],)
            res.append(Sample((), (), f"{xs} smooth {smooth}", {
                "x": rnd(rng, xs, dtype), "gamma": rnd(rng, h, dtype),
                "smoothScalesOptional": rnd(rng, h, dtype, 0.5, 2.0) if smooth else None,
                "betaOptional": rnd(rng, h, dtype, -0.5, 0.5) if smooth or k else None,
                "epsilon": 1e-6, "dstType": 2, "_dtype": dtype}))
    return res


def ref_rms_dyn_quant(x, gamma, smoothScalesOptional, betaOptional, epsilon, dstType, **_):
    v = rms_beta(x, gamma, betaOptional, epsilon).float()
    if smoothScalesOptional is not None:
        v = v * smoothScalesOptional.float()
    scale = v.abs().amax(-1) / 127
    q = torch.clamp(torch.round(v / scale.unsqueeze(-1)), -128, 127).to(torch.int8)
    return q.numpy(), scale.float().numpy()


ENTRIES += [
    OpInfo("aclnnRmsNormQuant", ref_rms_quant, ("float16", "bfloat16"), kind="custom", samples=samples_rms_quant,
           tol=QTOL, named_outputs=("y",)),
    OpInfo("aclnnRmsNormDynamicQuant", ref_rms_dyn_quant, ("float16", "bfloat16"), kind="custom",
           samples=samples_rms_dyn_quant, tol={**QTOL, "float32": (1e-5, 1e-5)},
           named_outputs=("yOut", "scaleOut")),
]


# ---- AdaLayerNormBackward ---------------------------------------------------------------------------------------------

def samples_ada_grad(dtype, rng):
    res = []
    for xs, ss, wd in ADA_CASES:
        wdt = dtype if wd == "same" else wd
        h = (xs[-1],)
        x = rnd(rng, xs, dtype)
        mean, rstd = stats(torch.from_numpy(x.astype(np.float32)).double(), 1, EPS)
        res.append(Sample((), (), f"{xs} scale {ss} weight {wd}", {
            "gradOut": rnd(rng, xs, dtype), "input": x, "normalizedShape": [xs[-1]],
            "rstd": rstd.astype(x.dtype), "mean": mean.astype(x.dtype),
            "scale": rnd(rng, ss, dtype, -1, 1), "shift": rnd(rng, ss, dtype),
            "weightOptional": rnd(rng, h, wdt) if wd else None, "biasOptional": rnd(rng, h, wdt) if wd else None,
            "_dtype": dtype, "_wdtype": wdt if wd else "float32"}))
    return res


def ref_ada_grad(gradOut, input, normalizedShape, rstd, mean, scale, shift, weightOptional, biasOptional, _dtype,
                 _wdtype, **_):
    x, dy = f64(input), f64(gradOut)
    lead = x.shape[:-2] + (1, x.shape[-1])
    k = 1 + f64(scale).reshape(lead)
    w = f64(weightOptional) if weightOptional is not None else torch.ones(x.shape[-1], dtype=torch.float64)
    b = f64(biasOptional) if biasOptional is not None else torch.zeros(x.shape[-1], dtype=torch.float64)
    dx, dw, db = ln_grad(dy * k, x, f64(mean), f64(rstd), w, 1)
    xhat = (x - f64(mean)) * f64(rstd)
    dscale = (dy * (xhat * w + b)).sum(-2).reshape(scale.shape)
    dshift = dy.sum(-2).reshape(shift.shape)
    return (out(dx, _dtype), out(dscale, _dtype), out(dshift, _dtype), out(torch.from_numpy(dw).double(), _wdtype),
            out(torch.from_numpy(db).double(), _wdtype))


ENTRIES.append(OpInfo("aclnnAdaLayerNormBackward", ref_ada_grad, FLOATS, kind="custom", samples=samples_ada_grad,
                      tol=GTOL, named_outputs=("gradInputOut", "gradScaleOut", "gradShiftOut", "gradWeightOut",
                                               "gradBiasOut")))


# ---- GroupNormSilu, GroupNormSiluV2 ------------------------------------------------------------------------------------

# (self shape, group, gamma/beta dtype: "same", "float32" or None)
GNS_CASES = [((2, 6, 4, 4), 3, "same"), ((3, 4, 5), 2, "float32"), ((2, 8), 4, None), ((1, 64, 32, 32), 8, "same")]


def samples_gn_silu(v2):
    def samples(dtype, rng):
        res = []
        for k, (xs, group, wd) in enumerate(GNS_CASES):
            if wd == "float32" and dtype == "float32":
                wd = "same"
            wdt = dtype if wd == "same" else wd
            kw = {"self": rnd(rng, xs, dtype), "gamma": rnd(rng, (xs[1],), wdt) if wd else None,
                  "beta": rnd(rng, (xs[1],), wdt) if wd else None, "group": group, "eps": EPS}
            if v2:
                kw["activateSilu"] = k % 2 == 0
            res.append(Sample((), (), f"{xs} group {group} gamma {wd}", {**kw, "_dtype": dtype}))
        return res
    return samples


def ref_gn_silu(self, gamma, beta, group, eps, _dtype, activateSilu=True, **_):
    x = f64(self)
    n, c = x.shape[:2]
    g = x.reshape(n, group, -1)
    mean = g.mean(-1, keepdim=True)
    rstd = torch.rsqrt(((g - mean) ** 2).mean(-1, keepdim=True) + eps)
    y = ((g - mean) * rstd).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if gamma is not None:
        y = y * f64(gamma).reshape(shape)
    if beta is not None:
        y = y + f64(beta).reshape(shape)
    if activateSilu:
        y = y * torch.sigmoid(y)
    return out(y, _dtype), out(mean.reshape(n, group), _dtype), out(rstd.reshape(n, group), _dtype)


ENTRIES += [
    OpInfo("aclnnGroupNormSilu", ref_gn_silu, FLOATS, kind="custom", samples=samples_gn_silu(False), tol=TOL,
           named_outputs=("out", "meanOut", "rstdOut")),
    OpInfo("aclnnGroupNormSiluV2", ref_gn_silu, FLOATS, kind="custom", samples=samples_gn_silu(True), tol=TOL,
           named_outputs=("out", "meanOut", "rstdOut")),
]


# ---- LayerNormQuant (static) ---------------------------------------------------------------------------------------

def samples_lnq(dtype, rng):
    res = []
    for xs, gs in (((3, 5, 16), (16,)), ((4, 8), (1, 8)), ((70, 1000), (1000,))):
        res.append(Sample((), (), f"{xs} gamma {gs}", {
            "x": rnd(rng, xs, dtype), "gammma": rnd(rng, gs, dtype), "beta": rnd(rng, gs, dtype, -0.5, 0.5),
            "scale": rnd(rng, (1,), dtype, 0.01, 0.05), "zeroPointsOptional": rng.integers(-5, 5, (1,)).astype(np.int8),
            "quantMode": 0, "epsilon": EPS, "_dtype": dtype}))
    return res


def ref_lnq(x, gammma, beta, scale, zeroPointsOptional, quantMode, epsilon, **_):
    y, _, _ = layer_norm(f64(x), f64(gammma).reshape(-1), f64(beta).reshape(-1), 1, epsilon)
    v = (y.float() / scale.float()).float() + zeroPointsOptional.float()
    # scaleOut: meaningless in the static mode (its document); the operator leaves it alone
    return torch.clamp(torch.round(v), -128, 127).to(torch.int8).numpy(), np.zeros((1,), np.float32)


ENTRIES.append(OpInfo("aclnnLayerNormQuant", ref_lnq, ("float16", "bfloat16"), kind="custom", samples=samples_lnq,
                      tol=QTOL, named_outputs=("res", "scaleOut")))


# ---- AdaLayerNormQuant (dynamic) -------------------------------------------------------------------------------------

def samples_adaq(dtype, rng):
    res = []
    for k, (xs, ss, wd) in enumerate(ADA_CASES[:3]):
        h = (xs[-1],)
        res.append(Sample((), (), f"{xs} scale {ss} weight {wd} smooth {k != 1}", {
            "x": rnd(rng, xs, dtype), "scale": rnd(rng, ss, dtype, -1, 1), "shift": rnd(rng, ss, dtype),
            "weightOptional": rnd(rng, h, dtype) if wd else None, "biasOptional": rnd(rng, h, dtype) if wd else None,
            "smoothScalesOptional": rnd(rng, h, dtype, 0.5, 2.0) if k != 1 else None, "epsilon": EPS,
            "quantMode": "dynamic", "_dtype": dtype}))
    return res


def ref_adaq(x, scale, shift, weightOptional, biasOptional, smoothScalesOptional, epsilon, quantMode, _dtype, **_):
    y = torch.from_numpy(np.asarray(ref_ada(x, scale, shift, weightOptional, biasOptional, epsilon, "float32")[0]))
    v = y.float() * (smoothScalesOptional.float() if smoothScalesOptional is not None else 1.0)
    s = v.abs().amax(-1) / 127
    q = torch.clamp(torch.round(v / s.unsqueeze(-1)), -128, 127).to(torch.int8)
    return q.numpy(), s.float().numpy()


ENTRIES.append(OpInfo("aclnnAdaLayerNormQuant", ref_adaq, ("float16", "bfloat16"), kind="custom",
                      samples=samples_adaq, tol={**QTOL, "float16": (1e-5, 1e-6), "bfloat16": (1e-5, 1e-6)},
                      named_outputs=("out", "quantScale")))


# ---- GroupNormSwish ----------------------------------------------------------------------------------------------------

def samples_gn_swish(dtype, rng):
    res = []
    for k, (xs, group, _) in enumerate(GNS_CASES[:2] + GNS_CASES[3:]):
        wdt = "float32" if k == 1 else dtype
        res.append(Sample((), (), f"{xs} group {group} gamma {wdt}", {
            "x": rnd(rng, xs, dtype), "gamma": rnd(rng, (xs[1],), wdt), "beta": rnd(rng, (xs[1],), wdt),
            "numGroups": group, "dataFormatOptional": None, "eps": EPS, "activateSwish": k != 2,
            "swishScale": (1.0, 0.7, 1.0)[k], "_dtype": dtype, "_wdtype": wdt}))
    return res


def ref_gn_swish(x, gamma, beta, numGroups, dataFormatOptional, eps, activateSwish, swishScale, _dtype, _wdtype,
                 **_):
    y, mean, rstd = ref_gn_silu(x, gamma, beta, numGroups, eps, "float32", activateSilu=False)
    y = torch.from_numpy(np.asarray(y)).double()
    if activateSwish:
        y = y * torch.sigmoid(swishScale * y)
    return out(y, _dtype), np.asarray(mean).astype(np_dtype(_wdtype)), np.asarray(rstd).astype(np_dtype(_wdtype))


ENTRIES.append(OpInfo("aclnnGroupNormSwish", ref_gn_swish, FLOATS, kind="custom", samples=samples_gn_swish, tol=TOL,
                      named_outputs=("yOut", "meanOut", "rstdOut")))
