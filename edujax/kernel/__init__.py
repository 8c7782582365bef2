"""The edujax Jupyter kernel: IPython with edujax's classroom already set up.

The kernel is an ordinary ipykernel that loads one IPython extension, this module,
at start. Loading it:

* registers the ``%jaxpr`` and ``%jittime`` magics (as ``%load_ext edujax`` would);
* gives Arrays and jaxprs an HTML form next to their text form (``display.py``);
* shows errors with edujax's frames hidden and, for the errors tracing causes, a
  short "what happened / why / fix" box under the traceback (``errors.py``);
* turns on edujax's PRNG key-reuse warnings (``edujax_check_key_reuse``);
* sends the kernel cache's messages (another CPU, a read-only cache) to the server's log
  rather than under the student's cells (``server_log.py``).

It does not import ``jax``/``jnp`` for the student: the tutorials do that themselves,
exactly as they would with real JAX.

    python -m edujax.kernel install --sys-prefix   # install the kernelspec "edujax"
    jupyter lab                                     # then pick "EduJAX (Python 3)"
"""
from __future__ import annotations

from typing import Any

from edujax.config import config
from edujax.kernel import display, errors, server_log
from edujax.magics import load_ipython_extension as load_magics

KERNEL_NAME = "edujax"
DISPLAY_NAME = "EduJAX (Python 3)"


def load_ipython_extension(ipython: Any) -> None:
    """Set up a shell as the edujax kernel does (``%load_ext edujax.kernel`` works too)."""
    load_magics(ipython)
    display.register(ipython)
    errors.register(ipython)
    config.update("edujax_check_key_reuse", True)
    server_log.send_backend_log_to_server()
