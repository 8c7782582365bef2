"""``custom_jvp`` and ``custom_vjp``: tell autodiff how to differentiate a function.

Both work the same way: calling the decorated function binds a *call primitive*
whose ``call_jaxpr`` is the traced function body. Evaluating it just runs the
body; the interesting part is its JVP rule:

* ``custom_jvp_call``: the JVP rule calls *your* jvp function instead of
  differentiating the body.
* ``custom_vjp_call``: the JVP rule runs your ``fwd`` (primal outputs and
  residuals) and emits one ``custom_lin`` equation for the tangent. That
  equation is linear; its transpose calls your ``bwd`` with the residuals. So
  reverse mode works, and forward mode (``jvp``) raises, exactly as in JAX.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import numpy as np

from edujax.api_util import flatten_fun_nokwargs
from edujax import core, dtypes
from edujax.api import shaped_abstractify
from edujax.array import ArrayImpl
from edujax.core import Primitive
from edujax.interpreters import ad, batching
from edujax.interpreters import partial_eval as pe
from edujax.interpreters.partial_eval import hoist_tracer_consts, trace_to_jaxpr
from edujax.jaxpr import ClosedJaxpr, eval_jaxpr, run_jaxpr
from edujax.pretty import label_only_names, pp_eqn_default, pp_eqn_rules
from edujax.tree_util import Partial, tree_flatten, tree_unflatten
from edujax.vmap import vmap


def _fun_name(fun: Any) -> str | None:
    """The name a rule is printed with: a partial's is its function's (``jvp=jvp`` for
    ``partial(jax.jvp, f)``), as JAX's ``fun_name`` says."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    return getattr(fun, "__name__", None)


class _NamedRule:
    """A user's Python function kept in a primitive's params; prints as its name."""

    def __init__(self, fun: Callable, name: str | None = None):
        self.fun = fun
        self.name = name or getattr(fun, "__name__", type(fun).__name__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fun(*args, **kwargs)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


def _call_abstract_eval(*avals, call_jaxpr: ClosedJaxpr, **params):
    return list(call_jaxpr.out_avals)


def _call_impl(*args, call_jaxpr: ClosedJaxpr, **params):
    return run_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, list(args))


def _inline_partial_eval(trace, *args, call_jaxpr: ClosedJaxpr, **params):
    with core.set_current_trace(trace):
        return eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)


def _pp_name_first(eqn, ctx):
    """``name`` first, then the other params alphabetically; hidden bookkeeping omitted."""
    shown = sorted(k for k in eqn.params if k not in ("name", "num_consts", "out_tree",
                                                      "nondiff"))
    return pp_eqn_default(eqn, ctx, ["name", *shown])


def _batched_call(args, dims, call_jaxpr):
    """Every argument with the batch in front, and the body batched to match."""
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    n_out = len(call_jaxpr.out_avals)
    batched, _ = batching.batch_jaxpr(call_jaxpr, size, [0] * len(args), [0] * n_out)
    return args, batched, [0] * n_out


def _vmapped(fun: Callable) -> Callable:
    """``fun`` (lists in, a tuple of lists out) mapped over the leading axis of every input."""
    return vmap(lambda *lists: tuple(map(list, fun(*map(list, lists)))))


def _make_call_primitive(name: str) -> Primitive:
    prim = Primitive(name)
    prim.multiple_results = True
    core.abstract_eval_rules[prim] = _call_abstract_eval
    core.impl_rules[prim] = _call_impl
    pe.partial_eval_rules[prim] = _inline_partial_eval
    pp_eqn_rules[prim] = _pp_name_first
    label_only_names.add(prim)
    return prim


def _trace_body(fun: Callable, flat_args: list, in_tree: Any) -> tuple[ClosedJaxpr, Any]:
    return trace_to_jaxpr(flatten_fun_nokwargs(fun, in_tree),
                          [shaped_abstractify(x) for x in flat_args])


def _skipping(n: int, rule: Callable) -> Callable:
    """``rule`` on all but the first ``n`` primals and tangents (hoisted constants)."""
    def skip(primals: list, tangents: list):
        return rule(list(primals)[n:], list(tangents)[n:])
    return skip


def _typed_scalar(x: Any) -> Any:
    """A Python int, float or complex as a weakly typed edujax Array; anything else as is."""
    if type(x) in (int, float, complex):
        dtype = dtypes.default_dtype(type(x))
        return ArrayImpl(np.asarray(x, dtype), weak_type=True)
    return x


def _split_nondiff(args: tuple, nondiff_argnums: Sequence[int]) -> tuple[tuple, tuple]:
    nondiff = tuple(args[i] for i in nondiff_argnums)
    diff = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return nondiff, diff


def _merge(nondiff: tuple, diff: Sequence, nondiff_argnums: Sequence[int]) -> list:
    n = len(nondiff) + len(diff)
    nd, d = iter(nondiff), iter(diff)
    return [next(nd) if i in nondiff_argnums else next(d) for i in range(n)]


# ------------------------------------------------------------------ custom_jvp
custom_jvp_call_p = _make_call_primitive("custom_jvp_call")


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, name, symbolic_zeros):
    """Differentiate by calling the user's rule on (primals, tangents)."""
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    primals_out, tangents_out = jvp(list(primals), tangents)
    return primals_out, tangents_out


ad.jvp_rules[custom_jvp_call_p] = _custom_jvp_call_jvp


def _custom_jvp_call_batch(args, dims, *, call_jaxpr, jvp, name, symbolic_zeros):
    """Under vmap, keep the custom rule: batch the body, and vmap the user's JVP rule.

    As in JAX, every argument keeps its batch dimension where it is (an unbatched one, such
    as ``softplus``'s ``0.0``, is not broadcast), and so does every output: the body's rules
    say where. (An output the same for every example is given a batch dimension in front,
    since its tangent may still differ per example.)"""
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    n_out = len(call_jaxpr.out_avals)
    batched, out_dims = batching.batch_jaxpr(call_jaxpr, size, list(dims), keep_out_dims=True)
    if any(d is batching.not_mapped for d in out_dims):
        batched, out_dims = batching.batch_jaxpr(call_jaxpr, size, list(dims), [0] * n_out)
    mapped_jvp = vmap(lambda p, t: tuple(map(list, jvp(list(p), list(t)))),
                      in_axes=(list(dims), list(dims)), out_axes=(out_dims, out_dims))
    batched_jvp = _NamedRule(lambda p, t: tuple(mapped_jvp(list(p), list(t))), jvp.name)
    return custom_jvp_call_p.bind(*args, call_jaxpr=batched, jvp=batched_jvp, name=name,
                                  symbolic_zeros=symbolic_zeros), out_dims


batching.batching_rules[custom_jvp_call_p] = _custom_jvp_call_batch


def _resolve_kwargs(fun: Callable, args: tuple, kwargs: dict) -> tuple:
    """The arguments as positions only, defaults filled in (JAX's ``resolve_kwargs``): the
    rules take primals by position, so ``log_ndtr(x)`` is called as ``log_ndtr(x, 3)``."""
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except ValueError:  # a builtin without a signature: positions only, as given
        return args
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError("keyword arguments could not be resolved to positions")
    return bound.args


class custom_jvp:
    """A function with a hand-written JVP rule (``@f.defjvp``).

    Use it when the automatic derivative is numerically poor (``log1p(exp(x))``
    for large x) or when a function is not differentiable as written.
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable | None = None

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """Register ``jvp(primals, tangents) -> (primal_out, tangent_out)``."""
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """One rule per argument, ``rule(g, ans, *primals)``; the tangents are summed."""
        def jvp(primals, tangents):
            ans = self(*primals)
            parts = [rule(t, ans, *primals) for rule, t in zip(jvps, tangents)
                     if rule is not None]
            return ans, functools.reduce(lambda a, b: a + b, parts)
        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} "
                                 "using defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        if core.at_top_level():
            # nothing is being transformed: just run it (on typed values, as JAX's
            # TypedFloat: the function may ask a Python scalar argument for its dtype)
            return self.fun(*(a if i in self.nondiff_argnums else _typed_scalar(a)
                              for i, a in enumerate(args)))
        nondiff, diff = _split_nondiff(args, self.nondiff_argnums)
        flat, in_tree = tree_flatten(diff)
        rule = _NamedRule(self._flat_jvp(nondiff, in_tree), _fun_name(self.jvp))
        trace = core.current_trace()
        if _uninvolved(trace, flat):  # e.g. the rule calling this function on its primals
            with core.set_current_trace(trace.parent):
                return self(*args)
        if _differentiating(trace, flat):
            out, out_tree = _jvp_now(trace, rule, flat)
            return tree_unflatten(out_tree, out)
        body = functools.partial(lambda nd, *d: self.fun(*_merge(nd, d, self.nondiff_argnums)),
                                 nondiff)
        if _batching(trace, flat):
            return self._vmap_now(trace, body, rule, flat, in_tree)
        call_jaxpr, out_tree = _trace_body(body, flat, in_tree)
        # A non-differentiable argument can be a tracer of the enclosing trace (a rule
        # calling its function on ``n - 1`` while a jit's jvp is staged): the body closes
        # over it, so it becomes a leading input, which the rule does not see.
        call_jaxpr, hoisted = hoist_tracer_consts(call_jaxpr)
        if hoisted:
            rule = _NamedRule(_skipping(len(hoisted), rule), rule.name)
        outs = custom_jvp_call_p.bind(*hoisted, *flat, call_jaxpr=call_jaxpr, jvp=rule,
                                      name=self.__name__, symbolic_zeros=False)
        return tree_unflatten(out_tree, outs)

    def _vmap_now(self, trace: batching.BatchTrace, body: Callable, rule: _NamedRule,
                  flat: list, in_tree: Any) -> Any:
        """Under vmap: a new custom_jvp function, the vmap of this one (its body and its rule
        both vmapped), applied to the whole batch in the enclosing trace.

        Neither the body nor the rule runs now; whichever the enclosing trace needs runs
        later, once (JAX's BatchTrace.process_custom_jvp_call is lazy in the same way).
        As in JAX, the batch dimensions stay where the body's (or the rule's) own rules put
        them; the first of the two to run decides, and the other follows it. (An output
        that is the same for every example still gets a batch dimension in front: its
        tangent may differ per example.)
        """
        vals, dims = zip(*map(trace.to_batch_info, flat))
        dims, size, name = list(dims), trace.axis_size, trace.axis_name
        out_trees: list = []
        out_dims: list = []  # decided by whichever of body and rule runs first

        def settle(outs: list, found: list) -> list:
            if not out_dims:
                out_dims[:] = [0 if d is batching.not_mapped else d for d in found]
            return [batching.matchaxis(o, d, w, size) for o, d, w in zip(outs, found, out_dims)]

        def flat_body(*xs: Any) -> list:
            def run(*ys: Any) -> list:
                leaves, tree = tree_flatten(body(*tree_unflatten(in_tree, list(ys))))
                out_trees[:] = [tree]
                return leaves
            return settle(*batching.batch_flat(run, list(xs), dims, size, name))

        def flat_rule(primals: list, tangents: list) -> tuple:
            n = len(primals)

            def run(*ys: Any) -> list:
                primals_out, tangents_out = rule(list(ys[:n]), list(ys[n:]))
                out_trees[:] = [rule.fun.out_tree]
                return [*primals_out, *tangents_out]
            outs, found = batching.batch_flat(run, [*primals, *tangents], dims + dims, size,
                                              name)
            m = len(outs) // 2
            # a primal and its tangent share one batch dimension (JAX's _merge_bdims)
            merged = [p if p is not batching.not_mapped else t
                      for p, t in zip(found[:m], found[m:])]
            outs = [batching.matchaxis(o, d, w, size)
                    for o, d, w in zip(outs, found, merged + merged)]
            return settle(outs[:m], merged), settle(outs[m:], merged)

        batched = custom_jvp(flat_body)
        batched.__name__ = self.__name__  # the equation shows the function's name, as in JAX

        def batched_rule(p: list, t: list) -> Any:
            return flat_rule(list(p), list(t))
        batched_rule.__name__ = rule.name
        batched.defjvp(batched_rule)
        with core.set_current_trace(trace.parent):
            outs = batched(*vals)
        return tree_unflatten(out_trees[0], [batching.BatchTracer(trace, o, d)
                                             for o, d in zip(outs, out_dims)])

    def _flat_jvp(self, nondiff: tuple, in_tree: Any) -> Callable:
        def flat_jvp(primals: list, tangents: list):
            p = tree_unflatten(in_tree, primals)
            t = tree_unflatten(in_tree, tangents)
            primal_out, tangent_out = self.jvp(*nondiff, tuple(p), tuple(t)) if nondiff \
                else self.jvp(tuple(p), tuple(t))
            flat_out, flat_jvp.out_tree = tree_flatten(primal_out)
            return flat_out, tree_flatten(tangent_out)[0]
        return flat_jvp


# Under jvp or grad, a custom function is differentiated at once, without tracing its body
# into a jaxpr first: the body would run (and print) once for nothing, and the user's rule
# could not branch on a primal value (``if x > 0:``), which under grad is concrete. JAX does
# the same (its JVPTrace.process_custom_jvp_call never looks at the body).
def _differentiating(trace: core.Trace, flat: list) -> bool:
    """Is ``trace`` a JVP trace, and does it carry a tangent for one of the arguments?"""
    return isinstance(trace, ad.JVPTrace) and any(
        isinstance(x, ad.JVPTracer) and x._trace is trace for x in flat)


def _uninvolved(trace: core.Trace, flat: list) -> bool:
    """Does none of the arguments belong to ``trace`` (a JVP, vmap or linearize trace)?
    Then that trace has nothing to do with the call, and its parent takes it."""
    if isinstance(trace, pe.PartialEvalTrace):
        return not any(trace.is_unknown(x) for x in flat)
    if isinstance(trace, (ad.JVPTrace, batching.BatchTrace)):
        return not any(isinstance(x, core.Tracer) and x._trace is trace for x in flat)
    return False


def _batching(trace: core.Trace, flat: list) -> bool:
    """Is ``trace`` a vmap's trace, and is one of the arguments batched by it?"""
    return isinstance(trace, batching.BatchTrace) and any(
        isinstance(x, batching.BatchTracer) and x._trace is trace for x in flat)


def _jvp_now(trace: ad.JVPTrace, rule: Callable, flat: list) -> tuple[list, Any]:
    """Run the custom JVP ``rule`` (flat primals, tangents in) on the tracers' pairs."""
    primals, tangents = zip(*map(trace.to_pair, flat))
    with core.set_current_trace(trace.parent):
        primals_out, tangents_out = _custom_jvp_call_jvp(primals, tangents, call_jaxpr=None,
                                                         jvp=rule, name="", symbolic_zeros=False)
    out = [ad.JVPTracer(trace, p, t) for p, t in zip(primals_out, tangents_out)]
    return out, rule.fun.out_tree


# ------------------------------------------------------------------ custom_vjp
custom_vjp_call_p = _make_call_primitive("custom_vjp_call")

# custom_lin: "the tangent of a custom_vjp output", linear in its tangent inputs. It
# is never evaluated by reverse mode, only transposed, and its transpose is ``bwd``.
custom_lin_p = Primitive("custom_lin")
custom_lin_p.multiple_results = True
core.abstract_eval_rules[custom_lin_p] = lambda *avals, out_avals, **p: list(out_avals)


def _custom_lin_impl(*args, **params):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.\n"
                    "Hint: use jax.grad / jax.vjp (reverse mode), or define the function "
                    "with jax.custom_jvp instead.")


core.impl_rules[custom_lin_p] = _custom_lin_impl


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals):
    residuals = args[:num_res]
    cts = [ad.instantiate_zeros(ct) for ct in cts]
    return [None] * num_res + list(bwd(list(residuals), cts))


ad.transpose_rules[custom_lin_p] = _custom_lin_transpose


def _custom_vjp_call_jvp(primals, tangents, *, call_jaxpr, fwd, bwd, name, symbolic_zeros):
    primals_out, residuals = fwd(list(primals))
    out_avals = [ad.tangent_aval(core.get_aval(p)) for p in primals_out]
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    tangents_out = custom_lin_p.bind(*residuals, *tangents, num_res=len(residuals), bwd=bwd,
                                     out_avals=tuple(out_avals))
    return primals_out, tangents_out


ad.jvp_rules[custom_vjp_call_p] = _custom_vjp_call_jvp


def _custom_vjp_call_batch(args, dims, *, call_jaxpr, fwd, bwd, name, symbolic_zeros):
    """Under vmap, keep the custom rules: batch the body, vmap ``fwd`` and ``bwd``."""
    args, batched, out_dims = _batched_call(args, dims, call_jaxpr)
    batched_fwd = _NamedRule(lambda p: tuple(_vmapped(fwd)(tuple(p))), fwd.name)
    batched_bwd = _NamedRule(lambda r, c: _vmapped(lambda r_, c_: (bwd(r_, c_),))(
        tuple(r), tuple(c))[0], bwd.name)
    return custom_vjp_call_p.bind(*args, call_jaxpr=batched, fwd=batched_fwd, bwd=batched_bwd,
                                  name=name, symbolic_zeros=symbolic_zeros), out_dims


batching.batching_rules[custom_vjp_call_p] = _custom_vjp_call_batch


class custom_vjp:
    """A function with hand-written reverse-mode rules (``f.defvjp(fwd, bwd)``).

    ``fwd(*args) -> (output, residuals)`` runs forward and saves what ``bwd`` needs;
    ``bwd(residuals, cotangent) -> tuple of cotangents``, one per argument.
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        functools.update_wrapper(self, fun, updated=())
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False) -> None:
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any) -> Any:
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {self.__name__} "
                                 "using defvjp.")
        if core.at_top_level():
            return self.fun(*args)
        nondiff, diff = _split_nondiff(args, self.nondiff_argnums)
        flat, in_tree = tree_flatten(diff)
        res_tree: list = []  # [residuals' tree, output tree], filled in when fwd runs
        fwd = _NamedRule(self._flat_fwd(nondiff, in_tree, res_tree),
                         _fun_name(self.fwd))
        bwd = _NamedRule(self._flat_bwd(nondiff, in_tree, res_tree),
                         _fun_name(self.bwd))
        trace = core.current_trace()
        if _uninvolved(trace, flat):
            with core.set_current_trace(trace.parent):
                return self(*args)
        if _differentiating(trace, flat):  # as for custom_jvp: fwd runs, the body does not
            primals, tangents = zip(*map(trace.to_pair, flat))
            with core.set_current_trace(trace.parent):
                primals_out, tangents_out = _custom_vjp_call_jvp(
                    primals, tangents, call_jaxpr=None, fwd=fwd, bwd=bwd, name="",
                    symbolic_zeros=False)
            out = [ad.JVPTracer(trace, p, t) for p, t in zip(primals_out, tangents_out)]
            return tree_unflatten(res_tree[1], out)
        body = functools.partial(lambda nd, *d: self.fun(*_merge(nd, d, self.nondiff_argnums)),
                                 nondiff)
        call_jaxpr, out_tree = _trace_body(body, flat, in_tree)
        outs = custom_vjp_call_p.bind(*flat, call_jaxpr=call_jaxpr, fwd=fwd, bwd=bwd,
                                      name=self.__name__, symbolic_zeros=False)
        return tree_unflatten(out_tree, outs)

    def _flat_fwd(self, nondiff: tuple, in_tree: Any, res_tree: list) -> Callable:
        def flat_fwd(primals: list):
            args = _merge(nondiff, tree_unflatten(in_tree, primals), self.nondiff_argnums)
            out, res = self.fwd(*args)
            flat_res, tree = tree_flatten(res)
            flat_out, out_tree = tree_flatten(out)
            res_tree[:] = [tree, out_tree]
            return flat_out, flat_res
        return flat_fwd

    def _flat_bwd(self, nondiff: tuple, in_tree: Any, res_tree: list):
        def flat_bwd(residuals: list, cts: list):
            res = tree_unflatten(res_tree[0], residuals)
            ct = tree_unflatten(res_tree[1], cts)
            cts_in = self.bwd(*nondiff, res, ct)
            if not isinstance(cts_in, (tuple, list)):
                raise TypeError("Custom VJP bwd rule must produce a tuple or list of "
                                f"cotangents, got {type(cts_in)}.")
            return tree_flatten(tuple(cts_in))[0]
        return flat_bwd


# ------------------------------------------------------------------ closure_convert
def closure_convert(fun: Callable, *example_args: Any) -> tuple[Callable, list]:
    """Make the arrays ``fun`` closes over explicit: ``(converted, consts)``.

    ``converted(*args, *consts)`` computes ``fun(*args)``. Tracing ``fun`` on
    ``example_args`` finds what it closes over: every outside value it uses becomes a
    constant of the jaxpr, and the floating-point *tracers* among them are *hoisted* into
    ``consts`` (JAX hoists only those: they are what a derivative could flow through;
    concrete arrays stay closed over). A ``custom_vjp``
    needs this when its ``bwd`` closes over values that are being differentiated.
    """
    flat_args, in_tree = tree_flatten(example_args)
    closed, out_tree = _trace_body(fun, flat_args, in_tree)
    jaxpr = closed.jaxpr
    hoist = [isinstance(c, core.Tracer) and core.get_aval(c).dtype.kind in "fc"
             for c in closed.consts]
    consts = [c for c, h in zip(closed.consts, hoist) if h]
    kept = [c for c, h in zip(closed.consts, hoist) if not h]

    def converted(*args_and_consts: Any) -> Any:
        args, hoisted = args_and_consts[:len(args_and_consts) - len(consts)], \
            iter(args_and_consts[len(args_and_consts) - len(consts):])
        others = iter(kept)
        all_consts = [next(hoisted) if h else next(others) for h in hoist]
        flat = tree_flatten(tuple(args))[0]
        return tree_unflatten(out_tree, eval_jaxpr(jaxpr, all_consts, *flat))
    return converted, consts


# ------------------------------------------------------------------ custom_gradient
def _consts_first(converted: Callable, *consts_and_ct: Any) -> Any:
    return converted(consts_and_ct[-1], *consts_and_ct[:-1])


def custom_gradient(fun: Callable) -> Callable:
    """A function that returns its own gradient rule: ``fun(*args) -> (value, vjp)``.

    >>> @jax.custom_gradient
    ... def f(x):
    ...     return x ** 2, lambda g: (g * x,)

    ``vjp(g)`` returns one cotangent per argument. It is a ``custom_vjp`` whose ``fwd``
    runs ``fun`` and keeps the rule; the arrays the rule closes over (``x`` above) become
    the residuals, made explicit with ``closure_convert``.
    """
    @custom_vjp
    def wrapped(*args: Any) -> Any:
        return fun(*args)[0]

    def fwd(*args: Any) -> tuple:
        value, rule = fun(*args)
        converted, consts = closure_convert(rule, value)
        # A Partial is a pytree whose leaves are its bound arguments: the residuals are
        # exactly the hoisted arrays, the rule itself travels as static data.
        return value, Partial(functools.partial(_consts_first, converted), *consts)

    def bwd(rule: Partial, ct: Any) -> tuple:
        return tuple(rule(ct))

    wrapped.defvjp(fwd, bwd)
    functools.update_wrapper(wrapped, fun, updated=())
    return wrapped
