"""The short "what happened / why / fix" box the kernel shows under a JAX error.

JAX's error messages are precise but written for people who already know what a
tracer is. A learner who meets ``TracerBoolConversionError`` for the first time needs
three more sentences: what happened in plain words, why tracing causes it, and the
usual fix, plus where the tutorials explain it. Each ``Hint`` below is those
sentences for one kind of error; ``hint_for(error)`` picks the one that applies.
"""
from __future__ import annotations

import html
from typing import Callable, NamedTuple

from edujax import errors
from edujax.random import KeyReuseWarning

# Where the tutorials teach each topic (paths relative to the repository root); each is in
# notebooks/en/ and, with the same name, in notebooks/ko/.
JIT_TUTORIAL = "notebooks/en/05_jit_and_jaxprs.md"
GOTCHAS_TUTORIAL = "notebooks/en/04_gotchas.md"
GRAD_TUTORIAL = "notebooks/en/03_jax101.md"
RANDOM_TUTORIAL = "notebooks/en/02_quickstart.md"


def _both_languages(path: str) -> str:
    return f"{path} (한국어: {path.replace('/en/', '/ko/')})"


class Hint(NamedTuple):
    title: str
    what: str
    why: str
    fix: str
    tutorial: str

    def text(self) -> str:
        return (f"edujax hint: {self.title}\n  What happened: {self.what}\n"
                f"  Why: {self.why}\n  Fix: {self.fix}\n"
                f"  Tutorial: {_both_languages(self.tutorial)}")

    def html(self) -> str:
        rows = "".join(
            f'<div style="font-weight:600;color:#8a5a12">{label}</div>'
            f"<div>{html.escape(body)}</div>"
            for label, body in (("What happened", self.what), ("Why", self.why),
                                ("Fix", self.fix), ("Tutorial", _both_languages(self.tutorial))))
        return (
            '<div class="edujax-hint" style="border-left:4px solid #e8a33d;background:#fff8ec;'
            'color:#3b2f1e;padding:8px 12px;margin:6px 0;border-radius:4px;'
            'font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:13px;'
            'line-height:1.45">'
            f'<div style="font-weight:700;margin-bottom:6px">edujax hint: '
            f"{html.escape(self.title)}</div>"
            '<div style="display:grid;grid-template-columns:max-content 1fr;'
            f'column-gap:12px;row-gap:3px">{rows}</div></div>')

    def mimebundle(self) -> dict[str, str]:
        return {"text/plain": self.text(), "text/html": self.html()}


TRACER_WHY = ("Inside jit, make_jaxpr or vmap your function runs on tracers: stand-ins "
              "for every possible value of that shape and dtype. Python code that needs "
              "one concrete value cannot get it while tracing.")

BOOL = Hint(
    "Python if / while / and / or on a traced value",
    "Python asked a traced array whether it is True or False.",
    TRACER_WHY,
    "Branch with jnp.where(cond, a, b) or lax.cond(pred, true_fn, false_fn, x); or, if the "
    "value is a setting that rarely changes, mark it static: jax.jit(f, static_argnums=...).",
    JIT_TUTORIAL)

CONCRETE = Hint(
    "a concrete value was needed while tracing",
    "Some code needed an actual number (for a shape, a range, a Python branch) but got "
    "a tracer.",
    TRACER_WHY + " Shapes in particular must be known before the program runs.",
    "Pass the value as a static argument (static_argnums/static_argnames), or compute it "
    "with jnp/lax functions that accept traced values.",
    JIT_TUTORIAL)

INTEGER = Hint(
    "a traced value used as a Python integer",
    "int(), range() or list indexing was called on a traced array.",
    TRACER_WHY,
    "Loop with lax.fori_loop, index arrays with jnp indexing or lax.dynamic_slice, or make "
    "the integer a static argument.",
    JIT_TUTORIAL)

NUMPY = Hint(
    "NumPy was handed a traced value",
    "A NumPy function (np.*) tried to turn a tracer into a NumPy array.",
    "NumPy computes right away on real numbers; a tracer has none. Only jax.numpy (jnp) "
    "functions know how to record operations on tracers.",
    "Use jnp.* instead of np.* inside functions you jit, grad or vmap.",
    GOTCHAS_TUTORIAL)

BOOL_INDEX = Hint(
    "boolean mask with a traced value",
    "x[mask] was used with a mask that depends on the input.",
    "The result's shape would depend on how many entries are True, and under jit every "
    "shape must be known before the values are.",
    "Keep the shape fixed: jnp.where(mask, x, 0), or jnp.nonzero(mask, size=N).",
    GOTCHAS_TUTORIAL)

LEAKED = Hint(
    "a tracer escaped its transformation",
    "A traced value was kept (in a global, a list, an attribute) and used after the jit "
    "or grad that made it had finished.",
    "Tracers only mean something while their transformation is running.",
    "Return values from your function instead of storing them outside it (functions "
    "under jit should be pure).",
    GOTCHAS_TUTORIAL)

SCALAR_GRAD = Hint(
    "grad of a function that does not return a scalar",
    "jax.grad was applied to a function whose output is an array, not one number.",
    "A gradient is the derivative of ONE number with respect to the inputs; for an "
    "array output there is one gradient per element (a Jacobian).",
    "Reduce the output (jnp.sum, jnp.mean) to the loss you care about, or use "
    "jax.jacrev / jax.vjp for a vector output.",
    GRAD_TUTORIAL)

IMMUTABLE = Hint(
    "JAX arrays cannot be changed in place",
    "x[i] = v was tried on a JAX array.",
    "JAX arrays are immutable, so that transformed programs stay pure functions.",
    "Write y = x.at[i].set(v) (also .add, .mul, .min, .max): it returns an updated copy.",
    GOTCHAS_TUTORIAL)

KEY_REUSE = Hint(
    "a PRNG key was used twice",
    "The same key was handed to two random functions, so both got the same 'random' bits.",
    "JAX's random numbers are a pure function of the key: same key, same numbers.",
    "Split before each use: key, subkey = jax.random.split(key), then use subkey once.",
    RANDOM_TUTORIAL)


NAN_FOUND = Hint(
    "jax_debug_nans found the operation that made a NaN",
    "With jax_debug_nans (or jax_debug_infs) on, an operation's output held a NaN (or an "
    "inf), and the error names that operation.",
    "log of a negative number, sqrt of a negative number, 0/0 and inf - inf give NaN; "
    "exp of a large number and division by 0 give inf.",
    "Look at the inputs of the named operation: clip them to its domain, or mask them "
    "with jnp.where before the operation (not after it).",
    GOTCHAS_TUTORIAL)

RANK_PROMOTION = Hint(
    "arrays of different ranks were broadcast together",
    "jax_numpy_rank_promotion is 'raise', and an operation combined arrays of different "
    "ranks, e.g. shapes (3,) and (2, 3).",
    "NumPy would silently add leading dimensions of size 1; this setting refuses that, "
    "because it often hides a bug.",
    "Make the ranks equal on purpose: x[None, :] or x.reshape(1, 3), or jnp.expand_dims.",
    GOTCHAS_TUTORIAL)

STRICT_PROMOTION = Hint(
    "two different dtypes met under strict type promotion",
    "jax_numpy_dtype_promotion is 'strict', and an operation combined arrays of two "
    "different dtypes (say int32 and float32).",
    "Strict promotion never picks a common type for you; only Python scalars adapt.",
    "Cast one side explicitly: x.astype(jnp.float32).",
    GOTCHAS_TUTORIAL)


def _message(error: BaseException) -> str:
    return str(error).split("\n", 1)[0]


# (test, hint): the first test that matches picks the hint. Order matters: the more
# specific exception classes come before the classes they derive from.
RULES: list[tuple[Callable[[BaseException], bool], Hint]] = [
    (lambda e: isinstance(e, errors.TracerBoolConversionError), BOOL),
    (lambda e: isinstance(e, errors.ConcretizationTypeError), CONCRETE),
    # jnp.zeros(n) with a traced n: JAX (and edujax) say it with a TypeError naming the tracer.
    (lambda e: isinstance(e, TypeError) and _message(e).startswith(
        "Shapes must be 1D sequences of concrete values") and "Tracer(" in _message(e),
     CONCRETE),
    (lambda e: isinstance(e, errors.TracerIntegerConversionError), INTEGER),
    (lambda e: isinstance(e, errors.TracerArrayConversionError), NUMPY),
    (lambda e: isinstance(e, errors.NonConcreteBooleanIndexError), BOOL_INDEX),
    (lambda e: isinstance(e, errors.UnexpectedTracerError), LEAKED),
    (lambda e: isinstance(e, TypeError)
     and _message(e).startswith("Gradient only defined for scalar-output functions"),
     SCALAR_GRAD),
    (lambda e: isinstance(e, TypeError) and "item assignment" in _message(e), IMMUTABLE),
    (lambda e: isinstance(e, KeyReuseWarning), KEY_REUSE),
    (lambda e: isinstance(e, FloatingPointError)
     and _message(e).startswith("invalid value ("), NAN_FOUND),
    (lambda e: isinstance(e, ValueError)
     and "jax_numpy_rank_promotion='raise'" in _message(e), RANK_PROMOTION),
    (lambda e: isinstance(e, ValueError)
     and "jax_numpy_dtype_promotion=strict" in _message(e), STRICT_PROMOTION),
]


def hint_for(error: BaseException) -> Hint | None:
    """The hint for this error or warning, or None when there is nothing to add."""
    for test, hint in RULES:
        if test(error):
            return hint
    return None
