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
from edujax.grading.verdict import GradingError

DEFAULT_SECONDS = 10.0


class TimeLimitExceeded(GradingError):
    """The student's code ran longer than its time limit."""


_timed_out: set = set()  # code objects of student functions that already ran out of time


@contextmanager
def time_limit(seconds: float, what: str = "your function") -> Iterator[None]:
    """Raise ``TimeLimitExceeded`` inside the block when it runs longer than ``seconds``.

    Signals only reach the main thread, so elsewhere (rare in a notebook) the block
    simply runs without a limit; the grader's own per-cell timeout still applies.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise TimeLimitExceeded(f"{what} did not finish within {seconds:g} s: is there a loop "
                                "that never ends (a while whose condition never changes)?")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def call(f: Any, *args: Any, seconds: float = DEFAULT_SECONDS, name: str = "your function",
         **kwargs: Any) -> Any:
    """``f(*args, **kwargs)``, or a ``GradingError`` that says in words why not."""
    if f is Ellipsis or f is None:
        placeholder = "..." if f is Ellipsis else "None"
        raise GradingError(f"{name} is still `{placeholder}`: replace the placeholder with "
                           "your code.")
    if not callable(f):
        raise GradingError(f"{name} should be a function, but it is a {type(f).__name__}.")
    if getattr(f, "edujax_remote", False):  # a function of the sandboxed notebook
        return f.call(args, kwargs, seconds, name)
    code = getattr(f, "__code__", None)
    if code is not None and code in _timed_out:  # why wait a second time for the same loop?
        raise TimeLimitExceeded(f"{name} did not finish within {seconds:g} s in an earlier "
                                "test, so it is not run again.")
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
        raise GradingError(f"{name} ran out of memory: does it build an array or a list "
                           "that keeps growing?") from None
    except Exception as error:  # the student's bug, explained instead of a bare traceback
        raise GradingError(f"calling {name} raised " + explain_tracing_error(error)) from None
