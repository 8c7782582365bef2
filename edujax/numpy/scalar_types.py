"""``jnp.float32`` & co: dtypes you can also call, like JAX's scalar types.

``jnp.float32(3)`` makes a 0-d Array, ``jnp.zeros(3, jnp.int32)`` uses it as a
dtype, and ``x.dtype == jnp.float32`` compares like NumPy's type would.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax.numpy.creation import asarray


class _ScalarMeta(type):
    """The type of ``jnp.float32`` & co. Comparing and hashing go through NumPy's scalar
    type (``np.float32``), so ``jnp.float32 == np.float32`` and both work as dict keys."""

    dtype: np.dtype

    def __call__(cls, x: Any) -> Any:
        return asarray(x, dtype=cls.dtype)

    def __eq__(cls, other: Any) -> bool:
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other: Any) -> bool:
        return not cls == other

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __repr__(cls) -> str:
        return f"<class 'jax.numpy.{cls.__name__}'>"

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.dtype.type)


def _scalar_type(name: str, np_type: Any) -> type:
    return _ScalarMeta(name, (), {"dtype": np.dtype(np_type)})


bool_ = _scalar_type("bool", np.bool_)
int8, int16, int32, int64 = (_scalar_type(f"int{b}", f"int{b}") for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (_scalar_type(f"uint{b}", f"uint{b}") for b in (8, 16, 32, 64))
float16, float32, float64 = (_scalar_type(f"float{b}", f"float{b}") for b in (16, 32, 64))
complex64, complex128 = _scalar_type("complex64", np.complex64), \
    _scalar_type("complex128", np.complex128)
int_, float_, complex_ = int64, float64, complex128
