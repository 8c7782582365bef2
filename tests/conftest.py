"""Shared pytest setup.

Hypothesis profiles: "ci" (no deadline, 50 examples, derandomized so that a CI run is
reproducible) is loaded when the CI variable is set, "dev" (25 random examples) otherwise;
HYPOTHESIS_PROFILE=ci|dev overrides. Neither has a deadline:
edujax traces in pure Python and jit compiles on first call, so one example may take seconds.
"""

import os

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
