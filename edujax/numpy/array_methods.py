"""Operators and methods of arrays, attached to both ``Array`` and ``Tracer``.

Because the very same functions are attached to the concrete Array and to every
tracer, ``x + 1`` or ``x.sum()`` mean the same thing in eager code and inside
``jit``/``grad``: they call jax.numpy, which calls lax, which calls ``bind``.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax import core, lax
from edujax.array import Array
from edujax.numpy import complex_numbers, diagonals, reductions, shape_ops, ufuncs
from edujax.numpy.products import dot, matmul
from edujax.numpy.sorting import argsort, sort
from edujax.numpy.indexing import IndexUpdateHelper, getitem
from edujax.numpy.util import is_arraylike


# Containers are rejected outright (``x + [1, 2]`` is almost always a mistake: JAX will not
# silently turn a list into an array); other unknown types get NotImplemented, so that
# they may implement the operator themselves.
_REJECTED = (list, tuple, set, dict)


def _forward(fn: Callable, symbol: str, swap: bool = False) -> Callable:
    """A binary operator, with JAX's treatment of operands that are not arrays."""
    def op(self, other):
        if type(other) is not Array and not is_arraylike(other):
            if type(other) in _REJECTED:
                names = [_type_name(a, symbol) for a in ((other, self) if swap else
                                                         (self, other))]
                raise TypeError(f"unsupported operand type(s) for {symbol}: {names[0]!r} and "
                                f"{names[1]!r}\nHint: convert it first, e.g. jnp.asarray(...).")
            return NotImplemented
        return fn(other, self) if swap else fn(self, other)
    op.__name__ = fn.__name__
    return op


def _type_name(x: Any, symbol: str) -> str:
    # NB: for @, JAX's message comes from Python itself, which names the C type.
    if symbol == "@" and type(x) is Array:
        return "jaxlib._jax.ArrayImpl"
    return type(x).__name__


def _matmul(a: Any, b: Any) -> Any:
    return matmul(a, b)


_BINARY_OPERATORS = {
    "add": (ufuncs.add, "+"), "sub": (ufuncs.subtract, "-"), "mul": (ufuncs.multiply, "*"),
    "truediv": (ufuncs.true_divide, "/"), "floordiv": (ufuncs.floor_divide, "//"),
    "mod": (ufuncs.remainder, "%"), "pow": (ufuncs.power, "**"), "matmul": (_matmul, "@"),
    "and": (ufuncs.bitwise_and, "&"), "or": (ufuncs.bitwise_or, "|"),
    "xor": (ufuncs.bitwise_xor, "^"), "lshift": (ufuncs.left_shift, "<<"),
    "rshift": (ufuncs.right_shift, ">>"), "divmod": (ufuncs.divmod, "divmod()"),
}
_COMPARISONS = {"eq": (ufuncs.equal, "=="), "ne": (ufuncs.not_equal, "!="),
                "lt": (ufuncs.less, "<"), "le": (ufuncs.less_equal, "<="),
                "gt": (ufuncs.greater, ">"), "ge": (ufuncs.greater_equal, ">=")}
_UNARY_OPERATORS = {"neg": ufuncs.negative, "pos": ufuncs.positive, "abs": ufuncs.absolute,
                    "invert": ufuncs.invert}


def _reshape_method(self, *shape: Any, order: str = "C") -> Any:
    """``x.reshape(3, 2)`` and ``x.reshape((3, 2))`` both work, as in NumPy."""
    if len(shape) == 1 and np.ndim(shape[0]) == 1:
        shape = tuple(shape[0])
    elif len(shape) == 1:
        shape = shape[0]
    return shape_ops.reshape(self, shape, order)


def _transpose_method(self, *axes: Any) -> Any:
    if len(axes) == 1 and (axes[0] is None or np.ndim(axes[0]) == 1):
        axes = axes[0]
    return shape_ops.transpose(self, axes or None)


def _astype(self, dtype: Any, copy: bool = False, device: Any = None) -> Any:
    out = lax.convert_element_type(self, dtype)
    return lax._array_copy(out) if copy else out  # as JAX: the cast, then a ``copy``


def _clip_method(self, min: Any = None, max: Any = None) -> Any:
    # By keyword, as JAX's method does: the clip equation then lists max before min.
    return ufuncs.clip(self, min=min, max=max)


def _round_method(self, decimals: int = 0, out: None = None) -> Any:
    return ufuncs.round(self, decimals)


def _sort_method(self, axis: int = -1, **kwargs: Any) -> Any:
    return sort(self, axis, **kwargs)


def _argsort_method(self, axis: int = -1, **kwargs: Any) -> Any:
    return argsort(self, axis, **kwargs)


def _dot_method(self, b: Any, **kwargs: Any) -> Any:
    return dot(self, b, **kwargs)


def _at(self) -> Any:
    return IndexUpdateHelper(self)


_METHODS = {
    "reshape": _reshape_method, "transpose": _transpose_method, "astype": _astype,
    "sum": reductions.sum, "prod": reductions.prod, "mean": reductions.mean,
    "var": reductions.var, "std": reductions.std, "max": reductions.max,
    "min": reductions.min, "argmax": reductions.argmax, "argmin": reductions.argmin,
    "any": reductions.any, "all": reductions.all, "cumsum": reductions.cumsum,
    "cumprod": reductions.cumprod, "ptp": reductions.ptp, "ravel": shape_ops.ravel,
    "flatten": shape_ops.ravel, "squeeze": shape_ops.squeeze, "swapaxes": shape_ops.swapaxes,
    "repeat": shape_ops.repeat, "diagonal": diagonals.diagonal, "trace": diagonals.trace,
    "clip": _clip_method, "round": _round_method, "conj": complex_numbers.conj,
    "conjugate": complex_numbers.conjugate, "sort": _sort_method, "argsort": _argsort_method,
    "dot": _dot_method, "__getitem__": getitem, "__round__": _round_method,
}
_PROPERTIES = {
    "T": lambda self: shape_ops.transpose(self),
    "mT": lambda self: shape_ops.swapaxes(self, -1, -2),
    "real": complex_numbers.real,
    "imag": complex_numbers.imag,
    "at": _at,
}


def attach(cls: type) -> None:
    """Give ``cls`` (Array or Tracer) the operators, methods and properties of an array."""
    for name, (fn, symbol) in _BINARY_OPERATORS.items():
        setattr(cls, f"__{name}__", _forward(fn, symbol))
        setattr(cls, f"__r{name}__", _forward(fn, symbol, swap=True))
    for name, (fn, symbol) in _COMPARISONS.items():
        setattr(cls, f"__{name}__", _forward(fn, symbol))
    for name, fn in _UNARY_OPERATORS.items():
        setattr(cls, f"__{name}__", fn)
    for name, fn in _METHODS.items():
        setattr(cls, name, fn)
    for name, fn in _PROPERTIES.items():
        setattr(cls, name, property(fn))


attach(Array)
attach(core.Tracer)
