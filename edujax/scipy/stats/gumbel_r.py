"""The right-skewed Gumbel distribution (of the maximum of many samples): CDF exp(-exp(-z)).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, xlogy


def logpdf(x: Any,
                     loc: Any = 0,
                     scale: Any = 1) -> Any:
    x, loc, scale = _promote("gumbel_r.logpdf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    neg_log_scale = xlogy(-1, scale)
    t2 = lax.neg(lax.add(z, lax.exp(lax.neg(z))))
    log_pdf = lax.add(neg_log_scale, t2)
    return jnp.where(ok, log_pdf, np.nan)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x: Any,
                     loc: Any = 0,
                     scale: Any = 1) -> Any:
    x, loc, scale = _promote("gumbel_r.logcdf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    log_cdf = lax.neg(lax.exp(lax.neg(z)))
    return jnp.where(ok, log_cdf, np.nan)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logcdf(x, loc, scale))


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    p, loc, scale = _promote("gumbel_r.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _const(p, 0)), lax.lt(p, _const(p, 1)))
    t1 = xlogy(-1, p)
    t = lax.mul(scale, lax.log(t1))
    quantile = lax.sub(loc, t)
    return jnp.where(ok, quantile, np.nan)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("gumbel_r.sf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    neg_z = lax.div(lax.sub(loc, x), scale)
    t1 = lax.exp(lax.neg(lax.exp(neg_z)))
    _sf = lax.sub(_const(x, 1), t1)
    return jnp.where(ok, _sf, np.nan)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("gumbel_r.logsf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    neg_z = lax.div(lax.sub(loc, x), scale)
    log_sf = _log1mexp(lax.exp(neg_z))
    return jnp.where(ok, log_sf, np.nan)


def _log1mexp(x: Any) -> Any:
    """log(1 - exp(-x)), accurate for small and large x (jax.nn.log1mexp)."""
    return jnp.where(x < np.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))
