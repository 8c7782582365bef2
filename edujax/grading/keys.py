"""Catch a PRNG key used twice.

JAX's random numbers are a pure function of the key: the same key gives the same
"random" numbers, every time. A function that draws twice from one key (instead of
splitting it first) gets correlated, often identical, noise; nothing crashes, the
results are just quietly wrong. edujax can notice: with ``edujax_check_key_reuse`` on,
every sampler records which key it consumed, and warns (``KeyReuseWarning``) when a key
comes back, naming the line of both uses. We turn the check on, run the student's
function, and turn the first warning into the explanation.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

from edujax.config import config
from edujax.grading.verdict import RETURNED_NONE, PASSED, Verdict, failed, reported
from edujax.language import Text
from edujax.random import KeyReuseWarning

KEY_REUSED = Text("a PRNG key was used twice ({count} time(s) in all): {warning} Every key may be "
                  "consumed once: split it into as many keys as you need draws.",
                  "PRNG 키를 두 번 썼습니다(모두 {count}번): {warning} 키는 한 번만 쓸 수 "
                  "있습니다: 필요한 뽑기 수만큼 키를 split하세요.")


def check_no_key_reuse(f: Callable, *args: Any, **kwargs: Any) -> Verdict:
    """Call ``f(*args, **kwargs)``; fail if it consumed any PRNG key twice."""
    if getattr(f, "edujax_remote", False) and not kwargs:  # the sandbox runs and watches it
        return reported(f.observe("key_reuse", args))
    before = config.read("edujax_check_key_reuse")
    config.update("edujax_check_key_reuse", True)  # switching it on forgets earlier uses
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", KeyReuseWarning)
            result = f(*args, **kwargs)
    finally:
        config.update("edujax_check_key_reuse", before)
    reuses = [w for w in caught if issubclass(w.category, KeyReuseWarning)]
    if not reuses and result is None:  # a placeholder body reuses nothing, and draws nothing
        return failed(str(RETURNED_NONE))
    if not reuses:
        return PASSED
    return failed(KEY_REUSED.format(count=len(reuses), warning=reuses[0].message))


def assert_no_key_reuse(f: Callable, *args: Any, **kwargs: Any) -> None:
    """``check_no_key_reuse``, raising ``GradingError`` with the explanation when it fails."""
    check_no_key_reuse(f, *args, **kwargs).or_raise()
