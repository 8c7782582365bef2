"""``edujax.scipy``: the parts of SciPy that JAX reimplements, on jax.numpy and lax.

``special`` (gammaln, erf, logsumexp, xlogy, ...), ``stats`` (the densities, CDFs and
quantiles of the usual distributions) and ``linalg`` (factorizations and solves in SciPy's
spelling). Like ``jax.scipy``, they are subpackages: ``import edujax.scipy as jsp`` and then
``jsp.special.gammaln``, or ``from edujax.scipy.special import logsumexp``.
"""
from edujax.scipy import linalg, special, stats  # noqa: F401
