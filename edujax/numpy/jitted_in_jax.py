"""The jax.numpy functions that JAX 0.10 runs as jitted programs, and what that changes.

In JAX, ``jnp.log`` is not a plain function but a ``jit(inline=True)`` one, ``jnp.clip`` an
``@jit`` one, and so on: when called eagerly, each is a small compiled program. Most of the
time that is invisible (``inline=True`` even keeps it out of jaxprs). It shows in one place:
with ``jax_debug_nans`` on, a jitted program whose output holds a NaN prints "Invalid nan
value encountered in the output of a jax.jit function. Calling the de-optimized version."
before the operation is named (nan_checks.py), and a NaN or an inf made *inside* the
program and gone from its output (``jnp.max``'s ``initial=-inf``) is never seen. edujax runs
these functions op by op, so ``jitted_in_jax`` gives each the behaviour of such a program
while a switch is on: its insides unchecked, its outputs checked, rerun op by op to name the
operation that made a NaN. With the switches off it only forwards the call.

Read from JAX 0.10.2 (the public ``jax.numpy`` names whose object, or whose ufunc's
function, is a ``PjitFunction``); the functions with a visible inner jit (``@inner_jit``)
are registered by inner_jit.py itself. ``INLINE_HELPERS`` are public functions whose work JAX
does in a private ``jit(inline=True)`` helper (``jnp.mean`` calls ``_mean``, ``jnp.sum``
calls ``_reduce_sum``): edujax has no such helper, so the public function stands for it.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from edujax import core, nan_checks
from edujax.tree_util import tree_leaves

JITTED_IN_JAX = frozenset({
    "abs", "absolute", "acos", "acosh", "add", "allclose", "angle", "append", "arccos",
    "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argpartition",
    "argsort", "around", "asin", "asinh", "atan", "atan2", "atanh", "atleast_1d",
    "atleast_2d", "atleast_3d", "bitwise_and", "bitwise_count", "bitwise_invert",
    "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "block", "cbrt", "ceil", "clip", "conjugate", "convolve", "copysign", "corrcoef",
    "correlate", "cos", "cosh", "count_nonzero", "cov", "cross", "cumprod", "cumsum",
    "deg2rad", "diagonal", "diff", "digitize", "divmod", "dot", "ediff1d", "equal", "exp",
    "exp2", "expm1", "fabs", "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod",
    "frexp", "gcd", "gradient", "greater", "greater_equal", "heaviside", "hypot", "i0",
    "imag", "inner", "invert", "isclose", "iscomplex", "isfinite", "isinf", "isnan",
    "isreal", "kron", "lcm", "ldexp", "left_shift", "less", "less_equal", "lexsort", "log",
    "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "matmul", "matvec", "maximum", "median", "minimum", "modf",
    "multiply", "nan_to_num", "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmedian",
    "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum", "nanvar",
    "negative", "nextafter", "not_equal", "outer", "packbits", "partition", "percentile",
    "poly", "polyadd", "polyder", "polyfit", "polyint", "polysub", "polyval", "positive",
    "put_along_axis", "quantile", "rad2deg", "ravel", "real", "reciprocal", "remainder",
    "resize", "right_shift", "rint", "rollaxis", "rot90", "round", "searchsorted", "sign",
    "signbit", "sin", "sinc", "sinh", "sort", "sort_complex", "spacing", "sqrt", "square",
    "subtract", "swapaxes", "take_along_axis", "tan", "tanh", "trace", "trapezoid", "tril",
    "triu", "true_divide", "trunc", "unpackbits", "unstack", "unwrap", "vander", "vdot",
    "vecmat"
})
INLINE_HELPERS = frozenset({
    "squeeze", "moveaxis", "argmax", "argmin", "sum", "prod", "max", "amax", "min", "amin",
    "all", "any", "mean", "average", "power", "broadcast_arrays",
})


def jitted_in_jax(fun: Callable) -> Callable:
    """``fun`` as JAX runs it: a jitted program, as far as jax_debug_nans can tell."""
    @functools.wraps(fun)
    def call(*args: Any, **kwargs: Any) -> Any:
        if nan_checks.CHECKING:
            return _checked_call(fun, args, kwargs)
        return fun(*args, **kwargs)
    return call


def _checked_call(fun: Callable, args: tuple, kwargs: dict) -> Any:
    inputs = tree_leaves((args, kwargs))
    if any(_known(x) is None for x in inputs):  # under vmap, say: outputs could not be checked,
        return fun(*args, **kwargs)         # so every operation is (nan_checks.py)
    with nan_checks.suspended():
        out = fun(*args, **kwargs)
    values = [_known(x) for x in tree_leaves(out)]
    with nan_checks.rerunning():
        nan_checks.check_jit_call(fun.__name__, values, lambda: fun(*args, **kwargs))
    return out


def _known(x: Any) -> Any:
    """The value of ``x`` if it is known now, else None: an array; under grad, the primal;
    under vmap, the whole batch (a NaN in it is a NaN in one of the examples)."""
    while isinstance(x, core.Tracer):
        value = x.to_concrete_value()
        if value is not None:
            return value
        x = getattr(x, "val", None)  # a vmap tracer holds the batched value
    return x
