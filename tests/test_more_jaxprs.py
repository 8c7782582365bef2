"""make_jaxpr prints exactly JAX 0.10's text for jax.scipy, jax.nn and jax.random (issue 17).

tests/data/more_jaxprs_cases.py holds the programs: jax.scipy.special (logsumexp, softmax,
erf, gammaln, xlogy...), jax.scipy.stats (norm, logistic, t, gamma, beta, poisson, bernoulli,
multivariate_normal...), the rest of jax.nn (dot_product_attention, one_hot, standardize...),
jax.nn.initializers and jax.random (with typed ``key`` and raw ``PRNGKey`` keys), as they are
and under jit, vmap and grad; tests/data/more_jaxprs_recorded.json is what real JAX 0.10.2
printed for each. Every case must come out character for character the same, except those
listed in KNOWN_DIFFERENCES (strict xfails: they fail the suite the day they start to pass,
so the list cannot go stale).
"""
from __future__ import annotations

import pytest
import recorded

CASES = recorded.load("more_jaxprs_recorded.json")

KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.mark.parametrize("case", recorded.params(CASES, KNOWN_DIFFERENCES))
def test_jaxpr_text_is_jaxs(case):
    recorded.check(case)

