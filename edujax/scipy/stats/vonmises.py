"""The von Mises distribution, the normal distribution of the circle: density
exp(kappa cos x) / (2 pi I0(kappa)). (log I0(kappa) = kappa + log i0e(kappa) never
overflows, which is why the formula subtracts kappa.)"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax
from edujax import numpy as jnp
from edujax.scipy.special_functions import _const, _promote


def logpdf(x: Any, kappa: Any) -> Any:
    x, kappa = _promote("vonmises.logpdf", x, kappa)
    return jnp.where(lax.gt(kappa, _const(kappa, 0)),
                     kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa)),
                     np.nan)


def pdf(x: Any, kappa: Any) -> Any:
    return lax.exp(logpdf(x, kappa))
