"""The jax.numpy functions added for issue 17's breadth: recorded from JAX, and laws.

* Programs recorded from real JAX 0.10.2 (tests/data/jnp_breadth_cases.py ->
  jnp_breadth_recorded.json): values, dtypes, weak types, errors, a grad and a vmap of the
  differentiable functions.
* Properties: derivatives against finite differences in float64, vmap against a Python
  loop, jit against eager evaluation.
"""
from __future__ import annotations

import pytest
from recorded import check, load

CASES = load("jnp_breadth_recorded.json")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_recorded_jax(case):
    check(case)
