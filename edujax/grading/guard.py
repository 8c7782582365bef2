"""The first cell of every graded notebook: it keeps the kernel alive and keeps score.

It runs in the student's kernel before their code, and does two things.

1. **Exit calls become errors.** ``exit()``, ``quit()``, ``os._exit()`` and
   ``os.abort()`` would end the kernel, and with it every result gathered so far.
   In the kernel's main thread (where cells run) they now raise ``GradingError``
   instead: that cell fails, grading goes on. Other threads keep the real functions
   (ipykernel itself calls ``os._exit`` from a thread when its parent dies).
2. **Scores are written down as they come.** otter collects each question's result in
   the kernel's memory and writes them all at the very end. If the kernel dies anyway
   (a segfault, ``os.kill``, the memory limit), those are lost; so each result is also
   appended to a progress file, and the grader scores from it (see ``runner.py``).

NB: the student's code runs in this same process, so a determined student can undo all
of this. The grader checks afterwards that the test files are untouched; see
docs/teaching.md for what that does and does not guarantee.
"""
from __future__ import annotations

import builtins
import json
import os
import threading
from typing import Any, Callable

from edujax.grading.feedback import question_result
from edujax.grading.verdict import GradingError


def _refuse(name: str, original: Callable) -> Callable:
    def refused(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not threading.main_thread():
            return original(*args, **kwargs)
        raise GradingError(f"the notebook called {name}(), which would stop the grader's "
                           "kernel; grading goes on without it. Remove the call.")
    return refused


def refuse_exits() -> None:
    namespaces = [vars(builtins)]
    try:  # in a kernel, IPython's own exit/quit live in the user namespace
        from IPython import get_ipython
        if get_ipython() is not None:
            namespaces.append(get_ipython().user_ns)
    except ImportError:
        pass
    for namespace in namespaces:
        for name in ("exit", "quit"):
            if name in namespace:
                namespace[name] = _refuse(name, namespace[name])
    os._exit = _refuse("os._exit", os._exit)
    os.abort = _refuse("os.abort", os.abort)


def record_progress(path: str) -> None:
    """Append every question result otter's Checker produces to ``path`` (JSON lines)."""
    from otter.execute import Checker

    check = Checker.check.__func__

    def check_and_record(cls: Any, *args: Any, **kwargs: Any) -> Any:
        test_file = check(cls, *args, **kwargs)
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(question_result(test_file)._asdict()) + "\n")
        return test_file

    Checker.check = classmethod(check_and_record)


def install(progress_path: str) -> None:
    refuse_exits()
    record_progress(progress_path)


def cell_source(progress_path: str) -> str:
    """The guard cell's code, for the grader to put first in the notebook."""
    return ("import edujax.grading.guard as _edujax_guard\n"
            f"_edujax_guard.install({progress_path!r})\n"
            "del _edujax_guard")
