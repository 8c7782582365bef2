"""Measuring what jit buys, the way ``%timeit`` measures: ``measure(f, args)``.

This is the measurement behind ``%jittime`` (edujax/magics/jittime.py) and ``viz.timing``
(edujax/viz/timing.py). It times a call three ways:

1. **eager**: the function as written, op by op (for an already-jitted function, the
   function inside the jit);
2. **jit, first call**: a *fresh* ``jax.jit`` of it (a new function object, so the user's
   own jit cache is neither used nor changed), split into trace + compile + run; with the
   tiered Numba backend, the background compile that follows is waited for and timed too;
3. **jit, steady state**: the jitted function again, once the compiled tier is in place.

Every timed call blocks on its result (``block_until_ready``), so asynchronous dispatch
never makes a call look faster than it is. Loop counts follow ``%timeit``'s rule and the
results are IPython ``TimeitResult``s, printed in ``%timeit``'s own format.
"""
from __future__ import annotations

import functools
import gc
import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from edujax.api import block_until_ready
from edujax.config import config
from edujax.jit import jit
from edujax.jit.api import JitWrapped
from edujax.language import Text

if TYPE_CHECKING:
    from IPython.core.magics.execution import TimeitResult

PRECISION = 3          # significant digits, as %timeit prints by default
DEFAULT_REPEAT = 7     # runs, as %timeit
BACKGROUND_COMPILE_TIMEOUT = 600.0


def format_time(seconds: float, precision: int = PRECISION) -> str:
    """``211 μs``: ``%timeit``'s number format (IPython's own function)."""
    # IPython is optional (the notebooks extra): imported when first needed, so that
    # ``import edujax.viz`` does not pull it in.
    from IPython.core.magics.execution import _format_time
    return _format_time(seconds, precision)


def _time_loop(call: Callable[[], Any], number: int) -> float:
    """Seconds for ``number`` calls, garbage collection paused (as ``timeit`` does)."""
    __tracebackhide__ = True  # an error in the user's function shows the user's frames
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            call()
        return time.perf_counter() - start
    finally:
        if gc_was_enabled:
            gc.enable()


Progress = Callable[[str], None]    # told what is being timed now, in a few words
CHOOSING = Text("{what}: choosing the loop count ({number:,} loop{s})",
                "{what}: 반복 횟수 정하는 중 ({number:,}회)")
RUN = Text("{what}: run {run} of {repeat} ({number:,} loop{s} each)",
           "{what}: {repeat}번 중 {run}번째 측정 (한 번에 {number:,}회)")
FIRST = Text("jit: first call (trace + compile + run)", "jit: 첫 호출 (추적 + 컴파일 + 실행)")
BACKGROUND = Text("jit: waiting for the background compile",
                  "jit: 백그라운드 컴파일을 기다리는 중")


def _no_progress(message: str) -> None:
    pass


def timeit(call: Callable[[], Any], number: int = 0, repeat: int = DEFAULT_REPEAT,
           budget: float | None = None, progress: Progress = _no_progress,
           what: str = "") -> TimeitResult:
    """``%timeit``'s measurement: with ``number=0``, loops per run grow 1, 10, 100, ...
    until one run takes at least 0.2 s; then ``repeat`` runs of that many loops.

    With a ``budget`` (seconds), runs stop once another one would go past it (at least one
    run is always made), so a slow call is timed fewer times instead of for minutes.
    %timeit throws its loop-count trials away; here, under a budget, the last trial is
    a run of exactly ``number`` loops, so it is kept as the first run.
    """
    from IPython.core.magics.execution import TimeitResult  # optional, as in format_time
    __tracebackhide__ = True
    start = time.perf_counter()
    runs: list[float] = []
    if number == 0:
        for power in range(10):
            number = 10 ** power
            progress(CHOOSING.format(what=what, number=number, s="s" * (number > 1)))
            seconds = _time_loop(call, number)
            if seconds >= 0.2:
                break
        if budget is not None:
            runs.append(seconds)
    while len(runs) < repeat:
        if budget is not None and runs and (
                time.perf_counter() - start + sum(runs) / len(runs) > budget):
            break
        progress(RUN.format(what=what, run=len(runs) + 1, repeat=repeat, number=number,
                            s="s" * (number > 1)))
        runs.append(_time_loop(call, number))
    return TimeitResult(number, len(runs), min(runs) / number, max(runs) / number, runs, 0.0,
                        PRECISION)


def _blocking(fun: Callable, args: tuple, kwargs: dict) -> Callable[[], Any]:
    """One timed call: run ``fun`` and wait until every output array is ready."""
    def call() -> Any:
        __tracebackhide__ = True
        return block_until_ready(fun(*args, **kwargs))
    return call


def _fresh(fun: Callable) -> Callable:
    """A new function object that calls ``fun``: jit keys its cache on the function,
    so jitting this one compiles afresh instead of reusing an earlier compile."""
    @functools.wraps(fun)
    def fresh(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        return fun(*args, **kwargs)
    return fresh


@dataclass
class FirstCall:
    """The first call of a fresh ``jit``: where its time went."""
    total: float
    trace: float
    compile: float
    tier: str                       # what the first call ran on
    background: float | None        # the tiered backend's compile after the call

    @property
    def run(self) -> float:
        return max(self.total - self.trace - self.compile, 0.0)


def _first_call(jitted: JitWrapped, args: tuple, kwargs: dict,
                progress: Progress = _no_progress) -> tuple[FirstCall, str]:
    __tracebackhide__ = True
    start = time.perf_counter()
    block_until_ready(jitted(*args, **kwargs))
    total = time.perf_counter() - start
    entry = next(reversed(jitted._cache.entries.values()))
    first_tier = entry.tier
    background = None
    if hasattr(entry.executable, "wait"):  # tiered: Numba compiles in the background now
        progress(str(BACKGROUND))
        start = time.perf_counter()
        entry.executable.wait(BACKGROUND_COMPILE_TIMEOUT)
        background = time.perf_counter() - start
    first = FirstCall(total, entry.trace_seconds, entry.compile_seconds, first_tier, background)
    return first, entry.tier


def measure(fun: Callable, args: tuple = (), kwargs: dict | None = None, *, number: int = 0,
            repeat: int = DEFAULT_REPEAT, static_argnums: tuple[int, ...] = (),
            backend: str | None = None, expr: str = "", budget: float | None = None,
            progress: Progress = _no_progress) -> JitTimeResult:
    """Time ``fun(*args, **kwargs)`` eagerly, then a fresh ``jit`` of it: its first call
    and its steady state. ``fun`` may already be jitted: then its eager run is the
    function inside the jit. ``backend`` picks jit's backend for this measurement.

    ``budget`` (seconds) bounds the two timing loops, half each (see ``timeit``); the first
    call is timed once, whatever it takes. ``progress`` hears what is being timed."""
    __tracebackhide__ = True
    kwargs = kwargs or {}
    start = time.perf_counter()
    if isinstance(fun, JitWrapped):
        static_argnums = static_argnums or fun._static_argnums
        fun = fun._fun
    half = None if budget is None else budget / 2
    eager = timeit(_blocking(fun, args, kwargs), number, repeat, half, progress, "eager")
    before = config.read("edujax_backend")
    backend = backend or before
    config.update("edujax_backend", backend)
    try:
        jitted = jit(_fresh(fun), static_argnums=static_argnums)
        progress(str(FIRST))
        first, tier = _first_call(jitted, args, kwargs, progress)
        steady = timeit(_blocking(jitted, args, kwargs), number, repeat, half, progress,
                        "jit")
    finally:
        config.update("edujax_backend", before)
    return JitTimeResult(expr or getattr(fun, "__name__", repr(fun)), eager, steady, first,
                         backend, tier, budget, time.perf_counter() - start)


# ------------------------------------------------------------------------- the result
@dataclass
class JitTimeResult:
    """What ``%jittime -o`` returns. ``eager`` and ``jit`` are IPython ``TimeitResult``s
    (``.average``, ``.stdev``, ``.best``, ``.all_runs``, ``.loops``, ...); the other
    times are in seconds."""
    expr: str
    eager: TimeitResult
    jit: TimeitResult
    first: FirstCall
    backend: str
    tier: str            # the tier the steady-state calls ran on
    budget: float | None = None     # seconds the two timing loops were allowed (None: no limit)
    seconds: float = 0.0            # how long the whole measurement took

    first_call = property(lambda self: self.first.total)
    trace = property(lambda self: self.first.trace)
    compile = property(lambda self: self.first.compile)
    run = property(lambda self: self.first.run)
    background_compile = property(lambda self: self.first.background)

    @property
    def speedup(self) -> float:
        """eager / jit, steady state (> 1: jit is faster)."""
        return self.eager.average / self.jit.average if self.jit.average > 0 else math.inf

    def __str__(self) -> str:
        return "\n".join(report_lines(self))

    def __repr__(self) -> str:
        return (f"<JitTimeResult {self.expr}: eager {format_time(self.eager.average)}, "
                f"jit {format_time(self.jit.average)}, {speedup_text(self.speedup)}>")


LABEL_WIDTH = 19


def _line(label: str, text: str) -> str:
    return f"{label:<{LABEL_WIDTH}}{text}"


def speedup_text(speedup: float) -> str:
    """``39.4× faster with jit``, or plainly ``jit is 2.3× slower`` (never a "0.4× speed-up")."""
    if speedup >= 1:
        return f"{speedup:,.1f}× faster with jit"
    return f"jit is {1 / speedup:,.1f}× slower than eager"


def report_lines(r: JitTimeResult) -> list[str]:
    f = r.first
    lines = [
        _line("eager (no jit)", str(r.eager)),
        _line("jit, first call", f"{format_time(f.total)} = trace {format_time(f.trace)}"
              f" + compile {format_time(f.compile)} + run {format_time(f.run)}"
              f"  [backend {r.backend}, ran on tier {f.tier}]"),
    ]
    if f.background is not None:
        lines.append(_line("", f"then Numba compiled the kernels in the background: "
                               f"{format_time(f.background)} (tier {r.tier} from then on)"))
    lines.append(_line("jit, steady state", str(r.jit)))
    if r.budget is not None:
        lines.append(_line("time budget", budget_text(r)))
    if r.speedup >= 1:
        lines.append(_line("speed-up", f"{speedup_text(r.speedup)} (eager / jit, steady state)"))
    else:
        lines.append(_line("speed-up", f"none: {speedup_text(r.speedup)} here. For inputs this"
                                       " small, a jitted call's fixed cost outweighs the work"
                                       " it saves."))
    return lines


def budget_text(r: JitTimeResult) -> str:
    """How the budget was spent: ``4.6 s of 5 s: eager 7 runs × 10 loops, jit 7 × 100``."""
    def spent(t: TimeitResult) -> str:
        return f"{t.repeat} run{'s' * (t.repeat != 1)} × {t.loops:,} loop{'s' * (t.loops != 1)}"
    return (f"{r.seconds:.1f} s in all, {r.budget:g} s for timing loops (-t): "
            f"eager {spent(r.eager)}, jit {spent(r.jit)}")
