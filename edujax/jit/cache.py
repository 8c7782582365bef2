"""The compile cache of ``jit``, built to be looked at.

Each jitted function has a ``FunctionCache``: an LRU table from a *signature key*
to a compiled entry. The key is everything that can change the compiled program:

* the pytree structure of the arguments,
* every array argument's shape, dtype and weak type (not its values!),
* the values of the static arguments,
* the backend and the x64 mode.

Caches are found through a weak reference to the function, so when a function is
freed its entries go with it, and a new function that happens to get the same
``id`` can never see them. Every miss is explained in words
(``explain_misses()``), by comparing the new key with the closest cached one.

What ``cache_info()`` counts, exactly (as ``functools.lru_cache`` documents its own):

* ``hits``: calls (and ``lower()``s) that found their signature already traced; each one
  also adds one to that entry's ``hits``, so the total is always the sum over the
  entries still cached plus those evicted since;
* ``misses``: signatures traced into a new entry, i.e. the number of compiles. A call
  whose tracing fails (an error in ``f``, a KeyboardInterrupt) leaves no entry and
  counts as neither;
* ``currsize``/``maxsize``: entries cached now, and how many fit.
"""
from __future__ import annotations

import logging
import threading
import weakref
from collections import OrderedDict
from functools import cached_property
from typing import Any, Callable, NamedTuple

from edujax.config import config
from edujax.core import short_dtype_name

logger = logging.getLogger("edujax.jit")


class SignatureKey(NamedTuple):
    in_tree: Any  # PyTreeDef of (dynamic args, dynamic kwargs)
    leaves: tuple  # per array leaf: (shape, dtype, weak_type, sharding or None)
    statics: tuple  # ((name, value), ...) of static arguments
    backend: str
    x64: bool


def leaf_text(leaf: tuple) -> str:
    """``f32[3]`` (``~f32[3]`` when weakly typed), the way jaxprs write types."""
    shape, dtype, weak = leaf[:3]
    return f"{'~' if weak else ''}{short_dtype_name(dtype)}[{','.join(map(str, shape))}]"


def signature_text(key: SignatureKey, arg_names: tuple[str, ...]) -> str:
    parts = [f"{name}: {leaf_text(leaf)}" for name, leaf in zip(arg_names, key.leaves)]
    parts += [f"{name}={value!r} (static)" for name, value in key.statics]
    return ", ".join(parts) + f" [{key.backend}{', x64' if key.x64 else ''}]"


class CacheEntry:
    """One compiled signature: what was traced, what runs, and how it has been used."""

    def __init__(self, key: SignatureKey, arg_names: tuple[str, ...], closed: Any,
                 out_tree: Any, cacheable: bool = True):
        self.key = key
        self.arg_names = arg_names  # for ``signature``, written only when it is read
        self.closed = closed  # the ClosedJaxpr traced for this signature
        self.out_tree = out_tree
        self.out_avals = list(closed.out_avals)
        self.out_is_leaf = out_tree.num_nodes == 1 and out_tree.num_leaves == 1
        self.cacheable = cacheable
        self.executable: Any = None
        self.hits = 0
        self.flat_key: tuple | None = None  # its key in FunctionCache.flat, if there
        self.plan: Any = None  # the HitPlan of its last call of Arrays (hit_plan.py)
        self.compile_seconds = 0.0
        self.trace_seconds = 0.0

    @cached_property
    def signature(self) -> str:
        """``x: f32[3] [numba]``: what viz.cache and the repr show."""
        return signature_text(self.key, self.arg_names)

    backend = property(lambda self: self.key.backend)
    tier = property(lambda self: getattr(self.executable, "tier", "not compiled"))

    def __repr__(self) -> str:
        return (f"CacheEntry({self.signature}, hits={self.hits}, "
                f"compile_seconds={self.compile_seconds:.4f}, tier={self.tier!r})")


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    entries: list
    maxsize: int

    @property
    def currsize(self) -> int:
        return len(self.entries)


class FunctionCache:
    """The LRU table of one jitted function (for one set of jit options)."""

    def __init__(self, name: str):
        self.name = name
        self.entries: OrderedDict[SignatureKey, CacheEntry] = OrderedDict()
        # A shortcut for the commonest call, positional Arrays only: a flat key of
        # (shape, dtype, weak_type) per argument avoids building a pytree structure.
        self.flat: dict[tuple, CacheEntry] = {}
        # The next commonest: pytrees of Arrays (a training step's parameters). Hashing a
        # new call's tree structure costs more than comparing it with the last one's, so
        # the last (structure, flat key, entry) is kept and compared first.
        self.last_pytree: tuple | None = None
        # The last signature called, as a plan a repeated call is compared with before any
        # of the above is built (hit_plan.py).
        self.plan: Any = None
        self.evicted: OrderedDict[SignatureKey, None] = OrderedDict()  # to explain misses
        self.hits = 0
        self.misses = 0
        self.miss_reasons: list[str] = []
        # Threads calling one jitted function at once must trace a new signature once:
        # the first takes this lock and traces, the others wait and then find its entry.
        # Re-entrant: tracing f may call jit(f) again (recursion on other shapes).
        self.lock = threading.RLock()

    def lookup(self, key: SignatureKey) -> CacheEntry | None:
        """The entry for ``key`` (counted as a hit, most recently used now), or None."""
        entry = self.entries.get(key)
        if entry is not None:
            self.entries.move_to_end(key)
            self.count_hit(entry)
        return entry

    def pytree_hit(self, in_tree: Any, flat_key: tuple) -> CacheEntry | None:
        """The entry of the last pytree call when this call has its structure and leaves
        (counted as a hit), else None."""
        last = self.last_pytree
        if last is None or last[1] != flat_key or last[0] != in_tree:
            return None
        entry = last[2]
        self.count_hit(entry)
        self.entries.move_to_end(entry.key)
        return entry

    def count_hit(self, entry: CacheEntry) -> None:
        self.hits += 1
        entry.hits += 1

    def explain(self, key: SignatureKey, arg_names: tuple[str, ...]) -> str:
        """Why ``key`` is not cached, in words (logged when jax_explain_cache_misses is on)."""
        if key in self.evicted:
            reason = ("this signature was compiled before, but was evicted from the cache "
                      f"(it holds {config.read('edujax_jit_cache_size')} entries)")
        else:
            reason = explain_miss(key, list(self.entries), arg_names, self.name)
        if config.read("jax_explain_cache_misses"):
            logger.warning("TRACING CACHE MISS for %s because: %s", self.name, reason)
        return reason

    def insert(self, entry: CacheEntry, reason: str) -> None:
        """Count a traced signature as a miss (with its reason) and cache its entry."""
        self.misses += 1
        self.miss_reasons.append(reason)
        self.evicted.pop(entry.key, None)
        if not entry.cacheable:
            return
        self.entries[entry.key] = entry
        maxsize = int(config.read("edujax_jit_cache_size"))
        while len(self.entries) > maxsize:
            old_key, evicted = self.entries.popitem(last=False)  # the least recently used
            self.flat.pop(evicted.flat_key, None)
            self.last_pytree = self.plan = None
            self.evicted[old_key] = None
            if len(self.evicted) > 256:
                self.evicted.popitem(last=False)

    def discard(self, entry: CacheEntry) -> None:
        """Undo ``insert`` for an entry whose compile was interrupted: as if the call that
        made it had never happened, so no half-made entry stays behind."""
        if self.entries.get(entry.key) is entry:
            del self.entries[entry.key]
            self.flat.pop(entry.flat_key, None)
            self.last_pytree = self.plan = None
            self.misses -= 1
            if self.miss_reasons:
                self.miss_reasons.pop()

    def info(self) -> CacheInfo:
        return CacheInfo(self.hits, self.misses, list(self.entries.values()),
                         int(config.read("edujax_jit_cache_size")))

    def clear(self) -> None:
        self.entries.clear()
        self.flat.clear()
        self.last_pytree = self.plan = None


def clear_all() -> None:
    """Empty every jitted function's cache (``edujax.clear_caches()``)."""
    for caches in list(_by_function.values()) + [held[1] for held in _unweakrefable.values()]:
        for cache in list(caches.values()):
            cache.clear()


def explain_miss(key: SignatureKey, cached: list[SignatureKey], arg_names: tuple[str, ...],
                 name: str) -> str:
    """Why ``key`` found no entry, in words, compared with the most similar cached key."""
    if not cached:
        return f"first call of {name}: nothing was compiled for it yet"
    closest = max(reversed(cached), key=lambda other: _similarity(key, other))
    reasons = _differences(closest, key, arg_names)
    return "; ".join(reasons) if reasons else "the cached entry was cleared"


def _similarity(a: SignatureKey, b: SignatureKey) -> int:
    return sum(x == y for x, y in zip(a, b)) * 100 + sum(
        x == y for x, y in zip(a.leaves, b.leaves))


def _differences(old: SignatureKey, new: SignatureKey, arg_names: tuple[str, ...]) -> list[str]:
    out = []
    if old.backend != new.backend:
        out.append(f"backend: {old.backend} → {new.backend}")
    if old.x64 != new.x64:
        out.append(f"jax_enable_x64: {old.x64} → {new.x64}")
    if old.in_tree != new.in_tree:
        out.append(f"argument structure: {old.in_tree} → {new.in_tree}")
    else:
        for name, a, b in zip(arg_names, old.leaves, new.leaves):
            out += _leaf_differences(name, a, b)
    old_statics, new_statics = dict(old.statics), dict(new.statics)
    for static_name in sorted(set(old_statics) | set(new_statics), key=str):
        a, b = old_statics.get(static_name, "<absent>"), new_statics.get(static_name, "<absent>")
        if not _same_static(a, b):
            out.append(f"static argument {static_name}: {a!r} → {b!r}")
    return out


def _same_static(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # noqa: BLE001 - an odd __eq__ counts as different
        return False


def _leaf_differences(name: str, a: tuple, b: tuple) -> list[str]:
    if a == b:
        return []
    if a[0] != b[0]:
        what = "new shape"
    elif a[1] != b[1]:
        what = "new dtype"
    else:
        what = "new weak type"
    return [f"argument {name}: {what} {leaf_text(a)} → {leaf_text(b)}"]


# ------------------------------------------------------------------ finding a function's cache
_by_function: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_unweakrefable: dict[int, tuple[Any, dict]] = {}  # id -> (function kept alive, caches)


def caches_of(fun: Callable) -> dict:
    """The dict {jit options -> FunctionCache} for ``fun``, found by identity.

    A weak reference is used when possible; for the rare callable that cannot be
    weakly referenced, we keep the callable alive ourselves so its id cannot be reused.
    """
    try:
        return _by_function.setdefault(fun, {})
    except TypeError:
        held = _unweakrefable.setdefault(id(fun), (fun, {}))
        return held[1]
