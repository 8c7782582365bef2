"""Sorting and searching: sort, argsort, searchsorted, nonzero, argwhere (unique is in
set_ops.py).

``lax.sort`` sorts several arrays by the first one, so argsort is "sort the pair
(x, 0..n-1) by x and keep the second". NaNs sort after every number, as in NumPy.
Functions whose output size depends on the data (nonzero) need concrete input, or a
static ``size=``.
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import core, dtypes, lax
from edujax.errors import ConcretizationTypeError
from edujax.inner_jit import inner_jit
from edujax.lax.reductions import sort_le_comparator, sort_lt_comparator
from edujax.numpy.indexing import getitem
from edujax.numpy.creation import arange, zeros
from edujax.numpy.reductions import cumsum, sum
from edujax.numpy.shape_ops import atleast_1d, ravel, reshape, transpose, vstack
from edujax.numpy.ufuncs import (_where, add, clip, floor_divide, greater_equal, not_equal,
                                 remainder, subtract)
from edujax.numpy.util import (asarray, canonicalize_axis, check_arraylike, ensure_arraylike,
                               promote_dtypes)
from edujax.vmap import vmap


def _ensure_array(name: str, a: Any) -> Any:
    check_arraylike(name, a)
    return asarray(a)


@inner_jit(static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a: Any, axis: int | None = -1, *, kind: Any = None, order: Any = None,
         stable: bool = True, descending: bool = False) -> Any:
    """Sorted copy of ``a`` (NaNs last); ``axis=None`` sorts the flattened array."""
    a = _ensure_array("sort", a)
    if kind is not None:
        raise TypeError("'kind' argument to sort is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError("'order' argument to sort is not supported.")
    if axis is None:
        a, axis = lax.reshape(a, (int(np.size(a)),)), 0
    axis = canonicalize_axis(axis, np.ndim(a))
    out = lax.sort(a, axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


@inner_jit(static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"))
def argsort(a: Any, axis: int | None = -1, *, kind: Any = None, order: Any = None,
            stable: bool = True, descending: bool = False, dtype: Any = None) -> Any:
    """Indices that would sort ``a`` (stable: equal elements keep their order).

    Descending and stable: reverse the array, sort ascending, and reverse the
    result, so that equal elements still come out in their original order.
    """
    a = _ensure_array("argsort", a)
    if kind is not None:
        raise TypeError("'kind' argument to argsort is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError("'order' argument to argsort is not supported.")
    if axis is None:
        a, axis = lax.reshape(a, (int(np.size(a)),)), 0
    axis = canonicalize_axis(axis, np.ndim(a))
    index_dtype = dtypes.int_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    iota = lax.broadcasted_iota(index_dtype, np.shape(a), axis)
    if descending and stable:
        a, iota = lax.rev(a, (axis,)), lax.rev(iota, (axis,))
    _, indices = lax.sort_key_val(a, iota, axis, is_stable=stable)
    return lax.rev(indices, (axis,)) if descending else indices


@inner_jit
def sort_complex(a: Any) -> Any:
    """Sort along the last axis, then cast to the complex dtype that matches ``a``'s
    precision (JAX's definition, jitted as in JAX): float64 and int64 give complex128, the
    rest complex64."""
    a, = ensure_arraylike("sort_complex", a)
    a = lax.sort(a)
    dtype = np.dtype(a.dtype)
    wide = dtype in (np.dtype(np.float64), np.dtype(np.complex128), np.dtype(np.int64),
                     np.dtype(np.uint64))
    return lax.convert_element_type(a, np.complex128 if wide else np.complex64)


# ---------------------------------------------------------------- searchsorted
# A binary search for every query at once, as JAX does it (jax/_src/numpy/hijax.py). The
# default method, "scan", keeps an interval [low, high) per query and halves it
# ceil(log2(n + 1)) times in a lax.scan: the jaxpr is one scan whose body compares each
# query with the middle element of its interval.
_SEARCH_METHODS = ("compare_all", "scan", "scan_unrolled", "sort")


@inner_jit(static_argnames=("side", "method"))
def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None, *,
                 method: str = "scan") -> Any:
    """Where to insert ``v`` into the sorted 1-D ``a`` to keep it sorted: the number of
    elements of ``a`` that come before (``side="left"``) or not after (``"right"``).

    NaN counts as larger than every number, as in the sort order. ``method`` picks the
    algorithm: "scan" (a binary search, the default), "scan_unrolled" (the same, unrolled),
    "compare_all" (compare every pair) or "sort" (sort the queries in with ``a``).
    """
    if sorter is None:
        a, v = ensure_arraylike("searchsorted", a, v)
    else:
        a, v, sorter = ensure_arraylike("searchsorted", a, v, sorter)
    if np.ndim(a) != 1:
        raise ValueError("a should be 1-dimensional")
    a, v = promote_dtypes(a, v)
    if sorter is not None:
        a = getitem(a, sorter)
    # int32 indices unless a is too long for them (JAX's int_dtype_for_dim), even under x64.
    dtype = np.dtype(np.int64 if np.shape(a)[0] > np.iinfo(np.int32).max else np.int32)
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    if method not in _SEARCH_METHODS:
        raise ValueError(f"invalid argument {method=}, expected one of {list(_SEARCH_METHODS)}")
    if method == "compare_all":
        return _searchsorted_compare_all_impl(a, v, side=side, dtype=dtype)
    if method == "sort":
        return _searchsorted_sort_impl(a, v, side=side, dtype=dtype)
    return _searchsorted_scan_impl(a, v, side=side, dtype=dtype,
                                   unrolled=method == "scan_unrolled")


@inner_jit(static_argnames=("side", "dtype", "unrolled"))
def _searchsorted_scan_impl(sorted_arr: Any, query: Any, side: str, dtype: np.dtype,
                            unrolled: bool) -> Any:
    """Binary search for one query; an array of queries is a vmap of it (one vmap per
    dimension, each call jitted again: JAX's jaxpr nests one jit per dimension)."""
    (n,) = np.shape(sorted_arr)
    if n == 0:
        return lax.full(np.shape(query), 0, dtype)
    if np.ndim(query) > 0:
        search_one = partial(_searchsorted_scan_impl, side=side, dtype=dtype, unrolled=unrolled)
        return vmap(search_one, in_axes=(None, 0))(sorted_arr, query)
    # side="left": go left while query <= a[mid] (the first place it fits);
    # side="right": while query < a[mid] (after every equal element).
    go_left_of = sort_le_comparator if side == "left" else sort_lt_comparator
    unsigned = np.uint64 if dtype.itemsize == 8 else np.uint32

    def halve(state: tuple, _: Any) -> tuple:
        low, high = state
        mid = add(low, floor_divide(subtract(high, low), 2))  # high + low could overflow
        go_left = go_left_of(query, getitem(sorted_arr, mid))
        return (lax.select(go_left, low, mid), lax.select(go_left, mid, high)), ()

    levels = int(np.ceil(np.log2(n + 1)))
    (_, high), _ = lax.scan(halve, (unsigned(0), unsigned(n)), (), length=levels,
                            unroll=levels if unrolled else 1)
    return lax.convert_element_type(high, dtype)


@inner_jit(static_argnames=("side", "dtype"))
def _searchsorted_compare_all_impl(sorted_arr: Any, query: Any, side: str,
                                   dtype: np.dtype) -> Any:
    """Count the elements of ``sorted_arr`` before each query: an (n, *query.shape) table of
    comparisons, summed over its first axis."""
    before = sort_lt_comparator if side == "left" else sort_le_comparator
    comparisons = vmap(before, in_axes=(0, None))(sorted_arr, query)
    return sum(comparisons, axis=0, dtype=dtype)


@inner_jit(static_argnames=("side", "dtype"))
def _searchsorted_sort_impl(sorted_arr: Any, query: Any, side: str, dtype: np.dtype) -> Any:
    """Sort the queries in with the array: a query's rank among both, less its rank among
    the queries alone, is the number of elements of ``sorted_arr`` before it."""
    fits_int32 = np.size(sorted_arr) + np.size(query) <= np.iinfo(np.int32).max
    working_dtype = np.int32 if fits_int32 else np.int64

    def rank(x: Any) -> Any:
        idx = lax.iota(working_dtype, len(x))
        return lax.full_like(idx, 0).at[lax.sort_key_val(x, idx)[1]].set(idx)

    flat = ravel(query)
    if side == "left":  # queries first: a tie puts the query before the equal elements
        index = getitem(rank(lax.concatenate([flat, sorted_arr], 0)), slice(None, np.size(query)))
    else:
        index = getitem(rank(lax.concatenate([sorted_arr, flat], 0)),
                        slice(np.size(sorted_arr), None))
    return lax.convert_element_type(
        lax.reshape(lax.sub(index, rank(flat)), np.shape(query)), dtype)


# ---------------------------------------------------------------- data-dependent shapes
def _concrete_value(x: Any, name: str) -> np.ndarray:
    if isinstance(x, core.Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(
                x, f"The size argument of jnp.{name} must be statically specified to use "
                f"jnp.{name} within JAX transformations.\n")
        return np.asarray(value)
    return np.asarray(x)


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple:
    """Indices of the non-zero elements, one array per dimension.

    The number of results depends on the data, so ``a`` must be concrete, or ``size``
    given (results are then cut or padded with ``fill_value``, default 0). Computed as JAX
    does, with no data-dependent shape: count the non-zeros before each element
    (``cumsum``), histogram those counts (``bincount``): the running sum of that histogram
    is, at position k, the flat index of the k-th non-zero. Then unravel the flat indices.
    """
    arr = asarray(ensure_arraylike("nonzero", a)[0])
    if np.ndim(arr) == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    mask = arr if arr.dtype == np.bool_ else not_equal(arr, 0)
    n = size if size is not None else int(_concrete_value(sum(mask), "nonzero"))
    if np.size(arr) == 0 or n == 0:
        return tuple(zeros(n, int) for _ in np.shape(arr))
    flat_indices = cumsum(_bincount(cumsum(mask), length=n))
    shape = np.shape(arr)
    strides = (np.cumprod(shape[::-1])[::-1] // shape).astype(flat_indices.dtype)
    out = tuple(remainder(floor_divide(flat_indices, stride), dim)
                for stride, dim in zip(strides, shape))
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, tuple) else np.ndim(arr) * (fill_value,)
        if any(np.shape(f) != () for f in fills):
            raise ValueError(f"fill_value must be a scalar or a tuple of length {np.ndim(arr)}; "
                             f"got {fill_value}")
        past_end = greater_equal(arange(n), sum(mask))
        out = tuple(_where(past_end, f, entry) for f, entry in zip(fills, out))
    return out


def _bincount(x: Any, length: int) -> Any:
    """How many times each of 0..length-1 occurs in ``x``: ``jnp.bincount(x, length=length)``
    (histograms.py, which imports this module), whose body is this one line."""
    return zeros(length, int).at[clip(x, 0)].add(np.array(1, dtypes.int_dtype()), mode="drop")


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """Indices of the non-zero elements of the flattened array."""
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the non-zero elements, one row per element."""
    a, = ensure_arraylike("argwhere", a)
    result = transpose(vstack(nonzero(atleast_1d(a), size=size, fill_value=fill_value)))
    if np.ndim(a) == 0:
        return reshape(result[:0], (np.shape(result)[0], 0))
    return reshape(result, (np.shape(result)[0], np.ndim(a)))


# ---------------------------------------------------------------- where
def where(condition: Any, x: Any = None, y: Any = None, /, *, size: Any = None,
          fill_value: Any = None) -> Any:
    """``x`` where ``condition`` holds, else ``y`` (all three broadcast together).

    With one argument it is ``nonzero``, which needs a concrete condition (the
    output's length depends on the data).
    """
    if x is None and y is None:
        check_arraylike("where", condition)
        return nonzero(condition, size=size, fill_value=fill_value)
    check_arraylike("where", condition, x, y)
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where "
                         "function.")
    return _where(condition, x, y)
