"""The gamma distribution with shape a: density x**(a-1) exp(-x) / Gamma(a); its CDF is gammainc.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, gammainc, gammaincc, gammaln, xlogy


def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, a, loc, scale = _promote("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = _const(x, 1)
    y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    log_linear_term = lax.sub(xlogy(lax.sub(a, one), y), y)
    shape_terms = lax.add(gammaln(a), lax.log(scale))
    log_probs = lax.sub(log_linear_term, shape_terms)
    return jnp.where(ok, log_probs, -np.inf)


def pdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, a, loc, scale))


def cdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, a, loc, scale = _promote("gamma.cdf", x, a, loc, scale)
    return gammainc(
        a,
        lax.clamp(
            _const(x, 0),
            lax.div(lax.sub(x, loc), scale),
            _const(x, np.inf),
        )
    )


def logcdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.log(cdf(x, a, loc, scale))


def sf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, a, loc, scale = _promote("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(lax.lt(y, _const(y, 0)), 1, gammaincc(a, y))


def logsf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.log(sf(x, a, loc, scale))
