"""``jnp.i0`` (the modified Bessel function of the first kind, order 0) and the Kaiser
window built on it.

JAX computes ``i0(x) = exp(|x|) * bessel_i0e(|x|)`` with XLA's Chebyshev approximation
of ``bessel_i0e``. edujax has no such primitive, so it composes two textbook formulas:

* for |x| <= 20, the power series ``sum_k (x^2/4)^k / (k!)^2`` (every term positive, so
  no cancellation), summed by a ``scan`` over 60 terms: each term is the previous one
  times ``(x^2/4) / k^2``;
* for |x| > 20, the asymptotic expansion ``exp(x) / sqrt(2 pi x) * (1 + 1/(8x) +
  9/(2 (8x)^2) + ...)``, whose first terms are already below float64 rounding there.

Both branches are computed on safe inputs and chosen with ``where`` (the "double where"
that keeps the unused branch's infinities out of the gradient). The derivative, ``i1``,
comes from differentiating the series and the expansion.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from edujax import core, dtypes, lax
from edujax.errors import ConcretizationTypeError
from edujax.numpy.ufuncs import _where
from edujax.numpy.util import asarray, promote_args_inexact

_SERIES_TERMS = 60
_SWITCH = 20.0
# the coefficients ((2k-1)!!)^2 / (k! 8^k) of the asymptotic expansion, k = 0..8
_ASYMPTOTIC = [math.prod(range(1, 2 * k, 2)) ** 2 / (math.factorial(k) * 8.0 ** k)
               for k in range(9)]


def _series(x: Any) -> Any:
    quarter_x2 = x * x * 0.25
    ks = lax.convert_element_type(lax.iota(np.int32, _SERIES_TERMS) + 1, x.dtype)

    def add_term(carry, k):
        term, total = carry
        term = term * quarter_x2 / (k * k)
        return (term, total + term), None
    one = lax.full_like(x, 1)
    (_, total), _ = lax.scan(add_term, (one, one), ks)
    return total


def _asymptotic(x: Any) -> Any:
    inv_x = 1.0 / x
    total = lax.full_like(x, _ASYMPTOTIC[-1])
    for c in reversed(_ASYMPTOTIC[:-1]):  # Horner's rule in 1/x
        total = total * inv_x + c
    return lax.exp(x) / lax.sqrt(2 * np.pi * x) * total


def i0(x: Any) -> Any:
    """The modified Bessel function of the first kind of order 0 (even in ``x``)."""
    x = asarray(promote_args_inexact("i0", x)[0])  # a Python float becomes a weak array
    if dtypes.dtype_and_weak(x)[0].kind != "f":
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {x.dtype}")
    ax = lax.abs(x)
    small = lax.le(ax, np.asarray(_SWITCH, x.dtype)[()])
    safe_small = _where(small, ax, np.asarray(0, x.dtype)[()])
    safe_big = _where(small, np.asarray(2 * _SWITCH, x.dtype)[()], ax)
    out = _where(small, _series(safe_small), _asymptotic(safe_big))
    return lax._convert_element_type(out, x.dtype, dtypes.dtype_and_weak(x)[1])  # keep weak


def kaiser(M: int, beta: Any) -> Any:
    """The Kaiser window: ``i0(beta * sqrt(1 - ((n - a) / a)^2)) / i0(beta)``, with
    ``a = (M - 1) / 2``; ``beta`` trades the main lobe's width for side-lobe height."""
    if isinstance(M, core.Tracer):
        raise ConcretizationTypeError(M, "M argument of jnp.kaiser")
    M = int(M)
    dtype = dtypes.float_dtype()
    if M <= 1:
        return lax.full((M,), 1, dtype)
    n = lax.iota(dtype, M)
    alpha = 0.5 * (M - 1)
    return i0(beta * lax.sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(lax.full((), beta, dtype))
