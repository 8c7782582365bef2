"""``viz.timing`` and ``viz.sweep``: what jit buys you, as pictures.

    viz.timing(f, x)                  # measures eager, jit's first call and jit's steady state
    viz.timing(result)                # the result of %jittime -o
    viz.sweep(f, [10, 100, 1000, 10_000], numpy=np_f)   # time against input size, log-log

Two lessons hide in these numbers. The first call of a jitted function pays for tracing and
compiling, so it is the slowest of all; only the calls after it (the *steady state*) are
fast. And for tiny inputs the fixed cost of a call dominates, so jit only pulls ahead of
eager execution (and of NumPy) once the arrays are big enough: the sweep shows where.

The bar chart is drawn by hand as SVG, on a logarithmic axis (a first call of a second and a
steady state of ten microseconds both stay visible); the sweep is drawn by matplotlib, also
as SVG, so both show without a kernel.
"""
from __future__ import annotations

import io
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from edujax.api import block_until_ready as block
from edujax.jit.api import jit
from edujax.language import Text
from edujax.timing import format_time, measure
from edujax.viz.view import View, escape

COLORS = {"eager": "#6b7280", "jit first call": "#f59e0b", "jit steady state": "#7c3aed",
          "NumPy": "#2563eb", "edujax eager": "#6b7280", "edujax jit": "#7c3aed"}


def time_call(fn: Callable[[], Any], budget: float = 0.2, repeat: int = 3) -> float:
    """Seconds per call of ``fn()``: the best of ``repeat`` runs of as many loops as fit in
    ``budget`` seconds (the best, as ``timeit`` recommends: slower runs measure noise)."""
    start = time.perf_counter()
    block(fn())
    once = max(time.perf_counter() - start, 1e-7)
    loops = max(1, min(10_000, int(budget / repeat / once)))
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(loops):
            block(fn())
        best = min(best, (time.perf_counter() - start) / loops)
    return best


def _wait_for_compiles(jitted: Any, timeout: float = 120.0) -> None:
    """Let background (tiered) Numba compiles finish, so the steady state is the kernels'."""
    for entry in jitted.cache_info().entries:
        wait = getattr(entry.executable, "wait", None)
        if wait is not None:
            wait(timeout)


def from_result(result: Any) -> dict[str, float]:
    """The three numbers of a ``%jittime -o`` result (``.eager`` and ``.jit`` are IPython
    ``TimeitResult`` objects, ``.first_call`` is in seconds)."""
    return {"eager": result.eager.average, "jit first call": result.first_call,
            "jit steady state": result.jit.average}


FIRST_CALL_NOTE = Text("first call = trace {trace} + compile {compile} + run {run}",
                       "첫 호출 = 추적 {trace} + 컴파일 {compile} + 실행 {run}")
TIERS_NOTE = Text("backend {backend}: the first call ran on tier {first}, later calls on {later}",
                  "백엔드 {backend}: 첫 호출은 {first} 단계에서, 이후 호출은 {later} 단계에서 "
                  "실행되었습니다")
ONE_TIER_NOTE = Text("backend {backend}, every call on tier {tier}",
                     "백엔드 {backend}, 모든 호출이 {tier} 단계에서 실행되었습니다")
FASTER = Text("jit is {x:.1f}× faster than eager once compiled",
              "컴파일된 뒤 jit이 즉시 실행(eager)보다 {x:.1f}배 빠릅니다")
SLOWER = Text("jit is {x:.1f}× slower than eager here (the inputs are too small to pay off)",
              "여기서는 jit이 즉시 실행(eager)보다 {x:.1f}배 느립니다(입력이 너무 작아 이득이 "
              "없습니다)")


def result_note(result: Any) -> str:
    """Where the first call's time went, and what ran: from a ``%jittime -o`` result.

    The first call of a tiered backend runs on one tier and the later ones on another; the
    note names both, as the printed report does."""
    parts = []
    if hasattr(result, "trace") and hasattr(result, "compile"):
        parts.append(FIRST_CALL_NOTE.format(trace=format_time(result.trace),
                                            compile=format_time(result.compile),
                                            run=format_time(result.run)))
    if getattr(result, "backend", None):
        first = getattr(getattr(result, "first", None), "tier", None)
        later = getattr(result, "tier", "?")
        if first is not None and first != later:
            parts.append(TIERS_NOTE.format(backend=result.backend, first=first, later=later))
        else:
            parts.append(ONE_TIER_NOTE.format(backend=result.backend, tier=later))
    return "; ".join(parts)


# ------------------------------------------------------------------------- the bar chart
@dataclass
class Bar:
    label: str
    seconds: float
    x: float = 0.0  # where the bar ends, in pixels (filled in by ``layout``)


WIDTH, LEFT, BAR, GAP = 560, 130, 26, 10


def log_axis(values: Sequence[float]) -> tuple[int, int]:
    """Whole powers of ten around the values: the decades the axis spans."""
    lo = math.floor(math.log10(min(values))) if values else -6
    hi = math.ceil(math.log10(max(values))) if values else 0
    return lo, max(hi, lo + 1)


def bars_svg(bars: list[Bar]) -> str:
    """A horizontal bar chart on a log axis, as a standalone <svg> element."""
    lo, hi = log_axis([b.seconds for b in bars])
    span = WIDTH - LEFT - 90

    def x_of(s: float) -> float:
        return LEFT + span * (math.log10(s) - lo) / (hi - lo)

    height = len(bars) * (BAR + GAP) + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="edujax-chart" width="{WIDTH}" '
             f'height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="Helvetica" '
             'font-size="12">']
    for k in range(lo, hi + 1):  # one grid line per decade: 1 μs, 10 μs, ...
        x = x_of(10.0 ** k)
        parts.append(f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height - 30}" '
                     'stroke="#e5e7eb"/>')
        parts.append(f'<text x="{x:.1f}" y="{height - 14}" text-anchor="middle" '
                     f'fill="#6b7280" font-size="10">{format_time(10.0 ** k)}</text>')
    for i, b in enumerate(bars):
        y = i * (BAR + GAP) + 4
        b.x = x_of(b.seconds)
        color = COLORS.get(b.label, "#7c3aed")
        parts.append(f'<text x="{LEFT - 8}" y="{y + BAR / 2 + 4:.1f}" text-anchor="end">'
                     f"{escape(b.label)}</text>")
        parts.append(f'<rect class="edujax-bar" data-label="{escape(b.label)}" '
                     f'data-seconds="{b.seconds:.6g}" x="{LEFT}" y="{y}" '
                     f'width="{max(b.x - LEFT, 1):.1f}" height="{BAR}" fill="{color}">'
                     f"<title>{escape(b.label)}: {format_time(b.seconds)}</title></rect>")
        parts.append(f'<text x="{max(b.x, LEFT + 1) + 6:.1f}" y="{y + BAR / 2 + 4:.1f}">'
                     f"{format_time(b.seconds)}</text>")
    parts.append("</svg>")
    return "".join(parts)


class TimingView(View):
    """Eager vs jit's first call vs jit's steady state: ``.seconds`` and a bar chart."""

    kind = "timing"

    def __init__(self, seconds: dict[str, float], title: str = "", note: str = ""):
        self.seconds = dict(seconds)
        self.title = title
        self.note = note  # e.g. where the first call's time went

    @property
    def speedup(self) -> float:
        return self.seconds["eager"] / self.seconds["jit steady state"]

    def verdict(self) -> str:
        s = self.speedup
        if s >= 1:
            return FASTER.format(x=s)
        return SLOWER.format(x=1 / s)

    def text(self) -> str:
        width = max(map(len, self.seconds))
        lines = [f"{label:>{width}}: {format_time(s)}" for label, s in self.seconds.items()]
        return "\n".join([*lines, self.verdict(), *([self.note] if self.note else [])])

    def svg(self) -> str:
        return bars_svg([Bar(label, s) for label, s in self.seconds.items()])

    def body_html(self) -> str:
        title = f"{escape(self.title)} · " if self.title else ""
        note = f'<div class="edujax-subtitle">{escape(self.note)}</div>' if self.note else ""
        return (f'<div class="edujax-title">{title}{escape(self.verdict())}</div>'
                f'<div class="edujax-svg">{self.svg()}</div>{note}')

    def widget(self) -> Any:
        from edujax.viz.widgets import ChartWidget
        title = f"{self.title} · {self.verdict()}" if self.title else self.verdict()
        return ChartWidget(svg=self.svg(), title=title, note=self.note,
                           data={"kind": "bars", "seconds": self.seconds})


def timing(fun_or_result: Any, *args: Any, **kwargs: Any) -> TimingView:
    """A bar chart of eager, jit first call and jit steady state.

    Pass a function and its arguments (measured the way ``%jittime`` measures, each call
    blocked on its result), a ``%jittime -o`` result, or a dict ``{label: seconds}``.
    """
    if isinstance(fun_or_result, dict):
        return TimingView(fun_or_result)
    if not hasattr(fun_or_result, "first_call"):
        fun_or_result = measure(fun_or_result, args, kwargs, repeat=3)
    return TimingView(from_result(fun_or_result), title=getattr(fun_or_result, "expr", ""),
                      note=result_note(fun_or_result))


# ------------------------------------------------------------------------- the sweep
def _default_input(n: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(n).astype(np.float32)


class SweepView(View):
    """Seconds per call against input size, one line per implementation, log-log."""

    kind = "sweep"

    def __init__(self, sizes: list[int], series: dict[str, list[float]]):
        self.sizes = list(sizes)
        self.series = series

    def text(self) -> str:
        width = max(map(len, self.series))
        head = f"{'size':>{width}}  " + "  ".join(f"{n:>10}" for n in self.sizes)
        rows = [f"{label:>{width}}  " + "  ".join(f"{format_time(s):>10}" for s in times)
                for label, times in self.series.items()]
        return "\n".join([head, *rows])

    def svg(self) -> str:
        """The plot, drawn by matplotlib without pyplot (no global figure state)."""
        from matplotlib.backends.backend_svg import FigureCanvasSVG  # optional: lazily
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6, 3.6))
        FigureCanvasSVG(fig)
        ax = fig.add_subplot()
        for label, times in self.series.items():
            ax.loglog(self.sizes, times, marker="o", label=label, color=COLORS.get(label))
        ax.set_xlabel("input size (elements)")
        ax.set_ylabel("seconds per call")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        out = io.StringIO()
        fig.savefig(out, format="svg")
        svg = out.getvalue()
        return svg[svg.index("<svg"):]

    def body_html(self) -> str:
        return f'<div class="edujax-svg">{self.svg()}</div>'

    def widget(self) -> Any:
        from edujax.viz.widgets import ChartWidget
        return ChartWidget(svg=self.svg(), title="time per call against input size",
                           data={"kind": "sweep", "sizes": self.sizes, "series": self.series})


def sweep(fns: Callable | dict[str, Callable], sizes: Sequence[int], *,
          numpy: Callable | None = None, make_input: Callable[[int], Any] = _default_input,
          budget: float = 0.05) -> SweepView:
    """Time each function on inputs of each size and plot seconds per call (log-log).

    ``fns`` is an edujax function (timed eagerly and under ``jit``; pass ``numpy=`` to add a
    NumPy version) or a dict ``{label: function}``. Each function gets ``make_input(n)``;
    by default a float32 vector of ``n`` normal samples.
    """
    if callable(fns):
        f = fns
        fns = ({"NumPy": numpy} if numpy is not None else {})
        fns.update({"edujax eager": f, "edujax jit": jit(lambda x: f(x))})
    series: dict[str, list[float]] = {label: [] for label in fns}
    for n in sizes:
        x = make_input(n)
        for label, fn in fns.items():
            if hasattr(fn, "cache_info"):  # jitted: compile first, time the steady state
                block(fn(x))
                _wait_for_compiles(fn)
            series[label].append(time_call(lambda fn=fn, x=x: fn(x), budget=budget))
    return SweepView(list(sizes), series)
