"""Building index arrays: r_, c_, mgrid, ogrid, s_, index_exp, ix_, indices, the
diagonal/triangle index helpers, ravel_multi_index and unravel_index.

``r_``, ``c_``, ``mgrid`` and ``ogrid`` are objects used with square brackets, so that
slice syntax can describe ranges: ``jnp.r_[0:3, 7]`` is ``[0, 1, 2, 7]``, and
``jnp.mgrid[0:1:5j]`` (an imaginary step) asks for 5 points *including* the end, like
``linspace``. All their slices must be concrete Python values: the result's shape
depends on them.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from edujax import core, dtypes, lax
from edujax.errors import ConcretizationTypeError
from edujax.numpy import reductions
from edujax.numpy.creation import arange, array, linspace, meshgrid, ones
from edujax.numpy.diagonals import tril, triu
from edujax.numpy.shape_ops import concatenate, expand_dims, stack, transpose
from edujax.numpy.sorting import nonzero
from edujax.numpy.ufuncs import _where, clip, divmod as _divmod
from edujax.numpy.util import ensure_array, ensure_arraylike

s_ = np.s_
index_exp = np.index_exp


def _concrete_index(x: Any, context: str) -> int:
    if isinstance(x, core.Tracer):
        raise ConcretizationTypeError(x, context)
    return operator.index(x)


def _concrete_scalar(x: Any, context: str) -> Any:
    if isinstance(x, core.Tracer):
        raise ConcretizationTypeError(x, context)
    return x


def _make_1d_grid_from_slice(s: slice, op_name: str) -> Any:
    """``start:stop:step`` as an ``arange``, or with an imaginary step ``n*1j`` as
    ``linspace(start, stop, n)`` (NumPy's convention)."""
    start = _concrete_scalar(s.start, f"slice start of jnp.{op_name}") or 0
    stop = _concrete_scalar(s.stop, f"slice stop of jnp.{op_name}")
    step = _concrete_scalar(s.step, f"slice step of jnp.{op_name}") or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


class _AxisConcat:
    """What ``r_`` and ``c_`` share: concatenate the items along ``axis`` after giving
    each at least ``ndmin`` dimensions. A leading string changes these settings:
    ``"r"``/``"c"`` ask for a row/column matrix, ``"axis,ndmin,trans1d"`` sets them."""
    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key: Any) -> Any:
        key_tup = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]
        directive = key_tup[0]
        if isinstance(directive, str):
            key_tup = key_tup[1:]
            params = self._parse_directive(directive, params)
        axis, ndmin, trans1d, matrix = params
        output = [self._prepare(item, ndmin, trans1d) for item in key_tup]
        res = concatenate(tuple(output), axis=axis)
        if matrix != -1 and np.ndim(res) == 1:
            res = expand_dims(res, matrix)  # "r" gives a row, "c" a column
        return res

    @staticmethod
    def _parse_directive(directive: str, params: list) -> list:
        if directive == "r":
            params[-1] = 0
        elif directive == "c":
            params[-1] = 1
        else:
            vec: list = directive.split(",")
            # missing settings keep their defaults; a fourth and later are ignored
            vec = vec + params[len(vec):] if len(vec) < 4 else vec[:3] + [params[-1]]
            try:
                params = [int(v) for v in vec]
            except ValueError as err:
                raise ValueError(f"could not understand directive {directive!r}") from err
        return params

    def _prepare(self, item: Any, ndmin: int, trans1d: int) -> Any:
        if isinstance(item, slice):
            newobj, item_ndim = _make_1d_grid_from_slice(item, op_name=self.op_name), 0
        elif isinstance(item, str):
            raise ValueError("string directive must be placed at the beginning")
        else:
            newobj = array(item, copy=False)
            item_ndim = np.ndim(newobj)
        newobj = array(newobj, copy=False, ndmin=ndmin)
        if trans1d != -1 and ndmin - item_ndim > 0:
            # move the item's own axes to where trans1d says (NumPy's rule, by rotation)
            shape_obj = tuple(range(ndmin))
            num_lshifts = ndmin - abs(ndmin + trans1d + 1) % ndmin
            newobj = transpose(newobj, shape_obj[num_lshifts:] + shape_obj[:num_lshifts])
        return newobj

    def __len__(self) -> int:
        return 0


class RClass(_AxisConcat):
    """``jnp.r_``: concatenate along the first axis (rows)."""
    axis, ndmin, trans1d, op_name = 0, 1, -1, "r_"


class CClass(_AxisConcat):
    """``jnp.c_``: stack 1-D items as columns (concatenate along the last axis, each
    item made at least 2-D with its values down a column)."""
    axis, ndmin, trans1d, op_name = -1, 2, 0, "c_"


class _Mgrid:
    """``jnp.mgrid[a:b, c:d]``: dense coordinate grids, stacked (``meshgrid`` with
    ``indexing="ij"``)."""

    def __getitem__(self, key: slice | tuple[slice, ...]) -> Any:
        if isinstance(key, slice):
            return _make_1d_grid_from_slice(key, op_name="mgrid")
        output = [_make_1d_grid_from_slice(k, op_name="mgrid") for k in key]
        if not output:
            return arange(0)
        return stack(meshgrid(*output, indexing="ij", sparse=False), 0)


class _Ogrid:
    """``jnp.ogrid[a:b, c:d]``: open (sparse) grids that broadcast against each other."""

    def __getitem__(self, key: slice | tuple[slice, ...]) -> Any:
        if isinstance(key, slice):
            return _make_1d_grid_from_slice(key, op_name="ogrid")
        output = [_make_1d_grid_from_slice(k, op_name="ogrid") for k in key]
        return meshgrid(*output, indexing="ij", sparse=True)


r_, c_, mgrid, ogrid = RClass(), CClass(), _Mgrid(), _Ogrid()


# ---------------------------------------------------------------- index arrays
def ix_(*args: Any) -> tuple:
    """Open mesh from 1-D index arrays: ``a[ix_(rows, cols)]`` is the sub-matrix."""
    args = ensure_arraylike("ix", *args)
    n = len(args)
    output = []
    for i, a in enumerate(args):
        a = ensure_array("ix_", a)
        if np.ndim(a) != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{np.shape(a)}")
        if a.dtype == dtypes.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * n
        shape[i] = a.shape[0]
        output.append(lax.broadcast_in_dim(a, tuple(shape), (i,)))
    return tuple(output)


def indices(dimensions: Any, dtype: Any = None, sparse: bool = False) -> Any:
    """The index grids of an array of shape ``dimensions``: ``indices((2, 3))[0][i, j]``
    is ``i`` and ``[1][i, j]`` is ``j`` (stacked, or a tuple of open grids if
    ``sparse``)."""
    dtype = dtypes.canonicalize_dtype(int if dtype is None else dtype)
    dimensions = tuple(_concrete_index(d, "dimensions argument of jnp.indices")
                       for d in dimensions)
    n = len(dimensions)
    output = []
    for i, dim in enumerate(dimensions):
        shape = (1,) * i + (dim,) + (1,) * (n - i - 1) if sparse else dimensions
        output.append(lax.broadcast_in_dim(lax.iota(dtype, dim), shape, (i,)))
    if sparse:
        return tuple(output)
    return stack(output, 0) if output else array([], dtype=dtype)


def diag_indices(n: int, ndim: int = 2) -> tuple:
    """The indices of the main diagonal of an ``n`` x ... x ``n`` array."""
    n = _concrete_index(n, "'n' argument of jnp.diag_indices()")
    ndim = _concrete_index(ndim, "'ndim' argument of jnp.diag_indices()")
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (lax.iota(dtypes.int_dtype(), n),) * ndim


def diag_indices_from(arr: Any) -> tuple:
    """``diag_indices`` for a square array ``arr``."""
    arr = ensure_array("diag_indices_from", arr)
    if np.ndim(arr) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(np.shape(arr))) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(np.shape(arr)[0], ndim=np.ndim(arr))


def _triangle_indices(triangle: Callable, name: str, n: int, k: int, m: int | None,
                      size: Callable[[int, int, int], int]) -> tuple:
    """(rows, cols) where ``triangle(ones((n, m)), k)`` is non-zero: a ``nonzero`` whose
    size is known from the shape alone (JAX computes them so, in the program)."""
    n = _concrete_index(n, f"n argument of jnp.{name}")
    k = _concrete_index(k, f"k argument of jnp.{name}")
    m = n if m is None else _concrete_index(m, f"m argument of jnp.{name}")
    return nonzero(triangle(ones((n, m)), k=k), size=size(n, m, k))


def _triu_size(n: int, m: int, k: int) -> int:
    """How many elements of an ``n`` x ``m`` matrix lie on or above diagonal ``k``."""
    if k < 0:
        return n * m - _triu_size(m, n, 1 - k)
    if k >= m:
        return 0
    mk = min(n, m - k)
    return mk * (mk + 1) // 2 + mk * (m - k - mk)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """(rows, cols) of the lower triangle of an ``n`` x ``m`` matrix, diagonal ``k``
    included."""
    # (JAX's messages name triu_indices here too)
    return _triangle_indices(tril, "triu_indices", n, k, m,
                             lambda n, m, k: _triu_size(m, n, -k))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """(rows, cols) of the upper triangle of an ``n`` x ``m`` matrix."""
    return _triangle_indices(triu, "triu_indices", n, k, m, _triu_size)


def tril_indices_from(arr: Any, k: int = 0) -> tuple:
    shape = np.shape(ensure_array("tril_indices_from", arr))
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return tril_indices(shape[0], k=k, m=shape[1])


def triu_indices_from(arr: Any, k: int = 0) -> tuple:
    shape = np.shape(ensure_array("triu_indices_from", arr))
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return triu_indices(shape[0], k=k, m=shape[1])


def mask_indices(n: int, mask_func: Callable, k: int = 0, *, size: int | None = None) -> tuple:
    """The indices where ``mask_func(ones((n, n)), k)`` is non-zero (``triu``, ``tril``)."""
    i, j = nonzero(mask_func(ones((n, n)), k), size=size)
    return i, j


# ---------------------------------------------------------------- flat <-> multi indices
def ravel_multi_index(multi_index: tuple, dims: tuple, mode: str = "raise",
                      order: str = "C") -> Any:
    """The flat index of each coordinate tuple in an array of shape ``dims``."""
    if len(multi_index) != len(dims):
        raise AssertionError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(_concrete_index(d, "in `dims` argument of ravel_multi_index().") for d in dims)
    index_arrs = [ensure_array("ravel_multi_index", i) for i in multi_index]
    for index in index_arrs:
        if mode == "raise" and isinstance(index, core.Tracer):
            raise ConcretizationTypeError(
                index, "The error occurred because ravel_multi_index was jit-compiled with "
                       "mode='raise'. Use mode='wrap' or mode='clip' instead.")
        if index.dtype.kind not in "iu":
            raise ValueError(f"dtype={index.dtype!r} is not an integer type.")
    if mode == "raise":
        if any(reductions.any((i < 0) | (i >= d)) for i, d in zip(index_arrs, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        index_arrs = [clip(i, 0, d - 1) for i, d in zip(index_arrs, dims)]
    elif mode == "wrap":
        index_arrs = [i % d for i, d in zip(index_arrs, dims)]
    else:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = array(0, dtype=index_arrs[0].dtype if index_arrs else dtypes.int_dtype())
    for i, s in zip(index_arrs, strides):
        result = result + i * int(s)
    return result


def unravel_index(indices: Any, shape: Any) -> tuple:
    """The coordinates of flat ``indices`` in an array of ``shape`` (out-of-bounds
    indices are clipped to the nearest corner, where NumPy raises)."""
    indices_arr = ensure_array("unravel_index", indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out_indices: list = [0] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        indices_arr, out_indices[i] = _divmod(indices_arr, s)
    oob_pos = indices_arr > 0
    oob_neg = indices_arr < -1
    return tuple(_where(oob_pos, s - 1, _where(oob_neg, 0, i))
                 for s, i in zip(shape, out_indices))
