"""What recording provenance costs: ``make_jaxpr`` of the tutorials' ``selu`` with every
equation's source line captured (edujax as it is) and with capturing switched off (every
equation gets an empty place), side by side in one process.

    .venv/bin/python benchmarks/source_info.py
    .venv/bin/python benchmarks/source_info.py --before /tmp/edujax-before

Prints the time per trace of each and their ratio (issue 29 asks for at most 1.1x). A fresh
function is traced each time, so the trace cache does not hide the tracing. ``--before`` also
times the same trace with another source tree of edujax (``git archive REV | tar -x -C
DIR``), in fresh processes taking turns with this one's, and prints that ratio too.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import edujax as jax
import edujax.numpy as jnp
from edujax import source_info
from edujax.interpreters import partial_eval

from _timing import best_time


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def trace_once() -> None:
    jax.make_jaxpr(lambda v: selu(v))(jnp.arange(5.0))


def no_place(depth: int = 0) -> source_info.SourceInfo:
    return source_info.NO_SOURCE


def time_in_process(tree: Path) -> float:
    """The best trace time in a fresh Python whose edujax is the one in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, __file__, "--time-only"], env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare_trees(before: Path, rounds: int = 4) -> None:
    here = Path(__file__).resolve().parent.parent
    times: dict[str, list[float]] = {"before": [], "now": []}
    for _ in range(rounds):  # taking turns, so that a busy moment hits both
        times["before"].append(time_in_process(before))
        times["now"].append(time_in_process(here))
    best_before, best_now = min(times["before"]), min(times["now"])
    print(f"make_jaxpr(selu), {before}: {best_before * 1e6:8.1f} us")
    print(f"make_jaxpr(selu), this tree:  {best_now * 1e6:8.1f} us")
    print(f"ratio now / before: {best_now / best_before:.3f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another source tree of edujax to time")
    parser.add_argument("--time-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.time_only:  # (internal: one process's best time, as JSON)
        print(json.dumps(best_time(trace_once, repeat=7)))
        return
    if args.before is not None:
        compare_trees(args.before)
    with_places = best_time(trace_once, repeat=7)
    real_current = source_info.current
    partial_eval.source_info.current = no_place  # the staging trace's only call
    try:
        without = best_time(trace_once, repeat=7)
    finally:
        partial_eval.source_info.current = real_current
    with_places_again = best_time(trace_once, repeat=7)
    best = min(with_places, with_places_again)
    print(f"make_jaxpr(selu), places captured: {best * 1e6:8.1f} us")
    print(f"make_jaxpr(selu), places off:      {without * 1e6:8.1f} us")
    print(f"ratio: {best / without:.3f}x")


if __name__ == "__main__":
    main()
