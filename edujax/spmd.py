"""jit on sharded arrays: the program each device runs, and where the collectives come from.

A jitted function is written for whole (global) arrays: ``(x * 2).sum(axis=0)`` with ``x`` a
``f32[8@x,4@y]``. The devices of the mesh each hold one block of ``x``, so the compiler (XLA's
SPMD partitioner in JAX) rewrites the program into one that every device runs on its own
block, the program a ``shard_map`` body would be. Each equation becomes:

* the same operation on the blocks, when every operand's block is all that is needed
  (``mul``: each device multiplies its own block);
* plus a collective when a reduction crosses a sharded dimension: ``reduce_sum`` over rows
  split along ``x`` sums each device's rows, then ``psum`` over ``x`` adds the partial sums
  of the devices in a column (an all-reduce); ``dot_general`` over a split contracting
  dimension is the same story;
* an ``all_gather`` when an operation needs a dimension whole that is split, and a local
  slice (``dynamic_slice`` at ``axis_index``: no communication) when a whole dimension must
  become split (``reshard``, or adding a replicated array to a sharded one).

``partition`` builds that per-device jaxpr by interpreting the global one on block-shaped
tracers; ``PerDeviceExecutable`` runs it on every device's blocks (threads, as shard_map
does) and is what ``jax.jit(f).lower(x).compile()`` holds for sharded inputs: its
``as_text()`` prints the per-device program. A program this file cannot partition (an
operation without a rule here) runs on whole arrays instead, as before.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax import core
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import ClosedJaxpr, Jaxpr, Literal
from edujax.lax import parallel
from edujax.lax.dynamic_slicing import dynamic_slice
from edujax.lax.parallel import named_axes
from edujax.lax.parallel_more import psum_scatter
from edujax.sharding.mesh import AxisType
from edujax.shard_map import _shard_map_impl
from edujax.sharding.partition_spec import PartitionSpec, axes_of
from edujax.tree_util import tree_flatten


class CannotPartition(Exception):
    """An equation this file has no per-device rule for: run on whole arrays instead."""


# ------------------------------------------------------------------ which programs
def mesh_of(closed: ClosedJaxpr) -> Any:
    """The (concrete) mesh of a jaxpr whose inputs or outputs are split over devices."""
    for aval in [*closed.in_avals, *closed.out_avals]:
        sharding = getattr(aval, "sharding", None)
        if sharding is not None and any(e is not None for e in sharding.spec):
            mesh = sharding.concrete().mesh
            # On Auto axes JAX's partitioner chooses the layouts (the types do not show
            # them); edujax's choice is the one its sharding rules give, the same rules as
            # on Explicit axes. (Manual axes are shard_map's: its own equation runs them.)
            if mesh.size > 1 and AxisType.Manual not in mesh.axis_types:
                return mesh
    return None


def _spec(aval: Any) -> tuple:
    sharding = getattr(aval, "sharding", None)
    entries = sharding.spec.padded(len(aval.shape)) if sharding is not None else ()
    return tuple(entries) or (None,) * len(aval.shape)


def _block_shape(shape: tuple, spec: tuple, mesh: Any) -> tuple:
    return tuple(n // _parts(e, mesh) for n, e in zip(shape, spec))


def _parts(entry: Any, mesh: Any) -> int:
    return int(np.prod([mesh.shape[a] for a in axes_of(entry)] or [1]))


# ------------------------------------------------------------------ the partitioner
def partition(closed: ClosedJaxpr, mesh: Any) -> ClosedJaxpr:
    """The per-device program: the global jaxpr interpreted on one device's blocks."""
    for a in [*closed.in_avals, *closed.out_avals]:
        named = [n for e in _spec(a) for n in axes_of(e)]
        if len(named) != len(set(named)):
            raise CannotPartition(f"a mesh axis named twice in {_spec(a)}")
    blocks = [core.ShapedArray(_block_shape(a.shape, _spec(a), mesh), a.dtype, a.weak_type)
              for a in closed.in_avals]

    def per_device(*args: Any) -> list:
        return _interpret(closed, list(args), mesh)
    with named_axes(mesh.shape.items()):
        per, _ = trace_to_jaxpr(_flat(per_device), blocks)
    return per


def _flat(f: Callable) -> Callable:
    """``f`` as trace_to_jaxpr wants it: flat arguments in, (flat outputs, tree) out."""
    def flat(*args: Any) -> Any:
        return tree_flatten(f(*args))
    return flat


def _interpret(closed: ClosedJaxpr, args: list, mesh: Any) -> list:
    env: dict = {}

    def read(v: Any) -> Any:
        return v.val if isinstance(v, Literal) else env[v]
    for v, c in zip(closed.jaxpr.constvars, closed.consts):
        env[v] = _to_spec(c, (None,) * np.ndim(c), _spec(v.aval), mesh)
    env.update(zip(closed.jaxpr.invars, args))
    for eqn in closed.jaxpr.eqns:
        rule = rules.get(eqn.primitive.name, _local_rule)
        outs = rule(eqn, [read(v) for v in eqn.invars], mesh)
        for v, out in zip(eqn.outvars, outs):
            want = _block_shape(v.aval.shape, _spec(v.aval), mesh)
            if tuple(np.shape(out)) != want:
                raise CannotPartition(f"{eqn.primitive.name}: block {np.shape(out)} != {want}")
            env[v] = out
    return [read(v) for v in closed.jaxpr.outvars]


def _to_spec(x: Any, have: tuple, want: tuple, mesh: Any) -> Any:
    """A block laid out as ``have`` turned into one laid out as ``want``, dimension by
    dimension: a split dimension that must be whole is gathered (``all_gather``, the
    collective); a whole one that must be split is sliced at this device's place (local)."""
    changed = [d for d, (h, w) in enumerate(zip(have, want)) if h != w]
    if any(len(axes_of(have[d])) > 1 or len(axes_of(want[d])) > 1 for d in changed):
        raise CannotPartition("a dimension split over several mesh axes at once")
    # Gather first, then slice: once a device has sliced by its place along an axis, its
    # neighbours along that axis hold different data, and gathering across them would mix.
    for d in changed:
        if have[d] is not None:
            x = parallel.all_gather(x, axes_of(have[d])[0], axis=d, tiled=True)
    for d in changed:
        if want[d] is not None:
            (axis,) = axes_of(want[d])
            size = np.shape(x)[d] // mesh.shape[axis]
            starts = [0] * np.ndim(x)
            starts[d] = parallel.axis_index(axis) * size
            sizes = list(np.shape(x))
            sizes[d] = size  # (in bounds by construction: no negative-index fix-up needed)
            x = dynamic_slice(x, starts, sizes, allow_negative_indices=False)
    return x


def _sum_parts(x: Any, crossed: tuple, have: tuple, want: tuple, mesh: Any,
               collective: Callable = parallel.psum) -> tuple[Any, tuple]:
    """Add the partial results of the devices along ``crossed``. When the output is to be
    split along that same (one) axis, each device needs only its block of the sum: a
    reduce-scatter (``psum_scatter``) instead of an all-reduce (``psum``) and a slice."""
    if len(crossed) == 1 and collective is parallel.psum and crossed[0] in want:
        d = want.index(crossed[0])
        if have[d] is None:
            out = psum_scatter(x, crossed[0], scatter_dimension=d, tiled=True)
            return out, tuple(crossed[0] if i == d else e for i, e in enumerate(have))
    return collective(x, crossed), have


def _local_params(eqn: Any, mesh: Any) -> dict:
    """The equation's params for one device's blocks: shapes are block shapes, and the
    blocks carry no sharding of their own."""
    params = dict(eqn.params)
    out = eqn.outvars[0].aval if eqn.outvars else None
    for key in ("shape", "new_sizes"):
        if key in params and out is not None:
            params[key] = _block_shape(out.shape, _spec(out), mesh)
    for key in ("sharding", "out_sharding"):
        if key in params:
            params[key] = None
    return params


def _local_rule(eqn: Any, ins: list, mesh: Any) -> list:
    """Elementwise and friends: operands of the output's rank are laid out as the output
    first (a replicated operand is sliced), then each device computes its block."""
    if any(isinstance(v, (Jaxpr, ClosedJaxpr)) for v in eqn.params.values()):
        raise CannotPartition(f"{eqn.primitive.name} has a sub-jaxpr")
    out = eqn.outvars[0].aval
    want = _spec(out)
    ins = [_to_spec(x, _spec(v.aval), _broadcast_want(v.aval.shape, out.shape, want), mesh)
           if len(getattr(v.aval, "shape", ())) == len(out.shape) and out.shape else
           _whole(x, v.aval, mesh) for x, v in zip(ins, eqn.invars)]
    if eqn.primitive.name not in _ELEMENTWISE_SAFE and any(e is not None for e in want):
        raise CannotPartition(f"{eqn.primitive.name} on a split output")
    res = eqn.primitive.bind(*ins, **_local_params(eqn, mesh))
    return res if eqn.primitive.multiple_results else [res]


def _broadcast_want(shape: tuple, out_shape: tuple, want: tuple) -> tuple:
    """An operand's layout for an elementwise op: the output's, except where the operand
    has size 1 and is broadcast (every device needs that one entry whole)."""
    return tuple(w if n == m else None for n, m, w in zip(shape, out_shape, want))


def _whole(x: Any, aval: Any, mesh: Any) -> Any:
    shape = getattr(aval, "shape", ())
    return _to_spec(x, _spec(aval), (None,) * len(shape), mesh) if shape else x


_ELEMENTWISE_SAFE = {
    "add", "sub", "mul", "div", "max", "min", "pow", "neg", "sin", "cos", "tanh", "exp",
    "log", "sqrt", "rsqrt", "abs", "sign", "logistic", "integer_pow", "square",
    "convert_element_type", "select_n", "eq", "ne", "lt", "le", "gt", "ge", "and", "or",
    "not", "exp2", "log1p", "expm1", "erf", "copy", "copy_p", "atan2", "rem", "floor", "ceil",
    "round", "stop_gradient",
}


def _reduction_rule(collective: Callable) -> Callable:
    def rule(eqn: Any, ins: list, mesh: Any) -> list:
        (x,), (v,) = ins, eqn.invars
        spec = _spec(v.aval)
        res = eqn.primitive.bind(x, **_local_params(eqn, mesh))
        # Each device reduced only its own part of a split dimension: combine the parts.
        crossed = tuple(a for d in eqn.params["axes"] for a in axes_of(spec[d]))
        have = tuple(e for d, e in enumerate(spec) if d not in eqn.params["axes"])
        want = _spec(eqn.outvars[0].aval)
        if crossed:
            res, have = _sum_parts(res, crossed, have, want, mesh, collective)
        return [_to_spec(res, have, want, mesh)]
    return rule


def _transpose_rule(eqn: Any, ins: list, mesh: Any) -> list:
    (x,), (v,) = ins, eqn.invars
    spec = _spec(v.aval)
    res = eqn.primitive.bind(x, **_local_params(eqn, mesh))
    moved = tuple(spec[p] for p in eqn.params["permutation"])
    return [_to_spec(res, moved, _spec(eqn.outvars[0].aval), mesh)]


def _broadcast_in_dim_rule(eqn: Any, ins: list, mesh: Any) -> list:
    """New dimensions are made on each device at its block's size; an operand dimension
    keeps the output's split where it is the same size (not broadcast from 1)."""
    (x,), (v,) = ins, eqn.invars
    out = eqn.outvars[0].aval
    want = _spec(out)
    dims = eqn.params["broadcast_dimensions"]
    operand_want = tuple(want[d] if v.aval.shape[i] == out.shape[d] else None
                         for i, d in enumerate(dims))
    x = _to_spec(x, _spec(v.aval), operand_want, mesh)
    return [eqn.primitive.bind(x, **_local_params(eqn, mesh))]


def _reshard_rule(eqn: Any, ins: list, mesh: Any) -> list:
    (x,), (v,) = ins, eqn.invars
    return [_to_spec(x, _spec(v.aval), _spec(eqn.outvars[0].aval), mesh)]


def _dot_general_rule(eqn: Any, ins: list, mesh: Any) -> list:
    """A contracting dimension split the same way on both sides: each device multiplies its
    parts and the partial sums are added across devices (``psum``). Split on one side only:
    that side is gathered first. Batch and free dimensions keep their blocks."""
    (lhs, rhs), (lv, rv) = ins, eqn.invars
    ls, rs = list(_spec(lv.aval)), list(_spec(rv.aval))
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    crossed: tuple = ()
    for i, j in zip(lc, rc):
        if ls[i] == rs[j]:
            crossed += axes_of(ls[i])
            continue
        for x_is_lhs, d in ((True, i), (False, j)):
            spec = ls if x_is_lhs else rs
            if spec[d] is not None:
                new = list(spec)
                new[d] = None
                if x_is_lhs:
                    lhs, ls = _to_spec(lhs, tuple(ls), tuple(new), mesh), new
                else:
                    rhs, rs = _to_spec(rhs, tuple(rs), tuple(new), mesh), new
    for i, j in zip(lb, rb):
        if ls[i] != rs[j]:
            raise CannotPartition("batch dimensions split differently")
    res = eqn.primitive.bind(lhs, rhs, **_local_params(eqn, mesh))
    # The local result's layout: batch, then lhs free, then rhs free dimensions.
    lfree = [d for d in range(len(ls)) if d not in lc and d not in lb]
    rfree = [d for d in range(len(rs)) if d not in rc and d not in rb]
    have = tuple([ls[d] for d in lb] + [ls[d] for d in lfree] + [rs[d] for d in rfree])
    want = _spec(eqn.outvars[0].aval)
    if crossed:
        res, have = _sum_parts(res, crossed, have, want, mesh)
    return [_to_spec(res, have, want, mesh)]


rules: dict[str, Callable] = {
    "reduce_sum": _reduction_rule(parallel.psum),
    "reduce_max": _reduction_rule(parallel.pmax),
    "reduce_min": _reduction_rule(parallel.pmin),
    "transpose": _transpose_rule,
    "reshard": _reshard_rule,
    "sharding_constraint": _reshard_rule,
    "broadcast_in_dim": _broadcast_in_dim_rule,
    "dot_general": _dot_general_rule,
}


# ------------------------------------------------------------------ running it
class PerDeviceExecutable:
    """What jit compiles a program on sharded inputs to: the per-device jaxpr, run by every
    device on its own blocks (NumPy reference rules, one thread per device)."""

    tier = "per-device"

    def __init__(self, closed: ClosedJaxpr, mesh: Any, per_device: ClosedJaxpr):
        self.mesh = mesh
        self.per_device = per_device
        n = len(per_device.consts)
        self.body = Jaxpr([], per_device.jaxpr.constvars + per_device.jaxpr.invars,
                          per_device.jaxpr.outvars, per_device.jaxpr.eqns)
        self.in_specs = (PartitionSpec(),) * n + tuple(
            PartitionSpec(*_spec(a)) for a in closed.in_avals)
        self.out_specs = tuple(PartitionSpec(*_spec(a)) for a in closed.out_avals)

    def __call__(self, *args: Any) -> list:
        return _shard_map_impl(*self.per_device.consts, *map(np.asarray, args),
                               jaxpr=self.body, mesh=self.mesh, in_specs=self.in_specs,
                               out_specs=self.out_specs)

    def as_text(self) -> str:
        used = sorted({e.primitive.name for e in self.per_device.eqns} & set(HLO_NAMES))
        legend = "".join(f"# {name}: what XLA's HLO calls {HLO_NAMES[name]}(...)\n"
                         for name in used)
        return (f"# The program each of the {self.mesh.size} devices of {self.mesh} runs on "
                f"its own blocks\n# (in_specs={self.in_specs}, out_specs={self.out_specs}).\n"
                + legend + str(self.per_device))


# The collectives, by the names JAX's compiled text (XLA's HLO) gives them.
HLO_NAMES = {"psum": "all-reduce", "pmax": "all-reduce", "pmin": "all-reduce",
             "all_gather": "all-gather", "reduce_scatter": "reduce-scatter",
             "all_to_all": "all-to-all", "ppermute": "collective-permute"}


def compile_per_device(closed: ClosedJaxpr) -> PerDeviceExecutable | None:
    """The per-device executable of a program on sharded arrays, or None (run it whole)."""
    mesh = mesh_of(closed)
    if mesh is None:
        return None
    try:
        return PerDeviceExecutable(closed, mesh, partition(closed, mesh))
    except Exception:  # CannotPartition, or a rule's gap: the whole-array program is right too
        return None
