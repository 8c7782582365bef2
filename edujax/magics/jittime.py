"""``%jittime f(x)``: what jit buys you, measured honestly.

The measuring itself is in edujax/timing.py (``viz.timing`` uses it too); this module
reads the magic's options and prints or plots the result.

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

The two timing loops share a budget, ``-t`` seconds (5 by default, 0 for none; ``-r R``
alone asks for exactly R runs instead): the loop count is picked as %timeit picks it, and
the (at most 7) runs stop when the next would go past the budget,
so a large input never keeps the cell silent for long; a live line says what is being
timed (progress.py), and the report ends with how the budget was spent.
"""
from __future__ import annotations

from typing import Any

from IPython.display import display

from edujax import viz
from edujax.backends import get_backend
from edujax.magics.calls import evaluate_call
from edujax.language import Text
from edujax.magics.options import MagicParser, int_list, split_options
from edujax.magics.progress import LiveLine
from edujax.magics.request import read_request
from edujax.timing import DEFAULT_REPEAT, measure

USAGE = ("%jittime [-n N] [-r R] [-t SECONDS] [-q] [-o] [--plot] [--backend NAME] "
         "[--static N[,N...]] f(args...)")
DEFAULT_BUDGET = 5.0   # seconds of timing loops (-t); the first call comes on top
BAD_COUNTS = Text("-n must be 0 (automatic) or more, -r 1 or more, -t 0 (no limit) or more",
                  "-n은 0(자동) 이상, -r은 1 이상, -t는 0(제한 없음) 이상이어야 합니다")


# ------------------------------------------------------------------------- the magic
def _parser() -> MagicParser:
    parser = MagicParser("%jittime", USAGE)
    parser.add_argument("-n", dest="number", type=int, default=0)
    parser.add_argument("-r", dest="repeat", type=int, default=None)
    parser.add_argument("-t", dest="budget", type=float, default=None)
    parser.add_argument("-q", dest="quiet", action="store_true")
    parser.add_argument("-o", dest="output", action="store_true")
    parser.add_argument("--plot", action="store_true")
    parser.add_argument("--backend", default=None)
    parser.add_argument("--static", type=int_list, default=())
    return parser


def _check(parser: MagicParser, opts: Any) -> None:
    if opts.number < 0 or (opts.repeat is not None and opts.repeat < 1) or (
            opts.budget is not None and not opts.budget >= 0):
        raise parser.usage_error(BAD_COUNTS)
    if opts.backend is not None:
        try:
            get_backend(opts.backend)
        except (ValueError, RuntimeError, ImportError) as e:
            raise parser.usage_error(str(e).splitlines()[0]) from None


def _budget(opts: Any) -> float | None:
    """Seconds for the timing loops: ``-t`` (0: no limit); without it, 5 s, unless ``-r``
    asked for an exact number of runs."""
    if opts.budget is not None:
        return opts.budget or None
    return DEFAULT_BUDGET if opts.repeat is None else None


def jittime_magic(shell: Any, line: str, cell: str | None = None) -> Any:
    """The body of ``%jittime`` / ``%%jittime`` (see the module docstring)."""
    __tracebackhide__ = True  # IPython hides this frame in the user's tracebacks
    parser = _parser()
    tokens, source = split_options(line, takes_value={"-n", "-r", "-t", "--backend",
                                                       "--static"})
    opts, source = read_request(parser, tokens, source, cell, shell.user_ns, "%jittime")
    _check(parser, opts)
    call = evaluate_call(source, shell.user_ns, "%jittime")
    live = LiveLine(shell)
    try:
        result = measure(call.callee, call.args, call.kwargs, number=opts.number,
                         repeat=opts.repeat or DEFAULT_REPEAT, static_argnums=opts.static,
                         backend=opts.backend, expr=call.source, budget=_budget(opts),
                         progress=live)
    finally:
        live.close()
    if not opts.quiet:
        print(result)
    if opts.plot:
        display(viz.timing(result))
    return result if opts.output else None
