"""Jaxprs under grad, jvp and vmap print exactly as JAX 0.10 prints them, and compute its values.

tests/data/fidelity_ad_cases.py holds the programs: ``split`` (concatenate's transpose) under
jit, vmap and grad; sort's JVP (a uint32 iota, a gather with batching dimensions) and its
batching rule; the cumulative reductions differentiated through ``lax.associative_scan``;
select_n's JVP, pad's transpose and the cotangents a linearized jit returns. Each is compared
character for character with tests/data/fidelity_ad_recorded.json, what real JAX 0.10.2 gave.
Differences still known are listed in KNOWN_DIFFERENCES (strict xfails).
"""
from __future__ import annotations

import pytest
import recorded

CASES = recorded.load("fidelity_ad_recorded.json")

KNOWN_DIFFERENCES: dict[str, str] = {}


def _params():
    for case in CASES:
        marks = ()
        if case["name"] in KNOWN_DIFFERENCES:
            marks = pytest.mark.xfail(reason=KNOWN_DIFFERENCES[case["name"]], strict=True)
        yield pytest.param(case, id=case["name"], marks=marks)


@pytest.mark.parametrize("case", list(_params()))
def test_transformed_jaxprs_and_values_are_jaxs(case):
    recorded.check(case)


def test_every_known_difference_is_a_case():
    names = {case["name"] for case in CASES}
    assert set(KNOWN_DIFFERENCES) <= names
