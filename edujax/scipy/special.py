"""``jax.scipy.special``: SciPy's special functions (gammaln, erf, logsumexp, xlogy, ...).

This module only gathers the public names: the gamma, error-function, logistic and Bessel
families live in special_functions.py, the scaled and special-purpose ones (erfcx, dawsn,
spence, bessel_jn) in special_extra.py, the exponential integrals (expi, exp1, expn) in
special_expint.py, and logsumexp/softmax in softmax.py.
"""
from edujax.scipy.special_expint import exp1, expi, expn  # noqa: F401
from edujax.scipy.special_extra import (bessel_jn, dawsn, erfcx, owens_t, sici,  # noqa: F401
                                        spence)
from edujax.scipy.special_functions import (bernoulli, beta, betainc, betaln,  # noqa: F401
                                            boxcox, boxcox1p, comb, digamma, entr, erf, erfc,
                                            erfinv, expit, factorial, gamma, gammainc,
                                            gammaincc, gammaln, gammasgn, i0, i0e, i1, i1e,
                                            kl_div, log_ndtr, log_softmax, loggamma, logit,
                                            logsumexp, multigammaln, ndtr, ndtri, poch,
                                            polygamma, rel_entr, softmax, xlog1py, xlogy,
                                            zeta)
