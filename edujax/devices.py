"""The device model: edujax has exactly one device, the CPU.

JAX programs ask ``jax.devices()``, ``jax.device_put(x)`` or ``x.device``; these
work here so tutorial code runs unchanged, and they always answer "the CPU".
"""
from __future__ import annotations


class Device:
    """One compute device. ``platform`` is 'cpu' (a 'gpu' device may come with numba-cuda)."""

    def __init__(self, platform: str = "cpu", id: int = 0):
        self.platform = platform
        self.id = id
        self.device_kind = platform
        self.process_index = 0

    def __str__(self) -> str:
        return f"{self.platform}:{self.id}"

    def __repr__(self) -> str:
        return f"CpuDevice(id={self.id})" if self.platform == "cpu" else f"CudaDevice(id={self.id})"


cpu_device = Device()


def devices(backend: str | None = None) -> list[Device]:
    return [cpu_device]


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[Device]:
    return [cpu_device]


def device_count(backend: str | None = None) -> int:
    return 1


def local_device_count(backend: str | None = None) -> int:
    return 1


def default_backend() -> str:
    return "cpu"
