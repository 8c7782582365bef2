"""Shared pytest setup.

Hypothesis profiles: "ci" (no deadline, 50 examples, derandomized so that a CI run is
reproducible) is loaded when the CI variable is set, "dev" (25 random examples) otherwise;
HYPOTHESIS_PROFILE=ci|dev overrides. Neither has a deadline:
edujax traces in pure Python and jit compiles on first call, so one example may take seconds.

Backends: jit's default backend is Numba, but most of this suite tests what does not depend on
the backend (tracing, transformations, jaxpr text, errors). It runs those on the reference
interpreter, so that thousands of one-off jitted functions do not each start a Numba compile
(EDUJAX_BACKEND=numba EDUJAX_TIERED=0 scripts/test runs all of it on Numba instead). The
backends are compared where that is the point: the conformance cases and the tutorial cells
run on every backend (test_conformance.py, test_seeds.py), random programs in
test_numba_backend.py.
"""

import os

os.environ.setdefault("EDUJAX_BACKEND", "reference")  # before edujax reads its config

try:
    from hypothesis import settings
except ImportError:  # hypothesis comes with the dev extra; the suite still runs without it
    settings = None

if settings is not None:
    settings.register_profile("ci", deadline=None, max_examples=50, derandomize=True,
                              database=None)
    settings.register_profile("dev", deadline=None, max_examples=25)
    default_profile = "ci" if os.environ.get("CI") else "dev"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", default_profile))


import pytest  # noqa: E402


@pytest.fixture(params=["reference", "numba"])
def backend(request, monkeypatch):
    """Run the test once per backend: jit hands its jaxprs to ``request.param``.

    Numba compiles synchronously here (EDUJAX_TIERED=0), so the compiled kernels, not the
    reference interpreter that tiering starts with, compute what the test checks. Kernels are
    shared between tests (and test runs) through the persistent cache.
    """
    from edujax.config import config
    monkeypatch.setenv("EDUJAX_TIERED", "0")
    before = config.read("edujax_backend")
    config.update("edujax_backend", request.param)
    yield request.param
    config.update("edujax_backend", before)


@pytest.fixture
def eight_devices():
    """Eight simulated CPU devices for one test (JAX's docs set XLA_FLAGS for the same)."""
    import edujax

    before = edujax.config.read("edujax_num_cpu_devices")
    edujax.config.update("edujax_num_cpu_devices", 8)
    yield
    edujax.config.update("edujax_num_cpu_devices", before)


@pytest.fixture
def mesh(eight_devices):
    """A 4x2 mesh with axes x and y over the eight devices."""
    import edujax

    return edujax.make_mesh((4, 2), ("x", "y"))
