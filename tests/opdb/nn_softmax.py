"""ops-nn softmax family: softmax, log_softmax, their backward operators, softmax cross entropy with logits.

Samples: dims (negative ones), a transposed view, a 0-d tensor, empty tensors, rows longer than one summation
chunk, large values (the maximum is subtracted first), infinities and NaN."""

from __future__ import annotations

import numpy as np
import torch

from . import FLOATS, OpInfo, Sample, random_array

SOFTMAX = FLOATS + ("float64",)


def arr(rng, shape, dtype, lo=-4.0, hi=4.0):
    return random_array(rng, shape, dtype, (lo, hi), (-8, 8))


def lane_samples(dtype, rng, extra=()):
    s = []
    x = arr(rng, (3, 4, 5), dtype)
    for dim in (1, -1, 0):
        s.append(Sample((x,), (dim,) + extra, f"dim {dim}"))
    s.append(Sample((arr(rng, (6, 5), dtype).T,), (1,) + extra, "transposed"))
    s.append(Sample((arr(rng, (), dtype),), (0,) + extra, "0-d"))
    s.append(Sample((arr(rng, (0, 4), dtype),), (1,) + extra, "empty"))
    s.append(Sample((arr(rng, (2, 9000), dtype),), (-1,) + extra, "long rows"))
    s.append(Sample((arr(rng, (3, 7), dtype, 60, 100),), (1,) + extra, "large values"))
    special = np.array(arr(rng, (3, 4), dtype))
    special[0, 1] = np.nan
    special[1, :] = -np.inf
    special[1, 2] = 1.0
    special[2, 0] = -np.inf
    s.append(Sample((special,), (1,) + extra, "NaN and infinities"))
    return s


def softmax(x, dim):
    return torch.softmax(x.double(), dim).to(x.dtype)


def log_softmax(x, dim):
    return torch.log_softmax(x.double(), dim).to(x.dtype)


def grad_samples(log):
    def samples(dtype, rng):
        s = []
        for shape, dim in (((3, 4, 5), 1), ((3, 4, 5), -1), ((2, 9000), 1), ((4,), 0), ((0, 3), 1)):
            x = torch.from_numpy(arr(rng, shape, "float32"))
            y = (torch.log_softmax if log else torch.softmax)(x, dim).numpy()  # the forward's output
            g = arr(rng, shape, dtype)
            s.append(Sample((g, np.asarray(y).astype(g.dtype)), (dim,), f"{shape} dim {dim}"))
        return s
    return samples


def softmax_backward(g, y, dim):
    g, y = g.double(), y.double()
    return (y * (g - (g * y).sum(dim, keepdim=True))).float()


def log_softmax_backward(g, y, dim):
    g, y = g.double(), y.double()
    return (g - torch.exp(y) * g.sum(dim, keepdim=True)).float()


def cross_entropy(f, labels):
    f, labels = f.double(), labels.double()
    lse = torch.logsumexp(f, 1, keepdim=True)
    loss = (labels * (lse - f)).sum(1)
    return loss.float(), (torch.exp(f - lse) - labels).float()


def cross_entropy_samples(dtype, rng):
    s = []
    for n, c in ((4, 5), (3, 9000), (1, 3)):
        f = arr(rng, (n, c), dtype)
        labels = np.asarray(torch.softmax(torch.from_numpy(arr(rng, (n, c), "float32")), 1).numpy()).astype(f.dtype)
        s.append(Sample((f, labels), (), f"[{n}, {c}]"))
    return s


ENTRIES = [
    OpInfo("aclnnSoftmax", softmax, SOFTMAX, kind="custom", samples=lane_samples),
    OpInfo("aclnnLogSoftmax", log_softmax, SOFTMAX, kind="custom", samples=lane_samples,
           tol={"float32": (1e-5, 1e-5)}),
    OpInfo("aclnnSoftmaxBackward", softmax_backward, FLOATS, kind="custom", samples=grad_samples(False),
           outputs=("out",),
           tol={"float32": (1e-5, 1e-5)}),
    OpInfo("aclnnLogSoftmaxBackward", log_softmax_backward, FLOATS, kind="custom", samples=grad_samples(True),
           outputs=("out",),
           tol={"float32": (1e-5, 1e-5)}),
    OpInfo("aclnnSoftmaxCrossEntropyWithLogits", cross_entropy, FLOATS, kind="custom", samples=cross_entropy_samples,
           outputs=("loss", "backprop"), tol={"float32": (1e-5, 1e-4)}),
]
