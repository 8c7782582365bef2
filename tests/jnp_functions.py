"""Tables of jnp functions with the inputs they are smooth and valid on.

Shared by the tests that apply a law to "every jnp function": autodiff against
finite differences (test_autodiff.py) and vmap against a Python loop
(test_vmap_functions.py). Each entry: name -> (function, low, high) for the input
values to draw.
"""
from __future__ import annotations

import edujax as jax
import edujax.numpy as jnp
from edujax import lax

UNARY = {
    "sin": (jnp.sin, -2, 2), "cos": (jnp.cos, -2, 2), "tan": (jnp.tan, -1, 1),
    "exp": (jnp.exp, -2, 2), "log": (jnp.log, 0.5, 3), "log1p": (jnp.log1p, -0.5, 2),
    "expm1": (jnp.expm1, -2, 2), "sqrt": (jnp.sqrt, 0.5, 3), "tanh": (jnp.tanh, -2, 2),
    "arctan": (jnp.arctan, -2, 2), "arcsin": (jnp.arcsin, -0.8, 0.8),
    "arccos": (jnp.arccos, -0.8, 0.8), "sinh": (jnp.sinh, -2, 2), "cosh": (jnp.cosh, -2, 2),
    "arcsinh": (jnp.arcsinh, -2, 2), "arccosh": (jnp.arccosh, 1.5, 3),
    "arctanh": (jnp.arctanh, -0.8, 0.8), "square": (jnp.square, -2, 2),
    "abs": (jnp.abs, 0.5, 2), "negative": (jnp.negative, -2, 2),
    "reciprocal": (jnp.reciprocal, 0.5, 2), "cbrt": (jnp.cbrt, 0.5, 2),
    "sigmoid": (jax.nn.sigmoid, -3, 3), "softplus": (jax.nn.softplus, -3, 3),
    "cube": (lambda x: x ** 3, -2, 2), "pow_half": (lambda x: x ** 0.5, 0.5, 2),
    "exp2": (jnp.exp2, -2, 2), "log2": (jnp.log2, 0.5, 3), "erf": (lax.erf, -2, 2),
}

BINARY = {
    "add": jnp.add, "subtract": jnp.subtract, "multiply": jnp.multiply,
    "divide": lambda x, y: x / (y + 3.0), "maximum": jnp.maximum, "minimum": jnp.minimum,
    "arctan2": lambda x, y: jnp.arctan2(x, y + 3.0), "power": lambda x, y: (x + 3.0) ** y,
    "hypot": lambda x, y: jnp.hypot(x + 3.0, y), "logaddexp": jnp.logaddexp,
}

# Functions of one (2, 3) float array that rearrange, reduce or combine it.
STRUCTURAL = {
    "sum": lambda x: jnp.sum(x * x), "mean_axis": lambda x: jnp.mean(jnp.sin(x), axis=-1),
    "prod": lambda x: jnp.prod(x + 3.0), "max": lambda x: jnp.max(x),
    "var": lambda x: jnp.var(x), "std": lambda x: jnp.std(x + jnp.arange(x.size).reshape(
        x.shape)), "logsumexp": lambda x: jax.nn.logsumexp(x),
    "softmax": lambda x: jax.nn.softmax(x), "cumsum": lambda x: jnp.cumsum(x * x),
    "reshape_transpose": lambda x: jnp.reshape(x, (-1,))[::-1] * 2.0,
    "concatenate": lambda x: jnp.concatenate([x, jnp.sin(x)]),
    "stack": lambda x: jnp.stack([x, x * x], axis=-1), "tile": lambda x: jnp.tile(x, 2),
    "sort": lambda x: jnp.sort(x * 1.5), "where": lambda x: jnp.where(x > 0, x ** 2, -x),
    "clip": lambda x: jnp.clip(x, -1.0, 1.0), "index": lambda x: jnp.ravel(x)[1:] * 3.0,
    "outer": lambda x: jnp.outer(jnp.ravel(x), jnp.ravel(x)),
    "dot_self": lambda x: jnp.dot(jnp.ravel(x), jnp.ravel(x)),
    "roll_flip": lambda x: jnp.flip(jnp.roll(jnp.ravel(x), 1)),
    "argmax": lambda x: jnp.argmax(x, axis=1), "cumprod": lambda x: jnp.cumprod(x, axis=0),
    "swapaxes": lambda x: jnp.swapaxes(x, 0, 1), "expand_squeeze": lambda x: jnp.squeeze(
        jnp.expand_dims(x, 1), 1) + 1.0, "triu": lambda x: jnp.triu(x),
    "at_set": lambda x: x.at[0, 1].set(7.0), "at_add": lambda x: x.at[:, 0].add(x[:, 1]),
    "take_int_array": lambda x: x[jnp.array([1, 0, 1])], "einsum": lambda x: jnp.einsum(
        "ij,kj->ik", x, x), "matmul": lambda x: x @ x.T, "linspace_mul": lambda x: x *
    jnp.linspace(0.0, 1.0, 3), "broadcast_to": lambda x: jnp.broadcast_to(x[0], (4, 3)),
    "repeat": lambda x: jnp.repeat(x, 2, axis=0), "split": lambda x: jnp.split(x, 3, 1)[1],
}
# Not differentiable in every argument direction, or integer-valued: vmap-only entries.
NOT_DIFFERENTIABLE = {"argmax"}
