"""Global switches, read the way JAX reads them: ``edujax.config.update(name, value)``.

Only a handful of flags exist. Each one starts from an environment variable, so a
learner can also flip them before Python starts (``JAX_ENABLE_X64=1 python ...``).
"""
from __future__ import annotations

import os
from typing import Any


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


class Config:
    """A bag of named settings; ``update`` checks the name so typos fail loudly."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {
            # 64-bit types are off by default: float64 inputs become float32.
            "jax_enable_x64": _env_flag("JAX_ENABLE_X64", False),
            # Which backend `jit` hands its jaxprs to (see edujax/backends/): "numba" compiles
            # fused loop kernels; "reference" interprets the jaxpr with NumPy, op by op.
            "edujax_backend": os.environ.get("EDUJAX_BACKEND", "numba"),
            # Log every jit compile together with the reason it missed the cache.
            "jax_explain_cache_misses": _env_flag("JAX_EXPLAIN_CACHE_MISSES", False),
            # Accepted for compatibility with tutorials; edujax always runs on the CPU.
            "jax_platforms": os.environ.get("JAX_PLATFORMS", "cpu"),
            "jax_platform_name": os.environ.get("JAX_PLATFORM_NAME", "cpu"),
            "jax_numpy_rank_promotion": "allow",
            # jax.nn.softmax with a custom JVP (JAX 0.10's default: off, see scipy/softmax.py).
            "jax_softmax_custom_jvp": _env_flag("JAX_SOFTMAX_CUSTOM_JVP", False),
            # Simulated CPU devices for pmap (JAX: --xla_force_host_platform_device_count).
            "edujax_num_cpu_devices": int(os.environ.get("EDUJAX_NUM_CPU_DEVICES", "1")),
            # How many compiled signatures each jitted function keeps (least recently used
            # ones are evicted first).
            "edujax_jit_cache_size": int(os.environ.get("EDUJAX_JIT_CACHE_SIZE", "1024")),
            "edujax_check_key_reuse": _env_flag("EDUJAX_CHECK_KEY_REUSE", False),  # random.py
            # As in JAX: "off" shows every frame of a traceback; other values let the edujax
            # Jupyter kernel hide edujax's own frames so the user's code stands out.
            # jit runs the Python function instead of compiling it (see jax.disable_jit).
            "jax_disable_jit": _env_flag("JAX_DISABLE_JIT", False),
            "jax_traceback_filtering": os.environ.get("JAX_TRACEBACK_FILTERING", "auto"),
        }
        self._listeners: list = []

    def update(self, name: str, value: Any) -> None:
        if name not in self._values:
            raise AttributeError(f"Unrecognized config option: {name}")
        self._values[name] = value
        for listener in self._listeners:
            listener(name, value)

    def read(self, name: str) -> Any:
        return self._values[name]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(name) from None

    def on_update(self, listener) -> None:
        """Call ``listener(name, value)`` after every update (caches use this)."""
        self._listeners.append(listener)


config = Config()
