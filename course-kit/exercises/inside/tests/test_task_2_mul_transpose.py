"""Task 2: the transpose rule of mul (edujax/lax/elementwise.py).

Reverse mode is JVP, then partial evaluation, then *transposition*: each linear equation
of the tangent program is run backwards, turning the cotangent of its output into
cotangents of its inputs. ``x * y`` is linear in ``x`` (for a fixed ``y``) and in ``y``.
"""
import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp

pytestmark = pytest.mark.task_2


def test_grad_of_a_product():
    assert float(jax.grad(lambda x: x * 3.0)(2.0)) == 3.0
    assert float(jax.grad(lambda x: x * x)(2.0)) == 4.0
    gx, gy = jax.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 5.0)
    assert (float(gx), float(gy)) == (5.0, 2.0)


def test_vjp_of_an_elementwise_product():
    x, y = jnp.array([1.0, 2.0, 3.0]), jnp.array([4.0, 5.0, 6.0])
    _, pullback = jax.vjp(lambda x, y: x * y, x, y)
    ct_x, ct_y = pullback(jnp.array([1.0, 10.0, 100.0]))
    np.testing.assert_allclose(ct_x, [4.0, 50.0, 600.0])
    np.testing.assert_allclose(ct_y, [1.0, 20.0, 300.0])


def test_a_broadcast_operand_gets_its_cotangent_summed():
    # a scalar times a vector: the scalar's cotangent sums over the vector's elements
    g = jax.grad(lambda a, v: jnp.sum(a * v))(2.0, jnp.array([1.0, 2.0, 3.0]))
    assert float(g) == 6.0
    np.testing.assert_allclose(jax.grad(lambda v: jnp.sum(v * 2.0))(jnp.ones(3)), [2.0] * 3)
