"""ops-nn norms. RMS norms: RmsNorm, GemmaRmsNorm, RmsNormGrad, AddRmsNorm, InplaceAddRmsNorm, AddRmsNormCast,
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


# ---- the mean-and-variance norms: LayerNorm, GroupNorm, InstanceNorm, BatchNorm and their gradients ------------------
# The oracle is torch in float64 from the widened inputs (torch.nn.functional's norms; the gradients by the textbook
# formulas, which autograd gives too), each result rounded once to its output's dtype. The stub computes in float32.

NTOL = {"float32": (3e-5, 3e-5), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
LN_EPS = 1e-5
F = torch.nn.functional


def opt64(t):
    return None if t is None else f64(t)


def rnd_or_none(rng, shape, dtype, present=True, lo=-2.0, hi=2.0):
    return rnd(rng, shape, dtype, lo, hi) if present else None


# (input shape, normalized shape, weight/bias dtype or None)
LN_CASES = [((3, 5, 16), (16,), "same"), ((4, 3, 8), (3, 8), "float32"), ((70, 1000), (1000,), "same"),
            ((2, 7), (7,), None), ((2, 0, 4), (0, 4), "same")]


def samples_layer_norm(extra=None):
    def samples(dtype, rng):
        res = []
        for xs, ns, wd in LN_CASES:
            wdt = dtype if wd == "same" else wd
            kw = {"input": rnd(rng, xs, dtype), "normalizedShape": list(ns),
                  "weightOptional": rnd_or_none(rng, ns, wdt, wd is not None),
                  "biasOptional": rnd_or_none(rng, ns, wdt, wd is not None), "eps": LN_EPS, "_dtype": dtype,
                  **(extra or {})}
            res.append(Sample((), (), f"{xs} over {ns} weight {wd}", kw))
        return res
    return samples


def ref_layer_norm(input, normalizedShape, weightOptional, biasOptional, eps, _dtype, implMode=None):
    x = f64(input)
    dims = tuple(range(x.ndim - len(normalizedShape), x.ndim))
    y = F.layer_norm(x, tuple(normalizedShape), opt64(weightOptional), opt64(biasOptional), eps)
    if x.numel() == 0:
        mean = torch.zeros(x.shape[: x.ndim - len(dims)] + (1,) * len(dims), dtype=torch.float64)
        return out(y, _dtype), mean.float().numpy(), torch.full_like(mean, float("nan")).float().numpy()
    mean = x.mean(dims, keepdim=True)
    rstd = torch.rsqrt(((x - mean) ** 2).mean(dims, keepdim=True) + eps)
    return out(y, _dtype), mean.float().numpy(), rstd.float().numpy()


def ln_stats(x, ns):
    xt = torch.from_numpy(np.asarray(x, np.float32)).double()
    dims = tuple(range(xt.ndim - len(ns), xt.ndim))
    mean = xt.mean(dims, keepdim=True)
    rstd = torch.rsqrt(((xt - mean) ** 2).mean(dims, keepdim=True) + LN_EPS)
    return mean.float().numpy(), rstd.float().numpy()


def samples_layer_norm_grad(dtype, rng):
    res = []
    for (xs, ns, wd), mask in zip(LN_CASES[:4], ([True] * 3, [True, False, True], [True] * 3, [False, True, True])):
        x = rnd(rng, xs, dtype)
        mean, rstd = ln_stats(x.astype(np.float32), ns)
        kw = {"gradOut": rnd(rng, xs, dtype), "input": x, "normalizedShape": list(ns), "mean": mean, "rstd": rstd,
              "weightOptional": rnd_or_none(rng, ns, "float32", wd is not None), "biasOptional": None,
              "outputMask": mask, "_dtype": dtype}
        res.append(Sample((), (), f"{xs} over {ns} mask {mask}", kw))
    return res


def grouped_grad(dy, x, mean, rstd, w, dims):
    """dx, sum(dy * xhat), sum(dy) over `dims` (the normalised elements of a group: mean and rstd broadcast)."""
    xhat = (x - mean) * rstd
    g = dy * w
    n = np.prod([x.shape[d] for d in dims])
    dx = rstd * (g - g.sum(dims, keepdim=True) / n - xhat * (g * xhat).sum(dims, keepdim=True) / n)
    return dx, dy * xhat, dy


def ref_layer_norm_grad(gradOut, input, normalizedShape, mean, rstd, weightOptional, biasOptional, outputMask, _dtype):
    x, dy = f64(input), f64(gradOut)
    k = len(normalizedShape)
    dims = tuple(range(x.ndim - k, x.ndim))
    w = f64(weightOptional) if weightOptional is not None else torch.ones(tuple(normalizedShape), dtype=torch.float64)
    dx, dyx, dys = grouped_grad(dy, x, f64(mean), f64(rstd), w, dims)
    lead = tuple(range(x.ndim - k))
    res = [out(dx, _dtype), dyx.sum(lead).float().numpy(), dys.sum(lead).float().numpy()]
    return tuple(r if m else np.zeros_like(r) for r, m in zip(res, outputMask))


# (input shape, group, gamma present)
GN_CASES = [((2, 6, 4, 4), 3, True), ((3, 4, 5), 2, True), ((2, 8), 4, False), ((2, 64, 32, 32), 8, True),
            ((2, 4, 0), 2, True)]


def gn_args(xs, group):
    hxw = int(np.prod(xs[2:])) if len(xs) > 2 else 1
    return {"N": xs[0], "C": xs[1], "HxW": hxw, "group": group}


def samples_group_norm(dtype, rng):
    res = []
    for xs, group, gamma in GN_CASES:
        kw = {"self": rnd(rng, xs, dtype), "gamma": rnd_or_none(rng, (xs[1],), dtype, gamma),
              "beta": rnd_or_none(rng, (xs[1],), dtype, gamma), **gn_args(xs, group), "eps": LN_EPS, "_dtype": dtype}
        res.append(Sample((), (), f"{xs} group {group} gamma {gamma}", kw))
    return res


def ref_group_norm(self, gamma, beta, N, C, HxW, group, eps, _dtype):
    x = f64(self)
    xg = x.reshape(N, group, -1)
    if x.numel() == 0:
        y = x
        mean = torch.zeros(N, group, dtype=torch.float64)
        return out(y, _dtype), out(mean, _dtype), out(torch.full_like(mean, float("nan")), _dtype)
    y = F.group_norm(x, group, opt64(gamma), opt64(beta), eps)
    mean = xg.mean(-1)
    rstd = torch.rsqrt(((xg - mean[..., None]) ** 2).mean(-1) + eps)
    return out(y, _dtype), out(mean, _dtype), out(rstd, _dtype)


def samples_group_norm_grad(dtype, rng):
    res = []
    for (xs, group, gamma), mask in zip(GN_CASES[:4], ([True] * 3, [True, True, False], [True] * 3, [True] * 3)):
        x = rnd(rng, xs, dtype)
        xg = torch.from_numpy(x.astype(np.float32)).double().reshape(xs[0], group, -1)
        mean = xg.mean(-1)
        rstd = torch.rsqrt(((xg - mean[..., None]) ** 2).mean(-1) + LN_EPS)
        kw = {"gradOut": rnd(rng, xs, dtype), "input": x, "mean": out(mean, dtype), "rstd": out(rstd, dtype),
              "gamma": rnd_or_none(rng, (xs[1],), dtype, gamma), **gn_args(xs, group), "outputMask": mask,
              "_dtype": dtype}
        res.append(Sample((), (), f"{xs} group {group} mask {mask}", kw))
    return res


def ref_group_norm_grad(gradOut, input, mean, rstd, gamma, N, C, HxW, group, outputMask, _dtype):
    shape = (N, group, C // group, HxW)
    x, dy = f64(input).reshape(shape), f64(gradOut).reshape(shape)
    w = f64(gamma).reshape(1, group, C // group, 1) if gamma is not None else torch.ones(1, 1, 1, 1, dtype=torch.float64)
    dx, dyx, dys = grouped_grad(dy, x, f64(mean).reshape(N, group, 1, 1), f64(rstd).reshape(N, group, 1, 1), w, (2, 3))
    res = [out(dx.reshape(input.shape), _dtype), out(dyx.sum((0, 3)).reshape(C), _dtype),
           out(dys.sum((0, 3)).reshape(C), _dtype)]
    return tuple(r if m else np.zeros_like(r) for r, m in zip(res, outputMask))


def samples_instance_norm(dtype, rng):
    res = []
    for xs, fmt in (((2, 8, 8, 16), "NCHW"), ((2, 8, 16, 8), "NHWC"), ((1, 3, 1, 1), "NCHW"), ((2, 4, 40, 40), "NCHW")):
        c = xs[3] if fmt == "NHWC" else xs[1]
        kw = {"x": rnd(rng, xs, dtype), "gamma": rnd(rng, (c,), dtype), "beta": rnd(rng, (c,), dtype),
              "dataFormat": fmt, "eps": LN_EPS, "_dtype": dtype}
        res.append(Sample((), (), f"{xs} {fmt}", kw))
    return res


def ref_instance_norm(x, gamma, beta, dataFormat, eps, _dtype):
    xt = f64(x)
    if dataFormat == "NHWC":
        xt = xt.permute(0, 3, 1, 2)
    mean = xt.mean((2, 3), keepdim=True)
    var = ((xt - mean) ** 2).mean((2, 3), keepdim=True)
    y = (xt - mean) * torch.rsqrt(var + eps) * f64(gamma).reshape(1, -1, 1, 1) + f64(beta).reshape(1, -1, 1, 1)
    if dataFormat == "NHWC":
        y, mean, var = y.permute(0, 2, 3, 1), mean.permute(0, 2, 3, 1), var.permute(0, 2, 3, 1)
    return out(y, _dtype), out(mean, _dtype), out(var, _dtype)


# (input shape, training, weight and bias present; a 5-D input must be NCDHW, which run() does not make: 6-D
# instead); the running statistics are always given (the harness passes
# every named output, and a NULL running statistic is an input only in evaluation)
BN_CASES = [((4, 5, 3, 8), True, True), ((4, 5, 3, 8), False, True), ((18, 6), True, True), ((3, 5, 7), True, False),
            ((2, 3, 4, 5, 2, 2), False, True), ((8, 16, 32, 32), True, True), ((1, 3, 2, 2), False, False)]


def samples_batch_norm(dtype, rng):
    res = []
    for xs, training, full in BN_CASES:
        c = xs[1]
        kw = {"input": rnd(rng, xs, dtype), "weight": rnd_or_none(rng, (c,), "float32", full),
              "bias": rnd_or_none(rng, (c,), "float32", full),
              "runningMean": rnd(rng, (c,), "float32"), "runningVar": rnd(rng, (c,), "float32", 0.5, 2.0),
              "training": training,
              "momentum": 0.1, "eps": LN_EPS, "_dtype": dtype}
        res.append(Sample((), (), f"{xs} training={training} affine={full}", kw))
    return res


def ref_batch_norm(input, weight, bias, runningMean, runningVar, training, momentum, eps, _dtype):
    x = f64(input)
    c = x.shape[1]
    rm, rv = opt64(runningMean), opt64(runningVar)
    rm_in = rm.clone() if rm is not None else None
    y = F.batch_norm(x, rm_in if rm is not None else (None if training else torch.zeros(c, dtype=torch.float64)),
                     rv.clone() if rv is not None else (None if training else torch.ones(c, dtype=torch.float64)),
                     opt64(weight), opt64(bias), training, momentum, eps)
    dims = (0,) + tuple(range(2, x.ndim))
    if training:
        mean = x.mean(dims)
        var = ((x - mean.reshape((1, c) + (1,) * (x.ndim - 2))) ** 2).mean(dims)
        n = x.numel() // c
        save = [mean.float().numpy(), torch.rsqrt(var + eps).float().numpy()]
        if rm is not None:
            rm = (1 - momentum) * rm + momentum * mean
            rv = (1 - momentum) * rv + momentum * var * n / (n - 1)
    else:
        save = [np.zeros(c, np.float32), np.zeros(c, np.float32)]
    running = [r.float().numpy() if r is not None else np.zeros(c, np.float32) for r in (rm, rv)]
    return (out(y, _dtype), *save, *running)


def samples_batch_norm_grad(dtype, rng):
    res = []
    for (xs, training, full), mask in zip(BN_CASES[:6], ([True] * 3, [True] * 3, [True, False, True], [True] * 3,
                                                         [False, True, True], [True] * 3)):
        c = xs[1]
        x = rnd(rng, xs, dtype)
        xt = torch.from_numpy(x.astype(np.float32)).double()
        dims = (0,) + tuple(range(2, xt.ndim))
        mean = xt.mean(dims)
        var = ((xt - mean.reshape((1, c) + (1,) * (xt.ndim - 2))) ** 2).mean(dims)
        kw = {"gradOut": rnd(rng, xs, dtype), "input": x, "weight": rnd_or_none(rng, (c,), "float32", full),
              "runningMean": rnd(rng, (c,), "float32"), "runningVar": rnd(rng, (c,), "float32", 0.5, 2.0),
              "saveMean": mean.float().numpy(), "saveInvstd": torch.rsqrt(var + LN_EPS).float().numpy(),
              "training": training, "eps": LN_EPS, "outputMask": mask, "_dtype": dtype}
        res.append(Sample((), (), f"{xs} training={training} mask {mask}", kw))
    return res


def ref_batch_norm_grad(gradOut, input, weight, runningMean, runningVar, saveMean, saveInvstd, training, eps,
                        outputMask, _dtype, version=None):
    x, dy = f64(input), f64(gradOut)
    c = x.shape[1]
    shape = (1, c) + (1,) * (x.ndim - 2)
    dims = (0,) + tuple(range(2, x.ndim))
    w = f64(weight) if weight is not None else torch.ones(c, dtype=torch.float64)
    if training:
        mean, invstd = f64(saveMean), f64(saveInvstd)
    else:
        mean, invstd = f64(runningMean), torch.rsqrt(f64(runningVar) + eps)
    xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    sdy, sdyx = dy.sum(dims), (dy * xhat).sum(dims)
    scale = (w * invstd).reshape(shape)
    if training:
        n = x.numel() // c
        dx = scale * (dy - (sdy / n).reshape(shape) - xhat * (sdyx / n).reshape(shape))
    else:
        dx = dy * scale
    res = [out(dx, _dtype), sdyx.float().numpy(), sdy.float().numpy()]
    return tuple(r if m else np.zeros_like(r) for r, m in zip(res, outputMask))


LN_OUTS = ("out", "meanOutOptional", "rstdOutOptional")
ENTRIES += [
    OpInfo("aclnnLayerNorm", ref_layer_norm, FLOATS, kind="custom", samples=samples_layer_norm(), tol=NTOL,
           named_outputs=LN_OUTS),
    OpInfo("aclnnLayerNormWithImplMode", ref_layer_norm, FLOATS, kind="custom",
           samples=samples_layer_norm({"implMode": 0}), tol=NTOL, named_outputs=LN_OUTS),
    OpInfo("aclnnFastLayerNorm", ref_layer_norm, FLOATS, kind="custom", samples=samples_layer_norm(), tol=NTOL,
           named_outputs=LN_OUTS),
    OpInfo("aclnnLayerNormBackward", ref_layer_norm_grad, FLOATS, kind="custom", samples=samples_layer_norm_grad,
           tol=NTOL, named_outputs=("gradInputOut", "gradWeightOut", "gradBiasOut")),
    OpInfo("aclnnGroupNorm", ref_group_norm, FLOATS, kind="custom", samples=samples_group_norm, tol=NTOL,
           named_outputs=("out", "meanOut", "rstdOut")),
    OpInfo("aclnnGroupNormBackward", ref_group_norm_grad, FLOATS, kind="custom", samples=samples_group_norm_grad,
           tol=NTOL, named_outputs=("gradInput", "gradGammaOut", "gradBetaOut")),
    OpInfo("aclnnInstanceNorm", ref_instance_norm, ("float32", "float16"), kind="custom",
           samples=samples_instance_norm, tol=NTOL, named_outputs=("y", "mean", "variance")),
    OpInfo("aclnnBatchNorm", ref_batch_norm, FLOATS, kind="custom", samples=samples_batch_norm, tol=NTOL,
           named_outputs=("output", "saveMean", "saveInvstd", "runningMean", "runningVar")),
    OpInfo("aclnnBatchNormBackward", ref_batch_norm_grad, FLOATS, kind="custom", samples=samples_batch_norm_grad,
           tol=NTOL, named_outputs=("gradInput", "gradWeight", "gradBias")),
    OpInfo("aclnnFastBatchNormBackward", ref_batch_norm_grad, FLOATS, kind="custom",
           samples=lambda dtype, rng: [Sample((), (), s.name, {**s.kw, "version": 0})
                                       for s in samples_batch_norm_grad(dtype, rng)],
           tol=NTOL, named_outputs=("gradInput", "gradWeight", "gradBias")),
]
