"""``viz.graph``: a jaxpr drawn as a dataflow graph, inline in the notebook.

    viz.graph(f, x)              # the jaxpr of f at x, as make_jaxpr(f)(x) prints it
    viz.graph(jax.jit(f), x)     # what jit compiles, with its Numba fusion groups shaded
    viz.graph(closed)            # a (Closed)Jaxpr you already have

For a jitted function the picture is the jaxpr the Numba backend compiles: nested calls
pasted in, unused equations dropped (``jit(f).lower(x).compile().as_text()`` prints the same
jaxpr at its top). Each fusion group, the equations that become one loop nest, is a shaded
box named like its kernel in the generated source (``fused_0``).
"""
from __future__ import annotations

from typing import Any, Callable

from edujax.api import make_jaxpr
from edujax.jaxpr import ClosedJaxpr, Jaxpr
from edujax.jit.api import JitWrapped
from edujax.language import Text
from edujax.viz.dot import INSTALL_HINT, render_svg, to_dot
from edujax.viz.graph_data import MAX_EQNS, GraphData, jaxpr_graph
from edujax.viz.view import View, escape


def fusion_groups(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, dict[int, str]]:
    """The jaxpr the Numba backend compiles, and {equation index: kernel name} for the
    equations it fuses. Only code generation runs here (quick); nothing is compiled."""
    from edujax.backends.numba_cpu.backend import NumbaProgram  # heavy: only when asked
    from edujax.backends.numba_cpu.codegen import Names

    program = NumbaProgram(closed)
    names = Names(program.jaxpr)  # the same names the generated source uses
    where = dict(program.module.placement)  # equation text -> "fused_0 (Numba loop)", ...
    groups = {}
    for i, eqn in enumerate(program.jaxpr.eqns):
        place = where.get(names.eqn_text(eqn), "")
        if place.startswith("fused_"):
            groups[i] = place.split(" ")[0]
    consts = program.consts[:len(program.jaxpr.constvars)]
    return ClosedJaxpr(program.jaxpr, consts), groups

EQUATIONS = Text("{n} equations", "식 {n}개")
NOT_DRAWN = Text(", {n} more not drawn", ", 나머지 {n}개는 그리지 않음")
FUSION_GROUPS = Text(", {n} fusion groups", ", 퓨전 그룹 {n}개")


class GraphView(View):
    """A jaxpr's graph: ``.data`` (nodes, edges, clusters), ``.dot`` (DOT text), ``.svg``."""

    kind = "graph"

    def __init__(self, closed: ClosedJaxpr | Jaxpr, *, title: str = "", max_eqns: int = MAX_EQNS,
                 collapse: bool = False, groups: dict[int, str] | None = None):
        self.jaxpr = closed
        self.title = title or "jaxpr"   # never a caption that starts with " · "
        self.data: GraphData = jaxpr_graph(closed, max_eqns=max_eqns, collapse=collapse,
                                           groups=groups)
        self.dot = to_dot(self.data, title or "jaxpr")
        self._svg: str | None = None

    @property
    def svg(self) -> str | None:
        """The picture as SVG, or None when Graphviz's ``dot`` is not installed."""
        if self._svg is None:
            self._svg = render_svg(self.dot)
        return self._svg

    def text(self) -> str:
        return str(self.jaxpr)

    def summary(self) -> str:
        d = self.data
        hidden = NOT_DRAWN.format(n=d.hidden_eqns) if d.hidden_eqns else ""
        fused = sum(c.kind == "fusion" for c in d.clusters)
        groups = FUSION_GROUPS.format(n=fused) if fused else ""
        return EQUATIONS.format(n=d.count("eqn")) + hidden + groups

    def body_html(self) -> str:
        head = f'<div class="edujax-title">{escape(self.title)} · {escape(self.summary())}</div>'
        svg = self.svg
        if svg is None:
            return (f'{head}<pre class="edujax-jaxpr">{escape(self.text())}</pre>'
                    f'<div class="edujax-hint">{escape(INSTALL_HINT)}</div>')
        return f'{head}<div class="edujax-svg">{svg}</div>'

    def widget(self) -> Any:
        from edujax.viz.widgets import GraphWidget
        return GraphWidget(svg=self.svg or "", text=self.text(), hint=INSTALL_HINT,
                           title=f"{self.title} · {self.summary()}", data=self.data.to_json())


def graph(fun_or_jaxpr: Callable | ClosedJaxpr | Jaxpr, *args: Any, max_eqns: int = MAX_EQNS,
          collapse: bool = False, fusion: bool = True, title: str = "",
          **kwargs: Any) -> GraphView:
    """Draw the jaxpr of ``fun_or_jaxpr(*args, **kwargs)`` (or a jaxpr you pass) as a graph.

    ``collapse=True`` draws each sub-jaxpr (cond branch, loop body, inner jit) as one box;
    ``max_eqns`` bounds the number of equations drawn; ``fusion=False`` shows a jitted
    function's jaxpr as traced, without the backend's inlining and fusion groups. ``title``
    names a jaxpr you pass (``%jaxpr --graph`` gives the call); a function names itself.
    """
    options = dict(max_eqns=max_eqns, collapse=collapse)
    if isinstance(fun_or_jaxpr, (ClosedJaxpr, Jaxpr)):
        return GraphView(fun_or_jaxpr, title=title, **options)
    name = getattr(fun_or_jaxpr, "__name__", type(fun_or_jaxpr).__name__)
    if isinstance(fun_or_jaxpr, JitWrapped):
        closed = fun_or_jaxpr.lower(*args, **kwargs).jaxpr
        if fusion:
            try:
                flat, groups = fusion_groups(closed)
            except Exception:  # noqa: BLE001 - Numba's codegen failed (jit falls back too):
                return GraphView(closed, title=f"jit({name})", **options)  # draw it unfused
            return GraphView(flat, title=f"jit({name})", groups=groups, **options)
        return GraphView(closed, title=f"jit({name})", **options)
    return GraphView(make_jaxpr(fun_or_jaxpr)(*args, **kwargs), title=name, **options)
