"""ops-nn activations (activation/): forward operators and their backward, against torch."""

import numpy as np
import torch
import torch.nn.functional as F

from aclnn_py.dtypes import bfloat16

from . import FLOATS, INTS, REALS, COMPLEX, OpInfo, Sample, random_array

aten = torch.ops.aten
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def via_float(fn):
    """fn on integer tensors as the device computes them: in float32, truncated back to the input's type."""
    def ref(x, *attrs):
        if x.is_floating_point():
            return fn(x, *attrs)
        return fn(x.float(), *attrs).to(x.dtype)
    return ref


def f32(v):
    """An attribute as the op_api reads it (aclScalar::ToFloat)."""
    return float(np.float32(v))


def elu(x, alpha, scale, input_scale):
    return aten.elu(x, f32(alpha), f32(scale), f32(input_scale))


def shrink(x, lambd, bias):
    return torch.where(x < -lambd, x + bias, torch.where(x > lambd, x - bias, torch.zeros_like(x)))


def hardshrink(x, lambd):
    return F.hardshrink(x, max(f32(lambd), 0.0))


def gelu_v2(x, approximate):
    return F.gelu(x, approximate="tanh" if approximate == 1 else "none")


def heaviside(x, values):
    dtype = torch.promote_types(x.dtype, values.dtype)
    return torch.heaviside(x.to(dtype), values.to(dtype))


def swish_grad(g, x, beta):
    s = torch.sigmoid(beta * x)
    return g * (s + beta * x * s * (1 - s))


def hardswish_grad(g, x):
    """The documented formula: the interval [-3, 3] closed (torch opens it)."""
    return torch.where(x < -3, torch.zeros_like(g), torch.where(x <= 3, g * (x / 3 + 0.5), g))


def hardswish_grad_v2(g, x):
    return torch.where(x <= -3, torch.zeros_like(g), torch.where(x < 3, g * (x / 3 + 0.5), g))


def selu_grad(g, result):
    return torch.where(result > 0, g * SELU_SCALE, g * (result + SELU_ALPHA * SELU_SCALE))


def softplus_grad(g, x, beta, threshold):
    """Computed in float32 unless both inputs share a float32/16-bit type (DOUBLE included), as the op_api casts."""
    dtype = g.dtype
    g, x = g.float(), x.float()
    z = x * f32(beta)
    return torch.where(z > f32(threshold), g, g * torch.sigmoid(z)).to(dtype)


def gelu_grad(g, x, mode):
    if mode == "tanh":
        k = (2 / np.pi) ** 0.5
        t = torch.tanh(k * (x + 0.044715 * x ** 3))
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x))
    return g * (0.5 * torch.erfc(-x / 2 ** 0.5) + x * torch.exp(-0.5 * x * x) / (2 * np.pi) ** 0.5)


def elu_backward_samples(dtype, rng):
    """EluBackward's tensors are its first and sixth parameters: (grad, alpha, scale, inputScale, isResult, x)."""
    out = []
    for shape in ((2, 3), (0, 4), (5, 1, 7), (34000,)):
        for attrs in ((1.0, 1.0, 1.0, False), (0.5, 2.0, 1.5, False), (1.0, 1.0, 1.0, True)):
            g = random_array(rng, shape, dtype, (-4, 4), (-8, 8))
            x = random_array(rng, shape, dtype, (-4, 4), (-8, 8))
            out.append(Sample((g, *attrs, x), name=f"{shape} {attrs}"))
    return out


def elu_backward(g, alpha, scale, input_scale, is_result, x):
    return aten.elu_backward(g, f32(alpha), f32(scale), f32(input_scale), is_result, x)


SIGMOID_DT = REALS + ("int8", "int16", "int32", "int64", "uint8", "bool") + COMPLEX

ENTRIES = [
    # ---- forward
    OpInfo("aclnnRelu", torch.relu, FLOATS + ("int8", "int32", "uint8", "int64"), kind="unary",
           inplace="aclnnInplaceRelu"),
    OpInfo("aclnnElu", elu, REALS, kind="unary", attrs=((1.0, 1.0, 1.0), (0.5, 1.5, 2.0)),
           inplace="aclnnInplaceElu"),
    OpInfo("aclnnCelu", lambda x, a: torch.celu(x, f32(a)), FLOATS, kind="unary", attrs=((1.0,), (0.7,)),
           inplace="aclnnInplaceCelu"),
    OpInfo("aclnnSelu", via_float(torch.selu), FLOATS + ("int32", "int8"), kind="unary", inplace="aclnnInplaceSelu",
           any_rank=True),
    OpInfo("aclnnLeakyRelu", lambda x, s: F.leaky_relu(x, f32(s)), REALS, kind="unary", attrs=((0.01,), (0.3,)),
           inplace="aclnnInplaceLeakyRelu"),
    OpInfo("aclnnThreshold", lambda x, t, v: torch.threshold(x, t, v), FLOATS + ("int32", "int8", "uint8", "int16",
           "int64"), kind="unary", attrs=((0.5, 2.0), (1, 3)), inplace="aclnnInplaceThreshold"),
    OpInfo("aclnnHardsigmoid", via_float(F.hardsigmoid), FLOATS + ("int32",), kind="unary",
           inplace="aclnnInplaceHardsigmoid"),
    OpInfo("aclnnHardswish", F.hardswish, FLOATS, kind="unary", inplace="aclnnInplaceHardswish", any_rank=True),
    OpInfo("aclnnHardshrink", hardshrink, FLOATS, kind="unary", attrs=((0.5,), (-1.0,))),
    OpInfo("aclnnSoftshrink", lambda x, l: F.softshrink(x, f32(l)), FLOATS, kind="unary", attrs=((0.5,), (0.0,))),
    OpInfo("aclnnShrink", shrink, ("float32", "float16"), kind="unary", attrs=((0.5, 0.25),), any_rank=True),
    OpInfo("aclnnSigmoid", torch.sigmoid, SIGMOID_DT, kind="unary", inplace="aclnnInplaceSigmoid",
           tol={"complex64": (1e-5, 1e-5)}),
    OpInfo("aclnnSilu", F.silu, FLOATS, kind="unary", any_rank=True),
    OpInfo("aclnnSwish", lambda x, b: x * torch.sigmoid(f32(b) * x), FLOATS, kind="unary", attrs=((1.0,), (1.5,))),
    OpInfo("aclnnFastGelu", lambda x: x * torch.sigmoid(1.702 * x), FLOATS, kind="unary"),
    OpInfo("aclnnLogSigmoid", F.logsigmoid, FLOATS, kind="unary", any_rank=True),
    OpInfo("aclnnLogSigmoidForward", F.logsigmoid, FLOATS, kind="unary", any_rank=True,
           kwargs={"outputs": "out", "buffer": None}),
    OpInfo("aclnnMish", F.mish, FLOATS, kind="unary", inplace="aclnnInplaceMish"),
    OpInfo("aclnnSoftplus", lambda x, b, t: F.softplus(x, f32(b), f32(t)), FLOATS, kind="unary",
           attrs=((1.0, 20.0), (2.0, 1.0)), domain=(-30.0, 30.0)),
    OpInfo("aclnnGelu", lambda x: F.gelu(x, approximate="tanh"), FLOATS, kind="unary"),
    OpInfo("aclnnGeluV2", gelu_v2, FLOATS, kind="unary", attrs=((0,), (1,))),
    OpInfo("aclnnErfinv", torch.erfinv, FLOATS + ("bool",) + INTS + ("int16",), kind="unary",
           inplace="aclnnInplaceErfinv", domain=(-0.999, 0.999), int_domain=(-1, 1)),
    OpInfo("aclnnHeaviside", heaviside, FLOATS),
    # ---- backward: (gradOutput, input or result) first
    OpInfo("aclnnEluBackward", elu_backward, FLOATS, kind="custom", samples=elu_backward_samples),
    OpInfo("aclnnSeluBackward", via_float(selu_grad), FLOATS + ("int32", "int8"), broadcast=False, mixed=False,
           any_rank=True),
    OpInfo("aclnnLeakyReluBackward", lambda g, x, s, r: aten.leaky_relu_backward(g, x, f32(s), r), REALS,
           attrs=((0.01, False), (0.2, True))),
    OpInfo("aclnnThresholdBackward", lambda g, x, t: aten.threshold_backward(g, x, f32(t)),
           FLOATS + ("int32", "int8", "uint8"), attrs=((0.0,), (0.5,)), mixed=False),
    OpInfo("aclnnHardtanhBackward", lambda g, x, lo, hi: aten.hardtanh_backward(g, x, f32(lo), f32(hi)), FLOATS,
           attrs=((-1.0, 1.0), (-2.0, 0.5)), broadcast=False, mixed=False),
    OpInfo("aclnnHardsigmoidBackward", aten.hardsigmoid_backward, FLOATS, broadcast=False),
    OpInfo("aclnnHardswishBackward", hardswish_grad, FLOATS, broadcast=False, mixed=False),
    OpInfo("aclnnHardswishBackwardV2", hardswish_grad_v2, FLOATS, broadcast=False, mixed=False),
    OpInfo("aclnnHardshrinkBackward", lambda g, x, l: aten.hardshrink_backward(g, x, max(f32(l), 0.0)), FLOATS,
           attrs=((0.5,), (-1.0,))),
    OpInfo("aclnnSoftshrinkBackward", lambda g, x, l: aten.softshrink_backward(g, x, f32(l)), FLOATS,
           attrs=((0.5,),)),
    OpInfo("aclnnSigmoidBackward", aten.sigmoid_backward, REALS + COMPLEX, domain=(0.0, 1.0),
           tol={"complex64": (1e-5, 1e-5)}),
    OpInfo("aclnnSiluBackward", aten.silu_backward, FLOATS, broadcast=False, mixed=False),
    OpInfo("aclnnSwishBackward", lambda g, x, b: swish_grad(g, x, f32(b)), FLOATS, attrs=((1.0,), (1.5,)),
           broadcast=False, mixed=False),
    OpInfo("aclnnFastGeluBackward", lambda g, x: swish_grad(g, x, 1.702), FLOATS, broadcast=False, mixed=False),
    OpInfo("aclnnLogSigmoidBackward", lambda g, x, buf: g * torch.sigmoid(-x), FLOATS, kind="ternary",
           broadcast=False, mixed=False, any_rank=True),
    OpInfo("aclnnMishBackward", aten.mish_backward, FLOATS),
    OpInfo("aclnnSoftplusBackward", softplus_grad, REALS, attrs=((1.0, 20.0), (2.0, 1.0)), broadcast=False,
           tol={"float64": (1.3e-6, 1e-5)}),
    OpInfo("aclnnGeluBackward", lambda g, x: gelu_grad(g, x, "tanh"), FLOATS),
    OpInfo("aclnnGeluBackwardV2", gelu_grad, FLOATS,
           attrs=(("none",), ("tanh",)), any_rank=True),
]


# ---- gated activations (split in halves along a dimension) and add-relu ---------------------------------------

def gated_samples(with_grad):
    def gen(dtype, rng):
        out = []
        for shape, dim in (((4, 6), -1), ((2, 4, 6), 0), ((3, 8, 5), 1), ((2, 34000), 1), ((0, 4), 1)):
            x = random_array(rng, shape, dtype, (-4, 4), (-8, 8))
            if with_grad:
                half = list(shape)
                half[dim] //= 2
                out.append(Sample((random_array(rng, tuple(half), dtype, (-4, 4), (-8, 8)), x), (dim,), f"{shape}"))
            else:
                out.append(Sample((x,), (dim,), f"{shape} dim {dim}"))
        x = random_array(rng, (6, 4), dtype, (-4, 4), (-8, 8)).T  # non-contiguous
        out.append(Sample((x,) if not with_grad else (random_array(rng, (2, 6), dtype, (-4, 4), (-8, 8)), x), (0,),
                          "transposed"))
        return out
    return gen


def swiglu(x, dim):
    a, b = x.chunk(2, dim)
    return F.silu(a) * b


def swiglu_grad(g, x, dim):
    x = x.detach().requires_grad_(True)
    swiglu(x, dim).backward(g)
    return x.grad


def unary_no_scalar_samples(dtype, rng):
    return [Sample((random_array(rng, s, dtype, (-4, 4), (-8, 8)),), name=f"{s}")
            for s in ((2, 3), (0, 4), (5, 1, 7), (34000,))] + \
        [Sample((random_array(rng, (5, 6), dtype, (-4, 4), (-8, 8)).T,), name="transposed")]


def np16(a):
    """numpy -> torch float32 for the oracle (16-bit widened), and the dtype name to round back to."""
    name = "bfloat16" if a.dtype == np.dtype(bfloat16) else str(a.dtype)
    t = torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16) if name == "bfloat16" \
        else torch.from_numpy(np.ascontiguousarray(a))
    return t.float(), name


def back16(t, name):
    t = t.to(getattr(torch, name)).contiguous()
    return t.view(torch.int16).numpy().view(bfloat16) if name == "bfloat16" else t.numpy()


def geglu_ref(x, dim, approximate, left=False):
    t, name = np16(x)
    a, b = t.chunk(2, dim)
    act, other = (a, b) if left else (b, a)
    ge = F.gelu(act, approximate="tanh" if approximate == 1 else "none")
    return back16(ge * other, name), back16(ge, name)


def geglu_grad_ref(g, x, gelu, dim, approximate, left=False):
    gt, name = np16(g)
    t, _ = np16(x)
    t.requires_grad_(True)
    a, b = t.chunk(2, dim)
    act, other = (a, b) if left else (b, a)
    (F.gelu(act, approximate="tanh" if approximate == 1 else "none") * other).backward(gt)
    return (back16(t.grad, name),)


def geglu_samples(v3, grad):
    def gen(dtype, rng):
        out = []
        for shape, dim, approx, left in (((4, 6), -1, 1, False), ((2, 4, 6), 1, 0, True), ((3, 8), 1, 1, True),
                                         ((2, 34000), 1, 0, False)):
            if not v3 and left:
                continue
            x = random_array(rng, shape, dtype, (-4, 4), (-8, 8))
            attrs = (dim, approx) + ((left,) if v3 else ())
            if grad:
                half = list(shape)
                half[dim] //= 2
                g = random_array(rng, tuple(half), dtype, (-4, 4), (-8, 8))
                out.append(Sample((g, x, np.zeros(tuple(half), x.dtype)) + attrs, name=f"{shape}"))
            else:
                out.append(Sample((x,) + attrs, name=f"{shape}"))
        return out
    return gen


def add_relu(a, b, alpha):
    r = a + alpha * b
    return r if r.dtype == torch.uint8 else torch.relu(r)


def sq_relu(x):
    return torch.relu(x) ** 2


ENTRIES += [
    OpInfo("aclnnAddRelu", add_relu,
           FLOATS + ("int8", "int16", "int32", "int64", "uint8"), attrs=((1,), (2,)), inplace="aclnnInplaceAddRelu"),
    OpInfo("aclnnSquaredRelu", sq_relu, FLOATS, kind="custom", samples=unary_no_scalar_samples),
    OpInfo("aclnnGlu", F.glu, FLOATS + ("float64",), kind="custom", samples=gated_samples(False)),
    OpInfo("aclnnGluBackward", aten.glu_backward, FLOATS + ("float64",), kind="custom", samples=gated_samples(True)),
    OpInfo("aclnnSwiGlu", swiglu, FLOATS, kind="custom", samples=gated_samples(False)),
    OpInfo("aclnnSwiGluGrad", swiglu_grad, FLOATS, kind="custom", samples=gated_samples(True)),
    OpInfo("aclnnGeGlu", geglu_ref, FLOATS, kind="outputs", samples=geglu_samples(False, False)),
    OpInfo("aclnnGeGluV3", geglu_ref, FLOATS, kind="outputs", samples=geglu_samples(True, False)),
    OpInfo("aclnnGeGluBackward", geglu_grad_ref, FLOATS, kind="outputs", samples=geglu_samples(False, True)),
    OpInfo("aclnnGeGluV3Backward", geglu_grad_ref, FLOATS, kind="outputs", samples=geglu_samples(True, True)),
]


def prelu_samples(grad):
    def gen(dtype, rng):
        out = []
        for shape, nw in (((2, 3, 4), 3), ((2, 3, 4), 1), ((5,), 1), ((4, 6, 3000), 6)) + (() if grad else (((), 1),)):
            x = random_array(rng, shape, dtype, (-4, 4), (-8, 8))
            w = random_array(rng, (nw,), dtype, (0.1, 0.9), (1, 2))
            if grad:
                g = random_array(rng, shape, dtype, (-4, 4), (-8, 8))
                out.append(Sample((g, x, w), name=f"{shape} {nw}"))
            else:
                out.append(Sample((x, w), name=f"{shape} {nw}"))
        return out
    return gen


def prelu_grad_ref(g, x, w):
    gt, name = np16(g)
    xt, _ = np16(x)
    wt, _ = np16(w)
    xt.requires_grad_(True)
    wt.requires_grad_(True)
    F.prelu(xt, wt).backward(gt)
    return back16(xt.grad, name), back16(wt.grad, name)


ENTRIES += [
    OpInfo("aclnnPrelu", lambda x, w: F.prelu(x, w), FLOATS, kind="custom", samples=prelu_samples(False)),
    OpInfo("aclnnPreluBackward", prelu_grad_ref, FLOATS, kind="outputs", samples=prelu_samples(True),
           tol={"float32": (1e-5, 1e-4), "float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2)}),
]


# ---- gated operators of generated entry points ----------------------------------------------------------------

def halves(t, dim, interleaved=False):
    """The two halves of t: along dim, or (interleaved) the even and odd positions of the axis the dimensions
    from dim on make."""
    if not interleaved:
        return t.chunk(2, dim)
    flat = t.reshape(*t.shape[:dim], -1)
    return flat[..., 0::2], flat[..., 1::2]


def gated_ref(fn, grad=False):
    """A ref of kind 'outputs' from fn(*float32 tensors, *attrs), 16-bit inputs widened and the result rounded."""
    def ref(*args):
        tensors = [np16(a) for a in args if isinstance(a, np.ndarray)]
        name = tensors[0][1]
        rest = [a for a in args if not isinstance(a, np.ndarray)]
        return (back16(fn(*[t for t, _ in tensors], *rest), name),)
    return ref


def gated_gen_samples(kind):
    def gen(dtype, rng):
        out = []
        shapes = [((3, 8), -1), ((2, 4, 6), -1), ((4, 2050), -1)] if kind in ("fatrelu", "gelu_mul") else \
            [((3, 8), -1), ((2, 4, 6), 1), ((2, 3, 4), 2), ((2, 17000), 1)]
        for shape, dim in shapes:
            x = random_array(rng, shape, dtype, (-8, 8), (-8, 8))
            if kind == "fatrelu" and shape[-1] <= 1024:
                out.append(Sample((x, np.array([0.5], x.dtype)), name=f"{shape}"))
            elif kind == "gelu_mul" and shape[-1] <= 1024:
                for mode in ("none", "tanh"):
                    out.append(Sample((x, mode), name=f"{shape} {mode}"))
            elif kind in ("situ", "situ_grad"):
                for beta, lb, left in ((1.0, 0.0, True), (0.7, 2.0, False)):
                    if kind == "situ":
                        out.append(Sample((x, dim, beta, lb, left), name=f"{shape} {beta} {lb} {left}"))
                    else:
                        half = list(shape)
                        half[dim] //= 2
                        g = random_array(rng, tuple(half), dtype, (-2, 2), (-8, 8))
                        out.append(Sample((g, x, dim, beta, lb, left), name=f"{shape} {beta} {lb} {left}"))
            elif kind.startswith("clipped"):
                for alpha, limit, bias, inter, mode in ((1.702, 7.0, 1.0, True, 0), (1.0, 3.0, 0.5, False, 1)):
                    if kind == "clipped":
                        out.append(Sample((x, None, dim, alpha, limit, bias, inter), name=f"{shape} {inter}"))
                    elif kind == "clipped_v2":
                        out.append(Sample((x, None, dim, alpha, limit, bias, inter, mode), name=f"{shape} {mode}"))
                    else:
                        half = list(shape)
                        half[dim] //= 2
                        g = random_array(rng, tuple(half), dtype, (-2, 2), (-8, 8))
                        out.append(Sample((g, x, None, dim, alpha, limit, bias, inter), name=f"{shape} {inter}"))
        return out
    return gen


def fatrelu(x, th):
    a, b = x.chunk(2, -1)
    return torch.where(a < th.reshape(()), torch.zeros_like(a), a) * b


def gelu_mul(x, mode):
    a, b = x.chunk(2, -1)
    return F.gelu(a, approximate=mode) * b


def situ_parts(x, dim, beta, lb, left):
    a, b = x.chunk(2, dim)
    gate, up = (a, b) if left else (b, a)
    up = lb * torch.tanh(up / lb) if lb > 0 else up
    return beta * torch.tanh(gate / beta) * torch.sigmoid(gate) * up


def situ_grad(g, x, dim, beta, lb, left):
    x = x.detach().double().requires_grad_(True)
    situ_parts(x, dim, beta, lb, left).backward(g.double())
    return x.grad


def clipped(x, group, dim, alpha, limit, bias, inter, mode=0):
    a, b = halves(x, dim if dim >= 0 else x.dim() + dim, inter)
    bc = b.clamp(-limit, limit)
    y = (a * torch.sigmoid(a)).clamp(max=limit) * bc if mode == 1 else \
        a.clamp(max=limit) * torch.sigmoid(alpha * a.clamp(max=limit)) * (bc + bias)
    shape = list(x.shape)
    shape[dim] //= 2
    return y.reshape(shape)


def clipped_grad(g, x, group, dim, alpha, limit, bias, inter):
    x = x.detach().double().requires_grad_(True)
    d = dim if dim >= 0 else x.dim() + dim
    a, b = halves(x, d, inter)
    a_c = torch.where(a <= limit, a, torch.full_like(a, limit))  # the clamp's gradient: 1 at the limit itself
    b_c = torch.where((b >= -limit) & (b <= limit), b, b.clamp(-limit, limit).detach())
    y = a_c * torch.sigmoid(alpha * a_c) * (b_c + bias)
    y.reshape(g.shape).backward(g.double())
    return x.grad


GATED_TOL = {"float32": (2e-6, 2e-5), "float16": (2e-3, 2e-3), "bfloat16": (1e-2, 1e-2)}
ENTRIES += [
    OpInfo("aclnnFatreluMul", gated_ref(fatrelu), FLOATS, kind="outputs", samples=gated_gen_samples("fatrelu")),
    OpInfo("aclnnGeluMul", gated_ref(gelu_mul), FLOATS, kind="outputs", samples=gated_gen_samples("gelu_mul")),
    OpInfo("aclnnSituGlu", gated_ref(situ_parts), FLOATS, kind="outputs", samples=gated_gen_samples("situ"),
           tol=GATED_TOL),
    OpInfo("aclnnSituGluGrad", gated_ref(situ_grad), FLOATS, kind="outputs", samples=gated_gen_samples("situ_grad"),
           tol=GATED_TOL),
    OpInfo("aclnnClippedSwiglu", gated_ref(clipped), FLOATS, kind="outputs", samples=gated_gen_samples("clipped"),
           tol=GATED_TOL),
    OpInfo("aclnnClippedSwigluV2", gated_ref(clipped), FLOATS, kind="outputs",
           samples=gated_gen_samples("clipped_v2"), tol=GATED_TOL),
    OpInfo("aclnnClippedSwigluGrad", gated_ref(clipped_grad), FLOATS, kind="outputs",
           samples=gated_gen_samples("clipped_grad"), tol=GATED_TOL),
]


# ---- randomised leaky relu, BCE-with-logits target backward ---------------------------------------------------

M32 = np.uint64(0xFFFFFFFF)


def philox_uniform(n, seed, offset):
    """The stub's documented draws: Philox4x32-10 keyed by seed, block offset + i // 4, word i % 4, 24 bits."""
    blocks = (n + 3) // 4
    ctr = np.uint64(offset) + np.arange(blocks, dtype=np.uint64)
    c = [ctr & M32, ctr >> np.uint64(32), np.zeros(blocks, np.uint64), np.zeros(blocks, np.uint64)]
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64((seed >> 32) & 0xFFFFFFFF)
    for _ in range(10):
        p0, p1 = np.uint64(0xD2511F53) * c[0], np.uint64(0xCD9E8D57) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & M32, (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & M32]
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & M32, (k1 + np.uint64(0xBB67AE85)) & M32
    words = np.stack(c, axis=1).reshape(-1)[:n]
    return (words >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)


def rrelu_ref(x, noise, lower, upper, training, seed, offset):
    """On the operands' own dtypes (native16): the slope or the noise in float32, the noise rounded to x's type."""
    lo, hi = np.float32(lower), np.float32(upper)
    xf = x.float()
    if not training:
        slope = float((lo + hi) / np.float32(2))
        return torch.where(xf > 0, xf, xf * slope).to(x.dtype)
    u = torch.from_numpy(philox_uniform(x.numel(), seed, offset)).reshape(x.shape)
    a = (torch.tensor(lo) + u * torch.tensor(hi - lo)).to(x.dtype).float()
    return (xf * torch.where(xf < 0, a, torch.ones_like(a))).to(x.dtype)


def rrelu_samples(dtype, rng):
    out = []
    for shape, noise_shape in (((3, 8), (3, 8)), ((2, 3, 4), (2, 3, 4)), ((5, 7), (6, 7)), ((64, 300), (64, 300))):
        x = random_array(rng, shape, dtype, (-4, 4), (-8, 8))
        noise = np.zeros(noise_shape, x.dtype)
        for attrs in ((0.1, 0.5, False, 0, 0), (0.1, 0.5, True, 7, 3), (0.125, 1 / 3, True, 2 ** 40 + 5, 11)):
            if attrs[2] or shape == noise_shape:
                out.append(Sample((x, noise), attrs, f"{shape} noise {noise_shape}"))
    return out


def bce_target_grad(g, x, target, w, pw, reduction):
    t = target.detach().double().requires_grad_(True)
    loss = F.binary_cross_entropy_with_logits(x.double(), t, weight=None if w is None else w.double(),
                                              pos_weight=None if pw is None else pw.double(),
                                              reduction=("none", "mean", "sum")[reduction])
    loss.backward(g.double().expand(loss.shape) if reduction == 0 else g.double().reshape(()))
    return t.grad.to(target.dtype)


def bce_target_samples(dtype, rng):
    out = []
    shape = (2, 3, 40)
    for reduction in (0, 1, 2):
        for with_w, with_pw, g_shape in ((True, True, shape), (False, True, (40,)), (True, False, ()),
                                         (False, False, (3, 1))):
            if reduction and g_shape != ():
                continue
            if not reduction and g_shape == ():
                g_shape = (1,)
            x = random_array(rng, shape, dtype, (-6, 6), (-8, 8))
            t = random_array(rng, shape, dtype, (0, 1), (0, 1))
            g = random_array(rng, g_shape, dtype, (-2, 2), (-8, 8))
            w = random_array(rng, (3, 1), dtype, (0.1, 2), (1, 2)) if with_w else None
            pw = random_array(rng, (40,), dtype, (0.1, 3), (1, 2)) if with_pw else None
            out.append(Sample((g, x, t, w, pw), (reduction,), f"{reduction} w={with_w} pw={with_pw} g={g_shape}"))
    out.append(Sample((np.zeros((2, 0), x.dtype),) * 3 + (None, None), (0,), "empty"))
    return out


ENTRIES += [
    OpInfo("aclnnRReluWithNoise", rrelu_ref, FLOATS, kind="custom", samples=rrelu_samples, native16=True,
           inplace="aclnnInplaceRReluWithNoise"),
    OpInfo("aclnnBinaryCrossEntropyWithLogitsTargetBackward", bce_target_grad, FLOATS, kind="custom",
           samples=bce_target_samples, tol={"float32": (2e-6, 1e-6), "float16": (1e-3, 1e-3),
                                            "bfloat16": (8e-3, 8e-3)}),
]
