"""The exception types JAX raises when Python meets a tracer (``jax.errors``).

A tracer stands for *any* value of its shape and dtype, so Python cannot branch
on it, index a list with it, or turn it into a NumPy array. Each error below
names what went wrong on its first line (exactly as JAX does) and then teaches
the usual fixes.
"""
from __future__ import annotations

_DOCS = "https://docs.jax.dev/en/latest/errors.html#jax.errors."


def _message(first_line: str, tracer, error_name: str, hint: str) -> str:
    """JAX's layout: what happened, where it was traced, a link; then our one-line hint."""
    origin = tracer._origin_msg()
    lines = [first_line] + ([origin] if origin else []) + [f"See {_DOCS}{error_name}", hint]
    return "\n".join(lines)


class JAXTypeError(TypeError):
    pass


class ConcretizationTypeError(JAXTypeError):
    """A concrete Python value was needed, but only an abstract tracer was there."""

    def __init__(self, tracer, context: str = ""):
        first = ("Abstract tracer value encountered where concrete value is expected: "
                 f"{tracer._error_repr()}")
        super().__init__(_message(
            first + ("\n" + context.rstrip("\n") if context else ""), tracer,
            "ConcretizationTypeError",
            "Hint: mark the argument static (static_argnums/static_argnames), or use jnp/lax "
            "functions that accept traced values."))


class TracerBoolConversionError(ConcretizationTypeError):
    """``if tracer:``, ``while tracer:``, ``and``/``or``/``not`` on a traced value."""

    def __init__(self, tracer):
        TypeError.__init__(self, _message(
            f"Attempted boolean conversion of traced array with shape {tracer.aval.str_short()}.",
            tracer, "TracerBoolConversionError",
            "Hint: use lax.cond or jnp.where instead of a Python if on a traced value, "
            "or mark the argument static (static_argnums/static_argnames)."))


class TracerIntegerConversionError(JAXTypeError):
    """``int(tracer)``, ``range(tracer)``, ``lst[tracer]``."""

    def __init__(self, tracer):
        super().__init__(_message(
            "The __index__() method was called on traced array with shape "
            f"{tracer.aval.str_short()}", tracer, "TracerIntegerConversionError",
            "Hint: index with a static value, or use lax.dynamic_slice / jnp indexing."))


class TracerArrayConversionError(JAXTypeError):
    """``np.asarray(tracer)``: NumPy functions cannot see inside a trace."""

    def __init__(self, tracer):
        super().__init__(_message(
            "The numpy.ndarray conversion method __array__() was called on traced "
            f"array with shape {tracer.aval.str_short()}", tracer, "TracerArrayConversionError",
            "Hint: use jax.numpy (jnp) instead of numpy (np) inside transformed functions."))


class UnexpectedTracerError(Exception):
    """A tracer escaped the transformation that created it (e.g. saved in a global)."""


class JAXIndexError(IndexError):
    pass


class NonConcreteBooleanIndexError(JAXIndexError):
    """``x[mask]`` with a traced mask: the result's shape would depend on the mask's values."""

    def __init__(self, aval):
        super().__init__(
            f"Array boolean indices must be concrete; got {aval.str_short()}\n\n"
            f"See {_DOCS}NonConcreteBooleanIndexError\n"
            "Hint: use jnp.where(mask, x, 0) to keep the shape static, or pass size= to "
            "jnp.nonzero.")
