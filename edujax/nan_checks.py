"""``jax_debug_nans`` / ``jax_debug_infs``: stop at the operation that made the first NaN.

A NaN spreads silently: ``log(-1.)`` somewhere early, and thirty operations later the loss is
``nan`` with no hint of where it came from. With the switch on, JAX (and edujax) checks
every result and raises at the first bad one::

    >>> with jax.debug_nans(True):
    ...     lax.log(-1.)
    FloatingPointError: invalid value (nan) encountered in log

Where the checks happen, as in JAX:

* **An operation run eagerly** (a primitive applied outside any transformation,
  ``core.EvalTrace``): its outputs are checked, and a NaN raises at once, naming it.
* **A call of a jitted function.** Compiled code is not checked operation by operation
  (that would undo what compiling is for), so only the call's outputs are. If one holds a
  NaN, JAX prints ``Invalid nan value encountered in the output of a jax.jit function.
  Calling the de-optimized version.`` and runs the function again *without* jit, operation
  by operation, where the first check above names the culprit. If that run finds nothing
  (the NaN was an input, or compiling changed the arithmetic) the error says so instead.

JAX also runs most ``jax.numpy`` functions as small jitted programs (``jnp.log`` is a
``jit(inline=True)`` function): an eager ``jnp.log(-1.)`` prints the line once before naming
``log``, and a NaN made inside such a program but gone from its output is never reported.
edujax runs them op by op, and gives them that behaviour while a switch is on: the
functions with a visible inner jit in ``inner_jit.py``, the others in
``numpy/jitted_in_jax.py``. Where such a function is reached without going through that
(an operator: ``x / 0.`` calls ``true_divide`` directly; or under ``vmap``), a failing
operation prints the line once for every one of them it sits inside
(``_jax_jits_around``), so what you see is what JAX shows.
"""
from __future__ import annotations

import contextlib
import sys
import weakref
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from edujax.config import config

# True while either switch is on: the one test the fast paths make (a module global).
CHECKING = False

DEOPTIMIZED_MESSAGE = ("Invalid nan value encountered in the output of a jax.jit function. "
                       "Calling the de-optimized version.")
BACKWARD_MESSAGE = ("Invalid nan value encountered in the backward pass of a jax.jit function. "
                    "Calling the de-optimized backward pass.")

# The jitted bodies that are a jit's backward pass (made by jit's transpose rule, which adds
# them here): their NaN is announced with BACKWARD_MESSAGE, as in JAX.
backward_passes: weakref.WeakSet = weakref.WeakSet()

# The code objects of the functions JAX runs as jitted programs (filled in from above by
# numpy/__init__.py; this module sits below them).
_jit_bodies: set = set()


# Called with the new value of CHECKING whenever it changes: the core's evaluating trace
# swaps in its checking runner (core.py's hook), so that it never tests the flag itself.
_on_toggle: list[Callable[[bool], None]] = []


def on_toggle(listener: Callable[[bool], None]) -> None:
    _on_toggle.append(listener)
    listener(CHECKING)


def _set(value: bool) -> None:
    global CHECKING
    if value != CHECKING:
        CHECKING = value
        for listener in _on_toggle:
            listener(value)


def _refresh(name: str, value: Any) -> None:
    _set(bool(config.read("jax_debug_nans") or config.read("jax_debug_infs")))


config.on_update(_refresh)
_refresh("", None)


def add_jit_bodies(codes: Iterable[Any]) -> None:
    """Register functions (their code objects) that JAX would run as jitted programs."""
    _jit_bodies.update(codes)


def special_value(values: Iterable[Any]) -> str | None:
    """``"nan"`` or ``"inf"`` if one of ``values`` holds one the switches look for."""
    nans, infs = config.read("jax_debug_nans"), config.read("jax_debug_infs")
    for value in values:
        array = np.asarray(getattr(value, "_value", value))
        if array.dtype.kind not in "fc":  # integers and booleans cannot be NaN
            continue
        if nans and np.isnan(array).any():
            return "nan"
        if infs and np.isinf(array).any():
            return "inf"
    return None


def check_operation(name: str, outputs: Iterable[Any]) -> None:
    """After an eager operation: raise JAX's FloatingPointError if it made a NaN (or inf)."""
    kind = special_value(outputs)
    if kind is not None:
        for _ in range(_jax_jits_around()):
            print(DEOPTIMIZED_MESSAGE)
        raise FloatingPointError(f"invalid value ({kind}) encountered in {name}")


def check_constant(outputs: Iterable[Any]) -> None:
    """A Python scalar or list made into an array (``jnp.float32(nan)``): JAX converts it with
    ``convert_element_type`` and checks that, unless it happens inside one of its jitted
    jnp functions (``initial=-inf`` in ``jnp.max``), where it is a constant of the program."""
    if _jax_jits_around() == 0:
        check_operation("convert_element_type", outputs)


def check_jit_call(name: str, outputs: Iterable[Any], deoptimized: Callable[[], Any],
                   body: Any = None) -> None:
    """After a jitted call: on a NaN, say so and run ``deoptimized`` (the same computation
    op by op), which raises at the operation that made it."""
    kind = special_value(outputs)
    if kind is None:
        return
    print(BACKWARD_MESSAGE if body is not None and body in backward_passes
          else DEOPTIMIZED_MESSAGE)
    deoptimized()
    raise FloatingPointError(
        f"{(f'jit({name})', kind)}. Because jax_config.debug_nans.value and/or "
        "config.jax_debug_infs is set, the de-optimized function (i.e., the function as if "
        "the `jit` decorator were removed) was called in an attempt to get a more precise "
        "error message. However, the de-optimized function did not produce invalid values "
        "during its execution. This behavior can result from `jit` optimizations causing "
        "the invalid value to be produced. It may also arise from having nan/inf literals "
        "as inputs or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`. \n\n"
        "It may be possible to avoid the invalid value by removing the `jit` decorator, at "
        "the cost of losing optimizations. \n\nIf you see this error, consider opening a bug "
        "report at https://github.com/jax-ml/jax.")


@contextlib.contextmanager
def suspended() -> Iterator[None]:
    """No checks inside the block: the operation (or compiled call) running in it is
    checked as a whole when it returns."""
    _set(False)
    try:
        yield
    finally:
        _refresh("", None)


@contextlib.contextmanager
def rerunning() -> Iterator[None]:
    """A jitted-in-JAX function reruns op by op after announcing its NaN itself: its frame
    is not counted again by ``_jax_jits_around``."""
    global _reruns
    _reruns += 1
    try:
        yield
    finally:
        _reruns -= 1


_reruns = 0


def _jax_jits_around() -> int:
    """How many functions that JAX would have jitted are running right now (on the stack),
    and have not announced themselves yet."""
    count, frame = 0, sys._getframe(1)
    while frame is not None:
        if frame.f_code in _jit_bodies:
            count += 1
        frame = frame.f_back
    return count - _reruns
