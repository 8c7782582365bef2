"""``cond`` and ``switch``: the ``cond`` primitive, which runs the branch picked by an index.

The primitive's block comes first (abstract evaluation, reference rule, JVP, partial
evaluation, transpose, batching), then the functions users call, which trace the branches,
check that their outputs agree, and bind it.
"""
from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.interpreters import partial_eval as pe
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.interpreters.partial_eval_jaxpr import partial_eval_jaxpr
from edujax.jaxpr import ClosedJaxpr, Var, eval_jaxpr
from edujax.lax.base import broadcast_in_dim, convert_element_type, empty_like_aval
from edujax.lax.elementwise import clamp, eq, select_n
from edujax.lax.special import stop_gradient
from edujax.lax.control_flow.common import (_asarray, _axis_size, _batch_dims,
                                            _check_branch_outputs, _eval_closed, _fill_zeros,
                                            _forwarding, _jvp_jaxpr, _merge, _merge_common_consts,
                                            _nonzero, _partition, _prune_outputs, _split,
                                            _typematch)
from edujax.lax.control_flow.tracing import _abstractify, _trace, _with_jaxpr
from edujax.tree_util import tree_flatten, tree_unflatten


# ====================================================================== cond_p
# ``cond index *consts *operands``: branches[index] runs on (*consts, *operands).
# Every branch takes the same inputs and returns the same types, so the output
# types are those of any branch (JAX takes branch 0's).
#
# A cond made by ``platform_dependent`` has one more parameter, ``branches_platforms``:
# which platforms each branch is for (None: the default), and its index comes from
# ``platform_index``. Every rule below passes it on unchanged (``**params``).
cond_p = Primitive("cond")
cond_p.multiple_results = True


def _cond_abstract_eval(index: ShapedArray, *args: ShapedArray,
                        branches: tuple[ClosedJaxpr, ...], **params) -> list[ShapedArray]:
    # NB: JAX makes these checks in its jaxpr typechecker and raises core.JaxprTypeError.
    if index.dtype != np.int32:
        raise TypeError(f"cond called with index of type {index.dtype} instead of int32")
    for branch in branches:
        if len(branch.in_avals) != len(args):
            raise TypeError(f"cond called with {len(args)} non-predicate operands, but "
                            f"branches take {len(branch.in_avals)} inputs")
    return list(branches[0].out_avals)


def _cond_impl(index: np.ndarray, *args: Any, branches: tuple[ClosedJaxpr, ...],
               **params) -> list:
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

def _cond_jvp(primals, tangents, *, branches, **params):
    (index, *ops), (_, *op_dots) = primals, tangents
    ops_nz = [type(t) is not ad.Zero for t in op_dots]
    per_branch = [_jvp_jaxpr(branch, ops_nz, False)[1] for branch in branches]
    out_nz = [builtins.any(nzs) for nzs in zip(*per_branch)]
    branches_jvp = tuple(_jvp_jaxpr(branch, ops_nz, out_nz)[0] for branch in branches)
    outs = cond_p.bind(index, *ops, *_nonzero(op_dots), branches=branches_jvp, **params)
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

def _cond_partial_eval(trace, index, *ops, branches, **params):
    if trace.is_unknown(index):  # (never while linearizing: the index is a primal)
        return trace.staging.process_primitive(cond_p, [index, *ops],
                                               dict(branches=branches, **params))
    ops_uk = [trace.is_unknown(x) for x in ops]
    last = trace.residuals_last  # (JAX: _cond_linearize, or _cond_partial_eval)
    per_branch = [partial_eval_jaxpr(branch, ops_uk, residuals_last=last).out_unknowns
                  for branch in branches]
    out_uk = [builtins.any(uks) for uks in zip(*per_branch)]
    splits = [partial_eval_jaxpr(branch, ops_uk, instantiate=out_uk, residuals_last=last)
              for branch in branches]
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
            known_outs_res = cond_p.bind(index, *known_ops, branches=known_branches, **params)
    known_outs, residuals = _split(known_outs_res, [num_known_out])
    unknown_outs = []
    if builtins.any(out_uk):
        with core.set_current_trace(trace.staging):
            unknown_outs = cond_p.bind(index, *residuals, *unknown_ops,
                                       branches=unknown_branches, **params)
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
    """A known branch returning ``[*outs, *all residuals]``, with values nobody reads
    (``empty2``, as in JAX) in the other branches' slots."""
    if slots == list(range(len(all_res_avals))):
        return known

    def fun(*args):
        outs, own_res = _split(eval_jaxpr(known.jaxpr, known.consts, *args), [num_out])
        res: list = [None] * len(all_res_avals)
        for slot, r in zip(slots, own_res):
            res[slot] = r
        res = [empty_like_aval(a) if r is None else r for r, a in zip(res, all_res_avals)]
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


pe.partial_eval_rules[cond_p] = _cond_partial_eval
# Only the printed jaxpr depends on these two (see ad.py, partial_eval.py):
ad.linearized_directly.add(cond_p)
pe.split_even_if_known.add(cond_p)


# ---------------------------------------------------------------------- cond: transpose
# In the linear jaxpr a cond takes the index and residuals (known) and tangents
# (linear). Its transpose is a cond over the transposed branches: the same
# index picks the branch whose transpose maps the output cotangents back to
# the linear operands' cotangents.

def _cond_transpose(cts, index, *args, branches, **params):
    linear = [ad.is_undefined_primal(x) for x in args]
    residuals = [x for x, lin in zip(args, linear) if not lin]
    cts_nz = [type(ct) is not ad.Zero for ct in cts]
    avals = [core.get_aval(x) for x in [*residuals, *_nonzero(cts)]]
    branches_t = tuple(_transpose_branch(branch, linear, cts_nz, avals) for branch in branches)
    cts_in = cond_p.bind(index, *residuals, *_nonzero(cts), branches=branches_t, **params)
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

def _cond_batch(args, dims, *, branches, **params):
    size = _axis_size(args, dims)
    if dims[0] is not None and "branches_platforms" in params:
        # A platform's index is the same for every example: ask for it afresh, unbatched.
        args = [platform_index_p.bind(platforms=params["branches_platforms"]), *args[1:]]
        dims = [None, *dims[1:]]
    if dims[0] is not None:
        return _cond_batch_as_select(args, dims, size, branches)
    (index, *ops), (_, *op_dims) = args, dims
    ops = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(ops, op_dims)]
    in_dims = _batch_dims([d is not None for d in op_dims])
    per_branch = [batching.batch_jaxpr(branch, size, in_dims)[1] for branch in branches]
    out_dims = _batch_dims([builtins.any(d is not None for d in ds) for ds in zip(*per_branch)])
    batched = tuple(batching.batch_jaxpr(branch, size, in_dims, out_dims)[0]
                    for branch in branches)
    return cond_p.bind(index, *ops, branches=batched, **params), out_dims


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


def _switch(index: Any, branches: tuple[Callable, ...], operands: tuple,
            **params: Any) -> Any:
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
    outs = cond_p.bind(index, *consts, *args, branches=jaxprs, **params)
    return tree_unflatten(trees[0], _forwarded(outs, in_fwd, [*consts, *args]))


# ====================================================================== platform_dependent
# ``platform_index[platforms=...]`` is the index of the entry of ``platforms`` that lists
# the platform the program runs on (None marks the default entry). XLA resolves it when it
# compiles for a platform, so a compiler never sees the cond it feeds.
# NB: edujax's reference rule answers for "cpu" whatever the backend; a platform_dependent
# program run by the CUDA backend takes its "cpu" (or default) branch too.
platform_index_p = Primitive("platform_index")
_PLATFORM = "cpu"


def _platform_index_impl(*, platforms: tuple) -> np.ndarray:
    for i, names in enumerate(platforms):
        if names is not None and _PLATFORM in names:
            return np.int32(i)
    if None in platforms:
        return np.int32(platforms.index(None))
    raise NotImplementedError(f"lax.platform_dependent: no branch for the {_PLATFORM} "
                              "platform and no default")


core.abstract_eval_rules[platform_index_p] = lambda **params: ShapedArray((), np.int32)
core.impl_rules[platform_index_p] = _platform_index_impl
batching.batching_rules[platform_index_p] = lambda args, dims, **params: (
    platform_index_p.bind(**params), None)


def platform_dependent(*args: Any, default: Callable | None = None,
                       **per_platform: Callable) -> Any:
    """``per_platform[platform](*args)`` for the platform the program runs on, else
    ``default(*args)``: ``platform_dependent(x, cpu=f, cuda=g, default=h)``.

    Run eagerly, it calls the one branch. Traced, every branch is traced and a ``cond``
    picks among them with the index ``platform_index`` computes (as in JAX).
    """
    grouped: list[tuple[list[str], Callable]] = []  # a branch given for several platforms
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        for names, b in grouped:
            if b == branch:
                names.append(name)
                break
        else:
            grouped.append(([name], branch))
    platforms: tuple = tuple(tuple(names) for names, _ in grouped)
    branches = tuple(b for _, b in grouped)
    if default is not None:
        if not callable(default):
            raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
        branches, platforms = branches + (default,), platforms + (None,)
    index = platform_index_p.bind(platforms=platforms)
    if not isinstance(index, core.Tracer):
        return branches[int(index)](*args)
    return _switch(index, branches, args, branches_platforms=platforms)
