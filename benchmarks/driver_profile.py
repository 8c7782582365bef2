"""Where a small step's time goes: the generated driver, statement by statement.

    python benchmarks/driver_profile.py [mlp|linreg|tanh]

Compiles one training step of ``small_steps.py`` on the Numba backend, then prints the
jitted call, the driver alone and the hand-written NumPy step (best of 7 loops), and the
driver again with a timer around each of its statements (``program.module.driver``, run
in the driver's own namespace): matrix products, kernel calls, allocations and views, in
order. The timers add about 0.1 µs per statement, so the sum is larger than the driver.
"""
from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# Find small_steps.py and _timing.py at the *end* of the path (benchmarks/random.py must not
# hide the standard library's random module).
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE] + [HERE]
os.environ.setdefault("EDUJAX_TIERED", "0")  # steady state: the kernels, from the first call

import numpy as np  # noqa: E402

import edujax  # noqa: E402
import edujax.numpy as jnp  # noqa: E402
import small_steps as steps  # noqa: E402
from edujax.backends.fast_start.interrupts import NEVER  # noqa: E402

STEPS = {"mlp": (steps.mlp_loss, steps.np_mlp_step, ("mlp", "x", "y")),
         "linreg": (steps.linreg_loss, steps.np_linreg_step, ("linreg", "lx", "ly")),
         "tanh": (steps.tanh_loss, steps.np_tanh_step, ("tanh", "x", "y"))}


def best_us(fn, number: int = 2000, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times) * 1e6


def timed_driver(driver: str, namespace: dict) -> tuple:
    """The driver's source with a timer around each statement of its body: (run, the
    statements, their accumulated seconds)."""
    lines, statements = [], []
    for line in driver.splitlines():
        code = line.strip().split("  #")[0]
        top_level = line.startswith("    ") and not line.startswith("     ")  # (of a function)
        if top_level and code and not code.startswith(('"""', "return", "#")) \
                and not code.endswith(":"):
            k = len(statements)
            statements.append(code)
            lines.append(f"    _t0 = _clock(); {code}; _spent[{k}] += _clock() - _t0")
        else:
            lines.append(line)
    spent = [0.0] * len(statements)
    namespace = {**namespace, "_spent": spent, "_clock": time.perf_counter}
    exec(compile("\n".join(lines), "<timed driver>", "exec"), namespace)
    return namespace["run"], statements, spent


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "mlp"
    loss, by_hand, keys = STEPS[name]
    edujax.config.update("edujax_backend", "numba")
    data, np_data = steps.data(jnp), steps.data(np)
    step = steps.sgd_step(edujax, lambda p, x, y: loss(jnp, p, x, y))
    args = tuple(data[k] for k in keys)
    step(*args)
    program = step.lower(*args).compile()._entry.executable
    leaves = [np.asarray(a) for a in edujax.tree_util.tree_leaves(args)]
    np_args = tuple(np_data[k] for k in keys)
    print(f"{name} step (kernels from: {program.kernels_from})")
    print(f"  jitted call        {best_us(lambda: step(*args)):8.1f} us")
    print(f"  the driver alone   {best_us(lambda: program.call(*leaves)):8.1f} us")
    with np.errstate(over="ignore"):
        print(f"  NumPy by hand      {best_us(lambda: by_hand(*np_args)):8.1f} us")
    run, statements, spent = timed_driver(program.module.driver, program._run.__globals__)
    calls = 3000
    for _ in range(2):  # warm up, then measure
        spent[:] = [0.0] * len(spent)
        for _ in range(calls):
            run(program.consts, program.calls, NEVER, *leaves)
    print(f"  statement by statement: {sum(spent) / calls * 1e6:.1f} us in all")
    for code, seconds in zip(statements, spent):
        print(f"  {seconds / calls * 1e6:8.2f} us  {code[:100]}")


if __name__ == "__main__":
    main()
