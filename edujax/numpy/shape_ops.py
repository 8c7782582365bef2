"""Rearranging arrays: reshape, transpose, stack, split, tile, flip, roll, repeat...

None of these compute new numbers; each becomes a few lax shape primitives
(reshape, transpose, broadcast_in_dim, concatenate, stack, tile, slice, split, rev).
"""
from __future__ import annotations

import builtins
import math
import operator
from typing import Any, Sequence

import numpy as np

from edujax import core, lax
from edujax.array import Array
from edujax.errors import ConcretizationTypeError
from edujax.inner_jit import inner_jit
from edujax.numpy import creation
from edujax.numpy.util import (asarray, broadcast_shapes, broadcast_to, canonicalize_axis,
                               canonicalize_shape, check_arraylike, ensure_array, index_tuple,
                               promote_dtypes)


# ---------------------------------------------------------------- reshaping
def _compute_newshape(a: Any, newshape: Any) -> tuple[int, ...]:
    """Fill in a single -1 so that the total size is unchanged (NumPy's rule)."""
    original = newshape
    shape = canonicalize_shape(newshape)
    size = int(np.size(a))
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        raise TypeError("can only specify one unknown axis size with a `-1` value, "
                        f"got {original}")
    if unknown:
        i, = unknown
        others = math.prod(shape[:i] + shape[i + 1:])
        if others == 0 or size % others:
            raise TypeError(f"cannot reshape array of shape {np.shape(a)} (size {size}) into "
                            f"shape {original} because the product of specified axis sizes "
                            f"({others}) does not evenly divide {size}")
        return shape[:i] + (size // others,) + shape[i + 1:]
    if math.prod(shape) != size:
        raise TypeError(f"cannot reshape array of shape {np.shape(a)} (size {size}) into "
                        f"shape {original} (size {math.prod(shape)})")
    return shape


def reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None,
            copy: bool | None = None) -> Any:
    """Same data, new shape; one dimension may be -1 (inferred).

    ``order="F"`` reads and writes the elements with the first index changing
    fastest: that is a reshape of the reversed dimensions, transposed back.
    """
    check_arraylike("reshape", a)
    a = asarray(a)
    shape = _compute_newshape(a, newshape if shape is None else shape)
    if order == "C":
        return lax.reshape(a, shape)
    if order == "F":
        reversed_dims = tuple(range(np.ndim(a)))[::-1]
        return transpose(lax.reshape(a, shape[::-1], reversed_dims))
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


def ravel(a: Any, order: str = "C") -> Any:
    """The elements in one row (``reshape(a, (a.size,))``)."""
    a = ensure_array("ravel", a)
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return reshape(a, (int(np.size(a)),), order)


def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
    """Permute the axes (reverse them by default)."""
    a = ensure_array("transpose", a)
    ndim = np.ndim(a)
    axes = range(ndim)[::-1] if axes is None else axes
    return lax.transpose(a, [canonicalize_axis(i, ndim) for i in axes])


def permute_dims(a: Any, /, axes: tuple[int, ...]) -> Any:
    a = ensure_array("permute_dims", a)
    return lax.transpose(a, axes)


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    a = ensure_array("swapaxes", a)
    perm = list(range(np.ndim(a)))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(a, perm)


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    """Move axes to new positions; the other axes keep their order."""
    a = ensure_array("moveaxis", a)
    ndim = np.ndim(a)
    source = tuple(canonicalize_axis(i, ndim) for i in index_tuple(source))
    destination = tuple(canonicalize_axis(i, ndim) for i in index_tuple(destination))
    if len(source) != len(destination):
        raise ValueError("Inconsistent number of elements: "
                         f"{len(source)} vs {len(destination)}")
    perm = [i for i in range(ndim) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return lax.transpose(a, perm)


def expand_dims(a: Any, axis: Any) -> Any:
    """Insert size-1 axes at positions ``axis`` (positions in the result)."""
    a = ensure_array("expand_dims", a)
    return lax.expand_dims(a, index_tuple(axis))


def squeeze(a: Any, axis: Any = None) -> Any:
    """Remove size-1 axes (all of them, or those in ``axis``)."""
    a = ensure_array("squeeze", a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(np.shape(a)) if d == 1)
    else:
        axes = tuple(canonicalize_axis(i, np.ndim(a)) for i in index_tuple(axis))
    return lax.squeeze(a, axes)


def broadcast_arrays(*args: Any) -> list:
    """All arguments broadcast to their common shape."""
    check_arraylike("broadcast_arrays", *args)
    shape = broadcast_shapes(*(np.shape(a) for a in args))
    return [broadcast_to(a, shape) for a in args]


def _atleast(name: str, ndmin: int, arys: tuple) -> Any:
    check_arraylike(name, *arys)
    out = [creation.array(a, copy=False, ndmin=ndmin) for a in arys]
    return out[0] if len(out) == 1 else out


@inner_jit
def atleast_1d(*arys: Any) -> Any:
    """Scalars become 1-D arrays; arrays are left alone."""
    return _atleast("atleast_1d", 1, arys)


@inner_jit
def atleast_2d(*arys: Any) -> Any:
    """Scalars and vectors get leading size-1 axes until they are 2-D."""
    return _atleast("atleast_2d", 2, arys)


@inner_jit
def atleast_3d(*arys: Any) -> Any:
    """NumPy's rule: a vector of length n becomes (1, n, 1), a matrix (m, n, 1)."""
    check_arraylike("atleast_3d", *arys)
    new_axes = {0: (0, 1, 2), 1: (0, 2), 2: (2,)}

    def three(a: Any) -> Any:
        a = asarray(a)
        return lax.expand_dims(a, new_axes[np.ndim(a)]) if np.ndim(a) < 3 else a
    out = [three(a) for a in arys]
    return out[0] if len(out) == 1 else out


# ---------------------------------------------------------------- joining
def _array_list(name: str, arrays: Any) -> list:
    """The arrays of a sequence (or the rows of an array), checked."""
    if isinstance(arrays, (Array, core.Tracer, np.ndarray)):
        return list(arrays)
    try:
        arrays = list(arrays)
    except TypeError:
        raise TypeError(f"Value after * must be an iterable, not {type(arrays).__name__}"
                        ) from None
    check_arraylike(name, *arrays)
    return arrays


def concatenate(arrays: Any, axis: int | None = 0, dtype: Any = None) -> Any:
    """Join arrays along an existing axis (promoting their dtypes first).

    ``axis=None`` joins the flattened arrays.
    """
    arrays = [asarray(a) for a in _array_list("concatenate", arrays)]
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], 0, dtype)
    if np.ndim(arrays[0]) == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, np.ndim(arrays[0]))
    if dtype is None:
        arrays = promote_dtypes(*arrays)
    else:
        arrays = [_astype(a, dtype) for a in arrays]
    return lax.concatenate(arrays, axis)


def _astype(a: Any, dtype: Any) -> Any:
    return creation.asarray(a, dtype=dtype)


def stack(arrays: Any, axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    """Join arrays of one shape along a new axis (the ``stack`` primitive)."""
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    if isinstance(arrays, (Array, core.Tracer, np.ndarray)):
        axis = canonicalize_axis(axis, np.ndim(arrays))
        return concatenate(expand_dims(arrays, axis + 1), axis=axis, dtype=dtype)
    arrays = _array_list("stack", arrays)
    if dtype is not None:
        arrays = [_astype(a, dtype) for a in arrays]
    else:
        arrays = promote_dtypes(*arrays)
    return lax.stack(arrays, canonicalize_axis(axis, np.ndim(arrays[0]) + 1))


def hstack(tup: Any, dtype: Any = None) -> Any:
    """Join along the second axis (along the first for 1-D arrays)."""
    arrays = [atleast_1d(a) for a in _array_list("hstack", tup)]
    return concatenate(arrays, 0 if arrays and np.ndim(arrays[0]) == 1 else 1, dtype)


def vstack(tup: Any, dtype: Any = None) -> Any:
    """Join along the first axis, as rows (vectors become 1 x n)."""
    return concatenate([atleast_2d(a) for a in _array_list("vstack", tup)], 0, dtype)


def dstack(tup: Any, dtype: Any = None) -> Any:
    """Join along the third axis."""
    return concatenate([atleast_3d(a) for a in _array_list("dstack", tup)], 2, dtype)


def column_stack(tup: Any) -> Any:
    """Join as columns: vectors become n x 1 first."""
    arrays = [asarray(a) for a in _array_list("column_stack", tup)]
    return concatenate([transpose(atleast_2d(a)) if np.ndim(a) < 2 else a for a in arrays], 1)


# ---------------------------------------------------------------- splitting
def _split(name: str, ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """Cut along ``axis``: into n equal parts (or nearly equal, for array_split), or
    at the given indices. The pieces come from one ``split`` primitive."""
    a = ensure_array(name, ary)
    axis = operator.index(axis)
    size = np.shape(a)[axis]
    if isinstance(indices_or_sections, (tuple, list)) or np.ndim(indices_or_sections) > 0:
        bounds = [0, *(operator.index(i) for i in indices_or_sections), size]
        sizes = [hi - lo for lo, hi in zip(bounds[:-1], bounds[1:])]
    else:
        sections = operator.index(indices_or_sections)
        part, rest = builtins.divmod(size, sections)
        if rest == 0:
            sizes = [part] * sections
        elif name == "array_split":
            sizes = [part + 1] * rest + [part] * (sections - rest)
        else:
            raise ValueError(f"array split does not result in an equal division: rest is {rest}")
    if any(s < 0 for s in sizes):
        raise ValueError("Sizes passed to split must be nonnegative, got "
                         f"{[np.int64(s) for s in sizes]}")
    sizes = [np.int64(s) for s in sizes]  # as JAX's _split: the params show np.int64(2)
    return list(lax.split(a, sizes, canonicalize_axis(axis, np.ndim(a))))


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """Split into equal parts, or at the given indices (which must not decrease)."""
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """Like ``split``, but n sections need not divide the size: the first parts get one more."""
    return _split("array_split", ary, indices_or_sections, axis)


def hsplit(ary: Any, indices_or_sections: Any) -> list:
    a = ensure_array("hsplit", ary)
    return _split("hsplit", a, indices_or_sections, 0 if np.ndim(a) == 1 else 1)


def vsplit(ary: Any, indices_or_sections: Any) -> list:
    return _split("vsplit", ary, indices_or_sections, 0)


# ---------------------------------------------------------------- repeating
def tile(A: Any, reps: Any) -> Any:
    """Repeat the whole array ``reps`` times along each axis (the ``tile`` primitive).

    ``reps`` and the array are first given the same number of dimensions by
    adding leading 1s to the shorter one.
    """
    a = ensure_array("tile", A)
    reps = index_tuple(reps)
    reps = (1,) * (np.ndim(a) - len(reps)) + reps
    if len(reps) > np.ndim(a):
        a = lax.expand_dims(a, tuple(range(len(reps) - np.ndim(a))))
    return lax.tile(a, reps)


def repeat(a: Any, repeats: Any, axis: int | None = None, *,
           total_repeat_length: int | None = None) -> Any:
    """Repeat each element ``repeats`` times along ``axis`` (flattened if axis is None).

    ``repeats`` may give a count per element. The output's length must be known
    while tracing, so the counts must be concrete, or ``total_repeat_length`` given
    (the output is then cut or padded with the last element to that length).
    """
    if isinstance(repeats, (int, np.integer)):
        check_arraylike("repeat", a)
    else:
        check_arraylike("repeat", a, repeats)
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, np.ndim(a)) if np.ndim(a) else axis
    if total_repeat_length is None and np.ndim(repeats) == 0 and np.ndim(a) != 0:
        return _repeat_scalar(a, operator.index(repeats), axis)
    counts = np.ravel(np.asarray(_concrete_repeats(repeats))).astype(np.int64)
    if np.ndim(a) != 0:
        counts = _broadcast_counts(counts, np.shape(a)[axis])
    total = int(counts.sum()) if total_repeat_length is None else int(total_repeat_length)
    if np.ndim(a) == 0:
        if counts.shape == (1,):
            return creation.full((total,), a)
        raise ValueError("`repeat` with a scalar parameter `a` is only implemented for scalar "
                         "values of the parameter `repeats`.")
    index = np.repeat(np.arange(np.shape(a)[axis]), counts)[:total]
    if len(index) < total:  # pad with the last element, as JAX's gather does
        index = np.concatenate([index, np.full(total - len(index), np.shape(a)[axis] - 1)])
    return _take_slices(a, index, axis)


def _repeat_scalar(a: Any, r: int, axis: int) -> Any:
    """Every element ``r`` times: broadcast along a new axis after ``axis``, then merge."""
    shape = list(np.shape(a))
    expanded_shape = shape[:axis + 1] + [r] + shape[axis + 1:]
    kept = [i for i in range(len(expanded_shape)) if i != axis + 1]
    expanded = lax.broadcast_in_dim(a, expanded_shape, kept)
    shape[axis] *= r
    return lax.reshape(expanded, shape)


def _concrete_repeats(repeats: Any) -> Any:
    if isinstance(repeats, core.Tracer):
        value = repeats.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(
                repeats, "When jit-compiling jnp.repeat, the total number of repeats must be "
                "static. To fix this, either specify a static value for `repeats`, or pass a "
                "static value to `total_repeat_length`.\n")
        return value
    return np.asarray(repeats)


def _broadcast_counts(counts: np.ndarray, size: int) -> np.ndarray:
    try:
        return np.broadcast_to(counts, (size,))
    except ValueError:
        raise ValueError("operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {counts.shape}  and requested shape "
                         f"({size},)") from None


def _take_slices(a: Any, index: np.ndarray, axis: int) -> Any:
    """The slices ``a[..., i, ...]`` for each i in a concrete ``index``, joined along axis.

    NB: JAX gathers with a computed index array; with concrete counts we can spell
    the result out as slices and one concatenate.
    """
    if len(index) == 0:
        shape = list(np.shape(a))
        shape[axis] = 0
        return lax.full(shape, 0, a.dtype)
    pieces = [lax.slice_in_dim(a, int(i), int(i) + 1, 1, axis) for i in index]
    return lax.concatenate(pieces, axis)


# ---------------------------------------------------------------- reordering
def flip(m: Any, axis: Any = None) -> Any:
    """Reverse the order of the elements along ``axis`` (all axes by default)."""
    a = ensure_array("flip", m)
    return _flip(a, tuple(axis) if isinstance(axis, list) else axis)


@inner_jit(static_argnames=("axis",))
def _flip(a: Any, axis: Any) -> Any:
    if axis is None:
        return lax.rev(a, tuple(range(np.ndim(a))))
    return lax.rev(a, tuple(canonicalize_axis(ax, np.ndim(a)) for ax in index_tuple(axis)))


def fliplr(m: Any) -> Any:
    return _flip(ensure_array("fliplr", m), 1)


def flipud(m: Any) -> Any:
    return _flip(ensure_array("flipud", m), 0)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """Shift elements along an axis, wrapping around (two slices and a concatenate)."""
    a = ensure_array("roll", a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), np.shape(a))
    axes = tuple(canonicalize_axis(ax, np.ndim(a)) for ax in index_tuple(axis))
    return _roll_static(a, tuple(index_tuple(shift)), axes)


@inner_jit(static_argnums=(1, 2))
def _roll_static(a: Any, shift: tuple, axes: tuple) -> Any:
    for ax, s in zip(*np.broadcast_arrays(axes, shift)):
        n = np.shape(a)[ax]
        if n == 0:
            continue
        i = int(-s) % n
        a = lax.concatenate([lax.slice_in_dim(a, i, n, 1, int(ax)),
                             lax.slice_in_dim(a, 0, i, 1, int(ax))], int(ax))
    return a


@inner_jit(static_argnames=("k", "axes"))
def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """Rotate by 90 degrees ``k`` times, from the first axis toward the second."""
    a = ensure_array("rot90", m)
    if np.ndim(a) < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least two, but got "
                         f"first argument of shape {np.shape(a)}, which has ndim {np.ndim(a)}")
    ax1, ax2 = (canonicalize_axis(ax, np.ndim(a)) for ax in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k %= 4
    if k == 0:
        return a
    if k == 2:
        return _flip(_flip(a, ax1), ax2)
    perm = list(range(np.ndim(a)))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    return transpose(_flip(a, ax2), perm) if k == 1 else _flip(transpose(a, perm), ax2)


# ---------------------------------------------------------------- sizes
def ndim(a: Any) -> int:
    return np.ndim(a)


def shape(a: Any) -> tuple[int, ...]:
    return np.shape(a)


def size(a: Any, axis: int | None = None) -> int:
    return int(np.size(a)) if axis is None else np.shape(a)[axis]
