"""A class in minutes? Grade 100 mixed submissions of assignment 1, sandbox on.

    .venv/bin/python benchmarks/grading.py [--count 100] [--jobs N] [--no-sandbox]

The submissions are built from the assignment's own notebooks: correct ones (40),
partial (25: one question wrong), blank (15: the untouched student notebook) and hostile
(20: patching the checks, an oracle, reading secrets, forking, loops that ignore
interrupts, memory hogs). Prints the total time, the time per submission, the grader's
peak memory and the largest sandboxed process's, and checks every score on the way (a
benchmark that grades wrongly measures nothing).
"""
from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from edujax.grading.assign import assign_one  # noqa: E402
from edujax.grading.grade import default_jobs, grade_many  # noqa: E402
from edujax.grading.runner import Limits  # noqa: E402
from edujax.grading.selftest import wrong_notebook  # noqa: E402

EXERCISE = ROOT / "course-kit" / "exercises" / "01-grad-argnums"
# kind -> (share of the class, base notebook, answers, the highest total it may score)
MIX = [
    ("correct", 40, "solution", {}, 6),
    ("partial", 25, "solution", {"q3": "def grad_x(w, x, y):\n    return jax.grad(loss)(w, x, y)"},
     4),
    ("blank", 15, "student", {}, 0),
    ("hostile-patch", 4, "student", {"q1": "import edujax.grading as g\n"
                                           "g.assert_close = lambda *a, **k: None\n"
                                           "def loss(w, x, y):\n    return 0.0"}, 0),
    ("hostile-oracle", 4, "student", {"q1": "import gc\ndef loss(w, x, y):\n"
                                            "    return [o for o in gc.get_objects()"
                                            " if isinstance(o, dict)][:3]"}, 0),
    ("hostile-secrets", 4, "student", {"q1": "import os, glob\ndef loss(w, x, y):\n"
                                             "    raise ValueError(str(glob.glob('/**/*.zip', "
                                             "recursive=True)) + str(os.environ))"}, 0),
    ("hostile-fork", 4, "solution", {"q3": "import os, time\nfor _ in range(100):\n"
                                           "    try:\n        pid = os.fork()\n"
                                           "    except OSError:\n        break\n"
                                           "    if pid == 0:\n        time.sleep(60)\n"
                                           "        os._exit(0)\n"
                                           "def grad_x(w, x, y):\n"
                                           "    return jax.grad(loss, 1)(w, x, y)"}, 6),
    ("hostile-loop", 2, "solution", {"q3": "import signal\n"
                                           "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                                           "while True:\n    pass"}, 4),
    ("hostile-memory", 2, "solution", {"q3": "x_ = bytearray(3 * 1024 ** 3)"}, 4),
]


def build(folder: Path, count: int) -> list[tuple[Path, str, float]]:
    assignment = assign_one(EXERCISE, folder / "dist")
    total_share = sum(share for _, share, *_ in MIX)
    built = []
    for kind, share, base, answers, best in MIX:
        source = assignment.solution if base == "solution" else assignment.student
        for i in range(max(1, round(count * share / total_share))):
            path = wrong_notebook(source, answers, folder / f"{kind}-{i:03d}.ipynb")
            built.append((path, kind, best))
    return built[:count], assignment


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--no-sandbox", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="edujax-bench-grading-") as tmp:
        built, assignment = build(Path(tmp), args.count)
        limits = Limits(timeout=120, cell_timeout=10, memory_mb=1500)
        jobs = args.jobs or default_jobs()
        start = time.perf_counter()
        results = grade_many([p for p, _, _ in built], assignment.autograder, limits=limits,
                             jobs=jobs, sandboxed=not args.no_sandbox)
        elapsed = time.perf_counter() - start
    wrong = [(kind, r.total, best) for (_, kind, best), r in zip(built, results)
             if r.total > best or (kind in ("correct", "partial") and r.total != best)]
    grader_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    notebook_mb = max(r.peak_mb for r in results)
    typical_mb = sorted(r.peak_mb for r in results)[len(results) // 2]
    kinds = {kind for _, kind, _ in built}
    print(f"{len(results)} submissions ({len(kinds)} kinds), {jobs} at a time, "
          f"sandbox {'off' if args.no_sandbox else 'on'}")
    print(f"total {elapsed:.1f} s, {elapsed / len(results):.2f} s per submission")
    print(f"peak memory: grader {grader_mb:.0f} MiB; a sandboxed notebook (all its processes) "
          f"{typical_mb:.0f} MiB typical, {notebook_mb:.0f} MiB the largest")
    print("statuses: " + ", ".join(f"{s} {sum(r.status == s for r in results)}"
                                    for s in sorted({r.status for r in results})))
    if wrong:
        print(f"WRONG SCORES: {wrong}")
        return 1
    print("every score as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
