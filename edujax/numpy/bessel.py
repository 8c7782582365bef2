"""``jnp.i0`` (the modified Bessel function of the first kind, order 0) and the Kaiser
window built on it.

As JAX does it: ``i0(x) = exp(|x|) * bessel_i0e(|x|)``, where ``bessel_i0e`` (the scaled
function ``exp(-|x|) I0(x)``) is a lax primitive; the scaling keeps the primitive finite for
large ``x``. ``i0`` is a ``custom_jvp``: the derivative found by differentiating that
product is right everywhere except at 0, where ``|x|`` has no derivative; the rule says 0
there (``i0`` is flat at 0: it is even).
"""
from __future__ import annotations

from typing import Any

from edujax import core, dtypes, lax
from edujax.custom_derivatives import custom_jvp
from edujax.errors import ConcretizationTypeError
from edujax.interpreters import ad
from edujax.numpy.ufuncs import _where
from edujax.inner_jit import inner_jit
from edujax.numpy.util import promote_args_inexact


@inner_jit
def i0(x: Any) -> Any:
    """The modified Bessel function of the first kind of order 0 (even in ``x``)."""
    x_arr, = promote_args_inexact("i0", x)
    if dtypes.dtype_and_weak(x_arr)[0].kind != "f":
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {x_arr.dtype}")
    return _i0(x_arr)


@custom_jvp
def _i0(x: Any) -> Any:
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), lax.bessel_i0e(abs_x))


@_i0.defjvp
def _i0_jvp(primals: tuple, tangents: tuple) -> tuple:
    # (JAX calls jax.jvp here; edujax's numpy layer sits below it and calls ad.jvp_flat)
    (primal_out,), (tangent_out,) = ad.jvp_flat(lambda x: [_i0.fun(x)], list(primals),
                                                list(tangents))
    return primal_out, _where(primals[0] == 0, 0.0, tangent_out)


def kaiser(M: int, beta: Any) -> Any:
    """The Kaiser window: ``i0(beta * sqrt(1 - ((n - a) / a)^2)) / i0(beta)``, with
    ``a = (M - 1) / 2``; ``beta`` trades the main lobe's width for side-lobe height."""
    if isinstance(M, core.Tracer):
        raise ConcretizationTypeError(M, "M argument of jnp.kaiser")
    M = int(M)
    dtype = dtypes.float_dtype()
    if M <= 1:
        return lax.full((M,), 1, dtype)
    n = lax.iota(dtype, M)
    alpha = 0.5 * (M - 1)
    return i0(beta * lax.sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(lax.full((), beta, dtype))
