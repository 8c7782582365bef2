"""``jax.custom_batching.custom_vmap``: a function with its own rule for ``vmap``.

    @custom_vmap
    def f(x, y):
        return x + y

    @f.def_vmap
    def f_vmap_rule(axis_size, in_batched, xs, ys):
        return xs - ys, True          # the batched outputs, and which of them are batched

Called on its own, ``f`` runs its body. Under ``vmap``, edujax does not batch the body: it
calls the rule once, with the batched arguments' batch dimension moved to the front, and
trusts what the rule says it returned. Staged (``make_jaxpr``, ``jit``), ``f`` is one
``custom_vmap_call`` equation holding the body's jaxpr and the rule, as JAX prints it.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from edujax import core
from edujax.api_util import flatten_fun_nokwargs
from edujax.core import Primitive
from edujax.interpreters import batching
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import run_jaxpr
from edujax.tree_util import tree_flatten, tree_unflatten

custom_vmap_call_p = Primitive("custom_vmap_call")
custom_vmap_call_p.multiple_results = True


class custom_vmap:  # noqa: N801 - JAX's name
    """Wrap ``fun``; give its vmap rule with ``def_vmap``."""

    def __init__(self, fun: Callable):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule: Callable | None = None

    def def_vmap(self, rule: Callable) -> Callable:
        self.vmap_rule = rule
        return rule

    def __call__(self, *args: Any) -> Any:
        if self.vmap_rule is None:
            raise AttributeError(f"No batching rule defined for custom_vmap function "
                                 f"{self.__name__} using def_vmap.")
        leaves, in_tree = tree_flatten(([], args))
        _, args_tree = tree_flatten(args)
        avals = [core.get_aval(x) for x in leaves]
        call, out_tree = trace_to_jaxpr(flatten_fun_nokwargs(self.fun, args_tree), avals)
        outs = custom_vmap_call_p.bind(*leaves, call=call, in_tree=in_tree,
                                       out_tree=out_tree, rule=self.vmap_rule)
        return tree_unflatten(out_tree, outs)


core.abstract_eval_rules[custom_vmap_call_p] = lambda *avals, call, **_: call.out_avals
core.impl_rules[custom_vmap_call_p] = lambda *args, call, **_: run_jaxpr(
    call.jaxpr, call.consts, list(args))


def _batch_rule(args: list, dims: list, *, call: Any, in_tree: Any, out_tree: Any,
                rule: Callable) -> tuple:
    """The user's rule on the arguments, batch dimensions in front."""
    axis_size = next(x.shape[d] for x, d in zip(args, dims) if d is not batching.not_mapped)
    front = [batching.moveaxis(x, d, 0) if d is not batching.not_mapped else x
             for x, d in zip(args, dims)]
    in_batched = [d is not batching.not_mapped for d in dims]
    user_args = tree_unflatten(in_tree, front)[1]  # (the tree is ([], args))
    _, in_batched_tree = tree_unflatten(in_tree, in_batched)
    outs, out_batched = rule(axis_size, list(in_batched_tree), *user_args)
    flat_outs, _ = tree_flatten(outs)
    flat_batched = (tree_flatten(out_batched)[0] if isinstance(out_batched, (list, tuple))
                    else [out_batched] * len(flat_outs))
    return flat_outs, [0 if b else batching.not_mapped for b in flat_batched]


batching.batching_rules[custom_vmap_call_p] = _batch_rule
