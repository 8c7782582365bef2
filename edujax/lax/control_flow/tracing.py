"""Tracing the user's functions (branches, loop bodies) into closed jaxprs for the primitives.

``_trace`` turns a Python function and the abstract values of its arguments into a
ClosedJaxpr with debug information that names the function and its arguments, the way JAX's
error messages and printed jaxprs do.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from edujax.api_util import flatten_fun_nokwargs
from edujax import core
from edujax.core import ShapedArray
from edujax.interpreters.partial_eval import DebugInfo, func_name, func_source, trace_to_jaxpr
from edujax.jaxpr import ClosedJaxpr, Jaxpr
from edujax.tree_util import (PyTreeDef, keystr, tree_flatten_with_path,
                              tree_unflatten)


# ====================================================================== tracing user functions

def _abstractify(x: Any) -> ShapedArray:
    try:
        return core.get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


def _fun_sourceinfo(fun: Callable) -> str:
    """``name at file:line``, how JAX names a function in its error messages."""
    return f"{func_name(fun)} at {func_source(fun)}"


def _arg_names(fun: Callable, args_tree: PyTreeDef) -> tuple[str, ...]:
    """A name per flat argument (``c[1]``, ``x``), from the parameters of ``fun``."""
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    dummy = tree_unflatten(args_tree, [0] * args_tree.num_leaves)
    names = []
    for path, _ in tree_flatten_with_path(dummy)[0]:
        i = path[0].idx
        names.append((params[i] if i < len(params) else f"args[{i}]") + keystr(path[1:]))
    return tuple(names)


def _debug_info(fun: Callable, args_tree: PyTreeDef, what: str) -> DebugInfo:
    """What errors raised while tracing ``fun`` say about it ("... for cond", argument names).

    Wrappers built by fori_loop carry the user's body function's info instead.
    """
    info = getattr(fun, "_edujax_debug_info", None)
    if info is not None:
        return info
    return DebugInfo(what, func_name(fun), func_source(fun), _arg_names(fun, args_tree))


def _trace(fun: Callable, in_tree: PyTreeDef, in_avals: list[ShapedArray],
           what: str) -> tuple[ClosedJaxpr, list, PyTreeDef]:
    """Trace ``fun(*args)`` into a jaxpr, where ``in_tree`` is the structure of ``args``.

    Returns the jaxpr with its constants *separated*: the constvars become the
    leading invars, and their values (arrays, or tracers of an enclosing trace)
    are returned beside it, to be passed as leading operands.
    """
    closed, out_tree = trace_to_jaxpr(flatten_fun_nokwargs(fun, in_tree), in_avals,
                                      _debug_info(fun, in_tree, what))
    jaxpr = closed.jaxpr
    separated = Jaxpr([], [*jaxpr.constvars, *jaxpr.invars], jaxpr.outvars, jaxpr.eqns,
                      jaxpr.debug_info)
    return ClosedJaxpr(separated, []), list(closed.consts), out_tree


def _with_jaxpr(closed: ClosedJaxpr, **changes: Any) -> ClosedJaxpr:
    j = closed.jaxpr
    fields = dict(constvars=j.constvars, invars=j.invars, outvars=j.outvars, eqns=j.eqns,
                  debug_info=j.debug_info)
    fields.update(changes)
    return ClosedJaxpr(Jaxpr(**fields), closed.consts)
