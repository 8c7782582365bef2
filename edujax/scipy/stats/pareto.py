"""The Pareto distribution with shape b: density b / x**(b+1) for x >= 1.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote


def logpdf(
    x: Any, b: Any, loc: Any = 0, scale: Any = 1
) -> Any:
    x, b, loc, scale = _promote("pareto.logpdf", x, b, loc, scale)
    one = _const(x, 1)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    normalize_term = lax.log(lax.div(scale, b))
    log_probs = lax.neg(
        lax.add(normalize_term, lax.mul(lax.add(b, one), lax.log(scaled_x)))
    )
    return jnp.where(lax.lt(x, lax.add(loc, scale)), -np.inf, log_probs)


def pdf(
    x: Any, b: Any, loc: Any = 0, scale: Any = 1
) -> Any:
    return lax.exp(logpdf(x, b, loc, scale))


def cdf(
    x: Any, b: Any, loc: Any = 0, scale: Any = 1
) -> Any:
    x, b, loc, scale = _promote("pareto.cdf", x, b, loc, scale)
    one = _const(x, 1)
    zero = _const(x, 0)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    cdf = lax.sub(one, lax.pow(scaled_x, lax.neg(b)))
    return jnp.where(lax.lt(x, lax.add(loc, scale)), zero, cdf)


def logcdf(
    x: Any, b: Any, loc: Any = 0, scale: Any = 1
) -> Any:
    x, b, loc, scale = _promote("pareto.logcdf", x, b, loc, scale)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    logcdf_val = lax.log1p(lax.neg(lax.pow(scaled_x, lax.neg(b))))
    return jnp.where(lax.lt(x, lax.add(loc, scale)), -np.inf, logcdf_val)


def logsf(
    x: Any, b: Any, loc: Any = 0, scale: Any = 1
) -> Any:
    x, b, loc, scale = _promote("pareto.logsf", x, b, loc, scale)
    zero = _const(x, 0)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    logsf_val = lax.neg(lax.mul(b, lax.log(scaled_x)))
    return jnp.where(lax.lt(x, lax.add(loc, scale)), zero, logsf_val)


def sf(
    x: Any, b: Any, loc: Any = 0, scale: Any = 1
) -> Any:
    return lax.exp(logsf(x, b, loc, scale))


def ppf(
    q: Any, b: Any, loc: Any = 0, scale: Any = 1
) -> Any:
    q, b, loc, scale = _promote("pareto.ppf", q, b, loc, scale)
    one = _const(q, 1)
    ppf_val = lax.add(
        loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b))))
    )
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, ppf_val)
