"""``jit_p``: a call to a jitted function, as one equation of an enclosing jaxpr.

When a jitted function is called *while another trace is active* (inside
``make_jaxpr``, ``grad``, another ``jit``...), it is not inlined: it becomes one
equation ``jit[name=f jaxpr={...}]`` whose ``jaxpr`` parameter holds the traced
body. Evaluating that equation compiles the body with the current backend (once
per jaxpr) and runs it.
"""
from __future__ import annotations

import weakref
from typing import Any

from edujax import core
from edujax.backends import get_backend
from edujax.core import Primitive
from edujax.interpreters import ad, batching
from edujax.jaxpr import ClosedJaxpr, eval_jaxpr
from edujax.pretty import pp_eqn_default, pp_eqn_rules

jit_p = Primitive("jit")
jit_p.multiple_results = True


def _jit_abstract_eval(*avals: core.ShapedArray, jaxpr: ClosedJaxpr, **params: Any) -> list:
    return list(jaxpr.out_avals)


# Executables for jaxprs met inside other jaxprs, one per (jaxpr, backend).
_executables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def executable_for(jaxpr: ClosedJaxpr) -> Any:
    backend = get_backend()
    per_backend = _executables.setdefault(jaxpr, {})
    if backend.name not in per_backend:
        per_backend[backend.name] = backend.compile(jaxpr)
    return per_backend[backend.name]


def _jit_impl(*args: Any, jaxpr: ClosedJaxpr, **params: Any) -> list:
    return executable_for(jaxpr)(*args)


core.abstract_eval_rules[jit_p] = _jit_abstract_eval
core.impl_rules[jit_p] = _jit_impl


def _jit_pp_rule(eqn, ctx):
    """Print ``name`` and ``jaxpr`` (and donations, if any), and give the inner jaxpr's
    inputs and outputs the same names as the equation's, as JAX does."""
    inner = eqn.params["jaxpr"].jaxpr
    if inner not in ctx.shared:
        ctx.suggest_same_names(inner.invars, eqn.invars)
        ctx.suggest_same_names(inner.outvars, eqn.outvars)
    names = ["name", "jaxpr"]
    if any(eqn.params.get("donated_invars", ())):
        names.append("donated_invars")
    return pp_eqn_default(eqn, ctx, names)


pp_eqn_rules[jit_p] = _jit_pp_rule



def _jit_jvp(primals, tangents, *, jaxpr, name, **params):
    """Differentiate the body into a new jaxpr and call *that* through jit_p."""
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jvp_jaxpr, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros)
    args = [*primals, *[t for t in tangents if type(t) is not ad.Zero]]
    outs = jit_p.bind(*args, jaxpr=jvp_jaxpr, name=name,
                      donated_invars=(False,) * len(args), inline=False, keep_unused=False)
    n = len(jaxpr.out_avals)
    nonzero_tangents = iter(outs[n:])
    return outs[:n], [next(nonzero_tangents) if nz else ad.Zero(ad.tangent_aval(a))
                      for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


def _jit_partial_eval(trace, *args, jaxpr, **params):
    """While linearizing, inline the body: each equation then lands on the known side
    or the unknown side by itself.

    NB: JAX instead splits the jaxpr into a known jit and an unknown jit, so its
    make_jaxpr(grad(jit(f))) shows two jit equations where edujax shows the body.
    """
    with core.set_current_trace(trace):
        return eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)


ad.jvp_rules[jit_p] = _jit_jvp
ad.partial_eval_rules[jit_p] = _jit_partial_eval


def _jit_batch(args, dims, *, jaxpr, name, **params):
    """Batch the body into a new jaxpr and call *that* through jit_p."""
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    batched, out_dims = batching.batch_jaxpr(jaxpr, size, dims)
    outs = jit_p.bind(*args, jaxpr=batched, name=name, **params)
    return outs, out_dims


batching.batching_rules[jit_p] = _jit_batch
