"""The NaN-ignoring reductions: nansum, nanprod, nanmax, nanmin, nanmean, nanvar, nanstd,
nanargmax, nanargmin, nancumsum, nancumprod.

The recipe is JAX's: replace every NaN by the reduction's identity (0 for sums, 1 for
products, -inf for max...) with a ``where``, then call the ordinary reduction. Integer
and bool arrays have no NaNs and go straight to the ordinary reduction. Because the
replacement is a ``where``, the gradient at a NaN position is 0 and grad/vmap need no new
rule. A slice that is *all* NaN has no answer: nanmax/nanmin give NaN there (unless an
``initial`` was given), nanargmax/nanargmin give -1.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from edujax import dtypes, lax
from edujax.numpy import reductions
from edujax.numpy.reductions import _var_promote_types
from edujax.numpy.ufuncs import _isnan, _where
from edujax.numpy.util import check_arraylike, ensure_array


def _dtype(x: Any) -> np.dtype:
    return dtypes.dtype_and_weak(x)[0]


def _is_inexact(x: Any) -> bool:
    return _dtype(x).kind in "fc"


def _identity_like(a: Any, value: float) -> Any:
    """The identity as a scalar of ``a``'s dtype."""
    return np.asarray(value, _dtype(a))[()]


def _nan_reduction(a: Any, name: str, reduction: Callable, identity: float,
                   nan_if_all_nan: bool, **kwargs: Any) -> Any:
    """``reduction`` with NaNs replaced by ``identity`` (see the module docstring)."""
    check_arraylike(name, a)
    if not _is_inexact(a):
        return reduction(a, **kwargs)
    out = reduction(_where(_isnan(a), _identity_like(a, identity), a), **kwargs)
    if nan_if_all_nan:
        all_nan = reductions.all(_isnan(a), axis=kwargs["axis"], keepdims=kwargs["keepdims"])
        return _where(all_nan, _identity_like(a, np.nan), out)
    return out


def nansum(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
           keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:
    """The sum of the elements that are not NaN (0 if there are none)."""
    return _nan_reduction(a, "nansum", reductions.sum, 0, False, axis=axis, dtype=dtype,
                          keepdims=keepdims, initial=initial, where=where)


def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:
    """The product of the elements that are not NaN (1 if there are none)."""
    return _nan_reduction(a, "nanprod", reductions.prod, 1, False, axis=axis, dtype=dtype,
                          keepdims=keepdims, initial=initial, where=where)


def nanmax(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
    """The largest element that is not NaN (NaN for an all-NaN slice)."""
    return _nan_reduction(a, "nanmax", reductions.max, -math.inf, initial is None, axis=axis,
                          keepdims=keepdims, initial=initial, where=where)


def nanmin(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
    """The smallest element that is not NaN (NaN for an all-NaN slice)."""
    return _nan_reduction(a, "nanmin", reductions.min, math.inf, initial is None, axis=axis,
                          keepdims=keepdims, initial=initial, where=where)


def _not_nan_count(a: Any, axis: Any, dtype: Any, keepdims: bool, where: Any) -> Any:
    return reductions.sum(lax.bitwise_not(_isnan(a)), axis=axis, dtype=dtype,
                          keepdims=keepdims, where=where)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, where: Any = None) -> Any:
    """The mean of the elements that are not NaN: their sum over their count."""
    check_arraylike("nanmean", a)
    if _dtype(a).kind in "biu":
        return reductions.mean(a, axis, dtype, keepdims=keepdims, where=where)
    dtype = _dtype(a) if dtype is None else dtypes.canonicalize_dtype(dtype)
    normalizer = _not_nan_count(a, axis, dtype, keepdims, where)
    total = nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where)
    return lax.div(total, normalizer)


def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None) -> Any:
    """The variance of the elements that are not NaN; NaN where fewer than ``ddof + 1``
    remain."""
    a = ensure_array("nanvar", a)
    computation_dtype, dtype = _var_promote_types(
        _dtype(a), None if dtype is None else dtypes.canonicalize_dtype(dtype))
    a = lax.convert_element_type(a, computation_dtype)
    a_mean = nanmean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
    centered = lax.square(_where(_isnan(a), _identity_like(a, 0), lax.sub(a, a_mean)))
    normalizer = _not_nan_count(a, axis, None, keepdims, where) - ddof
    empty = lax.le(normalizer, np.asarray(0, _dtype(normalizer))[()])
    result = reductions.sum(centered, axis, keepdims=keepdims, where=where)
    result = _where(empty, np.nan, result)
    divisor = _where(empty, 1, normalizer)
    result = lax.div(result, lax.convert_element_type(divisor, _dtype(result)))
    return lax.convert_element_type(result, dtype)


def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None) -> Any:
    """The square root of ``nanvar``."""
    check_arraylike("nanstd", a)
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                           where=where))


def _nan_arg_reduction(name: str, arg_fn: Callable, fill: float, a: Any, axis: Any,
                       keepdims: bool | None) -> Any:
    """argmax/argmin with NaNs made to lose; -1 for an all-NaN slice."""
    a = ensure_array(name, a)
    if not _is_inexact(a):
        return arg_fn(a, axis=axis, keepdims=keepdims)
    nan_mask = _isnan(a)
    res = arg_fn(_where(nan_mask, _identity_like(a, fill), a), axis=axis, keepdims=keepdims)
    return _where(reductions.all(nan_mask, axis=axis, keepdims=bool(keepdims)), -1, res)


def nanargmax(a: Any, axis: int | None = None, out: None = None,
              keepdims: bool | None = None) -> Any:
    """The index of the largest element that is not NaN (-1 for an all-NaN slice)."""
    return _nan_arg_reduction("nanargmax", reductions.argmax, -math.inf, a, axis, keepdims)


def nanargmin(a: Any, axis: int | None = None, out: None = None,
              keepdims: bool | None = None) -> Any:
    """The index of the smallest element that is not NaN (-1 for an all-NaN slice)."""
    return _nan_arg_reduction("nanargmin", reductions.argmin, math.inf, a, axis, keepdims)


def _nan_cumulative(name: str, cumulative: Callable, identity: float) -> Callable:
    def fn(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
        check_arraylike(name, a)
        if _is_inexact(a):
            a = _where(_isnan(a), _identity_like(a, identity), a)
        return cumulative(a, axis, dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``{cumulative.__name__}`` with NaNs counted as {identity} (a running "
                  "result that skips them).")
    return fn


nancumsum = _nan_cumulative("nancumsum", reductions.cumsum, 0)
nancumprod = _nan_cumulative("nancumprod", reductions.cumprod, 1)
