"""Call the student's code with a time limit, and explain what went wrong if it fails.

A hidden test calls a student's function; that function may loop forever, or raise.
Without care, the first stops the whole grading run and the second shows the student a
traceback full of test machinery. ``call`` runs the function under a timer (a SIGALRM,
so it interrupts even a ``while True: pass``) and turns both cases into one sentence:
"your function did not return within 10 s", or "your function raised ZeroDivisionError
at line 3: ...", with a hint when the error is one that tracing causes.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator

from edujax.grading.jittable import explain_tracing_error
from edujax.grading.verdict import YOUR_FUNCTION, GradingError
from edujax.language import Text

DEFAULT_SECONDS = 10.0


class TimeLimitExceeded(GradingError):
    """The student's code ran longer than its time limit."""


NEVER_ENDS = Text("{what} did not finish within {seconds} s: is there a loop that never ends "
                  "(a while whose condition never changes)?",
                  "{what}이(가) {seconds}초 안에 끝나지 않았습니다: 끝나지 않는 루프(조건이 바뀌지 "
                  "않는 while)가 있나요?")
STILL_PLACEHOLDER = Text("{name} is still `{placeholder}`: replace the placeholder with your code.",
                         "{name}이(가) 아직 `{placeholder}`입니다: 자리표시자를 여러분의 코드로 "
                         "바꾸세요.")
NOT_A_FUNCTION = Text("{name} should be a function, but it is a {kind}.",
                      "{name}은(는) 함수여야 하는데 {kind}입니다.")
NOT_AGAIN = Text("{name} did not finish within {seconds} s in an earlier test, so it is not run "
                 "again.",
                 "{name}이(가) 앞 테스트에서 {seconds}초 안에 끝나지 않아 다시 실행하지 않습니다.")
OUT_OF_MEMORY = Text("{name} ran out of memory: does it build an array or a list that keeps "
                     "growing?",
                     "{name}의 메모리가 바닥났습니다: 계속 커지는 배열이나 리스트를 만드나요?")
RAISED = Text("calling {name} raised {error}", "{name}을(를) 호출하자 오류가 났습니다: {error}")

_timed_out: set = set()  # code objects of student functions that already ran out of time


@contextmanager
def time_limit(seconds: float, what: str | None = None) -> Iterator[None]:
    """Raise ``TimeLimitExceeded`` inside the block when it runs longer than ``seconds``.

    Signals only reach the main thread, so elsewhere (rare in a notebook) the block
    simply runs without a limit; the grader's own per-cell timeout still applies.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    what = str(YOUR_FUNCTION) if what is None else what

    def on_alarm(signum: int, frame: Any) -> None:
        raise TimeLimitExceeded(NEVER_ENDS.format(what=what, seconds=f"{seconds:g}"))

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def call(f: Any, *args: Any, seconds: float = DEFAULT_SECONDS, name: str | None = None,
         **kwargs: Any) -> Any:
    """``f(*args, **kwargs)``, or a ``GradingError`` that says in words why not."""
    name = str(YOUR_FUNCTION) if name is None else name
    if f is Ellipsis or f is None:
        placeholder = "..." if f is Ellipsis else "None"
        raise GradingError(STILL_PLACEHOLDER.format(name=name, placeholder=placeholder))
    if not callable(f):
        raise GradingError(NOT_A_FUNCTION.format(name=name, kind=type(f).__name__))
    if getattr(f, "edujax_remote", False):  # a function of the sandboxed notebook
        return f.call(args, kwargs, seconds, name)
    code = getattr(f, "__code__", None)
    if code is not None and code in _timed_out:  # why wait a second time for the same loop?
        raise TimeLimitExceeded(NOT_AGAIN.format(name=name, seconds=f"{seconds:g}"))
    try:
        with time_limit(seconds, name):
            return f(*args, **kwargs)
    except TimeLimitExceeded:
        if code is not None:
            _timed_out.add(code)
        raise
    except GradingError:
        raise
    except MemoryError:
        raise GradingError(OUT_OF_MEMORY.format(name=name)) from None
    except Exception as error:  # the student's bug, explained instead of a bare traceback
        raise GradingError(RAISED.format(name=name, error=explain_tracing_error(error))) from None
