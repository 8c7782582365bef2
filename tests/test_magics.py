"""``%jaxpr`` and ``%jittime``, driven through IPython's InteractiveShell as a user would.

Each test types a magic into a real IPython shell (``run_line_magic``/``run_cell_magic``
or a whole ``run_cell``) and reads what the user would see: captured stdout/stderr, the
returned object, the error IPython reports.
"""
from __future__ import annotations

import math
import re

import pytest

from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magics.execution import TimeitResult

import edujax
from edujax.timing import FirstCall, JitTimeResult, report_lines

ANSI = re.compile(r"\x1b\[[0-9;]*m")

SETUP = '''
import functools
from collections import namedtuple
import edujax as jax
import edujax.numpy as jnp
from edujax import lax

x = jnp.arange(1.0, 4.0)
xs = jnp.ones((5, 3))
w = jnp.array([0.5, -1.0, 2.0])
key = jax.random.PRNGKey(0)
params = {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}
Point = namedtuple("Point", "x y")
args = (x, 2.0)
kw = {"y": 3.0}

def f(x, y=2.0):
    return jnp.sin(x) * y

def loss(w, x):
    return jnp.sum((x * w - 1.0) ** 2)

def dot(a, b):
    return jnp.dot(a, b)

def predict(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])

def two_outputs(x):
    return x.sum(), {"double": x * 2}

def branch(x):
    return lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)

def count(x):
    return lax.fori_loop(0, 3, lambda i, c: c * 2.0, x)

def halve(x):
    return lax.while_loop(lambda c: c.sum() > 1.0, lambda c: c / 2, x)

def cumulative(xs):
    return lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(3), xs)

def power(x, n):
    for _ in range(n):
        x = x * x
    return x

def inner_jit(x):
    return jax.jit(jnp.cos)(x) + 1

def norm(p):
    return jnp.sqrt(p.x ** 2 + p.y ** 2)

def sign_of(x):
    if x.sum() > 0:
        return x
    return -x
'''


@pytest.fixture(scope="module")
def shell():
    """One IPython shell with the extension loaded and the names above defined."""
    shell = InteractiveShell.instance()
    shell.colors = "nocolor"
    shell.run_line_magic("load_ext", "edujax")
    result = shell.run_cell(SETUP)
    assert result.success, result.error_in_exec
    return shell


def run(shell, capsys, line: str, cell: str | None = None):
    """Run one magic; return (what it returned, stdout, stderr)."""
    name, _, rest = line.partition(" ")
    if cell is None:
        value = shell.run_line_magic(name, rest)
    else:
        value = shell.run_cell_magic(name, rest, cell)
    out, err = capsys.readouterr()
    return value, ANSI.sub("", out), ANSI.sub("", err)


def run_cell(shell, capsys, code: str):
    """Run a whole cell the way the notebook does (errors are shown, not raised)."""
    result = shell.run_cell(code)
    out, err = capsys.readouterr()
    return result, ANSI.sub("", out), ANSI.sub("", err)


# ------------------------------------------------------------------------- %jaxpr
# (callee, arguments, static_argnums): `%jaxpr callee(arguments)` must print exactly what
# print(jax.make_jaxpr(callee, static_argnums)(arguments)) prints.
PROGRAMS = [
    ('f', 'x', ()),
    ('f', 'x, 2.0', ()),
    ('f', 'x, y=3.0', ()),
    ('f', '*args', ()),
    ('f', 'x, **kw', ()),
    ('jnp.sin', 'x', ()),
    ('(lambda v: v ** 2 + 1)', 'x', ()),
    ('jax.grad(loss)', 'w, x', ()),
    ('jax.grad(loss, argnums=1)', 'w, x', ()),
    ('jax.value_and_grad(loss)', 'w, x', ()),
    ('jax.vmap(loss, in_axes=(None, 0))', 'w, xs', ()),
    ('jax.vmap(f)', 'xs', ()),
    ('jax.jit(f)', 'x', ()),
    ('inner_jit', 'x', ()),
    ('jax.jacfwd(f)', 'x', ()),
    ('jax.hessian(loss)', 'w, x', ()),
    ('branch', 'x', ()),
    ('count', 'x', ()),
    ('halve', 'x', ()),
    ('cumulative', 'xs', ()),
    ('predict', 'params, xs', ()),
    ('jax.grad(lambda p: predict(p, xs).sum())', 'params', ()),
    ('two_outputs', 'x', ()),
    ('norm', 'Point(x, w)', ()),
    ('power', 'x, 3', (1,)),
    ('jax.random.normal', 'key, (3,)', (1,)),
    ('dot', 'xs, w', ()),
]


def _expected_jaxpr(shell, callee: str, arguments: str, static: tuple = ()) -> str:
    """What ``print(jax.make_jaxpr(callee, static_argnums)(arguments))`` prints."""
    code = (f"__expected = str(jax.make_jaxpr({callee}, static_argnums={static!r})"
            f"({arguments})) + '\\n'")
    assert shell.run_cell(code).success
    return shell.user_ns.pop("__expected")


@pytest.mark.parametrize("callee, arguments, static", PROGRAMS,
                         ids=[f"{p[0]}({p[1]})" for p in PROGRAMS])
def test_jaxpr_prints_what_make_jaxpr_prints(shell, capsys, callee, arguments, static):
    options = f"--static {','.join(map(str, static))} " if static else ""
    value, out, err = run(shell, capsys, f"jaxpr {options}{callee}({arguments})")
    assert value is None and err == ""
    assert out == _expected_jaxpr(shell, callee, arguments, static)
    assert "{ lambda " in out


def test_jaxpr_cell_runs_its_setup_then_the_last_call(shell, capsys):
    value, out, _ = run(shell, capsys, "jaxpr", "z = x * 10\nf(z,\n  y=4.0)\n")
    assert out == _expected_jaxpr(shell, "f", "x * 10, y=4.0")
    assert "z" in shell.user_ns  # the setup ran in the user's namespace


def test_jaxpr_o_returns_the_closed_jaxpr_and_q_silences(shell, capsys):
    closed, out, _ = run(shell, capsys, "jaxpr -o -q f(x)")
    assert out == ""
    assert isinstance(closed, edujax.jaxpr.ClosedJaxpr)
    assert str(closed) + "\n" == _expected_jaxpr(shell, "f", "x")
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["sin", "mul"]
    closed, out, _ = run(shell, capsys, "jaxpr -o f(x)")
    assert out == str(closed) + "\n"


def test_jaxpr_compiled_prints_the_backend_code(shell, capsys):
    _, out, _ = run(shell, capsys, "jaxpr --compiled f(x)")
    expected = edujax.jit(shell.user_ns["f"]).lower(shell.user_ns["x"]).compile().as_text()
    assert out == expected + "\n"
    assert "sin" in out


def test_jaxpr_compiled_shows_generated_numba_source(shell, capsys, monkeypatch):
    monkeypatch.setenv("EDUJAX_TIERED", "0")
    edujax.config.update("edujax_backend", "numba")
    try:
        _, out, _ = run(shell, capsys, "jaxpr --compiled f(x)")
    finally:
        edujax.config.update("edujax_backend", "reference")
    assert "@njit" in out or "njit(" in out
    assert "def run(" in out


# ------------------------------------------------------------------------- %jittime
@pytest.fixture(scope="module")
def timed(shell):
    """One %jittime -o measurement (reference backend), shared by the checks below."""
    result = shell.run_line_magic("jittime", "-o -q -r 3 f(x)")
    assert isinstance(result, JitTimeResult)
    return result


def test_jittime_result_is_consistent(timed):
    for t in (timed.eager, timed.jit):
        assert isinstance(t, TimeitResult)
        assert t.repeat == 3 and len(t.all_runs) == 3
        assert t.best <= t.average <= t.worst
    assert timed.first_call >= timed.jit.average
    assert timed.first_call >= timed.trace + timed.compile
    assert timed.trace > 0
    assert math.isclose(timed.speedup, timed.eager.average / timed.jit.average)
    assert timed.backend == "reference" and timed.tier == "reference"


def test_jittime_follows_timeits_loop_count_rule(timed):
    # loops per run grow 1, 10, 100, ... until one run takes 0.2 s: so a tenth of the
    # loops took less than that (with slack for a noisy machine).
    for t in (timed.eager, timed.jit):
        assert t.loops in [10 ** k for k in range(10)]
        assert t.loops == 1 or t.average * t.loops / 10 < 0.2 * 3


def test_jittime_prints_timeits_format_for_the_same_numbers(timed):
    lines = str(timed).splitlines()
    for label, t in (("eager (no jit)", timed.eager), ("jit, steady state", timed.jit)):
        same = TimeitResult(t.loops, t.repeat, t.best, t.worst, t.all_runs, 0.0, 3)
        line = next(line for line in lines if line.startswith(label))
        assert line[len(label):].strip() == str(same)
        assert re.search(r"per loop \(mean ± std\. dev\. of 3 runs, [\d,]+ loops? each\)", line)
    speed = next(line for line in lines if line.startswith("speed-up"))
    number = float(re.search(r"([\d,.]+)×", speed).group(1).replace(",", ""))
    shown = timed.speedup if timed.speedup >= 1 else 1 / timed.speedup
    assert abs(number - shown) <= 0.05 + 1e-9


def test_jittime_prints_the_report(shell, capsys):
    value, out, _ = run(shell, capsys, "jittime -n 3 -r 2 f(x)")
    assert value is None
    assert [line.split("  ")[0] for line in out.splitlines() if not line.startswith(" ")] == [
        "eager (no jit)", "jit, first call", "jit, steady state", "speed-up"]
    assert "2 runs, 3 loops each" in out
    assert re.search(r"jit, first call +\S+ \S+ = trace \S+ \S+ \+ compile \S+ \S+ \+ run", out)


def test_jittime_says_plainly_when_jit_is_slower():
    def result(eager: float, jit: float) -> JitTimeResult:
        t = lambda s: TimeitResult(1000, 7, s, s, [s * 1000] * 7, 0.0, 3)  # noqa: E731
        return JitTimeResult("f(x)", t(eager), t(jit), FirstCall(0.5, 0.1, 0.3, "numba", None),
                             "numba", "numba")
    slower = "\n".join(report_lines(result(2e-6, 5e-6)))
    assert "jit is 2.5× slower than eager" in slower
    assert "faster" not in slower and "none:" in slower
    faster = "\n".join(report_lines(result(5e-4, 1e-5)))
    assert "50.0× faster with jit" in faster


def test_jittime_cell_and_static_arguments(shell, capsys):
    value, out, _ = run(shell, capsys, "jittime -o -q -n 2 -r 2 --static 1", "n = 3\npower(x, n)")
    assert value.jit.loops == 2 and value.expr == "power(x, n)"
    assert out == ""


def test_jittime_of_an_already_jitted_function_times_the_plain_one(shell, capsys):
    value, _, _ = run(shell, capsys, "jittime -o -q -n 2 -r 2 jax.jit(f)(x)")
    assert value.first_call >= value.trace > 0  # a fresh compile, not the user's cache


def test_jittime_on_tiered_numba_waits_for_the_background_compile(shell, capsys, monkeypatch):
    monkeypatch.setenv("EDUJAX_TIERED", "1")
    monkeypatch.setenv("EDUJAX_AOT", "0")  # (an object file from an earlier run: no tiering)
    monkeypatch.setenv("EDUJAX_DIRECT", "0")  # (nor kernels compiled at once without Numba)
    value, out, _ = run(shell, capsys, "jittime -o -n 2 -r 2 --backend numba f(x)")
    assert value.backend == "numba"
    assert value.first.tier == "reference"  # the first call ran on the interpreter
    assert value.tier == "numba"            # the steady state on the compiled kernels
    assert value.background_compile is not None and value.background_compile > 0
    assert "in the background" in out
    assert edujax.config.read("edujax_backend") == "reference"  # restored


def test_jittime_keeps_to_its_time_budget_on_a_slow_call(shell, capsys):
    """A call of 0.3 s: %timeit's 7 runs (plus its loop-count trial) would take 2.4 s for the
    eager side alone; with -t 1.4 the two timing loops get 0.7 s each, so the eager side makes
    2 runs (its trial kept as the first) and the report says how the budget went."""
    shell.run_cell("import time\ndef slow(x):\n    time.sleep(0.3)\n    return x * 2")
    value, out, _ = run(shell, capsys, "jittime -o -t 1.4 slow(x)")
    assert value.eager.repeat == 2 and value.eager.loops == 1
    assert value.budget == 1.4 and sum(value.eager.all_runs) < 0.3 * 2 + 0.3   # not 7 runs
    assert re.search(r"time budget +\d+\.\d s in all, 1\.4 s for timing loops \(-t\): "
                     r"eager 2 runs × 1 loop, jit \d+ runs? × [\d,]+ loops?", out)


def test_jittime_shows_a_live_line_while_it_measures(monkeypatch):
    """In a kernel, after its first second, %jittime shows one line saying what it is timing,
    updated in place, and blanks it at the end (magics/progress.py)."""
    import types

    import edujax.numpy as jnp
    from edujax.magics import progress
    from edujax.timing import measure
    shown = []

    class Handle:
        def update(self, bundle, raw):
            shown.append(bundle["text/plain"])

    def display(bundle, raw, display_id):
        shown.append(bundle["text/plain"])
        return Handle()

    monkeypatch.setattr(progress, "display", display)
    live = progress.LiveLine(types.SimpleNamespace(kernel=object()), silent_seconds=0.0)
    measure(lambda x: x + 1, (jnp.ones(3),), number=2, repeat=2, progress=live)
    live.close()
    assert shown[0].startswith("%jittime: eager: run 1 of 2 (2 loops each) … ")
    assert any(line.startswith("%jittime: jit: first call") for line in shown)
    assert shown[-1] == ""                                  # blanked when done
    quiet = progress.LiveLine(types.SimpleNamespace(kernel=object()))    # under a second:
    quiet("eager: run 1 of 7")
    assert quiet.handle is None                                          # nothing shown
    assert not progress.LiveLine(types.SimpleNamespace())("x")           # not a kernel


def test_jittime_plot_caption_says_each_tier_and_the_first_calls_run_time():
    from edujax.viz.timing import result_note
    t = TimeitResult(10, 7, 1e-3, 1e-3, [1e-2] * 7, 0.0, 3)
    tiered = JitTimeResult("f(x)", t, t, FirstCall(0.5, 0.1, 0.3, "reference", 2.0), "numba",
                           "numba")
    note = result_note(tiered)
    assert note.startswith("first call = trace 100 ms + compile 300 ms + run 100 ms; ")
    assert note.endswith("the first call ran on tier reference, later calls on numba")
    same = JitTimeResult("f(x)", t, t, FirstCall(0.5, 0.1, 0.3, "numba", None), "numba", "numba")
    assert result_note(same).endswith("backend numba, every call on tier numba")


def test_jaxpr_graph_is_titled_with_the_call(shell, monkeypatch):
    from edujax.magics import jaxpr as jaxpr_magic
    shown = []
    monkeypatch.setattr(jaxpr_magic, "display", shown.append)
    shell.run_line_magic("jaxpr", "--graph jax.grad(loss)(w, x)")
    view, = shown
    assert view.title == "jax.grad(loss)(w, x)"
    assert re.match(r"jax\.grad\(loss\)\(w, x\) · \d+ equations$",
                    f"{view.title} · {view.summary()}")
    untitled = edujax.viz.graph(view.jaxpr)
    assert untitled.title == "jaxpr"         # never a caption that starts with " · "


# ------------------------------------------------------------------------- bad input
USAGE_ERRORS = [
    ("%jaxpr x + 1", "'x + 1' is not a function call"),
    ("%jaxpr", "no call given"),
    ("%jaxpr f(x", "is not a Python expression"),
    ("%jaxpr --bogus f(x)", "unrecognized arguments: --bogus"),
    ("%jaxpr --static one f(x)", "expected argument positions"),
    ("%jittime x", "'x' is not a function call"),
    ("%jittime -n x f(x)", "invalid int value"),
    ("%jittime -r 0 f(x)", "-r 1 or more"),
    ("%jittime --backend nope f(x)", "Unknown backend 'nope'"),
    ("%jittime --frobnicate f(x)", "unrecognized arguments"),
    ("%%jaxpr\nx = 1", "last statement must be the call"),
    ("%%jaxpr\nx = (", "not valid Python"),
    ("%%jaxpr f(x)\nf(x)", "put the call in the cell"),
    ("%%jittime -n 1\n# only a comment", "last statement must be the call"),
]


@pytest.mark.parametrize("code, message", USAGE_ERRORS, ids=[u[0] for u in USAGE_ERRORS])
def test_bad_input_prints_a_usage_line_not_a_traceback(shell, capsys, code, message):
    result, out, err = run_cell(shell, capsys, code)
    assert not result.success
    assert "Traceback" not in out + err
    assert "UsageError: %" in err and message in err
    assert "usage: %" in err


def test_undefined_name_shows_the_users_error(shell, capsys):
    result, out, err = run_cell(shell, capsys, "%jaxpr undefined_function(x)")
    assert isinstance(result.error_in_exec, NameError)
    assert "NameError: name 'undefined_function' is not defined" in out
    assert "undefined_function(x)" in out          # the user's expression is shown
    assert "edujax/magics" not in out              # no frame from inside the magic


@pytest.mark.parametrize("magic", ["%jaxpr", "%jittime -n 1 -r 1"])
def test_error_in_the_users_function_shows_the_users_traceback(shell, capsys, magic):
    result, out, err = run_cell(shell, capsys, f"{magic} sign_of(x)")
    assert type(result.error_in_exec).__name__ == "TracerBoolConversionError" or (
        magic.startswith("%jittime"))
    assert "if x.sum() > 0:" in out                # the user's own line
    assert "edujax/magics" not in out
    assert "Error" in out


def test_exception_in_an_argument_expression_is_the_users(shell, capsys):
    result, out, _ = run_cell(shell, capsys, "%jaxpr f(1 / 0)")
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    assert "f(1 / 0)" in out and "edujax/magics" not in out


def test_load_ext_is_what_registers_the_magics():
    magics = InteractiveShell.instance().magics_manager.magics
    assert {"jaxpr", "jittime"} <= set(magics["line"]) and {"jaxpr", "jittime"} <= set(
        magics["cell"])


# ------------------------------------------------------------------------- %trace, --source
def test_trace_returns_the_stepper_of_the_call(shell, capsys):
    value, out, err = run(shell, capsys, "trace -o jax.grad(lambda v: jnp.sin(v) * 2.0)(1.0)")
    assert [e.trace for e in value.events][:2] == ["JVP", "partial eval"]
    assert "binds" in out and not err


def test_trace_given_nonsense_prints_its_usage(shell, capsys):
    result, out, err = run_cell(shell, capsys, "%trace --bogus f(x)")
    assert "%trace [-o] f(args...)" in out + err
    assert "Traceback" not in out + err


def test_jaxpr_source_shows_the_linked_panes(shell, capsys, monkeypatch):
    monkeypatch.setenv("EDUJAX_TIERED", "0")
    value, out, err = run(shell, capsys, "jaxpr --source jnp.sin(jnp.arange(3.0))")
    assert "sin" in out and "kernel:" in out and not err
