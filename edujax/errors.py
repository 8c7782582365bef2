"""The exception types JAX raises when Python meets a tracer (``jax.errors``).

A tracer stands for *any* value of its shape and dtype, so Python cannot branch
on it, index a list with it, or turn it into a NumPy array. Each error below
names what went wrong on its first line (exactly as JAX does) and then teaches
the usual fixes.
"""
from __future__ import annotations


class JAXTypeError(TypeError):
    pass


class ConcretizationTypeError(JAXTypeError):
    """A concrete Python value was needed, but only an abstract tracer was there."""

    def __init__(self, tracer, context: str = ""):
        super().__init__(
            "Abstract tracer value encountered where concrete value is expected: "
            f"{tracer._error_repr()}\n{context}{tracer._origin_msg()}\n"
            "Hint: mark the argument static with static_argnums/static_argnames, "
            "or use jnp/lax functions that accept traced values.")


class TracerBoolConversionError(ConcretizationTypeError):
    """``if tracer:``, ``while tracer:``, ``and``/``or``/``not`` on a traced value."""

    def __init__(self, tracer):
        TypeError.__init__(
            self,
            f"Attempted boolean conversion of traced array with shape {tracer.aval.str_short()}.\n"
            f"{tracer._origin_msg()}\n"
            "Hint: use lax.cond or jnp.where instead of a Python if on a traced value, "
            "or mark the argument static (static_argnums/static_argnames).")


class TracerIntegerConversionError(JAXTypeError):
    """``int(tracer)``, ``range(tracer)``, ``lst[tracer]``."""

    def __init__(self, tracer):
        super().__init__(
            "The __index__() method was called on traced array with shape "
            f"{tracer.aval.str_short()}\n{tracer._origin_msg()}\n"
            "Hint: index with a static value, or use lax.dynamic_slice / jnp indexing.")


class TracerArrayConversionError(JAXTypeError):
    """``np.asarray(tracer)``: NumPy functions cannot see inside a trace."""

    def __init__(self, tracer):
        super().__init__(
            "The numpy.ndarray conversion method __array__() was called on traced "
            f"array with shape {tracer.aval.str_short()}\n{tracer._origin_msg()}\n"
            "Hint: use jax.numpy (jnp) instead of numpy (np) inside transformed functions.")


class UnexpectedTracerError(Exception):
    """A tracer escaped the transformation that created it (e.g. saved in a global)."""
