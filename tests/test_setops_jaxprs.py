"""jnp.unique and the set operations give JAX 0.10's values, errors and jaxprs (issue 17).

tests/data/setops_cases.py holds the programs: with ``size=``, the set operations sort,
mask and gather, so they trace, and make_jaxpr must print exactly JAX's text (as they are
and under jit, vmap and grad); eagerly and under the transformations they must give JAX's
values; without ``size`` under a trace, JAX's error. tests/data/setops_recorded.json is
what real JAX 0.10.2 gave. Cases listed in KNOWN_DIFFERENCES are strict xfails.
"""
from __future__ import annotations

import pytest
import recorded

CASES = recorded.load("setops_recorded.json")
KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.mark.parametrize("case", recorded.params(CASES, KNOWN_DIFFERENCES))
def test_setops_are_jaxs(case):
    recorded.check(case)

