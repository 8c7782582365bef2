"""Elementwise jax.numpy functions, each written only in terms of lax.

Most are one line: promote the arguments (util.py), then call one lax function.
Three promotions are used, and which one a function uses decides its output dtype:

* ``promote_args``: the common dtype of the arguments (``int32 + float32 -> float32``);
* ``promote_args_inexact``: the same, then integers and bools become the default
  float (``jnp.sqrt(4) -> 2.0``);
* ``promote_args_numeric``: the same, then bool becomes int32 (``jnp.square(True) -> 1``).

The functions with more to say (floor_divide, remainder, power, hypot) explain
themselves. The order of operations follows JAX's own implementation, so that
printed jaxprs and edge cases (division by zero, NaN, -0.0) come out the same.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from edujax import core, dtypes, lax
from edujax.array import Array
from edujax.inner_jit import inner_jit
from edujax.lax import special as lax_special
from edujax.numpy.complex_numbers import imag, iscomplexobj, real
from edujax.numpy.util import (asarray, broadcast_shapes, check_arraylike, ensure_arraylike,
                               promote_args,
                               promote_args_inexact, promote_args_numeric, promote_dtypes,
                               promote_dtypes_inexact, promote_dtypes_numeric, promote_shapes)

# ---------------------------------------------------------------- small helpers


def _dtype(x: Any) -> np.dtype:
    """The dtype of an array, tracer or (already promoted) Python scalar."""
    return dtypes.dtype_and_weak(x)[0]


def _is_bool(x: Any) -> bool:
    return _dtype(x) == dtypes.bool_


def _is_integral(x: Any) -> bool:
    """Integer or bool: rounding functions leave these alone."""
    return _dtype(x).kind in "iub"


def _lax_const(example: Any, value: Any) -> Any:
    """The constant ``value`` with the dtype of ``example`` (JAX's ``lax._const``).

    A weakly typed *scalar* example gets a Python scalar back, so the constant
    stays weak too (``jnp.deg2rad(2.0)`` is weak); anything else gets a NumPy
    scalar of exactly the example's dtype, which a jaxpr prints as a literal.
    """
    dtype, weak = dtypes.dtype_and_weak(example)
    if weak and np.ndim(example) == 0:
        value = {"b": bool, "i": int, "u": int, "f": float, "c": complex}[dtype.kind](value)
        if dtypes.default_dtype(type(value)) == dtype:
            return value
    return np.asarray(value, dtype)[()]


def _constant_like(example: Any, value: Any) -> Any:
    """``value`` as a (strongly typed) constant of the example's dtype."""
    return np.asarray(value, _dtype(example))[()]


def _ones(x: Any) -> Any:
    """An array of ones shaped like ``x``, of its dtype and weak type."""
    return lax.full_like(x, 1)


def _to_bool(x: Any) -> Any:
    """Truth values: bools as they are, anything else compared with zero."""
    return x if _is_bool(x) else lax.ne(x, _lax_const(x, 0))


def _isnan(x: Any) -> Any:
    return lax.ne(x, x)  # NaN is the only value not equal to itself


_ensure_arraylike = ensure_arraylike


# The fast path: when the operands are concrete Arrays that promotion would leave as
# they are, skip it (it runs on every eager operation). ``_UNCHANGED[promote]`` is the
# set of dtype kinds that ``promote`` keeps.
_UNCHANGED = {promote_args: "biufc", promote_args_inexact: "fc", promote_args_numeric: "iufc"}


def _unary(name: str, lax_fn: Callable, promote: Callable = promote_args) -> Callable:
    """``fn(x) = lax_fn(promote(x))``, named like the NumPy function it stands for."""
    kept = _UNCHANGED.get(promote, "")

    def fn(x: Any, /) -> Any:
        if type(x) is Array and x._value.dtype.kind in kept:
            return lax_fn(x)
        return lax_fn(*promote(name, x))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``, as ``numpy.{name}`` (computed with lax)."
    return fn


def _binary(name: str, lax_fn: Callable, promote: Callable = promote_args,
            bool_fn: Callable | None = None) -> Callable:
    """``fn(x, y) = lax_fn(*promote(x, y))``, named like the NumPy function.

    ``bool_fn`` replaces ``lax_fn`` on booleans (+ is "or", * is "and", as in NumPy).
    """
    kept = _UNCHANGED.get(promote, "")
    if bool_fn is not None:
        kept = kept.replace("b", "")  # booleans take the slow path, to reach bool_fn

    def fn(x1: Any, x2: Any, /) -> Any:
        if type(x1) is Array and type(x2) is Array and x1._weak_type == x2._weak_type:
            v1, v2 = x1._value, x2._value
            if v1.dtype == v2.dtype and v1.ndim == v2.ndim and v1.dtype.kind in kept:
                return lax_fn(x1, x2)
        x1, x2 = promote(name, x1, x2)
        if bool_fn is not None and _is_bool(x1):
            return bool_fn(x1, x2)
        return lax_fn(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``, as ``numpy.{name}`` (computed with lax)."
    return fn


# ---------------------------------------------------------------- arithmetic
# On bools, + is "or" and * is "and" (as in NumPy); lax.add refuses bools.
add = _binary("add", lax.add, bool_fn=lax.bitwise_or)
subtract = _binary("subtract", lax.sub)
multiply = _binary("multiply", lax.mul, bool_fn=lax.bitwise_and)
true_divide = _binary("true_divide", lax.div, promote_args_inexact)
maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
arctan2 = _binary("arctan2", lax.atan2, promote_args_inexact)
nextafter = _binary("nextafter", lax.nextafter, promote_args_inexact)
float_power = _binary("float_power", lax.pow, promote_args_inexact)
negative = _unary("negative", lax.neg)
sign = _unary("sign", lax.sign)


def divide(x1: Any, x2: Any, /) -> Any:
    """``x1 / x2``, always a float (integers are promoted first)."""
    return true_divide(x1, x2)


def positive(x: Any, /) -> Any:
    return asarray(*promote_args("positive", x))


def absolute(x: Any, /) -> Any:
    """``|x|``; bools and unsigned integers are returned as they are."""
    x, = _ensure_arraylike("absolute", x)
    return asarray(x) if _dtype(x).kind in "ub" else lax.abs(x)


abs = absolute


def square(x: Any, /) -> Any:
    x, = _ensure_arraylike("square", x)
    x, = promote_dtypes_numeric(x)
    return lax.square(x)


def reciprocal(x: Any, /) -> Any:
    x, = _ensure_arraylike("reciprocal", x)
    x, = promote_dtypes_inexact(x)
    return lax.integer_pow(x, -1)


@inner_jit
def floor_divide(x1: Any, x2: Any, /) -> Any:
    """Division rounded down (Python's ``//``).

    lax.div truncates toward zero, so for integers a quotient whose operands have
    different signs, and which left a remainder, is moved down by one. (After the
    promotion both operands have one dtype and broadcastable shapes, so the steps
    below can call lax directly.)
    """
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    kind = _dtype(x1).kind
    if kind == "u":
        return lax.div(x1, x2)
    if kind == "i":
        quotient = lax.div(x1, x2)
        select = logical_and(not_equal(lax.sign(x1), lax.sign(x2)),
                             not_equal(lax.rem(x1, x2), 0))
        return _where(select, subtract(quotient, 1), quotient)
    if kind == "c":
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


def _float_divmod(x1: Any, x2: Any) -> tuple[Any, Any]:
    """Python's float ``divmod`` (CPython's float_divmod): a floored quotient and a
    remainder with the sign of the divisor, built from the truncated lax.rem."""
    mod = lax.rem(x1, x2)
    x1_corrected = _where(equal(x2, 0), x1, lax.sub(x1, mod))
    div = lax.div(x1_corrected, x2)
    fix = lax.bitwise_and(not_equal(mod, 0), not_equal(lax.sign(x2), lax.sign(mod)))
    mod = lax.select(fix, add(mod, x2), mod)
    div = lax.select(fix, subtract(div, 1.0), div)
    return lax.round(div), mod


@inner_jit
def remainder(x1: Any, x2: Any, /) -> Any:
    """Remainder with the sign of the divisor (Python's ``%``), from lax.rem (C's fmod).

    An integer division by zero gives 0, as in NumPy (the divisor is replaced by 1).
    """
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    zero = _constant_like(x1, 0)
    if _dtype(x2).kind in "iu":
        x2 = _where(equal(x2, 0), _ones(x2), x2)
    trunc_mod = lax.rem(x1, x2)
    trunc_mod_not_zero = lax.ne(trunc_mod, zero)
    do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),
                              trunc_mod_not_zero)
    return lax.select(do_plus, lax.add(trunc_mod, x2), trunc_mod)


mod = remainder


@inner_jit
def fmod(x1: Any, x2: Any, /) -> Any:
    """Remainder with the sign of the dividend (C's fmod); integer x % 0 gives 0."""
    x1, x2 = _ensure_arraylike("fmod", x1, x2)
    if dtypes.result_type(x1, x2).kind in "iu":
        x2 = _where(equal(x2, 0), _ones(x2), x2)
    return lax.rem(*promote_args_numeric("fmod", x1, x2))


@inner_jit
def divmod(x1: Any, x2: Any, /) -> tuple:
    """``(x1 // x2, x1 % x2)``."""
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if _dtype(x1).kind in "iu":
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


def power(x1: Any, x2: Any, /) -> Any:
    """``x1 ** x2``, in one of three ways.

    1. A concrete integer exponent (``x ** 3``) becomes ``integer_pow``: repeated
       multiplication, exact, and keeping x's dtype.
    2. Integer (or bool) base and integer exponent: binary exponentiation with a
       traced exponent (``_pow_int_int``); it wraps around on overflow like C.
    3. Otherwise ``lax.pow``. A float base keeps its dtype for an integer power.
    """
    check_arraylike("power", x1, x2)
    exponent = _concrete_int(x2)
    if exponent is not None:
        x1, = promote_dtypes_numeric(x1)
        return lax.integer_pow(x1, exponent)
    x1, x2 = promote_shapes("power", x1, x2)  # ranks only: the dtypes are decided below
    x1_, x2_ = promote_args_numeric("power", x1, x2)
    if _dtype(x1_).kind in "iub":
        return _pow_int_int(x1_, x2_)
    if _dtype(x1).kind in "fc" and _dtype(x2).kind in "iu":
        return lax.pow(x1, x2)
    return lax.pow(x1_, x2_)


def _concrete_int(x: Any) -> int | None:
    """The value of ``x`` if it is a known integer scalar (a Python int, 0-d int array)."""
    if isinstance(x, core.Tracer):
        x = x.to_concrete_value()
        if x is None:
            return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def _pow_int_int(x1: Any, x2: Any) -> Any:
    """Integer power by binary exponentiation: square the base each round and multiply
    it in when the exponent's low bit is set. Six rounds cover exponents below 64,
    which is as far as any base above 1 can go before overflowing."""
    zero, one = _constant_like(x2, 0), _constant_like(x2, 1)
    # 0 ** n is 0 for n != 0, but 0 ** 0 is 1.
    acc = _where(lax.bitwise_and(lax.eq(x1, zero), lax.ne(x2, zero)), zero, one)
    for _ in range(6):
        acc = _where(lax.bitwise_and(x2, one), lax.mul(acc, x1), acc)
        x1 = lax.mul(x1, x1)
        x2 = lax.shift_right_logical(x2, one)
    return acc


# ---------------------------------------------------------------- exponentials & friends
exp = _unary("exp", lax.exp, promote_args_inexact)
exp2 = _unary("exp2", lax.exp2, promote_args_inexact)
expm1 = _unary("expm1", lax.expm1, promote_args_inexact)
log = _unary("log", lax.log, promote_args_inexact)
log1p = _unary("log1p", lax.log1p, promote_args_inexact)
sqrt = _unary("sqrt", lax.sqrt, promote_args_inexact)
cbrt = _unary("cbrt", lax.cbrt, promote_args_inexact)
sin = _unary("sin", lax.sin, promote_args_inexact)
cos = _unary("cos", lax.cos, promote_args_inexact)
tan = _unary("tan", lax.tan, promote_args_inexact)
arcsin = _unary("arcsin", lax.asin, promote_args_inexact)
arccos = _unary("arccos", lax.acos, promote_args_inexact)
arctan = _unary("arctan", lax.atan, promote_args_inexact)
sinh = _unary("sinh", lax.sinh, promote_args_inexact)
cosh = _unary("cosh", lax.cosh, promote_args_inexact)
tanh = _unary("tanh", lax.tanh, promote_args_inexact)
arcsinh = _unary("arcsinh", lax.asinh, promote_args_inexact)
arccosh = inner_jit(_unary("arccosh", lax.acosh, promote_args_inexact))
arctanh = _unary("arctanh", lax.atanh, promote_args_inexact)


def log2(x: Any, /) -> Any:
    """``log(x) / log(2)``."""
    x, = promote_args_inexact("log2", x)
    return lax.div(lax.log(x), lax.log(_constant_like(x, 2)))


def log10(x: Any, /) -> Any:
    """``log(x) * (1 / log(10))``, with that constant written out exactly."""
    x, = promote_args_inexact("log10", x)
    return lax.mul(lax.log(x), _constant_like(x, 0.4342944819032518))


def logaddexp(x1: Any, x2: Any, /) -> Any:
    """``log(exp(x1) + exp(x2))`` without overflow: ``max + log1p(exp(-|x1 - x2|))``."""
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    return lax_special.logaddexp(x1, x2)


@inner_jit
def hypot(x1: Any, x2: Any, /) -> Any:
    """``sqrt(x1**2 + x2**2)`` computed as ``big * sqrt(1 + (small/big)**2)``, which
    neither overflows nor underflows where the plain formula would."""
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if _dtype(x1).kind == "c":
        raise ValueError("jnp.hypot is not well defined for complex-valued inputs. "
                         "Please convert to real values first, such as by using abs(x)")
    x1, x2 = lax.abs(x1), lax.abs(x2)
    idx_inf = lax.bitwise_or(_isposinf(x1), _isposinf(x2))
    big, small = maximum(x1, x2), minimum(x1, x2)
    # (in JAX's order: the outer where's condition is computed before the inner one's)
    big_is_zero = equal(big, 0)
    ratio = lax.div(small, _where(equal(big, 0), _ones(big), big))
    out = _where(big_is_zero, big, multiply(big, lax.sqrt(add(1, lax.square(ratio)))))
    return _where(idx_inf, _lax_const(out, np.inf), out)


def _isposinf(x: Any) -> Any:
    return lax.eq(x, _lax_const(x, np.inf))


def deg2rad(x: Any, /) -> Any:
    x, = promote_args_inexact("deg2rad", x)
    return lax.mul(x, _lax_const(x, np.pi / 180))


def rad2deg(x: Any, /) -> Any:
    x, = promote_args_inexact("rad2deg", x)
    return lax.mul(x, _lax_const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg

# ---------------------------------------------------------------- rounding


def _rounding(name: str, lax_fn: Callable) -> Callable:
    """floor/ceil: integers and bools are already whole numbers and come back as they are."""
    def fn(x: Any, /) -> Any:
        x, = _ensure_arraylike(name, x)
        if _is_integral(x):
            return asarray(x)
        return lax_fn(*promote_args_inexact(name, x))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of a float; integers are returned unchanged."
    return fn


floor = _rounding("floor", lax.floor)
ceil = _rounding("ceil", lax.ceil)


@inner_jit
def trunc(x: Any) -> Any:
    """Round toward zero: ceil for negative values, floor for the others."""
    x, = _ensure_arraylike("trunc", x)
    if _is_integral(x):
        return asarray(x)
    return _where(lax.lt(x, _lax_const(x, 0)), lax.ceil(x), lax.floor(x))


@inner_jit
def rint(x: Any, /) -> Any:
    """Round half to even; integers and bools become floats (as in NumPy)."""
    x, = _ensure_arraylike("rint", x)
    if _is_integral(x):
        return lax.convert_element_type(x, dtypes.float_dtype())
    return lax.round(x, 1)


@inner_jit(static_argnames=("decimals",))
def round(a: Any, decimals: int = 0, out: None = None) -> Any:
    """Round half to even to ``decimals`` places (``x * 10**d``, round, divide back).

    Integers are returned unchanged (negative ``decimals`` are not supported for
    them); bools have no decimals to round and are refused.
    """
    a, = _ensure_arraylike("round", a)
    decimals = operator.index(decimals)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.round is not supported.")
    dtype = _dtype(a)
    if dtype.kind in "iu":
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return asarray(a)
    if dtype.kind not in "fc":
        raise ValueError(f"data type {dtype.type!r} not inexact")
    if decimals > np.log10(np.finfo(dtype).max):
        return asarray(a)  # rounding beyond the dtype's precision changes nothing
    if dtype.kind == "c":  # the two parts are rounded separately, in this same jit
        return lax.complex(_round_float(real(a), decimals), _round_float(imag(a), decimals))
    return _round_float(a, decimals)


def _round_float(x: Any, decimals: int) -> Any:
    """Round a float array half to even: ``round(x * 10**d) / 10**d``."""
    if decimals == 0:
        return lax.round(x, 1)
    # NB: as in JAX, float16 is rounded in float32 to keep the scaling exact enough.
    dtype = _dtype(x)
    x = lax.convert_element_type(x, np.float32) if dtype == np.float16 else x
    factor = _lax_const(x, 10 ** decimals)
    out = lax.div(lax.round(lax.mul(x, factor), 1), factor)
    return lax.convert_element_type(out, dtype) if dtype == np.float16 else out


@inner_jit(static_argnames=("decimals",))
def around(a: Any, decimals: int = 0, out: None = None) -> Any:
    """The same as ``round`` (JAX jits it separately, so it shows as its own ``jit``)."""
    return round(a, decimals, out)

# ---------------------------------------------------------------- comparisons and logic
equal = _binary("equal", lax.eq)
not_equal = _binary("not_equal", lax.ne)


def _complex_comparison(lax_op: Callable) -> Callable:
    """lax orders only real numbers; jnp orders complex ones lexicographically, by the
    real parts and, where those are equal, by the imaginary parts (as NumPy does)."""
    def compare(x: Any, y: Any) -> Any:
        if _dtype(x).kind != "c":
            return lax_op(x, y)
        return lax.select(lax.eq(lax.real(x), lax.real(y)), lax_op(lax.imag(x), lax.imag(y)),
                          lax_op(lax.real(x), lax.real(y)))
    return compare


less = _binary("less", _complex_comparison(lax.lt))
less_equal = _binary("less_equal", _complex_comparison(lax.le))
greater = _binary("greater", _complex_comparison(lax.gt))
greater_equal = _binary("greater_equal", _complex_comparison(lax.ge))
bitwise_and = _binary("bitwise_and", lax.bitwise_and)
bitwise_or = _binary("bitwise_or", lax.bitwise_or)
bitwise_xor = _binary("bitwise_xor", lax.bitwise_xor)
left_shift = _binary("left_shift", lax.shift_left, promote_args_numeric)
right_shift = _binary("right_shift", lambda x, y: lax.shift_right_logical(x, y)
                      if _dtype(x).kind == "u" else lax.shift_right_arithmetic(x, y),
                      promote_args_numeric)
invert = _unary("invert", lax.bitwise_not)
bitwise_not = _unary("bitwise_not", lax.bitwise_not)


def _logical(name: str, lax_fn: Callable) -> Callable:
    def fn(*args: Any) -> Any:
        return lax_fn(*map(_to_bool, promote_args(name, *args)))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of the truth values of the arguments."
    return fn


logical_and = _logical("logical_and", lax.bitwise_and)
logical_or = _logical("logical_or", lax.bitwise_or)
logical_xor = _logical("logical_xor", lax.bitwise_xor)
logical_not = _logical("logical_not", lax.bitwise_not)


def isfinite(x: Any, /) -> Any:
    x, = _ensure_arraylike("isfinite", x)
    if _dtype(x).kind == "f":
        return lax.is_finite(x)
    if _dtype(x).kind == "c":  # finite when both parts are
        return lax.bitwise_and(lax.is_finite(real(x)), lax.is_finite(imag(x)))
    return lax.full_like(x, True, dtypes.bool_)


@inner_jit
def isinf(x: Any, /) -> Any:
    x, = _ensure_arraylike("isinf", x)
    if _dtype(x).kind == "f":
        return lax.eq(lax.abs(x), _constant_like(x, np.inf))
    if _dtype(x).kind == "c":  # infinite when either part is
        return lax.bitwise_or(isinf(real(x)), isinf(imag(x)))
    return lax.full_like(x, False, dtypes.bool_)


def isnan(x: Any, /) -> Any:
    x, = _ensure_arraylike("isnan", x)
    return _isnan(x)


@inner_jit
def signbit(x: Any, /) -> Any:
    """True where the sign bit is set, so also for -0.0 and -nan.

    A float's bits are read as an integer of the same width (``bitcast_convert_type``);
    shifting right by all but one bit leaves the sign, 0 or -1.
    """
    x, = promote_args("signbit", x)
    dtype = _dtype(x)
    if dtype.kind in "iu":
        return lax.lt(x, _constant_like(x, 0))
    if dtype.kind == "b":
        return lax.full_like(x, False, dtypes.bool_)
    if dtype.kind != "f":
        raise ValueError(f"jax.numpy.signbit is not well defined for {dtype}")
    bits = np.finfo(dtype).bits
    as_int = lax.bitcast_convert_type(x, np.dtype(f"int{bits}"))
    return lax.convert_element_type(right_shift(as_int, bits - 1), np.bool_)


@inner_jit
def copysign(x1: Any, x2: Any, /) -> Any:
    """``|x1|`` with the sign of ``x2``."""
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    if _dtype(x1).kind == "c":
        raise TypeError("copysign does not support complex-valued inputs")
    return _where(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


@inner_jit
def heaviside(x1: Any, x2: Any, /) -> Any:
    """The step function: 0 below zero, 1 above, and ``x2`` at zero."""
    x1, x2 = _ensure_arraylike("heaviside", x1, x2)
    x1, x2 = promote_dtypes_inexact(x1, x2)
    zero = _lax_const(x1, 0)
    return _where(lax.lt(x1, zero), zero,
                  _where(lax.gt(x1, zero), _lax_const(x1, 1), _where(_isnan(x1), x1, x2)))


# ---------------------------------------------------------------- selection
@inner_jit
def _where(condition: Any, x: Any, y: Any) -> Any:
    """Three-argument where: a non-bool condition is compared with zero, x and y are
    promoted to one dtype, and all three are broadcast to one shape for lax.select."""
    condition, x, y = _ensure_arraylike("where", condition, x, y)
    condition = _to_bool(condition)
    x, y = promote_dtypes(x, y)
    if np.ndim(condition) == 0:  # lax.select takes a scalar condition as it is
        x, y = _broadcast_arrays(x, y)
    else:
        condition, x, y = _broadcast_arrays(condition, x, y)
    return lax.select(condition, x, y)


def _broadcast_arrays(*args: Any) -> list:
    """Broadcast to one shape; an argument that already has it is left alone."""
    shapes = [np.shape(a) for a in args]
    shape = broadcast_shapes(*shapes)
    return [a if s == shape else lax.broadcast_in_dim(a, shape, range(len(shape) - len(s),
                                                                      len(shape)))
            for a, s in zip(args, shapes)]


@inner_jit
def clip(arr: Any = None, /, min: Any = None, max: Any = None) -> Any:
    """Limit values to [min, max]: maximum with ``min``, then minimum with ``max``.

    Either bound may be None (no limit on that side).
    """
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    check_arraylike("clip", arr)
    if any(iscomplexobj(a) for a in (arr, min, max)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped. Please convert to a real "
            "value or array by taking the real or imaginary components via jax.numpy.real/imag "
            "respectively.")
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return asarray(arr)


@inner_jit(static_argnames=("equal_nan",))
def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08,
            equal_nan: bool = False) -> Any:
    """``|a - b| <= atol + rtol * |b|`` elementwise (infinities must match exactly)."""
    a, b = promote_args("isclose", a, b)
    a, b = promote_args_inexact("isclose", a, b)
    dtype = dtypes.dtype_and_weak(a)[0]
    dtype = np.abs(np.zeros((), dtype)).dtype  # tolerances of complex numbers are real
    rtol = lax.convert_element_type(rtol, dtype)
    atol = lax.convert_element_type(atol, dtype)
    both_nan = logical_and(isnan(a), isnan(b))
    check_fin = isfinite(b)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = logical_or(lax.eq(a, b), logical_and(check_fin, in_range))
    return logical_or(out, both_nan) if equal_nan else out
