"""Random keys as plain uint32 words, so that ``jax.random`` inside ``jit`` compiles.

A key array of shape S is, to NumPy, an array of records (``key<fry>``); to the hash it is
just its words, a uint32 array of shape S + (2,) (``prng.py``). Numba computes on numbers,
not on records, so while ``inline.py`` pastes a jaxpr together, this file replaces every
key value by its words, the way JAX lowers its key arrays to XLA:

* ``random_wrap`` and ``random_unwrap`` disappear (words in, the same words out);
* ``random_seed``, ``random_split``, ``random_fold_in`` and ``random_bits`` are replaced by
  their *algorithm*, the small lax program on words their reference rule runs (``prng.py``):
  slices, shifts, xors and ``threefry2x32``;
* shape operations on keys (``slice``, ``squeeze``, ``reshape``, ``broadcast_in_dim``, ...)
  work on the words, with the trailing axis of 2 appended; loops carrying keys carry words;
* anything else that touches keys gets key arrays back (a ``random_wrap`` before it, a
  ``random_unwrap`` after it, which run their reference rules), as do the jaxpr's own key
  inputs and outputs.

Two primitives of the algorithms become elementwise, so that they fuse into loop nests:

* ``threefry2x32`` has two outputs, the two words of the hash; a fusion group's equations
  have one. It becomes two ``threefry2x32_word`` equations (word 0 and word 1) on the same
  operands. Each calls the same inlined Numba function, and LLVM computes the hash once.
* ``iota_2x32_shape`` (the counters 0, 1, ... of every element, split into high and low
  words) becomes ``iota`` arithmetic: the low word is the row-major position of the element,
  ``i0 * 6 + i1`` for shape (4, 6), the high word is 0 (below 2**32 elements).
"""
from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from edujax import core, lax, prng
from edujax.core import Primitive, ShapedArray
from edujax.interpreters.partial_eval import trace_to_jaxpr
from edujax.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Var

uint32 = np.dtype(np.uint32)


def is_key(aval: Any) -> bool:
    return prng.is_key_dtype(getattr(aval, "dtype", None))


def words_aval(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(tuple(aval.shape) + (2,), uint32)


# ================================================================ threefry2x32_word
def _word_abstract_eval(*avals: ShapedArray, word: int) -> ShapedArray:
    return prng._threefry2x32_abstract_eval(*avals)[word]


def _word_impl(k0: Any, k1: Any, x0: Any, x1: Any, *, word: int) -> np.ndarray:
    return prng.threefry2x32_numpy(k0, k1, x0, x1)[word]


threefry2x32_word_p = Primitive("threefry2x32_word")
core.abstract_eval_rules[threefry2x32_word_p] = _word_abstract_eval
core.impl_rules[threefry2x32_word_p] = _word_impl


# ================================================================ the rewrite
ALGORITHMS = {"random_seed": prng.threefry_seed, "random_split": prng.threefry_split,
              "random_fold_in": prng.threefry_fold_in, "random_bits": prng.threefry_random_bits}
LOOPS = {"while": ("cond_jaxpr", "body_jaxpr"), "scan": ("jaxpr",), "cond": ("branches",)}


def rewrite(builder: Any, eqn: JaxprEqn, invars: list) -> list | None:
    """The outputs of ``eqn`` pasted into ``builder`` with keys as words (its operands,
    ``invars``, already are), or None when ``eqn`` has nothing to do with keys."""
    name = eqn.primitive.name
    if name == "threefry2x32":
        return [_emit(builder, eqn.replace(primitive=threefry2x32_word_p, params={"word": w},
                                           outvars=[eqn.outvars[w]]), invars)[0]
                for w in (0, 1)]
    if name == "iota_2x32_shape" and math.prod(eqn.params["shape"]) <= 2 ** 32:
        return builder._paste_call(_iota_2x32(tuple(eqn.params["shape"])), [])
    keyed = [is_key(v.aval) for v in (*eqn.invars, *eqn.outvars)]
    if not any(keyed):
        return None
    if name in ("random_wrap", "random_unwrap"):
        return [invars[0]]  # the words themselves
    if name in ALGORITHMS:
        params = tuple(sorted((k, v) for k, v in eqn.params.items() if k != "impl"))
        avals = tuple(ShapedArray(v.aval.shape, v.aval.dtype) for v in invars)
        return builder._paste_call(prng._algorithm_jaxpr(ALGORITHMS[name], avals, params),
                                   invars)
    if name in LOOPS:
        params = dict(eqn.params)
        for key in LOOPS[name]:
            value = params[key]
            params[key] = (tuple(words_jaxpr(type(builder), j) for j in value)
                           if key == "branches" else words_jaxpr(type(builder), value))
        return _emit(builder, eqn.replace(params=params), invars)
    physical = _on_words(eqn, invars)
    if physical is not None:
        return _emit(builder, physical, invars)
    # Anything else gets key arrays: wrap the words before, unwrap the keys after.
    args = [wrap(builder, x) if is_key(v.aval) else x for v, x in zip(eqn.invars, invars)]
    outs = [Var(v.aval) for v in eqn.outvars]
    builder.eqns.append(eqn.replace(invars=args, outvars=outs))
    return [unwrap(builder, o) if is_key(o.aval) else o for o in outs]


def _emit(builder: Any, eqn: JaxprEqn, invars: list) -> list:
    """Append ``eqn`` on ``invars``, with fresh outputs (words where it returned keys)."""
    outs = [Var(words_aval(v.aval) if is_key(v.aval) else v.aval) for v in eqn.outvars]
    builder.eqns.append(eqn.replace(invars=invars, outvars=outs))
    return outs


def _on_words(eqn: JaxprEqn, invars: list) -> JaxprEqn | None:
    """The shape operation ``eqn`` on keys, as the same operation on their words."""
    name, p = eqn.primitive.name, dict(eqn.params)
    if not all(is_key(v.aval) for v in (eqn.invars[:1] + eqn.outvars)):
        return None
    if name in ("squeeze", "rev", "copy", "copy_p"):
        return eqn  # leading dims only: the same parameters
    if name == "concatenate" or name == "stack":
        return eqn if all(is_key(v.aval) for v in eqn.invars) else None
    if name == "slice":
        p["start_indices"] = (*p["start_indices"], 0)
        p["limit_indices"] = (*p["limit_indices"], 2)
        p["strides"] = None if p["strides"] is None else (*p["strides"], 1)
    elif name == "reshape" and p.get("dimensions") is None:
        p["new_sizes"] = (*p["new_sizes"], 2)
    elif name == "broadcast_in_dim" and len(eqn.invars) == 1:
        p["broadcast_dimensions"] = (*p["broadcast_dimensions"], len(p["shape"]))
        p["shape"] = (*p["shape"], 2)
    elif name == "transpose":
        p["permutation"] = (*p["permutation"], len(p["permutation"]))
    else:
        return None
    return eqn.replace(params=p)


def wrap(builder: Any, words: Any) -> Var:
    """Key arrays made of ``words`` (a ``random_wrap`` equation, run by its reference rule)."""
    keys = Var(prng.key_aval(words.aval.shape[:-1]))
    builder.eqns.append(JaxprEqn([words], [keys], prng.random_wrap_p,
                                 {"impl": prng.threefry_prng_impl}))
    return keys


def unwrap(builder: Any, keys: Any) -> Var:
    """The words of key arrays (a ``random_unwrap`` equation)."""
    words = Var(words_aval(keys.aval))
    builder.eqns.append(JaxprEqn([keys], [words], prng.random_unwrap_p, {}))
    return words


def words_jaxpr(builder_class: type, closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` (the body of a loop) with its key inputs and outputs as words."""
    if not any(is_key(a) for a in (*closed.in_avals, *closed.out_avals)):
        return closed
    builder = builder_class()
    jaxpr = closed.jaxpr
    constvars = [builder.new_const(v, c) for v, c in zip(jaxpr.constvars, closed.consts)]
    invars = [Var(words_aval(v.aval) if is_key(v.aval) else v.aval) for v in jaxpr.invars]
    env = dict(zip(jaxpr.constvars, constvars)) | dict(zip(jaxpr.invars, invars))
    outvars = builder.paste(jaxpr, env)
    return ClosedJaxpr(Jaxpr(builder.constvars, invars, outvars, builder.eqns,
                             jaxpr.debug_info), builder.consts)


def const_words(value: Any, aval: ShapedArray) -> tuple[Any, ShapedArray]:
    """A constant key array as the constant array of its words."""
    if not is_key(aval):
        return value, aval
    keys = getattr(value, "_value", value)
    return prng.keys_to_words(np.asarray(keys)), words_aval(aval)


@functools.lru_cache(maxsize=64)
def _iota_2x32(shape: tuple) -> ClosedJaxpr:
    """iota_2x32_shape as elementwise integer arithmetic (for fewer than 2**32 elements)."""
    def counters() -> tuple[list, None]:
        strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
        low = None
        for d, stride in enumerate(strides):
            if shape[d] == 1:
                continue
            term = lax.broadcasted_iota(uint32, shape, d)
            term = term if stride == 1 else term * np.uint32(stride)
            low = term if low is None else low + term
        zeros = lax.full(shape, np.uint32(0), uint32)
        return [zeros, zeros if low is None else low], None
    closed, _ = trace_to_jaxpr(counters, [])
    return closed
