"""ops-math segment sums: aclnnExpSegsum (exp of the segment sums of Mamba-2) and aclnnExpSegsumBackward, their
documentation's steps written out in torch (float64), rounded to the dtype."""

import torch

from . import FLOATS, OpInfo, Sample, random_array


def exp_segsum_ref(x):
    x_dtype = x.dtype
    x = x.double()
    t = x.shape[-1]
    xs = x.unsqueeze(-1).expand(*x.shape, t)  # xs[..., i, j] = x[i]
    below = torch.tril(torch.ones(t, t, dtype=torch.bool), -1)
    s = torch.cumsum(xs.masked_fill(~below, 0.0), dim=-2)
    s = s.masked_fill(~torch.tril(torch.ones(t, t, dtype=torch.bool)), -torch.inf)
    return torch.exp(s).to(x_dtype)


def exp_segsum_backward_ref(grad_out, grad_self):
    m = grad_out.double() * grad_self.double()
    t = m.shape[-1]
    below = torch.tril(torch.ones(t, t, dtype=torch.bool), -1)
    m = m.masked_fill(~below, 0.0)
    c = torch.flip(torch.cumsum(torch.flip(m, (-2,)), dim=-2), (-2,))
    return c.masked_fill(~below, 0.0).sum(-1).to(grad_out.dtype)


def arr(rng, shape, dtype, domain=(-1.0, 0.5)):
    return random_array(rng, shape, dtype, domain, (0, 0))


def exp_segsum_samples(dtype, rng):
    return [
        Sample((arr(rng, (1, 2, 3), dtype),), (), "3-D"),
        Sample((arr(rng, (2, 3, 2, 5), dtype),), (), "4-D"),
        Sample((arr(rng, (2, 6, 4), dtype).transpose(0, 2, 1),), (), "transposed"),
        Sample((arr(rng, (2, 0, 4), dtype),), (), "empty"),
        Sample((arr(rng, (4, 8, 64), dtype, (-0.2, 0.1)),), (), "threads"),
    ]


def exp_segsum_backward_samples(dtype, rng):
    out = []
    for shape, name in (((1, 2, 3, 3), "4-D"), ((2, 1, 3, 4, 4), "5-D"), ((2, 4, 32, 32), "threads")):
        out.append(Sample((arr(rng, shape, dtype, (-1.0, 1.0)), arr(rng, shape, dtype, (0.0, 1.0))), (), name))
    g = arr(rng, (1, 2, 5, 5), dtype, (-1.0, 1.0))
    out.append(Sample((g.swapaxes(-1, -2), arr(rng, (1, 2, 5, 5), dtype, (0.0, 1.0))), (), "transposed"))
    return out


ENTRIES = [
    OpInfo("aclnnExpSegsum", exp_segsum_ref, FLOATS, kind="custom", samples=exp_segsum_samples,
           tol={"float32": (1e-5, 1e-6)}),
    OpInfo("aclnnExpSegsumBackward", exp_segsum_backward_ref, FLOATS, kind="custom",
           samples=exp_segsum_backward_samples, tol={"float32": (1e-5, 1e-5)}),
]
