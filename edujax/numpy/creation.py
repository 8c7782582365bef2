"""Making arrays: array/asarray, zeros/ones/full, arange, linspace, eye, tri, meshgrid.

``jnp.array`` copies data into an immutable Array of a canonical dtype. Python
scalars keep a *weak* type (``jnp.array(3)`` is a weak int32); lists of arrays
or tracers are stacked, so ``jnp.array([x[0], x[1]])`` works under tracing.

arange, linspace and eye are computed with lax (an ``iota`` and a little
arithmetic), as in JAX, so inside a traced function they appear in the jaxpr.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core, dtypes, lax, nan_checks
from edujax.array import Array
from edujax.errors import ConcretizationTypeError
from edujax.inner_jit import inner_jit
from edujax.lax.reshard import reshard
from edujax.numpy.ufuncs import add, equal
from edujax.sharding.named_sharding import as_named_sharding
from edujax.numpy.util import broadcast_to, canonicalize_shape, check_arraylike


def _explicit_dtype(dtype: Any) -> np.dtype | None:
    return None if dtype is None else dtypes.canonicalize_dtype(dtype)


def _is_weakly_typed(x: Any) -> bool:
    return type(x) in (int, float, complex) or bool(getattr(x, "weak_type", False))


# ---------------------------------------------------------------- array / asarray
def array(object: Any, dtype: Any = None, copy: bool = True, order: str | None = None,
          ndmin: int = 0) -> Any:
    """Create an array from ``object``: an array, a scalar, or nested lists/tuples.

    Only a weakly typed input gives a weakly typed array (``jnp.array(3)``), so
    ``jnp.array([1, 2])`` is a plain int32 array.
    """
    if order is not None and order != "K":
        raise NotImplementedError("Only implemented for order='K'")
    dtype = _explicit_dtype(dtype)
    if isinstance(object, range):  # jnp.array(range(3)), as a list of Python ints
        object = list(object)
    weak = dtype is None and _is_weakly_typed(object)
    if isinstance(object, (Array, core.Tracer)):
        out = lax._array_copy(object) if copy else object  # a ``copy`` equation, as in JAX
        out = out if dtype is None else lax._convert_element_type(out, dtype, False)
    elif isinstance(object, (list, tuple)) and _contains_traced(object):
        out = _stack_nested(object, dtype)
    else:
        out = Array(_to_numpy(object, dtype), weak)
        if nan_checks.CHECKING and core.at_top_level():
            # JAX converts with convert_element_type, which it checks
            nan_checks.check_constant([out])
        if not out.shape and not core.at_top_level():
            # While tracing, a scalar made here is a literal tracer, as in JAX: cast it, and
            # the staging trace folds the cast into a constant it writes inline (``2:i32[]``).
            # (a Python scalar is passed as itself: 0.3 then prints as 0.3, as in JAX)
            value = object if type(object) in dtypes.python_scalar_types else out._value[()]
            out = lax.convert_element_type_p.bind(value, new_dtype=out.dtype,
                                                  weak_type=weak, sharding=None)
        elif not core.at_top_level():
            # While tracing, an array made here is staged at once (JAX's convert_element_type
            # or lax.stage lifts it into the trace): its constvar comes where it was made.
            out = lax.stage(out)
    if ndmin > np.ndim(out):
        out = lax.expand_dims(out, tuple(range(ndmin - np.ndim(out))))
    return out


def _to_numpy(obj: Any, dtype: np.dtype | None) -> np.ndarray:
    """Concrete data (Python scalars, nested lists, NumPy values) as a NumPy array of
    the dtype JAX would pick: Python numbers promote weakly, so [1, 2.5] is float32."""
    if obj is None or (isinstance(obj, (list, tuple)) and _contains_none(obj)):
        raise ValueError("None is not a valid value for jnp.array")
    if type(obj) is int and dtype is None:
        _check_int_fits(obj, dtypes.int_dtype())
    if dtype is None:
        dtype = _data_dtype(obj)
    return np.asarray(obj, dtype=dtype)


def _check_int_fits(value: int, dtype: np.dtype) -> None:
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise OverflowError(f"Python int {value} too large to convert to {dtype.name}")


def _data_dtype(obj: Any) -> np.dtype:
    """The canonical result type of all the leaves of ``obj``, as jnp.result_type
    would compute it (weak Python scalars give way to NumPy values)."""
    leaves = _leaves(obj)
    if not leaves:
        return dtypes.float_dtype()
    for leaf in leaves:
        if not isinstance(leaf, (bool, int, float, complex, np.generic, np.ndarray)):
            kind = np.asarray(leaf).dtype
            raise TypeError(f"Value {obj!r} with dtype {kind} is not a valid JAX array type. "
                            "Only arrays of numeric types are supported by JAX.")
        if isinstance(leaf, (np.generic, np.ndarray)) and leaf.dtype.kind not in "biufc":
            raise TypeError(f"Value {obj!r} with dtype {leaf.dtype} is not a valid JAX array "
                            "type. Only arrays of numeric types are supported by JAX.")
    return dtypes.result_type(*leaves)


def _leaves(obj: Any) -> list:
    if isinstance(obj, (list, tuple)):
        return [leaf for item in obj for leaf in _leaves(item)]
    return [obj]


def _contains_traced(obj: Any) -> bool:
    if isinstance(obj, (list, tuple)):
        return any(_contains_traced(o) for o in obj)
    return isinstance(obj, (Array, core.Tracer))


def _contains_none(obj: Any) -> bool:
    return obj is None or (isinstance(obj, (list, tuple)) and any(map(_contains_none, obj)))


def _stack_nested(obj: Any, dtype: np.dtype | None) -> Any:
    """A list holding arrays or tracers: give every element the common dtype, add a
    leading axis to each, and concatenate (as JAX does, rather than ``stack``)."""
    if dtype is None:
        dtype = dtypes.result_type(*_leaves(obj))
    if isinstance(obj, (list, tuple)):
        if not obj:
            return Array(np.zeros((0,), dtype))
        parts = [lax.expand_dims(_stack_nested(o, dtype), (0,)) for o in obj]
        return lax.concatenate(parts, 0)
    return array(obj, dtype, copy=False)


def asarray(a: Any, dtype: Any = None, order: str | None = None, copy: bool | None = None) -> Any:
    """Like ``array``, but an array that already has the dtype is returned as it is."""
    if dtype is None and isinstance(a, (Array, core.Tracer)):
        return a
    return array(a, dtype=dtype, copy=bool(copy), order=order)


# ---------------------------------------------------------------- filled arrays
def _check_forgot_shape_tuple(name: str, shape: Any, dtype: Any) -> None:
    if isinstance(dtype, int) and isinstance(shape, int):
        raise TypeError(f"Cannot interpret '{dtype}' as a data type.\n\nDid you accidentally "
                        f"write `jax.numpy.{name}({shape}, {dtype})` when you meant "
                        f"`jax.numpy.{name}(({shape}, {dtype}))`, i.e. with a single tuple "
                        "argument for the shape?")


def zeros(shape: Any, dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """An array of zeros (float32 unless ``dtype`` says otherwise)."""
    _check_forgot_shape_tuple("zeros", shape, dtype)
    return _laid_out(lax.full(canonicalize_shape(shape), 0,
                              _explicit_dtype(dtype) or dtypes.float_dtype()), out_sharding)


def ones(shape: Any, dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """An array of ones (float32 unless ``dtype`` says otherwise)."""
    _check_forgot_shape_tuple("ones", shape, dtype)
    return _laid_out(lax.full(canonicalize_shape(shape), 1,
                              _explicit_dtype(dtype) or dtypes.float_dtype()), out_sharding)


def _laid_out(x: Any, out_sharding: Any) -> Any:
    """``x`` laid out over a mesh as ``out_sharding`` says (a NamedSharding, or under
    ``set_mesh`` a PartitionSpec); None: as it is."""
    if out_sharding is None:
        return x
    return reshard(x, as_named_sharding(out_sharding))


def empty(shape: Any, dtype: Any = None) -> Any:
    """Like ``zeros``: edujax arrays are immutable, so "uninitialized" means zeros."""
    _check_forgot_shape_tuple("empty", shape, dtype)
    return zeros(shape, dtype)


def full(shape: Any, fill_value: Any, dtype: Any = None, *, out_sharding: Any = None) -> Any:
    """An array of ``fill_value``; without ``dtype`` it takes the fill's dtype and weak
    type (``jnp.full(2, 3.0)`` is weak). An array fill is broadcast to ``shape``."""
    dtype = _explicit_dtype(dtype)
    check_arraylike("full", fill_value)
    if np.ndim(fill_value) == 0:
        return _laid_out(lax.full(canonicalize_shape(shape), fill_value, dtype), out_sharding)
    return _laid_out(broadcast_to(asarray(fill_value, dtype=dtype), shape), out_sharding)


def _like(name: str, a: Any, fill_value: Any, dtype: Any, shape: Any) -> Any:
    """zeros_like & co: shape, dtype and weak type of ``a`` unless told otherwise."""
    if not (hasattr(a, "dtype") and hasattr(a, "shape")):
        check_arraylike(name, a)
    dtype = _explicit_dtype(dtype)
    shape = None if shape is None else canonicalize_shape(shape)
    return lax.full_like(a, fill_value, dtype, shape)


def zeros_like(a: Any, dtype: Any = None, shape: Any = None) -> Any:
    return _like("zeros_like", a, 0, dtype, shape)


def ones_like(a: Any, dtype: Any = None, shape: Any = None) -> Any:
    return _like("ones_like", a, 1, dtype, shape)


def empty_like(prototype: Any, dtype: Any = None, shape: Any = None) -> Any:
    return _like("empty_like", prototype, 0, dtype, shape)


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
    if hasattr(a, "dtype") and hasattr(a, "shape"):
        check_arraylike("full_like", 0, fill_value)
    else:
        check_arraylike("full_like", a, fill_value)
    if np.ndim(fill_value) == 0:
        return _like("full_like", a, fill_value, dtype, shape)
    shape = np.shape(a) if shape is None else shape
    dtype = dtypes.result_type(a) if dtype is None else dtype
    return broadcast_to(asarray(fill_value, dtype=dtype), shape)


# ---------------------------------------------------------------- ranges
def _concrete(x: Any, name: str) -> Any:
    """The value of an argument that decides a shape: it must be known while tracing."""
    if isinstance(x, core.Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(x, f"It arose in the jnp.arange argument '{name}'.\n")
        return np.asarray(value)[()]
    if isinstance(x, Array):
        return x._value[()]
    return x


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """Evenly spaced values in [start, stop), computed as ``start + step * iota``.

    The bounds must be concrete: the length is part of the output's shape.
    """
    dtype = _explicit_dtype(dtype)
    _check_arraylike_or_none("arange", start, stop, step)
    if any(np.iscomplexobj(v) for v in (start, stop, step) if v is not None):
        raise ValueError("Passing complex start/stop/step to jnp.arange is no longer supported "
                         "starting in JAX v0.10.0.")
    if start is None:
        raise TypeError("must be real number, not NoneType")
    start_name = "stop" if stop is None and step is None else "start"
    start = _concrete(start, start_name)
    stop = None if stop is None else _concrete(stop, "stop")
    step = None if step is None else _concrete(step, "step")
    for name, value in ((start_name, start), ("stop", stop), ("step", step)):
        if value is not None and np.ndim(value) != 0:
            raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={value}")
    if dtype is None:
        dtype = dtypes.result_type(*(v for v in (start, stop, step) if v is not None))
    if stop is None:
        start, stop = 0, start
    if step is not None:
        working = np.dtype(np.float32) if dtype == np.float16 else dtype
        size = max(0, int(np.ceil((stop - start) / step)))
        ramp = lax.mul(lax.convert_element_type(step, working),
                       lax.broadcasted_iota(working, (size,), 0))
        return lax.convert_element_type(
            lax.add(lax.convert_element_type(start, working), ramp), dtype)
    if start == 0:
        return lax.broadcasted_iota(dtype, (max(0, int(np.ceil(stop))),), 0)
    size = max(0, int(np.ceil(stop - start)))
    return lax.add(lax.convert_element_type(start, dtype),
                   lax.broadcasted_iota(dtype, (size,), 0))


def _check_arraylike_or_none(name: str, *args: Any) -> None:
    for pos, arg in enumerate(args):
        if arg is not None:
            try:
                check_arraylike(name, arg)
            except TypeError:
                raise TypeError(f"{name} requires ndarray, scalar, or None arguments, got "
                                f"{type(arg)} at position {pos}.") from None


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0) -> Any:
    """``num`` evenly spaced samples from start to stop, computed as JAX computes them:
    ``start * (1 - t) + stop * t`` with ``t = i / div``, then ``stop`` itself appended
    when ``endpoint`` (so the last value is exact). Integer dtypes round down.

    ``start`` and ``stop`` may be arrays: the samples run along the new ``axis``.
    """
    num = int(_concrete(num, "num"))
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    check_arraylike("linspace", start, stop)
    return _linspace(start, stop, num, endpoint, retstep, dtype, axis)


@inner_jit(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def _linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
              retstep: bool = False, dtype: Any = None, axis: int = 0) -> Any:
    start, stop = asarray(start), asarray(stop)
    if dtype is None:
        dtype = _to_inexact(dtypes.result_type(start, stop))
    else:
        dtype = dtypes.canonicalize_dtype(dtype)
    computation = _to_inexact(dtype)
    start = lax.convert_element_type(start, computation)
    stop = lax.convert_element_type(stop, computation)
    bounds_shape = list(np.broadcast_shapes(np.shape(start), np.shape(stop)))
    start, stop = broadcast_to(start, bounds_shape), broadcast_to(stop, bounds_shape)
    axis = len(bounds_shape) + axis + 1 if axis < 0 else axis
    bounds_shape.insert(axis, 1)
    div = (num - 1) if endpoint else num
    if num > 1:
        delta = (stop - start) / asarray(div, dtype=computation)
        iota_shape = [1] * len(bounds_shape)
        iota_shape[axis] = div
        t = lax.reshape(lax.iota(computation, div), iota_shape) / asarray(div, dtype=computation)
        out = lax.reshape(start, bounds_shape) * (1 - t) + lax.reshape(stop, bounds_shape) * t
        if endpoint:
            out = lax.concatenate([out, lax.expand_dims(stop, (axis,))], axis)
    elif num == 1:
        delta = asarray(np.nan if endpoint else stop - start, dtype=computation)
        out = lax.reshape(start, bounds_shape)
    else:
        delta = full((), np.nan, computation)
        empty_shape = list(np.broadcast_shapes(np.shape(start), np.shape(stop)))
        empty_shape.insert(axis, 0)
        out = zeros(empty_shape, dtype)
    if dtype.kind in "iu" and out.dtype.kind not in "iu":
        out = lax.floor(out)  # truncating would round negative samples up
    out = lax._convert_element_type(out, dtype, False)
    return (out, delta) if retstep else out


def _to_inexact(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind in "fc" else dtypes.float_dtype()


# ---------------------------------------------------------------- eye, identity, tri
def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """Ones on the k-th diagonal: where ``row + k == column``, compared with two iotas."""
    dtype = _explicit_dtype(dtype) or dtypes.float_dtype()
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        check_arraylike("eye", k)
        if np.shape(k) != () or dtypes.dtype_and_weak(k)[0].kind not in "iu":
            raise ValueError(f"k must be a scalar integer; got {k}")
    n = _dim(N, "argument of 'N' jnp.eye()")
    m = n if M is None else _dim(M, "argument 'M' of jnp.eye()")
    if n < 0 or m < 0:
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    rows = lax.broadcasted_iota(dtypes.int_dtype(), (n, m), 0)
    cols = lax.broadcasted_iota(dtypes.int_dtype(), (n, m), 1)
    return lax.convert_element_type(equal(add(rows, k), cols), dtype)


def _dim(d: Any, context: str) -> int:
    try:
        return canonicalize_shape((d,))[0]
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {(d,)}. {context}.") from None


def identity(n: int, dtype: Any = None) -> Any:
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """Ones at and below the k-th diagonal: where ``row + k >= column``."""
    dtype = _explicit_dtype(dtype) or np.dtype(np.float32)
    M = N if M is None else M
    shape = (int(N), int(M))
    rows = lax.broadcasted_iota(dtypes.int_dtype(), shape, 0)
    rows = lax.add(rows, lax.convert_element_type(k, dtypes.int_dtype()))
    cols = lax.broadcasted_iota(dtypes.int_dtype(), shape, 1)
    below = lax.ge(rows, cols)
    return lax.convert_element_type(below, dtype)


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
    """Coordinate grids: one array per input, each broadcast along the other axes.

    With ``indexing="xy"`` (the default, Matlab's convention) the first two axes are
    swapped: the first input varies along columns.
    """
    check_arraylike("meshgrid", *xi)
    args = [asarray(x) for x in xi]
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if any(np.ndim(a) != 1 for a in args):
        raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[np.shape(a) for a in args]}")
    swap = indexing == "xy" and len(args) >= 2
    if swap:
        args[0], args[1] = args[1], args[0]
    shape = [1 if sparse else np.shape(a)[0] for a in args]
    out = []
    for i, a in enumerate(args):
        a_shape = [*shape[:i], np.shape(a)[0], *shape[i + 1:]] if sparse else shape
        out.append(lax.broadcast_in_dim(a, a_shape, (i,)))
    if swap:
        out[0], out[1] = out[1], out[0]
    return out


__all__ = ["array", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
           "full_like", "empty_like", "arange", "linspace", "eye", "identity", "tri", "meshgrid"]
