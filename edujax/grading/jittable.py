""""Your function is not jit-compatible because ...": trace it and explain what broke.

``jit`` runs a function once on *tracers*, stand-ins for every value of a given shape
and dtype, to record its jaxpr. Python code that needs one concrete value (an ``if`` on
an array, ``int(x)``, ``np.asarray(x)``, a shape computed from data) cannot get it and
raises one of JAX's tracer errors. We trace the student's function the way ``jit``
would, and when it fails we say which line of *their* code did it, what happened, why,
and the usual fix: the same "what / why / fix" the edujax kernel shows under the error
(``edujax.kernel.hints``, the classroom layer we share).
"""
from __future__ import annotations

import os
import traceback
from typing import Any, Callable, Sequence

from edujax import api, errors
from edujax.grading.verdict import RETURNED_NONE, PASSED, Verdict, failed, reported
from edujax.language import Text

HINT = Text(" What happened: {what} Why: {why} Fix: {fix}",
            " 무슨 일인가: {what} 왜: {why} 고치는 법: {fix}")
AT_LINE = Text(" (at {where})", " ({where}에서)")
NOT_A_FUNCTION = Text("this should be a function, but it is {value}.",
                      "이것은 함수여야 하는데 {value}입니다.")
NOT_JITTABLE = Text("your function is not jit-compatible: {error}",
                    "여러분의 함수는 jit과 함께 쓸 수 없습니다: {error}")

_EDUJAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The errors that mean "this Python code cannot be traced", as opposed to a plain bug.
TRACING_ERRORS = (errors.ConcretizationTypeError, errors.TracerIntegerConversionError,
                  errors.TracerArrayConversionError, errors.NonConcreteBooleanIndexError,
                  errors.UnexpectedTracerError)


def is_traced_shape_error(error: BaseException) -> bool:
    """``jnp.zeros(n)`` with a traced ``n``: JAX says so with a TypeError showing the tracer."""
    message = str(error)
    return (isinstance(error, TypeError) and "Tracer(" in message
            and message.startswith("Shapes must be 1D sequences of concrete values"))


def student_line(error: BaseException) -> str:
    """``file:line: code`` of the innermost frame outside edujax (the student's line)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not os.path.abspath(f.filename).startswith(_EDUJAX_DIR + os.sep)]
    if not frames:
        return ""
    frame = frames[-1]
    code = f": {frame.line.strip()}" if frame.line else ""
    return AT_LINE.format(where=f"{os.path.basename(frame.filename)}:{frame.lineno}{code}")


def hint_for(error: BaseException):
    """The kernel's "what happened / why / fix" hint for this error, if there is one.

    Imported when needed: the ``edujax.kernel`` package loads IPython, which plain pytest
    runs of these checks may not have; without it the explanation simply has no hint.
    """
    try:
        from edujax.kernel.hints import hint_for as kernel_hint_for
    except ImportError:
        return None
    return kernel_hint_for(error)


def explain_tracing_error(error: BaseException) -> str:
    """The error in one line, where it happened, and the hint's what/why/fix."""
    first_line = str(error).split("\n", 1)[0]
    text = f"{type(error).__name__}{student_line(error)}: {first_line}"
    hint = hint_for(error)
    if hint is not None:
        text += HINT.format(what=hint.what, why=hint.why, fix=hint.fix)
    return text


def check_jittable(f: Callable, *args: Any, static_argnums: int | Sequence[int] = (),
                   **kwargs: Any) -> Verdict:
    """Can ``jax.jit(f, static_argnums=...)`` trace ``f`` on these arguments?"""
    if getattr(f, "edujax_remote", False) and not static_argnums and not kwargs:
        return reported(f.observe("jittable", args))  # the sandbox traces it
    if not callable(f):
        return failed(NOT_A_FUNCTION.format(value=repr(f)))
    try:
        closed = api.make_jaxpr(f, static_argnums=static_argnums)(*args, **kwargs)
    except TRACING_ERRORS as error:
        return failed(NOT_JITTABLE.format(error=explain_tracing_error(error)))
    except TypeError as error:
        if not is_traced_shape_error(error):
            raise
        return failed(NOT_JITTABLE.format(error=explain_tracing_error(error)))
    if not closed.jaxpr.outvars:
        return failed(str(RETURNED_NONE))
    return PASSED


def assert_jittable(f: Callable, *args: Any, **kwargs: Any) -> None:
    """``check_jittable``, raising ``GradingError`` with the explanation when it fails."""
    check_jittable(f, *args, **kwargs).or_raise()
