"""The first-generation routing pair through aclnn_py.testing: MoeInitRouting -> identity experts ->
MoeFinalizeRouting returns every token weighted by its scales plus the experts' biases, for every dtype."""

import numpy as np
import pytest

from aclnn_py import testing


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("bias", [False, True])
def test_init_routing_then_finalize_returns_the_weighted_tokens(dtype, bias):
    rng = np.random.default_rng(7 + bias)
    for n, k, e in ((7, 2, 4), (5, 3, 6), (1, 1, 1)):
        chain = testing.check_chain("moe_init_routing", rng, dtype=dtype, n=n, k=k, e=e, bias=bias)
        assert chain.out.shape == chain.expected.shape == (n, 5)


def test_chain_detects_a_wrong_bias():
    chain = testing.chain_init_routing_v1(np.random.default_rng(3))
    chain.expected = chain.expected + 1
    assert chain.mismatches()
