"""``scan`` and ``map``: the ``scan`` primitive, a loop with a trip count known while tracing,
that carries a state and stacks one output per step.

The primitive's block comes first (abstract evaluation, reference rule, JVP, partial
evaluation, transpose, batching), then ``scan`` and ``map`` as users call them.
"""
from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray, Tracer
from edujax.errors import ConcretizationTypeError
from edujax.interpreters import ad, batching
from edujax.interpreters import partial_eval as pe
from edujax.interpreters.partial_eval import dce_jaxpr, trace_to_jaxpr
from edujax.interpreters.partial_eval_jaxpr import partial_eval_jaxpr
from edujax.jaxpr import ClosedJaxpr, DropVar, Jaxpr, eval_jaxpr
from edujax.lax.base import reshape
from edujax.lax.shape import concatenate
from edujax.lax.control_flow.common import (_axis_size, _batch_dims, _check_carry_type,
                                            _eval_closed, _fill_zeros, _fixpoint, _forwarding,
                                            _jvp_jaxpr, _merge, _move_to_front, _nonzero,
                                            _partition, _promote_weak_typed_input, _prune_outputs,
                                            _put, _regroup_jaxpr, _split)
from edujax.lax.control_flow.tracing import _abstractify, _trace, _with_jaxpr
from edujax.tree_util import tree_flatten, tree_map, tree_unflatten, treedef_children
from edujax.vmap import vmap

Carry = TypeVar("Carry")
X = TypeVar("X")
Y = TypeVar("Y")


# ====================================================================== scan_p
# ``scan *consts *carry *xs``: for i in range(length) (backwards if reverse),
# carry, y = jaxpr(*consts, *carry, *[x[i] for x in xs]); ys[i] = y.
# Outputs: the final carry, then each y stacked along a new leading axis.
scan_p = Primitive("scan")
scan_p.multiple_results = True


def _stacked(aval: ShapedArray, length: int) -> ShapedArray:
    return ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


def _scan_abstract_eval(*avals: ShapedArray, reverse: bool, length: int, jaxpr: ClosedJaxpr,
                        num_consts: int, num_carry: int, unroll: int) -> list[ShapedArray]:
    if len(avals) != len(jaxpr.in_avals):
        # (JAX's message really does print the braces: its format string lacks the f.)
        raise ValueError("scan number of arguments doesn't match the number of jaxpr "
                         "arguments: {len(args)} vs {len(jaxpr.in_avals)}")
    carry_avals, y_avals = _split(jaxpr.out_avals, [num_carry])
    return carry_avals + [_stacked(a, length) for a in y_avals]


def _scan_impl(*args: Any, reverse: bool, length: int, jaxpr: ClosedJaxpr, num_consts: int,
               num_carry: int, unroll: int) -> list:
    # NB: ``unroll`` tells a compiler how many steps to put in one loop iteration;
    # it never changes the values, so the reference rule ignores it.
    consts, carry, xs = _split(args, [num_consts, num_carry])
    ys = [np.empty((length, *a.shape), a.dtype) for a in jaxpr.out_avals[num_carry:]]
    for i in (reversed(range(length)) if reverse else range(length)):
        outs = _eval_closed(jaxpr, [*consts, *carry, *(x[i] for x in xs)])
        carry, y = _split(outs, [num_carry])
        for stacked, value in zip(ys, y):
            stacked[i] = np.asarray(value)
    return [*carry, *ys]


core.abstract_eval_rules[scan_p] = _scan_abstract_eval
core.impl_rules[scan_p] = _scan_impl


# ---------------------------------------------------------------------- scan: JVP
# Tangents ride along: the constants' tangents become extra constants, the
# carry's tangents extra carry (with a fixpoint, as for while), the xs'
# tangents extra xs, and the ys' tangents extra ys.

def _scan_jvp(primals, tangents, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    sizes = [num_consts, num_carry]
    num_xs, num_ys = len(primals) - num_consts - num_carry, len(jaxpr.out_avals) - num_carry
    (consts, init, xs), (const_dots, init_dots, xs_dots) = (_split(primals, sizes),
                                                           _split(tangents, sizes))
    const_nz, init_nz, xs_nz = ([type(t) is not ad.Zero for t in ts]
                                for ts in (const_dots, init_dots, xs_dots))

    def step(carry_nz):
        body, out_nz = _jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                                  carry_nz + [False] * num_ys)
        return out_nz[:num_carry], (body, out_nz)
    carry_nz, (body, out_nz) = _fixpoint(step, init_nz)
    const_dots, xs_dots = _nonzero(const_dots), _nonzero(xs_dots)
    init_dots = [ad.instantiate_zeros(t) for t, nz in zip(init_dots, carry_nz) if nz]
    # (consts, carry, xs, their tangents) -> (consts, consts', carry, carry', xs, xs');
    # outputs (carry, ys, carry', ys') -> (carry, carry', ys, ys').
    body = _regroup_jaxpr(body, [num_consts, num_carry, num_xs, len(const_dots), len(init_dots)],
                          [0, 3, 1, 4, 2, 5], [num_carry, num_ys, len(init_dots)], [0, 2, 1, 3])
    outs = scan_p.bind(*consts, *const_dots, *init, *init_dots, *xs, *xs_dots, reverse=reverse,
                       length=length, jaxpr=body, num_consts=num_consts + len(const_dots),
                       num_carry=num_carry + len(init_dots), unroll=unroll)
    carry, carry_dots, ys, ys_dots = _split(outs, [num_carry, len(init_dots), num_ys])
    out_avals = [core.get_aval(x) for x in [*carry, *ys]]
    return [*carry, *ys], _fill_zeros(out_nz, [*carry_dots, *ys_dots], out_avals)


ad.jvp_rules[scan_p] = _scan_jvp


# ---------------------------------------------------------------------- scan: partial evaluation
# Split the body into a known and an unknown part (with a fixpoint on which
# carries are unknown), then run two scans:
#
# * the known scan, now: the known carry and ys, and, stacked along a new
#   leading axis, the residuals of every iteration (the backward pass needs
#   those of step i at step i);
# * the unknown scan, staged into the linear jaxpr: it reads the residuals of
#   step i as its i-th ``x``.
#
# Two kinds of residuals need no stacking. A known constant or a known x is
# passed to the unknown scan as it is (a constant, or xs). And a residual
# computed from the constants alone is the same at every iteration: it is
# *hoisted* out of the loop, computed once, and passed as a constant
# (_hoist_loop_invariants, JAX's _scan_known_hoisting).

def _scan_partial_eval(trace, *args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    num_ys = len(jaxpr.out_avals) - num_carry
    const_uk, init_uk, xs_uk = _split([trace.is_unknown(x) for x in args],
                                      [num_consts, num_carry])
    forward = [True] * num_consts + [False] * num_carry + [True] * len(xs_uk)

    def step(carry_uk):  # (JAX: _scan_linearize, or _scan_partial_eval: pe.PartialEvalTrace)
        split = partial_eval_jaxpr(jaxpr, const_uk + carry_uk + xs_uk,
                                   carry_uk + [False] * num_ys, forward,
                                   residuals_last=trace.residuals_last)
        return split.out_unknowns[:num_carry], split
    carry_uk, split = _fixpoint(step, init_uk)
    loop = dict(reverse=reverse, length=length, unroll=unroll)
    known_outs, computed_res = _scan_known_part(trace, split, args, const_uk + carry_uk + xs_uk,
                                                num_consts, num_carry - sum(carry_uk), loop)
    # Sort the residuals into constants of the unknown scan, and xs of it.
    computed = iter(computed_res)
    residuals = [next(computed) if f is None else (args[f], f >= num_consts + num_carry)
                 for f in split.res_forwarded]
    res_is_xs = [is_xs for _, is_xs in residuals]
    const_res, xs_res = _partition(res_is_xs, [r for r, _ in residuals])
    n_unknown_in = len(split.unknown.in_avals) - len(residuals)
    body = _with_jaxpr(split.unknown, invars=_move_to_back(
        split.unknown.jaxpr.invars, res_is_xs + [False] * n_unknown_in))
    unknown_args = [x for x, uk in zip(args, const_uk + carry_uk + xs_uk) if uk]
    unknown_outs = []
    if body.out_avals:
        with core.set_current_trace(trace.staging):
            unknown_outs = scan_p.bind(*const_res, *unknown_args, *xs_res, jaxpr=body,
                                       num_consts=len(const_res) + sum(const_uk),
                                       num_carry=sum(carry_uk), **loop)
    return _merge(split.out_unknowns, known_outs, unknown_outs)


def _scan_known_part(trace, split, args, unknowns, num_consts, num_known_carry, loop):
    """Run the known scan; return its known outputs and the computed residuals, each as
    (value, stacked per iteration?)."""
    known_args = [x for x, uk in zip(args, unknowns) if not uk]
    n_known_consts = num_consts - sum(unknowns[:num_consts])
    consts, rest = _split(known_args, [n_known_consts])
    num_known_out = len(split.out_unknowns) - sum(split.out_unknowns)
    body, body_consts, hoisted = _hoist_loop_invariants(
        trace, split.known, consts, num_known_out, split.num_computed_res)
    outs = []
    if body.out_avals:
        with core.set_current_trace(trace.parent):
            outs = scan_p.bind(*body_consts, *rest, jaxpr=body, num_consts=len(body_consts),
                               num_carry=num_known_carry, **loop)
    known_outs, stacked = _split(outs, [num_known_out])
    stacked_it = iter(stacked)
    return known_outs, [(next(stacked_it), True) if h is None else (h, False) for h in hoisted]


def _hoist_loop_invariants(trace, known: ClosedJaxpr, consts: list, num_out: int, num_res: int
                           ) -> tuple[ClosedJaxpr, list, list]:
    """Move out of the known body what depends on the loop's constants only.

    ``known`` maps (consts, carry, xs) to (outputs, residuals). Partially evaluating
    it with the constants known and the rest unknown computes, right now and once,
    everything that is the same at every iteration. Returns the remaining body (its
    constants are the values it needs from the hoisted part), those constants, and
    per residual its hoisted value or None (still computed, and stacked, by the loop).
    """
    n_in = len(known.in_avals)
    is_const = [i < len(consts) for i in range(n_in)]
    # (JAX traces this with a JaxprTrace, pe.trace_to_jaxpr_nounits, whichever rule called it:
    # a jit split here takes its residuals last, partial_eval_jaxpr's default)
    split = partial_eval_jaxpr(known, [not c for c in is_const],
                               [True] * num_out + [False] * num_res, forward=is_const)
    with core.set_current_trace(trace.parent):
        values = eval_jaxpr(split.known.jaxpr, split.known.consts, *consts)
    num_hoisted = len(split.out_unknowns) - sum(split.out_unknowns)
    hoisted_values, computed = _split(values, [num_hoisted])
    computed_it, hoisted_it = iter(computed), iter(hoisted_values)
    body_consts = [next(computed_it) if f is None else consts[f] for f in split.res_forwarded]
    hoisted = [None if uk else next(hoisted_it) for uk in split.out_unknowns[num_out:]]
    # JAX builds the remaining body from its graph of tracers, which holds only what the
    # outputs need: what nothing reads (an unused exp) is gone from it.
    # (and an equation's output nothing reads is a DropVar there, printed _)
    body = split.unknown.jaxpr
    body = _drop_unread_outputs(dce_jaxpr(body, [True] * len(body.outvars))[0])
    return ClosedJaxpr(body, split.unknown.consts), body_consts, hoisted


def _drop_unread_outputs(jaxpr: Jaxpr) -> Jaxpr:
    read = {v for e in jaxpr.eqns for v in e.invars} | set(jaxpr.outvars)
    eqns = [e.replace(outvars=[v if v in read else DropVar(v.aval) for v in e.outvars])
            if not all(v in read for v in e.outvars) else e for e in jaxpr.eqns]
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns, jaxpr.debug_info)


def _move_to_back(xs: Sequence, to_move: Sequence[bool]) -> list:
    return [x for x, m in zip(xs, to_move) if not m] + [x for x, m in zip(xs, to_move) if m]


pe.partial_eval_rules[scan_p] = _scan_partial_eval
# Only the printed jaxpr depends on these two (see ad.py, partial_eval.py):
ad.linearized_directly.add(scan_p)
pe.split_even_if_known.add(scan_p)


# ---------------------------------------------------------------------- scan: transpose
# A linear scan maps (linear consts, carry, linear xs) to (carry, ys), reading
# residual consts and residual xs on the side. Its transpose runs the other
# way round (``reverse`` flipped): from the last step to the first, each step
# transposes the body, turning the cotangent of its carry output and of its y
# into the cotangent of its carry input and of its x. A constant is used by
# every step, so its cotangent is the *sum* over the steps: it is accumulated
# in an extra carry that starts at zero.
#
#   transposed body: (res consts; ct consts so far, ct carry; ct y, res xs)
#                 -> (ct consts so far + this step's, ct carry in; ct x)

def _scan_transpose(cts, *args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    consts, _, xs = _split(args, [num_consts, num_carry])
    const_lin = [ad.is_undefined_primal(x) for x in consts]
    xs_lin = [ad.is_undefined_primal(x) for x in xs]
    const_res, xs_res = ([x for x in group if not ad.is_undefined_primal(x)]
                         for group in (consts, xs))
    ct_carry, ct_ys = _split(cts, [num_carry])
    ct_carry = [ad.instantiate_zeros(ct) for ct in ct_carry]
    ys_nz = [type(ct) is not ad.Zero for ct in ct_ys]
    ct_consts = [ad.zeros_like_aval(ad.tangent_aval(x.aval)) for x in consts
                 if ad.is_undefined_primal(x)]
    body = _transpose_scan_body(jaxpr, num_consts, num_carry, const_lin, xs_lin, ys_nz)
    outs = scan_p.bind(*const_res, *ct_consts, *ct_carry, *_nonzero(ct_ys), *xs_res,
                       reverse=not reverse, length=length, jaxpr=body,
                       num_consts=len(const_res), num_carry=len(ct_consts) + num_carry,
                       unroll=unroll)
    ct_consts, ct_init, ct_xs = _split(outs, [len(ct_consts), num_carry])
    return [*_merge(const_lin, [None] * len(const_res), ct_consts), *ct_init,
            *_merge(xs_lin, [None] * len(xs_res), ct_xs)]


def _transpose_scan_body(jaxpr: ClosedJaxpr, num_consts: int, num_carry: int,
                         const_lin: list[bool], xs_lin: list[bool], ys_nz: list[bool]
                         ) -> ClosedJaxpr:
    const_avals, carry_avals, x_avals = _split(jaxpr.in_avals, [num_consts, num_carry])
    y_avals = jaxpr.out_avals[num_carry:]
    tangent = ad.tangent_aval
    groups = [
        [a for a, lin in zip(const_avals, const_lin) if not lin],           # residual consts
        [tangent(a) for a, lin in zip(const_avals, const_lin) if lin],      # ct consts so far
        [tangent(a) for a in carry_avals],                                  # ct carry
        [tangent(a) for a, nz in zip(y_avals, ys_nz) if nz],                # ct y
        [a for a, lin in zip(x_avals, xs_lin) if not lin],                  # residual xs
    ]

    def fun(*args):
        const_res, ct_consts, ct_carry, ct_y, x_res = _split(args, [len(g) for g in groups])[:5]
        const_res_it, x_res_it = iter(const_res), iter(x_res)
        primals = [*(ad.UndefinedPrimal(a) if lin else next(const_res_it)
                     for a, lin in zip(const_avals, const_lin)),
                   *(ad.UndefinedPrimal(a) for a in carry_avals),
                   *(ad.UndefinedPrimal(a) if lin else next(x_res_it)
                     for a, lin in zip(x_avals, xs_lin))]
        cts_out = [*ct_carry, *_fill_zeros(ys_nz, ct_y, y_avals)]
        # the constants' cotangents so far are accumulators: this iteration's add to them
        # as they arrive (as in JAX)
        lin_consts = [i for i, lin in enumerate(const_lin) if lin]
        cts_in = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, primals, cts_out,
                                  accumulators=dict(zip(lin_consts, ct_consts)))
        ct_const_in, ct_carry_in, ct_x = _split(cts_in, [num_consts, num_carry])
        sums = [ct for ct, lin in zip(ct_const_in, const_lin) if lin]
        ct_x = [ct for ct, lin in zip(ct_x, xs_lin) if lin]
        return [ad.instantiate_zeros(ct) for ct in [*sums, *ct_carry_in, *ct_x]], None

    return trace_to_jaxpr(fun, [a for g in groups for a in g])[0]


ad.transpose_rules[scan_p] = _scan_transpose


# ---------------------------------------------------------------------- scan: batching
# Batch the body: a constant's batch dimension goes first; a carry's too (and
# a carry becomes batched if the body makes it so: fixpoint); an x slice must
# have its batch dimension first, so the stacked xs have it at dimension 1, as
# have the stacked ys.

def _scan_batch(args, dims, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    size = _axis_size(args, dims)
    const_bat, init_bat, xs_bat = _split([d is not None for d in dims], [num_consts, num_carry])

    def step(carry_bat):
        in_dims = _batch_dims(const_bat + carry_bat + xs_bat)
        _, out_dims = batching.batch_jaxpr(jaxpr, size, in_dims)
        return [d is not None for d in out_dims[:num_carry]], out_dims[num_carry:]
    carry_bat, ys_dims = _fixpoint(step, init_bat)
    in_dims = _batch_dims(const_bat + carry_bat + xs_bat)
    body, _ = batching.batch_jaxpr(jaxpr, size, in_dims, _batch_dims(carry_bat) + ys_dims)
    consts, init, xs = _split(args, [num_consts, num_carry])
    const_dims, init_dims, xs_dims = _split(dims, [num_consts, num_carry])
    consts = [batching.moveaxis(x, d, 0) if d is not None else x
              for x, d in zip(consts, const_dims)]
    init = [batching.bdim_at_front(x, d, size) if b else x
            for x, d, b in zip(init, init_dims, carry_bat)]
    xs = [batching.moveaxis(x, d, 1) if d is not None else x for x, d in zip(xs, xs_dims)]
    outs = scan_p.bind(*consts, *init, *xs, reverse=reverse, length=length, jaxpr=body,
                       num_consts=num_consts, num_carry=num_carry, unroll=unroll)
    return outs, _batch_dims(carry_bat) + [None if d is None else 1 for d in ys_dims]


batching.batching_rules[scan_p] = _scan_batch


# ====================================================================== scan and map

def scan(f: Callable[[Carry, X], tuple[Carry, Y]], init: Carry, xs: X | None = None,
         length: int | None = None, reverse: bool = False, unroll: int | bool = 1,
         _split_transpose: bool = False) -> tuple[Carry, Y]:
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``; stack the ys.

    In plain Python::

        def scan(f, init, xs, length=None):
            carry, ys = init, []
            for x in (xs if xs is not None else [None] * length):
                carry, y = f(carry, x)
                ys.append(y)
            return carry, np.stack(ys)

    ``init``, ``xs`` and the ys may be any pytrees. The carry must keep its
    structure, shapes and dtypes from one step to the next.
    """
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_flat, init_tree = tree_flatten(init)
    xs_flat, xs_tree = tree_flatten(xs)
    init_avals = [_abstractify(x) for x in init_flat]
    length = _infer_scan_length(xs_flat, length)
    x_avals = [_unstacked(_abstractify(x)) for x in xs_flat]
    in_tree = tree_flatten((init, xs))[1]  # f is called as f(carry, x)

    def create_jaxpr(carry_avals):
        jaxpr, consts, out_tree = _trace(f, in_tree, [*carry_avals, *x_avals], "scan")
        children = treedef_children(out_tree)
        if len(children) != 2:
            raise TypeError("scan body output must be a pair, got "
                            f"{tree_unflatten(out_tree, jaxpr.out_avals)}.")
        return jaxpr, consts, out_tree, children[0]

    jaxpr, consts, out_tree, carry_tree = create_jaxpr(init_avals)
    num_carry = len(init_flat)
    if carry_tree.num_leaves != num_carry:
        _check_carry_type("scan body", f, init_tree, init_avals, carry_tree,
                          jaxpr.out_avals[:carry_tree.num_leaves])
    promoted = [_promote_weak_typed_input(x, a, b)
                for x, a, b in zip(init_flat, init_avals, jaxpr.out_avals[:num_carry])]
    if any(changed for _, changed in promoted):
        init_flat = [x for x, _ in promoted]
        init_avals = [_abstractify(x) for x in init_flat]
        jaxpr, consts, out_tree, carry_tree = create_jaxpr(init_avals)
    _check_carry_type("scan body", f, init_tree, init_avals, carry_tree,
                      jaxpr.out_avals[:num_carry])
    unroll = _check_unroll(unroll, length)
    outs = _bind_scan(jaxpr, consts, init_flat, xs_flat, length, reverse, unroll)
    return tree_unflatten(out_tree, outs)  # (carry, ys), or [carry, ys] if f returned a list


def _unstacked(aval: ShapedArray) -> ShapedArray:
    """The type of one slice ``x[i]``."""
    return ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


def _infer_scan_length(xs_flat: list, length: Any) -> int:
    try:
        lengths = [x.shape[0] for x in xs_flat]
    except AttributeError:
        raise ValueError("scan got value with no leading axis to scan over: "
                         f"{', '.join(str(x) for x in xs_flat if not hasattr(x, 'shape'))}."
                         ) from None
    if length is not None:
        if isinstance(length, Tracer) and length.to_concrete_value() is None:
            raise ConcretizationTypeError(
                length, "The `length` argument to `scan` expects a concrete `int` value. For "
                "scan-like iteration with a dynamic length, use `while_loop` or `fori_loop`.\n")
        length = int(length)
        if not all(length == n for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {lengths}.")
        return length
    if len(set(lengths)) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         f"{', '.join(str(n) for n in lengths)}.")
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return lengths[0]


def _check_unroll(unroll: Any, length: int) -> int:
    if isinstance(unroll, bool):
        return builtins.max(length, 1) if unroll else 1
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    return unroll


def _bind_scan(jaxpr: ClosedJaxpr, consts: list, init_flat: list, xs_flat: list, length: int,
               reverse: bool, unroll: int) -> list:
    """Tidy the body as JAX does and bind ``scan``; returns the flat carry and ys."""
    num_carry, num_xs = len(init_flat), len(xs_flat)
    num_ys = len(jaxpr.out_avals) - num_carry
    args = [*init_flat, *xs_flat]
    carry_fwd, ext_fwd = _split(_forwarding(jaxpr.jaxpr), [num_carry])
    # Carry passed through unchanged is a constant of the body: make it one.
    move_to_const = [len(consts) + i == f for i, f in enumerate(carry_fwd)]
    new_consts: list = []
    if any(move_to_const):
        jaxpr = _prune_outputs(jaxpr, [not m for m in move_to_const] + [True] * num_ys)
        jaxpr = _with_jaxpr(jaxpr, invars=_move_to_front(
            jaxpr.jaxpr.invars, [False] * len(consts) + move_to_const + [False] * num_xs))
        args, new_consts = _partition(move_to_const + [False] * num_xs, args)
        consts = [*new_consts, *consts]
        num_carry -= len(new_consts)
    # A y that is just the current x is not stacked again: it is xs itself.
    ext_to_ext_fwd = [i - len(consts) if i is not None and i >= num_carry + len(consts)
                      else None for i in ext_fwd]
    jaxpr = _prune_outputs(jaxpr, [True] * num_carry + [i is None for i in ext_to_ext_fwd])
    outs = scan_p.bind(*consts, *args, reverse=bool(reverse), length=length, jaxpr=jaxpr,
                       num_consts=len(consts), num_carry=num_carry, unroll=unroll)
    carry_out, ys = _split(outs, [num_carry])
    ys_it = iter(ys)
    ys = [next(ys_it) if i is None else _put(args[i]) for i in ext_to_ext_fwd]
    outs = [*carry_out, *ys]
    if any(move_to_const):
        outs = _merge(move_to_const + [False] * num_ys, outs, new_consts)
    return outs


# NB: this ``map`` shadows Python's builtin inside this module (as ``jax.lax.map``
# does); code here that needs the builtin writes ``builtins.map``.
def map(f: Callable[[X], Y], xs: X, *, batch_size: int | None = None) -> Y:  # noqa: A001
    """``np.stack([f(x) for x in xs])`` for pytrees, as a scan with no carry."""
    if batch_size is not None:
        return _batched_map(f, xs, batch_size)
    _, ys = scan(lambda _, x: ((), f(x)), (), xs)
    return ys


def _batched_map(f: Callable, xs: Any, batch_size: int) -> Any:
    """Scan over batches of ``batch_size`` examples, each batch computed with vmap;
    the examples left over at the end get one more vmap call."""
    leaves, treedef = tree_flatten(xs)
    n = leaves[0].shape[0]
    full, rest = divmod(n, batch_size)
    outs = []
    if full:
        batches = tree_unflatten(treedef, [
            reshape(x[:full * batch_size], (full, batch_size, *x.shape[1:]))
            for x in leaves])
        _, ys = scan(lambda _, b: ((), vmap(f)(b)), (), batches)
        outs.append(tree_map(lambda y: reshape(y, (y.shape[0] * y.shape[1], *y.shape[2:])), ys))
    if rest:
        outs.append(vmap(f)(tree_unflatten(treedef, [x[full * batch_size:] for x in leaves])))
    if len(outs) == 1:
        return outs[0]
    return tree_map(lambda a, b: concatenate([a, b], 0), *outs)
