"""``%jittime f(x)``: what jit buys you, measured honestly.

Timing jitted code is easy to get wrong. Three traps catch most learners:

* **asynchronous dispatch**: a call may return before its result is computed, so
  every timed call here blocks on its result (``jax.block_until_ready``);
* **compile time folded into the first call**: the first call of a new signature
  traces the function and compiles it, so it is timed on its own, split into
  trace + compile + run, and never mixed into the steady-state average;
* **tiny inputs**: for a few numbers, a jitted call's fixed cost can exceed the work
  it saves, so when jit is slower the report says so instead of printing a
  "speed-up" below one.

The measurements follow IPython's ``%timeit`` (the same loop-count rule, the same
``TimeitResult`` and number format), once for the function as written (eager) and
once for ``jax.jit`` of it. With the tiered Numba backend the first call runs on the
reference interpreter while Numba compiles in the background; the steady state is
measured only after that compile has finished, on the compiled tier.
"""
from __future__ import annotations

import functools
import gc
import math
import time
from dataclasses import dataclass
from typing import Any, Callable

from IPython.core.magics.execution import TimeitResult, _format_time

from edujax.api import block_until_ready
from edujax.backends import get_backend
from edujax.config import config
from edujax.jit import jit
from edujax.jit.api import JitWrapped
from edujax.magics.calls import evaluate_call
from edujax.magics.options import MagicParser, int_list, split_options
from edujax.magics.request import read_request

USAGE = ("%jittime [-n N] [-r R] [-q] [-o] [--plot] [--backend NAME] [--static N[,N...]] "
         "f(args...)")
PRECISION = 3          # significant digits, as %timeit prints by default
DEFAULT_REPEAT = 7     # runs, as %timeit
BACKGROUND_COMPILE_TIMEOUT = 600.0


# ------------------------------------------------------------------------- measuring
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


def timeit(call: Callable[[], Any], number: int = 0, repeat: int = DEFAULT_REPEAT
           ) -> TimeitResult:
    """``%timeit``'s measurement: with ``number=0``, loops per run grow 1, 10, 100, ...
    until one run takes at least 0.2 s; then ``repeat`` runs of that many loops."""
    __tracebackhide__ = True
    if number == 0:
        for power in range(10):
            number = 10 ** power
            if _time_loop(call, number) >= 0.2:
                break
    runs = [_time_loop(call, number) for _ in range(repeat)]
    return TimeitResult(number, repeat, min(runs) / number, max(runs) / number, runs, 0.0,
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


def _first_call(jitted: JitWrapped, args: tuple, kwargs: dict) -> tuple[FirstCall, str]:
    __tracebackhide__ = True
    start = time.perf_counter()
    block_until_ready(jitted(*args, **kwargs))
    total = time.perf_counter() - start
    entry = next(reversed(jitted._cache.entries.values()))
    first_tier = entry.tier
    background = None
    if hasattr(entry.executable, "wait"):  # tiered: Numba compiles in the background now
        start = time.perf_counter()
        entry.executable.wait(BACKGROUND_COMPILE_TIMEOUT)
        background = time.perf_counter() - start
    first = FirstCall(total, entry.trace_seconds, entry.compile_seconds, first_tier, background)
    return first, entry.tier


def measure(fun: Callable, args: tuple = (), kwargs: dict | None = None, *, number: int = 0,
            repeat: int = DEFAULT_REPEAT, static_argnums: tuple[int, ...] = (),
            backend: str | None = None, expr: str = "") -> JitTimeResult:
    """Time ``fun(*args, **kwargs)`` eagerly, then a fresh ``jit`` of it: its first call
    and its steady state. ``fun`` may already be jitted: then its eager run is the
    function inside the jit. ``backend`` picks jit's backend for this measurement."""
    __tracebackhide__ = True
    kwargs = kwargs or {}
    if isinstance(fun, JitWrapped):
        static_argnums = static_argnums or fun._static_argnums
        fun = fun._fun
    eager = timeit(_blocking(fun, args, kwargs), number, repeat)
    before = config.read("edujax_backend")
    backend = backend or before
    config.update("edujax_backend", backend)
    try:
        jitted = jit(_fresh(fun), static_argnums=static_argnums)
        first, tier = _first_call(jitted, args, kwargs)
        steady = timeit(_blocking(jitted, args, kwargs), number, repeat)
    finally:
        config.update("edujax_backend", before)
    return JitTimeResult(expr or getattr(fun, "__name__", repr(fun)), eager, steady, first,
                         backend, tier)


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
        return (f"<JitTimeResult {self.expr}: eager {_format_time(self.eager.average)}, "
                f"jit {_format_time(self.jit.average)}, {speedup_text(self.speedup)}>")


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
        _line("jit, first call", f"{_format_time(f.total)} = trace {_format_time(f.trace)}"
              f" + compile {_format_time(f.compile)} + run {_format_time(f.run)}"
              f"  [backend {r.backend}, ran on tier {f.tier}]"),
    ]
    if f.background is not None:
        lines.append(_line("", f"then Numba compiled the kernels in the background: "
                               f"{_format_time(f.background)} (tier {r.tier} from then on)"))
    lines.append(_line("jit, steady state", str(r.jit)))
    if r.speedup >= 1:
        lines.append(_line("speed-up", f"{speedup_text(r.speedup)} (eager / jit, steady state)"))
    else:
        lines.append(_line("speed-up", f"none: {speedup_text(r.speedup)} here. For inputs this"
                                       " small, a jitted call's fixed cost outweighs the work"
                                       " it saves."))
    return lines


# ------------------------------------------------------------------------- the magic
def _parser() -> MagicParser:
    parser = MagicParser("%jittime", USAGE)
    parser.add_argument("-n", dest="number", type=int, default=0)
    parser.add_argument("-r", dest="repeat", type=int, default=DEFAULT_REPEAT)
    parser.add_argument("-q", dest="quiet", action="store_true")
    parser.add_argument("-o", dest="output", action="store_true")
    parser.add_argument("--plot", action="store_true")
    parser.add_argument("--backend", default=None)
    parser.add_argument("--static", type=int_list, default=())
    return parser


def _check(parser: MagicParser, opts: Any) -> None:
    if opts.number < 0 or opts.repeat < 1:
        raise parser.usage_error("-n must be 0 (automatic) or more, -r 1 or more")
    if opts.backend is not None:
        try:
            get_backend(opts.backend)
        except (ValueError, RuntimeError, ImportError) as e:
            raise parser.usage_error(str(e).splitlines()[0]) from None


def jittime_magic(shell: Any, line: str, cell: str | None = None) -> Any:
    """The body of ``%jittime`` / ``%%jittime`` (see the module docstring)."""
    __tracebackhide__ = True  # IPython hides this frame in the user's tracebacks
    parser = _parser()
    tokens, source = split_options(line, takes_value={"-n", "-r", "--backend", "--static"})
    opts, source = read_request(parser, tokens, source, cell, shell.user_ns, "%jittime")
    _check(parser, opts)
    call = evaluate_call(source, shell.user_ns, "%jittime")
    result = measure(call.callee, call.args, call.kwargs, number=opts.number,
                     repeat=opts.repeat, static_argnums=opts.static, backend=opts.backend,
                     expr=call.source)
    if not opts.quiet:
        print(result)
    if opts.plot:
        _show_plot(result)
    return result if opts.output else None


def _show_plot(result: JitTimeResult) -> None:
    try:
        from edujax import viz  # the views are optional: imported only when asked for
    except ImportError:
        print("%jittime --plot: the timing chart is not available yet (edujax.viz is missing)")
        return
    from IPython.display import display
    display(viz.timing(result))
