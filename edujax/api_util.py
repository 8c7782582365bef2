"""Helpers every transformation shares: a pytree function as a function of flat leaves (and
a callback as one of flat operands), and the split of static arguments from traced ones.
(JAX keeps these in ``jax._src.api_util``.)

A transformation sees a user function as ``fun(*args, **kwargs)`` over pytrees, but the
interpreters (``trace_to_jaxpr``, ``batch_flat``, ...) work on flat lists of leaves. So each
transformation flattens the arguments (``tree_flatten``), and hands the interpreter
``flatten_fun(fun, in_tree)``: a function that rebuilds the arguments from the leaves, calls
``fun`` and flattens what it returns.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from edujax.tree_util import PyTreeDef, tree_flatten, tree_unflatten

FlatFun = Callable[..., "tuple[list, PyTreeDef]"]  # leaves in -> (leaves out, their structure)


def flatten_fun(fun: Callable, in_tree: PyTreeDef) -> FlatFun:
    """``fun`` on flat leaves, where ``in_tree`` is the structure of ``(args, kwargs)``:
    returns the flat outputs and their structure, which ``trace_to_jaxpr`` passes on."""
    def flat_fun(*leaves: Any) -> tuple[list, PyTreeDef]:
        args, kwargs = tree_unflatten(in_tree, list(leaves))
        return tree_flatten(fun(*args, **kwargs))
    return flat_fun


def flatten_fun_nokwargs(fun: Callable, in_tree: PyTreeDef) -> FlatFun:
    """``flatten_fun`` for a function of positional arguments only (``in_tree``: of args)."""
    def flat_fun(*leaves: Any) -> tuple[list, PyTreeDef]:
        return tree_flatten(fun(*tree_unflatten(in_tree, list(leaves))))
    return flat_fun


def leaves_only(flat_fun: FlatFun) -> tuple[Callable[..., list], Callable[[], PyTreeDef]]:
    """For the interpreters that want the flat outputs alone (``batch_flat``): ``flat_fun``
    returning its leaves, and a function that gives their structure once it has run."""
    out_trees: list = []

    def leaves_fun(*leaves: Any) -> list:
        flat_out, out_tree = flat_fun(*leaves)
        out_trees.append(out_tree)
        return flat_out
    return leaves_fun, lambda: out_trees[0]


class FlatCallback:
    """A callback on pytrees (``pure_callback``, ``jax.debug.callback``) as a function of
    the flat operands its primitive is bound with; it prints as JAX's does (JAX's
    ``_FlatCallback``), or as ``shown_as`` says, with any address masked."""

    def __init__(self, callback_func: Callable, in_tree: PyTreeDef, shown_as: str = ""):
        self.callback_func, self.in_tree, self.shown_as = callback_func, in_tree, shown_as

    def __call__(self, *flat: Any) -> Any:
        args, kwargs = tree_unflatten(self.in_tree, list(flat))
        return self.callback_func(*args, **kwargs)

    def __str__(self) -> str:
        if self.shown_as:
            return self.shown_as
        func = re.sub(r"0x[0-9a-fA-F]+", "0xXXXXXXXXXXXX", repr(self.callback_func))
        return f"_FlatCallback(callback_func={func}, in_tree={self.in_tree})"


def split_static(args: tuple, static_argnums: Sequence[int]) -> tuple[tuple, Callable]:
    """Separate static positional args (baked into the function) from traced ones: returns
    the traced ones and ``rebuild``, which puts the static ones back among them."""
    static = {i % len(args) for i in static_argnums} if args else set()
    dynamic = tuple(a for i, a in enumerate(args) if i not in static)

    def rebuild(dyn: Sequence[Any]) -> list:
        it = iter(dyn)
        return [args[i] if i in static else next(it) for i in range(len(args))]
    return dynamic, rebuild
