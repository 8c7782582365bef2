"""The rest of jax.lax's public surface: small primitives and functions built from others.

* bit primitives on integers: ``clz`` (count leading zeros), ``population_count``
  (count one bits), ``mulhi`` (the high half of a double-width product);
* ``top_k`` (the k largest along an axis, with their indices), ``unstack`` (its primitive
  sits in shape.py, next to ``stack``, whose transpose it is) and ``optimization_barrier``
  (multiple-result primitives);
* the general ``reduce`` (any Python computation of two scalars, folded along axes);
* conveniences written with other lax functions: ``reciprocal``, ``collapse``,
  ``batch_matmul``, ``broadcast_shapes``, ``empty``, ``index_take``,
  ``dynamic_update_index_in_dim``;
* the enum ``RoundingMethod`` (``Precision`` and friends: edujax/lax/precision.py).
"""
from __future__ import annotations

import enum
import math
from typing import Any, Callable, Sequence

import numpy as np

from edujax import core, tree_util
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.inner_jit import inner_jit
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import eval_jaxpr
from edujax.lax import elementwise as ew
from edujax.lax import reductions as red
from edujax.lax.base import (broadcast_in_dim, expand_dims, full, reduce_sum,
                             reshape, transpose)
from edujax.lax.dot import dot_general
from edujax.lax.dynamic_slicing import dynamic_update_slice_in_dim
from edujax.lax.elementwise import naryop

from edujax.lax.registry import INTEGER, accepted
from edujax.lax.shape import concatenate, slice_in_dim, unstack_p
from edujax.lax.slicing import GatherDimensionNumbers, gather


# ---------------------------------------------------------------- enums
class RoundingMethod(enum.IntEnum):
    """How ``lax.round`` breaks ties: away from zero (2.5 -> 3) or to even (2.5 -> 2)."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


# ---------------------------------------------------------------- bit primitives
INT = accepted(INTEGER)


def _unsigned(x: np.ndarray) -> np.ndarray:
    """The same bits read as an unsigned integer, so that shifts bring in zeros."""
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _bit_length(x: np.ndarray) -> np.ndarray:
    """For each element, the position of its highest one bit, plus one (0 for 0)."""
    u = _unsigned(x)
    return sum(((u >> np.array(b, u.dtype)) != 0).astype(np.int64)
               for b in range(x.dtype.itemsize * 8))


def _clz_impl(x: np.ndarray) -> np.ndarray:
    return (x.dtype.itemsize * 8 - _bit_length(x)).astype(x.dtype)


def _population_count_impl(x: np.ndarray) -> np.ndarray:
    u = _unsigned(x)
    one = np.array(1, u.dtype)
    return sum(((u >> np.array(b, u.dtype)) & one).astype(np.int64)
               for b in range(x.dtype.itemsize * 8)).astype(x.dtype)


def _mulhi_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The upper half of the 2n-bit product of two n-bit integers.

    Up to 32 bits, the product fits in 64-bit NumPy integers; 64-bit operands use
    Python's unbounded integers, one element at a time.
    """
    bits = x.dtype.itemsize * 8
    if bits <= 32:
        wide = np.int64 if x.dtype.kind == "i" else np.uint64
        return ((x.astype(wide) * y.astype(wide)) >> wide(bits)).astype(x.dtype)
    high = np.frompyfunc(lambda a, b: ((int(a) * int(b)) >> bits)
                         % (1 << bits), 2, 1)(x, y)
    return high.astype(np.dtype(f"u{x.dtype.itemsize}")).view(x.dtype)


clz_p = naryop("clz", _clz_impl, INT)
population_count_p = naryop("population_count", _population_count_impl, INT)
mulhi_p = naryop("mulhi", _mulhi_impl, INT)
for _p in (clz_p, population_count_p, mulhi_p):
    ad.defjvp_zero(_p)
batching.defvectorized(clz_p)
batching.defvectorized(population_count_p)
batching.defbroadcasting(mulhi_p)


def clz(x):
    """How many zero bits come before the first one bit (32 for an int32 zero)."""
    return clz_p.bind(x)


def population_count(x):
    """How many bits are one."""
    return population_count_p.bind(x)


def mulhi(x, y):
    """The high half of the double-width product ``x * y`` (used by hash functions)."""
    return mulhi_p.bind(x, y)


# ---------------------------------------------------------------- top_k
def _canonicalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim


def _top_k_abstract_eval(operand: ShapedArray, *, k: int, axis: int):
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if not operand.shape:
        raise TypeError("top_k operand must have >= 1 dimension, got {}"
                        .format(operand.shape))
    if operand.shape[axis] < k:
        raise ValueError("k argument to top_k must be no larger than size along axis; "
                         f"got k={k} with shape={list(operand.shape)} and axis={axis}")
    shape = list(operand.shape)
    shape[axis] = k
    return [ShapedArray(tuple(shape), operand.dtype, operand.weak_type),
            ShapedArray(tuple(shape), np.dtype(np.int32))]


def _descending_key(x: np.ndarray) -> np.ndarray:
    """A key whose ascending order is x's descending order (NaN counts as largest)."""
    if x.dtype.kind == "b":
        return ~x.astype(np.int8)
    if x.dtype.kind in "iu":
        return ~x  # bitwise not reverses the order of signed and unsigned integers alike
    return np.where(np.isnan(x), -np.inf, -x.astype(np.float64))


def _top_k_impl(x, *, k: int, axis: int):
    """A stable sort on the descending key: among equal values the lower index comes first."""
    x = np.asarray(x)
    order = np.argsort(_descending_key(x), axis=axis, kind="stable")
    index = np.take(order, np.arange(k), axis=axis)
    return [np.take_along_axis(x, index, axis=axis), index.astype(np.int32)]


top_k_p = Primitive("top_k")
top_k_p.multiple_results = True
core.abstract_eval_rules[top_k_p] = _top_k_abstract_eval
core.impl_rules[top_k_p] = _top_k_impl


def _top_k_jvp(primals, tangents, *, k: int, axis: int):
    """Each output is a copy of one input element, so its tangent is that element's tangent:
    a gather with the chosen indices, one per output element, walking every other dimension
    as a batching dimension (as JAX does; sort's JVP is the same idea)."""
    (x,), (t,) = primals, tangents
    values, indices = top_k_p.bind(x, k=k, axis=axis)
    zero_indices = ad.Zero.from_value(indices)
    if type(t) is ad.Zero:
        return [values, indices], [ad.Zero.from_value(values), zero_indices]
    rank = np.ndim(indices)
    others = tuple(i for i in range(rank) if i != axis)
    dnums = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                   start_index_map=(axis,), operand_batching_dims=others,
                                   start_indices_batching_dims=others)
    index = reshape(indices, (*np.shape(indices), 1))
    return [values, indices], [gather(t, index, dnums, (1,) * rank), zero_indices]


ad.jvp_rules[top_k_p] = _top_k_jvp


def _top_k_batch(args, dims, *, k: int, axis: int):
    (x,), (b,) = args, dims
    new_axis = axis + (b <= axis)
    return top_k_p.bind(x, k=k, axis=new_axis), [b, b]


batching.batching_rules[top_k_p] = _top_k_batch


def top_k(operand, k: int, *, axis: int = -1):
    """The ``k`` largest entries along ``axis`` (descending) and their int32 indices."""
    axis = _canonicalize_axis(axis, np.ndim(operand))
    return top_k_p.bind(operand, k=int(k), axis=axis)  # NB: a list, as JAX returns


# ---------------------------------------------------------------- unstack
# (the primitive and its rules: edujax/lax/shape.py, next to stack, whose transpose it is)
def unstack(x, axis: int = 0) -> tuple:
    """The slices of ``x`` along ``axis``, as a tuple (the inverse of ``lax.stack``)."""
    return tuple(unstack_p.bind(x, axis=_canonicalize_axis(axis, np.ndim(x))))


# ---------------------------------------------------------------- optimization_barrier
optimization_barrier_p = Primitive("optimization_barrier")
optimization_barrier_p.multiple_results = True
core.abstract_eval_rules[optimization_barrier_p] = lambda *avals: list(avals)
core.impl_rules[optimization_barrier_p] = lambda *xs: list(xs)


def _barrier_jvp(primals, tangents):
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    return (optimization_barrier_p.bind(*primals), optimization_barrier_p.bind(*tangents))


ad.jvp_rules[optimization_barrier_p] = _barrier_jvp
ad.transpose_rules[optimization_barrier_p] = lambda cts, *xs: [
    ad.instantiate_zeros(ct) if ad.is_undefined_primal(x) else None for ct, x in zip(cts, xs)]
batching.batching_rules[optimization_barrier_p] = lambda args, dims: (
    optimization_barrier_p.bind(*args), list(dims))


def optimization_barrier(operand, /):
    """The identity on a pytree of arrays; tells XLA not to move computations across it."""
    flat, tree = tree_util.tree_flatten(operand)
    return tree_util.tree_unflatten(tree, optimization_barrier_p.bind(*flat))


# ---------------------------------------------------------------- the general reduce
def _reduce_abstract_eval(*avals, computation, jaxpr, dimensions):
    n = len(avals) // 2
    operands, inits = avals[:n], avals[n:]
    shape = tuple(d for i, d in enumerate(operands[0].shape) if i not in dimensions)
    return [ShapedArray(shape, init.dtype) for init in inits]


def _reduce_impl(*args, computation, jaxpr, dimensions):
    """Fold the reduced elements in one at a time, starting from the init values.

    The computation was traced on scalars, so its jaxpr is elementwise: each step runs it
    on whole arrays (one element per output position).
    """
    n = len(args) // 2
    operands, inits = [np.asarray(a) for a in args[:n]], args[n:]
    kept = [d for d in range(operands[0].ndim) if d not in dimensions]
    out_shape = tuple(operands[0].shape[d] for d in kept)
    moved = [np.transpose(o, (*dimensions, *kept)).reshape((-1, *out_shape)) for o in operands]
    accs = [np.full(out_shape, i, np.asarray(i).dtype) for i in inits]
    with core.set_current_trace(core.eval_trace):
        for step in range(moved[0].shape[0]):
            outs = eval_jaxpr(jaxpr.jaxpr, list(jaxpr.consts), *accs,
                              *[m[step] for m in moved])
            accs = [np.broadcast_to(np.asarray(o, a.dtype), out_shape).copy()
                    for o, a in zip(outs, accs)]
    return accs


reduce_p = Primitive("reduce")
reduce_p.multiple_results = True
core.abstract_eval_rules[reduce_p] = _reduce_abstract_eval
core.impl_rules[reduce_p] = _reduce_impl


def _reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
    """Differentiate the fold itself: unroll it, one ``jvp`` of the computation per
    reduced element, carrying (accumulator, accumulator tangent). The tangent program
    is built from the computation's own primitives, so reverse mode can transpose it.
    (JAX reduces as a tree instead of a chain: same values for an associative
    computation.)
    """
    n = len(primals) // 2
    operands, inits = list(primals[:n]), list(primals[n:])
    if any(type(t) is not ad.Zero for t in tangents[n:]):
        raise NotImplementedError("Gradient of general lax.reduce with non-zero tangents for "
                                  "initial values to reduction not implemented")
    t_operands = [ad.instantiate_zeros(t) for t in tangents[:n]]
    t_inits = [ad.zeros_like_aval(core.get_aval(i)) for i in inits]
    ndim = np.ndim(operands[0])
    kept = [d for d in range(ndim) if d not in dimensions]
    out_shape = tuple(np.shape(operands[0])[d] for d in kept)
    perm = (*dimensions, *kept)
    steps = math.prod(np.shape(operands[0])[d] for d in dimensions)
    flat = lambda x: reshape(transpose(x, perm), (steps, *out_shape))  # noqa: E731
    xs, t_xs = [flat(x) for x in operands], [flat(t) for t in t_operands]
    spread = lambda v: broadcast_in_dim(v, out_shape, ())  # noqa: E731
    accs, t_accs = [spread(i) for i in inits], [spread(t) for t in t_inits]

    def step(*args):
        return eval_jaxpr(jaxpr.jaxpr, list(jaxpr.consts), *args)

    for k in range(steps):
        x_k = [reshape(slice_in_dim(x, k, k + 1, 1, 0), out_shape) for x in xs]
        t_k = [reshape(slice_in_dim(t, k, k + 1, 1, 0), out_shape) for t in t_xs]
        accs, t_accs = ad.jvp_flat(step, [*accs, *x_k], [*t_accs, *t_k])
    return accs, t_accs


ad.jvp_rules[reduce_p] = _reduce_jvp


def _reduce_batch(args, dims, *, computation, jaxpr, dimensions):
    n = len(args) // 2
    if any(d is not None for d in dims[n:]):
        raise NotImplementedError("reduce batching is not implemented for initial values")
    size = next(np.shape(a)[d] for a, d in zip(args, dims) if d is not None)
    operands = [batching.bdim_at_front(a, d, size) for a, d in zip(args[:n], dims[:n])]
    return (reduce_p.bind(*operands, *args[n:], computation=computation, jaxpr=jaxpr,
                          dimensions=tuple(d + 1 for d in dimensions)), [0] * n)


batching.batching_rules[reduce_p] = _reduce_batch


def _monoid_reducer(computation: Callable, inits: list) -> Callable | None:
    """``lax.add`` from 0 is ``reduce_sum``, ``lax.max`` from -inf ``reduce_max``, ..."""
    if len(inits) != 1 or isinstance(inits[0], core.Tracer) or np.shape(inits[0]) != ():
        return None
    value = np.asarray(inits[0])
    dtype = core.get_aval(inits[0]).dtype
    intlike = dtype.kind in "biu"
    if computation is ew.add:
        return reduce_sum if value == 0 else None
    if computation is ew.mul:
        return red.reduce_prod if value == 1 else None
    if computation is ew.bitwise_or and intlike:
        return red.reduce_or if value == 0 else None
    if computation is ew.bitwise_and and intlike:
        return red.reduce_and if value == np.array(-1).astype(dtype) else None
    if computation is ew.bitwise_xor and intlike:
        return red.reduce_xor if value == 0 else None
    if computation is ew.max:
        return red.reduce_max if value == red._lowest_value(dtype) else None
    if computation is ew.min:
        return red.reduce_min if value == red._highest_value(dtype) else None
    return None


def reduce(operands: Any, init_values: Any, computation: Callable[[Any, Any], Any],
           dimensions: Sequence[int], out_sharding=None) -> Any:
    """Reduce ``dimensions`` away with ``computation`` (a function of two scalars, or of
    two pytrees of scalars), starting from ``init_values``. The common monoids (add from
    0, max from -inf...) become their own reduction primitives."""
    flat_operands, operand_tree = tree_util.tree_flatten(operands)
    flat_inits, init_tree = tree_util.tree_flatten(init_values)
    if operand_tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{operand_tree} vs. {init_tree}")
    if len(flat_operands) != len(flat_inits):
        raise ValueError("Must have same total number of operands as init_values: "
                         f" {len(flat_operands)} vs. {len(flat_inits)}")
    dimensions = tuple(int(d) for d in dimensions)
    monoid = _monoid_reducer(computation, flat_inits)
    if monoid is not None:
        return monoid(flat_operands[0], dimensions)
    avals = [core.get_aval(i) for i in flat_inits]

    def traced(*args):
        accs = tree_util.tree_unflatten(init_tree, list(args[:len(avals)]))
        xs = tree_util.tree_unflatten(init_tree, list(args[len(avals):]))
        return tree_util.tree_flatten(computation(accs, xs))

    closed, out_tree = trace_to_jaxpr(traced, avals + avals)
    outs = reduce_p.bind(*flat_operands, *flat_inits, computation=computation, jaxpr=closed,
                         dimensions=dimensions)
    return tree_util.tree_unflatten(out_tree, outs)


# ---------------------------------------------------------------- conveniences
def reciprocal(x):
    """``1 / x``, written as ``integer_pow(x, -1)`` as JAX does."""
    return ew.integer_pow(x, -1)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """Merge dimensions ``start_dimension:stop_dimension`` into one (a reshape)."""
    shape = tuple(np.shape(operand))
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    size = math.prod(shape[lo:hi])
    return reshape(operand, shape[:lo] + (size,) + shape[hi:])


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over matching leading (batch) dimensions."""
    lhs_ndim, rhs_ndim = np.ndim(lhs), np.ndim(rhs)
    if min(lhs_ndim, rhs_ndim) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {lhs_ndim}, "
                         f"{rhs_ndim}")
    if lhs_ndim != rhs_ndim:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {lhs_ndim}, "
                         f"{rhs_ndim}")
    batch = tuple(range(lhs_ndim - 2))
    return dot_general(lhs, rhs, (((lhs_ndim - 1,), (rhs_ndim - 2,)), (batch, batch)),
                       precision=precision)


def broadcast_shapes(*shapes):
    """The shape NumPy broadcasting gives these shapes (or ValueError).

    NB: jax.numpy has the same function (edujax/numpy/util.py); lax sits below jax.numpy,
    so this is its own copy rather than an import.
    """
    shapes = [tuple(s) for s in shapes]
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for dims in zip(*((1,) * (ndim - len(s)) + s for s in shapes)):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def empty(shape, dtype, *, out_sharding=None):
    """An array of the given shape whose contents do not matter (XLA gives zeros)."""
    return full(shape, 0, dtype)


def index_take(src, idxs, axes: Sequence[int]):
    """``src[idxs[0], idxs[1], ...]`` along ``axes`` (negative indices wrap), via gather."""
    indices = concatenate([expand_dims(i, (1,)) for i in idxs], 1)
    max_idx = np.array([np.shape(src)[ax] for ax in axes])
    max_idx = expand_dims(max_idx.astype(np.dtype(indices.dtype)),
                          tuple(range(np.ndim(indices) - 1)))
    indices = ew.rem(ew.add(ew.rem(indices, max_idx), max_idx), max_idx)
    slice_sizes = list(np.shape(src))
    for ax in axes:
        slice_sizes[ax] = 1
    offset_dims = tuple(range(1, np.ndim(src) - np.shape(indices)[1] + 1))
    dnums = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=tuple(axes),
                                   start_index_map=tuple(axes))
    return gather(src, indices, dimension_numbers=dnums, slice_sizes=tuple(slice_sizes))


@inner_jit(static_argnames=("axis", "allow_negative_indices"))
def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True):
    """Write ``update`` (one slice, with or without its size-1 axis) at ``index`` (a jit in
    JAX, so the index is traced inside it)."""
    axis = int(axis)
    if np.ndim(update) != np.ndim(operand):
        assert np.ndim(update) + 1 == np.ndim(operand)
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)
