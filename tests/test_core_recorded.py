"""Core behaviour recorded from real JAX: jaxpr printing, tracer errors, Array protocol."""
from __future__ import annotations

import pytest
from recorded import check, load, params

CASES = load("core_recorded.json")
TYPE_ONLY = {"bad_argument_type"}  # JAX's message names a memory address


@pytest.mark.parametrize("case", params(CASES, type_only=TYPE_ONLY))
def test_matches_recorded_jax(case):
    check(case, type_only=case["name"] in TYPE_ONLY)
