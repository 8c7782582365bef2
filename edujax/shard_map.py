"""``jax.shard_map``: write the program one device runs, on its own block, with collectives.

``shard_map(f, mesh=mesh, in_specs=P('i'), out_specs=P())`` cuts each argument into blocks
as its spec says, runs ``f`` once per device on that device's block (here: one thread per
simulated device), and puts the outputs' blocks back together as ``out_specs`` says. Inside
``f`` a collective over a mesh axis (``lax.psum(x, 'i')``) talks to the devices along that
axis: with a mesh of shape (4, 2), a psum over ``'x'`` adds the 4 blocks of one column.

With ``check_vma`` (the default) each value's type records the mesh axes along which it
varies from device to device (``f32[2]{V:i}``); an output whose spec says it is the same on
every device of an axis (the axis is absent from its out_spec) must not vary along it.

Like JAX, under ``jit`` or ``make_jaxpr`` the body is traced once, to a jaxpr on one
device's block types, and staged as one ``shard_map`` equation, which prints as JAX prints
it. Called eagerly, the body runs op by op on every device's blocks (shard_map_eager.py):
a ``print`` inside it shows each device's value, as in JAX.
"""
from __future__ import annotations

import functools
import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from edujax import core
from edujax.api_util import flatten_fun_nokwargs
from edujax.array import Array, with_sharding
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.core import Primitive
from edujax.jaxpr import Jaxpr, run_jaxpr
from edujax.lax.parallel import Communicator, axis_env, named_axes
from edujax.sharding.mesh import AbstractMesh, AxisType, current_mesh
from edujax.sharding.named_sharding import NamedSharding
from edujax.shard_map_eager import run_eagerly
from edujax.sharding.partition_spec import PartitionSpec, axes_of
from edujax.tree_util import tree_flatten, tree_unflatten


shard_map_p = Primitive("shard_map")
shard_map_p.multiple_results = True


def shard_map(f: Callable | None = None, /, *, out_specs: Any, in_specs: Any = None,
              mesh: Any = None, axis_names: Any = frozenset(), check_vma: bool = True) -> Any:
    """``f`` run per device on blocks of its arguments (usable as a decorator)."""
    if f is None:
        return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                 axis_names=axis_names, check_vma=check_vma)
    name = getattr(f, "__name__", "<unnamed function>")

    @functools.wraps(f)
    def per_device(*args: Any) -> Any:
        the_mesh = mesh if mesh is not None else current_mesh()
        leaves, in_tree = tree_flatten(args)
        specs = _in_specs(in_specs, args, leaves, the_mesh)
        _check_divisible(name, leaves, specs, the_mesh)
        blocks = [_block_aval(x, s, the_mesh, check_vma) for x, s in zip(leaves, specs)]
        if core.at_top_level():  # called eagerly: run op by op on every device, as JAX does
            return _run_eagerly(f, name, in_tree, leaves, specs, blocks, the_mesh, out_specs,
                                check_vma)
        with named_axes(the_mesh.shape.items()):
            closed, out_tree = trace_to_jaxpr(flatten_fun_nokwargs(f, in_tree), blocks)
        outs_specs = _broadcast(out_specs, len(closed.out_avals))
        if check_vma:
            _check_replication(name, closed.out_avals, outs_specs, the_mesh)
        # The body's constants (arrays it closed over) become its first arguments, whole on
        # every device, so that the equation's jaxpr closes over nothing.
        body = Jaxpr([], closed.jaxpr.constvars + closed.jaxpr.invars, closed.jaxpr.outvars,
                     closed.jaxpr.eqns, closed.jaxpr.debug_info)
        outs = shard_map_p.bind(
            *closed.consts, *leaves, check_vma=check_vma,
            in_specs=(PartitionSpec(),) * len(closed.consts) + tuple(specs), jaxpr=body,
            # (the mesh of set_mesh's context prints as JAX's: its abstract mesh)
            mesh=the_mesh if mesh is not None else the_mesh.abstract_mesh,
            newly_manual_axes=_AxisSet(the_mesh.axis_names),
            out_specs=tuple(outs_specs))
        return tree_unflatten(out_tree, outs)
    return per_device


def _run_eagerly(f: Callable, name: str, in_tree: Any, leaves: list, specs: list, blocks: list,
                 mesh: Any, out_specs: Any, check_vma: bool) -> Any:
    """The body run op by op on every device's blocks (shard_map_eager.py), then the outputs
    checked against out_specs and put back together, each laid out on the mesh."""
    def index(device: Any, k: int) -> Any:
        return NamedSharding(mesh, specs[k]).index(device, np.shape(leaves[k]))
    per_device, out_avals, out_tree = run_eagerly(flatten_fun_nokwargs(f, in_tree), leaves,
                                                  blocks, index, mesh)
    outs_specs = _broadcast(out_specs, len(out_avals))
    if check_vma:
        _check_replication(name, out_avals, outs_specs, mesh)
    outs = [with_sharding(Array(_assemble(per_device, k, s, mesh, a), a.weak_type),
                          NamedSharding(mesh, s))
            for k, (s, a) in enumerate(zip(outs_specs, out_avals))]
    return tree_unflatten(out_tree, outs)


class _AxisSet(frozenset):
    """The mesh axes the body sees per device, printed in the mesh's order as JAX prints
    them (a plain frozenset's order depends on string hashing, which changes run to run)."""

    def __new__(cls, names: Any) -> _AxisSet:
        self = super().__new__(cls, names)
        self.order = tuple(names)
        return self

    def __repr__(self) -> str:
        return "frozenset({" + ", ".join(repr(n) for n in self.order) + "})"

    __str__ = __repr__


def _shard_map_abstract_eval(*avals: Any, jaxpr: Jaxpr, mesh: Any, out_specs: tuple,
                             **_: Any) -> list:
    """The outputs' global types: each body output's block, times the devices that hold
    different blocks of it (those of the mesh axes its out_spec names)."""
    outs = []
    for aval, spec in zip(jaxpr.out_avals, out_specs):
        sharding = NamedSharding(mesh, spec)
        shape = tuple(n * sharding.parts(d) for d, n in enumerate(aval.shape))
        explicit = any(mesh.axis_type(a) == AxisType.Explicit for e in spec for a in axes_of(e))
        outs.append(core.ShapedArray(shape, aval.dtype, aval.weak_type,
                                     sharding.abstract() if explicit else None))
    return outs


def _shard_map_impl(*args: np.ndarray, jaxpr: Jaxpr, mesh: Any, in_specs: tuple,
                    out_specs: tuple, **_: Any) -> list:
    """Run the body on every device's blocks, then put each output back together."""
    mesh = mesh.concrete if isinstance(mesh, AbstractMesh) else mesh
    outs = _run(jaxpr, args, in_specs, mesh)
    return [_assemble(outs, k, s, mesh, aval)
            for k, (s, aval) in enumerate(zip(out_specs, jaxpr.out_avals))]


core.abstract_eval_rules[shard_map_p] = _shard_map_abstract_eval
core.impl_rules[shard_map_p] = _shard_map_impl


def _broadcast(specs: Any, n: int) -> list:
    if isinstance(specs, PartitionSpec):
        return [specs] * n
    flat, _ = tree_flatten(specs, is_leaf=lambda s: isinstance(s, PartitionSpec))
    return flat if len(flat) == n else [flat[0]] * n


def _in_specs(in_specs: Any, args: tuple, leaves: list, mesh: Any) -> list:
    """One spec per argument leaf: given, or (in_specs=None) read off the leaf's sharding.
    On Explicit axes a given spec must be the argument's own sharding."""
    if in_specs is None:
        return [_own_spec(x) or PartitionSpec() for x in leaves]
    specs = _broadcast(in_specs if not isinstance(in_specs, tuple) or isinstance(
        in_specs, PartitionSpec) else list(in_specs), len(leaves))
    for x, spec in zip(leaves, specs):
        own = _own_spec(x) or PartitionSpec(*([None] * np.ndim(x)))
        explicit = [a for a in mesh.axis_names if mesh.axis_type(a) == AxisType.Explicit]
        wanted = tuple(e for e in spec.padded(np.ndim(x)))
        has = tuple(own.padded(np.ndim(x)))
        if explicit and wanted != has:
            raise ValueError(
                f"in_specs passed to shard_map: {spec} does not match the specs of the input: "
                f"{own} for arg: {core.get_aval(x).str_short()}. `in_specs` is an optional "
                "argument so you can omit specifying it and shard_map will infer the in_specs "
                "from the arguments. If you want to reshard your inputs, you can use "
                "`jax.reshard` on the arguments and then pass those args to shard_map.")
    return specs


def _own_spec(x: Any) -> PartitionSpec | None:
    """The spec an argument is laid out by (from its type: a traced one has no Array)."""
    sharding = getattr(x, "_sharding", None) or getattr(core.get_aval(x), "sharding", None)
    return sharding.spec if isinstance(sharding, NamedSharding) else None


def _check_divisible(name: str, leaves: list, specs: list, mesh: Any) -> None:
    for x, spec in zip(leaves, specs):
        if any(n % NamedSharding(mesh, spec).parts(d) for d, n in enumerate(np.shape(x))):
            raise ValueError(
                f"shard_map applied to the function '{name}' was given argument arrays with "
                "axis sizes that are not evenly divisible by the corresponding mesh axis "
                "sizes:")


def _block_aval(x: Any, spec: PartitionSpec, mesh: Any, check_vma: bool) -> core.ShapedArray:
    aval = core.get_aval(x)
    shape = NamedSharding(mesh, spec).shard_shape(aval.shape)
    vma = frozenset(a for e in spec for a in axes_of(e)) if check_vma else frozenset()
    return core.ShapedArray(shape, aval.dtype, aval.weak_type, None, vma)


def _check_replication(name: str, avals: list, specs: list, mesh: Any) -> None:
    for aval, spec in zip(avals, specs):
        named = {a for e in spec for a in axes_of(e)}
        if set(aval.vma) - named:
            raise ValueError(
                f"shard_map applied to the function '{name}' was given out_specs which require "
                "replication which can't be statically inferred given the mesh:")


def _coordinates(mesh: Any) -> list[dict]:
    """Every device's place in the mesh, {axis name: index}, in the mesh's device order."""
    ranges = [range(n) for n in mesh.axis_sizes]
    return [dict(zip(mesh.axis_names, c)) for c in itertools.product(*ranges)]


def _run(jaxpr: Jaxpr, leaves: Any, specs: tuple, mesh: Any) -> list:
    """Run the body once per device, on threads; a collective over axis ``a`` talks to the
    devices that differ from this one only along ``a``."""
    places = _coordinates(mesh)
    comms = {}
    for where in places:
        for a in mesh.axis_names:
            group = (a, tuple(v for k, v in where.items() if k != a))
            comms.setdefault(group, Communicator(mesh.shape[a]))
    devices = list(mesh.devices.flat)

    def run(i: int) -> list:
        where = places[i]
        for a in mesh.axis_names:
            group = (a, tuple(v for k, v in where.items() if k != a))
            axis_env.frames[a] = (where[a], comms[group])
        try:
            args = [np.asarray(x)[NamedSharding(mesh, s).index(devices[i], np.shape(x))]
                    for x, s in zip(leaves, specs)]
            return run_jaxpr(jaxpr, [], args)
        finally:
            for a in mesh.axis_names:
                axis_env.frames.pop(a, None)

    with ThreadPoolExecutor(max_workers=len(places)) as pool:
        return list(pool.map(run, range(len(places))))


def _assemble(outs: list, k: int, spec: PartitionSpec, mesh: Any, aval: Any) -> np.ndarray:
    """Output ``k``'s blocks put back together as ``spec`` says (a replicated axis: the
    block of its first device, as JAX does when check_vma=False lets them differ)."""
    blocks = [np.asarray(o[k], dtype=aval.dtype) for o in outs]
    sharding = NamedSharding(mesh, spec)
    shape = tuple(n * sharding.parts(d) for d, n in enumerate(blocks[0].shape))
    value = np.empty(shape, dtype=aval.dtype)
    # in reverse, so that on a replicated axis the first device's block is the one kept
    for device, block in reversed(list(zip(mesh.devices.flat, blocks))):
        index = sharding.index(device, shape)
        if index:
            value[index] = block
        else:
            value[...] = block
    return value
