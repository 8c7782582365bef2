"""The generalized normal distribution: density beta / (2 Gamma(1/beta)) exp(-|x|**beta)
(beta = 2: a normal; beta = 1: a Laplace)."""
from __future__ import annotations

from typing import Any

from edujax import lax
from edujax.scipy.special_functions import _promote


def logpdf(x: Any, beta: Any) -> Any:
    x, beta = _promote("gennorm.logpdf", x, beta)
    return lax.log(.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x: Any, beta: Any) -> Any:
    """1/2 (1 + sign(x) P(1/beta, |x|**beta)), P the regularized incomplete gamma function."""
    x, beta = _promote("gennorm.cdf", x, beta)
    return .5 * (1 + lax.sign(x) * lax.igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x: Any, beta: Any) -> Any:
    return lax.exp(logpdf(x, beta))
