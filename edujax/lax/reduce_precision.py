"""``reduce_precision``: round a float to fewer exponent and mantissa bits, keeping its dtype.

``lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10)`` gives the float32 value that
float16 would hold (rounded to nearest even, overflowing to infinity, underflowing to zero).
With the dtype's own bit counts it changes nothing, and JAX uses exactly that as a marker:
``jax.checkpoint`` puts one on each saved residual so that XLA cannot merge the forward
computation with its recomputation (see ad_checkpoint.py).

The reference rule works on the bits, as XLA does: add half a unit in the last kept place
(ties to even), clear the bits below it, then clamp the exponent.
"""
from __future__ import annotations

import numpy as np

from edujax import core
from edujax.core import Primitive, ShapedArray
from edujax.interpreters import ad, batching
from edujax.lax.registry import FLOATING, check_dtype_families, accepted

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _reduce_precision_impl(x: np.ndarray, *, exponent_bits: int, mantissa_bits: int):
    finfo = np.finfo(x.dtype)
    nmant, nexp, width = finfo.nmant, finfo.nexp, x.dtype.itemsize * 8
    uint = _UINT[x.dtype.itemsize]
    bits = np.asarray(x).view(uint).copy()
    one = uint(1)
    if mantissa_bits < nmant:
        last_kept = one << uint(nmant - mantissa_bits)           # the last mantissa bit kept
        kept_bit = (bits & last_kept) >> uint(nmant - mantissa_bits)
        bias = (last_kept >> one) - one + kept_bit               # half an ulp, ties to even
        bits = (bits + bias) & ~(last_kept - one)
    if exponent_bits < nexp:
        sign = one << uint(width - 1)
        exp_mask = ((one << uint(nexp)) - one) << uint(nmant)
        full_bias = (1 << (nexp - 1)) - 1
        small_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        overflow = exponent > uint((full_bias + small_bias) << nmant)
        underflow = exponent <= uint((full_bias - small_bias) << nmant)
        bits = np.where(overflow, (bits & sign) | exp_mask,
                        np.where(underflow, bits & sign, bits)).astype(uint)
    out = bits.view(x.dtype)
    return np.where(np.isnan(x), x, out) if mantissa_bits > 0 else out


def _reduce_precision_abstract_eval(x: ShapedArray, *, exponent_bits: int,
                                    mantissa_bits: int) -> ShapedArray:
    check_dtype_families("reduce_precision", accepted(FLOATING), x)
    return x


reduce_precision_p = Primitive("reduce_precision")
core.abstract_eval_rules[reduce_precision_p] = _reduce_precision_abstract_eval
core.impl_rules[reduce_precision_p] = _reduce_precision_impl
# Rounding is treated as the identity by autodiff, so tangents and cotangents are rounded
# the same way (JAX's rule): the transpose is reduce_precision again.
ad.deflinear(reduce_precision_p, lambda ct, x, **params: [reduce_precision_p.bind(ct, **params)])
batching.defvectorized(reduce_precision_p)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """``operand`` rounded to a float format with these many exponent and mantissa bits."""
    return reduce_precision_p.bind(operand, exponent_bits=int(exponent_bits),
                                   mantissa_bits=int(mantissa_bits))
