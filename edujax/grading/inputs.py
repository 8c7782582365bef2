"""Seeded test inputs: the same "random" arrays for every student, every run.

Hidden tests should not be guessable from the public ones, yet a failure must be
reproducible: a teacher who reruns the grader gets the same inputs and the same
verdict. So inputs come from NumPy's generator with a fixed seed, converted to the
float32 arrays JAX uses by default.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from edujax import numpy as jnp
from edujax import random
from edujax.array import Array


def seeded_array(seed: int, shape: Sequence[int] = (), *, low: float = -1.0,
                 high: float = 1.0, dtype: object = jnp.float32) -> Array:
    """Uniform numbers in [low, high), reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    return jnp.asarray(rng.uniform(low, high, size=tuple(shape)), dtype=dtype)


def seeded_arrays(seed: int, *shapes: Sequence[int], **options: object) -> list[Array]:
    """One ``seeded_array`` per shape, each from its own seed derived from ``seed``."""
    return [seeded_array(seed * 1000 + i, shape, **options) for i, shape in enumerate(shapes)]


def seeded_key(seed: int) -> Array:
    """A PRNG key, ``random.PRNGKey(seed)``: named here so tests read the same way."""
    return random.PRNGKey(seed)
