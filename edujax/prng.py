"""The machinery under ``edujax.random``: key arrays, the threefry2x32 hash, key primitives.

**Why keys, and not a global seed.** NumPy keeps one hidden generator state that every
``np.random.rand()`` call advances. That state is a side effect: a pure function cannot
read it, a compiled function would bake one value into the program, and two parallel
workers would have to take turns with it. JAX makes randomness explicit instead. A
*key* is a small value (two uint32 words) that you pass around like any array; random
bits are a deterministic function of the key, ``bits = hash(key, counter)``; and
``split(key)`` derives fresh, independent keys from it. The same key always gives the
same numbers, so reusing a key by mistake silently repeats your "random" numbers.

**Counter-based generation.** To fill an array of n numbers, hash the counters
0, 1, ..., n-1 under the key. Each element is computed independently of the others,
which is perfect for vectorized (and parallel) hardware: no state carried from one
number to the next.

**threefry2x32** (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", 2011)
is that hash. It maps a key (k0, k1) and a counter pair (x0, x1), all uint32, to two
new uint32 words with 20 rounds of *add-rotate-xor*::

    x0 += x1;  x1 = rotate_left(x1, r);  x1 ^= x0

Adding mixes x1 into x0, rotating moves bits to new positions, xoring mixes x0 back
into x1. Every four rounds the key is *injected* (added) again, from a schedule of
three words k0, k1 and k0 ^ k1 ^ 0x1BD11BDA, plus the injection number, so no two
injections are alike. After 20 rounds every output bit depends on every input bit.

**Key arrays.** A key is one element of the NumPy dtype ``key<fry>``: a 64-bit record
holding the two uint32 words (NumPy prints the dtype's name as ``key<fry>64``). So a
key array is an ordinary edujax Array whose shape is the shape of the key array
(``split(key, 3)`` has shape ``(3,)``), and it is a pytree leaf, traced by jit and
batched by vmap like any array. ``random.PRNGKey`` hands out the raw uint32 words
instead, exactly like JAX's legacy keys; the ``random_wrap`` and ``random_unwrap``
primitives convert between the two.
NB: JAX's key dtype is an "extended dtype" that NumPy knows nothing about; ours is a
genuine NumPy record dtype, so every NumPy reference rule handles keys unchanged.

**Primitives**, as in JAX 0.10 (``make_jaxpr`` shows the same equations):
``random_seed``, ``random_wrap``, ``random_unwrap``, ``random_split``,
``random_fold_in`` and ``random_bits`` act on key arrays. Each one's reference rule
runs its *algorithm*, a small lax program on the key words (``threefry_split`` and
co. below), which is where ``threefry2x32`` and ``iota_2x32_shape`` appear. (JAX
lowers these primitives the same way: by inlining that program.)

**Other PRNGs.** ``random.key(0, impl='rbg')`` (or ``jax_default_prng_impl='rbg'``) makes
keys of JAX's two other implementations, ``rbg`` and ``unsafe_rbg``: four uint32 words,
dtypes ``key<rbg>`` and ``key<urbg>``. They draw their bits with XLA's own generator,
``lax.rng_bit_generator`` (Philox, lax/rng.py), which is fast on accelerators; ``rbg``
still derives keys (split, fold_in) with threefry on each half of the key, ``unsafe_rbg``
with the generator too (cheaper, but with no guarantee that the streams are independent).
"""
from __future__ import annotations

import functools
import math
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from edujax import array, core, dtypes, lax
from edujax.config import config
from edujax import numpy as jnp
from edujax.array import ArrayImpl
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import run_jaxpr
from edujax.lax.registry import broadcasting_shape_rule
from edujax.vmap import vmap

uint32 = np.dtype(np.uint32)


# ================================================================ the key dtype
class PRNGImpl(NamedTuple):
    """Which PRNG a key belongs to: threefry2x32 (``fry``, JAX's default), ``rbg`` or
    ``unsafe_rbg`` (``urbg``). The four algorithms are lax programs on the key words (a key
    array of shape K as uint32 words of shape K + key_shape), defined below."""

    key_shape: tuple[int, ...]
    name: str
    tag: str
    seed: Callable
    split: Callable
    fold_in: Callable
    random_bits: Callable

    def __str__(self) -> str:
        return self.tag  # jaxprs print ``random_seed[impl=fry]``

    def __repr__(self) -> str:
        return f"PRNGImpl({self.name})"

    @property
    def dtype(self) -> np.dtype:
        return _KEY_DTYPES[self.name]


class KeyScalar(np.void):
    """One key: a NumPy record of its uint32 words (one subclass per PRNG)."""


def _key_dtype(tag: str, num_words: int, field: str = "words") -> np.dtype:
    """The record dtype of one PRNG's keys, named ``key<tag>`` as JAX prints it.

    NB: NumPy compares record dtypes by their fields only, so rbg's and unsafe_rbg's keys
    (four words each) name their field differently: their dtypes must not be equal."""
    scalar = type(f"key<{tag}>", (KeyScalar,), {})
    return np.dtype((scalar, [(field, np.uint32, (num_words,))]))


_KEY_DTYPES = {"threefry2x32": _key_dtype("fry", 2), "rbg": _key_dtype("rbg", 4),
               "unsafe_rbg": _key_dtype("urbg", 4, "unsafe_words")}
key_dtype = _KEY_DTYPES["threefry2x32"]


def is_key_dtype(dtype: Any) -> bool:
    return isinstance(dtype, np.dtype) and issubclass(dtype.type, KeyScalar)


def impl_of(dtype: np.dtype) -> PRNGImpl:
    """The PRNG of a key dtype."""
    return next(impl for impl in PRNG_IMPLS.values() if impl.dtype.type is dtype.type)


def keys_to_words(keys: np.ndarray) -> np.ndarray:
    """A key array of shape S as its uint32 words, shape S + key_shape."""
    return np.array(keys[keys.dtype.names[0]], dtype=np.uint32)


def words_to_keys(words: np.ndarray, impl: PRNGImpl | None = None) -> np.ndarray:
    """uint32 words of shape S + key_shape as a key array of shape S (the same bytes)."""
    words = np.ascontiguousarray(words, dtype=np.uint32)
    return words.view(key_dtype if impl is None else impl.dtype)[..., 0]


def key_aval(shape: tuple[int, ...], impl: PRNGImpl | None = None) -> ShapedArray:
    return ShapedArray(tuple(shape), key_dtype if impl is None else impl.dtype)


class PRNGKeyArray(ArrayImpl):
    """A concrete array of typed keys, printed the way JAX prints them.

    It is an ordinary Array of dtype ``key<fry>`` that also knows how to show itself
    (``Array((), dtype=key<fry>) overlaying: [ 0 42]``) and keeps that look when
    indexed, iterated or reshaped. Inside jit and vmap keys are tracers of the key
    dtype; what comes out of them is a plain Array of keys, which random functions
    accept all the same.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        name = self._value.dtype.type.__name__
        return f"Array({self.shape}, dtype={name}) overlaying:\n{keys_to_words(self._value)}"

    __str__ = __repr__

    def __eq__(self, other: Any) -> Any:
        """Keys are equal when both words are (elementwise, like arrays)."""
        other, _ = check_prng_key("key_data", other, allow_batched=True)
        return jnp.all(random_unwrap(self) == random_unwrap(other), axis=-1)

    def __ne__(self, other: Any) -> Any:
        return ~(self == other)

    __hash__ = None


array.repr_rules["V"] = PRNGKeyArray.__repr__  # plain Arrays of keys (from jit, vmap) too


def as_key_array(x: Any) -> Any:
    """Give a concrete Array of keys PRNGKeyArray's looks; anything else is returned as is."""
    if type(x) is ArrayImpl and is_key_dtype(x._value.dtype):
        return PRNGKeyArray(x._value)
    return x


def _keep_key_type(method: str) -> None:
    def rewrapped(self, *args: Any, **kwargs: Any) -> Any:
        return as_key_array(getattr(ArrayImpl, method)(self, *args, **kwargs))
    rewrapped.__name__ = method
    setattr(PRNGKeyArray, method, rewrapped)


for _method in ("__getitem__", "reshape", "ravel", "flatten", "squeeze", "transpose", "copy"):
    _keep_key_type(_method)
PRNGKeyArray.__iter__ = lambda self: (self[i] for i in range(len(self)))
PRNGKeyArray.T = property(lambda self: self.transpose())


# ================================================================ threefry2x32
# threefry2x32(k0, k1, x0, x1) -> (y0, y1): the hash, on uint32 arrays that broadcast
# against each other (like lax's elementwise ops: same rank, or scalars).
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))  # the rotation of each round, 4 at a time
KEY_PARITY = 0x1BD11BDA  # Skein's constant: makes the third schedule word never all-equal
MASK = 0xFFFFFFFF


def threefry2x32_ints(k0: int, k1: int, x0: int, x1: int) -> tuple[int, int]:
    """threefry2x32 of one counter pair (x0, x1) under the key (k0, k1), on Python ints.

    This is the whole algorithm; ``& MASK`` keeps every result a 32-bit word.
    """
    schedule = (k0, k1, k0 ^ k1 ^ KEY_PARITY)
    x0, x1 = (x0 + schedule[0]) & MASK, (x1 + schedule[1]) & MASK
    for injection in range(1, 6):                      # 5 groups of 4 rounds
        for r in ROTATIONS[(injection - 1) % 2]:
            x0 = (x0 + x1) & MASK                      # add
            x1 = ((x1 << r) | (x1 >> (32 - r))) & MASK  # rotate left by r
            x1 ^= x0                                   # xor
        x0 = (x0 + schedule[injection % 3]) & MASK     # inject the key again
        x1 = (x1 + schedule[(injection + 1) % 3] + injection) & MASK
    return x0, x1


def _threefry_block(k0: np.ndarray, k1: np.ndarray, x0: np.ndarray,
                    x1: np.ndarray) -> None:
    """The same 20 rounds on whole uint32 arrays x0, x1, updated in place.

    NumPy's uint32 arithmetic wraps around modulo 2**32 by itself: no masks needed.
    """
    schedule = [k0, k1, k0 ^ k1 ^ np.uint32(KEY_PARITY)]
    spare = np.empty_like(x1)
    x0 += schedule[0]
    x1 += schedule[1]
    for injection in range(1, 6):
        for r in ROTATIONS[(injection - 1) % 2]:
            x0 += x1
            np.left_shift(x1, np.uint32(r), out=spare)
            x1 >>= np.uint32(32 - r)
            x1 |= spare
            x1 ^= x0
        x0 += schedule[injection % 3]
        x1 += schedule[(injection + 1) % 3]
        x1 += np.uint32(injection)


_BLOCK = 1 << 14  # elements hashed at a time: the working arrays stay in the CPU's cache
_FEW = 8          # up to this many elements, Python ints beat NumPy's per-call overhead


def threefry2x32_numpy(k0: np.ndarray, k1: np.ndarray, x0: np.ndarray,
                       x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reference rule: hash the counters (x0, x1) under the keys (k0, k1)."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in (k0, k1, x0, x1)))

    def flat(a: Any) -> np.ndarray:  # a copy: the counters are hashed in place
        return np.array(np.broadcast_to(a, shape), dtype=np.uint32).reshape(-1)
    y0, y1 = flat(x0), flat(x1)
    if y0.size <= _FEW:
        pairs = [threefry2x32_ints(*map(int, w)) for w in zip(flat(k0), flat(k1), y0, y1)]
        y0[:], y1[:] = [p[0] for p in pairs], [p[1] for p in pairs]
        return y0.reshape(shape), y1.reshape(shape)
    one_key = np.size(k0) == 1 and np.size(k1) == 1  # the usual case: one key, many counters
    if one_key:
        k0, k1 = np.asarray(k0, np.uint32).reshape(()), np.asarray(k1, np.uint32).reshape(())
    else:
        k0, k1 = flat(k0), flat(k1)
    with np.errstate(over="ignore"):
        for start in range(0, y0.size, _BLOCK):
            block = slice(start, start + _BLOCK)
            keys = (k0, k1) if one_key else (k0[block], k1[block])
            _threefry_block(*keys, y0[block], y1[block])
    return y0.reshape(shape), y1.reshape(shape)


def _threefry2x32_abstract_eval(*avals: ShapedArray) -> list[ShapedArray]:
    if any(a.dtype != uint32 for a in avals):
        raise TypeError(f"Arguments to threefry2x32 must have uint32 type, got "
                        f"{', '.join(a.str_short() for a in avals)}")
    aval = ShapedArray(broadcasting_shape_rule("threefry2x32", *avals), uint32)
    return [aval, aval]


threefry2x32_p = Primitive("threefry2x32")
threefry2x32_p.multiple_results = True
core.abstract_eval_rules[threefry2x32_p] = _threefry2x32_abstract_eval
core.impl_rules[threefry2x32_p] = threefry2x32_numpy
ad.defjvp_zero(threefry2x32_p)
batching.defbroadcasting(threefry2x32_p)


def threefry_2x32(keypair: tuple[Any, Any], count: Any) -> Any:
    """JAX's ``threefry_2x32``: hash the uint32 array ``count`` under one key.

    The counts are flattened, cut into two halves (padded with a 0 to an even size)
    that play x0 and x1, hashed, and put back together in ``count``'s shape.
    """
    key0, key1 = keypair
    flat = jnp.ravel(count)
    odd = flat.shape[0] % 2
    if odd:
        flat = lax.concatenate([flat, jnp.zeros((1,), uint32)], 0)
    half = flat.shape[0] // 2
    x0, x1 = lax.slice(flat, (0,), (half,)), lax.slice(flat, (half,), (2 * half,))
    out = lax.concatenate(threefry2x32_p.bind(key0, key1, x0, x1), 0)
    return lax.reshape(out[:-1] if odd else out, np.shape(count))


# ================================================================ iota_2x32_shape
# The counters 0 .. n-1 of an array of ``shape``, in row-major order, as 64-bit
# numbers split into (high, low) uint32 halves: arrays with more than 2**32 elements
# still get distinct counters, with or without x64.
def _iota_2x32_shape_impl(*, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    size = math.prod(shape)
    if size <= 2 ** 32:  # the usual case: the high halves are all 0
        return np.zeros(shape, np.uint32), np.arange(size, dtype=np.uint32).reshape(shape)
    counts = np.arange(size, dtype=np.uint64).reshape(shape)
    return (counts >> np.uint64(32)).astype(np.uint32), counts.astype(np.uint32)


iota_2x32_shape_p = Primitive("iota_2x32_shape")
iota_2x32_shape_p.multiple_results = True
core.abstract_eval_rules[iota_2x32_shape_p] = lambda *, shape: [ShapedArray(shape, uint32)] * 2
core.impl_rules[iota_2x32_shape_p] = _iota_2x32_shape_impl


def iota_2x32_shape(shape: tuple[int, ...]) -> tuple[Any, Any]:
    if not shape:
        zero = np.zeros((), uint32)  # a scalar: counter 0, a literal in jaxprs
        return zero, zero
    return tuple(iota_2x32_shape_p.bind(shape=tuple(shape)))


# ================================================================ the algorithms
# JAX's threefry implementation, written with lax on uint32 key *words*: a key array
# of shape K is an array of shape K + (2,). Leading key dimensions broadcast against
# the counters, which is what JAX gets by vmapping the one-key version.
def _key_halves(words: Any, extra_dims: int) -> tuple[Any, Any]:
    """k0 and k1 of every key, with ``extra_dims`` trailing size-1 dims to broadcast."""
    ndim = np.ndim(words) - 1
    halves = [lax.index_in_dim(words, i, ndim, keepdims=False) for i in (0, 1)]
    if not extra_dims or not ndim:
        return halves[0], halves[1]
    new = tuple(range(ndim, ndim + extra_dims))
    return lax.expand_dims(halves[0], new), lax.expand_dims(halves[1], new)


def _hash_counters(words: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    """threefry of the counters of an array of ``shape``, under each key of ``words``."""
    key_ndim = np.ndim(words) - 1
    k0, k1 = _key_halves(words, len(shape))
    hi, lo = iota_2x32_shape(shape)
    if key_ndim and shape:
        hi, lo = lax.broadcast_to_rank(hi, key_ndim + len(shape)), \
            lax.broadcast_to_rank(lo, key_ndim + len(shape))
    return tuple(threefry2x32_p.bind(k0, k1, hi, lo))


def threefry_seed(seed: Any) -> Any:
    """Key words from an integer seed: (high 32 bits, low 32 bits) of the seed."""
    if not np.issubdtype(core.get_aval(seed).dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    convert = lambda k: lax.expand_dims(lax.convert_element_type(k, uint32), [np.ndim(k)])  # noqa: E731
    high = convert(lax.shift_right_logical(seed, np.asarray(32, core.get_aval(seed).dtype)[()]))
    low = convert(jnp.bitwise_and(seed, np.uint32(0xFFFFFFFF)))
    return lax.concatenate([high, low], np.ndim(seed))


def threefry_split(words: Any, shape: tuple[int, ...]) -> Any:
    """``shape`` new keys: the hashes of the counters 0, 1, ... under the key.

    (This is JAX 0.10's default, ``jax_threefry_partitionable=True``: new key i is the
    pair of words threefry(key, (0, i)).)
    """
    y0, y1 = _hash_counters(words, tuple(shape))
    return lax.stack([y0, y1], np.ndim(y0))


def threefry_fold_in(words: Any, data: Any) -> Any:
    """A new key from a key and a uint32: the hash of the counter pair (0, data)."""
    seed_words = threefry_seed(data)
    rank = max(np.ndim(words), np.ndim(seed_words))
    words, seed_words = lax.broadcast_to_rank(words, rank), lax.broadcast_to_rank(seed_words, rank)
    k0, k1 = _key_halves(words, 0)
    x0, x1 = _key_halves(seed_words, 0)
    return lax.stack(threefry2x32_p.bind(k0, k1, x0, x1), rank - 1)


def threefry_random_bits(words: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    """Random bits for an array of ``shape``: element i is made from threefry(key, (0, i)).

    The hash gives two words per element: 64-bit values use both, 32-bit ones xor them
    together, and 8- or 16-bit ones keep the low bits of that xor.
    """
    y0, y1 = _hash_counters(words, tuple(shape))
    if bit_width == 64:
        u64 = np.dtype(np.uint64)
        high, low = lax.convert_element_type(y0, u64), lax.convert_element_type(y1, u64)
        return lax.bitwise_or(lax.shift_left(high, np.uint64(32)), low)
    bits = lax.bitwise_xor(y0, y1)
    if bit_width == 32:
        return bits
    return lax.convert_element_type(bits, np.dtype(f"uint{bit_width}"))


# ---------------------------------------------------------------- rbg and unsafe_rbg
# Their keys are four words. Both seed with threefry (the seed's two words, twice) and draw
# bits with lax.rng_bit_generator, one key at a time; rbg splits and folds in with threefry
# on each half of the key, unsafe_rbg with rng_bit_generator.
def _per_key(words: Any, fn: Callable) -> Any:
    """``fn`` on each key's words (shape (4,)), vmapped over the leading key dimensions as
    JAX does. NB: vmap gives rng_bit_generator the whole batch of keys, and JAX's batching
    rule draws all the bits from the first key (lax/rng.py)."""
    lead = np.shape(words)[:-1]
    if not lead:
        return fn(words)
    out = vmap(fn)(lax.reshape(words, (math.prod(lead), 4)))
    return lax.reshape(out, lead + np.shape(out)[1:])


def rbg_seed(seed: Any) -> Any:
    """The threefry seed's two words, twice."""
    half = threefry_seed(seed)
    return lax.concatenate([half, half], np.ndim(half) - 1)


def rbg_split(words: Any, shape: tuple[int, ...]) -> Any:
    """Each half of the key split with threefry; new key i is (half 0's i-th key, half 1's)."""
    lead = np.shape(words)[:-1]
    halves = threefry_split(lax.reshape(words, lead + (2, 2)), shape)  # lead+(2,)+shape+(2,)
    n = len(lead)
    perm = (*range(n), *range(n + 1, n + 1 + len(shape)), n, n + 1 + len(shape))
    return lax.reshape(lax.transpose(halves, perm), lead + tuple(shape) + (4,))


def rbg_fold_in(words: Any, data: Any) -> Any:
    """Each half of the key folded in with threefry."""
    shape = np.broadcast_shapes(np.shape(words)[:-1], np.shape(data))
    words = lax.broadcast_in_dim(words, shape + (4,), tuple(range(len(shape) + 1 - np.ndim(words),
                                                                  len(shape) + 1)))
    data = lax.broadcast_in_dim(lax.convert_element_type(data, uint32), shape + (2,),
                                tuple(range(len(shape) - np.ndim(data), len(shape))))
    return lax.reshape(threefry_fold_in(lax.reshape(words, shape + (2, 2)), data), shape + (4,))


def rbg_random_bits(words: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    """XLA's generator, keyed by each key's four words."""
    dtype = np.dtype(f"uint{bit_width}")
    return _per_key(words, lambda w: lax.rng_bit_generator(w, shape, dtype=dtype)[1])


def unsafe_rbg_split(words: Any, shape: tuple[int, ...]) -> Any:
    """Ten draws of four words per new key, keeping the first of each ten (the generator
    used as a hash)."""
    num = math.prod(shape)

    def split_one(w):
        _, keys = lax.rng_bit_generator(w, (10 * num, 4), dtype=uint32)
        return lax.reshape(lax.slice_in_dim(keys, 0, 10 * num, 10), tuple(shape) + (4,))
    return _per_key(words, split_one)


def unsafe_rbg_fold_in(words: Any, data: Any) -> Any:
    """The key xor the last of ten draws keyed by the data's seed."""
    def draws(seed_words):
        _, bits = lax.rng_bit_generator(seed_words, (10, 4), dtype=uint32)
        return lax.index_in_dim(bits, 9, 0, keepdims=False)
    bits = _per_key(rbg_seed(data), draws)  # one draw per message (vmapped over them)
    shape = np.broadcast_shapes(np.shape(words), np.shape(bits))
    return lax.bitwise_xor(_broadcast(words, shape), _broadcast(bits, shape))


def _broadcast(x: Any, shape: tuple[int, ...]) -> Any:
    """``x`` broadcast to ``shape`` (NumPy's rules: trailing dimensions line up)."""
    dims = tuple(range(len(shape) - np.ndim(x), len(shape)))
    return lax.broadcast_in_dim(x, shape, dims)


PRNG_IMPLS = {
    "threefry2x32": PRNGImpl((2,), "threefry2x32", "fry", threefry_seed, threefry_split,
                             threefry_fold_in, threefry_random_bits),
    "rbg": PRNGImpl((4,), "rbg", "rbg", rbg_seed, rbg_split, rbg_fold_in, rbg_random_bits),
    "unsafe_rbg": PRNGImpl((4,), "unsafe_rbg", "urbg", rbg_seed, unsafe_rbg_split,
                           unsafe_rbg_fold_in, rbg_random_bits),
}
threefry_prng_impl = PRNG_IMPLS["threefry2x32"]


# ================================================================ running an algorithm
# A key primitive's reference rule runs its algorithm: the lax program is traced to
# a jaxpr once per (algorithm, input types, parameters) and interpreted with the
# primitives' own NumPy rules (the reference backend's interpreter).
@functools.lru_cache(maxsize=512)
def _algorithm_jaxpr(algorithm: Callable, avals: tuple, params: tuple) -> Any:
    def flat(*args: Any) -> tuple[list, None]:
        return [algorithm(*args, **dict(params))], None
    closed, _ = trace_to_jaxpr(flat, list(avals))
    return closed


def run_algorithm(algorithm: Callable, *args: np.ndarray, **params: Any) -> np.ndarray:
    avals = tuple(ShapedArray(np.shape(a), np.asarray(a).dtype) for a in args)
    closed = _algorithm_jaxpr(algorithm, avals, tuple(sorted(params.items())))
    return run_jaxpr(closed.jaxpr, closed.consts, [np.asarray(a) for a in args])[0]


# ================================================================ key primitives
def key_primitive(name: str, abstract_eval: Callable, impl: Callable,
                  batching_rule: Callable | None = None) -> Primitive:
    """A primitive on key arrays. Keys carry no gradient, so the JVP is zero."""
    prim = Primitive(name)
    core.abstract_eval_rules[prim] = abstract_eval
    core.impl_rules[prim] = impl
    ad.defjvp_zero(prim)
    if batching_rule is None:
        batching.defvectorized(prim)  # works on the leading (batch) key dims as they are
    else:
        batching.batching_rules[prim] = batching_rule
    return prim


def _check_keys(name: str, aval: ShapedArray) -> None:
    if not is_key_dtype(aval.dtype):
        raise TypeError(f"{name} takes a key array operand, got dtype {aval.dtype}")


# random_seed: integer seeds of shape S -> keys of shape S.
def _seed_abstract_eval(seeds: ShapedArray, *, impl: PRNGImpl) -> ShapedArray:
    if not np.issubdtype(seeds.dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {seeds.str_short()}")
    return key_aval(seeds.shape, impl)


random_seed_p = key_primitive(
    "random_seed", _seed_abstract_eval,
    lambda seeds, *, impl: words_to_keys(run_algorithm(impl.seed, seeds), impl))


# random_wrap: uint32 words of shape S + (2,) -> keys of shape S (no computation).
def _wrap_abstract_eval(words: ShapedArray, *, impl: PRNGImpl) -> ShapedArray:
    if words.dtype != uint32:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = "
                        f"uint32; got dtype={words.dtype}")
    if words.shape[-1:] != impl.key_shape:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to "
                        f"end with {impl.key_shape}; got shape={words.shape} for "
                        f"impl={impl.name}")
    return key_aval(words.shape[:-1], impl)


def _wrap_batch(args: list, dims: list, *, impl: PRNGImpl) -> tuple[Any, int]:
    """The words' last axis must stay last: move the batch axis to the front first."""
    words = batching.bdim_at_front(args[0], dims[0], 1)
    return random_wrap_p.bind(words, impl=impl), 0


random_wrap_p = key_primitive("random_wrap", _wrap_abstract_eval,
                              lambda words, *, impl: words_to_keys(words, impl), _wrap_batch)


# random_unwrap: keys of shape S -> their uint32 words, shape S + key_shape.
def _unwrap_abstract_eval(keys: ShapedArray) -> ShapedArray:
    _check_keys("random_unwrap", keys)
    return ShapedArray(keys.shape + impl_of(keys.dtype).key_shape, uint32)


random_unwrap_p = key_primitive("random_unwrap", _unwrap_abstract_eval, keys_to_words)


# random_split: keys of shape S -> keys of shape S + shape.
def _split_abstract_eval(keys: ShapedArray, *, shape: tuple[int, ...]) -> ShapedArray:
    _check_keys("random_split", keys)
    return ShapedArray(keys.shape + tuple(shape), keys.dtype)


def _split_impl(keys: np.ndarray, *, shape: tuple[int, ...]) -> np.ndarray:
    impl = impl_of(keys.dtype)
    return words_to_keys(run_algorithm(impl.split, keys_to_words(keys), shape=shape), impl)


random_split_p = key_primitive("random_split", _split_abstract_eval, _split_impl)


# random_fold_in: keys and uint32 messages, broadcast together -> new keys.
def _fold_in_abstract_eval(keys: ShapedArray, msgs: ShapedArray) -> ShapedArray:
    _check_keys("random_fold_in", keys)
    return ShapedArray(broadcasting_shape_rule("random_fold_in", keys, msgs), keys.dtype)


def _fold_in_impl(keys: np.ndarray, msgs: np.ndarray) -> np.ndarray:
    impl = impl_of(keys.dtype)
    return words_to_keys(run_algorithm(impl.fold_in, keys_to_words(keys), msgs), impl)


random_fold_in_p = key_primitive("random_fold_in", _fold_in_abstract_eval, _fold_in_impl)
batching.defbroadcasting(random_fold_in_p)


# random_bits: keys of shape S -> uint<bit_width> bits of shape S + shape.
def _bits_abstract_eval(keys: ShapedArray, *, bit_width: int,
                        shape: tuple[int, ...]) -> ShapedArray:
    _check_keys("random_bits", keys)
    return ShapedArray(keys.shape + tuple(shape), dtypes.canonicalize_dtype(f"uint{bit_width}"))


random_bits_p = key_primitive(
    "random_bits", _bits_abstract_eval,
    lambda keys, *, bit_width, shape: run_algorithm(impl_of(keys.dtype).random_bits,
                                                    keys_to_words(keys), bit_width=bit_width,
                                                    shape=shape))


# ---------------------------------------------------------------- thin wrappers
def random_seed(seeds: Any, impl: PRNGImpl | None = None) -> Any:
    """Keys from integer seeds. A Python int goes through int64 first, so seeds beyond
    32 bits keep their low 32 bits (and negative ones wrap), as in JAX without x64."""
    if isinstance(seeds, int):
        seeds = np.int64(seeds)  # OverflowError beyond 64 bits, as in JAX
    if isinstance(seeds, (np.ndarray, np.generic)):  # int64 -> int32 without x64, wrapping
        seeds = np.asarray(seeds).astype(dtypes.canonicalize_dtype(np.asarray(seeds).dtype))
    return as_key_array(random_seed_p.bind(seeds, impl=impl or default_prng_impl()))


def random_wrap(words: Any, impl: PRNGImpl | None = None) -> Any:
    if isinstance(words, (list, tuple, np.ndarray, np.generic)):
        words = np.asarray(words)
    return as_key_array(random_wrap_p.bind(words, impl=impl or default_prng_impl()))


def default_prng_impl() -> PRNGImpl:
    """The PRNG of new keys and of raw key data: ``jax_default_prng_impl``."""
    name = config.read("jax_default_prng_impl")
    if name not in PRNG_IMPLS:
        raise NotImplementedError(f"edujax implements the PRNGs threefry2x32, rbg and "
                                  f"unsafe_rbg, not {name}")
    return PRNG_IMPLS[name]


def random_unwrap(keys: Any) -> Any:
    return random_unwrap_p.bind(keys)


def random_split(keys: Any, shape: Sequence[int]) -> Any:
    return as_key_array(random_split_p.bind(keys, shape=tuple(int(d) for d in shape)))


def random_fold_in(keys: Any, msgs: Any) -> Any:
    return as_key_array(random_fold_in_p.bind(keys, msgs))


def random_bits(keys: Any, bit_width: int, shape: Sequence[int]) -> Any:
    return random_bits_p.bind(keys, bit_width=int(bit_width), shape=tuple(int(d) for d in shape))


# ---------------------------------------------------------------- checking key arguments
def is_arraylike(x: Any) -> bool:
    return isinstance(x, (ArrayImpl, core.Tracer, np.ndarray, np.generic)) or np.isscalar(x)


def is_typed_key(x: Any) -> bool:
    aval = getattr(x, "aval", None)
    return is_key_dtype(aval.dtype if aval is not None else getattr(x, "dtype", None))


def check_prng_key(name: str, key: Any, *, allow_batched: bool = False) -> tuple[Any, bool]:
    """A typed key for ``key``, and whether it had to be wrapped from raw uint32 data."""
    if is_typed_key(key):
        typed, wrapped = key, False
    elif is_arraylike(key):
        typed, wrapped = random_wrap(key), True
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if not allow_batched and np.ndim(typed):
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{np.shape(key)} != (). Use jax.vmap for batching.")
    return typed, wrapped
