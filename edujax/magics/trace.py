"""``%trace f(x)``: step through tracing ``f(x)`` one ``bind`` at a time (``viz.trace``).

``%trace EXPR`` shows ``edujax.viz.trace(callee, *args, **kwargs)`` where ``EXPR`` is
``callee(*args, **kwargs)``: ``%trace jax.grad(f)(x)`` steps through the JVP, partial
evaluation and transposition of ``f``.

Options:
  -o            also return the view (``v = %trace -o f(x)``)
"""
from __future__ import annotations

from typing import Any

from IPython.display import display

from edujax import viz
from edujax.magics.calls import evaluate_call
from edujax.magics.options import MagicParser, split_options
from edujax.magics.request import read_request

USAGE = "%trace [-o] f(args...)"


def trace_magic(shell: Any, line: str, cell: str | None = None) -> Any:
    """The body of ``%trace`` / ``%%trace`` (see the module docstring)."""
    __tracebackhide__ = True
    parser = MagicParser("%trace", USAGE)
    parser.add_argument("-o", dest="output", action="store_true")
    tokens, source = split_options(line, takes_value=set())
    opts, source = read_request(parser, tokens, source, cell, shell.user_ns, "%trace")
    call = evaluate_call(source, shell.user_ns, "%trace")
    view = viz.trace(call.callee, *call.args, title=call.source, **call.kwargs)
    display(view)
    return view if opts.output else None
