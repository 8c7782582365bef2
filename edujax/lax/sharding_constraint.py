"""``jax.lax.with_sharding_constraint(x, sharding)``: ask for a layout in the middle of a program.

On Auto mesh axes the layout of intermediate values is the compiler's choice; a constraint
pins one (the equation ``sharding_constraint[sharding=NamedSharding(...)]``). The values do
not change, so the reference rule is the identity; the output's sharding is the one asked
for, so a jitted function's output that went through it comes back laid out that way.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core
from edujax.core import Primitive
from edujax.interpreters import ad, batching
from edujax.sharding.mesh import current_mesh
from edujax.sharding.named_sharding import as_named_sharding
from edujax.sharding.partition_spec import PartitionSpec
from edujax.tree_util import tree_map

sharding_constraint_p = Primitive("sharding_constraint")


def _abstract_eval(x: Any, *, sharding: Any, **_: Any) -> Any:
    return x.update(sharding=sharding.abstract())


core.abstract_eval_rules[sharding_constraint_p] = _abstract_eval
core.impl_rules[sharding_constraint_p] = lambda x, **_: np.asarray(x)
ad.deflinear(sharding_constraint_p, lambda ct, x, **params: [ad.instantiate_zeros(ct)])


def _batch_rule(args: list, dims: list, *, sharding: Any, **params: Any) -> tuple:
    """Under vmap the batch dimension (moved to the front) is left whole."""
    (x,), (d,) = args, dims
    x = batching.moveaxis(x, d, 0)
    spec = PartitionSpec(None, *sharding.spec)
    return sharding_constraint_p.bind(x, sharding=sharding.with_spec(spec), **params), 0


batching.batching_rules[sharding_constraint_p] = _batch_rule


class _NoMesh:
    """The context mesh outside ``set_mesh``: JAX prints it ``Mesh()``."""

    def __repr__(self) -> str:
        return "Mesh()"


class _Dims(frozenset):
    """Dimensions left unconstrained, printed as JAX prints them (``frozenset({})``)."""

    def __repr__(self) -> str:
        return "frozenset({" + ", ".join(map(repr, sorted(self))) + "})"

    __str__ = __repr__


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """Each array of ``x`` laid out as ``shardings`` says (a NamedSharding, or under
    ``set_mesh`` a PartitionSpec)."""
    named = as_named_sharding(shardings)
    context = current_mesh() or _NoMesh()
    return tree_map(lambda leaf: sharding_constraint_p.bind(
        leaf, context_mesh=context, layout=None, sharding=named,
        unconstrained_dims=_Dims()), x)
