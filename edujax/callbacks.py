"""``jax.pure_callback``: call a Python (NumPy, SciPy...) function from transformed code.

``jax.pure_callback(f, result_shape_dtypes, *args)`` becomes one ``pure_callback`` equation;
when the program runs, the equation hands the operands' values to ``f`` and takes its
result, which must have the shapes and dtypes promised. *Pure* means: no side effects and
the same result for the same inputs, so an unused callback may be dropped and one may be
called again.

Transformations cannot see inside ``f``:

* ``grad`` raises (wrap the callback in a ``custom_jvp`` to give it a derivative);
* ``vmap`` needs to be told how to batch it, with ``vmap_method``: ``"sequential"`` calls
  ``f`` once per example (a ``scan``, as JAX does), ``"expand_dims"`` calls it once with a
  leading batch axis on the batched operands (size 1 on the others), ``"broadcast_all"``
  once with every operand broadcast to the batch.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax import core, lax
from edujax.array import Array
from edujax.core import Primitive
from edujax.interpreters import ad, batching
from edujax.api_util import FlatCallback
from edujax.tree_util import tree_flatten, tree_unflatten

pure_callback_p = Primitive("pure_callback")
pure_callback_p.multiple_results = True


def _abstract_eval(*avals: core.ShapedArray, result_avals: tuple, **params: Any) -> list:
    return list(result_avals)


def _impl(*args: Any, callback: Callable, result_avals: tuple, **params: Any) -> list:
    arrays = [a if isinstance(a, Array) else Array(np.asarray(a)) for a in args]
    outs, _ = tree_flatten(callback(*arrays))
    if len(outs) != len(result_avals):
        raise RuntimeError("Expected the callback to return "
                           f"{len(result_avals)} results, got {len(outs)}")
    results = []
    for out, aval in zip(outs, result_avals):
        out = np.asarray(out)
        if out.shape != aval.shape:
            raise RuntimeError(f"Incorrect output shape for return value #{len(results)}: "
                               f"Expected: {aval.shape}, Actual: {out.shape}")
        results.append(out.astype(aval.dtype))  # NB: JAX checks dtypes too; we convert
    return results


core.abstract_eval_rules[pure_callback_p] = _abstract_eval
core.impl_rules[pure_callback_p] = _impl


def _jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to "
                     "use callbacks while taking gradients.")


ad.jvp_rules[pure_callback_p] = _jvp


def _batch(args, dims, *, callback, result_avals, vmap_method, **params):
    size = next(core.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
    if vmap_method in ("sequential", "sequential_unrolled"):
        return _batch_sequential(args, dims, size, callback=callback,
                                 result_avals=result_avals, vmap_method=vmap_method, **params)
    if vmap_method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
        args = [batching.bdim_at_front(x, d, size) if d is not None
                else _unbatched(x, size, vmap_method) for x, d in zip(args, dims)]
        batched_avals = tuple(core.ShapedArray((size, *a.shape), a.dtype, a.weak_type)
                              for a in result_avals)
        outs = pure_callback_p.bind(*args, callback=callback, result_avals=batched_avals,
                                    vmap_method=vmap_method, **params)
        return outs, [0] * len(outs)
    raise NotImplementedError(
        "vmap is only supported for the pure_callback primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        f"'legacy_vectorized'. Got vmap_method={vmap_method}.")


def _unbatched(x: Any, size: int, vmap_method: str) -> Any:
    """An operand without a batch axis: size 1 in front (``expand_dims``) or ``size``."""
    x = lax.expand_dims(x, (0,))
    if vmap_method == "broadcast_all":
        x = lax.broadcast_in_dim(x, (size, *core.get_aval(x).shape[1:]),
                                 tuple(range(core.get_aval(x).ndim)))
    return x


def _batch_sequential(args, dims, size, **params):
    """One call per example: a ``lax.map`` (a scan) over the batched operands."""
    batched = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims) if d is not None]
    is_batched = [d is not None for d in dims]

    def one(xs):
        it = iter(xs)
        return pure_callback_p.bind(*[next(it) if b else x for x, b in zip(args, is_batched)],
                                    **params)
    outs = lax.map(one, batched)
    return outs, [0] * len(outs)


batching.batching_rules[pure_callback_p] = _batch


def pure_callback(callback: Callable, result_shape_dtypes: Any, *args: Any,
                  sharding: Any = None, vmap_method: str | None = None, **kwargs: Any) -> Any:
    """Call ``callback(*args, **kwargs)`` on the arrays' values when the program runs.

    ``result_shape_dtypes`` (a pytree of ``jax.ShapeDtypeStruct``s) says what ``callback``
    returns; the result has that structure.
    """
    flat, in_tree = tree_flatten((args, kwargs))
    result_leaves, out_tree = tree_flatten(result_shape_dtypes)
    result_avals = tuple(core.ShapedArray(tuple(r.shape), np.dtype(r.dtype)) for r in result_leaves)
    outs = pure_callback_p.bind(*flat, callback=FlatCallback(callback, in_tree),
                                result_avals=result_avals, sharding=sharding,
                                vmap_method=vmap_method)
    return tree_unflatten(out_tree, outs)
