"""Issue 17's last lax names: the remaining collectives, XLA's rng primitives, Tolerance,
RaggedDotDimensionNumbers and ragged_dot_general.

* Programs recorded from real JAX 0.10.2 (tests/data/lax_finish_cases.py ->
  lax_finish_recorded.json): values under vmap(axis_name=) and a one-device pmap, jaxprs,
  errors. The rng programs check shapes, dtypes and structure only (edujax's bits differ).
* pmap over 4 simulated devices (threads) agrees with vmap for every collective.
"""
from __future__ import annotations

import numpy as np
import pytest
from recorded import check, load

import edujax as jax
import edujax.numpy as jnp
from edujax import config, lax

CASES = load("lax_finish_recorded.json")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_recorded_jax(case):
    check(case)


COLLECTIVES = {
    "all_to_all_0_0": (lambda v: lax.all_to_all(v, 'i', 0, 0), (4, 4, 3)),
    "all_to_all_0_1": (lambda v: lax.all_to_all(v, 'i', 0, 1), (4, 4, 3)),
    "all_to_all_1_0": (lambda v: lax.all_to_all(v, 'i', 1, 0), (4, 3, 4)),
    "all_to_all_tiled": (lambda v: lax.all_to_all(v, 'i', 1, 0, tiled=True), (4, 2, 8)),
    "pswapaxes": (lambda v: lax.pswapaxes(v, 'i', 1), (4, 3, 4)),
    "psum_scatter": (lambda v: lax.psum_scatter(v, 'i', scatter_dimension=1), (4, 3, 4)),
    "psum_scatter_tiled": (lambda v: lax.psum_scatter(v, 'i', scatter_dimension=1, tiled=True),
                           (4, 3, 8)),
    "pshuffle": (lambda v: lax.pshuffle(v, 'i', [2, 0, 3, 1]), (4, 3)),
    "axis_size": (lambda v: v * lax.axis_size('i'), (4, 2)),
}


@pytest.mark.parametrize("name", list(COLLECTIVES))
def test_pmap_agrees_with_vmap(name):
    fun, shape = COLLECTIVES[name]
    x = jnp.arange(float(np.prod(shape))).reshape(shape)
    saved = config.read("edujax_num_cpu_devices")
    jax.config.update("edujax_num_cpu_devices", 4)
    try:
        by_pmap = jax.pmap(fun, axis_name='i')(x)
    finally:
        jax.config.update("edujax_num_cpu_devices", saved)
    by_vmap = jax.vmap(fun, axis_name='i')(x)
    np.testing.assert_array_equal(np.asarray(by_pmap), np.asarray(by_vmap))
    assert by_pmap.shape == by_vmap.shape and by_pmap.dtype == by_vmap.dtype
