"""``jnp.einsum_path``: the order in which ``einsum`` contracts its operands.

JAX asks the opt_einsum package for a cheap order. edujax's ``einsum`` always contracts
left to right (the running result with the next operand: einsum.py), so the path it
reports is that one, ``[(0, 1), (0, 1), ...]``, with a few lines of text describing it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax.numpy.einsum import parse_subscripts
from edujax.numpy.einsum_sublists import sublists_to_subscripts


def einsum_path(subscripts: Any, /, *operands: Any,
                optimize: Any = "auto") -> tuple[list[tuple[int, int]], str]:
    """(the contraction path, a description): each step contracts the first two
    operands of the current list, as edujax's ``einsum`` does."""
    if not isinstance(subscripts, str):
        subscripts, operands = sublists_to_subscripts(subscripts, *operands)
    shapes = [np.shape(op) for op in operands]
    inputs, output = parse_subscripts(subscripts, shapes)
    # one operand is still one step (a trace, a transpose...), as opt_einsum reports it
    path = [(0, 1)] * (len(inputs) - 1) if len(inputs) > 1 else [(0,)]
    lines = [f"  Complete contraction:  {','.join(inputs)}->{output}",
             "  Order: left to right (edujax's einsum contracts pairs in the given order)"]
    names = list(inputs)
    for _ in range(len(inputs) - 1):
        first, second = names.pop(0), names.pop(0)
        rest = "".join(names)
        kept = "".join(dict.fromkeys(c for c in first + second if c in output + rest))
        lines.append(f"  {first},{second}->{kept}")
        names.insert(0, kept)
    return path, "\n".join(lines)
