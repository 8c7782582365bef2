"""`python -m edujax.grading selftest`, as the teacher runs it: every assignment in
course-kit/exercises/ must pass (solution full marks, student notebook 0, each typical
wrong answer its intended score and feedback), and a wrong expectation must fail."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "course-kit" / "exercises"


def selftest(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "edujax.grading", "selftest", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


def expected_cases(folder: Path) -> int:
    """Hidden-test check + solution + student notebook + one per typical wrong answer."""
    wrong = yaml.safe_load((folder / "wrong_answers.yml").read_text()) or []
    return 3 + len(wrong)


def test_selftest_passes_for_every_assignment():
    folders = sorted(p for p in EXERCISES.iterdir() if (p / f"{p.name}.py").exists())
    assert len(folders) >= 10
    run = selftest()
    lines = run.stdout.splitlines()
    total = sum(expected_cases(f) for f in folders)
    assert lines[-1] == f"{total} passed, 0 failed", run.stdout + run.stderr[-3000:]
    assert run.returncode == 0
    for folder in folders:
        mine = [line for line in lines if f" {folder.name} " in line]
        assert len(mine) == expected_cases(folder), folder.name
        assert all(line.startswith("PASS") for line in mine)


def test_selftest_fails_a_wrong_expectation(tmp_path):
    folder = tmp_path / "01-grad-argnums"
    shutil.copytree(EXERCISES / "01-grad-argnums", folder)
    (folder / "wrong_answers.yml").write_text(
        "- name: expects full marks for a wrong loss\n"
        "  answers:\n"
        "    q1: |\n"
        "      def loss(w, x, y):\n"
        "          return 0.0\n"
        "  scores: {}\n"
        "  feedback: []\n")
    run = selftest(str(folder))
    lines = run.stdout.splitlines()
    assert lines[-1] == "3 passed, 1 failed", run.stdout
    assert run.returncode == 1
    failure = next(line for line in lines if line.startswith("FAIL"))
    assert "expects full marks for a wrong loss" in failure and "q1 scored 0, expected 2" in failure
