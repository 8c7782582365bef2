"""edujax: JAX rebuilt in readable Python.

    import edujax as jax
    import edujax.numpy as jnp

Start reading at core.py (traces, tracers, bind), then jaxpr.py and
interpreters/partial_eval.py (how make_jaxpr records a program), then lax/ (the
primitives) and numpy/ (the NumPy API on top of lax). docs/architecture.md
walks through ``jnp.sin(x)`` from call to result.
"""
from __future__ import annotations

from edujax import lax, numpy, random, tree, tree_util  # noqa: F401
from edujax.api import (ShapeDtypeStruct, block_until_ready, device_get, device_put,  # noqa: F401
                        make_jaxpr)
from edujax.array import Array  # noqa: F401
from edujax.config import config  # noqa: F401
from edujax.jit import clear_caches, jit  # noqa: F401
from edujax.vmap import vmap  # noqa: F401
from edujax.pmap import pmap  # noqa: F401
from edujax.custom_derivatives import custom_jvp, custom_vjp  # noqa: F401
from edujax import nn  # noqa: F401
from edujax.autodiff import (grad, hessian, jacfwd, jacrev, jvp, linearize,  # noqa: F401
                             value_and_grad, vjp)
from edujax.devices import (default_backend, device_count, devices, local_device_count,  # noqa: F401
                            local_devices)
from edujax import errors  # noqa: F401
from edujax import dtypes  # noqa: F401
# issue 17, scipy/nn/random slice: jax.scipy (special, stats, linalg)
from edujax import scipy  # noqa: F401

__version__ = "0.1.0"


def load_ipython_extension(ipython):  # noqa: ANN001 - an IPython shell
    """``%load_ext edujax``: register the ``%jaxpr`` and ``%jittime`` magics.

    The one upward reference in the package: the magics live in the classroom layer
    and need IPython, so they are imported only when IPython asks for them.
    """
    from edujax.magics import load_ipython_extension as load
    load(ipython)
