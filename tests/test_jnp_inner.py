"""The jnp functions JAX 0.10 wraps in its own ``jit``, printed exactly as JAX prints them.

tests/data/jnp_inner_cases.py holds the programs: median, quantile and percentile (and their
NaN twins), cross, take_along_axis, unwrap, cov and corrcoef, gcd and lcm, poly and polyfit,
convolve and correlate, the nan reductions, and more of the functions JAX jits (gradient,
trapezoid, ediff1d, partition, packbits, i0, frexp, ldexp, put_along_axis, ...), each as it
is, under jit, vmap and grad, with the keyword variants a student would use, on integer and
float inputs, and the values they compute. tests/data/jnp_inner_recorded.json is what real
JAX 0.10.2 gave for each; every case must come out character for character the same, except
those listed in KNOWN_DIFFERENCES (strict xfails: they fail the suite the day they start to
pass).
"""
from __future__ import annotations

import pytest
import recorded

CASES = recorded.load("jnp_inner_recorded.json")

KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.mark.parametrize("case", recorded.params(CASES, KNOWN_DIFFERENCES))
def test_matches_jax(case):
    recorded.check(case)

