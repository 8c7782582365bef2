"""The negative binomial distribution: the number of failures before the n-th success,
P(k) = C(k + n - 1, k) p**n (1 - p)**k."""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.scipy.special_functions import _const, _promote, gammaln, xlogy


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    k, n, p, loc = _promote("nbinom.logpmf", k, n, p, loc)
    one = _const(k, 1)
    y = lax.sub(k, loc)
    comb_term = lax.sub(lax.sub(gammaln(lax.add(y, n)), gammaln(n)), gammaln(lax.add(y, one)))
    log_linear_term = lax.add(xlogy(n, p), xlogy(y, lax.sub(one, p)))
    log_probs = lax.add(comb_term, log_linear_term)
    return jnp.where(lax.lt(k, loc), -np.inf, log_probs)


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    return lax.exp(logpmf(k, n, p, loc))
