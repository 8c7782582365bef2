"""Backends: what ``jit`` hands a jaxpr to, to get something that runs.

A backend is any object with a ``name`` and a ``compile(closed)`` method (``closed`` a
ClosedJaxpr) that returns an *executable*: a callable taking the flat arguments as NumPy
arrays and returning the flat outputs as NumPy arrays, with an ``as_text()`` that shows
what it runs (for Numba: the generated Python source) and a ``tier`` that names where its
code came from (``reference``, ``direct``, ``object file``, ``numba``, ``cuda``).

The backend is chosen with ``edujax.config.update("edujax_backend", name)`` or the
``EDUJAX_BACKEND`` environment variable. ``reference`` (an interpreter over NumPy)
always exists; the Numba backends are registered below too, and import Numba only when
first used.
"""
from __future__ import annotations

from typing import Any, Callable, Protocol

from edujax.backends import numba_cpu, numba_cuda
from edujax.backends.reference import ReferenceBackend
from edujax.config import config
from edujax.jaxpr import ClosedJaxpr


class Executable(Protocol):
    tier: str

    def __call__(self, *args: Any) -> list: ...

    def as_text(self) -> str: ...


class Backend(Protocol):
    name: str

    def compile(self, closed: ClosedJaxpr) -> Executable: ...


_factories: dict[str, Callable[[], Backend]] = {}
_instances: dict[str, Backend] = {}


def register_backend(name: str, factory: Callable[[], Backend]) -> None:
    """Make ``name`` selectable; ``factory`` is called the first time it is used."""
    _factories[name] = factory


def get_backend(name: str | None = None) -> Backend:
    name = name or config.read("edujax_backend")
    if name not in _instances:
        if name not in _factories:
            raise ValueError(f"Unknown backend {name!r}. Available backends: "
                             f"{', '.join(sorted(_factories))}.")
        _instances[name] = _factories[name]()
    return _instances[name]


register_backend("reference", ReferenceBackend)
register_backend("numba", numba_cpu.make_backend)  # Numba is imported when it is first used
register_backend("cuda", numba_cuda.make_backend)  # numba-cuda (optional) too
