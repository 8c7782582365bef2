"""Making arrays: array/asarray, zeros/ones/full, arange, linspace, eye.

``jnp.array`` copies data into an immutable Array of a canonical dtype. Python
scalars keep a *weak* type (``jnp.array(3)`` is a weak int32); lists of arrays
or tracers are stacked, so ``jnp.array([x[0], x[1]])`` works under tracing.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core, dtypes, lax
from edujax.array import Array
from edujax.numpy.util import asarray as _asarray


def _explicit_dtype(dtype: Any) -> np.dtype | None:
    return None if dtype is None else dtypes.canonicalize_dtype(dtype)


def array(object: Any, dtype: Any = None, copy: bool = True, order: str | None = None,
          ndmin: int = 0) -> Any:
    """Create an array from ``object`` (an array, a scalar, or nested lists/tuples)."""
    dtype = _explicit_dtype(dtype)
    if isinstance(object, (Array, core.Tracer)):
        out = object if dtype is None else lax._convert_element_type(object, dtype, False)
    elif type(object) in dtypes.python_scalar_types:
        weak = dtype is None and type(object) is not bool
        out = Array(np.asarray(object, dtype or dtypes.default_dtype(type(object))), weak)
    elif isinstance(object, (list, tuple)) and _contains_traced(object):
        out = _stack_nested(object, dtype)
    else:
        out = _from_python_data(object, dtype)
    if ndmin > np.ndim(out):
        out = lax.broadcast_to_rank(out, ndmin)
    return out


def _contains_traced(obj: Any) -> bool:
    if isinstance(obj, (list, tuple)):
        return any(_contains_traced(o) for o in obj)
    return isinstance(obj, (Array, core.Tracer))


def _stack_nested(obj: Any, dtype: np.dtype | None) -> Any:
    """[a, b, ...] holding arrays or tracers: convert each, promote, then stack."""
    from edujax.numpy.shape_ops import stack
    if isinstance(obj, (list, tuple)):
        if not obj:
            return Array(np.zeros((0,), dtype or dtypes.float_dtype()))
        parts = [_stack_nested(o, dtype) for o in obj]
        return stack(parts)
    return array(obj, dtype)


def _from_python_data(obj: Any, dtype: np.dtype | None) -> Array:
    if obj is None or (isinstance(obj, (list, tuple)) and _contains_none(obj)):
        raise TypeError("None is not a valid value for jnp.array")
    if dtype is None:
        leaves = np.asarray(obj)
        if leaves.dtype == object:
            raise TypeError(f"Value {obj!r} with dtype object is not a valid JAX array type. "
                            "Only arrays of numeric types are supported by JAX.")
        dtype = _python_data_dtype(obj, leaves)
    return Array(np.array(obj, dtype=dtype))


def _contains_none(obj: Any) -> bool:
    return obj is None or (isinstance(obj, (list, tuple)) and any(map(_contains_none, obj)))


def _python_data_dtype(obj: Any, as_numpy: np.ndarray) -> np.dtype:
    """Python numbers in lists promote weakly: [1, 2.5] is float32, not float64."""
    if isinstance(obj, (np.ndarray, np.generic)):
        return dtypes.canonicalize_dtype(obj.dtype)
    kind = as_numpy.dtype.kind
    if kind in "iu" and as_numpy.dtype.itemsize == 8 and not isinstance(obj, (list, tuple)):
        return dtypes.canonicalize_dtype(as_numpy.dtype)
    if kind == "b":
        return dtypes.bool_
    if kind in "iu":
        return dtypes.int_dtype() if as_numpy.dtype.itemsize >= 8 else \
            dtypes.canonicalize_dtype(as_numpy.dtype)
    return dtypes.canonicalize_dtype(as_numpy.dtype)


def asarray(a: Any, dtype: Any = None, order: str | None = None, copy: bool | None = None) -> Any:
    """Like ``array``, but an Array of the right dtype is returned as is."""
    if dtype is None and isinstance(a, (Array, core.Tracer)):
        return a
    return array(a, dtype=dtype, copy=False)


def _shape(shape: Any) -> tuple[int, ...]:
    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    for d in shape:
        if isinstance(d, core.Tracer):
            from edujax.errors import ConcretizationTypeError
            raise ConcretizationTypeError(d, "The shape argument must be concrete.\n")
        if int(d) < 0:
            raise ValueError(f"negative dimensions are not allowed, got shape {shape}")
    return tuple(int(d) for d in shape)


def zeros(shape: Any, dtype: Any = None) -> Any:
    return lax.full(_shape(shape), 0, _explicit_dtype(dtype) or dtypes.float_dtype())


def ones(shape: Any, dtype: Any = None) -> Any:
    return lax.full(_shape(shape), 1, _explicit_dtype(dtype) or dtypes.float_dtype())


empty = zeros


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    shape = _shape(shape)
    if np.ndim(fill_value):
        from edujax.numpy.shape_ops import broadcast_to
        return broadcast_to(asarray(fill_value, dtype), shape)
    return lax.full(shape, fill_value, _explicit_dtype(dtype))


def zeros_like(a: Any, dtype: Any = None, shape: Any = None) -> Any:
    return lax.full_like(_asarray(a), 0, _explicit_dtype(dtype), shape)


def ones_like(a: Any, dtype: Any = None, shape: Any = None) -> Any:
    return lax.full_like(_asarray(a), 1, _explicit_dtype(dtype), shape)


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
    return lax.full_like(_asarray(a), fill_value, _explicit_dtype(dtype), shape)


empty_like = zeros_like


def _concrete(x: Any, name: str) -> Any:
    if isinstance(x, core.Tracer):
        value = x.to_concrete_value()
        if value is None:
            from edujax.errors import ConcretizationTypeError
            raise ConcretizationTypeError(x, f"It arose in the jnp.arange argument '{name}'.\n")
        return value
    return x._value if isinstance(x, Array) else x


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    """Evenly spaced values. The bounds must be concrete: the length is part of the shape."""
    start = _concrete(start, "start")
    stop = None if stop is None else _concrete(stop, "stop")
    step = None if step is None else _concrete(step, "step")
    dtype = _explicit_dtype(dtype) or dtypes.result_type(
        *(v for v in (start, stop, step) if v is not None))
    if stop is None and step is None:
        return lax.iota(dtype, max(int(np.ceil(start)), 0))
    return Array(np.arange(start, stop, step, dtype=dtype))


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0) -> Any:
    """``num`` evenly spaced samples from start to stop, computed as JAX computes them:
    ``start * (1 - t) + stop * t`` with ``t = i / (num - 1)``, and stop itself at the end."""
    num = int(_concrete(num, "num"))
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dtype = _explicit_dtype(dtype) or dtypes.result_type(start, stop, float)
    compute = dtype if dtype.kind in "fc" else dtypes.float_dtype()
    start = lax._convert_element_type(_asarray(start), compute, False)
    stop = lax._convert_element_type(_asarray(stop), compute, False)
    div = (num - 1) if endpoint else num
    if num > 1:
        t = lax.div(lax.iota(compute, num), lax._convert_element_type(div, compute, False))
        one = lax._convert_element_type(1, compute, False)
        out = lax.add(lax.mul(start, lax.sub(one, t)), lax.mul(stop, t))
        if endpoint:
            out = lax.concatenate([lax.slice(out, (0,), (num - 1,)), lax.broadcast(stop, (1,))], 0)
    elif num == 1:
        out = lax.broadcast(start, (1,))
    else:
        out = lax.full((0,), 0, compute)
    out = lax._convert_element_type(out, dtype, False)
    if retstep:
        step = lax.div(lax.sub(stop, start), lax._convert_element_type(div, compute, False)) \
            if div > 0 else lax.full((), np.nan, compute)
        return out, step
    return out


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """The identity matrix (ones on the k-th diagonal), built from two iotas."""
    M = N if M is None else M
    dtype = _explicit_dtype(dtype) or dtypes.float_dtype()
    rows = lax.broadcasted_iota(dtypes.int_dtype(), (N, M), 0)
    cols = lax.broadcasted_iota(dtypes.int_dtype(), (N, M), 1)
    shifted = lax.add(rows, lax._convert_element_type(k, dtypes.int_dtype(), False)) if k else rows
    return lax._convert_element_type(lax.eq(shifted, cols), dtype, False)


def identity(n: int, dtype: Any = None) -> Any:
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """Ones at and below the k-th diagonal."""
    M = N if M is None else M
    rows = lax.broadcasted_iota(dtypes.int_dtype(), (N, M), 0)
    cols = lax.broadcasted_iota(dtypes.int_dtype(), (N, M), 1)
    mask = lax.ge(lax.add(rows, lax._convert_element_type(k, dtypes.int_dtype(), False)), cols)
    return lax._convert_element_type(mask, _explicit_dtype(dtype) or dtypes.float_dtype(), False)


def meshgrid(*xi: Any, indexing: str = "xy", copy: bool = True, sparse: bool = False) -> list:
    from edujax.numpy.shape_ops import broadcast_to, reshape
    arrays = [_asarray(x) for x in xi]
    shape = [a.shape[0] if a.ndim else 1 for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        dim = (1 - i if i < 2 else i) if indexing == "xy" and len(arrays) > 1 else i
        view = [1] * len(arrays)
        view[dim] = -1
        a = reshape(a, view)
        out.append(a if sparse else broadcast_to(a, shape))
    return out


__all__ = ["array", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
           "full_like", "empty_like", "arange", "linspace", "eye", "identity", "tri", "meshgrid"]
