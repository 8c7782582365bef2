"""``jax.typing``: names for type hints (``def f(x: ArrayLike) -> Array``).

``ArrayLike`` is anything jax.numpy accepts as an array: an edujax Array or tracer, a NumPy
array or scalar, a Python bool/int/float/complex. ``DTypeLike`` is anything that names a
dtype: ``jnp.float32``, ``np.dtype("int8")``, the string ``"float32"``...
"""
from __future__ import annotations

from typing import Any, Union

import numpy as np

from edujax.array import Array
from edujax.core import Tracer

ArrayLike = Union[Array, Tracer, np.ndarray, np.bool_, np.number, bool, int, float, complex]
DTypeLike = Union[str, type, np.dtype, Any]

__all__ = ["ArrayLike", "DTypeLike"]
