"""Indexing and searching as JAX builds them (issue 17), and what came with them.

* Programs recorded from real JAX 0.10.2 (tests/data/fidelity_index_cases.py ->
  fidelity_index_recorded.json): jnp.diagonal's gather (and, for a square matrix, JAX's
  lax.platform_dependent choice of it), jnp.trace's mask, jnp.searchsorted's
  jitted binary search and its methods, the total-order comparisons, the inner jits of
  lax.fft, jnp.angle, jnp.isreal and jnp.round, the typed scalars vjp hands back, argmax of
  complex numbers. Printed jaxprs compared character for character, values by repr.
* Properties: the same functions against NumPy, eagerly and jitted (on the Numba backend
  when it is the default), for offsets, axes, sides, methods and NaNs.
"""
from __future__ import annotations

import numpy as np
import pytest
import recorded
from hypothesis import given, settings
from hypothesis import strategies as st

import edujax as jax
import edujax.numpy as jnp
from edujax import lax

CASES = recorded.load("fidelity_index_recorded.json")

KNOWN_DIFFERENCES: dict[str, str] = {}
# The message names the tracer's class by its module path, which is JAX's own.
TYPE_ONLY = {"diagonal_value[traced_offset_error]"}


@pytest.mark.parametrize("case", recorded.params(CASES, KNOWN_DIFFERENCES, TYPE_ONLY))
def test_matches_recorded_jax(case):
    recorded.check(case, type_only=case["name"] in TYPE_ONLY)


# ---------------------------------------------------------------- diagonal and trace
PROPS = settings(max_examples=25, deadline=None)


@PROPS
@given(shape=st.sampled_from([(3, 4), (4, 3), (2, 3, 4), (3, 3)]),
       offset=st.integers(-4, 4), axes=st.sampled_from([(0, 1), (1, 0), (-1, -2), (0, -1)]))
def test_diagonal_and_trace_are_numpys(shape, offset, axes):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 5
    want_diag = np.diagonal(a, offset, *axes)
    want_trace = np.trace(a, offset, *axes)
    x = jnp.asarray(a)
    np.testing.assert_array_equal(jnp.diagonal(x, offset, *axes), want_diag)
    np.testing.assert_array_equal(jax.jit(jnp.diagonal, static_argnums=(1, 2, 3))(
        x, offset, *axes), want_diag)
    np.testing.assert_allclose(jnp.trace(x, offset, *axes), want_trace)
    np.testing.assert_allclose(jax.jit(lambda x, k: jnp.trace(x, k, *axes))(x, offset),
                               want_trace)


def test_gradient_of_a_diagonal_scatters_back():
    """The transpose of diagonal's gather is a scatter-add: ones on the diagonal read."""
    a = jnp.arange(12.0).reshape(3, 4)
    for offset in (-2, 0, 1, 3):
        g = jax.jit(jax.grad(lambda a, k=offset: jnp.sum(jnp.diagonal(a, k) * 2.0)))(a)
        np.testing.assert_array_equal(g, 2.0 * np.eye(3, 4, k=offset, dtype=np.float32))


# ---------------------------------------------------------------- searchsorted
_values = st.sampled_from([-np.inf, -2.0, -0.0, 0.0, 0.5, 1.0, 3.0, np.inf, np.nan])


@PROPS
@given(a=st.lists(_values, max_size=9), v=st.lists(_values, min_size=1, max_size=6),
       side=st.sampled_from(["left", "right"]),
       method=st.sampled_from(["scan", "scan_unrolled", "compare_all", "sort"]))
def test_searchsorted_is_numpys(a, v, side, method):
    """NumPy's answer for every method, NaNs last and -0.0 == 0.0, eagerly and jitted."""
    a = np.sort(np.asarray(a, np.float32))
    v = np.asarray(v, np.float32)
    want = np.searchsorted(a, v, side=side)
    got = jnp.searchsorted(jnp.asarray(a), jnp.asarray(v), side=side, method=method)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    jitted = jax.jit(lambda a, v: jnp.searchsorted(a, v, side=side, method=method))
    np.testing.assert_array_equal(jitted(jnp.asarray(a), jnp.asarray(v)), want)


def test_searchsorted_batches_over_both_arguments():
    a = np.array([[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]], np.float32)
    v = np.array([[1.5, 3.5], [0.5, 2.0]], np.float32)
    got = jax.vmap(jnp.searchsorted)(jnp.asarray(a), jnp.asarray(v))
    np.testing.assert_array_equal(got, [np.searchsorted(r, q) for r, q in zip(a, v)])


# ---------------------------------------------------------------- total-order comparisons
SPECIALS = np.array([np.copysign(np.nan, -1), -np.inf, -1.0, -0.0, 0.0, 1.0, np.inf, np.nan],
                    np.float32)


@pytest.mark.parametrize("prim", [lax.eq_to_p, lax.lt_to_p, lax.le_to_p], ids=str)
def test_total_order_is_the_same_compiled(prim):
    """-NaN < -inf < -1 < -0.0 < 0.0 < 1 < inf < NaN, in the reference rule and in the
    compiled loop (which calls scalar.total_lt)."""
    x, y = np.repeat(SPECIALS, len(SPECIALS)), np.tile(SPECIALS, len(SPECIALS))
    rank = np.repeat(np.arange(8), 8), np.tile(np.arange(8), 8)
    want = {"eq_to": np.equal, "lt_to": np.less, "le_to": np.less_equal}[prim.name](*rank)
    np.testing.assert_array_equal(prim.bind(jnp.asarray(x), jnp.asarray(y)), want)
    compiled = jax.jit(lambda x, y: prim.bind(x * 1.0, y * 1.0))
    np.testing.assert_array_equal(compiled(jnp.asarray(x), jnp.asarray(y)), want)
