"""ops-math logical and bitwise operators: logical_and/or/xor/not, bitwise_and/or/xor/not, left and right shifts."""

import torch

from . import ALL, INTS, REALS, OpInfo

UINTS = ("uint16", "uint32", "uint64")
WIDE = {torch.uint16: 16, torch.uint32: 32, torch.uint64: 64}


def wide(fn):
    """fn where torch's CPU kernels lack unsigned 16/32/64-bit tensors: computed on int64 and wrapped back."""
    def call(*args):
        dt = next((a.dtype for a in args if isinstance(a, torch.Tensor) and a.dtype in WIDE), None)
        if dt is None:
            return fn(*args)
        r = fn(*(a.long() if isinstance(a, torch.Tensor) and a.dtype in WIDE else a for a in args))
        if r.dtype == torch.bool:
            return r
        bits = WIDE[dt]
        return (r & ((1 << bits) - 1)).to(dt) if bits < 64 else r.to(dt)
    return call


BITS = INTS + ("bool", "uint16")
SHIFT = INTS + UINTS
LOGICAL_NOT = REALS + INTS + ("bool",)

ENTRIES = [
    OpInfo("aclnnLogicalAnd", torch.logical_and, ALL, inplace="aclnnInplaceLogicalAnd"),
    OpInfo("aclnnLogicalOr", torch.logical_or, ALL, inplace="aclnnInplaceLogicalOr"),
    OpInfo("aclnnLogicalXor", torch.logical_xor, ALL),
    OpInfo("aclnnLogicalNot", torch.logical_not, LOGICAL_NOT, kind="unary", inplace="aclnnInplaceLogicalNot"),
    OpInfo("aclnnBitwiseAndTensor", wide(torch.bitwise_and), BITS, scalar="aclnnBitwiseAndScalar", scalar_dtypes=INTS + ("bool",),
           inplace="aclnnInplaceBitwiseAndTensor", inplace_scalar="aclnnInplaceBitwiseAndScalar"),
    OpInfo("aclnnBitwiseAndTensorOut", wide(torch.bitwise_and), BITS, inplace="aclnnInplaceBitwiseAndTensorOut"),
    OpInfo("aclnnBitwiseOrTensor", wide(torch.bitwise_or), INTS + ("bool",) + UINTS, scalar="aclnnBitwiseOrScalar",
           scalar_dtypes=INTS + ("bool",), inplace="aclnnInplaceBitwiseOrTensor", inplace_scalar="aclnnInplaceBitwiseOrScalar"),
    OpInfo("aclnnBitwiseXorTensor", wide(torch.bitwise_xor), INTS + ("bool",), scalar="aclnnBitwiseXorScalar",
           inplace="aclnnInplaceBitwiseXorTensor", inplace_scalar="aclnnInplaceBitwiseXorScalar"),
    OpInfo("aclnnBitwiseNot", torch.bitwise_not, INTS + ("bool",), kind="unary"),
    OpInfo("aclnnLeftShift", wide(torch.bitwise_left_shift), SHIFT, int_domain=(0, 7), scalar="aclnnLeftShifts",
           scalar_dtypes=INTS),
    OpInfo("aclnnRightShift", wide(torch.bitwise_right_shift), SHIFT, int_domain=(0, 7)),
]
