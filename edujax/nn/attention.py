"""``jax.nn.dot_product_attention``: scaled dot-product attention (Vaswani et al. 2017).

For each query position t and key position s: ``logits[t, s] = q_t · k_s * scale``;
masked positions get a large negative logit; ``probs = softmax(logits)`` over s; the output
at t is ``sum_s probs[t, s] v_s``. Arrays are laid out as JAX's are: ``(B, T, N, H)``
(batch, sequence, heads, head size); key and value may have fewer heads K than the query's N
(grouped-query attention: each key/value head serves N / K query heads).
NB: JAX's 'xla' implementation vmaps over the head groups; we repeat the key and value heads
instead, which computes the same numbers. Only ``implementation=None`` or ``'xla'``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import numpy as jnp
from edujax.scipy.softmax import softmax


def _ensure_4d(t: Any) -> Any:
    t = jnp.asarray(t)
    return jnp.expand_dims(t, axis=tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def _check(t: Any, shape: list, dtype: Any, name: str) -> None:
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    if any(want != -1 and got != want for got, want in zip(t.shape, shape)):
        raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")


def _mask(T: int, S: int, mask: Any, is_causal: bool, q_seqlen: Any, kv_seqlen: Any,
          local_window_size: Any) -> Any:
    """Which (query, key) pairs may attend, broadcastable to (B, N, T, S); None: all."""
    combined = None

    def both(a, b):
        return b if a is None else jnp.logical_and(a, b)
    if mask is not None:
        combined = both(combined, mask)
    t, s = jnp.arange(T)[:, None], jnp.arange(S)[None, :]
    if is_causal:  # a query sees only itself and the past
        combined = both(combined, (s <= t)[None, None])
    if local_window_size is not None:
        left, right = local_window_size
        combined = both(combined, ((t <= s + left) & (t >= s - right))[None, None])
    if q_seqlen is not None or kv_seqlen is not None:
        q_ok = True if q_seqlen is None else (jnp.arange(T)[None, :, None]
                                              < q_seqlen[:, None, None])
        kv_ok = True if kv_seqlen is None else (jnp.arange(S)[None, None, :]
                                                < kv_seqlen[:, None, None])
        combined = both(combined, jnp.logical_and(q_ok, kv_ok)[:, None])
    return combined


def dot_product_attention(query: Any, key: Any, value: Any, bias: Any = None,
                          mask: Any = None, *, scale: float | None = None,
                          is_causal: bool = False, query_seq_lengths: Any = None,
                          key_value_seq_lengths: Any = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None,
                          return_residual: bool = False) -> Any:
    """``softmax(q kᵀ * scale + bias, masked) v``, per batch entry and head."""
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    output_shape = jnp.asarray(query).shape
    q, k, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = None if bias is None else _ensure_4d(bias)
    mask = None if mask is None else _ensure_4d(mask)
    q_seqlen = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
    kv_seqlen = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = k.shape
    _check(v, [B, S, K, H], k.dtype, "value")
    _check(q, [B, -1, -1, H], k.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(q_seqlen, [B], np.dtype("int32"), "query_seq_lengths")
    _check(kv_seqlen, [B], np.dtype("int32"), "key_value_seq_lengths")
    T, N = q.shape[1], q.shape[2]
    if N % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of key/value heads, "
                         f"but got {N} vs {K}")
    scale = 1.0 / np.sqrt(H) if scale is None else scale
    k, v = jnp.repeat(k, N // K, axis=2), jnp.repeat(v, N // K, axis=2)
    logits_dtype = jnp.promote_types(q.dtype, np.float32)
    logits = jnp.einsum("BTNH,BSNH->BNTS", q, k, preferred_element_type=logits_dtype)
    logits = logits * jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    allowed = _mask(T, S, mask, is_causal, q_seqlen, kv_seqlen, local_window_size)
    if allowed is not None:
        # Not -inf: a fully masked row would give 0/0. A large negative logit gives a
        # uniform row instead, as in JAX.
        large_negative = -0.7 * min(np.finfo(logits.dtype).max, np.finfo(np.float32).max)
        logits = jnp.where(allowed, logits, jnp.asarray(large_negative, logits.dtype))
    probs = softmax(logits.astype(np.float32), axis=-1).astype(k.dtype)
    encoded = jnp.einsum("BNTS,BSNH->BTNH", probs, v)
    if q_seqlen is not None:
        encoded = encoded * (jnp.arange(T)[None, :] < q_seqlen[:, None])[
            :, :, None, None].astype(encoded.dtype)
    if return_residual:
        raise NotImplementedError("dot_product_attention(return_residual=True)")
    return jnp.reshape(encoded, output_shape)
