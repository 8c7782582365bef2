"""make_jaxpr prints exactly JAX 0.10's text: inner jits, let-hoisting, grads, vmaps, weak types.

tests/data/jaxpr_fidelity_cases.py holds the programs (selu from JAX's documentation, the
tutorials' programs, the jnp functions JAX wraps in ``jit`` under grad/vmap/jit, Literal
reprs, make_jaxpr's trace cache); tests/data/jaxpr_fidelity_recorded.json is what real JAX
0.10.2 printed for each. Every case must come out character for character the same.
"""
from __future__ import annotations

import pytest
import recorded

import edujax
import edujax.numpy as jnp

CASES = recorded.load("jaxpr_fidelity_recorded.json")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_jaxpr_text_is_jaxs(case):
    recorded.check(case)


def test_eager_where_traces_nothing():
    """An eager call of an inner-jitted jnp function runs its body directly: no jaxpr is
    traced or cached for it (tracing it per call would cost a learner's loop dearly)."""
    cache = jnp.where.__wrapped__ if hasattr(jnp.where, "__wrapped__") else None
    inner = edujax.numpy.ufuncs._where._inner_jit
    inner.cache.clear()
    x = jnp.arange(5.0)
    for _ in range(3):
        jnp.where(x > 2, x, 0.0)
    assert cache is None or callable(cache)
    assert len(inner.cache) == 0
    edujax.make_jaxpr(lambda x: jnp.where(x > 2, x, 0.0))(x)
    edujax.make_jaxpr(lambda x: jnp.where(x > 1, x, 0.0))(x)
    assert len(inner.cache) == 1  # one signature, traced once, shared by both programs
