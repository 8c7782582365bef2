"""What the autodiff interpreters need before any primitive exists: ``add_any`` and zeros.

``add_any`` is the primitive that sums tangents and cotangents. It is an ordinary add, but it
gets its own name so that a reader of a jaxpr (and the transpose rules) can tell "two
contributions to one derivative" apart from an ``add`` the user wrote. It is defined here, below
``ad.py`` and ``batching.py``, which give it its JVP, transpose and batching rules (as in JAX's
``ad_util.add_jaxvals_p``).

A zero of a given type needs lax's ``full``, and lax sits above the interpreters (its primitive
blocks fill their tables). So, as in JAX, this module owns a table, ``aval_zeros_likers``, and
lax puts its rule there.
"""
from __future__ import annotations

from typing import Any, Callable

from edujax import core
from edujax.core import Primitive, ShapedArray

add_any_p = Primitive("add_any")
core.abstract_eval_rules[add_any_p] = lambda x, y: ShapedArray(x.shape, x.dtype, x.weak_type)
core.impl_rules[add_any_p] = lambda x, y: x + y

# How to make an array of zeros of a given abstract value, by type of abstract value
# (filled by edujax/lax/base.py).
aval_zeros_likers: dict[type, Callable[[Any], Any]] = {}


def zeros_like_aval(aval: ShapedArray) -> Any:
    """An array of zeros of ``aval``'s shape and dtype."""
    return aval_zeros_likers[type(aval)](aval)
