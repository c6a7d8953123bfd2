"""ops-nn activations and their backward operators."""

import numpy as np
import torch
import torch.nn.functional as F

from . import BenchCase

aten = torch.ops.aten

CASES = [
    BenchCase("relu", "aclnnRelu", torch.relu, lambda x: np.maximum(x, 0), arity=1),
    BenchCase("leaky_relu", "aclnnLeakyRelu", lambda x: F.leaky_relu(x, 0.01), None, arity=1, attrs=(0.01,)),
    BenchCase("elu", "aclnnElu", F.elu, None, arity=1, attrs=(1.0, 1.0, 1.0)),
    BenchCase("selu", "aclnnSelu", torch.selu, None, arity=1),
    BenchCase("sigmoid", "aclnnSigmoid", torch.sigmoid, lambda x: 1 / (1 + np.exp(-x)), arity=1),
    BenchCase("silu", "aclnnSilu", F.silu, lambda x: x / (1 + np.exp(-x)), arity=1),
    BenchCase("fast_gelu", "aclnnFastGelu", lambda x: x * torch.sigmoid(1.702 * x), None, arity=1),
    BenchCase("gelu_tanh", "aclnnGelu", lambda x: F.gelu(x, approximate="tanh"), None, arity=1),
    BenchCase("gelu_erf", "aclnnGeluV2", F.gelu, None, arity=1, attrs=(0,)),
    BenchCase("mish", "aclnnMish", F.mish, None, arity=1),
    BenchCase("softplus", "aclnnSoftplus", F.softplus, None, arity=1, attrs=(1.0, 20.0)),
    BenchCase("logsigmoid", "aclnnLogSigmoid", F.logsigmoid, None, arity=1),
    BenchCase("hardswish", "aclnnHardswish", F.hardswish, None, arity=1),
    BenchCase("hardsigmoid", "aclnnHardsigmoid", F.hardsigmoid, None, arity=1),
    BenchCase("erfinv", "aclnnErfinv", torch.erfinv, None, arity=1, domain=(-0.99, 0.99)),
    BenchCase("sigmoid_backward", "aclnnSigmoidBackward", aten.sigmoid_backward, lambda g, y: g * y * (1 - y)),
    BenchCase("silu_backward", "aclnnSiluBackward", aten.silu_backward, None),
    BenchCase("gelu_backward", "aclnnGeluBackward", lambda g, x: aten.gelu_backward(g, x, approximate="tanh"), None),
    BenchCase("threshold_backward", "aclnnThresholdBackward", lambda g, x: aten.threshold_backward(g, x, 0.0),
              lambda g, x: np.where(x > 0, g, 0), attrs=(0.0,)),
]
