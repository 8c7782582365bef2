"""Primitives that move data without computing: broadcast, reshape, transpose, slices.

Their reference rules are one NumPy call each; the interesting part is the
shape rule, which is also where bad arguments get their error messages.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from edujax import core, lax
from edujax.interpreters import ad, batching
from edujax.interpreters.batching import bdim_at_front, moveaxis
from edujax.core import Primitive, ShapedArray
from edujax.lax.registry import (check_same_dtypes, first_input_weak_type_rule,
                                 standard_primitive)
from edujax.pretty import hide_params, pp_eqn_rules


def _dtype_of_first(x: ShapedArray, *args: Any, **params: Any) -> np.dtype:
    return x.dtype


def shape_primitive(name: str, shape_rule, impl, pp_hidden: tuple[str, ...] = ()) -> Primitive:
    """A primitive whose output has the operand's dtype and weak type, and a new shape."""
    return standard_primitive(name, shape_rule, _dtype_of_first, impl,
                              weak_type_rule=first_input_weak_type_rule, pp_hidden=pp_hidden)


# ---------------------------------------------------------------- broadcast_in_dim
# Operand dimension i becomes output dimension broadcast_dimensions[i]; every
# other output dimension is new. An operand dimension of size 1 may stretch.
def _broadcast_in_dim_shape_rule(x: ShapedArray, *, shape, broadcast_dimensions, sharding):
    if any(d < 0 for d in shape):
        raise TypeError("broadcast_in_dim shape must have every element be nonnegative, got "
                        f"{tuple(shape)}.")
    if x.ndim != len(broadcast_dimensions):
        raise TypeError("broadcast_in_dim broadcast_dimensions must have length equal to operand "
                        f"ndim; got broadcast_dimensions {broadcast_dimensions} for operand ndim "
                        f"{x.ndim}.")
    for i, d in enumerate(broadcast_dimensions):
        if not (0 <= d < len(shape)) or x.shape[i] not in (1, shape[d]):
            raise TypeError("broadcast_in_dim operand dimension sizes must either be 1, or be "
                            "equal to their corresponding dimensions in the target broadcast "
                            f"shape; got operand of shape {x.shape}, target broadcast shape "
                            f"{tuple(shape)}, broadcast_dimensions {broadcast_dimensions} ")
    return tuple(shape)


def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions, sharding):
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


broadcast_in_dim_p = shape_primitive("broadcast_in_dim", _broadcast_in_dim_shape_rule,
                                     _broadcast_in_dim_impl)


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions, sharding):
    """Sum over the new dimensions (and the stretched size-1 ones), then restore the 1s."""
    unit_dims = [i for i, d in enumerate(x.aval.shape) if d == 1]
    kept = [d for i, d in enumerate(broadcast_dimensions) if i not in unit_dims]
    summed = lax.reduce_sum(ct, [d for d in range(len(shape)) if d not in kept])
    return [lax.expand_dims(summed, unit_dims)]


ad.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)


def _broadcast_in_dim_batch(args, dims, *, shape, broadcast_dimensions, sharding):
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    return broadcast_in_dim_p.bind(x, shape=(np.shape(x)[0], *shape),
                                   broadcast_dimensions=(0, *(b + 1 for b in broadcast_dimensions)),
                                   sharding=sharding), 0


batching.batching_rules[broadcast_in_dim_p] = _broadcast_in_dim_batch
pp_eqn_rules[broadcast_in_dim_p] = hide_params("shape", "sharding",
                                               hide_if_empty=("broadcast_dimensions",))


# ---------------------------------------------------------------- reshape
def _reshape_shape_rule(x: ShapedArray, *, new_sizes, dimensions, sharding):
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError("reshape total size must be unchanged, got new_sizes "
                        f"{tuple(new_sizes)} (of total size {int(np.prod(new_sizes))}) for shape "
                        f"{x.shape} (of total size {x.size}).")
    return tuple(new_sizes)


def _reshape_impl(x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        x = np.transpose(x, dimensions)
    return np.reshape(x, new_sizes)


reshape_p = shape_primitive("reshape", _reshape_shape_rule, _reshape_impl)
ad.deflinear(reshape_p, lambda ct, x, **p: [lax.reshape(ct, x.aval.shape)])
batching.batching_rules[reshape_p] = lambda args, dims, *, new_sizes, dimensions, sharding: (
    lax.reshape(moveaxis(args[0], dims[0], 0), (np.shape(args[0])[dims[0]], *new_sizes),
                None if dimensions is None else (0, *(d + 1 for d in dimensions))), 0)


# ---------------------------------------------------------------- transpose
def _transpose_shape_rule(x: ShapedArray, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {permutation} for operand shape {x.shape}.")
    return tuple(x.shape[p] for p in permutation)


transpose_p = shape_primitive("transpose", _transpose_shape_rule,
                              lambda x, *, permutation: np.transpose(x, permutation))
ad.deflinear(transpose_p, lambda ct, x, *, permutation: [
    lax.transpose(ct, tuple(int(i) for i in np.argsort(permutation)))])
batching.batching_rules[transpose_p] = lambda args, dims, *, permutation: (
    transpose_p.bind(moveaxis(args[0], dims[0], 0),
                     permutation=(0, *(p + 1 for p in permutation))), 0)


# ---------------------------------------------------------------- squeeze
def _squeeze_shape_rule(x: ShapedArray, *, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal "
                             f"to one, got shape={x.shape} and dimensions={dimensions}")
    return tuple(s for i, s in enumerate(x.shape) if i not in dimensions)


squeeze_p = shape_primitive("squeeze", _squeeze_shape_rule,
                            lambda x, *, dimensions: np.squeeze(x, tuple(dimensions)))
ad.deflinear(squeeze_p, lambda ct, x, *, dimensions: [lax.expand_dims(ct, dimensions)])
batching.batching_rules[squeeze_p] = lambda args, dims, *, dimensions: (
    squeeze_p.bind(moveaxis(args[0], dims[0], 0), dimensions=tuple(d + 1 for d in dimensions)), 0)


# ---------------------------------------------------------------- rev
rev_p = shape_primitive("rev", lambda x, *, dimensions: x.shape,
                        lambda x, *, dimensions: np.flip(x, tuple(dimensions)) if dimensions
                        else x)
ad.deflinear(rev_p, lambda ct, x, *, dimensions: [lax.rev(ct, dimensions)])
batching.batching_rules[rev_p] = lambda args, dims, *, dimensions: (
    rev_p.bind(moveaxis(args[0], dims[0], 0), dimensions=tuple(d + 1 for d in dimensions)), 0)


# ---------------------------------------------------------------- concatenate
def _concatenate_shape_rule(*xs: ShapedArray, dimension: int):
    if not xs:
        raise TypeError("concatenate expects at least one operand, got 0.")
    first = xs[0].shape
    if len({x.ndim for x in xs}) != 1:
        raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                        f"{', '.join(str(x.shape) for x in xs)}.")
    for x in xs:
        if any(a != b for i, (a, b) in enumerate(zip(x.shape, first))
                                       if i != dimension):
            shapes = ", ".join(str(x.shape) for x in xs)
            raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions "
                            "other than the one being concatenated: concatenating along "
                            f"dimension {dimension} for shapes {shapes}.")
    size = sum(x.shape[dimension] for x in xs)
    return first[:dimension] + (size,) + first[dimension + 1:]


def _concatenate_dtype_rule(*xs: ShapedArray, dimension: int):
    check_same_dtypes("concatenate", *xs)
    return xs[0].dtype


concatenate_p = standard_primitive(
    "concatenate", _concatenate_shape_rule, _concatenate_dtype_rule,
    lambda *xs, dimension: np.concatenate(xs, axis=dimension),
    weak_type_rule=lambda *xs, **p: all(x.weak_type for x in xs))


def _concatenate_jvp(primals, tangents, *, dimension):
    out = concatenate_p.bind(*primals, dimension=dimension)
    if all(type(t) is ad.Zero for t in tangents):
        return out, ad.Zero.from_value(out)
    return out, concatenate_p.bind(*map(ad.instantiate_zeros, tangents), dimension=dimension)


def _concatenate_transpose(ct, *xs, dimension):
    """Each linear operand gets its own slice of the cotangent."""
    out, start = [], 0
    for x in xs:
        size = ad.aval_of(x).shape[dimension]
        out.append(lax.slice_in_dim(ct, start, start + size, 1, dimension)
                   if ad.is_undefined_primal(x) else None)
        start += size
    return out


ad.jvp_rules[concatenate_p] = _concatenate_jvp
ad.transpose_rules[concatenate_p] = _concatenate_transpose


def _concatenate_batch(args, dims, *, dimension):
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    return concatenate_p.bind(*[bdim_at_front(x, d, size) for x, d in zip(args, dims)],
                              dimension=dimension + 1), 0


batching.batching_rules[concatenate_p] = _concatenate_batch


# ---------------------------------------------------------------- stack
# stack(*xs, axis): arrays of one shape and dtype, joined along a new axis.
# (JAX 0.10 made this a primitive of its own; before, jnp.stack concatenated
# expanded operands.)
def _stack_shape_rule(*xs: ShapedArray, axis: int):
    if not xs:
        raise ValueError("stack expects at least one operand, got 0.")
    if len({x.ndim for x in xs}) != 1:
        raise ValueError("Cannot stack arrays with different numbers of dimensions: got "
                         f"{', '.join(str(x.shape) for x in xs)}.")
    if len({x.shape for x in xs}) != 1:
        raise ValueError("All input arrays must have the same shape. Got "
                         f"{', '.join(str(x.shape) for x in xs)}.")
    shape = list(xs[0].shape)
    shape.insert(axis, len(xs))
    return tuple(shape)


def _stack_dtype_rule(*xs: ShapedArray, axis: int):
    check_same_dtypes("stack", *xs)
    return xs[0].dtype


stack_p = standard_primitive("stack", _stack_shape_rule, _stack_dtype_rule,
                             lambda *xs, axis: np.stack(xs, axis=axis))


def _stack_jvp(primals, tangents, *, axis):
    out = stack_p.bind(*primals, axis=axis)
    if all(type(t) is ad.Zero for t in tangents):
        return out, ad.Zero.from_value(out)
    return out, stack_p.bind(*map(ad.instantiate_zeros, tangents), axis=axis)


def _stack_transpose(ct, *xs, axis):
    """Operand i's cotangent is slice i along the stacked axis."""
    return [lax.index_in_dim(ct, i, axis, keepdims=False) if ad.is_undefined_primal(x)
            else None for i, x in enumerate(xs)]


def _stack_batch(args, dims, *, axis):
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    return stack_p.bind(*[bdim_at_front(x, d, size) for x, d in zip(args, dims)],
                        axis=axis + 1), 0


ad.jvp_rules[stack_p] = _stack_jvp
ad.transpose_rules[stack_p] = _stack_transpose
batching.batching_rules[stack_p] = _stack_batch


# ---------------------------------------------------------------- tile
# tile(x, reps): repeat the whole array reps[i] times along dimension i.
def _tile_shape_rule(x: ShapedArray, *, reps):
    if x.ndim != len(reps):
        raise TypeError("reps length must be equal to the ndim of x, got "
                        f"len(reps)={len(reps)} and x.ndim={x.ndim}.")
    return tuple(d * r for d, r in zip(x.shape, reps))


tile_p = shape_primitive("tile", _tile_shape_rule, lambda x, *, reps: np.tile(x, reps))


def _tile_transpose(ct, x, *, reps):
    """Each copy of x received part of the cotangent: split the tiled axes and sum copies."""
    shape = x.aval.shape
    split = [d for r, n in zip(reps, shape) for d in (r, n)]
    summed = lax.reduce_sum(lax.reshape(ct, split), range(0, 2 * len(shape), 2))
    return [summed]


ad.deflinear(tile_p, _tile_transpose)
batching.batching_rules[tile_p] = lambda args, dims, *, reps: (
    tile_p.bind(moveaxis(args[0], dims[0], 0), reps=(1, *reps)), 0)


# ---------------------------------------------------------------- pad
# padding_config: one (low, high, interior) triple per dimension; negative low or
# high trims. Interior padding puts ``interior`` copies of the pad value between elements.
def _pad_shape_rule(x: ShapedArray, pad_value: ShapedArray, *, padding_config):
    if len(padding_config) != x.ndim:
        raise ValueError("length of padding_config must equal the number of axes of operand, "
                         f"got padding_config {padding_config} for operand shape {x.shape}")
    return tuple(lo + hi + d + max(d - 1, 0) * interior
                 for d, (lo, hi, interior) in zip(x.shape, padding_config))


def _pad_impl(x, pad_value, *, padding_config):
    out_shape = _pad_shape_rule(core.get_aval(x), None, padding_config=padding_config)
    full_shape = [max(d, 0) + max(lo, 0) + max(hi, 0) - min(lo, 0) - min(hi, 0)
                  for d, (lo, hi, _) in zip(out_shape, padding_config)]
    out = np.full(full_shape, pad_value, dtype=x.dtype)
    index = tuple(slice(max(lo, 0), max(lo, 0) + (n - 1) * (interior + 1) + 1, interior + 1)
                  for n, (lo, _, interior) in zip(x.shape, padding_config))
    if x.size:
        out[index] = x
    trim = tuple(slice(-min(lo, 0), -min(lo, 0) + n) for n, (lo, _, _) in
                 zip(out_shape, padding_config))
    return out[trim]


pad_p = standard_primitive("pad", _pad_shape_rule, _dtype_of_first, _pad_impl,
                           weak_type_rule=first_input_weak_type_rule)


def _pad_jvp(primals, tangents, *, padding_config):
    out = pad_p.bind(*primals, padding_config=padding_config)
    if all(type(t) is ad.Zero for t in tangents):
        return out, ad.Zero.from_value(out)
    t_x, t_pad = map(ad.instantiate_zeros, tangents)
    return out, pad_p.bind(t_x, t_pad, padding_config=padding_config)


def _pad_transpose(ct, x, pad_value, *, padding_config):
    """The operand's cotangent is the un-padded part; the pad value gets all the rest."""
    lo = [-low for low, _, _ in padding_config]
    hi = [-high for _, high, _ in padding_config]
    trimmed = lax.pad(ct, lax.full((), 0, ct.dtype), list(zip(lo, hi, [0] * len(lo))))
    t_x = lax.slice(trimmed, [0] * len(lo), trimmed.shape,
                    [interior + 1 for _, _, interior in padding_config])
    t_pad = (lax.sub(lax.reduce_sum(ct, range(ct.ndim)), lax.reduce_sum(t_x, range(t_x.ndim)))
             if ad.is_undefined_primal(pad_value) else None)
    return [t_x if ad.is_undefined_primal(x) else None, t_pad]


ad.jvp_rules[pad_p] = _pad_jvp
ad.transpose_rules[pad_p] = _pad_transpose


def _pad_batch(args, dims, *, padding_config):
    (x, pad_value), (d, pad_dim) = args, dims
    if pad_dim is not None:
        raise NotImplementedError("batching pad with a batched padding value is not supported "
                                  "(JAX does not support it either)")
    return pad_p.bind(moveaxis(x, d, 0), pad_value,
                      padding_config=((0, 0, 0), *padding_config)), 0


batching.batching_rules[pad_p] = _pad_batch


# ---------------------------------------------------------------- iota
def _iota_abstract_eval(*, dtype, shape, dimension, sharding):
    if np.dtype(dtype).kind not in "iufc":
        raise TypeError(f"iota does not accept dtype {np.dtype(dtype).name}. Accepted dtypes "
                        "are subtypes of integer, floating, complexfloating.")
    return ShapedArray(shape, dtype)


def _iota_impl(*, dtype, shape, dimension, sharding):
    ramp = np.arange(shape[dimension], dtype=dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return np.broadcast_to(ramp.reshape(view), shape)


iota_p = Primitive("iota")
core.abstract_eval_rules[iota_p] = _iota_abstract_eval
core.impl_rules[iota_p] = _iota_impl


# ---------------------------------------------------------------- slice
def _slice_shape_rule(x: ShapedArray, *, start_indices, limit_indices, strides):
    if len(start_indices) != x.ndim or len(limit_indices) != x.ndim:
        raise TypeError("slice start_indices and limit_indices must have length equal to the "
                        f"number of dimensions of the operand, got {start_indices} and "
                        f"{limit_indices} for operand shape {x.shape}.")
    for lo, hi, d in zip(start_indices, limit_indices, x.shape):
        if not 0 <= lo <= hi <= d:
            raise TypeError(f"slice start_indices {start_indices} and limit_indices "
                            f"{limit_indices} are out of bounds for operand shape {x.shape}.")
    strides = strides or (1,) * x.ndim
    return tuple((hi - lo + s - 1) // s if hi > lo else 0
                 for lo, hi, s in zip(start_indices, limit_indices, strides))


def _slice_impl(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    return x[tuple(slice(lo, hi, s) for lo, hi, s in zip(start_indices, limit_indices, strides))]


slice_p = shape_primitive("slice", _slice_shape_rule, _slice_impl)


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    """Put the cotangent back where the slice came from, zeros elsewhere (a pad)."""
    shape = x.aval.shape
    if strides is None or all(s == 1 for s in strides):
        pads = zip(start_indices, np.subtract(shape, limit_indices), (0,) * len(shape))
    else:
        real_limits = np.add(start_indices, np.where(np.array(ct.shape) == 0, 0, np.add(
            1, np.multiply(np.subtract(ct.shape, 1), strides))))
        pads = zip(start_indices, np.subtract(shape, real_limits), np.subtract(strides, 1))
    return [lax.pad(ct, np.asarray(0, ct.dtype)[()], list(pads))]


ad.deflinear(slice_p, _slice_transpose)


def _slice_batch(args, dims, *, start_indices, limit_indices, strides):
    x = moveaxis(args[0], dims[0], 0)
    return slice_p.bind(x, start_indices=(0, *start_indices),
                        limit_indices=(np.shape(x)[0], *limit_indices),
                        strides=None if strides is None else (1, *strides)), 0


batching.batching_rules[slice_p] = _slice_batch


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
    x, *starts = primals
    out = dynamic_slice_p.bind(x, *starts, slice_sizes=slice_sizes)
    if type(tangents[0]) is ad.Zero:
        return out, ad.Zero.from_value(out)
    return out, dynamic_slice_p.bind(tangents[0], *starts, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, x, *starts, slice_sizes):
    zeros = lax.full(x.aval.shape, 0, x.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *starts)] + [None] * len(starts)


ad.jvp_rules[dynamic_slice_p] = _dynamic_slice_jvp
ad.transpose_rules[dynamic_slice_p] = _dynamic_slice_transpose


def _dynamic_slice_batch(args, dims, *, slice_sizes):
    """vmap of a dynamic_slice: it is a gather that reads one window, so batch that gather.

    The scalar start indices become one index vector (one per example, if any start
    is batched) and gather's batching rule does the rest, as in JAX. CLIP mode is
    dynamic_slice's own rule: a start too far out moves back inside.
    """
    from edujax.lax import slicing  # (slicing imports this module)
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
        return lax.concatenate([lax.broadcast(s, (1,)) for s in starts], 0), None
    columns = [lax.broadcast_in_dim(s, (size, 1), (0,) if d is not None else ())
               for s, d in zip(starts, dims)]
    return lax.concatenate(columns, 1), 0


batching.batching_rules[dynamic_slice_p] = _dynamic_slice_batch


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
    t_x = dynamic_update_slice_p.bind(ct, lax.full(update_aval.shape, 0, update_aval.dtype),
                                      *starts) if ad.is_undefined_primal(x) else None
    t_update = dynamic_slice_p.bind(ct, *starts, slice_sizes=update_aval.shape) \
        if ad.is_undefined_primal(update) else None
    return [t_x, t_update] + [None] * len(starts)


ad.jvp_rules[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose


def _dynamic_update_slice_batch(args, dims):
    """vmap of a dynamic_update_slice: it is a scatter of one window, so batch that scatter."""
    from edujax.lax import slicing  # (slicing imports this module)
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


# ---------------------------------------------------------------- split
def _split_abstract_eval(x: ShapedArray, *, sizes, axis):
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                         f"operand shape {x.shape}")
    return [x.update(shape=x.shape[:axis] + (s,) + x.shape[axis + 1:]) for s in sizes]


split_p = Primitive("split")
split_p.multiple_results = True
core.abstract_eval_rules[split_p] = _split_abstract_eval
core.impl_rules[split_p] = lambda x, *, sizes, axis: np.split(x, np.cumsum(sizes)[:-1], axis)


def _split_jvp(primals, tangents, *, sizes, axis):
    outs = split_p.bind(*primals, sizes=sizes, axis=axis)
    t, = tangents
    if type(t) is ad.Zero:
        return outs, [ad.Zero.from_value(o) for o in outs]
    return outs, split_p.bind(t, sizes=sizes, axis=axis)


ad.jvp_rules[split_p] = _split_jvp
ad.transpose_rules[split_p] = lambda cts, x, *, sizes, axis: [
    lax.concatenate([ad.instantiate_zeros(ct) for ct in cts], axis)]
batching.batching_rules[split_p] = lambda args, dims, *, sizes, axis: (
    split_p.bind(moveaxis(args[0], dims[0], 0), sizes=sizes, axis=axis + 1), [0] * len(sizes))
