"""``jax.debug``: print values and call Python from inside jitted and transformed code.

A plain ``print(x)`` inside a jitted function runs once, while tracing, and shows a tracer.
``jax.debug.print("x={x}", x=x)`` instead becomes an equation of the jaxpr, so it prints
the *values*, every time the compiled function runs, and under ``vmap`` once per example::

    debug_print[fmt=x={x} has_placeholders=True in_tree=PyTreeDef(((), {'x': *})) ...] a

Two primitives, printed exactly as JAX 0.10 prints them:

* ``debug_print``: formats its operands with ``fmt.format(...)`` and prints the line;
* ``debug_callback``: calls a Python function on the operands (``jax.debug.callback``).

Both have no outputs, so nothing downstream depends on them: a dead-code pass must keep them
on purpose (the Numba backend's ``_has_effects`` does). Their rules:

* **JVP**: the primals are printed; tangents are not (JAX does the same);
* **vmap**: the operation runs once per example, on slices: JAX unrolls it the same way;
* **jit**: their reference rule runs when the compiled program reaches them, on the
  reference backend as on Numba's (which calls back into Python for them).
"""
from __future__ import annotations

import re
import sys
from typing import Any, Callable

import numpy as np

from edujax import core, lax
from edujax.array import Array
from edujax.core import Primitive
from edujax.interpreters import ad, batching
from edujax.lax.shape import slice_p
from edujax.sharding.visualize import visualize_array_sharding, visualize_sharding  # noqa: F401
from edujax.api_util import FlatCallback
from edujax.tree_util import tree_flatten, tree_unflatten


def _mask_addresses(text: str) -> str:
    """JAX 0.10 prints functions in jaxprs with their address masked, so jaxprs compare."""
    return re.sub(r"0x[0-9a-fA-F]+", "0xXXXXXXXXXXXX", text)


def _as_arrays(values: list) -> list:
    """Operands arrive as NumPy values (from a backend) or Arrays: hand Arrays to users."""
    return [v if isinstance(v, Array) else Array(np.asarray(v)) for v in values]


def _no_outputs(*avals: core.ShapedArray, **params: Any) -> list:
    return []


def _sequential_batch(prim: Primitive) -> Callable:
    """The batching rule of an effect: the operation once per example, in order."""
    def rule(args, dims, **params):
        size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
        for i in range(size):
            prim.bind(*[x if d is None else _example(x, i, d) for x, d in zip(args, dims)],
                      **params)
        return [], []
    return rule


def _example(x: Any, i: int, axis: int) -> Any:
    """``x``'s slice ``i`` along the batch axis, as JAX writes it (``strides=(1, 1)``).

    NB: ``lax.index_in_dim`` would print ``strides=None``: edujax's ``lax.slice`` drops
    unit strides. JAX's ``index_in_dim`` keeps them, so we bind ``slice`` ourselves.
    """
    shape = core.get_aval(x).shape
    starts, limits = [0] * len(shape), list(shape)
    starts[axis], limits[axis] = i, i + 1
    piece = slice_p.bind(x, start_indices=tuple(starts), limit_indices=tuple(limits),
                         strides=(1,) * len(shape))
    return lax.squeeze(piece, (axis,))


def _primals_only(prim: Primitive) -> Callable:
    """The JVP rule of an effect: apply it to the primals; there is nothing to differentiate."""
    def rule(primals, tangents, **params):
        prim.bind(*primals, **params)
        return [], []
    return rule


# ---------------------------------------------------------------- debug_callback
debug_callback_p = Primitive("debug_callback")
debug_callback_p.multiple_results = True
core.abstract_eval_rules[debug_callback_p] = _no_outputs
ad.jvp_rules[debug_callback_p] = _primals_only(debug_callback_p)
batching.batching_rules[debug_callback_p] = _sequential_batch(debug_callback_p)


def _debug_callback_impl(*args: Any, callback: Callable, effect: Any, partitioned: bool) -> list:
    callback(*_as_arrays(list(args)))
    return []


core.impl_rules[debug_callback_p] = _debug_callback_impl


class DebugEffect:
    """The effect a debug callback has (printed ``effect=Debug`` in jaxprs)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


debug_effect, ordered_debug_effect = DebugEffect("Debug"), DebugEffect("OrderedDebug")
# How JAX prints the callback of a debug_callback equation (the flat callback is a closure
# there, not a _FlatCallback).
SHOWN_AS = ("<function debug_callback.<locals>._debug_callback.<locals>._flat_callback "
            "at 0xXXXXXXXXXXXX>")


def callback(callback: Callable, *args: Any, ordered: bool = False,
             partitioned: bool = False, **kwargs: Any) -> None:
    """Call ``callback(*args, **kwargs)`` with the values of the arrays, at run time.

    Inside ``jit`` it runs each time the compiled function runs; under ``vmap`` once per
    example; under ``grad`` on the primal values. Its return value is ignored.
    """
    flat, in_tree = tree_flatten((args, kwargs))
    debug_callback_p.bind(*flat, callback=FlatCallback(callback, in_tree, SHOWN_AS),
                          effect=ordered_debug_effect if ordered else debug_effect,
                          partitioned=partitioned)


# ---------------------------------------------------------------- debug_print
debug_print_p = Primitive("debug_print")
debug_print_p.multiple_results = True
core.abstract_eval_rules[debug_print_p] = _no_outputs
ad.jvp_rules[debug_print_p] = _primals_only(debug_print_p)
batching.batching_rules[debug_print_p] = _sequential_batch(debug_print_p)


def _format_line(fmt: str, in_tree: Any, values: list, np_printoptions: tuple) -> str:
    args, kwargs = tree_unflatten(in_tree, _as_arrays(values))
    with np.printoptions(**dict(np_printoptions)):
        return fmt.format(*args, **kwargs)


def _debug_print_impl(*args: Any, fmt: str, in_tree: Any, np_printoptions: tuple,
                      **params: Any) -> list:
    sys.stdout.write(_format_line(fmt, in_tree, list(args), np_printoptions) + "\n")
    return []


core.impl_rules[debug_print_p] = _debug_print_impl


def print(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:  # noqa: A001
    """``print(fmt.format(*args, **kwargs))`` with the *values* of the arrays, at run time.

    >>> @jax.jit
    ... def f(x):
    ...     jax.debug.print("x = {x}", x=x)   # prints x's value on every call
    ...     return x * 2
    """
    flat, in_tree = tree_flatten((args, kwargs))
    has_placeholders = bool(re.search(r"\{[^{}]*\}", fmt.replace("{{", "").replace("}}", "")))
    options = tuple(np.get_printoptions().items())
    debug_print_p.bind(*flat, fmt=fmt, has_placeholders=has_placeholders, in_tree=in_tree,
                       logging_record=None, np_printoptions=options, ordered=ordered,
                       partitioned=False, static_args=())


def breakpoint(*, backend: str | None = None, filter_frames: bool = True,  # noqa: A001
               num_frames: int | None = None, ordered: bool = False, token: Any = None,
               **kwargs: Any) -> Any:
    """Stop in Python's debugger when the program reaches this point, at run time.

    Inside ``jit`` it stops each time the compiled function runs. The debugger is whatever
    ``sys.breakpointhook`` starts (pdb by default; ``PYTHONBREAKPOINT`` chooses another).
    NB: JAX's debugger shows the values of the arrays of the enclosing Python frames; here
    the values reached are passed to the hook as ``values`` (none unless given as kwargs).
    """
    flat, in_tree = tree_flatten(kwargs)

    def stop(*values: Any) -> None:
        sys.breakpointhook(values=tree_unflatten(in_tree, list(values)))

    callback(stop, *flat, ordered=ordered)
    return token


__all__ = ["print", "callback", "breakpoint", "DebugEffect"]
