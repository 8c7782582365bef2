"""Set operations on arrays: the Array API's unique_* functions, isin, and the 1-D set
operations intersect1d, union1d, setdiff1d, setxor1d.

Membership (``isin``) compares every element with every test element (a broadcast
``==`` then ``any``), so it works under jit and vmap. The others return as many elements
as the data has distinct values: like ``unique``, they need concrete input, or a
``size`` (the result padded with ``fill_value``).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from edujax import lax
from edujax.numpy import reductions
from edujax.numpy.creation import full_like, ones, zeros
from edujax.numpy.shape_ops import concatenate, ravel
from edujax.numpy.sorting import sort, unique
from edujax.numpy.util import ensure_arraylike, promote_dtypes


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
    return _UniqueAllResult(values, indices, _shaped_like(inverse_indices, x), counts)


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
    return _UniqueInverseResult(values, _shaped_like(inverse_indices, x))


def unique_values(x: Any, /, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The distinct values, sorted."""
    x, = ensure_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def _shaped_like(inverse: Any, x: Any) -> Any:
    """The Array API gives inverse indices the shape of the input."""
    return lax.reshape(inverse, np.shape(x))


# ---------------------------------------------------------------- membership
def _in1d(ar1: Any, ar2: Any, invert: bool) -> Any:
    """For each element of ``ar1`` (flattened): is it in ``ar2``? One broadcast
    comparison of every pair: memory n*m, but jit- and vmap-friendly."""
    arr1, arr2 = promote_dtypes(*ensure_arraylike("in1d", ar1, ar2))
    arr1, arr2 = ravel(arr1), ravel(arr2)
    if np.size(arr1) == 0 or np.size(arr2) == 0:
        return (ones if invert else zeros)(np.shape(arr1), dtype=bool)
    if invert:
        return reductions.all(arr1[:, None] != arr2[None, :], -1)
    return reductions.any(arr1[:, None] == arr2[None, :], -1)


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False,
         *, method: str = "auto") -> Any:
    """True where an element of ``element`` is one of ``test_elements``."""
    element, test_elements = ensure_arraylike("isin", element, test_elements)
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise ValueError(f"{method=} is not implemented; options are 'compare_all', "
                         "'binary_search', 'sort', and 'auto'")
    # NB: every method gives the same answer; we always compare all pairs.
    return lax.reshape(_in1d(element, test_elements, invert), np.shape(element))


# ---------------------------------------------------------------- 1-D set operations
def _padded(values: Any, size: int | None, fill_value: Any) -> Any:
    """``values`` cut or padded to ``size`` (padding with ``fill_value``, by default the
    smallest value, as ``unique`` does)."""
    if size is None:
        return values
    n = np.shape(values)[0]
    if n >= size:
        return values[:size]
    if fill_value is None:
        fill_value = reductions.min(values) if n else 0
    return concatenate([values, full_like(values, fill_value, shape=(size - n,))])


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False,
                *, size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted values found in both arrays (with ``return_indices``, also where each
    first occurs in each array)."""
    ar1, ar2 = ensure_arraylike("intersect1d", ar1, ar2)
    arr1, arr2 = (ravel(a) for a in promote_dtypes(ar1, ar2))
    if return_indices:
        if assume_unique:
            u1, i1, u2, i2 = arr1, np.arange(np.size(arr1)), arr2, np.arange(np.size(arr2))
        else:
            u1, i1 = unique(arr1, return_index=True)
            u2, i2 = unique(arr2, return_index=True)
        values, k1, k2 = np.intersect1d(np.asarray(u1), np.asarray(u2), assume_unique=True,
                                        return_indices=True)
        pick = np.asarray
        return (_padded(lax.convert_element_type(values, arr1.dtype), size, fill_value),
                _padded(lax.convert_element_type(pick(i1)[k1], np.int32), size, 0),
                _padded(lax.convert_element_type(pick(i2)[k2], np.int32), size, 0))
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    return _padded(arr1[_in1d(arr1, arr2, False)], size, fill_value)


def union1d(ar1: Any, ar2: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted values found in either array."""
    ar1, ar2 = ensure_arraylike("union1d", ar1, ar2)
    return unique(concatenate((ar1, ar2), axis=None), size=size, fill_value=fill_value)


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
              fill_value: Any = None) -> Any:
    """The sorted values of ``ar1`` that are not in ``ar2``."""
    arr1, arr2 = ensure_arraylike("setdiff1d", ar1, ar2)
    arr1, arr2 = ravel(arr1), ravel(arr2)
    fill = 0 if fill_value is None else fill_value
    if np.size(arr1) == 0:
        return full_like(arr1, fill, shape=(size or 0,))
    if not assume_unique:
        arr1 = unique(arr1)
    result = arr1[_in1d(arr1, arr2, True)]
    return _padded(result, size, fill)


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False, *, size: int | None = None,
             fill_value: Any = None) -> Any:
    """The sorted values found in exactly one of the two arrays."""
    ar1, ar2 = ensure_arraylike("setxor1d", ar1, ar2)
    arr1, arr2 = promote_dtypes(ravel(ar1), ravel(ar2))
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = concatenate((arr1, arr2))
    if np.size(aux) == 0:
        return aux
    aux = sort(aux)
    flag = concatenate((True, aux[1:] != aux[:-1], True), axis=None)
    return _padded(aux[flag[1:] & flag[:-1]], size, fill_value)
