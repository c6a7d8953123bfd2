"""ops-math random operators: uniform, normal, Bernoulli, dropout (with its mask), randperm, multinomial. The stub's
numbers are its own (Philox 4x32-10, see docs/guide/random.md), not the device's bits, so each entry's call runs the
operator on a large sample with a fixed seed and returns statistics the oracle knows: the sample mean and spread
against the distribution's (several standard errors of room, deterministic since the seed is fixed), the support
(bounds, {0, 1}, a permutation), and DropoutDoMask, which is deterministic, exactly."""

from __future__ import annotations

import numpy as np

import aclnn_py
from aclnn_py import acl

from . import FLOATS, OpInfo, Sample, np_dtype

SHAPE = (256, 512)  # 131072 values: the mean of a unit-variance sample has a standard error of 0.0028
STAT_TOL = {d: (0.0, 0.02) for d in FLOATS + ("float64",)}
SEED = 1234


def f64(a):
    return np.asarray(a).astype(np.float64)


def one(name, attrs):
    return lambda dtype, rng: [Sample((), attrs + (dtype,), name)]


# ---- uniform and normal --------------------------------------------------------------------------------------------

def call_uniform(sample, expected):
    lo, hi, dtype = sample.attrs
    x = np.zeros(SHAPE, np_dtype(dtype))
    aclnn_py.run("aclnnInplaceUniform", x, lo, hi, SEED, 0)
    v = f64(x)
    return np.array([v.mean(), v.var(), float(v.min() >= lo), float(v.max() <= hi)])


def ref_uniform(lo, hi, dtype):
    return np.array([(lo + hi) / 2, (hi - lo) ** 2 / 12, 1.0, 1.0])


def normal_stats(v, mean, std):
    z = (f64(v) - mean) / std
    return np.array([z.mean(), z.std(), np.mean(np.abs(z) < 1)])


NORMAL_EXPECTED = np.array([0.0, 1.0, 0.6826894921370859])


def call_inplace_normal(sample, expected):
    mean, std, dtype = sample.attrs
    x = np.zeros(SHAPE, np_dtype(dtype))
    aclnn_py.run("aclnnInplaceNormal", x, mean, std, SEED, 0)
    return normal_stats(x, mean, std)


def normal_operands(kind, dtype):
    """mean and std as the variant takes them: mean varies along the rows, std along the columns (broadcast against
    each other where the variant allows it)"""
    rows = np.linspace(-2, 2, SHAPE[0]).reshape(-1, 1)
    cols = np.linspace(0.5, 3, SHAPE[1]).reshape(1, -1)
    mean = rows.astype(np_dtype(dtype)) if kind[0] == "T" else 0.75
    std = cols.astype(np_dtype(dtype)) if kind[1] == "T" else 1.5
    if kind == "FT":  # NormalFloatTensor: std has out's shape (no broadcasting)
        std = np.broadcast_to(std, SHAPE).copy()
    return mean, std


def call_normal_out(kind):
    def call(sample, expected):
        (dtype,) = sample.attrs
        mean, std = normal_operands(kind, dtype)
        out = np.zeros(SHAPE, np_dtype(dtype))
        aclnn_py.run(f"aclnnNormal{'Tensor' if kind[0] == 'T' else 'Float'}{'Tensor' if kind[1] == 'T' else 'Float'}",
                     mean, std, SEED, 0, out=out)
        return normal_stats(out, f64(mean), f64(std))
    return call


# ---- Bernoulli and dropout ------------------------------------------------------------------------------------------

def bernoulli_stats(x, p):
    v = f64(x)
    return np.array([float(np.isin(v, (0.0, 1.0)).all()), (v - p).mean() / 0.5])


def call_bernoulli(name):
    def call(sample, expected):
        (dtype,) = sample.attrs
        tensor = name.endswith("Tensor")
        p = np.linspace(0.0, 1.0, SHAPE[1]).astype(np.float32).reshape(1, -1) if tensor else 0.3
        self = np.full(SHAPE, 7, np_dtype(dtype))
        if name.startswith("aclnnInplace"):
            aclnn_py.run(name, self, p, SEED, 0)
            return bernoulli_stats(self, f64(p))
        out = np.zeros(SHAPE, np_dtype(dtype))
        aclnn_py.run(name, self, p, SEED, 0, out=out)
        return bernoulli_stats(out, f64(p))
    return call


def ref_bernoulli(dtype):
    return np.array([1.0, 0.0])


def mask_bits(mask, n):
    return np.unpackbits(np.asarray(mask, np.uint8), bitorder="little")[:n].astype(bool)


def call_dropout(sample, expected):
    p, dtype = sample.attrs
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 2.0, SHAPE).astype(np_dtype(dtype))
    out = np.zeros(SHAPE, np_dtype(dtype))
    n = x.size
    mask = np.zeros((n + 127) // 128 * 16, np.uint8)
    aclnn_py.run("aclnnDropout", x, p, True, SEED, 0, out=(out, mask))
    keep = mask_bits(mask, n).reshape(SHAPE)
    # the kept elements times float32(1 / (1 - p)), one float32 product rounded to the dtype
    scaled = (x.astype(np.float32) * np.float32(1 / (1 - p))).astype(np_dtype(dtype))
    consistent = np.array_equal(f64(out)[keep], f64(scaled)[keep]) and not f64(out)[~keep].any()
    return np.array([keep.mean(), float(consistent)])


def ref_dropout(p, dtype):
    return np.array([1 - p, 1.0])


def call_gen_mask(name):
    def call(sample, expected):
        (p,) = sample.attrs[:1]
        n = SHAPE[0] * SHAPE[1]
        mask = np.zeros((n + 127) // 128 * 16, np.uint8)
        extra = (acl.ACL_FLOAT,) if name.endswith("V2") else ()
        aclnn_py.run(name, list(SHAPE), p, SEED, 0, *extra, out=mask)
        return np.array([mask_bits(mask, n).mean()])
    return call


def ref_gen_mask(p, dtype):
    return np.array([1 - p])


def samples_do_mask(dtype, rng):
    res = []
    for shape, p in (((3, 50), 0.4), ((1000,), 0.1), ((2, 3), 0.0), ((4, 4), 1.0)):
        n = int(np.prod(shape))
        x = rng.uniform(-2, 2, shape).astype(np.float32).astype(np_dtype(dtype))
        mask = rng.integers(0, 256, (n + 127) // 128 * 16).astype(np.uint8)
        res.append(Sample((x, mask), (p,), f"{shape} p={p}"))
    return res


def ref_do_mask(x, mask, p):
    import torch
    xv = x.float().numpy().astype(np.float32)
    keep = mask_bits(mask.numpy(), xv.size).reshape(xv.shape)
    if p == 0:
        return x
    scaled = xv * np.float32(1 / (1 - p)) if p < 1 else np.zeros_like(xv)
    return torch.from_numpy(np.where(keep, scaled, 0).astype(np.float32)).to(x.dtype)


# ---- randperm and multinomial ---------------------------------------------------------------------------------------

def call_randperm(sample, expected):
    (dtype,) = sample.attrs
    # n within the integers the dtype holds exactly
    n = {"int8": 120, "uint8": 250, "int16": 30000, "bfloat16": 256, "float16": 2048}.get(dtype, 100000)
    out = np.zeros(n, np_dtype(dtype))
    aclnn_py.run("aclnnRandperm", n, SEED, 0, out=out)
    v = f64(out)
    corr = np.corrcoef(np.arange(n), v)[0, 1]
    return np.array([float(np.array_equal(np.sort(v), np.arange(n))), abs(corr) < 4 / np.sqrt(n) + 0.01])


def ref_randperm(dtype):
    return np.array([1.0, 1.0])


def call_multinomial(replacement):
    def call(sample, expected):
        (dtype,) = sample.attrs
        w = np.array([[1.0, 0.0, 3.0, 4.0, 2.0]], np.float32).astype(np_dtype(dtype))
        probs = f64(w)[0] / f64(w).sum()
        if replacement:
            out = np.zeros((1, 100000), np.int64)
            aclnn_py.run("aclnnMultinomial", w, 100000, True, SEED, 0, out=out)
            freq = np.bincount(out[0], minlength=5) / out.size
            return np.array([*freq, 1.0])
        rows = np.repeat(w, 20000, axis=0)
        out = np.zeros((20000, 4), np.int64)
        aclnn_py.run("aclnnMultinomial", rows, 4, False, SEED, 0, out=out)
        first = np.bincount(out[:, 0], minlength=5) / out.shape[0]
        distinct = all(len(set(r)) == 4 for r in out[:200]) and not (out == 1).any()
        return np.array([*first, float(distinct)]) if probs is not None else None
    return call


def ref_multinomial(dtype):
    p = np.array([1.0, 0.0, 3.0, 4.0, 2.0]) / 10
    return np.array([*p, 1.0])


def entry(name, ref, call, attrs, dtypes=FLOATS, tol=STAT_TOL):
    return OpInfo(name, lambda *a: ref(*a), dtypes, kind="custom", samples=one(name, attrs), call=call, tol=tol,
                  native16=True)


INT_TOL = {d: (0.0, 0.02) for d in ("int64", "int32", "int16", "int8", "uint8", "float64") + FLOATS}
ENTRIES = [
    entry("aclnnInplaceUniform", ref_uniform, call_uniform, (-1.0, 3.0), FLOATS + ("float64",)),
    entry("aclnnInplaceNormal", lambda m, s, d: NORMAL_EXPECTED, call_inplace_normal, (0.5, 2.0),
          FLOATS + ("float64",)),
    *[entry(f"aclnnNormal{a}{b}", lambda d: NORMAL_EXPECTED, call_normal_out(a[0] + b[0]), (), FLOATS + ("float64",))
      for a in ("Tensor", "Float") for b in ("Tensor", "Float")],
    *[entry(n, ref_bernoulli, call_bernoulli(n), (), FLOATS + ("float64", "int32", "bool"), INT_TOL | {"bool": (0, .02)})
      for n in ("aclnnBernoulli", "aclnnBernoulliTensor", "aclnnInplaceBernoulli", "aclnnInplaceBernoulliTensor")],
    entry("aclnnDropout", ref_dropout, call_dropout, (0.25,)),
    entry("aclnnDropoutGenMask", ref_gen_mask, call_gen_mask("aclnnDropoutGenMask"), (0.3,), ("float32",)),
    entry("aclnnDropoutGenMaskV2", ref_gen_mask, call_gen_mask("aclnnDropoutGenMaskV2"), (0.6,), ("float32",)),
    OpInfo("aclnnDropoutDoMask", ref_do_mask, FLOATS, kind="custom", samples=samples_do_mask),
    entry("aclnnRandperm", ref_randperm, call_randperm, (),
          ("int64", "int32", "int16", "int8", "uint8", "float32", "float16", "bfloat16", "float64"), INT_TOL),
    entry("aclnnMultinomial", ref_multinomial, call_multinomial(True), (), ("float32", "float16", "float64")),
]


# ---- the forms taking the seed and offset as device tensors: the same numbers as the attribute forms -------------

def call_seed_tensor(name, base, make):
    """name(..., seedTensor, offsetTensor, offset, ...) against base(..., seed, offset) with seed = seedTensor and
    offset = offsetTensor + offset: returns [equal]"""
    def call(sample, expected):
        (dtype,) = sample.attrs
        a, b = make(name, dtype, (np.array([SEED], np.int64), np.array([5], np.int64), 7)), make(base, dtype, (SEED, 12))
        return np.array([float(np.array_equal(a, b))])
    return call


def make_uniform(name, dtype, so):
    x = np.zeros(SHAPE, np_dtype(dtype))
    aclnn_py.run(name, x, -1.0, 1.0, *so)
    return x


def make_normal(name, dtype, so):
    x = np.zeros(SHAPE, np_dtype(dtype))
    aclnn_py.run(name, x, 0.0, 1.0, *so)
    return x


def make_mask(name, dtype, so):
    mask = np.zeros(SHAPE[0] * SHAPE[1] // 8, np.uint8)
    aclnn_py.run(name, list(SHAPE), 0.4, *so, acl.ACL_FLOAT, out=mask)
    return mask


def make_multinomial(name, dtype, so):
    out = np.zeros((64, 3), np.int64)
    aclnn_py.run(name, np.tile(np.array([1, 2, 3, 4], np_dtype(dtype)), (64, 1)), 3, False, *so, out=out)
    return out


EQUAL = lambda dtype: np.array([1.0])  # noqa: E731
ENTRIES += [
    entry("aclnnInplaceUniformTensor", EQUAL, call_seed_tensor("aclnnInplaceUniformTensor", "aclnnInplaceUniform",
                                                               make_uniform), (), FLOATS + ("float64",)),
    entry("aclnnInplaceNormalTensor", EQUAL, call_seed_tensor("aclnnInplaceNormalTensor", "aclnnInplaceNormal",
                                                              make_normal), (), FLOATS + ("float64",)),
    entry("aclnnDropoutGenMaskV2Tensor", EQUAL, call_seed_tensor("aclnnDropoutGenMaskV2Tensor",
                                                                 "aclnnDropoutGenMaskV2", make_mask), (), ("float32",)),
    entry("aclnnMultinomialTensor", EQUAL, call_seed_tensor("aclnnMultinomialTensor", "aclnnMultinomial",
                                                            make_multinomial), (), ("float32", "float16", "float64")),
]


# ---- random integers --------------------------------------------------------------------------------------------

DIGITS = {"float32": 24, "float16": 11, "bfloat16": 8, "float64": 53, "int8": 7, "uint8": 8, "int16": 15,
          "int32": 31, "int64": 63}


def random_range(dtype):
    return (0, 12) if dtype == "uint8" else (-5, 7)


def call_random(name):
    def call(sample, expected):
        (dtype,) = sample.attrs
        lo, hi = random_range(dtype)
        x = np.zeros(SHAPE, np_dtype(dtype))
        bounded = "WithoutFromTo" not in name
        so = (np.array([SEED], np.int64), np.array([0], np.int64), 0) if name.endswith("Tensor") else (SEED, 0)
        aclnn_py.run(name, x, *((lo, hi) if bounded else ()), *so)
        v = x.astype(np.float64) if dtype != "int64" else x
        if bounded:
            return np.array([float(v.min() >= lo and v.max() < hi), float((v == np.round(v)).all()), f64(v).mean()])
        top = 2.0 ** DIGITS[dtype] + (1 if dtype in FLOATS + ("float64",) else 0)
        return np.array([float(v.min() >= 0 and f64(v).max() < top), float((v == np.round(v)).all()),
                         f64(v).mean() / top])
    return call


def ref_random(dtype):
    lo, hi = random_range(dtype)
    return np.array([1.0, 1.0, (lo + hi - 1) / 2])


RANDOM_DTYPES = ("float32", "float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "int64")
RANDOM_TOL = {d: (0.0, 0.05) for d in RANDOM_DTYPES}


def samples_dropout_backward(dtype, rng):
    res = []
    for shape, scale in (((3, 50), 1.25), ((1000,), 4.0), ((2, 3), 1.0), ((4, 4), 0.0)):
        n = int(np.prod(shape))
        x = rng.uniform(-2, 2, shape).astype(np.float32).astype(np_dtype(dtype))
        mask = rng.integers(0, 256, (n + 127) // 128 * 16).astype(np.uint8)
        res.append(Sample((x, mask), (scale,), f"{shape} scale={scale}"))
    return res


def ref_dropout_backward(x, mask, scale):
    import torch
    xv = x.float().numpy().astype(np.float32)
    keep = mask_bits(mask.numpy(), xv.size).reshape(xv.shape)
    if scale == 1:
        return x
    return torch.from_numpy(np.where(keep, xv * np.float32(scale), 0).astype(np.float32)).to(x.dtype)


ENTRIES += [
    *[entry(n, ref_random, call_random(n), (), RANDOM_DTYPES, RANDOM_TOL)
      for n in ("aclnnInplaceRandom", "aclnnInplaceRandomTensor")],
    *[entry(n, lambda dtype: np.array([1.0, 1.0, 0.5]), call_random(n), (), RANDOM_DTYPES,
            {d: (0.0, 0.01) for d in RANDOM_DTYPES})
      for n in ("aclnnInplaceRandomWithoutFromTo", "aclnnInplaceRandomWithoutFromToTensor")],
    OpInfo("aclnnDropoutBackward", ref_dropout_backward, FLOATS, kind="custom", samples=samples_dropout_backward),
]


# ---- SimThreadExponential: Exp(lambda), mean 1 / lambda, variance 1 / lambda^2, P(x < 1 / lambda) = 1 - 1/e; the
# same numbers for the same seed and offset, and a call at offset n continues a call of n elements -------------------

def call_exponential(sample, expected):
    lam, dtype = sample.attrs
    x = np.zeros(SHAPE, np_dtype(dtype))
    aclnn_py.run("aclnnSimThreadExponential", x, x.size, lam, SEED, 0)
    again = np.zeros(SHAPE, np_dtype(dtype))
    aclnn_py.run("aclnnSimThreadExponential", again, again.size, lam, SEED, 0)
    head = np.zeros((100,), np_dtype(dtype))
    aclnn_py.run("aclnnSimThreadExponential", head, 100, lam, SEED, 0)
    tail = np.zeros((100,), np_dtype(dtype))
    aclnn_py.run("aclnnSimThreadExponential", tail, 100, lam, SEED, 100)
    v = f64(x) * lam
    same = float(np.array_equal(f64(x), f64(again)))
    continues = float(np.array_equal(f64(tail), f64(x).reshape(-1)[100:200]) and
                      np.array_equal(f64(head), f64(x).reshape(-1)[:100]))
    return np.array([v.mean(), v.var(), np.mean(v < 1), float(v.min() >= 0), same, continues])


ENTRIES += [
    entry("aclnnSimThreadExponential", lambda lam, dtype: np.array([1.0, 1.0, 1 - np.exp(-1.0), 1.0, 1.0, 1.0]),
          call_exponential, (2.5,), FLOATS, {d: (0.0, 0.03) for d in FLOATS}),
]
