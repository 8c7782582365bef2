"""XLA's own random-number primitives: ``rng_uniform`` and ``rng_bit_generator``.

(jax.random does not use them; it computes threefry in ordinary lax operations.)

NB: edujax draws the bits with NumPy's Philox generator seeded from the key, so the
*shapes, dtypes and output structure* are JAX's but the bits (and the new key) differ
from XLA's. ``rng_uniform`` is stateful in XLA too: its values are not reproducible.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray
from edujax.lax.base import asarray
from edujax.lax.more import RandomAlgorithm

# ------------------------------------------------------------------ rng_uniform
rng_uniform_p = Primitive("rng_uniform")
_uniform_state = np.random.default_rng(0)


def _rng_uniform_abstract_eval(a, b, *, shape):
    if a.dtype != b.dtype:
        raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got "
                         f"{a.dtype} and {b.dtype}.")
    if a.shape != () or b.shape != ():
        raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes "
                         f"{a.shape} and {b.shape}.")
    return ShapedArray(shape, a.dtype)


def _rng_uniform_impl(a, b, *, shape):
    dtype = np.asarray(a).dtype
    if np.issubdtype(dtype, np.integer):
        return _uniform_state.integers(a, b, size=shape, dtype=dtype)
    return (a + (b - a) * _uniform_state.random(size=shape)).astype(dtype)


core.abstract_eval_rules[rng_uniform_p] = _rng_uniform_abstract_eval
core.impl_rules[rng_uniform_p] = _rng_uniform_impl


def rng_uniform(a: Any, b: Any, shape: Sequence[int]) -> Any:
    """Values drawn uniformly from [a, b) by a stateful generator (not reproducible)."""
    shape = tuple(int(d) for d in shape)
    return rng_uniform_p.bind(asarray(a), asarray(b), shape=shape)


# ------------------------------------------------------------------ rng_bit_generator
rng_bit_generator_p = Primitive("rng_bit_generator")
rng_bit_generator_p.multiple_results = True
_BIT_DTYPES = {np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64, np.int8,
                                     np.int16, np.int32, np.int64)}


def _rng_bit_generator_abstract_eval(key, *, shape, dtype, algorithm, out_sharding):
    return [ShapedArray(key.shape, key.dtype), ShapedArray(shape, dtype)]


def _rng_bit_generator_impl(key, *, shape, dtype, algorithm, out_sharding):
    key = np.asarray(key)
    width = key.dtype.itemsize * 8  # the key's words, read as one 128-bit number
    seed = sum(int(k) << (width * i) for i, k in enumerate(key.ravel())) % (1 << 128)
    gen = np.random.Generator(np.random.Philox(key=seed))
    bits = gen.integers(0, np.iinfo(np.uint64).max, size=shape, dtype=np.uint64,
                        endpoint=True)
    width = np.dtype(dtype).itemsize * 8
    bits = (bits >> np.uint64(64 - width)).astype(np.dtype(f"uint{width}"))
    new_key = np.asarray(gen.integers(0, np.iinfo(key.dtype).max, size=key.shape,
                                      dtype=key.dtype, endpoint=True))
    return [new_key, bits.view(dtype)]


core.abstract_eval_rules[rng_bit_generator_p] = _rng_bit_generator_abstract_eval
core.impl_rules[rng_bit_generator_p] = _rng_bit_generator_impl


def rng_bit_generator(key: Any, shape: Sequence[int], dtype: Any = np.uint32,
                      algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding: Any = None) -> tuple:
    """``(new_key, bits)``: random bits of ``shape`` and an unsigned/signed integer dtype,
    and the key to use next time. The key is a uint32[4] (or uint64[2]) array.

    NB: the bits come from NumPy's Philox, not XLA's generator: same shapes and dtypes,
    different values."""
    key = asarray(key)
    dtype = np.dtype(dtypes.canonicalize_dtype(dtype))
    if dtype not in _BIT_DTYPES:
        raise TypeError("rng_bit_generator: unsupported dtype {}".format(dtype))
    shape = tuple(int(d) for d in shape)
    new_key, bits = rng_bit_generator_p.bind(key, shape=shape, dtype=dtype,
                                             algorithm=algorithm, out_sharding=out_sharding)
    return new_key, bits
