"""The exponential distribution: density exp(-(x - loc) / scale) / scale for x >= loc.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.scipy.special_functions import _promote



def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("expon.logpdf", x, loc, scale)
    log_scale = lax.log(scale)
    linear_term = lax.div(lax.sub(x, loc), scale)
    log_probs = lax.neg(lax.add(linear_term, log_scale))
    return jnp.where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("expon.cdf", x, loc, scale)
    neg_scaled_x = lax.div(lax.sub(loc, x), scale)
    return jnp.where(
        lax.lt(x, loc),
        jnp.zeros_like(neg_scaled_x),
        lax.neg(lax.expm1(neg_scaled_x)),
    )


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.log1p(lax.neg(sf(x, loc, scale)))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("expon.sf", x, loc, scale)
    neg_scaled_x = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_scaled_x), neg_scaled_x)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logsf(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    q, loc, scale = _promote("expon.ppf", q, loc, scale)
    return jnp.where(
        jnp.isnan(q) | (q < 0) | (q > 1),
        np.nan,
        lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))),
    )
