"""``jnp.ufunc`` and ``jnp.frompyfunc``: a scalar function given NumPy's ufunc methods.

``frompyfunc(f, nin=2, nout=1)`` wraps ``f`` so that it can be called on arrays
(broadcasting, like any ufunc) and also used as

* ``outer(a, b)``: ``f`` on every pair, shape ``a.shape + b.shape`` (two vmaps);
* ``reduce(a, axis)``: fold ``f`` along an axis, ``f(f(f(init, a0), a1), a2)...``;
* ``accumulate(a, axis)``: the same fold, keeping every intermediate result;
* ``at(a, indices, b, inplace=False)``: ``a[i] = f(a[i], b)`` for each index in turn;
* ``reduceat(a, indices)``: ``reduce`` over the segments that start at ``indices``.

The folds are ``fori_loop``/``scan`` loops (``f`` is arbitrary, so nothing faster can be
assumed), which makes them work under jit. NB: JAX's own ufuncs (``jnp.add`` & co) are
instances of this class with faster methods; edujax's ``jnp.add`` is a plain function.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax import lax
from edujax.numpy.creation import asarray
from edujax.numpy.functional import vectorize
from edujax.numpy.shape_ops import concatenate, expand_dims, moveaxis, ravel, reshape, stack
from edujax.numpy.util import broadcast_to, canonicalize_axis, ensure_array
from edujax.vmap import vmap


class ufunc:
    """A function of ``nin`` scalars returning ``nout`` scalars, with NumPy's ufunc
    methods (see the module docstring)."""

    def __init__(self, func: Callable, /, nin: int, nout: int, *, name: str | None = None,
                 nargs: int | None = None, identity: Any = None) -> None:
        self._func = func
        self.__name__ = name or getattr(func, "__name__", repr(func))
        self.nin, self.nout = int(nin), int(nout)
        self.nargs = int(nargs or self.nin)
        self.identity = identity

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: None = None, where: None = None) -> Any:
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} positional argument(s) but "
                            f"{len(args)} were given")
        return vectorize(self._func)(*args)

    def _check_binary(self, method: str) -> None:
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{method} only supported for binary ufuncs")

    def outer(self, A: Any, B: Any, /) -> Any:
        """``f(a, b)`` for every element a of ``A`` and b of ``B``."""
        if self.nin != 2:
            raise ValueError("outer only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError("outer only supported for functions returning a single value")
        A, B = ravel(ensure_array("outer", A)), ravel(ensure_array("outer", B))
        shape = np.shape(A) + np.shape(B)
        func = vmap(vmap(self._func, (None, 0)), (0, None))
        return reshape(func(A, B), shape)

    def reduce(self, a: Any, axis: int | None = 0, dtype: Any = None, out: None = None,
               keepdims: bool = False, initial: Any = None, where: None = None) -> Any:
        """Fold ``f`` along ``axis``, starting from ``initial`` (by default the
        identity, or else the first element)."""
        self._check_binary("reduce")
        if out is not None or where is not None:
            raise NotImplementedError(f"out and where arguments of {self.__name__}.reduce")
        arr = ensure_array("reduce", a)
        if axis is None:
            arr, axis, final_shape = ravel(arr), 0, (1,) * np.ndim(a)
        else:
            axis = canonicalize_axis(axis, np.ndim(arr))
            final_shape = np.shape(arr)[:axis] + (1,) + np.shape(arr)[axis + 1:]
        arr = moveaxis(arr, axis, 0)
        initial = self.identity if initial is None else initial
        if initial is None and arr.shape[0] == 0:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which "
                             "has no identity")
        result = self._fold(arr, initial)
        return reshape(result, final_shape) if keepdims else result

    def _fold(self, arr: Any, initial: Any) -> Any:
        """``f(...f(f(initial, arr[0]), arr[1])..., arr[n-1])`` (from arr[0] if no
        initial), one ``fori_loop`` over the leading axis."""
        if initial is None:
            start, value = 1, arr[0]
        else:
            start = 0
            value = broadcast_to(lax.convert_element_type(initial, arr.dtype), arr.shape[1:])
        body = vectorize(self._func)
        return lax.fori_loop(start, arr.shape[0], lambda i, v: body(v, arr[i]), value)

    def accumulate(self, a: Any, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """Every intermediate result of ``reduce`` (a running fold, like cumsum)."""
        self._check_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate")
        arr = moveaxis(ensure_array("accumulate", a), canonicalize_axis(axis, np.ndim(a)), 0)
        body = vectorize(self._func)

        def step(carry, x):
            new = body(carry, x)
            return new, new
        _, rest = lax.scan(step, arr[0], arr[1:])
        return moveaxis(concatenate([expand_dims(arr[0], 0), rest]), 0, axis)

    def at(self, a: Any, indices: Any, b: Any = None, /, *, inplace: bool = True) -> Any:
        """A copy of ``a`` with ``a[i] = f(a[i], b)`` applied for each index in turn
        (repeated indices apply repeatedly). ``inplace=False`` is required."""
        if inplace:
            raise NotImplementedError(
                "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
                "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; "
                "e.g.\n>>> arr = jnp.add.at(arr, ind, val, inplace=False)\n")
        if b is None:
            raise NotImplementedError("at() without b is not supported")
        a = ensure_array("at", a)
        idx = ravel(asarray(indices))
        b = broadcast_to(asarray(b), np.shape(idx))
        body = vectorize(self._func)

        def step(i, arr):
            return arr.at[idx[i]].set(body(arr[idx[i]], b[i]))
        return lax.fori_loop(0, idx.shape[0], step, a)

    def reduceat(self, a: Any, indices: Any, axis: int = 0, dtype: Any = None,
                 out: None = None) -> Any:
        """``reduce`` over each segment ``a[indices[i]:indices[i+1]]`` (a single element
        where the next index is not larger). The indices must be concrete."""
        self._check_binary("reduceat")
        arr = moveaxis(ensure_array("reduceat", a), canonicalize_axis(axis, np.ndim(a)), 0)
        starts = [int(i) for i in np.asarray(indices).ravel()]
        ends = starts[1:] + [arr.shape[0]]
        pieces = [self._fold(arr[s:e], None) if s < e else arr[s] for s, e in zip(starts, ends)]
        return moveaxis(stack(pieces), 0, axis)


def frompyfunc(func: Callable, /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """Make ``func`` (written for scalars, with jnp) a ``jnp.ufunc``."""
    return ufunc(func, nin, nout, identity=identity)
