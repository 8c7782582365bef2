"""``python -m edujax.grading``: the teacher's commands.

    python -m edujax.grading assign [EXERCISES...] [--out dist/exercises]
        master notebooks -> student notebooks (no solutions, no hidden tests) + autograders
    python -m edujax.grading grade SUBMISSIONS... --assignment dist/exercises/NAME --csv OUT
        grade notebooks (files or folders) in parallel, contained; one CSV row each
    python -m edujax.grading selftest [EXERCISES...]
        every assignment: the solution gets full marks, the student notebook 0, each typical
        wrong answer its intended score and feedback; ends with "N passed, N failed"
    python -m edujax.grading collect ASSIGNMENT --homes /home --out submissions/ASSIGNMENT
        each student's ~/assignments/ASSIGNMENT/ASSIGNMENT.ipynb -> OUT/<account>.ipynb
        (the course hub's homes, course/)
    python -m edujax.grading inside OUT [--solution]
        a copy of edujax with pieces removed for the student to write (pytest -m task_N)

EXERCISES are exercise folders or folders of them (default: course-kit/exercises).
They need otter-grader: pip install "edujax[grading]".
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from edujax.grading.runner import Limits

DEFAULT_EXERCISES = Path(__file__).resolve().parent.parent.parent / "course-kit" / "exercises"
DEFAULT_OUT = Path("dist/exercises")


def _limits(args: argparse.Namespace) -> Limits:
    return Limits(timeout=args.timeout, cell_timeout=args.cell_timeout,
                  memory_mb=args.memory_mb, cpu_seconds=int(max(args.timeout, 60) * 2))


def _add_limits(parser: argparse.ArgumentParser) -> None:
    defaults = Limits()
    parser.add_argument("--jobs", "-j", type=int, default=None,
                        help="submissions graded at once (default: cores + 1, at most 4)")
    parser.add_argument("--timeout", type=float, default=defaults.timeout,
                        help="seconds for one whole submission (default %(default)s)")
    parser.add_argument("--cell-timeout", type=float, default=defaults.cell_timeout,
                        help="seconds for one cell (default %(default)s)")
    parser.add_argument("--memory-mb", type=int, default=defaults.memory_mb,
                        help="memory of a submission's processes together (default %(default)s)")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run notebooks without the bubblewrap sandbox (where it cannot "
                             "run); every row says so, and nothing protects the grades")


def cmd_assign(args: argparse.Namespace) -> int:
    from edujax.grading.assign import assign_one, find_exercises

    for folder in find_exercises(args.exercises or [DEFAULT_EXERCISES]):
        assignment = assign_one(folder, args.out)
        print(f"{assignment.name}: {assignment.student} + {assignment.autograder}")
    return 0


def sandbox_or_refuse(args: argparse.Namespace) -> bool:
    """True to sandbox; prints why and exits when the sandbox cannot run here."""
    if args.no_sandbox:
        print("WARNING: --no-sandbox: notebooks run as plain processes of your user; the "
              "tests and scores stay in the grader, but a notebook can read and change "
              "whatever you can (the autograder, other submissions, your files, the network). "
              "Every row is marked 'NO (--no-sandbox)'.", file=sys.stderr)
        return False
    from edujax.grading.sandbox import SandboxUnavailable, check_available
    try:
        check_available()
    except SandboxUnavailable as error:
        sys.exit(f"cannot grade safely: {error}. Pass --no-sandbox to grade without it "
                 "(only notebooks you trust).")
    return True


def cmd_grade(args: argparse.Namespace) -> int:
    from edujax.grading.assign import load_assignment
    from edujax.grading.grade import (find_submissions, grade_many, write_csv,
                                      write_feedback_files)

    autograder = args.autograder or load_assignment(args.assignment).autograder
    submissions = find_submissions(args.submissions)
    start = time.perf_counter()

    def report(result) -> None:
        note = f"  ({result.status}: {result.message})" if result.status != "graded" else ""
        print(f"{result.total:g}/{result.possible:g}  {result.submission}{note}", flush=True)

    sandboxed = sandbox_or_refuse(args)
    results = grade_many(submissions, autograder, limits=_limits(args), jobs=args.jobs,
                         keep=args.keep, on_result=report, sandboxed=sandboxed,
                         language=args.language, languages=roster_languages(args.roster))
    write_csv(results, args.csv)
    print(f"graded {len(results)} submission(s) in {time.perf_counter() - start:.1f} s "
          f"-> {args.csv}")
    if args.feedback:
        write_feedback_files(results, args.feedback)
        print(f"feedback for each student -> {args.feedback}/")
    if args.canvas:
        export_canvas(results, args, autograder)
    return 0


def roster_languages(roster: Path | None) -> dict[str, str]:
    """{submission file name: "ko" or "en"} from the roster's ``language`` column."""
    if roster is None:
        return {}
    from edujax.grading.canvas import read_roster

    try:
        rows = read_roster(roster)
    except (OSError, ValueError) as error:
        sys.exit(f"cannot read the roster: {error}")
    return {Path(row["submission"]).name: row["language"] for row in rows
            if row.get("language")}


def export_canvas(results: list, args: argparse.Namespace, autograder: Path) -> None:
    from edujax.grading.canvas import canvas_rows, read_roster
    from edujax.grading.grade import _write_rows_atomically
    from edujax.grading.runner import assignment_name

    if not args.roster:
        sys.exit("--canvas needs --roster ROSTER.csv (student, id, submission columns)")
    name = args.canvas_assignment or assignment_name(autograder) or autograder.stem
    rows, unmatched = canvas_rows(results, read_roster(args.roster), name)
    _write_rows_atomically(rows, args.canvas)
    print(f"Canvas gradebook import ({len(rows) - 2} students) -> {args.canvas}")
    for submission in unmatched:
        print(f"  not on the roster: {submission}")


def cmd_selftest(args: argparse.Namespace) -> int:
    from edujax.grading.assign import assign_one, find_exercises
    from edujax.grading.grade import default_jobs
    from edujax.grading.runner import grade_submission, possible_points, preload
    from edujax.grading.selftest import cases_for, hidden_test_leaks, judge

    sandboxed = sandbox_or_refuse(args)
    preload()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="edujax-selftest-") as tmp:
        out = args.out or Path(tmp) / "dist"
        cases, passed, failed = [], 0, 0
        for folder in find_exercises(args.exercises or [DEFAULT_EXERCISES]):
            assignment = assign_one(folder, out)
            leaks = hidden_test_leaks(assignment)
            ok = not leaks
            passed, failed = passed + ok, failed + (not ok)
            print(f"{'PASS' if ok else 'FAIL'}  {assignment.name:<24} hidden tests kept out "
                  f"of the student notebook{'' if ok else ': ' + '; '.join(leaks)}", flush=True)
            cases += cases_for(assignment, folder, Path(tmp))
        points = {a.autograder: possible_points(a.autograder)
                  for a in {c.assignment for c in cases}}
        limits = _limits(args)

        def run(case):
            auto = case.assignment.autograder
            # wrong_answers.yml's feedback phrases are English: checked in English
            return case, grade_submission(case.submission, auto, limits, points[auto],
                                          sandboxed=sandboxed, language="en")

        with ThreadPoolExecutor(max_workers=args.jobs or default_jobs()) as pool:
            for case, result in pool.map(run, cases):
                problems = judge(case, result)
                passed, failed = passed + (not problems), failed + bool(problems)
                verdict = "PASS" if not problems else "FAIL"
                detail = "" if not problems else "  <- " + "; ".join(problems)
                print(f"{verdict}  {case.assignment.name:<24} {case.name:<48} "
                      f"{result.total:g}/{result.possible:g}{detail}", flush=True)
    print(f"selftest took {time.perf_counter() - start:.0f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def cmd_collect(args: argparse.Namespace) -> int:
    from edujax.grading.collect import collect

    collected = collect(args.assignment, args.homes, args.out)
    for account, why in collected.missing.items():
        print(f"{account}: nothing collected ({why})")
    print(f"collected {len(collected.found)} submission(s) of {args.assignment} -> {args.out}")
    return 0


def cmd_inside(args: argparse.Namespace) -> int:
    from edujax.grading.inside import make_student_copy

    tasks = make_student_copy(args.tasks, args.out, solution=args.solution)
    what = "nothing removed (the solution)" if args.solution else "removed: " + ", ".join(
        f"task {t.number} ({t.title})" for t in tasks)
    print(f"{args.out}: edujax and its task tests; {what}")
    print(f"work on a task with: cd {args.out} && python -m pytest -m task_1")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m edujax.grading",
                                     description="Graded exercises: assign, grade, selftest.")
    commands = parser.add_subparsers(dest="command", required=True)

    assign = commands.add_parser("assign", help="master notebooks -> student + autograder")
    assign.add_argument("exercises", nargs="*", type=Path)
    assign.add_argument("--out", type=Path, default=DEFAULT_OUT)
    assign.set_defaults(run=cmd_assign)

    grade = commands.add_parser("grade", help="grade submissions into a CSV")
    grade.add_argument("submissions", nargs="+", type=Path)
    which = grade.add_mutually_exclusive_group(required=True)
    which.add_argument("--assignment", type=Path, help="a folder that `assign` wrote")
    which.add_argument("--autograder", type=Path, help="an autograder zip")
    grade.add_argument("--csv", type=Path, required=True)
    grade.add_argument("--keep", type=Path, default=None,
                       help="save each executed notebook (outputs and all) in this folder")
    grade.add_argument("--feedback", type=Path, default=None,
                       help="write each student's feedback (no hidden test's explanation) "
                            "as <submission>.feedback.txt in this folder")
    grade.add_argument("--canvas", type=Path, default=None,
                       help="also write a Canvas gradebook import CSV here (needs --roster)")
    grade.add_argument("--roster", type=Path, default=None,
                       help="CSV with columns student, id, submission (and optionally "
                            "sis_user_id, sis_login_id, section, language: ko or en, the "
                            "language of that student's feedback)")
    grade.add_argument("--language", choices=["ko", "en"], default=None,
                       help="the language of the feedback for students the roster gives none "
                            "(default: EDUJAX_LANG, else the locale)")
    grade.add_argument("--canvas-assignment", default=None,
                       help="the assignment's column name in Canvas (default: its name)")
    _add_limits(grade)
    grade.set_defaults(run=cmd_grade)

    selftest = commands.add_parser("selftest", help="check every assignment's tests")
    selftest.add_argument("exercises", nargs="*", type=Path)
    selftest.add_argument("--out", type=Path, default=None,
                          help="keep the assigned notebooks here (default: a temporary folder)")
    _add_limits(selftest)
    selftest.set_defaults(run=cmd_selftest)

    collect = commands.add_parser("collect", help="students' submissions from their homes")
    collect.add_argument("assignment", help="the assignment's name, e.g. 01-grad-argnums")
    collect.add_argument("--homes", type=Path, default=Path("/home"))
    collect.add_argument("--out", type=Path, required=True)
    collect.set_defaults(run=cmd_collect)

    inside = commands.add_parser("inside", help="a copy of edujax with pieces to write")
    inside.add_argument("out", type=Path)
    inside.add_argument("--tasks", type=Path, default=DEFAULT_EXERCISES / "inside",
                        help="the folder with tasks.yml and tests/ (default %(default)s)")
    inside.add_argument("--solution", action="store_true", help="remove nothing")
    inside.set_defaults(run=cmd_inside)

    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
