"""``jax.extend.core``: the IR and the primitive class, for custom interpreters and primitives.

Everything here is edujax's own class or function, re-exported under JAX's names:
``Primitive`` (core.py), ``Jaxpr``, ``ClosedJaxpr``, ``JaxprEqn``, ``Var``, ``Literal`` and
``jaxpr_as_fun`` (jaxpr.py). A custom interpreter walks ``closed.jaxpr.eqns``, reads
``eqn.primitive``, ``eqn.invars`` (Vars, or Literals with a ``.val``), ``eqn.params`` and
``eqn.outvars``, exactly as with JAX.
"""
from edujax.core import Primitive, ShapedArray, Trace, Tracer, get_aval  # noqa: F401
from edujax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr,  # noqa: F401
                          jaxpr_as_fun)
from edujax.pretty import jaxprs_in_params  # noqa: F401
from edujax.extend.core import primitives  # noqa: F401,E402
