"""Set operations on arrays: ``unique`` and the Array API's unique_* functions, ``isin``,
and the 1-D set operations intersect1d, union1d, setdiff1d, setxor1d.

How many distinct values an array holds depends on its data, and a traced program must
know every shape in advance. So, as in JAX, every function here is written with array
operations of fixed shapes only (sort, compare neighbours, cumulative sums, gathers and
scatters), never NumPy's ``np.unique`` on a concrete value:

* **Sort, then compare neighbours.** After sorting, equal values sit next to each other,
  so ``mask[i] = sorted[i] != sorted[i - 1]`` (and ``mask[0] = True``) marks the first
  copy of each distinct value. ``sum(mask)`` is the number of distinct values.
* **Compact with ``nonzero(mask, size=size)``.** The positions of the marked elements,
  cut or padded to a length chosen in advance: that gathers the distinct values to the
  front of a fixed-size array.

Only the very last step, choosing the output length, needs the data: without ``size``
the mask must be concrete (eager code); with a static ``size`` the whole computation
traces, so it runs under jit and vmap, and its derivative flows through the gathers to
the input values.
"""
from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple

import numpy as np

from edujax import core, dtypes, lax
from edujax.errors import ConcretizationTypeError
from edujax.inner_jit import inner_jit
from edujax.numpy.creation import arange, empty, full, full_like, ones, zeros
from edujax.numpy.differences import diff
from edujax.numpy.editing import append
from edujax.numpy.misc import lexsort
from edujax.numpy.reductions import any, cumsum
from edujax.numpy.shape_ops import concatenate, moveaxis, ravel, reshape
from edujax.numpy.sorting import nonzero, searchsorted, sort, where
from edujax.numpy.ufuncs import isnan
from edujax.numpy.util import asarray, canonicalize_axis, ensure_arraylike, promote_dtypes

UNIQUE_SIZE_HINT = (
    "To make jnp.unique() compatible with JIT and other transforms, you can specify "
    "a concrete value for the size argument, which will determine the output size.")


def _concrete_or_error(x: Any, context: str) -> Any:
    """``x`` itself if its value is known while tracing, else JAX's ConcretizationTypeError
    (``core.concrete_or_error(None, x, context)``)."""
    if isinstance(x, core.Tracer) and x.to_concrete_value() is None:
        raise ConcretizationTypeError(x, context)
    return x


def _static_size(size: Any, context: str) -> int:
    """``size`` as a Python int: it fixes an output shape, so it cannot be traced."""
    if isinstance(size, core.Tracer):
        value = size.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(size, context)
        size = value
    return operator.index(size)


def _index_dtype(n: int) -> np.dtype:
    """The smallest signed integer type that can index ``n`` elements (JAX's
    ``int_dtype_for_dim``): int32, unless the array is too long for it."""
    return np.dtype(np.int32) if n <= np.iinfo(np.int32).max else np.dtype(np.int64)


# ================================================================ unique
@inner_jit(static_argnames=("axis", "equal_nan"))
def _unique_sorted_mask(ar: Any, axis: int, equal_nan: bool) -> tuple[Any, Any, Any]:
    """Sort the slices of ``ar`` along ``axis`` and mark the first of each run of equal
    slices. Returns (the sorted slices, on axis 0; the mask; the sorting permutation)."""
    aux = moveaxis(ar, axis, 0)
    if np.issubdtype(aux.dtype, np.complexfloating):
        # A complex NaN may hide in the imaginary part only; make every NaN the same
        # NaN, so that they sort (and compare) together as NumPy's do.
        aux = where(isnan(aux), np.array(np.nan, aux.dtype), aux)
    size, *out_shape = aux.shape
    if math.prod(out_shape) == 0:
        size = 1
        perm = zeros(1, dtype=int)
    else:
        # Slices sort lexicographically: by their first element, ties broken by the
        # second... lexsort wants the most significant key last, hence the [::-1].
        perm = lexsort(reshape(aux, (size, math.prod(out_shape))).T[::-1])
    aux = aux[perm]
    if aux.size:
        if dtypes.issubdtype(aux.dtype, np.inexact) and equal_nan:
            # NaN != NaN, but np.unique counts all the NaNs as one value
            def neq(x, y):
                return lax.ne(x, y) & ~(isnan(x) & isnan(y))
        else:
            neq = lax.ne
        # a slice starts a new value when any of its elements differs from the previous
        # (NB: one expression, so that the jaxpr builds ``ones`` first, as JAX's does)
        mask = ones(size, dtype=bool).at[1:].set(
            any(neq(aux[1:], aux[:-1]), tuple(range(1, aux.ndim))))
    else:
        mask = zeros(size, dtype=bool)
    return aux, mask, perm


def _unique(ar: Any, axis: int, return_index: bool = False, return_inverse: bool = False,
            return_counts: bool = False, equal_nan: bool = True, size: int | None = None,
            fill_value: Any = None, return_true_size: bool = False) -> Any:
    """The distinct slices of ``ar`` along ``axis`` (and what ``unique`` asks for).

    With ``return_true_size`` it also returns how many there are, a traced count: the
    other set operations use it to tell real values from padding."""
    axis = canonicalize_axis(axis, ar.ndim)
    if ar.shape[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")

    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    if size is None:
        # the number of distinct values is the output length: it must be known now
        ind = _concrete_or_error(mask, "The error arose in jnp.unique(). " + UNIQUE_SIZE_HINT)
    else:
        # the positions of the first copies, padded with 0 (the smallest value's)
        ind = nonzero(mask, size=size)[0]
    result = aux[ind] if aux.size else aux
    if size is not None and fill_value is not None:
        fill_value = lax.convert_element_type(lax.asarray(fill_value), result.dtype)
        if result.shape[0]:
            valid = lax.expand_dims(arange(size) < mask.sum(), tuple(range(1, result.ndim)))
            result = where(valid, result, fill_value)
        else:
            result = full_like(result, fill_value, shape=(size, *result.shape[1:]))
    result = moveaxis(result, 0, axis)

    ret: tuple = (result,)
    if return_index:
        # where each first copy was before sorting
        ret += (perm[ind],) if aux.size else (perm,)
    if return_inverse:
        if aux.size:
            # the k-th sorted element belongs to value number cumsum(mask)[k] - 1; send
            # that number back to the element's place before sorting
            imask = cumsum(mask) - 1
            inv_idx = zeros(mask.shape, dtype=int).at[perm].set(imask)
        else:
            inv_idx = zeros(ar.shape[axis], dtype=int)
        ret += (inv_idx,)
    if return_counts:
        if aux.size:
            # a value's count is the distance from its first copy to the next value's
            if size is None:
                idx = append(nonzero(mask)[0], mask.size)
            else:
                idx = nonzero(mask, size=size + 1)[0]
                # the padding (index 0) stands for "past the end" there
                idx = idx.at[1:].set(where(idx[1:], idx[1:], mask.size))
            ret += (diff(idx),)
        elif ar.shape[axis]:
            ret += (full((1,), ar.shape[axis], dtype=int),)
        else:
            ret += (empty(0, dtype=int),)
    if return_true_size:
        ret += (mask.sum(),)
    return ret[0] if len(ret) == 1 else ret


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: Any = None, sorted: bool = True) -> Any:
    """Sorted unique values (and optionally where they first occur, how to rebuild the
    input from them, and how often each occurs).

    The result's length depends on the data, so the input must be concrete, or
    ``size`` given (padding with ``fill_value``, by default the smallest value).
    """
    del sorted  # the values always come out sorted
    arr = asarray(ensure_arraylike("unique", ar)[0])
    if size is None:
        arr = _concrete_or_error(arr, "The error arose for the first argument of "
                                 "jnp.unique(). " + UNIQUE_SIZE_HINT)
    else:
        size = _static_size(size, "The error arose for the size argument of jnp.unique(). "
                            + UNIQUE_SIZE_HINT)
    arr_shape = arr.shape
    if axis is None:
        axis_int = 0
        arr = ravel(arr)
    else:
        axis_int = canonicalize_axis(axis, arr.ndim)
    result = _unique(arr, axis_int, return_index, return_inverse, return_counts,
                     equal_nan=equal_nan, size=size, fill_value=fill_value)
    if return_inverse and axis is None:
        # the inverse indices rebuild the input, so they take its shape
        idx = 2 if return_index else 1
        result = (*result[:idx], reshape(result[idx], arr_shape), *result[idx + 1:])
    return result


class _UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


def unique_all(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> _UniqueAllResult:
    """The distinct values, where each first occurs, how to rebuild ``x`` from them, and
    how often each occurs (NaNs are not merged)."""
    x, = ensure_arraylike("unique_all", x)
    values, indices, inverse_indices, counts = unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False,
        size=size, fill_value=fill_value)
    return _UniqueAllResult(values, indices, inverse_indices, counts)


def unique_counts(x: Any, /, *, size: int | None = None,
                  fill_value: Any = None) -> _UniqueCountsResult:
    """The distinct values and how often each occurs."""
    x, = ensure_arraylike("unique_counts", x)
    values, counts = unique(x, return_counts=True, equal_nan=False, size=size,
                            fill_value=fill_value)
    return _UniqueCountsResult(values, counts)


def unique_inverse(x: Any, /, *, size: int | None = None,
                   fill_value: Any = None) -> _UniqueInverseResult:
    """The distinct values, and for each element of ``x`` the index of its value."""
    x, = ensure_arraylike("unique_inverse", x)
    values, inverse_indices = unique(x, return_inverse=True, equal_nan=False, size=size,
                                     fill_value=fill_value)
    return _UniqueInverseResult(values, inverse_indices)


def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The distinct values, sorted."""
    x, = ensure_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


# ================================================================ membership
@inner_jit(static_argnames=("assume_unique", "invert", "method"))
def _in1d(ar1: Any, ar2: Any, invert: bool, method: str = "auto",
          assume_unique: bool = False) -> Any:
    """For each element of ``ar1`` (flattened): is it in ``ar2``?"""
    arr1, arr2 = promote_dtypes(*ensure_arraylike("in1d", ar1, ar2))
    arr1, arr2 = ravel(arr1), ravel(arr2)
    if arr1.size == 0 or arr2.size == 0:
        return (ones if invert else zeros)(arr1.shape, dtype=bool)
    if method in ("auto", "compare_all"):
        # every pair compared at once: memory n*m, but the fastest for small arrays
        if invert:
            return (arr1[:, None] != arr2[None, :]).all(-1)
        return (arr1[:, None] == arr2[None, :]).any(-1)
    if method == "binary_search":
        # sort ar2, look each element up: is the value found at its place its own?
        arr2 = lax.sort(arr2)
        ind = searchsorted(arr2, arr1)
        return arr1 != arr2[ind] if invert else arr1 == arr2[ind]
    if method == "sort":
        # sort both together (ar1 first among equals, the sort being stable): an element
        # of ar1 is in ar2 when the next one in sorted order equals it
        if assume_unique:
            ind_out: Any = slice(None)
        else:
            arr1, ind_out = unique(arr1, size=len(arr1), return_inverse=True,
                                   fill_value=arr2.max())
        aux, ind = lax.sort_key_val(concatenate([arr1, arr2]), arange(arr1.size + arr2.size))
        if invert:
            return ones(arr1.shape, bool).at[ind[:-1]].set(aux[1:] != aux[:-1],
                                                           mode="drop")[ind_out]
        return zeros(arr1.shape, bool).at[ind[:-1]].set(aux[1:] == aux[:-1],
                                                        mode="drop")[ind_out]
    raise ValueError(f"{method=} is not implemented; options are 'compare_all', "
                     "'binary_search', 'sort', and 'auto'")


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False,
         *, method: str = "auto") -> Any:
    """True where an element of ``element`` is one of ``test_elements``."""
    element, test_elements = ensure_arraylike("isin", element, test_elements)
    result = _in1d(element, test_elements, invert=invert, method=method,
                   assume_unique=assume_unique)
    return reshape(result, np.shape(element))


# ================================================================ 1-D set operations
def _concat_unique(arr1: Any, arr2: Any) -> tuple[Any, Any]:
    """The distinct values of ``arr1`` followed by those of ``arr2`` (each sorted), padded
    at the end; and how many of them are real."""
    arr1, arr2 = ravel(arr1), ravel(arr2)
    arr1, num_unique1 = _unique(arr1, axis=0, size=arr1.size, return_true_size=True)
    arr2, num_unique2 = _unique(arr2, axis=0, size=arr2.size, return_true_size=True)
    arr = zeros(arr1.size + arr2.size, dtype=dtypes.result_type(arr1, arr2))
    arr = lax.dynamic_update_slice(arr, arr1, (0,))
    # arr2's values start right after arr1's real ones (a traced offset)
    arr = lax.dynamic_update_slice(arr, arr2, (num_unique1,))
    return arr, num_unique1 + num_unique2


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
              fill_value: Any = None) -> Any:
    """The sorted values of ``ar1`` that are not in ``ar2``."""
    arr1, arr2 = ensure_arraylike("setdiff1d", ar1, ar2)
    arr1, arr2 = ravel(arr1), ravel(arr2)
    if size is None:
        _concrete_or_error(arr1, "The error arose in setdiff1d()")
    else:
        size = _static_size(size, "The error arose in setdiff1d()")
    fill_value = full_like(arr1, fill_value=(0 if fill_value is None else fill_value),
                           shape=())
    if arr1.size == 0:
        return full_like(arr1, fill_value, shape=size or 0)
    if not assume_unique:
        arr1 = unique(arr1, size=size and arr1.size)
    mask = _in1d(arr1, arr2, invert=True, assume_unique=assume_unique)
    if size is None:
        return arr1[mask]
    if not assume_unique:
        # unique() padded arr1 with copies of its first value: those are not results
        n_unique = arr1.size + 1 - (arr1 == arr1[0]).sum()
        mask = where(arange(arr1.size) < n_unique, mask, False)
    return where(arange(size) < mask.sum(), arr1[where(mask, size=size)], fill_value)


def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted values found in either array."""
    ar1, ar2 = ensure_arraylike("union1d", ar1, ar2)
    if size is None:
        ar1 = _concrete_or_error(ar1, "The error arose in union1d()")
        ar2 = _concrete_or_error(ar2, "The error arose in union1d()")
    else:
        size = _static_size(size, "The error arose in union1d()")
    return unique(concatenate((ar1, ar2), axis=None), size=size, fill_value=fill_value)


@inner_jit(static_argnames=("assume_unique", "size"))
def _setxor1d_size(arr1: Any, arr2: Any, fill_value: Any, *, assume_unique: bool,
                   size: int) -> Any:
    """setxor1d with a static ``size``: the values that appear exactly once among the
    distinct values of both arrays, sorted; no data-dependent shape anywhere."""
    if assume_unique:
        arr = concatenate([arr1, arr2])  # NB: unused, as in JAX (it shows in the jaxpr)
        aux = sort(concatenate([arr1, arr2]))
        flag = concatenate((bool(aux.size), aux[1:] != aux[:-1], True), axis=None)
    else:
        arr, num_unique = _concat_unique(arr1, arr2)
        # sort the real values first (~mask is False for them), by value
        mask = arange(arr.size + 1) < num_unique + 1
        _, aux = lax.sort([~mask[1:], arr], is_stable=True, num_keys=2)
        flag = mask & concatenate((bool(aux.size), aux[1:] != aux[:-1], False),
                                  axis=None).at[num_unique].set(True)
    # aux[i] is a result when it differs from both neighbours
    aux_mask = flag[1:] & flag[:-1]
    num_results = aux_mask.sum()
    if aux.size:
        indices = nonzero(aux_mask, size=size, fill_value=len(aux))[0]
        vals = aux.at[indices].get(mode="fill", fill_value=0)
    else:
        vals = zeros(size, aux.dtype)
    if fill_value is None:
        vals = where(arange(len(vals)) < num_results, vals, vals.max())
        return where(arange(len(vals)) < num_results, vals, vals.min())
    return where(arange(len(vals)) < num_results, vals, fill_value)


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
             fill_value: Any = None) -> Any:
    """The sorted values found in exactly one of the two arrays."""
    ar1, ar2 = ensure_arraylike("setxor1d", ar1, ar2)
    arr1, arr2 = promote_dtypes(ravel(ar1), ravel(ar2))
    if size is not None:
        return _setxor1d_size(arr1, arr2, fill_value=fill_value,
                              assume_unique=assume_unique, size=size)
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = concatenate((arr1, arr2))
    if aux.size == 0:
        return aux
    aux = sort(aux)
    flag = concatenate((True, aux[1:] != aux[:-1], True), axis=None)
    return aux[flag[1:] & flag[:-1]]


@inner_jit(static_argnames=("return_indices",))
def _intersect1d_sorted_mask(arr1: Any, arr2: Any,
                             return_indices: bool) -> tuple[Any, Any, Any]:
    """Sort both (distinct) arrays together: a value in both appears twice in a row.
    Returns the sorted values, the mask of "equal to the next", and the permutation."""
    arr = concatenate((arr1, arr2))
    if return_indices:
        iota = lax.broadcasted_iota(_index_dtype(arr.shape[0]), np.shape(arr), 0)
        aux, indices = lax.sort_key_val(arr, iota)
    else:
        aux = sort(arr)
        indices = None
    mask = aux[1:] == aux[:-1]
    return aux, mask, indices


@inner_jit(static_argnames=("fill_value", "assume_unique", "size", "return_indices"))
def _intersect1d_size(arr1: Any, arr2: Any, fill_value: Any, assume_unique: bool,
                      size: int, return_indices: bool) -> Any:
    """intersect1d with a static ``size``."""
    # 1. The distinct values of arr1, then those of arr2 (padding after both), sorted
    #    together with the real values first; ind1/ind2 map them back to the inputs.
    if assume_unique:
        ind1, num_unique1 = arange(arr1.size), full((), arr1.size)
        ind2 = arange(arr2.size)
        arr = concatenate([arr1, arr2])
        aux, aux_sort_indices = lax.sort([arr, arange(arr.size)], is_stable=True, num_keys=1)
        mask = ones(arr.size, dtype=bool)
    else:
        arr1, ind1, num_unique1 = _unique(arr1, 0, size=arr1.size, return_index=True,
                                          return_true_size=True, fill_value=0)
        arr2, ind2, num_unique2 = _unique(arr2, 0, size=arr2.size, return_index=True,
                                          return_true_size=True, fill_value=0)
        arr = zeros(arr1.size + arr2.size, dtype=dtypes.result_type(arr1, arr2))
        arr = lax.dynamic_update_slice(arr, arr1, (0,))
        arr = lax.dynamic_update_slice(arr, arr2, (num_unique1,))
        mask = arange(arr.size) < num_unique1 + num_unique2
        _, aux, aux_sort_indices = lax.sort([~mask, arr, arange(arr.size)], is_stable=True,
                                            num_keys=2)

    # 2. A value in both arrays appears twice in a row: keep the first copy of each pair,
    #    compacted to the front; the rest is fill.
    aux_mask = (aux[1:] == aux[:-1]) & mask[1:]
    num_results = aux_mask.sum()
    if aux.size:
        val_indices = nonzero(aux_mask, size=size, fill_value=aux.size)[0]
        vals = aux.at[val_indices].get(mode="fill", fill_value=0)
    else:
        val_indices = arange(0)
        vals = zeros(size, aux.dtype)
    if fill_value is None:
        vals = where(arange(len(vals)) < num_results, vals, vals.max())
        vals = where(arange(len(vals)) < num_results, vals, vals.min())
    else:
        vals = where(arange(len(vals)) < num_results, vals, fill_value)
    if not return_indices:
        return vals

    # 3. Where they came from: the first copy of a pair is from arr1, the second from
    #    arr2 (whose positions start at num_unique1); then back through unique's indices.
    arr1_indices = aux_sort_indices.at[val_indices].get(mode="fill", fill_value=arr1.size)
    arr1_indices = where(arange(len(arr1_indices)) < num_results, arr1_indices, arr1.size)
    arr2_indices = aux_sort_indices.at[val_indices + 1].get(
        mode="fill", fill_value=arr2.size) - num_unique1
    arr2_indices = where(arange(len(arr2_indices)) < num_results, arr2_indices, arr2.size)
    if not assume_unique:
        arr1_indices = ind1.at[arr1_indices].get(mode="fill", fill_value=ind1.size)
        arr2_indices = ind2.at[arr2_indices].get(mode="fill", fill_value=ind2.size)
    return vals, arr1_indices, arr2_indices


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False,
                *, size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted values found in both arrays (with ``return_indices``, also where each
    first occurs in each array)."""
    ar1, ar2 = ensure_arraylike("intersect1d", ar1, ar2)
    arr1, arr2 = promote_dtypes(ar1, ar2)
    arr1, arr2 = ravel(arr1), ravel(arr2)
    if size is not None:
        return _intersect1d_size(arr1, arr2, return_indices=return_indices, size=size,
                                 fill_value=fill_value, assume_unique=assume_unique)
    ind1 = ind2 = arange(0)
    if not assume_unique:
        if return_indices:
            arr1, ind1 = unique(arr1, return_index=True)
            arr2, ind2 = unique(arr2, return_index=True)
        else:
            arr1, arr2 = unique(arr1), unique(arr2)
    aux, mask, aux_sort_indices = _intersect1d_sorted_mask(arr1, arr2, return_indices)
    int1d = aux[:-1][mask]
    if not return_indices:
        return int1d
    arr1_indices = aux_sort_indices[:-1][mask]
    arr2_indices = aux_sort_indices[1:][mask] - np.size(arr1)
    if not assume_unique:
        arr1_indices, arr2_indices = ind1[arr1_indices], ind2[arr2_indices]
    return int1d, arr1_indices, arr2_indices
