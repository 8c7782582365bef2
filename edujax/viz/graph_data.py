"""A jaxpr as a graph: plain data (nodes, edges, clusters), no drawing yet.

micrograd's ``draw_dot`` showed that a few boxes and arrows teach dataflow better than any
text. A jaxpr is already a dataflow graph: every variable is written once (by an input or an
equation) and read by later equations. So the picture is

* one node per **input** (``a:f32[3,4]``), per **constant** and per **literal** operand,
* one node per **equation**, labelled with its primitive and parameters,
* one node per **output**,
* an edge from where each value is made to every place it is read, labelled with the
  value's type (``f32[3,4]``), the same short form the printed jaxpr uses,
* a **cluster** (a box around nodes) for each sub-jaxpr: cond branches, while and scan
  bodies, an inner ``jit``, a ``custom_jvp`` function; and, for a jitted function, one
  cluster per Numba fusion group (``fused_0``), the loop nest those equations become.

Building the graph is a pure function from a Jaxpr to ``GraphData``; ``dot.py`` turns that
into Graphviz's DOT language and then into SVG. Keeping the two apart means the tests can
count nodes and edges without Graphviz installed, and the widget can use the same data.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from edujax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, literal_value_str
from edujax.pretty import (PpContext, _dropvars, format_doc, pp_jaxpr, pp_param_value,
                           shown_params)

MAX_EQNS = 80  # beyond this many equations, the rest is one "N more equations" node
PARAM_WIDTH = 40  # a parameter's printed value is cut after this many characters


@dataclass
class Node:
    id: str
    label: str
    kind: str  # "input" | "const" | "literal" | "eqn" | "output" | "collapsed" | "more"
    cluster: str | None = None  # the id of the cluster it sits in, None for the top level


@dataclass
class Edge:
    src: str
    dst: str
    label: str = ""
    style: str = "solid"  # "dashed": from an equation to the sub-jaxpr it runs


@dataclass
class Cluster:
    id: str
    label: str
    kind: str  # "subjaxpr" | "fusion"
    parent: str | None = None


@dataclass
class GraphData:
    """Everything the picture shows, as lists a test (or a widget) can read."""

    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)
    hidden_eqns: int = 0  # equations left out by the size limit

    def node(self, label: str) -> Node:
        """The first node with this label (handy in tests and notebooks)."""
        return next(n for n in self.nodes if n.label == label)

    def count(self, kind: str) -> int:
        return sum(n.kind == kind for n in self.nodes)

    def to_json(self) -> dict:
        return {"nodes": [vars(n) for n in self.nodes], "edges": [vars(e) for e in self.edges],
                "clusters": [vars(c) for c in self.clusters], "hidden_eqns": self.hidden_eqns}


def aval_text(v: Var | Literal) -> str:
    return v.aval.str_short(short_dtypes=True)


def sub_jaxprs(eqn: JaxprEqn) -> list[tuple[str, Jaxpr]]:
    """``[("branches[0]", jaxpr), ("body_jaxpr", jaxpr), ...]``: the programs an equation runs."""
    out = []
    for name, value in sorted(eqn.params.items()):
        items = value if type(value) is tuple else (value,)
        for i, item in enumerate(items):
            label = f"{name}[{i}]" if type(value) is tuple else name
            if isinstance(item, ClosedJaxpr):
                out.append((label, item.jaxpr))
            elif isinstance(item, Jaxpr):
                out.append((label, item))
    return out


def eqn_label(eqn: JaxprEqn, ctx: PpContext) -> str:
    """``dot_general`` and below it one ``name=value`` line per parameter (sub-jaxprs aside:
    they get clusters of their own)."""
    lines = [eqn.primitive.name]
    for name in shown_params(eqn):  # those the printed jaxpr shows (``pretty.shown_params``)
        value = eqn.params[name]
        # NB: the printed jaxpr shows every parameter (``accuracy=None``, ...); a box in a
        # picture has less room, so parameters left at None are not drawn.
        if value is None or sub_jaxprs(JaxprEqn([], [], eqn.primitive, {name: value})):
            continue
        text = " ".join(format_doc(pp_param_value(value, ctx), 1000).split())
        if len(text) > PARAM_WIDTH:
            text = text[:PARAM_WIDTH - 1] + "…"
        lines.append(f"{name}={text}")
    return "\n".join(lines)


def const_label(name: str, value: Any, v: Var) -> str:
    """``b:f32[3] = [1. 2. 3.]`` for small constants, the type alone for big ones."""
    head = f"{name}:{aval_text(v)}"
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - a constant we cannot read (a tracer): the type is enough
        return head
    if arr.size <= 4:
        return f"{head}\n= {np.array2string(arr, precision=3, separator=' ')}"
    return head


class _Builder:
    """Walks a jaxpr (and its sub-jaxprs) once, handing out node ids n0, n1, ..."""

    def __init__(self, ctx: PpContext, max_eqns: int, collapse: bool, groups: dict):
        self.g = GraphData()
        self.ctx = ctx
        self.max_eqns = max_eqns
        self.collapse = collapse
        self.groups = groups  # top-level equation index -> fusion group name
        self.drawn_eqns = 0

    def new_node(self, label: str, kind: str, cluster: str | None) -> str:
        node = Node(f"n{len(self.g.nodes)}", label, kind, cluster)
        self.g.nodes.append(node)
        return node.id

    def new_cluster(self, label: str, kind: str, parent: str | None) -> str:
        cluster = Cluster(f"cluster_{len(self.g.clusters)}", label, kind, parent)
        self.g.clusters.append(cluster)
        return cluster.id

    def jaxpr(self, jaxpr: Jaxpr, consts: list | None, cluster: str | None) -> list[str]:
        """Draw ``jaxpr`` inside ``cluster``; returns the ids of its input nodes."""
        where: dict[Var, str] = {}  # var -> id of the node that makes it
        for i, v in enumerate(jaxpr.constvars):
            value = consts[i] if consts is not None and i < len(consts) else None
            label = (const_label(self.ctx.name(v), value, v) if value is not None
                     else f"{self.ctx.name(v)}:{aval_text(v)}")
            where[v] = self.new_node(label, "const", cluster)
        inputs = []
        for v in jaxpr.invars:
            where[v] = self.new_node(f"{self.ctx.name(v)}:{aval_text(v)}", "input", cluster)
            inputs.append(where[v])
        more = None
        for index, eqn in enumerate(jaxpr.eqns):
            if self.drawn_eqns >= self.max_eqns:
                hidden = len(jaxpr.eqns) - index
                self.g.hidden_eqns += hidden
                more = self.new_node(f"{hidden} more equations", "more", cluster)
                break
            group = self.groups.get(index) if cluster is None else None
            self.equation(eqn, where, self.group_cluster(group) if group else cluster)
        for i, v in enumerate(jaxpr.outvars):
            out = self.new_node(f"out[{i}]" if len(jaxpr.outvars) > 1 else "out", "output",
                                cluster)
            self.edge(v, out, where, cluster, fallback=more)
        return inputs

    def group_cluster(self, name: str) -> str:
        """The cluster of fusion group ``name``, made the first time it is needed."""
        for c in self.g.clusters:
            if c.kind == "fusion" and c.label.split(" ")[0] == name:
                return c.id
        return self.new_cluster(f"{name} (one Numba loop nest)", "fusion", None)

    def edge(self, atom: Var | Literal, dst: str, where: dict, cluster: str | None,
             fallback: str | None = None) -> None:
        if type(atom) is Literal:
            src = self.new_node(f"{literal_value_str(atom)}:{aval_text(atom)}", "literal",
                                cluster)
        else:
            src = where.get(atom, fallback)
            if src is None:  # made by an equation past the size limit
                return
        self.g.edges.append(Edge(src, dst, aval_text(atom)))

    def equation(self, eqn: JaxprEqn, where: dict, cluster: str | None) -> None:
        self.drawn_eqns += 1
        node = self.new_node(eqn_label(eqn, self.ctx), "eqn", cluster)
        for atom in eqn.invars:
            self.edge(atom, node, where, cluster)
        for v in eqn.outvars:
            where[v] = node
        for label, sub in sub_jaxprs(eqn):
            title = f"{eqn.primitive.name}: {label}"
            if self.collapse:
                box = self.new_node(f"{title}\n({len(sub.eqns)} equations)", "collapsed",
                                    cluster)
                self.g.edges.append(Edge(node, box, style="dashed"))
                continue
            inner = self.new_cluster(title, "subjaxpr", cluster)
            for first in self.jaxpr(sub, None, inner):
                self.g.edges.append(Edge(node, first, style="dashed"))


def jaxpr_graph(closed: ClosedJaxpr | Jaxpr, *, max_eqns: int = MAX_EQNS,
                collapse: bool = False, groups: dict[int, str] | None = None) -> GraphData:
    """The graph of a jaxpr.

    ``max_eqns`` bounds how many equations are drawn (the rest become one node saying how
    many were left out); ``collapse=True`` draws each sub-jaxpr as one box instead of a
    cluster; ``groups`` maps top-level equation indices to fusion group names.
    """
    jaxpr, consts = (closed.jaxpr, closed.consts) if isinstance(closed, ClosedJaxpr) \
        else (closed, None)
    # Name variables the way the printed jaxpr does (a, b, c... in order of appearance, "_"
    # for outputs nobody reads), so the picture and the text can be read side by side.
    ctx = PpContext(_dropvars(jaxpr))
    format_doc(pp_jaxpr(jaxpr, ctx))
    builder = _Builder(ctx, max_eqns, collapse, groups or {})
    builder.jaxpr(jaxpr, consts, None)
    return builder.g
