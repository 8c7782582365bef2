"""Partial evaluation of a whole jaxpr: split it into a known part and an unknown part.

``linearize`` (ad.py) partially evaluates a *Python function*: while it runs,
known values compute right away and unknown ones are staged. The primitives
that carry jaxprs (cond's branches, a scan's body) need the same thing one
level down, on a jaxpr: given which inputs will be known and which unknown,
produce

* the **known jaxpr**: known inputs -> known outputs, followed by *residuals*
  (the known values that the unknown part needs, such as ``cos(x)`` for the
  tangent of ``sin(x)``);
* the **unknown jaxpr**: residuals, then unknown inputs -> unknown outputs.

Running the known jaxpr and feeding its residuals to the unknown jaxpr gives
the same outputs as the original jaxpr (JAX's ``pe.partial_eval_jaxpr_nounits``).

How: we do not write a new interpreter. We *trace* the jaxpr with the same
``PartialEvalTrace`` that linearize uses, inside a staging trace that records
the known side. Every equation then lands on its side by itself, and an
equation that carries a jaxpr of its own (a cond inside a scan...) is split by
its own partial-evaluation rule, recursively.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from edujax import core
from edujax.core import ShapedArray, Tracer
from edujax.interpreters.partial_eval import STAGED_IN_JVP_RULE, PartialEvalTrace, trace_to_jaxpr
from edujax.jaxpr import ClosedJaxpr, Jaxpr, Literal, eval_jaxpr


class PartialEvalResult(NamedTuple):
    """What ``partial_eval_jaxpr`` returns.

    ``known``: ``[*known inputs] -> [*known outputs, *computed residuals]``.
    ``unknown``: ``[*residuals, *unknown inputs] -> [*unknown outputs]``.
    ``out_unknowns``: which outputs of the original jaxpr the unknown jaxpr computes.
    ``res_avals``: the types of all the residuals (the unknown jaxpr's leading inputs).
    ``res_forwarded``: per residual, the index (among *all* inputs of the original
    jaxpr) of the known input it simply is, or None when the known jaxpr computes it
    and returns it among its outputs. Only inputs allowed by ``forward`` are forwarded.
    """
    known: ClosedJaxpr
    unknown: ClosedJaxpr
    out_unknowns: list[bool]
    res_avals: list[ShapedArray]
    res_forwarded: list[int | None]

    @property
    def num_computed_res(self) -> int:
        return sum(f is None for f in self.res_forwarded)


def partial_eval_jaxpr(closed: ClosedJaxpr, unknowns: Sequence[bool],
                       instantiate: bool | Sequence[bool] = False,
                       forward: Sequence[bool] | None = None,
                       literal_residuals: bool = False,
                       residuals_last: bool = True) -> PartialEvalResult:
    """Split ``closed`` into a known jaxpr and an unknown jaxpr (see the module docstring).

    ``instantiate[i]`` asks for output i to be an output of the unknown jaxpr even if it
    could be known (a loop's carry that must have one type on every iteration). A known
    input whose ``forward`` entry is True is not returned by the known jaxpr when it is
    a residual: the caller passes the input itself (see ``res_forwarded``).

    With ``literal_residuals``, a zero literal of ``closed`` is a constant of the known side
    (a literal tracer) rather than of the program text, so an unknown equation that reads it
    gets it as a residual. JAX's linearization of a jit does this: it instantiates a symbolic
    zero tangent on the known side, which then shows as a ``0.0:f32[]`` output of the known
    jit. NB: JAX linearizes the body directly; edujax splits the JVP jaxpr, where such a zero
    is a literal ``0.0``, so zero literals are the ones treated so.

    ``residuals_last``: where a jit of ``closed`` that is split in two takes its residuals
    (see partial_eval.PartialEvalTrace): last, as in JAX's partial_eval_jaxpr_nounits, which splits
    the jaxprs of scan, cond and while; a jit's own body, split while linearizing, keeps
    the convention of the trace that split the jit.
    """
    in_avals = closed.in_avals
    n_out = len(closed.out_avals)
    instantiate = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    forward = [False] * len(in_avals) if forward is None else list(forward)
    found: dict[str, Any] = {}

    def known_fun(*known_args: Any) -> tuple[list, None]:
        trace = PartialEvalTrace(core.current_trace(), residuals_last)
        known_it = iter(known_args)
        args = [trace.new_unknown(a) if uk else next(known_it)
                for a, uk in zip(in_avals, unknowns)]
        jaxpr = _literals_as_tracers(closed.jaxpr, trace.parent) if literal_residuals \
            else closed.jaxpr
        with core.set_current_trace(trace):
            outs = _eval_jaxpr(trace, jaxpr, closed.consts, args)
        out_uk = [trace.is_unknown(o) or inst for o, inst in zip(outs, instantiate)]
        unknown = trace.staging.to_jaxpr([o for o, uk in zip(outs, out_uk) if uk])
        if residuals_last:  # JAX's JaxprTrace: the residuals in the order of its tracers
            unknown = in_jax_order(unknown)
        # The unknown jaxpr's constants are the known values it reads: the residuals.
        input_index = {id(x): i for i, x in enumerate(args)
                       if not unknowns[i] and forward[i] and isinstance(x, Tracer)}
        res_fwd = [input_index.get(id(r)) for r in unknown.consts]
        found.update(unknown=unknown, out_uk=out_uk, res_fwd=res_fwd)
        known_outs = [o for o, uk in zip(outs, out_uk) if not uk]
        computed = [r for r, f in zip(unknown.consts, res_fwd) if f is None]
        return [*known_outs, *computed], None

    known_avals = [a for a, uk in zip(in_avals, unknowns) if not uk]
    known, _ = trace_to_jaxpr(known_fun, known_avals)
    unknown = _residuals_as_inputs(found["unknown"])
    res_avals = [v.aval for v in found["unknown"].jaxpr.constvars]
    return PartialEvalResult(known, unknown, found["out_uk"], res_avals, found["res_fwd"])


def _eval_jaxpr(trace: PartialEvalTrace, jaxpr: Jaxpr, consts: list, args: list) -> list:
    """eval_jaxpr, except that an equation staged inside a JVP rule is evaluated as inside
    one (``trace.in_jvp_rule``: see ad.JVPTrace._run_rule)."""
    if not any(e.outvars and e.outvars[0] in STAGED_IN_JVP_RULE for e in jaxpr.eqns):
        return eval_jaxpr(jaxpr, consts, *args)
    env = dict(zip(jaxpr.constvars, consts)) | dict(zip(jaxpr.invars, args))

    def read(atom: Any) -> Any:
        return atom.val if type(atom) is Literal else env[atom]

    for eqn in jaxpr.eqns:
        marked = bool(eqn.outvars) and eqn.outvars[0] in STAGED_IN_JVP_RULE
        trace.in_jvp_rule += marked
        try:
            outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        finally:
            trace.in_jvp_rule -= marked
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in jaxpr.outvars]


def _literals_as_tracers(jaxpr: Jaxpr, known_trace: Any) -> Jaxpr:
    """``jaxpr`` with each zero literal replaced by a literal tracer of ``known_trace``."""
    def atom(v: Any) -> Any:  # (an integer zero, e.g. a start index, is no tangent)
        if (type(v) is Literal and not np.shape(v.val) and v.val == 0
                and np.dtype(v.aval.dtype).kind in "fc"):
            return Literal(known_trace.new_literal(v.val, v.aval), v.aval)
        return v
    # (an output that is a literal stays one: on the unknown side, as an instantiated tangent
    # output, JAX writes it there inline rather than passing it as a residual)
    eqns = [eqn.replace(invars=[atom(v) for v in eqn.invars]) for eqn in jaxpr.eqns]
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns, jaxpr.debug_info)


def _residuals_as_inputs(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Turn the constvars (the residuals) into leading invars."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr([], [*j.constvars, *j.invars], j.outvars, j.eqns, j.debug_info), [])


# ---------------------------------------------------------------------- JAX's order of residuals
# JAX's partial evaluation does not record a jaxpr as it goes: it builds a graph of tracers
# (each unknown tracer remembers its *recipe*: the equation that made it, or "a known value,
# instantiated" for a constant, or "an input"), and only at the end turns the graph into a
# jaxpr (pe.tracers_to_jaxpr). It visits the tracers in a topological order of that graph
# (util.toposort, from the inputs and the outputs), and lists the known values it meets, the
# constvars of the unknown jaxpr, in that order. Every time an unknown equation reads a known
# value, a *fresh* tracer is made for it (instantiate_const), so the order depends on where
# each value is read, not only on which values are read. ``in_jax_order`` rebuilds that graph
# from an unknown jaxpr and puts its constvars in JAX's order.

class _Node:
    """A tracer of JAX's graph: its parents, and the residual it instantiates (if one)."""

    __slots__ = ("parents", "residual")

    def __init__(self, parents: list, residual: int | None = None) -> None:
        self.parents, self.residual = parents, residual


def in_jax_order(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with its constvars (the residuals an unknown jaxpr reads) in the order
    JAX's tracers_to_jaxpr lists them; unused ones last."""
    jaxpr = closed.jaxpr
    residual = {v: i for i, v in enumerate(jaxpr.constvars)}
    node_of: dict[Any, _Node] = {v: _Node([]) for v in jaxpr.invars}  # LambdaBinding tracers

    def read(atom: Any) -> _Node:
        if type(atom) is Literal:
            return _Node([])  # instantiated as a literal: a tracer of its own
        if atom in residual:
            return _Node([], residual[atom])  # a known value: a fresh ConstVar tracer per read
        return node_of[atom]

    for eqn in jaxpr.eqns:
        parents = [read(v) for v in eqn.invars]
        for v in eqn.outvars:
            node_of[v] = _Node(parents)
    ends = [node_of[v] for v in jaxpr.invars] + [read(v) for v in jaxpr.outvars]
    order: list[int] = []
    for node in _toposort(ends):
        if node.residual is not None and node.residual not in order:
            order.append(node.residual)
    order += [i for i in range(len(residual)) if i not in order]
    return ClosedJaxpr(Jaxpr([jaxpr.constvars[i] for i in order], jaxpr.invars, jaxpr.outvars,
                             jaxpr.eqns, jaxpr.debug_info), [closed.consts[i] for i in order])


def _toposort(end_nodes: list[_Node]) -> list[_Node]:
    """JAX's util.toposort (jaxlib's topological_sort, the same algorithm): count each
    node's children with a depth-first walk from the ends, then pop childless nodes off a
    stack, and reverse."""
    ends = list({id(n): n for n in end_nodes}.values())  # duplicates removed, order kept
    child_counts: dict[int, int] = {}
    stack = list(ends)
    while stack:
        node = stack.pop()
        if id(node) in child_counts:
            child_counts[id(node)] += 1
        else:
            child_counts[id(node)] = 1
            stack.extend(node.parents)
    for node in ends:
        child_counts[id(node)] -= 1
    sorted_nodes = []
    childless = [n for n in ends if child_counts[id(n)] == 0]
    while childless:
        node = childless.pop()
        sorted_nodes.append(node)
        for parent in node.parents:
            if child_counts[id(parent)] == 1:
                childless.append(parent)
            else:
                child_counts[id(parent)] -= 1
    return sorted_nodes[::-1]
