"""Where the program runs: processes, the default device, x64 mode, waiting for effects.

JAX runs one Python process per host of a cluster; edujax runs in one process on one
machine, so ``process_index()`` is 0 and ``process_count()`` is 1. These exist so that
programs written for JAX (which ask) run unchanged.
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

from edujax.config import config
from edujax.devices import Device


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


@contextlib.contextmanager
def enable_x64(new_val: bool = True) -> Iterator[None]:
    """Inside the block, 64-bit types are on (or off): ``jax_enable_x64``, then restored."""
    previous = config.read("jax_enable_x64")
    config.update("jax_enable_x64", bool(new_val))
    try:
        yield
    finally:
        config.update("jax_enable_x64", previous)
