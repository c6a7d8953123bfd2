"""ops-nn pointwise losses and their backward operators (and ops-math's aclnnKlDiv): reductions none, mean and
sum (and KlDiv's batchmean), broadcasting where the operator allows it, optional weights, empty inputs. The
oracles are torch.nn.functional (gradients through torch.autograd), in float64."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

import aclnn_py

from . import FLOATS, OpInfo, Sample, random_array

RED = {0: "none", 1: "mean", 2: "sum", 3: "batchmean"}
TOL = {"float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}


def arr(rng, shape, dtype, lo=-2.0, hi=2.0):
    return random_array(rng, shape, dtype, (lo, hi), (-8, 8))


def pair_samples(broadcast=True, lo=-2.0, hi=2.0, tlo=-2.0, thi=2.0, reductions=(0, 1, 2), extra=()):
    def make(dtype, rng):
        s = []
        shapes = [((3, 4), (3, 4)), ((2, 3000), (2, 3000)), ((0, 3), (0, 3))]
        if broadcast:
            shapes.append(((4, 1, 3), (5, 1)))
        for red in reductions:
            for a, b in shapes:
                s.append(Sample((arr(rng, a, dtype, lo, hi), arr(rng, b, dtype, tlo, thi)), (red,) + extra,
                                f"{a} {b} {RED[red]}"))
        return s
    return make


def wide(*ts):
    return [t.double() if isinstance(t, torch.Tensor) else t for t in ts]


def mse(x, y, red):
    x, y = wide(x, y)
    return F.mse_loss(*torch.broadcast_tensors(x, y), reduction=RED[red]).float()


def l1(x, y, red):
    x, y = wide(x, y)
    return F.l1_loss(*torch.broadcast_tensors(x, y), reduction=RED[red]).float()


def smooth_l1(x, y, red, beta):
    x, y = wide(x, y)
    return F.smooth_l1_loss(*torch.broadcast_tensors(x, y), reduction=RED[red], beta=beta).float()


def soft_margin(x, y, red):
    x, y = wide(x, y)
    return F.soft_margin_loss(*torch.broadcast_tensors(x, y), reduction=RED[red]).float()


def bce(x, y, w, red):
    x, y, w = wide(x, y, w)
    return F.binary_cross_entropy(x, y, weight=w, reduction=RED[red]).float()


def bce_logits(x, y, w, pw, red):
    x, y, w, pw = wide(x, y, w, pw)
    return F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction=RED[red]).float()


def kl_div(x, y, red, log_target):
    x, y = wide(x, y)
    return F.kl_div(x, y, reduction=RED[red], log_target=log_target).float()


def bce_samples(dtype, rng):
    s = []
    for red in (0, 1, 2):
        for shape in ((3, 4), (2, 3000), (0, 3)):
            x = arr(rng, shape, dtype, 0.05, 0.95)
            y = arr(rng, shape, dtype, 0.0, 1.0)
            w = arr(rng, shape, dtype, 0.5, 1.5)
            s.append(Sample((x, y, None), (red,), f"{shape} {RED[red]}"))
            s.append(Sample((x, y, w), (red,), f"{shape} {RED[red]} weighted"))
    return s


def bce_logits_samples(dtype, rng):
    s = []
    for red in (0, 1, 2):
        for shape in ((3, 4), (2, 3000)):
            x, y = arr(rng, shape, dtype, -4, 4), arr(rng, shape, dtype, 0.0, 1.0)
            s.append(Sample((x, y, None, None), (red,), f"{shape} {RED[red]}"))
            s.append(Sample((x, y, arr(rng, shape[-1:], dtype, 0.5, 1.5), arr(rng, shape, dtype, 0.5, 2.0)), (red,),
                            f"{shape} {RED[red]} weights"))
    return s


def kl_samples(dtype, rng):
    s = []
    for red in (0, 1, 2, 3):
        for log_target in (False, True):
            p = arr(rng, (3, 5), dtype, 0.05, 1.0)
            x = np.asarray(np.log(p.astype(np.float64))).astype(p.dtype)
            y = arr(rng, (3, 5), dtype, -2.0, 0.0) if log_target else arr(rng, (3, 5), dtype, 0.0, 1.0)
            s.append(Sample((x, y), (red, log_target), f"{RED[red]} log_target {log_target}"))
    return s


# ---- backward: gradients through autograd --------------------------------------------------------------------

def grad_of(loss_fn, wrt=1):
    """The elementwise gradient (the aten backward operator's, on the broadcast shape) of loss_fn(*inputs,
    *attrs) with respect to input `wrt` (1: self, 2: target), gradient g flowing in."""
    def ref(g, *args):
        args = list(args)
        idx = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        shape = torch.broadcast_shapes(*[args[i].shape for i in idx[:2]])
        for i in idx:
            a = args[i].double()
            args[i] = a.expand(shape).clone() if i < 2 else a
        var = args[wrt - 1].requires_grad_(True)
        loss = loss_fn(*args)
        loss.backward(g.double().reshape(loss.shape))
        return var.grad.float()
    return ref


def loss_sum(fn):
    def f(*args):
        return fn(*args)
    return f


def backward_samples(pair, grad_for=lambda red, shape: shape):
    def make(dtype, rng):
        out = []
        for s in pair(dtype, rng):
            red = s.attrs[0]
            x, y = s.operands[0], s.operands[1]
            shape = np.broadcast_shapes(x.shape, y.shape)
            g = arr(rng, shape if red == 0 else (), dtype)
            out.append(Sample((g,) + s.operands, s.attrs, s.name))
        return out
    return make


def torch_loss(name, red_pos=2):
    fns = {"mse": F.mse_loss, "l1": F.l1_loss, "soft_margin": F.soft_margin_loss}
    def loss(x, y, red):
        x, y = torch.broadcast_tensors(x, y)
        return fns[name](x, y, reduction=RED[red])
    return loss


def smooth_l1_loss(x, y, red, beta):
    x, y = torch.broadcast_tensors(x, y)
    return F.smooth_l1_loss(x, y, reduction=RED[red], beta=beta)


def bce_loss(x, y, w, red):
    return F.binary_cross_entropy(x, y, weight=w, reduction=RED[red])


def bce_logits_loss(x, y, w, pw, red):
    return F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction=RED[red])


def kl_loss(x, y, red, log_target):
    return F.kl_div(x, y, reduction=RED[red], log_target=log_target)


def bce_backward_samples(dtype, rng):
    out = []
    for s in bce_samples(dtype, rng):
        red = s.attrs[0]
        g = arr(rng, s.operands[0].shape if red == 0 else (), dtype)
        out.append(Sample((g,) + s.operands, s.attrs, s.name))
    return out


def bce_logits_backward_samples(dtype, rng):
    out = []
    for s in bce_logits_samples(dtype, rng):
        red = s.attrs[0]
        g = arr(rng, s.operands[0].shape if red == 0 else (), dtype)
        out.append(Sample((g,) + s.operands, s.attrs, s.name))
    return out


def kl_backward_samples(dtype, rng):
    out = []
    for s in kl_samples(dtype, rng):
        red = s.attrs[0]
        if red == 3:  # the backward operators take none, mean and sum
            continue
        g = arr(rng, s.operands[0].shape if red == 0 else (), dtype)
        out.append(Sample((g,) + s.operands, s.attrs, s.name))
    return out


GRAD = ("out",)
ENTRIES = [
    OpInfo("aclnnMseLoss", mse, FLOATS, kind="custom", samples=pair_samples(), tol=TOL),
    OpInfo("aclnnL1Loss", l1, FLOATS, kind="custom", samples=pair_samples(), tol=TOL),
    OpInfo("aclnnSmoothL1Loss", smooth_l1, FLOATS, kind="custom", samples=pair_samples(extra=(0.5,)), tol=TOL,
           outputs=("result",)),
    OpInfo("aclnnSoftMarginLoss", soft_margin, FLOATS, kind="custom",
           samples=pair_samples(tlo=-1.0, thi=1.0), tol=TOL),
    OpInfo("aclnnBinaryCrossEntropy", bce, FLOATS, kind="custom", samples=bce_samples, tol=TOL,
           out_dtype=lambda d: d),
    OpInfo("aclnnBinaryCrossEntropyWithLogits", bce_logits, FLOATS, kind="custom", samples=bce_logits_samples,
           tol=TOL),
    OpInfo("aclnnKlDiv", kl_div, FLOATS, kind="custom", samples=kl_samples, tol=TOL),
    OpInfo("aclnnMseLossBackward", grad_of(torch_loss("mse")), FLOATS, kind="custom", outputs=GRAD,
           samples=backward_samples(pair_samples()), tol=TOL),
    OpInfo("aclnnL1LossBackward", grad_of(torch_loss("l1")), FLOATS, kind="custom", outputs=("gradInput",),
           samples=backward_samples(pair_samples()), tol=TOL),
    OpInfo("aclnnSmoothL1LossBackward", grad_of(smooth_l1_loss), FLOATS, kind="custom", outputs=("gradInput",),
           samples=backward_samples(pair_samples(extra=(0.5,))), tol=TOL),
    OpInfo("aclnnSoftMarginLossBackward", grad_of(torch_loss("soft_margin")), FLOATS, kind="custom", outputs=GRAD,
           samples=backward_samples(pair_samples(tlo=-1.0, thi=1.0)), tol=TOL),
    OpInfo("aclnnBinaryCrossEntropyBackward", grad_of(bce_loss), FLOATS, kind="custom", outputs=GRAD,
           samples=bce_backward_samples, tol=TOL),
    OpInfo("aclnnBinaryCrossEntropyWithLogitsBackward", grad_of(bce_logits_loss), FLOATS, kind="custom",
           outputs=GRAD, samples=bce_logits_backward_samples, tol=TOL),
    OpInfo("aclnnKlDivBackward", grad_of(kl_loss), FLOATS, kind="custom", outputs=GRAD,
           samples=kl_backward_samples, tol=TOL),
    OpInfo("aclnnKlDivTargetBackward", grad_of(kl_loss, wrt=2), FLOATS, kind="custom", outputs=("gradTarget",),
           samples=kl_backward_samples, tol=TOL),
]


# ---- NLLLoss, NLLLoss2d and their backward operators --------------------------------------------------------------
# One class per sample (INT64, INT32 or UINT8 targets, some equal to ignoreIndex); the oracle is
# torch.nn.functional.nll_loss in float64; the total weight (sum of the weights of the counted samples) is written
# for every reduction; the gradient is -weight[target] * grad (mean: divided by the total weight) at the target.

NLL_TOL = {"float32": (2e-5, 2e-5), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1.6e-2)}
TARGET_DT = (np.int64, np.int32, np.uint8)


def nll_cases(two_d):
    # (self shape, ignoreIndex)
    if two_d:
        return [((2, 4, 3, 5), -100), ((1, 3, 2, 2), 1), ((2, 5, 40, 30), -100)]
    return [((6, 5), -100), ((7,), -100), ((4, 3), 1), ((300, 40), 2)]


def nll_samples(two_d, backward):
    def make(dtype, rng):
        res = []
        k = 0
        for shape, ignore in nll_cases(two_d):
            c = shape[1] if len(shape) > 1 else shape[0]
            tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
            for red in (0, 1, 2):
                tdt = TARGET_DT[k % 3]
                k += 1
                target = rng.integers(0, c, tshape).astype(tdt)
                if ignore >= 0 or target.ndim:
                    flat = target.reshape(-1)
                    flat[:: 3] = ignore if ignore >= 0 else flat[:: 3]
                kw = {"self": arr(rng, shape, dtype, -3.0, 0.0), "target": target,
                      "weight": arr(rng, (c,), dtype, 0.5, 2.0), "reduction": red, "ignoreIndex": ignore,
                      "_dtype": dtype}
                if backward:
                    per = red == 0 and len(shape) >= 2
                    kw["gradOutput"] = arr(rng, tshape if per else (), dtype)
                    t = torch.from_numpy(target.astype(np.int64))
                    w = torch.from_numpy(kw["weight"].astype(np.float32)).double()
                    counted = t != ignore
                    tw = w[t.clamp(0, c - 1)][counted].sum()
                    kw["totalWeight"] = np.array([tw], np.float32).astype(kw["self"].dtype)
                res.append(Sample((), (), f"{shape} {RED[red]} ignore {ignore} target {np.dtype(tdt).name}", kw))
        return res
    return make


def nll_torch(x, target, ignore):
    """(N, C, ...) views of a [C] self: one sample."""
    if x.ndim == 1:
        return x.unsqueeze(0), target.reshape(1)
    return x, target


def to_np(t, dtype):
    t = t.to({"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dtype])
    if dtype == "bfloat16":
        from aclnn_py.dtypes import bfloat16
        return t.view(torch.int16).numpy().view(bfloat16)
    return t.numpy()


def ref_nll(self, target, weight, reduction, ignoreIndex, _dtype):
    x, t = nll_torch(self.double(), target.long(), ignoreIndex)
    w = weight.double()
    loss = F.nll_loss(x, t, w, ignore_index=ignoreIndex, reduction=RED[reduction])
    counted = t != ignoreIndex
    tw = w[t.clamp(0, w.numel() - 1)][counted].sum()
    if self.ndim == 1 and reduction == 0:
        loss = loss.reshape(())
    return to_np(loss, _dtype), to_np(tw.reshape(1), _dtype)


def ref_nll_grad(gradOutput, self, target, weight, reduction, ignoreIndex, totalWeight, _dtype):
    x = self.double().detach().requires_grad_(True)
    xs, t = nll_torch(x, target.long(), ignoreIndex)
    w = weight.double()
    g = gradOutput.double()
    if reduction == 1:  # the operator divides by the totalWeight it is given
        tc = t.clamp(0, w.numel() - 1)
        counted = t != ignoreIndex
        loss = (-w[tc][counted] * xs.gather(1, tc.unsqueeze(1)).squeeze(1)[counted]).sum()
        loss = loss / totalWeight.double().reshape(())
    else:
        loss = F.nll_loss(xs, t, w, ignore_index=ignoreIndex, reduction=RED[reduction])
    loss.backward(g.reshape(loss.shape))
    return (to_np(x.grad, _dtype),)


ENTRIES += [
    OpInfo("aclnnNLLLoss", ref_nll, FLOATS, kind="custom", samples=nll_samples(False, False), tol=NLL_TOL,
           named_outputs=("out", "totalWeightOut")),
    OpInfo("aclnnNLLLoss2d", ref_nll, FLOATS, kind="custom", samples=nll_samples(True, False), tol=NLL_TOL,
           named_outputs=("out", "totalWeightOut")),
    OpInfo("aclnnNLLLossBackward", ref_nll_grad, FLOATS, kind="custom", samples=nll_samples(False, True),
           tol=NLL_TOL, named_outputs=("out",)),
    OpInfo("aclnnNLLLoss2dBackward", ref_nll_grad, FLOATS, kind="custom", samples=nll_samples(True, True),
           tol=NLL_TOL, named_outputs=("out",)),
]


# ---- CrossEntropyLoss: log-softmax, the weighted NLL with label smoothing (torch.nn.functional.cross_entropy) -------
# The header declares every output const (the toolkit's generated prototype), so the call names them as outputs=.

CE_OUTS = ("lossOut", "logProbOut", "zlossOut", "lseForZlossOut")


def ce_samples(dtype, rng):
    res = []
    for (n, c), red, smooth, weighted, ignore in (((6, 5), "mean", 0.0, True, -100), ((4, 7), "none", 0.1, False, 2),
                                                 ((300, 64), "sum", 0.2, True, 1), ((5, 3), "mean", 0.0, False, 0)):
        target = rng.integers(0, c, n).astype(np.int64 if n % 2 == 0 else np.int32)
        target[::4] = ignore if ignore >= 0 else target[::4]
        w = arr(rng, (c,), "float32", 0.5, 2.0) if weighted else None
        res.append(Sample((arr(rng, (n, c), dtype, -4.0, 4.0), target), (w, red, smooth, ignore),
                          f"[{n}, {c}] {red} smoothing {smooth} weight {weighted}"))
    return res


def ref_ce(x, t, w, red, smooth, ignore):
    """the loss(es) then the log-probabilities, one float64 array"""
    xt, tt = x.double(), t.long()
    wt = torch.from_numpy(w).double() if w is not None else None
    loss = F.cross_entropy(xt, tt, wt, ignore_index=ignore, reduction=red, label_smoothing=smooth)
    return np.concatenate([loss.reshape(-1).numpy(), torch.log_softmax(xt, -1).reshape(-1).numpy()])


def call_ce(sample, expected):
    x, t = sample.operands
    w, red, smooth, ignore = sample.attrs
    n, c = x.shape
    loss = np.zeros((n,) if red == "none" else (1,), x.dtype)
    logp, z, lse = np.zeros_like(x), np.zeros((n,) if red == "none" else (1,), x.dtype), np.zeros(n, x.dtype)
    aclnn_py.run("aclnnCrossEntropyLoss", x, t, w, red, ignore, smooth, 0.0, False, loss, logp, z, lse,
                 outputs=CE_OUTS)
    return np.concatenate([loss.astype(np.float64).reshape(-1), logp.astype(np.float64).reshape(-1)])


ENTRIES += [
    OpInfo("aclnnCrossEntropyLoss", ref_ce, FLOATS, kind="custom", samples=ce_samples, call=call_ce, native16=True,
           tol={"float32": (2e-5, 2e-5), "float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2)}),
]


def ce_grad_samples(dtype, rng):
    res = []
    for s in ce_samples(dtype, rng):
        x, t = s.operands
        w, red, smooth, ignore = s.attrs
        logp = torch.log_softmax(torch.from_numpy(x.astype(np.float32)), -1).numpy().astype(x.dtype)
        g = arr(rng, (x.shape[0],) if red == "none" else (), dtype, 0.5, 2.0)
        res.append(Sample((g, logp, t, x), (w, red, smooth, ignore), s.name))
    return res


def ref_ce_grad(g, logp, t, x, w, red, smooth, ignore):
    """autograd through torch's cross_entropy at the input whose log-softmax logProb is"""
    xt = x.double().requires_grad_(True)
    wt = torch.from_numpy(w).double() if w is not None else None
    loss = F.cross_entropy(xt, t.long(), wt, ignore_index=ignore, reduction=red, label_smoothing=smooth)
    loss.backward(g.double().reshape(loss.shape))
    return xt.grad.reshape(-1).numpy()


def call_ce_grad(sample, expected):
    g, logp, t, x = sample.operands
    w, red, smooth, ignore = sample.attrs
    out = np.zeros_like(logp)
    aclnn_py.run("aclnnCrossEntropyLossGrad", g, logp, t, w, None, None, red, ignore, smooth, 0.0, out,
                 outputs=("out",))
    return out.astype(np.float64).reshape(-1)


ENTRIES += [
    OpInfo("aclnnCrossEntropyLossGrad", ref_ce_grad, FLOATS, kind="custom", samples=ce_grad_samples, call=call_ce_grad,
           native16=True, tol={"float32": (2e-5, 2e-5), "float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2)}),
]


# ---- MultilabelMarginLoss: torch's multilabel_margin_loss, and isTarget (1 at the target classes) ------------------

def mlm_samples(dtype, rng):
    res = []
    for shape, red in (((4, 6), 0), ((4, 6), 1), ((50, 30), 2), ((7,), 1), ((3, 1), 0)):
        n, c = (shape[0], shape[1]) if len(shape) == 2 else (1, shape[0])
        target = np.full((n, c), -1, np.int64 if red != 1 else np.int32)
        for r in range(n):
            k = int(rng.integers(0, c + 1))
            target[r, :k] = rng.permutation(c)[:k]
        res.append(Sample((), (), f"{shape} reduction {red}", {"self": arr(rng, shape, dtype), "target":
                                                               target.reshape(shape), "reduction": red,
                                                               "_dtype": dtype}))
    return res


def ref_mlm(self, target, reduction, _dtype):
    x, t = self.double(), target.long()
    loss = F.multilabel_margin_loss(x, t, reduction=RED[reduction] if reduction in (0, 1) else "sum")
    t2 = t.reshape(-1, x.shape[-1])
    is_t = torch.zeros_like(t2, dtype=torch.float64)
    for r in range(t2.shape[0]):
        for v in t2[r]:
            if v < 0:
                break
            is_t[r, v] = 1
    loss = loss.reshape(-1) if reduction == 0 and x.ndim == 2 else loss.reshape(())
    return to_np(loss, _dtype), to_np(is_t.reshape(t.shape), _dtype)


ENTRIES += [
    OpInfo("aclnnMultilabelMarginLoss", ref_mlm, FLOATS, kind="custom", samples=mlm_samples, tol=NLL_TOL,
           named_outputs=("out", "isTarget")),
]


# ---- MseLossOut: mean and sum over dimension 0 only (out: the broadcast shape without it) --------------------------

def mse_out_samples(dtype, rng):
    res = []
    for a, b, red in (((3, 4), (3, 4), 0), ((3, 4), (3, 4), 1), ((3, 4), (3, 4), 2), ((4, 1, 3), (5, 1), 1),
                      ((4, 1, 3), (5, 1), 2), ((3000, 2), (3000, 2), 1), ((6,), (6,), 2), ((0, 3), (0, 3), 0)):
        res.append(Sample((arr(rng, a, dtype), arr(rng, b, dtype)), (red,), f"{a} {b} {RED[red]}"))
    return res


def ref_mse_out(x, y, red):
    dt = x.dtype
    x, y = torch.broadcast_tensors(*wide(x, y))
    d = (x - y) ** 2
    return (d if red == 0 else d.mean(0) if red == 1 else d.sum(0)).float().to(dt)


def call_mse_out(sample, expected):
    x, y = sample.operands
    out = np.zeros(tuple(expected.shape), x.dtype)
    aclnn_py.run("aclnnMseLossOut", x, y, *sample.attrs, out=out)
    return out


# ---- Logit and LogitGrad (generated APIs: one dtype, one shape; eps a float attribute, < 0: no clamping) ------------

def ref_logit(x, eps):
    return torch.logit(x.double(), eps if eps >= 0 else None).float().to(x.dtype)


def ref_logit_grad(x, dy, eps):
    return torch.ops.aten.logit_backward(dy.double(), x.double(), eps if eps >= 0 else None).float().to(x.dtype)


LOGIT_TOL = {"float32": (1e-6, 1e-6), "float16": (1e-3, 1e-3), "bfloat16": (8e-3, 8e-3)}


# ---- FusedCrossEntropyLossWithMaxSum: loss = log(sumExp) - predicted, softmax = exp(v - max) / sumExp --------------

def fused_ce_samples(dtype, rng):
    res = []
    for n, v in ((2, 2), (5, 7), (3, 5000), (0, 4)):
        logits = arr(rng, (n, v), "float32", -3.0, 3.0)
        mx = logits.max(1) if v and n else np.zeros((n,), np.float32)
        sumexp = np.exp(logits - mx[:, None]).sum(1).astype(np.float32)
        pred = arr(rng, (n,), "float32", -3.0, 3.0)
        vocab = arr(rng, (n, v), dtype, -3.0, 3.0)
        res.append(Sample((mx, sumexp, pred, vocab), (), f"{n} x {v}"))
        res.append(Sample((mx, sumexp, pred, None), (), f"{n} x {v} without the softmax"))
    return res


def ref_fused_ce(mx, sumexp, pred, vocab):
    loss = torch.log(sumexp.double()) - pred.double()
    if vocab is None:
        return (loss.float(),)
    soft = torch.exp(vocab.double() - mx.double()[:, None]) / sumexp.double()[:, None]
    return loss.float(), soft.float()


def call_fused_ce(sample, expected):
    mx, sumexp, pred, vocab = sample.operands
    loss = np.zeros(mx.shape, np.float32)
    soft = None if vocab is None else np.zeros(vocab.shape, np.float32)
    aclnn_py.run("aclnnFusedCrossEntropyLossWithMaxSum", mx, sumexp, pred, 0.0, None, None, vocab, loss, soft,
                 outputs=("lossOut", "softMaxOutOptional"))
    return (loss,) if vocab is None else (loss, soft)


# ---- ChamferDistanceBackward: autograd of sum(g1 |xyz1 - xyz2[idx1]|^2) + sum(g2 |xyz2 - xyz1[idx2]|^2) -----------

def chamfer_samples(dtype, rng):
    res = []
    for b, n in ((2, 2), (3, 17), (2, 3000), (0, 4)):
        x1, x2 = arr(rng, (b, n, 2), dtype), arr(rng, (b, n, 2), dtype)
        i1 = rng.integers(0, max(n, 1), size=(b, n)).astype(np.int32)
        i2 = rng.integers(0, max(n, 1), size=(b, n)).astype(np.int32)
        g1, g2 = arr(rng, (b, n), dtype), arr(rng, (b, n), dtype)
        res.append(Sample((x1, x2, i1, i2, g1, g2), (), f"B {b} N {n}"))
    return res


def ref_chamfer(x1, x2, i1, i2, g1, g2):
    dt = x1.dtype
    x1 = x1.double().requires_grad_(True)
    x2 = x2.double().requires_grad_(True)
    i1, i2 = i1.long(), i2.long()
    n1 = torch.gather(x2, 1, i1[..., None].expand(-1, -1, 2))
    n2 = torch.gather(x1, 1, i2[..., None].expand(-1, -1, 2))
    loss = (g1.double() * ((x1 - n1) ** 2).sum(-1)).sum() + (g2.double() * ((x2 - n2) ** 2).sum(-1)).sum()
    if x1.numel():
        loss.backward()
    z = torch.zeros_like(x1)
    return (x1.grad if x1.grad is not None else z).to(dt), (x2.grad if x2.grad is not None else z).to(dt)


def call_chamfer(sample, expected):
    x1, x2 = sample.operands[:2]
    o1, o2 = np.zeros(x1.shape, x1.dtype), np.zeros(x2.shape, x2.dtype)
    aclnn_py.run("aclnnChamferDistanceBackward", *sample.operands, o1, o2, outputs=("gradXyz1", "gradXyz2"))
    return o1, o2


ENTRIES += [
    OpInfo("aclnnMseLossOut", ref_mse_out, FLOATS, kind="custom", samples=mse_out_samples, call=call_mse_out,
           tol=TOL),
    OpInfo("aclnnLogit", ref_logit, FLOATS, kind="unary", attrs=((-1.0,), (0.05,), (0.0,)), domain=(-0.2, 1.2),
           mixed=False, broadcast=False, tol=LOGIT_TOL),
    OpInfo("aclnnLogitGrad", ref_logit_grad, FLOATS, kind="binary", attrs=((-1.0,), (0.05,)), domain=(-0.2, 1.2),
           mixed=False, broadcast=False, tol=LOGIT_TOL),
    OpInfo("aclnnFusedCrossEntropyLossWithMaxSum", ref_fused_ce, FLOATS, kind="custom", samples=fused_ce_samples,
           call=call_fused_ce, native16=True, tol={"float32": (1e-6, 1e-6), "float16": (1e-6, 1e-6), "bfloat16": (1e-6, 1e-6)}),
    OpInfo("aclnnChamferDistanceBackward", ref_chamfer, ("float32", "float16"), kind="custom",
           samples=chamfer_samples, call=call_chamfer, native16=True, tol={"float32": (1e-5, 1e-5), "float16": (4e-3, 4e-3)}),
]


# ---- CtcLoss and CtcLossBackward: torch's _ctc_loss and _ctc_loss_backward in float64 --------------------------------
# logAlphaOut is [N, T, align8(2 max(S) + 1)]; the positions past a sequence's lengths are -inf (torch leaves them
# unset), the oracle's too.

def ctc_case(rng, dtype, T, N, C, lens, tlens, two_d=True, tdtype="int64", flat_2d=False):
    lp = torch.log_softmax(torch.from_numpy(rng.normal(size=(T, N, C))), -1)
    if flat_2d:
        lp = lp[:, 0]
    lp = lp.to({"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dtype])
    S = max(tlens) if tlens else 0
    if two_d:
        tg = rng.integers(1, C, size=(N, max(S, 1))).astype(np.int64)
    else:
        tg = rng.integers(1, C, size=(sum(tlens),)).astype(np.int64)
    tg = tg.astype({"int64": np.int64, "int32": np.int32, "float32": np.float32}[tdtype])
    return lp, tg, list(lens), list(tlens)


def ctc_samples(dtype, rng):
    res = []
    for args, kw, zero in (((12, 4, 5, [12, 12, 10, 12], [7, 2, 1, 4]), {}, False),
                           ((12, 4, 5, [12, 12, 10, 12], [7, 2, 1, 4]), {"two_d": False, "tdtype": "int32"}, False),
                           ((9, 3, 6, [9, 3, 8], [3, 3, 0]), {"tdtype": "float32"}, True),   # 3 labels in 3 steps
                           ((9, 3, 6, [9, 3, 8], [3, 3, 0]), {}, False),
                           ((30, 2, 40, [30, 25], [10, 12]), {}, False),
                           ((7, 1, 4, [7], [3]), {"flat_2d": True}, False)):
        lp, tg, lens, tlens = ctc_case(rng, dtype, *args, **kw)
        lp_np = lp.contiguous().view(torch.int16).numpy().view(np_dtype_of(dtype)) if dtype == "bfloat16" else lp.numpy()
        res.append(Sample((lp_np, tg), (lens, tlens, 0, zero), f"{args} {kw} zeroInfinity {zero}"))
    return res


def np_dtype_of(dtype):
    from . import np_dtype
    return np_dtype(dtype)


def _torch_of(a):
    if isinstance(a, torch.Tensor):
        return a
    if a.dtype == np_dtype_of("bfloat16"):
        return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(a))


def ctc_ref_full(lp, tg, lens, tlens, blank, zero):
    lp64 = _torch_of(lp).double() if isinstance(lp, np.ndarray) else lp.double()
    flat = lp64.dim() == 2
    if flat:
        lp64 = lp64[:, None]
    tgt = (_torch_of(tg) if isinstance(tg, np.ndarray) else tg).long()
    nll, alpha = torch.ops.aten._ctc_loss(lp64, tgt, lens, tlens, blank, zero)
    T, N = lp64.shape[:2]
    W = (2 * (max(tlens) if tlens else 0) + 1 + 7) // 8 * 8
    full = torch.full((N, T, W), -torch.inf, dtype=torch.float64)
    for b in range(N):
        L = 2 * tlens[b] + 1
        full[b, :lens[b], :L] = alpha[b, :lens[b], :L]
    return lp64, tgt, nll, full, flat


def ctc_ref(lp, tg, lens, tlens, blank, zero):
    _, _, nll, full, flat = ctc_ref_full(lp, tg, lens, tlens, blank, zero)
    if zero:  # torch's ctc_loss applies zero_infinity around _ctc_loss
        nll = torch.where(torch.isinf(nll), torch.zeros_like(nll), nll)
    return (nll.reshape(()) if flat else nll), full


def ctc_call(sample, expected):
    lp, tg = sample.operands
    lens, tlens, blank, zero = sample.attrs
    nll = np.zeros(tuple(expected[0].shape), lp.dtype)
    alpha = np.zeros(tuple(expected[1].shape), lp.dtype)
    aclnn_py.run("aclnnCtcLoss", lp, tg, lens, tlens, blank, zero, nll, alpha,
                 outputs=("negLogLikelihoodOut", "logAlphaOut"))
    return nll.astype(np.float64), alpha.astype(np.float64)


def ctc_grad_samples(dtype, rng):
    res = []
    for s in ctc_samples(dtype, rng):
        if s.operands[0].ndim == 2:
            continue
        lp, tg = s.operands
        lens, tlens, blank, zero = s.attrs
        _, _, nll, full, _ = ctc_ref_full(lp, tg, lens, tlens, blank, zero)
        g = rng.uniform(0.5, 2.0, size=(lp.shape[1],)).astype(lp.dtype)
        res.append(Sample((g, lp, tg, nll.numpy().astype(lp.dtype), full.numpy().astype(lp.dtype)),
                          (lens, tlens, blank, zero), s.name))
    return res


def ctc_grad_ref(g, lp, tg, nll, alpha, lens, tlens, blank, zero):
    """torch's gradient from the logAlpha and negLogLikelihood the operator is given (16-bit: rounded)"""
    lp64, tgt, _, _, _ = ctc_ref_full(lp, tg, lens, tlens, blank, zero)
    S = max(tlens) if tlens else 0
    alpha64 = _torch_of(alpha).double()[:, :, :2 * S + 1].contiguous()
    return torch.ops.aten._ctc_loss_backward(_torch_of(g).double(), lp64, tgt, lens, tlens, _torch_of(nll).double(),
                                             alpha64, blank, zero)


def ctc_grad_call(sample, expected):
    g, lp, tg, nll, alpha = sample.operands
    lens, tlens, blank, zero = sample.attrs
    out = np.zeros(lp.shape, lp.dtype)
    aclnn_py.run("aclnnCtcLossBackward", g, lp, tg, lens, tlens, nll, alpha, blank, zero, out, outputs=("out",))
    return out.astype(np.float64)


CTC_TOL = {"float32": (2e-5, 2e-5), "float16": (4e-3, 4e-3), "bfloat16": (3e-2, 3e-2)}
ENTRIES += [
    OpInfo("aclnnCtcLoss", ctc_ref, FLOATS, kind="custom", samples=ctc_samples, call=ctc_call, native16=True,
           tol=CTC_TOL),
    OpInfo("aclnnCtcLossBackward", ctc_grad_ref, FLOATS, kind="custom", samples=ctc_grad_samples, call=ctc_grad_call,
           native16=True, tol=CTC_TOL),
]
