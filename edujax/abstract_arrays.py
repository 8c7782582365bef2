"""Abstract values: what a tracer knows about an array (shape, dtype, weak type), not its numbers.

``ShapedArray`` is the type every abstract rule computes with. It sits below both ``array.py``
(an Array's ``.aval``) and ``core.py`` (tracers, bind), which re-exports it as ``core.ShapedArray``.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np


class ManualAxisType(NamedTuple):
    varying: frozenset


class ShapedArray:
    """What a tracer knows about its value: shape, dtype and weak_type, not the numbers.

    Two more facts, empty for arrays not on a mesh (edujax/sharding/in_types.py fills them):
    ``sharding``, how the value is split over a mesh's Explicit axes (``f32[8@x,4@y]``), and
    ``vma``, inside ``shard_map``, the mesh axes along which it varies (``f32[2]{V:x}``).
    """

    __slots__ = ("shape", "dtype", "weak_type", "sharding", "vma")
    array_abstraction_level = 1

    def __init__(self, shape: tuple[int, ...], dtype: Any, weak_type: bool = False,
                 sharding: Any = None, vma: frozenset = frozenset()):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)
        self.sharding = sharding
        self.vma = vma

    @property
    def manual_axis_type(self) -> ManualAxisType:
        """JAX 0.10's name for what ``vma`` records: ``.varying``, the mesh axes along which
        the value differs from device to device inside shard_map."""
        return ManualAxisType(frozenset(self.vma))

    @classmethod
    def fast(cls, shape: tuple[int, ...], dtype: np.dtype, weak_type: bool) -> ShapedArray:
        """Build one from values that are already a tuple, a np.dtype and a bool (hot path)."""
        aval = object.__new__(cls)
        aval.shape, aval.dtype, aval.weak_type = shape, dtype, weak_type
        aval.sharding, aval.vma = None, _NO_AXES
        return aval

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))

    def update(self, shape=None, dtype=None, weak_type=None, sharding=None,
               vma=None) -> ShapedArray:
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type,
                           self.sharding if sharding is None else sharding,
                           self.vma if vma is None else vma)

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def str_short(self, short_dtypes: bool = False) -> str:
        """``float32[2,3]``, or ``f32[2,3]`` with short dtypes (the jaxpr form)."""
        name = short_dtype_name(self.dtype) if short_dtypes else dtype_name(self.dtype)
        if self.sharding is None and not self.vma:
            return f"{name}[{','.join(map(str, self.shape))}]"
        return f"{name}[{','.join(self._dim_strs())}]{_vma_str(self.vma)}"

    def _dim_strs(self) -> list[str]:
        """``8@x`` for a dimension split over Explicit mesh axis x, ``16@(x,y)`` over two."""
        if self.sharding is None:
            return list(map(str, self.shape))
        spec = self.sharding.spec.padded(len(self.shape))
        out = []
        for n, entry in zip(self.shape, spec):
            axes = self.sharding.explicit_axes(entry)
            where = "" if not axes else "@" + (axes[0] if len(axes) == 1 else f"({','.join(axes)})")
            out.append(f"{n}{where}")
        return out

    def __eq__(self, other: object) -> bool:
        return (type(other) is ShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type
                and self.sharding == other.sharding and self.vma == other.vma)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type, self.sharding, self.vma))

    def __str__(self) -> str:
        return ("~" if self.weak_type else "") + self.str_short()  # ~ marks a weak type

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"


_NO_AXES: frozenset = frozenset()


def _vma_str(vma: frozenset) -> str:
    """``{V:x}``, ``{V:(x,y)}``: the axes a shard_map value varies along."""
    if not vma:
        return ""
    names = sorted(vma)
    return "{V:" + (names[0] if len(names) == 1 else f"({','.join(names)})") + "}"


def dtype_name(dtype: np.dtype) -> str:
    """``float32``; a record dtype (a PRNG key, ``key<fry>``) goes by its scalar type's name."""
    return dtype.type.__name__ if dtype.kind == "V" else dtype.name


def short_dtype_name(dtype: np.dtype) -> str:
    if dtype.kind == "V":
        return dtype_name(dtype)
    return (dtype.name.replace("float", "f").replace("uint", "u")
            .replace("int", "i").replace("complex", "c"))
