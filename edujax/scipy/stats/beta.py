"""The beta distribution on [0, 1]: density x**(a-1) (1-x)**(b-1) / B(a, b); its CDF is betainc.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, betainc, betaln, xlog1py, xlogy


def logpdf(x: Any, a: Any, b: Any,
                     loc: Any = 0, scale: Any = 1) -> Any:
    x, a, b, loc, scale = _promote("beta.logpdf", x, a, b, loc, scale)
    one = _const(x, 1)
    zero = _const(a, 0)
    shape_term = lax.neg(betaln(a, b))
    y = lax.div(lax.sub(x, loc), scale)
    log_linear_term = lax.add(xlogy(lax.sub(a, one), y), xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.add(shape_term, log_linear_term), lax.log(scale))
    outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    result = jnp.where(outside, -np.inf, log_probs)
    bad_parameters = jnp.logical_or(jnp.logical_or(lax.le(a, zero), lax.le(b, zero)),
                                    lax.le(scale, zero))
    return jnp.where(bad_parameters, np.nan, result)


def pdf(x: Any, a: Any, b: Any,
                loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, a, b, loc, scale))


def cdf(x: Any, a: Any, b: Any,
                loc: Any = 0, scale: Any = 1) -> Any:
    x, a, b, loc, scale = _promote("beta.cdf", x, a, b, loc, scale)
    return betainc(
        a,
        b,
        lax.clamp(
            _const(x, 0),
            lax.div(lax.sub(x, loc), scale),
            _const(x, 1),
        )
    )


def logcdf(x: Any, a: Any, b: Any,
                     loc: Any = 0, scale: Any = 1) -> Any:
    return lax.log(cdf(x, a, b, loc, scale))


def sf(x: Any, a: Any, b: Any,
             loc: Any = 0, scale: Any = 1) -> Any:
    x, a, b, loc, scale = _promote("beta.sf", x, a, b, loc, scale)
    return betainc(
        b,
        a,
        1 - lax.clamp(
            _const(x, 0),
            lax.div(lax.sub(x, loc), scale),
            _const(x, 1),
        )
    )


def logsf(x: Any, a: Any, b: Any,
                    loc: Any = 0, scale: Any = 1) -> Any:
    return lax.log(sf(x, a, b, loc, scale))
