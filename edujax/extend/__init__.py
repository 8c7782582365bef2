"""``jax.extend``: the pieces for building on JAX's internals (custom primitives, interpreters).

Tutorials that write their own interpreter import ``jax.extend.core`` for ``Primitive``,
``Jaxpr``, ``Literal``...; those are edujax's own classes (see ``edujax/extend/core.py``).
"""
from edujax.extend import core  # noqa: F401
