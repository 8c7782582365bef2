"""Task 3: the batching rule of reductions (edujax/lax/registry.py, axes_batch).

Under vmap, each value carries a batch axis the user's code never mentions. A reduction
over ``axes`` must skip it: the axes at or after the batch axis move by one.
"""
import numpy as np
import pytest

import edujax as jax
import edujax.numpy as jnp

pytestmark = pytest.mark.task_3

X = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)


def test_vmap_of_a_full_sum():
    np.testing.assert_allclose(jax.vmap(jnp.sum)(jnp.asarray(X)), X.sum(axis=(1, 2)))


@pytest.mark.parametrize("in_axis", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
def test_vmap_over_any_axis_of_a_sum_over_any_axis(in_axis, axis):
    got = jax.vmap(lambda x: jnp.sum(x, axis=axis), in_axes=in_axis)(jnp.asarray(X))
    want = np.stack([np.take(X, i, axis=in_axis).sum(axis=axis)
                     for i in range(X.shape[in_axis])])
    np.testing.assert_allclose(got, want)


def test_other_reductions_share_the_rule():
    np.testing.assert_allclose(jax.vmap(lambda x: jnp.max(x, axis=1))(jnp.asarray(X)),
                               X.max(axis=2))
    np.testing.assert_array_equal(jax.vmap(jnp.argmax, in_axes=1)(jnp.asarray(X)),
                                  [np.argmax(X[:, i]) for i in range(3)])
