"""ops-math binary math: pow (three variants), atan2, logaddexp, logaddexp2, xlogy (three variants), maximum,
minimum, gcd."""



import torch

from . import COMPLEX, INTS, REALS, TOL, OpInfo, Sample, random_array

LOW = (torch.float16, torch.bfloat16)


def in_out_dtype(fn):
    """logaddexp(2) as the op_api runs it: both operands cast to out's dtype (FLOAT16, FLOAT or BF16; the oracle's
    out is FLOAT unless both operands share a 16-bit dtype), computed there."""
    def call(a, b):
        low = {x.dtype for x in (a, b) if isinstance(x, torch.Tensor)}
        dt = low.pop() if len(low) == 1 and next(iter(low)) in LOW else torch.float32
        return fn(a.float(), b.float()).to(dt)
    return call


def scalar_first_samples(domain, int_domain, scalars):
    def samples(dtype, rng):
        out = []
        for shape in ((2, 3), (), (0, 4), (34000,)):
            t = random_array(rng, shape, dtype, domain, int_domain)
            for s in scalars:
                out.append(Sample((s, t), (), f"shape{shape} scalar={s}"))
        return out
    return samples


def pow_scalar_tensor(s, t):
    return torch.pow(s, t)


POW = REALS + INTS + COMPLEX
ATAN2 = REALS + INTS + ("bool",)
LOGADDEXP = REALS + INTS + ("bool", "uint16", "uint32", "uint64")
XLOGY = ("float32", "int32", "int64", "float16", "int8", "uint8", "bool", "int16", "bfloat16")
MAXMIN = REALS + INTS + ("bool",)
F32_OUT = {"float64": TOL["float32"]}  # DOUBLE operands give a FLOAT result

ENTRIES = [
    OpInfo("aclnnPowTensorTensor", torch.pow, POW, domain=(0.1, 3.0), int_domain=(0, 5),
           scalar="aclnnPowTensorScalar", inplace="aclnnInplacePowTensorTensor",
           inplace_scalar="aclnnInplacePowTensorScalar"),
    OpInfo("aclnnPowScalarTensor", pow_scalar_tensor, POW, kind="custom",
           samples=scalar_first_samples((0.1, 3.0), (0, 5), (2, 0.5, 3.0))),
    OpInfo("aclnnAtan2", torch.atan2, ATAN2, inplace="aclnnInplaceAtan2"),
    OpInfo("aclnnLogAddExp", in_out_dtype(torch.logaddexp), LOGADDEXP, native16=True, int_domain=(0, 8),
           tol=F32_OUT),
    OpInfo("aclnnLogAddExp2", in_out_dtype(torch.logaddexp2), LOGADDEXP, native16=True, int_domain=(0, 8),
           tol=F32_OUT),
    OpInfo("aclnnXLogYTensor", torch.xlogy, XLOGY, domain=(0.0, 4.0), int_domain=(0, 8),
           scalar="aclnnXLogYScalarOther", inplace="aclnnInplaceXLogYTensor",
           inplace_scalar="aclnnInplaceXLogYScalarOther"),
    OpInfo("aclnnXLogYScalarSelf", lambda s, t: torch.xlogy(s, t), XLOGY, kind="custom",
           samples=scalar_first_samples((0.1, 4.0), (1, 8), (0.0, 2.5, 3))),
    OpInfo("aclnnMaximum", torch.maximum, MAXMIN),
    OpInfo("aclnnMinimum", torch.minimum, MAXMIN),
    OpInfo("aclnnGcd", torch.gcd, ("int16", "int32", "int64"), int_domain=(-60, 60)),
]


