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
from edujax.numpy.products import dot
from edujax.numpy.shape_ops import atleast_2d, concatenate
from edujax.numpy.diagonals import diag
from edujax.numpy.ufuncs import _isnan, _where, clip
from edujax.numpy.util import (canonicalize_axis, ensure_arraylike, promote_args_inexact,
                               promote_dtypes_inexact)

_METHODS = ["linear", "lower", "higher", "midpoint", "nearest"]


def _dtype(x: Any) -> np.dtype:
    return dtypes.dtype_and_weak(x)[0]


def _const(example: Any, value: float) -> Any:
    return np.asarray(value, _dtype(example))[()]


def _move_reduced_axes_last(a: Any, axis: tuple[int, ...]) -> tuple[Any, list[int]]:
    """Several reduced axes become one, last: (shape kept for keepdims, the new array)."""
    nd = np.ndim(a)
    axis = tuple(canonicalize_axis(ax, nd) for ax in axis)
    if len(set(axis)) != len(axis):
        raise ValueError("repeated axis")
    keepdim = [1 if i in axis else d for i, d in enumerate(np.shape(a))]
    kept = [i for i in range(nd) if i not in axis]
    a = lax.transpose(a, tuple(kept) + axis)
    size = math.prod(np.shape(a)[len(kept):])
    return lax.reshape(a, tuple(np.shape(a)[:len(kept)]) + (size,)), keepdim


def _quantile(a: Any, q: Any, axis: Any, method: str, keepdims: bool,
              squash_nans: bool) -> Any:
    """The recipe in the module docstring; ``squash_nans`` for the nan* versions."""
    if method not in _METHODS + ["inverted_cdf"]:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         "'nearest' or 'inverted_cdf'")
    if method == "inverted_cdf":
        raise NotImplementedError("edujax's quantile has no 'inverted_cdf' method yet")
    a, = promote_dtypes_inexact(a)
    if _dtype(a).kind == "c":
        raise ValueError("quantile does not support complex input, as the operation is "
                         "poorly defined.")
    keepdim = []
    if axis is None:
        keepdim = [1] * np.ndim(a) if keepdims else []
        a, axis = lax.reshape(a, (int(np.size(a)),)), 0
    elif isinstance(axis, tuple):
        a, keepdim = _move_reduced_axes_last(a, axis)
        axis = np.ndim(a) - 1
    else:
        axis = canonicalize_axis(axis, np.ndim(a))
    q_ndim = np.ndim(q)
    if q_ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {np.shape(q)}")
    if np.shape(a)[axis] == 0 and not squash_nans:
        # there is no element to read: JAX's gather of one element fails with this message
        raise TypeError(f"Slice size at index {axis} in gather op is out of range, must be "
                        f"within [0, 0 + 1), got 1.")
    low_value, high_value, high_weight = _neighbours(a, q, axis, keepdims, squash_nans)
    result = _combine(method, low_value, high_value, high_weight, _dtype(q))
    if keepdims and keepdim:
        if q_ndim > 0:
            keepdim = [np.shape(q)[0], *keepdim]
        result = lax.reshape(result, tuple(keepdim))
    return lax.convert_element_type(result, _dtype(a))


def _neighbours(a: Any, q: Any, axis: int, keepdims: bool, squash_nans: bool) -> tuple:
    """The sorted values just below and above each quantile's position, and how far
    the position lies past the lower one (the weight of the upper neighbour)."""
    q_ndim = np.ndim(q)
    if squash_nans:
        a = _where(_isnan(a), np.nan, a)  # every NaN positive, so that it sorts last
        counts = reductions.sum(lax.bitwise_not(_isnan(a)), axis=axis, dtype=_dtype(q),
                                keepdims=keepdims)
    else:
        a = _where(reductions.any(_isnan(a), axis=axis, keepdims=True), np.nan, a)
        reduced = list(np.shape(a))
        reduced[axis:axis + 1] = [1] if keepdims else []
        counts = lax.full(tuple(reduced), np.shape(a)[axis], _dtype(q))
    a = lax.sort(a, dimension=axis)
    shape_after_reduction = np.shape(counts)
    q = lax.expand_dims(q, tuple(range(q_ndim, len(shape_after_reduction) + q_ndim)))
    counts = lax.expand_dims(counts, tuple(range(q_ndim)))
    position = lax.mul(q, lax.sub(counts, _const(q, 1)))
    low, high = lax.floor(position), lax.ceil(position)
    high_weight = lax.sub(position, low)
    last = counts - 1
    low = lax.convert_element_type(lax.max(_const(low, 0), lax.min(low, last)), np.int32)
    high = lax.convert_element_type(lax.max(_const(high, 0), lax.min(high, last)), np.int32)
    out_shape = np.shape(q)[:q_ndim] + shape_after_reduction
    index = [lax.broadcasted_iota(np.int32, out_shape, dim + q_ndim)
             for dim in range(len(shape_after_reduction))]
    if keepdims:
        index[axis] = low
    else:
        index.insert(axis, low)
    low_value = a[tuple(index)]
    index[axis] = high
    high_value = a[tuple(index)]
    return low_value, high_value, high_weight


def _combine(method: str, low_value: Any, high_value: Any, high_weight: Any,
             q_dtype: np.dtype) -> Any:
    if method == "linear":
        low_weight = lax.sub(_const(high_weight, 1), high_weight)
        return lax.add(lax.mul(lax.convert_element_type(low_value, q_dtype), low_weight),
                       lax.mul(lax.convert_element_type(high_value, q_dtype), high_weight))
    if method == "lower":
        return low_value
    if method == "higher":
        return high_value
    if method == "nearest":
        return lax.select(lax.le(high_weight, _const(high_weight, 0.5)), low_value, high_value)
    return lax.mul(lax.add(low_value, high_value), _const(low_value, 0.5))  # midpoint


def _check_no_out(name: str, out: Any, overwrite_input: bool) -> None:
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or "
                         "out != None")


def quantile(a: Any, q: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
             overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False) -> Any:
    """The ``q``-th quantile(s) of ``a`` (``q`` in [0, 1], a scalar or a 1-D array)."""
    a, q = ensure_arraylike("quantile", a, q)
    _check_no_out("quantile", out, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, False)


def nanquantile(a: Any, q: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False) -> Any:
    """``quantile`` of the elements that are not NaN."""
    a, q = ensure_arraylike("nanquantile", a, q)
    _check_no_out("nanquantile", out, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, True)


def percentile(a: Any, q: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
               overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False) -> Any:
    """``quantile`` with ``q`` in percent (0 to 100)."""
    a, q = ensure_arraylike("percentile", a, q)
    q, = promote_dtypes_inexact(q)
    return quantile(a, q / 100, axis=axis, out=out, overwrite_input=overwrite_input,
                    method=method, keepdims=keepdims)


def nanpercentile(a: Any, q: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False) -> Any:
    """``nanquantile`` with ``q`` in percent (0 to 100)."""
    a, q = ensure_arraylike("nanpercentile", a, q)
    q, = promote_dtypes_inexact(q)
    return nanquantile(a, q / 100, axis=axis, out=out, overwrite_input=overwrite_input,
                       method=method, keepdims=keepdims)


def median(a: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
           overwrite_input: bool = False, keepdims: bool = False) -> Any:
    """The middle value (the mean of the two middle values for an even count)."""
    a, = ensure_arraylike("median", a)
    return quantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                    keepdims=keepdims, method="midpoint")


def nanmedian(a: Any, axis: int | tuple[int, ...] | None = None, out: None = None,
              overwrite_input: bool = False, keepdims: bool = False) -> Any:
    """``median`` of the elements that are not NaN."""
    a, = ensure_arraylike("nanmedian", a)
    return nanquantile(a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input,
                       keepdims=keepdims, method="midpoint")


# ---------------------------------------------------------------- covariance
@inner_jit(static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None) -> Any:
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
    X = atleast_2d(m)
    if not rowvar and np.ndim(m) != 1:
        X = X.T
    if X.shape[0] == 0:
        return lax.full((0, 0), 0, _dtype(X))
    if y is not None:
        y = atleast_2d(y)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        X = concatenate((X, y), axis=0)
    if ddof is None:
        ddof = 1 if not bias else 0
    w = _observation_weights(X, fweights, aweights)
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
    X_T = X.T if w is None else (X * w).T
    return _squeeze(dot(X, X_T) / f)


def _squeeze(x: Any) -> Any:
    return lax.squeeze(x, tuple(i for i, d in enumerate(np.shape(x)) if d == 1))


def _observation_weights(X: Any, fweights: Any, aweights: Any) -> Any:
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        weights, = ensure_arraylike("cov", weights)
        if np.ndim(weights) > 1:
            raise RuntimeError(f"cannot handle multidimensional {name}")
        if np.shape(weights)[0] != X.shape[1]:
            raise RuntimeError(f"incompatible numbers of samples and {name}")
        if name == "fweights":
            if _dtype(weights).kind not in "iu":
                raise TypeError("fweights must be integer.")
            weights = abs(weights)
        w = weights if w is None else w * weights
    return w


def corrcoef(x: Any, y: Any = None, rowvar: bool = True) -> Any:
    """Pearson correlation coefficients: ``cov`` scaled by the standard deviations,
    clipped to [-1, 1] against rounding."""
    c = cov(x, y, rowvar)
    if np.ndim(c) == 0:
        return c / c  # a single variable: 1 (or NaN if it never varies)
    stddev = lax.sqrt(diag(c))
    c = c / stddev[:, None] / stddev[None, :]
    return clip(c, -1, 1)
