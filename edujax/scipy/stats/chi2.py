"""The chi-squared distribution with df degrees of freedom: a gamma distribution with
shape df / 2 and scale 2.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, gammainc, gammaincc


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, df, loc, scale = _promote("chi2.logpdf", x, df, loc, scale)
    one = _const(x, 1)
    two = _const(x, 2)
    y = lax.div(lax.sub(x, loc), scale)
    df_on_two = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(df_on_two, one), lax.log(y)), lax.div(y,two))
    nrml_cnst = lax.neg(lax.add(lax.lgamma(df_on_two),lax.div(lax.mul(lax.log(two), df),two)))
    log_probs = lax.add(lax.sub(nrml_cnst, lax.log(scale)), kernel)
    return jnp.where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, df, loc, scale))


def _half_chi2(name: str, x: Any, df: Any, loc: Any, scale: Any) -> tuple[Any, Any]:
    """(df / 2, (x - loc) / (2 scale) clamped at 0): chi2 is a gamma distribution of shape
    df/2, so its cdf and sf are the regularized incomplete gamma functions of these."""
    x, df, loc, scale = _promote(name, x, df, loc, scale)
    two = _const(scale, 2)
    shape = lax.div(df, two)  # (computed first, as in JAX's jaxprs)
    z = lax.div(lax.sub(x, loc), lax.mul(scale, two))
    return shape, lax.clamp(_const(x, 0), z, _const(x, np.inf))


def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return gammainc(*_half_chi2("chi2.cdf", x, df, loc, scale))


def logcdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.log(cdf(x, df, loc, scale))


def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return gammaincc(*_half_chi2("chi2.sf", x, df, loc, scale))


def logsf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.log(sf(x, df, loc, scale))
