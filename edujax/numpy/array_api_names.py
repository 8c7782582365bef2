"""The Array API standard's names for functions jax.numpy already has under NumPy's names
(``acos`` for ``arccos``, ``pow`` for ``power``, ``concat`` for ``concatenate``...), plus the
few small functions the standard added (``matrix_transpose``, ``unstack``, ``astype``,
``isdtype``) and NumPy's helpers that JAX re-exports as they are.

JAX defines most of these as separate functions with their own docstrings; here an alias is
the same function object, since it behaves identically.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import dtypes, lax
from edujax.numpy import ufuncs
from edujax.numpy.shape_ops import concatenate, swapaxes
from edujax.numpy.util import canonicalize_axis, ensure_array

acos, acosh = ufuncs.arccos, ufuncs.arccosh
asin, asinh = ufuncs.arcsin, ufuncs.arcsinh
atan, atanh, atan2 = ufuncs.arctan, ufuncs.arctanh, ufuncs.arctan2
pow = ufuncs.power
bitwise_invert = ufuncs.invert
bitwise_left_shift, bitwise_right_shift = ufuncs.left_shift, ufuncs.right_shift

# NumPy's helpers, which JAX re-exports unchanged
iterable = np.iterable
get_printoptions, set_printoptions, printoptions = (np.get_printoptions, np.set_printoptions,
                                                    np.printoptions)
ComplexWarning = getattr(np, "exceptions", np).ComplexWarning
character, flexible, object_ = np.character, np.flexible, np.object_


def concat(arrays: Any, /, *, axis: int | None = 0) -> Any:
    """The Array API's ``concatenate``."""
    return concatenate(arrays, axis=axis)


def matrix_transpose(x: Any, /) -> Any:
    """Swap the last two axes (a stack of matrices, each transposed)."""
    x = ensure_array("matrix_transpose", x)
    ndim = np.ndim(x)
    if ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got {ndim=}")
    return swapaxes(x, -1, -2)


def unstack(x: Any, /, *, axis: int = 0) -> tuple:
    """The slices of ``x`` along ``axis``, as a tuple (the inverse of ``stack``)."""
    x = ensure_array("unstack", x)
    axis = canonicalize_axis(axis, np.ndim(x))
    return tuple(lax.index_in_dim(x, i, axis, keepdims=False) for i in range(np.shape(x)[axis]))


def astype(x: Any, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Any:
    """``x`` converted to ``dtype`` (the Array API's function form of ``x.astype``)."""
    x = ensure_array("astype", x)
    out = lax.convert_element_type(x, dtypes.canonicalize_dtype(dtype))
    return lax._array_copy(out) if copy else out  # as JAX: the cast, then a ``copy``


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """NumPy's casting rule (on dtypes; JAX's own promotion is ``promote_types``)."""
    return np.can_cast(getattr(from_, "dtype", from_), to, casting=casting)


_KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype: Any, kind: Any) -> bool:
    """The Array API's dtype test: ``kind`` is a dtype, a kind name such as
    ``"real floating"``, or a tuple of those."""
    dtype = np.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in _KINDS:
                raise ValueError(f"Unrecognized {k=}")
            if dtype.kind in _KINDS[k]:
                return True
        elif dtype == np.dtype(k):
            return True
    return False
