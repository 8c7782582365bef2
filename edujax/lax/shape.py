"""Primitives that move data without computing: broadcast, reshape, transpose, slices.

Their reference rules are one NumPy call each; the interesting part is the
shape rule, which is also where bad arguments get their error messages.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.lax.registry import first_input_weak_type_rule, standard_primitive
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


# ---------------------------------------------------------------- transpose
def _transpose_shape_rule(x: ShapedArray, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {permutation} for operand shape {x.shape}.")
    return tuple(x.shape[p] for p in permutation)


transpose_p = shape_primitive("transpose", _transpose_shape_rule,
                              lambda x, *, permutation: np.transpose(x, permutation))


# ---------------------------------------------------------------- squeeze
def _squeeze_shape_rule(x: ShapedArray, *, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal "
                             f"to one, got shape={x.shape} and dimensions={dimensions}")
    return tuple(s for i, s in enumerate(x.shape) if i not in dimensions)


squeeze_p = shape_primitive("squeeze", _squeeze_shape_rule,
                            lambda x, *, dimensions: np.squeeze(x, tuple(dimensions)))


# ---------------------------------------------------------------- rev
rev_p = shape_primitive("rev", lambda x, *, dimensions: x.shape,
                        lambda x, *, dimensions: np.flip(x, tuple(dimensions)) if dimensions
                        else x)


# ---------------------------------------------------------------- concatenate
def _concatenate_shape_rule(*xs: ShapedArray, dimension: int):
    if not xs:
        raise TypeError("concatenate expects at least one operand, got 0.")
    first = xs[0].shape
    for x in xs:
        if x.ndim != len(first) or any(a != b for i, (a, b) in enumerate(zip(x.shape, first))
                                       if i != dimension):
            shapes = ", ".join(str(x.shape) for x in xs)
            raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions "
                            "other than the one being concatenated: concatenating along "
                            f"dimension {dimension} for shapes {shapes}.")
    size = sum(x.shape[dimension] for x in xs)
    return first[:dimension] + (size,) + first[dimension + 1:]


def _concatenate_dtype_rule(*xs: ShapedArray, dimension: int):
    if len({x.dtype for x in xs}) > 1:
        raise TypeError("lax.concatenate requires arguments to have the same dtypes, got "
                        f"{', '.join(x.dtype.name for x in xs)}.")
    return xs[0].dtype


concatenate_p = standard_primitive(
    "concatenate", _concatenate_shape_rule, _concatenate_dtype_rule,
    lambda *xs, dimension: np.concatenate(xs, axis=dimension),
    weak_type_rule=lambda *xs, **p: all(x.weak_type for x in xs))


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


# ---------------------------------------------------------------- iota
def _iota_abstract_eval(*, dtype, shape, dimension, sharding):
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
