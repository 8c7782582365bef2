"""``dynamic_slice`` and ``dynamic_update_slice``: a window whose start is a traced value.

``dynamic_slice(x, (i,), (3,))`` reads ``x[i:i + 3]`` where ``i`` is only known when the
program runs (a loop counter, say); ``dynamic_update_slice`` writes such a window. The size of
the window is static, so the output's shape is known while tracing. Under vmap each becomes the
gather (or scatter) of one window, so this module builds on slicing.py.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from edujax import dtypes
from edujax.core import ShapedArray
from edujax.interpreters import ad, batching
from edujax.lax import slicing
from edujax.lax.base import _convert_element_type, broadcast, broadcast_in_dim, full
from edujax.lax.elementwise import select
from edujax.lax.registry import first_input_weak_type_rule, shape_primitive, standard_primitive
from edujax.lax.shape import concatenate, squeeze

# ---------------------------------------------------------------- dynamic_slice
# Start indices are traced scalars; they are clamped so the slice stays in bounds
# (XLA's rule: an out-of-range start moves back, it never errors).
def _clamped_starts(shape: Sequence[int], sizes: Sequence[int], starts) -> list[int]:
    return [int(min(max(int(s), 0), d - n)) for s, d, n in zip(starts, shape, sizes)]


def _dynamic_slice_shape_rule(x: ShapedArray, *starts: ShapedArray, slice_sizes):
    if len(starts) != x.ndim or len(slice_sizes) != x.ndim:
        raise TypeError("dynamic_slice needs one start index and one slice size per operand "
                        f"dimension, got {len(starts)} and {len(slice_sizes)} for shape "
                        f"{x.shape}.")
    if any(not 0 <= n <= d for n, d in zip(slice_sizes, x.shape)):
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {tuple(slice_sizes)} for operand shape {x.shape}.")
    return tuple(slice_sizes)


def _dynamic_slice_impl(x, *starts, slice_sizes):
    begin = _clamped_starts(x.shape, slice_sizes, starts)
    return x[tuple(slice(b, b + n) for b, n in zip(begin, slice_sizes))]


dynamic_slice_p = shape_primitive("dynamic_slice", _dynamic_slice_shape_rule,
                                  _dynamic_slice_impl)


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    """The same slice of the tangent. (As in JAX, the tangent's slice is taken first: the
    order shows in jaxprs.)"""
    x, *starts = primals
    t = tangents[0]
    if type(t) is not ad.Zero:
        t = dynamic_slice_p.bind(t, *starts, slice_sizes=slice_sizes)
    out = dynamic_slice_p.bind(x, *starts, slice_sizes=slice_sizes)
    return out, (ad.Zero.from_value(out) if type(t) is ad.Zero else t)


def _dynamic_slice_transpose(ct, x, *starts, slice_sizes):
    zeros = full(x.aval.shape, 0, x.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *starts)] + [None] * len(starts)


ad.jvp_rules[dynamic_slice_p] = _dynamic_slice_jvp
ad.transpose_rules[dynamic_slice_p] = _dynamic_slice_transpose


def _dynamic_slice_batch(args, dims, *, slice_sizes):
    """vmap of a dynamic_slice: it is a gather that reads one window, so batch that gather.

    The scalar start indices become one index vector (one per example, if any start
    is batched) and gather's batching rule does the rest, as in JAX. CLIP mode is
    dynamic_slice's own rule: a start too far out moves back inside.
    """
    (x, *starts), (x_dim, *start_dims) = args, dims
    all_dims = tuple(range(len(slice_sizes)))
    dnums = slicing.GatherDimensionNumbers(offset_dims=all_dims, collapsed_slice_dims=(),
                                           start_index_map=all_dims)
    index, index_dim = _stacked_start_indices(starts, start_dims)
    gather_batch = batching.batching_rules[slicing.gather_p]
    return gather_batch([x, index], [x_dim, index_dim], dimension_numbers=dnums,
                        slice_sizes=slice_sizes, unique_indices=True, indices_are_sorted=True,
                        mode=slicing.GatherScatterMode.CLIP, fill_value=None)


def _stacked_start_indices(starts, dims) -> tuple[Any, int | None]:
    """The scalar start indices as one index array: shape (n,), or (batch, n) if any is batched."""
    if not starts:
        return np.zeros((0,), np.int32), None
    size = next((np.shape(s)[0] for s, d in zip(starts, dims) if d is not None), None)
    if size is None:
        return concatenate([broadcast(s, (1,)) for s in starts], 0), None
    columns = [broadcast_in_dim(s, (size, 1), (0,) if d is not None else ())
               for s, d in zip(starts, dims)]
    return concatenate(columns, 1), 0


batching.batching_rules[dynamic_slice_p] = _dynamic_slice_batch


def _dynamic_slice_indices(operand, start_indices: Sequence[Any]) -> list:
    """Negative start indices count from the end, as in Python: ``i + size`` when ``i < 0``.

    Static ints are fixed here; traced ones get ``select(i < 0, i + size, i)``, which
    is what JAX stages too (lt, add and select_n before the slice).
    """
    shape = np.shape(operand)
    if len(start_indices) != len(shape):
        raise TypeError("dynamic_slice needs one start index per operand dimension, got "
                        f"{len(start_indices)} for operand shape {shape}.")
    out = []
    for i, d in zip(start_indices, shape):
        if isinstance(i, (int, np.integer)):
            out.append(i + d if i < 0 else i)
        else:
            size = _convert_element_type(d, dtypes.dtype_and_weak(i)[0], False)
            out.append(select(i < 0, i + size, i))
    return out


def dynamic_slice(operand, start_indices: Sequence[Any], slice_sizes: Sequence[int], *,
                  allow_negative_indices: bool = True):
    """``operand[start:start + size]`` per dimension, with traced starts (clamped in bounds)."""
    if allow_negative_indices:
        start_indices = _dynamic_slice_indices(operand, start_indices)
    return dynamic_slice_p.bind(operand, *start_indices,
                                slice_sizes=tuple(int(s) for s in slice_sizes))


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0):
    starts = [0] * np.ndim(operand)
    sizes = list(np.shape(operand))
    starts[axis], sizes[axis] = start_index, slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def _dynamic_update_slice_shape_rule(x: ShapedArray, update: ShapedArray, *starts):
    if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape)):
        raise TypeError("dynamic_update_slice update shape must be smaller than operand shape, "
                        f"got update shape {update.shape} for operand shape {x.shape}.")
    return x.shape


def _dynamic_update_slice_impl(x, update, *starts):
    begin = _clamped_starts(x.shape, update.shape, starts)
    out = x.copy()
    out[tuple(slice(b, b + n) for b, n in zip(begin, update.shape))] = update
    return out


dynamic_update_slice_p = standard_primitive(
    "dynamic_update_slice", _dynamic_update_slice_shape_rule,
    lambda x, update, *s: x.dtype, _dynamic_update_slice_impl,
    weak_type_rule=first_input_weak_type_rule)


def _dynamic_update_slice_jvp(primals, tangents):
    x, update, *starts = primals
    out = dynamic_update_slice_p.bind(x, update, *starts)
    t_x, t_update = tangents[:2]
    if type(t_x) is ad.Zero and type(t_update) is ad.Zero:
        return out, ad.Zero.from_value(out)
    return out, dynamic_update_slice_p.bind(ad.instantiate_zeros(t_x),
                                            ad.instantiate_zeros(t_update), *starts)


def _dynamic_update_slice_transpose(ct, x, update, *starts):
    update_aval = ad.aval_of(update)
    # (made even when only the update's cotangent is wanted, as JAX's rule does: the unused
    # zeros show in a jaxpr of the backward pass)
    zeros = full(update_aval.shape, 0, update_aval.dtype)
    t_x = dynamic_update_slice_p.bind(ct, zeros, *starts) if ad.is_undefined_primal(x) else None
    t_update = dynamic_slice_p.bind(ct, *starts, slice_sizes=update_aval.shape) \
        if ad.is_undefined_primal(update) else None
    return [t_x, t_update] + [None] * len(starts)


ad.jvp_rules[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose


def _dynamic_update_slice_batch(args, dims):
    """vmap of a dynamic_update_slice: it is a scatter of one window, so batch that scatter."""
    (x, update, *starts), (x_dim, update_dim, *start_dims) = args, dims
    all_dims = tuple(range(len(starts)))
    dnums = slicing.ScatterDimensionNumbers(update_window_dims=all_dims, inserted_window_dims=(),
                                            scatter_dims_to_operand_dims=all_dims)
    index, index_dim = _stacked_start_indices(starts, start_dims)
    scatter_batch = batching.batching_rules[slicing.scatter_p]
    return scatter_batch([x, index, update], [x_dim, index_dim, update_dim], update_jaxpr=None,
                         update_consts=(), dimension_numbers=dnums, indices_are_sorted=True,
                         unique_indices=True, mode=slicing.GatherScatterMode.CLIP)


batching.batching_rules[dynamic_update_slice_p] = _dynamic_update_slice_batch


def dynamic_update_slice(operand, update, start_indices: Sequence[Any], *,
                         allow_negative_indices: bool = True):
    """A copy of ``operand`` with ``update`` written at ``start_indices`` (clamped in bounds)."""
    if allow_negative_indices:
        start_indices = _dynamic_slice_indices(operand, start_indices)
    return dynamic_update_slice_p.bind(operand, update, *start_indices)


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
    starts = [0] * np.ndim(operand)
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts,
                                allow_negative_indices=allow_negative_indices)
