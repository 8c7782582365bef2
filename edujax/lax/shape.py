"""Primitives that move data without computing: broadcast, reshape, transpose, slices.

Their reference rules are one NumPy call each; the interesting part is the
shape rule, which is also where bad arguments get their error messages.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Sequence

import numpy as np

from edujax import core, dtypes
from edujax.interpreters import ad, batching
from edujax.interpreters.batching import moveaxis
from edujax.core import Primitive, ShapedArray
from edujax.lax.base import (_is_array, broadcast, broadcast_in_dim, expand_dims, full, full_like,
                             reduce_sum, reshape)
from edujax.lax.elementwise import select, sub
from edujax.lax.registry import (dtype_of_first, check_same_dtypes, first_input_weak_type_rule,
                                 shape_primitive, standard_primitive)


# ---------------------------------------------------------------- squeeze
def _squeeze_shape_rule(x: ShapedArray, *, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal "
                             f"to one, got shape={x.shape} and dimensions={dimensions}")
    return tuple(s for i, s in enumerate(x.shape) if i not in dimensions)


squeeze_p = shape_primitive("squeeze", _squeeze_shape_rule,
                            lambda x, *, dimensions: np.squeeze(x, tuple(dimensions)))
ad.deflinear(squeeze_p, lambda ct, x, *, dimensions: [expand_dims(ct, dimensions)])
batching.batching_rules[squeeze_p] = lambda args, dims, *, dimensions: (
    squeeze_p.bind(moveaxis(args[0], dims[0], 0), dimensions=tuple(d + 1 for d in dimensions)), 0)


def squeeze(array, dimensions: Sequence[int]):
    ndim = np.ndim(array)
    dims = tuple(sorted(d % ndim for d in dimensions)) if ndim else ()
    if not dims and _is_array(array):
        return array
    return squeeze_p.bind(array, dimensions=dims)


# ---------------------------------------------------------------- rev
rev_p = shape_primitive("rev", lambda x, *, dimensions: x.shape,
                        lambda x, *, dimensions: np.flip(x, tuple(dimensions)) if dimensions
                        else x)
ad.deflinear(rev_p, lambda ct, x, *, dimensions: [rev(ct, dimensions)])
batching.batching_rules[rev_p] = lambda args, dims, *, dimensions: (  # the bdim stays put
    rev_p.bind(args[0], dimensions=tuple(d + (d >= dims[0]) for d in dimensions)), dims[0])


def rev(operand, dimensions: Sequence[int]):
    return rev_p.bind(operand, dimensions=tuple(dimensions))


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
    """Each operand gets its own piece of the cotangent: one ``split`` cuts them all at
    once, as in JAX (the pieces of operands that are not linear are simply dropped)."""
    if type(ct) is ad.Zero:
        return [ad.Zero(ad.aval_of(x)) if ad.is_undefined_primal(x) else None for x in xs]
    return split(ct, [ad.aval_of(x).shape[dimension] for x in xs], dimension)


ad.jvp_rules[concatenate_p] = _concatenate_jvp
ad.transpose_rules[concatenate_p] = _concatenate_transpose


def _concatenate_batch(args, dims, *, dimension):
    return concatenate_p.bind(*_batch_in_front(args, dims), dimension=dimension + 1), 0


def _batch_in_front(args, dims) -> list:
    """Every operand with its batch dimension first; an unbatched one is broadcast (with
    ``lax.broadcast``, as JAX's concatenate and stack rules do)."""
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not None)
    return [broadcast(x, (size,)) if d is None else moveaxis(x, d, 0)
            for x, d in zip(args, dims)]


batching.batching_rules[concatenate_p] = _concatenate_batch


def concatenate(operands: Sequence[Any], dimension: int):
    if len(operands) == 1 and _is_array(operands[0]):
        return operands[0]
    return concatenate_p.bind(*operands, dimension=int(dimension))


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
    """Operand i's cotangent is slice i along the stacked axis: one ``unstack`` gives them
    all, as in JAX (those of operands that are not linear are dropped)."""
    if type(ct) is ad.Zero:
        return [ad.Zero(ad.aval_of(x)) if ad.is_undefined_primal(x) else None for x in xs]
    return unstack_p.bind(ct, axis=axis)


def _stack_batch(args, dims, *, axis):
    """Operands batched along one same dimension stack as they are (the new axis goes
    before or after it); otherwise the batch dimensions move to the front, as in JAX."""
    bdim = dims[0]
    if bdim is not None and all(d == bdim for d in dims):
        if axis <= bdim:
            return stack_p.bind(*args, axis=axis), bdim + 1
        return stack_p.bind(*args, axis=axis + 1), bdim
    return stack_p.bind(*_batch_in_front(args, dims), axis=axis + 1), 0


ad.jvp_rules[stack_p] = _stack_jvp
ad.transpose_rules[stack_p] = _stack_transpose
batching.batching_rules[stack_p] = _stack_batch


def stack(operands: Sequence[Any], axis: int = 0):
    """Join arrays of one shape along a new ``axis`` (the ``stack`` primitive)."""
    ndim = np.ndim(operands[0]) if operands else 0
    return stack_p.bind(*operands, axis=int(axis) % (ndim + 1))


# ---------------------------------------------------------------- unstack
# unstack(x, axis): the slices of x along ``axis``, one output each (stack's inverse, and
# its transpose).
def _unstack_abstract_eval(x: ShapedArray, *, axis: int):
    if x.ndim == 0:
        raise ValueError("unstack requires arrays with rank > 0, however a scalar array of "
                         f"shape {x.shape} was passed.")
    shape = x.shape[:axis] + x.shape[axis + 1:]
    return [ShapedArray(shape, x.dtype, x.weak_type)] * x.shape[axis]


unstack_p = Primitive("unstack")
unstack_p.multiple_results = True
core.abstract_eval_rules[unstack_p] = _unstack_abstract_eval
core.impl_rules[unstack_p] = lambda x, *, axis: [np.take(x, i, axis) for i in
                                                 range(np.shape(x)[axis])]


def _unstack_jvp(primals, tangents, *, axis: int):
    outs = unstack_p.bind(*primals, axis=axis)
    t, = tangents
    if type(t) is ad.Zero:
        return outs, [ad.Zero.from_value(o) for o in outs]
    return outs, unstack_p.bind(t, axis=axis)


def _unstack_transpose(cts, x, *, axis: int):
    if all(type(ct) is ad.Zero for ct in cts):
        return [ad.Zero(ad.aval_of(x))]
    return [stack_p.bind(*[ad.instantiate_zeros(ct) for ct in cts], axis=axis)]


def _unstack_batch(args, dims, *, axis: int):
    """The batch dimension stays where it is; the unstacked axis skips past it."""
    (x,), (bdim,) = args, dims
    out_axis, out_bdim = (axis, bdim - 1) if axis < bdim else (axis + 1, bdim)
    outs = unstack_p.bind(x, axis=out_axis)
    return outs, [out_bdim] * len(outs)


ad.jvp_rules[unstack_p] = _unstack_jvp
ad.transpose_rules[unstack_p] = _unstack_transpose
batching.batching_rules[unstack_p] = _unstack_batch


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
    summed = reduce_sum(reshape(ct, split), range(0, 2 * len(shape), 2))
    return [summed]


ad.deflinear(tile_p, _tile_transpose)
batching.batching_rules[tile_p] = lambda args, dims, *, reps: (  # the bdim stays put
    tile_p.bind(args[0], reps=(*reps[:dims[0]], 1, *reps[dims[0]:])), dims[0])


def tile(operand, reps: Sequence[int]):
    """Repeat the whole array ``reps[i]`` times along each dimension i."""
    return tile_p.bind(operand, reps=tuple(int(r) for r in reps))


# ---------------------------------------------------------------- pad
# padding_config: one (low, high, interior) triple per dimension; negative low or
# high trims. Interior padding puts ``interior`` copies of the pad value between elements.
def _pad_shape_rule(x: ShapedArray, pad_value: ShapedArray, *, padding_config):
    if len(padding_config) != x.ndim:
        raise ValueError("length of padding_config must equal the number of axes of operand, "
                         f"got padding_config {padding_config} for operand shape {x.shape}")
    return tuple(int(lo + hi + d + max(d - 1, 0) * interior)  # a shape holds Python ints
                 for d, (lo, hi, interior) in zip(x.shape, padding_config))


def _pad_impl(x, pad_value, *, padding_config):
    out_shape = _pad_shape_rule(core.get_aval(x), None, padding_config=padding_config)
    full_shape = [max(d, 0) + max(lo, 0) + max(hi, 0) - min(lo, 0) - min(hi, 0)
                  for d, (lo, hi, _) in zip(out_shape, padding_config)]
    out = np.full(full_shape, pad_value, dtype=x.dtype)
    index = tuple(builtins.slice(max(lo, 0), max(lo, 0) + (n - 1) * (interior + 1) + 1,
                                 interior + 1)
                  for n, (lo, _, interior) in zip(x.shape, padding_config))
    if x.size:
        out[index] = x
    trim = tuple(builtins.slice(-min(lo, 0), -min(lo, 0) + n) for n, (lo, _, _) in
                 zip(out_shape, padding_config))
    return out[trim]


pad_p = standard_primitive("pad", _pad_shape_rule, dtype_of_first, _pad_impl,
                           weak_type_rule=first_input_weak_type_rule)


def _pad_jvp(primals, tangents, *, padding_config):
    out = pad_p.bind(*primals, padding_config=padding_config)
    if all(type(t) is ad.Zero for t in tangents):
        return out, ad.Zero.from_value(out)
    t_x, t_pad = map(ad.instantiate_zeros, tangents)
    return out, pad_p.bind(t_x, t_pad, padding_config=padding_config)


def _pad_transpose(ct, x, pad_value, *, padding_config):
    """The operand's cotangent is the un-padded part; the pad value gets all the rest.

    Un-padding is a pad by the negated amounts (it trims), then a strided slice that skips
    the interior padding. NB: JAX computes these numbers with NumPy (np.negative, np.add),
    so its jaxprs print them as ``np.int64(-1)``; we compute them the same way.
    """
    lo, hi, interior = (np.array(c, dtype=np.int64) for c in zip(*padding_config))
    unpad_config = list(zip(np.negative(lo), np.negative(hi), np.zeros_like(interior)))
    trimmed = pad(ct, full((), 0, ct.dtype), unpad_config)
    t_x = slice(trimmed, list(np.zeros_like(lo)), trimmed.shape, list(np.add(interior, 1)))
    t_pad = (sub(reduce_sum(ct, range(ct.ndim)), reduce_sum(t_x, range(t_x.ndim)))
             if ad.is_undefined_primal(pad_value) else None)
    return [t_x if ad.is_undefined_primal(x) else None, t_pad]


ad.jvp_rules[pad_p] = _pad_jvp
ad.transpose_rules[pad_p] = _pad_transpose


def _pad_batch(args, dims, *, padding_config):
    """Pad every example, leaving the batch dimension where it is (as JAX does).

    A batched pad value (one per example) cannot be a pad operand, which is a scalar: pad
    with zeros, pad a mask of Trues with False, and select each example's value where the
    mask says padding."""
    (x, pad_value), (d, pad_dim) = args, dims
    if d is None:
        x, d = broadcast(x, (np.shape(pad_value)[pad_dim],)), 0
    config = list(padding_config)
    config.insert(d, (0, 0, 0))
    if pad_dim is None:
        return pad(x, pad_value, config), d
    padded = pad(x, full_like(x, 0, shape=()), config)
    mask = pad(full_like(x, True, np.bool_), False, config)
    values = broadcast_in_dim(pad_value, np.shape(padded), (d,))
    return select(mask, padded, values), d


batching.batching_rules[pad_p] = _pad_batch


def pad(operand, padding_value, padding_config: Sequence[tuple[int, int, int]]):
    # NB: the values are kept as given (as JAX does), so NumPy ints print as np.int64(2).
    return pad_p.bind(operand, padding_value,
                      padding_config=tuple(tuple(p) for p in padding_config))


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


def iota(dtype, size: int):
    return iota_p.bind(dtype=dtypes.canonicalize_dtype(dtype), shape=(int(size),), dimension=0,
                       sharding=None)


def broadcasted_iota(dtype, shape: Sequence[int], dimension: int):
    return iota_p.bind(dtype=dtypes.canonicalize_dtype(dtype), shape=tuple(shape),
                       dimension=int(dimension), sharding=None)


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
    return tuple(int((hi - lo + s - 1) // s) if hi > lo else 0  # Python ints, even from
                 for lo, hi, s in zip(start_indices, limit_indices, strides))  # NumPy ones


def _slice_impl(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    return x[tuple(builtins.slice(lo, hi, s)
                   for lo, hi, s in zip(start_indices, limit_indices, strides))]


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
    return [pad(ct, np.asarray(0, ct.dtype)[()], list(pads))]


ad.deflinear(slice_p, _slice_transpose)


def _slice_batch(args, dims, *, start_indices, limit_indices, strides):
    """Take the whole batch dimension, where it is (as JAX does: no transpose first)."""
    (x,), (d,) = args, dims
    starts, limits = list(start_indices), list(limit_indices)
    starts.insert(d, 0)
    limits.insert(d, np.shape(x)[d])
    if strides is not None:
        strides = list(strides)
        strides.insert(d, 1)
    return slice(x, starts, limits, strides), d


batching.batching_rules[slice_p] = _slice_batch


def slice(operand, start_indices, limit_indices, strides=None):
    # The numbers are kept as given, as JAX keeps them (and so prints np.int64(0) where a
    # rule computed them with NumPy, as pad's transpose does); strides (1,) stays (1,).
    strides = None if strides is None else tuple(strides)
    return slice_p.bind(operand, start_indices=_indices(start_indices),
                        limit_indices=_indices(limit_indices), strides=strides)


def _indices(xs) -> tuple:
    return tuple(i if isinstance(i, (int, np.integer)) else operator.index(i) for i in xs)


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
    shape = np.shape(operand)
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    axis %= len(shape)
    size = shape[axis]
    starts[axis], limits[axis], strides[axis] = (
        _clip_index(0 if start_index is None else start_index, size),
        _clip_index(size if limit_index is None else limit_index, size), stride)
    return slice(operand, starts, limits, strides)


core.tracer_row = lambda x, i: index_in_dim(x, i, keepdims=False)  # ``for row in tracer``


def _clip_index(i: int, size: int) -> int:
    i = i + size if i < 0 else i
    return builtins.min(builtins.max(i, 0), size)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    size = np.shape(operand)[axis]
    index = index + size if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


# ---------------------------------------------------------------- split
def _split_abstract_eval(x: ShapedArray, *, sizes, axis):
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                         f"operand shape {x.shape}")
    return [x.update(shape=x.shape[:axis] + (int(s),) + x.shape[axis + 1:]) for s in sizes]


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
    concatenate([ad.instantiate_zeros(ct) for ct in cts], axis)]
batching.batching_rules[split_p] = lambda args, dims, *, sizes, axis: (  # the bdim stays put
    split_p.bind(args[0], sizes=sizes, axis=axis + (axis >= dims[0])), [dims[0]] * len(sizes))


def split(operand, sizes: Sequence[int], axis: int = 0):
    # The sizes are kept as given (JAX's too): jnp.split's are NumPy ints, and show so.
    sizes = tuple(s if isinstance(s, (int, np.integer)) else operator.index(s) for s in sizes)
    return split_p.bind(operand, sizes=sizes, axis=int(axis))
