"""Compare a student's array with the expected one, and say how they differ.

The order of the questions is the order a person would ask them in:

1. Is it an array at all? (``None`` usually means a missing ``return``; ``...`` is the
   placeholder the assignment left in the cell.)
2. Is it still a tracer? (A value that escaped from ``jit`` or ``grad``.)
3. Same shape? (``(3,)`` versus ``(3, 1)`` is a classic broadcasting slip.)
4. Same dtype, and (when asked) the same weak type?
5. Same numbers, within a tolerance? If not: the first differing index, how many
   differ, the largest error and the tolerance, so the student can see *how wrong*.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core
from edujax.array import Array
from edujax.grading.verdict import PASSED, Verdict, failed

# Tolerances that suit float32, the default dtype: about 100 units in the last place.
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6


def _missing_value(actual: Any, name: str) -> Verdict | None:
    """The two non-answers that deserve their own sentence."""
    if actual is None:
        return failed(f"{name} is None: did the function forget to `return` its result (or is "
                      "its body still the placeholder `...`)?")
    if actual is Ellipsis:
        return failed(f"{name} is `...`: replace the placeholder `...` with your answer.")
    if isinstance(actual, core.Tracer):
        return failed(f"{name} is a tracer ({type(actual).__name__}), not a value: it escaped "
                      "from a traced function (jit, grad or vmap). Return it from the "
                      "transformed function instead of storing it in a global or a list.")
    return None


def type_str(x: Any) -> str:
    """JAX's short type, ``f32[3,2]``, with a ``~`` in front of a weak type (as JAX prints)."""
    aval = core.get_aval(x)
    return aval.str_short(short_dtypes=True) if not getattr(aval, "weak_type", False) \
        else "~" + aval.str_short(short_dtypes=True)


def _as_numpy(x: Any) -> np.ndarray:
    return np.asarray(x._value if isinstance(x, Array) else x)


def _shape_hint(got: tuple, want: tuple) -> str:
    if got == want[::-1] and len(got) > 1:
        return " It looks transposed: check the order of the axes (or a missing `.T`)."
    if tuple(d for d in got if d != 1) == tuple(d for d in want if d != 1):
        return (" The sizes agree apart from axes of length 1: an extra or missing axis, often "
                "from broadcasting (x[:, None]) or from a sum without keepdims.")
    if not got and want:
        return " You returned a scalar: was a reduction (sum/mean) applied too early?"
    if got and not want:
        return " A scalar was expected: a loss must reduce to one number (jnp.mean or jnp.sum)."
    return ""


def _dtype_hint(got: np.dtype, want: np.dtype) -> str:
    if np.issubdtype(got, np.integer) and np.issubdtype(want, np.floating):
        return (" Integer inputs give integer results: write 1.0 instead of 1, or use "
                "jnp.asarray(x, jnp.float32). (grad needs float inputs.)")
    if got == np.float64 and want == np.float32:
        return " JAX uses 32-bit floats by default: was a NumPy float64 array mixed in?"
    return ""


def check_type(actual: Any, expected: Any, *, name: str = "your result",
               weak_type: bool = False) -> Verdict:
    """Same shape and dtype (and weak type, if ``weak_type=True``) as ``expected``?"""
    missing = _missing_value(actual, name)
    if missing is not None:
        return missing
    try:
        got, want = core.get_aval(actual), core.get_aval(expected)
    except TypeError:
        return failed(f"{name} has type {type(actual).__name__}; expected an array of type "
                      f"{type_str(expected)}.")
    if got.shape != want.shape:
        return failed(f"{name} has shape {got.shape}, expected {want.shape}."
                      + _shape_hint(got.shape, want.shape))
    if got.dtype != want.dtype:
        return failed(f"{name} has dtype {got.dtype}, expected {want.dtype}."
                      + _dtype_hint(got.dtype, want.dtype))
    if weak_type and got.weak_type != want.weak_type:
        which = "weakly typed" if got.weak_type else "strongly typed"
        return failed(
            f"{name} is {type_str(actual)} ({which}), expected {type_str(expected)}. A weak type "
            "(~) comes from a Python scalar such as 2.0: it adopts the dtype of the array it "
            "meets. jnp.asarray(2.0) or jnp.float32(2.0) makes a strong one.")
    return PASSED


def _index_str(index: tuple) -> str:
    return "[" + ", ".join(str(int(i)) for i in index) + "]" if index else "(the scalar)"


def _number(x: np.generic) -> str:
    """A number the way a person writes it: 0.1, not np.float32(0.1)."""
    return f"{x.item():.7g}" if isinstance(x.item(), float) else repr(x.item())


def _explain_values(got: np.ndarray, want: np.ndarray, rtol: float, atol: float,
                    name: str) -> Verdict:
    if np.issubdtype(want.dtype, np.inexact):
        close = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = got == want
    if close.all():
        return PASSED
    bad = np.argwhere(~close)
    first = tuple(bad[0])
    message = (f"{name} differs from the expected value at {len(bad)} of {want.size} "
               f"position(s); the first is element {_index_str(first)}: you have "
               f"{_number(got[first])}, expected {_number(want[first])}.")
    if np.issubdtype(want.dtype, np.inexact):
        with np.errstate(invalid="ignore"):
            err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        if np.isnan(got).any() and not np.isnan(want).any():
            message += (f" {int(np.isnan(got).sum())} value(s) are NaN: look for log of 0 or "
                        "of a negative number, 0/0, or a sqrt of a negative number.")
        else:
            message += (f" Largest error {float(np.nanmax(err)):.3g} (tolerance: "
                        f"atol={atol:g} + rtol={rtol:g} * |expected|).")
    return failed(message)


def check_close(actual: Any, expected: Any, *, rtol: float = DEFAULT_RTOL,
                atol: float = DEFAULT_ATOL, name: str = "your result",
                weak_type: bool = False) -> Verdict:
    """Same shape and dtype as ``expected``, and equal within ``atol + rtol * |expected|``."""
    verdict = check_type(actual, expected, name=name, weak_type=weak_type)
    if not verdict:
        return verdict
    return _explain_values(_as_numpy(actual), _as_numpy(expected), rtol, atol, name)


def check_equal(actual: Any, expected: Any, *, name: str = "your result") -> Verdict:
    """Same shape and dtype, and bit-for-bit the same values (for integers, keys, bools)."""
    return check_close(actual, expected, rtol=0.0, atol=0.0, name=name)


def assert_type(actual: Any, expected: Any, **options: Any) -> None:
    """``check_type``, raising ``GradingError`` with the explanation when it fails."""
    check_type(actual, expected, **options).or_raise()


def assert_close(actual: Any, expected: Any, **options: Any) -> None:
    """``check_close``, raising ``GradingError`` with the explanation when it fails."""
    check_close(actual, expected, **options).or_raise()


def assert_equal(actual: Any, expected: Any, **options: Any) -> None:
    """``check_equal``, raising ``GradingError`` with the explanation when it fails."""
    check_equal(actual, expected, **options).or_raise()
