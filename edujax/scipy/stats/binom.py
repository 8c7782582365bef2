"""The binomial distribution: the number of successes in n trials of probability p,
P(k) = C(n, k) p**k (1 - p)**(n - k), computed in logs (gammaln for the binomial
coefficient, xlogy so that 0 * log 0 counts as 0)."""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.scipy.special_functions import _const, _promote, gammaln, xlog1py, xlogy


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    k, n, p, loc = _promote("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    zero = _const(y, 0)
    comb_term = lax.sub(gammaln(n + 1), lax.add(gammaln(y + 1), gammaln(n - y + 1)))
    log_linear_term = lax.add(xlogy(y, p), xlog1py(lax.sub(n, y), lax.neg(p)))
    log_probs = lax.add(comb_term, log_linear_term)
    y_n_cond = jnp.logical_or(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)),
                              lax.eq(log_linear_term, zero))
    log_probs = jnp.where(y_n_cond, 0., log_probs)
    return jnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), log_probs, -np.inf)


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    return lax.exp(logpmf(k, n, p, loc))
