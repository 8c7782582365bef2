"""The left-skewed Gumbel distribution (of the minimum of many samples).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, xlog1py, xlogy


def logpdf(x: Any,
                     loc: Any = 0,
                     scale: Any = 1) -> Any:
    x, loc, scale = _promote("gumbel_l.logpdf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    neg_log_scale = xlogy(-1, scale)
    t2 = lax.sub(z, lax.exp(z))
    log_pdf = lax.add(neg_log_scale, t2)
    return jnp.where(ok, log_pdf, np.nan)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x: Any,
                     loc: Any = 0,
                     scale: Any = 1) -> Any:
    x, loc, scale = _promote("gumbel_l.logcdf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    neg_exp_z = lax.neg(lax.exp(z))
    log_cdf = lax.log(-lax.expm1(neg_exp_z))
    return jnp.where(ok, log_cdf, np.nan)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logcdf(x, loc, scale))


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    p, loc, scale = _promote("gumbel_l.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _const(p, 0)), lax.lt(p, _const(p, 1)))
    t1 = xlog1py(-1, lax.neg(p))
    t = lax.mul(scale, lax.log(t1))
    quantile = lax.add(loc, t)
    return jnp.where(ok, quantile, np.nan)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return jnp.exp(logsf(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("gumbel_l.logsf", x, loc, scale)
    ok = lax.gt(scale, _const(scale, 0))
    z = lax.div(lax.sub(x, loc), scale)
    log_sf = lax.neg(lax.exp(z))
    return jnp.where(ok, log_sf, np.nan)
