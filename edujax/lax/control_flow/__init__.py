"""Structured control flow: ``cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``, ``map``.

Why control flow has to be a primitive
--------------------------------------
While a function is traced, its arguments are tracers: they stand for *any*
value of their shape and dtype. ``if x > 0:`` asks Python for a concrete bool
and fails (TracerBoolConversionError), and a Python ``for`` loop runs at trace
time, so it is unrolled into the jaxpr, one copy of the body per iteration.

So JAX offers functions that take the branches or the loop body *as Python
functions*. Each function is traced once, on tracers, into a small jaxpr, and
the whole construct becomes a single equation whose parameters hold those
jaxprs::

    d:f32[] = cond[branches=({ lambda ; ... }, { lambda ; ... })] c b

Three primitives carry all of it:

* ``cond``  (params ``branches``): run the branch picked by an int32 index.
  ``cond`` and ``switch`` both bind it, and so does ``platform_dependent``, with one more
  parameter, ``branches_platforms``, and an index from ``platform_index``.
* ``while`` (params ``cond_jaxpr``, ``body_jaxpr``, ``cond_nconsts``, ``body_nconsts``).
  ``while_loop`` binds it, and so does ``fori_loop`` when its trip count is traced.
* ``scan``  (params ``jaxpr``, ``length``, ``reverse``, ``unroll``, ``num_consts``,
  ``num_carry``): a loop with a trip count known while tracing, that carries a
  state and stacks one output per step. ``scan``, ``map`` and ``fori_loop`` with
  static bounds bind it.

How closed-over values (constants) are threaded
-----------------------------------------------
A branch or a body may use arrays it did not receive as arguments: a global
array, or a tracer of the function being traced around it. Tracing the body
turns each such value into a *constvar* of its jaxpr (see partial_eval.py). We
then move those constvars to the front of the jaxpr's invars ("separate the
consts") and pass their values as extra leading operands of the equation. That
is why ``while`` has ``body_nconsts``/``cond_nconsts`` and ``scan`` has
``num_consts``: they say how many leading operands are constants rather than
loop state. For ``cond``, the constants of all branches are merged into one
list that every branch accepts (a branch ignores the ones it does not use).

One concept per file, as in JAX's ``lax/control_flow/``:

* ``conditionals.py``: the ``cond`` primitive, then ``cond`` and ``switch``;
* ``scan.py``:         the ``scan`` primitive, then ``scan`` and ``map``;
* ``loops.py``:        the ``while`` primitive, then ``while_loop`` and ``fori_loop``;
* ``tracing.py``:      tracing the user's branches and bodies into jaxprs;
* ``common.py``:       what the three share: running sub-jaxprs, rule helpers, jaxpr
  surgery and the type checks behind JAX's error messages.

In each primitive's file the primitive is one block: its abstract evaluation, its
reference implementation (a Python ``if``/``while``/``for`` that runs the sub-jaxprs
with ``eval_jaxpr``), then its JVP, partial evaluation, transpose and batching rules.
After the block come the user-facing functions, which trace the user's Python
functions, check that the types agree (with JAX's error messages) and bind it.

NB: JAX also has a ``disable_jit`` mode in which these functions run as plain
Python loops; edujax has no such switch, so they always bind a primitive.
"""
from __future__ import annotations

from edujax.lax.control_flow.conditionals import cond, cond_p, switch
from edujax.lax.control_flow.loops import fori_loop, while_loop, while_p
from edujax.lax.control_flow.scan import map, scan, scan_p
