"""``Array``: the concrete value edujax computes with.

An Array is an immutable wrapper around a NumPy ndarray of a *canonical* dtype
(float32 rather than float64 unless x64 is on) plus one extra bit of type
information NumPy lacks: ``weak_type`` (see dtypes.py). Operators and methods
(``+``, ``.sum()``, ``.at[]``...) are attached by ``edujax.numpy.array_methods``
to Array and to Tracer alike, so traced code reads exactly like eager code.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from edujax.abstract_arrays import ShapedArray
from edujax.devices import cpu_device
from edujax.sharding import NamedSharding, Shard, SingleDeviceSharding


# Printers for Arrays whose dtype kind NumPy cannot print the JAX way. prng.py, above this
# module, registers how keys print under "V" (the kind of its record dtype): the lower layer owns
# the table and the upper one fills it, so this module never imports prng.
repr_rules: dict[str, Callable[[Any], str]] = {}


def immutable_error() -> TypeError:
    return TypeError(
        "JAX arrays are immutable and do not support in-place item assignment."
        " Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method:"
        " https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


class ArrayImpl:
    """An immutable n-dimensional array living on the (only) CPU device.

    Named ``ArrayImpl`` like JAX's concrete class (error messages mention it);
    everyone else calls it ``Array``.
    """

    # _sharding: None for an array on one device, else the NamedSharding it was put on
    # (device_put, or the output type of a jitted function): edujax keeps the whole value
    # and cuts each device's block out of it when asked (addressable_shards).
    __slots__ = ("_value", "_weak_type", "_aval", "_sharding", "__weakref__")
    __array_priority__ = 100

    def __init__(self, value: np.ndarray, weak_type: bool = False):
        self._value = value
        self._weak_type = weak_type
        self._aval = None
        self._sharding = None

    # -- what tracing needs to know ------------------------------------------------
    @property
    def aval(self) -> ShapedArray:
        aval = self._aval
        if aval is None:
            v = self._value
            sharding = self._sharding
            aval = self._aval = ShapedArray(
                v.shape, v.dtype, self._weak_type,
                None if sharding is None else sharding.abstract())
        return aval

    shape = property(lambda self: self._value.shape)
    dtype = property(lambda self: self._value.dtype)
    ndim = property(lambda self: self._value.ndim)
    size = property(lambda self: self._value.size)
    weak_type = property(lambda self: self._weak_type)
    nbytes = property(lambda self: self._value.nbytes)
    itemsize = property(lambda self: self._value.itemsize)

    def _value_for(self, backend: str) -> np.ndarray:
        """What ``jit`` hands the executable of ``backend``: the NumPy value (a GPU array,
        ``CudaArray``, hands the cuda backend its GPU buffer instead)."""
        return self._value

    # -- conversions to Python and NumPy -------------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        view = self._value.view()
        view.flags.writeable = False  # a NumPy view must not let anyone mutate us
        return view if dtype is None else view.astype(dtype)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __complex__(self) -> complex:
        return complex(self._value)

    def __index__(self) -> int:
        if self.dtype.kind not in "iub":
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        return int(self._value)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return len(self._value)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (ArrayImpl(row, self._weak_type) for row in self._value)

    def __hash__(self):
        raise TypeError("unhashable type: 'jaxlib._jax.ArrayImpl'")

    def __setitem__(self, idx: Any, value: Any):
        raise immutable_error()

    def item(self, *args: Any) -> Any:
        return self._value.item(*args)

    def tolist(self) -> Any:
        return self._value.tolist()

    def copy(self) -> Array:
        return with_sharding(ArrayImpl(self._value.copy(), self._weak_type), self._sharding)

    def __copy__(self) -> Array:
        return self

    def __deepcopy__(self, memo: Any) -> Array:
        return self

    def __reduce__(self):
        return (ArrayImpl, (self._value, self._weak_type))

    # -- the device API (one CPU device; kept so tutorial code runs unchanged) -----
    def block_until_ready(self) -> Array:
        """Wait until the value is computed. edujax computes eagerly, so: at once."""
        return self

    @property
    def device(self):
        return cpu_device

    def devices(self) -> set:
        return {cpu_device} if self._sharding is None else self._sharding.device_set

    @property
    def sharding(self) -> SingleDeviceSharding | NamedSharding:
        """How the array is laid out over devices: all of it on its one device, or the
        NamedSharding it was put on."""
        return SingleDeviceSharding(self.device) if self._sharding is None else self._sharding

    @property
    def addressable_shards(self) -> list[Shard]:
        """Each device's block: ``shard.data`` is the slice ``shard.index`` of the value."""
        if self._sharding is None:
            return [Shard(self.device, (slice(None),) * self.ndim, self)]
        sharding = self._sharding
        shards = []
        for device in sharding.mesh.devices.flat:
            index = sharding.index(device, self.shape)
            shards.append(Shard(device, index, ArrayImpl(self._value[index], self._weak_type)))
        return shards

    @property
    def is_fully_replicated(self) -> bool:
        return self._sharding is None or self._sharding.is_fully_replicated

    is_fully_addressable = True
    committed = False

    # -- printing --------------------------------------------------------------------
    def __repr__(self) -> str:
        rule = repr_rules.get(self._value.dtype.kind)
        if rule is not None:  # PRNG keys (from jit or vmap) print as keys
            return rule(self)
        prefix = "Array("
        dtype_str = f"dtype={self.dtype.name}"
        if self._weak_type:
            dtype_str += ", weak_type=True"
        line_width = np.get_printoptions()["linewidth"]
        if self.size == 0:
            s = f"[], shape={self.shape}"
        else:
            s = np.array2string(self._value, prefix=prefix, suffix=",",
                                separator=", ", max_line_width=line_width)
        last_line_len = len(s) - s.rfind("\n") + 1
        sep = " " * len(prefix) if last_line_len + len(dtype_str) + 2 > line_width else " "
        return f"{prefix}{s},{sep}{dtype_str})"

    def __str__(self) -> str:
        if self._value.dtype.kind == "V":
            return repr(self)
        return str(self._value)

    def __format__(self, spec: str) -> str:
        return format(self._value if self.ndim else self._value[()], spec)


Array = ArrayImpl


def with_sharding(array: Array, sharding: NamedSharding | None) -> Array:
    """``array``, now laid out as ``sharding`` says (None: on its one device)."""
    array._sharding = sharding
    array._aval = None
    return array
