"""Elementwise primitives: arithmetic, math functions, comparisons, select, casts.

Each primitive is one block: its definition and NumPy reference rule together.
Elementwise primitives take operands of one dtype and (after jnp's rank
promotion) one shape; ``registry.broadcasting_shape_rule`` checks that.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray
from edujax.interpreters.partial_eval import const_fold_rules
from edujax.lax.registry import (broadcasting_shape_rule, checked_dtype_rule,
                                 naryop_abstract_eval, standard_primitive)
from edujax.pretty import hide_params, pp_eqn_rules

FLOAT, COMPLEX, INT, UINT, BOOL = "f", "c", "i", "u", "b"
INEXACT = FLOAT + COMPLEX
NUMBER = INT + UINT + INEXACT
ANY = NUMBER + BOOL


def _same_shape(x: ShapedArray, **params) -> tuple[int, ...]:
    return x.shape


def quiet(fn):
    """Run a NumPy rule without floating-point warnings (XLA silently gives inf/nan)."""
    def run(*args, **params):
        with np.errstate(all="ignore"):
            return fn(*args, **params)
    return run


def naryop(name: str, impl, kinds: str, pp_hidden: tuple[str, ...] = ()) -> Primitive:
    """An elementwise primitive: operands of one dtype (of ``kinds``) and one shape."""
    prim = Primitive(name)
    core.abstract_eval_rules[prim] = partial(naryop_abstract_eval, name, kinds)
    core.impl_rules[prim] = impl
    if pp_hidden:
        pp_eqn_rules[prim] = hide_params(*pp_hidden)
    return prim


def unop(name: str, np_fn, kinds: str, accuracy: bool = False, warns: bool = True) -> Primitive:
    """A one-operand elementwise primitive. ``accuracy`` adds JAX's (hidden) accuracy param."""
    impl = (lambda x, **params: np_fn(x))
    return naryop(name, quiet(impl) if warns else impl, kinds,
                  pp_hidden=("accuracy",) if accuracy else ())


def binop(name: str, np_fn, kinds: str, warns: bool = False) -> Primitive:
    """A two-operand elementwise primitive on operands of the same dtype."""
    return naryop(name, quiet(np_fn) if warns else np_fn, kinds)


# ---------------------------------------------------------------- arithmetic
neg_p = unop("neg", np.negative, NUMBER, warns=False)
sign_p = unop("sign", np.sign, NUMBER, warns=False)
abs_p = unop("abs", np.abs, NUMBER, warns=False)
add_p = binop("add", np.add, NUMBER + BOOL)
sub_p = binop("sub", np.subtract, NUMBER)
mul_p = binop("mul", np.multiply, NUMBER + BOOL)
max_p = binop("max", np.maximum, ANY)
min_p = binop("min", np.minimum, ANY)


def _div_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Integer division rounds toward zero in XLA (C semantics), not down as in NumPy."""
    if x.dtype.kind in "iu":
        q = np.abs(x) // np.where(y == 0, 1, np.abs(y))
        return np.where(y == 0, -1, np.where((x < 0) != (y < 0), -q, q)).astype(x.dtype)
    return np.divide(x, y)


div_p = binop("div", _div_impl, NUMBER, warns=True)
# rem: the remainder of truncated division, sign of the dividend (C's fmod).
rem_p = binop("rem", np.fmod, NUMBER, warns=True)
pow_p = binop("pow", np.power, INEXACT, warns=True)
atan2_p = binop("atan2", np.arctan2, FLOAT)
nextafter_p = binop("nextafter", np.nextafter, FLOAT)


# integer_pow: x ** y for a static Python int y, computed as XLA does, by
# repeated squaring (so x**3 is x * (x * x), bit for bit).
def _integer_pow_impl(x: np.ndarray, *, y: int) -> np.ndarray:
    acc, base, n = None, x, abs(y)
    while n > 0:
        if n & 1:
            acc = base if acc is None else acc * base
        n >>= 1
        if n:
            base = base * base
    if acc is None:
        acc = np.ones_like(x)
    return np.divide(1, acc, dtype=x.dtype) if y < 0 else acc


def _integer_pow_dtype_rule(x: ShapedArray, *, y: int) -> np.dtype:
    dtype = checked_dtype_rule("integer_pow", NUMBER, x)
    if y < 0 and dtype.kind in "iu":
        raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow(x, {y})")
    return dtype


integer_pow_p = standard_primitive("integer_pow", _same_shape, _integer_pow_dtype_rule,
                                   quiet(_integer_pow_impl))

# ---------------------------------------------------------------- rounding
floor_p = unop("floor", np.floor, FLOAT, warns=False)
ceil_p = unop("ceil", np.ceil, FLOAT, warns=False)


def _round_impl(x: np.ndarray, *, rounding_method: int) -> np.ndarray:
    # rounding_method 0: half away from zero; 1: half to even (NumPy's np.round).
    if rounding_method == 0:
        return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(x.dtype)
    return np.round(x)


round_p = standard_primitive("round", _same_shape, partial(checked_dtype_rule, "round", FLOAT),
                             _round_impl)
is_finite_p = standard_primitive("is_finite", _same_shape, lambda x: dtypes.bool_,
                                 lambda x: np.isfinite(x))

# ---------------------------------------------------------------- transcendental
exp_p = unop("exp", np.exp, INEXACT, accuracy=True)
exp2_p = unop("exp2", np.exp2, INEXACT, accuracy=True)
log_p = unop("log", np.log, INEXACT, accuracy=True)
log1p_p = unop("log1p", np.log1p, INEXACT, accuracy=True)
expm1_p = unop("expm1", np.expm1, INEXACT, accuracy=True)
tanh_p = unop("tanh", np.tanh, INEXACT, accuracy=True)
logistic_p = unop("logistic", lambda x: 1 / (1 + np.exp(-x)), INEXACT, accuracy=True)
sin_p = unop("sin", np.sin, INEXACT, accuracy=True)
cos_p = unop("cos", np.cos, INEXACT, accuracy=True)
tan_p = unop("tan", np.tan, INEXACT, accuracy=True)
sqrt_p = unop("sqrt", np.sqrt, INEXACT, accuracy=True)
rsqrt_p = unop("rsqrt", lambda x: 1 / np.sqrt(x), INEXACT, accuracy=True)
cbrt_p = unop("cbrt", np.cbrt, FLOAT, accuracy=True)
asin_p = unop("asin", np.arcsin, INEXACT)
acos_p = unop("acos", np.arccos, INEXACT)
atan_p = unop("atan", np.arctan, INEXACT)
sinh_p = unop("sinh", np.sinh, INEXACT)
cosh_p = unop("cosh", np.cosh, INEXACT)
asinh_p = unop("asinh", np.arcsinh, INEXACT)
acosh_p = unop("acosh", np.arccosh, INEXACT)
atanh_p = unop("atanh", np.arctanh, INEXACT)
square_p = unop("square", np.square, NUMBER, warns=False)

# ---------------------------------------------------------------- logic and bits
not_p = unop("not", lambda x: np.logical_not(x) if x.dtype == bool else np.invert(x),
             INT + UINT + BOOL, warns=False)
and_p = binop("and", lambda x, y: np.bitwise_and(x, y), INT + UINT + BOOL)
or_p = binop("or", lambda x, y: np.bitwise_or(x, y), INT + UINT + BOOL)
xor_p = binop("xor", lambda x, y: np.bitwise_xor(x, y), INT + UINT + BOOL)


def _shift_impl(np_fn, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8  # XLA: shifting by >= the bit width gives 0 (or the sign)
    out = np_fn(x, np.clip(y, 0, bits - 1).astype(x.dtype))
    return np.where((y < 0) | (y >= bits), np_fn(x, bits - 1) if np_fn is np.right_shift
                    and x.dtype.kind == "i" else 0, out).astype(x.dtype)


def _logical_right_shift(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    return np.right_shift(unsigned, y.astype(unsigned.dtype)).view(x.dtype)


shift_left_p = binop("shift_left", partial(_shift_impl, np.left_shift), INT + UINT)
shift_right_arithmetic_p = binop("shift_right_arithmetic", partial(_shift_impl, np.right_shift),
                                 INT + UINT)
shift_right_logical_p = binop("shift_right_logical",
                              partial(_shift_impl, _logical_right_shift), INT + UINT)


# ---------------------------------------------------------------- comparisons
def _compare_dtype_rule(name: str, x: ShapedArray, y: ShapedArray) -> np.dtype:
    checked_dtype_rule(name, ANY, x, y)
    return dtypes.bool_


def comparison(name: str, np_fn) -> Primitive:
    return standard_primitive(name, partial(broadcasting_shape_rule, name),
                              partial(_compare_dtype_rule, name), lambda x, y: np_fn(x, y))


eq_p = comparison("eq", np.equal)
ne_p = comparison("ne", np.not_equal)
lt_p = comparison("lt", np.less)
le_p = comparison("le", np.less_equal)
gt_p = comparison("gt", np.greater)
ge_p = comparison("ge", np.greater_equal)


# ---------------------------------------------------------------- select_n
# select_n(which, *cases): picks cases[which] elementwise. ``which`` is a bool
# (False -> cases[0]) or an int32 index; it is a scalar or has the cases' shape.
def _select_n_shape_rule(which: ShapedArray, *cases: ShapedArray) -> tuple[int, ...]:
    if not cases:
        raise TypeError("select_n must have at least one case")
    if any(c.shape != cases[0].shape for c in cases):
        raise TypeError("select cases must have the same shapes, got "
                        f"[{', '.join(str(c.shape) for c in cases)}].")
    if which.shape and which.shape != cases[0].shape:
        raise TypeError("select `which` must be scalar or have the same shape as cases, "
                        f"got `which` shape {which.shape} but case shape {cases[0].shape}.")
    return cases[0].shape


def _select_n_dtype_rule(which: ShapedArray, *cases: ShapedArray) -> np.dtype:
    if which.dtype != dtypes.bool_ and which.dtype.kind not in "iu":
        raise TypeError(f"select `which` must be boolean or integer type, got {which.dtype}.")
    if any(c.dtype != cases[0].dtype for c in cases):
        raise TypeError("select cases must have the same dtypes, got "
                        f"[{', '.join(c.dtype.name for c in cases)}].")
    return cases[0].dtype


def _select_n_impl(which: np.ndarray, *cases: np.ndarray) -> np.ndarray:
    if len(cases) == 2 and which.dtype == bool:
        return np.where(which, cases[1], cases[0])
    return np.choose(np.asarray(which, np.int32), np.broadcast_arrays(*cases))


select_n_p = standard_primitive(
    "select_n", _select_n_shape_rule, _select_n_dtype_rule, _select_n_impl,
    weak_type_rule=lambda which, *cases: all(c.weak_type for c in cases))


# ---------------------------------------------------------------- clamp
def _clamp_shape_rule(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> tuple[int, ...]:
    for bound in (lo, hi):
        if bound.shape and bound.shape != x.shape:
            raise TypeError("clamp requires min.shape == operand.shape or min.shape == (), "
                            f"got {bound.shape}.")
    return x.shape


clamp_p = standard_primitive(
    "clamp", _clamp_shape_rule, lambda lo, x, hi: checked_dtype_rule("clamp", ANY, lo, x, hi),
    lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
    weak_type_rule=lambda lo, x, hi: x.weak_type)


# ---------------------------------------------------------------- convert_element_type
def _convert_impl(x: np.ndarray, *, new_dtype: np.dtype, weak_type: bool, sharding: Any):
    """Casts the way XLA does: float -> int truncates and saturates, NaN -> 0."""
    if x.dtype.kind in "fc" and new_dtype.kind in "iu":
        info = np.iinfo(new_dtype)
        x = np.real(x)
        with np.errstate(invalid="ignore"):
            clipped = np.clip(np.nan_to_num(np.trunc(x), nan=0), info.min, info.max)
        return np.where(clipped >= info.max, info.max, clipped).astype(new_dtype)
    if new_dtype == dtypes.bool_:
        return x != 0
    if x.dtype.kind == "c" and new_dtype.kind != "c":
        x = np.real(x)
    return x.astype(new_dtype)


def _convert_fold(x: Any, *, new_dtype: np.dtype, weak_type: bool, sharding: Any):
    """While staging, casting a Python or NumPy scalar is done right away (JAX folds it too)."""
    if np.ndim(x) or not (type(x) in dtypes.python_scalar_types
                          or isinstance(x, (np.ndarray, np.generic))):
        return None
    value = _convert_impl(np.asarray(x), new_dtype=new_dtype,
                          weak_type=weak_type, sharding=sharding)
    return value.item() if weak_type else value[()]


convert_element_type_p = standard_primitive(
    "convert_element_type", lambda x, **p: x.shape, lambda x, *, new_dtype, **p: new_dtype,
    _convert_impl, weak_type_rule=lambda x, *, weak_type, **p: weak_type,
    pp_hidden=("sharding",))
const_fold_rules[convert_element_type_p] = _convert_fold


# ---------------------------------------------------------------- special functions
def _erf(x: np.ndarray) -> np.ndarray:
    import math
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x


erf_p = unop("erf", _erf, FLOAT)

