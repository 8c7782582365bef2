"""Bugs found by running HIPS/autograd's gradient tests through benchmarks/autograd_suite.py.

Expected values were recorded from real JAX 0.10.2.
"""
import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp


@pytest.mark.parametrize("fun", [jnp.max, jnp.min, jnp.amax, jnp.amin])
def test_max_min_jvp_python_scalar_tangent(fun):
    # autograd's check_grads draws a 0-d tangent as a Python float (npr.randn()); JAX's
    # jnp.max is an inline jit, whose boundary turns it into an array before reduce_max's
    # JVP rule asks for its dtype. edujax failed with "'float' object has no attribute 'dtype'"
    out, tangent = jax.jvp(fun, (np.float32(3.5),), (0.3,))
    assert out.dtype == tangent.dtype == np.float32
    np.testing.assert_allclose(tangent, np.float32(0.3))
    out, tangent = jax.jvp(lambda x: fun(x, keepdims=True), (3.5,), (0.3,))
    assert tangent.dtype == np.float32 and tangent.shape == ()
    np.testing.assert_allclose(tangent, np.float32(0.3))


def test_max_jvp_ties_share_tangent():
    x = np.asarray([[1.0, 3.0], [3.0, 2.0]], np.float32)
    _, t = jax.jvp(jnp.max, (x,), (np.ones((2, 2), np.float32),))
    np.testing.assert_allclose(t, 1.0)
    t_in = np.asarray([[1.0, 2.0], [4.0, 8.0]], np.float32)
    _, t = jax.jvp(lambda x: jnp.max(x, axis=0), (x,), (t_in,))
    np.testing.assert_allclose(t, [4.0, 2.0])
