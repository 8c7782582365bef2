"""Where the microseconds of one small call go: an eager scalar add and two jit cache hits.

    python benchmarks/call_overhead.py

Times each call whole, then the pieces it is made of, each alone (best of
``EDUJAX_BENCH_ROUNDS`` rounds, default 7, of a loop of about 0.2 s), in one process on the
numba backend with kernels compiled before timing. The clock is this thread's CPU time
(``time.thread_time``), not the wall clock: on a shared machine the time another job holds
the core is then not counted, which makes pieces of a microsecond comparable at all. A
piece's time includes the Python call that starts it, so the pieces add up to a little
more than the whole. docs/performance.md
("Per-call overhead") gives the numbers and what each piece is.
"""
from __future__ import annotations

import os
import time
import timeit


def cpu_time_per_call(fn, rounds: int) -> float:
    """Microseconds of this thread's CPU time per call of ``fn``: the best of ``rounds``."""
    timer = timeit.Timer(fn, timer=time.thread_time)
    number = max(1, int(0.2 / max(timer.timeit(1000) / 1000, 1e-9)))
    return min(timer.repeat(repeat=rounds, number=number)) / number * 1e6


def pieces() -> list[tuple[str, float]]:
    import numpy as np

    import edujax as jax
    import edujax.numpy as jnp
    from edujax import core
    from edujax.lax.elementwise import add_p
    jax.config.update("edujax_backend", "numba")
    os.environ["EDUJAX_TIERED"] = "0"
    rounds = int(os.environ.get("EDUJAX_BENCH_ROUNDS", "7"))

    def t(fn):
        return cpu_time_per_call(fn, rounds)

    s, u = jnp.asarray(1.5), jnp.asarray(2.5)
    sv, uv = s._value, u._value
    avals = [s.aval, u.aval]
    out = np.add(sv, uv)
    add_one = jax.jit(lambda v: v + 1.0)
    six = [jnp.ones(3) for _ in range(6)]
    tree = {"a": six[:2], "b": (six[2], six[3]), "c": {"d": six[4], "e": six[5]}}
    tree_sum = jax.jit(lambda t: t["a"][0] + t["a"][1] + t["b"][0] + t["b"][1]
                       + t["c"]["d"] + t["c"]["e"])
    for _ in range(2):
        add_one(s), tree_sum(tree)
    scalar_plan, tree_plan = add_one._cache.plan, tree_sum._cache.plan
    scalar_run = scalar_plan.hit.__globals__["call"]
    tree_run = tree_plan.hit.__globals__["call"]
    tree_values = [a._value for a in jax.tree_util.tree_leaves(tree)]
    return [
        ("eager s + t (whole)", t(lambda: s + u)),
        ("  add_p.bind(s, t): from the primitive down", t(lambda: add_p.bind(s, u))),
        ("  EvalTrace.process_primitive", t(lambda: core.eval_trace.process_primitive(
            add_p, (s, u), {}))),
        ("  abstract_eval (type rule: shape, dtype, weak type)",
         t(lambda: core.abstract_eval(add_p, avals, {}))),
        ("  np.add on the two 0-d values", t(lambda: np.add(sv, uv))),
        ("  _wrap: the NumPy result as an Array", t(lambda: core._wrap(out, avals[0]))),
        ("jit hit, scalar (whole)", t(lambda: add_one(s))),
        ("  the plan: check the argument, count the hit, call, wrap",
         t(lambda: scalar_plan.hit((s,)))),
        ("  the compiled driver alone (kernel, output buffer)", t(lambda: scalar_run(sv))),
        ("jit hit, pytree of 6 (whole)", t(lambda: tree_sum(tree))),
        ("  the plan: structure, 6 leaves, count, call, wrap",
         t(lambda: tree_plan.hit((tree,)))),
        ("  the compiled driver alone", t(lambda: tree_run(*tree_values))),
        ("for scale: an empty Python call f()", t(lambda: None)),
    ]


def main() -> None:
    rows = pieces()
    width = max(len(name) for name, _ in rows)
    print(f"{'piece':<{width}}  µs per call")
    for name, us in rows:
        print(f"{name:<{width}}  {us:8.3f}")


if __name__ == "__main__":
    main()
