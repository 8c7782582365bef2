"""``edujax.lax``: the primitive operations, one thin function each.

lax is stricter than jax.numpy: no implicit dtype promotion and no rank
promotion. ``lax.add(x, y)`` needs x and y of one dtype, and of one shape
(size-1 dimensions and rank-0 scalars excepted). jax.numpy does the promotion
and then calls these functions.
"""
from __future__ import annotations

import builtins
from typing import Any, Sequence

import numpy as np

from edujax import core, dtypes
from edujax.array import Array
from edujax.lax.dot import dot_general_p
from edujax.lax.elementwise import (abs_p, acos_p, acosh_p, add_p, and_p, asin_p, asinh_p,
                                    atan2_p, atan_p, atanh_p, cbrt_p, ceil_p, clamp_p,
                                    convert_element_type_p, cos_p, cosh_p, div_p, eq_p, erf_p,
                                    exp2_p, exp_p, expm1_p, floor_p, ge_p, gt_p, integer_pow_p,
                                    is_finite_p, le_p, log1p_p, log_p, logistic_p, lt_p, max_p,
                                    min_p, mul_p, ne_p, neg_p, nextafter_p, not_p, or_p, pow_p,
                                    rem_p, round_p, rsqrt_p, select_n_p, shift_left_p,
                                    shift_right_arithmetic_p, shift_right_logical_p, sign_p,
                                    sin_p, sinh_p, sqrt_p, square_p, sub_p, tan_p, tanh_p, xor_p)
from edujax.lax.reductions import (argmax_p, argmin_p, cumlogsumexp_p, cummax_p, cummin_p,
                                   cumprod_p, cumsum_p, reduce_and_p, reduce_max_p, reduce_min_p,
                                   reduce_or_p, reduce_prod_p, reduce_sum_p, reduce_xor_p, sort_p)
from edujax.lax.shape import (broadcast_in_dim_p, concatenate_p, dynamic_slice_p,
                              dynamic_update_slice_p, iota_p, pad_p, reshape_p, rev_p, slice_p,
                              split_p, squeeze_p, stack_p, tile_p, transpose_p)
from edujax.lax.special import stop_gradient, stop_gradient_p  # noqa: F401
from edujax.lax.special import erf_inv, erf_inv_p  # noqa: F401
from edujax.lax.elementwise import bitcast_convert_type, bitcast_convert_type_p  # noqa: F401,E402


def _is_array(x: Any) -> bool:
    return isinstance(x, (Array, core.Tracer))


# ---------------------------------------------------------------- elementwise
def _unary(prim):
    def fn(x):
        return prim.bind(x)
    fn.__name__ = prim.name
    fn.__doc__ = f"Elementwise ``{prim.name}`` (the ``{prim.name}`` primitive)."
    return fn


def _accurate_unary(prim):
    def fn(x, accuracy=None):
        return prim.bind(x, accuracy=accuracy)
    fn.__name__ = prim.name
    fn.__doc__ = f"Elementwise ``{prim.name}`` (the ``{prim.name}`` primitive)."
    return fn


def _binary(prim):
    def fn(x, y):
        return prim.bind(x, y)
    fn.__name__ = prim.name
    fn.__doc__ = f"Elementwise ``{prim.name}`` of two operands of the same dtype."
    return fn


neg, sign, abs, floor, ceil, is_finite, square = map(
    _unary, (neg_p, sign_p, abs_p, floor_p, ceil_p, is_finite_p, square_p))
asin, acos, atan, sinh, cosh, asinh, acosh, atanh, erf = map(
    _unary, (asin_p, acos_p, atan_p, sinh_p, cosh_p, asinh_p, acosh_p, atanh_p, erf_p))
exp, exp2, log, log1p, expm1, tanh, logistic, sin, cos, tan, sqrt, rsqrt, cbrt = map(
    _accurate_unary, (exp_p, exp2_p, log_p, log1p_p, expm1_p, tanh_p, logistic_p, sin_p, cos_p,
                      tan_p, sqrt_p, rsqrt_p, cbrt_p))
add, sub, mul, div, rem, pow, max, min, atan2, nextafter = map(
    _binary, (add_p, sub_p, mul_p, div_p, rem_p, pow_p, max_p, min_p, atan2_p, nextafter_p))
bitwise_and, bitwise_or, bitwise_xor = map(_binary, (and_p, or_p, xor_p))
shift_left, shift_right_arithmetic, shift_right_logical = map(
    _binary, (shift_left_p, shift_right_arithmetic_p, shift_right_logical_p))
eq, ne, lt, le, gt, ge = map(_binary, (eq_p, ne_p, lt_p, le_p, gt_p, ge_p))
bitwise_not = not_ = _unary(not_p)


def integer_pow(x, y: int):
    """``x ** y`` for a Python int ``y``, by repeated multiplication."""
    return integer_pow_p.bind(x, y=int(y))


def round(x, rounding_method: int = 0):
    """Round to nearest: 0 = half away from zero (default), 1 = half to even."""
    return round_p.bind(x, rounding_method=int(rounding_method))


def select_n(which, *cases):
    """``cases[which]`` elementwise; a bool ``which`` picks cases[1] where True."""
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (note: select_n's order is reversed)."""
    return select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
    return clamp_p.bind(min, x, max)


def convert_element_type(operand, new_dtype):
    """Cast to ``new_dtype`` (canonicalized: float64 means float32 unless x64 is on)."""
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    if not _is_array(operand):
        # A Python or NumPy scalar: bind, so that eager code gets an Array back. (While
        # staging, the constant-folding rule turns it into a literal right away.)
        return convert_element_type_p.bind(np.asarray(operand), new_dtype=new_dtype,
                                           weak_type=False, sharding=None)
    return _convert_element_type(operand, new_dtype, False)


def _convert_element_type(operand, new_dtype, weak_type: bool = False):
    """The cast jnp uses everywhere, with JAX's shortcuts.

    * A Python or NumPy scalar is converted right here with NumPy; no equation
      is recorded, so it shows up in a jaxpr as a literal such as ``2.0:f32[]``.
    * An array that already has the dtype and weak type is returned as is.
    """
    if type(operand) is Array and operand._weak_type == weak_type and \
            operand._value.dtype == new_dtype:
        return operand  # the common case, checked first: nothing to do
    new_dtype = np.dtype(new_dtype)
    if type(operand) in dtypes.python_scalar_types or isinstance(operand, np.generic):
        if dtypes.dtype_and_weak(operand) == (new_dtype, weak_type):
            return operand  # e.g. 0.1 stays the Python float 0.1 (printed so in jaxprs)
        value = np.asarray(operand).astype(new_dtype)
        if weak_type:
            return value.item()
        return value[()]
    old_dtype, old_weak = dtypes.dtype_and_weak(operand)
    if old_dtype == new_dtype and old_weak == weak_type and (
            _is_array(operand) or isinstance(operand, np.ndarray)):
        return operand  # nothing to do (JAX also forwards such a cast instead of staging it)
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=bool(weak_type),
                                       sharding=None)


# ---------------------------------------------------------------- shapes
def broadcast_in_dim(operand, shape: Sequence[int], broadcast_dimensions: Sequence[int],
                     out_sharding=None):
    shape, dims = tuple(int(d) for d in shape), tuple(int(d) for d in broadcast_dimensions)
    if np.ndim(operand) == len(shape) and not dims and _is_array(operand):
        return operand
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims,
                                   sharding=out_sharding)


def asarray(x: Any) -> Any:
    """An Array for a constant when computing eagerly; while tracing, a constant stays a
    plain value so that it is inlined into the jaxpr as a literal (as JAX does)."""
    if _is_array(x):
        return x
    if core._state.trace is core.eval_trace:
        dtype, weak = dtypes.dtype_and_weak(x)
        return Array(np.asarray(x, dtype), weak)
    return x


def broadcast(operand, sizes: Sequence[int]):
    """Add leading dimensions of the given sizes."""
    if not len(sizes):
        return asarray(operand)
    dims = tuple(range(len(sizes), len(sizes) + np.ndim(operand)))
    return broadcast_in_dim(operand, tuple(sizes) + np.shape(operand), dims)


def broadcast_to_rank(x, rank: int):
    """Add leading size-1 dimensions until ``x`` has ``rank`` dimensions."""
    ndim = np.ndim(x)
    if ndim == rank:
        return x
    return broadcast_in_dim(x, (1,) * (rank - ndim) + np.shape(x), range(rank - ndim, rank))


def expand_dims(array, dimensions: Sequence[int]):
    """Insert size-1 dimensions at ``dimensions`` (positions in the output)."""
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"repeated axis in lax.expand_dims: {tuple(dimensions)}")
    if not len(dimensions):
        return array
    ndim_out = np.ndim(array) + len(dimensions)
    for d in dimensions:
        if not -ndim_out <= d < ndim_out:
            raise ValueError(f"axis {d} is out of bounds for array of dimension {ndim_out}")
    dims = sorted(d % ndim_out for d in dimensions)
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
    shape = list(np.shape(array))
    for d in dims:
        shape.insert(d, 1)
    kept = [i for i in range(ndim_out) if i not in dims]
    return broadcast_in_dim(array, shape, kept)


def reshape(operand, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None,
            out_sharding=None):
    new_sizes = tuple(int(d) for d in new_sizes)
    same_order = dimensions is None or tuple(dimensions) == tuple(range(np.ndim(operand)))
    # NB: as in JAX, a 0-d operand is always reshaped (the check needs a non-empty shape)
    if np.shape(operand) and np.shape(operand) == new_sizes and same_order and \
            _is_array(operand):
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes,
                          dimensions=None if same_order else tuple(dimensions),
                          sharding=out_sharding)


def transpose(operand, permutation: Sequence[int]):
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(np.ndim(operand))) and _is_array(operand):
        return operand
    return transpose_p.bind(operand, permutation=permutation)


def squeeze(array, dimensions: Sequence[int]):
    ndim = np.ndim(array)
    dims = tuple(sorted(d % ndim for d in dimensions)) if ndim else ()
    if not dims and _is_array(array):
        return array
    return squeeze_p.bind(array, dimensions=dims)


def rev(operand, dimensions: Sequence[int]):
    return rev_p.bind(operand, dimensions=tuple(dimensions))


def concatenate(operands: Sequence[Any], dimension: int):
    if len(operands) == 1 and _is_array(operands[0]):
        return operands[0]
    return concatenate_p.bind(*operands, dimension=int(dimension))


def stack(operands: Sequence[Any], axis: int = 0):
    """Join arrays of one shape along a new ``axis`` (the ``stack`` primitive)."""
    ndim = np.ndim(operands[0]) if operands else 0
    return stack_p.bind(*operands, axis=int(axis) % (ndim + 1))


def tile(operand, reps: Sequence[int]):
    """Repeat the whole array ``reps[i]`` times along each dimension i."""
    return tile_p.bind(operand, reps=tuple(int(r) for r in reps))


def pad(operand, padding_value, padding_config: Sequence[tuple[int, int, int]]):
    # NB: the values are kept as given (as JAX does), so NumPy ints print as np.int64(2).
    return pad_p.bind(operand, padding_value,
                      padding_config=tuple(tuple(p) for p in padding_config))


def iota(dtype, size: int):
    return iota_p.bind(dtype=dtypes.canonicalize_dtype(dtype), shape=(int(size),), dimension=0,
                       sharding=None)


def broadcasted_iota(dtype, shape: Sequence[int], dimension: int):
    return iota_p.bind(dtype=dtypes.canonicalize_dtype(dtype), shape=tuple(shape),
                       dimension=int(dimension), sharding=None)


def slice(operand, start_indices, limit_indices, strides=None):
    strides = None if strides is None or all(s == 1 for s in strides) else tuple(strides)
    return slice_p.bind(operand, start_indices=tuple(int(i) for i in start_indices),
                        limit_indices=tuple(int(i) for i in limit_indices), strides=strides)


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
    shape = np.shape(operand)
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    axis %= len(shape)
    size = shape[axis]
    starts[axis], limits[axis], strides[axis] = (
        _clip_index(0 if start_index is None else start_index, size),
        _clip_index(size if limit_index is None else limit_index, size), stride)
    return slice(operand, starts, limits, strides)


def _clip_index(i: int, size: int) -> int:
    i = i + size if i < 0 else i
    return builtins.min(builtins.max(i, 0), size)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    size = np.shape(operand)[axis]
    index = index + size if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


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


def dynamic_update_slice(operand, update, start_indices: Sequence[Any], *,
                         allow_negative_indices: bool = True):
    """A copy of ``operand`` with ``update`` written at ``start_indices`` (clamped in bounds)."""
    if allow_negative_indices:
        start_indices = _dynamic_slice_indices(operand, start_indices)
    return dynamic_update_slice_p.bind(operand, update, *start_indices)


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0):
    starts = [0] * np.ndim(operand)
    sizes = list(np.shape(operand))
    starts[axis], sizes[axis] = start_index, slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int):
    starts = [0] * np.ndim(operand)
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


def split(operand, sizes: Sequence[int], axis: int = 0):
    return split_p.bind(operand, sizes=tuple(int(s) for s in sizes), axis=int(axis))


# ---------------------------------------------------------------- reductions
def _axes(axes) -> tuple[int, ...]:
    return tuple(int(a) for a in axes)


def reduce_sum(operand, axes: Sequence[int]):
    return reduce_sum_p.bind(operand, axes=_axes(axes), out_sharding=None)


def reduce_prod(operand, axes: Sequence[int]):
    return reduce_prod_p.bind(operand, axes=_axes(axes))


def reduce_max(operand, axes: Sequence[int]):
    return reduce_max_p.bind(operand, axes=_axes(axes))


def reduce_min(operand, axes: Sequence[int]):
    return reduce_min_p.bind(operand, axes=_axes(axes))


def reduce_and(operand, axes: Sequence[int]):
    return reduce_and_p.bind(operand, axes=_axes(axes))


def reduce_or(operand, axes: Sequence[int]):
    return reduce_or_p.bind(operand, axes=_axes(axes))


def reduce_xor(operand, axes: Sequence[int]):
    return reduce_xor_p.bind(operand, axes=_axes(axes))


def argmax(operand, axis: int, index_dtype):
    return argmax_p.bind(operand, axes=(int(axis),),
                         index_dtype=dtypes.canonicalize_dtype(index_dtype))


def argmin(operand, axis: int, index_dtype):
    return argmin_p.bind(operand, axes=(int(axis),),
                         index_dtype=dtypes.canonicalize_dtype(index_dtype))


def _cumulative(prim):
    def fn(operand, axis: int = 0, reverse: bool = False):
        return prim.bind(operand, axis=int(axis) % builtins.max(np.ndim(operand), 1),
                         reverse=bool(reverse))
    fn.__name__ = prim.name
    return fn


cumsum, cumprod, cummax, cummin, cumlogsumexp = map(
    _cumulative, (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p))


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """Sort one array, or a tuple of arrays by the first ``num_keys`` of them."""
    single = not isinstance(operand, (tuple, list))
    operands = [operand] if single else list(operand)
    dimension = int(dimension) % np.ndim(operands[0])
    outs = sort_p.bind(*operands, dimension=dimension, is_stable=bool(is_stable),
                       num_keys=int(num_keys))
    return outs[0] if single else tuple(outs)


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    return sort((keys, values), dimension, is_stable, 1)


# ---------------------------------------------------------------- products
def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    (lc, rc), (lb, rb) = dimension_numbers
    dims = ((tuple(builtins.map(int, lc)), tuple(builtins.map(int, rc))),
            (tuple(builtins.map(int, lb)), tuple(builtins.map(int, rb))))
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(preferred_element_type)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dims, precision=precision,
                              preferred_element_type=preferred_element_type,
                              out_sharding=out_sharding)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector/matrix products of rank <= 2 operands."""
    lhs_ndim, rhs_ndim = np.ndim(lhs), np.ndim(rhs)
    if lhs_ndim in (1, 2) and rhs_ndim in (1, 2):
        dims = (([lhs_ndim - 1], [0]), ([], []))
        return dot_general(lhs, rhs, dims, precision, preferred_element_type)
    raise TypeError(f"Incompatible shapes for dot: got {np.shape(lhs)} and {np.shape(rhs)}.")


# ---------------------------------------------------------------- constants
def full(shape: Sequence[int], fill_value, dtype=None):
    """An array of ``shape`` filled with ``fill_value`` (a scalar broadcast, not a copy)."""
    shape = tuple(int(d) for d in np.atleast_1d(shape)) if np.ndim(shape) else \
        (() if shape == () else (int(shape),))
    if np.ndim(fill_value):
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    weak = dtype is None and dtypes.dtype_and_weak(fill_value)[1]
    dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else \
        dtypes.dtype_and_weak(fill_value)[0]
    return broadcast(_convert_element_type(fill_value, dtype, weak), shape)


def full_like(x, fill_value, dtype=None, shape=None):
    """Like ``full``; without a dtype it copies x's dtype *and* weak type."""
    aval = core.get_aval(x)
    weak = dtype is None and aval.weak_type
    dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else aval.dtype
    shape = np.shape(x) if shape is None else tuple(shape)
    return broadcast(_convert_element_type(fill_value, dtype, weak), shape)

from edujax.lax.control_flow import cond, fori_loop, map, scan, switch, while_loop  # noqa: E402,F401
from edujax.lax.parallel import (all_gather, axis_index, pmax, pmean, pmin,  # noqa: E402,F401
                                 ppermute, psum)
