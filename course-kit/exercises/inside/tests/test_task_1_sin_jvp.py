"""Task 1: the JVP rule of sin (edujax/lax/elementwise.py).

jvp, grad, and everything built on them, find the derivative of each primitive in a rule
table (``ad.jvp_rules``). Your rule receives the tangent ``g`` of the input and the
input ``x`` and returns the tangent of ``sin(x)``.
"""
import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp

pytestmark = pytest.mark.task_1

XS = np.linspace(-3.0, 3.0, 7, dtype=np.float32)


def test_jvp_of_sin_is_cos_times_the_tangent():
    x, t = jnp.asarray(XS), jnp.asarray(np.full(7, 0.5, np.float32))
    y, y_dot = jax.jvp(jnp.sin, (x,), (t,))
    np.testing.assert_allclose(y, np.sin(XS), rtol=1e-6)
    np.testing.assert_allclose(y_dot, 0.5 * np.cos(XS), rtol=1e-5, atol=1e-6)


def test_second_derivative_forward_over_forward():
    # the rule must use lax functions: the second derivative differentiates the rule itself
    # (forward mode twice, jacfwd of jacfwd, so that no other task is needed)
    d2 = jax.jacfwd(jax.jacfwd(jnp.sin))
    for x in XS:
        assert abs(float(d2(x)) + np.sin(x)) < 1e-5


def test_the_jvp_program_multiplies_by_cos():
    text = str(jax.make_jaxpr(lambda x, t: jax.jvp(jnp.sin, (x,), (t,)))(1.0, 1.0))
    assert "cos" in text and "mul" in text
