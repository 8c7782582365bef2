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

from edujax.grading.verdict import PASSED, Verdict, failed, reported


def check_cache_misses(jitted: Any, *, at_most: int = 1, name: str | None = None) -> Verdict:
    """Has ``jitted`` (a ``jax.jit`` function) missed its cache at most ``at_most`` times?"""
    if getattr(jitted, "edujax_remote", False):  # its cache lives in the sandbox
        return reported(jitted.observe("cache_misses", (), {"at_most": at_most, "name": name}))
    if not hasattr(jitted, "cache_info"):
        return failed(f"{name or 'this function'} is not a jitted function: wrap it with "
                      "jax.jit (or @jax.jit).")
    name = name or getattr(jitted, "__name__", "your function")
    misses = jitted.cache_info().misses
    if misses <= at_most:
        return PASSED
    reasons = [r for r in jitted.explain_misses()[1:] if r][:2]  # the first miss is expected
    why = " Why it missed: " + " / ".join(reasons) if reasons else ""
    return failed(f"{name} was compiled {misses} times (at most {at_most} expected): every "
                  "miss traces and compiles it again." + why + " Keep shapes, dtypes and static "
                  "arguments the same from call to call.")


def assert_cache_misses(jitted: Any, **options: Any) -> None:
    """``check_cache_misses``, raising ``GradingError`` with the explanation when it fails."""
    check_cache_misses(jitted, **options).or_raise()
