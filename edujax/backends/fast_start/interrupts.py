"""Ctrl-C during a compiled loop: the loop stops, and the student sees a KeyboardInterrupt.

Python handles a signal only between bytecodes, in the main thread. While a Numba kernel
runs, the main thread is in machine code, so Python's own handler (the one that raises
KeyboardInterrupt) waits until the kernel returns. A compiled ``while`` loop can run for
minutes; pressing Interrupt in Jupyter would do nothing for all that time. Three things
make Ctrl-C work anyway, for the programs that can run long (compiled while/scan loops):

1. **A flag the loop reads.** The generated loop function takes a one-element array
   ``stop`` and looks at it once per iteration (``loops._check_stop``); when it is 1 the
   loop breaks out early. The loop's half-finished values are thrown away: the call ends
   with KeyboardInterrupt.
2. **Someone to set the flag while the main thread is busy.** At the C level, Python's
   signal handler writes the signal's number to a "wakeup" file descriptor, if one is set
   (``signal.set_wakeup_fd``), at once, whatever the main thread is doing. A small daemon
   thread (``_Listener``) waits on that pipe and sets ``stop[0] = 1`` when a SIGINT byte
   arrives. (It passes every byte on to any wakeup descriptor set before ours, as an
   asyncio event loop does, so nobody else misses a signal.)
3. **A loop that lets go of the GIL** (``nogil=True`` on loops called from Python), so the
   listener — and Jupyter's own threads, which send the "busy" status and printed output —
   can run while the loop does.

When the native code returns, the interrupt may have fired *inside* Numba's machinery,
where it comes out as a ``SystemError`` ("returned a result with an exception set") or is
swallowed; ``watch_interrupts`` also puts a handler in front of the current one that
remembers the press, so the call ends with a plain KeyboardInterrupt whatever Numba did.

Only the main thread receives signals: loops run from other threads get ``NEVER``, a flag
nobody sets, and run to the end.
"""
from __future__ import annotations

import os
import signal
import threading
from typing import Any, Callable

import numpy as np

NEVER = np.zeros(1, np.int32)  # the flag of calls that cannot be interrupted (never set)
STOP = np.zeros(1, np.int32)   # the flag of calls watched by watch_interrupts


def interrupt_in_chain(error: BaseException | None) -> bool:
    """Is a KeyboardInterrupt among the causes of ``error``?"""
    while error is not None:
        if isinstance(error, KeyboardInterrupt):
            return True
        error = error.__cause__ or error.__context__
    return False


class _Listener:
    """A pipe that Python's C signal handler writes to, and a thread that reads it."""

    def __init__(self) -> None:
        self.pid = os.getpid()           # (a forked child needs a listener of its own)
        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.write_end, False)  # set_wakeup_fd wants a non-blocking fd
        self.forward = -1                # the wakeup fd that was set before ours, if any
        self.depth = 0                   # how many watched calls are running (they nest)
        threading.Thread(target=self._listen, name="edujax-ctrl-c", daemon=True).start()

    def _listen(self) -> None:
        while True:
            data = os.read(self.read_end, 64)
            if signal.SIGINT in data and self.depth:
                STOP[0] = 1
            if self.forward != -1:
                try:
                    os.write(self.forward, data)
                except OSError:
                    pass

    def attach(self) -> int:
        """Become the wakeup fd; returns the previous one (to restore, and to forward to).
        Calls nest (a Python loop around a compiled body that has a compiled loop)."""
        previous = signal.set_wakeup_fd(self.write_end, warn_on_full_buffer=False)
        if self.depth == 0:
            self.forward = previous
        self.depth += 1
        return previous

    def detach(self, previous: int) -> None:
        self.depth -= 1
        signal.set_wakeup_fd(previous, warn_on_full_buffer=False)


_listener: _Listener | None = None


def _get_listener() -> _Listener | None:
    global _listener
    if _listener is None or _listener.pid != os.getpid():
        try:
            _listener = _Listener()
        except (OSError, RuntimeError):  # no pipes or threads left: Ctrl-C waits for the end
            return None
    return _listener


def watch_interrupts(call: Callable[[np.ndarray], Any]) -> Any:
    """``call(stop)``, where ``stop`` is a flag set when Ctrl-C arrives meanwhile; a Ctrl-C
    always ends the call with KeyboardInterrupt."""
    if threading.current_thread() is not threading.main_thread():
        return call(NEVER)          # only the main thread receives signals
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):      # SIG_IGN / SIG_DFL: leave the process's choice alone
        return call(NEVER)
    pressed = []

    def remember(signum: int, frame: Any) -> None:
        pressed.append(signum)
        previous(signum, frame)     # usually raises KeyboardInterrupt right here

    signal.signal(signal.SIGINT, remember)
    listener = _get_listener()
    wakeup = listener.attach() if listener is not None else -1
    STOP[0] = 0
    try:
        result = call(STOP if listener is not None else NEVER)
    except SystemError as e:
        if pressed or interrupt_in_chain(e):
            raise KeyboardInterrupt from None
        raise
    finally:
        if listener is not None:
            listener.detach(wakeup)
        signal.signal(signal.SIGINT, previous)
    if pressed or STOP[0]:          # (a loop that stopped early returned half-done values)
        raise KeyboardInterrupt
    return result
