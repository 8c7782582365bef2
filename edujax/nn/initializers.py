"""``jax.nn.initializers``: functions that make a layer's starting weights.

An *initializer* is a function ``init(key, shape, dtype=float32) -> Array``; the functions
here (``normal(0.01)``, ``glorot_uniform()``, ...) build one. The same key gives the same
weights as JAX, bit for bit, because each draws with the same jax.random call.

Most are ``variance_scaling``: draw from a distribution whose variance is
``scale / fan``, where fan counts the inputs (fan_in), outputs (fan_out) or their average
that one unit sees. Glorot/Xavier (fan_avg, scale 1), He/Kaiming (fan_in, scale 2) and
LeCun (fan_in, scale 1) are three choices of (mode, scale) that keep the variance of the
activations (or of the gradients) the same from layer to layer.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from edujax import dtypes, random
from edujax import numpy as jnp

Initializer = Callable[..., Any]

__all__ = ["Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
           "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
           "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
           "variance_scaling", "xavier_normal", "xavier_uniform", "zeros"]


def _default(dtype: Any) -> Any:
    return dtypes.float_dtype() if dtype is None else dtype


def zeros(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    """All zeros (the usual bias initializer); the key is not used."""
    return jnp.zeros(shape, _default(dtype))


def ones(key: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    """All ones; the key is not used."""
    return jnp.ones(shape, _default(dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """An initializer that fills with ``value``."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        return jnp.full(shape, value, dtype=_default(dtype))
    return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Uniform in [0, scale)."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dtype = _default(dtype)
        return random.uniform(key, shape, dtype) * jnp.array(scale, dtype)
    return init


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Normal with mean 0 and standard deviation ``stddev``."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dtype = _default(dtype)
        return random.normal(key, shape, dtype) * jnp.array(stddev, dtype)
    return init


def truncated_normal(stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0,
                     upper: Any = 2.0) -> Initializer:
    """A standard normal cut to [lower, upper], times ``stddev``."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dtype = _default(dtype)
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev,
                                                                                    dtype)
    return init


def _prod_of(shape: Sequence[int], axis: int | Sequence[int]) -> int:
    return shape[axis] if isinstance(axis, int) else math.prod(shape[i] for i in axis)


def _compute_fans(shape: Sequence[int], in_axis: int | Sequence[int] = -2,
                  out_axis: int | Sequence[int] = -1,
                  batch_axis: int | Sequence[int] = ()) -> tuple[float, float]:
    """(fan_in, fan_out): inputs and outputs per unit. For a convolution kernel of shape
    (height, width, in, out) each unit sees height * width * in inputs (the *receptive
    field* times the input channels)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor with default in_axis. Must be at least 2D or specify "
                         "in_axis explicitly.")
    in_size = _prod_of(shape, in_axis)
    out_size = _prod_of(shape, out_axis)
    batch_size = _prod_of(shape, batch_axis)
    receptive_field_size = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field_size, out_size * receptive_field_size


def variance_scaling(scale: Any, mode: str, distribution: str,
                     in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
                     batch_axis: int | Sequence[int] = (), dtype: Any = None) -> Initializer:
    """Samples with variance ``scale / fan`` (``mode``: fan_in, fan_out, fan_avg or
    fan_geo_avg) from a truncated normal, a normal or a uniform ``distribution``."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        shape = tuple(int(d) for d in shape)
        dtype = _default(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        denominators = {"fan_in": fan_in, "fan_out": fan_out,
                        "fan_avg": (fan_in + fan_out) / 2,
                        "fan_geo_avg": (fan_in * fan_out) ** 0.5}
        if mode not in denominators:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / denominators[mode], dtype=dtype)
        if distribution == "truncated_normal":
            # .8796... is the standard deviation of a standard normal cut to [-2, 2].
            stddev = jnp.sqrt(variance) / jnp.array(.87962566103423978, dtype)
            return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":  # uniform in [-1, 1) has variance 1/3
            return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: "
                         f"{distribution}")
    return init


def _scaling(scale: float, mode: str, distribution: str) -> Callable[..., Initializer]:
    def make(in_axis: int | Sequence[int] = -2, out_axis: int | Sequence[int] = -1,
             batch_axis: int | Sequence[int] = (), dtype: Any = None) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis=in_axis,
                                out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)
    return make


glorot_uniform = xavier_uniform = _scaling(1.0, "fan_avg", "uniform")
glorot_normal = xavier_normal = _scaling(1.0, "fan_avg", "truncated_normal")
lecun_uniform = _scaling(1.0, "fan_in", "uniform")
lecun_normal = _scaling(1.0, "fan_in", "truncated_normal")
he_uniform = kaiming_uniform = _scaling(2.0, "fan_in", "uniform")
he_normal = kaiming_normal = _scaling(2.0, "fan_in", "truncated_normal")
for _name, _fn in [("glorot_uniform", glorot_uniform), ("glorot_normal", glorot_normal),
                   ("lecun_uniform", lecun_uniform), ("lecun_normal", lecun_normal),
                   ("he_uniform", he_uniform), ("he_normal", he_normal)]:
    _fn.__name__ = _fn.__qualname__ = _name


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """A (scaled) matrix with orthonormal columns or rows, reshaped to ``shape``."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dtype = _default(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(dim == 0 for dim in shape):
            return jnp.zeros(shape, dtype=dtype)
        n_rows, n_cols = math.prod(shape) // shape[column_axis], shape[column_axis]
        Q = random.orthogonal(key, n_rows, (), dtype, n_cols)
        Q = jnp.reshape(Q, tuple(np.delete(shape, column_axis)) + (shape[column_axis],))
        Q = jnp.moveaxis(Q, -1, column_axis)
        return jnp.array(scale, dtype) * Q
    return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """A convolution kernel that is an orthogonal matrix at its center and 0 elsewhere
    (Xiao et al. 2018): a deep CNN starts out as an orthogonal map."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> Any:
        dtype = _default(dtype)
        if len(shape) not in [3, 4, 5]:
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho_matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(
            key, shape[-2:])
        center = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[center + (Ellipsis,)].set(ortho_matrix)
    return init
