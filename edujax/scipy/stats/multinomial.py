"""The multinomial distribution: counts x of n draws among categories of probabilities p,
P(x) = n! / prod(x_i!) prod(p_i ** x_i)."""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.numpy.util import promote_args_inexact, promote_args_numeric
from edujax.scipy.special_functions import gammaln, xlogy


def logpmf(x: Any, n: Any, p: Any) -> Any:
    p, = (jnp.asarray(a) for a in promote_args_inexact("multinomial.logpmf", p))
    x, n = (jnp.asarray(a) for a in promote_args_numeric("multinomial.logpmf", x, n))
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, "
                         f"n.dtype={n.dtype}")
    x = x.astype(p.dtype)
    n = n.astype(p.dtype)
    logprobs = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    return jnp.where(jnp.equal(jnp.sum(x), n), logprobs, -np.inf)


def pmf(x: Any, n: Any, p: Any) -> Any:
    return lax.exp(logpmf(x, n, p))
