"""``viz.lineage(f, *args)``: the three texts of one jitted call side by side, linked.

The Python source, the jaxpr jit compiled (after inlining nested calls) and the kernel
module the Numba backend generated. Each equation knows its Python line (source_info.py)
and the generated statements that compute it (backends/numba_cpu/provenance.py), so
hovering or clicking a line in one pane lights up its partners in the other two: the
Python line that made an equation, the equations a line made, the loop statements that
compute them. It works for grad and vmap too: an equation of the backward pass points at
the primal line it transposes.

The linking is CSS alone (``:has()``, ``:hover`` and ``:focus``): no script, so it also
works in a notebook opened without a kernel.
"""
from __future__ import annotations

import inspect
import itertools
from dataclasses import dataclass
from typing import Any, Callable

from edujax import config
from edujax.jit import jit
from edujax.language import Text
from edujax.viz.view import View, escape


# The panes' titles, in the notebook's language (edujax/language.py).
PYTHON_PANE = Text("Python", "Python 소스")
JAXPR_PANE = Text("jaxpr (as compiled)", "jaxpr (컴파일된 그대로)")
KERNEL_PANE = Text("generated kernel", "생성된 커널")
TEXT_PYTHON = Text("python", "파이썬")
TEXT_KERNEL = Text("kernel", "커널")
HINT = Text("hover or click a line: its partners in the other panes light up",
            "줄에 마우스를 올리거나 클릭하면 다른 창의 짝이 되는 줄이 밝게 표시됩니다")
STATIC = Text("the linked panes are static HTML: they need no kernel",
              "연결된 창은 정적 HTML이라 커널이 필요 없습니다")


@dataclass
class Line:
    text: str
    groups: list[int]  # the equations (by index) this line belongs to


@dataclass
class Lineage:
    """The data of the view: three panes of lines, each tagged with equation indices."""
    python: list[Line]
    jaxpr: list[Line]
    kernel: list[Line]

    def coverage(self) -> dict[str, float]:
        """The share of equations that have a Python line and a kernel line."""
        n = len(self.jaxpr)
        in_python = {g for line in self.python for g in line.groups}
        in_kernel = {g for line in self.kernel for g in line.groups}
        return {"python": len(in_python) / n if n else 1.0,
                "kernel": len(in_kernel) / n if n else 1.0}


def lineage_data(fun: Callable, *args: Any, **kwargs: Any) -> Lineage:
    """Compile ``fun`` for ``args`` with the Numba backend and link its three texts."""
    from edujax.backends.numba_cpu.provenance import statement_origins

    before = config.read("edujax_backend")
    config.update("edujax_backend", "numba")
    try:
        executable = jit(fun).lower(*args, **kwargs).compile()._entry.executable
    finally:
        config.update("edujax_backend", before)
    module = getattr(executable, "module", None)
    if module is None:
        raise TypeError(f"viz.lineage needs the Numba backend's generated code; this call "
                        f"ran on {type(executable).__name__}")
    origins = list({id(o): o for o in module.provenance.values()}.values())
    index = {id(o): k for k, o in enumerate(origins)}
    jaxpr = [Line(o.eqn_text, [k]) for k, o in enumerate(origins)]
    body = module.source.split("\nimport math", 1)[-1].strip("\n")  # (the header repeats the jaxpr)
    kernel = [Line(text, [index[id(o)]] if o is not None else [])
              for text, o in zip(body.splitlines(), statement_origins(body, module.provenance))]
    return Lineage(_python_lines(origins), jaxpr, kernel)


def _python_lines(origins: list) -> list[Line]:
    """The source of every function an equation came from, each line tagged."""
    by_line: dict[tuple[str, int], list[int]] = {}
    codes = {}
    for k, o in enumerate(origins):
        frame = o.place.frame
        if frame is None:
            continue
        by_line.setdefault((frame.file_name, frame.start_line), []).append(k)
        codes.setdefault(id(o.place.code), o.place.code)
    lines: list[Line] = []
    for code in codes.values():
        try:
            source, first = inspect.getsourcelines(code)
        except (OSError, TypeError):
            continue
        if lines:
            lines.append(Line("", []))
        for i, text in enumerate(source):
            lines.append(Line(text.rstrip("\n"), by_line.get((code.co_filename, first + i), [])))
    return lines


_ids = itertools.count()


class LineageView(View):
    kind = "lineage"

    def __init__(self, data: Lineage, title: str = ""):
        self.data = data
        self.title = title

    def text(self) -> str:
        out = []
        for k, line in enumerate(self.data.jaxpr):
            python = [p.text.strip() for p in self.data.python if k in p.groups]
            kernel = [c.text.strip() for c in self.data.kernel if k in c.groups]
            out.append(f"{line.text}\n    {TEXT_PYTHON}: {' | '.join(python) or '-'}"
                       f"\n    {TEXT_KERNEL}: {' | '.join(kernel) or '-'}")
        return "\n".join(out)

    @staticmethod
    def _pane(title: str, lines: list[Line], cls: str) -> str:
        rows = []
        for line in lines:
            groups = " ".join(f"q{g}" for g in line.groups)
            focus = ' tabindex="0"' if line.groups else ""
            rows.append(f'<div class="ej-lin-line {groups}"{focus}>'
                        f"{escape(line.text) or '&nbsp;'}</div>")
        return (f'<div class="ej-lin-pane {cls}"><div class="ej-lin-title">{escape(title)}</div>'
                f'<div class="ej-lin-code">{"".join(rows)}</div></div>')

    def body_html(self) -> str:
        vid = f"ejlin{next(_ids)}"
        rules = "".join(f"#{vid}:has(.q{k}:hover) .q{k},#{vid}:has(.q{k}:focus) .q{k}"
                        "{background:#fff3b0;outline:1px solid #d4a72c}"
                        for k in range(len(self.data.jaxpr)))
        title = f"<div class='ej-title'>{escape(self.title)}</div>" if self.title else ""
        hint = f"<div class='ej-stage-legend'>{escape(str(HINT))}</div>"
        return (f"<style>{rules}</style>{title}{hint}<div class='ej-lineage' id='{vid}'>"
                + self._pane(str(PYTHON_PANE), self.data.python, "ej-lin-python")
                + self._pane(str(JAXPR_PANE), self.data.jaxpr, "ej-lin-jaxpr")
                + self._pane(str(KERNEL_PANE), self.data.kernel, "ej-lin-kernel")
                + "</div>")

    def widget(self) -> Any:
        raise ImportError(str(STATIC))


def lineage(fun: Callable, *args: Any, title: str | None = None, **kwargs: Any) -> LineageView:
    """The Python source, jaxpr and generated kernel of ``jit(fun)(*args)``, linked."""
    name = title if title is not None else getattr(fun, "__name__", "")
    return LineageView(lineage_data(fun, *args, **kwargs), name)


__all__ = ["lineage", "lineage_data", "LineageView", "Lineage"]
