"""Plain data between the sandbox and the trusted grader: JSON, never pickle.

What crosses: arrays (dtype from a fixed list, shape, raw bytes in base64), Python
scalars, strings, ``None``, ``...``, and tuples/lists/dicts of those; a function
travels as a reference (``{"t": "fn", "ref": 3}``) that only the sandbox can call.
Anything else arrives as ``Opaque`` (its type name and a short repr), a value that
compares equal to nothing. Decoding builds only these types: no object from the
sandbox can run code in the grader (``np.frombuffer`` on a fixed dtype, no pickle, no
``object`` arrays), and it refuses what is too deep, too long or too large.
"""
from __future__ import annotations

import base64
import json
import math
from typing import Any

import numpy as np

MAX_LINE = 64 * 1024 * 1024   # one message, bytes
MAX_DEPTH = 20
MAX_ITEMS = 100_000           # elements of one container
MAX_STRING = 20_000
DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"}


class WireError(ValueError):
    """A message that is not plain data of the agreed shape."""


class Opaque:
    """A value of a type that does not travel: only its type name and a short repr."""

    def __init__(self, type_name: str, text: str):
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other: Any) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]


class EscapedTracer(Opaque):
    """A tracer that came back from the student's function (it escaped from jit/grad)."""


# ------------------------------------------------------------------ encoding
def encode(value: Any, ref: Any = None, depth: int = 0) -> Any:
    """``value`` as JSON-able plain data. ``ref(f)`` names a function (sandbox side)."""
    if depth > MAX_DEPTH:
        raise WireError("nested too deeply")
    if value is None or value is Ellipsis:
        return {"t": "none" if value is None else "ellipsis"}
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, int):
        return {"t": "int", "v": str(value)}
    if isinstance(value, float):
        return {"t": "float", "v": repr(value)}
    if isinstance(value, complex):
        return {"t": "complex", "v": [repr(value.real), repr(value.imag)]}
    if isinstance(value, str):
        return {"t": "str", "v": value[:MAX_STRING]}
    if isinstance(value, (tuple, list)):
        kind = "tuple" if isinstance(value, tuple) else "list"
        return {"t": kind, "v": [encode(v, ref, depth + 1) for v in value[:MAX_ITEMS]]}
    if isinstance(value, dict):
        return {"t": "dict", "v": [[encode(k, ref, depth + 1), encode(v, ref, depth + 1)]
                                   for k, v in list(value.items())[:MAX_ITEMS]]}
    array = _as_array(value)
    if array is not None:
        return array
    if callable(value) and ref is not None:
        return {"t": "fn", "ref": ref(value), "name": str(getattr(value, "__name__", "f"))[:100],
                "jitted": hasattr(value, "cache_info")}
    kind = "tracer" if "Tracer" in type(value).__name__ else "opaque"
    return {"t": kind, "type": type(value).__name__[:100], "repr": _short_repr(value)}


def _as_array(value: Any) -> dict | None:
    from edujax.array import ArrayImpl

    weak = None
    if isinstance(value, ArrayImpl):
        weak, data = bool(value.weak_type), np.asarray(value)
    elif isinstance(value, (np.ndarray, np.generic)):
        data = np.asarray(value)
    else:
        return None
    if data.dtype.name not in DTYPES:
        return {"t": "opaque", "type": f"array of {data.dtype.name}", "repr": _short_repr(value)}
    return {"t": "array" if weak is not None else ("np" if isinstance(value, np.ndarray)
                                                   else "npscalar"),
            "dtype": data.dtype.name, "shape": list(data.shape), "weak": bool(weak),
            "data": base64.b64encode(np.ascontiguousarray(data).tobytes()).decode("ascii")}


def _short_repr(value: Any) -> str:
    try:
        return repr(value)[:200]
    except Exception:  # a student's __repr__ may raise
        return f"<{type(value).__name__}>"


def dumps(message: dict) -> bytes:
    return (json.dumps(message, allow_nan=True) + "\n").encode("utf-8")


# ------------------------------------------------------------------ decoding
def decode(data: Any, function: Any = None, depth: int = 0, given: Any = None) -> Any:
    """Plain data back into values. ``function(ref, name, jitted)`` makes a callable;
    ``given(source)`` (sandbox side) a function a test sent as its source text."""
    if depth > MAX_DEPTH:
        raise WireError("nested too deeply")
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise WireError("not a value")
    kind, v = data["t"], data.get("v")
    if kind == "none":
        return None
    if kind == "ellipsis":
        return Ellipsis
    if kind == "bool":
        return bool(v)
    if kind == "int":
        return int(_text(v, 5000))
    if kind == "float":
        return float(_text(v, 100))
    if kind == "complex":
        return complex(float(_text(v[0], 100)), float(_text(v[1], 100)))
    if kind == "str":
        return _text(v, MAX_STRING)
    if kind in ("tuple", "list"):
        items = [decode(x, function, depth + 1, given) for x in _items(v)]
        return tuple(items) if kind == "tuple" else items
    if kind == "dict":
        pairs = [(decode(k, function, depth + 1, given), decode(x, function, depth + 1, given))
                 for k, x in _items(v)]
        try:
            return dict(pairs)
        except TypeError as error:
            raise WireError("unhashable key") from error
    if kind in ("array", "np", "npscalar"):
        return _decode_array(data, kind)
    if kind == "fn" and function is not None:
        return function(int(data["ref"]), _text(data.get("name", "f"), 100),
                        bool(data.get("jitted")))
    if kind == "given" and given is not None:
        return given(_text(data.get("source"), MAX_STRING))
    if kind == "tracer":
        return EscapedTracer(_text(data.get("type", "?"), 100), _text(data.get("repr", ""), 200))
    return Opaque(_text(data.get("type", "?"), 100), _text(data.get("repr", ""), 200))


def _text(v: Any, limit: int) -> str:
    if not isinstance(v, str) or len(v) > limit:
        raise WireError("bad string")
    return v


def _items(v: Any) -> list:
    if not isinstance(v, list) or len(v) > MAX_ITEMS:
        raise WireError("bad container")
    return v


def _decode_array(data: dict, kind: str) -> Any:
    dtype = data.get("dtype")
    if dtype not in DTYPES:
        raise WireError("dtype not allowed")
    shape = tuple(int(n) for n in _items(data.get("shape")))
    if any(n < 0 for n in shape) or len(shape) > 32:
        raise WireError("bad shape")
    raw = base64.b64decode(_text(data.get("data"), MAX_LINE), validate=True)
    if len(raw) != math.prod(shape) * np.dtype(dtype).itemsize:
        raise WireError("array size does not match its shape")
    array = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if kind == "npscalar":
        return array[()]
    if kind == "np":
        return array
    from edujax.array import ArrayImpl
    return ArrayImpl(array, weak_type=bool(data.get("weak")))


def loads(line: bytes) -> dict:
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise WireError("not JSON") from error
    if not isinstance(message, dict):
        raise WireError("not a message")
    return message
