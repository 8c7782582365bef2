"""gather and scatter: reading and writing many windows of an array at once.

Every NumPy index expression can be written as one ``gather`` (``x[idx]``), and
every ``.at[idx]`` update as one ``scatter`` (``x.at[idx].add(y)``). They are XLA's
most general data-movement operations; ``edujax.numpy.indexing`` builds their
arguments from an index expression, and this module defines the primitives.

Primitives (JAX's names): ``gather``, ``scatter`` (set), ``scatter-add``,
``scatter-sub``, ``scatter-mul``, ``scatter-min``, ``scatter-max``.
"""
from __future__ import annotations

import enum
import functools
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.interpreters.batching import bdim_at_front, moveaxis
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import eval_jaxpr
from edujax.lax.base import broadcast_in_dim_p, full, reshape
from edujax.lax.elementwise import add, add_p, div, eq, max_p, min_p, mul, mul_p, neg, select, sub_p
from edujax.lax.registry import first_input_weak_type_rule, standard_primitive
from edujax.lax.shape import iota

# ---------------------------------------------------------------- the parameters
# gather and scatter describe *where* windows go with a few tuples of dimension
# numbers. They are printed in jaxprs exactly as JAX prints them:
#   GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), ...)


class GatherDimensionNumbers(NamedTuple):
    """How the dimensions of a gather's operand, indices and output relate (see below)."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """A gather's dimension numbers seen from the writing side (see below)."""

    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    """What to do with a window that does not fit inside the operand.

    * ``CLIP``: move the window back inside (clamp its start).
    * ``FILL_OR_DROP``: a gather returns ``fill_value`` for the whole window; a
      scatter drops the whole window.
    * ``PROMISE_IN_BOUNDS``: the user promises it never happens. What really
      happens is XLA's default: gathers clamp, scatters drop.
    """

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        """Parse a mode; note that ``None`` means FILL_OR_DROP (the scatters' default)."""
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f'Unknown gather mode "{s}"')


# ---------------------------------------------------------------- checks shared by the shape rules
# These follow XLA's shape inference (and JAX's messages) one check at a time.
def _is_sorted(dims, op_name: str, name: str) -> None:
    for i in range(1, len(dims)):
        if dims[i] < dims[i - 1]:
            raise TypeError(f"{name} in {op_name} op must be sorted; got {dims}")


def _dims_in_range(dims, rank: int, op_name: str, name: str) -> None:
    for dim in dims:
        if dim < 0 or dim >= rank:
            raise TypeError(f"Invalid {name} set in {op_name} op; valid range is "
                            f"[0, {rank}); got: {dim}.")


def _sorted_dims_in_range(dims, rank: int, op_name: str, name: str) -> None:
    if not dims:
        return
    invalid = dims[0] if dims[0] < 0 else dims[-1] if dims[-1] >= rank else None
    if invalid:
        raise TypeError(f"Invalid {name} set in {op_name} op; valid range is "
                        f"[0, {rank}); got: {invalid}.")


def _no_duplicate_dims(dims, op_name: str, name: str) -> None:
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op_name} op must not repeat; got: {dims}.")


def _disjoint_dims(dims1, dims2, op_name: str, name1: str, name2: str) -> None:
    if not set(dims1).isdisjoint(dims2):
        raise TypeError(f"{name1} and {name2} in {op_name} op must be disjoint; "
                        f"got: {dims1} and {dims2}.")


def _check_batching_dims(operand_dims, indices_dims, operand: ShapedArray,
                         indices: ShapedArray, op_name: str, indices_name: str) -> None:
    """Batching dims come in pairs: the same length, the same sizes."""
    Op = op_name.capitalize()
    _no_duplicate_dims(operand_dims, op_name, "operand_batching_dims")
    _is_sorted(operand_dims, op_name, "operand_batching_dims")
    _sorted_dims_in_range(operand_dims, operand.ndim, op_name, "operand_batching_dims")
    _no_duplicate_dims(indices_dims, op_name, indices_name)
    _dims_in_range(indices_dims, indices.ndim, op_name, indices_name)
    if indices.ndim - 1 in indices_dims:
        raise TypeError(f"{Op} op cannot have the index vector dimension as a batching "
                        f"dimension; got {indices_dims}.")
    if len(operand_dims) != len(indices_dims):
        raise TypeError(f"{Op} op requires equal numbers of operand_batching_dims and "
                        f"{indices_name}, got {operand_dims} and {indices_dims}.")
    operand_batch = tuple(operand.shape[i] for i in operand_dims)
    indices_batch = tuple(indices.shape[i] for i in indices_dims)
    if operand_batch != indices_batch:
        raise TypeError(f"{Op} op requires operand batching dimensions and indices batching "
                        f"dimensions to have the same shape, got {operand_batch} and "
                        f"{indices_batch}.")


def _check_integer_indices(indices: ShapedArray) -> None:
    if indices.dtype.kind not in "iu":
        raise ValueError("indices must have an integer type")


def _default_fill_value(dtype: np.dtype) -> Any:
    """What a FILL_OR_DROP gather returns out of bounds: NaN, or the most extreme integer."""
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "i":
        return int(np.iinfo(dtype).min)
    if dtype.kind == "u":
        return int(np.iinfo(dtype).max)
    if dtype == dtypes.bool_:
        return True
    raise ValueError(f"Unsupported dtype for gather fill_value {dtype}")


# ---------------------------------------------------------------- windows, in NumPy
# Both reference rules below work on *windows*: window w starts at row w of a
# (num_windows, operand.ndim) array of start coordinates and has the same shape
# for every w. NumPy's fancy indexing then reads or writes all windows at once.
def _window_starts(operand_shape, indices: np.ndarray, start_index_map, operand_batching_dims,
                   indices_batching_dims) -> np.ndarray:
    """The start coordinates of every window, one row per batch position of ``indices``."""
    batch_shape = indices.shape[:-1]
    num_windows = int(np.prod(batch_shape, dtype=np.int64))
    flat = indices.reshape(num_windows, indices.shape[-1]).astype(np.int64)
    starts = np.zeros((num_windows, len(operand_shape)), np.int64)
    for k, d in enumerate(start_index_map):
        starts[:, d] = flat[:, k]
    if operand_batching_dims:  # a batching dim starts at the batch position itself
        positions = np.indices(batch_shape).reshape(len(batch_shape), -1)
        for operand_dim, indices_dim in zip(operand_batching_dims, indices_batching_dims):
            starts[:, operand_dim] = positions[indices_dim]
    return starts


def _window_coordinates(starts: np.ndarray, window_shape) -> tuple[np.ndarray, ...]:
    """One index array per operand dim, broadcasting to (num_windows, *window_shape)."""
    rank = len(window_shape)
    coords = []
    for d, size in enumerate(window_shape):
        ramp_shape = [1] * (rank + 1)
        ramp_shape[d + 1] = size
        start = starts[:, d].reshape((-1,) + (1,) * rank)
        coords.append(start + np.arange(size).reshape(ramp_shape))
    return tuple(coords)


def _last_valid_starts(operand_shape, window_shape) -> np.ndarray:
    return np.array(operand_shape, np.int64) - np.array(window_shape, np.int64)


# ---------------------------------------------------------------- gather
# ``gather(operand, start_indices)`` reads one *window* (a box of shape
# slice_sizes) of the operand per *batch position* of start_indices, where the
# batch positions are all the dims of start_indices but the last. As a loop:
#
#     for b in every batch position of start_indices:
#         start = [0] * operand.ndim
#         for k, d in enumerate(start_index_map):   # the last dim of start_indices
#             start[d] = start_indices[b][k]          # holds one start per mapped dim
#         window = operand[start[0]:start[0] + slice_sizes[0], start[1]:..., ...]
#         drop from window the dims in collapsed_slice_dims (each has size 1)
#         out[b spread over the batch dims, window over the offset_dims] = window
#
# * slice_sizes: the window's size along every operand dim;
# * start_index_map: which operand dims the index vectors address (the others start at 0);
# * collapsed_slice_dims: size-1 window dims that vanish from the output (like ``x[3]``);
# * offset_dims: the output positions of the remaining window dims; the other
#   output dims are the batch dims of start_indices, in order;
# * operand_batching_dims / start_indices_batching_dims: pairs of dims walked in
#   lockstep (vmap of a gather uses them): the window starts at the batch position.
#
# Example: x[jnp.array([2, 0])] with x of shape (3, 4) is start_indices=[[2], [0]]
# (shape (2, 1)), start_index_map=(0,), slice_sizes=(1, 4), collapsed_slice_dims=(0,),
# offset_dims=(1,): two windows of shape (1, 4), squeezed to (4,), stacked to (2, 4).
#
# Why out-of-bounds windows are *clamped*: the hardware must never read outside
# the array, and there are no exceptions on an accelerator. Moving the window back
# inside is cheap and always gives *some* element of the array, so CLIP and
# PROMISE_IN_BOUNDS clamp each start into [0, dim - slice_size]. FILL_OR_DROP
# instead returns fill_value for any window that would stick out.
def _gather_shape_rule(operand: ShapedArray, indices: ShapedArray, *, dimension_numbers,
                       slice_sizes, unique_indices, indices_are_sorted, mode, fill_value):
    dn = dimension_numbers
    offset_dims, collapsed = dn.offset_dims, dn.collapsed_slice_dims
    index_vector_dim = indices.ndim - 1
    if index_vector_dim < 0:
        raise TypeError("Gather index leaf dimension must be within [0, rank(indices) + 1). "
                        f"rank(indices) is {indices.ndim} and gather index leaf dimension is "
                        f"{index_vector_dim}.")
    _is_sorted(offset_dims, "gather", "offset_dims")
    _no_duplicate_dims(offset_dims, "gather", "offset_dims")
    output_rank = len(offset_dims) + indices.ndim - 1
    for i, offset_dim in enumerate(offset_dims):
        if not 0 <= offset_dim < output_rank:
            raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got "
                            f"{offset_dim}, but should have been in [0, {output_rank})")
    if len(dn.start_index_map) != indices.shape[index_vector_dim]:
        raise TypeError(f"Gather op has {len(dn.start_index_map)} elements in start_index_map "
                        f"and the bound of dimension {index_vector_dim=} of indices is "
                        f"{indices.shape[index_vector_dim]}. These two numbers must be equal.")
    for i, d in enumerate(dn.start_index_map):
        if not 0 <= d < operand.ndim:
            raise TypeError(f"Invalid start_index_map; domain is [0, {operand.ndim}), got: "
                            f"{i}->{d}.")
    _no_duplicate_dims(dn.start_index_map, "gather", "start_index_map")
    _is_sorted(collapsed, "gather", "collapsed_slice_dims")
    _sorted_dims_in_range(collapsed, operand.ndim, "gather", "collapsed_slice_dims")
    _no_duplicate_dims(collapsed, "gather", "collapsed_slice_dims")
    _check_batching_dims(dn.operand_batching_dims, dn.start_indices_batching_dims, operand,
                         indices, "gather", "start_indices_batching_dims")
    _disjoint_dims(collapsed, dn.operand_batching_dims, "gather", "collapsed_slice_dims",
                   "operand_batching_dims")
    _disjoint_dims(dn.start_index_map, dn.operand_batching_dims, "gather", "start_index_map",
                   "operand_batching_dims")
    _check_gather_slice_sizes(operand, indices, dn, slice_sizes)
    return _gather_output_shape(indices, dn, slice_sizes)


def _check_gather_slice_sizes(operand: ShapedArray, indices: ShapedArray, dn, slice_sizes):
    if operand.ndim != len(slice_sizes):
        raise TypeError("Gather op must have one slice size for every input dimension; got: "
                        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}")
    if len(slice_sizes) != (len(dn.offset_dims) + len(dn.collapsed_slice_dims)
                            + len(dn.operand_batching_dims)):
        raise TypeError("All components of the offset index in a gather op must either be a "
                        "offset dimension or explicitly collapsed/batching; got "
                        f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
                        f"{dn.offset_dims}, collapsed_slice_dims={dn.collapsed_slice_dims}, "
                        f"operand_batching_dims={dn.operand_batching_dims}.")
    indices_empty = 0 in indices.shape
    for i, (size, dim) in enumerate(zip(slice_sizes, operand.shape)):
        if not indices_empty and not 0 <= size <= dim:
            raise TypeError(f"Slice size at index {i} in gather op is out of range, must be "
                            f"within [0, {dim} + 1), got {size}.")
    for i, d in enumerate(dn.collapsed_slice_dims):
        if slice_sizes[d] != 1:
            raise TypeError("Gather op can only collapse slice dims with bound 1, but bound is "
                            f"{slice_sizes[d]} for index {d} at position {i}.")
    for i, d in enumerate(dn.operand_batching_dims):
        if slice_sizes[d] > 1:
            raise TypeError("Gather op can only have operand batching dims with bound 0/1, but "
                            f"bound is {slice_sizes[d]} for index {d} at position {i}.")


def _gather_output_shape(indices: ShapedArray, dn, slice_sizes) -> tuple[int, ...]:
    """Batch dims of the indices in order, with the kept window dims at ``offset_dims``."""
    batch_sizes = iter(indices.shape[:-1])
    removed = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    window_sizes = iter(s for i, s in enumerate(slice_sizes) if i not in removed)
    rank = len(dn.offset_dims) + indices.ndim - 1
    return tuple(next(window_sizes) if i in dn.offset_dims else next(batch_sizes)
                 for i in range(rank))


def _gather_dtype_rule(operand: ShapedArray, indices: ShapedArray, **params) -> np.dtype:
    _check_integer_indices(indices)
    return operand.dtype


def _gather_impl(operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                 indices_are_sorted, mode, fill_value):
    dn = dimension_numbers
    out_shape = _gather_output_shape(core.get_aval(indices), dn, slice_sizes)
    if 0 in out_shape or 0 in slice_sizes:
        return np.zeros(out_shape, operand.dtype)
    starts = _window_starts(operand.shape, indices, dn.start_index_map,
                            dn.operand_batching_dims, dn.start_indices_batching_dims)
    last = _last_valid_starts(operand.shape, slice_sizes)
    in_bounds = np.all((starts >= 0) & (starts <= last), axis=1)
    windows = operand[_window_coordinates(np.clip(starts, 0, last), slice_sizes)]
    windows = np.broadcast_to(windows, (len(starts),) + tuple(slice_sizes))  # (for 0-d operands)
    if mode == GatherScatterMode.FILL_OR_DROP:
        fill = _default_fill_value(operand.dtype) if fill_value is None else fill_value
        mask = in_bounds.reshape((-1,) + (1,) * operand.ndim)
        windows = np.where(mask, windows, np.asarray(fill).astype(operand.dtype))
    # (windows, *slice_sizes) -> (*batch, *kept window dims) -> kept dims moved to offset_dims
    batch_shape = indices.shape[:-1]
    windows = windows.reshape(batch_shape + tuple(
        s for i, s in enumerate(slice_sizes)
        if i not in dn.collapsed_slice_dims and i not in dn.operand_batching_dims))
    return np.moveaxis(windows, list(range(len(batch_shape), windows.ndim)),
                       list(dn.offset_dims))


gather_p = standard_primitive("gather", _gather_shape_rule, _gather_dtype_rule, _gather_impl,
                              weak_type_rule=first_input_weak_type_rule)


def gather(operand: Any, start_indices: Any, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Sequence[int], *, unique_indices: bool = False,
           indices_are_sorted: bool = False, mode: str | GatherScatterMode | None = None,
           fill_value: Any = None) -> Any:
    """Read one window of shape ``slice_sizes`` per index vector (see the comment above).

    ``mode`` defaults to PROMISE_IN_BOUNDS (out-of-bounds windows are clamped);
    ``fill_value`` is used only with ``mode="fill"`` and defaults to NaN for
    floats, the most negative value for signed integers, the largest for unsigned
    integers and True for bools.
    """
    parsed_mode = GatherScatterMode.from_any(
        GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    if parsed_mode == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = _default_fill_value(dtypes.dtype_and_weak(operand)[0])
    else:
        fill_value = None
    return gather_p.bind(operand, start_indices, dimension_numbers=dimension_numbers,
                         slice_sizes=tuple(int(s) for s in slice_sizes),
                         unique_indices=bool(unique_indices),
                         indices_are_sorted=bool(indices_are_sorted), mode=parsed_mode,
                         fill_value=fill_value)


# ---------------------------------------------------------------- gather: derivatives and vmap
def _scatter_dnums_of(dn: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    """The scatter that writes exactly the elements this gather reads (the same windows)."""
    return ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims,
        inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims)


def _gather_jvp(g, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                indices_are_sorted, mode, fill_value):
    """Reading is linear in the operand: the tangent is the same gather of the tangent.

    A window that falls outside reads 0, not fill_value: a constant has no tangent.
    """
    return gather(g, indices, dimension_numbers, slice_sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, mode=mode, fill_value=0)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                      indices_are_sorted, mode, fill_value):
    """Every gathered element sends its cotangent back to where it came from, summing on repeats.

    That is a scatter-add of the cotangent into zeros, through the same windows:
    ``x[[0, 0]]`` read x[0] twice, so x[0] receives both cotangents. (Only the
    operand is linear; integer indices have no cotangent.)
    """
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval), None]
    zeros = full(operand.aval.shape, 0, ad.aval_of(ct).dtype)
    out = _bind_scatter(scatter_add_p, add_p, zeros, indices, ct,
                        _scatter_dnums_of(dimension_numbers), indices_are_sorted,
                        unique_indices, mode, transposing=True)  # = scatter_add(...)
    return [out, None]


def _shifted(dims) -> tuple:
    """Every dim number + 1, because a batch dimension was put in front.

    NB: JAX computes these with ``np.add``, so its jaxprs print ``np.int64(1)``;
    we do the same so that the printed jaxprs match.
    """
    return tuple(np.add(1, dims))


def _gather_batch(args, dims, *, dimension_numbers, slice_sizes, **params):
    """vmap of a gather is one bigger gather; which one depends on what is batched."""
    (operand, indices), (operand_bdim, indices_bdim) = args, dims
    if indices_bdim is batching.not_mapped:
        return _gather_batched_operand(moveaxis(operand, operand_bdim, 0), indices,
                                       dimension_numbers, slice_sizes, **params), 0
    if operand_bdim is batching.not_mapped:
        return _gather_batched_indices(operand, moveaxis(indices, indices_bdim, 0),
                                       dimension_numbers, slice_sizes, **params), 0
    return _gather_batched_both(moveaxis(operand, operand_bdim, 0),
                                moveaxis(indices, indices_bdim, 0),
                                dimension_numbers, slice_sizes, **params), 0


def _gather_batched_operand(operand, indices, dn, slice_sizes, **params):
    """Same indices, one operand per example: every window also spans the whole batch.

    The batch dimension (in front) becomes one more window dimension of full
    size, and it lands in front of the output (offset dim 0).
    """
    dnums = GatherDimensionNumbers(
        offset_dims=(0, *_shifted(dn.offset_dims)),
        collapsed_slice_dims=_shifted(dn.collapsed_slice_dims),
        start_index_map=_shifted(dn.start_index_map),
        operand_batching_dims=_shifted(dn.operand_batching_dims),
        start_indices_batching_dims=dn.start_indices_batching_dims)
    return gather(operand, indices, dnums, (np.shape(operand)[0], *slice_sizes), **params)


def _gather_batched_indices(operand, indices, dn, slice_sizes, *, unique_indices,
                            indices_are_sorted, mode, fill_value):
    """One operand, one index array per example: the batch is one more batch dim of indices.

    The examples may read the same elements, so the indices are no longer known
    to be unique or sorted.
    """
    dnums = dn._replace(offset_dims=tuple(d + 1 for d in dn.offset_dims),
                        start_indices_batching_dims=_shifted(dn.start_indices_batching_dims))
    return gather(operand, indices, dnums, slice_sizes, unique_indices=False,
                  indices_are_sorted=False, mode=mode, fill_value=fill_value)


def _gather_batched_both(operand, indices, dn, slice_sizes, **params):
    """Example b reads its own operand with its own indices: walk the two batches in lockstep.

    That is exactly what operand_batching_dims / start_indices_batching_dims say:
    operand dim 0 and indices dim 0 are paired, and each window sits at its own
    batch position (a window of size 1 along that dim).
    """
    batch_window = 0 if np.shape(operand)[0] == 0 else 1
    dnums = GatherDimensionNumbers(
        offset_dims=_shifted(dn.offset_dims),
        collapsed_slice_dims=_shifted(dn.collapsed_slice_dims),
        start_index_map=_shifted(dn.start_index_map),
        operand_batching_dims=(0, *_shifted(dn.operand_batching_dims)),
        start_indices_batching_dims=(0, *_shifted(dn.start_indices_batching_dims)))
    return gather(operand, indices, dnums, (batch_window, *slice_sizes), **params)


ad.defjvp(gather_p, _gather_jvp, None)
ad.transpose_rules[gather_p] = _gather_transpose
batching.batching_rules[gather_p] = _gather_batch


# ---------------------------------------------------------------- scatter
# A scatter is a gather run backwards: the same windows, described from the
# writing side, receive the ``updates`` instead of being read.
#
# * update_window_dims: the dims of ``updates`` that lie inside a window (gather's offset_dims);
# * inserted_window_dims: size-1 window dims that ``updates`` leaves out (gather's
#   collapsed_slice_dims);
# * scatter_dims_to_operand_dims: which operand dims the index vectors address
#   (gather's start_index_map).
#
# The update is combined with what is there: replaced (``scatter``), added
# (``scatter-add``), multiplied, or min/max-ed. When several windows hit the same
# element, every update is applied: that is how ``x.at[[0, 0]].add(1)`` adds 2.
#
# Why out-of-bounds windows are *dropped* (unlike gathers, which clamp): a clamped
# write would silently overwrite some *other* element, a wrong answer that nobody
# asked for, while skipping the write leaves the array as it was. CLIP is the
# explicit opt-in to clamping; FILL_OR_DROP (the default) and PROMISE_IN_BOUNDS drop.
def _scatter_shape_rule(operand: ShapedArray, indices: ShapedArray, updates: ShapedArray, *,
                        update_jaxpr, update_consts, dimension_numbers, indices_are_sorted,
                        unique_indices, mode):
    dn = dimension_numbers
    window_dims, inserted = dn.update_window_dims, dn.inserted_window_dims
    index_vector_dim = indices.ndim - 1
    if index_vector_dim < 0:
        raise TypeError("Scatter index leaf dimension must be within [0, rank(indices) + 1). "
                        f"rank(indices) is {indices.ndim} and scatter index leaf dimension is "
                        f"{index_vector_dim}.")
    expected_rank = indices.ndim - 1 + len(window_dims)
    if updates.ndim != expected_rank:
        raise TypeError(f"Updates tensor must be of rank {expected_rank}; got {updates.ndim}.")
    _is_sorted(window_dims, "scatter", "update_window_dims")
    _no_duplicate_dims(window_dims, "scatter", "update_window_dims")
    _sorted_dims_in_range(window_dims, updates.ndim, "scatter", "update_window_dims")
    _is_sorted(inserted, "scatter", "inserted_window_dims")
    _no_duplicate_dims(inserted, "scatter", "inserted_window_dims")
    _sorted_dims_in_range(inserted, operand.ndim, "scatter", "inserted_window_dims")
    _check_batching_dims(dn.operand_batching_dims, dn.scatter_indices_batching_dims, operand,
                         indices, "scatter", "scatter_indices_batching_dims")
    _disjoint_dims(inserted, dn.operand_batching_dims, "scatter", "inserted_window_dims",
                   "operand_batching_dims")
    _disjoint_dims(dn.scatter_dims_to_operand_dims, dn.operand_batching_dims, "scatter",
                   "scatter_dims_to_operand_dims", "operand_batching_dims")
    window_size = len(window_dims) + len(inserted) + len(dn.operand_batching_dims)
    if operand.ndim != window_size:
        raise TypeError(f"Scatter op has window of size {window_size}; doesn't match operand "
                        f"of rank {operand.ndim}.")
    _check_scatter_index_map(operand, indices, dn)
    _check_update_bounds(operand, indices, updates, dn)
    return operand.shape


def _check_scatter_index_map(operand: ShapedArray, indices: ShapedArray, dn) -> None:
    index_map = dn.scatter_dims_to_operand_dims
    index_vector_dim = indices.ndim - 1
    if len(index_map) != indices.shape[index_vector_dim]:
        raise TypeError(f"Scatter op has {len(index_map)} elements in "
                        "scatter_dims_to_operand_dims and the bound of dimension "
                        f"{index_vector_dim=} of indices is {indices.shape[index_vector_dim]}. "
                        "These two numbers must be equal")
    for i, d in enumerate(index_map):
        if not 0 <= d < operand.ndim:
            raise TypeError("Invalid scatter_dims_to_operand_dims mapping; domain is "
                            f"[0, {operand.ndim}), got: {i}->{d}.")
    _no_duplicate_dims(index_map, "scatter", "scatter_dims_to_operand_dims")


def _check_update_bounds(operand: ShapedArray, indices: ShapedArray, updates: ShapedArray,
                         dn) -> None:
    """Window dims of updates fit in the operand; scatter dims match the indices' batch dims."""
    window_operand_dims = [d for d in range(operand.ndim) if d not in dn.inserted_window_dims
                           and d not in dn.operand_batching_dims]
    for update_dim, operand_dim in zip(dn.update_window_dims, window_operand_dims):
        if operand.shape[operand_dim] < updates.shape[update_dim]:
            raise TypeError("Bounds of the window dimensions of updates must not exceed the "
                            "bounds of the corresponding dimensions of operand. For dimension "
                            f"{update_dim}, updates bound is {updates.shape[update_dim]}, "
                            f"operand bound is {operand.shape[operand_dim]}.")
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    for update_dim, index_bound in zip(scatter_dims, indices.shape[:-1]):
        if updates.shape[update_dim] != index_bound:
            raise TypeError("Bounds of the scatter dimensions of updates must be the same as the "
                            "bounds of the corresponding dimensions of scatter indices. For "
                            f"scatter dimension {update_dim}, updates bound is "
                            f"{updates.shape[update_dim]}, indices bound is {index_bound}.")


def _scatter_dtype_rule(operand: ShapedArray, indices: ShapedArray, updates: ShapedArray,
                        **params) -> np.dtype:
    _check_integer_indices(indices)
    if operand.dtype != updates.dtype:
        raise TypeError("lax.scatter requires arguments to have the same dtypes, got "
                        f"{operand.dtype}, {updates.dtype}.")
    return operand.dtype


def _scatter_windows(operand, indices, updates, dn, mode):
    """The coordinates each update element goes to, and the updates as (window, *window_shape).

    Out-of-bounds windows are clamped (CLIP) or dropped (the other modes).
    """
    window_shape = [1] * operand.ndim
    kept = [d for d in range(operand.ndim) if d not in dn.inserted_window_dims
            and d not in dn.operand_batching_dims]
    for operand_dim, update_dim in zip(kept, dn.update_window_dims):
        window_shape[operand_dim] = updates.shape[update_dim]
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    updates = np.transpose(updates, scatter_dims + list(dn.update_window_dims))
    updates = updates.reshape((-1,) + tuple(window_shape))
    starts = _window_starts(operand.shape, indices, dn.scatter_dims_to_operand_dims,
                            dn.operand_batching_dims, dn.scatter_indices_batching_dims)
    last = _last_valid_starts(operand.shape, window_shape)
    if mode == GatherScatterMode.CLIP:
        starts = np.clip(starts, 0, last)
    else:
        keep = np.all((starts >= 0) & (starts <= last), axis=1)
        starts, updates = starts[keep], updates[keep]
    return _window_coordinates(starts, window_shape), updates


def _scatter_impl(combine: Callable, operand, indices, updates, *, update_jaxpr, update_consts,
                  dimension_numbers, indices_are_sorted, unique_indices, mode):
    """Copy the operand, then ``combine(out, coordinates, updates)`` writes the windows."""
    out = np.array(operand, copy=True)
    if updates.size == 0:
        return out
    coords, updates = _scatter_windows(operand, indices, updates, dimension_numbers, mode)
    if update_jaxpr is not None and combine is _set:  # x.at[i].apply(f): f is the jaxpr
        combine = functools.partial(_apply_update_jaxpr, update_jaxpr, update_consts)
    target = out
    if operand.ndim == 0:  # a scalar: every window is all of it; write it as element 0 of 1
        target = out.reshape(1)
        coords, updates = (np.zeros((len(updates), 1), np.int64),), updates.reshape(-1, 1)
    combine(target, coords, updates)
    return out


def _set(out: np.ndarray, coords: tuple, updates: np.ndarray) -> None:
    # NB: with repeated indices XLA leaves the order unspecified; NumPy keeps the last.
    out[coords] = updates


def _apply_update_jaxpr(update_jaxpr, consts, out: np.ndarray, coords: tuple,
                        updates: np.ndarray) -> None:
    """Combine with a jaxpr, one window at a time, so a repeated index applies it repeatedly."""
    with core.set_current_trace(core.eval_trace):
        for w in range(updates.shape[0]):
            where = tuple(c[w] for c in coords)
            new, = eval_jaxpr(update_jaxpr, list(consts), out[where], updates[w])
            out[where] = np.asarray(new)


@functools.lru_cache(maxsize=None)
def _reduction_jaxpr(prim: Primitive, dtype: np.dtype, transposing: bool = False):
    """The jaxpr ``{ lambda ; a:f32[] b:f32[]. let c = add a b in (c,) }`` a scatter prints.

    Cached like JAX's, so every scatter-add of one dtype shares one jaxpr object.

    NB: JAX's cache is also keyed on the trace context, and transposition runs in
    a context of its own: a scatter made by a transpose rule gets its own jaxpr
    object, which the printer shows inline rather than as a shared ``let jaxpr``.
    ``transposing`` keeps that distinction, so that printed jaxprs match.
    """
    aval = ShapedArray((), dtype)
    closed, _ = trace_to_jaxpr(lambda x, y: ([prim.bind(x, y)], None), [aval, aval])
    return closed.jaxpr, tuple(closed.consts)


def _scatter_primitive(name: str, combine: Callable) -> Primitive:
    return standard_primitive(name, _scatter_shape_rule, _scatter_dtype_rule,
                              functools.partial(_scatter_impl, combine),
                              weak_type_rule=first_input_weak_type_rule)


# ---------------------------------------------------------------- scatter: pieces of the rules
# The rules below keep needing the *inverse gather* of a scatter: the gather that
# reads back, for every element of ``updates``, the operand element it was
# written to. Same windows, described from the reading side.
def _gather_dnums_of(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(
        offset_dims=dn.update_window_dims,
        collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims)


def _window_sizes(operand_ndim: int, updates_shape, dn: ScatterDimensionNumbers) -> list[int]:
    """The inverse gather's slice_sizes: 1 on inserted and batching dims, else the window's size."""
    window_sizes = iter(updates_shape[d] for d in dn.update_window_dims)
    return [1 if d in dn.inserted_window_dims or d in dn.operand_batching_dims
            else next(window_sizes) for d in range(operand_ndim)]


def _read_windows(x, indices, updates_shape, dn: ScatterDimensionNumbers, **gather_params):
    """``x`` read at the places a scatter with these indices writes to: one value per update."""
    sizes = _window_sizes(len(np.shape(x)), updates_shape, dn)
    return gather(x, indices, _gather_dnums_of(dn), sizes, **gather_params)


def _zeros_like(x, dtype=None):
    aval = ad.aval_of(x)
    return full(aval.shape, 0, aval.dtype if dtype is None else dtype)


def _ones_like(x, dtype=None):
    aval = ad.aval_of(x)
    return full(aval.shape, 1, aval.dtype if dtype is None else dtype)


def _zero_cotangents(operand, updates) -> list:
    return [ad.Zero(operand.aval) if ad.is_undefined_primal(operand) else None, None,
            ad.Zero(updates.aval) if ad.is_undefined_primal(updates) else None]


def _scatter_batch(prim: Primitive, args, dims, *, dimension_numbers, **params):
    """vmap of a scatter is one bigger scatter into a batched operand.

    The operand and the updates always get the batch in front (an unbatched one
    is broadcast: every example writes into its own copy). Then, as for gather:

    * the same indices for every example: the batch is one more window dim;
    * one index array per example: operand dim 0 and indices dim 0 are paired as
      batching dims, so example b writes only into operand[b].
    """
    (operand, indices, updates), (operand_bdim, indices_bdim, updates_bdim) = args, dims
    size = next(np.shape(x)[d] for x, d in zip(args, dims) if d is not batching.not_mapped)
    operand = bdim_at_front(operand, operand_bdim, size)
    updates = bdim_at_front(updates, updates_bdim, size)
    dn = dimension_numbers
    if indices_bdim is batching.not_mapped:
        dnums = ScatterDimensionNumbers(
            update_window_dims=(0, *_shifted(dn.update_window_dims)),
            inserted_window_dims=_shifted(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=_shifted(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=_shifted(dn.operand_batching_dims),
            scatter_indices_batching_dims=dn.scatter_indices_batching_dims)
    else:
        indices = bdim_at_front(indices, indices_bdim, size)
        dnums = ScatterDimensionNumbers(
            update_window_dims=_shifted(dn.update_window_dims),
            inserted_window_dims=_shifted(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=_shifted(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=(0, *_shifted(dn.operand_batching_dims)),
            scatter_indices_batching_dims=(0, *_shifted(dn.scatter_indices_batching_dims)))
    return prim.bind(operand, indices, updates, dimension_numbers=dnums, **params), 0


# ---------------------------------------------------------------- scatter-add, scatter-sub
scatter_add_p = _scatter_primitive("scatter-add", np.add.at)

scatter_sub_p = _scatter_primitive("scatter-sub", np.subtract.at)


def _scatter_addsub_jvp(prim: Primitive, primals, tangents, **params):
    """Adding is linear in the operand and in the updates: scatter-add the tangents alike."""
    (operand, indices, updates), (g_operand, _, g_updates) = primals, tangents
    out = prim.bind(operand, indices, updates, **params)
    if type(g_operand) is ad.Zero and type(g_updates) is ad.Zero:
        return out, ad.Zero.from_value(out)
    return out, prim.bind(ad.instantiate_zeros(g_operand), indices,
                          ad.instantiate_zeros(g_updates), **params)


def _scatter_addsub_transpose(prim: Primitive, ct, operand, indices, updates, *, update_jaxpr,
                              update_consts, dimension_numbers, indices_are_sorted,
                              unique_indices, mode):
    """The operand's cotangent passes straight through (it was only added to); each update
    gets the cotangent of the element it was added to: read back with the inverse gather
    (a window that was dropped reads 0), negated for scatter-sub."""
    if type(ct) is ad.Zero:
        return _zero_cotangents(operand, updates)
    operand_t = ct if ad.is_undefined_primal(operand) else None
    updates_t = None
    if ad.is_undefined_primal(updates):
        updates_t = _read_windows(ct, indices, updates.aval.shape, dimension_numbers,
                                  mode=mode, fill_value=0)
        if prim is scatter_sub_p:
            updates_t = neg(updates_t)
    return [operand_t, None, updates_t]


for _prim in (scatter_add_p, scatter_sub_p):
    ad.jvp_rules[_prim] = functools.partial(_scatter_addsub_jvp, _prim)
    ad.transpose_rules[_prim] = functools.partial(_scatter_addsub_transpose, _prim)
    batching.batching_rules[_prim] = functools.partial(_scatter_batch, _prim)


# ---------------------------------------------------------------- scatter-mul
scatter_mul_p = _scatter_primitive("scatter-mul", np.multiply.at)


def _scatter_mul_jvp_operand(g, operand, indices, updates, **params):
    """out = operand * (updates at their places): with the updates fixed it is linear in operand."""
    return scatter_mul_p.bind(g, indices, updates, **params)


def _scatter_mul_jvp_updates(g, operand, indices, updates, *, dimension_numbers,
                             indices_are_sorted, unique_indices, mode, **params):
    """d(operand * u) = operand * du at the written places (the product rule's other half).

    NB: like JAX, only for unique indices: with repeats an element is multiplied by
    several updates and each one's derivative is the product of all the others.
    """
    if not unique_indices:
        raise NotImplementedError(
            "scatter_mul gradients are only implemented if `unique_indices=True`")
    placed = scatter_add(_zeros_like(operand), indices, g, dimension_numbers,
                         indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                         mode=mode)
    return mul(operand, placed)


def _scatter_mul_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                           dimension_numbers, indices_are_sorted, unique_indices, mode):
    """Linear in the operand: multiply the cotangent by the same updates. Linear in the
    updates (unique indices only): each update gets cotangent * operand at its place."""
    if type(ct) is ad.Zero:
        return _zero_cotangents(operand, updates)
    operand_t = updates_t = None
    if ad.is_undefined_primal(operand):
        operand_t = _bind_scatter(scatter_mul_p, mul_p, ct, indices, updates, dimension_numbers,
                                  indices_are_sorted, unique_indices, mode,
                                  transposing=True)  # = scatter_mul(...)
    if ad.is_undefined_primal(updates):
        if not unique_indices:
            raise NotImplementedError(
                "scatter_mul gradients are only implemented if `unique_indices=True`")
        updates_t = _read_windows(mul(ct, operand), indices, updates.aval.shape,
                                  dimension_numbers, mode=mode, fill_value=0)
    return [operand_t, None, updates_t]


ad.defjvp(scatter_mul_p, _scatter_mul_jvp_operand, None, _scatter_mul_jvp_updates)
ad.transpose_rules[scatter_mul_p] = _scatter_mul_transpose
batching.batching_rules[scatter_mul_p] = functools.partial(_scatter_batch, scatter_mul_p)


# ---------------------------------------------------------------- scatter-min, scatter-max
# The tangent of an output element is the tangent of whichever value won: the
# operand's element if it stayed, else the winning update's. Ties share: when k
# values tie for the extreme, each contributes 1/k of its tangent (JAX's
# convention, as for ``max`` itself). As in JAX, the result is written as
# ``g_operand + scatter_add(coefficients * tangents)`` with coefficients per update:
#   * a winning update u contributes g_u / (number of winners);
#   * each of the n updates aimed at an element takes away 1/n of the operand's
#     tangent there, and gives back its share if the operand tied with the winners.
scatter_min_p = _scatter_primitive("scatter-min", np.minimum.at)

scatter_max_p = _scatter_primitive("scatter-max", np.maximum.at)


def _scatter_extremal_jvp(prim: Primitive, primals, tangents, *, update_jaxpr, update_consts,
                          dimension_numbers, indices_are_sorted, unique_indices, mode):
    (operand, indices, updates), (g_operand, _, g_updates) = primals, tangents
    dn = dimension_numbers
    out = prim.bind(operand, indices, updates, update_jaxpr=update_jaxpr,
                    update_consts=update_consts, dimension_numbers=dn,
                    indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                    mode=mode)
    if type(g_operand) is ad.Zero and type(g_updates) is ad.Zero:
        return out, ad.Zero.from_value(out)
    g_operand, g_updates = ad.instantiate_zeros(g_operand), ad.instantiate_zeros(g_updates)
    operand_coef, updates_coef = _extremal_coefficients(operand, indices, updates, out, dn)
    target_tangents = _read_windows(g_operand, indices, np.shape(updates), dn)
    tangent_updates = add(mul(target_tangents, operand_coef),
                              mul(g_updates, updates_coef))
    return out, scatter_add(g_operand, indices, tangent_updates, dn,
                            indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)


def _extremal_coefficients(operand, indices, updates, out, dn):
    """Per update: how much of the operand's tangent it takes away, how much of its own it adds."""
    shape = np.shape(updates)
    initial_vals = _read_windows(operand, indices, shape, dn)
    target_vals = _read_windows(out, indices, shape, dn)
    successful_updates = eq(updates, target_vals)   # this update is the extreme value
    retained_values = eq(initial_vals, target_vals)  # the operand ties with it
    num_updates = _read_windows(scatter_add(
        _zeros_like(operand), indices,
        select(successful_updates, _ones_like(updates), _zeros_like(updates)), dn),
        indices, shape, dn)  # winners aimed at the same element
    num_refs = _read_windows(scatter_add(_zeros_like(operand), indices, _ones_like(updates), dn),
                             indices, shape, dn)  # all updates aimed at it
    one = _const(num_updates, 1.0)
    updates_normalizer = select(retained_values,
                                    div(one, add(num_updates, one)),
                                    div(one, num_updates))
    updates_coef = select(successful_updates, updates_normalizer, _zeros_like(updates))
    operand_normalizer = select(retained_values, div(one, add(num_updates, one)),
                                    _zeros_like(num_updates))
    operand_coef = div(add(_const(num_updates, -1.0), operand_normalizer), num_refs)
    return operand_coef, updates_coef


def _const(x, value):
    """A NumPy scalar of x's dtype: it prints in a jaxpr as a literal like ``1.0:f32[]``."""
    return np.asarray(value, ad.aval_of(x).dtype)[()]


for _prim in (scatter_min_p, scatter_max_p):
    ad.jvp_rules[_prim] = functools.partial(_scatter_extremal_jvp, _prim)
    batching.batching_rules[_prim] = functools.partial(_scatter_batch, _prim)


# ---------------------------------------------------------------- scatter (set)
scatter_p = _scatter_primitive("scatter", _set)


def _scatter_jvp(primals, tangents, *, update_jaxpr, update_consts, dimension_numbers,
                 indices_are_sorted, unique_indices, mode):
    """Setting is linear in (operand, updates) together, *if* we know which write wins.

    With unique indices no two updates compete, so the tangent is the same scatter
    of the tangents. Otherwise see ``_scatter_jvp_with_ids``.
    """
    if update_jaxpr is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    (operand, indices, updates), (g_operand, _, g_updates) = primals, tangents
    params = dict(update_jaxpr=None, update_consts=update_consts,
                  dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    if type(g_operand) is ad.Zero and type(g_updates) is ad.Zero:
        out = scatter_p.bind(operand, indices, updates, **params)
        return out, ad.Zero.from_value(out)
    g_operand, g_updates = ad.instantiate_zeros(g_operand), ad.instantiate_zeros(g_updates)
    if unique_indices:
        return (scatter_p.bind(operand, indices, updates, **params),
                scatter_p.bind(g_operand, indices, g_updates, **params))
    return _scatter_jvp_with_ids(operand, indices, updates, g_operand, g_updates,
                                 dimension_numbers, indices_are_sorted, unique_indices, mode)


def _scatter_jvp_with_ids(operand, indices, updates, g_operand, g_updates, dn,
                          indices_are_sorted, unique_indices, mode):
    """With repeated indices, which update wins is up to the backend. So (as JAX does):

    1. give every update window a positive id and scatter the ids: now each operand
       element holds the id of the write that won there (0: none did);
    2. read the ids back with the inverse gather: an update won iff it reads its own id;
    3. zero out the operand elements that were overwritten and the updates that lost;
    4. scatter-*add* what is left, for the primal and (the same way) for the tangent.

    Step 4 is linear in (operand, updates) with masks known from the primal, so
    transposing it needs only scatter-add's rule.
    """
    ids_shape = list(np.shape(updates))
    for d in dn.update_window_dims:
        ids_shape[d] = 1  # one id per window, shared by its elements
    num_ids = int(np.prod(ids_shape, dtype=np.int64))
    id_dtype = np.dtype(np.uint64 if num_ids > np.iinfo(np.uint32).max else np.uint32)
    update_ids = add(reshape(iota(id_dtype, num_ids), ids_shape),
                         _ones_like(updates, id_dtype))
    scattered_ids = scatter(full(np.shape(operand), 0, id_dtype), indices, update_ids, dn,
                            indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)
    gathered_ids = _read_windows(scattered_ids, indices, np.shape(updates), dn)

    def keep_not_overwritten(x):
        return select(eq(scattered_ids, _zeros_like(scattered_ids)), x, _zeros_like(x))

    def keep_winners(u):
        return select(eq(update_ids, gathered_ids), u, _zeros_like(u))

    def add_at(x, u):
        return scatter_add(x, indices, u, dn, indices_are_sorted=indices_are_sorted,
                           unique_indices=unique_indices, mode=mode)

    # NB: the masks are recomputed for each operand, in JAX's order, so the jaxprs match.
    masked = [keep_not_overwritten(operand), keep_winners(updates),
              keep_not_overwritten(g_operand), keep_winners(g_updates)]
    return add_at(masked[0], masked[1]), add_at(masked[2], masked[3])


def _scatter_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                       dimension_numbers, indices_are_sorted, unique_indices, mode):
    """With unique indices, the operand's cotangent is ct with the overwritten places zeroed
    (those values were thrown away), and each update's is ct read back at its place."""
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where "
                                  "unique_indices=True")
    if type(ct) is ad.Zero:
        return _zero_cotangents(operand, updates)
    updates_shape = ad.aval_of(updates).shape
    operand_t = updates_t = None
    if ad.is_undefined_primal(operand):
        operand_t = scatter(ct, indices, full(updates_shape, 0, ad.aval_of(ct).dtype),
                            dimension_numbers, indices_are_sorted=indices_are_sorted,
                            unique_indices=True, mode=mode)
    if ad.is_undefined_primal(updates):
        updates_t = _read_windows(ct, indices, updates_shape, dimension_numbers, mode=mode,
                                  fill_value=0)
    return [operand_t, None, updates_t]


ad.jvp_rules[scatter_p] = _scatter_jvp
ad.transpose_rules[scatter_p] = _scatter_transpose
batching.batching_rules[scatter_p] = functools.partial(_scatter_batch, scatter_p)


def _operand_dtype(operand: Any) -> np.dtype:
    return dtypes.dtype_and_weak(operand)[0]


def _bind_scatter(prim: Primitive, combine_prim: Primitive | None, operand, scatter_indices,
                  updates, dimension_numbers, indices_are_sorted, unique_indices, mode,
                  transposing: bool = False):
    jaxpr, consts = (None, ()) if combine_prim is None else \
        _reduction_jaxpr(combine_prim, _operand_dtype(operand), transposing)
    return prim.bind(operand, scatter_indices, updates, update_jaxpr=jaxpr, update_consts=consts,
                     dimension_numbers=dimension_numbers,
                     indices_are_sorted=bool(indices_are_sorted),
                     unique_indices=bool(unique_indices), mode=GatherScatterMode.from_any(mode))


def scatter(operand: Any, scatter_indices: Any, updates: Any,
            dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Any:
    """Write ``updates`` into the windows of ``operand`` (out-of-bounds windows are dropped)."""
    return _bind_scatter(scatter_p, None, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_add(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Any:
    """Add ``updates`` into the windows of ``operand``; repeated indices accumulate."""
    return _bind_scatter(scatter_add_p, add_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_sub(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Any:
    """Subtract ``updates`` from the windows of ``operand``."""
    return _bind_scatter(scatter_sub_p, sub_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_mul(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Any:
    """Multiply the windows of ``operand`` by ``updates``."""
    return _bind_scatter(scatter_mul_p, mul_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_min(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Any:
    """Elementwise minimum of the windows of ``operand`` and ``updates``."""
    return _bind_scatter(scatter_min_p, min_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_max(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: str | GatherScatterMode | None = None) -> Any:
    """Elementwise maximum of the windows of ``operand`` and ``updates``."""
    return _bind_scatter(scatter_max_p, max_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_apply(operand: Any, scatter_indices: Any, func: Callable,
                  dimension_numbers: ScatterDimensionNumbers, *, update_shape: Sequence[int] = (),
                  indices_are_sorted: bool = False, unique_indices: bool = False,
                  mode: str | GatherScatterMode | None = None) -> Any:
    """Replace each indexed element ``v`` by ``func(v)`` (a repeated index applies it again).

    Like JAX, this is a ``scatter`` whose update_jaxpr is ``lambda v, _: func(v)``,
    fed with placeholder zeros of ``update_shape``.
    """
    dtype = _operand_dtype(operand)
    zero = np.zeros((), dtype)
    unused = zero if not update_shape else broadcast_in_dim_p.bind(
        zero, shape=tuple(update_shape), broadcast_dimensions=(), sharding=None)
    aval = ShapedArray((), dtype)
    closed, _ = trace_to_jaxpr(lambda x, _: ([func(x)], None), [aval, aval])
    return scatter_p.bind(operand, scatter_indices, unused, update_jaxpr=closed.jaxpr,
                          update_consts=tuple(closed.consts), dimension_numbers=dimension_numbers,
                          indices_are_sorted=bool(indices_are_sorted),
                          unique_indices=bool(unique_indices),
                          mode=GatherScatterMode.from_any(mode))
