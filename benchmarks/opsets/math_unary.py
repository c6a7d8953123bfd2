"""ops-math unary operators: transcendental functions (correctly rounded FLOAT results), rounding, sign, predicates
and Cast."""

import numpy as np
import torch

from . import BenchCase

POS = (0.1, 4.0)     # logarithms and roots
UNIT = (-0.99, 0.99)  # asin, acos, atanh


def unary(name, op, torch_fn, numpy_fn, **kw):
    return BenchCase(name, op, torch_fn, numpy_fn, arity=1, **kw)


CASES = [
    unary("abs", "aclnnAbs", torch.abs, np.abs),
    unary("neg", "aclnnNeg", torch.neg, np.negative),
    unary("sign", "aclnnSign", torch.sign, np.sign),
    unary("reciprocal", "aclnnReciprocal", torch.reciprocal, np.reciprocal, domain=POS),
    unary("sqrt", "aclnnSqrt", torch.sqrt, np.sqrt, domain=POS),
    unary("rsqrt", "aclnnRsqrt", torch.rsqrt, lambda a: 1 / np.sqrt(a), domain=POS),
    unary("exp", "aclnnExp", torch.exp, np.exp),
    unary("exp2", "aclnnExp2", torch.exp2, np.exp2),
    unary("expm1", "aclnnExpm1", torch.expm1, np.expm1),
    unary("log", "aclnnLog", torch.log, np.log, domain=POS),
    unary("log2", "aclnnLog2", torch.log2, np.log2, domain=POS),
    unary("log10", "aclnnLog10", torch.log10, np.log10, domain=POS),
    unary("log1p", "aclnnLog1p", torch.log1p, np.log1p, domain=POS),
    unary("sin", "aclnnSin", torch.sin, np.sin),
    unary("cos", "aclnnCos", torch.cos, np.cos),
    unary("tan", "aclnnTan", torch.tan, np.tan),
    unary("asin", "aclnnAsin", torch.asin, np.arcsin, domain=UNIT),
    unary("acos", "aclnnAcos", torch.acos, np.arccos, domain=UNIT),
    unary("atan", "aclnnAtan", torch.atan, np.arctan),
    unary("sinh", "aclnnSinh", torch.sinh, np.sinh),
    unary("cosh", "aclnnCosh", torch.cosh, np.cosh),
    unary("tanh", "aclnnTanh", torch.tanh, np.tanh),
    unary("asinh", "aclnnAsinh", torch.asinh, np.arcsinh),
    unary("acosh", "aclnnAcosh", torch.acosh, np.arccosh, domain=(1.0, 4.0)),
    unary("atanh", "aclnnAtanh", torch.atanh, np.arctanh, domain=UNIT),
    unary("erf", "aclnnErf", torch.erf, None),
    unary("erfc", "aclnnErfc", torch.erfc, None),
    unary("lgamma", "aclnnLgamma", torch.lgamma, None, domain=(0.1, 6.0), dtypes=("float32", "float16")),
    unary("digamma", "aclnnDigamma", torch.digamma, None, domain=(0.1, 6.0), dtypes=("float32", "float16")),
    unary("sinc", "aclnnSinc", torch.sinc, np.sinc),
    unary("ceil", "aclnnCeil", torch.ceil, np.ceil),
    unary("floor", "aclnnFloor", torch.floor, np.floor),
    unary("round", "aclnnRound", torch.round, np.round),
    unary("trunc", "aclnnTrunc", torch.trunc, np.trunc),
    unary("frac", "aclnnFrac", torch.frac, lambda a: a - np.trunc(a)),
    unary("isfinite", "aclnnIsFinite", torch.isfinite, np.isfinite),
    unary("signbit", "aclnnSignbit", torch.signbit, np.signbit),
    unary("cast to float16", "aclnnCast", lambda a: a.to(torch.float16), lambda a: a.astype(np.float16),
          attrs=("float16",), dtypes=("float32", "bfloat16")),
    unary("cast to float32", "aclnnCast", lambda a: a.to(torch.float32), lambda a: a.astype(np.float32),
          attrs=("float32",), dtypes=("float16", "bfloat16")),
]
