"""XLA's own random-number primitives: ``rng_uniform`` and ``rng_bit_generator``.

(jax.random's default threefry keys do not use them; its 'rbg' and 'unsafe_rbg' keys draw
their bits with ``rng_bit_generator``.)

``rng_bit_generator`` with the default algorithm (and RNG_PHILOX) gives XLA's CPU bits
exactly: XLA runs Philox-4x32-10 there, written out below. NB: with RNG_THREE_FRY edujax
draws the bits with NumPy's Philox generator seeded from the key, so the *shapes, dtypes
and output structure* are JAX's but the bits (and the new key) differ from XLA's.
``rng_uniform`` is stateful in XLA too: its values are not reproducible.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from edujax import core, dtypes
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import batching
from edujax.lax.base import asarray
from edujax.lax.extras import dynamic_update_index_in_dim
from edujax.lax.shape import slice as lax_slice, squeeze
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


# ---- Philox-4x32-10 (Salmon et al. 2011), as XLA's CPU backend runs it (xla's prng.cc).
# A 128-bit counter and a 64-bit key, both as uint32 words, go through 10 rounds of
# multiply-and-xor; each counter value gives four 32-bit outputs.
_M32 = np.uint64(0xFFFFFFFF)
_PHILOX_MUL = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_PHILOX_WEYL = (np.uint64(0x9E3779B9), np.uint64(0xBB67AE85))


def _philox4x32(x: list[np.ndarray], key: tuple[np.uint64, np.uint64]) -> list[np.ndarray]:
    """The hash of counters ``x`` (four uint32 words each, held in uint64 arrays)."""
    k0, k1 = key
    x0, x1, x2, x3 = x
    for _ in range(10):
        p0, p1 = x0 * _PHILOX_MUL[0], x2 * _PHILOX_MUL[1]  # 32 x 32 -> 64-bit products
        x0, x1, x2, x3 = ((p1 >> np.uint64(32)) ^ x1 ^ k0, p1 & _M32,
                          (p0 >> np.uint64(32)) ^ x3 ^ k1, p0 & _M32)
        k0, k1 = (k0 + _PHILOX_WEYL[0]) & _M32, (k1 + _PHILOX_WEYL[1]) & _M32
    return [x0, x1, x2, x3]


def _philox_bits(key: np.ndarray, shape: tuple[int, ...], width: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """XLA's RngBitGenerator with Philox: the key's two 64-bit halves are (k, c); Philox
    runs under the key k on the 128-bit counters (c + i) + 2**64 * k, i = 0, 1, ...; the new
    key is (k, c + the number of counters used). 32-bit results take the four outputs of
    each counter in turn, 64-bit ones two pairs of them, narrower ones the low bits of a
    32-bit result."""
    words = np.asarray(key).astype(np.uint64).ravel()
    if words.size == 4:  # uint32[4]: the little-endian halves of two uint64
        words = words[0::2] | (words[1::2] << np.uint64(32))
    k, c = words
    n = int(np.prod(shape, dtype=np.int64))
    n32 = 2 * n if width == 64 else n
    steps = -(-n32 // 4)
    with np.errstate(over="ignore"):
        low = c + np.arange(steps, dtype=np.uint64)      # the counter's low 64 bits...
        high = k + (low < c).astype(np.uint64)           # ...carrying into the high ones
        new_c = c + np.uint64(steps)
    out = _philox4x32([low & _M32, low >> np.uint64(32), high & _M32, high >> np.uint64(32)],
                      (k & _M32, k >> np.uint64(32)))
    flat = np.stack(out, axis=-1).ravel()  # counter 0's four words, then counter 1's...
    if width == 64:
        bits = (flat[0::2] | (flat[1::2] << np.uint64(32)))[:n]
    else:
        bits = (flat[:n] & np.uint64((1 << width) - 1)).astype(f"uint{width}")
    new_words = np.array([k, new_c], np.uint64)
    return new_words, bits.reshape(shape)


def _rng_bit_generator_impl(key, *, shape, dtype, algorithm, out_sharding):
    key = np.asarray(key)
    width = np.dtype(dtype).itemsize * 8
    if algorithm in (RandomAlgorithm.RNG_DEFAULT, RandomAlgorithm.RNG_PHILOX):
        new_words, bits = _philox_bits(key, shape, width)
        if key.dtype == np.uint32:  # back to uint32[4]: the low word of each half first
            new_words = np.stack([new_words & _M32, new_words >> np.uint64(32)], -1).ravel()
        return [new_words.astype(key.dtype).reshape(key.shape), bits.view(dtype)]
    key_width = key.dtype.itemsize * 8  # the key's words, read as one 128-bit number
    seed = sum(int(k) << (key_width * i) for i, k in enumerate(key.ravel())) % (1 << 128)
    gen = np.random.Generator(np.random.Philox(key=seed))
    bits = gen.integers(0, np.iinfo(np.uint64).max, size=shape, dtype=np.uint64,
                        endpoint=True)
    bits = (bits >> np.uint64(64 - width)).astype(np.dtype(f"uint{width}"))
    new_key = np.asarray(gen.integers(0, np.iinfo(key.dtype).max, size=key.shape,
                                      dtype=key.dtype, endpoint=True))
    return [new_key, bits.view(dtype)]


core.abstract_eval_rules[rng_bit_generator_p] = _rng_bit_generator_abstract_eval
core.impl_rules[rng_bit_generator_p] = _rng_bit_generator_impl


def _rng_bit_generator_batching_rule(args, dims, *, shape, dtype, algorithm, out_sharding):
    """A batch of keys, as JAX batches it: the *first* key draws the bits of the whole batch
    (shape (batch, *shape)) and alone is advanced. (So vmapping over rbg keys does not give
    what a Python loop over them gives; JAX's values are what edujax reproduces.)"""
    keys, = args
    bd, = dims
    if bd is batching.not_mapped:
        return rng_bit_generator_p.bind(keys, shape=shape, dtype=dtype, algorithm=algorithm,
                                        out_sharding=out_sharding), [None, None]
    keys = batching.moveaxis(keys, bd, 0)
    # keys[0], as JAX writes it (jnp indexing: a slice, then a squeeze)
    key = squeeze(lax_slice(keys, (0,) * keys.ndim, (1, *keys.shape[1:])), (0,))
    new_key, bits = rng_bit_generator_p.bind(key, shape=(keys.shape[0], *shape), dtype=dtype,
                                             algorithm=algorithm, out_sharding=out_sharding)
    return [dynamic_update_index_in_dim(keys, new_key, 0, 0), bits], [0, 0]


batching.batching_rules[rng_bit_generator_p] = _rng_bit_generator_batching_rule


def rng_bit_generator(key: Any, shape: Sequence[int], dtype: Any = np.uint32,
                      algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding: Any = None) -> tuple:
    """``(new_key, bits)``: random bits of ``shape`` and an unsigned/signed integer dtype,
    and the key to use next time. The key is a uint32[4] (or uint64[2]) array.

    NB: with ``algorithm=RNG_THREE_FRY`` the bits come from NumPy's Philox, not XLA's
    generator: same shapes and dtypes, different values."""
    key = asarray(key)
    dtype = np.dtype(dtypes.canonicalize_dtype(dtype))
    if dtype not in _BIT_DTYPES:
        raise TypeError("rng_bit_generator: unsupported dtype {}".format(dtype))
    shape = tuple(int(d) for d in shape)
    new_key, bits = rng_bit_generator_p.bind(key, shape=shape, dtype=dtype,
                                             algorithm=algorithm, out_sharding=out_sharding)
    return new_key, bits
