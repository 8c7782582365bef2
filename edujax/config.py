"""Global switches, read the way JAX reads them: ``edujax.config.update(name, value)``.

Only a handful of flags exist. Each one starts from an environment variable, so a
learner can also flip them before Python starts (``JAX_ENABLE_X64=1 python ...``).
"""
from __future__ import annotations

import enum
import os
from typing import Any


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


class NumpyDtypePromotion(enum.Enum):
    """The two type promotion modes of ``jax_numpy_dtype_promotion`` (JAX's enum)."""

    STANDARD = "standard"
    STRICT = "strict"


def _enum_option(allowed: list[str]):
    """JAX's check of a string option, with JAX's message."""
    def check(value: Any) -> Any:
        if value not in allowed:
            raise ValueError(f"new enum value must be in {allowed}, got {value} of type "
                             f"{type(value)}.")
        return value
    return check


# Options whose values are checked (and converted) before they are set.
_VALIDATORS = {
    "jax_numpy_rank_promotion": _enum_option(["allow", "warn", "raise"]),
    "jax_numpy_dtype_promotion": NumpyDtypePromotion,  # 'strict' -> NumpyDtypePromotion.STRICT
    "jax_default_matmul_precision": _enum_option(
        [None, "default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
         "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
         "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
         "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "TF32_TF32_F32",
         "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64"]),
    "edujax_language": _enum_option(["auto", "en", "ko"]),
    "jax_default_prng_impl": _enum_option(["threefry2x32", "threefry4x32", "rbg", "unsafe_rbg",
                                           "philox2x32", "philox4x32"]),
}


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
            # Implicit broadcasting of arrays of different ranks, ``x (3,) + y (2, 3)``:
            # "allow" it as NumPy does, "warn" or "raise" (numpy/util.py, promote_shapes).
            "jax_numpy_rank_promotion": os.environ.get("JAX_NUMPY_RANK_PROMOTION", "allow"),
            # "standard" type promotion, or "strict": only Python scalars promote implicitly
            # (dtypes.py).
            "jax_numpy_dtype_promotion": NumpyDtypePromotion(
                os.environ.get("JAX_NUMPY_DTYPE_PROMOTION", "standard")),
            # Raise at the first operation whose output holds a NaN (an inf): nan_checks.py.
            "jax_debug_nans": _env_flag("JAX_DEBUG_NANS", False),
            "jax_debug_infs": _env_flag("JAX_DEBUG_INFS", False),
            # Log every jit compile (what is compiled, for which shapes, how long it took).
            "jax_log_compiles": _env_flag("JAX_LOG_COMPILES", False),
            # The precision of matrix products whose `precision` is None. Accepted as in JAX,
            # where CPUs ignore it too: they always multiply at full precision.
            "jax_default_matmul_precision": None,
            # jax.nn.softmax with a custom JVP (JAX 0.10's default: off, see scipy/softmax.py).
            "jax_softmax_custom_jvp": _env_flag("JAX_SOFTMAX_CUSTOM_JVP", False),
            # Simulated CPU devices for pmap (JAX: --xla_force_host_platform_device_count).
            # None: read EDUJAX_NUM_CPU_DEVICES (or XLA_FLAGS) when the devices are first
            # listed, not now, as JAX reads XLA_FLAGS when its backend starts (devices.py).
            "edujax_num_cpu_devices": None,
            # JAX's own name for the same option (its docs set it: jax_num_cpu_devices).
            "jax_num_cpu_devices": None,
            # How many compiled signatures each jitted function keeps (least recently used
            # ones are evicted first).
            "edujax_jit_cache_size": int(os.environ.get("EDUJAX_JIT_CACHE_SIZE", "1024")),
            "edujax_check_key_reuse": _env_flag("EDUJAX_CHECK_KEY_REUSE", False),  # random.py
            # The PRNG of new keys and of raw key data (prng.py): "threefry2x32", "rbg" or
            # "unsafe_rbg".
            "jax_default_prng_impl": os.environ.get("JAX_DEFAULT_PRNG_IMPL", "threefry2x32"),
            # As in JAX: "off" shows every frame of a traceback; other values let the edujax
            # Jupyter kernel hide edujax's own frames so the user's code stands out.
            # jit runs the Python function instead of compiling it (see jax.disable_jit).
            "jax_disable_jit": _env_flag("JAX_DISABLE_JIT", False),
            "jax_traceback_filtering": os.environ.get("JAX_TRACEBACK_FILTERING", "auto"),
            # The language of the classroom's hints, usage lines and captions: "ko", "en", or
            # "auto" (the notebook's folder, then the locale; see language.py).
            "edujax_language": os.environ.get("EDUJAX_LANG", "auto"),
        }
        self._listeners: list = []

    def update(self, name: str, value: Any) -> None:
        if name not in self._values:
            raise AttributeError(f"Unrecognized config option: {name}")
        if name in _VALIDATORS:
            value = _VALIDATORS[name](value)
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


class State:
    """One option as JAX shows it at the top level: ``jax.debug_nans``.

    ``jax.debug_nans.value`` reads it; ``with jax.debug_nans(True): ...`` sets it for the
    block and puts the old value back afterwards, even when the block raises. The value is
    checked when the context manager is made, so ``jax.numpy_rank_promotion("bogus")``
    fails at once. (JAX's context managers are per thread; edujax's set the option for the
    whole process, as ``config.update`` does.)
    """

    def __init__(self, name: str, default_arg: Any = True):
        self.name = name
        self._default_arg = default_arg  # what ``jax.enable_x64()`` means without a value

    @property
    def value(self) -> Any:
        return config.read(self.name)

    def __call__(self, new_val: Any = None) -> "_StateContext":
        if new_val is None:
            new_val = self._default_arg
        if self.name in _VALIDATORS:
            new_val = _VALIDATORS[self.name](new_val)
        return _StateContext(self.name, new_val)

    def __repr__(self) -> str:
        return f"<edujax config State {self.name}={self.value!r}>"


class _StateContext:
    def __init__(self, name: str, value: Any):
        self.name, self.new_value = name, value

    def __enter__(self) -> None:
        self.previous = config.read(self.name)
        config.update(self.name, self.new_value)

    def __exit__(self, *exc: Any) -> None:
        config.update(self.name, self.previous)


# The options with a top-level switch (``edujax/__init__.py`` exports them as ``jax.<name>``).
debug_nans = State("jax_debug_nans")
debug_infs = State("jax_debug_infs")
numpy_rank_promotion = State("jax_numpy_rank_promotion", default_arg="allow")
numpy_dtype_promotion = State("jax_numpy_dtype_promotion", default_arg="standard")
log_compiles = State("jax_log_compiles")
default_matmul_precision = State("jax_default_matmul_precision", default_arg=None)
softmax_custom_jvp = State("jax_softmax_custom_jvp")
enable_x64 = State("jax_enable_x64")
explain_cache_misses = State("jax_explain_cache_misses")
default_prng_impl = State("jax_default_prng_impl", default_arg="threefry2x32")
