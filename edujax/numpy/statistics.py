"""Order statistics and covariances: quantile, percentile, median, their NaN-ignoring
twins, cov and corrcoef.

A quantile is read off the *sorted* data, as JAX does it: sort along the axis, compute the
fractional position ``q * (n - 1)``, gather the two neighbours ``low`` and ``high``, and
combine them according to ``method`` ("linear" interpolates). Sorting has a JVP and a
batching rule in lax, so ``grad(median)`` and ``vmap(quantile)`` work: the gradient flows
to the one or two elements the answer was read from.

The NaN versions push NaNs to the end of the sort and count only the others, so each
slice has its own ``n``. The plain versions give NaN for any slice that holds a NaN.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from edujax import dtypes, lax
from edujax.inner_jit import inner_jit
from edujax.numpy import reductions
from edujax.numpy.complex_numbers import imag, real
from edujax.numpy.creation import array, asarray, full
from edujax.numpy.products import dot
from edujax.numpy.shape_ops import atleast_2d, concatenate, reshape
from edujax.numpy.diagonals import diag
from edujax.numpy.editing import take_along_axis
from edujax.numpy.ufuncs import _isnan, _where, clip, sqrt, true_divide
from edujax.numpy.util import (canonicalize_axis, check_arraylike, ensure_arraylike,
                               promote_args_inexact,
                               promote_dtypes_inexact)

_METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]


def _dtype(x: Any) -> np.dtype:
    return dtypes.dtype_and_weak(x)[0]


def _const(example: Any, value: float) -> Any:
    return np.asarray(value, _dtype(example))[()]


def _merge_reduced_axes(a: Any, axis: tuple[int, ...]) -> tuple[tuple, list[int], list[int]]:
    """Several reduced axes become one, last: (the new shape, the reshape's dimensions, the
    shape for keepdims).

    As JAX does it, with one ``reshape`` whose ``dimensions`` permute the kept axes to the
    front: the permutation is built by swapping each kept axis into place, one by one.
    """
    nd = np.ndim(a)
    axis = tuple(canonicalize_axis(ax, nd) for ax in axis)
    if len(set(axis)) != len(axis):
        raise ValueError("repeated axis")
    keepdim = [1 if i in axis else d for i, d in enumerate(np.shape(a))]
    dimensions = list(range(nd))
    for i, s in enumerate(sorted(set(range(nd)) - set(axis))):
        dimensions[i], dimensions[s] = dimensions[s], dimensions[i]
    kept = tuple(d for i, d in enumerate(np.shape(a)) if i not in axis)
    merged = math.prod(d for i, d in enumerate(np.shape(a)) if i in axis)
    return kept + (merged,), dimensions, keepdim


def _quantile(a: Any, q: Any, axis: Any, method: str, keepdims: bool,
              squash_nans: bool, weights: Any = None) -> Any:
    """The recipe in the module docstring; ``squash_nans`` for the nan* versions."""
    if method not in _METHODS + ["inverted_cdf"]:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         "'nearest' or 'inverted_cdf'")
    if weights is not None:
        a, weights = _promote_weights(a, weights, axis, method)
    else:
        a, = promote_dtypes_inexact(a)
    if _dtype(a).kind == "c":
        raise ValueError("quantile does not support complex input, as the operation is "
                         "poorly defined.")
    keepdim = []
    if axis is None:
        keepdim = [1] * np.ndim(a) if keepdims else []
        a, axis = lax.reshape(a, (int(np.size(a)),)), 0
        if weights is not None:
            weights = lax.reshape(weights, (int(np.size(weights)),))
    elif isinstance(axis, tuple):
        shape, dimensions, keepdim = _merge_reduced_axes(a, axis)
        a = lax.reshape(a, shape, dimensions)
        if weights is not None:
            weights = lax.reshape(weights, shape, dimensions)
        axis = np.ndim(a) - 1
    else:
        axis = canonicalize_axis(axis, np.ndim(a))
    if np.ndim(q) > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {np.shape(q)}")
    a_shape, q_orig = np.shape(a), q
    neighbours = _nan_neighbours if squash_nans else _neighbours
    a, weights, *values_and_weights = neighbours(a, weights, q, axis, keepdims)
    if method == "inverted_cdf":
        result = _inverted_cdf(a, weights, q_orig, a_shape, axis, keepdims, squash_nans)
    else:
        result = _combine(method, *values_and_weights, _dtype(q))
    if keepdims and keepdim:
        if np.ndim(q) > 0:
            keepdim = [np.shape(q)[0], *keepdim]
        result = lax.reshape(result, tuple(keepdim))
    return lax.convert_element_type(result, _dtype(a))


def _promote_weights(a: Any, weights: Any, axis: Any, method: str) -> tuple[Any, Any]:
    """``a`` and ``weights`` of one inexact dtype, the weights broadcast to ``a``'s shape
    (they may be given for the reduced axes only)."""
    if _dtype(weights).kind == "c":
        raise ValueError("Weights cannot be complex types.")
    if method != "inverted_cdf":
        raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                  "'inverted_cdf' supports weights.")
    a, weights = promote_dtypes_inexact(a, weights)
    if np.shape(weights) != np.shape(a):
        if axis is None:
            raise ValueError("Weights shape must match 'a' shape when axis is None.")
        axes = tuple(canonicalize_axis(ax, np.ndim(a))
                     for ax in (axis if isinstance(axis, tuple) else (axis,)))
        reduced_shape = tuple(np.shape(a)[ax] for ax in axes)
        if np.shape(weights) != reduced_shape:
            raise ValueError(f"Weights shape {np.shape(weights)} must match reduction axes "
                             f"{reduced_shape}")
        weights = lax.broadcast_in_dim(weights, np.shape(a), axes)
    return a, weights


def _sort(a: Any, weights: Any, axis: int) -> tuple[Any, Any]:
    """Sort along ``axis``; the weights, if any, move with their values."""
    if weights is None:
        return lax.sort(a, dimension=axis), None
    return tuple(lax.sort_key_val(a, weights, dimension=axis))


def _weights(position: Any) -> tuple[Any, Any, Any, Any]:
    """The two whole positions around a fractional one, and how much each counts."""
    low, high = lax.floor(position), lax.ceil(position)
    high_weight = lax.sub(position, low)
    low_weight = lax.sub(_const(high_weight, 1), high_weight)
    return low, high, low_weight, high_weight


def _neighbours(a: Any, weights: Any, q: Any, axis: int, keepdims: bool) -> tuple:
    """The sorted values just below and above each quantile's position, and their weights.

    Every slice has the same length ``n``, so the positions ``q * (n - 1)`` are the same for
    all slices: one ``gather`` along ``axis`` reads the whole slab at each position.
    """
    a_shape, q_ndim = np.shape(a), np.ndim(q)
    # a slice holding a NaN gives NaN: fill it with NaNs, whatever is read from it
    a = _where(reductions.any(_isnan(a), axis=axis, keepdims=True), np.nan, a)
    a, weights = _sort(a, weights, axis)
    n = lax.convert_element_type(a_shape[axis], _dtype(q))  # a constant: 4.0:f32[]
    low, high, low_weight, high_weight = _weights(lax.mul(q, n - 1))
    low = lax.clamp(_const(low, 0), low, n - 1)
    high = lax.clamp(_const(high, 0), high, n - 1)
    low, high = lax.convert_element_type(low, int), lax.convert_element_type(high, int)
    slice_sizes = list(a_shape)
    slice_sizes[axis] = 1
    last = len(a_shape) + q_ndim - (0 if keepdims else 1)
    dnums = lax.GatherDimensionNumbers(offset_dims=tuple(range(q_ndim, last)),
                                       collapsed_slice_dims=() if keepdims else (axis,),
                                       start_index_map=(axis,))
    low_value = lax.gather(a, low[..., None], dnums, slice_sizes)
    high_value = lax.gather(a, high[..., None], dnums, slice_sizes)
    if q_ndim == 1:  # one weight per quantile, spread over its slab
        low_weight = lax.broadcast_in_dim(low_weight, np.shape(low_value), (0,))
        high_weight = lax.broadcast_in_dim(high_weight, np.shape(high_value), (0,))
    return a, weights, low_value, high_value, low_weight, high_weight


def _nan_neighbours(a: Any, weights: Any, q: Any, axis: int, keepdims: bool) -> tuple:
    """As ``_neighbours``, but NaNs are sorted last and left out of each slice's count
    ``n``: the positions differ from slice to slice, so each is read with its own index."""
    q_ndim = np.ndim(q)
    a = _where(_isnan(a), np.nan, a)  # every NaN positive, so that it sorts last
    a, weights = _sort(a, weights, axis)
    counts = reductions.sum(lax.bitwise_not(_isnan(a)), axis=axis, dtype=_dtype(q),
                            keepdims=keepdims)
    shape_after_reduction = np.shape(counts)
    q = lax.expand_dims(q, tuple(range(q_ndim, len(shape_after_reduction) + q_ndim)))
    counts = lax.expand_dims(counts, tuple(range(q_ndim)))
    low, high, low_weight, high_weight = _weights(lax.mul(q, lax.sub(counts, _const(q, 1))))
    low = lax.max(_const(low, 0), lax.min(low, counts - 1))
    high = lax.max(_const(high, 0), lax.min(high, counts - 1))
    low, high = lax.convert_element_type(low, int), lax.convert_element_type(high, int)
    out_shape = np.shape(q)[:q_ndim] + shape_after_reduction
    index = [lax.broadcasted_iota(int, out_shape, dim + q_ndim)
             for dim in range(len(shape_after_reduction))]
    if keepdims:
        index[axis] = low
    else:
        index.insert(axis, low)
    low_value = a[tuple(index)]
    index[axis] = high
    high_value = a[tuple(index)]
    return a, weights, low_value, high_value, low_weight, high_weight


def _combine(method: str, low_value: Any, high_value: Any, low_weight: Any, high_weight: Any,
             q_dtype: np.dtype) -> Any:
    if method == "linear":
        return lax.add(lax.mul(low_value.astype(q_dtype), low_weight),
                       lax.mul(high_value.astype(q_dtype), high_weight))
    if method == "lower":
        return low_value
    if method == "higher":
        return high_value
    if method == "nearest":
        return lax.select(lax.le(high_weight, _const(high_weight, 0.5)), low_value, high_value)
    return lax.mul(lax.add(low_value, high_value), _const(low_value, 0.5))  # midpoint


def _inverted_cdf(a: Any, weights: Any, q: Any, a_shape: tuple, axis: int, keepdims: bool,
                  squash_nans: bool) -> Any:
    """The first sorted value whose running weight reaches ``q`` of the total (each value
    weighing 1 if no weights are given). NaN data (for quantile) and negative or NaN
    weights make the answer NaN; nanquantile leaves NaN data out instead."""
    q_ndim = np.ndim(q)
    if weights is None:
        weights = lax.full_like(a, 1.0)
    zeros = lax.full_like(weights, 0)
    bad_weights = lax.bitwise_or(lax.lt(weights, zeros), _isnan(weights))
    nan_data = _isnan(a)
    clean_weights = lax.select(lax.bitwise_or(bad_weights, nan_data), zeros, weights)
    cum_weights = reductions.cumsum(clean_weights, axis=axis)
    total_weight = lax.index_in_dim(cum_weights, -1, axis=axis, keepdims=keepdims)
    tw_f = lax.expand_dims(total_weight, tuple(range(q_ndim)))
    q_f = lax.reshape(q, np.shape(q) + (1,) * np.ndim(total_weight))
    target_w = lax.mul(q_f, tw_f)
    target_w_aligned = target_w if keepdims else lax.expand_dims(target_w, (axis + q_ndim,))
    cw_f = lax.expand_dims(cum_weights, tuple(range(q_ndim)))
    is_less = lax.lt(cw_f, target_w_aligned)
    idx = reductions.sum(lax.convert_element_type(is_less, dtypes.int_dtype()),
                         axis=axis + q_ndim, keepdims=keepdims)
    if squash_nans:
        valid_counts = reductions.sum(lax.bitwise_not(nan_data), axis=axis, dtype=_dtype(q),
                                      keepdims=keepdims)
    else:
        valid_counts = lax.full_like(total_weight, a_shape[axis], dtype=_dtype(q))
    limit = lax.sub(valid_counts, _const(valid_counts, 1))
    max_idx = lax.expand_dims(lax.convert_element_type(limit, dtypes.int_dtype()),
                              tuple(range(q_ndim)))
    max_idx = lax.convert_element_type(max_idx, _dtype(idx))
    idx = lax.max(_const(idx, 0), lax.min(idx, max_idx))
    idx_take = lax.squeeze(idx, (q_ndim + axis,)) if keepdims else idx
    if q_ndim == 0:
        result = take_along_axis(a, lax.expand_dims(idx_take, (axis,)), axis=axis)
        result = lax.squeeze(result, (axis,))
    else:  # the quantiles' axis goes where take_along_axis wants it, then back
        perm = [*range(q_ndim, q_ndim + axis), *range(q_ndim),
                *range(q_ndim + axis, np.ndim(idx_take))]
        result = take_along_axis(a, lax.transpose(idx_take, perm), axis=axis)
        result = lax.transpose(result, [perm.index(i) for i in range(len(perm))])
    if keepdims:
        result = lax.expand_dims(result, (q_ndim + axis,))
    all_nan_data = lax.eq(valid_counts, lax.full_like(valid_counts, 0))
    any_bad_weight = reductions.any(bad_weights, axis=axis, keepdims=keepdims)
    if squash_nans:
        force_nan = lax.bitwise_or(any_bad_weight, all_nan_data)
    else:
        force_nan = lax.bitwise_or(any_bad_weight,
                                   reductions.any(nan_data, axis=axis, keepdims=keepdims))
    force_nan = lax.expand_dims(force_nan, tuple(range(q_ndim)))
    return _where(force_nan, lax.full_like(result, np.nan), result)


def _check_no_out(name: str, out: Any, overwrite_input: bool) -> None:
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or "
                         "out != None")


@inner_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def quantile(a: Any, q: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
             overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, weights: Any = None) -> Any:
    """The ``q``-th quantile(s) of ``a`` (``q`` in [0, 1], a scalar or a 1-D array)."""
    a, q = ensure_arraylike("quantile", a, q)
    if weights is not None:
        weights, = ensure_arraylike("quantile", weights)
    _check_no_out("quantile", out, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, False, weights)


@inner_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanquantile(a: Any, q: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False, *, weights: Any = None) -> Any:
    """``quantile`` of the elements that are not NaN."""
    a, q = ensure_arraylike("nanquantile", a, q)
    if weights is not None:
        weights, = ensure_arraylike("nanquantile", weights)
    _check_no_out("nanquantile", out, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, True, weights)


@inner_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def percentile(a: Any, q: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
               overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, weights: Any = None) -> Any:
    """``quantile`` with ``q`` in percent (0 to 100)."""
    a, q = ensure_arraylike("percentile", a, q)
    if weights is not None:
        weights, = ensure_arraylike("percentile", weights)
    q, = promote_dtypes_inexact(q)
    return quantile(a, q / 100, axis=axis, out=out, overwrite_input=overwrite_input,
                    method=method, keepdims=keepdims, weights=weights)


@inner_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanpercentile(a: Any, q: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, weights: Any = None) -> Any:
    """``nanquantile`` with ``q`` in percent (0 to 100)."""
    a, q = ensure_arraylike("nanpercentile", a, q)
    if weights is not None:
        weights, = ensure_arraylike("nanpercentile", weights)
    q, = promote_dtypes_inexact(q)
    return nanquantile(a, q / 100, axis=axis, out=out, overwrite_input=overwrite_input,
                       method=method, keepdims=keepdims, weights=weights)


@inner_jit(static_argnames=("axis", "overwrite_input", "keepdims"))
def median(a: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
           overwrite_input: bool = False, keepdims: bool = False) -> Any:
    """The middle value (the mean of the two middle values for an even count)."""
    a, = ensure_arraylike("median", a)
    return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                    keepdims=keepdims, method="midpoint")


@inner_jit(static_argnames=("axis", "overwrite_input", "keepdims"))
def nanmedian(a: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
              overwrite_input: bool = False, keepdims: bool = False) -> Any:
    """``median`` of the elements that are not NaN."""
    a, = ensure_arraylike("nanmedian", a)
    return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                       keepdims=keepdims, method="midpoint")


# ---------------------------------------------------------------- covariance
@inner_jit(static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Any:
    """The covariance matrix of the variables in the rows of ``m`` (the columns if
    ``rowvar=False``), observations weighted by ``fweights`` (counts) and ``aweights``."""
    if y is not None:
        m, y = promote_args_inexact("cov", m, y)
        if np.ndim(y) > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        m, = promote_args_inexact("cov", m)
    if np.ndim(m) > 2:
        raise ValueError("m has more than 2 dimensions")
    _check_inexact("cov", dtype)
    X = atleast_2d(m)
    if not rowvar and np.ndim(m) != 1:
        X = X.T
    if X.shape[0] == 0:
        return reshape(array([]), (0, 0))
    if y is not None:
        y = atleast_2d(y)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        X = concatenate((X, y), axis=0)
    if X.shape[1] == 0:  # no observations: NaN
        return full(() if X.shape[0] == 1 else (X.shape[0],) * 2, np.nan, dtype=X.dtype)
    if ddof is None:
        ddof = 1 if not bias else 0
    w, aweights = _observation_weights(X, fweights, aweights)
    if dtype is not None:
        X = X.astype(dtype)
        w = w.astype(dtype) if w is not None else w
    avg, w_sum = reductions.average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        f = X.shape[1] - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = w_sum - ddof
    else:
        f = w_sum - ddof * reductions.sum(w * aweights) / w_sum
    X = X - avg[:, None]
    X_T = X.T if w is None else (X * lax.broadcast_to_rank(w, X.ndim)).T
    return true_divide(dot(X, X_T.conj()), f).squeeze()


def _check_inexact(name: str, dtype: Any) -> None:
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        raise ValueError(f"{name}: dtype must be a subclass of float or complex; got "
                         f"dtype={dtype!r}")


def _observation_weights(X: Any, fweights: Any, aweights: Any) -> tuple[Any, Any]:
    """The weight of each observation (None for all equal), and the (positive) aweights."""
    w = None
    if fweights is not None:
        fweights, = ensure_arraylike("cov", fweights)
        _check_weights("fweights", X, fweights)
        if _dtype(fweights).kind not in "iu":
            raise TypeError("fweights must be integer.")
        w = abs(fweights)  # NumPy raises for negative weights; JAX makes them positive
    if aweights is not None:
        aweights, = ensure_arraylike("cov", aweights)
        _check_weights("aweights", X, aweights)
        aweights = abs(aweights)
        w = asarray(aweights if w is None else w * aweights)
    return w, aweights


def _check_weights(name: str, X: Any, weights: Any) -> None:
    if np.ndim(weights) > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if np.shape(weights)[0] != X.shape[1]:
        raise RuntimeError(f"incompatible numbers of samples and {name}")


@inner_jit(static_argnames=("rowvar", "dtype"))
def corrcoef(x: Any, y: Any = None, rowvar: bool = True, dtype: Any = None) -> Any:
    """Pearson correlation coefficients: ``cov`` scaled by the standard deviations,
    clipped to [-1, 1] against rounding (the real and imaginary parts separately)."""
    check_arraylike("corrcoef", x)
    _check_inexact("corrcoef", dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if np.ndim(c) == 0:
        return true_divide(c, c)  # a single variable: 1 (or NaN if it never varies)
    stddev = sqrt(real(diag(c))).astype(c.dtype)
    c = c / stddev[:, None] / stddev[None, :]
    real_part = clip(real(c), -1, 1)
    if _dtype(c).kind == "c":
        return lax.complex(real_part, clip(imag(c), -1, 1))
    return real_part
