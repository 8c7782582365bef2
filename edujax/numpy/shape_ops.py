"""Rearranging arrays: reshape, transpose, stack, split, tile, flip, roll, triu...

None of these compute new numbers; each becomes a few lax shape primitives
(reshape, transpose, broadcast_in_dim, concatenate, slice, rev).
"""
from __future__ import annotations

import builtins
from typing import Any, Sequence

import numpy as np

from edujax import dtypes, lax
from edujax.numpy.util import (asarray, broadcast_shapes, canonicalize_axis, check_arraylike,
                               promote_dtypes)


def _resolve_shape(newshape: Any, size: int) -> tuple[int, ...]:
    """Fill in a single -1 so the total size is unchanged (NumPy's rule)."""
    shape = (newshape,) if np.ndim(newshape) == 0 else tuple(newshape)
    shape = tuple(int(d) for d in shape)
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise TypeError(f"cannot reshape array of shape {size} (size {size}) into shape "
                            f"{newshape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise TypeError(f"cannot reshape array of size {size} into shape {newshape} "
                        f"(size {int(np.prod(shape, dtype=np.int64))})")
    return shape


def reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None,
            copy: bool | None = None) -> Any:
    """Same data, new shape; one dimension may be -1 (inferred)."""
    check_arraylike("reshape", a)
    a = asarray(a)
    shape = newshape if shape is None else shape
    try:
        new = _resolve_shape(shape, a.size)
    except TypeError:
        raise TypeError(f"cannot reshape array of shape {a.shape} (size {a.size}) into shape "
                        f"{shape} (size {int(np.prod(shape, dtype=np.int64))})") from None
    if order == "F":
        return lax.transpose(lax.reshape(lax.transpose(a, tuple(range(a.ndim))[::-1]),
                                         new[::-1]), tuple(range(len(new)))[::-1])
    return lax.reshape(a, new)


def ravel(a: Any, order: str = "C") -> Any:
    a = asarray(a)
    return reshape(a, (a.size,), order)


def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
    check_arraylike("transpose", a)
    a = asarray(a)
    axes = tuple(range(a.ndim))[::-1] if axes is None else \
        tuple(canonicalize_axis(i, a.ndim) for i in axes)
    return lax.transpose(a, axes)


def permute_dims(a: Any, axes: Sequence[int]) -> Any:
    return transpose(a, axes)


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    a = asarray(a)
    perm = list(range(a.ndim))
    i, j = canonicalize_axis(axis1, a.ndim), canonicalize_axis(axis2, a.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    a = asarray(a)
    src = [canonicalize_axis(s, a.ndim) for s in np.atleast_1d(source)]
    dst = [canonicalize_axis(d, a.ndim) for d in np.atleast_1d(destination)]
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of elements: "
                         f"{len(src)} vs {len(dst)}")
    perm = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


def expand_dims(a: Any, axis: Any) -> Any:
    check_arraylike("expand_dims", a)
    a = asarray(a)
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    ndim_out = a.ndim + len(axes)
    return lax.expand_dims(a, [canonicalize_axis(ax, ndim_out) for ax in axes])


def squeeze(a: Any, axis: Any = None) -> Any:
    check_arraylike("squeeze", a)
    a = asarray(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(a.shape) if d == 1)
    else:
        axes = tuple(canonicalize_axis(ax, a.ndim) for ax in np.atleast_1d(axis))
    return lax.squeeze(a, axes)


def broadcast_to(array: Any, shape: Any) -> Any:
    """A read-only view of ``array`` with the given (broadcast-compatible) shape."""
    check_arraylike("broadcast_to", array)
    a = asarray(array)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
    if a.shape == shape:
        return a
    if len(shape) < a.ndim or any(d not in (1, s) for d, s in
                                  zip(a.shape[::-1], shape[::-1])):
        raise ValueError(f"Incompatible shapes for broadcasting: {a.shape} and requested "
                         f"shape {shape}")
    lead = len(shape) - a.ndim
    kept = [i for i, d in enumerate(a.shape) if d == shape[lead + i]]
    squeezed = lax.reshape(a, [a.shape[i] for i in kept]) if len(kept) != a.ndim else a
    return lax.broadcast_in_dim(squeezed, shape, [lead + i for i in kept])


def broadcast_arrays(*args: Any) -> list:
    shape = broadcast_shapes(*(np.shape(a) for a in args))
    return [broadcast_to(a, shape) for a in args]


def atleast_1d(*arys: Any) -> Any:
    out = [reshape(asarray(a), (1,)) if np.ndim(a) == 0 else asarray(a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys: Any) -> Any:
    out = [lax.broadcast_to_rank(asarray(a), 2) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys: Any) -> Any:
    def three(a):
        a = asarray(a)
        if a.ndim == 0:
            return reshape(a, (1, 1, 1))
        if a.ndim == 1:
            return reshape(a, (1, a.shape[0], 1))
        return reshape(a, a.shape + (1,)) if a.ndim == 2 else a
    out = [three(a) for a in arys]
    return out[0] if len(out) == 1 else out


# ---------------------------------------------------------------- joining
def _check_sequence(name: str, arrays: Any) -> list:
    if not isinstance(arrays, (list, tuple)) and not hasattr(arrays, "shape"):
        raise TypeError(f"{name} requires a sequence of arrays")
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike(name, *arrays)
    return [asarray(a) for a in arrays]


def concatenate(arrays: Any, axis: int | None = 0, dtype: Any = None) -> Any:
    """Join arrays along an existing axis (promoting their dtypes first)."""
    arrays = _check_sequence("concatenate", arrays)
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    if arrays[0].ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, arrays[0].ndim)
    arrays = promote_dtypes(*arrays)
    if dtype is not None:
        arrays = [lax.convert_element_type(a, dtype) for a in arrays]
    return lax.concatenate([asarray(a) for a in arrays], axis)


def stack(arrays: Any, axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    """Join arrays along a new axis."""
    arrays = _check_sequence("stack", arrays)
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError("All input arrays must have the same shape.")
    axis = canonicalize_axis(axis, arrays[0].ndim + 1)
    return concatenate([lax.expand_dims(a, (axis,)) for a in arrays], axis, dtype)


def hstack(tup: Any, dtype: Any = None) -> Any:
    arrays = [atleast_1d(a) for a in _check_sequence("hstack", tup)]
    return concatenate(arrays, 0 if arrays[0].ndim == 1 else 1, dtype)


def vstack(tup: Any, dtype: Any = None) -> Any:
    return concatenate([atleast_2d(a) for a in _check_sequence("vstack", tup)], 0, dtype)


def dstack(tup: Any, dtype: Any = None) -> Any:
    return concatenate([atleast_3d(a) for a in _check_sequence("dstack", tup)], 2, dtype)


def column_stack(tup: Any) -> Any:
    arrays = [a if a.ndim >= 2 else reshape(a, (-1, 1)) for a in _check_sequence(
        "column_stack", tup)]
    return concatenate(arrays, 1)


# ---------------------------------------------------------------- splitting
def _split(name: str, ary: Any, indices_or_sections: Any, axis: int, strict: bool) -> list:
    a = asarray(ary)
    axis = canonicalize_axis(axis, a.ndim)
    size = a.shape[axis]
    if np.ndim(indices_or_sections) == 0:
        n = int(indices_or_sections)
        if strict and size % n:
            raise ValueError("array split does not result in an equal division: "
                             f"{name} got size {size} and {n} sections.")
        base, extra = divmod(size, n)
        cuts = np.cumsum([base + 1] * extra + [base] * (n - extra))[:-1]
    else:
        cuts = [int(i) for i in indices_or_sections]
    bounds = [0, *(builtins.min(builtins.max(c + size if c < 0 else c, 0), size)
                   for c in cuts), size]
    return [lax.slice_in_dim(a, lo, builtins.max(lo, hi), 1, axis)
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    return _split("split", ary, indices_or_sections, axis, strict=True)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    return _split("array_split", ary, indices_or_sections, axis, strict=False)


def hsplit(ary: Any, indices_or_sections: Any) -> list:
    return split(ary, indices_or_sections, 1 if np.ndim(ary) > 1 else 0)


def vsplit(ary: Any, indices_or_sections: Any) -> list:
    return split(ary, indices_or_sections, 0)


# ---------------------------------------------------------------- repeating
def tile(A: Any, reps: Any) -> Any:
    """Repeat the whole array ``reps`` times along each axis (broadcast, then reshape)."""
    a = asarray(A)
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    ndim = builtins.max(a.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    a = lax.broadcast_to_rank(a, ndim)
    interleaved = [d for r, s in zip(reps, a.shape) for d in (r, s)]
    expanded = lax.broadcast_in_dim(a, interleaved, range(1, 2 * ndim, 2))
    return lax.reshape(expanded, [r * s for r, s in zip(reps, a.shape)])


def repeat(a: Any, repeats: Any, axis: int | None = None, *,
           total_repeat_length: int | None = None) -> Any:
    """Repeat each element ``repeats`` times along ``axis`` (flattened if axis is None)."""
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, a.ndim)
    if np.ndim(repeats) == 0:
        r = int(repeats)
        shape = list(a.shape)
        expanded = lax.broadcast_in_dim(a, shape[:axis + 1] + [r] + shape[axis + 1:],
                                        [i if i <= axis else i + 1 for i in range(a.ndim)])
        shape[axis] *= r
        return lax.reshape(expanded, shape)
    counts = np.asarray(repeats)
    pieces = [lax.slice_in_dim(a, i, i + 1, 1, axis) for i in range(a.shape[axis])]
    return concatenate([repeat(p, int(c), axis) for p, c in zip(pieces, counts) if c], axis)


# ---------------------------------------------------------------- reordering
def flip(m: Any, axis: Any = None) -> Any:
    a = asarray(m)
    axes = range(a.ndim) if axis is None else np.atleast_1d(axis)
    return lax.rev(a, tuple(canonicalize_axis(ax, a.ndim) for ax in axes))


def fliplr(m: Any) -> Any:
    return flip(m, 1)


def flipud(m: Any) -> Any:
    return flip(m, 0)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    """Shift elements along an axis, wrapping around (two slices and a concatenate)."""
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    shifts, axes = np.broadcast_arrays(np.atleast_1d(shift), np.atleast_1d(axis))
    for s, ax in zip(shifts, axes):
        ax = canonicalize_axis(int(ax), a.ndim)
        n = a.shape[ax]
        if n == 0:
            continue
        s = int(s) % n
        if s:
            a = lax.concatenate([lax.slice_in_dim(a, n - s, n, 1, ax),
                                 lax.slice_in_dim(a, 0, n - s, 1, ax)], ax)
    return a


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    a = asarray(m)
    k %= 4
    ax1, ax2 = axes
    if k == 0:
        return a
    if k == 2:
        return flip(flip(a, ax1), ax2)
    perm = list(range(a.ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    return transpose(flip(a, ax2), perm) if k == 1 else flip(transpose(a, perm), ax2)


# ---------------------------------------------------------------- triangles and diagonals
def _tri_mask(shape: tuple[int, int], k: int, upper: bool) -> Any:
    rows = lax.broadcasted_iota(dtypes.int_dtype(), shape, 0)
    cols = lax.broadcasted_iota(dtypes.int_dtype(), shape, 1)
    offset = lax.add(rows, lax._convert_element_type(k, dtypes.int_dtype(), False))
    return lax.le(offset, cols) if upper else lax.ge(offset, cols)


def _triangle(m: Any, k: int, upper: bool) -> Any:
    a = asarray(m)
    if a.ndim < 2:
        raise ValueError(f"{'triu' if upper else 'tril'} requires an array of at least two "
                         "dimensions")
    mask = _tri_mask(a.shape[-2:], k, upper)
    mask = lax.broadcast_in_dim(mask, a.shape, (a.ndim - 2, a.ndim - 1))
    return lax.select(mask, a, lax.full_like(a, 0))


def triu(m: Any, k: int = 0) -> Any:
    """Zero out the elements below the k-th diagonal."""
    return _triangle(m, k, upper=True)


def tril(m: Any, k: int = 0) -> Any:
    """Zero out the elements above the k-th diagonal."""
    return _triangle(m, k, upper=False)


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The diagonal as a gather-free computation: mask with eye, then sum one axis."""
    a = asarray(a)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = a.shape[-2:]
    length = builtins.max(0, builtins.min(n + builtins.min(offset, 0),
                                          m - builtins.max(offset, 0)))
    rows = [i - builtins.min(offset, 0) for i in range(length)]
    cols = [i + builtins.max(offset, 0) for i in range(length)]
    picked = [lax.index_in_dim(lax.index_in_dim(a, r, a.ndim - 2, False), c, a.ndim - 2, False)
              for r, c in zip(rows, cols)]
    if not picked:
        return lax.full(a.shape[:-2] + (0,), 0, a.dtype)
    return stack(picked, axis=-1)


def diag(v: Any, k: int = 0) -> Any:
    """The k-th diagonal of a matrix, or a matrix with ``v`` on its k-th diagonal."""
    v = asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = v.shape[0] + abs(k)
    mask = lax.eq(lax.add(lax.broadcasted_iota(dtypes.int_dtype(), (n, n), 0),
                          lax._convert_element_type(k, dtypes.int_dtype(), False)),
                  lax.broadcasted_iota(dtypes.int_dtype(), (n, n), 1))
    # Entry (r, c) with c == r + k holds v[r] when k >= 0, and v[c] when k < 0.
    padded = lax.pad(v, lax._convert_element_type(0, v.dtype, False), [(0, abs(k), 0)])
    row = lax.broadcast_in_dim(padded, (n, n), (0,) if k >= 0 else (1,))
    return lax.select(mask, row, lax.full_like(row, 0))


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Any:
    from edujax.numpy.reductions import sum
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def ndim(a: Any) -> int:
    return np.ndim(a)


def shape(a: Any) -> tuple[int, ...]:
    return np.shape(a)


def size(a: Any, axis: int | None = None) -> int:
    return int(np.size(a)) if axis is None else np.shape(a)[axis]
