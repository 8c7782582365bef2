"""A one-line live display of what a long magic is doing, so it never looks stuck.

``%jittime`` on a large input can take several seconds (it calls the function dozens of
times, eager and jitted, and compiles it once). A cell that shows nothing for that long
looks like a hung kernel. So after the first second the magic shows one line that says
what it is timing now, updated in place (a Jupyter display with a ``display_id``), and
blanks it when the measurement is done: the report printed under it says the rest.
Outside a Jupyter kernel (a terminal IPython) nothing is shown.
"""
from __future__ import annotations

import time
from typing import Any

from IPython.display import display

from edujax.language import Text

SILENT_SECONDS = 1.0     # shorter measurements show no progress line at all

LINE = Text("%jittime: {message} … {seconds:.0f} s so far",
            "%jittime: {message} … 지금까지 {seconds:.0f}초")


class LiveLine:
    """Call it with a message (``line("eager: run 2 of 7")``); ``close()`` at the end."""

    def __init__(self, shell: Any, silent_seconds: float = SILENT_SECONDS):
        self.enabled = getattr(shell, "kernel", None) is not None
        self.start = time.perf_counter()
        self.silent_seconds = silent_seconds
        self.handle: Any = None
        self.shown: list[str] = []       # every line shown, for tests and for the curious

    def __call__(self, message: str) -> None:
        seconds = time.perf_counter() - self.start
        if not self.enabled or seconds < self.silent_seconds:
            return
        text = LINE.format(message=message, seconds=seconds)
        self.shown.append(text)
        bundle = {"text/plain": text}
        if self.handle is None:
            self.handle = display(bundle, raw=True, display_id=True)
        else:
            self.handle.update(bundle, raw=True)

    def close(self) -> None:
        if self.handle is not None:
            self.handle.update({"text/plain": ""}, raw=True)
