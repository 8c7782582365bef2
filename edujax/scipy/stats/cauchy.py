"""The Cauchy distribution: density 1 / (pi scale (1 + z**2)); it has no mean.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("cauchy.logpdf", x, loc, scale)
    pi = _const(x, np.pi)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    normalize_term = lax.log(lax.mul(pi, scale))
    return lax.neg(lax.add(normalize_term, lax.log1p(lax.mul(scaled_x, scaled_x))))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("cauchy.cdf", x, loc, scale)
    pi = _const(x, np.pi)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    return lax.add(_const(x, 0.5), lax.mul(lax.div(_const(x, 1.), pi), jnp.arctan(scaled_x)))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.log(cdf(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    q, loc, scale = _promote("cauchy.isf", q, loc, scale)
    pi = _const(q, np.pi)
    half_pi = _const(q, np.pi / 2)
    unscaled = lax.tan(lax.sub(half_pi, lax.mul(pi, q)))
    return lax.add(lax.mul(unscaled, scale), loc)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    q, loc, scale = _promote("cauchy.ppf", q, loc, scale)
    pi = _const(q, np.pi)
    half_pi = _const(q, np.pi / 2)
    unscaled = lax.tan(lax.sub(lax.mul(pi, q), half_pi))
    return lax.add(lax.mul(unscaled, scale), loc)
