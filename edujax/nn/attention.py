"""``jax.nn.dot_product_attention``: scaled dot-product attention (Vaswani et al. 2017).

For each query position t and key position s: ``logits[t, s] = q_t · k_s * scale``;
masked positions get a large negative logit; ``probs = softmax(logits)`` over s; the output
at t is ``sum_s probs[t, s] v_s``. Arrays are laid out as JAX's are: ``(B, T, N, H)``
(batch, sequence, heads, head size); key and value may have fewer heads K than the query's N
(grouped-query attention: each key/value head serves N / K query heads).
As in JAX's 'xla' implementation, the query heads are vmapped over in groups (see
_attention_xla). Only ``implementation=None`` or ``'xla'``; NB: JAX also has 'cudnn'.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import numpy as jnp
from edujax.scipy.softmax import softmax
from edujax.vmap import vmap


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


# ---------------------------------------------------------------- masks
def _large_negative(dtype: Any) -> Any:
    """The logit a masked position gets. Not -inf: a fully masked row would give 0/0; a large
    negative logit gives a uniform row instead. (Capped to float32's range: the softmax is
    computed in float32.)"""
    dtype_max = min(np.finfo(dtype).max, np.finfo(np.float32).max)
    return jnp.asarray(-0.7 * dtype_max, dtype=dtype)


def _causal_mask(T: int, S: int) -> Any:
    """A query sees only itself and the past."""
    return jnp.tril(jnp.ones((T, S), dtype=bool))[None, None, :, :]


def _window_mask(T: int, S: int, local_window_size: tuple[int, int]) -> Any:
    query_pos, key_pos = jnp.array(range(T)), jnp.array(range(S))
    left_window, right_window = local_window_size
    left_mask = query_pos[..., None] <= key_pos[..., None, :] + left_window
    right_mask = query_pos[..., None] >= key_pos[..., None, :] - right_window
    return jnp.logical_and(right_mask, left_mask)[None, None, :, :]


def _padding_mask_logits(T: int, S: int, q_seqlen: Any, kv_seqlen: Any) -> Any:
    q_mask = kv_mask = True
    if q_seqlen is not None:
        q_mask = jnp.arange(0, T)[None, :, None] < q_seqlen[:, None, None]
    if kv_seqlen is not None:
        kv_mask = jnp.arange(0, S)[None, None, :] < kv_seqlen[:, None, None]
    return jnp.logical_and(q_mask, kv_mask)[:, None, :, :]


def _padding_mask_encoded(T: int, q_seqlen: Any) -> Any:
    mask = jnp.arange(0, T)[None, :] < q_seqlen[:, None]
    return mask[:, :, None, None]


def _apply_masks(logits: Any, mask: Any, is_causal: bool, q_seqlen: Any, kv_seqlen: Any,
                 local_window_size: Any) -> Any:
    """The logits with every position some mask forbids set to a large negative number."""
    if (mask is None and not is_causal and q_seqlen is None and kv_seqlen is None
            and local_window_size is None):
        return logits
    combined_mask = jnp.ones_like(logits, dtype=bool)
    if mask is not None:
        combined_mask = jnp.logical_and(combined_mask, mask)
    T, S = logits.shape[2], logits.shape[3]
    if is_causal:
        combined_mask = jnp.logical_and(combined_mask, _causal_mask(T, S))
    if local_window_size is not None:
        combined_mask = jnp.logical_and(combined_mask, _window_mask(T, S, local_window_size))
    if q_seqlen is not None or kv_seqlen is not None:
        combined_mask = jnp.logical_and(combined_mask,
                                        _padding_mask_logits(T, S, q_seqlen, kv_seqlen))
    return jnp.where(combined_mask, logits, _large_negative(logits.dtype))


# ---------------------------------------------------------------- the computation
def _attention_core(query: Any, key: Any, value: Any, bias: Any, mask: Any, is_causal: bool,
                    scale: float, q_seqlen: Any, kv_seqlen: Any, local_window_size: Any) -> Any:
    """Attention for one group of query heads sharing key/value heads (see _attention_xla)."""
    logits_dtype = jnp.promote_types(query.dtype, np.float32)
    logits = jnp.einsum("BTNH,BSNH->BNTS", query, key, preferred_element_type=logits_dtype)
    logits *= jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    padded_logits = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen,
                                 local_window_size)
    padded_logits = padded_logits.astype(np.float32)  # the softmax is always in float32
    probs = softmax(padded_logits, axis=-1).astype(key.dtype)
    encoded = jnp.einsum("BNTS,BSNH->BTNH", probs, value)
    if q_seqlen is not None:
        encoded *= _padding_mask_encoded(encoded.shape[1], q_seqlen).astype(encoded.dtype)
    return encoded


def _attention_xla(query: Any, key: Any, value: Any, bias: Any, mask: Any, is_causal: bool,
                   scale: float, q_seqlen: Any, kv_seqlen: Any, local_window_size: Any) -> Any:
    """JAX's 'xla' implementation: the N query heads are split into K groups of G = N / K
    (one per key/value head), and the core is vmapped over the G heads of each group, so
    that each key/value head serves its G query heads without being copied."""
    B, T, N, H = query.shape
    _, S, K, _ = key.shape
    G = N // K
    query = jnp.reshape(query, (B, T, K, G, H))

    def reshape_to_grouped(t: Any) -> Any:
        if t is not None:
            tB, tN, tT, tS = t.shape
            if tN == 1:
                t = jnp.broadcast_to(t[:, :, None, :, :], (tB, tN, G, tT, tS))
            else:
                t = jnp.reshape(t, (tB, K, G, tT, tS))
        return t
    bias, mask = reshape_to_grouped(bias), reshape_to_grouped(mask)
    vmapped = vmap(_attention_core,
                   in_axes=(3, None, None, 2, 2, None, None, None, None, None), out_axes=3)
    encoded = vmapped(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                      local_window_size)
    return jnp.reshape(encoded, (B, T, N, H))


def dot_product_attention(query: Any, key: Any, value: Any, bias: Any = None,
                          mask: Any = None, *, scale: float | None = None,
                          is_causal: bool = False, query_seq_lengths: Any = None,
                          key_value_seq_lengths: Any = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None,
                          return_residual: bool = False) -> Any:
    """``softmax(q kᵀ * scale + bias, masked) v``, per batch entry and head."""
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
    if q.shape[-2] % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of key/value heads, "
                         f"but got {q.shape[-2]} vs {K}")
    scale = 1.0 / np.sqrt(H) if scale is None else scale
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    if return_residual:
        raise NotImplementedError("dot_product_attention(return_residual=True)")
    out = _attention_xla(q, k, v, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                         local_window_size)
    return jnp.reshape(out, output_shape)
