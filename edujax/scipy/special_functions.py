"""The bulk of ``jax.scipy.special`` (see special.py): SciPy's special functions, built from
lax primitives and jnp.

Most are a line or two on top of a primitive (``gammaln`` is ``lax.lgamma``, ``gammainc`` is
``lax.igamma``); the rest combine primitives the way JAX does, so that their derivatives,
batching and jit come for free. Where JAX gives a function a custom derivative (``xlogy``,
``logit``, ``log_ndtr``), so do we, because the plain chain rule would produce NaN at a
point where the function itself is fine (0 * log 0, say).
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import autodiff, core, lax
from edujax import numpy as jnp
from edujax.custom_derivatives import custom_jvp
from edujax.lax.elementwise import _const as _lax_const
from edujax.inner_jit import inner_jit
from edujax.numpy.util import promote_args_inexact
from edujax.scipy.softmax import logsumexp
from edujax.scipy.softmax import scipy_log_softmax as log_softmax
from edujax.scipy.softmax import scipy_softmax as softmax

__all__ = ["bernoulli", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "digamma",
           "entr", "erf", "erfc", "erfinv", "expit", "factorial", "gamma", "gammainc",
           "gammaincc", "gammaln", "gammasgn", "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr",
           "log_softmax", "loggamma", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri",
           "poch", "polygamma", "rel_entr", "softmax", "xlog1py", "xlogy", "zeta"]


def _const(x: Any, value: Any) -> Any:
    """A constant of x's dtype for arithmetic with x, a literal in jaxprs (JAX's
    ``lax._const``): a weakly typed Python scalar when x is a weak scalar, else a NumPy
    scalar of x's dtype, so that ``log(_const(x, pi))`` is already of x's dtype."""
    return _lax_const(x, value)


def _promote(name: str, *args: Any) -> list:
    """Check and promote the arguments to one inexact dtype, as Arrays (weak if they were)."""
    return [jnp.asarray(a) for a in promote_args_inexact(name, *args)]


def _no_complex(name: str, x: Any) -> None:
    if np.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"{name} does not support complex-valued inputs.")


# ================================================================ the gamma family
def gammaln(x: Any) -> Any:
    """``log|Gamma(x)|``."""
    x, = _promote("gammaln", x)
    return lax.lgamma(x)


@inner_jit
def gammasgn(x: Any) -> Any:
    """The sign of Gamma(x): +1, -1 between negative odd and even integers, nan at the poles."""
    x, = _promote("gammasgn", x)
    _no_complex("gammasgn", x)
    typ = x.dtype.type  # NumPy scalars, not weakly typed: gamma(0.5) is a strong float32
    floor_x = lax.floor(x)
    x_negative = x < 0
    return jnp.select(
        [(x_negative & (x == floor_x)) | jnp.isnan(x),                       # a pole
         (x_negative & (floor_x % 2 != 0)) | ((x == 0) & jnp.signbit(x))],   # negative
        [typ(np.nan), typ(-1.0)],
        typ(1.0))


def loggamma(x: Any) -> Any:
    """The principal branch of log Gamma(x): like gammaln for x > 0, nan elsewhere."""
    x, = _promote("loggamma", x)
    res = lax.lgamma(x)
    return jnp.where(x > 0, res, np.nan)


def gamma(x: Any) -> Any:
    """Gamma(x), as ``gammasgn(x) * exp(gammaln(x))``."""
    x, = _promote("gamma", x)
    return gammasgn(x) * lax.exp(lax.lgamma(x))


def betaln(a: Any, b: Any) -> Any:
    """``log|B(a, b)|``, SciPy's (cdflib's) way, as JAX does.

    For small b it is ``gammaln(a) + gammaln(b) - gammaln(a + b)``; for b >= 8 the last two
    terms nearly cancel (digits lost when b is large), so ``_algdiv`` computes their
    difference directly from Stirling's series."""
    a, b = _promote("betaln", a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _algdiv(a, b)
    return jnp.where(b < 8, small_b, large_b)


def _algdiv(a: Any, b: Any) -> Any:
    """``gammaln(b) - gammaln(a + b)`` for ``a <= b`` and ``b >= 8`` (cdflib's ``algdiv``).

    With del(x) the remainder of Stirling's series (``gammaln(x) = (x - 1/2) log x - x +
    log(2 pi) / 2 + del(x)``), the difference is ``del(b) - del(a + b)`` (``w``) minus
    the leading terms ``u`` and ``v``, summed smaller first."""
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x  # sN = (1 - x**n) / (1 - x), for the series of del(a + b)
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def beta(a: Any, b: Any) -> Any:
    """The beta function ``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``."""
    a, b = _promote("beta", a, b)
    _no_complex("beta", a)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def factorial(n: Any, exact: bool = False) -> Any:
    """``n! = Gamma(n + 1)`` (0 for negative n); only ``exact=False``, as in JAX."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n, = _promote("factorial", n)
    return jnp.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N: Any, k: Any, *, repetition: bool = False) -> Any:
    """The number of ways to choose k of N things (a float, through gammaln)."""
    N, k = _promote("comb", N, k)
    if repetition:
        return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k, repetition=False))
    ok = (k <= N) & (N >= 0) & (k >= 0)
    safe_N = jnp.where(ok, N, 0.0)
    safe_k = jnp.where(ok, k, 0.0)
    result = lax.exp(gammaln(safe_N + 1) - gammaln(safe_k + 1) - gammaln(safe_N + 1 - safe_k))
    return jnp.where(ok, result, 0.0)


@custom_jvp
def poch(z: Any, m: Any) -> Any:
    """The rising factorial ``(z)_m = Gamma(z + m) / Gamma(z)``."""
    z, m = _promote("poch", z, m)
    return jnp.where(m == 0.0, jnp.array(1, dtype=z.dtype),
                     gamma(z + m) / gamma(z))


# d/dz (z)_m = (psi(z + m) - psi(z)) (z)_m and d/dm (z)_m = psi(z + m) (z)_m (Wolfram's
# functions site, Pochhammer/20/01/01 and 02): a custom JVP, as in JAX, instead of the
# chain rule through the two gammas and the where.
poch.defjvps(
    lambda z_dot, primal_out, z, m: (digamma(z + m) - digamma(z)) * poch(z, m) * z_dot,
    lambda m_dot, primal_out, z, m: digamma(z + m) * poch(z, m) * m_dot)


def digamma(x: Any) -> Any:
    """``psi(x)``, the derivative of gammaln."""
    x, = _promote("digamma", x)
    return lax.digamma(x)


def polygamma(n: Any, x: Any) -> Any:
    """The n-th derivative of digamma (n an integer array or int)."""
    n_dtype = jnp.result_type(n)
    if not np.issubdtype(n_dtype, np.integer):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype "
                         f"{n_dtype}.")
    n, x = _promote("polygamma", n, x)
    _no_complex("polygamma", x)
    return lax.polygamma(n, x)


@custom_jvp
def zeta(x: Any, q: Any = None) -> Any:
    """The Hurwitz zeta function ``sum_k (k + q)**-x`` (q is required, as in JAX)."""
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to "
                                  "compute the Hurwitz Zeta function.")
    x, q = _promote("zeta", x, q)
    return lax.zeta(x, q)


# Taylor coefficients of the Euler-Maclaurin tail: (2j)! / B_2j for j = 1 .. 15.
_BERNOULLI_COEFS = np.array([
    12, -720, 30240, -1209600, 47900160, -1307674368000 / 691, 74724249600,
    -10670622842880000 / 3617, 5109094217170944000 / 43867,
    -802857662698291200000 / 174611, 14101100039391805440000 / 77683,
    -1693824136731743669452800000 / 236364091, 186134520519971831808000000 / 657931,
    -37893265687455865519472640000000 / 3392780147,
    759790291646040068357842010112000000 / 1723168255201,
    -134196726836183700385281186201600000000 / 7709321041217])


def _zeta_series(x: Any, q: Any) -> Any:
    """zeta(x, q) as differentiable jnp code (Euler-Maclaurin, Johansson 2015, formula 5):
    the first N terms, the integral of the rest, and a correction from Bernoulli numbers.
    The zeta primitive has no derivative rule (nor has JAX's), so zeta's derivatives in
    both arguments are this series' derivatives, as in JAX."""
    s, a = _promote("zeta", x, q)
    dtype = core.get_aval(a).dtype.type
    s_, a_ = jnp.expand_dims(s, -1), jnp.expand_dims(a, -1)
    n = m = dtype(8) if core.get_aval(a).dtype == np.float32 else dtype(16)
    k = jnp.expand_dims(np.arange(n, dtype=n.dtype), tuple(range(a.ndim)))
    head = jnp.sum((a_ + k) ** -s_, -1)
    integral = lax.div((a + n) ** (dtype(1) - s), s - dtype(1))
    t0 = (a + n) ** -s
    j = jnp.expand_dims(np.arange(2 * m, dtype=m.dtype), tuple(range(s.ndim)))
    t1 = jnp.cumprod((s_ + j) / (a_ + n), -1)[..., ::2]
    t1 = jnp.clip(t1, max=jnp.finfo(dtype).max)
    coefs = np.expand_dims(np.array(_BERNOULLI_COEFS[:t1.shape[-1]], dtype=dtype),
                           tuple(range(a.ndim)))
    return head + integral + t0 * (dtype(0.5) + (t1 / coefs).sum(-1))


zeta.defjvp(partial(autodiff.jvp, _zeta_series))


def multigammaln(a: Any, d: int) -> Any:
    """The log of the multivariate gamma function of dimension d:
    ``d (d-1)/4 log(pi) + sum_{j<d} gammaln(a - j/2)``."""
    d = int(d)
    a, d_ = _promote("multigammaln", a, d)
    constant = _const(a, 0.25) * d_ * (d_ - _const(a, 1)) * lax.log(_const(a, np.pi))
    b = jnp.arange(d, dtype=d_.dtype) / _const(a, 2)
    res = jnp.sum(gammaln(jnp.expand_dims(a, axis=-1)
                          - jnp.expand_dims(b, axis=tuple(range(a.ndim)))), axis=-1)
    return res + constant


def gammainc(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function P(a, x) (the Gamma(a) CDF at x)."""
    a, x = _promote("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = _promote("gammaincc", a, x)
    return lax.igammac(a, x)


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function I_x(a, b) (the Beta(a, b) CDF at x)."""
    a, b, x = _promote("betainc", a, b, x)
    _no_complex("betainc", x)
    return lax.betainc(a, b, x)


# ================================================================ the error-function family
def erf(x: Any) -> Any:
    x, = _promote("erf", x)
    return lax.erf(x)


def erfc(x: Any) -> Any:
    x, = _promote("erfc", x)
    return lax.erfc(x)


def erfinv(x: Any) -> Any:
    x, = _promote("erfinv", x)
    return lax.erf_inv(x)


def _check_ndtr_dtype(x: Any) -> Any:
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported "
                        "types.")
    return x


def ndtr(x: Any) -> Any:
    """The standard normal CDF ``(1 + erf(x / sqrt 2)) / 2``.

    Far from 0, ``1 + erf`` would lose every digit, so there it uses erfc instead."""
    return _ndtr(_check_ndtr_dtype(x))


def _ndtr(x: Any) -> Any:
    dtype = core.get_aval(x).dtype.type  # NumPy scalars: the result is never weakly typed
    half_sqrt_2 = dtype(0.5) * np.sqrt(2., dtype=dtype)
    w = x * half_sqrt_2
    z = lax.abs(w)
    y = lax.select(lax.lt(z, half_sqrt_2), dtype(1.) + lax.erf(w),
                   lax.select(lax.gt(w, dtype(0.)), dtype(2.) - lax.erfc(z), lax.erfc(z)))
    return dtype(0.5) * y


# Cephes' rational approximations of the normal quantile, as in JAX.
_NDTRI_P0 = (-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0)
_NDTRI_P1 = (4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4)
_NDTRI_P2 = (3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9)


def _polyval(coefficients: tuple, x: Any) -> Any:
    """c0*x**n + ... + cn by Horner's rule: ``jnp.polyval`` of the coefficients as a NumPy
    array of x's dtype, as JAX writes it (a constant of the jaxpr, and a ``polyval`` jit)."""
    return jnp.polyval(np.array(coefficients, dtype=core.get_aval(x).dtype), x)


def ndtri(p: Any) -> Any:
    """The standard normal quantile: the x with ``ndtr(x) == p``.

    Cephes' recipe: a rational function of p - 1/2 in the middle, of 1 / sqrt(-2 log p)
    in the tails (using 1 - p for p near 1, so that both tails are accurate)."""
    p = _check_ndtr_dtype(p)
    dtype = p.dtype.type
    maybe_complement_p = jnp.where(p > dtype(-np.expm1(-2.)), dtype(1.) - p, p)
    # 0 would make NaNs below in a branch whose result is not used (and NaN gradients).
    sanitized_mcp = jnp.where(maybe_complement_p == dtype(0.), jnp.full(p.shape, dtype(0.5)),
                              maybe_complement_p)
    w = sanitized_mcp - dtype(0.5)
    ww = lax.square(w)
    x_for_big_p = w + w * ww * (_polyval(_NDTRI_P0, ww) / _polyval(_NDTRI_Q0, ww))
    x_for_big_p *= -dtype(np.sqrt(2. * np.pi))
    z = lax.sqrt(dtype(-2.) * lax.log(sanitized_mcp))
    first_term = z - lax.log(z) / z
    second_term_small_p = _polyval(_NDTRI_P2, 1 / z) / _polyval(_NDTRI_Q2, 1 / z) / z
    second_term_otherwise = _polyval(_NDTRI_P1, 1 / z) / _polyval(_NDTRI_Q1, 1 / z) / z
    x_for_small_p = first_term - second_term_small_p
    x_otherwise = first_term - second_term_otherwise
    x = jnp.where(sanitized_mcp > dtype(np.exp(-2.)), x_for_big_p,
                  jnp.where(z >= dtype(8.0), x_for_small_p, x_otherwise))
    x = jnp.where(p > dtype(1. - np.exp(-2.)), x, -x)
    infinity = jnp.full(p.shape, dtype(np.inf))
    return jnp.where(p == dtype(0.0), -infinity, jnp.where(p == dtype(1.0), infinity, x))


# log_ndtr switches to an asymptotic series below LOWER and to -ndtr(-x) above UPPER.
_LOG_NDTR_BOUNDS = {np.dtype(np.float32): (-10.0, 5.0), np.dtype(np.float64): (-20.0, 8.0)}


@partial(custom_jvp, nondiff_argnums=(1,))
def log_ndtr(x: Any, series_order: int = 3) -> Any:
    """``log(ndtr(x))``, accurate far into both tails.

    For x far below 0, ndtr(x) underflows, so log_ndtr uses the asymptotic series
    ``log(phi(x) / -x * (1 - 1/x**2 + 3/x**4 - ...))``; for x far above 0,
    ``log(1 - ndtr(-x)) ~= -ndtr(-x)``."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = jnp.asarray(x)
    if x.dtype not in _LOG_NDTR_BOUNDS:
        raise TypeError(f"x.dtype={x.dtype} is not supported.")
    lower, upper = (np.array(b, x.dtype) for b in _LOG_NDTR_BOUNDS[x.dtype])
    above = lax.gt(x, upper)
    # (The max/min keep the unused branches finite, or their gradients would be NaN.)
    ndtr_res = _ndtr(jnp.where(above, -x, lax.max(x, lower)))
    return jnp.where(above, -ndtr_res,
                     jnp.where(lax.gt(x, lower), lax.log(ndtr_res),
                               _log_ndtr_lower(lax.min(x, lower), series_order)))


def _log_ndtr_jvp(series_order, primals, tangents):
    """d/dx log ndtr(x) = phi(x) / ndtr(x) = exp(log phi(x) - log_ndtr(x))."""
    (x,), (t,) = primals, tangents
    ans = log_ndtr(x, series_order)
    return ans, lax.mul(t, lax.exp(lax.sub(_norm_logpdf(x), ans)))


log_ndtr.defjvp(_log_ndtr_jvp)


def _log_ndtr_lower(x: Any, series_order: int) -> Any:
    log_scale = (-_const(x, 0.5) * lax.square(x) - lax.log(-x)
                 - _const(x, 0.5 * np.log(2. * np.pi)))
    return log_scale + lax.log(_log_ndtr_asymptotic_series(x, series_order))


def _log_ndtr_asymptotic_series(x: Any, series_order: int) -> Any:
    """1 - 1/x**2 + 1*3/x**4 - 1*3*5/x**6 + ..., the first ``series_order`` terms."""
    if series_order <= 0:
        return np.array(1, x.dtype)
    x_2 = lax.square(x)
    even_sum, odd_sum = jnp.zeros_like(x), jnp.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), x.dtype) / x_2n
        if n % 2:
            odd_sum += y
        else:
            even_sum += y
        x_2n *= x_2
    return _const(x, 1.) + even_sum - odd_sum


def _norm_logpdf(x: Any) -> Any:
    return lax.sub(lax.mul(_const(x, -0.5), lax.square(x)),
                   _const(x, np.log(np.sqrt(2 * np.pi))))


# ================================================================ logistic, logs of products
def expit(x: Any) -> Any:
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    x, = _promote("expit", x)
    return lax.logistic(x)


@custom_jvp
def logit(x: Any) -> Any:
    """The inverse of expit: ``log(x / (1 - x))``."""
    x, = _promote("logit", x)
    return lax.log(lax.div(x, lax.sub(_const(x, 1), x)))


logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(_const(x, 1), x))))


@custom_jvp
def xlogy(x: Any, y: Any) -> Any:
    """``x * log(y)``, but 0 where x == 0 (even at y == 0, where the product would be NaN)."""
    x, y = _promote("xlogy", x, y)
    x_ok = x != 0.
    return jnp.where(x_ok | jnp.isnan(y), lax.mul(x, lax.log(y)), jnp.zeros_like(x))


def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    result = xlogy(x, y)
    return result, (x_dot * lax.log(y) + y_dot * x / y).astype(result.dtype)


xlogy.defjvp(_xlogy_jvp)


@custom_jvp
def xlog1py(x: Any, y: Any) -> Any:
    """``x * log1p(y)``, but 0 where x == 0."""
    x, y = _promote("xlog1py", x, y)
    x_ok = x != 0.
    return jnp.where(x_ok | jnp.isnan(y), lax.mul(x, lax.log1p(y)), jnp.zeros_like(x))


def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    result = xlog1py(x, y)
    return result, (x_dot * lax.log1p(y) + y_dot * x / (1 + y)).astype(result.dtype)


xlog1py.defjvp(_xlog1py_jvp)


@custom_jvp
def _xlogx(x: Any) -> Any:
    return xlogy(x, x)


def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), x_dot * (lax.log(x) + 1)


_xlogx.defjvp(_xlogx_jvp)


def entr(x: Any) -> Any:
    """The entropy term ``-x log x`` (0 at 0, -inf for negative x)."""
    x, = _promote("entr", x)
    _no_complex("entr", x)
    return lax.select(lax.lt(x, _const(x, 0)), lax.full_like(x, -np.inf), lax.neg(_xlogx(x)))


def rel_entr(p: Any, q: Any) -> Any:
    """The relative-entropy term ``p log(p / q)`` (0 at p == 0, inf where undefined)."""
    p, q = _promote("rel_entr", p, q)
    _no_complex("rel_entr", p)
    zero = _const(p, 0.0)
    both_gt_zero = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    one_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    safe_p = jnp.where(both_gt_zero, p, 1)
    safe_q = jnp.where(both_gt_zero, q, 1)
    log_val = lax.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return jnp.where(both_gt_zero, log_val, jnp.where(one_zero, zero, np.inf))


def kl_div(p: Any, q: Any) -> Any:
    """The Kullback-Leibler term ``p log(p / q) - p + q``."""
    p, q = _promote("kl_div", p, q)
    _no_complex("kl_div", p)
    return rel_entr(p, q) - p + q


def boxcox(x: Any, lmbda: Any) -> Any:
    """The Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log x`` at lmbda == 0)."""
    x, lmbda = _promote("boxcox", x, lmbda)
    return _boxcox(jnp.log(x), lmbda)


def boxcox1p(x: Any, lmbda: Any) -> Any:
    """The Box-Cox transform of 1 + x."""
    x, lmbda = _promote("boxcox1p", x, lmbda)
    return _boxcox(jnp.log1p(x), lmbda)


def _boxcox(log_x: Any, lmbda: Any) -> Any:
    lmbda_is_zero = lmbda == 0
    safe_lmbda = jnp.where(lmbda_is_zero, jnp.ones_like(lmbda), lmbda)
    return jnp.where(lmbda_is_zero, log_x, jnp.expm1(safe_lmbda * log_x) / safe_lmbda)


# ================================================================ Bessel functions
def i0e(x: Any) -> Any:
    """``exp(-|x|) I0(x)``: I0 without its exponential growth."""
    x, = _promote("i0e", x)
    return lax.bessel_i0e(x)


def i0(x: Any) -> Any:
    """The modified Bessel function of order 0."""
    x, = _promote("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1e(x: Any) -> Any:
    """``exp(-|x|) I1(x)``."""
    x, = _promote("i1e", x)
    return lax.bessel_i1e(x)


def i1(x: Any) -> Any:
    """The modified Bessel function of order 1."""
    x, = _promote("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


# ================================================================ Bernoulli numbers
def bernoulli(n: int) -> Any:
    """The Bernoulli numbers B_0 ... B_n (with B_1 = -1/2, as SciPy), as a float array.

    Computed with the Akiyama-Tanigawa algorithm in exact fractions, then rounded."""
    n = int(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    from fractions import Fraction  # the exact arithmetic makes the recurrence stable
    numbers = []
    row: list = []
    for m in range(n + 1):
        row.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        numbers.append(row[0])
    if n >= 1:
        numbers[1] = -numbers[1]  # the algorithm gives B_1 = +1/2; SciPy and JAX use -1/2
    return jnp.array([float(b) for b in numbers])


