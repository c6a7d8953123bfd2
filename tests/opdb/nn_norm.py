"""ops-nn RMS norms: RmsNorm, GemmaRmsNorm, RmsNormGrad, AddRmsNorm, InplaceAddRmsNorm, AddRmsNormCast,
AddRmsNormQuant, AddRmsNormDynamicQuant. The oracle is the documented formula in torch (float64 from the
widened inputs: y = x * rsqrt(mean(x^2) + eps) * gamma), RmsNormGrad by autograd through it; each result is
rounded once to its output dtype. Quantised outputs: round half to even, saturated to INT8."""

from __future__ import annotations

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, np_dtype

TOL = {"float32": (2e-5, 2e-5)}
# A quantised value y * s landing within float32 rounding of a .5 boundary may round either way (the sum of
# squares is accumulated in another order than the oracle's): INT8 results may differ by one.
QTOL = {"float32": (2e-5, 2e-5), "int8": (0, 1)}
TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
EPS = 1e-6
# (x shape, gamma shape): one normalised dim, two, a long row (vector loops, threads), a single row
SHAPES = [((3, 5, 16), (16,)), ((4, 3, 8), (3, 8)), ((70, 1000), (1000,)), ((1, 7), (7,))]


def rnd(rng, shape, dtype, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(np_dtype(dtype))


def out(t, dtype):
    t = t.to(TORCH[dtype])
    return t.view(torch.int16).numpy().view(np_dtype("bfloat16")) if dtype == "bfloat16" else t.numpy()


def f64(t):
    return t.double() if isinstance(t, torch.Tensor) else torch.tensor(t, dtype=torch.float64)


def rms(x, g, eps, gemma=False):
    dims = tuple(range(x.ndim - g.ndim, x.ndim))
    rstd = torch.rsqrt((x * x).mean(dims, keepdim=True) + eps)
    return x * rstd * (1 + g if gemma else g), rstd


def q8(v):
    return torch.clamp(torch.round(v), -128, 127).to(torch.int8).numpy()


def dyn_q8(y, smooth):
    v = (y * smooth if smooth is not None else y).float()
    scale = (v.abs().amax(-1) / 127).float()
    return q8(v / scale.unsqueeze(-1)), scale.numpy()


def gamma_dtypes(dtype):
    return (dtype, "float32") if dtype != "float32" else (dtype,)


def samples_single(gemma_dt=True):
    def samples(dtype, rng):
        res = []
        for xs, gs in SHAPES:
            for gd in gamma_dtypes(dtype):
                res.append(Sample((), (), f"{xs} gamma {gd}", {"x": rnd(rng, xs, dtype), "gamma": rnd(rng, gs, gd),
                                                                "epsilon": EPS, "_dtype": dtype}))
        return res
    return samples


def ref_rms(gemma):
    def ref(x, gamma, epsilon, _dtype):
        y, rstd = rms(f64(x), f64(gamma), epsilon, gemma)
        return out(y, _dtype), rstd.float().numpy()
    return ref


def samples_add(dtype, rng):
    res = []
    for xs, gs in SHAPES:
        for gd in gamma_dtypes(dtype):
            res.append(Sample((), (), f"{xs} gamma {gd}", {"x1": rnd(rng, xs, dtype), "x2": rnd(rng, xs, dtype),
                                                            "gamma": rnd(rng, gs, gd), "epsilon": EPS,
                                                            "_dtype": dtype}))
    return res


def widened_sum(x1, x2):
    return (x1.float() + x2.float()).double()


def ref_add(x1, x2, gamma, epsilon, _dtype):
    x = widened_sum(x1, x2)
    y, rstd = rms(x, f64(gamma), epsilon)
    return out(y, _dtype), rstd.float().numpy(), out(x, _dtype)


def ref_cast(x1, x2, gamma, epsilon, _dtype):
    x = widened_sum(x1, x2)
    y, rstd = rms(x, f64(gamma), epsilon)
    return y.float().numpy(), out(y, _dtype), rstd.float().numpy(), out(x, _dtype)


def samples_grad(dtype, rng):
    res = []
    for xs, gs in SHAPES:
        for gd in gamma_dtypes(dtype):
            x, g = rnd(rng, xs, dtype), rnd(rng, gs, gd)
            _, rstd = rms(f64(torch.from_numpy(x.astype(np.float32))), f64(torch.from_numpy(g.astype(np.float32))), EPS)
            res.append(Sample((), (), f"{xs} gamma {gd}", {"dy": rnd(rng, xs, dtype), "x": x,
                                                            "rstd": rstd.float().numpy(), "gamma": g,
                                                            "_dtype": dtype}))
    return res


def ref_grad(dy, x, rstd, gamma, _dtype):
    xv, g = f64(x).requires_grad_(True), f64(gamma).requires_grad_(True)
    dims = tuple(range(xv.ndim - g.ndim, xv.ndim))
    r = f64(rstd)
    # y = x * rstd(x) * g: the grad through rstd as the formula (rstd given, recomputed for the derivative)
    rs = torch.rsqrt((xv * xv).mean(dims, keepdim=True) + EPS)
    (xv * rs * g * f64(dy)).sum().backward()
    dg = (f64(dy) * f64(x) * r).sum(tuple(range(xv.ndim - g.ndim))).reshape(g.shape)
    return out(xv.grad, _dtype), dg.float().numpy()


def samples_quant(dtype, rng):
    res = []
    for xs, gs in SHAPES[:3]:
        for div in (False, True):
            n = int(np.prod(gs))
            kw = {"x1": rnd(rng, xs, dtype), "x2": rnd(rng, xs, dtype), "gamma": rnd(rng, gs, dtype),
                  "scales1": rnd(rng, gs, dtype, 0.5, 40.0), "scales2Optional": rnd(rng, (n,), dtype, 0.5, 40.0),
                  "zeroPoints1Optional": rng.integers(-5, 5, (n,)).astype(np.int32),
                  "zeroPoints2Optional": None, "axis": -1, "epsilon": EPS, "divMode": div, "_dtype": dtype}
            if div:
                kw["scales1"] = rnd(rng, gs, dtype, 0.01, 0.2)
                kw["scales2Optional"] = rnd(rng, (n,), dtype, 0.01, 0.2)
            res.append(Sample((), (), f"{xs} divMode={div}", kw))
    return res


def ref_quant(x1, x2, gamma, scales1, scales2Optional, zeroPoints1Optional, zeroPoints2Optional, axis, epsilon,
              divMode, _dtype):
    x = widened_sum(x1, x2)
    y, _ = rms(x, f64(gamma), epsilon)
    y = y.float().reshape(*y.shape[: y.ndim - gamma.ndim], -1)

    def q(s, z):
        s = s.float().reshape(-1)
        v = (y / s if divMode else y * s).float()
        if z is not None:
            v = v + z.float().reshape(-1)
        return q8(v).reshape(x.shape)
    return q(scales1, zeroPoints1Optional), q(scales2Optional, zeroPoints2Optional), out(x, _dtype)


def samples_dynq(dtype, rng):
    res = []
    for xs, gs in SHAPES[:3:2]:
        for smooth in (0, 1, 2):
            n = int(np.prod(gs))
            kw = {"x1": rnd(rng, xs, dtype), "x2": rnd(rng, xs, dtype), "gamma": rnd(rng, gs, dtype),
                  "smoothScale1Optional": rnd(rng, (n,), dtype, 0.5, 2.0) if smooth >= 1 else None,
                  "smoothScale2Optional": rnd(rng, (n,), dtype, 0.5, 2.0) if smooth == 2 else None,
                  "epsilon": EPS, "_dtype": dtype}
            res.append(Sample((), (), f"{xs} smooth={smooth}", kw))
    return res


def ref_dynq(x1, x2, gamma, smoothScale1Optional, smoothScale2Optional, epsilon, _dtype):
    x = widened_sum(x1, x2)
    y, _ = rms(x, f64(gamma), epsilon)
    rows = x.shape[: x.ndim - gamma.ndim]
    y = y.float().reshape(*rows, -1)
    y1, s1 = dyn_q8(y, smoothScale1Optional.float() if smoothScale1Optional is not None else None)
    if smoothScale2Optional is not None:
        y2, s2 = dyn_q8(y, smoothScale2Optional.float())
    else:  # y2Out and scale2Out are not written: the test's zeros stay
        y2, s2 = np.zeros_like(y1), np.zeros_like(s1)
    return y1.reshape(x.shape), y2.reshape(x.shape), out(x, _dtype), s1.reshape(rows), s2.reshape(rows)


def ref_inplace(x1Ref, x2Ref, gamma, epsilon, _dtype):
    y, rstd, x = ref_add(x1Ref, x2Ref, gamma, epsilon, _dtype)
    return rstd, y, x


def samples_inplace(dtype, rng):
    return [Sample((), (), s.name, {"x1Ref": s.kw["x1"], "x2Ref": s.kw["x2"], "gamma": s.kw["gamma"],
                                    "epsilon": EPS, "_dtype": dtype}) for s in samples_add(dtype, rng)]


ENTRIES = [
    OpInfo("aclnnRmsNorm", ref_rms(False), FLOATS, kind="custom", samples=samples_single(), tol=TOL,
           named_outputs=("yOut", "rstdOut")),
    OpInfo("aclnnGemmaRmsNorm", ref_rms(True), FLOATS, kind="custom", samples=samples_single(), tol=TOL,
           named_outputs=("yOut", "rstdOut")),
    OpInfo("aclnnRmsNormGrad", ref_grad, FLOATS, kind="custom", samples=samples_grad,
           tol={"float32": (1e-4, 1e-4), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)},
           named_outputs=("dxOut", "dgammaOut")),
    OpInfo("aclnnAddRmsNorm", ref_add, FLOATS, kind="custom", samples=samples_add, tol=TOL,
           named_outputs=("yOut", "rstdOut", "xOut")),
    OpInfo("aclnnAddRmsNormCast", ref_cast, FLOATS, kind="custom", samples=samples_add, tol=TOL,
           named_outputs=("y1Out", "y2Out", "rstdOut", "xOut")),
    OpInfo("aclnnAddRmsNormQuant", ref_quant, FLOATS, kind="custom", samples=samples_quant, tol=QTOL,
           named_outputs=("y1Out", "y2Out", "xOut")),
    OpInfo("aclnnAddRmsNormDynamicQuant", ref_dynq, FLOATS, kind="custom", samples=samples_dynq, tol=QTOL,
           named_outputs=("y1Out", "y2Out", "xOut", "scale1Out", "scale2Out")),
    OpInfo("aclnnInplaceAddRmsNorm", ref_inplace, FLOATS, kind="custom", samples=samples_inplace, tol=TOL,
           named_outputs=("rstdOut", "x1Ref", "x2Ref")),
]
