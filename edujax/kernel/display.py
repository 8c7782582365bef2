"""Rich displays for the notebook: Arrays, jaxprs and pytrees with an HTML form.

IPython shows a value by asking its display formatter for each MIME type; here the
``text/html`` formatter learns two types. The ``text/plain`` form stays exactly what
``repr`` prints (what JAX prints), so nothing a tutorial shows changes; the HTML form
adds a header with the shape and dtype, colours a jaxpr so its variables, types
and primitives are easy to tell apart, and puts a foldable tree (``viz.tree``) under a
pytree of arrays. Both are self-contained HTML with inline
styles: an executed notebook shows them on GitHub or nbviewer without a kernel.
"""
from __future__ import annotations

import html
import re
from typing import Any

import numpy as np

from edujax.array import Array
from edujax.core import short_dtype_name
from edujax.jaxpr import ClosedJaxpr
from edujax.tree_util import tree_leaves
from edujax.viz import tree as tree_view

MONO = "font-family:var(--jp-code-font-family,SFMono-Regular,Menlo,Consolas,monospace)"
BOX = (f"{MONO};font-size:12.5px;border:1px solid #d7dde6;border-radius:6px;"
       "padding:0;margin:2px 0;display:inline-block;max-width:100%;overflow:auto")
HEAD = ("background:#eef3fb;color:#24427a;padding:3px 10px;border-bottom:1px solid #d7dde6;"
        "font-size:12px")
BODY = "margin:0;padding:6px 10px;background:#fff;color:#1f2328;white-space:pre"


def _type_label(x: Array) -> str:
    value = np.asarray(x)
    shape = ",".join(map(str, value.shape))
    weak = " (weakly typed)" if getattr(x, "weak_type", False) else ""
    return f"{short_dtype_name(value.dtype)}[{shape}]{weak}"


def _summary(x: Array) -> str:
    """min / mean / max for a numeric array of more than one element."""
    value = np.asarray(x)
    if value.size < 2 or value.dtype.kind not in "iuf":
        return ""
    finite = value[np.isfinite(value)] if value.dtype.kind == "f" else value
    nans = int(np.isnan(value).sum()) if value.dtype.kind == "f" else 0
    parts = ([f"min {finite.min():.4g}", f"mean {finite.mean():.4g}", f"max {finite.max():.4g}"]
             if finite.size else ["no finite values"])
    if nans:
        parts.append(f"{nans} NaN")
    return " · " + " · ".join(parts)


def array_html(x: Array) -> str:
    """An Array as a card: ``Array f32[3]`` with a summary, over its usual repr."""
    try:
        header = f"<b>Array</b> {html.escape(_type_label(x))}{html.escape(_summary(x))}"
    except Exception:  # noqa: BLE001 - a typed PRNG key or device array: just the repr
        header = "<b>Array</b>"
    return (f'<div class="edujax-array" style="{BOX}"><div style="{HEAD}">{header}</div>'
            f'<pre style="{BODY}">{html.escape(repr(x))}</pre></div>')


# -- jaxprs -------------------------------------------------------------------------
_JAXPR_TOKEN = re.compile(
    r"(?P<typed>\b[a-z_][a-z0-9_]*:(?:~)?[a-z0-9<>]+\[[^\]]*\])"   # a:f32[3]
    r"|(?P<keyword>\{ lambda|\blet\b|\bin\b|\})"
    r"|(?P<prim>(?<== )[a-z_][a-z0-9_]*)")                          # = sin ...

_COLORS = {"var": "#1f2328", "type": "#2f6f3e", "keyword": "#8250df", "prim": "#b3261e"}


def _color(kind: str, text: str, bold: bool = False) -> str:
    weight = "font-weight:600;" if bold else ""
    return f'<span style="color:{_COLORS[kind]};{weight}">{html.escape(text)}</span>'


def _highlight(line: str) -> str:
    out, pos = [], 0
    for m in _JAXPR_TOKEN.finditer(line):
        out.append(html.escape(line[pos:m.start()]))
        if m.group("typed"):
            var, typ = m.group("typed").split(":", 1)
            out.append(_color("var", var) + ":" + _color("type", typ))
        elif m.group("keyword"):
            out.append(_color("keyword", m.group("keyword")))
        else:
            out.append(_color("prim", m.group("prim"), bold=True))
        pos = m.end()
    out.append(html.escape(line[pos:]))
    return "".join(out)


def jaxpr_html(closed: ClosedJaxpr) -> str:
    """A jaxpr as coloured text: variables, their types, primitives, keywords."""
    text = str(closed)
    jaxpr = closed.jaxpr
    header = (f"<b>jaxpr</b> {len(jaxpr.invars)} input{'s' * (len(jaxpr.invars) != 1)}, "
              f"{len(jaxpr.eqns)} equation{'s' * (len(jaxpr.eqns) != 1)}, "
              f"{len(jaxpr.outvars)} output{'s' * (len(jaxpr.outvars) != 1)}")
    body = "\n".join(_highlight(line) for line in text.splitlines())
    return (f'<div class="edujax-jaxpr" style="{BOX}"><div style="{HEAD}">{header}</div>'
            f'<pre style="{BODY}">{body}</pre></div>')


# -- pytrees ------------------------------------------------------------------------
def pytree_html(x: Any) -> str | None:
    """A container holding edujax Arrays: its usual repr, and the tree view under it (folded).

    Returns None (no HTML form: IPython shows the text) for containers without Arrays, so
    a plain list or dict is displayed exactly as IPython always does.
    """
    try:
        leaves = tree_leaves(x)
    except Exception:  # noqa: BLE001 - an odd container: leave it to IPython
        return None
    if not any(isinstance(leaf, Array) for leaf in leaves):
        return None
    count = f"{len(leaves)} lea{'f' if len(leaves) == 1 else 'ves'}"
    return (f'<div class="edujax-pytree" style="{BOX}"><pre style="{BODY}">'
            f"{html.escape(repr(x))}</pre>"
            f'<details style="border-top:1px solid #d7dde6;padding:4px 10px">'
            f'<summary style="cursor:pointer;color:#24427a">pytree: {count}, as a tree'
            f"</summary>{tree_view(x).html()}</details></div>")


def register(shell: Any) -> None:
    """Teach the shell's HTML formatter to show Arrays, jaxprs and pytrees of Arrays."""
    html_formatter = shell.display_formatter.formatters["text/html"]
    html_formatter.for_type(Array, array_html)
    html_formatter.for_type(ClosedJaxpr, jaxpr_html)
    for container in (dict, list, tuple):
        html_formatter.for_type(container, pytree_html)
