"""jnp against NumPy, on random arrays (hypothesis).

Inputs: shapes of 0 to 3 dimensions of sizes 0 to 4, dtypes bool, int32 and
float32 (JAX's canonical dtypes; NumPy would use 64 bits). For every function we
know two things independently of edujax's code:

* the **value**, from NumPy. Float transcendental functions are compared with
  rtol 1e-5 (the reference is computed in float64); everything else exactly;
* the **dtype**, from JAX's promotion rules written out below: ``true_divide`` of
  two int32 arrays is float32, ``sum`` of bools is int32, ``square`` of a bool
  is int32, a comparison is bool...
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import edujax.numpy as jnp

# NumPy warns about empty means and overflowing casts; both sides get the same answer.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

BOOL, INT, FLOAT = np.dtype(np.bool_), np.dtype(np.int32), np.dtype(np.float32)
DTYPES = [BOOL, INT, FLOAT]


# ---------------------------------------------------------------- inputs
def _elements(dtype: np.dtype) -> st.SearchStrategy:
    if dtype == FLOAT:
        return st.floats(-10, 10, width=32)
    if dtype == INT:
        return st.integers(-20, 20)
    return st.booleans()


SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


def arrays(dtype: np.dtype, shape=SHAPES) -> st.SearchStrategy:
    return hnp.arrays(dtype, shape, elements=_elements(dtype))


@st.composite
def array_of(draw, dtypes=tuple(DTYPES)) -> np.ndarray:
    return draw(arrays(draw(st.sampled_from(dtypes))))


@st.composite
def two_arrays(draw, dtypes=tuple(DTYPES)) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays whose shapes broadcast: the second drops leading axes of the first
    and may have size 1 where the first does not."""
    shape = draw(SHAPES)
    tail = shape[draw(st.integers(0, len(shape))):]
    other = tuple(1 if draw(st.booleans()) else d for d in tail)
    x = draw(arrays(draw(st.sampled_from(dtypes)), shape))
    y = draw(arrays(draw(st.sampled_from(dtypes)), other))
    return (x, y) if draw(st.booleans()) else (y, x)


# ---------------------------------------------------------------- JAX's dtype rules
def promote(*dtypes: np.dtype) -> np.dtype:
    """JAX's lattice restricted to bool < int32 < float32."""
    return max(dtypes, key=DTYPES.index)


def same(*dtypes: np.dtype) -> np.dtype:
    return promote(*dtypes)


def inexact(*dtypes: np.dtype) -> np.dtype:
    """Integers and bools become float32 (true_divide, sqrt, sin...)."""
    return FLOAT


def numeric(*dtypes: np.dtype) -> np.dtype:
    """Bools become int32 (square, floor_divide, power...)."""
    d = promote(*dtypes)
    return INT if d == BOOL else d


def to_bool(*dtypes: np.dtype) -> np.dtype:
    return BOOL


def float_only_rounding(dtype: np.dtype) -> np.dtype:
    """floor, ceil, trunc leave integers and bools alone."""
    return dtype


def _check(got, expected: np.ndarray, dtype: np.dtype, rtol: float = 0.0) -> None:
    assert got.dtype == dtype, f"dtype {got.dtype}, expected {dtype}"
    assert not got.weak_type
    expected = np.asarray(expected).astype(dtype)
    assert got.shape == expected.shape
    if rtol:
        np.testing.assert_allclose(np.asarray(got), expected, rtol=rtol, atol=1e-5)
    else:
        np.testing.assert_array_equal(np.asarray(got), expected)


# ---------------------------------------------------------------- elementwise, one operand
# name: (NumPy reference on float64/int/bool values, dtype rule, accepted input dtypes,
#        transcendental?)
UNARY: dict[str, tuple[Callable, Callable, tuple, bool]] = {
    "negative": (np.negative, same, (INT, FLOAT), False),
    "positive": (lambda x: x, same, (BOOL, INT, FLOAT), False),
    "abs": (np.abs, same, (BOOL, INT, FLOAT), False),
    "sign": (np.sign, same, (INT, FLOAT), False),
    "square": (np.square, numeric, (BOOL, INT, FLOAT), False),
    "floor": (np.floor, float_only_rounding, (BOOL, INT, FLOAT), False),
    "ceil": (np.ceil, float_only_rounding, (BOOL, INT, FLOAT), False),
    "trunc": (np.trunc, float_only_rounding, (BOOL, INT, FLOAT), False),
    "rint": (np.rint, inexact, (BOOL, INT, FLOAT), False),
    "isnan": (np.isnan, to_bool, (BOOL, INT, FLOAT), False),
    "isinf": (np.isinf, to_bool, (BOOL, INT, FLOAT), False),
    "isfinite": (np.isfinite, to_bool, (BOOL, INT, FLOAT), False),
    "logical_not": (np.logical_not, to_bool, (BOOL, INT, FLOAT), False),
    "invert": (np.invert, same, (BOOL, INT), False),
    "reciprocal": (lambda x: 1 / x, inexact, (FLOAT,), True),
    "sqrt": (np.sqrt, inexact, (BOOL, INT, FLOAT), True),
    "cbrt": (np.cbrt, inexact, (BOOL, INT, FLOAT), True),
    "exp": (np.exp, inexact, (BOOL, INT, FLOAT), True),
    "exp2": (np.exp2, inexact, (BOOL, INT, FLOAT), True),
    "expm1": (np.expm1, inexact, (BOOL, INT, FLOAT), True),
    "log": (np.log, inexact, (BOOL, INT, FLOAT), True),
    "log1p": (np.log1p, inexact, (BOOL, INT, FLOAT), True),
    "log2": (np.log2, inexact, (BOOL, INT, FLOAT), True),
    "log10": (np.log10, inexact, (BOOL, INT, FLOAT), True),
    "sin": (np.sin, inexact, (BOOL, INT, FLOAT), True),
    "cos": (np.cos, inexact, (BOOL, INT, FLOAT), True),
    "tan": (np.tan, inexact, (BOOL, INT, FLOAT), True),
    "arcsin": (np.arcsin, inexact, (BOOL, INT, FLOAT), True),
    "arccos": (np.arccos, inexact, (BOOL, INT, FLOAT), True),
    "arctan": (np.arctan, inexact, (BOOL, INT, FLOAT), True),
    "sinh": (np.sinh, inexact, (BOOL, INT, FLOAT), True),
    "cosh": (np.cosh, inexact, (BOOL, INT, FLOAT), True),
    "tanh": (np.tanh, inexact, (BOOL, INT, FLOAT), True),
    "arcsinh": (np.arcsinh, inexact, (BOOL, INT, FLOAT), True),
    "arccosh": (np.arccosh, inexact, (BOOL, INT, FLOAT), True),
    "arctanh": (np.arctanh, inexact, (BOOL, INT, FLOAT), True),
    "deg2rad": (np.deg2rad, inexact, (BOOL, INT, FLOAT), True),
    "rad2deg": (np.rad2deg, inexact, (BOOL, INT, FLOAT), True),
}


@pytest.mark.parametrize("name", UNARY)
@given(data=st.data())
def test_unary(name, data):
    np_fn, dtype_rule, accepted, transcendental = UNARY[name]
    x = data.draw(array_of(accepted))
    dtype = dtype_rule(x.dtype)
    with np.errstate(all="ignore"):
        if transcendental:
            expected = np_fn(x.astype(np.float64))
        elif dtype_rule is numeric:
            expected = np_fn(x.astype(dtype))
        else:
            expected = np_fn(x)
    _check(getattr(jnp, name)(x), expected, dtype, rtol=1e-5 if transcendental else 0.0)


# ---------------------------------------------------------------- elementwise, two operands
def _np_floor_divide(x, y):
    return np.floor_divide(x, y)


BINARY: dict[str, tuple[Callable, Callable, tuple, bool]] = {
    "add": (np.add, same, (BOOL, INT, FLOAT), False),
    "subtract": (np.subtract, same, (INT, FLOAT), False),
    "multiply": (np.multiply, same, (BOOL, INT, FLOAT), False),
    "true_divide": (np.true_divide, inexact, (BOOL, INT, FLOAT), False),
    "floor_divide": (np.floor_divide, numeric, (INT, FLOAT), False),
    "remainder": (np.remainder, numeric, (INT, FLOAT), False),
    "fmod": (np.fmod, numeric, (INT, FLOAT), False),
    "maximum": (np.maximum, same, (BOOL, INT, FLOAT), False),
    "minimum": (np.minimum, same, (BOOL, INT, FLOAT), False),
    "equal": (np.equal, to_bool, (BOOL, INT, FLOAT), False),
    "not_equal": (np.not_equal, to_bool, (BOOL, INT, FLOAT), False),
    "less": (np.less, to_bool, (BOOL, INT, FLOAT), False),
    "less_equal": (np.less_equal, to_bool, (BOOL, INT, FLOAT), False),
    "greater": (np.greater, to_bool, (BOOL, INT, FLOAT), False),
    "greater_equal": (np.greater_equal, to_bool, (BOOL, INT, FLOAT), False),
    "logical_and": (np.logical_and, to_bool, (BOOL, INT, FLOAT), False),
    "logical_or": (np.logical_or, to_bool, (BOOL, INT, FLOAT), False),
    "logical_xor": (np.logical_xor, to_bool, (BOOL, INT, FLOAT), False),
    "bitwise_and": (np.bitwise_and, same, (BOOL, INT), False),
    "bitwise_or": (np.bitwise_or, same, (BOOL, INT), False),
    "bitwise_xor": (np.bitwise_xor, same, (BOOL, INT), False),
    "arctan2": (np.arctan2, inexact, (BOOL, INT, FLOAT), True),
    "hypot": (np.hypot, inexact, (BOOL, INT, FLOAT), True),
    "power": (np.power, numeric, (BOOL, INT, FLOAT), True),
    "float_power": (np.power, inexact, (BOOL, INT, FLOAT), True),
    "logaddexp": (np.logaddexp, inexact, (BOOL, INT, FLOAT), True),
}


@pytest.mark.parametrize("name", BINARY)
@given(data=st.data())
def test_binary(name, data):
    np_fn, dtype_rule, accepted, transcendental = BINARY[name]
    x, y = data.draw(two_arrays(accepted))
    dtype = dtype_rule(x.dtype, y.dtype)
    if dtype == INT and name in ("floor_divide", "remainder", "fmod"):
        assume(not np.any(y == 0))  # NumPy warns and gives 0; XLA has its own answers
    if dtype == INT and name == "power":
        assume(np.all(y >= 0))  # NumPy refuses negative integer powers
    if dtype == BOOL and name == "subtract":
        return
    with np.errstate(all="ignore"):
        if transcendental and dtype == FLOAT:
            expected = np_fn(x.astype(np.float64), y.astype(np.float64))
        else:
            compute = dtype if dtype != BOOL else promote(x.dtype, y.dtype)
            expected = np_fn(x.astype(compute), y.astype(compute))
    rtol = 1e-5 if transcendental and dtype == FLOAT else 0.0
    _check(getattr(jnp, name)(x, y), expected, dtype, rtol=rtol)


@given(two_arrays((INT,)), st.integers(0, 31))
def test_shifts(xy, shift):
    x, _ = xy
    _check(jnp.left_shift(x, shift), np.left_shift(x, shift), INT)
    _check(jnp.right_shift(x, shift), np.right_shift(x, shift), INT)


@given(data=st.data())
def test_where(data):
    x, y = data.draw(two_arrays())
    condition = data.draw(arrays(BOOL, np.broadcast_shapes(x.shape, y.shape)))
    _check(jnp.where(condition, x, y), np.where(condition, x, y), promote(x.dtype, y.dtype))


@given(array_of((INT, FLOAT)), st.integers(-5, 5), st.integers(-5, 5))
def test_clip(x, lo, hi):
    _check(jnp.clip(x, lo, hi), np.minimum(np.maximum(x, lo), hi), x.dtype)


# ---------------------------------------------------------------- reductions
@st.composite
def axis_for(draw, ndim: int, allow_tuple: bool = True):
    if ndim == 0 or draw(st.booleans()):
        return None
    if allow_tuple and draw(st.booleans()):
        axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
        return tuple(axes)
    return draw(st.integers(-ndim, ndim - 1))


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    return INT if dtype == BOOL else dtype


REDUCTIONS: dict[str, tuple[Callable, Callable, bool]] = {
    # name: (NumPy reference(x, axis, keepdims, dtype), dtype rule, needs non-empty axes)
    "sum": (lambda x, a, k, d: np.sum(x.astype(d), axis=a, keepdims=k), _sum_dtype, False),
    "prod": (lambda x, a, k, d: np.prod(x.astype(d), axis=a, keepdims=k), _sum_dtype, False),
    "max": (lambda x, a, k, d: np.max(x, axis=a, keepdims=k), same, True),
    "min": (lambda x, a, k, d: np.min(x, axis=a, keepdims=k), same, True),
    "mean": (lambda x, a, k, d: np.mean(x.astype(np.float64), axis=a, keepdims=k), inexact,
             False),
    "var": (lambda x, a, k, d: np.var(x.astype(np.float64), axis=a, keepdims=k), inexact,
            False),
    "std": (lambda x, a, k, d: np.std(x.astype(np.float64), axis=a, keepdims=k), inexact,
            False),
    "any": (lambda x, a, k, d: np.any(x, axis=a, keepdims=k), to_bool, False),
    "all": (lambda x, a, k, d: np.all(x, axis=a, keepdims=k), to_bool, False),
    "ptp": (lambda x, a, k, d: np.ptp(x, axis=a, keepdims=k), same, True),
}


@pytest.mark.parametrize("name", REDUCTIONS)
@given(data=st.data())
def test_reduction(name, data):
    np_fn, dtype_rule, needs_elements = REDUCTIONS[name]
    x = data.draw(array_of((INT, FLOAT) if name == "ptp" else tuple(DTYPES)))
    axis = data.draw(axis_for(x.ndim))
    keepdims = data.draw(st.booleans())
    axes = range(x.ndim) if axis is None else np.atleast_1d(axis)
    if needs_elements:
        assume(all(x.shape[a] > 0 for a in axes))
    dtype = dtype_rule(x.dtype)
    with np.errstate(all="ignore"):
        expected = np_fn(x, axis, keepdims, dtype)
    rtol = 1e-5 if dtype == FLOAT else 0.0
    _check(getattr(jnp, name)(x, axis=axis, keepdims=keepdims), expected, dtype, rtol=rtol)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@given(data=st.data())
def test_arg_reduction(name, data):
    x = data.draw(array_of())
    axis = data.draw(axis_for(x.ndim, allow_tuple=False))
    assume(x.size > 0 if axis is None else x.shape[axis] > 0)
    _check(getattr(jnp, name)(x, axis=axis), getattr(np, name)(x, axis=axis), INT)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@given(data=st.data())
def test_cumulative(name, data):
    x = data.draw(array_of())
    axis = data.draw(axis_for(x.ndim, allow_tuple=False))
    dtype = _sum_dtype(x.dtype)
    expected = getattr(np, name)(x.astype(dtype), axis=axis)
    _check(getattr(jnp, name)(x, axis=axis), expected, dtype,
           rtol=1e-5 if dtype == FLOAT else 0.0)


# ---------------------------------------------------------------- shape functions
@st.composite
def shaped(draw):
    """An array and one of its axes (or None for a 0-d array)."""
    x = draw(array_of())
    axis = draw(st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    return x, axis


def _same_dtype_check(got, expected: np.ndarray) -> None:
    _check(got, expected, expected.dtype)


@given(shaped())
def test_reshape_and_ravel(x_axis):
    x, _ = x_axis
    _same_dtype_check(jnp.reshape(x, x.shape[::-1]), np.reshape(x, x.shape[::-1]))
    _same_dtype_check(jnp.reshape(x, (-1,)), np.reshape(x, (-1,)))
    _same_dtype_check(jnp.reshape(x, x.shape[::-1], order="F"),
                      np.reshape(x, x.shape[::-1], order="F"))
    _same_dtype_check(jnp.ravel(x), np.ravel(x))


@given(shaped(), st.randoms())
def test_transpose_swapaxes_moveaxis(x_axis, random):
    x, axis = x_axis
    perm = list(range(x.ndim))
    random.shuffle(perm)
    _same_dtype_check(jnp.transpose(x, perm), np.transpose(x, perm))
    _same_dtype_check(jnp.transpose(x), np.transpose(x))
    if x.ndim:
        other = random.randrange(-x.ndim, x.ndim)
        _same_dtype_check(jnp.swapaxes(x, axis, other), np.swapaxes(x, axis, other))
        _same_dtype_check(jnp.moveaxis(x, axis, other), np.moveaxis(x, axis, other))


@given(shaped(), st.integers(-3, 3))
def test_flip_roll(x_axis, shift):
    x, axis = x_axis
    _same_dtype_check(jnp.flip(x, axis), np.flip(x, axis))
    _same_dtype_check(jnp.roll(x, shift, axis), np.roll(x, shift, axis))


@given(shaped())
def test_expand_dims_and_squeeze(x_axis):
    x, _ = x_axis
    for axis in range(-x.ndim - 1, x.ndim + 1):
        expanded = np.expand_dims(x, axis)
        _same_dtype_check(jnp.expand_dims(x, axis), expanded)
        _same_dtype_check(jnp.squeeze(expanded, axis), x)
    _same_dtype_check(jnp.squeeze(x), np.squeeze(x))


@given(shaped(), st.integers(0, 2))
def test_concatenate_stack_tile_repeat(x_axis, n):
    x, axis = x_axis
    if axis is not None:
        _same_dtype_check(jnp.concatenate([x, x], axis), np.concatenate([x, x], axis))
        _same_dtype_check(jnp.repeat(x, n, axis), np.repeat(x, n, axis))
    _same_dtype_check(jnp.concatenate([x, x], axis=None), np.concatenate([x, x], axis=None))
    stack_axis = 0 if axis is None else axis
    _same_dtype_check(jnp.stack([x, x], stack_axis), np.stack([x, x], stack_axis))
    _same_dtype_check(jnp.tile(x, n), np.tile(x, n))
    _same_dtype_check(jnp.tile(x, (n, 1)), np.tile(x, (n, 1)))
    _same_dtype_check(jnp.repeat(x, n), np.repeat(x, n))


@given(shaped())
def test_broadcast_to(x_axis):
    x, _ = x_axis
    shape = (2,) + x.shape
    _same_dtype_check(jnp.broadcast_to(x, shape), np.broadcast_to(x, shape))


@given(shaped(), st.integers(-3, 3))
def test_triangles_and_diagonals(x_axis, k):
    x, _ = x_axis
    assume(x.ndim >= 2)
    _same_dtype_check(jnp.triu(x, k), np.triu(x, k))
    _same_dtype_check(jnp.tril(x, k), np.tril(x, k))
    _same_dtype_check(jnp.diagonal(x, k), np.diagonal(x, k))


@given(shaped(), st.integers(1, 3))
def test_array_split(x_axis, sections):
    x, axis = x_axis
    assume(x.ndim > 0)
    got, expected = jnp.array_split(x, sections, axis), np.array_split(x, sections, axis)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        _same_dtype_check(g, e)


@given(two_arrays((INT, FLOAT)))
def test_matmul_like(xy):
    x, y = xy
    assume(x.ndim >= 1 and y.ndim >= 1)
    a = np.ones(x.shape + (3,), x.dtype)
    b = np.ones((3,) + y.shape, y.dtype)
    dtype = promote(x.dtype, y.dtype)
    _check(jnp.tensordot(a, b, 1), np.tensordot(a, b, 1), dtype)
    _check(jnp.outer(x, y), np.outer(x, y), dtype)
