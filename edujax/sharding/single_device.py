"""``SingleDeviceSharding``: all of an array on one device (every array not put on a mesh)."""
from __future__ import annotations

from typing import Any

from edujax.devices import Device


class Sharding:
    """What every sharding is (``jax.sharding.Sharding``): ``isinstance`` checks use it."""


class SingleDeviceSharding(Sharding):
    """All of an array on one device (``jax.sharding.SingleDeviceSharding``)."""

    def __init__(self, device: Device, *, memory_kind: str | None = None):
        self._device = device
        self.memory_kind = memory_kind or "device"

    device_set = property(lambda self: {self._device})
    num_devices = 1
    is_fully_replicated = True
    is_fully_addressable = True

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SingleDeviceSharding) and other._device is self._device

    def __hash__(self) -> int:
        return hash(("SingleDeviceSharding", id(self._device)))
