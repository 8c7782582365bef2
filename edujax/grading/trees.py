"""Compare two pytrees (dicts of parameters, tuples of gradients...) leaf by leaf.

A wrong structure is named by its path (``['layer1']['b']``), and a wrong leaf by its
path *and* the explanation ``check_close`` gives for it, so a student who updated the
weights but forgot the biases reads exactly that.
"""
from __future__ import annotations

from typing import Any

from edujax import tree_util
from edujax.grading.values import DEFAULT_ATOL, DEFAULT_RTOL, YOUR_RESULT, check_close
from edujax.grading.verdict import PASSED, Verdict, failed
from edujax.language import Text

MISSING = Text("missing {paths}", "빠진 것 {paths}")
UNEXPECTED = Text("unexpected {paths}", "예상 밖의 것 {paths}")
OTHER_CONTAINERS = Text("you have {got}, expected {want}",
                        "여러분의 것은 {got}, 기대한 것은 {want}")
WRONG_STRUCTURE = Text("{name} does not have the expected structure: {details}.",
                       "{name}의 구조가 기대한 구조와 다릅니다: {details}.")


def _paths(tree: Any) -> list[str]:
    return [tree_util.keystr(path) for path, _ in tree_util.tree_flatten_with_path(tree)[0]]


def check_tree_structure(actual: Any, expected: Any, *, name: str | None = None) -> Verdict:
    """Same containers, same keys, same number of leaves?"""
    name = str(YOUR_RESULT) if name is None else name
    if tree_util.tree_structure(actual) == tree_util.tree_structure(expected):
        return PASSED
    got, want = _paths(actual), _paths(expected)
    missing = [p for p in want if p not in got]
    extra = [p for p in got if p not in want]
    details = []
    if missing:
        details.append(MISSING.format(paths=", ".join(missing[:5])))
    if extra:
        details.append(UNEXPECTED.format(paths=", ".join(extra[:5])))
    if not details:  # same paths, different containers (a list where a tuple was expected)
        details.append(OTHER_CONTAINERS.format(got=tree_util.tree_structure(actual),
                                               want=tree_util.tree_structure(expected)))
    return failed(WRONG_STRUCTURE.format(name=name, details="; ".join(details)))


def check_tree_close(actual: Any, expected: Any, *, rtol: float = DEFAULT_RTOL,
                     atol: float = DEFAULT_ATOL, name: str | None = None) -> Verdict:
    """Same structure, and every leaf close to the expected leaf (see ``check_close``)."""
    name = str(YOUR_RESULT) if name is None else name
    verdict = check_tree_structure(actual, expected, name=name)
    if not verdict:
        return verdict
    got = tree_util.tree_leaves(actual)
    for (path, want), leaf in zip(tree_util.tree_flatten_with_path(expected)[0], got):
        verdict = check_close(leaf, want, rtol=rtol, atol=atol,
                              name=f"{name}{tree_util.keystr(path)}")
        if not verdict:
            return verdict
    return PASSED


def assert_tree_close(actual: Any, expected: Any, **options: Any) -> None:
    """``check_tree_close``, raising ``GradingError`` with the explanation when it fails."""
    check_tree_close(actual, expected, **options).or_raise()
