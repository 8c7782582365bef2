"""``jax.nn``: activation functions and friends, written with jnp and lax.

Each one is a line or two; where JAX picks a formula for numerical stability
(softplus, logsumexp, log_softmax) the comment says why.
"""
from __future__ import annotations

from typing import Any

from edujax import lax
from edujax import numpy as jnp
from edujax.custom_derivatives import custom_jvp


def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))``, as the ``logistic`` primitive."""
    return lax.logistic(jnp.asarray(x).astype(_float(x)))


def _float(x: Any) -> Any:
    dtype = jnp.result_type(x)
    return dtype if dtype.kind in "fc" else jnp.float32


@custom_jvp
def relu(x: Any) -> Any:
    """``max(x, 0)``. Its derivative at 0 is defined as 0 (a custom JVP, as in JAX)."""
    return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(jnp.greater(x, 0), g, lax.full_like(g, 0)))


def relu6(x: Any) -> Any:
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


def softplus(x: Any) -> Any:
    """``log(1 + exp(x))`` computed as ``logaddexp(x, 0)``, which never overflows."""
    return jnp.logaddexp(x, 0)


def silu(x: Any) -> Any:
    return x * sigmoid(x)


swish = silu


def elu(x: Any, alpha: float = 1.0) -> Any:
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


def leaky_relu(x: Any, negative_slope: float = 0.01) -> Any:
    return jnp.where(x >= 0, x, negative_slope * x)


def gelu(x: Any, approximate: bool = True) -> Any:
    if approximate:
        c = jnp.sqrt(2 / jnp.pi).astype(_float(x))
        return 0.5 * x * (1 + jnp.tanh(c * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + lax.erf(x / jnp.sqrt(2.0).astype(_float(x))))


def logsumexp(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``log(sum(exp(a)))`` with the max subtracted first, so exp never overflows."""
    a = jnp.asarray(a)
    amax = lax.stop_gradient(jnp.max(a, axis=axis, keepdims=True))
    out = jnp.log(jnp.sum(jnp.exp(a - amax), axis=axis, keepdims=True)) + amax
    return out if keepdims else jnp.squeeze(out, axis=axis)


def log_softmax(x: Any, axis: int = -1) -> Any:
    shifted = x - lax.stop_gradient(jnp.max(x, axis=axis, keepdims=True))
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=axis, keepdims=True))


def softmax(x: Any, axis: int = -1) -> Any:
    unnormalized = jnp.exp(x - lax.stop_gradient(jnp.max(x, axis=axis, keepdims=True)))
    return unnormalized / jnp.sum(unnormalized, axis=axis, keepdims=True)


def one_hot(x: Any, num_classes: int, dtype: Any = jnp.float32, axis: int = -1) -> Any:
    """``out[..., k, ...] = (x[...] == k)``, with the class axis at ``axis``."""
    x = jnp.asarray(x)
    axis = axis % (x.ndim + 1)
    shape = x.shape[:axis] + (num_classes,) + x.shape[axis:]
    classes = lax.broadcasted_iota(x.dtype, shape, axis)
    return jnp.equal(jnp.expand_dims(x, axis), classes).astype(dtype)


tanh = jnp.tanh
