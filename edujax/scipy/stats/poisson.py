"""The Poisson distribution: P(k) = mu**k exp(-mu) / k!.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, gammaincc, gammaln, xlogy


def logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    k, mu, loc = _promote("poisson.logpmf", k, mu, loc)
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.ne(jnp.round(k), k)), -np.inf, log_probs)


def pmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k: Any, mu: Any, loc: Any = 0) -> Any:
    k, mu, loc = _promote("poisson.logpmf", k, mu, loc)
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    p = gammaincc(jnp.floor(1 + x), mu)
    return jnp.where(lax.lt(x, zero), zero, p)
