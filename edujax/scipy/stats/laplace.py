"""The Laplace distribution: density exp(-|x - loc| / scale) / (2 scale).
"""
from __future__ import annotations

from typing import Any


from edujax import lax

from edujax.scipy.special_functions import _const, _promote


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("laplace.logpdf", x, loc, scale)
    two = _const(x, 2)
    linear_term = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear_term, lax.log(lax.mul(two, scale))))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("laplace.cdf", x, loc, scale)
    half = _const(x, 0.5)
    one = _const(x, 1)
    zero = _const(x, 0)
    diff = lax.div(lax.sub(x, loc), scale)
    return lax.select(lax.le(diff, zero),
                                        lax.mul(half, lax.exp(diff)),
                                        lax.sub(one, lax.mul(half, lax.exp(lax.neg(diff)))))
