"""``logsumexp``, ``softmax`` and ``log_softmax``: the three functions that exponentiate and
normalize, shared by ``jax.scipy.special`` and ``jax.nn``.

All three subtract the maximum before calling exp: ``exp(1000.)`` overflows to inf, while
``exp(1000. - 1000.)`` is 1, and the maximum is added back (or cancels) afterwards. The
maximum goes through ``stop_gradient``: it does not change the result, so it must not
change the gradient either (and differentiating max would give a subgradient).
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import lax
from edujax.config import config
from edujax import numpy as jnp
from edujax.custom_derivatives import custom_jvp
from edujax.inner_jit import inner_jit
from edujax.numpy.util import canonicalize_axis, check_arraylike, promote_args_inexact


def _reduction_dims(a: Any, axis: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the reduced axes as non-negative ints, the same for jnp's reductions)."""
    if axis is None:
        return tuple(range(a.ndim)), tuple(range(a.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    pos = tuple(sorted(canonicalize_axis(ax, a.ndim) for ax in axes))
    return pos, pos


def logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False,
              return_sign: bool = False, where: Any = None) -> Any:
    """``log(sum(b * exp(a)))`` over ``axis``, computed without overflow.

    ``b`` scales each term (it may be negative: then the sum may be negative, and
    ``return_sign=True`` returns ``(log|sum|, sign(sum))`` instead of NaN); ``where``
    picks the terms to include."""
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        # (jnp.asarray: a scalar b is staged, as JAX's promotion stages it, so b != 0 below
        # is an equation of the jaxpr rather than a Python bool)
        a_arr, b_arr = map(jnp.asarray, promote_args_inexact("logsumexp", a, b))
        a_arr = jnp.where(b_arr != 0, a_arr, -np.inf)
    else:
        a_arr, = promote_args_inexact("logsumexp", a)
        b_arr = a_arr
    pos_dims, dims = _reduction_dims(a_arr, axis)
    amax = jnp.max(a_arr, axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    # An all -inf (or empty) row has max -inf: shift by 0 there instead, giving log(0).
    amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax.expand_dims(amax, pos_dims)
    exp_a = lax.exp(lax.sub(a_arr, amax_with_dims.astype(a_arr.dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b_arr)
    sumexp = exp_a.sum(axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    sumexp = abs(sumexp)
    out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
    if return_sign:
        return (out, sign)
    if b is not None:
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


@inner_jit(static_argnames=("axis",))
def log_softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """``x - logsumexp(x, axis)``: the log of softmax, without computing softmax first
    (whose small entries would round to 0, and log(0) is -inf)."""
    check_arraylike("log_softmax", x)
    x_arr = jnp.asarray(x)
    x_max = jnp.max(x_arr, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x_arr if where is None else jnp.where(where, x_arr, -np.inf)
    shifted = x_safe - lax.stop_gradient(x_max)
    shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_logsumexp
    if where is not None:
        return jnp.where(where, result, -np.inf)
    return result


def softmax(x: Any, axis: Any = -1, where: Any = None) -> Any:
    """``exp(x) / sum(exp(x), axis)``: non-negative entries that sum to 1 along ``axis``.

    As in JAX 0.10, the default is differentiated through its operations, the maximum
    behind a stop_gradient; with ``jax_softmax_custom_jvp`` set, it is a custom JVP,
    ``y * (dx - sum(y * dx))``, shorter than the chain rule through exp and division."""
    if config.jax_softmax_custom_jvp:
        return _softmax(x, axis, where, -np.inf)
    return _softmax_deprecated(x, axis, where)


def _softmax_deprecated(x: Any, axis: Any = -1, where: Any = None,
                        initial: Any = -np.inf) -> Any:
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - lax.stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result


@partial(custom_jvp, nondiff_argnums=(1,))
def _softmax(x: Any, axis: Any, where: Any, initial: Any) -> Any:
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result


def _softmax_jvp(axis, primals, tangents):
    (x, where, initial), (x_dot, _, _) = primals, tangents
    y = _softmax(x, axis, where, initial)
    return y, y * (x_dot - (y * x_dot).sum(axis, where=where, keepdims=True))


_softmax.defjvp(_softmax_jvp)


# ---------------------------------------------------------------- SciPy's spelling
# jax.scipy.special's softmax and log_softmax follow SciPy, not jax.nn: ``axis`` is keyword
# only and defaults to None, all the axes at once (a matrix sums to 1 as a whole). They call
# the jax.nn functions with that axis, as JAX does.

def scipy_softmax(x: Any, /, *, axis: Any = None) -> Any:
    """SciPy's ``softmax``: ``exp(x) / sum(exp(x))`` over ``axis`` (default: every axis)."""
    return softmax(x, axis=axis)


def scipy_log_softmax(x: Any, /, *, axis: Any = None) -> Any:
    """SciPy's ``log_softmax``: ``x - logsumexp(x)`` over ``axis`` (default: every axis)."""
    return log_softmax(x, axis=axis)


scipy_softmax.__name__ = scipy_softmax.__qualname__ = "softmax"
scipy_log_softmax.__name__ = scipy_log_softmax.__qualname__ = "log_softmax"
