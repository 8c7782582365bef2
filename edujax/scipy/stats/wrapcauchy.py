"""The wrapped Cauchy distribution on the circle [0, 2 pi), with concentration 0 < c < 1."""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.scipy.special_functions import _const, _promote


def logpdf(x: Any, c: Any) -> Any:
    x, c = _promote("wrapcauchy.logpdf", x, c)
    on_circle = lax.ge(x, _const(x, 0)) & lax.le(x, _const(x, np.pi * 2))
    density = (jnp.log(1 - c * c) - jnp.log(2 * np.pi)
               - jnp.log(1 + c * c - 2 * c * jnp.cos(x)))
    return jnp.where(lax.gt(c, _const(c, 0)) & lax.lt(c, _const(c, 1)),
                     jnp.where(on_circle, density, -np.inf), np.nan)


def pdf(x: Any, c: Any) -> Any:
    return lax.exp(logpdf(x, c))
