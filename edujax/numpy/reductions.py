"""Reductions: sum, prod, max, min, any, all, mean, var, std, argmax, cumsum...

Every plain reduction goes through ``_reduction``, which follows JAX step by step:

1. check the argument and ``where``; apply a preprocessing step (``sum`` turns
   bools into int32, ``any`` turns numbers into bools);
2. pick the result dtype (the input's, an explicit ``dtype=``, or int32 for
   small integers under ``promote_integers``) and convert the input to it.
   This conversion is what makes ``jnp.sum(2.0)`` *not* weakly typed;
3. mask with ``where`` (masked elements become the operation's identity);
4. one lax reduction (``reduce_sum``, ``reduce_max``...), then ``initial`` and
   ``keepdims`` are applied to its result.

mean, var and std are built from ``sum``; argmax and argmin use their own primitives.
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Any, Callable, NamedTuple

import numpy as np

from edujax import dtypes, lax
from edujax.inner_jit import inner_jit
from edujax.numpy.util import (asarray, canonicalize_axis, check_arraylike, ensure_arraylike,
                               promote_dtypes_inexact)
from edujax.numpy.util import promote_dtypes_numeric as _promote_dtypes_numeric
from edujax.numpy.shape_ops import expand_dims
from edujax.numpy.ufuncs import _constant_like, _where, isclose
from edujax.numpy.util import broadcast_to


class _Monoid(NamedTuple):
    """How a reduction combines two values, and the lax reduction that folds a whole axis.
    ``on_bool`` is used instead when the computation happens in bools."""
    combine: Callable
    reduce: Callable
    on_bool: _Monoid | None = None


_OR = _Monoid(lax.bitwise_or, lax.reduce_or)
_AND = _Monoid(lax.bitwise_and, lax.reduce_and)
_SUM = _Monoid(lax.add, lax.reduce_sum, _OR)
_PROD = _Monoid(lax.mul, lax.reduce_prod, _AND)
_MAX = _Monoid(lax.max, lax.reduce_max)
_MIN = _Monoid(lax.min, lax.reduce_min)


def _ensure_array(name: str, a: Any) -> Any:
    """Check ``a`` and make it an array (a Python scalar stays one: lax accepts it)."""
    return ensure_arraylike(name, a)[0]


def _dtype(x: Any) -> np.dtype:
    return dtypes.dtype_and_weak(x)[0]


def _canonical_user_dtype(dtype: Any) -> np.dtype:
    return dtypes.canonicalize_dtype(dtype)


def _reduction_axes(a: Any, axis: Any) -> tuple[int, ...]:
    """The reduced axes, as non-negative ints (None means all of them)."""
    ndim = np.ndim(a)
    if axis is None:
        return tuple(range(ndim))
    axes = tuple(axis) if isinstance(axis, (tuple, list, np.ndarray)) else (axis,)
    canonical = tuple(canonicalize_axis(operator.index(ax), ndim) for ax in axes)
    if len(set(canonical)) != len(canonical):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return canonical


def _promote_integer_dtype(dtype: np.dtype) -> np.dtype:
    """Bools and integers narrower than the default int are summed in the default
    int (int32, or uint32 for unsigned). NB: NumPy always goes to 64 bits."""
    if dtype == dtypes.bool_:
        return dtypes.int_dtype()
    if dtype.kind == "u":
        default_uint = dtypes.canonicalize_dtype(np.uint64)
        return default_uint if dtype.itemsize < default_uint.itemsize else dtype
    if dtype.kind == "i" and dtype.itemsize < dtypes.int_dtype().itemsize:
        return dtypes.int_dtype()
    return dtype


def _upcast_f16(dtype: np.dtype) -> np.dtype:
    """float16 sums are accumulated in float32, then rounded back."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _init_value(dtype: np.dtype, value: float) -> Any:
    """The identity ``value`` (0, 1, -inf, ...) as a scalar of ``dtype``; an infinity
    becomes the integer dtype's lowest or highest value."""
    if dtype == dtypes.bool_:
        return np.bool_(value > 0)
    if dtype.kind in "iu" and np.isinf(value):
        info = np.iinfo(dtype)
        return np.asarray(info.min if value < 0 else info.max, dtype)[()]
    return np.asarray(value, dtype)[()]


def _check_where(name: str, where: Any) -> Any:
    if where is None:
        return None
    check_arraylike(name, where)
    if _dtype(where) != dtypes.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                         f"where.dtype={_dtype(where)!r}.")
    return where


def _reduction(a: Any, name: str, monoid: _Monoid, init_value: float, *,
               has_identity: bool = True, preproc: Callable | None = None,
               upcast_f16: bool = False, axis: Any = None, dtype: Any = None,
               keepdims: bool = False, initial: Any = None, where: Any = None,
               promote_integers: bool = False) -> Any:
    """The common recipe of sum, prod, max, min, any and all (see the module docstring)."""
    a = _ensure_array(name, a)
    where = _check_where(name, where)
    if initial is None and not has_identity and where is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                         "where mask one has to specify 'initial'")
    a = preproc(a) if preproc else a
    axes = _reduction_axes(a, axis)
    if initial is None and not has_identity and builtins.any(np.shape(a)[i] == 0 for i in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")

    if dtype is None:
        result_dtype = _dtype(a)
        result_dtype = _promote_integer_dtype(result_dtype) if promote_integers else result_dtype
    else:
        result_dtype = _canonical_user_dtype(dtype)
    computation_dtype = _upcast_f16(result_dtype) if upcast_f16 else result_dtype
    a = lax.convert_element_type(a, computation_dtype)
    if computation_dtype == dtypes.bool_ and monoid.on_bool is not None:
        monoid = monoid.on_bool  # a sum of bools is their "or", a product their "and"

    if where is not None:
        a = _where(where, a, _init_value(computation_dtype, init_value))
    result = monoid.reduce(a, axes)
    if initial is not None:
        initial = lax.convert_element_type(initial, computation_dtype)
        if np.shape(initial) != ():
            raise ValueError(f"initial value must be a scalar. Got array of shape "
                             f"{np.shape(initial)}")
        result = monoid.combine(initial, result)
    if keepdims:
        result = lax.expand_dims(result, axes)
    return lax.convert_element_type(result, result_dtype)


def _cast_to_numeric(a: Any) -> Any:
    """Sums and products count True as 1: bools become int32."""
    return _promote_dtypes_numeric(a)[0]


def _cast_to_bool(a: Any) -> Any:
    return lax.convert_element_type(a, dtypes.bool_)


def sum(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
    """Sum of the elements over ``axis`` (all axes by default).

    Integers narrower than int32 (and bools) are summed as int32, which wraps
    around on overflow like C, not like Python.
    """
    return _reduction(a, "sum", _SUM, 0, preproc=_cast_to_numeric,
                      upcast_f16=dtype is None, axis=axis, dtype=dtype, keepdims=keepdims,
                      initial=initial, where=where, promote_integers=promote_integers)


def prod(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
    """Product of the elements over ``axis`` (all axes by default)."""
    return _reduction(a, "prod", _PROD, 1, preproc=_cast_to_numeric,
                      upcast_f16=dtype is None, axis=axis, dtype=dtype, keepdims=keepdims,
                      initial=initial, where=where, promote_integers=promote_integers)


def max(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None) -> Any:
    """Largest element over ``axis``. It has no identity: an empty axis is an error
    unless ``initial`` is given."""
    return _reduction(a, "max", _MAX, -np.inf, has_identity=False, axis=axis,
                      keepdims=keepdims, initial=initial, where=where)


def min(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None) -> Any:
    """Smallest element over ``axis`` (see ``max``)."""
    return _reduction(a, "min", _MIN, np.inf, has_identity=False, axis=axis,
                      keepdims=keepdims, initial=initial, where=where)


amax, amin = max, min


def all(a: Any, axis: Any = None, out: None = None, keepdims: bool = False, *,
        where: Any = None) -> Any:
    """True if every element (converted to bool) is true."""
    return _reduction(a, "all", _AND, True, preproc=_cast_to_bool, axis=axis,
                      keepdims=keepdims, where=where)


def any(a: Any, axis: Any = None, out: None = None, keepdims: bool = False, *,
        where: Any = None) -> Any:
    """True if some element (converted to bool) is true."""
    return _reduction(a, "any", _OR, False, preproc=_cast_to_bool, axis=axis,
                      keepdims=keepdims, where=where)


# ---------------------------------------------------------------- mean, var, std
def _axis_size(a: Any, axis: Any) -> int:
    """How many elements a reduction over ``axis`` combines.

    NB: like JAX this indexes the shape before checking the axis, so an axis out of
    range raises IndexError here, not the ValueError of the other reductions.
    """
    shape = np.shape(a)
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    return math.prod(shape[ax] for ax in axes)


def _count(a: Any, axis: Any, keepdims: bool, where: Any, dtype: np.dtype) -> Any:
    """The divisor of mean and var: the number of elements, or of True ``where`` entries."""
    if where is None:
        return lax.convert_element_type(_axis_size(a, axis), dtype)
    return sum(_broadcast_to(where, np.shape(a)), axis, dtype=dtype, keepdims=keepdims)


def _broadcast_to(x: Any, shape: tuple[int, ...]) -> Any:
    return broadcast_to(x, shape)


def _to_inexact(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind in "fc" else dtypes.float_dtype()


def mean(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         *, where: Any = None) -> Any:
    """Sum divided by the number of elements summed. Integers give a float mean."""
    a = _ensure_array("mean", a)
    where = _check_where("mean", where)
    result_dtype = _to_inexact(_dtype(a)) if dtype is None else _canonical_user_dtype(dtype)
    computation_dtype = _upcast_f16(result_dtype) if dtype is None else result_dtype
    normalizer = _count(a, axis, keepdims, where, computation_dtype)
    total = sum(a, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    return lax.convert_element_type(lax.div(total, normalizer), result_dtype)


def var(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, mean: Any = None,
        correction: Any = None) -> Any:
    """Mean squared distance from the mean; ``ddof=1`` (or ``correction=1``) divides by
    n - 1 instead of n, giving the unbiased sample variance. Too few elements give NaN."""
    correction = _correction(ddof, correction)
    a = _ensure_array("var", a)
    return _var(a, axis=_axes_hashable(axis), dtype=dtype, out=out, correction=correction,
                keepdims=keepdims, where=where, a_mean=mean)


def _axes_hashable(axis: Any) -> Any:
    """A list of axes becomes a tuple: the inner jit's static arguments must be hashable."""
    return tuple(axis) if isinstance(axis, list) else axis


def _correction(ddof: Any, correction: Any) -> Any:
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


@inner_jit(static_argnames=("axis", "dtype", "keepdims"))
def _var(a: Any, *, axis: Any = None, dtype: Any = None, out: None = None, correction: Any = 0,
         keepdims: bool = False, where: Any = None, a_mean: Any = None) -> Any:
    where = _check_where("var", where)
    computation_dtype, dtype = _var_promote_types(
        _dtype(a), None if dtype is None else _canonical_user_dtype(dtype))
    a = lax.convert_element_type(a, computation_dtype)
    if a_mean is None:
        a_mean = mean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
    else:
        a_mean = lax.convert_element_type(_ensure_array("var", a_mean), computation_dtype)
    centered = lax.sub(a, a_mean)
    if computation_dtype.kind == "c":  # |a - mean|**2, a real number
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        computation_dtype = _dtype(centered)
    else:
        centered = lax.square(centered)
    normalizer = _count(a, axis, keepdims, where, computation_dtype)
    normalizer = lax.sub(normalizer, lax.convert_element_type(correction, computation_dtype))
    result = sum(centered, axis, dtype=computation_dtype, keepdims=keepdims, where=where)
    result = lax.convert_element_type(lax.div(result, normalizer), dtype)
    # NB: as in JAX, NaN is a weak float: an int32 ``dtype=`` gives a weak float32 here.
    return _where(normalizer > 0, result, np.nan)


def _var_promote_types(a_dtype: np.dtype, dtype: np.dtype | None) -> tuple[np.dtype, np.dtype]:
    """(the dtype to compute in, the dtype of the result)."""
    if dtype is not None:
        return _upcast_f16(dtype), dtype
    if a_dtype.kind not in "fc":
        dtype = _to_inexact(a_dtype)
        return _upcast_f16(dtype), dtype
    return _upcast_f16(a_dtype), np.abs(np.zeros((), a_dtype)).dtype  # complex -> its float


def std(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, mean: Any = None,
        correction: Any = None) -> Any:
    """The square root of ``var``."""
    correction = _correction(ddof, correction)
    a = _ensure_array("std", a)
    return _std(a, axis=_axes_hashable(axis), dtype=dtype, out=out, correction=correction,
                keepdims=keepdims, where=where, mean=mean)


@inner_jit(static_argnames=("axis", "dtype", "keepdims"))
def _std(a: Any, *, axis: Any = None, dtype: Any = None, out: None = None, correction: Any = 0,
         keepdims: bool = False, where: Any = None, mean: Any = None) -> Any:
    if dtype is not None:
        dtype = _canonical_user_dtype(dtype)
        if dtype.kind not in "fc":
            raise ValueError(f"dtype argument to jnp.std must be inexact; got {dtype}")
    return lax.sqrt(var(a, axis=axis, dtype=dtype, correction=correction, keepdims=keepdims,
                        where=where, mean=mean))


def ptp(a: Any, axis: Any = None, out: None = None, keepdims: bool = False) -> Any:
    """Peak to peak: ``max - min``."""
    a = _ensure_array("ptp", a)
    return _ptp(a, _axes_hashable(axis), out, keepdims)


@inner_jit(static_argnames=("axis", "keepdims"))
def _ptp(a: Any, axis: Any = None, out: None = None, keepdims: bool = False) -> Any:
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


@inner_jit(static_argnames=("axis", "keepdims"))
def count_nonzero(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    a = _ensure_array("count_nonzero", a)
    return sum(lax.ne(a, _constant_like(a, 0)), axis, dtype=dtypes.int_dtype(),
               keepdims=keepdims)


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False,
            keepdims: bool = False) -> Any:
    """The mean, or with ``weights`` the weighted mean ``sum(a * w) / sum(w)``.

    ``weights`` has a's shape, or is 1-D along a single ``axis``. With
    ``returned=True`` the sum of the weights comes back too.
    """
    axes = _reduction_axes(a, axis) if axis is not None else None
    if weights is None:
        check_arraylike("average", a)
        a, = promote_dtypes_inexact(asarray(a))
        avg = mean(a, axis=axis, keepdims=keepdims)
        count = _axis_size(a, axis if axes is None else axes)
        weights_sum = lax.full((), count, dtype=_dtype(avg))
    else:
        check_arraylike("average", a, weights)
        a, weights = promote_dtypes_inexact(asarray(a), asarray(weights))
        weights = _align_weights(a, weights, axes)
        weights_sum = sum(weights, axis=axis, keepdims=keepdims)
        avg = lax.div(sum(a * weights, axis=axis, keepdims=keepdims), weights_sum)
    if returned:
        if np.shape(avg) != np.shape(weights_sum):
            weights_sum = _broadcast_to(weights_sum, np.shape(avg))
        return avg, weights_sum
    return avg


def _align_weights(a: Any, weights: Any, axes: tuple[int, ...] | None) -> Any:
    """1-D weights along ``axis`` are reshaped so that they broadcast against ``a``."""
    if np.shape(a) == np.shape(weights):
        return weights
    if axes is None:
        raise ValueError("Axis must be specified when shapes of a and weights differ.")
    if np.shape(weights) != tuple(np.shape(a)[ax] for ax in axes):
        raise ValueError("Shape of weights must be consistent with shape of a along "
                         "specified axis.")
    new_shape = tuple(d if i in axes else 1 for i, d in enumerate(np.shape(a)))
    return lax.reshape(weights, new_shape, tuple(int(i) for i in np.argsort(axes)))


# ---------------------------------------------------------------- argmax, argmin
def _arg_reduction(name: str, lax_fn: Callable, a: Any, axis: Any, keepdims: Any) -> Any:
    """The index of the extreme value; the first one on ties. NaN counts as extreme."""
    a = _ensure_array(name, a)
    axis = None if axis is None else operator.index(axis)
    keepdims = bool(keepdims)
    if axis is None:
        dims = list(range(np.ndim(a)))
        a, axis = lax.reshape(a, (int(np.size(a)),)), 0
    else:
        dims = [axis]
    if np.shape(a)[axis] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    result = lax_fn(a, canonicalize_axis(axis, np.ndim(a)), dtypes.int_dtype())
    if keepdims:
        return expand_dims(result, dims)
    return result


def argmax(a: Any, axis: int | None = None, out: None = None, keepdims: bool | None = None) -> Any:
    """Index of the largest element (the first one on ties; a NaN wins)."""
    return _arg_reduction("argmax", lax.argmax, a, axis, keepdims)


def argmin(a: Any, axis: int | None = None, out: None = None, keepdims: bool | None = None) -> Any:
    """Index of the smallest element (the first one on ties; a NaN wins)."""
    return _arg_reduction("argmin", lax.argmin, a, axis, keepdims)


# ---------------------------------------------------------------- cumulative reductions
def _cumulative_reduction(name: str, lax_fn: Callable, a: Any, axis: int | None,
                          dtype: Any, promote_integers: bool = False, fill_nan: bool = False,
                          fill_value: Any = 0) -> Any:
    """Running sums or products along ``axis`` (the flattened array if axis is None).

    Bools are accumulated as int32. An explicit ``dtype=bool`` accumulates in int32
    too (lax has no bool cumsum) and converts back, so it answers "was any so far?".
    ``fill_nan``: NaNs count as ``fill_value`` (nancumsum, nancumprod).
    """
    a = _ensure_array(name, a)
    if axis is None or np.ndim(a) == 0:
        a = lax.reshape(a, (int(np.size(a)),))
    axis = canonicalize_axis(0 if axis is None else axis, np.ndim(a))
    if fill_nan:
        a = _where(lax.ne(a, a), np.asarray(fill_value, _dtype(a))[()], a)
    if dtype is None:
        result_dtype = _dtype(a)
        if promote_integers or result_dtype == dtypes.bool_:
            result_dtype = _promote_integer_dtype(result_dtype)
        computation_dtype = result_dtype
    elif np.dtype(dtype) == dtypes.bool_:
        result_dtype = dtypes.bool_
        if _dtype(a) != dtypes.bool_:
            a = lax.ne(a, np.asarray(0, _dtype(a))[()])
        computation_dtype = _promote_integer_dtype(result_dtype)
    else:
        result_dtype = computation_dtype = _canonical_user_dtype(dtype)
    result = lax_fn(lax.convert_element_type(a, computation_dtype), axis)
    return lax.convert_element_type(result, result_dtype)


@inner_jit(static_argnames=("axis", "dtype"))
def cumsum(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
    """Running sum along ``axis`` (the flattened array if axis is None)."""
    return _cumulative_reduction("cumsum", lax.cumsum, a, axis, dtype)


@inner_jit(static_argnames=("axis", "dtype"))
def cumprod(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
    """Running product along ``axis`` (the flattened array if axis is None)."""
    return _cumulative_reduction("cumprod", lax.cumprod, a, axis, dtype)


def _cumulative_api(name: str, noun: str, lax_fn: Callable, fill: int,
                    promote_integers: bool) -> Callable:
    """The Array API versions: ``axis`` may only be omitted for 1-D input, and
    ``include_initial`` prepends the identity (0 for sums, 1 for products)."""
    def fn(x: Any, /, *, axis: int | None = None, dtype: Any = None,
           include_initial: bool = False) -> Any:
        x = _ensure_array(name, x)
        ndim = np.ndim(x)
        if ndim == 0:
            raise ValueError(f"The input must be non-scalar to take a cumulative {noun}, "
                             "however a scalar value or scalar array was given.")
        if axis is None:
            axis = 0
            if ndim > 1:
                raise ValueError(f"The input array has rank {ndim}, however axis was not set "
                                 "to an explicit value. The axis argument is only optional "
                                 "for one-dimensional arrays.")
        axis = canonicalize_axis(axis, ndim)
        out = _cumulative_reduction(name, lax_fn, x, axis, dtype, promote_integers)
        if include_initial:
            zeros_shape = list(np.shape(x))
            zeros_shape[axis] = 1
            out = lax.concatenate([lax.full(zeros_shape, fill, _dtype(out)), out], axis)
        return out
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Cumulative {noun} along ``axis`` (the Array API's ``{name}``)."
    return fn


cumulative_sum = _cumulative_api("cumulative_sum", "sum", lax.cumsum, 0, True)
cumulative_prod = _cumulative_api("cumulative_prod", "product", lax.cumprod, 1, False)

__all__ = ["sum", "prod", "max", "min", "amax", "amin", "all", "any", "mean", "var", "std",
           "ptp", "count_nonzero", "average", "argmax", "argmin", "cumsum", "cumprod",
           "cumulative_sum", "cumulative_prod"]


@inner_jit(static_argnames=("equal_nan",))
def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08,
             equal_nan: bool = False) -> Any:
    """True if every pair of elements is ``isclose``."""
    check_arraylike("allclose", a, b)
    return all(isclose(a, b, rtol, atol, equal_nan))
