"""How jax.numpy prepares arguments before calling lax: check, promote dtypes, promote ranks.

``jnp.add(x, y)`` is ``lax.add(*promote_args("add", x, y))``:

1. ``check_arraylike``: only arrays and scalars are accepted. A Python list is
   rejected (JAX will not silently copy a list into an array on every call).
2. ``promote_dtypes``: convert every argument to the lattice's result dtype.
3. ``promote_shapes``: NumPy rank promotion, done with ``broadcast_in_dim``;
   lax itself then stretches size-1 dimensions.

It also holds the shape helpers every other module of jax.numpy needs (``canonicalize_shape``,
``broadcast_to``): this module is the bottom of ``edujax/numpy``, and imports none of the others.
"""
from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from edujax import core, dtypes, lax
from edujax.array import Array
from edujax.config import config

_arraylike_types = (Array, core.Tracer, np.ndarray, np.generic, bool, int, float, complex)


def is_arraylike(x: Any) -> bool:
    return isinstance(x, _arraylike_types)


def check_arraylike(fun_name: str, *args: Any) -> None:
    for pos, arg in enumerate(args):
        if not isinstance(arg, _arraylike_types):
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got {type(arg)} "
                            f"at position {pos}.")


def ensure_arraylike(fun_name: str, *args: Any) -> list:
    """Check the arguments, and give NumPy values a canonical dtype: arrays become
    edujax Arrays, scalars NumPy scalars (a jaxpr shows those as literals).

    Python scalars are kept as they are: lax treats them as weakly typed 0-d arrays.
    """
    check_arraylike(fun_name, *args)
    return [_canonical(a) for a in args]


def _canonical(x: Any) -> Any:
    if isinstance(x, np.ndarray) and x.ndim:
        return asarray(x)
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x, dtypes.canonicalize_dtype(x.dtype))[()]
    return x


def asarray(x: Any) -> Any:
    """An Array (or tracer) for ``x``; Python scalars keep their weak type."""
    if isinstance(x, (Array, core.Tracer)):
        return x
    if type(x) in dtypes.python_scalar_types:
        dtype, weak = dtypes.default_dtype(type(x)), type(x) is not bool
        if not core.at_top_level():
            # While tracing, a Python scalar becomes a literal tracer, as in JAX (the
            # staging trace folds the cast into a constant written inline: ``9.0:f32[]``).
            return lax.convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak,
                                                   sharding=None)
        return Array(np.asarray(x, dtype), weak)
    value = np.asarray(x)
    return Array(value.astype(dtypes.canonicalize_dtype(value.dtype)), False)


def promote_dtypes(*args: Any) -> list:
    if not args or len(args) == 1 and isinstance(args[0], (Array, core.Tracer)):
        return list(args)  # the common case of a unary function: nothing to promote
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    for i, a in enumerate(args):
        if type(a) is int and dtype.kind in "iu":
            _check_int_fits(a, dtype, "xy"[i] if len(args) == 2 else f"args[{i}]")
    return [lax._convert_element_type(a, dtype, weak) for a in args]


def _check_int_fits(value: int, dtype: np.dtype, path: str) -> None:
    """A Python int must fit the integer dtype it becomes (JAX checks this too)."""
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise OverflowError(
            "An overflow was encountered while parsing an argument to a jitted computation, "
            f"whose argument path is {path}. Got {type(value)} with value {value}\n"
            f"Hint: {value} does not fit in {dtype.name}; use a smaller value or enable x64.")


def _to_inexact(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind in "fc" else dtypes.float_dtype()


def promote_dtypes_inexact(*args: Any) -> list:
    """Like promote_dtypes, but integers and bools become the default float (for sqrt, /, ...)."""
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [lax._convert_element_type(a, _to_inexact(dtype), weak) for a in args]


def promote_dtypes_numeric(*args: Any) -> list:
    """Like promote_dtypes, but bool becomes int32 (for sum, cumsum, ...)."""
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    if dtype == dtypes.bool_:
        dtype = dtypes.int_dtype()
    return [lax._convert_element_type(a, dtype, weak) for a in args]


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy's broadcasting of shapes, with JAX's error message."""
    if shapes and all(s == shapes[0] for s in shapes[1:]):
        return tuple(shapes[0])  # the common case: nothing to broadcast
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for dims in zip(*((1,) * (ndim - len(s)) + tuple(s) for s in shapes)):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def promote_shapes(fun_name: str, *args: Any) -> list:
    """Give every argument the same rank (scalars are left alone: lax accepts them)."""
    if len(args) < 2:
        return list(args)
    shapes = [getattr(a, "shape", ()) for a in args]  # Python scalars have shape ()
    if all(len(s) == len(shapes[0]) for s in shapes[1:]):
        return list(args)  # lax stretches size-1 dimensions (or raises its own error)
    if len({len(s) for s in shapes if s}) < 2:
        return list(args)  # only scalars differ in rank: lax accepts those too
    if config.read("jax_numpy_rank_promotion") != "allow":
        _rank_promotion_warning_or_error(fun_name, shapes)
    rank = len(broadcast_shapes(*shapes))
    return [lax.broadcast_to_rank(a, rank) for a in args]


def _rank_promotion_warning_or_error(fun_name: str, shapes: list) -> None:
    """``jax_numpy_rank_promotion``: (3,) + (2, 3) stretches the first array to (1, 3) as
    NumPy does; "warn" says so, "raise" refuses (a common source of silent bugs)."""
    shown = " ".join(map(str, shapes))
    if config.read("jax_numpy_rank_promotion") == "warn":
        warnings.warn(f"Following NumPy automatic rank promotion for {fun_name} on shapes "
                      f"{shown}. Set the jax_numpy_rank_promotion config option to 'allow' to "
                      "disable this warning; for more information, see "
                      "https://docs.jax.dev/en/latest/rank_promotion_warning.html.",
                      stacklevel=4)
    else:
        raise ValueError(f"Operands could not be broadcast together for {fun_name} on shapes "
                         f"{shown} and with the config option jax_numpy_rank_promotion='raise'. "
                         "For more information, see "
                         "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")


def promote_args(fun_name: str, *args: Any) -> list:
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(*args))


def promote_args_inexact(fun_name: str, *args: Any) -> list:
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args: Any) -> list:
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def canonicalize_axis(axis: int, ndim: int) -> int:
    """A non-negative axis, or JAX's ValueError for an axis out of range."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else 0


# ---------------------------------------------------------------- shapes
def ensure_array(name: str, a: Any) -> Any:
    """Check ``a`` and make it an Array or tracer (a Python scalar becomes a weak 0-d array)."""
    check_arraylike(name, a)
    return asarray(a)


def index_tuple(x: Any) -> tuple[int, ...]:
    """An int, or a sequence of ints, as a tuple of ints."""
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(operator.index(i) for i in x)


def canonicalize_shape(shape: Any) -> tuple[int, ...]:
    """A shape given as an int or a sequence of ints, as a tuple of Python ints.

    A traced size (``jnp.ones((n,))`` with ``n`` an argument of a jitted function) is not
    allowed: shapes are part of the abstract value, fixed while tracing. JAX says so with a
    TypeError that shows the tracer, and so do we.
    """
    if isinstance(shape, core.Tracer) or (
            not isinstance(shape, (tuple, list)) and np.ndim(shape) == 0):
        shape = (shape,)
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {tuple(shape)}.") from None


def broadcast_to(array: Any, shape: Any) -> Any:
    """``array`` repeated along new leading axes and stretched along its size-1 axes.

    A Python or NumPy scalar stays a constant (``lax.asarray``), so that a traced program
    broadcasts it as a literal (``broadcast_in_dim 0.0:f32[]``), as JAX's does."""
    check_arraylike("broadcast_to", array)
    scalar = type(array) in dtypes.python_scalar_types or isinstance(array, np.generic)
    a = lax.asarray(array) if scalar else asarray(array)
    shape = canonicalize_shape(shape)
    a_shape = np.shape(a)
    if a_shape == shape:
        return asarray(a)
    if len(shape) < len(a_shape):
        raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                         f"arr_shape={a_shape} shape={shape}")
    lead = len(shape) - len(a_shape)
    if any(d not in (1, s) for d, s in zip(a_shape, shape[lead:])):
        aval = core.get_aval(a)
        requested = core.ShapedArray(shape, aval.dtype).str_short()
        raise ValueError("Incompatible types for broadcasting: input type="
                         f"{aval.str_short()} and requested type={requested}")
    return lax.broadcast_in_dim(a, shape, range(lead, len(shape)))
