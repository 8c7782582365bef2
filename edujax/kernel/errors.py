"""How the kernel shows an error: the user's traceback, then a hint box.

IPython lets an extension handle exceptions raised by a cell
(``shell.set_custom_exc``). The handler here does three things, in order:

1. drops edujax's own frames from the traceback (``tracebacks.py``), so the
   frames left are the user's cell and functions;
2. shows that traceback the normal way (``shell.showtraceback``), so the kernel still
   reports the cell as failed with the exception's name and message;
3. if the error is one learners meet while tracing, displays the hint box from
   ``hints.py`` under it.

Key-reuse warnings get the same box, through a wrapper of ``warnings.showwarning``.
"""
from __future__ import annotations

import sys
import warnings
from typing import Any

from IPython.core.error import UsageError
from IPython.display import display

from edujax.kernel.hints import hint_for, localized_message
from edujax.kernel.tracebacks import filter_traceback, hidden_frames_note


def localize(error: BaseException) -> None:
    """Put the one-line hint of an edujax error message in the notebook's language (the
    message is the exception's only argument; anything else is left alone)."""
    if len(error.args) == 1 and isinstance(error.args[0], str):
        error.args = (localized_message(error.args[0]),)


def show_error(shell: Any, etype: type, value: BaseException, tb: Any,
               tb_offset: int | None = None) -> None:
    """IPython's custom exception handler (see ``set_custom_exc``)."""
    tb, hidden = filter_traceback(tb)
    localize(value)
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    # A UsageError (a magic given nonsense) is shown as one line, without any frames, so
    # there is nothing to say about hidden ones.
    if hidden and not issubclass(etype, UsageError):
        print(hidden_frames_note(hidden), file=sys.stderr)
    hint = hint_for(value)
    if hint is not None:
        display(hint.mimebundle(), raw=True)


def _show_warning_with_hint(original: Any) -> Any:
    def showwarning(message: Any, category: type, filename: str, lineno: int,
                    file: Any = None, line: str | None = None) -> None:
        original(message, category, filename, lineno, file, line)
        hint = hint_for(message) if isinstance(message, Warning) else None
        if hint is not None:
            display(hint.mimebundle(), raw=True)
    showwarning.edujax_hint = True
    return showwarning


def register(shell: Any) -> None:
    """Install the error handler and the warning hook on ``shell``."""
    shell.set_custom_exc((Exception,), show_error)
    if not getattr(warnings.showwarning, "edujax_hint", False):
        warnings.showwarning = _show_warning_with_hint(warnings.showwarning)
