"""``auto_axes`` and ``explicit_axes``: one call with some mesh axes switched between Explicit
and Auto.

On Explicit axes the sharding is part of the type, and an operation whose layout is
ambiguous is an error; on Auto axes the compiler chooses. JAX lets one function run in the
other mode:

    @auto_axes
    def add(x, y): return x + y              # inside: the mesh's axes are Auto
    add(x, y, out_sharding=P('X', None))     # the result: Explicit again, laid out so

    @explicit_axes
    def g(y): return y * 2                   # inside: the axes are Explicit
    g(x, in_sharding=P('X', 'Y'))            # x is laid out so on the way in

Inside, the current mesh (``get_abstract_mesh()``) has the switched axis types, and the
arguments are put on that mesh with the layout they have (``auto_axes``) or the one
``in_sharding`` asks for (``explicit_axes``). NB: JAX casts between the two meshes with
``mesh_cast``, which moves no data; edujax reshards, which moves none either here (the
blocks stay where they are) but prints as a ``reshard`` in a jaxpr.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from edujax import core
from edujax.lax.reshard import reshard
from edujax.sharding.mesh import AxisType, Mesh, current_mesh, set_mesh
from edujax.sharding.named_sharding import NamedSharding
from edujax.sharding.partition_spec import PartitionSpec
from edujax.tree_util import tree_flatten, tree_map, tree_unflatten


def auto_axes(fun: Callable | None = None, *, axes: Any = None,
              out_sharding: Any = None) -> Any:
    """``fun`` run with the mesh's ``axes`` (all by default) Auto; its outputs laid out as
    ``out_sharding`` says (given here or at the call) on the Explicit mesh."""
    if fun is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    @functools.wraps(fun)
    def call(*args: Any, out_sharding: Any = out_sharding, **kwargs: Any) -> Any:
        if out_sharding is None:
            raise TypeError("auto_axes: the call needs out_sharding=, the layout of the "
                            "result once the axes are Explicit again")
        mesh = _the_mesh("auto_axes")
        inner = _switched(mesh, axes, AxisType.Auto)
        with set_mesh(inner):
            out = fun(*tree_map(lambda x: _onto(x, inner, _spec(x)), args), **kwargs)
        return _laid_out(out, mesh, out_sharding)
    return call


def explicit_axes(fun: Callable | None = None, *, axes: Any = None,
                  in_sharding: Any = None) -> Any:
    """``fun`` run with the mesh's ``axes`` (all by default) Explicit, its arguments laid out
    as ``in_sharding`` says (given here or at the call); its outputs go back to the Auto
    mesh with the layout they have."""
    if fun is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(fun)
    def call(*args: Any, in_sharding: Any = in_sharding, **kwargs: Any) -> Any:
        if in_sharding is None:
            raise TypeError("explicit_axes: the call needs in_sharding=, the layout of the "
                            "arguments on the Explicit axes")
        mesh = _the_mesh("explicit_axes")
        inner = _switched(mesh, axes, AxisType.Explicit)
        with set_mesh(inner):
            out = fun(*_laid_out(args, inner, in_sharding), **kwargs)
        return tree_map(lambda x: _onto(x, mesh, _spec(x)), out)
    return call


def _the_mesh(name: str) -> Mesh:
    mesh = current_mesh()
    if mesh is None:
        raise ValueError(f"{name} needs a mesh: call it under jax.set_mesh(mesh)")
    return mesh


def _switched(mesh: Mesh, axes: Any, to: AxisType) -> Mesh:
    names = mesh.axis_names if axes is None else (axes if isinstance(axes, tuple) else (axes,))
    types = tuple(to if n in names else t for n, t in zip(mesh.axis_names, mesh.axis_types))
    return Mesh(mesh.devices, mesh.axis_names, types)


def _spec(x: Any) -> PartitionSpec:
    sharding = getattr(core.get_aval(x), "sharding", None) or getattr(x, "_sharding", None)
    return sharding.spec if isinstance(sharding, NamedSharding) else PartitionSpec()


def _onto(x: Any, mesh: Mesh, spec: PartitionSpec) -> Any:
    return reshard(x, NamedSharding(mesh, spec))


def _laid_out(tree: Any, mesh: Mesh, specs: Any) -> Any:
    """Each leaf of ``tree`` on ``mesh`` as its spec says (one spec for all, or a tree)."""
    leaves, treedef = tree_flatten(tree)
    if isinstance(specs, PartitionSpec):
        specs = [specs] * len(leaves)
    else:
        specs, _ = tree_flatten(specs, is_leaf=lambda s: isinstance(s, PartitionSpec))
    return tree_unflatten(treedef, [_onto(x, mesh, s) for x, s in zip(leaves, specs)])
