"""The cache-hit fast path of ``jit``: a plan, made once, of what a repeated call must check.

A training loop calls one jitted function with arguments of one signature, thousands of
times. The general path (``api.py``) rebuilds that signature on every call: it flattens the
arguments into a new ``PyTreeDef``, builds a tuple ``(shape, dtype, weak_type, sharding)`` per
leaf, hashes the lot and looks it up. A ``HitPlan`` is the same signature worked out once,
after a call of positional arguments whose leaves are all Arrays, kept as the function's
*last* signature. The next call is compared with it directly, with nothing built:

* the structure, by walking the arguments along the plan's tree of built-in containers
  (tuple, list, dict with the same keys, None) and collecting the leaves;
* each leaf: exactly an ``Array``, with the same shape, dtype, weak type and sharding;
* the backend and x64 mode, by the identity of ``api``'s mode tuple (rebuilt on any config
  change, so a plan never outlives one).

Any difference, or any container of another kind (a namedtuple, a registered class), and
the plan answers ``None``: the call takes the general path, which checks and raises exactly
as before and makes the plan of the new signature. A hit counts in ``cache_info()`` like
any other and runs the backend's fastest entry into the compiled driver.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax.array import Array

# A plan's tree: None for a leaf, else (node type, dict keys or None, children). Only the
# built-in containers, whose flattening is fixed (a registered type's is the user's code).
PlanNode = Any
_SEQUENCES = (tuple, list)


def plan_tree(treedef: Any) -> PlanNode | None:
    """``treedef`` as a plan's tree, or None when it has a node of another kind."""
    node = treedef.node_data()
    if node is None:
        return None  # a leaf (the caller asks for a container at the root)
    nodetype, data = node
    if nodetype is type(None):
        return (nodetype, None, ())
    if nodetype not in _SEQUENCES and nodetype is not dict:
        return None
    children = []
    for child in treedef.children():
        if child.node_data() is None:
            children.append(None)
            continue
        sub = plan_tree(child)
        if sub is None:
            return None
        children.append(sub)
    return (nodetype, tuple(data) if nodetype is dict else None, tuple(children))


def _gather(node: PlanNode, tree: Any, leaves: list) -> bool:
    """Append ``tree``'s leaves to ``leaves`` if it has exactly ``node``'s structure."""
    nodetype, keys, children = node
    if type(tree) is not nodetype:
        return False
    if keys is not None:  # a dict: the same key set (so the same sorted order)
        if len(tree) != len(keys):
            return False
        try:
            items = [tree[k] for k in keys]
        except (KeyError, TypeError):
            return False
    elif nodetype is type(None):
        return True
    else:
        if len(tree) != len(children):
            return False
        items = tree
    for child, item in zip(children, items):
        if child is None:
            leaves.append(item)
        elif not _gather(child, item, leaves):
            return False
    return True


class HitPlan:
    """One signature of a jitted function, ready to be compared with a call and run."""

    __slots__ = ("cache", "entry", "mode", "tree", "leaf_keys", "call", "final",
                 "out_single")

    def __init__(self, cache: Any, entry: Any, mode: tuple, tree: PlanNode | None,
                 leaf_keys: tuple):
        self.cache, self.entry, self.mode = cache, entry, mode
        self.tree = tree  # None: the arguments themselves are the leaves
        self.leaf_keys = leaf_keys  # per leaf: (shape, dtype, weak_type, sharding)
        self.call, self.final = _direct_call(entry.executable)
        # One plain output (the commonest case) is wrapped without the general loop.
        avals = entry.out_avals
        self.out_single = (entry.out_is_leaf and avals[0].sharding is None
                           and (avals[0].dtype, avals[0].weak_type))

    def values(self, args: tuple) -> list | None:
        """The NumPy values of ``args`` if they have this plan's signature, else None."""
        if self.tree is None:
            leaves = args
            if len(leaves) != len(self.leaf_keys):
                return None
        else:
            leaves = []
            if not _gather(self.tree, args, leaves):
                return None
        values = []
        for a, (shape, dtype, weak, sharding) in zip(leaves, self.leaf_keys):
            if type(a) is not Array:
                return None
            v = a._value
            if (v.shape != shape or (v.dtype is not dtype and v.dtype != dtype)
                    or a._weak_type != weak or a._sharding is not sharding):
                return None
            values.append(v)
        return values

    def run(self, values: list, outputs: Callable[[Any, list], Any]) -> Any:
        """Count the hit, run the compiled program, wrap its outputs (``outputs`` for all
        but one plain output)."""
        entry, cache = self.entry, self.cache
        cache.count_hit(entry)
        cache.entries.move_to_end(entry.key)  # keep the LRU order true
        outs = self.call(*values)
        if not self.final:  # a tiered program may have switched to its kernels since
            self.call, self.final = _direct_call(entry.executable)
        single = self.out_single
        if single:
            o = outs[0]
            if type(o) is np.ndarray and o.dtype == single[0]:
                return Array(o, single[1])
        return outputs(entry, outs)


def _direct_call(executable: Any) -> tuple[Callable, bool]:
    """The backend's fastest callable that does what ``executable(*values)`` does, and
    whether it is final (a tiered executable changes once its kernels are compiled)."""
    direct = getattr(executable, "direct_call", None)
    if direct is None:
        return executable, True
    call = direct()
    return (executable, False) if call is None else (call, True)
