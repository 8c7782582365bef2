"""``lax.associative_scan``: every prefix "sum" of an array in O(log n) parallel steps.

It is built only from slices, pads, concatenates and the user's combining function, so it
can be differentiated like any other lax code. That is why the cumulative reductions
(``cumprod``, ``cummax``, ``cummin``, ``cumlogsumexp``, edujax/lax/reductions.py) take their
JVP from it, as JAX does: their jaxprs under ``grad`` show this very recursion.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from edujax import tree_util
from edujax.lax import elementwise as ew
from edujax.lax.shape import concatenate, pad, rev, slice_in_dim


def _interleave(a, b, axis: int):
    """a0 b0 a1 b1 ...: pad each with holes where the other's elements go, then add."""
    na, nb = np.shape(a)[axis], np.shape(b)[axis]
    a_pad = [(0, 0, 0)] * np.ndim(a)
    b_pad = [(0, 0, 0)] * np.ndim(b)
    a_pad[axis] = (0, 1 if na == nb else 0, 1)
    b_pad[axis] = (1, 0 if na == nb else 1, 1)
    op = ew.bitwise_or if np.dtype(a.dtype) == np.bool_ else ew.add
    return op(pad(a, np.zeros((), a.dtype), a_pad), pad(b, np.zeros((), b.dtype), b_pad))


def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
    """All prefix "sums" of ``elems`` under an associative ``fn`` in O(log n) parallel steps.

    The classic recursion (Blelloch): combine neighbours pairwise (halving the length),
    scan that half-length array recursively (that gives every odd-position prefix), then
    one more combine fills in the even positions; interleave the two.
    """
    elems_flat, tree = tree_util.tree_flatten(elems)
    if reverse:
        elems_flat = [rev(e, [axis]) for e in elems_flat]

    def combine(a_flat, b_flat):
        c = fn(tree_util.tree_unflatten(tree, a_flat), tree_util.tree_unflatten(tree, b_flat))
        return tree_util.tree_flatten(c)[0]

    axis = axis + np.ndim(elems_flat[0]) if axis < 0 else axis
    num_elems = int(np.shape(elems_flat[0])[axis])
    if not all(int(np.shape(e)[axis]) == num_elems for e in elems_flat[1:]):
        raise ValueError("Array inputs to associative_scan must have the same first "
                         f"dimension. (saw: {[np.shape(e) for e in elems_flat]})")

    def scan(elems):
        n = np.shape(elems[0])[axis]
        if n < 2:
            return elems
        reduced = combine([slice_in_dim(e, 0, -1, stride=2, axis=axis) for e in elems],
                          [slice_in_dim(e, 1, None, stride=2, axis=axis) for e in elems])
        odd = scan(reduced)
        if n % 2 == 0:
            even = combine([slice_in_dim(e, 0, -1, axis=axis) for e in odd],
                           [slice_in_dim(e, 2, None, stride=2, axis=axis) for e in elems])
        else:
            even = combine(odd, [slice_in_dim(e, 2, None, stride=2, axis=axis)
                                 for e in elems])
        even = [concatenate([slice_in_dim(e, 0, 1, axis=axis), r], axis)
                for e, r in zip(elems, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    scans = scan(elems_flat)
    if reverse:
        scans = [rev(s, [axis]) for s in scans]
    return tree_util.tree_unflatten(tree, scans)
