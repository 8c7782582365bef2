"""Inline a jaxpr's calls before fusing it (``inline_calls``): paste nested calls in, drop
what nobody reads.

A jitted function that calls ``jnp.where`` contains a ``jit[name=_where]`` equation whose
body is another jaxpr; ``custom_jvp``/``custom_vjp`` functions show up as call equations
too. Fusion can only merge equations it can see side by side, so we first paste every
such body into the outer jaxpr (with fresh variables: the same body may be pasted twice).
``stop_gradient`` only matters to autodiff, so it disappears here too.

Random keys become their uint32 words, and the key primitives the threefry programs that
compute them (``keys.py``), so that random numbers are computed in compiled kernels too.

``split`` (how reverse mode cuts a concatenate's cotangent) becomes one ``slice`` per
piece, as XLA lowers it: slices are views the fused loops read through.

A ``while`` whose predicate is batched (vmap of a loop whose examples stop at different
times: its cond returns one bool per example) becomes the plain loop that JAX's lowering
makes of it, ``while any(pred): carry = select(pred, body(carry), carry)``
(lax/control_flow/loops.py, ``lower_batched_predicate``), so the loop steps and the
compiled loop functions only ever see a scalar predicate.

Equations whose operands are all literals (``div 1.0 8.0``, from ``jnp.mean``'s gradient)
are computed right away with their reference rule: constant folding.

Then dead-code elimination walks the equations backwards and keeps only those whose
outputs are used, the way XLA's DCE pass does.

Last, one algebraic identity: the transpose of a matrix product is a matrix product,
(A B)^T = B^T A^T. Reverse-mode autodiff often writes ``transpose(dot_general(a, b))``
(the gradient of ``x @ w`` with respect to ``w``); computing ``dot_general(b, a)`` instead
lets BLAS write the result in the order it is read, where a loop reading the transposed
product would stride through memory.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax import core
from edujax.source_info import NO_SOURCE
from edujax.backends.passes import keys
from edujax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from edujax.lax.control_flow.loops import lower_batched_predicate
from edujax.lax.shape import slice_p

# Primitives whose equation is a call of the jaxpr held in a parameter, by parameter name.
CALL_PARAMS = {"jit": "jaxpr", "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr",
               "remat2": "jaxpr"}
# Primitives that return their operand unchanged once autodiff is done (``name`` is
# checkpoint_name's tag; a compiled program's outputs are new buffers anyway, so ``copy``).
IDENTITIES = {"stop_gradient", "name", "copy", "reshard"}  # reshard: see lax/reshard.py


def inline_calls(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with nested calls inlined and unused equations removed."""
    builder = _Builder()
    constvars = [builder.new_const(v, c) for v, c in zip(closed.jaxpr.constvars, closed.consts)]
    invars = [Var(v.aval) for v in closed.jaxpr.invars]
    env = dict(zip(closed.jaxpr.constvars, constvars))
    for old, new in zip(closed.jaxpr.invars, invars):  # keys are computed on as words
        env[old] = keys.unwrap(builder, new) if keys.is_key(new.aval) else new
    outvars = [keys.wrap(builder, o) if keys.is_key(v.aval) else o
               for o, v in zip(builder.paste(closed.jaxpr, env), closed.jaxpr.outvars)]
    jaxpr = Jaxpr(builder.constvars, invars, outvars, builder.eqns, closed.jaxpr.debug_info)
    return ClosedJaxpr(fold_transposed_products(dead_code_elimination(jaxpr)), builder.consts)


class _Builder:
    """Collects the equations and constants of the jaxpr with its calls inlined."""

    def __init__(self) -> None:
        self.eqns: list[JaxprEqn] = []
        self.constvars: list[Var] = []
        self.consts: list[Any] = []
        # The place of the call being pasted: an equation of edujax's own code inside it
        # (jnp.where's select_n) comes from the user's line that called it.
        self.place = NO_SOURCE

    def new_const(self, var: Var, value: Any) -> Var:
        value, aval = keys.const_words(value, var.aval)  # (constant keys: their words)
        new = Var(aval)
        self.constvars.append(new)
        self.consts.append(value)
        return new

    def paste(self, jaxpr: Jaxpr, env: dict) -> list:
        """Append ``jaxpr``'s equations, reading inputs through ``env``; return its outputs."""
        def read(atom: Any) -> Any:
            return atom if type(atom) is Literal else env[atom]

        for eqn in jaxpr.eqns:
            start, outer = len(self.eqns), self.place
            if eqn.source_info.code is not None:
                self.place = eqn.source_info
            self._paste_eqn(eqn, read, env)
            for i in range(start, len(self.eqns)):
                if self.eqns[i].source_info.code is None:
                    self.eqns[i] = self.eqns[i].replace(source_info=self.place)
            self.place = outer
        return [read(v) for v in jaxpr.outvars]

    def _paste_eqn(self, eqn: JaxprEqn, read: Callable, env: dict) -> None:
        """Append one equation, or what stands for it (a call's body, key words...)."""
        name = eqn.primitive.name
        if name == "while" and eqn.params["cond_jaxpr"].out_avals[0].shape:
            eqn = lower_batched_predicate(eqn)  # (before keys become words)
        invars = [read(v) for v in eqn.invars]
        if name in CALL_PARAMS:
            outs = self._paste_call(eqn.params[CALL_PARAMS[name]], invars)
        elif name in IDENTITIES:
            outs = invars
        elif (rewritten := keys.rewrite(self, eqn, invars)) is not None:
            outs = rewritten  # keys as words, threefry as elementwise equations
        elif name == "split":
            outs = self._split_as_slices(eqn, invars[0])
        elif (folded := fold_constants(eqn, invars)) is not None:
            outs = [folded]
        else:
            outs = [Var(v.aval) for v in eqn.outvars]
            self.eqns.append(eqn.replace(invars=invars, outvars=outs))
        env.update(zip(eqn.outvars, outs))

    def _split_as_slices(self, eqn: JaxprEqn, operand: Any) -> list:
        """``a b = split[axis=1 sizes=(1, 2)] x``: a = x[:, 0:1], b = x[:, 1:3]."""
        shape, axis = eqn.invars[0].aval.shape, eqn.params["axis"]
        outs, start = [], 0
        for v in eqn.outvars:
            starts, limits = [0] * len(shape), list(shape)
            starts[axis], limits[axis] = start, start + v.aval.shape[axis]
            out = Var(v.aval)
            self.eqns.append(JaxprEqn([operand], [out], slice_p, {
                "start_indices": tuple(starts), "limit_indices": tuple(limits),
                "strides": None}))
            outs.append(out)
            start = limits[axis]
        return outs

    def _paste_call(self, body: ClosedJaxpr, args: list) -> list:
        inner = body.jaxpr
        env = {v: self.new_const(v, c) for v, c in zip(inner.constvars, body.consts)}
        env.update(zip(inner.invars, args))
        return self.paste(inner, env)


def fold_constants(eqn: JaxprEqn, invars: list) -> Literal | None:
    """The scalar result of an equation whose operands are all literals, as a literal."""
    if (not invars or eqn.primitive.multiple_results or _has_effects(eqn)
            or any(type(v) is not Literal for v in invars) or eqn.outvars[0].aval.shape):
        return None
    out_aval = eqn.outvars[0].aval
    try:
        with np.errstate(all="ignore"):
            value = core.impl_rules[eqn.primitive](
                *[np.asarray(v.val, v.aval.dtype) for v in invars], **eqn.params)
    except Exception:  # noqa: BLE001 - leave it to run time (it may raise there, as it should)
        return None
    return Literal(np.asarray(value, out_aval.dtype)[()], out_aval)


def dead_code_elimination(jaxpr: Jaxpr) -> Jaxpr:
    """Keep only the equations whose outputs are (transitively) used by the outputs."""
    live = {v for v in jaxpr.outvars if type(v) is Var}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in live for v in eqn.outvars) or _has_effects(eqn):
            kept.append(eqn)
            live.update(v for v in eqn.invars if type(v) is Var)
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, kept[::-1], jaxpr.debug_info)


def fold_transposed_products(jaxpr: Jaxpr) -> Jaxpr:
    """``t = transpose[(1, 0)] (dot_general a b)`` becomes ``t = dot_general b a`` when the
    product is read by nothing else."""
    uses: dict = {}
    for eqn in jaxpr.eqns:
        for v in eqn.invars:
            if type(v) is Var:
                uses[v] = uses.get(v, 0) + 1
    for v in jaxpr.outvars:
        if type(v) is Var:
            uses[v] = uses.get(v, 0) + 1
    products = {eqn.outvars[0]: eqn for eqn in jaxpr.eqns if _is_matrix_product(eqn)}
    swapped, eqns = set(), []
    for eqn in jaxpr.eqns:
        (operand, *_) = eqn.invars or (None,)
        if (eqn.primitive.name == "transpose" and tuple(eqn.params["permutation"]) == (1, 0)
                and operand in products and uses.get(operand) == 1):
            dot = products[operand]
            (lc, rc), batch = dot.params["dimension_numbers"]
            params = dict(dot.params, dimension_numbers=((rc, lc), batch))
            eqns.append(dot.replace(invars=dot.invars[::-1], outvars=eqn.outvars, params=params))
            swapped.add(operand)
        else:
            eqns.append(eqn)
    eqns = [e for e in eqns if not (e.outvars and e.outvars[0] in swapped)]
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns, jaxpr.debug_info)


def _is_matrix_product(eqn: JaxprEqn) -> bool:
    """A dot_general without batch dimensions whose result is a matrix."""
    if eqn.primitive.name != "dot_general":
        return False
    (_, _), (lb, rb) = eqn.params["dimension_numbers"]
    return not lb and not rb and len(eqn.outvars[0].aval.shape) == 2


def _has_effects(eqn: JaxprEqn) -> bool:
    """edujax's primitives are pure, but callbacks and ``jax.debug.print`` must never be
    dropped: what they do (print, call Python) is the point, not their outputs."""
    return "callback" in eqn.primitive.name or eqn.primitive.name == "debug_print"
