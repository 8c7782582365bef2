"""``jax.sharding.reshard(x, sharding)``: the same values, laid out over the mesh another way.

Under explicit sharding a change of layout is never implicit: it is this primitive, one
equation in the jaxpr (``b:f32[8@y,4] = reshard a``). Its sharding rule
(sharding/in_types.py) gives the output the sharding asked for; on real devices it moves
blocks between them (an all-to-all, an all-gather...); here each value stays whole, and only
its type and the blocks its devices report change. The backends treat it as an identity.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core
from edujax.core import Primitive
from edujax.interpreters import ad
from edujax.pretty import pp_eqn_default, pp_eqn_rules
from edujax.sharding.named_sharding import as_named_sharding
from edujax.tree_util import tree_map

reshard_p = Primitive("reshard")
core.abstract_eval_rules[reshard_p] = lambda x, *, sharding: x.update(sharding=sharding.abstract())
core.impl_rules[reshard_p] = lambda x, *, sharding: np.asarray(x)
ad.deflinear(reshard_p, lambda ct, x, *, sharding: [ad.instantiate_zeros(ct)])
# JAX prints ``reshard a``: the sharding asked for is in the output's type already.
pp_eqn_rules[reshard_p] = lambda eqn, ctx: pp_eqn_default(eqn.replace(params={}), ctx)


def reshard(xs: Any, out_shardings: Any) -> Any:
    """Each array of ``xs`` laid out as ``out_shardings`` (a NamedSharding, or a
    PartitionSpec under ``set_mesh``) says."""
    named = as_named_sharding(out_shardings)
    return tree_map(lambda x: reshard_p.bind(x, sharding=named), xs)
