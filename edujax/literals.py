"""Python numbers that carry a dtype: ``TypedInt``, ``TypedFloat``, ``TypedComplex``.

``jax.vjp`` (and so ``grad``, ``value_and_grad`` and ``jacrev``) first *canonicalizes* its
primal inputs. A Python ``3.0`` becomes ``TypedFloat(3.0, dtype=float32)``: still a Python
float (it adds, compares and prints with ``str`` like one), but it remembers the dtype it was
given at that moment, so that turning on x64 later cannot change it. Most programs never see
one; a function that hands its input straight back does::

    >>> jax.grad(lambda x: (x ** 2, x), has_aux=True)(3.0)
    (Array(6., dtype=float32, weak_type=True), TypedFloat(3.0, dtype=float32))

These classes are JAX's (jax/_src/literals.py), with the same reprs. Each has an ``aval``
(a weakly typed scalar), so ``core.get_aval`` and the dtype rules read it like an Array.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import dtypes
from edujax.abstract_arrays import ShapedArray


def _weak_scalar_aval(dtype: np.dtype) -> ShapedArray:
    return ShapedArray((), dtype, weak_type=True)


class TypedInt(int):
    """A Python int with a dtype (int32, or int64 under x64)."""

    dtype: np.dtype
    aval: ShapedArray

    def __new__(cls, value: int, dtype: np.dtype) -> TypedInt:
        v = super().__new__(cls, value)
        v.dtype, v.aval = np.dtype(dtype), _weak_scalar_aval(dtype)
        return v

    def __repr__(self) -> str:
        return f"TypedInt({int(self)}, dtype={self.dtype.name})"

    def __getnewargs__(self) -> tuple:
        return (int(self), self.dtype)


class TypedFloat(float):
    """A Python float with a dtype (float32, or float64 under x64)."""

    __slots__ = ("dtype", "aval")

    def __new__(cls, value: float, dtype: np.dtype) -> TypedFloat:
        v = super().__new__(cls, value)
        v.dtype, v.aval = np.dtype(dtype), _weak_scalar_aval(dtype)
        return v

    def __repr__(self) -> str:
        return f"TypedFloat({float(self)}, dtype={self.dtype.name})"

    def __str__(self) -> str:
        return str(float(self))

    def __getnewargs__(self) -> tuple:
        return (float(self), self.dtype)


class TypedComplex(complex):
    """A Python complex with a dtype (complex64, or complex128 under x64)."""

    __slots__ = ("dtype", "aval")

    def __new__(cls, value: complex, dtype: np.dtype) -> TypedComplex:
        v = super().__new__(cls, value)
        v.dtype, v.aval = np.dtype(dtype), _weak_scalar_aval(dtype)
        return v

    def __repr__(self) -> str:
        return f"TypedComplex({complex(self)}, dtype={self.dtype.name})"

    def __getnewargs__(self) -> tuple:
        return (complex(self), self.dtype)


_TYPED = {int: TypedInt, float: TypedFloat, complex: TypedComplex}


def canonicalize_scalar(x: Any) -> Any:
    """A Python int, float or complex as its typed twin, with today's default dtype; anything
    else (a bool, an array, a typed scalar already) as it is."""
    typed = _TYPED.get(type(x))
    return x if typed is None else typed(x, dtypes.default_dtype(type(x)))


class TypedNdArray(np.ndarray):
    """A NumPy array with an aval, printed as JAX prints it: what ``grad(...,
    allow_int=True)`` gives for an integer input, a ``float0`` array of its shape."""

    weak_type = False

    @property
    def aval(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype, self.weak_type)

    def __repr__(self) -> str:
        prefix = "TypedNdArray("
        dtype_str = (f"dtype={self.dtype.name}, weak_type=True)" if self.weak_type
                     else f"dtype={self.dtype.name})")
        width = np.get_printoptions()["linewidth"]
        if self.size == 0:
            body = f"[], shape={self.shape}"
        else:
            body = np.array2string(np.asarray(self), prefix=prefix, suffix=",",
                                   separator=", ", max_line_width=width)
        last = len(body) - body.rfind("\n") + 1
        sep = " " * len(prefix) if last + len(dtype_str) + 1 > width else " "
        return f"{prefix}{body},{sep}{dtype_str}"


def float0_zeros(shape: tuple) -> TypedNdArray:
    """The gradient of an integer input: no values, only its shape."""
    return np.zeros(shape, dtype=dtypes.float0).view(TypedNdArray)
