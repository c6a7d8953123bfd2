"""ops-math arithmetic: add, sub, mul."""

import torch

from . import ALL, OpInfo


def sub(a, b, alpha):
    """torch.sub, where torch refuses BOOL: two BOOL operands as the op_api computes them (alpha cast to BOOL,
    the difference nonzero); a BOOL operand beside another dtype is first cast to it, as promotion does."""
    bools = [isinstance(x, torch.Tensor) and x.dtype == torch.bool for x in (a, b)]
    if bools[0] and (bools[1] or isinstance(b, bool)):
        return (a.int() - bool(alpha) * (b.int() if isinstance(b, torch.Tensor) else int(b))).bool()
    if bools[0]:
        a = a.to(torch.result_type(a, b) if not isinstance(b, torch.Tensor) else b.dtype)
    if bools[1]:
        b = b.to(a.dtype)
    return torch.sub(a, b, alpha=alpha)


ENTRIES = [
    OpInfo("aclnnAdd", lambda a, b, alpha: torch.add(a, b, alpha=alpha), ALL, attrs=((1,), (2,)),
           scalar="aclnnAdds", inplace="aclnnInplaceAdd", inplace_scalar="aclnnInplaceAdds"),
    OpInfo("aclnnSub", sub, ALL, attrs=((1,), (3,)),
           scalar="aclnnSubs", inplace="aclnnInplaceSub", inplace_scalar="aclnnInplaceSubs"),
    OpInfo("aclnnMul", torch.mul, ALL, scalar="aclnnMuls", inplace="aclnnInplaceMul", inplace_scalar="aclnnInplaceMuls"),
]
