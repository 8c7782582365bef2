"""Meshes: the devices arranged in a grid whose axes have names (``jax.make_mesh``).

A ``Mesh`` of shape ``(4, 2)`` with axis names ``('x', 'y')`` puts 8 devices in 4 rows and 2
columns; a ``PartitionSpec`` then says which array dimension is split along which axis.
Each axis has a type (JAX 0.10):

* ``Explicit`` (``make_mesh``'s default): the sharding is part of the array's type,
  ``float32[8@x,4@y]``; every operation decides its output's sharding, or raises a
  ``ShardingTypeError`` when that would be ambiguous.
* ``Auto``: the compiler chooses (types print no sharding), as before explicit sharding.
* ``Manual``: inside ``shard_map``, where each device sees only its own block.

``set_mesh(mesh)`` makes a mesh the current one, so a bare ``P('x')`` means
``NamedSharding(mesh, P('x'))``.
"""
from __future__ import annotations

import enum
import math
import threading
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from edujax import devices as devices_module


class AxisType(enum.Enum):
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


class Mesh:
    """Devices in an n-dimensional grid, each grid axis named (``jax.sharding.Mesh``)."""

    def __init__(self, devices: Any, axis_names: Any, axis_types: Any = None):
        devices = np.asarray(devices, dtype=object)
        axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if devices.ndim != len(axis_names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length "
                "of its second argument (`axis_names`), but got devices.ndim == "
                f"{devices.ndim} and len(axis_names) == {len(axis_names)}.")
        self.devices = devices
        self.axis_names = axis_names
        self.axis_types = _axis_types(axis_types, len(axis_names), AxisType.Auto)

    @property
    def shape(self) -> OrderedDict:
        return OrderedDict(zip(self.axis_names, self.devices.shape))

    axis_sizes = property(lambda self: tuple(self.devices.shape))
    shape_tuple = property(lambda self: tuple(zip(self.axis_names, self.devices.shape)))
    size = property(lambda self: int(self.devices.size))
    device_ids = property(lambda self: np.vectorize(lambda d: d.id, otypes=[int])(self.devices))
    empty = property(lambda self: self.devices.size == 0)

    @property
    def abstract_mesh(self) -> AbstractMesh:
        return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types, concrete=self)

    def axis_type(self, name: Any) -> AxisType:
        return self.axis_types[self.axis_names.index(name)]

    def coordinates(self, device: Any) -> dict:
        """Where ``device`` sits in the grid: {axis name: its index along that axis}."""
        where = np.argwhere(self.device_ids == device.id)[0]
        return dict(zip(self.axis_names, map(int, where)))

    def __repr__(self) -> str:
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
                f"axis_types={_types_str(self.axis_types)})")

    def short_repr(self) -> str:
        """``Mesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit))``, as shardings print it."""
        return f"Mesh({_sizes_str(self)}, axis_types={_types_str(self.axis_types)})"

    __str__ = short_repr  # as JAX's str(mesh), and so a shard_map equation prints its mesh

    def _key(self) -> tuple:
        return (self.axis_names, self.axis_types, tuple(self.device_ids.flat), self.axis_sizes)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Mesh) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __enter__(self) -> Mesh:
        _current.stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _current.stack.pop()


class AbstractMesh:
    """A mesh's shape, names and axis types without its devices: what a *type* knows
    (``jax.typeof(x).sharding.mesh``). It keeps the concrete mesh it came from, so that
    edujax can run on it."""

    def __init__(self, axis_sizes: tuple, axis_names: tuple, axis_types: tuple,
                 concrete: Mesh | None = None):
        self.axis_sizes, self.axis_names, self.axis_types = axis_sizes, axis_names, axis_types
        self.concrete = concrete

    shape = property(lambda self: OrderedDict(zip(self.axis_names, self.axis_sizes)))
    size = property(lambda self: math.prod(self.axis_sizes))

    def axis_type(self, name: Any) -> AxisType:
        return self.axis_types[self.axis_names.index(name)]

    def __repr__(self) -> str:
        return (f"AbstractMesh({_sizes_str(self)}, axis_types={_types_str(self.axis_types)}, "
                "device_kind=cpu, num_cores=None, platform=cpu)")

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, AbstractMesh) and (self.axis_sizes, self.axis_names,
                self.axis_types) == (other.axis_sizes, other.axis_names, other.axis_types))

    def __hash__(self) -> int:
        return hash((self.axis_sizes, self.axis_names, self.axis_types))


def _sizes_str(mesh: Any) -> str:
    return ", ".join(f"'{n}': {s}" for n, s in zip(mesh.axis_names, mesh.axis_sizes))


def _types_str(types: tuple) -> str:
    return "(" + ", ".join(t.name for t in types) + ("," if len(types) == 1 else "") + ")"


def _axis_types(axis_types: Any, n: int, default: AxisType) -> tuple:
    if axis_types is None:
        return (default,) * n
    if isinstance(axis_types, AxisType):
        return (axis_types,) * n
    return tuple(axis_types)


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types: Any = None,
              *, devices: Any = None) -> Mesh:
    """A mesh of the first ``prod(axis_shapes)`` devices, in order, Explicit axes by default."""
    axis_shapes = tuple(axis_shapes)
    devices = list(devices_module.devices() if devices is None else devices)
    if len(devices) < math.prod(axis_shapes):
        raise ValueError(f"Number of devices {len(devices)} must be >= the product of "
                         f"mesh_shape {axis_shapes}")
    grid = np.empty(math.prod(axis_shapes), dtype=object)
    grid[:] = devices[:math.prod(axis_shapes)]
    mesh = Mesh(grid.reshape(axis_shapes), axis_names)
    mesh.axis_types = _axis_types(axis_types, len(mesh.axis_names), AxisType.Explicit)
    return mesh


# ------------------------------------------------------------------ the current mesh
class _CurrentMesh(threading.local):
    def __init__(self) -> None:
        self.stack: list[Mesh] = []


_current = _CurrentMesh()


def current_mesh() -> Mesh | None:
    """The mesh of the innermost ``set_mesh`` (or ``with mesh:``), else None."""
    return _current.stack[-1] if _current.stack else None


class set_mesh:  # noqa: N801 - JAX's name; usable as a call or as a context manager
    """``jax.set_mesh(mesh)``: make ``mesh`` the current mesh (for a bare ``P``). As a
    ``with`` statement, only inside the block."""

    def __init__(self, mesh: Mesh):
        self.mesh = mesh
        self.previous = list(_current.stack)
        _current.stack[:] = [mesh]

    def __enter__(self) -> Mesh:
        return self.mesh

    def __exit__(self, *exc: Any) -> None:
        _current.stack[:] = self.previous




class use_abstract_mesh:  # noqa: N801 - JAX's name; a context manager
    """``with jax.sharding.use_abstract_mesh(AbstractMesh((8,), ('A',), ...)):`` inside a
    jitted function: a bare ``P`` refers to that mesh's axes. NB: JAX keeps the mesh
    abstract until the compiler assigns devices; edujax, which runs every program, puts it
    on the first ``mesh.size`` devices in order at once (as ``make_mesh`` does)."""

    def __init__(self, mesh: AbstractMesh):
        concrete = mesh.concrete or make_mesh(mesh.axis_sizes, mesh.axis_names, mesh.axis_types)
        self.previous = list(_current.stack)
        _current.stack[:] = [concrete]

    def __enter__(self) -> use_abstract_mesh:
        return self

    def __exit__(self, *exc: Any) -> None:
        _current.stack[:] = self.previous


def get_abstract_mesh() -> AbstractMesh | None:
    mesh = current_mesh()
    return None if mesh is None else mesh.abstract_mesh


set_mesh.__module__ = "jax._src.sharding_impls"  # so its repr names JAX's module, as JAX's
