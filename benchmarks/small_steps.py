"""The tutorials' small programs: training steps, a loss, and call overheads, side by side.

    python benchmarks/small_steps.py [--jax-python /tmp/jaxenv/bin/python]

Each case is timed for edujax (Numba backend, kernels compiled before timing), for the
same step written by hand in NumPy, and for real JAX (in its own interpreter), in rounds
where the three libraries take turns; per case and library the best round counts
(``EDUJAX_BENCH_ROUNDS``, default 3). Targets (issue 30), ratios edujax/JAX: the MLP
step at most 1.0x (aim 0.8x), every other step at most 1.0x, an eager scalar add and a
jit cache-hit call at most 0.5x, selu on 1e6 float32 at most 0.7x JAX and at most 1.5x
a copy of the same array (the last line).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Find _timing.py at the *end* of the path: benchmarks/random.py must not hide the
# standard library's random module.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE] + [HERE]
from _timing import best_time, parse_args, print_table  # noqa: E402

CASES = ["MLP step 64-128-10, b128", "linreg step, 128x16",
         "3-layer tanh MLP step, b128", "softmax-xent 128x10 (loss)",
         "eager scalar add", "jit hit: scalar", "jit hit: pytree of 6",
         "selu 1e6 f32", "negate 1e6 f32 (a copy)"]
LR = 0.01


# ---------------------------------------------------------------- the programs (any numpy)
def data(np_module):
    """Parameters and batches for every step, as ``np_module`` arrays (same values for all)."""
    import numpy as np
    rng = np.random.default_rng(0)

    def a(*shape, scale=1.0):
        return np_module.asarray((rng.standard_normal(shape) * scale).astype(np.float32))
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]
    return {
        "mlp": [(a(64, 128, scale=0.1), a(128, scale=0.1)), (a(128, 10, scale=0.1), a(10))],
        "tanh": [(a(64, 128, scale=0.1), a(128)), (a(128, 128, scale=0.1), a(128)),
                 (a(128, 10, scale=0.1), a(10))],
        "x": a(128, 64), "y": np_module.asarray(labels),
        "linreg": (a(16), a(1)), "lx": a(128, 16), "ly": a(128),
        "logits": a(128, 10),
        "big": a(10**6),
    }


def log_softmax_xent(jnp, logits, y):
    shifted = logits - jnp.max(logits, axis=1, keepdims=True)
    log_probs = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))
    return -jnp.mean(jnp.sum(log_probs * y, axis=1))


def mlp_loss(jnp, params, x, y):
    (w1, b1), (w2, b2) = params
    h = jnp.maximum(x @ w1 + b1, 0.0)
    return log_softmax_xent(jnp, h @ w2 + b2, y)


def tanh_loss(jnp, params, x, y):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return log_softmax_xent(jnp, x @ w + b, y)


def linreg_loss(jnp, params, x, y):
    w, b = params
    return jnp.mean((x @ w + b - y) ** 2)


def selu(jnp, x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


# ---------------------------------------------------------------- the same, by hand in NumPy
def np_softmax_grad(logits, y):
    """d(mean softmax cross-entropy)/d(logits)."""
    import numpy as np
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True) - y) / logits.shape[0]


def np_mlp_step(params, x, y):
    import numpy as np
    (w1, b1), (w2, b2) = params
    a = x @ w1 + b1
    h = np.maximum(a, 0.0)
    d_logits = np_softmax_grad(h @ w2 + b2, y)
    d_a = (d_logits @ w2.T) * (a > 0)
    return [(w1 - LR * (x.T @ d_a), b1 - LR * d_a.sum(0)),
            (w2 - LR * (h.T @ d_logits), b2 - LR * d_logits.sum(0))]


def np_tanh_step(params, x, y):
    import numpy as np
    hs = [x]
    for w, b in params[:-1]:
        hs.append(np.tanh(hs[-1] @ w + b))
    w, b = params[-1]
    d = np_softmax_grad(hs[-1] @ w + b, y)
    new = [None] * len(params)
    for i in range(len(params) - 1, -1, -1):
        w, b = params[i]
        new[i] = (w - LR * (hs[i].T @ d), b - LR * d.sum(0))
        if i:
            d = (d @ w.T) * (1.0 - hs[i] * hs[i])
    return new


def np_linreg_step(params, x, y):
    w, b = params
    d = (x @ w + b - y) * (2.0 / y.shape[0])
    return (w - LR * (x.T @ d), b - LR * d.sum(keepdims=True))


def np_xent(logits, y):
    import numpy as np
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -(log_probs * y).sum(axis=1).mean()


# ---------------------------------------------------------------- timing one library
def block(out):
    """Wait for every leaf (JAX dispatches asynchronously; edujax and NumPy are done)."""
    if isinstance(out, (list, tuple)):
        for leaf in out:
            block(leaf)
    elif hasattr(out, "block_until_ready"):
        out.block_until_ready()
    return out


def sgd_step(jax, loss):
    grad = jax.grad(loss)
    return jax.jit(lambda p, x, y: jax.tree_util.tree_map(
        lambda w, d: w - LR * d, p, grad(p, x, y)))


def run_library(jax, jnp) -> dict:
    """Best-of times of every case under ``jax`` (edujax or real JAX)."""
    d = data(jnp)
    mlp = sgd_step(jax, lambda p, x, y: mlp_loss(jnp, p, x, y))
    tanh = sgd_step(jax, lambda p, x, y: tanh_loss(jnp, p, x, y))
    linreg = sgd_step(jax, lambda p, x, y: linreg_loss(jnp, p, x, y))
    xent = jax.jit(lambda lg, y: log_softmax_xent(jnp, lg, y))
    s, t = jnp.asarray(1.5), jnp.asarray(2.5)
    add_one = jax.jit(lambda v: v + 1.0)
    six = [jnp.ones(3) for _ in range(6)]
    tree = {"a": six[:2], "b": (six[2], six[3]), "c": {"d": six[4], "e": six[5]}}
    tree_sum = jax.jit(lambda t: t["a"][0] + t["a"][1] + t["b"][0] + t["b"][1]
                       + t["c"]["d"] + t["c"]["e"])
    selu_jit = jax.jit(lambda v: selu(jnp, v))
    copy_jit = jax.jit(lambda v: -v)  # a copy's memory traffic: read once, write once
    return dict(zip(CASES, [
        best_time(lambda: block(mlp(d["mlp"], d["x"], d["y"]))),
        best_time(lambda: block(linreg(d["linreg"], d["lx"], d["ly"]))),
        best_time(lambda: block(tanh(d["tanh"], d["x"], d["y"]))),
        best_time(lambda: block(xent(d["logits"], d["y"]))),
        best_time(lambda: block(s + t)),
        best_time(lambda: block(add_one(s))),
        best_time(lambda: block(tree_sum(tree))),
        best_time(lambda: block(selu_jit(d["big"]))),
        best_time(lambda: block(copy_jit(d["big"]))),
    ]))


def run_numpy() -> dict:
    """The hand-written NumPy version of every case (a jit hit is a plain function call)."""
    import numpy as np
    d = data(np)
    s, t = np.asarray(1.5, np.float32), np.asarray(2.5, np.float32)
    six = [np.ones(3, np.float32) for _ in range(6)]
    tree = {"a": six[:2], "b": (six[2], six[3]), "c": {"d": six[4], "e": six[5]}}

    def tree_sum(t):
        return t["a"][0] + t["a"][1] + t["b"][0] + t["b"][1] + t["c"]["d"] + t["c"]["e"]

    def add_one(v):
        return v + np.float32(1.0)
    with np.errstate(over="ignore"):
        return dict(zip(CASES, [
            best_time(lambda: np_mlp_step(d["mlp"], d["x"], d["y"])),
            best_time(lambda: np_linreg_step(d["linreg"], d["lx"], d["ly"])),
            best_time(lambda: np_tanh_step(d["tanh"], d["x"], d["y"])),
            best_time(lambda: np_xent(d["logits"], d["y"])),
            best_time(lambda: s + t),
            best_time(lambda: add_one(s)),
            best_time(lambda: tree_sum(tree)),
            best_time(lambda: selu(np, d["big"])),
            best_time(lambda: np.negative(d["big"])),
        ]))


def run_edujax() -> dict:
    import edujax
    import edujax.numpy as ejnp
    edujax.config.update("edujax_backend", "numba")
    os.environ["EDUJAX_TIERED"] = "0"  # steady state: kernels compiled before timing
    return run_library(edujax, ejnp)


def run_jax() -> dict:
    import jax
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    return run_library(jax, jnp)


def check_same_results() -> None:
    """Guard against timing a wrong program: edujax's MLP step must match NumPy's."""
    import numpy as np
    import edujax
    import edujax.numpy as ejnp
    d, nd = data(ejnp), data(np)
    ours = sgd_step(edujax, lambda p, x, y: mlp_loss(ejnp, p, x, y))(d["mlp"], d["x"], d["y"])
    for (w, b), (nw, nb) in zip(ours, np_mlp_step(nd["mlp"], nd["x"], nd["y"])):
        np.testing.assert_allclose(np.asarray(w), nw, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(np.asarray(b), nb, rtol=1e-4, atol=1e-6)


def best_of(runs: list) -> dict | None:
    if runs[0] is None:
        return None
    return {case: min(run[case] for run in runs) for case in runs[0]}


def main() -> None:
    args = parse_args(__doc__)
    if args.only == "jax":
        print(json.dumps(run_jax()))
        return
    check_same_results()
    rounds = int(os.environ.get("EDUJAX_BENCH_ROUNDS", "3"))

    def jax_times():
        if not args.jax_python:
            return None
        out = subprocess.run([args.jax_python, __file__, "--only", "jax"], check=True,
                             capture_output=True, text=True)
        return json.loads(out.stdout)
    columns: dict = {"edujax": [], "numpy": [], "jax": []}
    for _ in range(rounds):  # the libraries take turns, round after round
        columns["edujax"].append(run_edujax())
        columns["numpy"].append(run_numpy())
        columns["jax"].append(jax_times())
    best = {name: best_of(runs) for name, runs in columns.items()}
    print_table(f"Small programs, best of {rounds} rounds (lower is better)", CASES, best)
    ours, theirs = best["edujax"], best["jax"]
    selu, copy = "selu 1e6 f32", "negate 1e6 f32 (a copy)"
    line = f"selu / a copy of the same array (-x, jitted): edujax {ours[selu] / ours[copy]:.2f}x"
    if theirs:
        line += f", JAX {theirs[selu] / theirs[copy]:.2f}x"
    print(line)

if __name__ == "__main__":
    main()
