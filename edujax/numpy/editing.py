"""Taking, choosing and editing elements: take, take_along_axis, put_along_axis, choose,
select, compress, extract, append, insert, delete.

JAX arrays are immutable, so "editing" builds a new array, and JAX writes each of these
with indexing (a gather to read, a scatter to write) or a ``select``, so that they work
under jit and their gradients and batching come from those primitives:

* ``take``/``take_along_axis`` read with ``x.at[idx].get(mode=...)``; out-of-bounds
  indices give NaN (``mode="fill"``, JAX's default) rather than an error;
* ``insert`` computes where every old and new element lands and scatters both;
* ``delete`` with static indices is a concatenation of slices or a boolean mask.
"""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from edujax import core, dtypes, lax
from edujax.array import Array
from edujax.errors import ConcretizationTypeError
from edujax.lax.slicing import GatherDimensionNumbers, GatherScatterMode
from edujax.inner_jit import inner_jit
from edujax.numpy import reductions
from edujax.numpy.creation import arange, array, full, ones, zeros_like
from edujax.numpy.index_tricks import indices as indices_grid
from edujax.numpy.shape_ops import broadcast_arrays, concatenate, moveaxis, ravel, stack
from edujax.numpy.sorting import argsort, sort
from edujax.numpy.ufuncs import _where, clip, remainder
from edujax.numpy.util import (asarray, broadcast_shapes, broadcast_to, canonicalize_axis,
                               check_arraylike, ensure_array, ensure_arraylike, promote_dtypes)


def _dtype(x: Any) -> np.dtype:
    return dtypes.dtype_and_weak(x)[0]


def _sparse_indices(shape: tuple[int, ...]) -> list:
    """One ``arange`` per axis, shaped to broadcast against the others (NumPy's
    ``indices(shape, sparse=True)``)."""
    out = []
    for i, size in enumerate(shape):
        iota_shape = [1] * len(shape)
        iota_shape[i] = size
        out.append(lax.broadcasted_iota(dtypes.int_dtype(), tuple(iota_shape), i))
    return out


# ---------------------------------------------------------------- reading
def take(a: Any, indices: Any, axis: int | None = None, out: None = None,
         mode: str | None = None, unique_indices: bool = False,
         indices_are_sorted: bool = False, fill_value: Any = None) -> Any:
    """The elements of ``a`` at ``indices`` along ``axis`` (of the flattened array if
    ``axis`` is None). Out of bounds: NaN/``fill_value`` (``mode="fill"``, the default),
    the nearest edge (``"clip"``) or counted around (``"wrap"``). One gather, in JAX's
    inner jit ``_take``."""
    return _take(a, indices, None if axis is None else operator.index(axis), out, mode,
                 unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                 fill_value=fill_value)


@inner_jit(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted",
                            "fill_value"))
def _take(a: Any, indices: Any, axis: int | None = None, out: None = None,
          mode: str | None = None, unique_indices: bool = False,
          indices_are_sorted: bool = False, fill_value: Any = None) -> Any:
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = map(asarray, ensure_arraylike("take", a, indices))
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, np.ndim(a))
    size = np.shape(a)[axis]
    if mode is None or mode == "fill":
        gather_mode = GatherScatterMode.FILL_OR_DROP
        # gather does not count from the end: -1 becomes size - 1 here
        indices = _where(indices < 0, indices + size, indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices = remainder(indices, np.asarray(size, _dtype(indices))[()])
        gather_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    index_dims = np.ndim(indices)
    slice_sizes = list(np.shape(a))
    if size == 0:
        if np.size(indices):
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    if np.size(indices) == 0:
        out_shape = slice_sizes[:axis] + list(np.shape(indices)) + slice_sizes[axis + 1:]
        return lax.full_like(a, 0, shape=out_shape)
    # One index per window; the window is all of ``a`` but one element along ``axis``.
    slice_sizes[axis] = 1
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(list(range(axis)) +
                          list(range(axis + index_dims, np.ndim(a) + index_dims - 1))),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    return lax.gather(a, indices[..., None], dimension_numbers=dnums,
                      slice_sizes=tuple(slice_sizes), mode=gather_mode,
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      fill_value=fill_value)


@inner_jit(static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices"))
def take_along_axis(arr: Any, indices: Any, axis: int | None = -1, mode: str | None = None,
                    fill_value: Any = None, *, wrap_negative_indices: bool | None = None
                    ) -> Any:
    """``arr[..., indices[..., i, ...], ...]`` along ``axis``: ``indices`` has ``arr``'s
    rank, and picks along ``axis`` separately for every position of the other axes
    (what ``argsort``'s output is made for).

    As in JAX, one gather whose *batching* dimensions pair the other axes of ``arr`` and
    ``indices`` (no iota index arrays); an axis where ``indices`` has size 1 is taken
    whole, and one where ``arr`` has size 1 is squeezed away.
    """
    a, indices = map(asarray, ensure_arraylike("take_along_axis", arr, indices))
    if _dtype(indices).kind not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got "
                        f"{_dtype(indices)}")
    idx_shape = np.shape(indices)
    if axis is None:
        if np.ndim(indices) != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{idx_shape}")
        a, axis = ravel(a), 0
    rank = np.ndim(a)
    if rank != np.ndim(indices):
        raise ValueError(f"indices and arr must have the same number of dimensions; "
                         f"{np.ndim(indices)} vs. {rank}")
    axis = canonicalize_axis(axis, rank)
    axis_size = np.shape(a)[axis]
    arr_shape = tuple(1 if i == axis else d for i, d in enumerate(np.shape(a)))
    out_shape = broadcast_shapes(idx_shape, arr_shape)
    if axis_size == 0:
        return lax.full(out_shape, 0, a.dtype)
    if wrap_negative_indices is None:  # JAX's legacy default
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:  # (in a dtype wide enough for index + axis_size)
        wide = np.int64 if axis_size > np.iinfo(np.int32).max else np.int32
        indices = lax.convert_element_type(indices, wide)
        indices = lax.select(indices < 0, lax.add(indices, np.asarray(axis_size, wide)[()]),
                             indices)
    dnums, slice_sizes, squeezed = _along_axis_gather(idx_shape, arr_shape, axis)
    index_dims = [i for i, d in enumerate(idx_shape) if i == axis or d != 1]
    gather_indices = lax.reshape(indices, tuple(np.array(out_shape)[index_dims]) + (1,))
    return lax.gather(lax.squeeze(a, squeezed), gather_indices, dnums, tuple(slice_sizes),
                      mode="fill" if mode is None else mode, fill_value=fill_value)


def _along_axis_gather(idx_shape: tuple, arr_shape: tuple, axis: int) -> tuple:
    """The gather of take_along_axis: (dimension numbers, slice sizes, axes of ``arr`` to
    squeeze). Axis by axis: ``axis`` is indexed; an axis where the indices have size 1 is
    an offset (taken whole); one where ``arr`` has size 1 is squeezed; any other is a
    batching axis, shared by ``arr`` and the indices."""
    slice_sizes, offset, start_map, collapsed, operand_batch, index_batch = [], [], [], [], [], []
    squeezed = []
    new_i = j = 0  # the axis in the squeezed array, the axis of the indices
    for i in range(len(arr_shape)):
        if i == axis:
            slice_sizes.append(1)
            start_map.append(new_i)
            collapsed.append(new_i)
            new_i, j = new_i + 1, j + 1
        elif idx_shape[i] == 1:
            offset.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            squeezed.append(i)
            j += 1
        else:
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            operand_batch.append(new_i)
            index_batch.append(j)
            new_i, j = new_i + 1, j + 1
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset), collapsed_slice_dims=tuple(collapsed),
        start_index_map=tuple(start_map), operand_batching_dims=tuple(operand_batch),
        start_indices_batching_dims=tuple(index_batch))
    return dnums, slice_sizes, squeezed


@inner_jit(static_argnames=("axis", "inplace", "mode"))
def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None,
                   inplace: bool = True, *, mode: str | None = None) -> Any:
    """A copy of ``arr`` with ``values`` written at ``indices`` along ``axis`` (the
    writing twin of ``take_along_axis``). ``inplace=False`` is required: JAX arrays
    cannot be modified."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arraysare immutable. Pass inplace=False to instead return an updated "
                         "array.")
    arr, indices, values = ensure_arraylike("put_along_axis", arr, indices, values)
    arr = ensure_array("put_along_axis", arr)
    original_shape, original_axis = np.shape(arr), axis
    if axis is None:
        arr, axis = ravel(arr), 0
    if np.ndim(arr) != np.ndim(indices):
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. "
                         f"Got arr.ndim={np.ndim(arr)} and indices.ndim={np.ndim(indices)}.")
    try:
        values = broadcast_to(values, np.shape(indices))
    except ValueError:
        raise ValueError("put_along_axis argument 'values' must be broadcastable to 'indices'. "
                         f"Got values.shape={np.shape(values)} and "
                         f"indices.shape={np.shape(indices)}.") from None
    index = list(indices_grid(np.shape(arr), sparse=True))
    index[canonicalize_axis(axis, np.ndim(arr))] = indices
    result = arr.at[tuple(index)].set(values, mode=mode)
    return result.reshape(original_shape) if original_axis is None else result


def choose(a: Any, choices: Sequence[Any], out: None = None, mode: str = "raise") -> Any:
    """``choices[a[i]][i]`` for every position i: ``a`` says which array to read from."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    a, *choices = ensure_arraylike("choose", a, *choices)
    if _dtype(a).kind not in "iu":
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if isinstance(a, core.Tracer):
            raise ConcretizationTypeError(
                a, "The error occurred because jnp.choose was jit-compiled with mode='raise'. "
                   "Use mode='wrap' or mode='clip' instead.")
        value = np.asarray(a)
        if np.any((value < 0) | (value >= n)):
            raise ValueError("invalid entry in choice array")
        arr = ensure_array("choose", a)
    elif mode == "wrap":
        arr = ensure_array("choose", a) % n
    elif mode == "clip":
        arr = clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    arr, *choices = broadcast_arrays(arr, *choices)
    return stack(choices)[(arr, *_sparse_indices(np.shape(arr)))]


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """``choicelist[i]`` where ``condlist[i]`` is the *first* true condition, else
    ``default``: one ``select_n`` over the stacked choices, as JAX does it."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    conditions = stack(broadcast_arrays(False, *[ensure_array("select", c) for c in condlist]))
    choices = promote_dtypes(default, *choicelist)
    # the default sits in front with a False condition: argmax picks it when nothing holds
    idx = reductions.argmax(lax.convert_element_type(conditions, np.bool_), axis=0)
    return lax.select_n(*broadcast_arrays(idx, *choices))


def compress(condition: Any, a: Any, axis: int | None = None, *, size: int | None = None,
             fill_value: Any = 0, out: None = None) -> Any:
    """The slices of ``a`` along ``axis`` where the 1-D ``condition`` is true. Without
    ``size`` the condition must be concrete (the result's length depends on it)."""
    condition, arr, fill_value = ensure_arraylike("compress", condition, a, fill_value)
    condition = lax.convert_element_type(ensure_array("compress", condition), np.bool_)
    arr = ensure_array("compress", arr)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    if np.ndim(condition) != 1:
        raise ValueError("condition must be a 1D array")
    arr = ravel(arr) if axis is None else moveaxis(arr, axis, 0)
    axis = 0 if axis is None else axis
    condition, extra = condition[:arr.shape[0]], condition[arr.shape[0]:]
    arr = arr[:condition.shape[0]]
    if size is None:
        if reductions.any(extra):
            raise ValueError("condition contains entries that are out of bounds")
        result = arr[condition]
    elif not 0 <= size <= arr.shape[0]:
        raise ValueError("size must be positive and not greater than the size of the array "
                         f"axis; got {size=} for a.shape[axis]={arr.shape[0]}")
    else:
        mask = lax.expand_dims(condition, tuple(range(1, np.ndim(arr))))
        arr = _where(mask, arr, array(fill_value, dtype=arr.dtype))
        result = arr[argsort(condition, stable=True, descending=True)][:size]
    return moveaxis(result, 0, axis)


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
    """The elements of ``arr`` where ``condition`` is true, flattened."""
    check_arraylike("extreact", condition, arr, fill_value)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


# ---------------------------------------------------------------- editing
@inner_jit(static_argnames=("axis",))
def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """``values`` concatenated after ``arr`` (both flattened if ``axis`` is None)."""
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """``values`` inserted before the index (or indices) ``obj`` along ``axis``.

    Computed without a data-dependent shape, so it works under jit: each inserted value
    lands at its index plus the number of values inserted before it; the old elements
    fill the remaining positions, in order.
    """
    a, _, values = ensure_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
    a = ensure_array("insert", a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, np.ndim(a))
    indices = (arange(*obj.indices(a.shape[axis])) if isinstance(obj, slice)
               else ensure_array("insert", obj if not isinstance(obj, (list, tuple))
                                 else np.asarray(obj)))
    if np.ndim(indices) > 1:
        raise ValueError("jnp.insert(): obj must be a slice, a one-dimensional array, or a "
                         f"scalar; got {obj}")
    if _dtype(indices).kind not in "iu":
        if np.size(indices) == 0 and not isinstance(obj, Array):
            indices = lax.convert_element_type(indices, dtypes.int_dtype())
        else:
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    values = _ndmin(lax.convert_element_type(values, a.dtype), np.ndim(a))
    if np.size(indices) == 1:
        index = lax.reshape(indices, ())
        if np.ndim(indices) == 0:
            values = moveaxis(values, 0, axis)
        indices = full(values.shape[axis], index)
    n_input = a.shape[axis]
    n_insert = broadcast_shapes(np.shape(indices), (values.shape[axis],))[0]
    out_shape = list(a.shape)
    out_shape[axis] += n_insert
    out = zeros_like(a, shape=tuple(out_shape))
    indices = _where(indices < 0, indices + n_input, indices)
    indices = clip(indices, 0, n_input)
    values_ind = indices.at[argsort(indices)].add(arange(n_insert, dtype=_dtype(indices)))
    arr_mask = ones(n_input + n_insert, dtype=bool).at[values_ind].set(False)
    # the positions still True, in order: a stable sort puts them first
    arr_ind = argsort(lax.convert_element_type(lax.bitwise_not(arr_mask), np.int32))[:n_input]
    out = out.at[(slice(None),) * axis + (values_ind,)].set(values)
    return out.at[(slice(None),) * axis + (arr_ind,)].set(a)


def _ndmin(x: Any, ndmin: int) -> Any:
    """``x`` with leading axes of size 1 added up to rank ``ndmin``."""
    missing = ndmin - np.ndim(x)
    return lax.reshape(x, (1,) * missing + np.shape(x)) if missing > 0 else x


def delete(arr: Any, obj: Any, axis: int | None = None, *,
           assume_unique_indices: bool = False) -> Any:
    """``arr`` without the entries at ``obj`` (an index, a slice, indices or a boolean
    mask) along ``axis`` (the flattened array if ``axis`` is None)."""
    a = ensure_array("delete", arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, np.ndim(a))
    before = (slice(None),) * axis
    try:
        obj = canonicalize_axis(operator.index(obj), a.shape[axis])
    except TypeError:
        pass
    else:  # one static index: two slices, concatenated
        return concatenate([a[before + (slice(0, obj),)], a[before + (slice(obj + 1, None),)]],
                           axis=axis)
    if isinstance(obj, slice):
        obj = arange(a.shape[axis])[obj]
        assume_unique_indices = True
    check_arraylike("delete", a, obj)
    if _dtype(obj).kind in "iu" and assume_unique_indices:
        return a[before + (_kept_positions(ravel(obj), a.shape[axis]),)]
    if isinstance(obj, core.Tracer):
        raise ConcretizationTypeError(obj, "'obj' array argument of jnp.delete()")
    obj = np.asarray(obj)
    if obj.dtype.kind in "iu":
        mask = np.ones(a.shape[axis], dtype=bool)
        mask[obj] = False
    elif obj.dtype == bool:
        if obj.shape != (a.shape[axis],):
            raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                             "one-dimensional with length matching specified axis.")
        mask = ~obj
    else:
        raise ValueError(f"np.delete(arr, obj): got obj.dtype={obj.dtype}; must be integer "
                         "or bool.")
    return a[before + (mask,)]


def _kept_positions(obj: Any, size: int) -> Any:
    """The indices that survive deleting the unique indices ``obj`` (works under jit):
    the i-th survivor is i plus the number of deleted indices at or before it."""
    obj = clip(_where(obj < 0, obj + size, obj), 0, size)
    obj = sort(obj)
    obj = obj - arange(obj.shape[0], dtype=_dtype(obj))
    i = arange(size - obj.shape[0], dtype=_dtype(obj))
    return i + reductions.sum(i[None, :] >= obj[:, None], 0, dtype=_dtype(i))
