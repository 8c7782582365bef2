"""``viz.grad_stages(f, *args)``: what ``grad`` does to a program, stage by stage.

1. **JVP**: the program run forward with a tangent beside each value
   (``make_jaxpr`` of ``jax.jvp``).
2. **Partial evaluation**: linearizing splits that program: the *known* equations depend
   only on the primal inputs and run now (the forward pass); the *unknown* ones depend on
   the tangent and are staged into the linear jaxpr; the known values the unknown side
   reads are the *residuals* kept between the two.
3. **Transposition**: the linear jaxpr run backwards, from the output cotangent to the
   input cotangents (``make_jaxpr`` of the ``vjp`` pullback): the backward pass.

Every equation shows the Python line it came from (source_info.py), so the three stages
link back to the source. ``stages_data`` gives the plain data; the view shows the stages
side by side, known equations in blue, unknown in orange, residuals marked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from edujax import source_info
from edujax.api import make_jaxpr, shaped_abstractify
from edujax.api_util import flatten_fun_nokwargs, leaves_only
from edujax.autodiff import jvp, vjp
from edujax.interpreters import ad
from edujax.interpreters import partial_eval as pe
from edujax.jaxpr import Var
from edujax.language import Text
from edujax.pretty import PpContext, format_doc, pp_atom, pp_eqn
from edujax.tree_util import tree_flatten, tree_map
from edujax.viz.view import View, escape


# What the view says, in the notebook's language (edujax/language.py); the words are the
# inside track's (notebooks/inside/ko/03_reverse_mode: 알려진, 모르는, 잔차, 전치).
JVP_TITLE = Text("1. JVP", "1. JVP (순방향)")
PE_TITLE = Text("2. partial evaluation", "2. 부분 평가")
TRANSPOSE_TITLE = Text("3. transposition", "3. 전치")
ROLES = {"known": Text("known", "알려진"), "unknown": Text("unknown", "모르는"),
         "backward": Text("backward", "역방향")}
RESIDUAL = Text("residual", "잔차")
LEGEND_KNOWN = Text("known: runs now (forward pass)", "알려진: 지금 실행 (순방향 패스)")
LEGEND_UNKNOWN = Text("unknown: staged into the linear jaxpr", "모르는: 선형 jaxpr로 스테이징")
LEGEND_RESIDUAL = Text("kept for the backward pass", "역방향 패스를 위해 보관")
TITLE = Text("grad of {name}", "{name}의 grad")
STATIC = Text("the stage view is static HTML: it needs no kernel",
              "단계 보기는 정적 HTML이라 커널이 필요 없습니다")


@dataclass
class StageLine:
    text: str
    role: str   # "jvp", "known", "unknown", "backward"
    place: str  # "file:line:col (function)" or ""
    residual: bool = False  # (partial evaluation) a known output the unknown side reads


@dataclass
class Stage:
    title: Text | str  # (a Text: shown in the language of the moment it is rendered)
    lines: list[StageLine]

    def by_role(self, role: str) -> list[str]:
        return [line.text for line in self.lines if line.role == role]


def _lines(eqns: list, role: str, ctx: PpContext, residuals: set = frozenset()) -> list:
    return [StageLine(" ".join(format_doc(pp_eqn(e, ctx), 200).split()), role,
                      source_info.summarize(e.source_info),
                      any(v in residuals for v in e.outvars)) for e in eqns]


def _context(*var_lists: list) -> PpContext:
    """Names handed out to the inputs first, as the printed jaxpr does."""
    ctx = PpContext()
    for vs in var_lists:
        for v in vs:
            if type(v) is Var:
                ctx.name(v)
    return ctx


def _ones_like(x: Any) -> Any:
    import numpy as np
    return np.ones(np.shape(x), dtype=shaped_abstractify(x).dtype)


def stages_data(fun: Callable, *args: Any) -> list[Stage]:
    """The three stages of ``grad(fun)`` at ``args`` (``fun`` returns a scalar)."""
    tangents = tree_map(_ones_like, args)
    jvp_jaxpr = make_jaxpr(lambda *a: jvp(lambda *p: fun(*p), a, tangents))(*args)
    stage_jvp = Stage(JVP_TITLE, _lines(jvp_jaxpr.eqns, "jvp", _context(
        jvp_jaxpr.jaxpr.constvars, jvp_jaxpr.jaxpr.invars)))

    flat, in_tree = tree_flatten(args)
    found: dict = {}

    def linearized(*leaves: Any) -> tuple[list, None]:
        flat_fun, _ = leaves_only(flatten_fun_nokwargs(fun, in_tree))
        with source_info.transform_name_stack("jvp"):
            outs, linear, _ = ad.linearize_flat(flat_fun, list(leaves))
        found["linear"] = linear
        return [*outs, *linear.consts], None

    known, _ = pe.trace_to_jaxpr(linearized, [shaped_abstractify(x) for x in flat])
    linear = found["linear"]
    n_res = len(linear.consts)
    res_out = known.jaxpr.outvars[len(known.jaxpr.outvars) - n_res:]
    res_vars = {v for v in res_out if type(v) is Var}
    ctx = _context(known.jaxpr.constvars, known.jaxpr.invars, linear.jaxpr.invars)
    for const, out in zip(linear.jaxpr.constvars, res_out):  # a residual: one name, both sides
        # (a literal residual, a scalar constant the tangent reads, is shown as its value)
        ctx.names[const] = ctx.name(out) if type(out) is Var else pp_atom(out, ctx)
    split = (_lines(known.eqns, "known", ctx, res_vars)
             + _lines(linear.jaxpr.eqns, "unknown", ctx))
    stage_pe = Stage(PE_TITLE, split)

    _, pullback = vjp(fun, *args)
    backward = make_jaxpr(pullback)(1.0)
    stage_t = Stage(TRANSPOSE_TITLE,
                    _lines(backward.eqns, "backward",
                           _context(backward.jaxpr.constvars, backward.jaxpr.invars)))
    return [stage_jvp, stage_pe, stage_t]


class StagesView(View):
    kind = "stages"

    def __init__(self, stages: list[Stage], title: str = ""):
        self.stages = stages
        self.title = title

    def text(self) -> str:
        out = []
        for stage in self.stages:
            out.append(f"== {stage.title}")
            for line in stage.lines:
                mark = f" ({RESIDUAL})" if line.residual else ""
                where = f"   # {line.place}" if line.place else ""
                out.append(f"  [{ROLES.get(line.role, line.role)}] {line.text}{mark}{where}")
        return "\n".join(out)

    def body_html(self) -> str:
        columns = []
        tag = f"<span class=ej-res-tag>{escape(str(RESIDUAL))}</span>"
        for stage in self.stages:
            rows = "".join(
                f'<div class="ej-stage-line ej-role-{line.role}'
                f'{" ej-residual" if line.residual else ""}" title="{escape(line.place)}">'
                f'<code>{escape(line.text)}</code>'
                f'{tag if line.residual else ""}'
                f'<div class="ej-stage-place">{escape(line.place)}</div></div>'
                for line in stage.lines)
            columns.append(f'<div class="ej-stage"><div class="ej-lin-title">'
                           f"{escape(str(stage.title))}</div>{rows}</div>")
        legend = (f"<div class='ej-stage-legend'><span class='ej-role-known'>"
                  f"{escape(str(LEGEND_KNOWN))}</span> <span class='ej-role-unknown'>"
                  f"{escape(str(LEGEND_UNKNOWN))}</span> <span class='ej-res-tag'>"
                  f"{escape(str(RESIDUAL))}</span> "
                  f"{escape(str(LEGEND_RESIDUAL))}</div>")
        title = ("<div class='ej-title'>"
                 + TITLE.format(name=f"<code>{escape(self.title)}</code>") + "</div>"
                 if self.title else "")
        return f"{title}{legend}<div class='ej-stages'>{''.join(columns)}</div>"

    def widget(self) -> Any:
        raise ImportError(str(STATIC))


def grad_stages(fun: Callable, *args: Any, title: str | None = None) -> StagesView:
    """JVP, partial evaluation and transposition of ``grad(fun)`` at ``args``."""
    name = title if title is not None else getattr(fun, "__name__", "")
    return StagesView(stages_data(fun, *args), name)
