"""From ``GraphData`` to Graphviz's DOT language, and from DOT to SVG with the ``dot`` program.

DOT is a small text format: ``n0 [label="sin"]; n0 -> n1 [label="f32[3]"]``, with
``subgraph cluster_0 { ... }`` for a box around nodes. Graphviz's ``dot`` program lays the
graph out in ranks (left to right here, as micrograd draws it) and writes SVG, which a
browser shows inline, with or without a running kernel.

We call ``dot`` directly with ``subprocess`` rather than through the ``graphviz`` Python
package: the package only writes the same text and runs the same program, and this way a
reader sees the whole story in one file.
"""
from __future__ import annotations

import shutil
import subprocess

from edujax.viz.graph_data import GraphData, Node

INSTALL_HINT = ("(install Graphviz to see this jaxpr as a graph: `apt-get install graphviz`, "
                "`brew install graphviz` or `conda install graphviz`)")

# How each kind of node looks: inputs and outputs are the graph's ends, equations are boxes.
NODE_STYLE = {
    "input": 'shape=box style="rounded,filled" fillcolor="#dbeafe"',
    "const": 'shape=box style="rounded,filled" fillcolor="#fef3c7"',
    "literal": 'shape=plaintext fontcolor="#92400e"',
    "eqn": 'shape=box style="filled" fillcolor="#ffffff"',
    "output": 'shape=box style="rounded,filled" fillcolor="#dcfce7"',
    "collapsed": 'shape=box3d style="filled" fillcolor="#f3f4f6"',
    "more": 'shape=note style="filled" fillcolor="#fee2e2"',
}
CLUSTER_STYLE = {
    "subjaxpr": 'style="rounded,dashed" color="#6b7280"',
    "fusion": 'style="rounded,filled" fillcolor="#ede9fe" color="#7c3aed"',
}


def quote(text: str) -> str:
    """A DOT string: quotes and backslashes escaped, newlines as DOT's centred line break."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _node_line(node: Node) -> str:
    return f"{node.id} [label={quote(node.label)} {NODE_STYLE[node.kind]} id={quote(node.id)}]"


def to_dot(graph: GraphData, name: str = "jaxpr") -> str:
    """The DOT text of ``graph``: clusters nested as the sub-jaxprs are."""
    children: dict[str | None, list[str]] = {}
    for c in graph.clusters:
        children.setdefault(c.parent, []).append(c.id)
    by_cluster: dict[str | None, list[Node]] = {}
    for n in graph.nodes:
        by_cluster.setdefault(n.cluster, []).append(n)
    labels = {c.id: c for c in graph.clusters}

    def body(cluster: str | None, indent: str) -> list[str]:
        lines = [indent + _node_line(n) for n in by_cluster.get(cluster, [])]
        for child in children.get(cluster, []):
            c = labels[child]
            lines.append(f"{indent}subgraph {child} {{")
            lines.append(f"{indent}  label={quote(c.label)} {CLUSTER_STYLE[c.kind]}")
            lines += body(child, indent + "  ")
            lines.append(f"{indent}}}")
        return lines

    lines = [f"digraph {quote(name)} {{",
             '  rankdir=LR; nodesep=0.25; ranksep=0.35',
             '  node [fontname="Helvetica" fontsize=11 height=0.3]',
             '  edge [fontname="Helvetica" fontsize=9 color="#4b5563" fontcolor="#374151"]',
             '  graph [fontname="Helvetica" fontsize=10 labeljust=l]']
    lines += body(None, "  ")
    for e in graph.edges:
        attrs = f"label={quote(e.label)}" if e.label else ""
        if e.style == "dashed":
            attrs += ' style=dashed color="#9ca3af" arrowhead=empty'
        lines.append(f"  {e.src} -> {e.dst} [{attrs.strip()}]")
    lines.append("}")
    return "\n".join(lines)


def dot_program() -> str | None:
    """The path of Graphviz's ``dot``, or None when it is not installed."""
    return shutil.which("dot")


def render_svg(dot_text: str, timeout: float = 30.0) -> str | None:
    """Lay out ``dot_text`` with ``dot -Tsvg``; None when Graphviz is not installed."""
    program = dot_program()
    if program is None:
        return None
    done = subprocess.run([program, "-Tsvg"], input=dot_text, capture_output=True, text=True,
                          timeout=timeout, check=True)
    svg = done.stdout
    # Drop the XML prolog and DOCTYPE: the SVG is pasted into an HTML page, where only the
    # <svg> element itself belongs.
    return svg[svg.index("<svg"):]
