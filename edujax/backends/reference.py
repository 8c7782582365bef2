"""The reference backend: run a jaxpr by calling each primitive's NumPy rule in turn.

This is ``eval_jaxpr`` without the Array wrappers: values stay NumPy arrays from
the first equation to the last. It is the executable specification that every
compiled backend is tested against.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from edujax import core
from edujax.jaxpr import ClosedJaxpr, Literal, to_numpy


class ReferenceExecutable:
    """A jaxpr ready to run on the reference interpreter.

    "Compiling" here only does the bookkeeping ahead of time: every variable gets a
    slot number and every equation's rule is looked up once, so a call is a plain
    loop over (rule, params, input slots, output slots).
    """

    tier = "reference"

    def __init__(self, closed: ClosedJaxpr):
        jaxpr = self.jaxpr = closed.jaxpr
        slot: dict = {}
        for v in [*jaxpr.constvars, *jaxpr.invars]:
            slot.setdefault(v, len(slot))
        self.nslots_in = len(slot)
        self.consts = [to_numpy(c, v.aval) for c, v in zip(closed.consts, jaxpr.constvars)]
        self.const_slots = [slot[v] for v in jaxpr.constvars]
        self.arg_slots = [slot[v] for v in jaxpr.invars]
        self.literals: list = []  # literal values live in slots too

        def read(atom: Any) -> int:
            if type(atom) is Literal:
                self.literals.append((len(slot), np.asarray(atom.val, atom.aval.dtype)))
                slot[object()] = len(slot)
                return len(slot) - 1
            return slot[atom]

        self.program = []
        for eqn in jaxpr.eqns:
            ins = [read(v) for v in eqn.invars]
            outs = []
            for v in eqn.outvars:
                slot[v] = len(slot)
                outs.append((slot[v], v.aval.dtype))
            self.program.append((core.impl_rules[eqn.primitive], eqn.params, ins, outs,
                                 eqn.primitive.multiple_results))
        self.out_slots = [read(v) for v in jaxpr.outvars]
        self.nslots = len(slot)

    def __call__(self, *args: Any) -> list:
        env = [None] * self.nslots
        for i, value in zip(self.const_slots, self.consts):
            env[i] = value
        for i, value in zip(self.arg_slots, args):
            env[i] = value
        for i, value in self.literals:
            env[i] = value
        for rule, params, ins, outs, multiple in self.program:
            result = rule(*[env[i] for i in ins], **params)
            if not multiple:
                result = (result,)
            for (i, dtype), value in zip(outs, result):
                # A rule may hand back a NumPy scalar: pin the dtype the aval promised.
                env[i] = value if type(value) is np.ndarray and value.dtype == dtype \
                    else np.asarray(value, dtype=dtype)
        return [env[i] for i in self.out_slots]

    def as_text(self) -> str:
        return ("# reference backend: each equation runs its primitive's NumPy rule\n"
                + str(self.jaxpr))


class ReferenceBackend:
    name = "reference"

    def compile(self, closed: ClosedJaxpr) -> ReferenceExecutable:
        return ReferenceExecutable(closed)
