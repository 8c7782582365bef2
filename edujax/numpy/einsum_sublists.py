"""einsum's second calling convention, the *sublist* form:

    jnp.einsum(a, [0, 1], b, [1, 2], [0, 2])   ==   jnp.einsum("ab,bc->ac", a, b)

Each operand is followed by a list naming its axes (``Ellipsis`` stands for ``...``),
and an optional last list names the output's axes. We translate it into the subscripts
string as JAX does (through opt_einsum): the distinct names, sorted, become the letters
``a, b, c, ...`` in order, so the implicit output (sorted letters) follows the names'
order.
"""
from __future__ import annotations

import string
from typing import Any

_SYMBOLS = string.ascii_lowercase + string.ascii_uppercase


def _symbol(i: int) -> str:
    """The i-th subscript letter (past 52, further unicode characters, as opt_einsum)."""
    return _SYMBOLS[i] if i < len(_SYMBOLS) else chr(i + 140)


def sublists_to_subscripts(*args: Any) -> tuple[str, list]:
    """(the subscripts string, the operands) for ``einsum(op0, sub0, op1, sub1, ...)``."""
    operands = list(args[0:2 * (len(args) // 2):2])
    sublists = list(args[1::2]) + ([args[-1]] if len(args) % 2 else [])
    names = sorted({s for sub in sublists for s in sub if s is not Ellipsis})
    letter = {name: _symbol(i) for i, name in enumerate(names)}

    def convert(sub: Any) -> str:
        return "".join("..." if s is Ellipsis else letter[s] for s in sub)
    inputs = [convert(sub) for sub in args[1::2]]
    subscripts = ",".join(inputs)
    if len(args) % 2:  # a trailing list names the output
        subscripts += "->" + convert(args[-1])
    return subscripts, operands
