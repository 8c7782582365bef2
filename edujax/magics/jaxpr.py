"""``%jaxpr f(x)``: print what jit sees, the jaxpr of one call.

``%jaxpr EXPR`` prints exactly what ``print(jax.make_jaxpr(callee)(*args, **kwargs))``
prints, where ``EXPR`` is ``callee(*args, **kwargs)``. The callee can be any
expression: ``%jaxpr jax.grad(f)(x)`` shows the jaxpr of the gradient,
``%jaxpr jax.vmap(f, in_axes=(0, None))(xs, w)`` the batched program.

Options:
  -o            also return the ClosedJaxpr (``j = %jaxpr -o f(x)``)
  -q            print nothing (with -o: just return it)
  --compiled    print the code the active jit backend generates for this call instead
                (``jax.jit(callee).lower(...).compile().as_text()``)
  --graph       show the jaxpr as a graph (``edujax.viz.graph``)
  --source      show the Python source, the compiled jaxpr and the generated kernel side by
                side, each line linked to its partners (``edujax.viz.lineage``)
  --static N,.. argument positions that are static (``make_jaxpr``'s static_argnums)

``%%jaxpr`` runs the cell's other lines first and uses its last line as the call.
"""
from __future__ import annotations

from typing import Any

from IPython.display import display

from edujax import viz
from edujax.api import make_jaxpr
from edujax.jit import jit
from edujax.magics.calls import evaluate_call
from edujax.magics.options import MagicParser, int_list, split_options
from edujax.magics.request import read_request

USAGE = "%jaxpr [-o] [-q] [--compiled] [--graph] [--source] [--static N[,N...]] f(args...)"


def _parser() -> MagicParser:
    parser = MagicParser("%jaxpr", USAGE)
    parser.add_argument("-o", dest="output", action="store_true")
    parser.add_argument("-q", dest="quiet", action="store_true")
    parser.add_argument("--compiled", action="store_true")
    parser.add_argument("--graph", action="store_true")
    parser.add_argument("--source", action="store_true")
    parser.add_argument("--static", type=int_list, default=())
    return parser


def jaxpr_magic(shell: Any, line: str, cell: str | None = None) -> Any:
    """The body of ``%jaxpr`` / ``%%jaxpr`` (see the module docstring)."""
    __tracebackhide__ = True  # IPython hides this frame in the user's tracebacks
    parser = _parser()
    tokens, source = split_options(line, takes_value={"--static"})
    opts, source = read_request(parser, tokens, source, cell, shell.user_ns, "%jaxpr")
    call = evaluate_call(source, shell.user_ns, "%jaxpr")
    closed = make_jaxpr(call.callee, static_argnums=opts.static)(*call.args, **call.kwargs)
    if opts.graph:
        display(viz.graph(closed, title=call.source))
    elif opts.source:
        display(viz.lineage(call.callee, *call.args, title=call.source, **call.kwargs))
    elif opts.compiled:
        compiled = jit(call.callee, static_argnums=opts.static).lower(
            *call.args, **call.kwargs).compile()
        if not opts.quiet:
            print(compiled.as_text())
    elif not opts.quiet:
        print(closed)
    return closed if opts.output else None
