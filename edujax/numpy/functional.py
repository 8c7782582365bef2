"""Functions that take functions: apply_along_axis, apply_over_axes, fromfunction,
piecewise, vectorize.

NumPy runs the user's function in a Python loop over slices. JAX (and edujax) instead
*vmap* it: the function is traced once, on one slice, and the batching rules apply it to
every slice at once. That is why the function must be written with jnp (it receives
tracers), and why it runs fast under jit.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Sequence

import numpy as np

from edujax import lax
from edujax.inner_jit import inner_jit
from edujax.numpy.creation import arange, array, asarray, zeros_like
from edujax.numpy.reductions import argmax, cumsum
from edujax.numpy.shape_ops import concatenate, expand_dims, squeeze
from edujax.numpy.util import (broadcast_shapes, canonicalize_axis,
                               canonicalize_shape, check_arraylike, ensure_array)
from edujax.vmap import vmap


def apply_along_axis(func1d: Callable, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """``func1d`` applied to every 1-D slice of ``arr`` along ``axis``: one vmap per
    other axis (those after ``axis`` first, so their results land after it)."""
    check_arraylike("apply_along_axis", arr)
    num_dims = np.ndim(arr)
    axis = canonicalize_axis(axis, num_dims)

    def func(x):
        return func1d(x, *args, **kwargs)
    for i in range(1, num_dims - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func: Callable, a: Any, axes: Sequence[int]) -> Any:
    """``func(a, axis)`` for each axis in turn, keeping the reduced axes (as size 1)."""
    a = ensure_array("apply_over_axes", a)
    for axis in axes:
        b = func(a, axis=axis)
        if np.ndim(b) == np.ndim(a):
            a = b
        elif np.ndim(b) == np.ndim(a) - 1:
            a = expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a


def fromfunction(function: Callable, shape: Any, *, dtype: Any = float, **kwargs: Any) -> Any:
    """``function(i, j, ...)`` evaluated on every index of ``shape``. NumPy passes whole
    index grids; here the function is vmapped over one ``arange`` per axis."""
    shape = canonicalize_shape(shape)
    function = functools.partial(function, **kwargs) if kwargs else function
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(s, dtype=dtype) for s in shape))


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Any:
    """``funclist[i](x)`` where ``condlist[i]`` holds (the last true condition wins); with
    one more function than conditions, the last one gives the value where none holds
    (else 0). Constants are allowed in place of functions.

    As in JAX, the branch index of each element is computed first, then a ``lax.switch``
    over the functions is vectorized over the elements: under vmap the switch evaluates
    every function on every element and selects, each function's input going through
    stop_gradient where it is not chosen (so their NaNs do not leak into gradients)."""
    x_arr = ensure_array("piecewise", x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = list(funclist[-1:]) + list(funclist[:-1])  # the default is branch 0
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                         f"expected; got {nf}")
    consts = {i: c for i, c in enumerate(funclist) if not callable(c)}
    funcs = {i: f for i, f in enumerate(funclist) if callable(f)}
    return _piecewise(x_arr, asarray(condlist, dtype=bool), consts,
                      frozenset(funcs.items()), *args, **kw)  # (a dict is not hashable)


@inner_jit(static_argnames=("funcs",))
def _piecewise(x: Any, condlist: Any, consts: dict, funcs: frozenset, *args: Any,
               **kw: Any) -> Any:
    funcdict = dict(funcs)
    funclist = [consts.get(i, funcdict.get(i)) for i in range(len(condlist) + 1)]
    # the index of the last true condition (+1), 0 where none holds: where the running
    # count of true conditions reaches its maximum first
    indices = argmax(cumsum(concatenate([zeros_like(condlist[:1]), condlist], 0), 0), 0)
    dtype = x.dtype

    def call(f: Callable) -> Callable:
        return lambda x: f(x, *args, **kw).astype(dtype)

    def constant(v: Any) -> Callable:
        return lambda x: array(v, dtype=dtype)
    funclist = [call(f) if callable(f) else constant(f) for f in funclist]
    return vectorize(lax.switch, excluded=(1,))(indices, funclist, x)


# ---------------------------------------------------------------- vectorize
_DIMENSION_NAME = r"\w+"
_CORE_DIMENSION_LIST = f"(?:{_DIMENSION_NAME}(?:,{_DIMENSION_NAME})*)?"
_ARGUMENT = rf"\({_CORE_DIMENSION_LIST}\)"
_ARGUMENT_LIST = f"{_ARGUMENT}(?:,{_ARGUMENT})*"
_SIGNATURE = f"^{_ARGUMENT_LIST}->{_ARGUMENT_LIST}$"


def _parse_gufunc_signature(signature: str) -> tuple[list[tuple[str, ...]],
                                                     list[tuple[str, ...]]]:
    """``"(m,n),(n)->(m)"`` as ([("m", "n"), ("n",)], [("m",)])."""
    signature = re.sub(r"\s+", "", signature)
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    inputs, outputs = signature.split("->")
    parse = [tuple(re.findall(_DIMENSION_NAME, arg)) for arg in re.findall(_ARGUMENT, inputs)]
    return parse, [tuple(re.findall(_DIMENSION_NAME, arg))
                   for arg in re.findall(_ARGUMENT, outputs)]


def vectorize(pyfunc: Callable, *, excluded: frozenset = frozenset(),
              signature: str | None = None) -> Callable:
    """``pyfunc`` written for single elements (or, with ``signature``, for arrays with
    the given core dimensions) made to work on whole arrays, by broadcasting the inputs
    and vmapping over the leading "loop" dimensions."""
    excluded = frozenset(excluded)
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        static_kw = {k: v for k, v in kwargs.items() if k in excluded}
        dyn_kw = {k: v for k, v in kwargs.items() if k not in excluded}
        static_pos = {i: a for i, a in enumerate(args) if i in excluded}
        dyn_args = [a for i, a in enumerate(args) if i not in excluded]
        kw_names = list(dyn_kw)
        dyn_args += [dyn_kw[k] for k in kw_names]
        n_pos = len(args) - len(static_pos)

        def call(*dyn):
            it = iter(dyn[:n_pos])
            full_args = [static_pos[i] if i in static_pos else next(it)
                         for i in range(len(args))]
            return pyfunc(*full_args, **static_kw, **dict(zip(kw_names, dyn[n_pos:])))
        context = (f"on vectorized function with excluded={excluded!r} and "
                   f"signature={signature!r}")
        return _vectorized_call(call, [ensure_array("vectorize", a) for a in dyn_args],
                                signature, context)
    return wrapped


def _vectorized_call(func: Callable, args: list, signature: str | None,
                     context: str) -> Any:
    """Check the core dimensions, then vmap ``func`` once per loop dimension of the
    broadcast shape. As in JAX, an argument is not broadcast: its size-1 loop dimensions
    are squeezed away and vmap gets ``None`` for them (a triangular solve with one matrix
    and many right-hand sides then stays one matrix); a loop dimension that is 1 for every
    argument is put back at the end with ``expand_dims``."""
    if signature is None:
        in_core, out_core = [()] * len(args), None
    else:
        in_core, out_core = _parse_gufunc_signature(signature)
    if len(in_core) != len(args):
        raise TypeError(f"wrong number of positional arguments: expected {len(in_core)}, "
                        f"got {len(args)} {context}")
    sizes: dict[str, int] = {}
    loop_shapes = []
    for arg, core in zip(args, in_core):
        _check_core_dims(sizes, np.shape(arg), core, context, is_input=True)
        loop_shapes.append(np.shape(arg)[:np.ndim(arg) - len(core)])
    loop_shape = broadcast_shapes(*loop_shapes)
    if out_core is not None:
        func = _checking_outputs(func, sizes, out_core, context)
    squeezed, rev_filled = [], []
    for arg, shape in zip(args, loop_shapes):
        rev_filled.append(((1,) * (len(loop_shape) - len(shape)) + shape)[::-1])
        squeezed.append(squeeze(arg, axis=tuple(i for i, n in enumerate(shape) if n == 1)))
    vectorized, dims_to_expand = func, []
    for negdim, axis_sizes in enumerate(zip(*rev_filled)):
        in_axes = tuple(None if n == 1 else 0 for n in axis_sizes)
        if all(axis is None for axis in in_axes):
            dims_to_expand.append(len(loop_shape) - 1 - negdim)
        else:
            vectorized = vmap(vectorized, in_axes)
    result = vectorized(*squeezed)
    if not dims_to_expand:
        return result
    if isinstance(result, tuple):
        return tuple(expand_dims(r, axis=dims_to_expand) for r in result)
    return expand_dims(result, axis=dims_to_expand)


def _check_core_dims(sizes: dict, shape: tuple, core: tuple, context: str, *,
                     is_input: bool) -> None:
    """Record the size of each named core dimension; a name seen twice must agree."""
    if is_input and len(shape) < len(core):
        raise ValueError(f"input with shape {shape!r} does not have enough dimensions for all "
                         f"core dimensions {core!r} {context}")
    if not is_input and len(shape) != len(core):
        raise ValueError(f"output shape {shape!r} does not match core dimensions {core!r} "
                         f"{context}")
    for name, size in zip(core, shape[len(shape) - len(core):] if core else ()):
        if sizes.setdefault(name, size) != size:
            raise ValueError(f"inconsistent size for core dimension {name!r}: {size!r} vs "
                             f"{sizes[name]!r} {context}")


def _checking_outputs(func: Callable, sizes: dict, out_core: list, context: str) -> Callable:
    """``func``, checking that its outputs have the core dimensions of the signature."""
    def wrapped(*args: Any) -> Any:
        out = func(*args)
        shapes = [np.shape(o) for o in (out if isinstance(out, tuple) else [out])]
        if len(out_core) > 1 and not isinstance(out, tuple):
            raise TypeError(f"output must be a tuple when multiple outputs are expected, "
                            f"got: {out!r}\n{context}")
        if len(shapes) != len(out_core):
            raise TypeError(f"wrong number of output arguments: expected {len(out_core)}, got "
                            f"{len(shapes)} {context}")
        seen = dict(sizes)
        for shape, core in zip(shapes, out_core):
            _check_core_dims(seen, shape, core, context, is_input=False)
        return out
    return wrapped


