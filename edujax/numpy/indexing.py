"""NumPy-style indexing: ``x[idx]`` and the functional updates ``x.at[idx].set(y)``.

An index expression becomes lax operations in one of three ways, tried in order
(exactly JAX's order, so ``make_jaxpr`` prints the same program):

1. **static slice**: only Python ints, slices, ``None`` and ``...`` -> ``slice``,
   then ``rev`` (negative steps), ``squeeze`` (ints) and ``broadcast_in_dim`` (None);
2. **dynamic slice**: the same, but some integer is a traced scalar (``x[i]`` in a
   loop body) -> ``dynamic_slice``, whose start indices are values, not parameters;
3. **gather**: everything else (integer arrays, boolean masks, strided slices
   next to traced integers) -> one ``gather`` (see edujax/lax/slicing.py).

``x.at[idx].op(y)`` always takes the gather route, backwards: a ``scatter``.

Out of bounds: reading *clamps* (``x[10]`` on 5 elements is ``x[4]``), writing
*drops* (``x.at[10].set(0)`` changes nothing). slicing.py says why.
"""
from __future__ import annotations

import enum
import operator
import warnings
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from edujax import core, dtypes, lax
from edujax.array import Array
from edujax.errors import NonConcreteBooleanIndexError, ConcretizationTypeError
from edujax.lax import slicing
from edujax.lax.slicing import GatherScatterMode
from edujax.numpy import ufuncs, util

# JAX sizes index arrays by the array they index; int32 fits every shape we can hold.
# NB: JAX switches to int64 for dimensions past 2**31; edujax never meets those.
_INDEX_DTYPE = dtypes.int32


# ================================================================ parsing
# First every index is classified and told which axes of ``x`` it consumes.


class IndexKind(enum.Enum):
    NONE = "none"            # None / np.newaxis: adds an axis of size 1
    SLICE = "slice"          # start:stop:step
    ELLIPSIS = "ellipsis"    # ...: as many full slices as needed
    INTEGER = "integer"      # a Python or NumPy int
    BOOLEAN = "boolean"      # a mask (or a scalar True/False)
    ARRAY = "array"          # an integer array, a traced integer, a list of ints


class ParsedIndex(NamedTuple):
    index: Any
    kind: IndexKind
    axes: tuple[int, ...]  # the axes of the indexed array this index consumes


def _is_integer_index(idx: Any) -> bool:
    return isinstance(idx, (int, np.integer)) and not isinstance(idx, (bool, np.bool_))


def _is_scalar(x: Any) -> bool:
    try:
        return np.ndim(x) == 0 and util.is_arraylike(x)
    except TypeError:
        return False


def _is_boolean_index(idx: Any) -> bool:
    if isinstance(idx, list):
        return bool(idx) and all(_is_scalar(e) and _dtype(e) == dtypes.bool_ for e in idx)
    try:
        return core.get_aval(idx).dtype == dtypes.bool_
    except TypeError:
        return False


def _dtype(x: Any) -> np.dtype:
    return dtypes.dtype_and_weak(x)[0]


def _index_kind(idx: Any) -> IndexKind:
    if idx is None:
        return IndexKind.NONE
    if idx is Ellipsis:
        return IndexKind.ELLIPSIS
    if isinstance(idx, slice):
        return IndexKind.SLICE
    if _is_integer_index(idx):
        return IndexKind.INTEGER
    if _is_boolean_index(idx):
        return IndexKind.BOOLEAN
    if isinstance(idx, (Array, core.Tracer, np.ndarray)):
        return _integer_array_kind(idx.dtype)
    if isinstance(idx, str):
        raise TypeError(f"JAX does not support string indexing; got {idx=}")
    if isinstance(idx, Sequence):
        if not idx:  # an empty list would be float; it is an (empty) integer index
            return IndexKind.ARRAY
        return _integer_array_kind(dtypes.canonicalize_dtype(np.asarray(idx).dtype))
    if isinstance(idx, (float, complex, np.generic)):
        return _integer_array_kind(np.dtype(type(idx)))
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and "
                     f"integer or boolean arrays are valid indices. Got {idx}")


def _integer_array_kind(dtype: np.dtype) -> IndexKind:
    if dtype.kind in "iu":
        return IndexKind.ARRAY
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dtype}")


def _as_index_tuple(idx: Any) -> tuple:
    """``x[i]`` and ``x[i, j]`` -> a tuple; a list used like a tuple is refused (as in JAX).

    NumPy once guessed whether ``x[[0, 1]]`` meant ``x[0, 1]`` or ``x[array([0, 1])]``;
    JAX refuses to guess.
    """
    if isinstance(idx, tuple):
        return idx
    if isinstance(idx, Sequence) and not isinstance(idx, str):
        use = "tuple(seq)" if any(_looks_multidimensional(i) for i in idx) else "array(seq)"
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        f"allowed; use `arr[{use}]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    return (idx,)


def _looks_multidimensional(i: Any) -> bool:
    return (isinstance(i, (np.ndarray, Array)) and np.ndim(i) != 0
            or isinstance(i, (Sequence, slice)) or i is Ellipsis or i is None)


def parse_indices(idx: Any, shape: tuple[int, ...]) -> list[ParsedIndex]:
    """Classify every index and give it the axes it consumes (``...`` takes what is left)."""
    indices = _as_index_tuple(idx)
    kinds = [_index_kind(i) for i in indices]
    consumed = [_axes_consumed(i, kind) for i, kind in zip(indices, kinds)]
    ellipses = [n for n, kind in enumerate(kinds) if kind == IndexKind.ELLIPSIS]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    total = sum(consumed)
    if total > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {total} "
                         "were indexed")
    if ellipses:
        consumed[ellipses[0]] = len(shape) - total
    parsed, axis = [], 0
    for i, kind, n in zip(indices, kinds, consumed):
        parsed.append(ParsedIndex(i, kind, tuple(range(axis, axis + n))))
        axis += n
    return parsed


def _axes_consumed(idx: Any, kind: IndexKind) -> int:
    if kind in (IndexKind.NONE, IndexKind.ELLIPSIS):
        return 0
    if kind == IndexKind.BOOLEAN:
        return np.ndim(idx)  # a mask consumes as many axes as it has
    return 1


# ================================================================ small helpers


def _is_concrete(x: Any) -> bool:
    return not isinstance(x, core.Tracer) or x.to_concrete_value() is not None


def _concrete_value(x: Any) -> Any:
    return x.to_concrete_value() if isinstance(x, core.Tracer) else x


def _static_slice_entries(s: slice) -> bool:
    """Slice bounds must be known now: a traced bound would make the shape unknown."""
    return all(e is None or _is_concrete(e) for e in (s.start, s.stop, s.step))


def _slice_indices(s: slice, size: int) -> tuple[int, int, int] | None:
    """``s.indices(size)``, or None when the bounds are not usable integers."""
    try:
        return s.indices(size)
    except (TypeError, ValueError):
        return None


def _is_weak_scalar(x: Any) -> bool:
    if type(x) in dtypes.python_scalar_types:
        return True
    aval = getattr(x, "aval", None)
    return aval is not None and aval.weak_type and not aval.shape


def _const_like(example: Any, value: int) -> Any:
    """``value`` with the dtype of ``example``; weakly typed if ``example`` is a weak scalar.

    (JAX's ``lax._const``: it decides whether ``i + size`` stays weakly typed.)
    """
    if _is_weak_scalar(example):
        return value
    return np.array(value, _dtype(example))


def _jnp_less(x: Any, y: Any) -> Any:
    return lax.lt(*util.promote_args("less", x, y))


def _jnp_add(x: Any, y: Any) -> Any:
    return lax.add(*util.promote_args("add", x, y))


def _is_unsigned(x: Any) -> bool:
    return _dtype(x).kind == "u"


def _expand_dims(x: Any, dims: Sequence[int]) -> Any:
    return lax.expand_dims(x, dims) if dims else x


def _full_like(x: Any, value: int, shape: tuple[int, ...]) -> Any:
    """``lax.full_like(x, value, shape=shape)``: weakly typed when ``x`` is."""
    dtype, weak = dtypes.dtype_and_weak(x)
    return lax.broadcast_in_dim(lax._convert_element_type(value, dtype, weak), shape, ())


def _broadcast_to(x: Any, shape: tuple[int, ...]) -> Any:
    """``jnp.broadcast_to`` with JAX's messages."""
    aval = core.get_aval(x)
    if aval.shape == shape:
        return x
    if len(shape) < aval.ndim:
        raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                         f"arr_shape={aval.shape} shape={shape}")
    lead = len(shape) - aval.ndim
    if any(d not in (1, s) for d, s in zip(aval.shape, shape[lead:])):
        raise ValueError(f"Incompatible types for broadcasting: input type={aval.str_short()} "
                         f"and requested type={aval.update(shape=shape).str_short()}")
    return lax.broadcast_in_dim(x, shape, tuple(range(lead, len(shape))))


def _broadcast_arrays(*arrays: Any) -> list:
    shapes = [np.shape(a) for a in arrays]
    if all(s == shapes[0] for s in shapes):
        return list(arrays)
    shape = util.broadcast_shapes(*shapes)
    return [_broadcast_to(a, shape) for a in arrays]


def _parse_mode(mode: str | GatherScatterMode | None) -> GatherScatterMode:
    """For reading, no mode means PROMISE_IN_BOUNDS (for writing it means FILL_OR_DROP)."""
    if mode is None:
        return GatherScatterMode.PROMISE_IN_BOUNDS
    return GatherScatterMode.from_any(mode)


# ================================================================ the indexer
# The parsed indices, with the rewrites the three strategies need.


class NDIndexer(NamedTuple):
    shape: tuple[int, ...]
    indices: list[ParsedIndex]

    @classmethod
    def from_raw_indices(cls, idx: Any, shape: tuple[int, ...]) -> NDIndexer:
        return cls(tuple(shape), parse_indices(idx, shape))

    def kinds(self) -> set[IndexKind]:
        return {i.kind for i in self.indices}

    def static_ints_in_bounds(self, normalize_indices: bool) -> bool:
        for i in self.indices:
            if i.kind == IndexKind.INTEGER:
                size = self.shape[i.axes[0]]
                n = operator.index(i.index)
                n = n + size if normalize_indices and n < 0 else n
                if not 0 <= n < size:
                    return False
        return True

    def expand_ellipses(self) -> NDIndexer:
        """Replace ``...`` and the implicit trailing ``:`` by explicit full slices."""
        expanded, consumed = [], 0
        for i in self.indices:
            consumed += len(i.axes)
            if i.kind == IndexKind.ELLIPSIS:
                expanded += [ParsedIndex(slice(None), IndexKind.SLICE, (a,)) for a in i.axes]
            else:
                expanded.append(i)
        expanded += [ParsedIndex(slice(None), IndexKind.SLICE, (a,))
                     for a in range(consumed, len(self.shape))]
        return NDIndexer(self.shape, expanded)

    def expand_bool_indices(self) -> NDIndexer:
        """A concrete mask becomes integer arrays, one per axis it covers (``np.nonzero``)."""
        expanded = []
        for position, i in enumerate(self.indices):
            if i.kind != IndexKind.BOOLEAN:
                expanded.append(i)
                continue
            if not _is_concrete(i.index):
                raise NonConcreteBooleanIndexError(core.get_aval(i.index))
            mask = np.asarray(_concrete_value(i.index))
            if mask.ndim == 0:  # x[True] / x[False]: handled by the gather (adds an axis)
                expanded.append(ParsedIndex(bool(mask), i.kind, ()))
                continue
            expected = [self.shape[a] for a in i.axes]
            if not all(s in (0, e) for s, e in zip(mask.shape, expected)):
                raise IndexError("boolean index did not match shape of indexed array in index "
                                 f"{position}: got {mask.shape}, expected {expected}")
            expanded += [ParsedIndex(_canonical_np(where), IndexKind.ARRAY, (a,))
                         for where, a in zip(np.nonzero(mask), i.axes)]
        return NDIndexer(self.shape, expanded)

    def expand_scalar_bool_indices(self) -> NDIndexer:
        """``x[True]`` indexes a new size-1 axis with [0]; ``x[False]`` with [] (empty result)."""
        shape, indices, axis = list(self.shape), [], 0
        for n, i in enumerate(self.indices):
            if i.kind == IndexKind.BOOLEAN:
                shape.insert(n, 1)
                indices.append(ParsedIndex(_canonical_np(np.arange(int(i.index))),
                                           IndexKind.ARRAY, (axis,)))
                axis += 1
            else:
                indices.append(i._replace(axes=tuple(range(axis, axis + len(i.axes)))))
                axis += len(i.axes)
        return NDIndexer(tuple(shape), indices)

    def convert_sequences_to_arrays(self) -> NDIndexer:
        return NDIndexer(self.shape, [
            i._replace(index=util.asarray(i.index)) if isinstance(i.index, Sequence) else i
            for i in self.indices])

    def normalize_indices(self) -> NDIndexer:
        """Negative indices count from the end: ``i -> i + size`` where ``i < 0``."""
        return NDIndexer(self.shape, [self._normalized(i) for i in self.indices])

    def _normalized(self, i: ParsedIndex) -> ParsedIndex:
        if i.kind == IndexKind.INTEGER:
            if isinstance(i.index, np.unsignedinteger) or i.index >= 0:
                return i
            return i._replace(index=i.index + self.shape[i.axes[0]])
        if i.kind != IndexKind.ARRAY or _is_unsigned(i.index):
            return i
        size = _const_like(i.index, self.shape[i.axes[0]])
        if isinstance(i.index, np.ndarray):  # NumPy data is compared by NumPy, as in JAX
            negative = i.index < 0
        else:
            negative = _jnp_less(i.index, 0)
        return i._replace(index=lax.select(negative, lax.add(i.index, size), i.index))

    def is_advanced_int_indexer(self) -> bool:
        return any(i.kind in (IndexKind.ARRAY, IndexKind.BOOLEAN) and np.ndim(i.index) > 0
                   for i in self.indices)


def _canonical_np(x: np.ndarray) -> np.ndarray:
    return x.astype(dtypes.canonicalize_dtype(x.dtype))


# ================================================================ 1. static slices


class _StaticSlice(NamedTuple):
    start_indices: list[int]
    limit_indices: list[int]
    strides: list[int] | None
    rev_axes: list[int]
    squeeze_axes: list[int]
    newaxis_dims: list[int]


def _to_static_slice(indexer: NDIndexer, mode: GatherScatterMode,
                     normalize_indices: bool) -> _StaticSlice | None:
    """The static-slice plan, or None if some index needs a dynamic slice or a gather."""
    if mode not in (GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        return None
    if not indexer.kinds() <= {IndexKind.INTEGER, IndexKind.ELLIPSIS, IndexKind.SLICE,
                               IndexKind.NONE}:
        return None
    if mode == GatherScatterMode.PROMISE_IN_BOUNDS and not indexer.static_ints_in_bounds(
            normalize_indices):
        return None  # the dynamic slice clamps it
    plan = _StaticSlice([], [], [], [], [], [])
    for i in indexer.expand_ellipses().indices:
        if i.kind == IndexKind.NONE:
            # expand_dims inserts in order, in the rank after slicing and squeezing
            plan.newaxis_dims.append(len(plan.start_indices) - len(plan.squeeze_axes)
                                     + len(plan.newaxis_dims))
        elif i.kind == IndexKind.INTEGER:
            if not _add_static_int(plan, i, indexer.shape, normalize_indices):
                return None
        elif not (_static_slice_entries(i.index)
                  and _add_static_slice(plan, i, indexer.shape)):
            return None
    if all(s == 1 for s in plan.strides):
        plan = plan._replace(strides=None)
    return plan


def _add_static_int(plan: _StaticSlice, i: ParsedIndex, shape, normalize: bool) -> bool:
    axis, = i.axes
    size = shape[axis]
    if size == 0:
        return False  # the gather raises the error
    start = int(i.index)
    if normalize and start < 0:
        start += size
    start = min(max(start, 0), size - 1)  # mode="clip" may bring it here out of bounds
    plan.start_indices.append(start)
    plan.limit_indices.append(start + 1)
    plan.strides.append(1)
    plan.squeeze_axes.append(axis)
    return True


def _add_static_slice(plan: _StaticSlice, i: ParsedIndex, shape) -> bool:
    """A slice with step -k is a slice with step k, then reversed (``rev``)."""
    axis, = i.axes
    size = shape[axis]
    bounds = _slice_indices(i.index, size)
    if bounds is None:
        return False
    start, stop, step = bounds
    if step < 0:
        new_start = min(size, stop + 1 + abs(start - stop - 1) % abs(step))
        plan.start_indices.append(new_start)
        plan.limit_indices.append(max(new_start, start + 1))
        plan.strides.append(-step)
        plan.rev_axes.append(axis)
    else:
        plan.start_indices.append(start)
        plan.limit_indices.append(max(start, stop))
        plan.strides.append(step)
    return True


def _static_slice(arr: Any, plan: _StaticSlice) -> Any:
    shape = np.shape(arr)
    trivial = plan.strides is None and all(
        (lo, hi) == (0, n) for lo, hi, n in zip(plan.start_indices, plan.limit_indices, shape))
    result = arr if trivial else lax.slice(arr, plan.start_indices, plan.limit_indices,
                                           plan.strides)
    if plan.rev_axes:
        result = lax.rev(result, plan.rev_axes)
    if plan.squeeze_axes:
        result = lax.squeeze(result, plan.squeeze_axes)
    return _expand_dims(result, plan.newaxis_dims)


# ================================================================ 2. dynamic slices


class _DynamicSlice(NamedTuple):
    start_indices: list[Any]
    slice_sizes: list[int]
    rev_axes: list[int]
    squeeze_axes: list[int]
    newaxis_dims: list[int]
    trivial: bool


def _to_dynamic_slice(indexer: NDIndexer, mode: str | GatherScatterMode | None
                      ) -> _DynamicSlice | None:
    """The dynamic-slice plan: scalar integers (maybe traced) and unit-step slices only."""
    if mode is not None and GatherScatterMode.from_any(mode) not in (
            GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        return None
    for i in indexer.indices:
        if i.kind == IndexKind.BOOLEAN:
            return None
        if i.kind == IndexKind.ARRAY and (isinstance(i.index, Sequence) or np.shape(i.index)):
            return None
        if i.kind == IndexKind.SLICE and not _unit_step(i.index):
            return None
    plan = _DynamicSlice([], [], [], [], [], True)
    for i in indexer.expand_ellipses().indices:
        if i.kind == IndexKind.NONE:
            plan.newaxis_dims.append(len(plan.start_indices) - len(plan.squeeze_axes)
                                     + len(plan.newaxis_dims))
        elif i.kind in (IndexKind.INTEGER, IndexKind.ARRAY):
            if indexer.shape[i.axes[0]] == 0:
                return None  # the gather raises the error
            plan = plan._replace(trivial=False)
            plan.start_indices.append(i.index)
            plan.slice_sizes.append(1)
            plan.squeeze_axes.append(i.axes[0])
        else:
            bounds = _slice_indices(i.index, indexer.shape[i.axes[0]])
            if bounds is None:
                return None
            if i.index != slice(None):
                plan = plan._replace(trivial=False)
            _add_dynamic_slice(plan, bounds, i.axes[0])
    if len(plan.start_indices) > 1:  # dynamic_slice wants one dtype for all start indices
        plan.start_indices[:] = [lax._convert_element_type(s, _INDEX_DTYPE, False)
                                 for s in plan.start_indices]
    return plan


def _unit_step(s: slice) -> bool:
    return s.step is None or (_is_integer_index(s.step) and s.step in (-1, 1))


def _add_dynamic_slice(plan: _DynamicSlice, bounds: tuple[int, int, int], axis: int) -> None:
    start, stop, step = bounds
    if step < 0:
        new_start = stop + 1 + abs(start - stop - 1) % abs(step)
        plan.start_indices.append(new_start)
        plan.slice_sizes.append(max(0, start + 1 - new_start))
        plan.rev_axes.append(axis)
    else:
        plan.start_indices.append(start)
        plan.slice_sizes.append(max(0, stop - start))


def _dynamic_slice(arr: Any, plan: _DynamicSlice, normalize_indices: bool) -> Any:
    result = arr
    if not plan.trivial:
        starts = [_normalize_start(i, d, normalize_indices)
                  for i, d in zip(plan.start_indices, np.shape(arr))]
        result = lax.dynamic_slice(arr, starts, plan.slice_sizes, allow_negative_indices=False)
    if plan.rev_axes:
        result = lax.rev(result, plan.rev_axes)
    if plan.squeeze_axes:
        result = lax.squeeze(result, plan.squeeze_axes)
    return _expand_dims(result, plan.newaxis_dims)


def _normalize_start(i: Any, size: int, allow_negative: bool) -> Any:
    """A start index counted from the end becomes ``i + size`` (the part of
    ``lax.dynamic_slice`` that JAX runs before binding; the primitive then clamps).

    NB: even a start known now (``x[5]`` out of bounds) is computed with staged
    ``lt``/``add``/``select_n``, because JAX does so and the jaxprs must agree.
    """
    if _is_unsigned(i) or not allow_negative:
        return i
    size_value = lax._convert_element_type(size, _dtype(i), False)
    return lax.select(_jnp_less(i, 0), _jnp_add(i, size_value), i)


# ================================================================ 3. gather
# Port of JAX's _index_to_gather: walk the indices and the axes of x together,
# collecting the gather's dimension numbers and the columns of its index array.


class _GatherPlan(NamedTuple):
    slice_shape: list[int]         # the shape of x[idx] before None axes are added
    gather_slice_shape: list[int]  # slice_sizes of the gather
    gather_indices: Any            # the index array, last dim = one start per mapped axis
    dnums: slicing.GatherDimensionNumbers
    unique_indices: bool           # no advanced indices -> no repeats, sorted
    indices_are_sorted: bool
    reversed_y_dims: list[int]     # output dims of negative-step slices, reversed afterwards
    newaxis_dims: tuple[int, ...]  # where None adds an axis
    scalar_bool_dims: list[int]    # where x[True] / x[False] adds an axis


class _GatherBuilder:
    """The bookkeeping of one walk over the indices (see _index_to_gather)."""

    def __init__(self):
        self.offset_dims: list[int] = []
        self.collapsed_slice_dims: list[int] = []
        self.start_index_map: list[int] = []
        self.gather_indices: list[tuple[Any, int]] = []  # (array, first dim in the index array)
        self.gather_indices_shape: list[int] = []
        self.slice_shape: list[int] = []
        self.newaxis_dims: list[int] = []
        self.reversed_y_dims: list[int] = []
        self.gather_slice_shape: list[int] = []
        self.x_axis = self.y_axis = self.collapsed_y_axis = 0

    def add_advanced(self, arrays: list, x_axes: Sequence[int]) -> None:
        """All integer-array indices at once: one batch of index vectors."""
        arrays = _broadcast_arrays(*arrays)
        shape = list(np.shape(arrays[0]))
        start_dim = len(self.gather_indices_shape)
        self.gather_indices += [(lax._convert_element_type(a, _INDEX_DTYPE, False), start_dim)
                                for a in arrays]
        self.gather_indices_shape += shape
        self.start_index_map += x_axes
        self.collapsed_slice_dims += x_axes
        self.slice_shape += shape
        self.y_axis += len(shape)
        self.collapsed_y_axis += len(shape)

    def add_scalar(self, index: Any, shape) -> None:
        if shape[self.x_axis] == 0:  # XLA cannot index an empty axis
            raise IndexError(f"index is out of bounds for axis {self.x_axis} with size 0")
        converted = lax._convert_element_type(index, _INDEX_DTYPE, False)
        self.gather_indices.append((converted, len(self.gather_indices_shape)))
        self.collapsed_slice_dims.append(self.x_axis)
        self.gather_slice_shape.append(1)
        self.start_index_map.append(self.x_axis)
        self.x_axis += 1

    def add_newaxis(self) -> None:
        self.slice_shape.append(1)
        self.newaxis_dims.append(self.y_axis)
        self.y_axis += 1

    def add_slice(self, s: slice, size: int) -> None:
        start, stop, step = s.indices(size)
        length = len(range(start, stop, step))
        self.slice_shape.append(length)
        if step == 1:  # a window: no index column needed unless it is a proper part
            if length != size:
                self.gather_indices.append((lax._convert_element_type(start, _INDEX_DTYPE),
                                            len(self.gather_indices_shape)))
                self.start_index_map.append(self.x_axis)
            self.gather_slice_shape.append(length)
            self.offset_dims.append(self.collapsed_y_axis)
        else:  # a strided slice: gather the elements start, start+step, ... one by one
            indices = _strided_indices(start, step, length)
            if step < 0:
                self.reversed_y_dims.append(self.collapsed_y_axis)
                indices = lax.rev(indices, (0,))
            self.gather_slice_shape.append(1)
            self.gather_indices.append((indices, len(self.gather_indices_shape)))
            self.start_index_map.append(self.x_axis)
            self.gather_indices_shape.append(length)
            self.collapsed_slice_dims.append(self.x_axis)
        self.collapsed_y_axis += 1
        self.y_axis += 1
        self.x_axis += 1

    def index_array(self) -> Any:
        """Stack the columns: broadcast each to the batch shape, concatenate on a last dim."""
        if not self.gather_indices:
            return np.zeros((0,), _INDEX_DTYPE)
        if len(self.gather_indices) == 1:
            g, _ = self.gather_indices[0]
            return lax.expand_dims(g, (np.ndim(g),))
        shape = self.gather_indices_shape + [1]
        return lax.concatenate(
            [lax.broadcast_in_dim(g, shape, tuple(range(i, i + np.ndim(g))))
             for g, i in self.gather_indices], len(self.gather_indices_shape))


def _strided_indices(start: int, step: int, length: int) -> Any:
    """``start + step * iota(length)``: the elements a strided slice picks."""
    start_value = np.array(start, _INDEX_DTYPE)
    step_value = np.array(step, _INDEX_DTYPE)
    return lax.add(start_value, lax.mul(step_value, lax.iota(_INDEX_DTYPE, length)))


def _index_to_gather(indexer: NDIndexer, normalize_indices: bool = True) -> _GatherPlan:
    for position, i in enumerate(indexer.indices):
        if i.kind == IndexKind.SLICE and not _static_slice_entries(i.index):
            raise IndexError(f"Slice entries must be static integers. Got {i.index} at "
                             f"position {position}")
    indexer = indexer.convert_sequences_to_arrays()
    # NumPy's rule: advanced indices side by side keep their place in the result;
    # separated (by a slice, None or ...), their dims go first.
    advanced = [n for n, i in enumerate(indexer.indices)
                if i.kind in (IndexKind.ARRAY, IndexKind.INTEGER)]
    contiguous = all(b - a == 1 for a, b in zip(advanced, advanced[1:]))
    indexer = indexer.expand_ellipses()
    scalar_bool_dims = [n for n, i in enumerate(indexer.indices) if i.kind == IndexKind.BOOLEAN]
    indexer = indexer.expand_scalar_bool_indices()
    if normalize_indices:
        indexer = indexer.normalize_indices()

    arrays, idx_axes, x_axes = [], [], []
    if indexer.is_advanced_int_indexer():
        not_none = [(n, i) for n, i in enumerate(indexer.indices) if i.kind != IndexKind.NONE]
        for x_axis, (n, i) in enumerate(not_none):
            if i.kind in (IndexKind.ARRAY, IndexKind.INTEGER):
                arrays.append(i.index)
                idx_axes.append(n)
                x_axes.append(x_axis)

    b = _GatherBuilder()
    for n, i in enumerate(indexer.indices):
        if arrays and n == (idx_axes[0] if contiguous else 0):
            b.add_advanced(arrays, x_axes)
        if n in idx_axes:
            b.x_axis += 1
            b.gather_slice_shape.append(1)
        elif i.kind in (IndexKind.INTEGER, IndexKind.ARRAY) and np.ndim(i.index) == 0:
            b.add_scalar(i.index, indexer.shape)
        elif i.kind == IndexKind.NONE:
            b.add_newaxis()
        elif i.kind == IndexKind.SLICE:
            b.add_slice(i.index, indexer.shape[b.x_axis])
        else:
            raise IndexError(f"Got unsupported indexer at position {n}: {i!r}")

    dnums = slicing.GatherDimensionNumbers(
        offset_dims=tuple(b.offset_dims),
        collapsed_slice_dims=tuple(sorted(b.collapsed_slice_dims)),
        start_index_map=tuple(b.start_index_map))
    return _GatherPlan(b.slice_shape, b.gather_slice_shape, b.index_array(), dnums,
                       unique_indices=not arrays, indices_are_sorted=not arrays,
                       reversed_y_dims=b.reversed_y_dims, newaxis_dims=tuple(b.newaxis_dims),
                       scalar_bool_dims=scalar_bool_dims)


def _gather(arr: Any, indexer: NDIndexer, *, indices_are_sorted: bool, unique_indices: bool,
            mode: str | GatherScatterMode | None, fill_value: Any,
            normalize_indices: bool) -> Any:
    plan = _index_to_gather(indexer, normalize_indices)
    fill_value = _check_fill_value(fill_value)
    y = _expand_dims(arr, plan.scalar_bool_dims)
    if 0 in plan.slice_shape:  # an empty result needs no gather (zeros(0)[array([])])
        return _full_like(y, 0, tuple(plan.slice_shape))
    if 0 not in np.shape(plan.gather_indices):
        y = slicing.gather(y, plan.gather_indices, plan.dnums, plan.gather_slice_shape,
                           unique_indices=unique_indices or plan.unique_indices,
                           indices_are_sorted=indices_are_sorted or plan.indices_are_sorted,
                           mode=mode, fill_value=fill_value)
    if plan.reversed_y_dims:
        y = lax.rev(y, plan.reversed_y_dims)
    return _expand_dims(y, plan.newaxis_dims)


def _check_fill_value(fill_value: Any) -> Any:
    if fill_value is None:
        return None
    if not _is_concrete(fill_value):
        raise ConcretizationTypeError(fill_value, "fill_value argument to indexed get()")
    if np.ndim(fill_value) != 0:
        raise ValueError("fill_value argument to indexed get() must be a scalar")
    return fill_value.item() if isinstance(fill_value, np.ndarray) else fill_value


# ================================================================ x[idx]


def _numpy_fast_path(arr: Array, idx: Any) -> Array | None:
    """``x[1]``, ``x[:, 2]``, ``x[idx_array]`` on a concrete array, straight through NumPy.

    Taken only outside any transformation and only for indices whose NumPy
    meaning equals JAX's once integers are clamped into range; anything else
    returns None and goes the long way (which also raises the errors). It is
    written for speed: ``x[1]`` should cost a few microseconds, as in NumPy.
    """
    value = arr._value
    shape = value.shape
    if type(idx) is int:  # the commonest case by far
        if not shape or not shape[0]:
            return None
        return Array(np.asarray(value[_clamp_int(idx, shape[0])]), arr._weak_type)
    items = idx if type(idx) is tuple else (idx,)
    out, axis, has_array, has_gap, seen_ellipsis = [], 0, False, False, False
    for i in items:
        t = type(i)
        if i is None or i is Ellipsis:
            if i is Ellipsis:
                if seen_ellipsis:
                    return None
                seen_ellipsis = True
                axis += len(shape) - sum(j is not None and j is not Ellipsis for j in items)
            has_gap = True
            out.append(i)
            continue
        if axis >= len(shape) or not shape[axis]:
            return None
        if t is slice:
            if not (_is_int_or_none(i.start) and _is_int_or_none(i.stop)
                    and _is_int_or_none(i.step)) or i.step == 0:
                return None
            out.append(i)
        elif t is int:
            out.append(_clamp_int(i, shape[axis]))
        elif (t is Array or t is np.ndarray or isinstance(i, np.integer)) and i.dtype.kind == "i":
            i = i._value if t is Array else i
            if i.ndim:
                has_array = True
                out.append(np.clip(np.where(i < 0, i + shape[axis], i), 0, shape[axis] - 1))
            else:
                out.append(_clamp_int(int(i), shape[axis]))
        else:
            return None
        axis += 1
    if axis > len(shape) or (has_array and has_gap):
        return None
    try:
        return Array(np.asarray(value[tuple(out)]), arr._weak_type)
    except IndexError:  # index arrays that do not broadcast: JAX's own error, the long way
        return None


def _is_int_or_none(e: Any) -> bool:
    return e is None or type(e) is int


def _clamp_int(i: int, size: int) -> int:
    """Negative counts from the end; then clamp into [0, size - 1] like the gather does."""
    if i < 0:
        i += size
        return i if i > 0 else 0
    return i if i < size else size - 1


def getitem(arr: Any, idx: Any) -> Any:
    """``arr[idx]`` with JAX's semantics (Array.__getitem__ and Tracer.__getitem__)."""
    if type(arr) is Array and type(core.current_trace()) is core.EvalTrace:
        if _on_several_devices(arr):
            return _take_on_devices(arr, idx)
        result = _numpy_fast_path(arr, idx)
        if result is not None:
            return result
    return rewriting_take(arr, idx)


def _on_several_devices(arr: Array) -> bool:
    return arr._sharding is not None and len(arr._sharding.device_set) > 1


def _take_on_devices(arr: Array, idx: Any) -> Any:
    """Eager ``x[1]`` of an array laid out on several devices is a gather, as in JAX (whose
    slice rule does not yet know how to cut a block): its sharding rule asks that the
    dimensions it cuts into be whole. Indexing that cuts nothing (``x[:]``) stays a slice."""
    indexer = NDIndexer.from_raw_indices(idx, np.shape(arr))
    if not _cuts(indexer):
        return rewriting_take(arr, idx)
    return _gather(arr, indexer.expand_bool_indices(), indices_are_sorted=False,
                   unique_indices=False, mode=None, fill_value=None, normalize_indices=True)


def _cuts(indexer: NDIndexer) -> bool:
    """Whether an index takes part of some axis (JAX's ``has_partial_slices``)."""
    for i in indexer.indices:
        if i.kind in (IndexKind.INTEGER, IndexKind.ARRAY, IndexKind.BOOLEAN):
            return True
        if i.kind == IndexKind.SLICE:
            start, stop, step = i.index.indices(indexer.shape[i.axes[0]])
            if abs(step) != 1 or abs(stop - start) != indexer.shape[i.axes[0]]:
                return True
    return False


def rewriting_take(arr: Any, idx: Any, *, indices_are_sorted: bool = False,
                   unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
                   fill_value: Any = None, normalize_indices: bool = True) -> Any:
    """``arr[idx]`` as lax operations: a static slice, else a dynamic slice, else a gather."""
    indexer = NDIndexer.from_raw_indices(idx, np.shape(arr))
    plan = _to_static_slice(indexer, _parse_mode(mode), normalize_indices)
    if plan is not None:
        return _static_slice(arr, plan)
    dynamic_plan = _to_dynamic_slice(indexer, mode)
    if dynamic_plan is not None:
        return _dynamic_slice(arr, dynamic_plan, normalize_indices)
    return _gather(arr, indexer.expand_bool_indices(), indices_are_sorted=indices_are_sorted,
                   unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                   normalize_indices=normalize_indices)


# ================================================================ x.at[idx].op(y)


def _scatter_update(x: Any, idx: Any, y: Any, scatter_op: Callable, indices_are_sorted: bool,
                    unique_indices: bool, mode: str | GatherScatterMode | None = None,
                    normalize_indices: bool = True) -> Any:
    """The value ``x`` would have after ``x[idx] op= y``, computed without mutation.

    The gather that would read ``x[idx]`` is built, then run backwards as a scatter:
    y is broadcast to the shape of ``x[idx]``, None axes are squeezed out of it and
    negative-step slices reversed, so every update lands where x[idx] read from.
    """
    dtype, weak_type = dtypes.dtype_and_weak(x)
    indexer = NDIndexer.from_raw_indices(idx, np.shape(x)).expand_bool_indices()
    _warn_unsafe_cast(y, dtype)
    plan = _index_to_gather(indexer, normalize_indices)
    if 0 in plan.slice_shape:
        return x
    x, y = util.promote_dtypes(x, y)
    y = _broadcast_to(y, tuple(plan.slice_shape))
    if plan.newaxis_dims:
        y = lax.squeeze(y, plan.newaxis_dims)
    if plan.reversed_y_dims:
        y = lax.rev(y, plan.reversed_y_dims)
    x = _expand_dims(x, plan.scalar_bool_dims)
    dnums = slicing.ScatterDimensionNumbers(
        update_window_dims=plan.dnums.offset_dims,
        inserted_window_dims=plan.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=plan.dnums.start_index_map,
        operand_batching_dims=plan.dnums.operand_batching_dims,
        scatter_indices_batching_dims=plan.dnums.start_indices_batching_dims)
    out = scatter_op(x, plan.gather_indices, y, dnums,
                     indices_are_sorted=plan.indices_are_sorted or indices_are_sorted,
                     unique_indices=plan.unique_indices or unique_indices, mode=mode)
    if plan.scalar_bool_dims:
        out = lax.squeeze(out, plan.scalar_bool_dims)
    return lax._convert_element_type(out, dtype, weak_type)


def _update_values(y: Any, dtype: np.dtype) -> Any:
    """``jnp.asarray(y)``, except that a Python int that fits takes x's integer dtype.

    Scalars stay NumPy or Python scalars, so that a jaxpr shows them as literals.
    """
    if isinstance(y, int) and dtype.kind in "iu" and \
            np.iinfo(dtype).min <= y <= np.iinfo(dtype).max:
        return np.asarray(y, dtype)[()]
    if isinstance(y, (Array, core.Tracer)) or type(y) in dtypes.python_scalar_types:
        return y
    value = np.asarray(y)
    value = value.astype(dtypes.canonicalize_dtype(value.dtype))
    return value[()] if value.ndim == 0 else value


def _warn_unsafe_cast(y: Any, dtype: np.dtype) -> None:
    """JAX warns (and will one day refuse) when the update cannot be cast safely to x's dtype."""
    y_dtype = _dtype(y)
    if y_dtype != dtype and dtypes.result_type(y, dtype) != dtype:
        warnings.warn("scatter inputs have incompatible types: cannot safely cast value from "
                      f"dtype={y_dtype} to dtype={dtype} with "
                      "jax_numpy_dtype_promotion=standard. In future JAX releases this will "
                      "result in an error.", FutureWarning, stacklevel=5)


class _IndexUpdateHelper:
    """The ``x.at`` property: ``x.at[idx]`` names the elements that an update will touch.

    ``x.at[idx].set(y)`` is the functional form of ``x[idx] = y``: it returns a
    new array and leaves ``x`` alone. The methods: set, add, subtract, multiply
    (mul), divide, power, min, max, apply, get. Repeated indices all apply (unlike
    NumPy's ``x[idx] += y``). Out-of-bounds updates are dropped and out-of-bounds
    reads clamped, unless ``mode`` says otherwise ("clip", "drop"/"fill",
    "promise_in_bounds"); ``get(mode="fill", fill_value=v)`` reads ``v`` out of bounds.
    """

    __slots__ = ("array",)

    def __init__(self, array: Any):
        self.array = array

    def __getitem__(self, index: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


IndexUpdateHelper = _IndexUpdateHelper


class _IndexUpdateRef:
    """``x.at[idx]``: an array and an index, waiting for an update method."""

    __slots__ = ("array", "index")

    def __init__(self, array: Any, index: Any):
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def _update(self, values: Any, scatter_op: Callable, indices_are_sorted: bool,
                unique_indices: bool, mode, wrap_negative_indices: bool,
                array: Any = None) -> Any:
        array = self.array if array is None else array
        values = _update_values(values, dtypes.dtype_and_weak(array)[0])
        return _scatter_update(array, self.index, values, scatter_op, indices_are_sorted,
                               unique_indices, mode=mode,
                               normalize_indices=wrap_negative_indices)

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | GatherScatterMode | None = None, fill_value: Any = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[idx]``, with the options of a gather (``mode="fill"`` reads fill_value
        out of bounds)."""
        return rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                              normalize_indices=wrap_negative_indices)

    def set(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[idx] = values``."""
        return self._update(values, slicing.scatter, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices)

    def add(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[idx] += values`` (every repeated index adds)."""
        return self._update(values, slicing.scatter_add, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    def subtract(self, values: Any, *, indices_are_sorted: bool = False,
                 unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
                 wrap_negative_indices: bool = True) -> Any:
        """``x[idx] -= values``."""
        return self._update(values, slicing.scatter_sub, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    def multiply(self, values: Any, *, indices_are_sorted: bool = False,
                 unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
                 wrap_negative_indices: bool = True) -> Any:
        """``x[idx] *= values``."""
        return self._update(values, slicing.scatter_mul, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    mul = multiply

    def divide(self, values: Any, *, indices_are_sorted: bool = False,
               unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
               wrap_negative_indices: bool = True) -> Any:
        """``x[idx] /= values``: x divided by (ones with ``values`` multiplied in at idx)."""
        divisors = self._update(values, slicing.scatter_mul, indices_are_sorted,
                                unique_indices, mode, wrap_negative_indices,
                                array=_full_like(self.array, 1, np.shape(self.array)))
        return ufuncs.divide(self.array, divisors)

    def power(self, values: Any, *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
              wrap_negative_indices: bool = True) -> Any:
        """``x[idx] **= values``: x to the power (ones with ``values`` multiplied in at idx)."""
        exponents = self._update(values, slicing.scatter_mul, indices_are_sorted,
                                 unique_indices, mode, wrap_negative_indices,
                                 array=_full_like(self.array, 1, np.shape(self.array)))
        return ufuncs.power(self.array, exponents)

    def min(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[idx] = minimum(x[idx], values)``."""
        return self._update(values, slicing.scatter_min, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    def max(self, values: Any, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[idx] = maximum(x[idx], values)``."""
        return self._update(values, slicing.scatter_max, indices_are_sorted, unique_indices,
                            mode, wrap_negative_indices)

    def apply(self, func: Callable, *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode: str | GatherScatterMode | None = None,
              wrap_negative_indices: bool = True) -> Any:
        """``func.at(x, idx)`` for a unary ``func``: a repeated index applies func again."""
        def scatter_apply(x, indices, y, dnums, **kwargs):
            return slicing.scatter_apply(x, indices, func, dnums, update_shape=np.shape(y),
                                         **kwargs)
        dtype, weak = dtypes.dtype_and_weak(self.array)
        zero = lax._convert_element_type(0, dtype, weak)  # (not an int: keeps its weak type)
        return _scatter_update(self.array, self.index, zero, scatter_apply, indices_are_sorted,
                               unique_indices, mode=mode,
                               normalize_indices=wrap_negative_indices)
