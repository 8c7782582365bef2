"""JAX's dtype rules: canonical dtypes, weak types and the promotion lattice.

Three ideas, each a few lines below:

* **Canonical dtypes.** With 64-bit mode off (the default), 64-bit requests are
  quietly narrowed: float64 -> float32, int64 -> int32, and so on.
* **Weak types.** A Python scalar such as ``2.0`` has no width of its own. It
  becomes a *weakly typed* float32 that gives way to the other operand:
  ``x_f16 * 2.0`` stays float16, and ``int32_array + 1.5`` becomes float32.
* **The lattice.** Promotion is a least upper bound on a small graph of types
  (JAX's ``_type_promotion_lattice``), not NumPy's value-based rules.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from edujax.config import config

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
complex64, complex128 = np.dtype(np.complex64), np.dtype(np.complex128)

# The Python scalar types stand for the weak types in the lattice.
python_scalar_types = (bool, int, float, complex)
_weak_types = (int, float, complex)

_SUPPORTED = {bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
              float16, float32, float64, complex64, complex128}

# With x64 off, each 64-bit dtype is replaced by its 32-bit sibling.
_NARROW = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}


class TypePromotionError(ValueError):
    """Raised when two dtypes have no common type on the lattice."""


def x64_enabled() -> bool:
    return _x64[0]


# The x64 flag is read several times per operation, so it is kept here, refreshed by a config
# listener whenever it changes (config.update is the only way it can).
_x64 = [bool(config.read("jax_enable_x64"))]
# Likewise: is jax_numpy_dtype_promotion "strict"?
_strict_mode = [config.read("jax_numpy_dtype_promotion").value == "strict"]


def _refresh_x64(name: str, value: Any) -> None:
    if name == "jax_enable_x64":
        _x64[0] = bool(value)
    elif name == "jax_numpy_dtype_promotion":
        _strict_mode[0] = value.value == "strict"


config.on_update(_refresh_x64)


def canonicalize_dtype(dtype: Any) -> np.dtype:
    """The dtype an array of ``dtype`` really gets, given the x64 setting."""
    dtype = np.dtype(dtype)
    if dtype.kind == "V":
        return dtype  # an opaque record dtype (a PRNG key): nothing to canonicalize
    if dtype not in _SUPPORTED:
        raise TypeError(f"JAX only supports number and bool dtypes, got dtype {dtype}.")
    return dtype if x64_enabled() else _NARROW.get(dtype, dtype)


def default_dtype(kind: type) -> np.dtype:
    """The dtype a Python scalar of type ``kind`` becomes (int -> int32 without x64)."""
    return (_WIDE_DEFAULTS if x64_enabled() else _NARROW_DEFAULTS)[kind]


_WIDE_DEFAULTS = {bool: bool_, int: int64, float: float64, complex: complex128}
_NARROW_DEFAULTS = {t: _NARROW.get(d, d) for t, d in _WIDE_DEFAULTS.items()}


def float_dtype() -> np.dtype:
    return default_dtype(float)


def int_dtype() -> np.dtype:
    return default_dtype(int)


def issubdtype(a: Any, b: Any) -> bool:
    return np.issubdtype(a, b)


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f"


def is_inexact(dtype: np.dtype) -> bool:
    return dtype.kind in "fc"


# ---------------------------------------------------------------- the lattice
# Each node points to the types immediately above it (JAX's "standard" mode).
# The Python types int/float/complex are the weak nodes.
def _lattice(x64: bool) -> dict:
    b1, i_, f_, c_ = bool_, int, float, complex
    return {
        b1: [i_],
        i_: [uint8, int8],
        uint8: [int16, uint16], uint16: [int32, uint32],
        # Without x64, uint32 + int32 must not invent int64: it stays int32.
        uint32: [int64, uint64] if x64 else [int32, uint64],
        uint64: [f_],
        int8: [int16], int16: [int32], int32: [int64], int64: [f_],
        f_: [float16, c_],
        float16: [float32], float32: [float64, complex64], float64: [complex128],
        c_: [complex64], complex64: [complex128], complex128: [],
    }


def _strict_lattice() -> dict:
    """``jax_numpy_dtype_promotion='strict'``: only Python scalars promote implicitly (an int
    to any integer or float type, a float to any float type...); two different array dtypes
    never do, so ``int32 + float32`` needs an explicit ``astype``."""
    concrete = [bool_, uint8, uint16, uint32, uint64, int8, int16, int32, int64,
                float16, float32, float64, complex64, complex128]
    return {int: [float, uint8, uint16, uint32, uint64, int8, int16, int32, int64],
            float: [complex, float16, float32, float64], complex: [complex64, complex128],
            **{t: [] for t in concrete}}


@functools.lru_cache(maxsize=4)
def _upper_bounds(x64: bool, strict: bool = False) -> dict:
    """For every node, the set of all nodes at or above it (transitive closure)."""
    lattice = _strict_lattice() if strict else _lattice(x64)
    ubs = {}
    for node in lattice:
        seen, todo = {node}, [node]
        while todo:
            for up in lattice[todo.pop()]:
                if up not in seen:
                    seen.add(up)
                    todo.append(up)
        ubs[node] = seen
    return ubs


def _strict() -> bool:
    return _strict_mode[0]


def _least_upper_bound(x64: bool, *nodes) -> Any:
    return _least_upper_bound_in(x64, _strict(), *nodes)


@functools.lru_cache(maxsize=1024)
def _least_upper_bound_in(x64: bool, strict: bool, *nodes) -> Any:
    ubs = _upper_bounds(x64, strict)
    common = set.intersection(*(ubs[n] for n in nodes))
    lub = (common & set(nodes)) or {c for c in common if common <= ubs[c]}
    if len(lub) != 1:
        names = tuple(str(n) for n in nodes)  # (as JAX: a Python type shows as <class 'int'>)
        if strict:
            raise TypePromotionError(
                f"Input dtypes {names} have no available implicit dtype promotion path when "
                "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
                "output type, or set jax_numpy_dtype_promotion=standard.")
        raise TypePromotionError(f"Input dtypes {names} have no available implicit dtype "
                                 "promotion path. Try explicitly casting inputs to the "
                                 "desired output type.")
    return lub.pop()


def _lattice_node(dtype: np.dtype, weak: bool) -> Any:
    """A weakly typed value sits on its Python type's node (int, float, complex)."""
    if not weak or dtype == bool_:
        return dtype
    return {"i": int, "u": int, "f": float, "c": complex}[dtype.kind]


def dtype_and_weak(x: Any) -> tuple[np.dtype, bool]:
    """The (dtype, weak_type) pair of an array, tracer, NumPy value or Python scalar."""
    t = type(x)
    if t in python_scalar_types:
        return default_dtype(t), t is not bool
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval.dtype, aval.weak_type
    if isinstance(x, (np.ndarray, np.generic)):
        return canonicalize_dtype(x.dtype), False
    if isinstance(x, type) or isinstance(x, np.dtype) or isinstance(x, str):
        return canonicalize_dtype(x), False
    raise TypeError(f"Cannot determine dtype of {x!r}")


def result_type(*args: Any, return_weak_type_flag: bool = False):
    """The dtype that ``args`` promote to, following JAX's lattice.

    ``return_weak_type_flag=True`` also says whether the result stays weak
    (it does only when every input was weak, e.g. ``2.0 * 3.0``).
    """
    dtype, weak = _result_type_of_pairs(tuple(map(dtype_and_weak, args)), x64_enabled(),
                                        _strict())
    return (dtype, weak) if return_weak_type_flag else dtype


@functools.lru_cache(maxsize=4096)
def _result_type_of_pairs(pairs: tuple, x64: bool, strict: bool = False
                          ) -> tuple[np.dtype, bool]:
    """Promotion of (dtype, weak) pairs. Memoized: it runs on every eager operation."""
    dtypes = {d for d, _ in pairs}
    weaks = [w for _, w in pairs]
    if len(dtypes) == 1 and (len(pairs) == 1 or not all(weaks)):
        dtype, weak = pairs[0][0], all(weaks)
    elif all(weaks) and not strict:
        dtype, weak = _least_upper_bound_in(x64, strict, *dtypes), True
    else:
        nodes = {_lattice_node(d, w) for d, w in pairs}
        dtype = _least_upper_bound_in(x64, strict, *nodes)
        # NB: identity, not ==: NumPy says np.dtype("float64") == float.
        weak = any(dtype is t for t in _weak_types)
        if weak:
            dtype = default_dtype(dtype)
    dtype = canonicalize_dtype(dtype)
    return dtype, weak and dtype != bool_


def promote_types(a: Any, b: Any) -> np.dtype:
    """``jnp.promote_types``: Python types count as weak, like in JAX."""
    na = a if a in _weak_types else np.dtype(a)
    nb = b if b in _weak_types else np.dtype(b)
    out = _least_upper_bound(True, na, nb)
    # NB: identity, not ``in``: NumPy says np.dtype("complex128") == complex.
    return np.dtype(default_dtype(out) if any(out is t for t in _weak_types) else out)


# The dtype of the tangent (and gradient) of an integer or boolean value: it has no values
# at all, only a shape (JAX's jax.dtypes.float0: a NumPy void dtype of size 0).
float0 = np.dtype([("float0", np.void, 0)])
