"""A check's answer: passed or not, and *why* in words a student can act on.

Generic graders answer ``False`` (or ``AssertionError`` with no message). Every check in
``edujax.grading`` answers a ``Verdict`` instead: it is truthy when the check passed and
carries an explanation when it did not, such as "element [2] differs: you returned 0.5,
expected 0.25 (max abs error 0.25, tolerance 1e-05)".

Two ways to use one, both short:

    verdict = check_close(my_grad, expected)   # look at it: bool(verdict), verdict.explanation
    assert_close(my_grad, expected)            # or raise GradingError(explanation) if it failed

The ``assert_*`` form is the one tests use: pytest and otter both show the exception's
message, so the explanation is exactly what the student reads.
"""
from __future__ import annotations

from typing import NamedTuple

from edujax.language import Text

YOUR_FUNCTION = Text("your function", "여러분의 함수")
NOT_RUN = Text("the check could not be run on your function",
               "여러분의 함수로는 검사를 실행할 수 없었습니다")
RETURNED_NONE = Text("your function returned None: did it forget to `return` its result (or is "
                     "its body still the placeholder `...`)?",
                     "여러분의 함수가 None을 돌려주었습니다: 결과를 `return`하지 않았거나, 본문이 "
                     "아직 자리표시자 `...`인가요?")


class GradingError(AssertionError):
    """A check failed. The message is the explanation meant for the student.

    It is an ``AssertionError`` so that pytest and otter report it as a failed test,
    not as a crash of the test itself.
    """


class Verdict(NamedTuple):
    passed: bool
    explanation: str = ""

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return "Verdict(passed)" if self.passed else f"Verdict(failed: {self.explanation})"

    def or_raise(self) -> None:
        """Raise ``GradingError(explanation)`` unless the check passed."""
        if not self.passed:
            raise GradingError(self.explanation)


PASSED = Verdict(True)


def reported(data: object) -> Verdict:
    """A verdict the sandbox reported as plain data ``[passed, explanation]``: anything
    else, or a ``passed`` that is not exactly ``True``, is a failure."""
    if isinstance(data, (list, tuple)) and len(data) == 2 and isinstance(data[1], str):
        return Verdict(data[0] is True, data[1][:1000])
    return Verdict(False, str(NOT_RUN))


def failed(explanation: str) -> Verdict:
    return Verdict(False, explanation)
