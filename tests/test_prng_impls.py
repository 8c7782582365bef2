"""JAX's 'rbg' and 'unsafe_rbg' PRNGs and lax.rng_bit_generator give JAX 0.10's bits (issue 17).

tests/data/prng_impls_cases.py holds the programs (keys, split, fold_in, bits and samples,
eagerly and under jit and vmap, their jaxprs, and the errors); prng_impls_recorded.json is
what real JAX 0.10.2 gave on CPU. Cases listed in KNOWN_DIFFERENCES are strict xfails.
"""
from __future__ import annotations

import pytest
import recorded

CASES = recorded.load("prng_impls_recorded.json")
KNOWN_DIFFERENCES: dict[str, str] = {}
# Errors whose type only is compared: JAX's message prints its PRNGImpl object, the
# addresses of its functions included, which no other process can print.
TYPE_ONLY = {"wrap_key_data[bad_shape]"}


@pytest.mark.parametrize("case", recorded.params(CASES, KNOWN_DIFFERENCES, TYPE_ONLY))
def test_prng_impls_are_jaxs(case):
    recorded.check(case, type_only=case["name"] in TYPE_ONLY)
