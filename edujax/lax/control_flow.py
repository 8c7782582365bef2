"""Structured control flow: ``cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``, ``map``.

Why control flow has to be a primitive
--------------------------------------
While a function is traced, its arguments are tracers: they stand for *any*
value of their shape and dtype. ``if x > 0:`` asks Python for a concrete bool
and fails (TracerBoolConversionError), and a Python ``for`` loop runs at trace
time, so it is unrolled into the jaxpr, one copy of the body per iteration.

So JAX offers functions that take the branches or the loop body *as Python
functions*. Each function is traced once, on tracers, into a small jaxpr, and
the whole construct becomes a single equation whose parameters hold those
jaxprs::

    d:f32[] = cond[branches=({ lambda ; ... }, { lambda ; ... })] c b

Three primitives carry all of it:

* ``cond``  (params ``branches``): run the branch picked by an int32 index.
  ``cond`` and ``switch`` both bind it.
* ``while`` (params ``cond_jaxpr``, ``body_jaxpr``, ``cond_nconsts``, ``body_nconsts``).
  ``while_loop`` binds it, and so does ``fori_loop`` when its trip count is traced.
* ``scan``  (params ``jaxpr``, ``length``, ``reverse``, ``unroll``, ``num_consts``,
  ``num_carry``): a loop with a trip count known while tracing, that carries a
  state and stacks one output per step. ``scan``, ``map`` and ``fori_loop`` with
  static bounds bind it.

How closed-over values (constants) are threaded
-----------------------------------------------
A branch or a body may use arrays it did not receive as arguments: a global
array, or a tracer of the function being traced around it. Tracing the body
turns each such value into a *constvar* of its jaxpr (see partial_eval.py). We
then move those constvars to the front of the jaxpr's invars ("separate the
consts") and pass their values as extra leading operands of the equation. That
is why ``while`` has ``body_nconsts``/``cond_nconsts`` and ``scan`` has
``num_consts``: they say how many leading operands are constants rather than
loop state. For ``cond``, the constants of all branches are merged into one
list that every branch accepts (a branch ignores the ones it does not use).

Each primitive below is one block: the primitive, its abstract evaluation, its
reference implementation (a Python ``if``/``while``/``for`` that runs the
sub-jaxprs with ``eval_jaxpr``). Its JVP, transpose and batching rules will be
added under it when those transformations arrive. After the three blocks come
the user-facing functions, which trace the user's Python functions, check that
the types agree (with JAX's error messages) and bind the primitives.

NB: JAX also has a ``disable_jit`` mode in which these functions run as plain
Python loops; edujax has no such switch, so they always bind a primitive.
"""
from __future__ import annotations

import builtins
import inspect
import types
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from edujax import core, dtypes
from edujax.array import Array
from edujax.core import Primitive, ShapedArray, Tracer
from edujax.errors import ConcretizationTypeError
from edujax.interpreters import ad, batching
from edujax.interpreters.partial_eval import DebugInfo, func_name, func_source, trace_to_jaxpr
from edujax.interpreters.partial_eval_jaxpr import partial_eval_jaxpr
from edujax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr, jaxpr_as_fun
from edujax.lax.base import (broadcast_in_dim, broadcast_in_dim_p, convert_element_type,
                             convert_element_type_p, reshape)
from edujax.lax.elementwise import add, clamp, eq, lt, select_n
from edujax.lax.reductions import reduce_or
from edujax.lax.shape import concatenate
from edujax.lax.special import stop_gradient
from edujax.tree_util import (PyTreeDef, equality_errors, keystr, tree_flatten, tree_map,
                              tree_flatten_with_path, tree_unflatten, treedef_children,
                              treedef_is_leaf)
from edujax.vmap import vmap

Carry = TypeVar("Carry")
X = TypeVar("X")
Y = TypeVar("Y")
T = TypeVar("T")


def _split(xs: Sequence, sizes: Sequence[int]) -> list[list]:
    """Cut ``xs`` into consecutive pieces of the given sizes, plus the rest."""
    pieces, start = [], 0
    for size in sizes:
        pieces.append(list(xs[start:start + size]))
        start += size
    pieces.append(list(xs[start:]))
    return pieces


# ====================================================================== running a sub-jaxpr
# Reference rules receive NumPy arrays (core.EvalTrace unwraps its arguments).
# To run a branch or a loop body we wrap them back into Arrays, with the weak
# type the jaxpr expects, and evaluate the jaxpr equation by equation. We make
# the evaluating trace explicit so that the sub-jaxpr is *computed*, never
# recorded, whatever trace happens to be current.

def _as_input(value: Any, aval: ShapedArray) -> Array:
    return Array(np.asarray(value, dtype=aval.dtype), aval.weak_type)


def _eval_closed(closed: ClosedJaxpr, args: Sequence[Any]) -> list:
    """Compute ``closed(*args)`` with the NumPy reference rules."""
    inputs = [_as_input(x, v.aval) for x, v in zip(args, closed.jaxpr.invars, strict=True)]
    with core.set_current_trace(core.eval_trace):
        return eval_jaxpr(closed.jaxpr, closed.consts, *inputs)


# ====================================================================== helpers for the rules
# The JVP, partial-evaluation, transpose and batching rules of the three
# primitives below all transform a sub-jaxpr and bind the primitive again on
# the result. These small helpers are shared by them.

def _fixpoint(step: Callable[[list[bool]], tuple[list[bool], Any]], start: Sequence[bool]
              ) -> tuple[list[bool], Any]:
    """Which parts of a loop's carry have some property (nonzero tangent, unknown, batched).

    A carry has it if its initial value has it, or if one iteration of the body
    gives it the property. ``step(mask)`` transforms the body assuming ``mask`` and
    returns (which carry outputs have the property, the transformed body). We
    grow the mask until the body adds nothing; each round adds at least one carry,
    so this takes at most ``len(start) + 1`` rounds. Returns the mask and the body
    transformed with it.
    """
    mask = list(start)
    for _ in range(len(mask) + 1):
        out, result = step(mask)
        grown = [a or b for a, b in zip(mask, out)]
        if grown == mask:
            return mask, result
        mask = grown
    raise AssertionError("fixpoint not reached")


def _nonzero(tangents: Sequence[Any]) -> list:
    """The tangents that are not symbolic zeros (only those are passed to a primitive)."""
    return [t for t in tangents if type(t) is not ad.Zero]


def _fill_zeros(nonzeros: Sequence[bool], values: Sequence[Any], avals: Sequence[ShapedArray]
                ) -> list:
    """Undo ``_nonzero``: a symbolic Zero where ``nonzeros`` is False."""
    values_it = iter(values)
    return [next(values_it) if nz else ad.Zero(ad.tangent_aval(a))
            for nz, a in zip(nonzeros, avals)]


def _jvp_jaxpr(closed: ClosedJaxpr, nonzeros: Sequence[bool], instantiate: bool | Sequence[bool]
               ) -> tuple[ClosedJaxpr, list[bool]]:
    """``(primals, nonzero tangents) -> (primal outs, nonzero tangent outs)`` as a jaxpr.

    Like ``ad.jvp_jaxpr``, plus ``instantiate``: output tangents to materialize as
    zeros even when they are symbolically zero, so that every branch of a cond (or
    every iteration of a loop) has the same outputs. Returns which output tangents
    are present.
    """
    avals = closed.in_avals
    n_out = len(closed.out_avals)
    instantiate = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    out_nonzeros: list[bool] = []

    def fun(*args):
        primals, nz_tangents = _split(args, [len(avals)])
        tangents = _fill_zeros(nonzeros, nz_tangents, avals)
        outs, touts = ad.jvp_flat(jaxpr_as_fun(closed), primals, tangents)
        touts = [ad.instantiate_zeros(t) if inst else t for t, inst in zip(touts, instantiate)]
        out_nonzeros[:] = [type(t) is not ad.Zero for t in touts]
        return [*outs, *_nonzero(touts)], None

    tangent_avals = [ad.tangent_aval(a) for a, nz in zip(avals, nonzeros) if nz]
    jaxpr, _ = trace_to_jaxpr(fun, [*avals, *tangent_avals])
    return jaxpr, out_nonzeros


def _regroup(xs: Sequence, sizes: Sequence[int], order: Sequence[int]) -> list:
    """Cut ``xs`` into groups of ``sizes`` and concatenate the groups in ``order``.

    ``_regroup([c, x, dc, dx], [1, 1, 1], [0, 2, 1, 3]) == [c, dc, x, dx]`` (the last
    group is whatever remains after the given sizes).
    """
    groups = _split(xs, sizes)
    return [x for i in order for x in groups[i]]


def _regroup_jaxpr(closed: ClosedJaxpr, in_sizes: Sequence[int], in_order: Sequence[int],
                   out_sizes: Sequence[int] = (), out_order: Sequence[int] = ()) -> ClosedJaxpr:
    """Reorder a jaxpr's inputs (and outputs) by groups; see ``_regroup``."""
    j = closed.jaxpr
    outvars = _regroup(j.outvars, out_sizes, out_order) if out_sizes else j.outvars
    return _with_jaxpr(closed, invars=_regroup(j.invars, in_sizes, in_order), outvars=outvars)


def _axis_size(args: Sequence[Any], dims: Sequence[int | None]) -> int:
    """The size of the batch, read off any batched argument."""
    return next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)


def _batch_dims(batched: Sequence[bool]) -> list[int | None]:
    return [0 if b else None for b in batched]


# ====================================================================== cond_p
# ``cond index *consts *operands``: branches[index] runs on (*consts, *operands).
# Every branch takes the same inputs and returns the same types, so the output
# types are those of any branch (JAX takes branch 0's).
cond_p = Primitive("cond")
cond_p.multiple_results = True


def _cond_abstract_eval(index: ShapedArray, *args: ShapedArray,
                        branches: tuple[ClosedJaxpr, ...]) -> list[ShapedArray]:
    # NB: JAX makes these checks in its jaxpr typechecker and raises core.JaxprTypeError.
    if index.dtype != np.int32:
        raise TypeError(f"cond called with index of type {index.dtype} instead of int32")
    for branch in branches:
        if len(branch.in_avals) != len(args):
            raise TypeError(f"cond called with {len(args)} non-predicate operands, but "
                            f"branches take {len(branch.in_avals)} inputs")
    return list(branches[0].out_avals)


def _cond_impl(index: np.ndarray, *args: Any, branches: tuple[ClosedJaxpr, ...]) -> list:
    # Clamped like XLA's Conditional: an out-of-range index runs the last branch.
    i = builtins.min(builtins.max(int(index), 0), len(branches) - 1)
    return _eval_closed(branches[i], args)


core.abstract_eval_rules[cond_p] = _cond_abstract_eval
core.impl_rules[cond_p] = _cond_impl


# ---------------------------------------------------------------------- cond: JVP
# Differentiate every branch with the same pattern of nonzero input tangents,
# and pick among the differentiated branches with the same index. Branches must
# agree on their outputs, so an output tangent that is zero in one branch but
# not in another is materialized as zeros in the first.

def _cond_jvp(primals, tangents, *, branches):
    (index, *ops), (_, *op_dots) = primals, tangents
    ops_nz = [type(t) is not ad.Zero for t in op_dots]
    per_branch = [_jvp_jaxpr(branch, ops_nz, False)[1] for branch in branches]
    out_nz = [builtins.any(nzs) for nzs in zip(*per_branch)]
    branches_jvp = tuple(_jvp_jaxpr(branch, ops_nz, out_nz)[0] for branch in branches)
    outs = cond_p.bind(index, *ops, *_nonzero(op_dots), branches=branches_jvp)
    primals_out, nz_tangents_out = _split(outs, [len(out_nz)])
    return primals_out, _fill_zeros(out_nz, nz_tangents_out, branches[0].out_avals)


ad.jvp_rules[cond_p] = _cond_jvp


# ---------------------------------------------------------------------- cond: partial evaluation
# While linearizing, a cond's operands mix known primals and unknown tangents,
# and its outputs are known primals and unknown tangents. Staging the whole
# cond would put the primal computation into the linear jaxpr, where it cannot
# be transposed. So we split each branch (partial_eval_jaxpr) and bind two
# conds with the same, known, index:
#
# * a known cond, computed now: the known outputs, plus the *residuals* the
#   tangent computation needs (``cos(x)`` for a ``sin`` branch...);
# * an unknown cond, staged into the linear jaxpr: from the residuals and the
#   unknown operands, the unknown outputs.
#
# Branches compute different residuals, but all branches of one cond need one
# signature. So residuals are merged by type: each branch fills its own slots
# and returns zeros in the others (_merge_branch_residuals).

def _cond_partial_eval(trace, index, *ops, branches):
    if trace.is_unknown(index):  # (never while linearizing: the index is a primal)
        return trace.staging.process_primitive(cond_p, [index, *ops], dict(branches=branches))
    ops_uk = [trace.is_unknown(x) for x in ops]
    per_branch = [partial_eval_jaxpr(branch, ops_uk).out_unknowns for branch in branches]
    out_uk = [builtins.any(uks) for uks in zip(*per_branch)]
    splits = [partial_eval_jaxpr(branch, ops_uk, instantiate=out_uk) for branch in branches]
    all_res_avals, slots = _merge_branch_residuals([s.res_avals for s in splits])
    num_known_out = len(out_uk) - sum(out_uk)
    known_branches = tuple(_join_branch_residual_outputs(s.known, num_known_out, all_res_avals, sl)
                           for s, sl in zip(splits, slots))
    unknown_branches = tuple(_join_branch_residual_inputs(s.unknown, all_res_avals, sl)
                             for s, sl in zip(splits, slots))
    known_ops, unknown_ops = _partition(ops_uk, ops)
    known_outs_res = []
    if known_branches[0].out_avals:
        with core.set_current_trace(trace.parent):
            known_outs_res = cond_p.bind(index, *known_ops, branches=known_branches)
    known_outs, residuals = _split(known_outs_res, [num_known_out])
    unknown_outs = []
    if builtins.any(out_uk):
        with core.set_current_trace(trace.staging):
            unknown_outs = cond_p.bind(index, *residuals, *unknown_ops, branches=unknown_branches)
    return _merge(out_uk, known_outs, unknown_outs)


def _merge_branch_residuals(res_avals: list[list[ShapedArray]]
                            ) -> tuple[list[ShapedArray], list[list[int]]]:
    """One list of residual types for all branches, and where each branch's residuals go.

    A branch reuses a slot of the same type (weak types aside) that it has not used
    yet, so ``[x], [y], [x, x]`` gives ``[x, y, x]`` and slots ``[0], [1], [0, 2]`` (as JAX).
    """
    all_avals: list[ShapedArray] = []
    slots = []
    for avals in res_avals:
        mine: list[int] = []
        for aval in avals:
            free = [i for i, a in enumerate(all_avals) if _typematch(a, aval) and i not in mine]
            if not free:
                all_avals.append(aval)
                free = [len(all_avals) - 1]
            mine.append(free[0])
        slots.append(mine)
    return all_avals, slots


def _join_branch_residual_outputs(known: ClosedJaxpr, num_out: int,
                                  all_res_avals: list[ShapedArray], slots: list[int]
                                  ) -> ClosedJaxpr:
    """A known branch returning ``[*outs, *all residuals]``: zeros in the other branches'
    slots. NB: JAX fills those slots with uninitialized memory (``empty``)."""
    if slots == list(range(len(all_res_avals))):
        return known

    def fun(*args):
        outs, own_res = _split(eval_jaxpr(known.jaxpr, known.consts, *args), [num_out])
        res: list = [None] * len(all_res_avals)
        for slot, r in zip(slots, own_res):
            res[slot] = r
        res = [ad.zeros_like_aval(a) if r is None else r for r, a in zip(res, all_res_avals)]
        return [*outs, *res], None
    return trace_to_jaxpr(fun, known.in_avals)[0]


def _join_branch_residual_inputs(unknown: ClosedJaxpr, all_res_avals: list[ShapedArray],
                                 slots: list[int]) -> ClosedJaxpr:
    """An unknown branch taking ``[*all residuals, *operands]`` and ignoring the others'."""
    own_res, op_vars = _split(unknown.jaxpr.invars, [len(slots)])
    res_vars = [Var(a) for a in all_res_avals]
    for slot, v in zip(slots, own_res):
        res_vars[slot] = v
    return _with_jaxpr(unknown, invars=[*res_vars, *op_vars])


ad.partial_eval_rules[cond_p] = _cond_partial_eval


# ---------------------------------------------------------------------- cond: transpose
# In the linear jaxpr a cond takes the index and residuals (known) and tangents
# (linear). Its transpose is a cond over the transposed branches: the same
# index picks the branch whose transpose maps the output cotangents back to
# the linear operands' cotangents.

def _cond_transpose(cts, index, *args, branches):
    linear = [ad.is_undefined_primal(x) for x in args]
    residuals = [x for x, lin in zip(args, linear) if not lin]
    cts_nz = [type(ct) is not ad.Zero for ct in cts]
    avals = [core.get_aval(x) for x in [*residuals, *_nonzero(cts)]]
    branches_t = tuple(_transpose_branch(branch, linear, cts_nz, avals) for branch in branches)
    cts_in = cond_p.bind(index, *residuals, *_nonzero(cts), branches=branches_t)
    return [None, *_merge(linear, [None] * len(residuals), cts_in)]


def _transpose_branch(branch: ClosedJaxpr, linear: list[bool], cts_nz: list[bool],
                      avals: list[ShapedArray]) -> ClosedJaxpr:
    """``(residuals, nonzero output cotangents) -> cotangents of the linear inputs``,
    where ``avals`` are the types of the residuals and cotangents."""
    num_res = len(linear) - sum(linear)

    def fun(*args):
        residuals, cts = _split(args, [num_res])
        undefined = [ad.UndefinedPrimal(a) for a, lin in zip(branch.in_avals, linear) if lin]
        primals = _merge(linear, residuals, undefined)
        cts_out = _fill_zeros(cts_nz, cts, branch.out_avals)
        cts_in = ad.backward_pass(branch.jaxpr, branch.consts, primals, cts_out)
        return [ad.instantiate_zeros(ct) for ct, lin in zip(cts_in, linear) if lin], None

    return trace_to_jaxpr(fun, avals)[0]


ad.transpose_rules[cond_p] = _cond_transpose


# ---------------------------------------------------------------------- cond: batching
# With an unbatched index every example takes the same branch: batch each
# branch and keep the cond. With a *batched* index, example 0 may need branch 1
# while example 1 needs branch 0, but a batched program runs one instruction
# stream for the whole batch, so it cannot branch per example. Instead it runs
# *every* branch on the whole batch and keeps, per example, the output of its
# own branch with ``select_n``. This costs the work of all branches (a cond
# under vmap is no longer lazy); it is what JAX does too.

def _cond_batch(args, dims, *, branches):
    size = _axis_size(args, dims)
    if dims[0] is not None:
        return _cond_batch_as_select(args, dims, size, branches)
    (index, *ops), (_, *op_dims) = args, dims
    ops = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(ops, op_dims)]
    in_dims = _batch_dims([d is not None for d in op_dims])
    per_branch = [batching.batch_jaxpr(branch, size, in_dims)[1] for branch in branches]
    out_dims = _batch_dims([builtins.any(d is not None for d in ds) for ds in zip(*per_branch)])
    batched = tuple(batching.batch_jaxpr(branch, size, in_dims, out_dims)[0]
                    for branch in branches)
    return cond_p.bind(index, *ops, branches=batched), out_dims


def _cond_batch_as_select(args, dims, size, branches):
    index, *ops = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    n_out = len(branches[0].out_avals)
    branch_outs = []
    for i, branch in enumerate(branches):
        batched, _ = batching.batch_jaxpr(branch, size, [0] * len(ops), [0] * n_out)
        # An example that does not take branch i feeds it stop_gradient(x) instead of
        # x (the same values). Its output is thrown away by the select below, so in
        # reverse mode its cotangent is 0; but inside the branch 0 * inf is NaN (the
        # derivative of log at 0, say), and stop_gradient keeps that NaN away from
        # the gradient of x (JAX issue #1052).
        taken = eq(index, np.int32(i))
        ops_i = [_bcast_select(taken, x, stop_gradient(x)) for x in ops]
        branch_outs.append(eval_jaxpr(batched.jaxpr, batched.consts, *ops_i))
    outs = [_bcast_select_n(index, *cases) for cases in zip(*branch_outs)]
    return outs, [0] * n_out


def _bcast_select(pred: Any, on_true: Any, on_false: Any) -> Any:
    return _bcast_select_n(pred, on_false, on_true)


def _bcast_select_n(which: Any, *cases: Any) -> Any:
    """select_n with a per-example ``which`` (shape (B,)) and cases of shape (B, ...)."""
    if np.ndim(which) != np.ndim(cases[0]):
        which = broadcast_in_dim(which, np.shape(cases[0]), list(range(np.ndim(which))))
    return select_n(which, *cases)


batching.batching_rules[cond_p] = _cond_batch


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
    while _eval_closed(cond_jaxpr, [*cond_consts, *carry])[0]:
        carry = _eval_closed(body_jaxpr, [*body_consts, *carry])
    return carry


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


ad.partial_eval_rules[while_p] = _while_partial_eval
ad.transpose_rules[while_p] = _while_transpose


# ---------------------------------------------------------------------- while: batching
# Batched constants or carry are easy: batch the body (a carry becomes batched
# if the body makes it so: fixpoint) and keep one loop. A *batched predicate*
# means each example wants its own number of iterations, but there is only one
# loop. So the batched loop runs while *any* example still wants to, and on
# each step an example whose own predicate is already false keeps its carry
# unchanged (a select between the new and the old carry). Every example thus
# ends with the carry it would have had alone.
#
# NB: JAX keeps the batched predicate inside the jaxpr (its cond_jaxpr returns
# bool[B]) and leaves the "any" and the select to the compiler's lowering of
# while; edujax writes them into the loop, so the jaxpr shows all of it and
# every backend's ``while`` stays a plain loop.

def _while_batch(args, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    size = _axis_size(args, dims)
    args = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(args, dims)]
    cconst_bat, bconst_bat, init_bat = _split([d is not None for d in dims],
                                              [cond_nconsts, body_nconsts])

    def step(carry_bat):
        _, out_dims = batching.batch_jaxpr(body_jaxpr, size, _batch_dims(bconst_bat + carry_bat))
        return [d is not None for d in out_dims], None
    carry_bat, _ = _fixpoint(step, init_bat)
    _, (pred_dim,) = batching.batch_jaxpr(cond_jaxpr, size, _batch_dims(cconst_bat + carry_bat))
    if pred_dim is not None:
        carry_bat = [True] * len(carry_bat)
    body = batching.batch_jaxpr(body_jaxpr, size, _batch_dims(bconst_bat + carry_bat),
                                _batch_dims(carry_bat))[0]
    cond = batching.batch_jaxpr(cond_jaxpr, size, _batch_dims(cconst_bat + carry_bat))[0]
    cconsts, bconsts, init = _split(args, [cond_nconsts, body_nconsts])
    init = [batching.bdim_at_front(x, None, size) if b and not was else x
            for x, b, was in zip(init, carry_bat, init_bat)]
    if pred_dim is None:
        outs = while_p.bind(*cconsts, *bconsts, *init, cond_jaxpr=cond, body_jaxpr=body,
                            cond_nconsts=cond_nconsts, body_nconsts=body_nconsts)
    else:
        outs = _while_with_batched_predicate(cond, body, cconsts, bconsts, init)
    return outs, _batch_dims(carry_bat)


def _while_with_batched_predicate(cond: ClosedJaxpr, body: ClosedJaxpr, cconsts: list,
                                  bconsts: list, init: list) -> list:
    """``while any(pred): carry = select(pred, body(carry), carry)``, per example."""
    carry_avals = [core.get_aval(x) for x in init]
    cconst_avals = [core.get_aval(x) for x in cconsts]

    def any_cond(*args):
        pred, = eval_jaxpr(cond.jaxpr, cond.consts, *args)
        return [reduce_or(pred, axes=(0,))], None

    def select_body(*args):
        cconsts_, bconsts_, carry = _split(args, [len(cconsts), len(bconsts)])
        pred, = eval_jaxpr(cond.jaxpr, cond.consts, *cconsts_, *carry)
        new = eval_jaxpr(body.jaxpr, body.consts, *bconsts_, *carry)
        return [_bcast_select(pred, n, c) for n, c in zip(new, carry)], None

    any_jaxpr = trace_to_jaxpr(any_cond, [*cconst_avals, *carry_avals])[0]
    body_avals = [*cconst_avals, *(core.get_aval(x) for x in bconsts), *carry_avals]
    select_jaxpr = trace_to_jaxpr(select_body, body_avals)[0]
    return while_p.bind(*cconsts, *cconsts, *bconsts, *init, cond_jaxpr=any_jaxpr,
                        body_jaxpr=select_jaxpr, cond_nconsts=len(cconsts),
                        body_nconsts=len(cconsts) + len(bconsts))


batching.batching_rules[while_p] = _while_batch


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

    def step(carry_uk):
        split = partial_eval_jaxpr(jaxpr, const_uk + carry_uk + xs_uk,
                                   carry_uk + [False] * num_ys, forward)
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
    split = partial_eval_jaxpr(known, [not c for c in is_const],
                               [True] * num_out + [False] * num_res, forward=is_const)
    with core.set_current_trace(trace.parent):
        values = eval_jaxpr(split.known.jaxpr, split.known.consts, *consts)
    num_hoisted = len(split.out_unknowns) - sum(split.out_unknowns)
    hoisted_values, computed = _split(values, [num_hoisted])
    computed_it, hoisted_it = iter(computed), iter(hoisted_values)
    body_consts = [next(computed_it) if f is None else consts[f] for f in split.res_forwarded]
    hoisted = [None if uk else next(hoisted_it) for uk in split.out_unknowns[num_out:]]
    return split.unknown, body_consts, hoisted


def _move_to_back(xs: Sequence, to_move: Sequence[bool]) -> list:
    return [x for x, m in zip(xs, to_move) if not m] + [x for x, m in zip(xs, to_move) if m]


ad.partial_eval_rules[scan_p] = _scan_partial_eval


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
        cts_in = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, primals, cts_out)
        ct_const_in, ct_carry_in, ct_x = _split(cts_in, [num_consts, num_carry])
        ct_const_in = [ct for ct, lin in zip(ct_const_in, const_lin) if lin]
        ct_x = [ct for ct, lin in zip(ct_x, xs_lin) if lin]
        sums = [ad.add_tangents(acc, ct) for acc, ct in zip(ct_consts, ct_const_in)]
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


# ====================================================================== tracing user functions

def _abstractify(x: Any) -> ShapedArray:
    try:
        return core.get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


def _fun_sourceinfo(fun: Callable) -> str:
    """``name at file:line``, how JAX names a function in its error messages."""
    return f"{func_name(fun)} at {func_source(fun)}"


def _arg_names(fun: Callable, args_tree: PyTreeDef) -> tuple[str, ...]:
    """A name per flat argument (``c[1]``, ``x``), from the parameters of ``fun``."""
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    dummy = tree_unflatten(args_tree, [0] * args_tree.num_leaves)
    names = []
    for path, _ in tree_flatten_with_path(dummy)[0]:
        i = path[0].idx
        names.append((params[i] if i < len(params) else f"args[{i}]") + keystr(path[1:]))
    return tuple(names)


def _debug_info(fun: Callable, args_tree: PyTreeDef, what: str) -> DebugInfo:
    """What errors raised while tracing ``fun`` say about it ("... for cond", argument names).

    Wrappers built by fori_loop carry the user's body function's info instead.
    """
    info = getattr(fun, "_edujax_debug_info", None)
    if info is not None:
        return info
    return DebugInfo(what, func_name(fun), func_source(fun), _arg_names(fun, args_tree))


def _trace(fun: Callable, in_tree: PyTreeDef, in_avals: list[ShapedArray],
           what: str) -> tuple[ClosedJaxpr, list, PyTreeDef]:
    """Trace ``fun(*args)`` into a jaxpr, where ``in_tree`` is the structure of ``args``.

    Returns the jaxpr with its constants *separated*: the constvars become the
    leading invars, and their values (arrays, or tracers of an enclosing trace)
    are returned beside it, to be passed as leading operands.
    """
    def flat_fun(*tracers):
        out = fun(*tree_unflatten(in_tree, list(tracers)))
        flat_out, out_tree = tree_flatten(out)
        return flat_out, out_tree

    closed, out_tree = trace_to_jaxpr(flat_fun, in_avals, _debug_info(fun, in_tree, what))
    jaxpr = closed.jaxpr
    separated = Jaxpr([], [*jaxpr.constvars, *jaxpr.invars], jaxpr.outvars, jaxpr.eqns,
                      jaxpr.debug_info)
    return ClosedJaxpr(separated, []), list(closed.consts), out_tree


def _with_jaxpr(closed: ClosedJaxpr, **changes: Any) -> ClosedJaxpr:
    j = closed.jaxpr
    fields = dict(constvars=j.constvars, invars=j.invars, outvars=j.outvars, eqns=j.eqns,
                  debug_info=j.debug_info)
    fields.update(changes)
    return ClosedJaxpr(Jaxpr(**fields), closed.consts)


# ---------------------------------------------------------------------- jaxpr surgery
# JAX tidies the traced jaxprs before binding: outputs that merely hand back an
# input are not computed by the primitive, and loop state that never changes is
# turned into a constant. We do the same, so that the printed jaxprs match.

def _is_noop_convert(eqn: JaxprEqn) -> bool:
    aval = eqn.invars[0].aval
    return (eqn.params["new_dtype"] == aval.dtype and eqn.params["weak_type"] == aval.weak_type
            and eqn.params.get("sharding") is None)


def _is_noop_broadcast(eqn: JaxprEqn) -> bool:
    return (tuple(eqn.params["shape"]) == eqn.invars[0].aval.shape
            and eqn.params.get("sharding") is None)


# Equations whose output may be the same value as their first input (JAX's
# pe.forwarding_rules). NB: JAX keeps this table in partial_eval.py.
_forwarding_rules: dict[Primitive, Callable[[JaxprEqn], bool]] = {
    convert_element_type_p: _is_noop_convert,
    broadcast_in_dim_p: _is_noop_broadcast,
}


def _forwarding(jaxpr: Jaxpr) -> list[int | None]:
    """For each output, the index of the input it merely passes on (or None)."""
    source: dict[Var, Var] = {v: v for v in jaxpr.invars}
    for eqn in jaxpr.eqns:
        rule = _forwarding_rules.get(eqn.primitive)
        x = eqn.invars[0] if eqn.invars else None
        if rule is not None and type(x) is Var and rule(eqn):
            source[eqn.outvars[0]] = source.get(x, x)
    index = {v: i for i, v in enumerate(jaxpr.invars)}
    return [None if type(v) is Literal else index.get(source.get(v)) for v in jaxpr.outvars]


def _prune_outputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
    """Drop the outputs not kept (their equations stay, as in JAX)."""
    return _with_jaxpr(closed, outvars=[v for v, k in zip(closed.jaxpr.outvars, keep) if k])


def _move_to_front(xs: Sequence, to_move: Sequence[bool]) -> list:
    return ([x for x, m in zip(xs, to_move) if m] + [x for x, m in zip(xs, to_move) if not m])


def _partition(to_move: Sequence[bool], xs: Sequence) -> tuple[list, list]:
    """(the xs not moved, the xs moved)."""
    return ([x for x, m in zip(xs, to_move) if not m], [x for x, m in zip(xs, to_move) if m])


def _merge(to_move: Sequence[bool], rest: Sequence, moved: Sequence) -> list:
    """Undo ``_partition``: put the moved values back in their places."""
    rest_it, moved_it = iter(rest), iter(moved)
    return [next(moved_it) if m else next(rest_it) for m in to_move]


def _dce(jaxpr: Jaxpr, instantiate: Sequence[bool]) -> tuple[Jaxpr, list[bool]]:
    """Remove the equations no output depends on, and the inputs nothing uses.

    An input is kept if it is used or if ``instantiate`` says so. NB: JAX has
    per-primitive rules that also trim unused outputs *inside* an equation (of a
    nested cond, say); we keep or drop whole equations.
    """
    live = {v for v in jaxpr.outvars if type(v) is Var}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(v for v in eqn.invars if type(v) is Var)
    used = [v in live or inst for v, inst in zip(jaxpr.invars, instantiate)]
    invars = [v for v, u in zip(jaxpr.invars, used) if u]
    return Jaxpr(jaxpr.constvars, invars, jaxpr.outvars, kept[::-1], jaxpr.debug_info), used


def _rename_vars(eqns: list[JaxprEqn], outvars: list, subst: dict) -> tuple[list, list]:
    def sub(atom):
        return subst.get(atom, atom) if type(atom) is Var else atom
    new_eqns = [eqn.replace(invars=[sub(a) for a in eqn.invars]) for eqn in eqns]
    return new_eqns, [sub(v) for v in outvars]


def _merge_common_consts(jaxprs: list[ClosedJaxpr], all_consts: list[list]
                         ) -> tuple[list[ClosedJaxpr], list]:
    """Make every branch accept the constants of all branches, each constant once.

    Branch i gets fresh, unused invars for the constants of the other branches,
    so that all branches share one input list ``[*consts, *operands]``. A value
    closed over by several branches (the same object) is passed only once.
    """
    counts = [len(cs) for cs in all_consts]
    consts = [c for cs in all_consts for c in cs]
    const_avals = [v.aval for closed, n in zip(jaxprs, counts) for v in closed.jaxpr.invars[:n]]
    merged = []
    for i, (closed, own) in enumerate(zip(jaxprs, counts)):
        start = sum(counts[:i])
        const_vars = ([Var(a) for a in const_avals[:start]] + closed.jaxpr.invars[:own]
                      + [Var(a) for a in const_avals[start + own:]])
        merged.append(_dedup_consts(closed, const_vars, closed.jaxpr.invars[own:], consts))
    seen: set[int] = set()
    unique = [c for c in consts if id(c) not in seen and not seen.add(id(c))]
    return merged, unique


def _dedup_consts(closed: ClosedJaxpr, const_vars: list[Var], operand_vars: list[Var],
                  consts: list) -> ClosedJaxpr:
    """Keep the first invar of each distinct constant; rewrite uses of the others."""
    first: dict[int, Var] = {}
    subst = {v: first.setdefault(id(c), v) for c, v in zip(consts, const_vars)}
    eqns, outvars = _rename_vars(closed.jaxpr.eqns, closed.jaxpr.outvars, subst)
    return _with_jaxpr(closed, invars=[*first.values(), *operand_vars], eqns=eqns,
                       outvars=outvars)


def _asarray(x: Any) -> Any:
    """An input handed back as an output: make it an Array, as ``lax.asarray`` does."""
    if isinstance(x, (Array, Tracer)):
        return x
    dtype, weak = dtypes.dtype_and_weak(x)
    return Array(np.asarray(x, dtype=dtype), weak)


def _put(x: Any) -> Any:
    """NumPy arrays forwarded through a scan become device Arrays (JAX's _maybe_put)."""
    return _asarray(x) if isinstance(x, np.ndarray) else x


# ---------------------------------------------------------------------- type checks

def _typematch(a: ShapedArray, b: ShapedArray) -> bool:
    """Same shape and dtype. Weak types are ignored, as in JAX's core.typematch."""
    return a.shape == b.shape and a.dtype == b.dtype


def _mismatch_extra(a: ShapedArray, b: ShapedArray) -> str:
    reasons = ([f"the {what} do not match" for what, differ in
                (("dtypes", a.dtype != b.dtype), ("shapes", a.shape != b.shape)) if differ])
    if not reasons:
        return ""
    return ", so " + (reasons[0] if len(reasons) == 1 else ", ".join(reasons[:-1])
                      + ", and " + reasons[-1])


def _capitalize(s: str) -> str:
    return s[0].upper() + s[1:]


def _listed(diffs: list[str], capitalize: bool = True, compact: bool = False) -> str:
    """JAX's wording: one difference as a sentence, several as a bulleted list."""
    if len(diffs) == 1:
        return (_capitalize(diffs[0]) if capitalize else diffs[0]) + ".\n"
    if compact:
        return "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"
    return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def _carry_component(body_fun: Callable) -> Callable[[tuple], str]:
    """How the error messages name a part of the carry: after the body's first parameter."""
    try:
        params = list(inspect.signature(body_fun).parameters)
    except (ValueError, TypeError):
        params = []
    name = params[0] if params else None
    if name:
        return lambda p: (f"the input carry component {name}{keystr(p)}" if p
                          else f"the input carry {name}")
    return lambda p: f"the input carry at path {keystr(p)}" if p else "the input carry"


def _check_carry_type(name: str, body_fun: Callable, in_tree: PyTreeDef, in_avals: list,
                      out_tree: PyTreeDef, out_avals: list) -> None:
    """The loop state must keep its pytree structure, shapes and dtypes (JAX's messages)."""
    component = _carry_component(body_fun)
    if in_tree != out_tree:
        diffs = [f"{component(path)} is a {thing1} but the corresponding component of the "
                 f"carry output is a {thing2}, so {why}"
                 for path, thing1, thing2, why in equality_errors(
                     tree_unflatten(in_tree, in_avals), tree_unflatten(out_tree, out_avals))]
        if not diffs:
            return
        raise TypeError(
            f"{name} function carry input and carry output must have the same pytree "
            f"structure, but they differ:\n\n{_listed(diffs)}\nRevise the function so that "
            "the carry output has the same pytree structure as the carry input.")
    paths = [p for p, _ in tree_flatten_with_path(tree_unflatten(in_tree, in_avals))[0]]
    diffs = [f"{component(path)} has type {a.str_short()} but the corresponding output carry "
             f"component has type {b.str_short()}{_mismatch_extra(a, b)}"
             for path, a, b in zip(paths, in_avals, out_avals) if not _typematch(a, b)]
    if diffs:
        raise TypeError(
            f"{name} function carry input and carry output must have equal types, but they "
            f"differ:\n\n{_listed(diffs)}\nRevise the function so that all output types match "
            "the corresponding input types.")


def _promote_weak_typed_input(value: Any, in_aval: ShapedArray, out_aval: ShapedArray
                              ) -> tuple[Any, bool]:
    """A weakly typed initial carry (a Python scalar) may take the body's output dtype.

    ``fori_loop(0, 3, lambda i, x: x + 0.5, 0)`` starts from the int 0 but the
    body makes floats; JAX converts the 0 to float32 and traces the body again.
    """
    if in_aval.weak_type and not _typematch(in_aval, out_aval):
        # result_type reads ``.aval`` from its arguments; out_aval is already one.
        new_dtype = dtypes.result_type(value, types.SimpleNamespace(aval=out_aval))
        return convert_element_type(value, new_dtype), True
    return value, False


class _PytreeLeaf(type):
    def __repr__(cls) -> str:
        return "pytree leaf"


def _treedef_equality_errors(tree1: PyTreeDef, tree2: PyTreeDef) -> list:
    leaf = _PytreeLeaf("Leaf", (), {})()  # str(type(leaf)) == "pytree leaf"
    return list(equality_errors(tree_unflatten(tree1, [leaf] * tree1.num_leaves),
                                tree_unflatten(tree2, [leaf] * tree2.num_leaves)))


def _check_branch_outputs(api: str, name1: str, name2: str, f1: Callable, f2: Callable,
                          tree1: PyTreeDef, avals1: list, tree2: PyTreeDef, avals2: list) -> None:
    """All branches must return the same pytree of the same types (JAX's messages)."""
    header = f"{name1} is {_fun_sourceinfo(f1)}\n{name2} is {_fun_sourceinfo(f2)}\n\n"
    if tree1 != tree2:
        diffs = [f"{name1} output{_at_path(p)} is a {thing1} but {name2} output{_at_path(p)} "
                 f"is a {thing2}, so {why}"
                 for p, thing1, thing2, why in _treedef_equality_errors(tree1, tree2)]
        if not diffs:
            return
        text = _listed(diffs, capitalize=False)
        raise TypeError(f"{api} branch outputs must have the same pytree structure, but they "
                        f"differ:\n\n{header}{text}\nRevise {name1} and/or {name2} so that "
                        "they have the same pytree structure.")
    paths = [p for p, _ in tree_flatten_with_path(tree_unflatten(tree1, avals1))[0]]
    diffs = [f"the output of {name1}{_at_path(p)} has type {a.str_short()} but the "
             f"corresponding output of {name2} has type {b.str_short()}{_mismatch_extra(a, b)}"
             for p, a, b in zip(paths, avals1, avals2) if not _typematch(a, b)]
    if diffs:
        raise TypeError(f"{api} branches must have equal output types but they differ.\n\n"
                        f"{header}{_listed(diffs, compact=True)}\nRevise {name1} and/or {name2} so "
                        "that all output types match.")


def _at_path(path: tuple) -> str:
    return f" at path {keystr(path)}" if path else ""


# ====================================================================== cond and switch

_no_operand = object()  # the default of the old keyword ``operand=``


def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any,
         operand: Any = _no_operand) -> Any:
    """Apply ``true_fun(*operands)`` if ``pred`` is true, else ``false_fun(*operands)``.

    Both functions are traced (so both run once in Python, even when ``pred`` is
    a plain ``True``) and must return the same pytree of the same types. The
    predicate becomes an int32 index, and the branches are stored in index
    order: ``branches=(false_fun's jaxpr, true_fun's jaxpr)``.
    """
    if not (callable(true_fun) and callable(false_fun)):
        # the old calling convention cond(pred, true_operand, true_fun, false_operand, false_fun)
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
            x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
            return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x), x_true, x_false)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _operands(operands, operand)
    pred = _check_pred(pred)
    args, in_tree = tree_flatten(operands)
    avals = [_abstractify(x) for x in args]
    true_jaxpr, true_consts, out_tree = _trace(true_fun, in_tree, avals, "cond")
    false_jaxpr, false_consts, false_tree = _trace(false_fun, in_tree, avals, "cond")
    (true_jaxpr, false_jaxpr), consts = _merge_common_consts(
        [true_jaxpr, false_jaxpr], [true_consts, false_consts])
    _check_branch_outputs("cond", "true_fun", "false_fun", true_fun, false_fun,
                          out_tree, true_jaxpr.out_avals, false_tree, false_jaxpr.out_avals)
    # An output that both branches take straight from the same input is not
    # computed by the cond: it is that input.
    in_fwd = [i if i == j else None for i, j in zip(_forwarding(true_jaxpr.jaxpr),
                                                    _forwarding(false_jaxpr.jaxpr))]
    keep = [f is None for f in in_fwd]
    branches = (_prune_outputs(false_jaxpr, keep), _prune_outputs(true_jaxpr, keep))
    index = convert_element_type(pred, np.int32)
    outs = cond_p.bind(index, *consts, *args, branches=branches)
    return tree_unflatten(out_tree, _forwarded(outs, in_fwd, [*consts, *args]))


def _operands(operands: tuple, operand: Any) -> tuple:
    if operand is _no_operand:
        return operands
    if operands:
        raise TypeError("if 'operand' keyword is passed then no positional operands can be "
                        f"passed, got operand={operand!r} and positional operands {operands}")
    return (operand,)


def _check_pred(pred: Any) -> Any:
    """A scalar bool, or a number compared with 0 (JAX's checks and messages)."""
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence) or np.ndim(pred) != 0:
        raise TypeError(f"Pred must be a scalar, got {pred} of "
                        + (f"type {type(pred)}" if isinstance(pred, Sequence)
                           else f"shape {np.shape(pred)}."))
    try:
        dtype = dtypes.result_type(pred)
    except TypeError:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from None
    if dtype.kind == "b":
        return pred
    if dtype.kind in "iuf":
        return pred != 0
    raise TypeError(f"Pred type must be either boolean or number, got {dtype}.")


def _forwarded(outs: list, in_fwd: list, inputs: list) -> list:
    """Put the forwarded inputs back among the primitive's outputs."""
    outs_it = iter(outs)
    return [next(outs_it) if f is None else _asarray(inputs[f]) for f in in_fwd]


def switch(index: Any, branches: Sequence[Callable], *operands: Any,
           operand: Any = _no_operand) -> Any:
    """Apply ``branches[index](*operands)``; an out-of-range index is clamped.

    Like ``cond`` (which is the two-branch case), every branch is traced and they
    must all return the same types.
    """
    if not all(callable(branch) for branch in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _operands(operands, operand)
    if len(np.shape(index)) != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {np.shape(index)}.")
    try:
        index_dtype = dtypes.result_type(index)
    except TypeError:
        raise TypeError(f"Index type must be an integer, got {index}.") from None
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = convert_element_type(index, np.int32)
    index = clamp(np.array(0, np.int32), index, np.array(len(branches) - 1, np.int32))
    return _switch(index, branches, operands)


def _switch(index: Any, branches: tuple[Callable, ...], operands: tuple) -> Any:
    args, in_tree = tree_flatten(operands)
    avals = [_abstractify(x) for x in args]
    traced = [_trace(branch, in_tree, avals, "switch") for branch in branches]
    jaxprs, consts = _merge_common_consts([t[0] for t in traced], [t[1] for t in traced])
    trees = [t[2] for t in traced]
    for i in range(1, len(branches)):
        _check_branch_outputs("switch", "branch 0", f"branch{i}", branches[0], branches[i],
                              trees[0], jaxprs[0].out_avals, trees[i], jaxprs[i].out_avals)
    fwds = [_forwarding(j.jaxpr) for j in jaxprs]
    in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds)]
    keep = [f is None for f in in_fwd]
    jaxprs = tuple(_prune_outputs(j, keep) for j in jaxprs)
    outs = cond_p.bind(index, *consts, *args, branches=jaxprs)
    return tree_unflatten(trees[0], _forwarded(outs, in_fwd, [*consts, *args]))


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
