"""Triangles and diagonals of matrices: tril, triu, diagonal, diag, trace.

Each is a mask or a few slices: ``tril`` keeps what a ``tri`` mask marks, ``diag`` of a vector
puts it on the diagonal of an ``eye`` mask, ``trace`` sums what an ``eye`` mask keeps. They build
on creation.py (the masks), ufuncs.py and reductions.py.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from edujax import dtypes, lax
from edujax.inner_jit import inner_jit
from edujax.numpy.creation import arange, eye, tri, zeros_like
from edujax.numpy.indexing import getitem
from edujax.numpy.reductions import sum
from edujax.numpy.shape_ops import moveaxis
from edujax.numpy.ufuncs import _where
from edujax.numpy.util import canonicalize_axis, ensure_array


def _triangle_mask(name: str, m: Any, k: int) -> tuple[Any, Any]:
    """(the array, a bool mask of its last two axes that is True at and below diagonal k)."""
    a = ensure_array(name, m)
    shape = np.shape(a)
    if len(shape) < 2:
        raise ValueError(f"Argument to jax.numpy.{name} must be at least 2D")
    mask = tri(shape[-2], shape[-1], k=k, dtype=bool)
    return a, lax.broadcast(mask, shape[:-2])


@inner_jit(static_argnames=("k",))
def tril(m: Any, k: int = 0) -> Any:
    """Zero out the elements above the k-th diagonal."""
    a, below = _triangle_mask("tril", m, k)
    return lax.select(below, a, zeros_like(a))


@inner_jit(static_argnames=("k",))
def triu(m: Any, k: int = 0) -> Any:
    """Zero out the elements below the k-th diagonal."""
    a, below = _triangle_mask("triu", m, k - 1)
    return lax.select(below, zeros_like(a), a)


@inner_jit(static_argnames=("offset", "axis1", "axis2"))
def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The k-th diagonal of the matrices formed by ``axis1`` and ``axis2`` (last axis
    of the result): element i is ``a[..., i, i + offset]``, one gather with two index
    vectors, as in JAX."""
    a = ensure_array("diagonal", a)
    if np.ndim(a) < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = operator.index(offset)

    def gather_diagonal(a: Any) -> Any:
        shape = np.shape(a)
        a = moveaxis(a, (axis1, axis2), (-2, -1))
        length = builtins.max(0, builtins.min(shape[axis1] + builtins.min(offset, 0),
                                              shape[axis2] - builtins.max(offset, 0)))
        i = arange(length)
        j = arange(builtins.abs(offset), builtins.abs(offset) + length)
        return getitem(a, (Ellipsis, i, j) if offset >= 0 else (Ellipsis, j, i))

    shape, dtype = np.shape(a), dtypes.dtype_and_weak(a)[0]
    if shape[0] != shape[1] or len(shape) != 2 or offset != 0 or dtype == np.bool_:
        return gather_diagonal(a)
    # A square matrix's main diagonal: JAX keeps a second way for TPUs' Mosaic compiler,
    # a column sum of the matrix times the identity, and lets the platform choose. On
    # every other platform (and so in edujax) the gather runs.
    identity = eye(shape[0], dtype=dtype)
    return lax.platform_dependent(
        a, default=gather_diagonal,
        mosaic=lambda a: lax.reduce_sum(lax.mul(identity, a), (0,)))


def diag(v: Any, k: int = 0) -> Any:
    """The k-th diagonal of a matrix, or a matrix with the vector ``v`` on its k-th diagonal."""
    v = ensure_array("diag", v)
    return _diag(v, operator.index(k))


@inner_jit(static_argnames=("k",))
def _diag(v: Any, k: int) -> Any:
    if np.ndim(v) == 2:
        return diagonal(v, offset=k)
    if np.ndim(v) != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = np.shape(v)[0] + builtins.abs(k)
    zero = lax.full_like(v, 0, shape=())
    padded = lax.pad(v, zero, ((builtins.max(0, -k), builtins.max(0, k), 0),))
    # Row r of the result holds padded[r] on its diagonal: a column vector, broadcast.
    return _where(eye(n, k=k, dtype=bool), lax.expand_dims(padded, (1,)), zero)


@inner_jit(static_argnames=("axis1", "axis2", "dtype"))
def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: None = None) -> Any:
    """The sum of the k-th diagonal: mask everything else with an eye, then sum.

    ``offset`` is not static (as in JAX): a traced offset moves the mask, never a shape."""
    a = ensure_array("trace", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    ndim = np.ndim(a)
    if canonicalize_axis(axis1, ndim) == canonicalize_axis(axis2, ndim):
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    shape = np.shape(a)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    a = _where(eye(shape[axis1], shape[axis2], k=offset, dtype=bool), a, zeros_like(a))
    return sum(a, axis=(-2, -1), dtype=dtype)
