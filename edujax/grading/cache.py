"""Did a jitted function compile once, or once per call?

A jitted function keeps a cache of compiled programs keyed on the *signature* of its
arguments: shapes, dtypes, weak types and the values of static arguments. A loop that
changes one of them every iteration (a growing array, a Python int passed as a static
argument, a float that is sometimes a Python scalar) misses the cache every time, and
"jit made it slower" follows. edujax records why every miss happened
(``f.explain_misses()``); we count the misses and quote the reasons.
"""
from __future__ import annotations

from typing import Any

from edujax.grading.verdict import PASSED, YOUR_FUNCTION, Verdict, failed, reported
from edujax.language import Text

THIS_FUNCTION = Text("this function", "이 함수")
NOT_JITTED = Text("{name} is not a jitted function: wrap it with jax.jit (or @jax.jit).",
                  "{name}은(는) jit된 함수가 아닙니다: jax.jit(또는 @jax.jit)으로 감싸세요.")
WHY_MISSED = Text(" Why it missed: {reasons}", " 캐시를 놓친 이유: {reasons}")
COMPILED_AGAIN = Text("{name} was compiled {misses} times (at most {at_most} expected): every miss "
                      "traces and compiles it again.{why} Keep shapes, dtypes and static "
                      "arguments the same from call to call.",
                      "{name}이(가) {misses}번 컴파일되었습니다(많아야 {at_most}번이 기대됩니다): "
                      "캐시를 놓칠 때마다 다시 추적하고 컴파일합니다.{why} 호출마다 모양, dtype, "
                      "정적 인자를 같게 두세요.")


def check_cache_misses(jitted: Any, *, at_most: int = 1, name: str | None = None) -> Verdict:
    """Has ``jitted`` (a ``jax.jit`` function) missed its cache at most ``at_most`` times?"""
    if getattr(jitted, "edujax_remote", False):  # its cache lives in the sandbox
        return reported(jitted.observe("cache_misses", (), {"at_most": at_most, "name": name}))
    if not hasattr(jitted, "cache_info"):
        return failed(NOT_JITTED.format(name=name or THIS_FUNCTION))
    name = name or getattr(jitted, "__name__", str(YOUR_FUNCTION))
    misses = jitted.cache_info().misses
    if misses <= at_most:
        return PASSED
    reasons = [r for r in jitted.explain_misses()[1:] if r][:2]  # the first miss is expected
    why = WHY_MISSED.format(reasons=" / ".join(reasons)) if reasons else ""
    return failed(COMPILED_AGAIN.format(name=name, misses=misses, at_most=at_most, why=why))


def assert_cache_misses(jitted: Any, **options: Any) -> None:
    """``check_cache_misses``, raising ``GradingError`` with the explanation when it fails."""
    check_cache_misses(jitted, **options).or_raise()
