"""Context managers and wrappers that change how a function is traced, not what it computes.

* ``named_call(f, name=...)`` and ``named_scope(name)``: in JAX they attach a name to the
  operations (for profilers and the compiler's metadata). JAX 0.10's jaxprs print it only
  when asked (``pretty_print(name_stack=True)``: ``[layer1]``): ``named_scope`` puts it on
  the name stack of the equations recorded inside (source_info.py).
* ``ensure_compile_time_eval()``: inside it, an operation whose inputs are all known now
  (no tracer among them) is computed right away, even while ``jit`` or ``make_jaxpr`` is
  tracing, instead of being recorded into the jaxpr. Handy for building constant tables.
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator

from edujax import core, source_info


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """``fun`` under another name (JAX shows it in profiles; jaxprs are unchanged)."""
    @functools.wraps(fun)
    def named(*args: Any, **kwargs: Any) -> Any:
        return fun(*args, **kwargs)
    if name is not None:
        named.__name__ = named.__qualname__ = name
    return named


class named_scope(contextlib.ContextDecorator):
    """``with jax.named_scope("layer1"):``: a name on the name stack of the operations inside."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError("named_scope name argument must be a string.")
        self.name = name
        self._scopes: list = []

    def __enter__(self) -> None:
        scope = source_info.extend_name_stack(source_info.Scope(self.name))
        scope.__enter__()
        self._scopes.append(scope)

    def __exit__(self, *exc: Any) -> None:
        self._scopes.pop().__exit__(*exc)


class _CompileTimeEvalTrace(core.Trace):
    """Computes an operation at once when none of its inputs is a tracer; otherwise hands it
    to the trace that was current before (which records it, under jit)."""

    def __init__(self, parent: core.Trace):
        self.parent = parent

    def process_primitive(self, prim, args, params):
        if any(isinstance(a, core.Tracer) for a in args):
            return self.parent.process_primitive(prim, args, params)
        return core.eval_trace.process_primitive(prim, args, params)


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Evaluate operations on known values now, even inside ``jit`` (JAX's context manager).

    >>> @jax.jit
    ... def f(x):
    ...     with jax.ensure_compile_time_eval():
    ...         table = jnp.sin(jnp.arange(4.0))  # computed once, while tracing
    ...     return x * table

    NB: JAX instead flips a flag that its staging trace reads; a trace of our own that sits
    in front of the current one has the same effect and keeps core.py unchanged.
    """
    parent = core.current_trace()
    if parent is core.eval_trace:
        yield
        return
    with core.set_current_trace(_CompileTimeEvalTrace(parent)):
        yield
