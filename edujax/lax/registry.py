"""Registrars shared by the primitive families in this package.

A primitive is defined in one block: create it with ``standard_primitive`` (which
fills the abstract-evaluation table from a shape rule, a dtype rule and a
weak-type rule) and give it a NumPy reference implementation. Later blocks in
the same file add its JVP, transpose and batching rules.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, NamedTuple

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import batching
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

    Operands of one accepted dtype and one shape (or a rank-0 scalar beside an array,
    as in ``x * 2.0``) are the common case and take the first lines; anything else goes
    through the full rules, which broadcast size-1 dimensions and raise JAX's errors.
    """
    first = avals[0]
    shape, dtype = first.shape, first.dtype
    if dtype.kind in kinds:
        if len(avals) == 1:
            return ShapedArray.fast(shape, dtype, first.weak_type)
        second = avals[1]
        if len(avals) == 2 and second.dtype == dtype:
            if second.shape == shape or not second.shape or not shape:
                weak = first.weak_type and second.weak_type
                # The output's type may be an input's own (avals are never changed in place):
                # in ``x + y`` on two arrays of one type, no new ShapedArray per operation.
                if (second.shape == shape and weak == first.weak_type
                        and type(first) is ShapedArray and first.sharding is None
                        and not first.vma):
                    return first
                return ShapedArray.fast(shape or second.shape, dtype, weak)
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
# A primitive accepts a few *families* of dtypes, named in error messages after
# NumPy's abstract types ("integer", "floating", ...). A family covers some NumPy
# dtype kinds (``dtype.kind``: b bool, i signed, u unsigned, f float, c complex).
class DtypeFamily(NamedTuple):
    name: str
    kinds: str


INTEGER = DtypeFamily("integer", "iu")
SIGNED = DtypeFamily("signedinteger", "i")
FLOATING = DtypeFamily("floating", "f")
COMPLEX = DtypeFamily("complexfloating", "c")
BOOL = DtypeFamily("bool", "b")
NUMBER = DtypeFamily("number", "iufc")


class Accepted(str):
    """What a primitive accepts: a string of dtype kinds, so that the hot check is
    just ``dtype.kind in accepted``, which also remembers the families' names."""

    names: str

    def __new__(cls, *families: DtypeFamily) -> Accepted:
        self = super().__new__(cls, "".join(f.kinds for f in families))
        self.names = ", ".join(f.name for f in families)
        return self


def accepted(*families: DtypeFamily) -> Accepted:
    return Accepted(*families)


def check_dtype_families(name: str, accepted_kinds, *avals: ShapedArray) -> None:
    """Every operand's dtype must belong to one of the accepted families.

    ``accepted_kinds`` is one ``Accepted`` shared by all operands, or a list with one
    per operand position (``pow`` takes a float base and an int or float power).
    """
    per_position = (accepted_kinds if isinstance(accepted_kinds, list)
                    else [accepted_kinds] * len(avals))
    for i, (aval, kinds) in enumerate(zip(avals, per_position)):
        if aval.dtype.kind not in kinds:
            where = f" at position {i}" if len(avals) > 1 else ""
            raise TypeError(f"{name} does not accept dtype {aval.dtype.name}{where}. "
                            f"Accepted dtypes{where} are subtypes of {kinds.names}.")


# When lax refuses operands of different dtypes, JAX names the jnp function that
# would have promoted them for you.
_JNP_EQUIVALENTS = {
    "abs": "fabs", "acos": "arccos", "acosh": "arccosh", "add": "add", "asin": "arcsin",
    "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh",
    "cbrt": "cbrt", "ceil": "ceil", "concatenate": "concatenate", "cos": "cos", "cosh": "cosh",
    "div": "divide", "eq": "equal", "exp": "exp", "expm1": "expm1", "floor": "floor",
    "log": "log", "log1p": "log1p", "max": "maximum", "min": "minimum", "mul": "multiply",
    "ne": "not_equal", "neg": "negative", "nextafter": "nextafter", "pow": "float_power",
    "round": "round", "select": "where", "shift_left": "left_shift",
    "shift_right_logical": "right_shift", "shift_right_arithmetic": "right_shift",
    "sign": "sign", "sin": "sin", "sinh": "sinh", "sqrt": "sqrt", "sub": "subtract",
    "tan": "tan", "tanh": "tanh",
}


def check_same_dtypes(name: str, *avals: ShapedArray) -> None:
    """lax never promotes: all operands must already share one dtype."""
    dtypes = [a.dtype for a in avals]
    if any(d != dtypes[0] for d in dtypes[1:]):
        tip = (f" (Tip: jnp.{_JNP_EQUIVALENTS[name]} is a similar function that does automatic"
               " type promotion on inputs)." if name in _JNP_EQUIVALENTS else "")
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(d.name for d in dtypes)}.{tip}")


def checked_dtype_rule(name: str, kinds: Accepted, *avals: ShapedArray, **params) -> np.dtype:
    """The usual dtype rule: accepted families, one shared dtype, which is the result."""
    check_dtype_families(name, kinds, *avals)
    check_same_dtypes(name, *avals)
    return avals[0].dtype


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
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
    out = []
    for dims in zip(*shapes):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(map(str, shapes))}.")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


# ---------------------------------------------------------------- shape primitives
def dtype_of_first(x: ShapedArray, *args: Any, **params: Any) -> np.dtype:
    return x.dtype


def shape_primitive(name: str, shape_rule, impl, pp_hidden: tuple[str, ...] = ()) -> Primitive:
    """A primitive whose output has the operand's dtype and weak type, and a new shape."""
    return standard_primitive(name, shape_rule, dtype_of_first, impl,
                              weak_type_rule=first_input_weak_type_rule, pp_hidden=pp_hidden)


# ---------------------------------------------------------------- reductions
def reduce_shape_rule(x: ShapedArray, *, axes, **params) -> tuple[int, ...]:
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    if any(not 0 <= a < x.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for {x}.")
    return tuple(d for i, d in enumerate(x.shape) if i not in axes)


def reduction(name: str, np_fn, kinds: str) -> Primitive:
    def impl(x, *, axes, **params):
        return np_fn(x, axis=tuple(axes), dtype=x.dtype) if axes else x
    return standard_primitive(name, reduce_shape_rule, partial(checked_dtype_rule, name, kinds),
                              impl, weak_type_rule=first_input_weak_type_rule)


# A reduction leaves the batch dimension where it is: axes at or after it shift by one, and
# the batch dimension of the result is its position among the axes that remain (JAX's
# ``reducer_batcher``; like JAX, the shifted axes are NumPy integers, and jaxprs show them so).
def axes_batch(prim):
    def rule(args, dims, *, axes, **params):
        (x,), (bdim,) = args, dims
        axes = tuple(np.where(np.less(axes, bdim), axes, np.add(axes, 1)))
        kept = [d for d in range(np.ndim(x)) if d not in axes]
        return prim.bind(x, axes=axes, **params), kept.index(bdim)
    batching.batching_rules[prim] = rule
