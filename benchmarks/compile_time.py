"""How long the first call of a jitted function waits for its compile (issue 19).

    python benchmarks/compile_time.py [--jax-python /tmp/jaxenv/bin/python] [--max-eqns 300]
                                      [--timeout 600]

Each row is one program, timed three ways, each in a *new process* so that nothing
compiled earlier helps (the time printed is the first call, from the moment the jitted
function is called until its result is ready; importing the library is not counted):

* edujax cold: an empty ``EDUJAX_CACHE_DIR``, ``EDUJAX_TIERED=0`` (so the first call
  really waits for Numba instead of running the reference interpreter meanwhile);
* edujax warm: the same cache folder, in another new process: Numba loads machine code;
* JAX: real JAX's first call (XLA compiles), when ``--jax-python`` names its interpreter.

The programs: a chain ``x = sin(x) * 1.01 + 0.5`` on f32[8] repeated until it has about
10, 30, 100, 300 equations, forward and under ``grad`` (of its sum), and a 3-layer MLP
training step. The last columns divide: edujax cold / JAX, edujax warm / JAX, and the cold
time per equation (ms), which should stay flat as programs grow.
"""
from __future__ import annotations

import sys

# Run as a script, this folder comes first on sys.path, where benchmarks/random.py would
# shadow the standard library's random (which tempfile imports): drop it.
sys.path[:] = [p for p in sys.path if p not in ("", __import__("os").path.dirname(__file__))]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

HERE = os.path.abspath(__file__)
REPO = os.path.dirname(os.path.dirname(HERE))


# ---------------------------------------------------------------- the programs
def chain_program(jnp, steps: int):
    def f(x):
        for _ in range(steps):
            x = jnp.sin(x) * 1.01 + 0.5
        return x
    return f


def mlp_program(jax, jnp):
    def act(z):
        return jnp.tanh(z) * 0.5 + jnp.exp(-z * z)

    def loss(params, x, y):
        for w, b in params[:-1]:
            x = act(x @ w + b)
        w, b = params[-1]
        return jnp.mean((x @ w + b - y) ** 2)
    return jax.grad(loss)


def mlp_args(jnp):
    import numpy as np
    rng = np.random.default_rng(0)
    sizes = (64, 128, 128, 10)
    params = [(jnp.asarray(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m)),
               jnp.asarray(np.zeros(n, np.float32))) for m, n in zip(sizes[:-1], sizes[1:])]
    x = jnp.asarray(rng.normal(size=(32, 64)).astype(np.float32))
    y = jnp.asarray(rng.normal(size=(32, 10)).astype(np.float32))
    return params, x, y


# name -> (forward chain steps or None for the MLP, grad?)
def cases(max_eqns: int) -> list[tuple[str, int | None, bool]]:
    rows = []
    for grad in (False, True):
        for eqns in (10, 30, 100, 300):
            if eqns <= max_eqns:
                name = f"chain {eqns} eqns{' grad' if grad else ''}"
                rows.append((name, max(1, eqns // 3), grad))
    rows.append(("MLP step 64-128-128-10 (grad)", None, True))
    return rows


def first_call(lib: str, steps: int | None, grad: bool) -> dict:
    """In this process: build the program, time its first call; also count its equations."""
    if lib == "jax":
        import jax
        jax.config.update("jax_platforms", "cpu")
        import jax.numpy as jnp
    else:
        import edujax as jax
        import edujax.numpy as jnp
    import numpy as np
    if steps is None:
        fn, args = mlp_program(jax, jnp), mlp_args(jnp)
    else:
        f = chain_program(jnp, steps)
        fn = jax.grad(lambda x: jnp.sum(f(x))) if grad else f
        args = (jnp.asarray(np.linspace(-1, 1, 8, dtype=np.float32)),)
    eqns = len(jax.make_jaxpr(fn)(*args).jaxpr.eqns)
    jitted = jax.jit(fn)
    start = time.perf_counter()
    jax.block_until_ready(jitted(*args))
    return {"seconds": time.perf_counter() - start, "eqns": eqns}


def in_new_process(python: str, lib: str, steps, grad, env: dict, timeout: float) -> dict | None:
    cmd = [python, HERE, "--child", json.dumps([lib, steps, grad])]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                             check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jax-python", help="a Python interpreter that can import jax")
    parser.add_argument("--max-eqns", type=int, default=300, help="skip longer chains")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per process")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(first_call(*json.loads(args.child))))
        return

    env = dict(os.environ, EDUJAX_TIERED="0", PYTHONPATH=REPO)
    print(f"{'program':32s}{'eqns':>6s}{'cold (s)':>10s}{'warm (s)':>10s}{'JAX (s)':>9s}"
          f"{'cold/JAX':>10s}{'warm/JAX':>10s}{'cold ms/eqn':>13s}")
    for name, steps, grad in cases(args.max_eqns):
        with tempfile.TemporaryDirectory() as cache:
            env["EDUJAX_CACHE_DIR"] = cache
            cold = in_new_process(sys.executable, "edujax", steps, grad, env, args.timeout)
            warm = in_new_process(sys.executable, "edujax", steps, grad, env, args.timeout) \
                if cold else None
        jax = in_new_process(args.jax_python, "jax", steps, grad, dict(os.environ),
                             args.timeout) if args.jax_python else None

        def secs(r):
            return f"{r['seconds']:10.3f}" if r else f"{'>' + str(int(args.timeout)):>10s}"

        def ratio(r, jax=jax):
            return f"{r['seconds'] / jax['seconds']:10.1f}" if r and jax else f"{'-':>10s}"
        eqns = (cold or jax or {"eqns": 0})["eqns"]
        per_eqn = f"{cold['seconds'] / eqns * 1e3:13.1f}" if cold else f"{'-':>13s}"
        jax_s = f"{jax['seconds']:9.3f}" if jax else f"{'-':>9s}"
        print(f"{name:32s}{eqns:6d}{secs(cold)}{secs(warm)}{jax_s}{ratio(cold)}{ratio(warm)}"
              f"{per_eqn}", flush=True)


if __name__ == "__main__":
    main()
