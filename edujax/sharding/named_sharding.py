"""``NamedSharding(mesh, spec)``: an array split over a mesh, and which block each device holds.

Dimension ``d`` of the array is cut into as many equal blocks as the product of the sizes of
the mesh axes ``spec[d]`` names; a device takes the block given by its coordinates along those
axes (several axes: the first is major). Mesh axes the spec does not name replicate: every
device along them holds the same block.
"""
from __future__ import annotations

import math
from typing import Any

from edujax.sharding.mesh import AbstractMesh, AxisType, Mesh, current_mesh
from edujax.sharding.partition_spec import PartitionSpec, axes_of
from edujax.sharding.single_device import Sharding


class NamedSharding(Sharding):
    """An array's layout over ``mesh``, one ``spec`` entry per dimension."""

    def __init__(self, mesh: Mesh | AbstractMesh, spec: Any = PartitionSpec(), *,
                 memory_kind: str | None = None):
        self.mesh = mesh
        self.spec = spec if isinstance(spec, PartitionSpec) else PartitionSpec(*spec)
        self.memory_kind = memory_kind or "device"
        for entry in self.spec:
            for name in axes_of(entry):
                if name not in mesh.axis_names:
                    raise ValueError(f"Resource axis: {name} of {self.spec} is not found in "
                                     f"mesh: {mesh.axis_names}.")

    # -- what the sharding says about devices and blocks ---------------------------
    @property
    def device_set(self) -> set:
        return set(self.mesh.devices.flat)

    num_devices = property(lambda self: self.mesh.size)
    is_fully_addressable = True

    @property
    def is_fully_replicated(self) -> bool:
        return all(not axes_of(e) for e in self.spec)

    def parts(self, dim: int) -> int:
        """Into how many blocks dimension ``dim`` is cut."""
        if dim >= len(self.spec):
            return 1
        return math.prod(self.mesh.shape[a] for a in axes_of(self.spec[dim]))

    def shard_shape(self, global_shape: tuple) -> tuple:
        self.check_shape(global_shape)
        return tuple(n // self.parts(d) for d, n in enumerate(global_shape))

    def check_shape(self, shape: tuple) -> None:
        """The errors JAX gives for a spec that does not fit the shape."""
        assert len(self.spec) <= len(shape), (len(shape), self.spec)
        for d, n in enumerate(shape):
            if n % self.parts(d):
                raise ValueError(
                    f"Sharding spec {self._entry_str(d)} implies that array axis {d} is "
                    f"partitioned {self.parts(d)} times, but does not evenly divide the "
                    f"dimension size {n}. Got shape: {tuple(shape)} and sharding "
                    f"{self.abstract()!r}")

    def _entry_str(self, d: int) -> str:
        return repr(axes_of(self.spec[d]))

    def index(self, device: Any, shape: tuple) -> tuple:
        """The block ``device`` holds: one slice per dimension (JAX's ``Shard.index``)."""
        where = self.mesh.coordinates(device)
        index = []
        for d, n in enumerate(shape):
            block, position = n // self.parts(d), 0
            for name in (axes_of(self.spec[d]) if d < len(self.spec) else ()):
                position = position * self.mesh.shape[name] + where[name]
            index.append(slice(position * block, (position + 1) * block, None))
        return tuple(index)

    # -- types ---------------------------------------------------------------------
    def abstract(self) -> NamedSharding:
        """The same sharding over the abstract mesh: what a type holds."""
        mesh = self.mesh if isinstance(self.mesh, AbstractMesh) else self.mesh.abstract_mesh
        return _TypeSharding(mesh, self.spec)

    def concrete(self) -> NamedSharding:
        mesh = self.mesh.concrete if isinstance(self.mesh, AbstractMesh) else self.mesh
        return NamedSharding(mesh, self.spec)

    def with_spec(self, spec: Any) -> NamedSharding:
        return type(self)(self.mesh, spec)

    def explicit_axes(self, entry: Any) -> tuple:
        """The Explicit mesh axes of one spec entry: those a type shows."""
        return tuple(a for a in axes_of(entry) if self.mesh.axis_type(a) == AxisType.Explicit)

    def __repr__(self) -> str:
        return (f"NamedSharding(mesh={self.mesh.short_repr()}, spec={self.spec}, "
                f"memory_kind={self.memory_kind})")

    def _key(self) -> tuple:
        return (self.mesh, self.spec)  # P('x') and P('x', None) differ, as in JAX

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, NamedSharding) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


class _TypeSharding(NamedSharding):
    """A NamedSharding over an abstract mesh: part of a type (it prints no memory kind)."""

    def __repr__(self) -> str:
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec})"


def as_named_sharding(sharding: Any) -> Any:
    """A NamedSharding from a NamedSharding, or from a bare PartitionSpec under set_mesh."""
    if isinstance(sharding, PartitionSpec):
        mesh = current_mesh()
        if mesh is None:
            raise ValueError(
                "Using PartitionSpec when you are not under a mesh context is not allowed. "
                "Please pass a NamedSharding instance or enter into a mesh context via "
                f"`jax.set_mesh`. Got {sharding}")
        return NamedSharding(mesh, sharding)
    return sharding


class Shard:
    """One device's block of an Array (``x.addressable_shards[i]``)."""

    def __init__(self, device: Any, index: tuple, data: Any):
        self.device, self.index, self.data = device, index, data
        self.replica_id = 0

    def __repr__(self) -> str:
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


def typed_part(sharding: Any, ndim: int) -> Any:
    """The part of ``sharding`` a type shows: each dimension's Explicit axes (an entry
    split over Auto axes only shows as None)."""
    if not isinstance(sharding, NamedSharding):
        return sharding
    mesh = sharding.mesh

    def shown(entry: Any) -> Any:
        auto = any(mesh.axis_type(a) != AxisType.Explicit for a in axes_of(entry))
        return None if auto else entry
    spec = sharding.spec.padded(ndim)
    typed = [shown(e) for e in spec]
    return sharding if typed == list(spec) else sharding.with_spec(PartitionSpec(*typed))
