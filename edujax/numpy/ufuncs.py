"""Elementwise jax.numpy functions, each written only in terms of lax.

Most are one line: promote the arguments (util.py), then call one lax function.
The ones with more to say (floor_divide, remainder, power) explain themselves.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax import dtypes, lax
from edujax.array import Array
from edujax.numpy.util import (asarray, broadcast_shapes, check_arraylike, promote_args,
                               promote_args_inexact, promote_args_numeric, promote_dtypes,
                               promote_shapes)


def _unary(name: str, lax_fn: Callable, inexact: bool = False) -> Callable:
    promote = promote_args_inexact if inexact else promote_args

    def fn(x: Any, /) -> Any:
        if type(x) is Array and (not inexact or x._value.dtype.kind in "fc"):
            return lax_fn(x)  # fast path: nothing to promote
        return lax_fn(*promote(name, x))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``, as ``numpy.{name}`` (computed with lax)."
    return fn


def _binary(name: str, lax_fn: Callable, inexact: bool = False,
            bool_fn: Callable | None = None) -> Callable:
    """``bool_fn`` replaces ``lax_fn`` on booleans (JAX: add of bools is logical or)."""
    promote = promote_args_inexact if inexact else promote_args

    def fn(x1: Any, x2: Any, /) -> Any:
        if not _already_promoted(x1, x2, inexact):  # the fast path skips promotion
            x1, x2 = promote(name, x1, x2)
        if bool_fn is not None and _is_bool(x1):
            return bool_fn(x1, x2)
        return lax_fn(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``, as ``numpy.{name}`` (computed with lax)."
    return fn


def _already_promoted(x1: Any, x2: Any, inexact: bool) -> bool:
    """Two concrete arrays of one dtype, weak type and rank need no promotion at all."""
    if type(x1) is not Array or type(x2) is not Array or x1._weak_type != x2._weak_type:
        return False
    v1, v2 = x1._value, x2._value
    return (v1.dtype == v2.dtype and v1.ndim == v2.ndim
            and (not inexact or v1.dtype.kind in "fc"))


# ---------------------------------------------------------------- arithmetic
add = _binary("add", lax.add, bool_fn=lax.bitwise_or)
subtract = _binary("subtract", lax.sub)
multiply = _binary("multiply", lax.mul, bool_fn=lax.bitwise_and)
true_divide = divide = _binary("true_divide", lax.div, inexact=True)
maximum = _binary("maximum", lax.max)
minimum = _binary("minimum", lax.min)
arctan2 = _binary("arctan2", lax.atan2, inexact=True)
nextafter = _binary("nextafter", lax.nextafter, inexact=True)
negative = _unary("negative", lax.neg)
sign = _unary("sign", lax.sign)
square = _unary("square", lax.square)


def _dtype(x: Any) -> np.dtype:
    """The dtype of an array, tracer or (already promoted) Python scalar."""
    return dtypes.dtype_and_weak(x)[0]


def _is_bool(x: Any) -> bool:
    if type(x) is Array:
        return x._value.dtype.kind == "b"
    return _dtype(x) == dtypes.bool_


def positive(x: Any, /) -> Any:
    return asarray(*promote_args("positive", x))


def absolute(x: Any, /) -> Any:
    x, = promote_args("absolute", x)
    return x if _dtype(x).kind in "ub" else lax.abs(x)


abs = absolute


def reciprocal(x: Any, /) -> Any:
    x, = promote_args_inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


def floor_divide(x1: Any, x2: Any, /) -> Any:
    """Division rounded down. lax.div truncates toward zero, so negative quotients
    with a remainder are moved down by one."""
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    if _dtype(x1).kind in "iu":
        quotient = lax.div(x1, x2)
        if _dtype(x1).kind == "u":
            return quotient
        wrong_sign = lax.ne(lax.lt(x1, _zero(x1)), lax.lt(x2, _zero(x2)))
        has_rem = lax.ne(lax.rem(x1, x2), _zero(x1))
        return lax.select(lax.bitwise_and(wrong_sign, has_rem), lax.sub(quotient, _one(x1)),
                          quotient)
    mod = lax.rem(x1, x2)
    div = lax.div(lax.sub(x1, mod), x2)
    wrong = lax.bitwise_and(lax.ne(mod, _zero(mod)), lax.ne(lax.sign(x2), lax.sign(mod)))
    return lax.round(lax.select(wrong, lax.sub(div, _one(div)), div))


def remainder(x1: Any, x2: Any, /) -> Any:
    """Remainder with the sign of the divisor (Python's %), built from lax.rem (C's fmod)."""
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    trunc_mod = lax.rem(x1, x2)
    nonzero = lax.ne(trunc_mod, _zero(trunc_mod))
    fix = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, _zero(trunc_mod)), lax.lt(x2, _zero(x2))),
                          nonzero)
    return lax.select(fix, lax.add(trunc_mod, x2), trunc_mod)


mod = remainder


def fmod(x1: Any, x2: Any, /) -> Any:
    return lax.rem(*promote_args_numeric("fmod", x1, x2))


def divmod(x1: Any, x2: Any, /) -> tuple:
    return floor_divide(x1, x2), remainder(x1, x2)


def _zero(x: Any) -> Any:
    return lax._convert_element_type(0, _dtype(x), False)


def _one(x: Any) -> Any:
    return lax._convert_element_type(1, _dtype(x), False)


def power(x1: Any, x2: Any, /) -> Any:
    """``x1 ** x2``. A Python int exponent becomes ``integer_pow`` (exact repeated
    multiplication); otherwise floats use ``pow``, integers binary exponentiation."""
    check_arraylike("power", x1, x2)
    if type(x2) is int:
        x1, = promote_args_numeric("power", x1)
        return lax.integer_pow(x1, x2)
    x1, x2 = promote_args_numeric("power", x1, x2)
    if _dtype(x1).kind in "iu":
        return _pow_int_int(x1, x2)
    return lax.pow(x1, x2)


def _pow_int_int(x1: Any, x2: Any) -> Any:
    """Integer powers by squaring, a fixed 6 rounds (more would overflow anyway)."""
    zero, one = _zero(x2), _one(x2)
    acc = lax.select(lax.bitwise_and(lax.eq(x1, _zero(x1)), lax.ne(x2, zero)),
                     lax.full_like(x1, 0), lax.full_like(x1, 1))
    for _ in range(6):
        acc = lax.select(lax.ne(lax.bitwise_and(x2, one), zero), lax.mul(acc, x1), acc)
        x1 = lax.mul(x1, x1)
        x2 = lax.shift_right_logical(x2, one)
    return acc


float_power = _binary("float_power", lax.pow, inexact=True)

# ---------------------------------------------------------------- exponentials & friends
exp = _unary("exp", lax.exp, inexact=True)
exp2 = _unary("exp2", lax.exp2, inexact=True)
expm1 = _unary("expm1", lax.expm1, inexact=True)
log = _unary("log", lax.log, inexact=True)
log1p = _unary("log1p", lax.log1p, inexact=True)
sqrt = _unary("sqrt", lax.sqrt, inexact=True)
cbrt = _unary("cbrt", lax.cbrt, inexact=True)
sin = _unary("sin", lax.sin, inexact=True)
cos = _unary("cos", lax.cos, inexact=True)
tan = _unary("tan", lax.tan, inexact=True)
arcsin = _unary("arcsin", lax.asin, inexact=True)
arccos = _unary("arccos", lax.acos, inexact=True)
arctan = _unary("arctan", lax.atan, inexact=True)
sinh = _unary("sinh", lax.sinh, inexact=True)
cosh = _unary("cosh", lax.cosh, inexact=True)
tanh = _unary("tanh", lax.tanh, inexact=True)
arcsinh = _unary("arcsinh", lax.asinh, inexact=True)
arccosh = _unary("arccosh", lax.acosh, inexact=True)
arctanh = _unary("arctanh", lax.atanh, inexact=True)


def log2(x: Any, /) -> Any:
    x, = promote_args_inexact("log2", x)
    return lax.div(lax.log(x), lax.log(_const(x, 2)))


def log10(x: Any, /) -> Any:
    x, = promote_args_inexact("log10", x)
    return lax.div(lax.log(x), lax.log(_const(x, 10)))


def logaddexp(x1: Any, x2: Any, /) -> Any:
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    return lax.select(lax.ne(delta, delta), lax.add(x1, x2),  # NaN in, NaN out
                      lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))))


def hypot(x1: Any, x2: Any, /) -> Any:
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    return lax.sqrt(lax.add(lax.mul(x1, x1), lax.mul(x2, x2)))


def deg2rad(x: Any, /) -> Any:
    x, = promote_args_inexact("deg2rad", x)
    return lax.mul(x, _const(x, np.pi / 180))


def rad2deg(x: Any, /) -> Any:
    x, = promote_args_inexact("rad2deg", x)
    return lax.mul(x, _const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


def _const(x: Any, value: Any) -> Any:
    return lax._convert_element_type(value, _dtype(x), False)


# ---------------------------------------------------------------- rounding
floor = _unary("floor", lambda x: x if _is_integral(x) else lax.floor(x))
ceil = _unary("ceil", lambda x: x if _is_integral(x) else lax.ceil(x))
trunc = _unary("trunc", lambda x: x if _is_integral(x) else
               lax.select(lax.lt(x, _zero(x)), lax.ceil(x), lax.floor(x)))
rint = _unary("rint", lambda x: x if _is_integral(x) else lax.round(x, 1))
fix = trunc


def _is_integral(x: Any) -> bool:
    return _dtype(x).kind in "iub"


def round(a: Any, decimals: int = 0, out: None = None) -> Any:
    """Round half to even, like NumPy (lax.round's method 1)."""
    a, = promote_args("round", a)
    if _is_integral(a):
        return a if decimals >= 0 else lax.mul(lax.div(a, _const(a, 10 ** -decimals)),
                                               _const(a, 10 ** -decimals))
    if decimals == 0:
        return lax.round(a, 1)
    factor = _const(a, 10.0 ** decimals)
    return lax.div(lax.round(lax.mul(a, factor), 1), factor)


around = round

# ---------------------------------------------------------------- comparisons and logic
equal = _binary("equal", lax.eq)
not_equal = _binary("not_equal", lax.ne)
less = _binary("less", lax.lt)
less_equal = _binary("less_equal", lax.le)
greater = _binary("greater", lax.gt)
greater_equal = _binary("greater_equal", lax.ge)
bitwise_and = _binary("bitwise_and", lax.bitwise_and)
bitwise_or = _binary("bitwise_or", lax.bitwise_or)
bitwise_xor = _binary("bitwise_xor", lax.bitwise_xor)
left_shift = _binary("left_shift", lax.shift_left)
right_shift = _binary("right_shift", lambda x, y: lax.shift_right_logical(x, y)
                      if _dtype(x).kind == "u" else lax.shift_right_arithmetic(x, y))
invert = bitwise_not = _unary("invert", lax.bitwise_not)


def _to_bool(x: Any) -> Any:
    return x if _dtype(x) == dtypes.bool_ else lax.ne(x, _zero(x))


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
    x, = promote_args("isfinite", x)
    if _is_integral(x):
        return lax.full_like(x, True, dtypes.bool_)
    return lax.is_finite(x)


def isinf(x: Any, /) -> Any:
    x, = promote_args("isinf", x)
    if _is_integral(x):
        return lax.full_like(x, False, dtypes.bool_)
    return lax.eq(lax.abs(x), _const(x, np.inf))


def isnan(x: Any, /) -> Any:
    x, = promote_args("isnan", x)
    if _is_integral(x):
        return lax.full_like(x, False, dtypes.bool_)
    return lax.ne(x, x)


def copysign(x1: Any, x2: Any, /) -> Any:
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    return lax.select(lax.lt(x2, _zero(x2)), lax.neg(lax.abs(x1)), lax.abs(x1))


def heaviside(x1: Any, x2: Any, /) -> Any:
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    zero = _zero(x1)
    return lax.select(lax.lt(x1, zero), lax.full_like(x1, 0),
                      lax.select(lax.gt(x1, zero), lax.full_like(x1, 1), x2))


# ---------------------------------------------------------------- selection
def where(condition: Any, x: Any = None, y: Any = None, /, *, size: Any = None,
          fill_value: Any = None) -> Any:
    """``x`` where ``condition`` holds, else ``y`` (all three broadcast together).

    With one argument it is ``nonzero``, which needs a concrete condition (the
    output's length depends on the data).
    """
    if x is None and y is None:
        from edujax.numpy.sorting import nonzero
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         "to jax.numpy.where, got {} and {}.".format(x, y))
    check_arraylike("where", condition, x, y)
    condition = _to_bool(asarray(condition))
    x, y = promote_dtypes(x, y)
    condition, x, y = promote_shapes("where", condition, x, y)
    shape = broadcast_shapes(*(np.shape(v) for v in (condition, x, y)))
    condition, x, y = (_broadcast_to(v, shape) for v in (condition, x, y))
    return lax.select(condition, x, y)


def _broadcast_to(x: Any, shape: tuple[int, ...]) -> Any:
    from edujax.numpy.shape_ops import broadcast_to
    return broadcast_to(asarray(x), shape)


def clip(arr: Any = None, /, min: Any = None, max: Any = None, *, a: Any = None,
         a_min: Any = None, a_max: Any = None) -> Any:
    """Limit values to [min, max]: maximum with min, then minimum with max."""
    arr = a if arr is None else arr
    min = a_min if min is None else min
    max = a_max if max is None else max
    check_arraylike("clip", arr)
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return asarray(arr)
