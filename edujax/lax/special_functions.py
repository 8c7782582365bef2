"""The special functions of mathematics as primitives: ``lgamma``, ``digamma``, ``polygamma``,
``zeta``, ``igamma``/``igammac`` (the regularized incomplete gamma functions), ``igamma_grad_a``,
``random_gamma_grad``, ``betainc``, ``erfc``, ``bessel_i0e``/``bessel_i1e``.

JAX has a primitive for each (XLA evaluates them with polynomial and continued-fraction
approximations); jax.scipy.special and jax.random are built on top of them, so their
derivatives and batching come from the rules here.

Each reference rule evaluates a plain Python formula in float64, one element at a time
(``np.vectorize``), and rounds once to the input's dtype. That is slow but readable: the
formulas below are the textbook ones (series, continued fractions, asymptotic expansions),
not XLA's.
NB: XLA's approximations are not correctly rounded either, so float32 results may differ
from JAX's in the last bit or two.
"""
from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable

import numpy as np

from edujax import core
from edujax.core import Primitive
from edujax.interpreters import ad, batching
from edujax.lax.base import full_like
from edujax.lax.elementwise import (_const, abs, add, exp, gt, integer_pow, log, log1p,
                                    mul, neg, select, sign, square, sub)
from edujax.lax.registry import FLOATING, accepted, naryop_abstract_eval

FLOAT = accepted(FLOATING)


def _elementwise(name: str, scalar_fn: Callable[..., float], nargs: int) -> Primitive:
    """A float primitive whose reference rule applies ``scalar_fn`` to each element in float64
    and rounds the result once to the operands' dtype."""
    vectorized = np.vectorize(scalar_fn, otypes=[np.float64])

    def impl(*args: np.ndarray, **params: Any) -> np.ndarray:
        dtype = args[0].dtype
        with np.errstate(all="ignore"):
            out = vectorized(*(a.astype(np.float64) for a in args))
        return np.asarray(out).astype(dtype)

    prim = Primitive(name)
    core.abstract_eval_rules[prim] = partial(naryop_abstract_eval, name, FLOAT)
    core.impl_rules[prim] = impl
    if nargs == 1:
        batching.defvectorized(prim)
    else:
        batching.defbroadcasting(prim)
    return prim


# ================================================================ lgamma, digamma
def _lgamma_scalar(x: float) -> float:
    """log|Gamma(x)|; Gamma has poles at 0, -1, -2, ... where the log is +inf."""
    if math.isnan(x):
        return x
    try:
        return math.lgamma(x)
    except ValueError:  # a pole
        return math.inf


def _digamma_scalar(x: float) -> float:
    """psi(x) = d/dx log Gamma(x).

    Three steps: reflect x < 0.5 to 1 - x (psi(1-x) - psi(x) = pi / tan(pi x)); climb
    with psi(x) = psi(x + 1) - 1/x until x >= 6; then the asymptotic series
    psi(x) ~ log x - 1/(2x) - sum B_2k / (2k x^2k), which is accurate there.
    """
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x <= 0 and x == math.floor(x):
        return math.nan  # a pole (XLA gives nan too)
    if x == math.inf:
        return math.inf
    if x < 0.5:
        return _digamma_scalar(1 - x) - math.pi / math.tan(math.pi * x)
    result = 0.0
    while x < 6:
        result -= 1 / x
        x += 1
    inv2 = 1 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (
        1 / 240 - inv2 * (1 / 132)))))
    return result + math.log(x) - 0.5 / x - series


lgamma_p = _elementwise("lgamma", _lgamma_scalar, 1)
digamma_p = _elementwise("digamma", _digamma_scalar, 1)


def lgamma(x: Any) -> Any:
    """``log|Gamma(x)|``, elementwise."""
    return lgamma_p.bind(x)


def digamma(x: Any) -> Any:
    """The digamma function ``psi(x) = d/dx lgamma(x)``, elementwise."""
    return digamma_p.bind(x)


# ================================================================ zeta, polygamma
# Euler-Maclaurin summation: the first N terms of the sum, an integral for the rest, and
# Bernoulli-number corrections (Cephes' zeta). _ZETA_B[k] = (2k)! / B_2k.
_ZETA_B = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def _zeta_scalar(x: float, q: float) -> float:
    """The Hurwitz zeta function sum_{k>=0} (k + q)^-x, for x > 1."""
    if math.isnan(x) or math.isnan(q):
        return math.nan
    if x == 1:
        return math.inf
    if x < 1:
        return math.nan
    if q <= 0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan  # q^-x would be complex
    total, a, n = q ** -x, q, 0
    while n < 9 or a <= 9:
        n, a = n + 1, a + 1
        term = a ** -x
        total += term
        if abs(term / total) < 1e-17:
            return total
    w = a
    total += a ** (1 - x) / (x - 1) - 0.5 * a ** -x
    factor, power = 1.0, a ** -x
    for k, b in enumerate(_ZETA_B):
        factor *= x + 2 * k
        power /= w
        term = factor * power / b
        total += term
        if abs(term / total) < 1e-17:
            break
        factor *= x + 2 * k + 1
        power /= w
    return total


def _polygamma_scalar(m: float, x: float) -> float:
    """psi^(m)(x) = (-1)^(m+1) m! zeta(m + 1, x) for an integer m >= 1; digamma for m = 0."""
    if m != math.floor(m) or m < 0:
        return math.nan
    if m == 0:
        return _digamma_scalar(x)
    return (-1) ** (m + 1) * math.gamma(m + 1) * _zeta_scalar(m + 1, x)


zeta_p = _elementwise("zeta", _zeta_scalar, 2)
polygamma_p = _elementwise("polygamma", _polygamma_scalar, 2)


def zeta(x: Any, q: Any) -> Any:
    """The Hurwitz zeta function ``sum_k (k + q)**-x``, elementwise."""
    return zeta_p.bind(x, q)


def polygamma(m: Any, x: Any) -> Any:
    """The m-th derivative of digamma, elementwise (m a whole number, as a float)."""
    return polygamma_p.bind(m, x)


# ================================================================ igamma, igammac
# P(a, x) = gamma(a, x) / Gamma(a) (the lower incomplete gamma function, regularized) and
# Q(a, x) = 1 - P(a, x). A power series converges fast for x < a + 1, a continued
# fraction for larger x (Numerical Recipes, gser and gcf); each computes the other as 1 - it.
def _igamma_series(a: float, x: float) -> float:
    term = total = 1 / a
    n = a
    for _ in range(2000):
        n += 1
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-17:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _igammac_fraction(a: float, x: float) -> float:
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 2000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def _igamma_scalar(a: float, x: float) -> float:
    if math.isnan(a) or math.isnan(x) or a < 0 or x < 0:
        return math.nan
    if a == 0:
        return 1.0 if x > 0 else math.nan
    if x == 0:
        return 0.0
    if x == math.inf:
        return 1.0
    if x < a + 1:
        return _igamma_series(a, x)
    return 1 - _igammac_fraction(a, x)


def _igammac_scalar(a: float, x: float) -> float:
    if math.isnan(a) or math.isnan(x) or a < 0 or x < 0:
        return math.nan
    if a == 0:
        return 0.0 if x > 0 else math.nan
    if x == 0:
        return 1.0
    if x == math.inf:
        return 0.0
    if x < a + 1:
        return 1 - _igamma_series(a, x)
    return _igammac_fraction(a, x)


def _igamma_grad_a_scalar(a: float, x: float) -> float:
    """dP(a, x)/da by a central difference in float64.

    NB: XLA differentiates the series and the continued fraction term by term; a central
    difference with a step of about 1e-5 * a is accurate to ~1e-10, far below float32's
    resolution, and much shorter to read."""
    if math.isnan(a) or math.isnan(x) or a <= 0 or x <= 0 or x == math.inf:
        return 0.0 if x == 0 or x == math.inf else math.nan
    h = 1e-5 * max(a, 1e-3)
    return (_igamma_scalar(a + h, x) - _igamma_scalar(a - h, x)) / (2 * h) if a > h else (
        _igamma_scalar(a + h, x) - _igamma_scalar(a, x)) / h


def _random_gamma_grad_scalar(a: float, x: float) -> float:
    """d sample / d a for a Gamma(a, 1) sample x drawn by inverting the CDF P(a, x) = u:
    implicit differentiation gives -(dP/da) / (dP/dx)."""
    if x <= 0:
        return 0.0
    density = math.exp(-x + (a - 1) * math.log(x) - math.lgamma(a))
    return -_igamma_grad_a_scalar(a, x) / density if density > 0 else 0.0


igamma_p = _elementwise("igamma", _igamma_scalar, 2)
igammac_p = _elementwise("igammac", _igammac_scalar, 2)
igamma_grad_a_p = _elementwise("igamma_grad_a", _igamma_grad_a_scalar, 2)
random_gamma_grad_p = _elementwise("random_gamma_grad", _random_gamma_grad_scalar, 2)


def igamma(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function P(a, x), elementwise."""
    return igamma_p.bind(a, x)


def igammac(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), elementwise."""
    return igammac_p.bind(a, x)


def igamma_grad_a(a: Any, x: Any) -> Any:
    """dP(a, x)/da, elementwise."""
    return igamma_grad_a_p.bind(a, x)


def random_gamma_grad(a: Any, x: Any) -> Any:
    """The derivative of a Gamma(a) sample x with respect to a (implicit reparameterization)."""
    return random_gamma_grad_p.bind(a, x)


def _igamma_gradx(g, a, x):
    """dP/dx is the Gamma(a) density: exp(-x + (a - 1) log x - lgamma(a))."""
    return mul(g, exp(sub(add(neg(x), mul(sub(a, _const(a, 1)), log(x))), lgamma(a))))


ad.defjvp(igamma_p, lambda g, a, x: mul(g, igamma_grad_a(a, x)), _igamma_gradx)
ad.defjvp(igammac_p, lambda g, a, x: neg(mul(g, igamma_grad_a(a, x))),
          lambda g, a, x: neg(_igamma_gradx(g, a, x)))


# ================================================================ betainc
def _betainc_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction for I_x(a, b) (Numerical Recipes' betacf, Lentz's method)."""
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, 3000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (tiny if abs(d) < tiny else d)
            c = 1 + num / c
            c = tiny if abs(c) < tiny else c
            h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return h


def _betainc_scalar(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function: the Beta(a, b) CDF at x."""
    if any(math.isnan(v) for v in (a, b, x)) or a <= 0 or b <= 0 or not 0 <= x <= 1:
        return math.nan
    if x in (0.0, 1.0):
        return x
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):  # the fraction converges fast on this side
        return math.exp(log_front) * _betainc_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _betainc_fraction(b, a, 1 - x) / b


regularized_incomplete_beta_p = _elementwise("regularized_incomplete_beta", _betainc_scalar, 3)


def _betainc_grad_not_implemented(g, a, b, x):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_gradx(g, a, b, x):
    lbeta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
    return mul(exp(sub(add(mul(sub(b, _const(b, 1)), log1p(neg(x))),
                           mul(sub(a, _const(a, 1)), log(x))), lbeta)), g)


ad.defjvp(regularized_incomplete_beta_p, _betainc_grad_not_implemented,
          _betainc_grad_not_implemented, _betainc_gradx)


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function I_x(a, b), elementwise."""
    return regularized_incomplete_beta_p.bind(a, b, x)


# ================================================================ erfc
erfc_p = _elementwise("erfc", math.erfc, 1)
ad.defjvp(erfc_p, lambda g, x: mul(_const(x, -2 / np.sqrt(np.pi)), mul(g, exp(neg(square(x))))))


def erfc(x: Any) -> Any:
    """The complementary error function ``1 - erf(x)``, accurate where erf(x) is near 1."""
    return erfc_p.bind(x)


# ================================================================ bessel_i0e, bessel_i1e
# The modified Bessel functions I0 and I1 grow like e^|x|, so JAX offers them scaled by
# e^-|x|. For |x| <= 30 we sum their power series (all terms positive: no cancellation),
# beyond that Hankel's asymptotic expansion e^x / sqrt(2 pi x) * (1 - (4n^2-1)/(8x) + ...).
def _bessel_ie_scalar(order: int, x: float) -> float:
    if math.isnan(x):
        return x
    ax = math.fabs(x)
    if ax == math.inf:
        return 0.0
    if ax <= 30:
        term = (ax / 2) ** order / math.factorial(order)
        total, k = term, 0
        while term > total * 1e-18:
            k += 1
            term *= (ax / 2) ** 2 / (k * (k + order))
            total += term
        value = total * math.exp(-ax)
    else:
        mu, term, total = 4 * order * order, 1.0, 1.0
        for k in range(1, 30):
            term *= -(mu - (2 * k - 1) ** 2) / (k * 8 * ax)
            total += term
        value = total / math.sqrt(2 * math.pi * ax)
    return value if order == 0 or x >= 0 else -value


bessel_i0e_p = _elementwise("bessel_i0e", partial(_bessel_ie_scalar, 0), 1)
bessel_i1e_p = _elementwise("bessel_i1e", partial(_bessel_ie_scalar, 1), 1)


def bessel_i0e(x: Any) -> Any:
    """``exp(-|x|) * I0(x)``, the exponentially scaled modified Bessel function of order 0."""
    return bessel_i0e_p.bind(x)


def bessel_i1e(x: Any) -> Any:
    """``exp(-|x|) * I1(x)``, the exponentially scaled modified Bessel function of order 1."""
    return bessel_i1e_p.bind(x)


def _bessel_i1e_jvp(g, y, x):
    """i1e' = i0e - i1e * (sign(x) + 1/x); at x = 0 the limit is 1/2."""
    eps = np.finfo(core.get_aval(x).dtype).eps
    x_is_not_tiny = gt(abs(x), _const(x, eps))
    safe_x = select(x_is_not_tiny, x, full_like(x, eps))
    dy_dx = sub(bessel_i0e(safe_x), mul(y, add(sign(safe_x), integer_pow(safe_x, -1))))
    dy_dx = select(x_is_not_tiny, dy_dx, full_like(x, 0.5))
    return mul(g, dy_dx)


ad.defjvp2(bessel_i0e_p, lambda g, y, x: mul(g, sub(bessel_i1e(x), mul(sign(x), y))))
ad.defjvp2(bessel_i1e_p, _bessel_i1e_jvp)

# The derivatives that need functions defined above.
ad.defjvp(lgamma_p, lambda g, x: mul(g, digamma(x)))
ad.defjvp(digamma_p, lambda g, x: mul(g, polygamma(_const(x, 1), x)))


def _polygamma_gradm(g, m, x):
    raise ValueError("polygamma gradient with respect to m is not supported")


ad.defjvp(polygamma_p, _polygamma_gradm,
          lambda g, m, x: mul(g, polygamma(add(m, _const(m, 1)), x)))
