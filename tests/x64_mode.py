"""``with x64():`` — float64 for a block of a test (finite differences need it), then off again."""
from __future__ import annotations

import contextlib

import edujax as jax


@contextlib.contextmanager
def x64():
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", False)
