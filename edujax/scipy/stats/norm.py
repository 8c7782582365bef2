"""The normal distribution N(loc, scale**2): density exp(-z**2/2) / sqrt(2 pi) / scale,
z = (x - loc) / scale.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, log_ndtr, ndtr, ndtri


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("norm.logpdf", x, loc, scale)
    scale_sqrd = lax.square(scale)
    log_normalizer = lax.log(lax.mul(_const(x, 2 * np.pi), scale_sqrd))
    quadratic = lax.div(lax.square(lax.sub(x, loc)), scale_sqrd)
    return lax.div(lax.add(log_normalizer, quadratic), _const(x, -2))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("norm.cdf", x, loc, scale)
    return ndtr(lax.div(lax.sub(x, loc), scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("norm.logcdf", x, loc, scale)
    return log_ndtr(lax.div(lax.sub(x, loc), scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return jnp.asarray(ndtri(jnp.asarray(q)) * scale + loc, float)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return ppf(lax.sub(_const(q, 1), q), loc, scale)
