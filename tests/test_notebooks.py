"""The tutorials in notebooks/ run top to bottom and print what real JAX prints.

Each notebook's source is a MyST Markdown file (notebooks/<lang>/*.md, read with jupytext);
the test executes it with nbclient on a Jupyter kernel, one cell at a time with a time limit,
exactly as "Run All" in JupyterLab would. A cell that raises fails the notebook unless it is
tagged ``raises-exception`` (the cells that show an error on purpose).

Then the executed outputs are checked against real JAX. A code cell whose metadata names a
seed cell (``:seed: seed_004:441`` in the Markdown: tutorial seed_004, the cell at line 441
of its text) recomputes something one of the five seed tutorials printed, and must print the
same thing as tests/seeds/expected.json recorded from real JAX for that cell:

- by default, the same text (what the cell printed plus the value it displayed, compared with
  runs of spaces and newlines made equal, since IPython breaks long reprs over lines);
- ``:compare: numbers``: the same numbers in the same order, each spelled the same, for a
  cell that lays out the seed's values in its own words;
- ``:compare: subsequence``: some of the seed's numbers, in the seed's order (a cell that
  recomputes part of what the seed printed, such as the keys of a split without the draws);
- ``:compare: rounding``: the same text with numbers equal to 1e-6 (XLA may round a float32
  result of compiled code differently in its last bit; see tests/test_seeds.py);
- ``:compare: display``: the same displayed value, for a cell that shows what the seed
  displayed without also printing what the seed printed;
- a cell that raised: the same exception type as the seed's cell.

Nothing here is a value edujax printed: every expected value comes from real JAX's recording.

Where the prose states a fact about what a cell shows (4 devices, a (4, 3) result, the tier a
call ran on), the cell carries ``:expect: REGEX`` and what it shows must match it
(``re.search``, multi-line): the prose is tested, not only the seed values.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import jupytext
import nbclient
import nbformat
import pytest
from kernel_client import ipc_config

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
EXPECTED = json.loads((ROOT / "tests" / "seeds" / "expected.json").read_text(encoding="utf-8"))

# The Jupyter kernel the notebooks run on: the one their metadata names, IPython with edujax's
# magics (%jaxpr, %jittime), displays and error hints loaded (edujax/kernel/). "python3" (plain
# IPython) would run every cell but the magics.
KERNEL_NAME = "edujax"
CELL_TIMEOUT_S = 120          # per cell; the slowest cell takes a few seconds

COMPARE_MODES = ("text", "numbers", "subsequence", "rounding", "display")
# The tutorials (notebooks/ko, notebooks/en) and the "how it works" track (notebooks/inside/*);
# course-kit/exercises/ holds the graded exercises (tests/test_grading_*.py check those).
TUTORIALS = sorted(p for p in NOTEBOOKS.glob("*/*.md")
                   if p.parent.name not in ("inside", "exercises"))
PATHS = TUTORIALS + sorted(NOTEBOOKS.glob("inside/*/*.md"))
LANGS = ("en", "ko")

_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _seed_cell(ref: str) -> dict:
    seed, line = ref.split(":")
    for cell in EXPECTED[seed]:
        if cell["line"] == int(line):
            return cell
    raise KeyError(f"{ref}: no cell at line {line} in tests/seeds/expected.json[{seed!r}]")


def _text(outputs) -> str:
    """What a student sees under a cell: its stdout, then its displayed value."""
    parts = []
    streaming = False  # (one print may arrive in several chunks, on a busy machine)
    for out in outputs:
        if out.output_type == "stream" and out.name == "stdout":
            if streaming:
                parts[-1] += out.text
            else:
                parts.append(out.text)
            streaming = True
            continue
        streaming = False
        if out.output_type in ("execute_result", "display_data"):
            if 'class="edujax-hint"' in out.data.get("text/html", ""):
                continue      # the edujax kernel's "what happened / fix" box, not JAX's output
            parts.append(out.data.get("text/plain", ""))
    return "\n".join(parts)


def _hint_boxes(outputs) -> list[str]:
    """The HTML of the edujax kernel's hint boxes under a cell."""
    return [out.data["text/html"] for out in outputs
            if out.output_type in ("execute_result", "display_data")
            and 'class="edujax-hint"' in out.data.get("text/html", "")]


def _error(outputs) -> str | None:
    names = [out.ename for out in outputs if out.output_type == "error"]
    return names[0] if names else None


def _squash(text: str) -> str:
    return " ".join(_ADDRESS.sub(" at 0x...", text).split())


def _same_up_to_rounding(a: str, b: str) -> bool:
    if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
        return False
    x, y = [float(v) for v in _NUMBER.findall(a)], [float(v) for v in _NUMBER.findall(b)]
    return len(x) == len(y) and all(abs(u - v) <= 1e-6 * max(abs(u), abs(v)) for u, v in zip(x, y))


def check_expectation(cell) -> str | None:
    """None if an executed cell shows what its ``:expect:`` regex (the prose's claim) says."""
    if re.search(cell.metadata["expect"], _text(cell.outputs), re.MULTILINE):
        return None
    return (f"the prose expects {cell.metadata['expect']!r} under\n{cell.source}\n"
            f"    the cell shows {_text(cell.outputs)!r}")


def check_against_seed(cell) -> str | None:
    """None if an executed cell shows what real JAX showed for its seed cell, else why not."""
    ref = cell.metadata["seed"]
    exp = _seed_cell(ref)
    got_error = _error(cell.outputs)
    if exp["raises"] or got_error:
        if got_error != exp["raises"]:
            return f"{ref}: JAX raised {exp['raises']}, the notebook cell raised {got_error}"
        return None
    mode = cell.metadata.get("compare", "text")
    shown = (exp["display"],) if mode == "display" else (exp["stdout"], exp["display"])
    want = _squash("\n".join(t for t in shown if t))
    got = _squash(_text(cell.outputs))
    if mode == "numbers":
        same = _NUMBER.findall(got) == _NUMBER.findall(want)
    elif mode == "subsequence":
        seed_numbers, shown = iter(_NUMBER.findall(want)), _NUMBER.findall(got)
        same = bool(shown) and all(n in seed_numbers for n in shown)   # in order
    elif mode == "rounding":
        same = _same_up_to_rounding(got, want)
    else:
        same = got == want
    if not same:
        return f"{ref} ({mode}):\n    JAX showed     {want!r}\n    notebook shows {got!r}"
    return None


_executed: dict[Path, tuple[object, float]] = {}


_KERNELSPECS = tempfile.TemporaryDirectory(prefix="edujax-kernels-")  # removed at exit


@functools.cache
def _kernelspec_dir() -> str:
    """A Jupyter data folder holding the KERNEL_NAME kernel for this Python (sys.executable).

    Jupyter looks for kernels in JUPYTER_PATH first, then in the user's own folders, so the
    notebooks run on the interpreter running the tests, not on a kernel of the same name
    that the user may have registered for another Python or another checkout.
    """
    if KERNEL_NAME == "edujax":
        from edujax.kernel.install import kernel_json
        spec = kernel_json(sys.executable)
    else:
        spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3", "language": "python"}
    folder = Path(_KERNELSPECS.name)
    (folder / "kernels" / KERNEL_NAME).mkdir(parents=True)
    (folder / "kernels" / KERNEL_NAME / "kernel.json").write_text(json.dumps(spec))
    return str(folder)


@contextlib.contextmanager
def _kernel_environment():
    """The environment the kernel starts with: a student's, with this checkout's edujax.

    tests/conftest.py puts the test process on the reference backend; a student's kernel
    runs jit on the default (Numba) backend, so the kernel does too. Plots are drawn by the
    kernel's inline backend, not the Agg backend the seed tests choose.
    """
    changes = {
        "JUPYTER_PATH": os.pathsep.join(p for p in (_kernelspec_dir(),
                                                    os.environ.get("JUPYTER_PATH")) if p),
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        "EDUJAX_BACKEND": None,
        "EDUJAX_TIERED": None,
        "MPLBACKEND": None,
    }
    old = {name: os.environ.get(name) for name in changes}
    try:
        for name, value in changes.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_ANSWER = re.compile(r"```python\n(.*?)```", re.DOTALL)


def with_answers(nb):
    """The notebook plus, at its end, the code of the exercises' answers (from the <details>
    blocks), so that the answers a student unfolds are run and checked too."""
    for cell in [c for c in nb.cells if c.cell_type == "markdown" and "<details>" in c.source]:
        for code in _ANSWER.findall(cell.source[cell.source.index("<details>"):]):
            nb.cells.append(nbformat.v4.new_code_cell(code, metadata={"answer": True}))
    return nb


def run_notebook(path: Path):
    """Run one notebook on a fresh kernel, started in the notebook's folder as JupyterLab
    starts it: ``(executed notebook, seconds)``."""
    nb = with_answers(jupytext.read(path))
    client = nbclient.NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=CELL_TIMEOUT_S,
                                     resources={"metadata": {"path": str(path.parent)}},
                                     config=ipc_config())
    start = time.perf_counter()
    with _kernel_environment():
        client.execute()
    return nb, time.perf_counter() - start


def execute(path: Path):
    """Run one notebook on a fresh kernel (memoized: each notebook runs once per session)."""
    if path not in _executed:
        _executed[path] = run_notebook(path)
    return _executed[path]


def _ids(paths):
    return [str(p.relative_to(NOTEBOOKS).with_suffix("")) for p in paths]


@pytest.mark.parametrize("track", [NOTEBOOKS, NOTEBOOKS / "inside"], ids=["tutorials", "inside"])
def test_every_notebook_exists_in_both_languages(track):
    names = {lang: sorted(p.name for p in track.glob(f"{lang}/*.md")) for lang in LANGS}
    assert names["en"], f"no notebooks found under {track}/en/"
    assert names["en"] == names["ko"]


@pytest.mark.parametrize("path", PATHS, ids=_ids(PATHS))
def test_notebook_metadata(path):
    nb = jupytext.read(path)
    assert nb.metadata["kernelspec"]["name"] == "edujax"
    assert nb.metadata["jupytext"]["formats"] == "ipynb,md:myst"
    exercises = [c for c in nb.cells if c.cell_type == "markdown" and "<details>" in c.source]
    assert exercises, "every tutorial ends with exercises whose answers sit in a <details> block"
    for cell in nb.cells:
        if "seed" in cell.metadata:
            _seed_cell(cell.metadata["seed"])     # names a recorded cell
            assert cell.metadata.get("compare", "text") in COMPARE_MODES


@pytest.mark.parametrize("path", [p for p in PATHS if p.parent.name == "en"],
                         ids=_ids([p for p in PATHS if p.parent.name == "en"]))
def test_korean_and_english_run_the_same_code(path):
    """The two languages teach the same code (only comments differ) and check the same
    values, in the same order."""
    def cells(p):
        return [([line.split("#")[0].rstrip() for line in c.source.splitlines()],
                 c.metadata.get("seed"), c.metadata.get("compare"), c.metadata.get("expect"))
                for c in jupytext.read(p).cells if c.cell_type == "code"]
    assert cells(path) == cells(path.parent.parent / "ko" / path.name)


@pytest.mark.parametrize("path", PATHS, ids=_ids(PATHS))
def test_notebook_runs_and_prints_what_jax_prints(path):
    nb, seconds = execute(path)
    print(f"{path.relative_to(ROOT)}: executed in {seconds:.1f} s")
    checked = [c for c in nb.cells if c.cell_type == "code" and "seed" in c.metadata]
    problems = [p for p in map(check_against_seed, checked) if p]
    problems += [p for p in map(check_expectation,
                                [c for c in nb.cells if "expect" in c.metadata]) if p]
    problems += [f"cell tagged raises-exception raised nothing:\n{c.source}" for c in nb.cells
                 if "raises-exception" in c.metadata.get("tags", []) and not _error(c.outputs)]
    problems += warnings_before_their_explanation(nb)
    problems += [f"a hint box not in the notebook's language ({path.parent.name}):\n{c.source}"
                 for c in nb.cells if c.cell_type == "code" for box in _hint_boxes(c.outputs)
                 if f'lang="{path.parent.name}"' not in box]
    assert not problems, f"{len(problems)} of {len(checked)} checked cells differ from JAX:\n" + \
        "\n".join(problems)


# Warnings a tutorial shows on purpose (the EduJAX kernel prints them in red): the prose must
# say so before the first cell that shows one, not after a student has met a red block.
SHOWN_ON_PURPOSE = ("KeyReuseWarning",)


def warnings_before_their_explanation(nb) -> list[str]:
    problems, prose = [], ""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            prose += cell.source
            continue
        stderr = "".join(out.get("text", "") for out in cell.get("outputs", [])
                         if out.output_type == "stream" and out.name == "stderr")
        problems += [f"{name} is shown before the prose explains it, under:\n{cell.source}"
                     for name in SHOWN_ON_PURPOSE if name in stderr and name not in prose]
    return problems


def _fake_cell(ref, outputs, compare=None):
    metadata = {"seed": ref} | ({"compare": compare} if compare else {})
    return nbformat.from_dict({"cell_type": "code", "source": "", "metadata": metadata,
                               "outputs": outputs, "execution_count": 1})


def test_the_comparison_catches_a_wrong_value():
    """check_against_seed passes JAX's own output and fails a one-digit change, a missing
    line, a wrong exception type, and the same numbers in another order."""
    def stream(text):
        return {"output_type": "stream", "name": "stdout", "text": text}

    jax_said = _seed_cell("seed_000:58")["stdout"]               # "30.0\n[2. 4. 6. 8.]\n"
    assert check_against_seed(_fake_cell("seed_000:58", [stream(jax_said)])) is None
    assert check_against_seed(_fake_cell("seed_000:58", [stream(jax_said.replace("8", "9"))]))
    assert check_against_seed(_fake_cell("seed_000:58", [stream("30.0\n")]))
    error = {"output_type": "error", "ename": "TypeError", "evalue": "", "traceback": []}
    assert check_against_seed(_fake_cell("seed_004:120", [error]))   # JAX: TracerBoolConversion
    assert check_against_seed(_fake_cell("seed_000:58", [error]))
    numbers = "key [1832780943 270669613]"
    assert check_against_seed(_fake_cell("seed_004:441", [stream(numbers)], "numbers"))
    display = {"output_type": "execute_result", "execution_count": 1, "metadata": {},
               "data": {"text/plain": "Array([11., 20., 29.], dtype=float32)"}}
    assert check_against_seed(_fake_cell("seed_004:292", [display])) is None
    display["data"]["text/plain"] = "Array([11., 20., 28.], dtype=float32)"
    assert check_against_seed(_fake_cell("seed_004:292", [display]))


# What the tutorials must go on checking against real JAX, by kind (seed cells, see above).
MUST_CHECK = {
    "PRNG keys and draws": ["seed_001:53", "seed_004:424", "seed_004:441"],
    "gradients": ["seed_000:58", "seed_000:80", "seed_000:92", "seed_001:162", "seed_001:178",
                  "seed_001:195", "seed_002:118", "seed_002:149"],
    "jaxprs": ["seed_004:14", "seed_004:36", "seed_004:58", "seed_004:75"],
    "error types": ["seed_002:130", "seed_002:183", "seed_004:120", "seed_004:135"],
    "jit, vmap, pytrees": ["seed_003:76", "seed_003:109", "seed_004:160", "seed_004:182",
                           "seed_004:199", "seed_004:292", "seed_004:346", "seed_004:358",
                           "seed_004:512"],
}


@pytest.mark.parametrize("lang", LANGS)
def test_the_tutorials_check_what_the_seeds_print(lang):
    checked = {c.metadata["seed"] for p in TUTORIALS if p.parent.name == lang
               for c in jupytext.read(p).cells if "seed" in c.metadata}
    missing = {kind: sorted(set(refs) - checked) for kind, refs in MUST_CHECK.items()}
    assert not any(missing.values()), f"no {lang} notebook checks {missing}"


def test_the_kernels_hints_point_to_existing_tutorials():
    """The edujax kernel's error boxes name the tutorial that explains the error."""
    hints = importlib.import_module("edujax.kernel.hints")
    paths = {value for name, value in vars(hints).items() if name.endswith("_TUTORIAL")}
    assert paths
    for path in paths:
        assert (ROOT / path).is_file(), f"edujax/kernel/hints.py points to {path}, which is missing"
        korean = path.replace("/en/", "/ko/")
        assert (ROOT / korean).is_file(), f"edujax/kernel/hints.py points to {korean}, missing"


def test_an_expectation_fails_when_a_cell_contradicts_its_prose():
    """The pmap section's device cell, as it printed when the kernel read the device count
    before the notebook set it (1 device under prose that says 4), fails its ``:expect:``."""
    nb = jupytext.read(NOTEBOOKS / "en" / "05_jit_and_jaxprs.md")
    cell = next(c for c in nb.cells
                if "local_device_count()" in c.source and "expect" in c.metadata)

    def shown(text):
        return nbformat.from_dict({"cell_type": "code", "source": cell.source,
                                   "metadata": cell.metadata, "execution_count": 1,
                                   "outputs": [{"output_type": "stream", "name": "stdout",
                                                "text": text}]})
    assert check_expectation(shown("1 [CpuDevice(id=0)]\n"))
    four = ", ".join(f"CpuDevice(id={i})" for i in range(4))
    assert check_expectation(shown(f"4 [{four}]\n")) is None


def test_the_tier_demo_shows_the_switch_on_a_cold_and_a_warm_disk_cache(tmp_path, monkeypatch):
    """inside/05's tier demo says what the prose says (a first call on one tier, then a switch)
    whatever the disk cache holds: run twice on one cache folder, the first time cold, the
    second warm (the kernels of every other cell already compiled there, as after a test run
    or on Binder)."""
    monkeypatch.setenv("EDUJAX_CACHE_DIR", str(tmp_path))
    path = NOTEBOOKS / "inside" / "en" / "05_jit_and_numba.md"
    for run in ("cold", "warm"):
        nb, _ = run_notebook(path)
        demo = [c for c in nb.cells if "first_tier" in c.source]
        assert demo and "expect" in demo[0].metadata
        assert check_expectation(demo[0]) is None, f"{run} cache: {check_expectation(demo[0])}"
    assert any(tmp_path.iterdir()), "the notebook's other cells compiled into the shared cache"


def test_a_red_warning_before_its_explanation_is_caught():
    warned = nbformat.v4.new_code_cell("random.normal(key)", outputs=[nbformat.v4.new_output(
        "stream", name="stderr", text="KeyReuseWarning: key reused\n")])
    late = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("Keys."), warned])
    assert warnings_before_their_explanation(late)
    early = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "This cell reuses a key on purpose: a red `KeyReuseWarning` follows."), warned])
    assert warnings_before_their_explanation(early) == []


_EDUJAX_ONLY = re.compile(r"%%?jaxpr|%%?jittime|\bviz\.\w+")


@pytest.mark.parametrize("path", TUTORIALS, ids=_ids(TUTORIALS))
def test_an_intro_that_promises_real_jax_names_every_edujax_only_cell(path):
    """A tutorial whose introduction says its cells run unchanged on real JAX "except ..."
    names, in that introduction, everything its code uses that only edujax has."""
    nb = jupytext.read(path)
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    intro = "\n".join(c.source for c in nb.cells[:first_code] if c.cell_type == "markdown")
    if not re.search(r"runs on real JAX|실제 JAX에서 그대로", intro):
        return
    used = {m.group(0).lstrip("%") for c in nb.cells if c.cell_type == "code"
            for m in _EDUJAX_ONLY.finditer(c.source)}
    missing = sorted(name for name in used if name not in intro)
    assert not missing, f"the introduction of {path.name} does not mention {missing}"
