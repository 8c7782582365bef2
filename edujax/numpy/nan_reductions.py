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
from edujax.inner_jit import inner_jit
from edujax.numpy.util import ensure_array, ensure_arraylike


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
    a, = ensure_arraylike(name, a)
    if not _is_inexact(a):
        return reduction(a, **kwargs)
    out = reduction(_where(_isnan(a), _identity_like(a, identity), a), **kwargs)
    if nan_if_all_nan:
        all_nan = reductions.all(_isnan(a), axis=kwargs["axis"], keepdims=kwargs["keepdims"])
        return _where(all_nan, _identity_like(a, np.nan), out)
    return out


@inner_jit(static_argnames=("axis", "dtype", "keepdims"))
def nansum(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
           keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:
    """The sum of the elements that are not NaN (0 if there are none)."""
    return _nan_reduction(a, "nansum", reductions.sum, 0, False, axis=axis, dtype=dtype,
                          out=out, keepdims=keepdims, initial=initial, where=where)


@inner_jit(static_argnames=("axis", "dtype", "keepdims"))
def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:
    """The product of the elements that are not NaN (1 if there are none)."""
    return _nan_reduction(a, "nanprod", reductions.prod, 1, False, axis=axis, dtype=dtype,
                          out=out, keepdims=keepdims, initial=initial, where=where)


@inner_jit(static_argnames=("axis", "keepdims"))
def nanmax(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
    """The largest element that is not NaN (NaN for an all-NaN slice)."""
    return _nan_reduction(a, "nanmax", reductions.max, -math.inf, initial is None, axis=axis,
                          out=out, keepdims=keepdims, initial=initial, where=where)


@inner_jit(static_argnames=("axis", "keepdims"))
def nanmin(a: Any, axis: Any = None, out: None = None, keepdims: bool = False,
           initial: Any = None, where: Any = None) -> Any:
    """The smallest element that is not NaN (NaN for an all-NaN slice)."""
    return _nan_reduction(a, "nanmin", reductions.min, math.inf, initial is None, axis=axis,
                          out=out, keepdims=keepdims, initial=initial, where=where)


@inner_jit(static_argnames=("axis", "dtype", "keepdims"))
def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, where: Any = None) -> Any:
    """The mean of the elements that are not NaN: their sum over their count."""
    a, = ensure_arraylike("nanmean", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanmean is not supported.")
    if _dtype(a).kind in "biu":
        return reductions.mean(a, axis, dtype, out, keepdims, where=where)
    dtype = _dtype(a) if dtype is None else dtypes.canonicalize_dtype(dtype)
    normalizer = reductions.sum(lax.bitwise_not(_isnan(a)), axis=axis, dtype=dtype,
                                keepdims=keepdims, where=where)
    return lax.div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), normalizer)


@inner_jit(static_argnames=("axis", "dtype", "keepdims"))
def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None, mean: Any = None) -> Any:
    """The variance of the elements that are not NaN; NaN where fewer than ``ddof + 1``
    remain. ``mean``: the mean, if already known."""
    a, = ensure_arraylike("nanvar", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanvar is not supported.")
    computation_dtype, dtype = _var_promote_types(
        _dtype(a), None if dtype is None else dtypes.canonicalize_dtype(dtype))
    a = lax.asarray(a).astype(computation_dtype)
    if mean is None:
        mean = nanmean(a, axis, dtype=computation_dtype, keepdims=True, where=where)
    else:
        mean = ensure_arraylike("nanvar", mean)[0].astype(computation_dtype)
    centered = _where(_isnan(a), 0, lax.sub(a, mean))  # the double-where trick for gradients
    if _dtype(centered).kind == "c":
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        centered = lax.square(centered)
    normalizer = reductions.sum(lax.bitwise_not(_isnan(a)), axis=axis, keepdims=keepdims,
                                where=where)
    normalizer = normalizer - ddof
    empty = lax.le(normalizer, np.asarray(0, _dtype(normalizer))[()])
    result = reductions.sum(centered, axis, keepdims=keepdims, where=where)
    result = _where(empty, np.nan, result)
    divisor = _where(empty, 1, normalizer)
    result = lax.div(result, lax.convert_element_type(divisor, _dtype(result)))
    return lax.convert_element_type(result, dtype)


@inner_jit(static_argnames=("axis", "dtype", "keepdims"))
def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: None = None, ddof: int = 0,
           keepdims: bool = False, where: Any = None, mean: Any = None) -> Any:
    """The square root of ``nanvar``."""
    a, = ensure_arraylike("nanstd", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanstd is not supported.")
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                           where=where, mean=mean))


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


@inner_jit(static_argnames=("axis", "dtype"))
def nancumsum(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
    """``cumsum`` with NaNs counted as 0 (a running sum that skips them)."""
    return reductions._cumulative_reduction("nancumsum", lax.cumsum, a, axis, dtype,
                                            fill_nan=True, fill_value=0)


@inner_jit(static_argnames=("axis", "dtype"))
def nancumprod(a: Any, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
    """``cumprod`` with NaNs counted as 1 (a running product that skips them)."""
    return reductions._cumulative_reduction("nancumprod", lax.cumprod, a, axis, dtype,
                                            fill_nan=True, fill_value=1)
