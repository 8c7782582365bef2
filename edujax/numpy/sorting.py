"""Sorting and searching: sort, argsort, nonzero, argwhere, unique, searchsorted.

``lax.sort`` sorts several arrays by the first one, so argsort is "sort the pair
(x, 0..n-1) by x and keep the second". Functions whose output size depends on
the data (nonzero, unique) need concrete input, or a static ``size=``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core, dtypes, lax
from edujax.array import Array
from edujax.numpy.util import asarray, canonicalize_axis, check_arraylike


def sort(a: Any, axis: int | None = -1, *, kind: Any = None, order: Any = None,
         stable: bool = True, descending: bool = False) -> Any:
    """Sorted copy of ``a`` (NaNs last); ``axis=None`` sorts the flattened array."""
    check_arraylike("sort", a)
    a = asarray(a)
    if axis is None:
        a, axis = lax.reshape(a, (a.size,)), 0
    axis = canonicalize_axis(axis, a.ndim)
    out = lax.sort(a, axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


def argsort(a: Any, axis: int | None = -1, *, kind: Any = None, order: Any = None,
            stable: bool = True, descending: bool = False) -> Any:
    """Indices that would sort ``a`` (stable: equal elements keep their order)."""
    check_arraylike("argsort", a)
    a = asarray(a)
    if axis is None:
        a, axis = lax.reshape(a, (a.size,)), 0
    axis = canonicalize_axis(axis, a.ndim)
    if descending:
        # Sort the reversed array ascending, map indices back, reverse the result:
        # descending order in which equal elements still keep their original order.
        n = lax._convert_element_type(a.shape[axis] - 1, dtypes.int_dtype(), False)
        perm = argsort(lax.rev(a, (axis,)), axis, stable=stable)
        return lax.rev(lax.sub(n, perm), (axis,))
    iota = lax.broadcasted_iota(dtypes.int_dtype(), a.shape, axis)
    _, perm = lax.sort((a, iota), axis, is_stable=stable, num_keys=1)
    return perm


def _concrete_value(x: Any, name: str) -> np.ndarray:
    if isinstance(x, core.Tracer):
        value = x.to_concrete_value()
        if value is None:
            from edujax.errors import ConcretizationTypeError
            raise ConcretizationTypeError(
                x, f"The size argument of jnp.{name} must be statically specified to use "
                f"jnp.{name} within JAX transformations.\n")
        return np.asarray(value)
    return np.asarray(x)


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple:
    """Indices of the non-zero elements, one array per dimension (needs concrete input)."""
    check_arraylike("nonzero", a)
    value = _concrete_value(a, "nonzero")
    idx = np.nonzero(value)
    if size is not None:
        fill = 0 if fill_value is None else fill_value
        idx = tuple(np.concatenate([i[:size], np.full(max(size - len(i), 0), fill)]) for i in idx)
    return tuple(Array(i.astype(dtypes.int_dtype())) for i in idx)


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    return nonzero(np.ravel(_concrete_value(a, "flatnonzero")), size=size,
                   fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    idx = nonzero(a, size=size, fill_value=fill_value)
    if not idx:
        return Array(np.zeros((int(bool(np.asarray(a))), 0), dtypes.int_dtype()))
    return Array(np.stack([np.asarray(i) for i in idx], axis=1))


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, size: int | None = None,
           fill_value: Any = None) -> Any:
    """Sorted unique values (needs concrete input: the result's length depends on data)."""
    value = _concrete_value(ar, "unique")
    out = np.unique(value, return_index=return_index, return_inverse=return_inverse,
                    return_counts=return_counts, axis=axis)
    if not isinstance(out, tuple):
        return Array(out.astype(dtypes.canonicalize_dtype(out.dtype)))
    return tuple(Array(o.astype(dtypes.canonicalize_dtype(o.dtype))) for o in out)


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None,
                 method: str = "scan") -> Any:
    """Where to insert ``v`` into sorted ``a``: count the elements that come before."""
    a, v = asarray(a), asarray(v)
    if sorter is not None:
        a = a[asarray(sorter)]
    cmp = lax.lt if side == "left" else lax.le
    from edujax.numpy.reductions import sum
    from edujax.numpy.util import promote_dtypes
    a, v = promote_dtypes(a, v)
    a, v = asarray(a), asarray(v)
    before = cmp(lax.broadcast_in_dim(a, v.shape + a.shape, (v.ndim,)),
                 lax.broadcast_in_dim(v, v.shape + a.shape, tuple(range(v.ndim))))
    return sum(before, axis=-1, dtype=dtypes.int_dtype())
