"""``safe_map`` and ``safe_zip``: ``map`` and ``zip`` that insist their arguments have the
same length (JAX's ``jax._src.util``, which the "Writing custom interpreters" notebook
imports). An interpreter that walks a jaxpr writes one value per variable; a length
mismatch there is a bug, and these say so instead of silently dropping values."""
from __future__ import annotations

from typing import Any, Callable


def safe_zip(*args: Any) -> list[tuple]:
    """``list(zip(*args))``, but every argument must have the same length."""
    lists = [list(a) for a in args]
    n = len(lists[0]) if lists else 0
    for other in lists[1:]:
        if len(other) != n:
            raise ValueError(f"length mismatch: {list(map(len, lists))}")
    return list(zip(*lists))


def safe_map(f: Callable, *args: Any) -> list:
    """``list(map(f, *args))``, but every argument must have the same length."""
    lists = [list(a) for a in args]
    n = len(lists[0]) if lists else 0
    for other in lists[1:]:
        if len(other) != n:
            raise ValueError(f"length mismatch: {list(map(len, lists))}")
    return list(map(f, *lists))
