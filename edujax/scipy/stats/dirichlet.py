"""The Dirichlet distribution on the probability simplex (x > 0, sum(x) = 1).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.numpy.util import promote_dtypes_inexact
from edujax.scipy.special_functions import _const, gammaln, xlogy


def _is_simplex(x: Any) -> Any:
    x_sum = jnp.sum(x, axis=0)
    return jnp.all(x > 0, axis=0) & (abs(x_sum - 1) < 1E-6)


def logpdf(x: Any, alpha: Any) -> Any:
    return _logpdf(*(jnp.asarray(a) for a in promote_dtypes_inexact(x, alpha)))


def _logpdf(x: Any, alpha: Any) -> Any:
    if alpha.ndim != 1:
        raise ValueError(
            f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}"
        )
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError(
            "`x` must have either the same number of entries as `alpha` "
            f"or one entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}"
        )
    one = _const(x, 1)
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, lax.sub(one, x.sum(0, keepdims=True))], axis=0)
    normalize_term = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    if x.ndim > 1:
        alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
    log_probs = lax.sub(jnp.sum(xlogy(lax.sub(alpha, one), x), axis=0), normalize_term)
    return jnp.where(_is_simplex(x), log_probs, -np.inf)


def pdf(x: Any, alpha: Any) -> Any:
    return lax.exp(logpdf(x, alpha))
