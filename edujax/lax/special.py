"""``stop_gradient``: the identity function that differentiation treats as a constant."""
from __future__ import annotations

from typing import Any

from edujax import core
from edujax.interpreters import ad, batching
from edujax.core import Primitive

stop_gradient_p = Primitive("stop_gradient")
core.abstract_eval_rules[stop_gradient_p] = lambda x: x
core.impl_rules[stop_gradient_p] = lambda x: x


def _stop_gradient_jvp(primals, tangents):
    x, = primals
    out = stop_gradient_p.bind(x)
    return out, ad.Zero.from_value(out)


ad.jvp_rules[stop_gradient_p] = _stop_gradient_jvp
batching.defvectorized(stop_gradient_p)


def stop_gradient(x: Any) -> Any:
    """Return ``x`` unchanged, but let no gradient flow through it (any pytree works).

    Integer and bool values carry no gradient anyway, so they are returned as is.
    """
    from edujax.tree_util import tree_map

    def stop(leaf):
        if core.get_aval(leaf).dtype.kind not in "fc":
            return leaf
        return stop_gradient_p.bind(leaf)
    return tree_map(stop, x)
