"""Reductions: sum, prod, mean, var, std, max, min, argmax, any, all, cumsum...

All of them share ``_reduction``: check the argument, pick the dtype (bool and
small integers are summed as int32), normalize ``axis``, call one lax
reduction, and put back size-1 dimensions when ``keepdims=True``.
"""
from __future__ import annotations

import builtins
from typing import Any, Callable

import numpy as np

from edujax import dtypes, lax
from edujax.numpy.util import asarray, canonicalize_axis, check_arraylike


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    out = tuple(canonicalize_axis(a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return out


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    """Bool and integers narrower than the default int are summed in the default int."""
    if dtype == dtypes.bool_:
        return dtypes.int_dtype()
    if dtype.kind == "i" and dtype.itemsize < dtypes.int_dtype().itemsize:
        return dtypes.int_dtype()
    if dtype.kind == "u" and dtype.itemsize < dtypes.int_dtype().itemsize:
        return dtypes.canonicalize_dtype(np.uint64)
    return dtype


def _reduction(name: str, lax_reduce: Callable, identity: Any, a: Any, axis: Any,
               dtype: Any, keepdims: bool, initial: Any, where: Any,
               pick_dtype: Callable[[np.dtype], np.dtype] = lambda d: d) -> Any:
    check_arraylike(name, a)
    a = asarray(a)
    out_dtype = (dtypes.canonicalize_dtype(dtype) if dtype is not None
                 else pick_dtype(a.dtype))
    a = lax.convert_element_type(a, out_dtype)
    axes = _axes(axis, a.ndim)
    if where is not None:
        if identity is None:
            raise ValueError(f"reduction operation {name} does not have an identity, so to use "
                             "a where mask one has to specify 'initial'")
        a = lax.select(_broadcast(asarray(where), a.shape), a, lax.full_like(a, identity))
    if identity is None and initial is None and builtins.any(a.shape[i] == 0 for i in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    out = lax_reduce(a, axes)
    if initial is not None:
        out = _combine_initial(name, out, initial)
    if keepdims:
        out = lax.expand_dims(out, axes)
    return out


def _broadcast(x: Any, shape: tuple[int, ...]) -> Any:
    from edujax.numpy.shape_ops import broadcast_to
    return broadcast_to(x, shape)


def _combine_initial(name: str, out: Any, initial: Any) -> Any:
    init = lax._convert_element_type(initial, out.dtype, False)
    combine = {"sum": lax.add, "prod": lax.mul, "max": lax.max, "min": lax.min}[name]
    return combine(out, init)


def sum(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
    """Sum of elements over ``axis`` (all axes by default)."""
    return _reduction("sum", lax.reduce_sum, 0, a, axis, dtype, keepdims, initial, where,
                      _sum_dtype if promote_integers else (lambda d: d))


def prod(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         initial: Any = None, where: Any = None, promote_integers: bool = True) -> Any:
    return _reduction("prod", lax.reduce_prod, 1, a, axis, dtype, keepdims, initial, where,
                      _sum_dtype if promote_integers else (lambda d: d))


def max(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None) -> Any:
    identity = None if initial is None else initial
    return _reduction("max", lax.reduce_max, identity, a, axis, None, keepdims, initial, where)


def min(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
        initial: Any = None, where: Any = None) -> Any:
    identity = None if initial is None else initial
    return _reduction("min", lax.reduce_min, identity, a, axis, None, keepdims, initial, where)


amax, amin = max, min


def _as_bool(a: Any) -> Any:
    a = asarray(a)
    return a if a.dtype == dtypes.bool_ else lax.ne(a, lax.full_like(a, 0))


def all(a: Any, axis: Any = None, out: None = None, keepdims: bool = False, *,
        where: Any = None) -> Any:
    check_arraylike("all", a)
    return _reduction("all", lax.reduce_and, True, _as_bool(a), axis, None, keepdims, None,
                      where)


def any(a: Any, axis: Any = None, out: None = None, keepdims: bool = False, *,
        where: Any = None) -> Any:
    check_arraylike("any", a)
    return _reduction("any", lax.reduce_or, False, _as_bool(a), axis, None, keepdims, None,
                      where)


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    return int(np.prod([shape[i] for i in axes], dtype=np.int64))


def _inexact(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind in "fc" else dtypes.float_dtype()


def mean(a: Any, axis: Any = None, dtype: Any = None, out: None = None, keepdims: bool = False,
         *, where: Any = None) -> Any:
    """Sum divided by the number of elements summed."""
    check_arraylike("mean", a)
    a = asarray(a)
    dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else _inexact(a.dtype)
    axes = _axes(axis, a.ndim)
    if where is None:
        count = lax._convert_element_type(_count(a.shape, axes), dtype, False)
    else:
        count = sum(_broadcast(asarray(where), a.shape), axis, dtype=dtype, keepdims=keepdims)
    total = sum(a, axis, dtype=dtype, keepdims=keepdims, where=where)
    return lax.div(total, count)


def var(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, correction: Any = None) -> Any:
    """Mean squared distance from the mean; ``ddof=1`` gives the sample variance."""
    check_arraylike("var", a)
    a = asarray(a)
    ddof = ddof if correction is None else correction
    dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else _inexact(a.dtype)
    a = lax.convert_element_type(a, dtype)
    centered = lax.sub(a, mean(a, axis, dtype=dtype, keepdims=True, where=where))
    centered = lax.square(centered)
    axes = _axes(axis, a.ndim)
    normalizer = lax.sub(lax._convert_element_type(_count(a.shape, axes), dtype, False),
                         lax._convert_element_type(ddof, dtype, False))
    result = lax.div(sum(centered, axis, dtype=dtype, keepdims=keepdims, where=where),
                     normalizer)
    return lax.select(lax.gt(normalizer, lax._convert_element_type(0, dtype, False)), result,
                      lax.full_like(result, np.nan))


def std(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: Any = None, correction: Any = None) -> Any:
    return lax.sqrt(var(a, axis, dtype, None, ddof, keepdims, where=where, correction=correction))


def _arg_reduction(name: str, lax_fn: Callable, a: Any, axis: Any, keepdims: bool) -> Any:
    check_arraylike(name, a)
    a = asarray(a)
    if axis is None:
        flat = lax.reshape(a, (a.size,))
        out = lax_fn(flat, 0, dtypes.int_dtype())
        return lax.expand_dims(out, tuple(range(a.ndim))) if keepdims else out
    axis = canonicalize_axis(axis, a.ndim)
    if a.shape[axis] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    out = lax_fn(a, axis, dtypes.int_dtype())
    return lax.expand_dims(out, (axis,)) if keepdims else out


def argmax(a: Any, axis: int | None = None, out: None = None, keepdims: bool | None = None) -> Any:
    """Index of the largest element (the first one, on ties)."""
    return _arg_reduction("argmax", lax.argmax, a, axis, bool(keepdims))


def argmin(a: Any, axis: int | None = None, out: None = None, keepdims: bool | None = None) -> Any:
    return _arg_reduction("argmin", lax.argmin, a, axis, bool(keepdims))


def _cumulative(name: str, lax_fn: Callable, promote: bool) -> Callable:
    def fn(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
        check_arraylike(name, a)
        a = asarray(a)
        if axis is None:
            a, axis = lax.reshape(a, (a.size,)), 0
        axis = canonicalize_axis(axis, a.ndim)
        target = (dtypes.canonicalize_dtype(dtype) if dtype is not None
                  else (_sum_dtype(a.dtype) if promote else a.dtype))
        return lax_fn(lax.convert_element_type(a, target), axis)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}`` along ``axis`` (the flattened array if axis is None)."
    return fn


cumsum = cumulative_sum = _cumulative("cumsum", lax.cumsum, True)
cumprod = cumulative_prod = _cumulative("cumprod", lax.cumprod, True)


def count_nonzero(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return sum(lax.ne(asarray(a), lax.full_like(asarray(a), 0)), axis, dtype=dtypes.int_dtype(),
               keepdims=keepdims)


def ptp(a: Any, axis: Any = None, out: None = None, keepdims: bool = False) -> Any:
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False,
            keepdims: bool = False) -> Any:
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        count = lax.full_like(avg, asarray(a).size // builtins.max(avg.size, 1))
        return (avg, count) if returned else avg
    from edujax.numpy.ufuncs import multiply
    wsum = sum(lax.convert_element_type(_broadcast(asarray(weights), np.shape(a)),
                                        _inexact(asarray(a).dtype)), axis, keepdims=keepdims)
    avg = lax.div(sum(multiply(a, weights), axis, keepdims=keepdims), wsum)
    return (avg, wsum) if returned else avg

