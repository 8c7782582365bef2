"""``jax.nn``'s functions: activations, normalizations and friends, written with jnp and lax.

Each one is a line or two; where JAX picks a formula for numerical stability (softplus,
logsumexp, log_softmax, log_sigmoid) or defines the derivative at a kink by hand (relu,
relu6), the comment says why.
As in JAX, most of them are wrapped in an inner ``jit`` (``@inner_jit``, with JAX's static
arguments), so a jaxpr shows ``jit[name=relu ...]`` where they are called; relu, relu6 and
log1mexp are a ``custom_jvp`` around that ``jit``. sigmoid (JAX's ``jit(inline=True)``), gelu
and softmax are not wrapped, as in JAX.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.custom_derivatives import custom_jvp
from edujax.inner_jit import inner_jit
from edujax.numpy.util import canonicalize_axis, check_arraylike, promote_args_inexact
from edujax.scipy.softmax import log_softmax, logsumexp, softmax  # noqa: F401


def _ensure(name: str, x: Any) -> Any:
    check_arraylike(name, x)
    return jnp.asarray(x)


@inner_jit
def identity(x: Any) -> Any:
    """Return x unchanged (as an array): the activation of a linear layer."""
    return _ensure("identity", x)


def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))``, as the ``logistic`` primitive."""
    return lax.logistic(x)


@custom_jvp
@inner_jit
def relu(x: Any) -> Any:
    """``max(x, 0)``. Its derivative at 0 is defined as 0 (a custom JVP, as in JAX)."""
    return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@custom_jvp
@inner_jit
def relu6(x: Any) -> Any:
    """``min(max(x, 0), 6)``; the derivative is 0 at both kinks."""
    return jnp.minimum(jnp.maximum(x, 0), 6.)


relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


@inner_jit
def softplus(x: Any) -> Any:
    """``log(1 + exp(x))`` computed as ``logaddexp(x, 0)``, which never overflows."""
    return jnp.logaddexp(x, 0)


@inner_jit
def sparse_plus(x: Any) -> Any:
    """A piecewise-quadratic softplus: 0 below -1, x above 1, ``(x + 1)**2 / 4`` between."""
    x = _ensure("sparse_plus", x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@inner_jit
def squareplus(x: Any, b: Any = 4) -> Any:
    """``(x + sqrt(x**2 + b)) / 2``: a softplus with no exp at all."""
    check_arraylike("squareplus", x, b)
    x, b = jnp.asarray(x), jnp.asarray(b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@inner_jit
def soft_sign(x: Any) -> Any:
    """``x / (|x| + 1)``."""
    x = _ensure("soft_sign", x)
    return x / (jnp.abs(x) + 1)


@inner_jit
def sparse_sigmoid(x: Any) -> Any:
    """A piecewise-linear sigmoid: ``clip((x + 1) / 2, 0, 1)``."""
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@inner_jit
def silu(x: Any) -> Any:
    """``x * sigmoid(x)`` (also called swish)."""
    x = _ensure("silu", x)
    return x * sigmoid(x)


swish = silu


@inner_jit
def mish(x: Any) -> Any:
    """``x * tanh(softplus(x))``."""
    x = _ensure("mish", x)
    return x * jnp.tanh(softplus(x))


@inner_jit
def log_sigmoid(x: Any) -> Any:
    """``log(sigmoid(x)) = -softplus(-x)``: no log of a number that rounded to 0."""
    x = _ensure("log_sigmoid", x)
    return -softplus(-x)


@inner_jit
def elu(x: Any, alpha: Any = 1.0) -> Any:
    """x for x > 0, ``alpha * (exp(x) - 1)`` below. The inner where keeps expm1 from
    overflowing for large x, whose (unused) inf would turn the gradient into NaN."""
    x = _ensure("elu", x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0., x)))


@inner_jit
def leaky_relu(x: Any, negative_slope: Any = 1e-2) -> Any:
    """x for x >= 0, ``negative_slope * x`` below."""
    x = _ensure("leaky_relu", x)
    return jnp.where(x >= 0, x, negative_slope * x)


@inner_jit
def hard_tanh(x: Any) -> Any:
    """tanh's piecewise-linear cousin: ``clip(x, -1, 1)``."""
    x = _ensure("hard_tanh", x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@inner_jit
def celu(x: Any, alpha: Any = 1.0) -> Any:
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


@inner_jit
def selu(x: Any) -> Any:
    """A scaled elu whose constants keep activations at mean 0, variance 1 (Klambauer et al.)."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def gelu(x: Any, approximate: bool = True) -> Any:
    """``x * Phi(x)`` with Phi the normal CDF; ``approximate=True`` uses the tanh formula."""
    x, = promote_args_inexact("gelu", x)
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(x.dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x ** 3))))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(x.dtype)
    return jnp.array(0.5 * x * (lax.erfc(-x * sqrt_half)), dtype=x.dtype)


@inner_jit(static_argnames=("axis",))
def glu(x: Any, axis: int = -1) -> Any:
    """The gated linear unit: split x in two halves a, b along ``axis``; ``a * sigmoid(b)``."""
    x = _ensure("glu", x)
    size = x.shape[axis]
    assert size % 2 == 0, "axis size must be divisible by 2"
    x1, x2 = jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


@inner_jit
def hard_sigmoid(x: Any) -> Any:
    """``relu6(x + 3) / 6``."""
    return relu6(x + 3.) / 6.


@inner_jit
def hard_silu(x: Any) -> Any:
    """``x * hard_sigmoid(x)``."""
    x = _ensure("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@custom_jvp
@inner_jit
def log1mexp(x: Any) -> Any:
    """``log(1 - exp(-x))`` for x > 0, switching formulas at log 2 to stay accurate."""
    x = _ensure("log1mexp", x)
    c = jnp.log(2.0)
    return jnp.where(x < c, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


def _count(x: Any, axis: Any, where: Any, keepdims: bool, dtype: Any) -> Any:
    """How many entries a reduction over ``axis`` (where ``where``) sees."""
    if where is None:
        axes = range(x.ndim) if axis is None else ((axis,) if isinstance(axis, int) else axis)
        n = int(np.prod([x.shape[a] for a in axes]))
        shape = tuple(1 if (axis is None or a in [b % x.ndim for b in axes]) else d
                      for a, d in enumerate(x.shape)) if keepdims else ()
        return jnp.full(shape, n, dtype=dtype)
    return jnp.sum(jnp.broadcast_to(where, x.shape), axis=axis, keepdims=keepdims, dtype=dtype)


@inner_jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x: Any, axis: Any = None, where: Any = None, keepdims: bool = False) -> Any:
    """``log(mean(exp(x)))``: logsumexp minus log of the count."""
    x = _ensure("logmeanexp", x)
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    count = _count(x, axis=axis, where=where, keepdims=keepdims, dtype=lse.dtype)
    return lse - jnp.log(count)


@inner_jit(static_argnames=("axis", "algorithm"))
def standardize(x: Any, axis: Any = -1, mean: Any = None, variance: Any = None,
                epsilon: Any = 1e-5, where: Any = None, *, algorithm: str = "fast") -> Any:
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis`` (layer normalization's core).

    ``algorithm="fast"`` computes the variance as E[x²] - E[x]² (one pass, may lose digits);
    ``"stable"`` as E[(x - E[x])²]."""
    check_arraylike("standardize", x)
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True,
                                where=where)
        elif algorithm == "fast":
            variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) \
                - jnp.square(mean)
            variance = jnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Any:
    """``out[..., k, ...] = (x[...] == k)``, with the class axis at ``axis``.

    Indices outside [0, num_classes) give a row of zeros."""
    x = jnp.asarray(x)
    dtype = jnp.float32 if dtype is None else dtype
    return _one_hot(x, num_classes, dtype=dtype, axis=axis)


@inner_jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x: Any, num_classes: int, *, dtype: Any, axis: int) -> Any:
    out_axis = canonicalize_axis(axis, x.ndim + 1)
    lhs = lax.expand_dims(x, (axis,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(out_axis, num_classes)
    rhs = lax.broadcasted_iota(x.dtype, tuple(rhs_shape), out_axis)
    return (lhs == rhs).astype(dtype)


tanh = jnp.tanh
