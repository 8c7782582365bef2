"""The cache-hit fast path of ``jit``: a plan, made once, of what a repeated call must check.

A training loop calls one jitted function with arguments of one signature, thousands of
times. The general path (``api.py``) rebuilds that signature on every call: it flattens the
arguments into a new ``PyTreeDef``, builds a tuple ``(shape, dtype, weak_type, sharding)`` per
leaf, hashes the lot and looks it up. A ``HitPlan`` is the same signature worked out once,
after a call of positional arguments whose leaves are all Arrays, kept as the function's
*last* signature: a small Python function written for that one signature (``source``) that
compares the next call with it and, when nothing differs, runs the compiled program:

* the structure: each built-in container (tuple, list, dict with the same keys, None) of
  the exact type and size, opened where the plan's structure has one;
* each leaf: exactly an ``Array``, with the same shape, dtype, weak type and sharding;
* the backend and x64 mode: by the identity of ``api``'s mode tuple, which is rebuilt on
  any config change, so a plan never outlives one (``api.py`` checks ``mode``).

Any difference, or any container of another kind (a namedtuple, a registered class), and
it answers ``MISS``: the call takes the general path, which checks and raises exactly as
before and makes the plan of the new signature. A hit counts in ``cache_info()`` like any
other, and calls the backend's fastest entry into the compiled driver (``direct_call``).
Writing the checks out as straight-line code, with the expected shapes and dtypes as
constants, is what makes them cheap: no loop, no recursion, no tuple built per leaf.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax.array import Array

MISS = object()  # what a plan's function returns when the call is not its signature
_SEQUENCES = (tuple, list)


def plannable(treedef: Any) -> bool:
    """Is ``treedef`` made of leaves and built-in containers only (tuple, list, dict, None)?"""
    node = treedef.node_data()
    if node is None:
        return True
    nodetype = node[0]
    if nodetype is not type(None) and nodetype is not dict and nodetype not in _SEQUENCES:
        return False
    return all(plannable(child) for child in treedef.children())


class HitPlan:
    """One signature of a jitted function, as a function ``hit(args)`` that runs it."""

    __slots__ = ("mode", "args_tree", "final", "source", "hit", "_cache", "_executable")

    def __init__(self, cache: Any, entry: Any, mode: tuple, args_tree: Any, leaf_keys: tuple,
                 outputs: Callable[[Any, list], Any]):
        """``args_tree``: the structure of the positional arguments (a plannable tuple);
        ``leaf_keys``: per leaf, (shape, dtype, weak_type, sharding); ``outputs(entry,
        outs)``: the general wrapping of the program's outputs as Arrays."""
        self.mode, self.args_tree = mode, args_tree
        self._cache, self._executable = cache, entry.executable
        call, self.final = _direct_call(entry.executable)
        writer = _Writer()
        root = writer.name("args")
        writer.match(args_tree, root)
        namespace = {"MISS": MISS, "Array": Array, "ndarray": np.ndarray,
                     "count_hit": cache.count_hit, "move_to_end": cache.entries.move_to_end,
                     "ENTRY": entry, "KEY": entry.key, "outputs": outputs,
                     "call": call if self.final else self._call_tiered}
        values = [writer.check_leaf(leaf, key) for leaf, key in zip(writer.leaves, leaf_keys)]
        lines = [f"def hit({root}):", *writer.lines,
                 "    count_hit(ENTRY)",
                 "    move_to_end(KEY)  # keep the LRU order true",
                 f"    outs = call({', '.join(values)})"]
        avals = entry.out_avals
        if entry.out_is_leaf and avals[0].sharding is None:  # one plain output: wrap it here
            namespace["OUT_DTYPE"], namespace["OUT_WEAK"] = avals[0].dtype, avals[0].weak_type
            lines += ["    out = outs[0]",
                      "    if type(out) is ndarray and out.dtype == OUT_DTYPE:",
                      "        return Array(out, OUT_WEAK)"]
        lines.append("    return outputs(ENTRY, outs)")
        namespace.update(writer.constants)
        self.source = "\n".join(lines) + "\n"
        exec(compile(self.source, "<edujax jit hit plan>", "exec"), namespace)
        self.hit: Callable[[tuple], Any] = namespace["hit"]

    def _call_tiered(self, *values: np.ndarray) -> list:
        """The tiered executable, until its kernels are ready: then this plan is dropped,
        and the next call makes one that calls them directly."""
        outs = self._executable(*values)
        if self._executable.direct_call() is not None and self._cache.plan is self:
            self._cache.plan = None
        return outs


class _Writer:
    """Writes the lines of a plan's function that check the arguments' structure and leaves."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.leaves: list[str] = []  # the variables holding the leaves, in order
        self.constants: dict[str, Any] = {}
        self._count = 0

    def name(self, prefix: str = "t") -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def constant(self, value: Any) -> str:
        name = self.name("C")
        self.constants[name] = value
        return name

    def miss_if(self, condition: str) -> None:
        self.lines += [f"    if {condition}:", "        return MISS"]

    def match(self, treedef: Any, var: str) -> None:
        """Check that ``var`` has ``treedef``'s structure; note where its leaves are."""
        node = treedef.node_data()
        if node is None:
            self.leaves.append(var)
            return
        nodetype, keys = node
        if nodetype is type(None):
            self.miss_if(f"{var} is not None")
            return
        children = treedef.children()
        names = [self.name() for _ in children]
        self.miss_if(f"type({var}) is not {nodetype.__name__} or len({var}) != {len(children)}")
        if nodetype is dict:  # same size and every key found: the same keys
            for name, key in zip(names, keys):
                self.lines.append(f"    {name} = {var}.get({self.constant(key)}, MISS)")
        elif names:
            self.lines.append(f"    {', '.join(names)}{',' if len(names) == 1 else ''} = {var}")
        for child, name in zip(children, names):
            self.match(child, name)

    def check_leaf(self, var: str, key: tuple) -> str:
        """Lines that check one leaf against its (shape, dtype, weak, sharding); the name
        of the variable holding its NumPy value."""
        shape, dtype, weak, sharding = key
        value = self.name("v")
        dtype_name = self.constant(dtype)
        self.miss_if(f"type({var}) is not Array")
        self.lines.append(f"    {value} = {var}._value")
        sharding_differs = (f"{var}._sharding is not None" if sharding is None else
                            f"{var}._sharding != {self.constant(sharding)}")
        self.miss_if(f"{value}.shape != {shape!r} or {var}._weak_type != {bool(weak)} or "
                     f"({value}.dtype is not {dtype_name} and {value}.dtype != {dtype_name}) "
                     f"or {sharding_differs}")
        return value


def _direct_call(executable: Any) -> tuple[Callable, bool]:
    """The backend's fastest callable that does what ``executable(*values)`` does, and
    whether it is final (a tiered executable changes once its kernels are compiled)."""
    direct = getattr(executable, "direct_call", None)
    if direct is None:
        return executable, True
    call = direct()
    return (executable, False) if call is None else (call, True)
