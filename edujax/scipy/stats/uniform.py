"""The uniform distribution on [loc, loc + scale].
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.scipy.special_functions import _promote



def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("uniform.logpdf", x, loc, scale)
    log_probs = lax.neg(lax.log(scale))
    return jnp.where(jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc)),
                                     -np.inf, log_probs)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, loc, scale = _promote("uniform.cdf", x, loc, scale)
    zero, one = jnp.array(0, x.dtype), jnp.array(1, x.dtype)
    conds = [lax.lt(x, loc), lax.gt(x, lax.add(loc, scale)),
             lax.ge(x, loc) & lax.le(x, lax.add(loc, scale))]
    vals = [zero, one, lax.div(lax.sub(x, loc), scale)]
    return jnp.select(conds, vals)  # (0 where no condition holds: x is NaN)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    q, loc, scale = _promote("uniform.ppf", q, loc, scale)
    return jnp.where(
        jnp.isnan(q) | (q < 0) | (q > 1),
        np.nan,
        lax.add(loc, lax.mul(scale, q))
    )
