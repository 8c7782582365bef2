"""What ``grader.check("q1")`` shows a student: a short verdict per test, in Korean or
English, instead of otter's doctest transcript.

otter shows a failed check as ~25 lines of doctest trace ("Trying: ... Expecting nothing
... Traceback (most recent call last): File ".../edujax/grading/values.py" ...") with the
one useful sentence last. Here each test gets one line: passed, or the explanation the
check wrote (what was checked, what the student had, what was expected), in the notebook's
language (``edujax.language``: the ``edujax_language`` option, ``EDUJAX_LANG``, a ``ko``/``en``
folder, the locale). When an earlier question failed too, a hint says that this one may only
fail because of it.

``import edujax.grading.check_view`` (the exercises' first cell does it) registers the
view with IPython for otter's result objects; it changes nothing else.
"""
from __future__ import annotations

import html
from typing import Any

from edujax.grading.feedback import case_feedback
from edujax.language import Text

_failed_questions: dict[str, bool] = {}  # question -> failed at its last check

ALL_PASSED = Text("{name}: passed (all {count} tests)", "{name}: 통과 ({count}개 테스트 모두)")
SOME_PASSED = Text("{name}: {passed} of {count} tests passed",
                   "{name}: {count}개 테스트 중 {passed}개 통과")
CASE_PASSED = Text("  [pass] test {number}", "  [통과] 테스트 {number}")
CASE_FAILED = Text("  [fail] test {number}: {why}", "  [실패] 테스트 {number}: {why}")
EARLIER_FAILED = Text("  Hint: {names} failed too; if this answer uses it, fix that first.",
                      "  도움말: 앞 문제 {names}도 틀렸습니다. 이 답이 그것을 쓴다면 먼저 "
                      "고치세요.")


def verdict_lines(test_file: Any) -> list[str]:
    """The verdict as lines of text, in the notebook's language (``edujax.language``): a
    title, one line per test, maybe a hint."""
    results = list(test_file.test_case_results)
    passed = sum(1 for r in results if r.passed)
    name = test_file.name
    _failed_questions[name] = passed < len(results)
    if passed == len(results):
        return [ALL_PASSED.format(name=name, count=len(results))]
    lines = [SOME_PASSED.format(name=name, passed=passed, count=len(results))]
    for i, result in enumerate(results, start=1):
        if result.passed:
            lines.append(CASE_PASSED.format(number=i))
        else:
            why = case_feedback(result.message).removeprefix("GradingError: ")
            lines.append(CASE_FAILED.format(number=i, why=why))
    earlier = [q for q, failed in _failed_questions.items() if failed and q < name]
    if earlier:
        lines.append(EARLIER_FAILED.format(names=", ".join(earlier)))
    return lines


def _plain(test_file: Any, printer: Any, cycle: bool) -> None:
    printer.text("\n".join(verdict_lines(test_file)))


def _html(test_file: Any) -> str:
    lines = verdict_lines(test_file)
    failed = _failed_questions.get(test_file.name, False)
    color = "#b42318" if failed else "#067647"
    body = "<br>".join(html.escape(line).replace("  ", "&nbsp;&nbsp;") for line in lines[1:])
    return (f"<div style='border-left:4px solid {color};padding:4px 10px;font-family:"
            f"sans-serif'><strong style='color:{color}'>{html.escape(lines[0])}</strong>"
            f"{'<br>' + body if body else ''}</div>")


def install() -> None:
    """Register the view for otter's test results in the running IPython (if any)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    formatters = shell.display_formatter.formatters
    for module, name in (("otter.test_files.ok_test", "OKTestFile"),
                         ("otter.test_files.metadata_test", "NotebookMetadataOKTestFile"),
                         ("otter.test_files.exception_test", "ExceptionTestFile")):
        formatters["text/plain"].for_type_by_name(module, name, _plain)
        formatters["text/html"].for_type_by_name(module, name, _html)


install()
