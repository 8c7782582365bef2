"""The IPython ``Magics`` class that makes ``%jaxpr`` and ``%jittime`` available.

Each magic's work lives in its own module (jaxpr.py, jittime.py); this class only
connects them to IPython, which is why it is the one module here that subclasses an
IPython class.
"""
from __future__ import annotations

from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand

from edujax.magics.jaxpr import jaxpr_magic
from edujax.magics.jittime import jittime_magic
from edujax.magics.trace import trace_magic


@magics_class
class EdujaxMagics(Magics):
    """``%jaxpr`` and ``%jittime`` (with cell forms ``%%jaxpr`` and ``%%jittime``)."""

    @no_var_expand  # `{...}` and `$x` in a call are Python, not IPython variable expansion
    @line_cell_magic
    def jaxpr(self, line: str, cell: str | None = None) -> Any:
        """Print the jaxpr of a call: ``%jaxpr f(x)`` (see ``edujax.magics.jaxpr``)."""
        __tracebackhide__ = True
        return jaxpr_magic(self.shell, line, cell)

    @no_var_expand
    @line_cell_magic
    def jittime(self, line: str, cell: str | None = None) -> Any:
        """Time a call eager vs jit: ``%jittime f(x)`` (see ``edujax.magics.jittime``)."""
        __tracebackhide__ = True
        return jittime_magic(self.shell, line, cell)

    @no_var_expand
    @line_cell_magic
    def trace(self, line: str, cell: str | None = None) -> Any:
        """Step through tracing a call: ``%trace f(x)`` (see ``edujax.magics.trace``)."""
        __tracebackhide__ = True
        return trace_magic(self.shell, line, cell)
