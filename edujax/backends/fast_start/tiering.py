"""Tiered execution: answer at once with the interpreter, switch to the kernels when ready.

Numba needs a fraction of a second (or more) to compile a kernel, while JAX's first call of
a small function takes about 0.1 s. So a new signature first runs on the reference
interpreter (tier ``"reference"``), while a background thread imports the generated module
and compiles its kernels; when that is done, the executable switches itself to the kernels
(tier ``"numba"``: the tier names the compiler the kernels came from, and a program edujax's
own compiler took is ``"direct"`` from its first call). The jit cache entry reports the tier
(``f.cache_info()``).

The compile is queued right after the first call returns (or by ``wait()``), so that the
first call has the CPU to itself. A single worker thread compiles one program after the
other (Numba compiles under a global lock anyway). It is a daemon thread, so a script that
ends does not wait for compiles it no longer needs. ``EDUJAX_TIERED=0`` compiles
synchronously instead.

A program whose kernels an earlier process left as an object file (``aot.py``) is not tiered
at all: loading it takes milliseconds, and its first call runs the kernels.
"""
from __future__ import annotations

import logging
import os
import queue
import threading
from typing import Any, Callable

logger = logging.getLogger("edujax.numba")

_jobs: queue.Queue = queue.Queue()
_worker: threading.Thread | None = None
_worker_lock = threading.Lock()


def tiered_enabled() -> bool:
    """``EDUJAX_TIERED`` (default on); ``0``/``false``/``no``/``off`` turn it off."""
    return os.environ.get("EDUJAX_TIERED", "1").strip().lower() not in ("0", "false", "no", "off")


def _work() -> None:
    while True:
        job = _jobs.get()
        try:
            job()
        except Exception:  # noqa: BLE001 - a job reports its own errors; keep the worker alive
            logger.exception("edujax numba compile job failed")
        finally:
            _jobs.task_done()


def submit(job: Callable[[], None]) -> None:
    """Run ``job`` on the background compile thread (started on first use)."""
    global _worker
    with _worker_lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="edujax-numba-compiler", daemon=True)
            _worker.start()
    _jobs.put(job)


def wait_until_idle() -> None:
    """Block until every queued compile (and the exports they queue) is done: what a
    pre-warm runs before its kernel exits, so that the disk cache holds all of them."""
    _jobs.join()


class TieredExecutable:
    """Runs ``fallback`` until ``compile_program()`` returns the fast executable (and its
    tier)."""

    def __init__(self, fallback: Any, compile_program: Callable[[], Any],
                 text: Callable[[], str], on_error: Callable[[BaseException], None]):
        self._impl = fallback
        self._compile_program = compile_program
        self._text, self._on_error = text, on_error
        self.tier = getattr(fallback, "tier", "reference")
        self.error: BaseException | None = None
        self.ready = threading.Event()
        self._submitted = False

    def start(self) -> None:
        """Queue the compile (the first call does it, once it has its answer)."""
        if not self._submitted:
            self._submitted = True
            submit(self._compile)

    def _compile(self) -> None:
        try:
            self._impl, self.tier = self._compile_program()
        except BaseException as e:  # noqa: BLE001 - keep running on the interpreter
            self.error = e
            self._on_error(e)
        finally:
            self.ready.set()

    def __call__(self, *args: Any) -> list:
        if self._submitted:
            return self._impl(*args)
        # The first call runs before the compile starts, so that it has the CPU to itself
        # (importing and running Numba in another thread would slow it down).
        try:
            return self._impl(*args)
        finally:
            self.start()

    def direct_call(self) -> Any:
        """What a jit cache hit may call instead of this object, once the compile is over
        (the kernels' driver, or the interpreter if it failed); None before."""
        return self._impl if self.ready.is_set() else None

    def wait(self, timeout: float | None = None) -> str:
        """Block until the background compile is over; return the tier."""
        self.start()
        self.ready.wait(timeout)
        return self.tier

    def as_text(self) -> str:
        if self.error is not None:
            return f"# tier: reference (compiling failed: {self.error!r})\n" + self._text()
        if self.tier == "reference":
            return ("# tier: reference (still compiling: calls run on the reference "
                    "interpreter)\n" + self._text())
        return self._text()  # (the compiled program's text names its own tier)
