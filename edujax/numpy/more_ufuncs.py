"""More elementwise functions: fabs, fmax/fmin, sinc, logaddexp2, nan_to_num, modf, ldexp,
gcd/lcm, isposinf/isneginf, and the Array API's spellings of existing ones (acos, pow...).

Each is built from lax and the ufuncs in ufuncs.py, as JAX builds them, so grad and vmap
work without new rules. The NaN-aware pair fmax/fmin differs from maximum/minimum in one
way: a NaN loses (``fmax(nan, 1) == 1``) instead of spreading.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from edujax import dtypes, lax
from edujax.custom_derivatives import custom_jvp
from edujax.numpy import reductions, ufuncs
from edujax.numpy.shape_ops import broadcast_arrays
from edujax.numpy.ufuncs import _dtype, _isnan, _lax_const, _where
from edujax.numpy.util import (asarray, ensure_arraylike, promote_args_inexact,
                               promote_dtypes, promote_dtypes_inexact)
from edujax.inner_jit import inner_jit


def fabs(x: Any, /) -> Any:
    """``|x|`` as a float (integers are converted first, unlike ``abs``)."""
    x, = promote_args_inexact("fabs", x)
    if _dtype(x).kind == "c":
        raise TypeError("ufunc 'fabs' does not support complex dtypes")
    return lax.abs(x)


@inner_jit
def fmax(x1: Any, x2: Any) -> Any:
    """Elementwise maximum where a NaN loses to a number (``maximum`` lets it win)."""
    return _where(ufuncs.greater(x1, x2) | ufuncs.isnan(x2), x1, x2)


@inner_jit
def fmin(x1: Any, x2: Any) -> Any:
    """Elementwise minimum where a NaN loses to a number (``minimum`` lets it win)."""
    return _where(ufuncs.less(x1, x2) | ufuncs.isnan(x2), x1, x2)


# ---------------------------------------------------------------- sinc
# sin(pi x) / (pi x) is 0/0 at x = 0. The value there is 1, but a `where` alone would
# still differentiate the 0/0 branch and give NaN gradients. JAX's trick: compute the
# x = 0 branch with a function whose derivatives are the Maclaurin coefficients of sinc,
# supplied by a custom JVP (the k-th derivative of sin(t)/t at 0).
def _sinc_maclaurin(k: int, x: Any) -> Any:
    if k % 2:
        return x * 0  # odd derivatives of an even function vanish at 0
    return x * 0 + _lax_const(x, (-1) ** (k // 2) / (k + 1))


_sinc_maclaurin = custom_jvp(_sinc_maclaurin, nondiff_argnums=(0,))  # JAX's name in jaxprs


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k: int, primals: tuple, tangents: tuple) -> tuple:
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), _sinc_maclaurin(k + 1, x) * t


@inner_jit
def sinc(x: Any, /) -> Any:
    """The normalized sinc, ``sin(pi x) / (pi x)``, with ``sinc(0) == 1`` and the right
    derivatives at 0 (see the Maclaurin trick above)."""
    x, = promote_args_inexact("sinc", x)
    eq_zero = lax.eq(x, _lax_const(x, 0))
    pi_x = lax.mul(_lax_const(x, np.pi), x)
    safe_pi_x = _where(eq_zero, _lax_const(x, 1), pi_x)
    return _where(eq_zero, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe_pi_x), safe_pi_x))


def logaddexp2(x1: Any, x2: Any, /) -> Any:
    """``log2(2**x1 + 2**x2)``, through ``logaddexp`` in natural units."""
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    ln2 = float(np.log(2))
    return ufuncs.logaddexp(x1 * ln2, x2 * ln2) / ln2


# ---------------------------------------------------------------- infinities and NaNs
def _isposneginf(infinity: float, x: Any) -> Any:
    x, = ensure_arraylike("isposinf" if infinity > 0 else "isneginf", x)
    if _dtype(x).kind in "iub":
        return lax.full_like(x, False, dtype=dtypes.bool_)  # integers are never infinite
    return lax.eq(x, _lax_const(x, infinity))


def isposinf(x: Any, /) -> Any:
    """True where ``x`` is +inf."""
    return _isposneginf(math.inf, x)


def isneginf(x: Any, /) -> Any:
    """True where ``x`` is -inf."""
    return _isposneginf(-math.inf, x)


@inner_jit
def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:
    """Replace NaN by ``nan``, +inf by ``posinf`` (the largest finite value by default)
    and -inf by ``neginf`` (the most negative). Integer arrays come back unchanged."""
    x, = ensure_arraylike("nan_to_num", x)
    x = asarray(x)
    dtype = _dtype(x)
    if dtype.kind not in "fc":
        return x
    info = np.finfo(dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = _where(_isnan(x), _full_scalar(nan, dtype), x)
    out = _where(isposinf(out), _full_scalar(posinf, dtype), out)
    return _where(isneginf(out), _full_scalar(neginf, dtype), out)


def _full_scalar(value: Any, dtype: np.dtype) -> Any:
    return lax.convert_element_type(value, dtype)


# ---------------------------------------------------------------- mantissas and exponents
@inner_jit
def modf(x: Any, /, out: None = None) -> tuple[Any, Any]:
    """(fractional part, integral part), both with the sign of ``x``."""
    x, = promote_args_inexact("modf", x)
    whole = _where(lax.ge(x, _lax_const(x, 0)), lax.floor(x), lax.ceil(x))
    return lax.sub(x, whole), whole


@inner_jit
def ldexp(x1: Any, x2: Any, /) -> Any:
    """``x1 * 2**x2`` for an integer exponent ``x2``.

    As in JAX, ``x1``'s own exponent is split off first (``frexp``) and added to ``x2``:
    a tiny ``x1`` with a large ``x2`` would otherwise overflow ``2**x2`` on the way."""
    x1, x2 = ensure_arraylike("ldexp", x1, x2)
    x1_dtype, x2_dtype = _dtype(x1), _dtype(x2)
    if x1_dtype.kind == "c" or x2_dtype.kind in "fc":
        raise ValueError(f"ldexp not supported for input types {(x1_dtype, x2_dtype)}")
    x1, = promote_args_inexact("ldexp", x1)
    x2 = lax.convert_element_type(x2, _dtype(x1))
    m, e = frexp(x1)
    e = (e.astype(x2.dtype) + x2).astype(x1.dtype)
    # the exponent may overflow by one and the result still be finite
    m = _where(e > 0, m * 2, m)
    e = _where(e > 0, e - 1, e)
    x = m * (2 ** e.astype(m.dtype))
    return _where(ufuncs.isinf(x1) | (x1 == 0), x1, x)


# ---------------------------------------------------------------- gcd and lcm
def _gcd_cond_fn(xs: tuple) -> Any:
    """Go on while some pair is not finished (its second number is not yet 0)."""
    x1, x2 = xs
    return reductions.any(x2 != 0)


def _gcd_body_fn(xs: tuple) -> tuple:
    """One round of Euclid's algorithm on every pair: (a, b) becomes (b, a mod b), a
    finished pair (b == 0) stays as it is; then the larger number goes first."""
    x1, x2 = xs
    x1, x2 = (_where(x2 != 0, x2, x1),
              _where(x2 != 0, lax.rem(x1, x2), _lax_const(x2, 0)))
    return (_where(x1 < x2, x2, x1), _where(x1 < x2, x1, x2))


@inner_jit
def gcd(x1: Any, x2: Any) -> Any:
    """Greatest common divisor, by Euclid's algorithm in a ``while_loop`` (the number of
    rounds depends on the data, so it cannot be a Python loop under jit)."""
    x1, x2 = ensure_arraylike("gcd", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    if _dtype(x1).kind not in "iu":
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = broadcast_arrays(x1, x2)
    gcd, _ = lax.while_loop(_gcd_cond_fn, _gcd_body_fn,
                            (ufuncs.absolute(x1), ufuncs.absolute(x2)))
    return gcd


@inner_jit
def lcm(x1: Any, x2: Any) -> Any:
    """Least common multiple, ``|x1| * (|x2| // gcd)`` (0 if either is 0)."""
    x1, x2 = ensure_arraylike("lcm", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    x1, x2 = ufuncs.absolute(x1), ufuncs.absolute(x2)
    if _dtype(x1).kind not in "iu":
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    return _where(d == 0, _lax_const(d, 0),
                  ufuncs.multiply(x1, ufuncs.floor_divide(x2, d)))


# ---------------------------------------------------------------- the bits of a float
_INT_OF_SIZE = {2: np.int16, 4: np.int32, 8: np.int64}


@inner_jit
def frexp(x: Any, /) -> tuple[Any, Any]:
    """(mantissa, exponent) with ``x == mantissa * 2**exponent`` and
    ``0.5 <= |mantissa| < 1`` (see ``_frexp``)."""
    x, = ensure_arraylike("frexp", x)
    x, = promote_dtypes_inexact(x)
    if _dtype(x).kind == "c":
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


def _normalize_float(x: Any) -> tuple[Any, Any]:
    """The bits of ``x`` as an integer, and the exponent to add back: a subnormal number
    is first scaled up by ``2**nmant``, so that it has an exponent field to read."""
    info = np.finfo(_dtype(x))
    int_type = _INT_OF_SIZE[info.bits // 8]
    cond = lax.abs(x) < info.tiny
    x1 = _where(cond, x * _lax_const(x, 1 << info.nmant), x)
    x2 = _where(cond, int_type(-info.nmant), int_type(0))
    return lax.bitcast_convert_type(x1, int_type), x2


@custom_jvp
def _frexp(x: Any) -> tuple[Any, Any]:
    """Read off the float's bits: the exponent field minus the bias, and the mantissa with
    its exponent field replaced by the bias's (a number in [0.5, 1)). Infinities, NaNs and
    zeros are their own mantissa, with exponent 0."""
    info = np.finfo(_dtype(x))
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    x1, x2 = _normalize_float(x)
    x2 = x2 + (((x1 >> info.nmant) & mask) - bias + 1)
    x1 = x1 & ~(mask << info.nmant)
    x1 = x1 | ((bias - 1) << info.nmant)
    x1 = lax.bitcast_convert_type(x1, _dtype(x))
    cond = ufuncs.isinf(x) | _isnan(x) | (x == 0)
    x2 = _where(cond, lax.full_like(x2, 0), x2)
    return _where(cond, x, x1), lax.convert_element_type(x2, np.int32)


@_frexp.defjvp
def _frexp_jvp(primals: tuple, tangents: tuple) -> tuple:
    """The mantissa moves with ``x`` scaled by ``2**-e``; the exponent, an integer, has
    no derivative."""
    (x,), (t,) = primals, tangents
    m, e = frexp(x)
    mdot = t * ufuncs.exp2(-e.astype(t.dtype))
    # NB: JAX gives the integer output a float0 tangent; edujax has no float0 dtype
    return (m, e), (mdot, lax.full_like(e, 0))


def spacing(x: Any, /) -> Any:
    """The distance from ``x`` to the next float away from zero (NumPy's ``spacing``)."""
    x, = promote_args_inexact("spacing", x)
    if _dtype(x).kind == "c":
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = _lax_const(x, np.inf)
    if _dtype(x) == np.float16:
        return lax.nextafter(x, inf) - x
    result = lax.nextafter(x, ufuncs.copysign(inf, x)) - x
    smallest_subnormal = np.finfo(_dtype(x)).smallest_subnormal
    return _where(result == 0, ufuncs.copysign(smallest_subnormal, x), result)
