"""Registrars shared by the primitive families in this package.

A primitive is defined in one block: create it with ``standard_primitive`` (which
fills the abstract-evaluation table from a shape rule, a dtype rule and a
weak-type rule) and give it a NumPy reference implementation. Later blocks in
the same file add its JVP, transpose and batching rules.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.pretty import hide_params, pp_eqn_rules


def standard_weak_type_rule(*avals: ShapedArray, **params) -> bool:
    """An output is weakly typed only if every input was (``2.0 * 3.0`` stays weak)."""
    return all(a.weak_type for a in avals)


def first_input_weak_type_rule(operand: ShapedArray, *avals: ShapedArray, **params) -> bool:
    return operand.weak_type


def _standard_abstract_eval(shape_rule, dtype_rule, weak_type_rule, *avals, **params):
    return ShapedArray(shape_rule(*avals, **params), dtype_rule(*avals, **params),
                       weak_type_rule(*avals, **params))


def naryop_abstract_eval(name: str, kinds: str, *avals: ShapedArray, **params) -> ShapedArray:
    """The abstract rule of an elementwise primitive, shape + dtype + weak type at once.

    Operands of one shape and one accepted dtype are the common case and take the
    first line; anything else goes through the full rules, which broadcast size-1
    dimensions and raise JAX's errors.
    """
    first = avals[0]
    shape, dtype = first.shape, first.dtype
    if dtype.kind in kinds:
        if len(avals) == 1:
            return ShapedArray.fast(shape, dtype, first.weak_type)
        second = avals[1]
        if len(avals) == 2 and second.shape == shape and second.dtype == dtype:
            return ShapedArray.fast(shape, dtype, first.weak_type and second.weak_type)
    return ShapedArray(broadcasting_shape_rule(name, *avals),
                       checked_dtype_rule(name, kinds, *avals),
                       standard_weak_type_rule(*avals))


def standard_primitive(name: str, shape_rule: Callable, dtype_rule: Callable, impl: Callable,
                       weak_type_rule: Callable = standard_weak_type_rule,
                       pp_hidden: tuple[str, ...] = ()) -> Primitive:
    """Make a primitive whose output aval comes from separate shape/dtype/weak rules."""
    prim = Primitive(name)
    core.abstract_eval_rules[prim] = partial(_standard_abstract_eval, shape_rule, dtype_rule,
                                             weak_type_rule)
    core.impl_rules[prim] = impl
    if pp_hidden:
        pp_eqn_rules[prim] = hide_params(*pp_hidden)
    return prim


# ---------------------------------------------------------------- dtype checks

def _kind_names(kinds: str) -> str:
    names = {"b": "bool", "i": "signedinteger", "u": "unsignedinteger", "f": "floating",
             "c": "complexfloating"}
    return ", ".join(names[k] for k in kinds)


def checked_dtype_rule(name: str, kinds: str, *avals: ShapedArray, **params) -> np.dtype:
    """All operands share one dtype, of one of the accepted kinds (b, i, u, f, c)."""
    dtype = avals[0].dtype
    if dtype.kind in kinds and all(a.dtype == dtype for a in avals):
        return dtype  # the common case, checked cheaply first
    for i, aval in enumerate(avals):
        if aval.dtype.kind not in kinds:
            where = f" at position {i}" if len(avals) > 1 else ""
            raise TypeError(f"{name} does not accept dtype {aval.dtype.name}{where}. "
                            f"Accepted dtypes{where} are subtypes of {_kind_names(kinds)}.")
    dtypes = [a.dtype for a in avals]
    if len(set(dtypes)) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(d.name for d in dtypes)}. (Tip: jnp.{name} is a similar "
                        "function that does automatic type promotion on inputs).")
    return dtypes[0]


def broadcasting_shape_rule(name: str, *avals: ShapedArray, **params) -> tuple[int, ...]:
    """lax's elementwise broadcasting: scalars, equal dims, or dims of size 1.

    NB: unlike NumPy, lax never adds dimensions: operands must have the same rank
    (a rank-0 scalar is the one exception). jnp does the rank promotion first.
    """
    shape = avals[0].shape
    if all(a.shape == shape for a in avals):
        return shape  # the common case: nothing to broadcast
    shapes = [a.shape for a in avals if a.shape]
    if not shapes:
        return ()
    if len({len(s) for s in shapes}) != 1:
        raise TypeError(f"{name}: arrays must have same number of dimensions, got "
                        f"{', '.join(map(str, shapes))}.")
    out = []
    for dims in zip(*shapes):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(map(str, shapes))}.")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)
