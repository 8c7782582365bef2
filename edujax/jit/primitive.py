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

from edujax import core, inner_jit, nan_checks
from edujax.backends import get_backend
from edujax.core import Primitive
from edujax.interpreters import ad, batching
from edujax.interpreters import partial_eval as pe
from edujax.interpreters.partial_eval import dce_jaxpr, dce_rules, trace_to_jaxpr
from edujax.interpreters.partial_eval_jaxpr import partial_eval_jaxpr
from edujax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var, run_jaxpr
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


# The bodies of jnp functions' inner jits (edujax/inner_jit.py), and every jaxpr derived from
# one (its JVP, its known and unknown halves, its transpose, its batched form). Run eagerly,
# for instance by an eager ``grad(f)(x)`` whose f calls ``jnp.where``, such a jaxpr is
# interpreted with the NumPy rules, exactly as the plain jnp function would have computed:
# compiling a backend kernel for every small jnp helper would cost more than it saves.
_inner_bodies: weakref.WeakSet = weakref.WeakSet()


def _jit_impl(*args: Any, jaxpr: ClosedJaxpr, **params: Any) -> list:
    if jaxpr in _inner_bodies:
        return run_jaxpr(jaxpr.jaxpr, jaxpr.consts, list(args))
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
    return pp_eqn_default(eqn, ctx, _jit_param_names(eqn))


def _jit_param_names(eqn) -> list[str]:
    return ["name", "jaxpr"] + (["donated_invars"]
                                if any(eqn.params.get("donated_invars", ())) else [])


_jit_pp_rule.param_names = _jit_param_names  # type: ignore[attr-defined]


pp_eqn_rules[jit_p] = _jit_pp_rule


def _stage_jit_call(jaxpr: ClosedJaxpr, args: list, name: str) -> list:
    """How a jnp function's inner jit (edujax/inner_jit.py) becomes one equation."""
    return jit_p.bind(*args, jaxpr=jaxpr, name=name, donated_invars=(False,) * len(args),
                      inline=False, keep_unused=False)


def _stage_inner_jit_call(jaxpr: ClosedJaxpr, args: list, name: str) -> list:
    _inner_bodies.add(jaxpr)
    return _stage_jit_call(jaxpr, args, name)


inner_jit.stage_jit_call = _stage_inner_jit_call



# The rules below derive new jaxprs from a jit's body (its JVP, its batched form, its known
# and unknown halves, its transpose). Like JAX (which keeps them in weakref_lru_caches), we
# keep each derived jaxpr per body and arguments: two equal calls then share one jaxpr
# object, which saves the work and lets the printer hoist it into a ``let``, as JAX does.
_derived: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# How many of a JVP jaxpr's outputs (the last ones) are tangents. Linearizing, JAX computes
# every tangent on the tangent side, even one known already (a custom rule's zeros_like):
# partial evaluation is told to put them on the unknown side too.
_tangent_outputs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _memoized(jaxpr: ClosedJaxpr, key: tuple, compute: Any) -> Any:
    per_jaxpr = _derived.setdefault(jaxpr, {})
    if key not in per_jaxpr:
        per_jaxpr[key] = result = compute()
        if jaxpr in _inner_bodies:  # what derives from an inner jit's body is one too
            _inner_bodies.update(j for j in (result if type(result) is tuple else (result,))
                                 if isinstance(j, ClosedJaxpr))
    return per_jaxpr[key]


def _jit_jvp(primals, tangents, *, jaxpr, name, **params):
    """Differentiate the body into a new jaxpr and call *that* through jit_p."""
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jvp_jaxpr, out_nonzeros = _memoized(jaxpr, ("jvp", tuple(nonzeros)),
                                        lambda: ad.jvp_jaxpr(jaxpr, nonzeros))
    _tangent_outputs[jvp_jaxpr] = sum(out_nonzeros)
    args = [*primals, *[t for t in tangents if type(t) is not ad.Zero]]
    outs = jit_p.bind(*args, jaxpr=jvp_jaxpr, name=name,
                      donated_invars=(False,) * len(args), inline=False, keep_unused=False)
    n = len(jaxpr.out_avals)
    nonzero_tangents = iter(outs[n:])
    return outs[:n], [next(nonzero_tangents) if nz else ad.Zero(ad.tangent_aval(a))
                      for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


# ---------------------------------------------------------------------- partial evaluation
# While linearizing, a jit's inputs mix known primals and unknown tangents. Like JAX
# (pjit.py's _pjit_partial_eval), we split its body with partial_eval_jaxpr and bind two
# jits with the same name:
#
# * a *known* jit, run now (in the parent trace): the known outputs, then the residuals
#   the tangent computation needs. A residual that is simply one of the known inputs is
#   not returned by it: the input itself is passed on (JAX's "forwarding");
# * an *unknown* jit, staged into the linear jaxpr: from the residuals and then the unknown
#   inputs, the unknown outputs. Its transpose (below) is what grad runs backwards. (In
#   the body of a scan, cond or while, split by partial_eval_jaxpr, the residuals come
#   last instead, as in JAX: see pe.PartialEvalTrace.)

def _jit_partial_eval(trace, *args, jaxpr, name, **params):
    unknowns = [trace.is_unknown(x) for x in args]
    last = trace.residuals_last
    split, known, unknown, in_fwd, out_fwd = _memoized(
        jaxpr, ("partial_eval", tuple(unknowns), last),
        lambda: _split_jaxpr(jaxpr, unknowns, last))
    with core.set_current_trace(trace.parent):
        known_outs, residuals = _run_known_jit(known, args, unknowns, split, in_fwd, out_fwd,
                                               name)
    unknown_outs = []
    if any(split.out_unknowns):
        unknown_args = [x for x, uk in zip(args, unknowns) if uk]
        with core.set_current_trace(trace.staging):
            ins = [*unknown_args, *residuals] if last else [*residuals, *unknown_args]
            unknown_outs = _stage_jit_call(unknown, ins, name)
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if uk else next(known_it) for uk in split.out_unknowns]


def _run_known_jit(known, args, unknowns, split, in_fwd, out_fwd, name) -> tuple[list, list]:
    """Call the known jit on the known inputs: its known outputs and the residuals, where
    a forwarded one is taken from the input (``in_fwd``) or known output (``out_fwd``) it is."""
    known_args = [x for x, uk in zip(args, unknowns) if not uk]
    outs = iter(_stage_jit_call(known, known_args, name))
    known_outs_res = [known_args[f] if f is not None else None if g is not None else next(outs)
                      for f, g in zip(in_fwd, out_fwd)]
    known_outs_res = [known_outs_res[g] if g is not None else x
                      for x, g in zip(known_outs_res, out_fwd)]
    num_known_out = split.out_unknowns.count(False)
    computed = iter(known_outs_res[num_known_out:])
    residuals = [args[f] if f is not None else next(computed) for f in split.res_forwarded]
    return known_outs_res[:num_known_out], residuals


def _split_jaxpr(jaxpr: ClosedJaxpr, unknowns: list[bool], residuals_last: bool) -> tuple:
    split = _drop_unused_residuals(_constants_to_unknown_side(
        _partial_eval_body(jaxpr, unknowns, residuals_last)))
    in_fwd, out_fwd = _known_output_forwarding(split)
    known = _prune_outputs(split.known, [f is None and g is None
                                         for f, g in zip(in_fwd, out_fwd)])
    unknown = split.unknown
    if residuals_last:  # (pjit's _pjit_partial_eval: move_binders_to_back)
        unknown = _residual_inputs_to_back(unknown, len(split.res_forwarded))
    return split, known, unknown, in_fwd, out_fwd


def _partial_eval_body(jaxpr: ClosedJaxpr, unknowns: list[bool], residuals_last: bool) -> Any:
    """partial_eval_jaxpr of the body, with the JVP jaxpr's tangent outputs put on the
    unknown side (``_tangent_outputs``) and known inputs forwarded rather than returned."""
    n_tangents = _tangent_outputs.get(jaxpr, 0)
    n_out = len(jaxpr.out_avals)
    instantiate = [i >= n_out - n_tangents for i in range(n_out)]
    return partial_eval_jaxpr(
        jaxpr, unknowns, instantiate=instantiate, forward=[not uk for uk in unknowns],
        # (zero literals become residuals only while linearizing: a JaxprTrace writes them inline)
        literal_residuals=not residuals_last, residuals_last=residuals_last)


def _known_output_forwarding(split: Any) -> tuple[list, list]:
    """Known outputs that are just known inputs passed through are not jit outputs
    (``in_fwd``: the input each is), nor is a residual that is one of the known outputs
    (``out_fwd``: which one; JAX's output-to-output forwarding)."""
    num_known_out = split.out_unknowns.count(False)
    in_fwd = _forwarded_inputs(split.known.jaxpr, num_known_out)
    outvars = split.known.jaxpr.outvars
    position = {v: i for i, v in enumerate(outvars[:num_known_out])
                if type(v) is Var and in_fwd[i] is None}
    out_fwd = [None] * num_known_out + [position.get(v) if type(v) is Var else None
                                        for v in outvars[num_known_out:]]
    return in_fwd, out_fwd


def _residual_inputs_to_back(unknown: ClosedJaxpr, num_res: int) -> ClosedJaxpr:
    j = unknown.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, [*j.invars[num_res:], *j.invars[:num_res]],
                             j.outvars, j.eqns, j.debug_info), unknown.consts)


def _constants_to_unknown_side(split: Any) -> Any:
    """A residual computed from literals alone that only a ``scan`` of the unknown jaxpr
    reads (the zero tangent scan's JVP instantiates for a carry, ``broadcast_in_dim 0.0``)
    is recomputed by the unknown jaxpr rather than passed to it: JAX linearizes scan with
    a rule of its own, which makes such zeros on the tangent side in the first place.
    (Other JVP rules' zeros, select_n's say, are made on the known side in JAX too.)"""
    moved = _constant_residuals_only_scans_read(split)
    if not moved:
        return split
    keep = [k not in moved for k in range(len(split.res_forwarded))]
    moved_ids = {id(e) for e in moved.values()}
    known_eqns = [e for e in split.known.jaxpr.eqns if id(e) not in moved_ids]
    unknown = split.unknown.jaxpr
    new_eqns = [moved[k].replace(outvars=[unknown.invars[k]]) for k in sorted(moved)]
    return _keep_residuals(split, keep, known_eqns, new_eqns + unknown.eqns)


def _constant_residuals_only_scans_read(split: Any) -> dict[int, JaxprEqn]:
    """Residual index -> the known equation computing it, for each residual made from
    literals alone that the known side does not read itself and only scans read."""
    known, unknown = split.known.jaxpr, split.unknown.jaxpr
    readers = _primitives_reading(unknown)
    producer = {v: e for e in known.eqns for v in e.outvars}
    read_on_known_side = _read_by(known, split.out_unknowns.count(False))
    moved: dict[int, JaxprEqn] = {}
    for k, v in _computed_residuals(split):
        eqn = producer.get(v)
        if (eqn is not None and len(eqn.outvars) == 1 and v not in read_on_known_side
                and all(type(a) is not Var for a in eqn.invars)
                and readers.get(unknown.invars[k]) == {"scan"}):
            moved[k] = eqn
    return moved


def _primitives_reading(jaxpr: Jaxpr) -> dict[Var, set[str]]:
    """For each variable, the names of the primitives whose equations read it."""
    readers: dict[Var, set[str]] = {}
    for e in jaxpr.eqns:
        for a in e.invars:
            if type(a) is Var:
                readers.setdefault(a, set()).add(e.primitive.name)
    return readers


def _read_by(known: Jaxpr, num_known_out: int) -> set[Var]:
    """The variables the known jaxpr's equations read or it returns as known outputs."""
    read = {v for e in known.eqns for v in e.invars if type(v) is Var}
    read.update(v for v in known.outvars[:num_known_out] if type(v) is Var)
    return read


def _computed_residuals(split: Any) -> list[tuple[int, Var]]:
    """(residual index, the known jaxpr's output) of each residual not forwarded."""
    computed = iter(split.known.jaxpr.outvars[split.out_unknowns.count(False):])
    return [(k, next(computed)) for k, f in enumerate(split.res_forwarded) if f is None]


def _drop_unused_residuals(split: Any) -> Any:
    """Residuals the unknown jaxpr never reads are neither computed nor passed, as in JAX:
    e.g. the JVP of ``reduce_max`` under a ``stop_gradient`` (log_softmax) leaves location
    indicators nobody needs, and an inner jit whose tangent outputs go unused needs fewer
    residuals (``dce_jaxpr`` prunes it). The known jaxpr then loses the equations only they
    needed, and any other dead one (a primal computed by a JVP rule and never used)."""
    unknown = split.unknown.jaxpr
    pruned, used_inputs = dce_jaxpr(unknown, [True] * len(unknown.outvars))
    used = used_inputs[:len(split.res_forwarded)]
    split = _keep_residuals(split, used, split.known.jaxpr.eqns, pruned.eqns)
    known = split.known.jaxpr
    known = dce_jaxpr(known, [True] * len(known.outvars))[0]
    return split._replace(known=ClosedJaxpr(known, split.known.consts))


def _keep_residuals(split: Any, keep: list[bool], known_eqns: list, unknown_eqns: list) -> Any:
    """The split with only the residuals ``keep`` marks (the known jaxpr no longer returns
    the others, the unknown one no longer takes them), each jaxpr with the equations given."""
    known, unknown = split.known.jaxpr, split.unknown.jaxpr
    num_known_out, n_res = split.out_unknowns.count(False), len(split.res_forwarded)
    computed_keep = [kp for kp, f in zip(keep, split.res_forwarded) if f is None]
    outvars = known.outvars[:num_known_out] + _kept(known.outvars[num_known_out:], computed_keep)
    invars = _kept(unknown.invars[:n_res], keep) + unknown.invars[n_res:]
    known = Jaxpr(known.constvars, known.invars, outvars, known_eqns, known.debug_info)
    unknown = Jaxpr(unknown.constvars, invars, unknown.outvars, unknown_eqns, unknown.debug_info)
    return split._replace(
        known=ClosedJaxpr(known, split.known.consts),
        unknown=ClosedJaxpr(unknown, split.unknown.consts),
        res_avals=_kept(split.res_avals, keep), res_forwarded=_kept(split.res_forwarded, keep))


def _kept(items: list, keep: list[bool]) -> list:
    return [x for x, k in zip(items, keep) if k]


def _forwarded_inputs(jaxpr: Jaxpr, num_out: int) -> list[int | None]:
    """For each of the first ``num_out`` outputs, the index of the input it simply is."""
    position = {v: i for i, v in enumerate(jaxpr.invars)}
    return ([position.get(v) if type(v) is Var else None for v in jaxpr.outvars[:num_out]]
            + [None] * (len(jaxpr.outvars) - num_out))


def _prune_outputs(closed: ClosedJaxpr, keep: list[bool]) -> ClosedJaxpr:
    if all(keep):
        return closed
    j = closed.jaxpr
    outvars = [v for v, k in zip(j.outvars, keep) if k]
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, outvars, j.eqns, j.debug_info),
                       closed.consts)


# ---------------------------------------------------------------------- transposition
# In the linear jaxpr an (unknown) jit takes tangents and residuals. Its transpose is
# again one jit with the same name, over the transposed body: residuals and the nonzero
# output cotangents in, the cotangents of the linear inputs out. A linear input that no
# cotangent reaches (jnp.where(x, x, 2.0): x's tangent as the *condition* goes nowhere)
# stays a symbolic zero and is not an output at all, as in JAX (whose symbolic zeros are
# pytrees without leaves).

def _jit_transpose(cts, *args, jaxpr, name, **params):
    linear = [ad.is_undefined_primal(x) for x in args]
    residuals = [x for x, lin in zip(args, linear) if not lin]
    nonzero_cts = [ct for ct in cts if type(ct) is not ad.Zero]
    avals = [core.get_aval(x) for x in [*residuals, *nonzero_cts]]
    cts_nonzero = tuple(type(ct) is not ad.Zero for ct in cts)
    key = ("transpose", tuple(linear), cts_nonzero,
           tuple((a.shape, a.dtype, a.weak_type) for a in avals))
    transposed, reached = _memoized(jaxpr, key, lambda: _transpose_jaxpr(
        jaxpr, tuple(linear), cts_nonzero, tuple(avals)))
    nan_checks.backward_passes.add(transposed)  # (how jax_debug_nans announces its NaNs)
    cts_in = iter(_stage_jit_call(transposed, [*residuals, *nonzero_cts], name))
    lin_avals = (ad.tangent_aval(a) for a, lin in zip(jaxpr.in_avals, linear) if lin)
    cts_lin = [next(cts_in) if r else ad.Zero(a) for a, r in zip(lin_avals, reached)]
    lin_it = iter(cts_lin)
    return [next(lin_it) if lin else None for lin in linear]


def _transpose_jaxpr(closed: ClosedJaxpr, linear: tuple, cts_nonzero: tuple,
                     avals: tuple) -> tuple[ClosedJaxpr, list[bool]]:
    """The transposed body, and for each linear input whether a cotangent reaches it."""
    num_res = linear.count(False)

    def fun(*ins):
        residuals, cts = iter(ins[:num_res]), iter(ins[num_res:])
        primals = [ad.UndefinedPrimal(a) if lin else next(residuals)
                   for a, lin in zip(closed.in_avals, linear)]
        cts_out = [next(cts) if nz else ad.Zero(ad.tangent_aval(a))
                   for a, nz in zip(closed.out_avals, cts_nonzero)]
        cts_in = [ct for ct, lin in zip(
            ad.backward_pass(closed.jaxpr, closed.consts, primals, cts_out), linear) if lin]
        reached = [type(ct) is not ad.Zero for ct in cts_in]
        return [ct for ct in cts_in if type(ct) is not ad.Zero], reached

    return trace_to_jaxpr(fun, list(avals))


ad.jvp_rules[jit_p] = _jit_jvp
pe.partial_eval_rules[jit_p] = _jit_partial_eval
# Only the printed jaxpr depends on these two (see ad.py, partial_eval.py):
ad.linearized_directly.add(jit_p)
pe.split_even_if_known.add(jit_p)
ad.transpose_rules[jit_p] = _jit_transpose


def _jit_nan_check(args: Any, params: dict, outs: list) -> None:
    """An eager call of a jitted body is checked like a compiled call: if its outputs hold
    a NaN, its jaxpr runs again op by op to find the operation (nan_checks.py)."""
    closed = params["jaxpr"]
    nan_checks.check_jit_call(params["name"], outs, lambda: closed.call(*args), closed)


core.nan_check_rules[jit_p] = _jit_nan_check


# ---------------------------------------------------------------------- dead-code elimination
# In a linearized jaxpr, a jit's tangent outputs may go unused (grad of a function that reads
# one output of a jit with several). Like JAX (pjit's DCE rule), the jit then loses those
# outputs, the equations of its body only they needed, and the inputs (residuals) only those
# equations read: its transpose is called with fewer values.
def _jit_dce(eqn, used_outputs: list[bool]) -> tuple[list[bool], Any]:
    if not any(used_outputs):
        return [False] * len(eqn.invars), None
    body = eqn.params["jaxpr"]
    pruned, used_inputs = _memoized(body, ("dce", tuple(used_outputs)),
                                    lambda: _dce_body(body, used_outputs))
    if pruned is body:
        return used_inputs, eqn
    params = dict(eqn.params, jaxpr=pruned, donated_invars=tuple(
        d for d, u in zip(eqn.params["donated_invars"], used_inputs) if u))
    return used_inputs, eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u], params=params)


def _dce_body(body: ClosedJaxpr, used_outputs: list[bool]) -> tuple[ClosedJaxpr, list[bool]]:
    jaxpr, used_inputs = dce_jaxpr(body.jaxpr, used_outputs, prune_inputs=True)
    if all(used_outputs) and all(used_inputs) and len(jaxpr.eqns) == len(body.jaxpr.eqns):
        return body, used_inputs
    return ClosedJaxpr(jaxpr, body.consts), used_inputs


dce_rules[jit_p] = _jit_dce


def _jit_batch(args, dims, *, jaxpr, name, **params):
    """Batch the body into a new jaxpr and call *that* through jit_p."""
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    running = batching._rule_context.trace  # a named axis changes the batched jaxpr
    key = ("batch", size, tuple(dims), getattr(running, "axis_name", None))
    batched, out_dims = _memoized(jaxpr, key, lambda: batching.batch_jaxpr(
        jaxpr, size, dims, keep_out_dims=True))
    outs = jit_p.bind(*args, jaxpr=batched, name=name, **params)
    return outs, out_dims


batching.batching_rules[jit_p] = _jit_batch
