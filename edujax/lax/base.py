"""The primitives every other family's rules are written with: casts, broadcasts, reshapes,
transposes and sums.

``convert_element_type``, ``broadcast_in_dim``, ``reshape``, ``transpose`` and ``reduce_sum`` are
what the JVP, transpose and batching rules of the other families (elementwise.py, shape.py,
reductions.py, ...) build their results from: an elementwise product's transpose sums over the
dimensions it broadcast, a reduction's JVP broadcasts its tangent back, and so on. Among
themselves they only need each other (broadcast_in_dim and reduce_sum are each other's
transposes), so they come first, and every other module of lax builds on this one; in JAX they
are all in the one big ``lax.py``.

Each primitive's block ends with its lax function (``lax.reshape(x, shape)`` is
``reshape_p.bind(...)`` with its arguments checked); the file ends with ``full`` and friends,
and the two tables below lax that they fill: how to make zeros for autodiff, and how vmap
moves a batch dimension.
"""
from __future__ import annotations

import enum
from typing import Any, Sequence

import numpy as np

from edujax import core, dtypes, nan_checks
from edujax.array import Array
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, ad_util, batching
from edujax.interpreters.batching import moveaxis
from edujax.interpreters.partial_eval import (DynamicJaxprTrace, const_fold_rules,
                                              forwarding_rules)
from edujax.lax.registry import (NUMBER, accepted, axes_batch, reduction, shape_primitive,
                                 standard_primitive)
from edujax.pretty import hide_params, pp_eqn_rules


# ---------------------------------------------------------------- convert_element_type
def _float_to_int(x: np.ndarray, new_dtype: np.dtype) -> np.ndarray:
    """XLA's float -> int cast: truncate toward zero, saturate at the int's range, NaN -> 0."""
    info = np.iinfo(new_dtype)
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.real(x).astype(np.float64))
        out = np.where(np.isnan(t), 0, np.clip(t, info.min, info.max)).astype(new_dtype)
    # The float64 nearest to a 64-bit bound may lie just outside it: set the bounds exactly.
    return np.where(t >= info.max, info.max, np.where(t <= info.min, info.min, out)).astype(
        new_dtype)


def _convert_impl(x: np.ndarray, *, new_dtype: np.dtype, weak_type: bool, sharding: Any):
    """Casts the way XLA does: float -> int truncates and saturates, NaN -> 0."""
    if x.dtype.kind in "fc" and new_dtype.kind in "iu":
        return _float_to_int(x, new_dtype)
    if new_dtype == dtypes.bool_:
        return x != 0
    if x.dtype.kind == "c" and new_dtype.kind != "c":
        x = np.real(x)
    return x.astype(new_dtype)


def _convert_fold(x: Any, *, new_dtype: np.dtype, weak_type: bool, sharding: Any):
    """While staging, casting a Python or NumPy scalar is done right away (JAX folds it too)."""
    if np.ndim(x) or not (type(x) in dtypes.python_scalar_types
                          or isinstance(x, (np.ndarray, np.generic))):
        return None
    if type(x) in dtypes.python_scalar_types and \
            dtypes.dtype_and_weak(x) == (new_dtype, weak_type):
        return x  # nothing to cast: 0.01 stays 0.01 (not float32(0.01) = 0.0099999997...)
    value = _convert_impl(np.asarray(x), new_dtype=new_dtype,
                          weak_type=weak_type, sharding=sharding)
    return value.item() if weak_type else value[()]


convert_element_type_p = standard_primitive(
    "convert_element_type", lambda x, **p: x.shape, lambda x, *, new_dtype, **p: new_dtype,
    _convert_impl, weak_type_rule=lambda x, *, weak_type, **p: weak_type,
    pp_hidden=("sharding",))


def _convert_jvp(g, ans, x, *, new_dtype, weak_type, sharding):
    """Casting to an integer or bool type has a zero derivative."""
    if new_dtype.kind not in "fc" or dtypes.dtype_and_weak(x)[0].kind not in "fc":
        return ad.Zero.from_value(ans)
    return convert_element_type_p.bind(g, new_dtype=new_dtype, weak_type=weak_type,
                                       sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    return [convert_element_type_p.bind(ct, new_dtype=x.aval.dtype, weak_type=x.aval.weak_type,
                                        sharding=sharding)]


ad.defjvp2(convert_element_type_p, _convert_jvp)
ad.transpose_rules[convert_element_type_p] = _convert_transpose
const_fold_rules[convert_element_type_p] = _convert_fold
batching.defvectorized(convert_element_type_p)
# a cast to the dtype and weak type x already has stages no equation: the output is x
forwarding_rules[convert_element_type_p] = lambda avals, *, new_dtype, weak_type, sharding: [
    0 if (avals[0].dtype, avals[0].weak_type, sharding) == (new_dtype, weak_type, None)
    else None]


def _is_array(x: Any) -> bool:
    return isinstance(x, (Array, core.Tracer))


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
        if nan_checks.CHECKING and core.at_top_level():
            # JAX binds convert_element_type here, and checks its output
            nan_checks.check_constant([operand])
        if dtypes.dtype_and_weak(operand) == (new_dtype, weak_type):
            return operand  # e.g. 0.1 stays the Python float 0.1 (printed so in jaxprs)
        value = np.asarray(operand).astype(new_dtype)
        if weak_type:
            return value.item()
        return value[()] if core.at_top_level() else _stage_scalar(value[()])
    old_dtype, old_weak = dtypes.dtype_and_weak(operand)
    if old_dtype == new_dtype and old_weak == weak_type and (
            _is_array(operand) or isinstance(operand, np.ndarray)):
        return operand  # nothing to do (JAX also forwards such a cast instead of staging it)
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=bool(weak_type),
                                       sharding=None)


def asarray(x: Any) -> Any:
    """An Array for a constant when computing eagerly; while tracing, a constant stays a
    plain value so that it is inlined into the jaxpr as a literal (as JAX does)."""
    if _is_array(x):
        return x
    if core.at_top_level():
        dtype, weak = dtypes.dtype_and_weak(x)
        return Array(np.asarray(x, dtype), weak)
    return x


# ---------------------------------------------------------------- stage
# stage(x) is the identity that lifts a constant into the current trace (JAX's lax.stage).
# While staging, a scalar comes back as a literal tracer: arithmetic on it is then recorded
# in the jaxpr (``div 6.2831854820251465:f32[] 2.0:f32[]``) instead of being done at once
# by NumPy. Eagerly it gives an Array.
# NB: JAX's promote_dtypes stages every Python scalar it converts; edujax stages only a
# scalar cast to a strong dtype while tracing (``x * 2.0`` for an f32 array x), where it
# shows: linearizing, that literal tracer belongs to the trace outside, so the tangent side
# keeps it as a residual, as JAX does (print_saved_residuals: "f32[] from a literal").
# Other converted scalars stay NumPy scalars (folded at once); the few jnp functions whose
# JAX jaxprs show the difference (unwrap) stage their constant themselves.
stage_p = standard_primitive("stage", lambda x: x.shape, lambda x: x.dtype, lambda x: x,
                             weak_type_rule=lambda x: x.weak_type)
const_fold_rules[stage_p] = lambda x: x
ad.deflinear(stage_p, lambda ct, x: [ct])
batching.defvectorized(stage_p)


def stage(x):
    """Lift ``x`` into the current trace (the identity on its value)."""
    return stage_p.bind(x)


def _stage_scalar(value: np.generic) -> Any:
    """``stage(value)`` for a NumPy scalar. Straight under a staging trace it is that
    trace's literal tracer, which is all the bind would give (the fold rule above), made
    without the bind: this runs for nearly every ``x * 2.0`` traced."""
    trace = core.current_trace()
    if type(trace) is DynamicJaxprTrace:
        return trace.new_literal(value, ShapedArray.fast((), value.dtype, False))
    return stage_p.bind(value)


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
    summed = reduce_sum(ct, [d for d in range(len(shape)) if d not in kept])
    return [expand_dims(summed, unit_dims)]


ad.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)


def _broadcast_in_dim_batch(args, dims, *, shape, broadcast_dimensions, sharding):
    (x,), (d,) = args, dims
    x = moveaxis(x, d, 0)
    return broadcast_in_dim_p.bind(x, shape=(np.shape(x)[0], *shape),
                                   broadcast_dimensions=(0, *np.add(1, broadcast_dimensions)),
                                   sharding=sharding), 0


batching.batching_rules[broadcast_in_dim_p] = _broadcast_in_dim_batch
# a broadcast to the shape x already has stages no equation: the output is x
forwarding_rules[broadcast_in_dim_p] = lambda avals, *, shape, broadcast_dimensions, sharding: [
    0 if tuple(shape) == avals[0].shape and sharding is None else None]
pp_eqn_rules[broadcast_in_dim_p] = hide_params("shape", "sharding",
                                               hide_if_empty=("broadcast_dimensions",))


def broadcast_in_dim(operand, shape: Sequence[int], broadcast_dimensions: Sequence[int],
                     out_sharding=None):
    # NB: like JAX, the dimensions are kept as given: the NumPy integers that JAX's own rules
    # compute (np.delete, np.add) then print as ``np.int64(1)``, exactly as JAX prints them.
    shape, dims = tuple(int(d) for d in shape), tuple(broadcast_dimensions)
    if np.ndim(operand) == len(shape) and not dims and _is_array(operand):
        return operand
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=dims,
                                   sharding=out_sharding)


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


def _reshape_transpose(ct, x, *, new_sizes, dimensions, sharding):
    """Reshape back; a reshape that first permuted (``dimensions``) is undone by reshaping to
    the permuted shape, then transposing back."""
    if dimensions is None:
        return [reshape(ct, x.aval.shape)]
    permuted = reshape(ct, np.take(x.aval.shape, dimensions))
    return [transpose(permuted, np.argsort(dimensions))]


ad.deflinear(reshape_p, _reshape_transpose)
batching.batching_rules[reshape_p] = lambda args, dims, *, new_sizes, dimensions, sharding: (
    reshape(moveaxis(args[0], dims[0], 0), (np.shape(args[0])[dims[0]], *new_sizes),
                None if dimensions is None else (0, *(d + 1 for d in dimensions))), 0)


def reshape(operand, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None,
            out_sharding=None):
    new_sizes = tuple(int(d) for d in new_sizes)
    same_order = dimensions is None or tuple(dimensions) == tuple(range(np.ndim(operand)))
    # NB: as in JAX, a 0-d operand is always reshaped (the check needs a non-empty shape)
    if np.shape(operand) and np.shape(operand) == new_sizes and same_order and \
            _is_array(operand):
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes,
                          dimensions=None if same_order else tuple(int(d) for d in dimensions),
                          sharding=out_sharding)


# ---------------------------------------------------------------- transpose
def _transpose_shape_rule(x: ShapedArray, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {permutation} for operand shape {x.shape}.")
    return tuple(x.shape[p] for p in permutation)


transpose_p = shape_primitive("transpose", _transpose_shape_rule,
                              lambda x, *, permutation: np.transpose(x, permutation))
ad.deflinear(transpose_p, lambda ct, x, *, permutation: [
    transpose(ct, tuple(int(i) for i in np.argsort(permutation)))])
# Under vmap one transpose does both jobs, as in JAX: bring the batch dimension to the front
# and permute the others (renumbered past it).
batching.batching_rules[transpose_p] = lambda args, dims, *, permutation: (
    transpose_p.bind(args[0], permutation=(dims[0], *(p if p < dims[0] else p + 1
                                                      for p in permutation))), 0)


def transpose(operand, permutation: Sequence[int]):
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(np.ndim(operand))) and _is_array(operand):
        return operand
    return transpose_p.bind(operand, permutation=permutation)


# ---------------------------------------------------------------- reduce_sum
def _accurate_sum(x: np.ndarray, axis: tuple, dtype: np.dtype) -> np.ndarray:
    """``np.sum``, with the summed axes made the innermost ones first.

    NumPy adds up a contiguous run of numbers *pairwise* (a tree of partial sums, error
    ~1e-7 relative in float32), but an axis that is not innermost it sums row by row in the
    array's own dtype: over 10000 float32 rows the rounding errors pile up to ~1e-6. XLA
    reduces in a tree too, so a program comparing eager results with jitted ones (atol 1e-6)
    would notice. Moving the summed axes last and making them contiguous gives every sum
    NumPy's pairwise order; short sums (fewer than 8 numbers) are added left to right, as
    XLA adds them. Integer sums keep their dtype, so they wrap around as XLA's do.
    """
    if dtype.kind not in "fc" or len(axis) == 0:
        return np.sum(x, axis=axis, dtype=dtype)
    kept = [d for d in range(x.ndim) if d not in axis]
    moved = np.ascontiguousarray(np.transpose(x, [*kept, *axis]))
    summed = int(np.prod([x.shape[a] for a in axis]))  # (not -1: arrays may be empty)
    return np.sum(moved.reshape(moved.shape[:len(kept)] + (summed,)), axis=-1, dtype=dtype)


reduce_sum_p = reduction("reduce_sum", _accurate_sum, accepted(NUMBER))  # axes, out_sharding
ad.deflinear(reduce_sum_p, lambda ct, x, *, axes, out_sharding: [
    broadcast_in_dim(ct, x.aval.shape, tuple(np.delete(np.arange(x.aval.ndim), axes)))])
axes_batch(reduce_sum_p)


def _axes(axes) -> tuple[int, ...]:
    return tuple(int(a) for a in axes)


def reduce_sum(operand, axes: Sequence[int]):
    return reduce_sum_p.bind(operand, axes=_axes(axes), out_sharding=None)


# ---------------------------------------------------------------- full and full_like
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
    return broadcast(_fill_value(fill_value, dtype, weak), shape)


def _fill_value(fill_value: Any, dtype: Any, weak: bool) -> Any:
    """The scalar ``full`` broadcasts. While tracing, the cast is bound, so the staging trace
    folds it into a literal tracer, as in JAX: ``full((), 1.0)`` is then a tracer (an Array)
    that passes through ``broadcast_in_dim`` to shape () untouched, as grad's seed does."""
    if core.at_top_level() or isinstance(fill_value, (Array, core.Tracer)):
        return _convert_element_type(fill_value, dtype, weak)
    if type(fill_value) not in dtypes.python_scalar_types:
        fill_value = np.asarray(fill_value)[()]
    return convert_element_type_p.bind(fill_value, new_dtype=np.dtype(dtype),
                                       weak_type=bool(weak), sharding=None)


def full_like(x, fill_value, dtype=None, shape=None):
    """Like ``full``; without a dtype it copies x's dtype *and* weak type."""
    aval = core.get_aval(x)
    weak = dtype is None and aval.weak_type
    dtype = dtypes.canonicalize_dtype(dtype) if dtype is not None else aval.dtype
    shape = np.shape(x) if shape is None else tuple(shape)
    return broadcast(_fill_value(fill_value, dtype, weak), shape)


# ---------------------------------------------------------------- empty2
# An array whose values do not matter: JAX fills the residual slots a cond's branch does not
# use with one (``empty2`` broadcast), since another branch fills them and nobody reads
# them. XLA makes it zeros; so does our reference rule.
class MemorySpace(enum.Enum):
    """Where an array lives (JAX's core.MemorySpace): ``empty2`` names it."""
    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()


empty2_p = Primitive("empty2")
core.abstract_eval_rules[empty2_p] = lambda *, dtype, memory_space: ShapedArray((), dtype)
core.impl_rules[empty2_p] = lambda *, dtype, memory_space: np.zeros((), dtype)


def empty_like_aval(aval: ShapedArray) -> Any:
    """A value of type ``aval`` nobody will read: a broadcast ``empty2`` (JAX's
    ``ad_util.empty_like_aval``)."""
    return broadcast(empty2_p.bind(dtype=aval.dtype, memory_space=MemorySpace.Device),
                     aval.shape)


# ---------------------------------------------------------------- the tables below lax
# The interpreters sit below lax, so they cannot import it; these functions are what they need
# from it (JAX fills ``ad_util.aval_zeros_likers`` the same way).
ad_util.aval_zeros_likers[ShapedArray] = lambda aval: full(aval.shape, 0, aval.dtype)
batching.lax_ops.update(transpose=transpose, expand_dims=expand_dims,
                        broadcast_in_dim=broadcast_in_dim_p.bind)
