"""``jnp.einsum``: Einstein summation, computed with lax reductions and dot_general.

A subscript string names the axes of each operand with letters, and the output's
axes after ``->``::

    einsum("ij,jk->ik", a, b)   # matrix product: j is summed over
    einsum("ii->i", a)          # the diagonal: a repeated letter means "equal indices"
    einsum("bij,bjk->bik", ...) # a batch of matrix products: b is kept, and matched

The rules, all of which follow from "multiply the operands' entries whose letters
agree, and sum over every letter that is not in the output":

* without ``->`` the output is every letter used exactly once, in alphabetical
  order (``"ij,jk"`` means ``"ij,jk->ik"``);
* ``...`` stands for the leading (or middle) axes that have no letters; they
  broadcast against each other and come first in an implicit output.

The algorithm (NB: JAX asks the opt_einsum package for the cheapest order of
contractions; we contract left to right, which gives the same values):

1. Parse and check the subscripts (with opt_einsum's error messages).
2. Simplify each operand on its own: a letter repeated within the operand is
   replaced by the diagonal (mask with an "identity", sum the copies away), and a
   letter that appears in no other operand and not in the output is summed away.
3. Fold the operands from left to right. Contracting the running result with the
   next operand is one ``dot_general``: a letter in both that is still needed (by
   the output or by a later operand) is a *batch* dimension; a letter in both that
   is not needed is a *contracting* dimension; any other letter is a free
   dimension of its operand.
4. Transpose the result into the output's letter order.
"""
from __future__ import annotations

import collections
import string
from typing import Any

import numpy as np

from edujax import dtypes, lax
from edujax.numpy.einsum_sublists import sublists_to_subscripts
from edujax.numpy.util import ensure_arraylike


def einsum(subscripts: str, /, *operands: Any, out: None = None, optimize: Any = "auto",
           precision: Any = None, preferred_element_type: Any = None) -> Any:
    """Evaluate the Einstein summation ``subscripts`` on ``operands`` (see the module
    docstring for the notation and the algorithm; einsum_sublists.py for the form
    ``einsum(a, [0, 1], b, [1, 2])``)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):  # the sublist form: einsum(a, [0, 1], b, [1, 2])
        subscripts, operands = sublists_to_subscripts(subscripts, *operands)
    shapes = [np.shape(op) for op in operands]
    inputs, output = parse_subscripts(subscripts, shapes)
    _check_sizes(inputs, shapes)
    operands = ensure_arraylike("einsum", *operands)
    if preferred_element_type is None:
        dtype, weak = dtypes.result_type(*operands, return_weak_type_flag=True)
    else:
        dtype, weak = dtypes.canonicalize_dtype(preferred_element_type), False

    terms = [(op, names) for op, names in zip(operands, inputs)]
    for i, (op, names) in enumerate(terms):
        needed_elsewhere = output + "".join(n for j, (_, n) in enumerate(terms) if j != i)
        terms[i] = _simplify(op, names, needed_elsewhere, dtype)
    result, names = terms[0]
    for i in range(1, len(terms)):
        later = "".join(n for _, n in terms[i + 1:])
        result, names = _contract_pair(result, names, *terms[i], output + later,
                                       precision, dtype)
    if names != output:
        result = lax.transpose(result, tuple(names.index(c) for c in output))
    return lax._convert_element_type(result, dtype, weak)


# ---------------------------------------------------------------- 1. parsing
def parse_subscripts(subscripts: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str]:
    """The letters of each operand and of the output, with ``...`` replaced by
    letters of their own and the implicit output filled in."""
    subscripts = subscripts.replace(" ", "")
    if "-" in subscripts or ">" in subscripts:
        if subscripts.count("->") != 1 or subscripts.count("-") > 1 or subscripts.count(">") > 1:
            raise ValueError("Subscripts can only contain one '->'.")
    inputs_str, arrow, output = subscripts.partition("->")
    inputs = inputs_str.split(",")
    if "." in subscripts:
        inputs, output = _expand_ellipses(inputs, output if arrow else None, shapes)
    elif not arrow:
        output = _implicit_output(inputs)
    for c in output:
        if output.count(c) != 1:
            raise ValueError(f"Output character '{c}' appeared more than once in the output.")
        if c not in "".join(inputs):
            raise ValueError(f"Output character '{c}' did not appear in the input")
    if len(inputs) != len(shapes):
        raise ValueError(f"Number of einsum subscripts, {len(inputs)}, must be equal to the "
                         f"number of operands, {len(shapes)}.")
    return inputs, output


def _implicit_output(inputs: list[str]) -> str:
    """Without ``->``: the letters used exactly once, alphabetically."""
    counts = collections.Counter("".join(inputs))
    return "".join(sorted(c for c, n in counts.items() if n == 1))


def _expand_ellipses(inputs: list[str], output: str | None,
                     shapes: list[tuple[int, ...]]) -> tuple[list[str], str]:
    """Give the axes covered by ``...`` fresh letters, aligned from the right (they
    broadcast like NumPy's leading axes)."""
    used = set("".join(inputs) + (output or "")) - set(".")
    fresh = [c for c in string.ascii_letters if c not in used]
    longest = max((len(s) for s in shapes), default=0)
    pool = "".join(fresh[:longest])
    expanded, widest = [], 0
    for sub, shape in zip(inputs, shapes):
        if "." not in sub:
            expanded.append(sub)
            continue
        if sub.count(".") != 3 or sub.count("...") != 1:
            raise ValueError("Invalid Ellipses.")
        count = 0 if shape == () else max(len(shape), 1) - (len(sub) - 3)
        if count < 0:
            raise ValueError("Ellipses lengths do not match.")
        widest = max(widest, count)
        expanded.append(sub.replace("...", pool[len(pool) - count:] if count else ""))
    ellipsis_letters = pool[len(pool) - widest:] if widest else ""
    if output is None:
        rest = sorted(set(_implicit_output(expanded)) - set(ellipsis_letters))
        return expanded, ellipsis_letters + "".join(rest)
    return expanded, output.replace("...", ellipsis_letters)


def _check_sizes(inputs: list[str], shapes: list[tuple[int, ...]]) -> None:
    """Every operand has one letter per axis, and a letter means one size everywhere
    (size 1 broadcasts)."""
    sizes: dict[str, int] = {}
    for i, (names, shape) in enumerate(zip(inputs, shapes)):
        if len(names) != len(shape):
            raise ValueError(f"Einstein sum subscript '{names}' does not contain the correct "
                             f"number of indices for operand {i}.")
        for c, d in zip(names, shape):
            if c not in sizes or sizes[c] == 1:
                sizes[c] = d
            elif d not in (1, sizes[c]):
                raise ValueError(f"Size of label '{c}' for operand {i} ({sizes[c]}) does not "
                                 f"match previous terms ({d}).")


# ---------------------------------------------------------------- 2. one operand
def _sum(x: Any, axes: list[int], dtype: np.dtype) -> Any:
    """Sum over ``axes`` in the result dtype (bools: "or")."""
    x_dtype = dtypes.dtype_and_weak(x)[0]
    if dtypes.result_type(x, dtype) != x_dtype:
        x, x_dtype = lax.convert_element_type(x, dtype), dtype
    if x_dtype == dtypes.bool_:
        return lax.reduce_or(x, axes)
    return lax.reduce_sum(x, axes)


def _simplify(x: Any, names: str, needed: str, dtype: np.dtype) -> tuple[Any, str]:
    """Take diagonals of repeated letters, and sum away letters needed nowhere else."""
    counts = collections.Counter(names)
    for c, n in counts.items():
        if n > 1:
            x, names = _diagonal(x, names, c, keep=c in needed, dtype=dtype)
    unique = [c for c in names if c not in needed]
    if unique:
        x = _sum(x, [names.index(c) for c in unique], dtype)
        names = "".join(c for c in names if c not in unique)
    return x, names


def _diagonal(x: Any, names: str, letter: str, keep: bool, dtype: np.dtype) -> tuple[Any, str]:
    """Entries whose ``letter`` axes all have equal indices: zero out the others with a
    bool "identity" mask, then sum the copies of the axis away (all of them if the
    letter is not needed any more, all but the last one otherwise)."""
    axes = [i for i, c in enumerate(names) if c == letter]
    x = lax.select(_delta(np.shape(x), axes), x, lax.full_like(x, 0))
    summed = axes if not keep else axes[:-1]
    x = _sum(x, summed, dtype)
    names = "".join(c for i, c in enumerate(names) if i not in summed)
    return x, names


def _delta(shape: tuple[int, ...], axes: list[int]) -> Any:
    """A bool array of ``shape`` that is True where the indices along ``axes`` are all
    equal (a Kronecker delta): compare iotas over just those axes, then broadcast."""
    base_shape = tuple(shape[a] for a in axes)
    iotas = [lax.broadcasted_iota(np.uint32, base_shape, i) for i in range(len(axes))]
    eye = lax.eq(iotas[0], iotas[1])
    for a, b in zip(iotas[1:-1], iotas[2:]):
        eye = lax.bitwise_and(eye, lax.eq(a, b))
    if base_shape == tuple(shape):
        return eye
    return lax.broadcast_in_dim(eye, shape, axes)


# ---------------------------------------------------------------- 3. two operands
def _squeeze_broadcast_ones(x: Any, names: str, other_shape: tuple[int, ...],
                            other_names: str) -> tuple[Any, str]:
    """A size-1 axis whose letter has a bigger size in the other operand broadcasts:
    drop it here, and the letter becomes a free dimension of the other operand."""
    shape = np.shape(x)
    drop = [i for i, c in enumerate(names)
            if shape[i] == 1 and c in other_names and other_shape[other_names.index(c)] != 1]
    if not drop:
        return x, names
    return lax.squeeze(x, drop), "".join(c for i, c in enumerate(names) if i not in drop)


def _contract_pair(first: Any, first_names: str, second: Any, second_names: str, needed: str,
                   precision: Any, dtype: np.dtype) -> tuple[Any, str]:
    """One ``dot_general`` of two operands; returns the result and its letters.

    As in JAX (whose opt_einsum path lists a pair's operands last first), ``lhs`` is the
    second operand and ``rhs`` the first; the batch letters come in the order of the result
    and the contracted ones alphabetically. dot_general puts batch dims first, then the
    lhs's free dims, then the rhs's: JAX first tries ``dot_general(rhs, lhs)`` (the
    operands in their given order), and if that is not the order wanted, ``(lhs, rhs)``,
    followed by a transpose."""
    lhs, lhs_names, rhs, rhs_names = second, second_names, first, first_names
    lhs, lhs_names = _squeeze_broadcast_ones(lhs, lhs_names, np.shape(rhs), rhs_names)
    rhs, rhs_names = _squeeze_broadcast_ones(rhs, rhs_names, np.shape(lhs), lhs_names)
    lhs, lhs_names = _simplify(lhs, lhs_names, needed + rhs_names, dtype)
    rhs, rhs_names = _simplify(rhs, rhs_names, needed + lhs_names, dtype)
    shared = set(lhs_names) & set(rhs_names)
    batch = "".join(dict.fromkeys(c for c in needed if c in shared))
    contracted = sorted(c for c in shared if c not in batch)
    lhs_batch, rhs_batch = ([lhs_names.index(c) for c in batch],
                            [rhs_names.index(c) for c in batch])
    lhs_cont, rhs_cont = ([lhs_names.index(c) for c in contracted],
                          [rhs_names.index(c) for c in contracted])
    lhs_free = "".join(c for c in lhs_names if c not in shared)
    rhs_free = "".join(c for c in rhs_names if c not in shared)
    names = batch + rhs_free + lhs_free
    if names == needed:
        return lax.dot_general(rhs, lhs, ((rhs_cont, lhs_cont), (rhs_batch, lhs_batch)),
                               precision, dtype), names
    return lax.dot_general(lhs, rhs, ((lhs_cont, rhs_cont), (lhs_batch, rhs_batch)),
                           precision, dtype), batch + lhs_free + rhs_free
