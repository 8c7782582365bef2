"""``jax.checkpoint`` (alias ``jax.remat``): trade memory for time in reverse mode.

Normally ``grad`` keeps every intermediate value the backward pass needs (the *residuals*:
``cos(x)`` for ``sin(x)``...) from the forward pass. Wrapped in ``checkpoint``, a function
keeps only its *inputs*; the backward pass runs the function's forward part again to get
the rest. Less memory, more computation: the classic rematerialization trade.

How it shows in a jaxpr (exactly as in JAX 0.10)::

    b:f32[] = remat2[differentiated=False jaxpr={...} policy=None prevent_cse=True] a

``remat2`` is a call primitive: its ``jaxpr`` parameter is the function's body, and
evaluating it just runs the body. Its rules carry the idea:

* **JVP**: differentiate the body into a new jaxpr and call that through ``remat2``.
* **partial evaluation** (linearize, the middle step of ``grad``): the primal outputs are
  computed now, inline, from the known inputs; the tangent part becomes one ``remat2``
  equation whose inputs are only the *original* known inputs and the tangents. Its body
  recomputes what it needs (``sin d``, ``cos d``...) from those inputs: that is the
  rematerialization.
* **transpose**: the body is transposed into a new jaxpr (its primal part evaluated forward,
  its linear part backwards) and called through ``remat2[differentiated=True]``.

``checkpoint_name(x, "name")`` tags a value (an identity primitive that prints as
``name[name=...]``) so that a policy can refer to it.

A *policy* (``checkpoint_policies.dots_saveable``, ``save_only_these_names("y")``...) says
which intermediate values may be saved after all: ``policy(primitive, *avals, **params)``
is asked about each equation of the forward pass. The default saves nothing.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from edujax.api_util import flatten_fun, split_static
from edujax import core, source_info
from edujax.api import shaped_abstractify
from edujax.core import Primitive
from edujax.interpreters import ad, batching
from edujax.interpreters import partial_eval as pe
from edujax.interpreters.partial_eval import DebugInfo, func_name, func_source, trace_to_jaxpr
from edujax.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var, run_jaxpr
from edujax.lax.reduce_precision import reduce_precision_p
from edujax.tree_util import tree_flatten, tree_map, tree_unflatten

remat_p = Primitive("remat2")
remat_p.multiple_results = True


def _remat_abstract_eval(*avals: core.ShapedArray, jaxpr: ClosedJaxpr, **params: Any) -> list:
    return list(jaxpr.out_avals)


def _remat_impl(*args: Any, jaxpr: ClosedJaxpr, **params: Any) -> list:
    return run_jaxpr(jaxpr.jaxpr, jaxpr.consts, list(args))


core.abstract_eval_rules[remat_p] = _remat_abstract_eval
core.impl_rules[remat_p] = _remat_impl


def _closed(jaxpr: Jaxpr) -> ClosedJaxpr:
    return ClosedJaxpr(jaxpr, [])


def _consts_as_inputs(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """JAX's remat body has no constants: the values it closes over are passed as its
    first inputs instead (``lambda ; d:f32[3] e:f32[3]`` with ``d`` the constant)."""
    jaxpr = closed.jaxpr
    opened = Jaxpr([], [*jaxpr.constvars, *jaxpr.invars], jaxpr.outvars, jaxpr.eqns,
                   jaxpr.debug_info)
    return _closed(opened), list(closed.consts)


# ---------------------------------------------------------------- JVP
def _remat_jvp(primals, tangents, *, jaxpr, **params):
    """Differentiate the body; the derivative is a checkpointed call too."""
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jvp_closed, out_nonzeros = ad.jvp_jaxpr(jaxpr, nonzeros)
    jvp_closed, consts = _consts_as_inputs(jvp_closed)
    nonzero_tangents = [t for t in tangents if type(t) is not ad.Zero]
    outs = remat_p.bind(*consts, *primals, *nonzero_tangents, jaxpr=jvp_closed, **params)
    n = len(jaxpr.out_avals)
    tangents_out = iter(outs[n:])
    return outs[:n], [next(tangents_out) if nz else ad.Zero(ad.tangent_aval(a))
                      for nz, a in zip(out_nonzeros, jaxpr.out_avals)]


ad.jvp_rules[remat_p] = _remat_jvp


# ---------------------------------------------------------------- partial evaluation
# While linearizing, some inputs of the body are known (the primals) and some unknown (the
# tangents). Every equation of the body whose inputs are all known runs now, in the
# enclosing trace (that is the forward pass). The unknown equations become the body of one
# new remat2 equation, the backward pass's recipe. What may that recipe read?
#
# * the body's own inputs, always;
# * the outputs of known equations that the *policy* calls saveable: the residuals, kept
#   from the forward pass (``checkpoint_name`` values, matrix products...);
# * nothing else: any other known value it needs is computed again, by a copy of its
#   equation placed in the recipe. That recomputation is what checkpointing is.
#
# With no policy (the default), nothing is saveable, and the recipe recomputes everything
# from the inputs. (JAX's pe.partial_eval_jaxpr_custom and remat_partial_eval.)
class _Split(NamedTuple):
    known_eqns: list      # run now, in the enclosing trace
    staged_eqns: list     # the recipe: unknown equations and recomputed known ones
    residuals: list       # saved known values the recipe reads, in order of first use
    unknown_out: list     # which outputs of the body are unknown


def _split(jaxpr: Jaxpr, unknown_in: list[bool], policy: Callable) -> _Split:
    unknown = {v for v, u in zip(jaxpr.invars, unknown_in) if u}
    readable = set(jaxpr.invars)  # what the recipe can read without saving it
    known_eqns, staged_eqns, residuals = [], [], []

    def stage(eqn: Any) -> None:
        for v in eqn.invars:
            if type(v) is Var and v not in readable and v not in residuals:
                residuals.append(v)
        staged_eqns.append(eqn)
        readable.update(eqn.outvars)

    for eqn in jaxpr.eqns:
        if any(type(v) is Var and v in unknown for v in eqn.invars):
            unknown.update(eqn.outvars)
            stage(eqn)
            continue
        known_eqns.append(eqn)
        if not policy(eqn.primitive, *[v.aval for v in eqn.invars], **eqn.params):
            stage(eqn)  # not saveable: the recipe computes it again if it needs it
        # (So a jax.debug.print runs in the forward pass and again in the recipe, as in JAX.)
    unknown_out = [type(v) is Var and v in unknown for v in jaxpr.outvars]
    return _Split(known_eqns, staged_eqns, residuals, unknown_out)


def _remat_partial_eval(trace: pe.PartialEvalTrace, *args: Any, jaxpr: ClosedJaxpr,
                        differentiated: bool, policy: Callable | None, **params: Any) -> list:
    """Known outputs and saved residuals now, inline; unknown outputs as one ``remat2``
    equation that reads the residuals and the body's inputs and recomputes the rest."""
    body = jaxpr.jaxpr
    split = _split(body, [trace.is_unknown(a) for a in args], policy or _nothing_saveable)
    # The recipe, without what the unknown outputs do not need.
    staged = Jaxpr([], [*split.residuals, *body.invars],
                   [v for v, u in zip(body.outvars, split.unknown_out) if u], split.staged_eqns)
    staged, used = _dce_keeping_effects(staged)
    residuals = [v for v, u in zip(split.residuals, used) if u]
    used_args = [a for a, u in zip(args, used[len(split.residuals):]) if u]
    # The forward pass: known outputs and the residuals the recipe reads.
    known_outs = [v for v, u in zip(body.outvars, split.unknown_out) if not u]
    known = Jaxpr([], body.invars, [*known_outs, *residuals], split.known_eqns)
    with core.set_current_trace(trace.parent):
        values = _eval_forward(known, args, set(residuals))
    known_values, residual_values = values[:len(known_outs)], values[len(known_outs):]
    # (JAX stages this equation from remat's JVP rule, run under linearization's own
    # JVP: its name stack has one more jvp, [jvp(jvp())], and its transpose's as well.)
    with source_info.transform_name_stack("jvp"):
        unknown_outs = trace.staging.process_primitive(
            remat_p, [*residual_values, *used_args],
            dict(jaxpr=_closed(staged), differentiated=True, policy=policy, **params))
    known_iter, unknown_iter = iter(known_values), iter(unknown_outs)
    return [next(unknown_iter) if u else next(known_iter) for u in split.unknown_out]


def _eval_forward(jaxpr: Jaxpr, args: list, residuals: set) -> list:
    """Evaluate ``jaxpr`` (what no output needs is skipped), rounding each saved residual
    that later equations read with ``reduce_precision`` to its own precision.

    That rounding changes nothing numerically; it marks the value so that XLA cannot merge
    the forward pass with the recomputation (JAX's ``_insert_reduce_precision``).
    """
    env = dict(zip(jaxpr.invars, args))
    jaxpr, _ = _dce_keeping_effects(jaxpr)
    read_later = {v for eqn in jaxpr.eqns for v in eqn.invars if type(v) is Var}

    def read(v: Any) -> Any:
        return v.val if type(v) is Literal else env[v]

    for eqn in jaxpr.eqns:
        with source_info.replaying(eqn.source_info):
            outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            for v, out in zip(eqn.outvars,
                              outs if eqn.primitive.multiple_results else [outs]):
                marked = eqn.primitive is reduce_precision_p
                if (v in residuals and v in read_later and v.aval.dtype.kind == "f"
                        and not marked):
                    finfo = np.finfo(v.aval.dtype)
                    out = reduce_precision_p.bind(out, exponent_bits=finfo.nexp,
                                                  mantissa_bits=finfo.nmant)
                env[v] = out
    return [read(v) for v in jaxpr.outvars]


def _dce_keeping_effects(jaxpr: Jaxpr) -> tuple[Jaxpr, list[bool]]:
    """Drop the equations no output needs, but keep those without outputs (debug prints and
    callbacks: they are there for what they do); drop the inputs nothing reads. Returns the
    jaxpr and which inputs it kept."""
    live = {v for v in jaxpr.outvars if type(v) is Var}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if not eqn.outvars or any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(v for v in eqn.invars if type(v) is Var)
    used = [v in live for v in jaxpr.invars]
    invars = [v for v, u in zip(jaxpr.invars, used) if u]
    return Jaxpr(jaxpr.constvars, invars, jaxpr.outvars, kept[::-1], jaxpr.debug_info), used


def _nothing_saveable(*_: Any, **__: Any) -> bool:
    return False


pe.partial_eval_rules[remat_p] = _remat_partial_eval


# ---------------------------------------------------------------- transposition
def _remat_transpose(cts, *args, jaxpr: ClosedJaxpr, **params):
    """Transpose the body into a new jaxpr, run it as a checkpointed call as well."""
    linear = [ad.is_undefined_primal(a) for a in args]
    known_args = [a for a, lin in zip(args, linear) if not lin]
    nonzero = [type(ct) is not ad.Zero for ct in cts]
    known_avals = [core.get_aval(a) for a in known_args]
    ct_avals = [ad.aval_of(ct) for ct, nz in zip(cts, nonzero) if nz]

    def transposed(*xs: Any) -> tuple[list, None]:
        known, cts_nz = iter(xs[:len(known_args)]), iter(xs[len(known_args):])
        inputs = [ad.UndefinedPrimal(a.aval) if lin else next(known)
                  for a, lin in zip(jaxpr.jaxpr.invars, linear)]
        cts_in = [next(cts_nz) if nz else ct for ct, nz in zip(cts, nonzero)]
        linear_part, consts = _recompute_known(jaxpr.jaxpr, jaxpr.consts, inputs)
        outs = ad.backward_pass(linear_part, consts, inputs, cts_in)
        return [ad.instantiate_zeros(ct) for ct, lin in zip(outs, linear) if lin], None

    closed, _ = trace_to_jaxpr(transposed, [*known_avals, *ct_avals])
    closed, consts = _consts_as_inputs(closed)
    body, used = _dce_keeping_effects(closed.jaxpr)
    all_args = [*consts, *known_args, *[ct for ct, nz in zip(cts, nonzero) if nz]]
    outs = iter(remat_p.bind(*[a for a, u in zip(all_args, used) if u], jaxpr=_closed(body),
                             **{**params, "differentiated": True}))
    return [next(outs) if lin else None for lin in linear]


ad.transpose_rules[remat_p] = _remat_transpose


def _recompute_known(jaxpr: Jaxpr, consts: list, inputs: list) -> tuple[Jaxpr, list]:
    """Run the equations whose inputs are all known (the recomputation of the forward
    pass), named ``rematted_computation`` as JAX names them; returns the rest of the body,
    with the recomputed values as its constants, for the backward pass to transpose."""
    known = dict(zip(jaxpr.constvars, consts))
    known.update((v, a) for v, a in zip(jaxpr.invars, inputs) if not ad.is_undefined_primal(a))
    rest = []
    with source_info.extend_name_stack(source_info.Scope("rematted_computation")):
        for eqn in jaxpr.eqns:
            if not all(type(v) is Literal or v in known for v in eqn.invars):
                rest.append(eqn)
                continue
            with source_info.replaying(eqn.source_info):
                outs = eqn.primitive.bind(*[v.val if type(v) is Literal else known[v]
                                            for v in eqn.invars], **eqn.params)
            known.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    invars = set(jaxpr.invars)
    constvars = [v for v in known if v not in invars]
    return (Jaxpr(constvars, jaxpr.invars, jaxpr.outvars, rest, jaxpr.debug_info),
            [known[v] for v in constvars])


# ---------------------------------------------------------------- batching
def _remat_batch(args, dims, *, jaxpr, **params):
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    batched, out_dims = batching.batch_jaxpr(jaxpr, size, dims)
    batched, consts = _consts_as_inputs(batched)
    return remat_p.bind(*consts, *args, jaxpr=batched, **params), out_dims


batching.batching_rules[remat_p] = _remat_batch


# ---------------------------------------------------------------- checkpoint_name
name_p = Primitive("name")
core.abstract_eval_rules[name_p] = lambda x, *, name: x
core.impl_rules[name_p] = lambda x, *, name: x
ad.jvp_rules[name_p] = lambda primals, tangents, *, name: (name_p.bind(*primals, name=name),
                                                           tangents[0])  # (not named)
batching.batching_rules[name_p] = lambda args, dims, *, name: (name_p.bind(*args, name=name),
                                                               dims[0])


def checkpoint_name(x: Any, name: str) -> Any:
    """Tag ``x`` (any pytree of arrays) with ``name``, for ``save_only_these_names`` & co."""
    return tree_map(lambda leaf: name_p.bind(leaf, name=name), x)


# ---------------------------------------------------------------- the policies
class _Policy:
    """A checkpoint policy; prints as JAX's (a function, or a dataclass-like repr)."""

    def __init__(self, text: str, saves: Callable[..., bool]):
        self.text, self.saves = text, saves

    def __call__(self, prim: Any, *avals: Any, **params: Any) -> bool:
        return self.saves(prim, *avals, **params)

    def __repr__(self) -> str:
        return self.text


def _dots(prim: Any, *_: Any, **__: Any) -> bool:
    return getattr(prim, "name", "") == "dot_general"


class checkpoint_policies:
    """JAX's named policies: which intermediate values ``grad`` may keep (see the NB above)."""

    everything_saveable = _Policy("<function everything_saveable at 0xXXXXXXXXXXXX>",
                                  lambda *a, **k: True)
    nothing_saveable = _Policy("<function nothing_saveable at 0xXXXXXXXXXXXX>",
                               lambda *a, **k: False)
    dots_saveable = checkpoint_dots = _Policy("DotsSaveable(only_if_no_batch_dims=False)", _dots)
    dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = _Policy(
        "DotsSaveable(only_if_no_batch_dims=True)", _dots)

    @staticmethod
    def save_only_these_names(*names: str) -> _Policy:
        return _Policy(f"SaveOnlyTheseNames(saveable_names={frozenset(names)})",
                       lambda prim, *a, **p: p.get("name") in names)

    @staticmethod
    def save_any_names_but_these(*names: str) -> _Policy:
        return _Policy(f"SaveAnyNamesButThese(names={frozenset(names)})",
                       lambda prim, *a, **p: "name" in p and p["name"] not in names)

    save_anything_except_these_names = save_any_names_but_these

    @staticmethod
    def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> _Policy:
        return _Policy(f"SaveFromBothPolicies(policy_1={policy_1!r}, policy_2={policy_2!r})",
                       lambda *a, **p: policy_1(*a, **p) or policy_2(*a, **p))


# ---------------------------------------------------------------- checkpoint itself
def checkpoint(fun: Callable, *, prevent_cse: bool = True, policy: Callable | None = None,
               static_argnums: int | Sequence[int] = ()) -> Callable:
    """``fun``, but under ``grad`` its intermediates are recomputed instead of stored.

    ``static_argnums`` marks arguments that are Python values (for Python control flow):
    they are baked into the traced body. ``prevent_cse`` and ``policy`` are recorded in the
    ``remat2`` equation as JAX records them.
    """
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)

    @functools.wraps(fun)
    def remat_f(*args: Any, **kwargs: Any) -> Any:
        dynamic, rebuild = split_static(args, static_argnums)
        flat, in_tree = tree_flatten((list(dynamic), kwargs))
        flat_fun = flatten_fun(lambda *dyn, **kw: fun(*rebuild(dyn), **kw), in_tree)
        info = DebugInfo("checkpoint", func_name(fun), func_source(fun), ())
        closed, out_tree = trace_to_jaxpr(flat_fun, [shaped_abstractify(x) for x in flat],
                                          debug_info=info)
        body, consts = _consts_as_inputs(closed)
        outs = remat_p.bind(*consts, *flat, jaxpr=body, differentiated=False, policy=policy,
                            prevent_cse=prevent_cse)
        return tree_unflatten(out_tree, outs)
    return remat_f


remat = checkpoint


# ---------------------------------------------------------------- print_saved_residuals
def saved_residuals(fun: Callable, *args: Any, **kwargs: Any) -> list[tuple[core.ShapedArray,
                                                                             str]]:
    """What ``grad`` of ``fun`` would keep from the forward pass: (aval, where it comes from).

    Linearize ``fun`` on abstract values and look at the constants of the linear jaxpr:
    those are exactly the residuals, each either an argument or an equation's output.
    """
    flat, in_tree = tree_flatten((args, kwargs))
    found: list = []

    def call(*leaves: Any) -> list:
        a, kw = tree_unflatten(in_tree, list(leaves))
        return tree_flatten(fun(*a, **kw))[0]

    def linearized(*leaves: Any) -> tuple[list, None]:
        outs, linear, _ = ad.linearize_flat(call, list(leaves))
        found[:] = linear.consts
        return [*outs, *[c for c in linear.consts if isinstance(c, core.Tracer)]], None

    closed, _ = trace_to_jaxpr(linearized, [shaped_abstractify(x) for x in flat])
    return _describe_residuals(closed, found, _param_names(fun, len(flat)))


def _param_names(fun: Callable, n: int) -> list[str]:
    try:
        names = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"args[{i}]" for i in range(n)]


def _describe_residuals(closed: ClosedJaxpr, residuals: list, arg_names: list[str]) -> list:
    """JAX's order: literals, constants, arguments, then equations' outputs in program order
    (a ``reduce_precision`` a policy added is looked through, to the equation it marks)."""
    jaxpr = closed.jaxpr
    n_outs = len(jaxpr.outvars) - sum(isinstance(r, core.Tracer) for r in residuals)
    res_vars = jaxpr.outvars[n_outs:]
    through = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns if e.primitive is reduce_precision_p}
    wanted = [through.get(v, v) for v in res_vars if type(v) is not Literal]
    literals = [(v.aval, "from a literal") for v in res_vars if type(v) is Literal]
    consts = [(core.get_aval(r), "from a constant") for r in residuals
              if not isinstance(r, core.Tracer)]
    args = [(v.aval, f"from the argument {name}") for v, name in zip(jaxpr.invars, arg_names)
            for _ in range(wanted.count(v))]
    outputs = [(v.aval, _produced_by(eqn)) for eqn in jaxpr.eqns for v in eqn.outvars
               for _ in range(wanted.count(v))]
    return literals + consts + args + outputs


def _produced_by(eqn: Any) -> str:
    """JAX's words for a residual an equation computed, with the line it came from."""
    where = source_info.summarize(eqn.source_info)
    if eqn.primitive is name_p:
        return f"named '{eqn.params['name']}' from {where}"
    if eqn.primitive.name == "jit":
        return f"output of jitted function '{eqn.params['name']}' from {where}"
    return f"output of {eqn.primitive.name} from {where}"


def print_saved_residuals(fun: Callable, *args: Any, **kwargs: Any) -> None:
    """Print one line per residual ``grad(fun)`` keeps: ``f32[] output of cos from
    <file>:7:26 (f)``, the line that computed it (source_info.py)."""
    for aval, where in saved_residuals(fun, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {where}")
