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
from edujax.inner_jit import inner_jit
from edujax.numpy import ufuncs
from edujax.numpy.ufuncs import _dtype, _isnan, _lax_const, _where
from edujax.numpy.util import (asarray, ensure_arraylike, promote_args_inexact,
                               promote_args_numeric)


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
def modf(x: Any, /, out: None = None) -> tuple[Any, Any]:
    """(fractional part, integral part), both with the sign of ``x``."""
    x, = promote_args_inexact("modf", x)
    whole = _where(lax.ge(x, _lax_const(x, 0)), lax.floor(x), lax.ceil(x))
    return lax.sub(x, whole), whole


def ldexp(x1: Any, x2: Any, /) -> Any:
    """``x1 * 2**x2`` for an integer exponent ``x2``."""
    x1, x2 = ensure_arraylike("ldexp", x1, x2)
    x1_dtype, x2_dtype = _dtype(x1), _dtype(x2)
    if x1_dtype.kind == "c" or x2_dtype.kind not in "iu":
        raise ValueError(f"ldexp not supported for input types {(x1_dtype, x2_dtype)}")
    x1, = promote_args_inexact("ldexp", x1)
    x2 = lax.convert_element_type(x2, _dtype(x1))
    return lax.mul(x1, lax.exp2(x2))


# ---------------------------------------------------------------- gcd and lcm
def _gcd_step(xs: tuple) -> tuple:
    """One round of Euclid's algorithm on every pair that is not finished yet."""
    x1, x2 = xs
    done = lax.eq(x2, _lax_const(x2, 0))
    safe_x2 = _where(done, _lax_const(x2, 1), x2)
    return (_where(done, x1, x2), _where(done, _lax_const(x2, 0), lax.rem(x1, safe_x2)))


def _any_left(xs: tuple) -> Any:
    return lax.reduce_or(lax.ne(xs[1], _lax_const(xs[1], 0)), tuple(range(np.ndim(xs[1]))))


def gcd(x1: Any, x2: Any, /) -> Any:
    """Greatest common divisor, by Euclid's algorithm in a ``while_loop`` (the number of
    rounds depends on the data, so it cannot be a Python loop under jit)."""
    x1, x2 = promote_args_numeric("gcd", x1, x2)
    if _dtype(x1).kind not in "iu":
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = ufuncs._broadcast_arrays(ufuncs.absolute(x1), ufuncs.absolute(x2))
    return lax.while_loop(_any_left, _gcd_step, (x1, x2))[0]


def lcm(x1: Any, x2: Any, /) -> Any:
    """Least common multiple, ``|x1 * (x2 // gcd)|`` (0 if either is 0)."""
    x1, x2 = promote_args_numeric("lcm", x1, x2)
    if _dtype(x1).kind not in "iu":
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    zero = _lax_const(d, 0)
    return _where(lax.eq(d, zero), zero,
                  ufuncs.absolute(ufuncs.multiply(x1, ufuncs.floor_divide(x2, d))))


# ---------------------------------------------------------------- the bits of a float
_INT_OF_SIZE = {2: np.int16, 4: np.int32, 8: np.int64}


def frexp(x: Any, /) -> tuple[Any, Any]:
    """(mantissa, exponent) with ``x == mantissa * 2**exponent`` and
    ``0.5 <= |mantissa| < 1``, read from the float's bits: the exponent field, minus the
    bias, and the mantissa with its exponent field replaced by the bias's. Subnormal
    numbers are first scaled up so that they have an exponent field to read."""
    x, = promote_args_inexact("frexp", x)
    dtype = _dtype(x)
    if dtype.kind == "c":
        raise TypeError("frexp does not support complex-valued inputs")
    info = np.finfo(dtype)
    int_type = np.dtype(_INT_OF_SIZE[dtype.itemsize])
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    tiny = lax.lt(lax.abs(x), _lax_const(x, info.tiny))
    scaled = _where(tiny, x * _lax_const(x, float(1 << info.nmant)), x)
    bits = lax.bitcast_convert_type(scaled, int_type)
    exponent = _where(tiny, np.asarray(-info.nmant, int_type)[()], np.asarray(0, int_type)[()])
    c = lambda v: np.asarray(v, int_type)[()]  # noqa: E731  (an integer constant of the width)
    exponent = exponent + (lax.bitwise_and(lax.shift_right_arithmetic(bits, c(info.nmant)),
                                           c(mask)) - c(bias) + c(1))
    bits = lax.bitwise_and(bits, c(~(mask << info.nmant)))
    bits = lax.bitwise_or(bits, c((bias - 1) << info.nmant))
    mantissa = lax.bitcast_convert_type(bits, dtype)
    special = ufuncs.isinf(x) | _isnan(x) | lax.eq(x, _lax_const(x, 0))
    exponent = _where(special, c(0), exponent)
    return _where(special, x, mantissa), lax.convert_element_type(exponent, np.int32)


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
