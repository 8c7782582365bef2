"""Reductions (sum, max, argmax...), cumulative reductions and sort.

A reduction removes the dimensions listed in ``axes``. Integer sums wrap around
on overflow exactly like XLA (NumPy would promote to int64, so we pass dtype=).
"""
from __future__ import annotations

import builtins
from functools import partial
from typing import Sequence

import numpy as np

from edujax import core, dtypes
from edujax.interpreters import ad, batching
from edujax.interpreters.batching import moveaxis
from edujax.core import Primitive, ShapedArray
from edujax.lax.associative_scan import associative_scan
from edujax.lax.base import (_axes, broadcast_in_dim, convert_element_type, expand_dims, full,
                             full_like, reduce_sum_p, reshape)
from edujax.lax.complex_numbers import imag, real
from edujax.lax.elementwise import (bitwise_and, bitwise_or, div, eq, eq_to_p, gt_p,
                                    le_to_p, lt_p, lt_to_p, max, min, mul, ne, select_n)
from edujax.lax.registry import (BOOL, COMPLEX, FLOATING, INTEGER, accepted, axes_batch,
                                 checked_dtype_rule, first_input_weak_type_rule, reduce_shape_rule,
                                 reduction,
                                 standard_primitive)
from edujax.lax.registry import NUMBER as NUMBER_FAMILY
from edujax.lax.shape import broadcasted_iota, pad, slice_in_dim, squeeze
from edujax.lax.slicing import GatherDimensionNumbers, gather
from edujax.lax.special import logaddexp

# The dtype families each reduction accepts (and names in its errors), as in JAX.
ANY = accepted(INTEGER, FLOATING, COMPLEX, BOOL)
NUMBER = accepted(NUMBER_FAMILY)
BOOL_OR_INT = accepted(BOOL, INTEGER)


def _reduce_chooser_jvp(g, ans, x, *, axes):
    """The tangent of max/min flows from the position(s) that hold the extreme value;
    ties share it equally."""
    kept = [1 if i in axes else d for i, d in enumerate(x.shape)]
    # g may be a Python scalar, a 0-d tangent passed as is to jax.jvp: JAX's jnp.max is an
    # inline jit whose boundary makes it an array, edujax's jnp.max has no such boundary
    where = convert_element_type(eq(x, reshape(ans, kept)), dtypes.dtype_and_weak(g)[0])
    # (bound with the axes as given, as JAX's lax.reduce_sum keeps them: under vmap they are
    # NumPy integers, and print so)
    counts = reduce_sum_p.bind(where, axes=tuple(axes), out_sharding=None)
    return div(reduce_sum_p.bind(mul(g, where), axes=tuple(axes), out_sharding=None), counts)


def _np_reduce(ufunc):
    """np.max & co. take no dtype= argument; the result keeps the input dtype anyway."""
    return lambda x, axis, dtype: ufunc.reduce(x, axis=axis) if x.size or ufunc.identity \
        is not None else ufunc.reduce(x, axis=axis, initial=_lowest(ufunc, x.dtype))


def _lowest(ufunc, dtype):
    """The identity of max (the lowest value) or min (the highest), used to reduce an
    empty array when the output is itself empty."""
    if dtype.kind == "b":
        return ufunc is np.minimum
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    if ufunc is np.maximum:
        return -np.inf if dtype.kind == "f" else info.min
    return np.inf if dtype.kind == "f" else info.max


reduce_prod_p = reduction("reduce_prod", np.prod, NUMBER)


def _reduce_prod_jvp(primals, tangents, *, axes):
    """Differentiate a product written as a tree of multiplications, as JAX does: the reduced
    axes are flattened into one, in front; then the first half is multiplied by the second
    (padded with a 1 when the length is odd) until one row is left. Every step is a plain
    ``mul``, so zeros need no special care (no division)."""
    (x,), (t,) = primals, tangents
    shape = core.get_aval(x).shape
    non_axes = np.delete(np.arange(len(shape)), axes)  # NumPy ints, as in JAX
    permutation = tuple(axes) + tuple(non_axes)
    new_shape = (int(np.prod([shape[a] for a in axes])), *(shape[d] for d in non_axes))
    x, t = (reshape(v, new_shape, permutation) for v in (x, ad.instantiate_zeros(t)))
    one = np.array(1, core.get_aval(x).dtype)
    out_shape = tuple(shape[d] for d in non_axes)
    (out,), (t_out,) = ad.jvp_flat(lambda x: [_product_tree(x, one, out_shape)], [x], [t])
    return out, t_out


def _product_tree(x, one, out_shape):
    """The product along axis 0 by halving. NB: JAX vmaps its reducer over the other axes;
    for ``mul`` the vmapped function is ``mul`` itself."""
    while core.get_aval(x).shape[0] > 1:
        n = core.get_aval(x).shape[0]
        n1 = (n + 1) // 2
        first, second = slice_in_dim(x, 0, n1), slice_in_dim(x, n1, None)
        if n - n1 != n1:
            padding = [(0, 0, 0)] * core.get_aval(x).ndim
            padding[0] = (0, 1, 0)
            second = pad(second, one, padding)
        x = mul(first, second)
    if core.get_aval(x).shape[0] == 0:
        return full(out_shape, one)
    return squeeze(x, (0,))


ad.jvp_rules[reduce_prod_p] = _reduce_prod_jvp
axes_batch(reduce_prod_p)


def reduce_prod(operand, axes: Sequence[int]):
    return reduce_prod_p.bind(operand, axes=_axes(axes))


reduce_max_p = reduction("reduce_max", _np_reduce(np.maximum), ANY)
ad.defjvp2(reduce_max_p, _reduce_chooser_jvp)
axes_batch(reduce_max_p)


def reduce_max(operand, axes: Sequence[int]):
    return reduce_max_p.bind(operand, axes=_axes(axes))


reduce_min_p = reduction("reduce_min", _np_reduce(np.minimum), ANY)
ad.defjvp2(reduce_min_p, _reduce_chooser_jvp)
axes_batch(reduce_min_p)


def reduce_min(operand, axes: Sequence[int]):
    return reduce_min_p.bind(operand, axes=_axes(axes))


def _bitwise_reduce(ufunc):
    """and/or/xor over bools (logical) or integers (bit by bit)."""
    return lambda x, axis, dtype: ufunc.reduce(x, axis=axis, dtype=x.dtype)


reduce_and_p = reduction("reduce_and", _bitwise_reduce(np.bitwise_and), BOOL_OR_INT)
ad.defjvp_zero(reduce_and_p)
axes_batch(reduce_and_p)


def reduce_and(operand, axes: Sequence[int]):
    return reduce_and_p.bind(operand, axes=_axes(axes))


reduce_or_p = reduction("reduce_or", _bitwise_reduce(np.bitwise_or), BOOL_OR_INT)
ad.defjvp_zero(reduce_or_p)
ad.linearized_directly.add(reduce_or_p)  # (only the printed jaxpr: see ad.py)
axes_batch(reduce_or_p)


def reduce_or(operand, axes: Sequence[int]):
    return reduce_or_p.bind(operand, axes=_axes(axes))


reduce_xor_p = reduction("reduce_xor", _bitwise_reduce(np.bitwise_xor), BOOL_OR_INT)
ad.defjvp_zero(reduce_xor_p)
axes_batch(reduce_xor_p)


def reduce_xor(operand, axes: Sequence[int]):
    return reduce_xor_p.bind(operand, axes=_axes(axes))


# ---------------------------------------------------------------- argmax / argmin
# NaN counts as the largest (argmax) and smallest (argmin) value, as in NumPy.
def _arg_shape_rule(x: ShapedArray, *, axes, index_dtype) -> tuple[int, ...]:
    if x.shape[axes[0]] == 0:
        raise ValueError("argmin and argmax require non-empty reduced dimension. "
                         f"operand.shape={x.shape} axes={axes}")
    return reduce_shape_rule(x, axes=axes)


def _arg_impl(np_fn, compare_p: Primitive, x: np.ndarray, *, axes, index_dtype) -> np.ndarray:
    """The index of the largest (smallest) value. XLA finds it by comparing values with
    ``gt`` (``lt``), which refuses complex numbers: tracing an argmax of complex numbers
    works, running one fails with that comparison's error, as in JAX."""
    if x.dtype.kind == "c":
        aval = ShapedArray(x.shape, x.dtype)
        core.abstract_eval_rules[compare_p](aval, aval)  # raises JAX's TypeError
    return np_fn(x, axis=axes[0]).astype(index_dtype)


def arg_reduction(name: str, np_fn, compare_p: Primitive) -> Primitive:
    return standard_primitive(
        name, _arg_shape_rule, lambda x, *, axes, index_dtype: np.dtype(index_dtype),
        partial(_arg_impl, np_fn, compare_p), weak_type_rule=lambda x, **p: False)


argmax_p = arg_reduction("argmax", np.argmax, gt_p)
ad.defjvp_zero(argmax_p)
axes_batch(argmax_p)


def argmax(operand, axis: int, index_dtype):
    return argmax_p.bind(operand, axes=(int(axis),),
                         index_dtype=dtypes.canonicalize_dtype(index_dtype))


argmin_p = arg_reduction("argmin", np.argmin, lt_p)
ad.defjvp_zero(argmin_p)
axes_batch(argmin_p)


def argmin(operand, axis: int, index_dtype):
    return argmin_p.bind(operand, axes=(int(axis),),
                         index_dtype=dtypes.canonicalize_dtype(index_dtype))


# ---------------------------------------------------------------- cumulative reductions
def cumulative(name: str, np_fn) -> Primitive:
    def impl(x, *, axis, reverse):
        if reverse:
            return np.flip(np_fn(np.flip(x, axis), axis), axis).astype(x.dtype)
        return np_fn(x, axis).astype(x.dtype)
    return standard_primitive(name, lambda x, **p: x.shape,
                              partial(checked_dtype_rule, name, NUMBER), impl,
                              weak_type_rule=first_input_weak_type_rule)


# A scan along one axis: the batch dimension stays where it is (as in JAX), and the axis
# shifts past it if it comes after.
def _axis_batch(prim):
    def rule(args, dims, *, axis, **params):
        (x,), (bdim,) = args, dims
        return prim.bind(x, axis=axis if axis < bdim else axis + 1, **params), bdim
    batching.batching_rules[prim] = rule


# cumprod/cummax/cummin/cumlogsumexp are differentiated the way JAX does it: write the
# cumulative op as lax.associative_scan (a parallel prefix scan made of slices, pads and the
# combining op, edujax/lax/associative_scan.py) and differentiate *that*. It stays correct
# with zeros (cumprod) and ties (cummax), unlike a division trick, and its jaxpr under grad
# is JAX's, equation for equation.
def _lowest_value(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest_value(dtype):
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _cumulative_jvp(combine):
    def rule(primals, tangents, *, axis, reverse):
        (x,), (t,) = primals, tangents
        scan = partial(associative_scan, combine, axis=axis, reverse=reverse)
        (out,), (t_out,) = ad.jvp_flat(lambda x: [scan(x)], [x], [ad.instantiate_zeros(t)])
        return out, t_out
    return rule


def _cumulative(prim):
    def fn(operand, axis: int = 0, reverse: bool = False):
        return prim.bind(operand, axis=int(axis) % builtins.max(np.ndim(operand), 1),
                         reverse=bool(reverse))
    fn.__name__ = prim.name
    return fn


cumsum_p = cumulative("cumsum", lambda x, axis: np.cumsum(x, axis, dtype=x.dtype))
ad.deflinear(cumsum_p, lambda ct, x, *, axis, reverse: [
    cumsum(ct, axis, reverse=not reverse)])
_axis_batch(cumsum_p)
cumsum = _cumulative(cumsum_p)
cumprod_p = cumulative("cumprod", lambda x, axis: np.cumprod(x, axis, dtype=x.dtype))
ad.jvp_rules[cumprod_p] = _cumulative_jvp(mul)
_axis_batch(cumprod_p)
cumprod = _cumulative(cumprod_p)
cummax_p = cumulative("cummax", lambda x, axis: np.maximum.accumulate(x, axis))
ad.jvp_rules[cummax_p] = _cumulative_jvp(max)
_axis_batch(cummax_p)
cummax = _cumulative(cummax_p)
cummin_p = cumulative("cummin", lambda x, axis: np.minimum.accumulate(x, axis))
ad.jvp_rules[cummin_p] = _cumulative_jvp(min)
_axis_batch(cummin_p)
cummin = _cumulative(cummin_p)
cumlogsumexp_p = cumulative("cumlogsumexp", lambda x, axis: np.logaddexp.accumulate(x, axis))
ad.jvp_rules[cumlogsumexp_p] = _cumulative_jvp(logaddexp)
_axis_batch(cumlogsumexp_p)
cumlogsumexp = _cumulative(cumlogsumexp_p)


# ---------------------------------------------------------------- sort
# sort takes several operands and sorts them all by the first ``num_keys`` of
# them (lexicographically); jnp.argsort sorts (x, iota) and keeps the second.
def _sort_abstract_eval(*xs: ShapedArray, dimension, is_stable, num_keys):
    if any(x.shape != xs[0].shape for x in xs):
        raise TypeError("sort operands must all have the same shape, got "
                        f"{', '.join(str(x.shape) for x in xs)}")
    return list(xs)


def _sort_impl(*xs, dimension, is_stable, num_keys):
    keys = [np.moveaxis(k, dimension, -1) for k in xs[:num_keys]]
    order = np.lexsort(keys[::-1], axis=-1) if num_keys > 1 else \
        np.argsort(keys[0], axis=-1, kind="stable")
    return [np.moveaxis(np.take_along_axis(np.moveaxis(x, dimension, -1), order, -1), -1,
                        dimension) for x in xs]


sort_p = Primitive("sort")
sort_p.multiple_results = True
core.abstract_eval_rules[sort_p] = _sort_abstract_eval
core.impl_rules[sort_p] = _sort_impl


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    """Sorting permutes. Sort an iota along to learn the permutation, then gather each
    tangent with it (a gather is linear, so reverse mode can transpose it).

    As in JAX, the iota is unsigned (uint32: it only counts positions) and the gather
    walks every other dimension as a *batching* dimension: output[i, j] reads
    tangent[i, perm[i, j]], one index per element, with no iotas for the other axes.
    """
    shape = core.get_aval(primals[0]).shape
    outs = sort_p.bind(*primals, broadcasted_iota(np.uint32, shape, dimension),
                       dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    # NB: JAX takes these from np.delete, so they print as np.int64(0) in the jaxpr.
    others = tuple(np.delete(np.arange(len(shape), dtype=np.int64), dimension))
    dnums = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(dimension,),
                                   start_index_map=(dimension,),
                                   operand_batching_dims=others,
                                   start_indices_batching_dims=others)
    perm = expand_dims(outs[-1], (len(shape),))  # one index vector (of length 1) per element
    return outs[:-1], [t if type(t) is ad.Zero else
                       gather(t, perm, dnums, (1,) * len(shape), mode="promise_in_bounds")
                       for t in tangents]


ad.jvp_rules[sort_p] = _sort_jvp


def _sort_batch(args, dims, *, dimension, is_stable, num_keys):
    """Sort every operand along the same axis: the batch dimension of the first batched
    operand is where all batch dimensions go (an unbatched operand, such as argsort's
    iota, is broadcast there), and the sorted axis shifts past it."""
    prototype, bdim = next((x, d) for x, d in zip(args, dims) if d is not None)
    shape = core.get_aval(prototype).shape
    others = [d for d in range(len(shape)) if d != bdim]  # plain ints, as JAX's int(dim)
    args = [broadcast_in_dim(x, shape, others) if d is None else moveaxis(x, d, bdim)
            for x, d in zip(args, dims)]
    outs = sort_p.bind(*args, dimension=dimension + (bdim <= dimension), is_stable=is_stable,
                       num_keys=num_keys)
    return outs, [bdim] * len(args)


batching.batching_rules[sort_p] = _sort_batch


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


# ---------------------------------------------------------------- sort's comparators
# What "x comes before y" means when sorting, as functions of traced values: JAX's
# lax._sort_lt_comparator and _sort_le_comparator. jnp.searchsorted compares with them, so
# their operations show in its jaxpr.
def canonicalize_float_for_sort(x):
    """-0.0 becomes 0.0 and every NaN the same NaN, so that the total order (where
    -0.0 < 0.0 and NaNs differ by sign) treats them as NumPy's sort does: equal."""
    result = select_n(eq(x, full_like(x, 0, shape=())), x, full_like(x, 0))
    return select_n(ne(x, x), result, full_like(result, np.nan))


def _operands_to_keys(*operands, num_keys: int = 1) -> tuple[list, list]:
    """Pair up (x0, y0, x1, y1, ...) into the keys compared: floats canonicalized, a complex
    number as two keys (real part, then imaginary part)."""
    x_keys, y_keys = [], []
    for x, y in zip(operands[:2 * num_keys:2], operands[1:2 * num_keys:2]):
        dtype = core.get_aval(x).dtype
        if dtype.kind == "c":
            x_keys += [canonicalize_float_for_sort(part(x)) for part in (real, imag)]
            y_keys += [canonicalize_float_for_sort(part(y)) for part in (real, imag)]
        elif dtype.kind == "f":
            x_keys.append(canonicalize_float_for_sort(x))
            y_keys.append(canonicalize_float_for_sort(y))
        else:
            x_keys.append(x)
            y_keys.append(y)
    return x_keys, y_keys


def _lexicographic(last_prim, *operands, num_keys: int = 1):
    """Compare key by key, the first key deciding: built from the last key backwards as
    ``lt_to(x, y) or (eq_to(x, y) and <the comparison of the keys after>)``."""
    x_keys, y_keys = _operands_to_keys(*operands, num_keys=num_keys)
    p = None
    for xk, yk in zip(x_keys[::-1], y_keys[::-1]):
        p = (bitwise_or(lt_to_p.bind(xk, yk), bitwise_and(eq_to_p.bind(xk, yk), p))
             if p is not None else last_prim.bind(xk, yk))
    return p


sort_lt_comparator = partial(_lexicographic, lt_to_p)  # x < y in the total order
sort_le_comparator = partial(_lexicographic, le_to_p)  # x <= y (searchsorted, side="left")
