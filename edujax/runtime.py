"""Where the program runs: processes, the default device, x64 mode, waiting for effects.

JAX runs one Python process per host of a cluster; edujax runs in one process on one
machine, so ``process_index()`` is 0 and ``process_count()`` is 1. These exist so that
programs written for JAX (which ask) run unchanged.
"""
from __future__ import annotations

import contextlib
import platform
import sys
from typing import Any, Iterator

import numpy as np

from edujax.devices import Device, default_backend, device_count, local_device_count


def process_index(backend: Any = None) -> int:
    """This process's number among the processes of the computation: always 0 here."""
    return 0


def process_count(backend: Any = None) -> int:
    """How many processes take part in the computation: always 1 here."""
    return 1


host_count = process_count
host_id = process_index


def effects_barrier() -> None:
    """Wait until every ``jax.debug.print`` and callback issued so far has run.

    JAX runs them asynchronously, so a program may have to wait; edujax runs them when the
    computation reaches them, so there is nothing to wait for.
    """


@contextlib.contextmanager
def default_device(device: Device | None = None) -> Iterator[None]:
    """``with jax.default_device(d):`` new arrays go to ``d``. One device per platform here,
    and arrays are placed by the backend in use, so this only checks its argument."""
    if device is not None and not isinstance(device, (Device, str)):
        raise TypeError(f"default_device expects a Device, got {device!r}")
    yield


def print_environment_info(return_string: bool = False) -> str | None:
    """The versions and the devices, for a bug report (``jax.print_environment_info()``)."""
    import importlib.metadata  # (here, not above: importing it is a tenth of import edujax)
    try:
        version = importlib.metadata.version("edujax")
    except importlib.metadata.PackageNotFoundError:  # run from a source checkout
        version = "(source checkout)"
    text = (f"edujax: {version}\nnumpy:  {np.__version__}\n"
            f"python: {sys.version}\n"
            f"device info: {default_backend()}-{device_count()}, "
            f"{local_device_count()} local devices\n"
            f"process_count: {process_count()}\nplatform: {platform.uname()}\n")
    if return_string:
        return text
    print(text, end="")
    return None
