"""Student's t distribution with df degrees of freedom.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import lax

from edujax.scipy.special_functions import _const, _promote


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    x, df, loc, scale = _promote("t.logpdf", x, df, loc, scale)
    two = _const(x, 2)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    df_over_two = lax.div(df, two)
    df_plus_one_over_two = lax.add(df_over_two, _const(x, 0.5))
    normalize_term_const = lax.mul(lax.mul(scale, scale), _const(x, np.pi))
    normalize_term_tmp = lax.div(lax.log(lax.mul(normalize_term_const, df)), two)
    normalize_term = lax.sub(lax.add(lax.lgamma(df_over_two), normalize_term_tmp),
                             lax.lgamma(df_plus_one_over_two))
    quadratic = lax.div(lax.mul(scaled_x, scaled_x), df)
    return lax.neg(lax.add(normalize_term, lax.mul(df_plus_one_over_two, lax.log1p(quadratic))))


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    return lax.exp(logpdf(x, df, loc, scale))
