"""``jax.scipy.stats``: densities (``pdf``/``logpdf``, ``pmf``/``logpmf``), CDFs and
quantiles (``ppf``) of the usual distributions, one module per distribution as in SciPy:
``stats.norm.logpdf(x, loc, scale)``. Each is a formula on jnp and the special functions,
so it can be differentiated, vmapped and jitted.
"""
from edujax.scipy.stats import (bernoulli, beta, cauchy, chi2, dirichlet, expon, gamma, geom,  # noqa: F401
                                gumbel_l, gumbel_r, laplace, logistic, multivariate_normal, norm,
                                pareto, poisson, t, uniform)
