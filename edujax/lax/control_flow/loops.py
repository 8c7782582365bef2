"""``while_loop`` and ``fori_loop``: the ``while`` primitive, a loop whose trip count is only
known when it runs.

The primitive's block comes first (abstract evaluation, reference rule, JVP, partial
evaluation, transpose, batching), then ``while_loop``, and ``fori_loop``, which binds ``scan``
when its bounds are known while tracing and ``while`` otherwise.
"""
from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray, Tracer
from edujax.interpreters import ad, batching
from edujax.interpreters import partial_eval as pe
from edujax.interpreters.partial_eval import DebugInfo, func_name, func_source, trace_to_jaxpr
from edujax.interpreters.partial_eval_jaxpr import partial_eval_jaxpr
from edujax.jaxpr import ClosedJaxpr, JaxprEqn, Var, eval_jaxpr
from edujax.lax.base import convert_element_type
from edujax.lax.elementwise import add, lt
from edujax.lax.reductions import reduce_or
from edujax.lax.control_flow.common import (_axis_size, _batch_dims, _check_carry_type, _dce,
                                            _eval_closed, _fill_zeros, _fixpoint, _forwarding,
                                            _jvp_jaxpr, _merge, _move_to_front, _nonzero,
                                            _partition, _promote_weak_typed_input, _prune_outputs,
                                            _regroup_jaxpr, _split)
from edujax.lax.control_flow.conditionals import _bcast_select
from edujax.lax.control_flow.scan import scan
from edujax.lax.control_flow.tracing import _abstractify, _arg_names, _trace, _with_jaxpr
from edujax.tree_util import (PyTreeDef, tree_flatten, tree_unflatten, treedef_children,
                              treedef_is_leaf)

T = TypeVar("T")


# ====================================================================== while_p
# ``while *cond_consts *body_consts *carry``: while cond_jaxpr(*cond_consts, *carry)
# holds, carry = body_jaxpr(*body_consts, *carry).
while_p = Primitive("while")
while_p.multiple_results = True


def _while_abstract_eval(*avals: ShapedArray, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
                         cond_nconsts: int, body_nconsts: int) -> list[ShapedArray]:
    cond_consts, body_consts, carry = _split(avals, [cond_nconsts, body_nconsts])
    # NB: JAX raises core.JaxprTypeError (a TypeError) with these messages.
    if len(cond_jaxpr.in_avals) != len(cond_consts) + len(carry):
        raise TypeError(f"while_loop len(cond_jaxpr.in_avals)={len(cond_jaxpr.in_avals)} but "
                        f"len(cond_consts_avals) + len(in_avals)={len(cond_consts) + len(carry)}")
    if len(body_jaxpr.in_avals) != len(body_consts) + len(carry):
        raise TypeError(f"while_loop len(body_jaxpr.in_avals)={len(body_jaxpr.in_avals)} but "
                        f"len(body_consts_avals) + len(in_avals)={len(body_consts) + len(carry)}")
    return list(body_jaxpr.out_avals)


def _while_impl(*args: Any, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
                cond_nconsts: int, body_nconsts: int) -> list:
    cond_consts, body_consts, carry = _split(args, [cond_nconsts, body_nconsts])
    pred = _eval_closed(cond_jaxpr, [*cond_consts, *carry])[0]
    if not np.ndim(pred):  # the usual loop
        while pred:
            carry = _eval_closed(body_jaxpr, [*body_consts, *carry])
            pred = _eval_closed(cond_jaxpr, [*cond_consts, *carry])[0]
        return carry
    # A batched predicate (see the batching rule below): one predicate per example.
    while np.any(pred):
        new = _eval_closed(body_jaxpr, [*body_consts, *carry])
        carry = [masked_update(pred, n, c) for n, c in zip(new, carry)]
        pred = _eval_closed(cond_jaxpr, [*cond_consts, *carry])[0]
    return carry


def masked_update(pred: Any, new: Any, old: Any) -> np.ndarray:
    """``new`` where the example's predicate holds, else ``old`` (NumPy). ``pred``'s shape is
    a prefix of the carry's: its dimensions are the batch dimensions."""
    pred, new, old = np.asarray(pred), np.asarray(new), np.asarray(old)
    return np.where(pred.reshape(pred.shape + (1,) * (new.ndim - pred.ndim)), new, old)


core.abstract_eval_rules[while_p] = _while_abstract_eval
core.impl_rules[while_p] = _while_impl


# ---------------------------------------------------------------------- while: JVP
# The tangents of the carry become extra loop state, updated by the JVP of the
# body; the tangents of the body's constants become extra constants. A carry
# whose initial tangent is zero may still get a nonzero tangent after one
# iteration (``c = c * x`` with x being differentiated), hence the fixpoint.
# The predicate does not depend on tangents, so cond_jaxpr only learns to
# ignore the extra state.

def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    sizes = [cond_nconsts, body_nconsts]
    (cconsts, bconsts, init), (_, bconst_dots, init_dots) = (_split(primals, sizes),
                                                             _split(tangents, sizes))
    bconst_nz = [type(t) is not ad.Zero for t in bconst_dots]
    init_nz = [type(t) is not ad.Zero for t in init_dots]

    def step(carry_nz):
        body, out_nz = _jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, carry_nz)
        return out_nz, body
    carry_nz, body_jvp = _fixpoint(step, init_nz)
    bconst_dots = _nonzero(bconst_dots)
    init_dots = [ad.instantiate_zeros(t) for t, nz in zip(init_dots, carry_nz) if nz]
    # body_jvp takes (consts, carry, const tangents, carry tangents); while wants the
    # constants first: (consts, const tangents, carry, carry tangents).
    body_jvp = _regroup_jaxpr(body_jvp, [len(bconsts), len(init), len(bconst_dots)],
                              [0, 2, 1, 3])
    cond_aug = _with_jaxpr(cond_jaxpr, invars=[*cond_jaxpr.jaxpr.invars,
                                               *(Var(core.get_aval(t)) for t in init_dots)])
    outs = while_p.bind(*cconsts, *bconsts, *bconst_dots, *init, *init_dots,
                        cond_jaxpr=cond_aug, body_jaxpr=body_jvp, cond_nconsts=cond_nconsts,
                        body_nconsts=len(bconsts) + len(bconst_dots))
    carry, carry_dots = _split(outs, [len(init)])
    return carry, _fill_zeros(carry_nz, carry_dots, body_jaxpr.out_avals)


ad.jvp_rules[while_p] = _while_jvp


# ---------------------------------------------------------------------- while: partial evaluation
# Why reverse mode cannot go through a while loop
# -----------------------------------------------
# Transposing a loop means running it backwards, and every backward step needs
# the residuals of its forward step (the ``cos(c)`` of that iteration). A scan
# knows its trip count while tracing, so it stores them stacked in arrays of
# shape (length, ...). A while loop's trip count is only known when it runs,
# and a jaxpr cannot hold an array whose size is unknown while tracing, so
# there is nowhere to keep them. (fori_loop with static bounds is a scan for
# exactly this reason.)
#
# Forward mode is fine, and so is ``linearize`` (JVP + partial evaluation):
# the known carries are computed by a loop over the known part of the body,
# and the unknown ones by staging the *whole* loop, which recomputes the known
# part alongside the tangents. Transposing that staged loop would again need
# every iteration's residuals, so its transpose rule raises JAX's error.

_WHILE_REVERSE_MODE_ERROR = (
    "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
    "dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.")


def _while_partial_eval(trace, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    # (JAX has no linearize rule for while: its JVP is partially evaluated by a JaxprTrace,
    # whose convention partial_eval_jaxpr follows by default, even while linearizing)
    params = dict(cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr, cond_nconsts=cond_nconsts,
                  body_nconsts=body_nconsts)
    cconst_uk, bconst_uk, init_uk = _split([trace.is_unknown(x) for x in args],
                                           [cond_nconsts, body_nconsts])

    def step(carry_uk):
        split = partial_eval_jaxpr(body_jaxpr, bconst_uk + carry_uk, instantiate=carry_uk)
        return split.out_unknowns, split
    carry_uk, body_split = _fixpoint(step, init_uk)
    cond_split = partial_eval_jaxpr(cond_jaxpr, cconst_uk + carry_uk)
    if cond_split.out_unknowns[0] or builtins.all(carry_uk):
        return trace.staging.process_primitive(while_p, list(args), params)
    # The known part of the loop: known state, known constants, known predicate.
    known = [x for x, uk in zip(args, cconst_uk + bconst_uk + carry_uk) if not uk]
    num_known_carry = len(carry_uk) - sum(carry_uk)
    with core.set_current_trace(trace.parent):
        known_outs = while_p.bind(
            *known, cond_jaxpr=_only_first_outputs(cond_split.known, 1),
            body_jaxpr=_only_first_outputs(body_split.known, num_known_carry),
            cond_nconsts=len(cconst_uk) - sum(cconst_uk),
            body_nconsts=len(bconst_uk) - sum(bconst_uk))
    if not builtins.any(carry_uk):  # (all known: a JVP rule's own loop, see ad.JVPTrace)
        return known_outs
    # The unknown part: the whole loop, staged.
    with core.set_current_trace(trace.staging):
        all_outs = while_p.bind(*args, **params)
    return _merge(carry_uk, known_outs, [o for o, uk in zip(all_outs, carry_uk) if uk])


def _only_first_outputs(closed: ClosedJaxpr, n: int) -> ClosedJaxpr:
    """Keep the first n outputs (dropping residuals) and the equations they need."""
    pruned = _prune_outputs(closed, [i < n for i in range(len(closed.out_avals))])
    jaxpr, _ = _dce(pruned.jaxpr, [True] * len(pruned.jaxpr.invars))
    return ClosedJaxpr(jaxpr, pruned.consts)


def _while_transpose(cts, *args, **params):
    raise ValueError(_WHILE_REVERSE_MODE_ERROR)


pe.partial_eval_rules[while_p] = _while_partial_eval
pe.split_even_if_known.add(while_p)  # (only the printed jaxpr: see partial_eval.py)
ad.transpose_rules[while_p] = _while_transpose


# ---------------------------------------------------------------------- while: batching
# Batched constants or carry are easy: batch the body (a carry becomes batched
# if the body makes it so: fixpoint) and keep one loop. A *batched predicate*
# means each example wants its own number of iterations, but there is only one
# loop. JAX 0.10 (loops.py, _while_loop_batching_rule) keeps the predicate
# batched: the cond_jaxpr of the batched loop returns bool[B], one per example,
# and ``while`` itself gives that a meaning (its lowering, _while_lowering):
#
#     while any(pred(carry)):
#         carry = where(pred(carry), body(carry), carry)     # per example
#
# So the loop runs while *any* example still wants to, and an example whose own
# predicate is already false keeps its carry unchanged. Every example thus ends
# with the carry it would have had alone. The body must then batch *all* of the
# carry (a carry shared by all examples could not stop for some of them).
#
# The predicate's shape is always a prefix of every carry's shape: its
# dimensions are the batch dimensions. When the predicate is not batched but
# already has some (a loop vmapped twice, the inner vmap batched the predicate),
# the new batch dimension of the carry goes after those.

def _while_batch(args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    size = _axis_size(args, dims)
    cconst_dims, bconst_dims, init_dims = _split(list(dims), [cond_nconsts, body_nconsts])
    cconst_bat, bconst_bat, init_bat = ([d is not None for d in ds]
                                        for ds in (cconst_dims, bconst_dims, init_dims))

    def step(carry_bat):
        _, out_dims = batching.batch_jaxpr(body_jaxpr, size, bconst_dims + _batch_dims(carry_bat),
                                           instantiate=carry_bat)
        return [d is not None for d in out_dims], None
    carry_bat, _ = _fixpoint(step, init_bat)
    _, (pred_dim,) = batching.batch_jaxpr(cond_jaxpr, size, cconst_dims + _batch_dims(carry_bat))
    if pred_dim is not None:  # every carry batched, at 0; the predicate too
        carry_dims = [0] * len(carry_bat)
        pred_dims = [0]
    else:
        cond_rank = len(cond_jaxpr.out_avals[0].shape)
        carry_dims = [cond_rank if b else None for b in carry_bat]
        pred_dims = [None]
    body = batching.batch_jaxpr(body_jaxpr, size, bconst_dims + carry_dims, carry_dims)[0]
    cond = batching.batch_jaxpr(cond_jaxpr, size, cconst_dims + carry_dims, pred_dims)[0]
    cconsts, bconsts, init = _split(args, [cond_nconsts, body_nconsts])
    init = [batching.matchaxis(x, d, new, size) for x, d, new in zip(init, init_dims, carry_dims)]
    outs = while_p.bind(*cconsts, *bconsts, *init, cond_jaxpr=cond, body_jaxpr=body,
                        cond_nconsts=cond_nconsts, body_nconsts=body_nconsts)
    return outs, carry_dims


def lower_batched_predicate(eqn: JaxprEqn) -> JaxprEqn:
    """A ``while`` whose predicate is batched, as a plain loop: the meaning JAX's lowering
    gives it (see the batching rule above), written as jaxprs for the backends that run a
    plain loop of compiled cond and body programs::

        while reduce_or(pred(carry)): carry = select(pred(carry), body(carry), carry)

    The new body computes the predicate too, so it takes the cond's constants first."""
    p = eqn.params
    cond, body, ncc = p["cond_jaxpr"], p["body_jaxpr"], p["cond_nconsts"]
    cconsts, bconsts, carry = _split(eqn.invars, [ncc, p["body_nconsts"]])
    avals = [v.aval for v in eqn.invars]
    cconst_avals, bconst_avals, carry_avals = _split(avals, [ncc, p["body_nconsts"]])
    pred_axes = tuple(range(len(cond.out_avals[0].shape)))

    def any_cond(*args):
        pred, = eval_jaxpr(cond.jaxpr, cond.consts, *args)
        return [reduce_or(pred, axes=pred_axes)], None

    def masked_body(*args):
        cconsts_, bconsts_, carry_ = _split(args, [ncc, len(bconsts)])
        pred, = eval_jaxpr(cond.jaxpr, cond.consts, *cconsts_, *carry_)
        new = eval_jaxpr(body.jaxpr, body.consts, *bconsts_, *carry_)
        return [_bcast_select(pred, n, c) for n, c in zip(new, carry_)], None

    any_jaxpr = trace_to_jaxpr(any_cond, [*cconst_avals, *carry_avals])[0]
    body_jaxpr = trace_to_jaxpr(masked_body, [*cconst_avals, *bconst_avals, *carry_avals])[0]
    params = dict(p, cond_jaxpr=any_jaxpr, body_jaxpr=body_jaxpr, body_nconsts=ncc + len(bconsts))
    return eqn.replace(invars=[*cconsts, *cconsts, *bconsts, *carry], params=params)


batching.batching_rules[while_p] = _while_batch


# ====================================================================== while_loop

def while_loop(cond_fun: Callable[[T], Any], body_fun: Callable[[T], T], init_val: T) -> T:
    """Repeat ``val = body_fun(val)`` while ``cond_fun(val)`` is true; return ``val``.

    The loop state must keep its pytree structure, shapes and dtypes. Because
    the number of iterations is unknown until run time, a while loop cannot be
    differentiated in reverse mode (that needs to store every iteration).
    """
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    init_flat, args_tree = tree_flatten((init_val,))  # the functions are called as f(val)
    in_tree = treedef_children(args_tree)[0]
    init_avals = [_abstractify(x) for x in init_flat]
    cond_jaxpr, cond_consts, body_jaxpr, body_consts, out_tree = _while_jaxprs(
        cond_fun, body_fun, args_tree, init_avals)
    if len(body_jaxpr.out_avals) != len(init_avals):
        _check_carry_type("while_loop body", body_fun, in_tree, init_avals, out_tree,
                          body_jaxpr.out_avals)
    # A weakly typed initial value may need the body's dtype: convert it, trace again.
    promoted = [_promote_weak_typed_input(x, a, b)
                for x, a, b in zip(init_flat, init_avals, body_jaxpr.out_avals)]
    if any(changed for _, changed in promoted):
        init_flat = [x for x, _ in promoted]
        init_avals = [_abstractify(x) for x in init_flat]
        cond_jaxpr, cond_consts, body_jaxpr, body_consts, out_tree = _while_jaxprs(
            cond_fun, body_fun, args_tree, init_avals)
    _check_carry_type("while_loop body", body_fun, in_tree, init_avals, out_tree,
                      body_jaxpr.out_avals)

    # Loop state that the body passes through unchanged, and that cond_fun does
    # not read, is really a constant of the body: make it one.
    body_fwd = _forwarding(body_jaxpr.jaxpr)
    carry_nofwd = [len(body_consts) + i != f for i, f in enumerate(body_fwd)]
    dce_cond, used = _dce(cond_jaxpr.jaxpr, [True] * len(cond_consts) + carry_nofwd)
    move_to_const = [not u for u in used[len(cond_consts):]]
    new_consts: list = []
    if any(move_to_const):
        cond_jaxpr = ClosedJaxpr(dce_cond, cond_jaxpr.consts)
        body_jaxpr = _prune_outputs(body_jaxpr, [not m for m in move_to_const])
        invars = body_jaxpr.jaxpr.invars
        body_jaxpr = _with_jaxpr(body_jaxpr, invars=_move_to_front(
            invars, [False] * len(body_consts) + move_to_const))
        init_flat, new_consts = _partition(move_to_const, init_flat)
        body_consts = [*new_consts, *body_consts]
    outs = while_p.bind(*cond_consts, *body_consts, *init_flat,
                        cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr,
                        cond_nconsts=len(cond_consts), body_nconsts=len(body_consts))
    if any(move_to_const):
        outs = _merge(move_to_const, outs, new_consts)
    return tree_unflatten(out_tree, outs)


def _while_jaxprs(cond_fun: Callable, body_fun: Callable, args_tree: PyTreeDef,
                  avals: list[ShapedArray]) -> tuple:
    """Trace cond_fun and body_fun on the loop state; cond_fun must give a bool scalar."""
    cond_jaxpr, cond_consts, pred_tree = _trace(cond_fun, args_tree, avals, "while_cond")
    body_jaxpr, body_consts, out_tree = _trace(body_fun, args_tree, avals, "while_body")
    if not treedef_is_leaf(pred_tree) or len(cond_jaxpr.out_avals) != 1:
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {pred_tree}.")
    pred = cond_jaxpr.out_avals[0]
    if pred.shape != () or pred.dtype != np.bool_:
        raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                        f"{cond_jaxpr.out_avals}.")
    return cond_jaxpr, cond_consts, body_jaxpr, body_consts, out_tree


# ====================================================================== fori_loop
# A fori_loop is a while loop over (i, upper, x). But when both bounds are known
# while tracing, the trip count is known too, and JAX uses a scan over (i, x)
# instead: a scan keeps one set of residuals per iteration, which is what
# reverse-mode differentiation needs (a while loop cannot be transposed).

def _fori_debug_info(body_fun: Callable, init_val: Any, hide_upper: bool) -> DebugInfo:
    """Errors raised while tracing the wrappers below name the user's body_fun and its
    arguments (the while version's loop state also holds ``upper``, which has no name)."""
    names = _arg_names(body_fun, tree_flatten((0, init_val))[1])
    if hide_upper:
        names = (names[0], "", *names[1:])
    return DebugInfo("fori_loop", func_name(body_fun), func_source(body_fun), names)


def _fori_scan_body(body_fun: Callable, init_val: Any) -> Callable:
    def scanned_fun(loop_carry, _):  # the name shows in carry-type errors, as in JAX
        i, x = loop_carry
        return (i + 1, body_fun(i, x)), None
    scanned_fun._edujax_debug_info = _fori_debug_info(body_fun, init_val, hide_upper=False)
    return scanned_fun


def _fori_cond_fun(loop_carry):
    i, upper, _ = loop_carry
    return lt(i, upper)


def _fori_while_body(body_fun: Callable, init_val: Any) -> Callable:
    def while_body_fun(loop_carry):
        i, upper, x = loop_carry
        return add(i, np.array(1, dtypes.dtype_and_weak(i)[0])), upper, body_fun(i, x)
    while_body_fun._edujax_debug_info = _fori_debug_info(body_fun, init_val, hide_upper=True)
    return while_body_fun


def _concrete_int(x: Any) -> int | None:
    """``int(x)`` if x is known while tracing, else None."""
    if isinstance(x, Tracer):
        x = x.to_concrete_value()
        if x is None:
            return None
    try:
        return int(x)
    except TypeError:
        return None


def _fori_dtype(lower: Any, upper: Any) -> np.dtype:
    """Both bounds must have one integer dtype; a weak Python int adapts to the other."""
    lower_dtype, lower_weak = dtypes.dtype_and_weak(lower)
    upper_dtype, upper_weak = dtypes.dtype_and_weak(upper)
    if lower_dtype == upper_dtype:
        return lower_dtype
    if lower_dtype.kind == "i" and upper_dtype.kind == "i" and lower_weak != upper_weak:
        return upper_dtype if lower_weak else lower_dtype
    raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                    f"{lower_dtype.name} and {upper_dtype.name}")


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, T], T], init_val: T, *,
              unroll: int | bool | None = None) -> T:
    """``for i in range(lower, upper): val = body_fun(i, val)``, as one primitive.

    With bounds known while tracing (Python ints, concrete arrays) this becomes
    a ``scan`` of ``upper - lower`` steps; with traced bounds, a ``while``.
    """
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    dtype = _fori_dtype(lower, upper)
    lower_, upper_ = _concrete_int(lower), _concrete_int(upper)
    if lower_ is not None and upper_ is not None:
        (_, result), _ = scan(_fori_scan_body(body_fun, init_val), (lower_, init_val), None,
                              length=builtins.max(upper_ - lower_, 0),
                              unroll=False if unroll is None else unroll)
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")
    if dtypes.dtype_and_weak(lower)[0] != dtype:
        lower = convert_element_type(lower, dtype)
    if dtypes.dtype_and_weak(upper)[0] != dtype:
        upper = convert_element_type(upper, dtype)
    _, _, result = while_loop(_fori_cond_fun, _fori_while_body(body_fun, init_val),
                              (lower, upper, init_val))
    return result
