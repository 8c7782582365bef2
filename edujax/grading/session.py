"""One submission's grading session: the notebook's cells in the sandbox, in order, and
each question's tests here at its ``grader.check`` cell (see ``trusted.py``)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from edujax.grading.feedback import QuestionResult
from edujax.grading.remote import Notebook, NotebookStopped
from edujax.grading.sandbox import SandboxLimits
from edujax.grading.trusted import (checked_questions, earlier_failure_hint, load_questions,
                                    load_setup, run_question, setup_namespace, with_cell_error)


def grade_notebook(nb: Any, autograder: Path, limits: Any, workdir: Path,
                   sandboxed: bool = True) -> tuple[list[QuestionResult], str, str, float]:
    """(question results in order, status, message, the notebook's peak MiB) for ``nb``."""
    questions = {q.name: q for q in load_questions(autograder)}
    namespace = setup_namespace(load_setup(autograder))
    home = None
    if not sandboxed:
        home = workdir / "home"
        home.mkdir()
    notebook = Notebook(SandboxLimits(limits.memory_mb, limits.cpu_seconds, limits.file_mb,
                                      limits.processes), home=home)
    results: dict[str, QuestionResult] = {}
    pending_errors: list[str] = []
    try:
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            try:
                reply = notebook.run_cell(cell.source, limits.cell_timeout)
            except NotebookStopped:
                break
            cell["outputs"] = _outputs(reply)
            if reply["error"]:
                pending_errors.append(reply["error"])
            for name in checked_questions(cell.source):
                if name in questions and name not in results:
                    error = pending_errors[0] if pending_errors else None
                    results[name] = _grade(questions[name], namespace, notebook, results, error,
                                           workdir)
                pending_errors = []
        for name, question in questions.items():  # questions the notebook never checked
            if name not in results:
                results[name] = _grade(question, namespace, notebook, results, None, workdir)
    finally:
        notebook.stop()
        _save_executed(nb, workdir)
    why = notebook.stopped if notebook.stopped != "finished" else None
    ordered = [results[name] for name in questions]
    if why is None:
        return ordered, "graded", "", notebook.peak_mb
    status = "timed out" if "did not answer" in why else "stopped"
    return (ordered, status, f"the notebook was stopped: {why}; questions checked before that "
            "keep their score", notebook.peak_mb)


def _grade(question: Any, namespace: dict, notebook: Notebook,
           results: dict[str, QuestionResult], cell_error: str | None,
           workdir: Path) -> QuestionResult:
    if notebook.stopped:
        result = QuestionResult(question.name, 0.0, question.possible,
                                f"not reached / 채점되지 않음: the notebook was stopped "
                                f"({notebook.stopped})")
    else:
        try:
            result = run_question(question, namespace, notebook.get)
        except NotebookStopped:
            return _grade(question, namespace, notebook, results, cell_error, workdir)
        result = with_cell_error(result, cell_error)
        result = earlier_failure_hint(result, list(results.values()))
    with open(workdir / "progress.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(result._asdict()) + "\n")
    return result


def _outputs(reply: dict) -> list:
    import nbformat

    outputs = []
    if reply.get("output"):
        outputs.append(nbformat.v4.new_output("stream", name="stdout", text=reply["output"]))
    if reply.get("error"):
        name, _, value = reply["error"].partition(": ")
        outputs.append(nbformat.v4.new_output("error", ename=name, evalue=value, traceback=[]))
    return outputs


def _save_executed(nb: Any, workdir: Path) -> None:
    import nbformat

    try:
        nbformat.write(nb, workdir / "executed.ipynb")
    except Exception:  # the executed copy is a convenience for the teacher
        pass
