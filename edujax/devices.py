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


def _count() -> int:
    """How many CPU devices to simulate (for pmap): EDUJAX_NUM_CPU_DEVICES, default 1."""
    from edujax.config import config
    return max(1, int(config.read("edujax_num_cpu_devices")))


def devices(backend: str | None = None) -> list[Device]:
    return [cpu_device] + [Device("cpu", i) for i in range(1, _count())]


def local_devices(process_index: int | None = None, backend: str | None = None) -> list[Device]:
    return devices()


def device_count(backend: str | None = None) -> int:
    return _count()


def local_device_count(backend: str | None = None) -> int:
    return _count()


def default_backend() -> str:
    return "cpu"
