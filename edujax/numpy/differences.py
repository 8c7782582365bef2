"""Finite differences and integrals: diff, ediff1d, gradient, trapezoid.

All are slices and subtractions (``a[1:] - a[:-1]``), so grad and vmap come for free
and the jaxprs show ``slice`` and ``sub`` as JAX's do.
"""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from edujax import core, dtypes, lax
from edujax.numpy import ufuncs
from edujax.numpy.shape_ops import concatenate, moveaxis, ravel
from edujax.numpy.util import (asarray, broadcast_to, canonicalize_axis, check_arraylike,
                               ensure_array, ensure_arraylike, promote_dtypes_inexact)
from edujax.inner_jit import inner_jit


def _slice_along(a: Any, axis: int, start: int | None, stop: int | None) -> Any:
    """``a[..., start:stop, ...]`` with the slice on ``axis`` (a lax.slice)."""
    return lax.slice_in_dim(a, start, stop, axis=axis)


def _edge_shaped(value: Any, like: Any, axis: int) -> Any:
    """A scalar ``prepend``/``append`` becomes a slab of size 1 along ``axis``."""
    value = ensure_array("diff", value)
    if np.ndim(value) == 0:
        shape = list(np.shape(like))
        shape[axis] = 1
        value = broadcast_to(value, tuple(shape))
    return value


@inner_jit(static_argnames=("n", "axis"))
def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """The ``n``-th discrete difference along ``axis``: ``a[1:] - a[:-1]``, ``n`` times.
    For booleans the difference is ``!=`` (did the value change?)."""
    arr = ensure_array("diff", a)
    n, axis = operator.index(n), operator.index(axis)
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if np.ndim(arr) == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = canonicalize_axis(axis, np.ndim(arr))
    combined = [arr]
    if prepend is not None:
        combined.insert(0, _edge_shaped(prepend, arr, axis))
    if append is not None:
        combined.append(_edge_shaped(append, arr, axis))
    if len(combined) > 1:
        arr = concatenate(combined, axis)
    op = ufuncs.not_equal if arr.dtype == dtypes.bool_ else ufuncs.subtract
    # basic indexing (a static ``slice`` without strides in the jaxpr, as in JAX's diff)
    upper = tuple(slice(1, None) if i == axis else slice(None) for i in range(np.ndim(arr)))
    lower = tuple(slice(None, -1) if i == axis else slice(None) for i in range(np.ndim(arr)))
    for _ in range(n):
        arr = op(arr[upper], arr[lower])
    return arr


@inner_jit
def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """Differences of the flattened array, with optional values put before and after."""
    arr = ravel(ensure_arraylike("ediff1d", ary)[0])
    result = lax.sub(arr[1:], arr[:-1])
    if to_begin is not None:
        to_begin, = ensure_arraylike("ediff1d", to_begin)
        result = concatenate((ravel(lax.convert_element_type(to_begin, arr.dtype)), result))
    if to_end is not None:
        to_end, = ensure_arraylike("ediff1d", to_end)
        result = concatenate((result, ravel(lax.convert_element_type(to_end, arr.dtype))))
    return result


# ---------------------------------------------------------------- gradient
def _gradient_along_axis(a: Any, h: Any, axis: int) -> Any:
    """Central differences inside, one-sided differences at the two edges (NumPy's
    ``edge_order=1``). ``h`` is a scalar spacing or the 1-D coordinates along ``axis``."""
    def sliced(start, stop):
        return _slice_along(a, axis, start, stop)
    upper_edge = sliced(1, 2) - sliced(0, 1)
    lower_edge = sliced(-1, None) - sliced(-2, -1)
    if np.ndim(h) == 0:
        inner = (sliced(2, None) - sliced(None, -2)) * 0.5 / h
        lower_edge = lower_edge / h  # (this one first, as in JAX: the jaxpr shows the order)
        return concatenate((upper_edge / h, inner, lower_edge), axis=axis)
    if np.ndim(h) != 1:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    h_shape = [1] * np.ndim(a)
    h_shape[axis] = np.shape(h)[0]
    h = lax.reshape(h, tuple(h_shape))

    def sliced_x(start, stop):
        return _slice_along(h, axis, start, stop)
    upper_edge = upper_edge / (sliced_x(1, 2) - sliced_x(0, 1))
    lower_edge = lower_edge / (sliced_x(-1, None) - sliced_x(-2, -1))
    # second-order accurate weights for uneven spacing (NumPy's formula)
    dx1 = sliced_x(1, -1) - sliced_x(0, -2)
    dx2 = sliced_x(2, None) - sliced_x(1, -1)
    w_left = -dx2 / (dx1 * (dx1 + dx2))
    w_mid = (dx2 - dx1) / (dx1 * dx2)
    w_right = dx1 / (dx2 * (dx1 + dx2))
    inner = w_left * sliced(0, -2) + w_mid * sliced(1, -1) + w_right * sliced(2, None)
    return concatenate((upper_edge, inner, lower_edge), axis=axis)


def _axis_tuple(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(canonicalize_axis(ax, ndim) for ax in axes)


@inner_jit(static_argnames=("axis", "edge_order"))
def gradient(f: Any, *varargs: Any, axis: int | Sequence[int] | None = None,
             edge_order: int | None = None) -> Any:
    """The numerical gradient of sampled values ``f``: one array per axis (a single
    array when there is one axis). ``varargs`` give the spacing: one scalar for every
    axis, or one scalar or coordinate array per axis."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f, *varargs)
    a, *spacing = promote_dtypes_inexact(f, *varargs)
    axes = _axis_tuple(axis, np.ndim(a))
    if min((s for i, s in enumerate(np.shape(a)) if i in axes), default=2) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "2 elements are required.")
    if not spacing:
        dx = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = spacing * len(axes)
    elif len(spacing) == len(axes):
        dx = spacing
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for {axis=}")
    grads = [_gradient_along_axis(a, h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


@inner_jit(static_argnames=("axis",))
def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """The integral of ``y`` by the trapezoid rule, with sample points ``x`` (or an even
    spacing ``dx``): the sum of ``dx * (y[i] + y[i+1]) / 2``.

    As in JAX, an even spacing takes a shortcut: ``dx * (sum(y) - (y[0] + y[-1]) / 2)``.
    """
    if x is None:
        y, = ensure_arraylike("trapezoid", y)
        y_arr, = promote_dtypes_inexact(y)
        dx_array = asarray(dx)
        if dx_array.ndim == 0 and not isinstance(dx_array, core.Tracer):
            # JAX's asarray stages a constant scalar while tracing: it prints as 1.0:f32[]
            dx_array = lax.stage(np.asarray(dx_array)[()])
        if dx_array.ndim > 0:
            dx_array = lax.expand_dims(dx_array, range(y_arr.ndim - dx_array.ndim))
            dx_array = moveaxis(dx_array, axis, -1)
    else:
        y, x = ensure_arraylike("trapezoid", y, x)
        y_arr, x_arr = promote_dtypes_inexact(y, x)
        dx_array = (diff(x_arr) if x_arr.ndim == 1
                    else moveaxis(diff(x_arr, axis=axis), axis, -1))
    y_arr = moveaxis(y_arr, axis, -1)
    if dx_array.ndim == 0 or dx_array.shape[-1] == 1:  # dx is the same along the axis
        dx_reduced = dx_array if dx_array.ndim == 0 else dx_array[..., 0]
        return dx_reduced * (y_arr.sum(-1) - 0.5 * (y_arr[..., 0] + y_arr[..., -1]))
    return 0.5 * (dx_array * (y_arr[..., 1:] + y_arr[..., :-1])).sum(-1)
