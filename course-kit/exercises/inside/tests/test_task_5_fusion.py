"""Task 5: a fusion decision (edujax/backends/passes/fusion.py, _can_join).

The Numba backend cuts a jaxpr into loop nests ("fusion groups"). Walking the equations
in order, each elementwise or reduction equation joins the most recent group of its
shape that it *can* join; deciding "can" is your task. Too eager, and a loop reads a
value before it is computed; too shy, and every operation gets its own loop.
"""
import pytest

import edujax as jax
import edujax.numpy as jnp
from edujax.backends.passes.fusion import FusionGroup, partition
from edujax.backends.passes.inline import inline_calls

pytestmark = pytest.mark.task_5


def groups(f, *args):
    # As the backend does: first paste nested jits in (jnp.where is one), then cut.
    steps = partition(inline_calls(jax.make_jaxpr(f)(*args)).jaxpr)
    return [s for s in steps if isinstance(s, FusionGroup)]


def names(group):
    return [eqn.primitive.name for eqn in group.eqns]


def test_an_elementwise_chain_is_one_loop():
    selu = lambda x: 1.05 * jnp.where(x > 0, x, 1.67 * jnp.exp(x) - 1.67)
    assert len(groups(selu, jnp.ones(1000))) == 1


def test_a_reduction_result_is_not_read_in_its_own_loop():
    found = groups(lambda x: x - jnp.sum(x), jnp.ones(100))
    where = {name: i for i, g in enumerate(found) for name in names(g)}
    assert where["sub"] != where["reduce_sum"]  # the sum is complete only after its loop


def test_softmax_is_three_loops():
    def softmax(x):
        e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
        return e / jnp.sum(e, axis=-1, keepdims=True)
    found = groups(softmax, jnp.ones((4, 8)))
    assert len(found) == 3
    assert "exp" in names(found[1]) and "reduce_sum" in names(found[1])


def test_reductions_over_different_axes_do_not_share_a_loop():
    found = groups(lambda x: (jnp.sum(x, axis=0), jnp.sum(x, axis=1)), jnp.ones((3, 4)))
    assert all(sum(n.startswith("reduce") for n in names(g)) <= 1 for g in found)

