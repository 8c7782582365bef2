"""The Numba CPU backend against NumPy and real JAX, side by side in one run.

    python benchmarks/numba_cpu.py [--jax-python /tmp/jaxenv/bin/python]

Targets (issue 7), as ratios edujax/other:

* selu on 1e6 float32, jit: at most 1.0x JAX's jit (aim for 0.8x);
* a 2-layer MLP training step (jit of grad, 784-512-10, batch 128): at most 1.5x JAX;
* a 1500x1500 float32 matmul: at most 1.1x NumPy;
* the first call of a new jitted function (tiered): at most 1.0x JAX's first call;
* in a new process with a warm disk cache, a cached function's first call within 100 ms
  after import;
* peak memory of a 10-op elementwise chain on 1e7 floats: at most 1.2x inputs + outputs.

The "reference" column is edujax's NumPy interpreter (``edujax_backend="reference"``).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# Find _timing.py at the *end* of the path: a benchmark named like a standard module
# (benchmarks/random.py) must not shadow the standard library.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE] + [HERE]
from _timing import best_time, parse_args, print_table, time_jax  # noqa: E402

REPO = os.path.dirname(HERE)
TIME_CASES = ["selu 1e6 f32 (jit)", "MLP train step (jit of grad)", "matmul 1500x1500 f32"]
FIRST_CALL = "first call of a new function"
NEW_PROCESS = "new process: import, then first call"
MEMORY = "peak memory / (inputs + outputs)"


# ---------------------------------------------------------------- the programs
def selu(np_module, x, alpha=1.67, lmbda=1.05):
    return lmbda * np_module.where(x > 0, x, alpha * np_module.exp(x) - alpha)


def mlp_loss(jnp, params, x, y):
    (w1, b1), (w2, b2) = params
    h = jnp.maximum(x @ w1 + b1, 0.0)
    logits = h @ w2 + b2
    shifted = logits - jnp.max(logits, axis=1, keepdims=True)
    log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
    return -jnp.mean(jnp.sum(log_probs * y, axis=1))


def mlp_data(np_module, batch=128, sizes=(784, 512, 10)):
    import numpy as np
    rng = np.random.default_rng(0)
    params = [(np_module.asarray(rng.standard_normal((m, n)).astype(np.float32) * 0.05),
               np_module.asarray(np.zeros(n, np.float32))) for m, n in zip(sizes, sizes[1:])]
    x = np_module.asarray(rng.standard_normal((batch, sizes[0])).astype(np.float32))
    y = np_module.asarray(np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, 10, batch)])
    return params, x, y


def numpy_mlp_step(params, x, y, lr=0.01):
    """The same training step written by hand in NumPy (forward, backward, update)."""
    import numpy as np
    (w1, b1), (w2, b2) = params
    a = x @ w1 + b1
    h = np.maximum(a, 0.0)
    logits = h @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    probs = e / e.sum(axis=1, keepdims=True)
    d_logits = (probs - y) / x.shape[0]
    d_h = (d_logits @ w2.T) * (a > 0)
    return [(w1 - lr * (x.T @ d_h), b1 - lr * d_h.sum(0)),
            (w2 - lr * (h.T @ d_logits), b2 - lr * d_logits.sum(0))]


def chain(x):
    """Ten elementwise operations: fused, it reads x once and writes the result once."""
    y = x * 2.0 + 1.0
    y = y * x - 3.0
    y = y / 4.0 + x
    y = y * 0.5 - x
    return y * 1.5 + 2.0


def make_step(jax, jnp):
    grad = jax.grad(lambda p, x, y: mlp_loss(jnp, p, x, y))

    def step(params, x, y):
        g = grad(params, x, y)
        return jax.tree_util.tree_map(lambda w, d: w - 0.01 * d, params, g)
    return jax.jit(step)


# ---------------------------------------------------------------- timing one library
def block(out):
    for leaf in (out if isinstance(out, (list, tuple)) else [out]):
        for item in (leaf if isinstance(leaf, (list, tuple)) else [leaf]):
            if hasattr(item, "block_until_ready"):
                item.block_until_ready()
    return out


def run_jitted(jax, jnp) -> dict:
    """Steady-state times of the three programs under ``jax.jit`` (edujax or JAX)."""
    import numpy as np
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal(10**6).astype(np.float32))
    f = jax.jit(lambda v: selu(jnp, v))
    params, xb, yb = mlp_data(jnp)
    step = make_step(jax, jnp)
    a = jnp.asarray(rng.standard_normal((1500, 1500)).astype(np.float32))
    b = jnp.asarray(rng.standard_normal((1500, 1500)).astype(np.float32))
    matmul = jax.jit(lambda u, v: u @ v)
    return dict(zip(TIME_CASES, [
        best_time(lambda: block(f(x))),
        best_time(lambda: block(step(params, xb, yb))),
        best_time(lambda: block(matmul(a, b))),
    ]))


def run_numpy() -> dict:
    import numpy as np
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10**6).astype(np.float32)
    params, xb, yb = mlp_data(np)
    a = rng.standard_normal((1500, 1500)).astype(np.float32)
    b = rng.standard_normal((1500, 1500)).astype(np.float32)
    with np.errstate(over="ignore"):
        return dict(zip(TIME_CASES, [
            best_time(lambda: selu(np, x)),
            best_time(lambda: numpy_mlp_step(params, xb, yb)),
            best_time(lambda: a @ b),
        ]))


def first_call(jax, jnp, trials: int = 3) -> float:
    """Seconds for the first call of a brand-new jitted function (best of ``trials``)."""
    import numpy as np
    x = jnp.asarray(np.random.default_rng(1).standard_normal(10**6).astype(np.float32))
    block(jax.jit(lambda v: v * 3.0)(x))  # the library itself is warm
    best = float("inf")
    for i in range(trials):
        alpha = 1.5 + i / 10  # a new constant: a new program, nothing cached in memory
        f = jax.jit(lambda v, a=alpha: 1.05 * jnp.where(v > 0, v, a * jnp.exp(v) - a))
        start = time.perf_counter()
        block(f(x))
        best = min(best, time.perf_counter() - start)
    return best


NEW_PROCESS_CODE = """
import time
start = time.perf_counter()
import {module} as jax
import {module}.numpy as jnp
import numpy as np
{setup}
imported = time.perf_counter()
f = jax.jit(lambda v: 1.05 * jnp.where(v > 0, v, 1.67 * jnp.exp(v) - 1.67))
x = jnp.asarray(np.linspace(-3, 3, 10**5, dtype=np.float32))
f(x).block_until_ready()
done = time.perf_counter()
print(imported - start, done - imported)
"""


def new_process(module: str, env: dict | None = None, setup: str = "") -> tuple[float, float]:
    """(import seconds, first call seconds) in a fresh interpreter.

    Bytecode caching is allowed whatever the calling environment says: an installed
    package has its .pyc files."""
    code = NEW_PROCESS_CODE.format(module=module, setup=setup)
    environment = dict(os.environ, **(env or {}))
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO, env=environment)
    imported, call = map(float, out.stdout.split())
    return imported, call


MEMORY_CODE = """
import numpy as np
{setup}
def status(field):  # kB, from Linux's /proc/self/status
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
x = {asarray}(np.random.default_rng(0).standard_normal(10**7).astype(np.float32))
{prepare}
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # reset the peak (VmHWM) to the current size
y = {call}
peak = status("VmHWM")
nbytes = 4 * 10**7
print((nbytes + peak - before) / (2 * nbytes))
"""


def peak_memory(setup: str, asarray: str, prepare: str, call: str, env=None) -> float:
    """Peak memory of ``chain`` on 1e7 float32 over the bytes of its input and output:
    (input + the growth of the resident set during the call) / (input + output). Linux only."""
    code = MEMORY_CODE.format(setup=setup, asarray=asarray, prepare=prepare, call=call)
    code = "from benchmarks.numba_cpu import chain\n" + code
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO, env=dict(os.environ, **(env or {})))
    return float(out.stdout)


def import_jax():
    import jax
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    return jax, jnp


def run_jax_times() -> dict:
    return run_jitted(*import_jax())


def run_jax() -> dict:
    jax, jnp = import_jax()
    results = run_jitted(jax, jnp)
    results[FIRST_CALL] = first_call(jax, jnp)
    new_process("jax")  # writes the .pyc files
    results[NEW_PROCESS] = new_process("jax")
    results[MEMORY] = peak_memory(
        "import jax", "jax.numpy.asarray", "f = jax.jit(chain); f.lower(x).compile()",
        "f(x).block_until_ready()")
    return results


def run_edujax_times(backend: str) -> dict:
    import edujax
    import edujax.numpy as ejnp
    edujax.config.update("edujax_backend", backend)
    os.environ["EDUJAX_TIERED"] = "0"  # steady state: compile before timing
    return run_jitted(edujax, ejnp)


def run_edujax() -> dict:
    """The measurements made once: first calls, new processes, memory."""
    import edujax
    import edujax.numpy as ejnp
    edujax.config.update("edujax_backend", "numba")
    os.environ["EDUJAX_TIERED"] = "1"
    results = {FIRST_CALL: first_call(edujax, ejnp)}
    sync = {"EDUJAX_TIERED": "0"}
    setup = "jax.config.update('edujax_backend', 'numba')"
    new_process("edujax", sync, setup)  # fills the disk cache
    results[NEW_PROCESS] = new_process("edujax", None, setup)
    results[NEW_PROCESS + " (sync)"] = new_process("edujax", sync, setup)
    results[MEMORY] = peak_memory(
        "import edujax as jax; jax.config.update('edujax_backend', 'numba')",
        "jax.numpy.asarray", "f = jax.jit(chain); f.lower(x).compile()", "f(x)", sync)
    results["numpy " + MEMORY] = peak_memory("", "np.asarray", "", "chain(x)")
    return results


def best_of(runs: list) -> dict | None:
    """Per case, the best of several runs spaced out in time: on a shared machine a burst
    of load from elsewhere spoils one round, rarely all of them."""
    if runs[0] is None:
        return None
    return {case: min(run[case] for run in runs) for case in runs[0]}


def main() -> None:
    args = parse_args(__doc__)
    if args.only in ("jax", "jax-times"):
        print(json.dumps(run_jax() if args.only == "jax" else run_jax_times()))
        return
    rounds = int(os.environ.get("EDUJAX_BENCH_ROUNDS", "3"))
    jax_times = (lambda: json.loads(subprocess.run(
        [args.jax_python, __file__, "--only", "jax-times"], check=True, capture_output=True,
        text=True).stdout)) if args.jax_python else (lambda: None)
    columns: dict = {"edujax": [], "numpy": [], "jax": [], "reference": []}
    for _ in range(rounds):  # the libraries take turns, round after round
        columns["edujax"].append(run_edujax_times("numba"))
        columns["numpy"].append(run_numpy())
        columns["jax"].append(jax_times())
        columns["reference"].append(run_edujax_times("reference"))
    best = {name: best_of(runs) for name, runs in columns.items()}
    print_table(f"Numba backend, steady state, best of {rounds} rounds (lower is better)",
                TIME_CASES, best)
    print_extra(run_edujax(), time_jax(__file__, args.jax_python, run_jax))


def print_extra(ours: dict, jax: dict | None) -> None:
    jax = jax or {}
    print()
    print(f"{'case':44s}{'edujax':>14s}{'jax':>14s}{'edujax/jax':>14s}")

    def row(name: str, mine: float, theirs: float | None, unit: str = "ms") -> None:
        scale = 1e3 if unit == "ms" else 1.0
        other = f"{theirs * scale:12.1f}{unit:2s}" if theirs is not None else f"{'-':>14s}"
        ratio = f"{mine / theirs:14.2f}" if theirs else f"{'-':>14s}"
        print(f"{name:44s}{mine * scale:12.1f}{unit:2s}{other}{ratio}")

    row(FIRST_CALL + " (tiered)", ours[FIRST_CALL], jax.get(FIRST_CALL))
    imp, call = ours[NEW_PROCESS]
    jimp, jcall = jax.get(NEW_PROCESS, (None, None))
    row("new process: import", imp, jimp)
    row("new process: first call (tiered)", call, jcall)
    row("new process: first call (EDUJAX_TIERED=0)", ours[NEW_PROCESS + " (sync)"][1], jcall)
    print(f"{MEMORY:44s}{ours[MEMORY]:13.2f}x"
          + (f"{jax[MEMORY]:13.2f}x" if MEMORY in jax else f"{'-':>14s}")
          + f"   (numpy eager: {ours['numpy ' + MEMORY]:.2f}x)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
