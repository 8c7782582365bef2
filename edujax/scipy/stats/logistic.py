"""The logistic distribution: its CDF is the sigmoid expit((x - loc) / scale).
"""
from __future__ import annotations

from typing import Any


from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, expit, logit


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("logistic.logpdf", x, loc, scale)
    x = lax.div(lax.sub(x, loc), scale)
    two = _const(x, 2)
    half_x = lax.div(x, two)
    return lax.sub(lax.mul(lax.neg(two), jnp.logaddexp(half_x, lax.neg(half_x))), lax.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, loc, scale))


def ppf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(logit(x), scale), loc)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("logistic.sf", x, loc, scale)
    return expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def isf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(logit(x)), scale), loc)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("logistic.cdf", x, loc, scale)
    return expit(lax.div(lax.sub(x, loc), scale))
