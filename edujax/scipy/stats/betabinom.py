"""The beta-binomial distribution: a binomial whose p is itself Beta(a, b) distributed,
P(k) = C(n, k) B(k + a, n - k + b) / B(a, b)."""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.inner_jit import inner_jit
from edujax.scipy.special_functions import _const, _promote, betaln


@inner_jit
def logpmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    k, n, a, b, loc = _promote("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = _const(y, 1), _const(y, 0)
    # log C(n, y) = -log(n + 1) - betaln(n - y + 1, y + 1)
    combiln = lax.neg(lax.add(lax.log1p(n), betaln(lax.add(lax.sub(n, y), one),
                                                   lax.add(y, one))))
    beta_lns = lax.sub(betaln(lax.add(y, a), lax.add(lax.sub(n, y), b)), betaln(a, b))
    log_probs = lax.add(combiln, beta_lns)
    log_probs = jnp.where(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)), 0., log_probs)
    y_cond = jnp.logical_or(jnp.logical_or(lax.lt(y, lax.neg(loc)), lax.gt(y, n)),
                            lax.le(lax.add(y, a), zero))
    log_probs = jnp.where(y_cond, -np.inf, log_probs)
    bad_parameters = jnp.logical_or(jnp.logical_or(lax.lt(n, zero), lax.le(a, zero)),
                                    lax.le(b, zero))
    return jnp.where(bad_parameters, np.nan, log_probs)


def pmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    return lax.exp(logpmf(k, n, a, b, loc))
