"""JAX's notebook "Writing custom interpreters in JAX" runs and prints on edujax as on JAX
(issue 29): programs recorded from real JAX 0.10.2 (tests/data/interpreters_cases.py ->
interpreters_recorded.json), replayed and compared text for text."""
from __future__ import annotations

import pytest

from recorded import check, load, params

CASES = load("interpreters_recorded.json")


@pytest.mark.parametrize("case", params(CASES))
def test_recorded(case):
    check(case)


def test_the_notebooks_programs_are_all_recorded():
    assert {c["name"] for c in CASES} >= {"eval_jaxpr", "inverse_jaxpr",
                                          "inverse_jit_vmap_grad", "inverse_vmap_grad_jaxpr"}
    assert not any("raises" in c for c in CASES)
