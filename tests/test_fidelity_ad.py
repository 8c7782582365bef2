"""Jaxprs under grad, jvp and vmap print exactly as JAX 0.10 prints them, and compute its values.

tests/data/fidelity_ad_cases.py holds the programs: ``split`` (concatenate's transpose) under
jit, vmap and grad; sort's JVP (a uint32 iota, a gather with batching dimensions) and its
batching rule; the cumulative reductions differentiated through ``lax.associative_scan``;
select_n's JVP, pad's transpose and the cotangents a linearized jit returns. Each is compared
character for character with tests/data/fidelity_ad_recorded.json, what real JAX 0.10.2 gave.
Differences still known are listed in KNOWN_DIFFERENCES (strict xfails). Last, the Numba
backend compiles what these rules produce (a ``split`` becomes slices there) and computes
what the reference interpreter computes.
"""
from __future__ import annotations

import numpy as np
import pytest
import recorded
from backend_compare import assert_same

import edujax as jax
import edujax.numpy as jnp
from edujax import lax
from edujax.backends.passes.inline import inline_calls
from edujax.config import config

CASES = recorded.load("fidelity_ad_recorded.json")

KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.mark.parametrize("case", recorded.params(CASES, KNOWN_DIFFERENCES))
def test_transformed_jaxprs_and_values_are_jaxs(case):
    recorded.check(case)


# ---------------------------------------------------------------- the Numba backend
SPLIT_PROGRAMS = {
    "split": (lambda x: [p * 2.0 for p in lax.split(x, (1, 0, 3), axis=1)], (3, 4)),
    "roll[grad]": (jax.grad(lambda x: jnp.sum(jnp.roll(x, 2, axis=1) * jnp.arange(12.0)
                                              .reshape(3, 4))), (3, 4)),
    "split[vmap]": (jax.vmap(lambda x: lax.split(x, (1, 2)), in_axes=1), (3, 4)),
    "sort[grad]": (jax.grad(lambda x: jnp.sum(jnp.sort(x, axis=0) * jnp.arange(12.0)
                                              .reshape(3, 4))), (3, 4)),
    "cumprod[grad]": (jax.grad(lambda x: jnp.sum(jnp.cumprod(x, axis=1))), (3, 4)),
}


@pytest.fixture
def restore_backend():
    before = config.read("edujax_backend")
    yield
    config.update("edujax_backend", before)


def test_split_runs_as_slices_on_the_numba_backend():
    """The Numba backend cuts a split into one slice per piece (backends/passes/inline.py): views
    that the fused loops read through, so no split is left to run with a reference rule."""
    fn, shape = SPLIT_PROGRAMS["roll[grad]"]
    closed = inline_calls(jax.make_jaxpr(fn)(jnp.ones(shape)))
    names = [eqn.primitive.name for eqn in closed.jaxpr.eqns]
    assert "split" not in names and names.count("slice") == 2


@pytest.mark.parametrize("name", list(SPLIT_PROGRAMS))
def test_transformed_programs_compile_with_numba(name, restore_backend, monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setenv("EDUJAX_TIERED", "0")  # compile at once
    fn, shape = SPLIT_PROGRAMS[name]
    x = jnp.arange(float(np.prod(shape))).reshape(shape) * 0.25 - 1.0
    config.update("edujax_backend", "reference")
    want = jax.jit(fn)(x)
    config.update("edujax_backend", "numba")
    assert_same(jax.jit(fn)(x), want)
