"""HIPS/autograd's own gradient tests, run through one adapter against edujax and real JAX.

A measurement, not part of edujax's test suite. It needs a copy of autograd's ``tests``
folder (never put into this repository), e.g. from a clone of github.com/HIPS/autograd::

    git clone --depth 1 https://github.com/HIPS/autograd /tmp/autograd
    PYTHONPATH=$PWD python benchmarks/autograd_suite.py /tmp/autograd/tests \\
        --jax-python /path/to/venv-with-jax/bin/python

The parent process runs each library in a child process (edujax with this interpreter and
the repository on PYTHONPATH; JAX with ``--jax-python``, whose environment needs jax and
pytest) and prints both pass counts side by side, then every test JAX passes and edujax
fails, with the first line of its error. ``--lib edujax|jax`` runs one library only.

The adapter is a package ``autograd`` made here and put in ``sys.modules``, the same for
both libraries:

* ``autograd.numpy`` is the library's ``numpy`` (``autograd.numpy.random`` is NumPy's
  random, as the tests draw their data with it; ``linalg``/``fft`` are the library's);
* ``grad``, ``jacobian``, ``hessian``, ``value_and_grad``, ``holomorphic_grad``,
  ``elementwise_grad``/``deriv`` (a VJP/JVP with ones), ``make_vjp``/``make_jvp`` and
  ``autograd.tuple`` (the builtin) map to the library's transformations;
* ``autograd.test_util.check_grads`` is autograd's own check (a VJP and a JVP against
  central finite differences with eps 1e-6, to second order, tolerance 1e-6) built on the
  library's ``jvp``/``vjp`` in float64. Complex cotangents use JAX's convention (the VJP is
  the transpose of the JVP under the pairing Re(sum(a*b))), not autograd's conjugated one.

Files that need autograd internals (``autograd.tracer``, ``autograd.extend``,
``autograd.core``, its container types) do not import and count as not applicable for
both. ``test_scipy`` needs SciPy for its reference values (not in edujax's environment)
and is left out by default. A test counts once however many ``pytest.mark.parametrize``
cases it has (it passes when all pass); a test that runs past ``--timeout`` seconds fails.
"""

from __future__ import annotations

import os
import sys

# this folder has a random.py: keep it off the path before the standard library's imports
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse  # noqa: E402
import importlib  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as onp  # noqa: E402

DEFAULT_FILES = (
    "test_numpy",
    "test_systematic",
    "test_linalg",
    "test_binary_ops",
    "test_scalar_ops",
    "test_complex",
    "test_direct",
    "test_fft",
    "test_graphs",
    "test_jacobian",
    "test_truediv",
)
# issue 17's 304 tests: 108 + 141 + 55 `def test_...` lines; test_systematic defines
# test_max and test_sin twice, so Python (and pytest) see 302 tests
ISSUE_17_FILES = ("test_numpy", "test_systematic", "test_linalg")


# ----------------------------------------------------------------------------- adapter


class _Proxy(types.ModuleType):
    """A module whose missing attributes are looked up on ``target()`` when used."""

    def __init__(self, name, target, **extra):
        super().__init__(name)
        self._target = target
        self.__dict__.update(extra)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self._target(), attr)


def _sub(mod, dotted):
    def get():
        obj = mod
        for part in dotted.split("."):
            obj = getattr(obj, part)
        return obj

    return get


def install_adapter(lib):
    if lib == "jax":
        import jax as mod
    else:
        import edujax as mod
    mod.config.update("jax_enable_x64", True)
    jnp = mod.numpy

    def nary(unary_op):
        """autograd's unary_to_nary: op(fun, argnum=0, ...)(*args, **kwargs)."""

        def op(fun, argnum=0, *op_args, **op_kwargs):
            def nary_f(*args, **kwargs):
                def unary_f(x):
                    if isinstance(argnum, int):
                        new = list(args)
                        new[argnum] = x
                    else:
                        new = list(args)
                        for i, xi in zip(argnum, x):
                            new[i] = xi
                    return fun(*new, **kwargs)

                x = args[argnum] if isinstance(argnum, int) else tuple(args[i] for i in argnum)
                return unary_op(unary_f, x, *op_args, **op_kwargs)

            return nary_f

        return op

    def grad(fun, argnum=0):
        return mod.grad(fun, argnums=argnum)

    def value_and_grad(fun, argnum=0):
        return mod.value_and_grad(fun, argnums=argnum)

    def jacobian(fun, argnum=0):
        return mod.jacobian(fun, argnums=argnum)

    def hessian(fun, argnum=0):
        return mod.hessian(fun, argnums=argnum)

    def holomorphic_grad(fun, argnum=0):
        return mod.grad(fun, argnums=argnum, holomorphic=True)

    @nary
    def elementwise_grad(f, x):
        ans, vjp = mod.vjp(f, x)
        return vjp(jnp.ones_like(ans))[0]

    @nary
    def deriv(f, x):
        return mod.jvp(f, (x,), (mod.tree_util.tree_map(jnp.ones_like, x),))[1]

    @nary
    def make_vjp(f, x):
        ans, vjp = mod.vjp(f, x)
        return (lambda g: vjp(g)[0]), ans

    @nary
    def make_jvp(f, x):
        return lambda v: mod.jvp(f, (x,), (v,))

    # --- check_grads: autograd's test_util on the library's jvp/vjp
    tu = mod.tree_util
    TOL = RTOL = 1e-6
    EPS = 1e-6

    def as_primal(x):
        def leaf(a):
            a = onp.asarray(a)
            if not onp.issubdtype(a.dtype, onp.inexact):
                a = a.astype(onp.float64)
            return a

        return tu.tree_map(leaf, x)

    def to_np(x):
        return tu.tree_map(lambda a: onp.asarray(a), x)

    def randn(x):
        def leaf(a):
            a = onp.asarray(a)
            r = onp.random.randn(*a.shape)
            if onp.iscomplexobj(a):
                r = r + 1j * onp.random.randn(*a.shape)
            return r

        return tu.tree_map(leaf, x)

    def axpy(alpha, v, x):
        return tu.tree_map(lambda a, b: onp.asarray(a) + alpha * onp.asarray(b), x, v)

    def pair(a, b):  # the bilinear pairing of a cotangent with a tangent
        return sum(
            float(onp.real(onp.sum(onp.asarray(u) * onp.asarray(w))))
            for u, w in zip(tu.tree_leaves(a), tu.tree_leaves(b))
        )

    def inner(a, b):
        return sum(
            float(onp.real(onp.sum(onp.conj(onp.asarray(u)) * onp.asarray(w))))
            for u, w in zip(tu.tree_leaves(a), tu.tree_leaves(b))
        )

    def scalar_close(a, b):
        return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL

    def numerical_jvp(f, x):
        def jvp(v):
            plus = to_np(f(axpy(EPS / 2, v, x)))
            minus = to_np(f(axpy(-EPS / 2, v, x)))
            return tu.tree_map(lambda p, m: (p - m) / EPS, plus, minus)

        return jvp

    def same_space(a, b):
        la, lb = tu.tree_leaves(a), tu.tree_leaves(b)
        return len(la) == len(lb) and all(
            onp.shape(u) == onp.shape(w) and onp.iscomplexobj(u) == onp.iscomplexobj(w)
            for u, w in zip(la, lb)
        )

    def check_vjp(f, x):
        y, vjp = mod.vjp(f, x)
        x_v, y_v = randn(x), randn(to_np(y))
        vjp_y = to_np(vjp(tu.tree_map(jnp.asarray, y_v))[0])
        assert same_space(vjp_y, x), f"VJP space mismatch: {vjp_y} vs {x}"
        exact = pair(vjp_y, x_v)
        numeric = pair(y_v, numerical_jvp(f, x)(x_v))
        assert scalar_close(numeric, exact), \
            f"VJP check failed: analytic {exact}, numeric {numeric}"

    def check_jvp(f, x):
        x_v = randn(x)
        t = to_np(mod.jvp(f, (x,), (x_v,))[1])
        n = numerical_jvp(f, x)(x_v)
        assert same_space(t, n), f"JVP space mismatch: {t} vs {n}"
        v = randn(t)
        a, b = inner(t, v), inner(n, v)
        assert scalar_close(a, b), f"JVP check failed: analytic {a}, numeric {b}"

    def _check_grads(f, x, modes=None, order=2):
        modes = ["fwd", "rev"] if modes is None else modes
        assert all(m in ["fwd", "rev"] for m in modes)
        x = as_primal(x)
        if "fwd" in modes:
            check_jvp(f, x)
            if order > 1:
                v = randn(x)
                g = lambda xv: mod.jvp(f, (xv[0],), (xv[1],))[1]  # noqa: E731
                _check_grads(g, (x, v), modes, order - 1)
        if "rev" in modes:
            check_vjp(f, x)
            if order > 1:
                v = randn(to_np(f(x)))
                g = lambda xv: mod.vjp(f, xv[0])[1](xv[1])[0]  # noqa: E731
                _check_grads(g, (x, v), modes, order - 1)

    check_grads = nary(_check_grads)

    def combo_check(fun, *args, **kwargs):
        def _combo_check(*cargs, **ckwargs):
            kv = [[(k, x) for x in xs] for k, xs in ckwargs.items()]
            for _args in itertools.product(*cargs):
                for _kwargs in itertools.product(*kv):
                    check_grads(fun, *args, **kwargs)(*_args, **dict(_kwargs))

        return _combo_check

    def check_equivalent(x, y):
        assert same_space(to_np(x), to_np(y))
        v = randn(to_np(x))
        assert scalar_close(inner(to_np(x), v), inner(to_np(y), v)), f"Value mismatch:\n{x}\n{y}"

    # --- the modules
    ag = types.ModuleType("autograd")
    ag.__path__ = []
    ag.grad, ag.value_and_grad, ag.jacobian, ag.hessian = grad, value_and_grad, jacobian, hessian
    ag.holomorphic_grad, ag.elementwise_grad, ag.deriv = holomorphic_grad, elementwise_grad, deriv
    ag.make_vjp, ag.make_jvp, ag.tuple = make_vjp, make_jvp, tuple
    anp = _Proxy("autograd.numpy", lambda: jnp, random=onp.random, __path__=[])
    anp.linalg = _Proxy("autograd.numpy.linalg", _sub(jnp, "linalg"))
    anp.fft = _Proxy("autograd.numpy.fft", _sub(jnp, "fft"))
    ag.numpy = anp
    test_util = types.ModuleType("autograd.test_util")
    test_util.check_grads, test_util.combo_check = check_grads, combo_check
    test_util.check_equivalent, test_util.scalar_close = check_equivalent, scalar_close
    ag.test_util = test_util
    ag.scipy = _Proxy("autograd.scipy", _sub(mod, "scipy"), __path__=[])
    mods = {
        "autograd": ag,
        "autograd.numpy": anp,
        "autograd.numpy.random": onp.random,
        "autograd.numpy.linalg": anp.linalg,
        "autograd.numpy.fft": anp.fft,
        "autograd.test_util": test_util,
        "autograd.scipy": ag.scipy,
    }
    for name in ("linalg", "signal", "special", "stats", "integrate", "stats.multivariate_normal"):
        proxy = _Proxy("autograd.scipy." + name, _sub(mod, "scipy." + name), __path__=[])
        mods["autograd.scipy." + name] = proxy
        if "." not in name:
            setattr(ag.scipy, name, proxy)
    sys.modules.update(mods)


# ----------------------------------------------------------------------------- runner


class _Timeout(Exception):
    pass


def _cases(fn):
    """The parameter sets of a test function's pytest.mark.parametrize marks."""
    axes = []
    for mark in getattr(fn, "pytestmark", []):
        if mark.name == "parametrize":
            names, values = mark.args[0], mark.args[1]
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
            vals = [v if len(names) > 1 else (v,) for v in values]
            axes.append([dict(zip(names, v)) for v in vals])
    return [{k: v for d in combo for k, v in d.items()} for combo in itertools.product(*axes)]


def _run_one(fn, kwargs, timeout):
    onp.random.seed(42)  # autograd's conftest.py fixture

    def alarm(*_):
        raise _Timeout(f"timed out after {timeout}s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(timeout)
    try:
        fn(**kwargs)
        return None
    except BaseException as e:  # noqa: BLE001 - a test's failure, whatever it is
        if isinstance(e, KeyboardInterrupt):
            raise
        tb = traceback.extract_tb(e.__traceback__)
        where = next((f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb)
                      if "autograd_suite" not in f.filename), "")
        msg = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
        return f"{type(e).__name__}: {msg} [{where}]"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run_lib(lib, tests_dir, files, timeout):
    install_adapter(lib)
    sys.path.insert(0, str(tests_dir))
    results = {}
    for fname in files:
        try:
            module = importlib.import_module(fname)
        except Exception as e:  # noqa: BLE001
            results[fname] = {"<import>": f"{type(e).__name__}: {e}"}
            continue
        tests = [
            (n, f)
            for n, f in vars(module).items()
            if n.startswith("test") and callable(f)
            and getattr(f, "__module__", None) == module.__name__
        ]
        out = {}
        for name, fn in tests:
            t0 = time.time()
            errs = [e for e in (_run_one(fn, kw, timeout) for kw in _cases(fn)) if e]
            out[name] = errs[0] if errs else None
            status = "FAIL" if errs else "ok"
            print(f"{lib} {fname}::{name} {status} {time.time() - t0:.1f}s", file=sys.stderr,
                  flush=True)
        results[fname] = out
    return results


def _child(python, lib, args, env):
    cmd = [python, os.path.abspath(__file__), str(args.tests_dir), "--lib", lib,
           "--timeout", str(args.timeout)]
    cmd += ["--files", *args.files]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("tests_dir", type=Path, help="autograd's tests folder")
    p.add_argument("--lib", choices=["edujax", "jax"], help="run one library and print JSON")
    p.add_argument("--jax-python", default=sys.executable, help="interpreter with jax installed")
    p.add_argument("--files", nargs="+", default=list(DEFAULT_FILES))
    p.add_argument("--timeout", type=int, default=600, help="seconds per test")
    args = p.parse_args()
    if args.lib:
        print(json.dumps(run_lib(args.lib, args.tests_dir.resolve(), args.files, args.timeout)))
        return
    repo = str(Path(__file__).resolve().parent.parent)
    env_e = dict(os.environ, PYTHONPATH=repo + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env_j = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    procs = {"edujax": _child(sys.executable, "edujax", args, env_e),
             "jax": _child(args.jax_python, "jax", args, env_j)}
    res = {lib: json.loads(proc.communicate()[0]) for lib, proc in procs.items()}
    e, j = res["edujax"], res["jax"]

    def count(r, files):
        tests = [(f, t) for f in files for t in r.get(f, {}) if t != "<import>"]
        return sum(r[f][t] is None for f, t in tests), len(tests)

    print(f"{'file':<20} {'jax':>9} {'edujax':>9}")
    for f in args.files:
        (jp, jn), (ep, en) = count(j, [f]), count(e, [f])
        failed = "<import>" in j.get(f, {}) or "<import>" in e.get(f, {})
        note = "  (does not import)" if failed else ""
        print(f"{f:<20} {jp:>4}/{jn:<4} {ep:>4}/{en:<4}{note}")
    (jp, jn), (ep, en) = count(j, args.files), count(e, args.files)
    print(f"{'total':<20} {jp:>4}/{jn:<4} {ep:>4}/{en:<4}")
    issue = [f for f in ISSUE_17_FILES if f in args.files]
    if issue:
        (jp, jn), (ep, en) = count(j, issue), count(e, issue)
        print(f"{'issue 17 files':<20} {jp:>4}/{jn:<4} {ep:>4}/{en:<4}  ({', '.join(issue)})")
    for title, a, b in (("JAX passes, edujax fails", j, e), ("edujax passes, JAX fails", e, j)):
        print(f"\n{title}:")
        for f in args.files:
            for t, err in sorted(a.get(f, {}).items()):
                if t != "<import>" and err is None and b.get(f, {}).get(t, "missing") is not None:
                    print(f"  {f}::{t}: {b.get(f, {}).get(t, 'missing')}")


if __name__ == "__main__":
    main()
