"""The Bernoulli distribution: 1 with probability p, else 0.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, xlog1py, xlogy


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    k, p, loc = _promote("bernoulli.logpmf", k, p, loc)
    zero = _const(k, 0)
    one = _const(k, 1)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, p) + xlog1py(lax.sub(one, x), -p)
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.gt(x, one)),
                                    -np.inf, log_probs)


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    return jnp.exp(logpmf(k, p, loc))


def cdf(k: Any, p: Any) -> Any:
    k, p = _promote('bernoulli.cdf', k, p)
    zero, one = _const(k, 0), _const(k, 1)
    conds = [jnp.isnan(k) | jnp.isnan(p) | (p < zero) | (p > one),  # invalid
             lax.lt(k, zero),
             jnp.logical_and(lax.ge(k, zero), lax.lt(k, one)),
             lax.ge(k, one)]
    vals = [jnp.nan, zero, one - p, one]
    return jnp.select(conds, vals)


def ppf(q: Any, p: Any) -> Any:
    q, p = _promote('bernoulli.ppf', q, p)
    zero, one = _const(q, 0), _const(q, 1)
    return jnp.where(
        jnp.isnan(q) | jnp.isnan(p) | (p < zero) | (p > one) | (q < zero) | (q > one),
        jnp.nan,
        jnp.where(lax.le(q, one - p), zero, one)
    )
