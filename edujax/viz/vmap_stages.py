"""``viz.vmap_stages(f, *args)``: what ``vmap`` does to a program, equation by equation.

``vmap`` never sees a batch of examples one at a time. It runs ``f`` once, on tracers that
each stand for a whole batch, and every tracer remembers *where* its batch axis is: its
**batch dimension** (``0``, ``1``..., or ``None`` for a value that is the same for every
example, such as a constant or an argument passed with ``in_axes=None``). Each primitive's
batching rule reads the batch dimensions of its inputs and decides the batched equation(s)
and the batch dimension of its output.

This view puts the two programs side by side, one row per equation of the program for a
single example (``make_jaxpr(f)`` on one slice of the arguments):

* left, that equation, with the Python line it came from;
* middle, the batch dimension each of its outputs gets under ``vmap``;
* right, the equation(s) of ``make_jaxpr(vmap(f))`` that batching it produced: usually
  the same primitive on bigger shapes, sometimes a ``broadcast_in_dim`` or a
  ``transpose`` first, to bring two batch axes together.

How: the single-example jaxpr is replayed under ``vmap`` one equation at a time (as
``eval_jaxpr`` would), reading each output tracer's batch dimension and counting the
equations the staging trace below gained. ``vmap_data`` gives the plain data.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from edujax import core, source_info
from edujax.api import make_jaxpr
from edujax.interpreters.batching import BatchTrace
from edujax.interpreters.partial_eval import DynamicJaxprTrace
from edujax.jaxpr import Literal, Var
from edujax.language import Text
from edujax.pretty import PpContext, format_doc, pp_eqn
from edujax.tree_util import tree_flatten, tree_unflatten
from edujax.viz.view import View, escape
from edujax.vmap import _in_axes_for, _normalize_axis, vmap


# What the view says, in the notebook's language (edujax/language.py).
NOT_BATCHED = Text("not batched", "배치되지 않음")
BATCH_DIM = Text("batch dim {dim}", "배치 차원 {dim}")
TEXT_HEAD = Text("vmap over a batch of {n}: one example -> batch dim -> batched",
                 "크기 {n}인 배치에 대한 vmap: 예제 하나 -> 배치 차원 -> 배치된 프로그램")
TITLE = Text("vmap of {name} over a batch of {n}", "크기 {n}인 배치에 대한 {name}의 vmap")
SAME_EQUATION = Text("(the same equation, on one example's shapes)",
                     "(같은 식, 예제 하나의 모양 그대로)")
AT_OUT_AXES = Text("(already at out_axes)", "(이미 out_axes 위치에 있음)")
LEGEND_BATCHED = Text("batch dimension of the value", "값의 배치 차원")
LEGEND_NOT_BATCHED = Text("not batched: the same for every example",
                          "배치되지 않음: 모든 예제에 똑같은 값")
HEAD_ONE = Text("one example: {code}", "예제 하나: {code}")
HEAD_DIM = Text("batch dim", "배치 차원")
HEAD_BATCHED = Text("batched: {code}", "배치된 프로그램: {code}")
STATIC = Text("the vmap stage view is static HTML: it needs no kernel",
              "vmap 단계 보기는 정적 HTML이라 커널이 필요 없습니다")


@dataclass
class BatchedValue:
    """A variable of the single-example program and where vmap put its batch axis."""
    name: str          # its name in the single-example jaxpr ("b")
    aval: str          # one example's type ("f32[3]")
    batch_dim: int | None  # None: not batched (the same for every example)
    batched_aval: str  # its type in the batched program ("f32[5,3]")

    def __str__(self) -> str:
        dim = str(NOT_BATCHED) if self.batch_dim is None else BATCH_DIM.format(dim=self.batch_dim)
        return f"{self.name}:{self.aval} -> {dim} ({self.batched_aval})"


@dataclass
class BatchedRow:
    """One equation of the single-example program and what vmap made of it."""
    text: str                  # the single-example equation, as make_jaxpr prints it
    place: str                 # its Python line, "file:line:col (function)", or ""
    outputs: list[BatchedValue]
    batched: list[str] = field(default_factory=list)  # the batched program's equations


@dataclass
class VmapData:
    axis_size: int
    consts: list[BatchedValue]   # constants the function closes over: never batched
    inputs: list[BatchedValue]
    rows: list[BatchedRow]
    outputs: list[BatchedValue]  # where the results' batch axes ended up
    moved: list[str]             # equations vmap added at the end to move them to out_axes

    def row(self, primitive: str) -> BatchedRow:
        """The first row whose single-example equation applies ``primitive``."""
        return next(r for r in self.rows if f" = {primitive}" in r.text)


def _eqn_text(eqn: Any, ctx: PpContext) -> str:
    return " ".join(format_doc(pp_eqn(eqn, ctx), 200).split())


def _one_example(leaf: Any, axis: int | None) -> Any:
    """The slice of ``leaf`` that one example sees (all of it when it is not mapped)."""
    return leaf if axis is None else np.take(np.asarray(leaf), 0, axis=axis)


def _staging_below(trace: Any) -> DynamicJaxprTrace:
    while not isinstance(trace, DynamicJaxprTrace):
        trace = trace.parent
    return trace


def _batched_aval(x: Any) -> str:
    value = x.val if isinstance(x, core.Tracer) and hasattr(x, "batch_dim") else x
    return core.get_aval(value).str_short(short_dtypes=True)


class _Replay:
    """Evaluates the single-example jaxpr under vmap, noting per equation the batch
    dimensions of its outputs and the span of batched equations it staged."""

    def __init__(self, closed: Any):
        self.closed = closed
        self.dims: dict[Any, tuple[int | None, str]] = {}  # var -> (batch dim, batched aval)
        self.spans: list[tuple[int, int]] = []

    def note(self, trace: BatchTrace, var: Any, value: Any) -> None:
        _, dim = trace.to_batch_info(value)
        self.dims[var] = (dim, _batched_aval(value))

    def __call__(self, *leaves: Any) -> list:
        jaxpr = self.closed.jaxpr
        trace = core.current_trace()
        staging = _staging_below(trace)
        env = dict(zip(jaxpr.constvars, self.closed.consts))
        env.update(zip(jaxpr.invars, leaves))
        for v, x in zip(jaxpr.invars, leaves):
            self.note(trace, v, x)

        def read(v: Any) -> Any:
            return v.val if type(v) is Literal else env[v]

        for eqn in jaxpr.eqns:
            start = len(staging.eqns)
            with source_info.replaying(eqn.source_info):
                outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            outs = outs if eqn.primitive.multiple_results else [outs]
            for v, x in zip(eqn.outvars, outs):
                env[v] = x
                self.note(trace, v, x)
            self.spans.append((start, len(staging.eqns)))
        return [read(v) for v in jaxpr.outvars]


def vmap_data(fun: Callable, *args: Any, in_axes: Any = 0) -> VmapData:
    """The single-example program of ``fun``, each variable's batch dimension under
    ``vmap(fun, in_axes)`` at ``args``, and the batched equations each equation became."""
    leaves, in_tree = tree_flatten(args)
    axes = [_normalize_axis(a, x) for a, x in zip(_in_axes_for(in_axes, args), leaves)]
    sizes = {np.shape(x)[a] for x, a in zip(leaves, axes) if a is not None}
    if len(sizes) != 1:
        raise ValueError("vmap_stages needs at least one mapped argument, and every mapped "
                         f"axis of the same size (got sizes {sorted(sizes)})")
    examples = tree_unflatten(in_tree, [_one_example(x, a) for x, a in zip(leaves, axes)])
    closed = make_jaxpr(fun)(*examples)
    replay = _Replay(closed)
    batched = make_jaxpr(vmap(replay, in_axes=tuple(axes)))(*leaves)

    ctx, bctx = PpContext(), PpContext()
    for v in [*closed.jaxpr.constvars, *closed.jaxpr.invars]:  # (named first, as printed)
        ctx.name(v)
    for v in [*batched.jaxpr.constvars, *batched.jaxpr.invars]:
        bctx.name(v)

    def value(v: Any) -> BatchedValue:
        dim, aval = replay.dims.get(v, (None, v.aval.str_short(short_dtypes=True)))
        return BatchedValue(ctx.name(v), v.aval.str_short(short_dtypes=True), dim, aval)

    consts = [value(v) for v in closed.jaxpr.constvars]
    inputs = [value(v) for v in closed.jaxpr.invars]
    rows = [BatchedRow(_eqn_text(e, ctx), source_info.summarize(e.source_info),
                       [value(v) for v in e.outvars],
                       [_eqn_text(b, bctx) for b in batched.eqns[start:end]])
            for e, (start, end) in zip(closed.jaxpr.eqns, replay.spans)]
    end = replay.spans[-1][1] if replay.spans else 0
    outputs = [value(v) for v in closed.jaxpr.outvars if type(v) is Var]
    moved = [_eqn_text(b, bctx) for b in batched.eqns[end:]]
    return VmapData(sizes.pop(), consts, inputs, rows, outputs, moved)


def _dim_html(values: list[BatchedValue]) -> str:
    cells = []
    for b in values:
        cls = "ej-bdim-none" if b.batch_dim is None else "ej-bdim"
        label = "—" if b.batch_dim is None else str(b.batch_dim)
        cells.append(f'<span class="{cls}" title="{escape(str(b))}"><b>{escape(b.name)}</b>'
                     f" {label} <small>{escape(b.batched_aval)}</small></span>")
    return " ".join(cells)


class VmapStagesView(View):
    kind = "vmap-stages"

    def __init__(self, data: VmapData, title: str = ""):
        self.data = data
        self.title = title

    def text(self) -> str:
        d = self.data
        out = [TEXT_HEAD.format(n=d.axis_size)]
        out += [f"  const {b}" for b in d.consts]
        out += [f"  in  {b}" for b in d.inputs]
        for row in d.rows:
            where = f"   # {row.place}" if row.place else ""
            out.append(f"  {row.text}{where}")
            out += [f"      {b}" for b in row.outputs]
            out += [f"      => {t}" for t in row.batched]
        out += [f"  out {b}" for b in d.outputs]
        out += [f"      => {t}" for t in d.moved]
        return "\n".join(out)

    @staticmethod
    def _row(left: str, place: str, values: list, batched: list, cls: str,
             empty: str = "") -> str:
        right = "".join(f"<div><code>{escape(t)}</code></div>" for t in batched) or \
            (f'<div class="ej-stage-place">{escape(empty)}</div>' if empty else "")
        return (f'<tr class="{cls}"><td><code>{escape(left)}</code>'
                f'<div class="ej-stage-place">{escape(place)}</div></td>'
                f"<td>{_dim_html(values)}</td><td>{right}</td></tr>")

    def body_html(self) -> str:
        d = self.data
        rows = [self._row(f"const {b.name}:{b.aval}", "", [b], [], "ej-vmap-io")
                for b in d.consts]
        rows += [self._row(f"in {b.name}:{b.aval}", "", [b], [], "ej-vmap-io")
                 for b in d.inputs]
        for row in d.rows:
            batched = any(b.batch_dim is not None for b in row.outputs)
            rows.append(self._row(row.text, row.place, row.outputs, row.batched,
                                  "ej-vmap-batched" if batched else "ej-vmap-unbatched",
                                  str(SAME_EQUATION)))
        rows.append(self._row("out " + " ".join(f"{b.name}:{b.aval}" for b in d.outputs), "",
                              d.outputs, d.moved, "ej-vmap-io", str(AT_OUT_AXES)))
        title = ("<div class='ej-title'>" + TITLE.format(
            name=f"<code>{escape(self.title)}</code>", n=d.axis_size) + "</div>"
            if self.title else "")
        legend = (f"<div class='ej-stage-legend'><span class='ej-bdim'>0</span> "
                  f"{escape(str(LEGEND_BATCHED))} <span class='ej-bdim-none'>—</span> "
                  f"{escape(str(LEGEND_NOT_BATCHED))}</div>")
        head = ("<tr><th>" + HEAD_ONE.format(code="<code>make_jaxpr(f)</code>")
                + f"</th><th>{escape(str(HEAD_DIM))}</th><th>"
                + HEAD_BATCHED.format(code="<code>make_jaxpr(vmap(f))</code>") + "</th></tr>")
        return (f"{title}{legend}<table class='ej-vmap'>{head}{''.join(rows)}</table>")

    def widget(self) -> Any:
        raise ImportError(str(STATIC))


def vmap_stages(fun: Callable, *args: Any, in_axes: Any = 0,
                title: str | None = None) -> VmapStagesView:
    """``fun``'s single-example program beside ``vmap(fun, in_axes)``'s at ``args`` (the
    batched arguments), with the batch dimension of every variable."""
    name = title if title is not None else getattr(fun, "__name__", "")
    return VmapStagesView(vmap_data(fun, *args, in_axes=in_axes), name)
