"""The ``edujax`` Jupyter kernel, installed and driven as Jupyter drives it.

The kernelspec is installed into a temporary prefix with ``python -m edujax.kernel
install --prefix``; a real kernel process is started from it through ``jupyter_client``
and cells are executed by sending ``execute_request`` messages, reading what comes back
on the IOPub channel (streams, results, displays, errors), exactly what JupyterLab shows.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest

from kernel_client import Kernel, Reply, install_kernel, kernel_specs
from seed_compare import SEEDS_DIR, SUBMODULES, compare, record

EXPECTED = json.loads(record.EXPECTED_PATH.read_text(encoding="utf-8"))
SEEDS = [path.stem for path in record.seed_files()]
TIMEOUT = 300  # seconds for one cell (the seeds' largest matmuls take a few)


@pytest.fixture(scope="module")
def kernel_prefix(tmp_path_factory):
    """Install the kernelspec the way the README says, into a temporary prefix."""
    prefix = tmp_path_factory.mktemp("jupyter-prefix")
    assert "Installed the edujax kernelspec" in install_kernel(prefix)
    return prefix


def is_hint(display_data: dict) -> bool:
    """Is this display one of the kernel's hint boxes (see edujax/kernel/hints.py)?"""
    return 'class="edujax-hint"' in display_data.get("text/html", "")


@pytest.fixture(scope="module")
def kernel(kernel_prefix):
    k = Kernel(kernel_prefix)
    yield k
    k.close()


def test_kernelspec_starts_this_package_as_edujax(kernel_prefix):
    spec = kernel_specs(kernel_prefix).get_kernel_spec("edujax")
    assert spec.display_name == "EduJAX (Python 3)"
    assert spec.language == "python"
    assert spec.argv[1:3] == ["-m", "edujax.kernel"] and "{connection_file}" in spec.argv


def test_magics_work_without_load_ext(kernel):
    setup = kernel.execute("import edujax as jax\nimport edujax.numpy as jnp\n"
                           "x = jnp.arange(3.0)\n"
                           "expected = str(jax.make_jaxpr(jnp.sin)(x))")
    assert setup.status == "ok"
    shown = kernel.execute("%jaxpr jnp.sin(x)")
    assert shown.status == "ok"
    assert shown.stdout.strip() == kernel.execute("print(expected)").stdout.strip()
    assert "sin a" in shown.stdout
    timed = kernel.execute("%jittime -n 2 -r 2 jnp.sin(x)")
    assert timed.status == "ok" and "jit, steady state" in timed.stdout


def test_jax_is_not_imported_for_the_student(kernel_prefix):
    k = Kernel(kernel_prefix)
    try:
        reply = k.execute("print('jax' in globals(), 'jnp' in globals())")
        assert reply.stdout.strip() == "False False"
    finally:
        k.close()


def test_arrays_and_jaxprs_have_an_html_form_next_to_their_text(kernel):
    kernel.execute("import edujax as jax\nimport edujax.numpy as jnp")
    shown = kernel.execute("jnp.array([1.0, 2.0, float('nan')])")
    assert shown.result["text/plain"] == "Array([ 1.,  2., nan], dtype=float32)"
    html = shown.result["text/html"]
    assert "f32[3]" in html and "1 NaN" in html and "Array([ 1.,  2., nan]" in html
    jaxpr = kernel.execute("jax.make_jaxpr(lambda v: jnp.sin(v) * 2)(1.0)")
    assert jaxpr.result["text/plain"].startswith("{ lambda ; a:f32[]. let")
    assert ">sin</span>" in jaxpr.result["text/html"]
    assert "1 input, 2 equations, 1 output" in jaxpr.result["text/html"]


def test_pytrees_of_arrays_show_their_tree_under_their_text(kernel):
    kernel.execute("import edujax as jax\nimport edujax.numpy as jnp")
    shown = kernel.execute("{'w': jnp.ones(2), 'layers': [jnp.zeros(3)]}")
    assert shown.result["text/plain"].replace("\n ", " ") == (  # IPython's own line breaks
        "{'w': Array([1., 1.], dtype=float32), 'layers': [Array([0., 0., 0.], dtype=float32)]}")
    html = shown.result["text/html"]
    assert "pytree: 2 leaves" in html and "[&#x27;layers&#x27;][0]" in html
    plain = kernel.execute("{'a': 1, 'b': [2, 3]}")
    assert "text/html" not in plain.result   # containers without Arrays: IPython's text only


def test_tracer_bool_error_gets_a_box_and_keeps_the_users_traceback(kernel):
    kernel.execute("import edujax as jax\nimport edujax.numpy as jnp")
    reply = kernel.execute("def f(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"
                           "jax.jit(f)(jnp.ones(3))")
    assert reply.status == "error"
    assert reply.error["ename"] == "TracerBoolConversionError"
    assert reply.error["evalue"].startswith(
        "Attempted boolean conversion of traced array with shape bool[].")
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(reply.error["traceback"]))
    assert "if x.sum() > 0:" in traceback            # the user's line is there
    assert "edujax/core.py" not in traceback         # edujax's own frames are hidden
    assert "frames inside edujax hidden" in reply.stderr
    boxes = [d for d in reply.displays if is_hint(d)]
    assert len(boxes) == 1
    assert "jnp.where" in boxes[0]["text/plain"] and "static_argnums" in boxes[0]["text/plain"]


@pytest.mark.parametrize("code, ename, fix", [
    ("jax.grad(lambda v: v * 2)(jnp.ones(3))", "TypeError", "jnp.sum"),
    ("x = jnp.ones(3)\nx[0] = 5.0", "TypeError", ".at[i].set"),
    ("jax.jit(lambda n: jnp.zeros(n))(3)", "TypeError", "static"),
    ("jax.jit(lambda v: int(v))(1)", "TracerIntegerConversionError", "fori_loop"),
    ("jax.jit(lambda v: np.asarray(v))(1.0)", "TracerArrayConversionError", "jnp.*"),
    ("jax.jit(lambda v: v[v > 0])(jnp.ones(3))", "NonConcreteBooleanIndexError", "jnp.where"),
    ("with jax.debug_nans(True):\n    jnp.log(-1.0)", "FloatingPointError", "domain"),
    ("with jax.numpy_rank_promotion('raise'):\n    jnp.ones(3) + jnp.ones((2, 3))",
     "ValueError", "x[None, :]"),
    ("with jax.numpy_dtype_promotion('strict'):\n    jnp.ones(2) + jnp.arange(2)",
     "TypePromotionError", "astype"),
])
def test_other_tracing_errors_get_their_box(kernel, code, ename, fix):
    kernel.execute("import numpy as np\nimport edujax as jax\nimport edujax.numpy as jnp")
    reply = kernel.execute(code)
    assert reply.status == "error" and reply.error["ename"] == ename
    boxes = [d["text/plain"] for d in reply.displays if is_hint(d)]
    assert len(boxes) == 1 and fix in boxes[0]


def test_plain_errors_get_no_box(kernel):
    reply = kernel.execute("1 / 0")
    assert reply.error["ename"] == "ZeroDivisionError"
    assert not reply.displays


def test_reused_prng_key_warns_with_a_box(kernel):
    reply = kernel.execute("import edujax as jax\nk = jax.random.PRNGKey(7)\n"
                           "a = jax.random.normal(k)\nb = jax.random.normal(k)")
    assert reply.status == "ok"
    assert "KeyReuseWarning" in reply.stderr
    boxes = [d["text/plain"] for d in reply.displays if is_hint(d)]
    assert len(boxes) == 1 and "random.split" in boxes[0]


# ------------------------------------------------------------------------- the seeds
ALIAS_JAX = f"""
import importlib, sys
import numpy as np
import edujax
sys.modules["jax"] = edujax
for name in {SUBMODULES!r}:
    try:
        sys.modules["jax." + name] = importlib.import_module("edujax." + name)
    except ImportError:
        pass
np.random.seed(0)  # as tests/seeds/record.py's new_namespace() does
"""


@dataclass
class KernelOutcome:
    """A kernel reply in the shape seed_compare.compare() reads."""
    stdout: str
    display: str | None
    raises: str | None
    message: str | None
    error: None = None


def _outcome(reply: Reply) -> KernelOutcome:
    # ``display(x)`` in a seed prints repr(x) when recorded; in the kernel it is a
    # display_data message whose text is that same repr (pprint is off, see below).
    shown = "".join(d["text/plain"] + "\n" for d in reply.displays
                    if "text/plain" in d and not is_hint(d))
    if reply.error is not None:
        lines = reply.error["evalue"].splitlines()
        return KernelOutcome(reply.stdout + shown, None, reply.error["ename"],
                             lines[0] if lines else "")
    return KernelOutcome(reply.stdout + shown, reply.result.get("text/plain"), None, None)


@pytest.mark.parametrize("seed", SEEDS)
def test_seed_runs_through_the_kernel_as_on_jax(kernel_prefix, seed):
    cells = record.parse_cells(SEEDS_DIR / f"{seed}.py")
    expected = EXPECTED[seed]
    k = Kernel(kernel_prefix)
    try:
        assert k.execute(ALIAS_JAX).status == "ok"
        # JAX's outputs were recorded with repr(); IPython's pretty printer would wrap
        # long tuples differently, so the kernel shows values with repr() too.
        assert k.execute("get_ipython().display_formatter.formatters['text/plain'].pprint"
                         " = False").status == "ok"
        report = []
        for cell, exp in zip(cells, expected):
            problems = compare(cell, exp, _outcome(k.execute(cell.code)))
            if problems:
                report.append(f"{seed}.py cell {cell.label}:\n" + "\n".join(problems))
    finally:
        k.close()
    assert not report, f"{len(report)} of {len(cells)} cells differ from JAX\n\n" + "\n\n".join(
        report)
