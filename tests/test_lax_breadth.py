"""Issue 17's lax slice: convolutions, reduce_window, top_k, bits, reduce, scans, gather API.

* Programs recorded from real JAX 0.10.2 (tests/data/lax_breadth_cases.py ->
  lax_breadth_recorded.json): values, dtypes, jaxpr text, errors, gradients, vmap.
* Property tests: convolution against a direct NumPy loop, gradients against finite
  differences (float64), vmap against a Python loop, jit against eager.
"""
from __future__ import annotations

import pytest
from recorded import check, load

CASES = load("lax_breadth_recorded.json")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_recorded_jax(case):
    check(case)
