"""Staging: turn a Python function into a jaxpr by running it on tracers.

``DynamicJaxprTrace`` is the trace behind ``make_jaxpr`` and ``jit``. While it is
the current trace, ``bind`` computes nothing: it asks the primitive's abstract
rule for the output's shape and dtype, hands back a fresh tracer, and appends
an equation to the jaxpr being built. Because *every* bind goes to the current
trace, even ``jnp.log(2.0)`` (which touches no argument) is recorded; JAX calls
this "omnistaging".

Anything that is not one of this trace's tracers is a constant: a scalar
becomes an inline ``Literal``, anything bigger becomes a ``constvar`` whose
value travels beside the jaxpr in a ``ClosedJaxpr``.

The second half of the file is the known/unknown evaluator reverse mode runs the JVP
under (``PartialEvalTrace``, what JAX's partial_eval.py calls the JaxprTrace): known
values compute at once, unknown ones are staged with this file's staging trace.
``partial_eval_jaxpr.py`` is its sibling: the same evaluator applied to a whole jaxpr.
"""
from __future__ import annotations

import inspect
import sys
import weakref
from typing import Any, Callable, NamedTuple

import numpy as np

from edujax import core, source_info
from edujax.core import Primitive, ShapedArray, Tracer
from edujax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from edujax.interpreters.vma import insert_pvary
from edujax.literals import TypedComplex, TypedFloat, TypedInt

TYPED_NUMBERS = (TypedInt, TypedFloat, TypedComplex)  # Python numbers that carry a dtype

# Constant folding: rules that compute an equation right away when its inputs are
# constants (JAX's pe.const_fold_rules). A rule returns the folded value, or None.
const_fold_rules: dict[Primitive, Callable] = {}

# Forwarding: rules that recognize an equation whose output is one of its inputs unchanged
# (a convert_element_type to the dtype it already has, a broadcast_in_dim to the shape it
# already has). Staging records no equation for it, and the output *is* that input, as in
# JAX (pe.forwarding_rules). A rule takes (input avals, params) and returns, for each
# output, the index of the input it forwards, or None.
forwarding_rules: dict[Primitive, Callable] = {}

# Dead-code elimination of equations that carry a jaxpr (JAX's pe.dce_rules): a rule takes
# the equation and which of its outputs are used, and returns which inputs it still needs
# and the equation to keep in its place (None: drop it). Filled by jit (edujax/jit/).
dce_rules: dict[Primitive, Callable] = {}


class DebugInfo(NamedTuple):
    """Where a traced function came from, for error messages that point at the user's code.

    ``arg_names`` has one entry per flat argument, e.g. ``("x", "p['w']", "xs[0]")``.
    """
    traced_for: str  # "jit", "make_jaxpr", ...
    func_name: str
    func_src: str  # "file.py:12"
    arg_names: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.func_name} at {self.func_src}"


def func_source(fun: Callable) -> str:
    """``file:line`` of a function's definition (what JAX prints in its errors)."""
    return cached_per_function(_source_cache, fun, _func_source)


def _func_source(fun: Callable) -> str:
    fun = inspect.unwrap(getattr(fun, "func", fun))  # look through functools.partial
    code = getattr(fun, "__code__", None)
    if code is None:
        return "<unknown>"
    return f"{code.co_filename}:{code.co_firstlineno}"


# make_jaxpr and jit ask these questions about the same function every time they trace it,
# and ``inspect`` takes microseconds to answer, so the answers are kept, weakly: an entry dies
# with its function. (Something that cannot be weakly referenced is simply asked again.)
_source_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def cached_per_function(cache: weakref.WeakKeyDictionary, fun: Callable, compute: Callable) -> Any:
    try:
        return cache[fun]
    except (KeyError, TypeError):
        pass
    value = compute(fun)
    try:
        cache[fun] = value
    except TypeError:
        pass
    return value


def func_name(fun: Callable) -> str:
    return getattr(fun, "__name__", None) or getattr(getattr(fun, "func", None), "__name__",
                                                      type(fun).__name__)


class DynamicJaxprTracer(Tracer):
    """A value inside a function being staged out: only its aval is known.

    Or, for a *literal tracer*, its value too: a scalar constant made while staging
    (``jnp.array(2)``, the ``2`` of ``x * 2`` once cast) is a tracer, as in JAX, so that
    it behaves like any traced array, but the jaxpr writes it inline (``2:i32[]``) and
    Python may still read it (``if jnp.array(2) > 1:`` works).
    """

    __slots__ = ("_aval", "_literal")

    def __init__(self, trace: DynamicJaxprTrace, aval: ShapedArray, literal: Literal | None = None):
        self._trace = trace
        self._aval = aval
        self._literal = literal

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    def to_concrete_value(self) -> Any:
        return None if self._literal is None else self._literal.val

    def __repr__(self) -> str:
        weak = "~" if self._aval.weak_type else ""
        return f"JitTracer({weak}{self._aval.str_short()})"


def _is_literalable(x: Any) -> bool:
    """Python and NumPy scalars known now are printed inline as literals.

    NB: like JAX, a concrete edujax Array is never inlined, even a 0-d one: it
    becomes a constvar (it is data that lives on the device, not a constant of
    the program text).
    """
    return type(x) in (bool, int, float, complex) or isinstance(x, TYPED_NUMBERS) or (
        isinstance(x, (np.ndarray, np.generic)) and np.ndim(x) == 0)


def _is_constant(x: Any) -> bool:
    """Not traced, or a literal tracer: something constant folding may compute with."""
    return not isinstance(x, Tracer) or (isinstance(x, DynamicJaxprTracer)
                                         and x._literal is not None)


def _literal_value(x: Any) -> Any:
    return x._literal.val if isinstance(x, DynamicJaxprTracer) else x


# The equations staged while a JVP rule runs that JAX would run under its JaxprTrace when
# linearizing (ad.JVPTrace notes them with core.running_jvp_rule), by their first output.
# Partial evaluation of a jaxpr gives those equations to their partial-evaluation rule even
# when all their inputs are known, as JAX's JaxprTrace does (see PartialEvalTrace, below).
STAGED_IN_JVP_RULE: weakref.WeakSet = weakref.WeakSet()


class DynamicJaxprTrace(core.Trace):
    """Records every primitive applied while it is current into a growing jaxpr."""

    def __init__(self, debug_info: Any = None, forwarding: bool = True):
        self.debug_info = debug_info
        self.forwarding = forwarding  # drop the equations that only pass an input on?
        self.eqns: list[JaxprEqn] = []
        self.invars: list[Var] = []
        self.var_of: dict[int, Var] = {}    # id(tracer) -> Var
        self.tracers: list[Tracer] = []     # keeps tracers alive so their ids stay unique
        self.constvars: dict[int, Var] = {}  # id(constant) -> Var
        self.consts: list[Any] = []
        self.staged_unread: set[int] = set()  # ids of staged constants no equation read yet
        self.name_depth = source_info.name_depth()  # (names above belong to enclosing jaxprs)
        # Has any value of this trace a varying-manual-axes type (inside shard_map: see
        # vma.py)? Noted as values appear, so that an equation outside shard_map does not
        # look at its inputs' avals for it.
        self.has_vma = False

    def new_arg(self, aval: ShapedArray) -> DynamicJaxprTracer:
        tracer = self._new_tracer(aval)
        self.invars.append(self.var_of[id(tracer)])
        return tracer

    def _new_tracer(self, aval: ShapedArray) -> DynamicJaxprTracer:
        if getattr(aval, "vma", None):
            self.has_vma = True
        tracer = DynamicJaxprTracer(self, aval)
        self.tracers.append(tracer)
        self.var_of[id(tracer)] = Var(aval)
        return tracer

    def new_literal(self, value: Any, aval: ShapedArray) -> DynamicJaxprTracer:
        """A tracer that stands for the scalar constant ``value`` (see DynamicJaxprTracer)."""
        tracer = DynamicJaxprTracer(self, aval, Literal(value, aval))
        self.tracers.append(tracer)
        return tracer

    def to_atom(self, x: Any) -> Var | Literal:
        """The Var or Literal that stands for ``x`` in the jaxpr."""
        if isinstance(x, DynamicJaxprTracer) and x._trace is self:
            # NB: a literal tracer of *another* trace is a constvar, as in JAX: that is how a
            # constant computed on the known side of a split jit becomes one of its residuals.
            return x._literal if x._literal is not None else self.var_of[id(x)]
        aval = core.get_aval(x)
        if _is_literalable(x):
            return Literal(x, aval)
        # A non-scalar constant, or a tracer of some outer trace: a constvar.
        var = self.constvars.get(id(x))
        self.staged_unread.discard(id(x))
        if var is None:
            # (its weak type is kept, as JAX's new_const does: a weak residual of the
            # known half of a linearization must not make the tangents strong)
            var = self.constvars[id(x)] = Var(aval)
            if getattr(aval, "vma", None):
                self.has_vma = True
            self.consts.append(x)
        return var

    def process_primitive(self, prim, args, params):
        fold = const_fold_rules.get(prim)
        if fold is not None and all(_is_constant(a) for a in args):
            values = [_literal_value(a) for a in args]
            folded = fold(*values, **params)
            if folded is not None and not _is_literalable(folded) and any(
                    folded is a for a in args if not isinstance(a, Tracer)):
                return self._stage_constant(folded)
            if folded is not None:
                return self.new_literal(folded, core.abstract_eval(
                    prim, [core.get_aval(a) for a in args], params))
        invars = [self.to_atom(a) for a in args]
        if self.has_vma and any(getattr(v.aval, "vma", None) for v in invars):
            args = insert_pvary(prim, list(args), [v.aval for v in invars], params)
            invars = [self.to_atom(a) for a in args]
        forwarded = self._forwarded(prim, args, invars, params)
        if forwarded is not None:
            return forwarded
        out_avals = core.abstract_eval(prim, [v.aval for v in invars], params)
        if not prim.multiple_results:
            out_avals = [out_avals]
        outs = [self._new_tracer(a) for a in out_avals]
        outvars = [self.var_of[id(t)] for t in outs]
        self.eqns.append(JaxprEqn(invars, outvars, prim, params,
                                  source_info.current(self.name_depth)))
        if outvars and core.in_jvp_rule():
            STAGED_IN_JVP_RULE.add(outvars[0])
        return outs if prim.multiple_results else outs[0]

    def _stage_constant(self, x: Any) -> Any:
        """``stage(x)`` of an array known now (``jnp.array([1, 2])`` while tracing): it is
        a constvar from this moment on. JAX's trace makes it one when it is made (new_const),
        so the constvars come in the order the constants were made, not in the order
        equations first read them. (JAX returns a tracer; edujax keeps the concrete Array,
        whose constvar is dropped again if no equation ever reads it, as JAX drops unused
        constvars.)"""
        if id(x) not in self.constvars:
            self.to_atom(x)
            self.staged_unread.add(id(x))
        return x

    def _owns(self, x: Any) -> bool:
        return isinstance(x, DynamicJaxprTracer) and x._trace is self

    def _forwarded(self, prim, args, invars, params) -> Any:
        """The input an equation would only pass on (see ``forwarding_rules``), or None."""
        rule = forwarding_rules.get(prim) if self.forwarding else None
        if rule is None or prim.multiple_results:
            return None
        i, = rule([v.aval for v in invars], **params)
        if i is None or type(invars[i]) is not Var:
            return None
        return args[i]

    def to_jaxpr(self, outs: list) -> ClosedJaxpr:
        outvars = [self.to_atom(x) for x in outs]
        kept = [(v, c) for (i, v), c in zip(self.constvars.items(), self.consts)
                if i not in self.staged_unread]
        jaxpr = Jaxpr([v for v, _ in kept], self.invars, outvars, self.eqns, self.debug_info)
        return ClosedJaxpr(jaxpr, [c for _, c in kept])

    def origin_message(self, tracer: Tracer) -> str:
        """Which function was being traced, and which arguments ``tracer`` depends on."""
        info = self.debug_info
        if not isinstance(info, DebugInfo):
            return ""
        msg = f"The error occurred while tracing the function {info} for {info.traced_for}."
        names = self.argument_names_of(tracer)
        if names:
            which = (f"the argument {names[0]}" if len(names) == 1 else
                     "the arguments " + ", ".join(names[:-1]) + f" and {names[-1]}")
            msg += (" This concrete value was not available in Python because it depends on "
                    f"the value of {which}.")
        return msg

    def argument_names_of(self, tracer: Tracer) -> list[str]:
        """Walk the equations backwards from ``tracer`` to the inputs it was computed from."""
        var = self.var_of.get(id(tracer))
        if var is None or not isinstance(self.debug_info, DebugInfo):
            return []
        needed = {var}
        for eqn in reversed(self.eqns):
            if any(v in needed for v in eqn.outvars):
                needed.update(v for v in eqn.invars if isinstance(v, Var))
        names = self.debug_info.arg_names
        return [names[i] for i, v in enumerate(self.invars) if v in needed and i < len(names)]


def hoist_tracer_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """Constants that are tracers of an enclosing trace cannot live inside a jaxpr
    parameter; like JAX, turn them into leading inputs of the jaxpr (jit and custom_jvp do)."""
    jaxpr = closed.jaxpr
    tracer_idx = [i for i, c in enumerate(closed.consts) if isinstance(c, core.Tracer)]
    if not tracer_idx:
        return closed, []
    keep = [i for i in range(len(closed.consts)) if i not in tracer_idx]
    new = Jaxpr([jaxpr.constvars[i] for i in keep],
                [jaxpr.constvars[i] for i in tracer_idx] + jaxpr.invars,
                jaxpr.outvars, jaxpr.eqns, jaxpr.debug_info)
    return (ClosedJaxpr(new, [closed.consts[i] for i in keep]),
            [closed.consts[i] for i in tracer_idx])


def trace_to_jaxpr(fun: Callable, in_avals: list[ShapedArray],
                   debug_info: Any = None, forwarding: bool = True) -> tuple[ClosedJaxpr, Any]:
    """Run ``fun`` (flat arrays in, flat list out) on tracers; return its ClosedJaxpr.

    The second result is whatever ``fun`` returned besides the flat outputs
    (``fun`` returns ``(outs, aux)``); jit and make_jaxpr pass the output tree there.
    ``forwarding=False`` keeps the equations that only pass an input on (JAX's
    linear_transpose traces that way: their transposes then show, a reduce_sum over no axes).
    """
    with source_info.new_trace(sys._getframe()):
        trace = DynamicJaxprTrace(debug_info, forwarding)
        args = [trace.new_arg(a) for a in in_avals]
        with core.set_current_trace(trace):
            outs, aux = fun(*args)
    return trace.to_jaxpr(outs), aux


# ---------------------------------------------------------------------- dead-code elimination
def _has_effects(eqn: JaxprEqn) -> bool:
    """An equation kept for what it does: no outputs (a print), or a callback."""
    return not eqn.outvars or "callback" in eqn.primitive.name


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: list[bool],
              prune_inputs: bool = False) -> tuple[Jaxpr, list[bool]]:
    """``jaxpr`` without the equations no used output depends on (and, inside each jit, the
    same pruning: ``dce_rules``); with ``prune_inputs``, without the inputs nothing reads.
    Returns the new jaxpr and which inputs are used. JAX runs this on every linearized
    (tangent) jaxpr; so does edujax's ``linearize``."""
    live = {v for v, used in zip(jaxpr.outvars, used_outputs) if used and type(v) is Var}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        used = [v in live for v in eqn.outvars]
        rule = dce_rules.get(eqn.primitive)
        if rule is not None:
            used_inputs, new_eqn = rule(eqn, used)
            if new_eqn is None:
                continue
            live.update(v for v, u in zip(eqn.invars, used_inputs) if u and type(v) is Var)
            kept.append(new_eqn)
        elif any(used) or _has_effects(eqn):
            live.update(v for v in eqn.invars if type(v) is Var)
            kept.append(eqn)
    used_inputs = [v in live for v in jaxpr.invars]
    invars = [v for v, u in zip(jaxpr.invars, used_inputs) if u] if prune_inputs \
        else jaxpr.invars
    outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    return Jaxpr(jaxpr.constvars, invars, outvars, kept[::-1], jaxpr.debug_info), used_inputs


# ------------------------------------------------------------------ known and unknown
# partial_eval_rules[p](trace, *args, **params): how a primitive that carries a jaxpr
#     (jit, ...) meets a mix of known and unknown inputs while linearizing.
partial_eval_rules: dict[Primitive, Callable] = {}
# A property of a primitive that changes nothing but the jaxpr that gets printed, set in the
# primitive's own block; skip it on a first reading. JAX's JaxprTrace gives these
# primitives to their partial-evaluation rule even when all inputs are known
# (pe.custom_partial_eval_rules; there, broadcast_in_dim's rule then does nothing, and
# remat2's is left out here: no recorded program shows what it does with known inputs).
split_even_if_known: set[Primitive] = set()


class PartialEvalTrace(core.Trace):
    """Known values compute in the parent trace; unknown ones are staged into a jaxpr.

    A *known* value is simply a value of the parent trace (a concrete Array, or a
    tracer of an enclosing make_jaxpr). An *unknown* value is a tracer of the
    internal staging trace. An equation with any unknown input is recorded; its
    known inputs become the jaxpr's constants: the *residuals* that the linear
    (backward) computation needs.
    """

    def __init__(self, parent: core.Trace, residuals_last: bool = False):
        self.parent = parent
        self.staging = DynamicJaxprTrace()
        # Where an unknown jit takes its residuals. JAX has two tracers for this work:
        # linearize's (LinearizeTrace: a jit's linear part takes its residuals first,
        # pjit's _pjit_linearize) and the one that splits the jaxpr of a scan, cond or
        # while (JaxprTrace, pe.partial_eval_jaxpr_nounits: residuals last,
        # _pjit_partial_eval). partial_eval_jaxpr.py makes the second kind.
        self.residuals_last = residuals_last
        # > 0 while a JVP rule runs over this trace, or a jaxpr's equation staged inside one
        # is evaluated here (see JVPTrace._run_rule)
        self.in_jvp_rule = 0

    def new_unknown(self, aval: ShapedArray) -> DynamicJaxprTracer:
        return self.staging.new_arg(aval)

    def is_unknown(self, x: Any) -> bool:
        return (isinstance(x, DynamicJaxprTracer) and x._trace is self.staging
                and x._literal is None)  # a literal is a known constant

    def process_primitive(self, prim, args, params):
        if any(self.is_unknown(a) for a in args) or (self.in_jvp_rule
                                                     and prim in split_even_if_known):
            rule = partial_eval_rules.get(prim)
            if rule is not None:
                return rule(self, *args, **params)
            return self.staging.process_primitive(prim, args, params)
        with core.set_current_trace(self.parent):
            return prim.bind(*args, **params)

    def origin_message(self, tracer: Tracer) -> str:
        return getattr(self.parent, "origin_message", lambda t: "")(tracer)
