"""jnp.linalg built as JAX builds it: printed jaxprs and values, recorded from JAX 0.10.2.

tests/data/fidelity_linalg_cases.py holds the programs: the jaxprs of det, slogdet, solve,
inv, pinv, matrix_power, matrix_rank, cond, norm and triangular_solve under jit, grad, jvp and
vmap (``jaxpr:`` cases, compared character for character), and values that exercise their
bodies' corners (``value:`` cases: singular matrices, batches, broadcasting, errors).
KNOWN_DIFFERENCES are strict xfails: they fail the suite the day they start to pass.
"""
from __future__ import annotations

import pytest
from recorded import check, load

CASES = load("fidelity_linalg_recorded.json")
_DIAGONAL = ("det of a 4x4 goes through slogdet's LU, whose diagonal JAX takes with its inner "
             "jnp.diagonal jit (a platform-dependent gather); edujax's jnp.diagonal slices")
KNOWN_DIFFERENCES: dict[str, str] = {
    "jaxpr:det[4x4]": _DIAGONAL, "jaxpr:det[4x4][grad]": _DIAGONAL,
    "jaxpr:det[4x4][jit]": _DIAGONAL,
}


def _params():
    for case in CASES:
        marks = ()
        if case["name"] in KNOWN_DIFFERENCES:
            marks = pytest.mark.xfail(reason=KNOWN_DIFFERENCES[case["name"]], strict=True)
        yield pytest.param(case, id=case["name"], marks=marks)


@pytest.mark.parametrize("case", list(_params()))
def test_matches_recorded_jax(case):
    check(case)


def test_every_known_difference_is_a_case():
    assert set(KNOWN_DIFFERENCES) <= {case["name"] for case in CASES}
