"""Automatic differentiation: forward mode (JVP), and reverse mode built from it.

Reverse mode is not a separate "tape". As in JAX it is three steps:

1. **JVP**: run the function on ``JVPTracer``s carrying (primal, tangent) pairs.
   Each primitive's JVP rule says how tangents flow (``jvp_rules``).
2. **Partial evaluation** (``linearize_flat``): run the JVP with the primals *known*
   and the tangents *unknown* (under ``partial_eval.PartialEvalTrace``). Known work
   (the primal computation and the coefficients such as ``cos(x)``) happens right
   away, in the enclosing trace;
   unknown work (everything touching a tangent) is recorded into a jaxpr. That
   jaxpr is linear in the tangents.
3. **Transposition** (``backward_pass``): walk the linear jaxpr backwards,
   turning each linear equation into its transpose (``transpose_rules``): a
   cotangent flows from outputs to inputs.

So ``grad(f)(x)`` is ``backward_pass(linearize(jvp(f))(x), 1.0)``, and
``make_jaxpr(grad(f))`` shows exactly these steps' equations.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from edujax import core, source_info
from edujax.core import Primitive, ShapedArray, Tracer
from edujax.interpreters.ad_util import add_any_p, zeros_like_aval  # noqa: F401  (ad.zeros_like_aval)
from edujax.interpreters.partial_eval import (PartialEvalTrace, dce_jaxpr, trace_to_jaxpr)
from edujax.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var, eval_jaxpr

# Rule tables, filled in by the primitive modules (edujax/lax/*):
#   jvp_rules[p](primals, tangents, **params) -> (primal_out, tangent_out)
#   transpose_rules[p](cotangent, *args, **params) -> one cotangent (or None) per arg,
#       where each linear input arrives as an ``UndefinedPrimal``.
jvp_rules: dict[Primitive, Callable] = {}
transpose_rules: dict[Primitive, Callable] = {}
# JAX's names for the first two tables (custom primitives register their rules there).
primitive_jvps, primitive_transposes = jvp_rules, transpose_rules


# ------------------------------------------------------------------ symbolic zeros
class Zero:
    """A tangent or cotangent known to be all zeros, without materializing it.

    Most tangents of a program are zero (constants, integer inputs, arguments
    not being differentiated); keeping them symbolic skips all that work.
    """

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    @staticmethod
    def from_value(x: Any) -> Zero:
        return Zero(tangent_aval(core.get_aval(x)))

    def __repr__(self) -> str:
        return f"Zero({self.aval})"


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """The type of a tangent: the primal's shape, dtype and weak type (as in JAX)."""
    return aval


def is_differentiable(aval: ShapedArray) -> bool:
    return aval.dtype.kind in "fc"


def instantiate_zeros(t: Any) -> Any:
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def add_tangents(x: Any, y: Any) -> Any:
    """Sum two tangents, skipping symbolic zeros. The sum is ``add_any`` (see ad_util)."""
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_any_p.bind(x, y)


class UndefinedPrimal:
    """Stands for a linear input during transposition: we know its type, not its value."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x: Any) -> bool:
    return type(x) is UndefinedPrimal


def aval_of(x: Any) -> ShapedArray:
    """The aval of a transpose rule's argument, defined or not."""
    return x.aval if type(x) in (UndefinedPrimal, Zero) else core.get_aval(x)


# ------------------------------------------------------------------ registrars
def missing_rule(table: str, prim: Primitive) -> NotImplementedError:
    return NotImplementedError(f"no {table} rule for primitive '{prim.name}' "
                               f"(edujax.interpreters.ad.{table}_rules)")


def _sum_tangents(primal_out: Any, tangents: list) -> Any:
    return functools.reduce(add_tangents, tangents, Zero.from_value(primal_out))


def defjvp(prim: Primitive, *rules: Callable | None) -> None:
    """One rule per input: ``rule(g, *primals, **params)`` is that input's contribution."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        return out, _sum_tangents(out, [rule(t, *primals, **params)
                                        for rule, t in zip(rules, tangents)
                                        if rule is not None and type(t) is not Zero])
    jvp_rules[prim] = jvp


def defjvp2(prim: Primitive, *rules: Callable | None) -> None:
    """Like defjvp, but each rule also gets the primal output: ``rule(g, ans, *primals)``."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        return out, _sum_tangents(out, [rule(t, out, *primals, **params)
                                        for rule, t in zip(rules, tangents)
                                        if rule is not None and type(t) is not Zero])
    jvp_rules[prim] = jvp


def defjvp_zero(prim: Primitive) -> None:
    """Piecewise-constant primitives (sign, floor, comparisons...): zero tangent."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if prim.multiple_results:
            return out, [Zero.from_value(o) for o in out]
        return out, Zero.from_value(out)
    jvp_rules[prim] = jvp


def deflinear(prim: Primitive, transpose: Callable) -> None:
    """A primitive linear in its (single) array input: its JVP applies it to the tangent."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        t, = tangents
        if type(t) is Zero:
            return out, Zero.from_value(out)
        return out, prim.bind(t, **params)
    jvp_rules[prim] = jvp
    transpose_rules[prim] = transpose


def defbilinear(prim: Primitive, lhs_transpose: Callable, rhs_transpose: Callable) -> None:
    """``prim(x, y)`` linear in x and in y separately (mul, dot_general)."""
    defjvp(prim, lambda g, x, y, **params: prim.bind(g, y, **params),
           lambda g, x, y, **params: prim.bind(x, g, **params))

    def transpose(ct, x, y, **params):
        if is_undefined_primal(x):
            return [Zero(x.aval) if type(ct) is Zero else lhs_transpose(ct, x, y, **params),
                    None]
        return [None, Zero(y.aval) if type(ct) is Zero else rhs_transpose(ct, x, y, **params)]
    transpose_rules[prim] = transpose


# ------------------------------------------------------------------ forward mode
class JVPTracer(Tracer):
    """A value under ``jvp``: its primal and its tangent (possibly a symbolic Zero)."""

    __slots__ = ("primal", "tangent")

    def __init__(self, trace: JVPTrace, primal: Any, tangent: Any):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> ShapedArray:
        return core.get_aval(self.primal)

    def to_concrete_value(self) -> Any:
        """Under grad the primal is often concrete, so ``if x > 0:`` still works."""
        primal = self.primal
        if isinstance(primal, Tracer):
            return primal.to_concrete_value()
        return getattr(primal, "_value", primal)

    def __repr__(self) -> str:
        tangent = (f"Zero({self.aval.str_short(short_dtypes=True)})"
                   if type(self.tangent) is Zero else repr(self.tangent))
        return f"JVPTracer(primal={self.primal!r}, tangent={tangent})"


class JVPTrace(core.Trace):
    """Interprets each primitive with its JVP rule; the rule itself runs in the parent trace."""

    def __init__(self, parent: core.Trace):
        self.parent = parent

    def to_pair(self, x: Any) -> tuple[Any, Any]:
        """Our own tracers carry a tangent; anything else is a constant (zero tangent)."""
        if isinstance(x, JVPTracer) and x._trace is self:
            return x.primal, x.tangent
        return x, Zero.from_value(x)

    def process_primitive(self, prim, args, params):
        primals, tangents = zip(*map(self.to_pair, args)) if args else ((), ())
        with core.set_current_trace(self.parent):
            if all(type(t) is Zero for t in tangents):
                return prim.bind(*primals, **params)  # nothing to differentiate here
            rule = jvp_rules.get(prim)
            if rule is None:
                raise missing_rule("jvp", prim)
            primal_out, tangent_out = self._run_rule(prim, rule, primals, tangents, params)
        if prim.multiple_results:
            return [JVPTracer(self, p, t) for p, t in zip(primal_out, tangent_out)]
        return JVPTracer(self, primal_out, tangent_out)

    def _run_rule(self, prim, rule, primals, tangents, params):
        """Run a JVP rule, noting (for partial evaluation) that it runs. JAX linearizes
        the primitives of ``linearized_directly`` with rules of their own; for every other its
        linearization runs the JVP rule under a JaxprTrace (fallback_linearize_rule), which
        hands an equation to its partial-evaluation rule even when all its inputs are
        known: a known scan inside a JVP rule (random_gamma's lax.map) then gets its loop
        invariants hoisted and its body pruned, as a split scan would."""
        if prim in linearized_directly:
            return rule(primals, tangents, **params)
        # Linearizing directly, the rule's known work lands in the PartialEvalTrace: tell it.
        # Inside a jit's JVP jaxpr, the equations the rule stages are noted instead.
        linearizing = isinstance(self.parent, PartialEvalTrace)
        if linearizing:
            self.parent.in_jvp_rule += 1
        try:
            with core.running_jvp_rule():
                return rule(primals, tangents, **params)
        finally:
            if linearizing:
                self.parent.in_jvp_rule -= 1

    def origin_message(self, tracer: Tracer) -> str:
        return getattr(self.parent, "origin_message", lambda t: "")(tracer)


# A property of a primitive that changes nothing but the jaxpr that gets printed, set in
# the primitive's own block (``ad.linearized_directly.add(sin_p)``); skip it on a first
# reading. JAX linearizes these primitives with a rule of their own
# (ad.primitive_linearizations), so their JVP rule's work is not noted as a JVP rule's
# (see JVPTrace._run_rule; partial_eval.split_even_if_known is its counterpart).
linearized_directly: set[Primitive] = set()


def jvp_flat(fun: Callable, primals: list, tangents: list) -> tuple[list, list]:
    """Run ``fun`` (flat list in, flat list out) forward with tangents attached."""
    trace = JVPTrace(core.current_trace())
    tracers = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
    with core.set_current_trace(trace):
        outs = fun(*tracers)
    pairs = [trace.to_pair(o) for o in outs]
    return [p for p, _ in pairs], [t for _, t in pairs]


# ------------------------------------------------------------------ linearize
# (the known/unknown evaluator it runs the JVP under is partial_eval.PartialEvalTrace)
def linearize_flat(fun: Callable, primals: list) -> tuple[list, ClosedJaxpr, list]:
    """Evaluate ``fun`` at ``primals`` and record its linear tangent map as a jaxpr.

    Returns the primal outputs, the linear jaxpr (inputs: input tangents; outputs:
    output tangents; constants: residuals), and the output tangents' avals.
    """
    trace = PartialEvalTrace(core.current_trace())
    tangents_in = [trace.new_unknown(tangent_aval(core.get_aval(p))) for p in primals]
    # (the staging trace began above: its equations carry the name ``jvp`` and so, once
    # transposed, ``transpose(jvp())``)
    with core.set_current_trace(trace), source_info.transform_name_stack("jvp"):
        primals_out, tangents_out = jvp_flat(fun, primals, tangents_in)
    out_avals = [tangent_aval(core.get_aval(p)) for p in primals_out]
    with core.set_current_trace(trace.staging):
        tangents_out = [instantiate_zeros(t) if type(t) is Zero else t
                        for t in tangents_out]
    return primals_out, _dce(trace.staging.to_jaxpr(tangents_out)), out_avals


def _dce(closed: ClosedJaxpr) -> ClosedJaxpr:
    """The linear jaxpr without dead equations, and the residuals they alone read: e.g. a
    jit's tangent outputs nobody uses, and so its inputs only they needed (JAX's tangent
    trace eliminates dead code as it finishes, ``auto_dce``)."""
    j = closed.jaxpr
    jaxpr, _ = dce_jaxpr(j, [True] * len(j.outvars))
    read = {v for e in jaxpr.eqns for v in e.invars if type(v) is Var}
    read |= {v for v in jaxpr.outvars if type(v) is Var}
    kept = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in read]
    jaxpr = Jaxpr([v for v, _ in kept], jaxpr.invars, jaxpr.outvars, jaxpr.eqns,
                  jaxpr.debug_info)
    return ClosedJaxpr(jaxpr, [c for _, c in kept])


# ------------------------------------------------------------------ transposition
def backward_pass(jaxpr: Jaxpr, consts: list, args: list, cotangents_out: list,
                  accumulators: dict[int, Any] | None = None) -> list:
    """Transpose a linear jaxpr: from output cotangents to input cotangents.

    ``args`` holds an ``UndefinedPrimal`` for each linear input. Equations whose
    inputs are all known (residual arithmetic) are evaluated forward first; the
    linear ones are then transposed in reverse order. A variable used twice
    receives two cotangents, summed with ``add_any`` as they arrive.

    ``accumulators`` maps (linear) input positions to cotangents they start from: what
    arrives for that input is added to it as it arrives (a scan's transposed body sums
    its constants' cotangents over the iterations so, as JAX's accumulators do).
    """
    known: dict = dict(zip(jaxpr.constvars, consts))
    known.update((v, a) for v, a in zip(jaxpr.invars, args) if not is_undefined_primal(a))

    def is_known(v: Any) -> bool:
        return type(v) is Literal or v in known

    def read(v: Any) -> Any:
        if type(v) is Literal:
            return v.val
        return known[v] if v in known else UndefinedPrimal(v.aval)

    linear_eqns = []
    for eqn in jaxpr.eqns:
        if all(is_known(v) for v in eqn.invars):
            saved = source_info.swap_replay(eqn.source_info)  # (per equation: no `with`)
            try:
                outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            finally:
                source_info.swap_replay(saved)
            outs = outs if eqn.primitive.multiple_results else [outs]
            known.update(zip(eqn.outvars, outs))
        else:
            linear_eqns.append(eqn)

    cts: dict = {jaxpr.invars[i]: ct for i, ct in (accumulators or {}).items()}

    def write(v: Any, ct: Any) -> None:
        if type(v) is Literal or ct is None or type(ct) is Zero:
            return
        cts[v] = add_tangents(cts[v], ct) if v in cts else ct

    for v, ct in zip(jaxpr.outvars, cotangents_out):
        write(v, ct)
    for eqn in reversed(linear_eqns):
        cts_out = [_pop_cotangent(cts, v) for v in eqn.outvars]
        if all(type(ct) is Zero for ct in cts_out):
            continue
        rule = transpose_rules.get(eqn.primitive)
        if rule is None:  # JAX's words; the table to fill is ad.transpose_rules
            raise NotImplementedError("Transpose rule (for reverse-mode differentiation) for "
                                      f"'{eqn.primitive.name}' not implemented")
        ct_arg = cts_out if eqn.primitive.multiple_results else cts_out[0]
        # (what transposing makes, the sums of cotangents too, comes from the equation's line)
        saved = source_info.swap_replay(eqn.source_info)
        try:
            cts_in = rule(ct_arg, *map(read, eqn.invars), **eqn.params)
            for v, ct in zip(eqn.invars, cts_in):
                if not is_known(v):
                    write(v, ct)
        finally:
            source_info.swap_replay(saved)
    return [_pop_cotangent(cts, v) if not is_known(v) else None for v in jaxpr.invars]


def _pop_cotangent(cts: dict, v: Any) -> Any:
    ct = cts.pop(v, None)
    return Zero(v.aval) if ct is None else ct


def vjp_flat(fun: Callable, primals: list) -> tuple[list, Callable]:
    """Primal outputs, and a function from output cotangents to input cotangents."""
    primals_out, linear, _ = linearize_flat(fun, primals)

    def pullback(cotangents: list) -> list:
        undefined = [UndefinedPrimal(v.aval) for v in linear.jaxpr.invars]
        with source_info.transform_name_stack("transpose"):
            return backward_pass(linear.jaxpr, linear.consts, undefined, cotangents)
    return primals_out, pullback


# ------------------------------------------------------------------ add_any (ad_util.py)
# add_any is linear, and its JVP is JAX's for every linear primitive (ad.linear_jvp): the
# same sum of the tangents, where a symbolic zero next to a nonzero tangent is made a real
# zero array first. (It shows in forward-over-reverse, a hessian: the backward pass sums
# cotangents with add_any, and one of them may not depend on the input.)

def _add_any_jvp(primals, tangents):
    out = add_any_p.bind(*primals)
    if all(type(t) is Zero for t in tangents):
        return out, Zero.from_value(out)
    return out, add_any_p.bind(*(instantiate_zeros(t) for t in tangents))


jvp_rules[add_any_p] = _add_any_jvp
transpose_rules[add_any_p] = lambda ct, x, y: [ct, ct]


# ------------------------------------------------------------------ jaxpr-level helpers
def jvp_jaxpr(closed: ClosedJaxpr, nonzeros: list[bool]) -> tuple[ClosedJaxpr, list[bool]]:
    """A jaxpr computing (primals, tangents) from (primals, nonzero tangents).

    Used by the JVP rules of primitives that carry jaxprs (jit, cond, scan...).
    Returns the new jaxpr and which output tangents are nonzero.
    """
    avals = closed.in_avals
    tangent_avals = [tangent_aval(a) for a, nz in zip(avals, nonzeros) if nz]
    out_nonzero: list[bool] = []

    def fun(*args):
        primals, tangents_nz = args[:len(avals)], iter(args[len(avals):])
        tangents = [next(tangents_nz) if nz else Zero(tangent_aval(a))
                    for a, nz in zip(avals, nonzeros)]
        outs, touts = jvp_flat(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                               list(primals), tangents)
        out_nonzero[:] = [type(t) is not Zero for t in touts]
        return [*outs, *[t for t in touts if type(t) is not Zero]], None

    jaxpr, _ = trace_to_jaxpr(fun, [*avals, *tangent_avals])
    return jaxpr, out_nonzero
