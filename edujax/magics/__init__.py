"""IPython magics for looking inside JAX programs: ``%jaxpr`` and ``%jittime``.

Load them in IPython or Jupyter with ``%load_ext edujax`` (the ``edujax`` Jupyter
kernel loads them for you). IPython is imported only here, never by the core.

    %jaxpr jax.grad(f)(x)        # the jaxpr of a call, as make_jaxpr prints it
    %jittime f(x)                # eager vs jit: first call and steady state
    %trace jax.grad(f)(x)        # tracing one bind at a time (edujax.viz.trace)
    %jaxpr --source f(x)         # Python, jaxpr and generated kernel, linked (viz.lineage)
"""
from __future__ import annotations

from typing import Any

from edujax.magics.magics import EdujaxMagics


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics with an IPython shell (what ``%load_ext`` calls)."""
    ipython.register_magics(EdujaxMagics)
