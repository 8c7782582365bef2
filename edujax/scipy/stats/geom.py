"""The geometric distribution: the number of trials up to the first success, P(k) = (1-p)**(k-1) p.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp

from edujax.scipy.special_functions import _const, _promote, xlog1py


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    k, p, loc = _promote("geom.logpmf", k, p, loc)
    zero = _const(k, 0)
    one = _const(k, 1)
    x = lax.sub(k, loc)
    log_probs = xlog1py(lax.sub(x, one), -p) + lax.log(p)
    return jnp.where(lax.le(x, zero), -np.inf, log_probs)


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    return jnp.exp(logpmf(k, p, loc))
