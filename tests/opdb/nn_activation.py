"""ops-nn activations: relu."""

import torch

from . import FLOATS, OpInfo

ENTRIES = [
    OpInfo("aclnnRelu", torch.relu, FLOATS + ("int8", "int32", "uint8", "int64"), kind="unary",
           inplace="aclnnInplaceRelu"),
]
