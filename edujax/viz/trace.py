"""``viz.trace(f, *args)``: watch tracing happen, one ``bind`` at a time.

``make_jaxpr(f)(*args)`` runs ``f`` on tracers; every ``jnp`` call ends in
``primitive.bind``, which the current trace interprets. This view records each bind while
that happens: the primitive, the user's line that called it, the trace that handled it
(eval, JVP, batching, partial evaluation, staging) and how deeply it was nested (a JVP rule
binds again on the trace below it), the input and output tracers with their avals (and
primal/tangent or batch dimension where they have them), and the jaxpr as it grows.

``trace_events`` gives the plain list (tests read it); the view shows it as text, as a
static HTML stepper (radio buttons and CSS: back, next and every step work without a
kernel, on nbviewer too), and as the full table of steps.
"""
from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from edujax import core, source_info
from edujax.api import make_jaxpr
from edujax.interpreters import partial_eval as pe
from edujax.language import Text
from edujax.pretty import PpContext, format_doc, pp_eqn
from edujax.viz.view import View, escape

# What each trace does, in the words the tutorials use.
TRACE_KINDS = {
    "EvalTrace": "eval",
    "JVPTrace": "JVP",
    "BatchTrace": "batching",
    "PartialEvalTrace": "partial eval",
    "DynamicJaxprTrace": "staging",
}

# What the stepper says, in the notebook's language (edujax/language.py); the trace kinds
# above stay the data's keys, these are the words shown for them.
KIND_NAMES = {"eval": Text("eval", "평가"), "batching": Text("batching", "배치"),
              "partial eval": Text("partial eval", "부분 평가"),
              "staging": Text("staging", "스테이징")}
PRIMAL_TANGENT = Text("primal {primal} tangent {tangent}", "프라이멀 {primal} 탄젠트 {tangent}")
NOT_BATCHED = Text("not batched", "배치되지 않음")
BATCH_DIM = Text("batch dim {dim}", "배치 차원 {dim}")
LITERAL = Text("literal", "리터럴")
STAGED = Text("staged", "스테이징됨")
CONSTANT = Text("constant", "상수")
ZERO = Text("zero", "영(0)")
BINDS = Text("{n} binds", "bind {n}번")
TRACING_BINDS = Text("tracing {name}: {n} binds", "{name} 추적: bind {n}번")
TRACING = Text("tracing {name}", "{name} 추적")
STEP_HEAD = Text("<b>step {step}/{n}</b> {primitive} handled by the {trace} at nesting level "
                 "{level}", "<b>{n}단계 중 {step}단계</b> {primitive}: {trace}가 처리, 중첩 레벨 "
                 "{level}")
TRACE_NAME = Text("{kind} trace", "{kind} 트레이스")
FROM = Text("from {line}", "출처 {line}")
EDUJAX_ITSELF = Text("(edujax itself)", "(edujax 내부)")
IN = Text("in", "입력")
OUT = Text("out", "출력")
JAXPR_SO_FAR = Text("the jaxpr so far", "지금까지의 jaxpr")
NOTHING_STAGED = Text("(nothing staged yet)", "(아직 스테이징된 식 없음)")
EVERY_STEP = Text("every step", "모든 단계")
COLUMNS = [Text("primitive", "프리미티브"), Text("trace", "트레이스"), Text("inputs", "입력"),
           Text("outputs", "출력"), Text("line", "줄")]
BACK = Text("back", "이전")
NEXT = Text("next", "다음")
STATIC = Text("the stepper is static HTML: it needs no kernel",
              "스테퍼는 정적 HTML이라 커널이 필요 없습니다")


def kind_name(kind: str) -> str:
    """A trace kind (``TRACE_KINDS``' values) in the notebook's language."""
    return str(KIND_NAMES.get(kind, kind))


@dataclass
class Value:
    """An input or output of a bind: its aval, and what its trace keeps with it."""
    aval: str
    note: Text | str = ""  # PRIMAL_TANGENT, BATCH_DIM, LITERAL... or a tracer's class name
    values: dict = field(default_factory=dict)  # what the note's placeholders say

    @property
    def detail(self) -> str:
        """``"primal f32[] tangent f32[]"``, ``"batch dim 0"``... in the notebook's language."""
        return self.note.format(**self.values) if isinstance(self.note, Text) else self.note

    def __str__(self) -> str:
        return f"{self.aval} ({self.detail})" if self.detail else self.aval


@dataclass
class Event:
    """One bind, as it happened."""
    step: int
    primitive: str
    trace: str          # the trace kind: eval, JVP, batching, partial eval, staging
    level: int          # 0: bound by the user's code; 1: bound by a rule of level 0; ...
    line: str           # the user's line, "file:line:col (function)", or ""
    names: str          # the name stack: "jvp()", "transpose(jvp())", "vmap()"
    inputs: list[Value]
    outputs: list[Value] = field(default_factory=list)
    jaxpr: list[str] = field(default_factory=list)  # the staged equations so far

    def summary(self) -> str:
        ins = ", ".join(map(str, self.inputs))
        outs = ", ".join(map(str, self.outputs))
        where = f"  @ {self.line}" if self.line else ""
        names = f" [{self.names}]" if self.names else ""
        return (f"{self.step:3d} {'  ' * self.level}{self.primitive} "
                f"[{kind_name(self.trace)}]{names} ({ins}) -> {outs}{where}")


def _describe(x: Any) -> Value:
    aval = core.get_aval(x) if core.is_array_like(x) else None
    short = aval.str_short(short_dtypes=True) if aval is not None else type(x).__name__
    kind = type(x).__name__
    if kind == "JVPTracer":
        return Value(short, PRIMAL_TANGENT, {"primal": _short(x.primal),
                                             "tangent": _short(x.tangent)})
    if kind == "BatchTracer":
        if x.batch_dim is None:
            return Value(short, NOT_BATCHED)
        return Value(short, BATCH_DIM, {"dim": x.batch_dim})
    if kind == "DynamicJaxprTracer":
        return Value(short, LITERAL if x._literal is not None else STAGED)
    if isinstance(x, core.Tracer):
        return Value(short, kind)
    return Value(short, CONSTANT)


def _short(x: Any) -> str | Text:
    if type(x).__name__ == "Zero":
        return ZERO  # (a Text: read when the value is shown)
    return core.get_aval(x).str_short(short_dtypes=True) if core.is_array_like(x) else "?"


def _user_line() -> str:
    """The user's line this bind comes from: the replayed equation's (the backward pass
    transposes equations that remember their line), else the innermost user frame."""
    place = source_info.current()
    if place.code is not None:
        return source_info.summarize(place)
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if source_info.is_user_filename(code.co_filename):
            return source_info.summarize(source_info.SourceInfo(code, frame.f_lasti))
        frame = frame.f_back
    return ""


class _Recorder:
    """Stands in for ``Primitive.bind`` while recording (every primitive shares it)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.level = 0
        self.staging: pe.DynamicJaxprTrace | None = None  # the outermost staging trace
        self.ctx = PpContext()

    def bind(self, prim: core.Primitive, *args: Any, **params: Any) -> Any:
        trace = core.current_trace()
        if self.staging is None and type(trace).__name__ == "DynamicJaxprTrace":
            self.staging = trace
        event = Event(len(self.events), prim.name,
                      TRACE_KINDS.get(type(trace).__name__, type(trace).__name__),
                      self.level, _user_line(), str(source_info.current().name_stack),
                      [_describe(a) for a in args])
        self.events.append(event)
        self.level += 1
        try:
            out = trace.process_primitive(prim, args, params)
        finally:
            self.level -= 1
        event.outputs = [_describe(o) for o in (out if prim.multiple_results else [out])]
        if self.staging is not None:
            for v in self.staging.invars:  # (named first, as the printed jaxpr names them)
                self.ctx.name(v)
            event.jaxpr = [" ".join(format_doc(pp_eqn(e, self.ctx), 200).split())
                           for e in self.staging.eqns]
        return out


def trace_events(fun: Callable, *args: Any, **kwargs: Any) -> list[Event]:
    """Trace ``fun`` with ``make_jaxpr`` and return every bind it made, in order."""
    recorder = _Recorder()
    original = core.Primitive.bind
    core.Primitive.bind = lambda prim, *a, **p: recorder.bind(prim, *a, **p)
    try:
        # (a fresh function each time: make_jaxpr's cache would skip the tracing)
        make_jaxpr(lambda *a, **k: fun(*a, **k))(*args, **kwargs)
    finally:
        core.Primitive.bind = original
    return recorder.events


_ids = itertools.count()


class TraceView(View):
    """The stepper: one panel per bind, radio buttons to move between them."""

    kind = "trace"

    def __init__(self, events: list[Event], title: str = ""):
        self.events = events
        self.title = title

    def text(self) -> str:
        n = len(self.events)
        head = TRACING_BINDS.format(name=self.title, n=n) if self.title else BINDS.format(n=n)
        return "\n".join([head, *(e.summary() for e in self.events)])

    def _panel(self, e: Event) -> str:
        rows = "".join(f"<tr><td>{IN}</td><td>{escape(v.aval)}</td><td>{escape(v.detail)}"
                       "</td></tr>" for v in e.inputs)
        rows += "".join(f"<tr><td>{OUT}</td><td>{escape(v.aval)}</td><td>{escape(v.detail)}"
                        "</td></tr>" for v in e.outputs)
        new = len(e.jaxpr) - self._staged_before(e.step)
        jaxpr = "\n".join(f"<b>{escape(line)}</b>" if i >= len(e.jaxpr) - new else escape(line)
                          for i, line in enumerate(e.jaxpr)) or escape(str(NOTHING_STAGED))
        kind = TRACE_NAME.format(kind=escape(kind_name(e.trace)))
        head = STEP_HEAD.format(
            step=e.step + 1, n=len(self.events), primitive=f"<code>{escape(e.primitive)}</code>",
            trace=f'<span class="ej-trace ej-trace-{escape(e.trace.replace(" ", "-"))}">'
                  f"{kind}</span>", level=e.level)
        line = FROM.format(line=f"<code>{escape(e.line or str(EDUJAX_ITSELF))}</code>")
        return (f'<div class="ej-step-head">{head}</div>'
                f'<div class="ej-step-line">{line}</div>'
                f'<table class="ej-step-values">{rows}</table>'
                f'<div class="ej-step-jaxpr-title">{escape(str(JAXPR_SO_FAR))}</div>'
                f'<pre class="ej-step-jaxpr">{jaxpr}</pre>')

    def _staged_before(self, step: int) -> int:
        return len(self.events[step - 1].jaxpr) if step > 0 else 0

    def body_html(self) -> str:
        vid = f"ejtrace{next(_ids)}"
        n = len(self.events)
        radios, labels, panels, css = [], [], [], []
        for e in self.events:
            rid = f"{vid}-s{e.step}"
            checked = " checked" if e.step == 0 else ""
            radios.append(f'<input type="radio" name="{vid}" id="{rid}" class="ej-step-radio"'
                          f'{checked}>')
            panels.append(f'<div class="ej-step-panel ej-p{e.step}">{self._panel(e)}'
                          + self._nav(vid, e.step, n) + "</div>")
            labels.append(f'<label for="{rid}" class="ej-step-dot ej-d{e.step}" '
                          f'title="{escape(e.primitive)}">{e.step + 1}</label>')
            css.append(f"#{rid}:checked ~ .ej-step-panels .ej-p{e.step}{{display:block}}"
                       f"#{rid}:checked ~ .ej-step-dots .ej-d{e.step}{{background:#1f6feb;"
                       "color:white}")
        table = "".join(f"<tr><td>{e.step + 1}</td><td>{'&nbsp;' * 2 * e.level}"
                        f"<code>{escape(e.primitive)}</code></td><td>{escape(kind_name(e.trace))}</td>"
                        f"<td>{escape(', '.join(map(str, e.inputs)))}</td>"
                        f"<td>{escape(', '.join(map(str, e.outputs)))}</td>"
                        f"<td><code>{escape(e.line)}</code></td></tr>" for e in self.events)
        title = ("<div class='ej-title'>"
                 + TRACING.format(name=f"<code>{escape(self.title)}</code>") + "</div>"
                 if self.title else "")
        heads = "".join(f"<th>{escape(str(c))}</th>" for c in COLUMNS)
        return (f"<style>.ej-step-radio{{display:none}}.ej-step-panel{{display:none}}"
                f"{''.join(css)}</style>{title}<div class='ej-stepper'>{''.join(radios)}"
                f"<div class='ej-step-dots'>{''.join(labels)}</div>"
                f"<div class='ej-step-panels'>{''.join(panels)}</div></div>"
                f"<details class='ej-step-all'><summary>{escape(str(EVERY_STEP))}</summary>"
                f"<table class='ej-step-table'><tr><th>#</th>{heads}</tr>{table}</table></details>")

    @staticmethod
    def _nav(vid: str, step: int, n: int) -> str:
        back = (f'<label for="{vid}-s{step - 1}" class="ej-step-btn">&#8592; {BACK}</label>'
                if step > 0 else f'<span class="ej-step-btn ej-off">&#8592; {BACK}</span>')
        nxt = (f'<label for="{vid}-s{step + 1}" class="ej-step-btn">{NEXT} &#8594;</label>'
               if step + 1 < n else f'<span class="ej-step-btn ej-off">{NEXT} &#8594;</span>')
        return f'<div class="ej-step-nav">{back} {nxt}</div>'

    def widget(self) -> Any:
        raise ImportError(str(STATIC))


def trace(fun: Callable, *args: Any, title: str | None = None, **kwargs: Any) -> TraceView:
    """Replay tracing ``fun(*args)`` one bind at a time (see the module docstring)."""
    name = title if title is not None else getattr(fun, "__name__", repr(fun))
    return TraceView(trace_events(fun, *args, **kwargs), name)
