"""What "a backend computes what the reference interpreter computes" means, for the tests
of every compiled backend (test_numba_backend.py, test_cuda_backend.py)."""
from __future__ import annotations

import numpy as np

import edujax as jax


def assert_same(got, want) -> None:
    """Same tree, shapes, dtypes and weak types; same values: exactly for integers and bools,
    to a few float32 ulps for floats (sums may be added in another order, and exp/log/...
    come from each backend's own math)."""
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type)
        g, w = np.asarray(g), np.asarray(w)
        if w.dtype.kind == "f":
            scale = np.max(np.abs(w[np.isfinite(w)]), initial=1.0)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5 * scale, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)
