"""JAX's 'rbg' and 'unsafe_rbg' PRNGs and lax.rng_bit_generator give JAX 0.10's bits (issue 17).

tests/data/prng_impls_cases.py holds the programs (keys, split, fold_in, bits and samples,
eagerly and under jit and vmap, their jaxprs, and the errors); prng_impls_recorded.json is
what real JAX 0.10.2 gave on CPU. Cases listed in KNOWN_DIFFERENCES are strict xfails.
"""
from __future__ import annotations

import pytest
import recorded

CASES = recorded.load("prng_impls_recorded.json")
KNOWN_DIFFERENCES: dict[str, str] = {
    # JAX prints its PRNGImpl object, function addresses included
    "wrap_key_data[bad_shape]": "JAX's message shows the PRNGImpl repr with addresses",
}


@pytest.mark.parametrize("case", recorded.params(CASES, KNOWN_DIFFERENCES))
def test_prng_impls_are_jaxs(case):
    recorded.check(case)


def test_bad_key_data_message_type():
    """The case above, comparing the exception type only."""
    case = next(c for c in CASES if c["name"] == "wrap_key_data[bad_shape]")
    recorded.check(case, type_only=True)


def test_every_known_difference_is_a_case():
    names = {case["name"] for case in CASES}
    assert set(KNOWN_DIFFERENCES) <= names
