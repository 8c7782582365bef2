"""What cond, while and scan share: running a sub-jaxpr, helpers for their rules, jaxpr
surgery (forwarding, pruning, dead code, merging constants) and the type checks behind JAX's
error messages."""
from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from edujax import core, dtypes
from edujax.array import Array
from edujax.core import ShapedArray, Tracer
from edujax.interpreters import ad
from edujax.interpreters.partial_eval import forwarding_rules, trace_to_jaxpr
from edujax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr, jaxpr_as_fun
from edujax.lax.base import convert_element_type
from edujax.lax.control_flow.tracing import _fun_sourceinfo, _with_jaxpr
from edujax.tree_util import (PyTreeDef, equality_errors, keystr, tree_flatten_with_path,
                              tree_unflatten)


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


# ---------------------------------------------------------------------- jaxpr surgery
# JAX tidies the traced jaxprs before binding: outputs that merely hand back an
# input are not computed by the primitive, and loop state that never changes is
# turned into a constant. We do the same, so that the printed jaxprs match.

def _forwarding(jaxpr: Jaxpr) -> list[int | None]:
    """For each output, the index of the input it merely passes on (or None)."""
    source: dict[Var, Var] = {v: v for v in jaxpr.invars}
    for eqn in jaxpr.eqns:
        rule = forwarding_rules.get(eqn.primitive)
        x = eqn.invars[0] if eqn.invars else None
        if rule is not None and type(x) is Var and rule(x.aval, **eqn.params):
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
