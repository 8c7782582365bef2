"""More of ``jax.scipy.special``: scaled and special-purpose functions, each ported from JAX's
own jnp/lax implementation (so their values, derivatives and batching follow JAX's).

* ``erfcx(x) = exp(x**2) erfc(x)``: erfc without its underflow (erfc(30) is 0 in float32,
  erfcx(30) is about 0.0188).
* ``dawsn(x) = exp(-x**2) * integral_0^x exp(t**2) dt``, Dawson's integral (Cody, Paciorek
  and Thacher's rational approximations on three ranges).
* ``spence(x) = integral_1^x log(t) / (1 - t) dt``, the dilogarithm in SciPy's convention.
* ``bessel_jn(z, v=...)``: the Bessel functions J_0 ... J_v of the first kind, by Miller's
  backward recurrence (start far out with tiny values, recur down, then normalize).
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.custom_derivatives import custom_jvp
from edujax.numpy.util import promote_dtypes_inexact
from edujax.scipy.special_functions import _const, _no_complex, _polyval, _promote
from edujax.vmap import vmap


# ================================================================ erfcx
def erfcx(x: Any) -> Any:
    """The scaled complementary error function ``exp(x**2) * erfc(x)``."""
    x, = _promote("erfcx", x)
    _no_complex("erfcx", x)
    return _erfcx(x)


@custom_jvp
def _erfcx(x: Any) -> Any:
    if x.dtype == np.float64:
        return _erfcx_impl(x, nterms=9)
    if x.dtype == np.float32:
        return _erfcx_impl(x, nterms=5)
    return _erfcx_impl(x.astype(np.float32), nterms=5).astype(x.dtype)  # float16: upcast


_erfcx.defjvps(lambda g, ans, x: g * (2 * x * ans - _const(x, 2. / np.sqrt(np.pi))))

# erfcx(x) ~ 1 / (sqrt(pi) x) * P(1/x**2), P's coefficients (-1)**k (2k-1)!! / 2**k,
# highest degree first.
_ERFCX_ASYMPTOTIC = (7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875,
                     .75, -.5, 1.)


def _erfcx_asymptotic(x: Any, nterms: int) -> Any:
    t = _const(x, 1.) / lax.square(x)
    return _polyval(_ERFCX_ASYMPTOTIC[-nterms:], t) / (x * _const(x, np.sqrt(np.pi)))


def _erfcx_impl(x: Any, nterms: int) -> Any:
    """exp(x**2) * erfc(x) directly, until exp(x**2) would overflow; then the expansion."""
    threshold = np.sqrt(np.log(np.finfo(x.dtype).max))
    large = x > _const(x, threshold)
    safe_x = lax.select(large, lax.full_like(x, 1.), x)
    direct = lax.exp(lax.square(safe_x)) * lax.erfc(safe_x)
    return lax.select(large, _erfcx_asymptotic(x, nterms), direct)


# ================================================================ dawsn
_DAWSN_AN = (
    1.13681498971755972054e-11,
    8.49262267667473811108e-10,
    1.94434204175553054283e-8,
    9.53151741254484363489e-7,
    3.07828309874913200438e-6,
    3.52513368520288738649e-4,
    -8.50149846724410912031e-4,
    4.22618223005546594270e-2,
    -9.17480371773452345351e-2,
    9.99999999999999994612e-1,
)

_DAWSN_AD = (
    2.40372073066762605484e-11,
    1.48864681368493396752e-9,
    5.21265281010541664570e-8,
    1.27258478273186970203e-6,
    2.32490249820789513991e-5,
    3.25524741826057911661e-4,
    3.48805814657162590916e-3,
    2.79448531198828973716e-2,
    1.58874241960120565368e-1,
    5.74918629489320327824e-1,
    1.00000000000000000539e0,
)

_DAWSN_BN = (
    5.08955156417900903354e-1,
    -2.44754418142697847934e-1,
    9.41512335303534411857e-2,
    -2.18711255142039025206e-2,
    3.66207612329569181322e-3,
    -4.23209114460388756528e-4,
    3.59641304793896631888e-5,
    -2.14640351719968974225e-6,
    9.10010780076391431042e-8,
    -2.40274520828250956942e-9,
    3.59233385440928410398e-11,
)

_DAWSN_BD = (
    1.00000000000000000000e0,
    -6.31839869873368190192e-1,
    2.36706788228248691528e-1,
    -5.31806367003223277662e-2,
    8.48041718586295374409e-3,
    -9.47996768486665330168e-4,
    7.81025592944552338085e-5,
    -4.55875153252442634831e-6,
    1.89100358111421846170e-7,
    -4.91324691331920606875e-9,
    7.18466403235734541950e-11,
)

_DAWSN_CN = (
    -5.90592860534773254987e-1,
    6.29235242724368800674e-1,
    -1.72858975380388136411e-1,
    1.64837047825189632310e-2,
    -4.86827613020462700845e-4,
)

_DAWSN_CD = (
    1.00000000000000000000e0,
    -2.69820057197544900361e0,
    1.73270799045947845857e0,
    -3.93708582281939493482e-1,
    3.44278924041233391079e-2,
    -9.73655226040941223894e-4,
)



def dawsn(x: Any) -> Any:
    """Dawson's integral ``exp(-x**2) * integral_0^x exp(t**2) dt``."""
    x, = _promote("dawsn", x)
    _no_complex("dawsn", x)
    return _dawsn(x)


@custom_jvp
def _dawsn(x: Any) -> Any:
    if x.dtype in (np.float32, np.float64):
        return _dawsn_impl(x)
    return _dawsn_impl(x.astype(np.float32)).astype(x.dtype)


_dawsn.defjvps(lambda g, ans, x: g * (_const(x, 1.) - _const(x, 2.) * x * ans))


def _dawsn_impl(x: Any) -> Any:
    """A rational function of x**2 below 3.25, of 1/x**2 on [3.25, 6.25) and beyond (each
    evaluated only where it is used: elsewhere a harmless 1 goes in). Dawson's integral is
    odd, so work on |x| and put the sign back."""
    sign = jnp.sign(x)
    ax = lax.abs(x)
    t = _const(x, 1.) / lax.square(ax)
    r1 = ax < _const(x, 3.25)
    r2 = (ax >= _const(x, 3.25)) & (ax < _const(x, 6.25))
    r3 = ax >= _const(x, 6.25)
    safe_ax_r1 = lax.select(r1, ax, lax.full_like(ax, 1.))
    safe_ax2_r1 = lax.square(safe_ax_r1)
    val_r1 = safe_ax_r1 * _polyval(_DAWSN_AN, safe_ax2_r1) / _polyval(_DAWSN_AD, safe_ax2_r1)

    def tail(region, numerator, denominator):
        safe_t = lax.select(region, t, lax.full_like(t, 1.))
        safe_ax = lax.select(region, ax, lax.full_like(ax, 1.))
        return (_const(x, 0.5) / safe_ax) * (
            _const(x, 1.) + safe_t * _polyval(numerator, safe_t) / _polyval(denominator,
                                                                              safe_t))
    val_r2 = tail(r2, _DAWSN_BN, _DAWSN_BD)
    val_r3 = tail(r3, _DAWSN_CN, _DAWSN_CD)
    result = lax.select(r1, val_r1, lax.select(ax < _const(x, 6.25), val_r2, val_r3))
    return sign * result


# ================================================================ spence
_SPENCE_A = (4.65128586073990045278E-5, 7.31589045238094711071E-3, 1.33847639578309018650E-1,
             8.79691311754530315341E-1, 2.71149851196553469920E0, 4.25697156008121755724E0,
             3.29771340985225106936E0, 1.00000000000000000126E0)
_SPENCE_B = (6.90990488912553276999E-4, 2.54043763932544379113E-2, 2.82974860602568089943E-1,
             1.41172597751831069617E0, 3.63800533345137075418E0, 5.03278880143316990390E0,
             3.54771340985225096217E0, 9.99999999999999998740E-1)


def spence(x: Any) -> Any:
    """Spence's function (the dilogarithm) ``integral_1^x log(t) / (1 - t) dt``, x >= 0."""
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported "
                        "types.")
    calc = _spence_calc(x)
    return jnp.where(x < 0.0, np.nan, jnp.where(x == 1.0, 0.0, jnp.where(
        x == 0.0, np.pi ** 2 / 6, calc))).astype(x.dtype)


def _spence_calc(x: Any) -> Any:
    """Cephes' recipe: fold x into [1/2, 3/2] with the reflection and inversion formulas,
    then a rational approximation in w = x - 1."""
    x2_bool = x > 2.0
    x = jnp.where(x2_bool, 1.0 / x, x)
    x1_5_bool = x > 1.5
    x_5_bool = x < 0.5
    x2_bool = x2_bool | x1_5_bool
    w = jnp.where(x1_5_bool, 1.0 / x - 1.0, jnp.where(x_5_bool, -x, x - 1.0))
    y = -w * _polyval(_SPENCE_A, w) / _polyval(_SPENCE_B, w)
    y = jnp.where(x_5_bool, np.pi ** 2 / 6.0 - jnp.log(x) * jnp.log(1.0 - x) - y, y)
    return jnp.where(x2_bool, -0.5 * jnp.log(x) ** 2 - y, y)


# ================================================================ bessel_jn
def bessel_jn(z: Any, *, v: int, n_iter: int = 50) -> Any:
    """J_0(z) ... J_v(z), stacked on a new first axis."""
    z, = promote_dtypes_inexact(jnp.asarray(z))
    _no_complex("bessel_jn", z)
    fun = partial(_bessel_jn, v=int(v), n_iter=int(n_iter))
    for _ in range(z.ndim):
        fun = vmap(fun)
    return jnp.moveaxis(fun(z), -1, 0)


def _bessel_jn(z: Any, *, v: int, n_iter: int) -> Any:
    """Miller's algorithm: run J_{k-1} = 2k/z J_k - J_{k+1} downward from k = n_iter, where
    the true values are negligible, starting from (0, 1e-16); the results are proportional
    to the J_k, and J_0 + 2 (J_2 + J_4 + ...) = 1 gives the constant."""
    def step(carry, k):
        f0, f1, bs, z = carry
        f = 2.0 * (k + 1.0) * f1 / z - f0
        bs = jnp.where(jnp.mod(k, 2) == 0, bs + 2.0 * f, bs)
        return (f1, f, bs, z), f
    zero, tiny = z.dtype.type(0.0), z.dtype.type(1E-16)  # (strong: the carry keeps its type)
    init = (zero, tiny, zero, z)
    (_, _, bs, _), j_vals = lax.scan(step, init, lax.iota(z.dtype, n_iter + 1), reverse=True)
    f = j_vals[0]
    return j_vals[:v + 1] / (bs - f)
