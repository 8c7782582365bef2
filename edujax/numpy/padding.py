"""``jnp.pad``: add values around an array, in each of NumPy's modes.

Every mode is built from a few lax operations, one axis at a time, as JAX builds them:

* ``constant``: one ``lax.pad`` (the only mode with its own primitive);
* ``edge``, ``wrap``, ``reflect``, ``symmetric``: slices of the array (flipped for the
  reflections) concatenated before and after it;
* ``maximum``, ``minimum``, ``mean``, ``median``: a reduction over the first/last
  ``stat_length`` elements, repeated;
* ``linear_ramp``: a ``linspace`` from ``end_values`` to the edge;
* ``empty``: zeros (JAX has no uninitialized memory to hand out);
* a callable: NumPy's protocol, ``func(vector, pad_width, axis, kwargs)`` on every 1-D
  slice, run with ``apply_along_axis`` (so it is vmapped, not looped).

Since all of these are slices, concatenations and reductions, grad and vmap of ``pad``
need no rule of their own.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax import core, dtypes, lax
from edujax.errors import ConcretizationTypeError
from edujax.numpy import reductions
from edujax.numpy.creation import linspace, zeros
from edujax.numpy.functional import apply_along_axis
from edujax.numpy.shape_ops import flip, repeat
from edujax.numpy.statistics import median
from edujax.numpy.ufuncs import round as _round
from edujax.numpy.util import broadcast_to, ensure_array

_ALLOWED_KWARGS = {
    "empty": [], "edge": [], "wrap": [],
    "constant": ["constant_values"],
    "linear_ramp": ["end_values"],
    "maximum": ["stat_length"], "mean": ["stat_length"], "median": ["stat_length"],
    "minimum": ["stat_length"],
    "reflect": ["reflect_type"], "symmetric": ["reflect_type"],
}


def _concrete(x: Any, name: str) -> Any:
    if isinstance(x, core.Tracer):
        raise ConcretizationTypeError(x, f"{name} argument of jnp.pad")
    return np.asarray(x) if hasattr(x, "dtype") else x


def _broadcast_to_pairs(nvals: Any, nd: int, name: str) -> tuple:
    """``pad_width`` (or ``stat_length``, ``end_values``) in any of NumPy's short forms,
    as one (before, after) pair per axis."""
    nvals = np.asarray(_concrete_tree(nvals, name))
    if nvals.shape == (nd, 2):
        return tuple(tuple(row) for row in nvals.tolist())
    if nvals.shape == (1, 2):
        return tuple(tuple(nvals[0].tolist()) for _ in range(nd))
    if nvals.shape == (2,):
        return tuple(tuple(nvals.tolist()) for _ in range(nd))
    if nvals.shape == (1,):
        return tuple((nvals[0].item(), nvals[0].item()) for _ in range(nd))
    if nvals.shape == ():
        return tuple((nvals.item(), nvals.item()) for _ in range(nd))
    raise ValueError(f"jnp.pad: {name} with {nd=} has unsupported shape {nvals.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


def _concrete_tree(nvals: Any, name: str) -> Any:
    if isinstance(nvals, (list, tuple)):
        return [_concrete_tree(v, name) for v in nvals]
    return _concrete(nvals, name)


def pad(array: Any, pad_width: Any, mode: str | Callable = "constant", **kwargs: Any) -> Any:
    """``array`` with ``pad_width[i] = (before, after)`` values added along each axis i
    (see the module docstring for the modes)."""
    array = ensure_array("pad", array)
    pad_width = _broadcast_to_pairs(pad_width, np.ndim(array), "pad_width")
    if pad_width and not all(isinstance(p, (int, np.integer)) for pair in pad_width
                             for p in pair):
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode):
        return _pad_func(array, pad_width, mode, **kwargs)
    if mode not in _ALLOWED_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(_ALLOWED_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    return _pad(array, pad_width, mode, kwargs.get("constant_values", 0),
                kwargs.get("stat_length"), kwargs.get("end_values", 0),
                kwargs.get("reflect_type", "even"))


_STAT_FUNCS = {"maximum": reductions.amax, "minimum": reductions.amin,
               "mean": reductions.mean}


def _pad(array: Any, pad_width: tuple, mode: str, constant_values: Any, stat_length: Any,
         end_values: Any, reflect_type: str) -> Any:
    nd = np.ndim(array)
    if nd == 0:
        return array
    if any(p < 0 for pair in pad_width for p in pair):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, pad_width, constant_values)
    if mode == "wrap":
        return _pad_wrap(array, pad_width)
    if mode in ("symmetric", "reflect"):
        return _pad_symmetric_or_reflect(array, pad_width, mode, reflect_type)
    if mode == "edge":
        return _pad_edge(array, pad_width)
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pad_width, _broadcast_to_pairs(end_values, nd,
                                                                      "end_values"))
    if mode == "empty":
        return _pad_empty(array, pad_width)
    if stat_length is not None:
        stat_length = _broadcast_to_pairs(stat_length, nd, "stat_length")
    return _pad_stats(array, pad_width, stat_length, _stat_func(mode))


def _stat_func(mode: str) -> Callable:
    return median if mode == "median" else _STAT_FUNCS[mode]


# ---------------------------------------------------------------- the modes
def _pad_constant(array: Any, pad_width: tuple, constant_values: Any) -> Any:
    """One lax.pad when every side gets the same value; else one per side."""
    nd = np.ndim(array)
    weak = dtypes.dtype_and_weak(array)[1]
    if isinstance(constant_values, (list, tuple)):
        constant_values = np.asarray(constant_values)  # NumPy's ((before, after), ...) form
    values = lax._convert_element_type(ensure_array("pad", constant_values), array.dtype, weak)
    if np.ndim(values) == 0 or np.shape(values) == (1,):
        return lax.pad(array, lax.reshape(values, ()), [(lo, hi, 0) for lo, hi in pad_width])
    if np.ndim(values) == 1 and np.shape(values)[-1] != 2:
        raise ValueError(f"jnp.pad: constant_values has unsupported shape "
                         f"{np.shape(values)}. If the shape is 1D or 2D, the last dimension "
                         "must be of size 1 or 2.")
    values = broadcast_to(values, (nd, 2))
    for i in range(nd):
        for side, width in enumerate(pad_width[i]):
            if width:
                widths = [(0, 0, 0)] * nd
                widths[i] = (width, 0, 0) if side == 0 else (0, width, 0)
                array = lax.pad(array, values[i, side], widths)
    return array


def _check_no_padding(axis_padding: tuple, mode: str) -> None:
    if axis_padding[0] > 0 or axis_padding[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_wrap(array: Any, pad_width: tuple) -> Any:
    """Whole copies of the array, plus the remainders cut from its far ends."""
    for i in range(np.ndim(array)):
        size = array.shape[i]
        if size == 0:
            _check_no_padding(pad_width[i], "wrap")
            continue
        left_repeats, left_remainder = divmod(pad_width[i][0], size)
        right_repeats, right_remainder = divmod(pad_width[i][1], size)
        parts = []
        if left_remainder > 0:
            parts.append(lax.slice_in_dim(array, size - left_remainder, size, axis=i))
        parts += (left_repeats + right_repeats + 1) * [array]
        if right_remainder > 0:
            parts.append(lax.slice_in_dim(array, 0, right_remainder, axis=i))
        array = lax.concatenate(parts, i)
    return array


def _pad_symmetric_or_reflect(array: Any, pad_width: tuple, mode: str,
                              reflect_type: str) -> Any:
    """Mirror images of the array: ``reflect`` leaves the edge out of the mirror
    (``[3 2 | 1 2 3]``), ``symmetric`` repeats it (``[2 1 | 1 2 3]``). A pad wider than
    the array mirrors the mirror, chunk by chunk. ``reflect_type="odd"`` reflects the
    values through the edge value too (``2 * edge - x``)."""
    for i in range(np.ndim(array)):
        if array.shape[i] == 0:
            _check_no_padding(pad_width[i], mode)
            continue
        array = _reflect_side(array, i, pad_width[i][0], True, mode, reflect_type)
        array = _reflect_side(array, i, pad_width[i][1], False, mode, reflect_type)
    return array


def _reflect_side(array: Any, i: int, padding: int, before: bool, mode: str,
                  reflect_type: str) -> Any:
    axis_size = array.shape[i]
    edge = (lax.slice_in_dim(array, 0, 1, axis=i) if before
            else lax.slice_in_dim(array, -1, None, axis=i))
    offset = 1 if (mode == "reflect" and axis_size > 1) else 0
    while padding > 0:
        curr_pad = min(padding, axis_size - offset)
        padding -= curr_pad
        if before:
            start, stop = offset, offset + curr_pad
        else:
            start = -(curr_pad + offset)
            stop = None if (mode == "symmetric" or axis_size == 1) else -1
        x = flip(lax.slice_in_dim(array, start, stop, axis=i), axis=i)
        if reflect_type == "odd":
            x = 2 * edge - x
            if axis_size > 1:
                edge = (lax.slice_in_dim(x, 0, 1, axis=i) if before
                        else lax.slice_in_dim(x, -1, None, axis=i))
        array = lax.concatenate([x, array] if before else [array, x], i)
    return array


def _pad_edge(array: Any, pad_width: tuple) -> Any:
    """The first and last slices, repeated."""
    for i in range(np.ndim(array)):
        n = array.shape[i]
        if n == 0:
            _check_no_padding(pad_width[i], "edge")
            continue
        before = repeat(lax.slice_in_dim(array, 0, 1, axis=i), pad_width[i][0], axis=i)
        after = repeat(lax.slice_in_dim(array, n - 1, n, axis=i), pad_width[i][1], axis=i)
        array = lax.concatenate([before, array, after], i)
    return array


def _pad_linear_ramp(array: Any, pad_width: tuple, end_values: tuple) -> Any:
    """Straight lines from ``end_values`` to the edge values."""
    for axis in range(np.ndim(array)):
        edge_before = lax.slice_in_dim(array, 0, 1, axis=axis)
        edge_after = lax.slice_in_dim(array, -1, None, axis=axis)
        ramp_before = linspace(end_values[axis][0], lax.squeeze(edge_before, (axis,)),
                               num=pad_width[axis][0], endpoint=False, dtype=array.dtype,
                               axis=axis)
        ramp_after = linspace(end_values[axis][1], lax.squeeze(edge_after, (axis,)),
                              num=pad_width[axis][1], endpoint=False, dtype=array.dtype,
                              axis=axis)
        array = lax.concatenate([ramp_before, array, flip(ramp_after, axis)], axis)
    return array


def _pad_stats(array: Any, pad_width: tuple, stat_length: tuple | None,
               stat_func: Callable) -> Any:
    """A statistic of the first/last ``stat_length`` elements, repeated; integer arrays
    round it to the nearest integer."""
    for i in range(np.ndim(array)):
        length = array.shape[i]
        if length == 0:
            _check_no_padding(pad_width[i], "stat")
            continue
        if stat_length is None:
            stat_before = stat_after = length
        else:
            stat_before, stat_after = (min(s, length) for s in stat_length[i])
        before = stat_func(lax.slice_in_dim(array, 0, stat_before, axis=i), axis=i,
                           keepdims=True)
        after = stat_func(lax.slice_in_dim(array, length - stat_after, length, axis=i),
                          axis=i, keepdims=True)
        if array.dtype.kind in "iu":
            before, after = _round(before), _round(after)
        weak = dtypes.dtype_and_weak(array)[1]  # the padding keeps the array's weak type
        before = repeat(lax._convert_element_type(before, array.dtype, weak), pad_width[i][0],
                        axis=i)
        after = repeat(lax._convert_element_type(after, array.dtype, weak), pad_width[i][1],
                       axis=i)
        array = lax.concatenate([before, array, after], i)
    return array


def _pad_empty(array: Any, pad_width: tuple) -> Any:
    for i in range(np.ndim(array)):
        shape = list(array.shape)
        shape[i] = pad_width[i][0]
        before = zeros(tuple(shape), array.dtype)
        shape[i] = pad_width[i][1]
        after = zeros(tuple(shape), array.dtype)
        array = lax.concatenate([before, array, after], i)
    return array


def _pad_func(array: Any, pad_width: tuple, func: Callable, **kwargs: Any) -> Any:
    """NumPy's callable mode: zero-pad, then let ``func`` fill each 1-D slice."""
    padded = _pad_constant(array, pad_width, 0)
    for axis in range(np.ndim(padded)):
        padded = apply_along_axis(func, axis, padded, pad_width[axis], axis, kwargs)
    return padded


