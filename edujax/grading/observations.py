"""Checks that must run the student's code, run where it lives (in the sandbox).

Whether a function traces under ``jit``, what its jaxpr looks like, how often a jitted
function compiled, whether it used a PRNG key twice: only running the code tells. The
sandbox runs it and hands back plain data (lines of jaxpr text, counts, a sentence); the
trusted grader compares that with what it expects (see ``RemoteFunction.observe`` and the
``check_*`` functions, which call it when they are given a function of the sandbox).

These answers come from the student's process, so a student who rewrites edujax inside
their own sandbox could misreport them; docs/teaching.md says so. Values (the results of
calls) are compared by the grader against expected values the sandbox never sees.
"""
from __future__ import annotations

from typing import Any, Callable


def observe(what: str, f: Callable, args: list, options: dict) -> Any:
    if what == "jaxpr_lines":
        from edujax import api
        from edujax.grading.jaxprs import jaxpr_lines

        binders, eqns, outs = jaxpr_lines(api.make_jaxpr(f)(*args).jaxpr)
        return [binders, list(eqns), outs]
    if what == "uses":
        from edujax.grading.jaxprs import check_uses
        return list(check_uses(f, str(options["primitive"]), *args,
                               advice=str(options.get("advice", ""))))
    if what == "jittable":
        from edujax.grading.jittable import check_jittable
        return list(check_jittable(f, *args))
    if what == "cache_misses":
        from edujax.grading.cache import check_cache_misses
        return list(check_cache_misses(f, at_most=int(options.get("at_most", 1)),
                                       name=options.get("name")))
    if what == "key_reuse":
        from edujax.grading.keys import check_no_key_reuse
        return list(check_no_key_reuse(f, *args))
    raise ValueError(f"unknown observation {what!r}")
