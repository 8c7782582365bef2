"""``sem``: the standard error of the mean, std(a, ddof=1) / sqrt(n)."""
from __future__ import annotations

from typing import Any

from edujax import numpy as jnp
from edujax.scipy.special_functions import _promote


def sem(a: Any, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False) -> Any:
    """How far the mean of ``a`` is likely to be from the true mean."""
    b, = _promote("sem", a)
    if nan_policy != "propagate":
        raise ValueError(f"{nan_policy} is not supported")
    size = b.size if axis is None else b.shape[axis]
    return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
