"""Where the kernel cache's messages go in the edujax kernel: the server's log, not the notebook.

The ``edujax.numba`` logger tells how the kernel cache went: object files compiled for another
CPU (an image built on one machine, run on another), a cache folder this user may not write,
files found damaged. That is for whoever runs the server (the teacher, a hub's admin), not for
the student, whose program runs the same either way. Python prints a logger's warnings to
``sys.stderr``, which in a kernel is the notebook's stderr (red text under the cell); so the
kernel sends this logger to the kernel process's own stderr, which is the Jupyter server's
log (the terminal that started ``jupyter lab``, the hub's pod log), at the ``INFO`` level.

Warnings about the student's program (``NumbaCompileWarning``, JAX's compile logs on
``edujax.jit``) are not touched: they stay in the notebook.
"""
from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

LOGGER = "edujax.numba"
FORMAT = "[%(name)s] %(levelname)s | %(message)s"


def server_stderr() -> TextIO:
    """The kernel process's own stderr. ipykernel (6 and later) captures file descriptor 2
    for the notebook too, keeping the original as ``sys.stderr._original_stdstream_copy``."""
    original = getattr(sys.stderr, "_original_stdstream_copy", None)
    if original is None:
        return sys.__stderr__
    return open(os.dup(original), "w", buffering=1, encoding="utf-8", errors="replace")


def send_backend_log_to_server() -> None:
    """Send the ``edujax.numba`` logger's ``INFO`` and above to the server's log (once)."""
    logger = logging.getLogger(LOGGER)
    if any(getattr(h, "edujax_server_log", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(server_stderr())
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.edujax_server_log = True
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # (not also to the root logger's stderr: the notebook)
