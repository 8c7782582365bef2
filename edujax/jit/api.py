"""``jit``: trace a function once per signature, compile the jaxpr, reuse it.

A call of ``jit(f)(*args)`` goes like this:

1. split off the static arguments (they become part of the cache key, and are
   passed to ``f`` as plain Python values),
2. flatten the other arguments into array leaves and build the *signature key*
   (tree structure, each leaf's shape/dtype/weak type, static values, backend),
3. on a cache miss: explain why, trace ``f`` to a jaxpr (Python side effects
   happen now, once per signature), hand the jaxpr to the backend,
4. run the executable on the leaves' NumPy data and rebuild the output pytree.

Inside another transformation (``make_jaxpr``, ``grad``, an outer ``jit``) step 4
is replaced by binding ``jit_p``: the call shows up in the enclosing jaxpr as one
``jit[name=f jaxpr={...}]`` equation.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import time
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from edujax.api_util import flatten_fun
from edujax import core, dtypes, nan_checks
from edujax.api import clear_trace_cache, device_put, shaped_abstractify
from edujax.array import Array, with_sharding
from edujax.backends import get_backend
from edujax.config import config
from edujax.interpreters.partial_eval import (DebugInfo, func_name, func_source,
                                              hoist_tracer_consts, trace_to_jaxpr)
from edujax.jit.cache import (CacheEntry, FunctionCache, SignatureKey, caches_of, clear_all,
                              logger)
from edujax.jit.hit_plan import MISS, HitPlan, plannable
from edujax.jit.primitive import jit_p
from edujax.spmd import compile_per_device
from edujax.tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_leaves,
                              tree_structure, tree_unflatten)


def _as_tuple(x: int | str | Iterable | None) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, (int, str)) else tuple(x)


def _static_positions(fun: Callable, static_argnums: tuple, static_argnames: tuple):
    """Like JAX, a static argument may be named or numbered: infer the other from the
    signature, so ``static_argnames=['n']`` also covers ``n`` passed positionally."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return static_argnums, static_argnames, None
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    nums = set(static_argnums) | {positional.index(n) for n in static_argnames if n in positional}
    names = set(static_argnames) | {positional[i] for i in static_argnums
                                    if -len(positional) <= i < len(positional)}
    return tuple(sorted(nums)), tuple(sorted(names)), positional


def _check_hashable(value: Any) -> None:
    try:
        hash(value)
    except TypeError as e:
        raise ValueError(
            "Non-hashable static arguments are not supported. An error occurred while trying "
            f"to hash an object of type {type(value)}, {value!r}. The error was:\n"
            f"TypeError: {e}\n"
            "Hint: pass a tuple instead of a list, or make the argument non-static.") from None


def _leaf_key(x: Any) -> tuple:
    """(shape, dtype, weak_type, sharding) of one argument leaf: all the cache looks at (the
    sharding is None but for arrays on a mesh, whose types, hence programs, differ)."""
    if type(x) is Array:
        v = x._value
        return v.shape, v.dtype, x._weak_type, x._sharding
    aval = shaped_abstractify(x)
    return aval.shape, aval.dtype, aval.weak_type, aval.sharding


def _flat_key(args: tuple) -> tuple | None:
    """Backend and x64, then (shape, dtype, weak) of each argument when all are Arrays."""
    key = [_mode]
    for a in args:
        if type(a) is not Array:
            return None
        v = a._value
        key.append((v.shape, v.dtype, a._weak_type, a._sharding))
    return tuple(key)


# (backend, x64) is part of every call's key. It changes only through config.update, so it is
# kept here and refreshed by a config listener instead of being read twice on every call.
_mode = (config.read("edujax_backend"), dtypes.x64_enabled())


def _refresh_mode(name: str, value: Any) -> None:
    global _mode
    _mode = (config.read("edujax_backend"), dtypes.x64_enabled())


config.on_update(_refresh_mode)


def _leaf_value(x: Any) -> np.ndarray:
    if type(x) is Array:
        return x._value
    if isinstance(x, Array):  # an Array on a device (CudaArray): what this backend reads
        return x._value_for(config.read("edujax_backend"))
    return np.asarray(x, dtype=shaped_abstractify(x).dtype)


def _output_array(o: Any, aval: Any) -> Array:
    """An executable's output that is not already a NumPy array of the right dtype."""
    if isinstance(o, Array):  # a device-resident Array (the cuda backend's): keep it there
        return o
    return Array(np.asarray(o, dtype=aval.dtype), aval.weak_type)


def _stage_scalars(tree: Any) -> Any:
    """``tree`` with each Python or NumPy scalar leaf made a literal tracer of the current
    trace (a cast of it to its own dtype, which the staging trace folds into a literal)."""
    leaves, treedef = tree_flatten(tree)
    staged = [_as_literal_tracer(x) if type(x) in dtypes.python_scalar_types
              or isinstance(x, np.generic) else x for x in leaves]
    return tree_unflatten(treedef, staged)


def _as_literal_tracer(x: Any) -> Any:
    trace = core.current_trace()
    if hasattr(trace, "new_literal"):  # a staging trace: the scalar, printed as given
        dtype, weak = dtypes.dtype_and_weak(x)
        return trace.new_literal(x, core.ShapedArray((), dtype, weak_type=weak))
    return x


class _Call:
    """One call's arguments, split into static values and flat dynamic leaves."""

    __slots__ = ("dyn_args", "dyn_kwargs", "statics", "static_kwargs", "leaves", "in_tree")

    def __init__(self, wrapped: JitWrapped, args: tuple, kwargs: dict):
        nums, names = wrapped._static_argnums, wrapped._static_argnames
        n = len(args)
        static_pos = {i % n for i in nums if -n <= i < n} if nums else ()
        self.statics: list = []
        if static_pos:
            dyn = []
            for i, a in enumerate(args):
                if i in static_pos:
                    _check_hashable(a)
                    self.statics.append((wrapped._arg_name(i), a))
                else:
                    dyn.append(a)
            self.dyn_args = tuple(dyn)
        else:
            self.dyn_args = args
        self.static_kwargs = {k: v for k, v in kwargs.items() if k in names} if names else {}
        for k, v in sorted(self.static_kwargs.items()):
            _check_hashable(v)
            self.statics.append((k, v))
        self.dyn_kwargs = ({k: v for k, v in kwargs.items() if k not in names}
                           if self.static_kwargs else kwargs)
        self.leaves, self.in_tree = tree_flatten((self.dyn_args, self.dyn_kwargs))


class JitWrapped:
    """The object ``jit(f)`` returns: call it like ``f``; inspect its cache."""

    def __init__(self, fun: Callable, static_argnums: Any = (), static_argnames: Any = (),
                 donate_argnums: Any = (), inline: bool = False, **options: Any):
        if not callable(fun):
            raise TypeError(f"Expected a callable value, got {fun!r}")
        self._fun = fun
        # ``inline=True``: called while tracing, the body's equations go straight into the
        # caller's jaxpr (no ``jit`` equation), as JAX inlines such a jit; eagerly it compiles.
        self._inline = inline
        self._name = func_name(fun)
        nums, names, self._positional = _static_positions(
            fun, _as_tuple(static_argnums), _as_tuple(static_argnames))
        self._static_argnums, self._static_argnames = nums, names
        # NB: donation lets XLA reuse an input's buffer for an output. edujax's arrays are
        # NumPy-backed and freed by Python's reference counting, so donation is accepted
        # and has no effect.
        self._donate_argnums = _as_tuple(donate_argnums)
        self._options_key = (nums, names)
        # Copy __name__, __doc__... but not __dict__: wrapping another wrapper (say
        # jit(grad(jit(f)))) must not overwrite this object's own state.
        functools.update_wrapper(self, fun, updated=())
        self._function_cache: FunctionCache | None = None  # (see _cache)

    # -- the cache -------------------------------------------------------------
    @property
    def _cache(self) -> FunctionCache:
        # The wrapper keeps ``fun`` alive, so the function's cache cannot go away under us:
        # remember it after the first lookup.
        cache = self.__dict__.get("_function_cache")
        if cache is None:
            caches = caches_of(self._fun)
            cache = caches.get(self._options_key)
            if cache is None:
                cache = caches[self._options_key] = FunctionCache(self._name)
            self.__dict__["_function_cache"] = cache
        return cache

    def cache_info(self):
        """Hits, misses and the cached entries (signature, hits, compile time, tier)."""
        return self._cache.info()

    def explain_misses(self) -> list[str]:
        """One sentence per cache miss so far, saying why it missed."""
        return list(self._cache.miss_reasons)

    def clear_cache(self) -> None:
        self._cache.clear()

    # -- calling ---------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if config._values["jax_disable_jit"]:  # see disable_jit: run the Python function
            return self._fun(*args, **kwargs)
        top_level = core.at_top_level()
        if nan_checks.CHECKING and top_level:
            return self._call_checking_nans(args, kwargs)
        flat_key = None
        if not kwargs and not self._static_argnums and top_level:
            cache = self._function_cache or self._cache
            plan = cache.plan
            if plan is not None and plan.mode is _mode:  # the last signature again?
                out = plan.hit(args)
                if out is not MISS:
                    return out
            flat_key = _flat_key(args)
            if flat_key is not None:
                entry = cache.flat.get(flat_key)
                if entry is not None:  # an earlier signature, positional Arrays only
                    cache.count_hit(entry)
                    cache.entries.move_to_end(entry.key)  # keep the LRU order true
                    out = self._run(entry, [a._value for a in args])
                    self._remember(entry, flat_key, args, None, None)
                    return out
        if self._inline and not top_level:
            return self._call_inline(args, kwargs)
        call = _Call(self, args, kwargs)
        if not top_level:
            return self._call_traced(call)
        leaf_key = None
        if flat_key is None and not kwargs and not self._static_argnums:
            leaf_key = _flat_key(call.leaves)
            if leaf_key is not None:  # pytrees of Arrays: the shortcut of the last structure
                entry = self._cache.pytree_hit(call.in_tree, leaf_key)
                if entry is not None:
                    out = self._run(entry, [a._value for a in call.leaves])
                    self._remember(entry, None, args, call.in_tree, leaf_key)
                    return out
        entry = self._entry(call)
        out = self._run(entry, list(map(_leaf_value, call.leaves)))
        if flat_key is not None or leaf_key is not None:
            self._remember(entry, flat_key, args, call.in_tree, leaf_key)
        return out

    def _remember(self, entry: CacheEntry, flat_key: tuple | None, args: tuple,
                  in_tree: Any, leaf_key: tuple | None) -> None:
        """After a call of positional Arrays (``flat_key``) or of pytrees of Arrays
        (``in_tree`` and ``leaf_key``): the shortcuts its repeat takes, i.e. the flat key or
        the last pytree structure, and the plan of jit/hit_plan.py. Made after the call, so
        the entry is compiled, and only if it is still cached (a callback run by the call
        may have cleared the cache)."""
        cache = self._cache
        if not entry.cacheable or cache.entries.get(entry.key) is not entry:
            return
        if flat_key is not None:
            entry.flat_key = flat_key
            cache.flat[flat_key] = entry
            args_tree, leaf_key = None, flat_key
        else:
            cache.last_pytree = (in_tree, leaf_key, entry)
            args_tree = in_tree.children()[0]
        plan = entry.plan  # (an entry's key holds the structure: only the mode may differ)
        if plan is None or not plan.final or plan.mode is not _mode:
            if args_tree is None:
                args_tree = tree_structure(args)
            if not plannable(args_tree):
                return
            plan = entry.plan = HitPlan(cache, entry, _mode, args_tree, leaf_key[1:],
                                        self._outputs)
        cache.plan = plan

    def _call_inline(self, args: tuple, kwargs: dict) -> Any:
        """The body traced right into the caller's jaxpr. As JAX traces an inlined jit on
        abstract inputs, a Python or NumPy scalar passed to a dynamic argument is made a
        (literal) tracer first: what the body computes from it is staged, not folded."""
        nums, names = self._static_argnums, self._static_argnames
        n = len(args)
        static_pos = {i % n for i in nums if -n <= i < n}
        args = tuple(a if i in static_pos else _stage_scalars(a) for i, a in enumerate(args))
        kwargs = {k: v if k in names else _stage_scalars(v) for k, v in kwargs.items()}
        return self._fun(*args, **kwargs)

    def _call_checking_nans(self, args: tuple, kwargs: dict) -> Any:
        """jax_debug_nans: the compiled call's outputs are checked; on a NaN, ``f`` runs again
        without jit, op by op, to name the operation that made it (nan_checks.py)."""
        call = _Call(self, args, kwargs)
        with nan_checks.suspended():  # compiled code is checked as a whole
            out = self._run(self._entry(call), list(map(_leaf_value, call.leaves)))
        nan_checks.check_jit_call(self._name, tree_leaves(out),
                                  lambda: self._fun(*args, **kwargs))
        return out

    def _run(self, entry: CacheEntry, values: list) -> Any:
        if entry.executable is None:
            self._compile_or_discard(entry)
        return self._outputs(entry, entry.executable(*values))

    @staticmethod
    def _outputs(entry: CacheEntry, outs: list) -> Any:
        """The executable's outputs as Arrays, in the output pytree."""
        arrays = [Array(o, a.weak_type) if type(o) is np.ndarray and o.dtype == a.dtype
                  else _output_array(o, a) for o, a in zip(outs, entry.out_avals)]
        for array, aval in zip(arrays, entry.out_avals):
            if aval.sharding is not None:  # its type says it is on a mesh: lay it out so
                with_sharding(array, aval.sharding.concrete())
        if entry.out_is_leaf:
            return arrays[0]
        return tree_unflatten(entry.out_tree, arrays)

    def _key(self, call: _Call) -> SignatureKey:
        return SignatureKey(call.in_tree, tuple(map(_leaf_key, call.leaves)),
                            tuple(call.statics), config.read("edujax_backend"),
                            dtypes.x64_enabled())

    def _entry(self, call: _Call) -> CacheEntry:
        """The cache entry for this call's signature, tracing ``f`` on a miss."""
        key = self._key(call)
        cache = self._cache
        entry = cache.lookup(key)
        if entry is not None:
            return entry
        with cache.lock:  # one thread traces a new signature; the others wait for it
            entry = cache.lookup(key)
            if entry is not None:
                return entry
            arg_names = self._leaf_names(call)
            reason = cache.explain(key, arg_names)
            entry = self._trace(call, key, arg_names)
            cache.insert(entry, reason)  # only now: a failed trace leaves nothing behind
        return entry

    def _trace(self, call: _Call, key: SignatureKey, arg_names: tuple[str, ...]) -> CacheEntry:
        flat_fun = flatten_fun(lambda *args, **kwargs: self._fun(
            *self._merge_static(args, call), **kwargs, **call.static_kwargs), call.in_tree)
        info = DebugInfo("jit", self._name, func_source(self._fun), arg_names)
        start = time.perf_counter()
        avals = [shaped_abstractify(x) for x in call.leaves]
        closed, out_tree = trace_to_jaxpr(flat_fun, avals, info)
        closed, hoisted = hoist_tracer_consts(closed)
        entry = CacheEntry(key, arg_names, closed, out_tree, cacheable=not hoisted)
        entry.hoisted_consts = hoisted
        entry.trace_seconds = time.perf_counter() - start
        if config._values["jax_log_compiles"]:
            logger.warning("Finished tracing %s for jit in %.9g sec", self._name,
                           entry.trace_seconds)
        return entry

    def _compile_or_discard(self, entry: CacheEntry) -> None:
        """Compile a new entry; if that is interrupted (Ctrl-C, an error), drop the entry."""
        cache = self._cache
        with cache.lock:  # threads: one compiles, the others wait for it
            if entry.executable is not None:
                return
            try:
                self._compile(entry)
            except BaseException:
                cache.discard(entry)
                raise

    def _compile(self, entry: CacheEntry) -> None:
        log = config._values["jax_log_compiles"]  # jax.log_compiles(): say what is compiled
        if log:
            avals = tuple(entry.closed.in_avals)
            logger.warning("Compiling jit(%s) with global shapes and types %r for the %s "
                           "backend.", self._name, avals, entry.key.backend)
        start = time.perf_counter()
        # On arrays split over devices: the program each device runs on its blocks (spmd.py).
        sharded = any(getattr(a, "sharding", None) is not None for a in entry.closed.in_avals)
        entry.executable = ((sharded and compile_per_device(entry.closed))
                            or get_backend(entry.key.backend).compile(entry.closed))
        entry.compile_seconds = time.perf_counter() - start
        if log:
            logger.warning("Finished %s compilation of jit(%s) in %.9g sec", entry.key.backend,
                           self._name, entry.compile_seconds)

    def _call_traced(self, call: _Call) -> Any:
        """Inside another trace: record one ``jit`` equation instead of running."""
        entry = self._entry(call)
        outs = jit_p.bind(*entry.hoisted_consts, *call.leaves, jaxpr=entry.closed,
                          name=self._name, donated_invars=(False,) * (
                              len(entry.hoisted_consts) + len(call.leaves)),
                          inline=False, keep_unused=False)
        return tree_unflatten(entry.out_tree, outs)

    def _merge_static(self, dyn_args: Sequence[Any], call: _Call) -> list:
        if not call.statics or not self._static_argnums:
            return list(dyn_args)
        n = len(dyn_args) + sum(1 for name, _ in call.statics if name not in call.static_kwargs)
        static_values = iter(v for name, v in call.statics if name not in call.static_kwargs)
        dyn = iter(dyn_args)
        positions = {i % n for i in self._static_argnums if -n <= i < n}
        return [next(static_values) if i in positions else next(dyn) for i in range(n)]

    def _arg_name(self, i: int) -> str:
        if self._positional is not None and i < len(self._positional):
            return self._positional[i]
        return f"args[{i}]"

    def _leaf_names(self, call: _Call) -> tuple[str, ...]:
        """``x``, ``p['w']``, ``xs[0]``: a readable name for each flat argument leaf."""
        static_pos = {i for i in range(len(call.dyn_args) + len(call.statics))
                      if self._static_argnums and i in self._static_argnums}
        dyn_positions = [i for i in range(len(call.dyn_args) + len(static_pos))
                         if i not in static_pos]
        names = []
        for path, _ in tree_flatten_with_path((call.dyn_args, call.dyn_kwargs))[0]:
            group, head, rest = path[0].idx, path[1], path[2:]
            if group == 0:
                base = self._arg_name(dyn_positions[head.idx])
            else:
                base = str(head.key)
            names.append(base + keystr(rest))
        return tuple(names)

    # -- ahead-of-time inspection ----------------------------------------------
    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Trace for these arguments without running: ``.as_text()`` is the jaxpr."""
        call = _Call(self, args, kwargs)
        return Lowered(self, self._entry(call))

    def trace(self, *args: Any, **kwargs: Any) -> Lowered:
        return self.lower(*args, **kwargs)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self) -> str:
        return f"<edujax.jit of {self._name}>"


class Lowered:
    """A traced jitted function: ``as_text()`` shows its jaxpr, ``compile()`` compiles it."""

    def __init__(self, wrapped: JitWrapped, entry: CacheEntry):
        self._wrapped, self._entry = wrapped, entry
        self.jaxpr = entry.closed  # (a ClosedJaxpr, under the name JAX's Traced.jaxpr has)
        self.out_tree = entry.out_tree

    def as_text(self) -> str:
        return str(self.jaxpr)

    def compile(self) -> Compiled:
        if self._entry.executable is None:
            with self._wrapped._cache.lock:
                if self._entry.executable is None:
                    self._wrapped._compile(self._entry)
        return Compiled(self._wrapped, self._entry)


class Compiled:
    """A compiled signature: ``as_text()`` shows the backend's code; call it to run."""

    def __init__(self, wrapped: JitWrapped, entry: CacheEntry):
        self._wrapped, self._entry = wrapped, entry

    def as_text(self) -> str:
        return self._entry.executable.as_text()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._wrapped(*args, **kwargs)


def jit(fun: Callable | None = None, *, static_argnums: Any = (), static_argnames: Any = (),
        donate_argnums: Any = (), donate_argnames: Any = (), keep_unused: bool = False,
        device: Any = None, backend: Any = None, inline: bool = False,
        **options: Any) -> Any:
    """Compile ``fun``: trace it once per argument signature and reuse the result.

    Works as ``jit(f)``, as a decorator ``@jit``, and with ``functools.partial(jit,
    static_argnames=...)``. Arguments listed in ``static_argnums``/``static_argnames``
    are passed as Python values and are part of the cache key (they must be hashable).
    """
    in_shardings = options.pop("in_shardings", None)
    out_shardings = options.pop("out_shardings", None)
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, donate_argnums=donate_argnums,
                                 inline=inline, in_shardings=in_shardings,
                                 out_shardings=out_shardings)
    if in_shardings is not None or out_shardings is not None:
        return JitWithShardings(fun, static_argnums, static_argnames, donate_argnums,
                                inline=inline, in_shardings=in_shardings,
                                out_shardings=out_shardings)
    return JitWrapped(fun, static_argnums, static_argnames, donate_argnums, inline=inline)


class JitWithShardings(JitWrapped):
    """``jit(f, in_shardings=..., out_shardings=...)``: the arguments are put on the mesh
    as ``in_shardings`` says before the call (so the traced types carry those shardings),
    and the outputs as ``out_shardings`` says after it."""

    def __init__(self, fun: Callable, *args: Any, in_shardings: Any, out_shardings: Any,
                 **kwargs: Any):
        super().__init__(fun, *args, **kwargs)
        self._in_shardings, self._out_shardings = in_shardings, out_shardings

    def _placed(self, args: tuple) -> tuple:
        if self._in_shardings is None:
            return args
        shardings = self._in_shardings
        if not isinstance(shardings, (tuple, list)):
            shardings = (shardings,) * len(args)
        return tuple(a if s is None else device_put(a, s) for a, s in zip(args, shardings))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        outs = super().__call__(*self._placed(args), **kwargs)
        if self._out_shardings is None:
            return outs
        if isinstance(self._out_shardings, (tuple, list)):
            return type(outs)(device_put(o, s) for o, s in zip(outs, self._out_shardings))
        return device_put(outs, self._out_shardings)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        return super().lower(*self._placed(args), **kwargs)


@contextlib.contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """Inside ``with jax.disable_jit():``, jitted functions run as plain Python, op by op.

    Useful for debugging: a ``print`` inside a jitted function then shows values, not
    tracers. ``jax.config.update("jax_disable_jit", True)`` does the same until undone.
    """
    previous = config.read("jax_disable_jit")
    config.update("jax_disable_jit", disable)
    try:
        yield
    finally:
        config.update("jax_disable_jit", previous)


def clear_caches() -> None:
    """Forget every compiled signature of every jitted function (JAX's ``jax.clear_caches``).

    The next call of each jitted function traces and compiles again. Numba's kernels on
    disk are kept (``python -m edujax.cache clear`` removes those). make_jaxpr's trace cache
    is emptied too.
    """
    clear_all()
    clear_trace_cache()
