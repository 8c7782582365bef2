"""The top-level transformations and helpers of ``edujax`` (``jax.make_jaxpr`` & co).

For now: ``make_jaxpr`` (trace a function into a jaxpr), ``device_put``/``device_get``
and ``block_until_ready``. jit, grad and vmap arrive with their own issues.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from edujax.api_util import flatten_fun, split_static
from edujax import core, devices, dtypes, sharding
from edujax.array import Array, with_sharding
from edujax.interpreters.partial_eval import (DebugInfo, cached_per_function, func_name,
                                              func_source, trace_to_jaxpr)
from edujax.sharding.named_sharding import as_named_sharding, typed_part
from edujax.tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_leaves,
                              tree_map, tree_unflatten)


class ShapeDtypeStruct:
    """A shape and a dtype, standing in for an array (as in ``jax.ShapeDtypeStruct``)."""

    def __init__(self, shape: Sequence[int], dtype: Any, weak_type: bool = False):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape)))
    aval = property(lambda self: core.ShapedArray(self.shape, self.dtype, self.weak_type))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))


def shaped_abstractify(x: Any) -> core.ShapedArray:
    """The abstract value a traced argument gets (Python scalars become weak)."""
    try:
        return core.get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") from None


def _param_names(fun: Callable) -> tuple[str, ...]:
    try:
        return tuple(p.name for p in inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return ()


_params_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # see partial_eval.py
# Types that are always one pytree leaf (never registered as pytree nodes).
_LEAF_TYPES = {Array, np.ndarray, float, int, bool, complex}


def _leaf_names(fun: Callable, dynamic: tuple, kwargs: dict, static_argnums: Sequence[int],
                nargs: int) -> tuple[str, ...]:
    """A readable name for each flat argument leaf (``x``, ``p['w']``), for error messages."""
    params = cached_per_function(_params_cache, fun, _param_names)
    static = {i % nargs for i in static_argnums} if nargs else set()
    positions = [i for i in range(nargs) if i not in static]
    if not kwargs and all(type(a) in _LEAF_TYPES for a in dynamic):
        # The common case, arrays as arguments: one leaf each, named after its parameter.
        return tuple(params[i] if i < len(params) else f"args[{i}]" for i in positions)
    names = []
    for path, _ in tree_flatten_with_path((dynamic, kwargs))[0]:
        if path[0].idx == 0:
            i = positions[path[1].idx]
            base = params[i] if i < len(params) else f"args[{i}]"
        else:
            base = str(path[1].key)
        names.append(base + keystr(path[2:]))
    return tuple(names)


# ``make_jaxpr(f, axis_env=[('i', 4)])`` traces as if inside a pmap over axis 'i' of size 4.
# The named axes live with the collectives in lax/parallel.py, a layer above this one, which
# fills this slot when it is imported: a context manager binding ``axis_env`` while tracing.
bind_named_axes: Callable[[Sequence[tuple[Any, int]]], Any] | None = None


def _named_axes(axis_env: Sequence[tuple[Any, int]]) -> Any:
    if not axis_env or bind_named_axes is None:
        return contextlib.nullcontext()
    return bind_named_axes(axis_env)


def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (),
               return_shape: bool = False, **unused: Any) -> Callable:
    """Return a function that traces ``fun`` and returns its ClosedJaxpr.

    ``make_jaxpr(f)(*args)`` calls ``f`` once on tracers shaped like ``args`` and
    records every primitive it applies. Python side effects (a ``print``) happen
    during that one call: they are not part of the jaxpr.
    """
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)

    @functools.wraps(fun, updated=())
    def make_jaxpr_f(*args: Any, **kwargs: Any):
        dynamic, rebuild = split_static(args, static_argnums)
        flat_args, in_tree = tree_flatten((dynamic, kwargs))
        in_avals = [shaped_abstractify(x) for x in flat_args]
        flat_fun = flatten_fun(lambda *dyn, **kw: fun(*rebuild(dyn), **kw), in_tree)

        axis_env = unused.get("axis_env")
        key = _trace_key(args, static_argnums, in_tree, in_avals)
        cached = None if axis_env else _cached_trace(fun, key)
        if cached is not None:
            closed, out_tree = cached
        else:
            arg_names = _leaf_names(fun, dynamic, kwargs, static_argnums, len(args))
            info = DebugInfo("jit", func_name(fun), func_source(fun), arg_names)
            with _named_axes(axis_env or ()):
                closed, out_tree = trace_to_jaxpr(flat_fun, in_avals, debug_info=info)
            if not axis_env:
                _remember_trace(fun, key, closed, out_tree)
        if return_shape:
            shapes = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in closed.out_avals]
            return closed, tree_unflatten(out_tree, shapes)
        return closed

    return make_jaxpr_f


# make_jaxpr's trace cache. Like JAX, tracing ``f`` again for arguments of the same types
# gives the same jaxpr, so it is kept: a second ``make_jaxpr(f)(x)`` does not run ``f`` (a
# ``print`` inside it prints once) and returns at once. Entries are per function (weakly: they
# die with it) and keyed on everything the jaxpr depends on: the arguments' structure, shapes,
# dtypes and weak types, the static arguments' values and the x64 flag.
_trace_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _trace_key(args: tuple, static_argnums: Sequence[int], in_tree: Any,
               in_avals: list) -> tuple | None:
    """The cache key of one make_jaxpr call, or None when it must not be cached."""
    if not core.at_top_level():
        return None  # traced inside another transformation: its tracers may be captured
    nargs = len(args)
    statics = tuple((i, args[i]) for i in sorted({i % nargs for i in static_argnums})) \
        if nargs else ()
    key = (in_tree, tuple((a.shape, a.dtype, a.weak_type) for a in in_avals), statics,
           dtypes.x64_enabled())
    try:
        hash(key)
    except TypeError:  # an unhashable static argument: trace every time
        return None
    return key


def _cached_trace(fun: Callable, key: tuple | None) -> Any:
    if key is None:
        return None
    try:
        return _trace_cache.get(fun, {}).get(key)
    except TypeError:  # a function that cannot be weakly referenced
        return None


def _remember_trace(fun: Callable, key: tuple | None, closed: Any, out_tree: Any) -> None:
    if key is None or any(isinstance(c, core.Tracer) for c in closed.consts):
        return
    try:
        _trace_cache.setdefault(fun, {})[key] = (closed, out_tree)
    except TypeError:
        pass


def clear_trace_cache() -> None:
    _trace_cache.clear()


def device_put(x: Any, device: Any = None, *, src: Any = None, donate: bool = False,
               may_alias: Any = None) -> Any:
    """Put ``x`` (any pytree of arrays) on ``device``, as edujax Arrays.

    Without a device, on the default one: the GPU when the ``cuda`` backend is in use (see
    ``edujax.devices()``), else the CPU. Arrays already on the GPU stay there, CPU arrays stay
    on the CPU, unless a device is named. A ``NamedSharding`` (or, under ``set_mesh``, a
    ``PartitionSpec``) lays each array out over a mesh's devices.
    """
    if isinstance(device, (sharding.NamedSharding, sharding.PartitionSpec)):
        return _put_on_mesh(x, as_named_sharding(device))
    on_gpu = _wants_gpu(device)

    def put(leaf: Any) -> Any:
        if isinstance(leaf, core.Tracer):
            return leaf
        if isinstance(leaf, Array):
            if device is None or on_gpu == (leaf.device.platform == "gpu"):
                return leaf
            if not on_gpu:  # GPU -> CPU: copy the values back
                return Array(np.asarray(leaf), leaf.weak_type)
            value, weak = np.asarray(leaf), leaf.weak_type
        else:
            value = np.asarray(leaf)
            weak = type(leaf) in dtypes.python_scalar_types and type(leaf) is not bool
            value = value.astype(dtypes.canonicalize_dtype(value.dtype))
        if on_gpu:
            return devices.gpu_platform["put"](value, weak)
        return Array(value, weak)
    return tree_map(put, x)


def _put_on_mesh(x: Any, named: sharding.NamedSharding) -> Any:
    """Each leaf laid out as ``named`` says; edujax keeps the whole value (the devices are
    simulated) and the sharding, which cuts out each device's block when asked."""
    def put(leaf: Any) -> Any:
        if isinstance(leaf, core.Tracer):
            return leaf
        array = device_put(leaf)
        named.check_shape(array.shape)
        return with_sharding(Array(array._value, array.weak_type), named)
    return tree_map(put, x)


def _wants_gpu(device: Any) -> bool:
    """Is ``device`` (a Device, a platform name, or None for the default) a GPU?"""
    if device is None:
        platform = devices.default_backend()
    else:
        platform = device if isinstance(device, str) else getattr(device, "platform", "cpu")
    if platform in devices.GPU_NAMES:
        devices.gpu_devices()  # a clear error without numba-cuda or a GPU
        return True
    return False


def device_get(x: Any) -> Any:
    """Bring ``x`` (any pytree) back to the host as NumPy arrays."""
    return tree_map(lambda leaf: np.asarray(leaf) if isinstance(leaf, Array) else leaf, x)


def block_until_ready(x: Any) -> Any:
    """Wait for every array in ``x``: GPU kernels run asynchronously (CPU arrays are ready)."""
    for leaf in tree_leaves(x):
        if isinstance(leaf, Array) and type(leaf) is not Array:
            leaf.block_until_ready()
    return x


def eval_shape(fun: Callable, *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes ``fun(*args)`` would return, found without computing anything.

    ``fun`` is traced (as ``make_jaxpr`` does) on abstract values; the arguments may be arrays
    or ``ShapeDtypeStruct``s. The result has ``fun``'s output structure with a
    ``ShapeDtypeStruct`` at each leaf.
    """
    _, shapes = make_jaxpr(fun, return_shape=True)(*args, **kwargs)
    return shapes


def typeof(x: Any) -> core.ShapedArray:
    """The abstract value (shape, dtype, weak type) JAX sees for ``x``: ``float32[3]``. On a
    mesh, its sharding names the Explicit axes only: Auto axes are the compiler's choice, not
    part of the type (``typeof(x).sharding.spec`` is ``P(None,)`` on an Auto mesh)."""
    aval = shaped_abstractify(x)
    sharding = getattr(aval, "sharding", None)
    return aval if sharding is None else aval.update(sharding=typed_part(sharding, aval.ndim))
