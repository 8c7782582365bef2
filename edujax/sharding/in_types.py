"""Shardings in types: which sharding each primitive gives its output, and ShardingTypeError.

With Explicit mesh axes (JAX 0.10's default) the sharding is part of an array's type:
``float32[8@x,4@y]`` is an 8x4 array whose rows are split over mesh axis ``x`` and columns
over ``y``. Every primitive then decides its output's sharding from its inputs' at trace
time, before anything runs, by the rules below (JAX keeps one per primitive, next to its
shape rule; here they sit together so they can be read as one lesson):

* elementwise (``add``, ``sin``...): the inputs' specs must agree dimension by dimension
  (a dimension sharded in one input and not in the other takes the sharding); two
  different axes on one dimension is a ``ShardingTypeError``;
* reductions drop the reduced dimensions' entries; ``transpose`` permutes them;
  ``broadcast_in_dim`` keeps the operand's and leaves new dimensions whole;
* ``dot_general``: batch and free dimensions keep their sharding; a sharded contracting
  dimension means every device holds only part of each sum, so the output would need a
  collective whose result layout is a choice: a ``ShardingTypeError`` asking for
  ``out_sharding``;
* ``reshard`` gives exactly the sharding asked for.

Other primitives whose output shape differs from their inputs' give a whole (replicated)
output: edujax's simplification where JAX has a rule per primitive.

Inside ``shard_map`` a type also records the mesh axes along which the value differs from
device to device (``vma``, printed ``{V:x}``): elementwise ops join them, a ``psum`` over an
axis removes it (the result is the same everywhere).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax.abstract_arrays import ShapedArray
from edujax.sharding.mesh import AxisType
from edujax.sharding.named_sharding import NamedSharding
from edujax.sharding.partition_spec import PartitionSpec, axes_of


class ShardingTypeError(Exception):
    """An operation whose output sharding cannot be decided from its inputs' types."""


ShardingTypeError.__module__ = "jax._src.core"  # where JAX defines it (tracebacks name it)


# ------------------------------------------------------------------ the hook
def with_sharding_and_vma(prim: Any, avals: list, params: dict, out: Any) -> Any:
    """``out`` (the shape rule's aval or avals) with the sharding and vma rules applied."""
    outs = list(out) if prim.multiple_results else [out]
    sharded = [a for a in avals if getattr(a, "sharding", None) is not None]
    if sharded:
        rule = sharding_rules.get(prim.name, _same_shape_rule)
        shardings = [rule(prim, avals, params, o) for o in outs]
    else:
        shardings = [None] * len(outs)
    new = [o.update(sharding=s) if s is not None else o for o, s in zip(outs, shardings)]
    vma = vma_rules.get(prim.name, _joined_vma)(avals, params)
    if prim.name in vma_rules or not _carries_jaxpr(params):
        new = [_set_vma(o, vma) for o in new]
    else:  # a jit, cond or scan: its own jaxpr's psums may have made an output invariant
        new = [_set_vma(o, frozenset(getattr(o, "vma", frozenset())) & vma) for o in new]
    return new if prim.multiple_results else new[0]


def _carries_jaxpr(params: dict) -> bool:
    """Whether an equation's parameters hold a jaxpr (Jaxpr has ``eqns``, ClosedJaxpr
    ``jaxpr``; this module sits below both, so it asks by attribute)."""
    def is_jaxpr(v: Any) -> bool:
        return hasattr(v, "eqns") or hasattr(v, "jaxpr")
    return any(is_jaxpr(v) or (isinstance(v, tuple) and any(map(is_jaxpr, v)))
               for v in params.values())


def _set_vma(aval: ShapedArray, vma: frozenset) -> ShapedArray:
    if aval.vma == vma or not isinstance(aval, ShapedArray):
        return aval
    new = aval.update()
    new.vma = vma
    return new



# ------------------------------------------------------------------ sharding rules
def _spec(aval: ShapedArray) -> tuple:
    """One entry per dimension: the mesh axes a dimension is split over (None if whole)."""
    if aval.sharding is None:
        return (None,) * len(aval.shape)
    return aval.sharding.spec.padded(len(aval.shape))


def _first_sharding(avals: list) -> NamedSharding:
    return next(a.sharding for a in avals if getattr(a, "sharding", None) is not None)


def _make(avals: list, spec: tuple) -> NamedSharding:
    """(Trailing whole dimensions are left out, as JAX's types write ``P('x',)``.)"""
    spec = list(spec)
    while spec and spec[-1] is None:
        spec.pop()
    return _first_sharding(avals).with_spec(PartitionSpec(*spec))


def _same_shape_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    """Elementwise: agree dimension by dimension. A primitive that changes the shape and has
    no rule here gives a whole output (see the module docstring)."""
    same = [a for a in avals if len(getattr(a, "shape", ())) == len(out.shape) and a.shape]
    if not same or any(len(a.shape) != len(out.shape) for a in avals
                       if getattr(a, "shape", ())):
        return None
    specs = [_spec(a) for a in same]
    joined = []
    for d, entries in enumerate(zip(*specs)):
        # (a dimension of size 1 broadcast against a longer one does not decide its layout)
        named = {e for a, e in zip(same, entries) if e is not None
                 and a.shape[d] == out.shape[d]}
        if len(named) > 1:
            shown = ", ".join(repr(tuple(s)) for s in specs)
            raise ShardingTypeError(
                f"{prim.name} got incompatible shardings for broadcasting: {shown}.")
        joined.append(named.pop() if named else None)
    used = [a for e in joined for a in axes_of(e) if _explicit(avals, a)]
    if len(used) != len(set(used)):  # one mesh axis cannot split two dimensions
        shown = ", ".join(a.str_short(True) for a in avals if getattr(a, "shape", ()))
        result = out.update(sharding=_first_sharding(avals).with_spec(PartitionSpec(*joined)))
        raise ShardingTypeError(f"{prim.name} operation with inputs: {shown} produces an "
                                f"illegally sharded result: {result.str_short(True)}")
    return _make(avals, joined)


def _reduction_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    axes = set(params.get("axes", ()))
    spec = [e for d, e in enumerate(_spec(avals[0])) if d not in axes]
    return _make(avals, spec)


def _transpose_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    spec = _spec(avals[0])
    return _make(avals, [spec[d] for d in params["permutation"]])


def _broadcast_in_dim_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    spec = [None] * len(out.shape)
    for src, dst in enumerate(params["broadcast_dimensions"]):
        if avals[0].shape[src] == out.shape[dst]:
            spec[dst] = _spec(avals[0])[src]
    return _make(avals, spec)


def _dot_general_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    lhs, rhs = avals[0], avals[1]
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    ls, rs = _spec(lhs), _spec(rhs)
    wanted = params.get("out_sharding")
    if wanted is not None:
        return wanted.abstract() if isinstance(wanted, NamedSharding) else _make(avals, wanted)
    contracted = [ls[d] for d in lc] + [rs[d] for d in rc]
    if any(_explicit(avals, e) for e in contracted):
        raise ShardingTypeError(
            "Contracting dimensions are sharded and it is ambiguous how the output should be "
            "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
            f"lhs_contracting_spec={tuple(ls[d] for d in lc)} and "
            f"rhs_contracting_spec={tuple(rs[d] for d in rc)}")
    free_l = [ls[d] for d in range(len(ls)) if d not in lc and d not in lb]
    free_r = [rs[d] for d in range(len(rs)) if d not in rc and d not in rb]
    return _make(avals, [ls[d] for d in lb] + free_l + free_r)


def _reshape_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    """A reshape keeps a layout when it splits one dimension into several or merges several
    into one (or only adds or drops dimensions of size 1), and the mesh axes still divide
    the sizes: ``f32[8@x,4] -> f32[32@x]``, ``f32[8@x,4@y] -> f32[32@(x,y)]``. Anything
    else would move data between devices: a ``ShardingTypeError`` asking for
    ``out_sharding`` (as JAX's rule; edujax groups the dimensions more simply)."""
    if params.get("sharding") is not None:
        return params["sharding"].abstract()
    operand, spec, new = avals[0], _spec(avals[0]), tuple(params["new_sizes"])
    if all(e is None for e in spec):
        return _make(avals, [])
    if [n for n in operand.shape if n != 1] == [n for n in new if n != 1]:
        kept = iter(e for n, e in zip(operand.shape, spec) if n != 1)
        return _make(avals, [None if n == 1 else next(kept) for n in new])
    mesh = _first_sharding(avals).mesh
    groups = _reshape_groups(operand.shape, new)
    changed = [g for g in groups if len(g[0]) != 1 or len(g[1]) != 1]
    if len(changed) != 1 or params.get("dimensions") is not None or \
            (len(changed[0][0]) > 1 and len(changed[0][1]) > 1):
        raise _reshape_error(operand, new)
    out_spec: list = []
    for old_dims, new_dims in groups:
        merged = [spec[d] for d in old_dims]
        while merged and merged[-1] is None:
            merged.pop()
        if None in merged:  # (a whole dimension before a split one: blocks would interleave)
            raise _reshape_error(operand, new)
        axes = [a for e in merged for a in axes_of(e)]
        out_spec += _split_axes(axes, [new[d] for d in new_dims], mesh, operand, new)
    return _make(avals, out_spec)


def _reshape_groups(old: tuple, new: tuple) -> list[tuple[list, list]]:
    """Consecutive dimensions of ``old`` and ``new`` with equal products, paired: (8, 4) to
    (32,) is ``[([0, 1], [0])]``; (8, 4) to (8, 2, 2) is ``[([0], [0]), ([1], [1, 2])]``."""
    groups, i, j = [], 0, 0
    while i < len(old) or j < len(new):
        olds, news = [i], [j]
        a, b = old[i] if i < len(old) else 1, new[j] if j < len(new) else 1
        while a != b:
            if a < b:
                i += 1
                olds.append(i)
                a *= old[i]
            else:
                j += 1
                news.append(j)
                b *= new[j]
        groups.append(([d for d in olds if d < len(old)], [d for d in news if d < len(new)]))
        i, j = i + 1, j + 1
    return groups


def _split_axes(axes: list, sizes: list, mesh: Any, operand: Any, new: tuple) -> list:
    """The mesh axes of one (merged) dimension dealt out to the new dimensions, major first,
    each axis dividing what is left of its dimension."""
    out, it = [], iter(axes)
    for size in sizes:
        taken = []
        while size > 1:
            axis = next(it, None)
            if axis is None:
                break
            size, left = divmod(size, mesh.shape[axis])
            if left:
                raise _reshape_error(operand, new)
            taken.append(axis)
        out.append(None if not taken else taken[0] if len(taken) == 1 else tuple(taken))
    if next(it, None) is not None:
        raise _reshape_error(operand, new)
    return out


def _reshape_error(operand: Any, new: tuple) -> ShardingTypeError:
    return ShardingTypeError(
        "This reshape is not supported. Please specify the sharding of the output via the "
        f"`out_sharding` argument of jax.lax.reshape. Got operand type: {operand}, new sizes: "
        f"{new}")


def _explicit(avals: list, entry: Any) -> bool:
    mesh = _first_sharding(avals).mesh
    return any(mesh.axis_type(a) == AxisType.Explicit for a in axes_of(entry))


def _reshard_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    return params["sharding"].abstract()


def _sharding_constraint_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    """The constraint's layout. (On Auto axes JAX's compiler hands the layout back in its own
    form, without trailing whole dimensions: ``P('x', None)`` comes back ``P('x',)``.)"""
    sharding = params["sharding"].abstract()
    spec = list(sharding.spec)
    while spec and spec[-1] is None:
        spec.pop()
    return sharding.with_spec(PartitionSpec(*spec))


def _squeeze_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    dims = set(params["dimensions"])
    return _make(avals, [e for d, e in enumerate(_spec(avals[0])) if d not in dims])


def _slice_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    """Under jit, ``x[2:6]`` is a ``slice``: every device keeps its part of a split dimension
    cut to the new size, so that size must still divide evenly over the dimension's axes.
    (Eager indexing of an array on several devices is a gather instead, as in JAX.)"""
    operand, spec = avals[0], _spec(avals[0])
    mesh = _first_sharding(avals).mesh
    for n, m, e in zip(operand.shape, out.shape, spec):
        parts = int(np.prod([mesh.shape[a] for a in axes_of(e)] or [1]))
        if n != m and _explicit(avals, e) and m % parts:
            raise ShardingTypeError(
                f"{'slicing' if prim.name == 'slice' else prim.name}"
                f" on sharded dims where out dim ({m}) is not divisible by mesh axes ({parts})"
                f" with spec ({_entry_str(e)}) is not implemented. Got input "
                f"type={operand.str_short(True)} and output shape={out.shape}")
    return _make(avals, spec)


def _entry_str(entry: Any) -> str:
    return ", ".join(axes_of(entry))


def _gather_rule(prim: Any, avals: list, params: dict, out: ShapedArray) -> Any:
    """The dimensions a gather slices into must be whole on every device; the others keep
    their layout in the output, where the gather's offset dimensions put them."""
    operand, spec = avals[0], _spec(avals[0])
    dnums, sizes = params["dimension_numbers"], params["slice_sizes"]
    sliced = [d for d in dnums.start_index_map if sizes[d] != operand.shape[d]]
    if any(_explicit(avals, spec[d]) for d in sliced) or dnums.operand_batching_dims:
        raise ShardingTypeError(
            "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
            "indexing as out sharding could not be resolved unambiguously (or would require "
            f"collectives on inputs). Got operand={operand!r}, indices={_indices(avals)}")
    kept = [spec[d] for d in range(len(spec)) if d not in dnums.collapsed_slice_dims]
    out_spec: list = [None] * len(out.shape)
    for d, e in zip(dnums.offset_dims, kept):
        out_spec[d] = e
    return _make(avals, out_spec)


def _indices(avals: list) -> str:
    """The indices as JAX's gather sees them: edujax slices with static starts, where JAX
    gathers with one int32 index per indexed dimension."""
    return repr(avals[1]) if len(avals) > 1 else "ShapedArray(int32[1])"


sharding_rules: dict[str, Callable] = {
    "shard_map": lambda prim, avals, params, out: out.sharding,  # its out_specs decided it
    "reduce_sum": _reduction_rule, "reduce_max": _reduction_rule,
    "reduce_min": _reduction_rule, "reduce_prod": _reduction_rule,
    "reduce_and": _reduction_rule, "reduce_or": _reduction_rule,
    "argmax": _reduction_rule, "argmin": _reduction_rule,
    "transpose": _transpose_rule, "broadcast_in_dim": _broadcast_in_dim_rule,
    "dot_general": _dot_general_rule, "reshard": _reshard_rule,
    "sharding_constraint": _sharding_constraint_rule, "squeeze": _squeeze_rule,
    "gather": _gather_rule, "slice": _slice_rule, "dynamic_slice": _slice_rule,
    "reshape": _reshape_rule,
}


# ------------------------------------------------------------------ varying axes (shard_map)
def _joined_vma(avals: list, params: dict) -> frozenset:
    vma: frozenset = frozenset()
    for a in avals:
        vma = vma | getattr(a, "vma", frozenset())
    return vma


def _reduced_vma(avals: list, params: dict) -> frozenset:
    return _joined_vma(avals, params) - set(params["axes"])


vma_rules: dict[str, Callable] = {
    "psum": _reduced_vma, "pmax": _reduced_vma, "pmin": _reduced_vma,
    "psum_invariant": _reduced_vma,
    "pvary": lambda avals, params: _joined_vma(avals, params) | frozenset(params["axes"]),
    "shard_map": lambda avals, params: frozenset(),  # outside the body, nothing is manual
}
