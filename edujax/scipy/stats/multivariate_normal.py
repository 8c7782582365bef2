"""The multivariate normal distribution N(mean, cov).

The log density needs cov^-1 and log det cov; both come from one Cholesky factor L
(cov = L Lᵀ): solve L y = x - mean, then the quadratic form is |y|**2 and
log det cov = 2 sum(log diag L).
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.numpy.util import promote_dtypes_inexact


def logpdf(x: Any, mean: Any, cov: Any, allow_singular: None = None) -> Any:
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = (jnp.asarray(a) for a in promote_dtypes_inexact(x, mean, cov))
    if not mean.shape:
        return (-1/2 * jnp.square(x - mean) / cov
                        - 1/2 * (jnp.log(2*np.pi) + jnp.log(cov)))
    else:
        n = mean.shape[-1]
        if not np.shape(cov):
            y = x - mean
            return (-1/2 * jnp.einsum('...i,...i->...', y, y) / cov
                            - n/2 * (jnp.log(2*np.pi) + jnp.log(cov)))
        else:
            if cov.ndim < 2 or cov.shape[-2:] != (n, n):
                raise ValueError("multivariate_normal.logpdf got incompatible shapes")
            L = lax.linalg.cholesky(cov)
            # y = L⁻¹ (x - mean), one triangular solve per vector (a row system y Lᵀ = b)
            y = jnp.vectorize(partial(lax.linalg.triangular_solve, lower=True,
                                      transpose_a=True), signature="(n,n),(n)->(n)")(L, x - mean)
            return (-1/2 * jnp.einsum('...i,...i->...', y, y) - n/2 * jnp.log(2*np.pi)
                            - jnp.log(L.diagonal(axis1=-1, axis2=-2)).sum(-1))


def pdf(x: Any, mean: Any, cov: Any) -> Any:
    return lax.exp(logpdf(x, mean, cov))
