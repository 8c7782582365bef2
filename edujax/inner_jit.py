"""``@inner_jit``: the ``jit`` that JAX puts around many jax.numpy (and a few lax) functions.

JAX decorates a good part of ``jax.numpy`` with its own ``jit``: ``jnp.where`` is
``@jit def _where(condition, x, y)``, ``jnp.clip`` is ``@jit def clip(...)``,
``jnp.var`` calls ``@partial(jit, static_argnames=('axis', 'dtype', 'keepdims'))
def _var(...)``. Nobody notices when running code, but it shows in every jaxpr::

    >>> jax.make_jaxpr(lambda x: jnp.where(x > 0, x, 0.))(x)
    { lambda ; a:f32[3]. let
        b:bool[3] = gt a 0.0:f32[]
        c:f32[3] = jit[
          name=_where
          jaxpr={ lambda ; b:bool[3] a:f32[3] d:f32[]. let ... in (c,) }
        ] b a 0.0:f32[]
      in (c,) }

So edujax does the same, with one decorator. It lives here, below lax, because lax uses
it too (``lax.fft`` is ``@jit(static_argnums=(1, 2))`` in JAX). A function declares its
inner jit like this (the name printed is the function's ``__name__``, so keep JAX's)::

    @inner_jit                                   # every argument traced
    def _where(condition, x, y): ...

    @inner_jit(static_argnames=("axis", "dtype", "keepdims"))
    def _var(a, axis=None, dtype=None, ...): ...

Which functions JAX jits, and with which static arguments, is read from JAX's source
(``jax/_src/numpy/*.py``): copy the decorator's arguments exactly, since the static
ones are left out of the jaxpr and the others become its inputs (a Python ``0`` that
is not static shows as ``0:i32[]`` in the equation). JAX's ``jit(inline=True)`` is
inlined while tracing, so it leaves no trace in the jaxpr: do not decorate those.

What the decorator does:

* **Eagerly** (no transformation running) it calls the function directly. Running the
  body op by op gives the same values as compiling it would, and costs nothing more
  than the plain function.
  NB: JAX's eager ``jnp.where`` really dispatches through its jit cache (one compiled
  XLA program per signature); edujax's eager ops are NumPy calls already, so a compile
  would only add time.
* **Under a trace** (make_jaxpr, grad, vmap, an outer jit) it traces the body into a
  ClosedJaxpr, once per signature (argument structure, shapes, dtypes, weak types,
  static values), and binds ``jit_p`` with it: the equation ``jit[name=... jaxpr=...]``.
  The cache also makes two calls with the same signature share one jaxpr object, which
  is how the printer knows to hoist it into a ``let`` above the program, as JAX does.

``jit_p`` itself lives above this layer (edujax/jit/primitive.py, next to the backends
that run it), so it fills in ``stage_jit_call`` when it is imported; ``import edujax``
imports it, so the slot is always filled before anything is traced.
"""
from __future__ import annotations

import functools
import inspect
from collections import OrderedDict
from typing import Any, Callable

from edujax.api_util import flatten_fun
from edujax import core, dtypes, nan_checks
from edujax.interpreters.partial_eval import DebugInfo, func_source, trace_to_jaxpr
from edujax.jaxpr import ClosedJaxpr
from edujax.tree_util import tree_flatten, tree_leaves, tree_unflatten

# Filled in by edujax/jit/primitive.py: stage_jit_call(closed, flat_args, name) binds
# one jit equation in the current trace and returns its flat outputs.
stage_jit_call: Callable[[ClosedJaxpr, list, str], list] | None = None

# How many signatures each function keeps (least recently used ones go first), as large as
# JAX's trace caches: a notebook uses a handful, and the bound only keeps a long-running
# program that traces many shapes from growing without end. Not smaller: a body evicted and
# traced again is a new jaxpr object, while the jits traced before still hold the old one,
# and a jaxpr printed from both would show two copies instead of one ``let``.
_CACHE_SIZE = 4096


def _unhashable_static(values: list) -> ValueError:
    """JAX's error for a static argument that cannot be a cache key."""
    for value in values:
        try:
            hash(value)
        except TypeError as e:
            return ValueError(
                "Non-hashable static arguments are not supported. An error occurred while "
                f"trying to hash an object of type {type(value)}, {value!r}. The error "
                f"was:\nTypeError: {e}\n")
    return ValueError("Non-hashable static arguments are not supported.")


def inner_jit(fun: Callable | None = None, *, static_argnames: tuple[str, ...] = (),
              static_argnums: tuple[int, ...] = ()) -> Any:
    """Give a jnp function the inner ``jit`` JAX gives it (see the module docstring).

    Use as ``@inner_jit`` or ``@inner_jit(static_argnames=(...))``.
    """
    if fun is None:
        return functools.partial(inner_jit, static_argnames=tuple(static_argnames),
                                 static_argnums=tuple(static_argnums))
    return _InnerJit(fun, tuple(static_argnames), tuple(static_argnums)).wrapper()


class _InnerJit:
    """One decorated function: which arguments are static, and its jaxpr cache."""

    def __init__(self, fun: Callable, static_argnames: tuple, static_argnums: tuple):
        self.fun = fun
        self.name = fun.__name__
        params = list(inspect.signature(fun).parameters.values())
        self.positional = [p.name for p in params
                           if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        # Like jit, a static argument may be given by name or by position.
        self.static_nums = set(static_argnums) | {self.positional.index(n)
                                                  for n in static_argnames
                                                  if n in self.positional}
        self.static_names = set(static_argnames) | {self.positional[i] for i in static_argnums}
        self.cache: OrderedDict = OrderedDict()

    def wrapper(self) -> Callable:
        fun, staged, check_static = self.fun, self.staged, self.check_static

        @functools.wraps(fun)
        def call(*args: Any, **kwargs: Any) -> Any:
            if core.at_top_level():
                check_static(args, kwargs)
                if nan_checks.CHECKING:
                    return self.checked_call(args, kwargs)
                return fun(*args, **kwargs)  # eager: the body op by op, no tracing
            return staged(args, kwargs)
        call._inner_jit = self  # for tests and the curious: the cache and the statics
        return call

    def checked_call(self, args: tuple, kwargs: dict) -> Any:
        """jax_debug_nans, eagerly: like JAX's compiled call, only the outputs are checked,
        and a NaN there reruns the body op by op to find its operation (nan_checks.py)."""
        with nan_checks.suspended():
            out = self.fun(*args, **kwargs)
        nan_checks.check_jit_call(self.name, tree_leaves(out), lambda: self.fun(*args, **kwargs))
        return out

    def check_static(self, args: tuple, kwargs: dict) -> None:
        """Refuse what jit refuses even when nothing is traced: a static argument that cannot
        be hashed (a list), since JAX's jit hashes its static arguments on every call."""
        if not (self.static_nums or self.static_names):
            return
        static = [a for i, a in enumerate(args) if i in self.static_nums]
        static += [v for k, v in kwargs.items() if k in self.static_names]
        try:
            hash(tuple(static))
        except TypeError:
            raise _unhashable_static(static) from None

    def staged(self, args: tuple, kwargs: dict) -> Any:
        """Bind one ``jit`` equation whose jaxpr is the body traced for these arguments."""
        static_args = tuple((i, a) for i, a in enumerate(args) if i in self.static_nums)
        dyn_args = tuple(a for i, a in enumerate(args) if i not in self.static_nums)
        static_kwargs = tuple(sorted((k, v) for k, v in kwargs.items()
                                     if k in self.static_names))
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_names}
        leaves, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        avals = tuple(core.get_aval(x) for x in leaves)
        key = (in_tree, tuple((a.shape, a.dtype, a.weak_type) for a in avals),
               static_args, static_kwargs, dtypes.x64_enabled())
        try:
            hit = self.cache.get(key)
        except TypeError:  # a static argument that cannot be hashed (a traced value...)
            raise _unhashable_static([v for _, v in static_args + static_kwargs]) from None
        if hit is not None:
            self.cache.move_to_end(key)
        else:
            hit = self.cache[key] = self._trace(in_tree, avals, static_args, static_kwargs)
            if len(self.cache) > _CACHE_SIZE:
                self.cache.popitem(last=False)
        closed, out_tree = hit
        return tree_unflatten(out_tree, stage_jit_call(closed, leaves, self.name))

    def _trace(self, in_tree: Any, avals: tuple, static_args: tuple,
               static_kwargs: tuple) -> tuple[ClosedJaxpr, Any]:
        def call(*dyn_args: Any, **dyn_kwargs: Any) -> Any:
            it, statics = iter(dyn_args), dict(static_args)
            n = len(dyn_args) + len(statics)
            args = [statics[i] if i in statics else next(it) for i in range(n)]
            return self.fun(*args, **dyn_kwargs, **dict(static_kwargs))

        info = DebugInfo("jit", self.name, func_source(self.fun), ())
        return trace_to_jaxpr(flatten_fun(call, in_tree), list(avals), info)
