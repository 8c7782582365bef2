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
from edujax.interpreters import ad
from edujax.interpreters import partial_eval as pe
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.core import Primitive
from edujax.jaxpr import ClosedJaxpr, Jaxpr, Literal, eval_jaxpr, run_jaxpr
from edujax.lax.parallel import Communicator, axis_env, named_axes
from edujax.sharding.mesh import AbstractMesh, AxisType, current_mesh
from edujax.sharding.named_sharding import NamedSharding
from edujax.shard_map_eager import run_eagerly
from edujax.sharding.partition_spec import PartitionSpec, axes_of
from edujax.tree_util import tree_flatten, tree_leaves, tree_unflatten


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


def _specs_per_leaf(specs: Any, tree: Any) -> list:
    """One spec per leaf of ``tree``: in_specs is a prefix of the arguments' tree, so a
    PartitionSpec stands for every leaf below it (``in_specs=(P('x'), P())`` for a pytree
    of parameters and a batch)."""
    if isinstance(specs, PartitionSpec):
        return [specs] * len(tree_leaves(tree))
    if isinstance(specs, (tuple, list)) and isinstance(tree, (tuple, list)) \
            and len(specs) == len(tree):
        return [s for spec, sub in zip(specs, tree) for s in _specs_per_leaf(spec, sub)]
    if isinstance(specs, dict) and isinstance(tree, dict) and specs.keys() == tree.keys():
        return [s for k in sorted(tree) for s in _specs_per_leaf(specs[k], tree[k])]
    return _broadcast(specs, len(tree_leaves(tree)))


def _in_specs(in_specs: Any, args: tuple, leaves: list, mesh: Any) -> list:
    """One spec per argument leaf: given, or (in_specs=None) read off the leaf's sharding.
    On Explicit axes a given spec must be the argument's own sharding."""
    if in_specs is None:
        return [_own_spec(x) or PartitionSpec() for x in leaves]
    specs = _specs_per_leaf(in_specs, args)
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
        varying = [a for a in mesh.axis_names if a in set(aval.vma) - named]
        if varying:
            # (JAX names its own wrapper of the function here, '_rem_singleton'; edujax
            # names the function the student wrote)
            shown = ", ".join(repr(a) for a in varying)
            inferred = sorted(set(mesh.axis_names) - set(aval.vma) - named)
            raise ValueError(
                f"shard_map applied to the function '{name}' was given out_specs which require "
                "replication which can't be statically inferred given the mesh:\n\n"
                f"The mesh given has shape {tuple(mesh.axis_sizes)} with corresponding axis "
                f"names {tuple(mesh.axis_names)}.\n\n"
                f"out_specs is {spec} which implies that the corresponding output value is "
                f"replicated across mesh axis {shown}, but could not infer replication over "
                f"{'any axes' if not inferred else 'axes ' + repr(set(inferred))}\n\n"
                "Check if these output values are meant to be replicated over those mesh "
                "axes. If not, consider revising the corresponding out_specs entries. If so, "
                "consider disabling the check by passing the check_vma=False argument to "
                "`jax.shard_map`.")


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


# ------------------------------------------------------------------ differentiation
# The derivative of a per-device program is the per-device program of its derivative: the
# JVP of a shard_map is a shard_map of the body's JVP (each tangent laid out as its primal),
# and its transpose is a shard_map of the body's backward pass, the cotangents laid out as
# the outputs were. Inside, the collectives' own rules do the talking between devices
# (psum_invariant's transpose is pvary, pvary's is psum_invariant, all_gather's is
# psum_scatter), so that a parameter the same on every device gets its cotangents summed.

def _shard_map_jvp(primals: list, tangents: list, *, jaxpr: Jaxpr, in_specs: tuple,
                   out_specs: tuple, **params: Any) -> tuple[list, list]:
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    nz_tangents = [t for t in tangents if type(t) is not ad.Zero]
    with named_axes(_mesh_of(params).shape.items()):
        jvp, out_nonzeros = ad.jvp_jaxpr(ClosedJaxpr(jaxpr, []), nonzeros)
        outs = shard_map_p.bind(
            *primals, *nz_tangents, jaxpr=jvp.jaxpr,
            in_specs=in_specs + tuple(s for s, nz in zip(in_specs, nonzeros) if nz),
            out_specs=out_specs + tuple(s for s, nz in zip(out_specs, out_nonzeros) if nz),
            **params)
    n = len(out_specs)
    touts = iter(outs[n:])
    return outs[:n], [next(touts) if nz else ad.Zero(ad.tangent_aval(a))
                      for nz, a in zip(out_nonzeros, _global_out_avals(jaxpr, out_specs, params))]


def _mesh_of(params: dict) -> Any:
    mesh = params["mesh"]
    return mesh.concrete if isinstance(mesh, AbstractMesh) else mesh


def _global_out_avals(jaxpr: Jaxpr, out_specs: tuple, params: dict) -> list:
    return _shard_map_abstract_eval(jaxpr=jaxpr, mesh=params["mesh"], out_specs=out_specs)


def _shard_map_partial_eval(trace: Any, *args: Any, jaxpr: Jaxpr, in_specs: tuple,
                            out_specs: tuple, **params: Any) -> list:
    """Outputs that depend on known inputs only are computed now, by a shard_map of the
    body cut down to them; the others are staged as a shard_map of the whole body, which
    takes the known inputs again (NB: JAX passes the known body's intermediate values on as
    residuals, laid out per device; edujax recomputes them in the staged body instead,
    which its backward pass evaluates before transposing)."""
    unknowns = [trace.is_unknown(x) for x in args]
    out_unknowns = _unknown_outputs(jaxpr, unknowns)
    known_body, used = pe.dce_jaxpr(jaxpr, [not u for u in out_unknowns], prune_inputs=True)
    known_args = [x for x, u in zip(args, used) if u]
    with core.set_current_trace(trace.parent):
        known_outs = iter(shard_map_p.bind(
            *known_args, jaxpr=known_body,
            in_specs=tuple(s for s, u in zip(in_specs, used) if u),
            out_specs=tuple(s for s, u in zip(out_specs, out_unknowns) if not u), **params))
    unknown_outs: Any = iter([])
    if any(out_unknowns):
        unknown_body, _ = pe.dce_jaxpr(jaxpr, out_unknowns)
        with core.set_current_trace(trace.staging):
            unknown_outs = iter(shard_map_p.bind(
                *args, jaxpr=unknown_body, in_specs=in_specs,
                out_specs=tuple(s for s, u in zip(out_specs, out_unknowns) if u), **params))
    return [next(unknown_outs) if u else next(known_outs) for u in out_unknowns]


def _unknown_outputs(jaxpr: Jaxpr, unknowns: list[bool]) -> list[bool]:
    """Which outputs depend on an unknown input (through any equation)."""
    unknown = {v for v, u in zip(jaxpr.invars, unknowns) if u}
    for eqn in jaxpr.eqns:
        if any(v in unknown for v in eqn.invars if not isinstance(v, Literal)):
            unknown.update(eqn.outvars)
    return [v in unknown for v in jaxpr.outvars]


def _shard_map_transpose(cts: list, *args: Any, jaxpr: Jaxpr, in_specs: tuple,
                         out_specs: tuple, **params: Any) -> list:
    linear = [ad.is_undefined_primal(x) for x in args]
    residuals = [x for x, lin in zip(args, linear) if not lin]
    nonzero = [type(ct) is not ad.Zero for ct in cts]
    in_avals = [v.aval for v in jaxpr.invars]
    block_res = [a for a, lin in zip(in_avals, linear) if not lin]
    block_cts = [v.aval for v, nz in zip(jaxpr.outvars, nonzero) if nz]

    def backward(*ins: Any) -> tuple[list, None]:
        res, given = ins[:len(block_res)], iter(ins[len(block_res):])
        cts_out = [next(given) if nz else None for nz in nonzero]
        linear_part, residuals_out = _linear_part(jaxpr, linear, list(res))
        undefined = [ad.UndefinedPrimal(v.aval) for v in linear_part.jaxpr.invars]
        reached = [ad.Zero(ad.tangent_aval(v.aval)) if ct is None else ct
                   for v, ct in zip(jaxpr.outvars, cts_out)]
        cts_in = ad.backward_pass(linear_part.jaxpr, linear_part.consts, undefined,
                                  [ct for ct, r in zip(reached, residuals_out) if r])
        lin_avals = [a for a, lin in zip(in_avals, linear) if lin]
        return [_zeros_like(a) if ct is None or type(ct) is ad.Zero else ct
                for ct, a in zip(cts_in, lin_avals)], None

    with named_axes(_mesh_of(params).shape.items()):
        closed, _ = trace_to_jaxpr(backward, [*block_res, *block_cts])
    body = Jaxpr([], closed.jaxpr.constvars + closed.jaxpr.invars, closed.jaxpr.outvars,
                 closed.jaxpr.eqns, closed.jaxpr.debug_info)
    given = [ct for ct in cts if type(ct) is not ad.Zero]
    outs = iter(shard_map_p.bind(
        *closed.consts, *residuals, *given, jaxpr=body,
        in_specs=(PartitionSpec(),) * len(closed.consts)
        + tuple(s for s, lin in zip(in_specs, linear) if not lin)
        + tuple(s for s, nz in zip(out_specs, nonzero) if nz),
        out_specs=tuple(s for s, lin in zip(in_specs, linear) if lin), **params))
    return [next(outs) if lin else None for lin in linear]


def _linear_part(jaxpr: Jaxpr, linear: list[bool], known: list) -> tuple[ClosedJaxpr, list]:
    """The body split as linearize splits a function: what depends on the known inputs
    alone is computed now (on this device's blocks), and what depends on the linear inputs
    is recorded as a linear jaxpr whose constants are those values, ready to transpose.
    Also, for each output, whether it depends on a linear input (only those take part)."""
    trace = pe.PartialEvalTrace(core.current_trace())
    known_it = iter(known)
    args = [trace.new_unknown(v.aval) if lin else next(known_it)
            for v, lin in zip(jaxpr.invars, linear)]
    with core.set_current_trace(trace):
        outs = eval_jaxpr(jaxpr, [], *args)
    unknown = [trace.is_unknown(o) for o in outs]
    closed = trace.staging.to_jaxpr([o for o, u in zip(outs, unknown) if u])
    return closed, unknown


def _zeros_like(aval: Any) -> Any:
    return ad.instantiate_zeros(ad.Zero(ad.tangent_aval(aval)))


ad.jvp_rules[shard_map_p] = _shard_map_jvp
pe.partial_eval_rules[shard_map_p] = _shard_map_partial_eval
ad.transpose_rules[shard_map_p] = _shard_map_transpose
