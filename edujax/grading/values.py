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
from edujax.language import Text

# Tolerances that suit float32, the default dtype: about 100 units in the last place.
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6

# What a failed comparison says, in the notebook's language (docs/glossary.md's words).
YOUR_RESULT = Text("your result", "여러분의 결과")
IS_NONE = Text("{name} is None: did the function forget to `return` its result (or is its body "
               "still the placeholder `...`)?",
               "{name}이(가) None입니다: 함수가 결과를 `return`하지 않았거나, 본문이 아직 "
               "자리표시자 `...`인가요?")
IS_ELLIPSIS = Text("{name} is `...`: replace the placeholder `...` with your answer.",
                   "{name}이(가) `...`입니다: 자리표시자 `...`를 여러분의 답으로 바꾸세요.")
IS_TRACER = Text("{name} is a tracer ({kind}), not a value: it escaped from a traced function "
                 "(jit, grad or vmap). Return it from the transformed function instead of "
                 "storing it in a global or a list.",
                 "{name}이(가) 값이 아니라 트레이서({kind})입니다: 추적 중인 함수(jit, grad, vmap) "
                 "밖으로 새어 나왔습니다. 전역 변수나 리스트에 담지 말고 변환된 함수에서 "
                 "return하세요.")
TRANSPOSED = Text(" It looks transposed: check the order of the axes (or a missing `.T`).",
                  " 전치된 것 같습니다: 축의 순서를 확인하세요(`.T`가 빠졌을 수도 있습니다).")
EXTRA_AXIS = Text(" The sizes agree apart from axes of length 1: an extra or missing axis, often "
                  "from broadcasting (x[:, None]) or from a sum without keepdims.",
                  " 길이 1인 축을 빼면 크기가 같습니다: 축이 하나 더 있거나 빠졌습니다. 흔히 "
                  "브로드캐스트(x[:, None])나 keepdims 없는 sum에서 생깁니다.")
GOT_SCALAR = Text(" You returned a scalar: was a reduction (sum/mean) applied too early?",
                  " 스칼라를 돌려주었습니다: 축소(sum/mean)를 너무 일찍 했나요?")
WANT_SCALAR = Text(" A scalar was expected: a loss must reduce to one number (jnp.mean or "
                   "jnp.sum).",
                   " 스칼라가 기대됩니다: 손실은 숫자 하나로 줄어야 합니다(jnp.mean 또는 jnp.sum).")
INT_NOT_FLOAT = Text(" Integer inputs give integer results: write 1.0 instead of 1, or use "
                     "jnp.asarray(x, jnp.float32). (grad needs float inputs.)",
                     " 정수 입력은 정수 결과를 냅니다: 1 대신 1.0을 쓰거나 "
                     "jnp.asarray(x, jnp.float32)를 쓰세요. (grad에는 실수 입력이 필요합니다.)")
FLOAT64 = Text(" JAX uses 32-bit floats by default: was a NumPy float64 array mixed in?",
               " JAX는 기본으로 32비트 실수를 씁니다: NumPy float64 배열이 섞였나요?")
NOT_ARRAY = Text("{name} has type {kind}; expected an array of type {want}.",
                 "{name}의 타입이 {kind}입니다; {want} 타입의 배열이 기대됩니다.")
WRONG_SHAPE = Text("{name} has shape {got}, expected {want}.",
                   "{name}의 모양이 {got}입니다; 기대한 모양은 {want}입니다.")
WRONG_DTYPE = Text("{name} has dtype {got}, expected {want}.",
                   "{name}의 dtype이 {got}입니다; 기대한 dtype은 {want}입니다.")
WEAK = Text("weakly typed", "약한 타입")
STRONG = Text("strongly typed", "강한 타입")
WRONG_WEAK_TYPE = Text(
    "{name} is {got} ({which}), expected {want}. A weak type (~) comes from a Python scalar "
    "such as 2.0: it adopts the dtype of the array it meets. jnp.asarray(2.0) or "
    "jnp.float32(2.0) makes a strong one.",
    "{name}은(는) {got}({which})이고, 기대한 것은 {want}입니다. 약한 타입(~)은 2.0 같은 파이썬 "
    "스칼라에서 생기며, 만나는 배열의 dtype을 따릅니다. jnp.asarray(2.0)이나 jnp.float32(2.0)은 "
    "강한 타입을 만듭니다.")
THE_SCALAR = Text("(the scalar)", "(스칼라)")
DIFFERS = Text("{name} differs from the expected value at {count} of {size} position(s); the "
               "first is element {index}: you have {got}, expected {want}.",
               "{name}이(가) 기대한 값과 {size}개 위치 중 {count}곳에서 다릅니다; 첫 번째는 원소 "
               "{index}입니다: 여러분의 값은 {got}, 기대한 값은 {want}입니다.")
NANS = Text(" {count} value(s) are NaN: look for log of 0 or of a negative number, 0/0, or a "
            "sqrt of a negative number.",
            " {count}개 값이 NaN입니다: 0이나 음수의 log, 0/0, 음수의 sqrt를 찾아보세요.")
LARGEST_ERROR = Text(" Largest error {err} (tolerance: atol={atol} + rtol={rtol} * |expected|).",
                     " 가장 큰 오차는 {err}입니다(허용 오차: atol={atol} + rtol={rtol} * "
                     "|기대값|).")


def _named(name: str | None) -> str:
    return str(YOUR_RESULT) if name is None else name


def _missing_value(actual: Any, name: str) -> Verdict | None:
    """The two non-answers that deserve their own sentence."""
    if actual is None:
        return failed(IS_NONE.format(name=name))
    if actual is Ellipsis:
        return failed(IS_ELLIPSIS.format(name=name))
    if isinstance(actual, core.Tracer):
        return failed(IS_TRACER.format(name=name, kind=type(actual).__name__))
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
        return str(TRANSPOSED)
    if tuple(d for d in got if d != 1) == tuple(d for d in want if d != 1):
        return str(EXTRA_AXIS)
    if not got and want:
        return str(GOT_SCALAR)
    if got and not want:
        return str(WANT_SCALAR)
    return ""


def _dtype_hint(got: np.dtype, want: np.dtype) -> str:
    if np.issubdtype(got, np.integer) and np.issubdtype(want, np.floating):
        return str(INT_NOT_FLOAT)
    if got == np.float64 and want == np.float32:
        return str(FLOAT64)
    return ""


def check_type(actual: Any, expected: Any, *, name: str | None = None,
               weak_type: bool = False) -> Verdict:
    """Same shape and dtype (and weak type, if ``weak_type=True``) as ``expected``?"""
    name = _named(name)
    missing = _missing_value(actual, name)
    if missing is not None:
        return missing
    try:
        got, want = core.get_aval(actual), core.get_aval(expected)
    except TypeError:
        return failed(NOT_ARRAY.format(name=name, kind=type(actual).__name__,
                                       want=type_str(expected)))
    if got.shape != want.shape:
        return failed(WRONG_SHAPE.format(name=name, got=got.shape, want=want.shape)
                      + _shape_hint(got.shape, want.shape))
    if got.dtype != want.dtype:
        return failed(WRONG_DTYPE.format(name=name, got=got.dtype, want=want.dtype)
                      + _dtype_hint(got.dtype, want.dtype))
    if weak_type and got.weak_type != want.weak_type:
        which = WEAK if got.weak_type else STRONG
        return failed(WRONG_WEAK_TYPE.format(name=name, got=type_str(actual), which=which,
                                             want=type_str(expected)))
    return PASSED


def _index_str(index: tuple) -> str:
    return "[" + ", ".join(str(int(i)) for i in index) + "]" if index else str(THE_SCALAR)


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
    message = DIFFERS.format(name=name, count=len(bad), size=want.size,
                             index=_index_str(first), got=_number(got[first]),
                             want=_number(want[first]))
    if np.issubdtype(want.dtype, np.inexact):
        with np.errstate(invalid="ignore"):
            err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        if np.isnan(got).any() and not np.isnan(want).any():
            message += NANS.format(count=int(np.isnan(got).sum()))
        else:
            message += LARGEST_ERROR.format(err=f"{float(np.nanmax(err)):.3g}", atol=f"{atol:g}",
                                            rtol=f"{rtol:g}")
    return failed(message)


def check_close(actual: Any, expected: Any, *, rtol: float = DEFAULT_RTOL,
                atol: float = DEFAULT_ATOL, name: str | None = None,
                weak_type: bool = False) -> Verdict:
    """Same shape and dtype as ``expected``, and equal within ``atol + rtol * |expected|``."""
    name = _named(name)
    verdict = check_type(actual, expected, name=name, weak_type=weak_type)
    if not verdict:
        return verdict
    return _explain_values(_as_numpy(actual), _as_numpy(expected), rtol, atol, name)


def check_equal(actual: Any, expected: Any, *, name: str | None = None) -> Verdict:
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
