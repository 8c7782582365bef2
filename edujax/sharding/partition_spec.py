"""``PartitionSpec`` (``P``): for each array dimension, the mesh axis (or axes) it is split over.

``P('x', None)`` splits dimension 0 over mesh axis ``x`` and keeps dimension 1 whole on every
device; ``P(('x', 'y'))`` splits dimension 0 over both axes at once (x major). A spec shorter
than the array leaves the remaining dimensions whole.
"""
from __future__ import annotations

from typing import Any


class PartitionSpec(tuple):
    """A tuple of mesh axis names, ``None``, or tuples of names; one entry per dimension."""

    def __new__(cls, *partitions: Any, unreduced: Any = frozenset(), reduced: Any = frozenset()):
        spec = super().__new__(cls, tuple(_canonical(p) for p in partitions))
        spec.unreduced = frozenset(unreduced)
        spec.reduced = frozenset(reduced)
        return spec

    def __repr__(self) -> str:
        body = ", ".join(repr(p) for p in self)
        if len(self) == 1 and not (self.unreduced or self.reduced):
            body += ","  # P('x',) as JAX prints it, like a one-tuple
        if self.unreduced:
            body += f", unreduced={set(sorted(self.unreduced))!r}"
        if self.reduced:
            body += f", reduced={set(sorted(self.reduced))!r}"
        return f"P({body})"

    __str__ = __repr__

    def __eq__(self, other: Any) -> bool:
        # JAX: a spec equals only another spec, with the same entries (P('x') != P('x', None))
        return (isinstance(other, PartitionSpec) and tuple(self) == tuple(other)
                and self.unreduced == other.unreduced and self.reduced == other.reduced)

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((tuple(self), self.unreduced, self.reduced))

    def __reduce__(self):
        return (PartitionSpec, tuple(self))

    def padded(self, ndim: int) -> tuple:
        """One entry per dimension: the spec, then ``None`` for the dimensions it leaves out."""
        return tuple(self) + (None,) * (ndim - len(self))


def _canonical(p: Any) -> Any:
    """A list of names is a tuple; a one-name tuple stays a tuple (P(('x',)) is JAX's too)."""
    return tuple(p) if isinstance(p, list) else p


def axes_of(entry: Any) -> tuple:
    """The mesh axes one spec entry names: () for None, ('x',) for 'x', the tuple itself."""
    if entry is None:
        return ()
    return tuple(entry) if isinstance(entry, tuple) else (entry,)
