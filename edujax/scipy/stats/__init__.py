"""``jax.scipy.stats``: densities (``pdf``/``logpdf``, ``pmf``/``logpmf``), CDFs and
quantiles (``ppf``) of the usual distributions, one module per distribution as in SciPy:
``stats.norm.logpdf(x, loc, scale)``. Each is a formula on jnp and the special functions,
so it can be differentiated, vmapped and jitted.
"""
from edujax.scipy.stats import (bernoulli, beta, betabinom, binom, cauchy, chi2,  # noqa: F401
                                dirichlet, expon, gamma, gennorm, geom, gumbel_l, gumbel_r,
                                laplace, logistic, multinomial, multivariate_normal, nbinom,
                                norm, pareto, poisson, t, uniform, vonmises,
                                wrapcauchy)
from edujax.scipy.stats.sem import sem  # noqa: F401
