"""The device model: the CPU, and a GPU when the ``cuda`` backend runs on one.

JAX programs ask ``jax.devices()``, ``jax.device_put(x)`` or ``x.device``; these work here so
tutorial code runs unchanged. Like ``jax.devices()``, which lists the devices of the default
backend, ``devices()`` lists the devices of the backend ``jit`` uses: the GPU when that is
``cuda`` (and numba-cuda finds a GPU, or runs its simulator), else the CPU.
``devices("gpu")`` / ``devices("cpu")`` ask for one platform explicitly.
"""
from __future__ import annotations

import os
import re
from typing import Any, Callable

from edujax.config import config


class Device:
    """One compute device. ``platform`` is 'cpu' or 'gpu' (the cuda backend's)."""

    def __init__(self, platform: str = "cpu", id: int = 0):
        self.platform = platform
        self.id = id
        self.device_kind = platform
        self.process_index = 0

    def __str__(self) -> str:
        return f"{self.platform}:{self.id}" if self.platform == "cpu" else f"cuda:{self.id}"

    def __repr__(self) -> str:
        return f"CpuDevice(id={self.id})" if self.platform == "cpu" else f"CudaDevice(id={self.id})"


cpu_device = Device()
gpu_device = Device("gpu")

GPU_NAMES = ("gpu", "cuda")

# What the GPU platform provides, filled in by the backend that has one (backends/numba_cuda
# puts its functions here when it is imported; that package sits far above this module):
#   "check": raise a clear error unless a GPU can be used (numba-cuda missing, no device);
#   "put":   (NumPy value, weak_type) -> an Array in GPU memory.
gpu_platform: dict[str, Callable[..., Any]] = {}


# How many CPU devices the environment asked for, read once, when the devices are first
# listed. Real JAX reads XLA_FLAGS when its CPU backend starts, i.e. at the first
# jax.devices() or computation, not at `import jax`; a notebook may therefore set the
# variable in a cell after importing (or after a Jupyter kernel imported) edujax.
_from_environment: list[int] = []


def _count_from_environment() -> int:
    """EDUJAX_NUM_CPU_DEVICES, else JAX's --xla_force_host_platform_device_count, else 1."""
    if "EDUJAX_NUM_CPU_DEVICES" in os.environ:
        return int(os.environ["EDUJAX_NUM_CPU_DEVICES"])
    flag = re.search(r"--xla_force_host_platform_device_count=(\d+)",
                     os.environ.get("XLA_FLAGS", ""))
    return int(flag.group(1)) if flag else 1


def _count() -> int:
    """How many CPU devices to simulate (for pmap): the ``edujax_num_cpu_devices`` option
    when it was set, else what the environment said when the devices were first listed."""
    chosen = config.read("edujax_num_cpu_devices")
    if chosen is None:
        chosen = config.read("jax_num_cpu_devices")
    if chosen is None:
        if not _from_environment:
            _from_environment.append(_count_from_environment())
        chosen = _from_environment[0]
    return max(1, int(chosen))


def _platform(backend: str | None) -> str:
    """'gpu' or 'cpu': the platform named, or that of the backend jit uses."""
    if backend is None:
        return "gpu" if config.read("edujax_backend") == "cuda" else "cpu"
    return "gpu" if backend in GPU_NAMES else "cpu"


def gpu_devices() -> list[Device]:
    """The GPU, when numba-cuda is installed and finds one (a clear error otherwise)."""
    gpu_platform["check"]()
    return [gpu_device]


def devices(backend: str | None = None) -> list[Device]:
    if _platform(backend) == "gpu":
        return gpu_devices()
    return [cpu_device] + [Device("cpu", i) for i in range(1, _count())]


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[Device]:
    return devices(backend)


def device_count(backend: str | None = None) -> int:
    return len(devices(backend))


def local_device_count(backend: str | None = None) -> int:
    return len(devices(backend))


def default_backend() -> str:
    return _platform(None)
