"""``vmap``: write a function for one example, run it on a batch.

This file handles the user-facing part: which axis of which argument is mapped
(``in_axes``, a pytree prefix of the arguments), checking that all mapped axes
have one size, and where the batch goes in the outputs (``out_axes``). The
mechanics are in ``interpreters/batching.py``.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import numpy as np

from edujax.api_util import flatten_fun_nokwargs, leaves_only
from edujax import core, source_info
from edujax.interpreters import batching
from edujax.tree_util import (broadcast_prefix, tree_flatten, tree_flatten_with_path,
                              tree_unflatten, keystr)


def _in_axes_for(in_axes: Any, args: tuple) -> list:
    """One axis (or None) per flat argument leaf."""
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        raise ValueError("vmap in_axes must be an int, None, or a tuple of entries corresponding "
                         "to the positional arguments passed to the function, but got "
                         f"len(in_axes)={len(in_axes)}, len(args)={len(args)}")
    prefix = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    return broadcast_prefix(prefix, args, is_leaf=lambda x: x is None)


def _arg_names(fun: Callable, args: tuple) -> list[str]:
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    names = []
    for path, _ in tree_flatten_with_path(args)[0]:
        i = path[0].idx
        names.append((params[i] if i < len(params) else f"args[{i}]") + keystr(path[1:]))
    return names


def _normalize_axis(axis: int | None, x: Any) -> int | None:
    if axis is None:
        return None
    ndim = np.ndim(x)
    if not -ndim <= axis < ndim:
        rank = axis + 1 if axis >= 0 else -axis
        raise ValueError(f"vmap was requested to map its argument along axis {axis}, which "
                         f"implies that its rank should be at least {rank}, but is only {ndim} "
                         f"(its shape is {np.shape(x)})")
    return axis % ndim


def _axis_size(fun: Callable, args: tuple, leaves: list, axes: list,
               axis_size: int | None) -> int:
    sizes = {np.shape(x)[a] for x, a in zip(leaves, axes) if a is not None}
    if axis_size is not None:
        sizes.add(axis_size)
    if not sizes:
        raise ValueError("vmap must have at least one non-None value in in_axes or axis_size "
                         "must be specified")
    if len(sizes) > 1:
        lines = [f"  * one axis had size {np.shape(x)[a]}: axis {a} of argument {name} of type "
                 f"{core.get_aval(x).str_short()}"
                 for x, a, name in zip(leaves, axes, _arg_names(fun, args)) if a is not None]
        raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                         + ";\n".join(lines) + "\nHint: every mapped axis must have the same "
                         "length; use in_axes=None for arguments shared by all examples.")
    return sizes.pop()


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_name: Any = None,
         axis_size: int | None = None, spmd_axis_name: Any = None) -> Callable:
    """Vectorize ``fun`` over the axes ``in_axes`` of its arguments.

    ``in_axes``: an int, None (not mapped), or a tuple with one entry per positional
    argument, each entry itself a pytree prefix of that argument. ``out_axes`` says
    where the batch dimension goes in each output. ``axis_name`` names the mapped
    axis for collectives such as ``lax.psum``.
    """
    @functools.wraps(fun, updated=())
    def vmap_f(*args: Any, **kwargs: Any):
        if kwargs:  # as in JAX, keyword arguments are always mapped over axis 0
            return vmap(lambda *a: fun(*a[:-1], **a[-1]),
                        (*_positional_axes(in_axes, args), 0), out_axes, axis_name,
                        axis_size)(*args, kwargs)
        leaves, in_tree = tree_flatten(args)
        axes = [_normalize_axis(a, x) for a, x in zip(_in_axes_for(in_axes, args), leaves)]
        size = _axis_size(fun, args, leaves, axes, axis_size)
        flat_fun, out_tree_of = leaves_only(flatten_fun_nokwargs(fun, in_tree))
        with source_info.transform_name_stack("vmap"):
            outs, dims = batching.batch_flat(flat_fun, leaves, axes, size, axis_name)
        out_tree = out_tree_of()
        out_spec = broadcast_prefix(out_axes, tree_unflatten(out_tree, outs),
                                    is_leaf=lambda x: x is None)
        return tree_unflatten(out_tree, [_place_output(o, d, a, size)
                                         for o, d, a in zip(outs, dims, out_spec)])
    return vmap_f


def _positional_axes(in_axes: Any, args: tuple) -> tuple:
    return tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)


def _place_output(out: Any, dim: int | None, want: int | None, size: int) -> Any:
    if want is None:
        if dim is not None:
            raise ValueError(f"at vmap out_axes, got axis spec None but output was batched on "
                             f"axis {dim}")
        return out
    ndim = np.ndim(out) + (1 if dim is None else 0)
    return batching.matchaxis(out, dim, want % ndim, size)
