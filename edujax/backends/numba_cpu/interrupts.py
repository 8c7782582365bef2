"""Ctrl-C during a compiled loop: never lost, never disguised.

Python handles a signal only between bytecodes. While a Numba kernel runs, the signal
waits; when the native code next touches Python the interrupt fires *inside* Numba's
machinery, where it either comes out as a ``SystemError`` ("returned a result with an
exception set") or, sometimes, is swallowed: the kernel finishes and the student's
interrupt is gone. For the programs that can run long (compiled ``while``/``scan`` loops),
``watch_interrupts`` puts a handler in front of the current one for the length of the
call that remembers that Ctrl-C was pressed, so the call ends with a KeyboardInterrupt
whatever Numba did with it. (The native loop itself cannot be stopped half-way: the
interrupt takes effect when the kernel returns.)
"""
from __future__ import annotations

import signal
import threading
from typing import Any, Callable


def interrupt_in_chain(error: BaseException | None) -> bool:
    """Is a KeyboardInterrupt among the causes of ``error``?"""
    while error is not None:
        if isinstance(error, KeyboardInterrupt):
            return True
        error = error.__cause__ or error.__context__
    return False


def watch_interrupts(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)``, turning any Ctrl-C that arrives meanwhile into a KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        return call(*args)          # only the main thread receives signals
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):      # SIG_IGN / SIG_DFL: leave the process's choice alone
        return call(*args)
    pressed = []

    def remember(signum: int, frame: Any) -> None:
        pressed.append(signum)
        previous(signum, frame)     # usually raises KeyboardInterrupt right here

    signal.signal(signal.SIGINT, remember)
    try:
        result = call(*args)
    except SystemError as e:
        if pressed or interrupt_in_chain(e):
            raise KeyboardInterrupt from None
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt
    return result
