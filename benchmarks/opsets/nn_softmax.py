"""ops-nn softmax family and layer norm along the last axis, and pointwise losses reduced to their mean (a 0-d
output)."""

import numpy as np
import torch
import torch.nn.functional as F

from . import BenchCase

ROW = 1024   # softmax and layer norm over rows of this many elements

CASES = [
    BenchCase("softmax", "aclnnSoftmax", lambda a: torch.softmax(a, -1), None, arity=1, attrs=(-1,), row=ROW,
              target=("torch", 1.0)),
    BenchCase("log_softmax", "aclnnLogSoftmax", lambda a: torch.log_softmax(a, -1), None, arity=1, attrs=(-1,),
              row=ROW),
    BenchCase("layer_norm", "aclnnLayerNorm", lambda a: F.layer_norm(a, (ROW,)), None, arity=1,
              attrs=([ROW], None, None, 1e-5), row=ROW, unused_outs=2, target=("torch", 1.0)),
    BenchCase("mse_loss", "aclnnMseLoss", F.mse_loss, lambda a, b: np.mean(np.square(a - b)), attrs=(1,),
              out_like_torch=True),
    BenchCase("l1_loss", "aclnnL1Loss", F.l1_loss, lambda a, b: np.mean(np.abs(a - b)), attrs=(1,),
              out_like_torch=True),
]
