"""ops-nn foreach operators (foreach/): tensor lists of several shapes (0-d, empty, transposed, a long entry run on
the threads), every scalar form (aclScalar, a device tensor of one value or one per entry, aclScalarList), against
torch applied entry by entry. A foreach ref takes the call's inputs (numpy) and returns its outputs (numpy)."""

from __future__ import annotations

import numpy as np
import torch

from . import OpInfo, Sample, np_dtype, random_array

F3 = ("float32", "float16", "bfloat16")
F3_I32 = F3 + ("int32",)
F3_INTS = F3 + ("int32", "int16", "int8", "uint8")
LOW = ("float16", "bfloat16")
TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
         "int32": torch.int32, "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8, "int64": torch.int64,
         "bool": torch.bool}


def dtype_name(a) -> str:
    return "bfloat16" if a.dtype == np_dtype("bfloat16") else str(a.dtype)


def to_t(a: np.ndarray) -> torch.Tensor:
    """A list entry as torch computes the oracle: 16-bit floats widened to float32."""
    name = dtype_name(a)
    a = np.array(a, order="C")
    t = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) if name == "bfloat16" else torch.from_numpy(a)
    return t.float() if name in LOW else t


def to_np(t: torch.Tensor, name: str) -> np.ndarray:
    t = t.to(TORCH[name]).contiguous()
    if name == "bfloat16":
        return t.view(torch.int16).numpy().view(np_dtype("bfloat16"))
    return t.numpy()


def scalar_as(value, name: str):
    """The scalar as the op_api converts it for lists of dtype name (FLOAT16 for FLOAT16 lists, float32 for the
    other floating ones, int for integers)."""
    if name == "float16":
        return float(np.float16(value))
    if name in F3:
        return float(np.float32(value))
    return int(value)


def per_entry(fn, nlists, scalar=None, scalar_first=False):
    """A ref applying fn(entry tensors..., scalar) entry by entry. scalar: None, "one" (one value: a number or a
    one-element array) or "per" (a sequence or array of one value per entry)."""
    def ref(*ops):
        if scalar_first:
            ops = ops[1:] + ops[:1]
        lists, rest = ops[:nlists], ops[nlists:]
        outs = []
        for i in range(len(lists[0])):
            name = dtype_name(lists[0][i])
            args = [to_t(lst[i]) for lst in lists]
            if scalar is not None:
                s = rest[0]
                if scalar == "per":
                    s = np.asarray(s).reshape(-1)[i] if isinstance(s, np.ndarray) else s[i]
                elif isinstance(s, np.ndarray):
                    s = s.reshape(-1)[0]
                args.append(scalar_as(float(s) if name in F3 else int(s), name))
            outs.append(to_np(fn(*args), name))
        return (outs,)
    return ref


def int_wrap(fn):
    """fn on integers in int64, wrapped to the list's type (the device's integer arithmetic)."""
    def g(*args):
        t = args[0]
        if t.is_floating_point():
            return fn(*args)
        wide = [a.long() if isinstance(a, torch.Tensor) else a for a in args]
        return fn(*wide).to(t.dtype)
    return g


def sat_int(fn):
    """fn computed in double; integer results truncated and saturated to the list's type."""
    def g(t):
        if t.is_floating_point():
            return fn(t)
        info = torch.iinfo(t.dtype)
        r = torch.nan_to_num(fn(t.double()), nan=0.0)
        return torch.trunc(r).clamp(info.min, info.max).to(t.dtype)
    return g


def fmax(a, b):
    b = torch.as_tensor(b, dtype=a.dtype) if not isinstance(b, torch.Tensor) else b
    return torch.maximum(a, b)


def fmin(a, b):
    b = torch.as_tensor(b, dtype=a.dtype) if not isinstance(b, torch.Tensor) else b
    return torch.minimum(a, b)


def round_mode(x, mode):
    if not x.is_floating_point():
        return torch.zeros_like(x) if mode == 7 else x
    fns = {1: torch.round, 2: torch.floor, 3: torch.ceil, 4: lambda v: torch.sign(v) * torch.floor(v.abs() + 0.5),
           5: torch.trunc, 7: lambda v: v - torch.trunc(v)}
    return fns.get(mode, lambda v: v)(x.double()).float()


# ---- samples ---------------------------------------------------------------------------------------------------

SHAPES = [(2, 3), (5,), (), (0, 4), (33000,), "transposed"]


def make_list(rng, dtype, domain, int_domain, shapes=SHAPES):
    out = []
    for s in shapes:
        if s == "transposed":
            out.append(random_array(rng, (4, 6), dtype, domain, int_domain).T)
        else:
            out.append(random_array(rng, s, dtype, domain, int_domain))
    return out


def like(rng, lst, dtype, domain, int_domain):
    return [random_array(rng, a.shape, dtype, domain, int_domain) for a in lst]


def samples_of(nlists, scalar=None, domain=(-4.0, 4.0), int_domain=(-8, 8), scalar_values=(1.5, -0.75),
               int_scalars=(3, -2), scalar_domain=None):
    """Samples: nlists lists of one shape set, and the scalar in the given form: "aclScalar", "tensor" (one value,
    the device type of the generated entry points), "same" (one value per entry, of the lists' dtype, as a
    tensor), "list" (an aclScalarList)."""
    def gen(dtype, rng):
        out = []
        for k, (sv, iv) in enumerate(zip(scalar_values, int_scalars)):
            first = make_list(rng, dtype, domain, int_domain, SHAPES if k == 0 else SHAPES[:3])
            lists = [first] + [like(rng, first, dtype, domain, int_domain) for _ in range(nlists - 1)]
            value = sv if dtype in F3 else iv
            if scalar is None:
                ops = tuple(lists)
            elif scalar == "aclScalar":
                ops = (*lists, value)
            elif scalar == "tensor":
                tdt = "float16" if dtype == "float16" else "float32" if dtype in F3 else "int32"
                ops = (*lists, np.array([value], np_dtype(tdt)))
            elif scalar == "same":
                vals = rng.uniform(*(scalar_domain or (-2, 2)), len(first)) if dtype in F3 else \
                    rng.integers(-3, 4, len(first))
                ops = (*lists, np.asarray(vals, np.float32).astype(np_dtype(dtype)))
            else:  # an aclScalarList
                ops = (*lists, [value + j for j in range(len(first))])
            out.append(Sample(ops, name=f"{scalar or 'lists'} {value}"))
        return out
    return gen


def entry(name, fn, dtypes, nlists=1, scalar=None, sample_scalar=None, **kw):
    """One foreach entry: the ref from fn (entry by entry), samples with the scalar in form sample_scalar."""
    sample_kw = {k: kw.pop(k) for k in list(kw) if k in ("domain", "int_domain", "scalar_values", "int_scalars",
                                                           "scalar_domain")}
    ref = per_entry(fn, nlists, scalar)
    return OpInfo(name, ref, dtypes, kind="outputs", samples=samples_of(nlists, sample_scalar, **sample_kw), **kw)


POS = {"domain": (0.1, 4.0)}
UNIT = {"domain": (-0.95, 0.95)}
NONZERO = {"domain": (0.25, 4.0)}

UNARY = [
    ("Abs", torch.abs, F3, {}), ("Acos", torch.acos, F3, UNIT), ("Asin", torch.asin, F3, UNIT),
    ("Atan", torch.atan, F3, {}), ("Cos", torch.cos, F3, {}), ("Cosh", torch.cosh, F3, {}),
    ("Erf", torch.erf, F3, {}), ("Erfc", torch.erfc, F3, {}),
    ("Exp", sat_int(torch.exp), F3 + ("int16", "int8", "uint8"), {"int_domain": (-3, 6)}),
    ("Expm1", sat_int(torch.expm1), F3 + ("int16", "int8", "uint8"), {"int_domain": (-3, 6)}),
    ("Log", torch.log, F3, POS), ("Log10", torch.log10, F3, POS), ("Log1p", torch.log1p, F3, POS),
    ("Log2", torch.log2, F3, POS), ("Neg", int_wrap(torch.neg), F3_INTS, {"int_domain": (-128, 127)}),
    ("Reciprocal", torch.reciprocal, F3, NONZERO), ("Sigmoid", torch.sigmoid, F3, {}),
    ("Sign", torch.sign, F3 + ("int8", "int32", "int64"), {}), ("Sin", torch.sin, F3, {}),
    ("Sinh", torch.sinh, F3, {}), ("Sqrt", torch.sqrt, F3, POS), ("Tan", torch.tan, F3, UNIT),
    ("Tanh", torch.tanh, F3, {}),
]

BIG_INT = {"int_domain": (-100, 100)}
SCALAR_OPS = [  # (base, fn(x, s), V1 dtypes, V2 dtypes, list dtypes, sample options)
    ("Add", int_wrap(lambda x, s: x + s), F3_INTS, F3_INTS, F3_I32, BIG_INT),
    ("Sub", int_wrap(lambda x, s: x - s), F3_I32, F3_I32, F3_I32, BIG_INT),
    ("Mul", int_wrap(lambda x, s: x * s), F3_I32, F3_I32, F3_I32, BIG_INT),
    ("Maximum", fmax, F3_I32, F3_I32, F3_I32, {}),
    ("Minimum", fmin, F3_I32, F3_I32, F3_I32, {}),
    ("Pow", lambda x, s: torch.pow(x, s), F3_I32, F3_I32, F3_I32,
     {"domain": (0.25, 3.0), "int_domain": (-3, 3), "int_scalars": (3, 2)}),
]

ENTRIES = [entry(f"aclnnForeach{n}", fn, dt, **opts) for n, fn, dt, opts in UNARY]
for base, fn, v1, v2, lst, opts in SCALAR_OPS:
    ENTRIES += [
        entry(f"aclnnForeach{base}Scalar", fn, v1, scalar="one", sample_scalar="tensor", **opts),
        entry(f"aclnnForeach{base}ScalarV2", fn, v2, scalar="one", sample_scalar="aclScalar", **opts),
        entry(f"aclnnForeach{base}ScalarList", fn, lst, scalar="per", sample_scalar="list", **opts),
    ]

ENTRIES += [
    entry("aclnnForeachDivScalar", lambda x, s: x / s, F3, scalar="one", sample_scalar="tensor"),
    entry("aclnnForeachDivScalarV2", lambda x, s: x / s, F3, scalar="one", sample_scalar="aclScalar"),
    entry("aclnnForeachDivScalarList", lambda x, s: x / s, F3, scalar="per", sample_scalar="list"),
    entry("aclnnForeachAddList", int_wrap(lambda a, b, s: a + s * b), F3_I32, nlists=2, scalar="one",
          sample_scalar="tensor", **BIG_INT),
    entry("aclnnForeachAddListV2", int_wrap(lambda a, b, s: a + s * b), F3_INTS, nlists=2, scalar="one",
          sample_scalar="aclScalar", **BIG_INT),
    entry("aclnnForeachSubList", int_wrap(lambda a, b, s: a - s * b), F3_INTS, nlists=2, scalar="one",
          sample_scalar="tensor", **BIG_INT),
    entry("aclnnForeachSubListV2", int_wrap(lambda a, b, s: a - s * b), F3_INTS, nlists=2, scalar="one",
          sample_scalar="aclScalar", **BIG_INT),
    entry("aclnnForeachMulList", int_wrap(lambda a, b: a * b), F3_INTS, nlists=2, **BIG_INT),
    entry("aclnnForeachDivList", lambda a, b: a / b, F3, nlists=2, **NONZERO),
    entry("aclnnForeachMaximumList", torch.maximum, F3_I32, nlists=2),
    entry("aclnnForeachMinimumList", torch.minimum, F3_I32, nlists=2),
    entry("aclnnForeachPowList", torch.pow, F3_I32, nlists=2, domain=(0.25, 3.0), int_domain=(0, 3)),
    entry("aclnnForeachLerpList", torch.lerp, F3, nlists=3),
    entry("aclnnForeachLerpScalar", lambda a, b, w: torch.lerp(a, b, w), F3, nlists=2, scalar="one",
          sample_scalar="aclScalar", scalar_values=(0.25, 0.75)),
    entry("aclnnForeachAddcmulScalar", int_wrap(lambda a, b, c, s: a + s * b * c), F3_I32, nlists=3, scalar="one",
          sample_scalar="tensor", int_domain=(-20, 20)),
    entry("aclnnForeachAddcmulScalarV2", int_wrap(lambda a, b, c, s: a + s * b * c), F3_I32, nlists=3,
          scalar="one", sample_scalar="aclScalar", int_domain=(-20, 20)),
    entry("aclnnForeachAddcmulScalarList", int_wrap(lambda a, b, c, s: a + s * b * c), F3_I32, nlists=3,
          scalar="per", sample_scalar="same", int_domain=(-20, 20)),
    entry("aclnnForeachAddcmulList", int_wrap(lambda a, b, c, s: a + s * b * c), F3_I32, nlists=3, scalar="per",
          sample_scalar="same", int_domain=(-20, 20)),
    entry("aclnnForeachAddcdivScalar", lambda a, b, c, s: a + s * b / c, F3, nlists=3, scalar="one",
          sample_scalar="tensor", **NONZERO),
    entry("aclnnForeachAddcdivScalarV2", lambda a, b, c, s: a + s * b / c, F3, nlists=3, scalar="one",
          sample_scalar="aclScalar", **NONZERO),
    entry("aclnnForeachAddcdivScalarList", lambda a, b, c, s: a + s * b / c, F3, nlists=3, scalar="per",
          sample_scalar="same", **NONZERO),
    entry("aclnnForeachAddcdivList", lambda a, b, c, s: a + s * b / c, F3, nlists=3, scalar="per",
          sample_scalar="same", **NONZERO),
]


def pow_scalar_and_tensor_samples(dtype, rng):
    out = []
    for base in ((2.5, 0.5) if dtype in F3 else (2, 3)):
        x = make_list(rng, dtype, (-2.0, 2.0), (0, 4))
        out.append(Sample((base, x), name=f"base {base}"))
    return out


def pow_scalar_and_tensor(base, xs):
    outs = []
    for x in xs:
        name = dtype_name(x)
        outs.append(to_np(torch.pow(scalar_as(base, name), to_t(x)), name))
    return (outs,)


def round_off_samples(v2):
    def gen(dtype, rng):
        out = []
        for mode in (1, 2, 3, 4, 5, 7, 0):
            x = make_list(rng, dtype, (-6.0, 6.0), (-100, 100), SHAPES[:3] + ["transposed"])
            m = mode if v2 else np.array([mode], np.int8)
            out.append(Sample((x, m), name=f"mode {mode}"))
        return out
    return gen


def round_off(xs, mode):
    mode = int(np.asarray(mode).reshape(-1)[0])
    return ([to_np(round_mode(to_t(x), mode), dtype_name(x)) for x in xs],)


def copy_samples(dtype, rng):
    out = []
    targets = {"float32": ("float32", "float16", "bfloat16"), "float16": ("float16", "float32"),
               "bfloat16": ("bfloat16", "float32")}.get(dtype, (dtype,))
    for t in targets:
        x = make_list(rng, dtype, (-4.0, 4.0), (-100, 100))
        out.append(Sample((x,), (tuple(np.zeros(a.shape, np_dtype(t)) for a in x),), name=f"to {t}"))
    return out


def copy_ref(xs, outs):
    return ([to_np(to_t(x), dtype_name(o)) for x, o in zip(xs, outs)],)


def norm_samples(dtype, rng):
    out = []
    for p in (2.0, 1.0, 3.0, float("inf"), 0.0):
        x = make_list(rng, dtype, (-3.0, 3.0), (-8, 8), [(2, 3), (5,), (), (40,), "transposed"])
        out.append(Sample((x, p), name=f"p {p}"))
    return out


def norm(xs, p):
    outs = []
    for x in xs:
        t = to_t(x).double().reshape(-1)
        r = torch.linalg.vector_norm(t, ord=p) if t.numel() else torch.zeros((), dtype=torch.float64)
        outs.append(to_np(r.reshape(1), dtype_name(x)))
    return (outs,)


def non_finite_samples(dtype, rng):
    out = []
    for with_inf in (False, True):
        g = make_list(rng, dtype, (-4.0, 4.0), (-8, 8), [(2, 3), (5,), (33000,), "transposed"])
        if with_inf:
            g[1] = g[1].copy()
            g[1][2] = np.inf
        out.append(Sample((np.array([0.5], np.float32),), (g, np.array([0.0], np.float32)),
                          name=f"inf {with_inf}"))
    return out


def non_finite(inv, grads, found):
    bad = any(not np.isfinite(np.asarray(g, np.float32)).all() for g in grads)
    scaled = [to_np(to_t(g) * float(inv[0]), dtype_name(g)) for g in grads]
    return scaled, np.array([1.0], np.float32) if bad else found


def zero_samples(dtype, rng):
    return [Sample((), (make_list(rng, dtype, (-4.0, 4.0), (-8, 8)),), name="zero")]


def zero(xs):
    return ([np.zeros_like(x) for x in xs],)


COPY_DT = F3 + ("int32", "int8", "uint8", "int16", "int64", "float64", "bool")

ENTRIES += [
    OpInfo("aclnnForeachPowScalarAndTensor", pow_scalar_and_tensor, F3_I32, kind="outputs",
           samples=pow_scalar_and_tensor_samples),
    OpInfo("aclnnForeachRoundOffNumber", round_off, F3 + ("int16",), kind="outputs", samples=round_off_samples(False)),
    OpInfo("aclnnForeachRoundOffNumberV2", round_off, F3 + ("int32", "int16"), kind="outputs",
           samples=round_off_samples(True)),
    OpInfo("aclnnForeachNorm", norm, F3, kind="outputs", samples=norm_samples,
           tol={"float32": (2e-6, 1e-5), "bfloat16": (8e-3, 8e-3), "float16": (1e-3, 1e-3)}),
    OpInfo("aclnnForeachCopy", copy_ref, COPY_DT, kind="outputs", samples=copy_samples),
    OpInfo("aclnnForeachZeroInplace", zero, F3 + ("int32", "int16"), kind="outputs", samples=zero_samples,
           kwargs={"outputs": "x"}),
    OpInfo("aclnnForeachNonFiniteCheckAndUnscale", non_finite, F3, kind="outputs", samples=non_finite_samples,
           kwargs={"outputs": ("scaledGrads", "foundInf")}),
]
