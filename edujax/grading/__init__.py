"""``edujax.grading``: checks for graded exercises that explain, not just fail.

A test that says ``assert grads == expected`` tells a student *that* they are wrong.
These checks tell them *how*: the first differing element and the size of the error,
the shape that is transposed, the equation where their jaxpr parts ways with the
expected one, the PRNG key used twice, the Python ``if`` that jit cannot trace.

Every ``check_*`` returns a ``Verdict`` (truthy when it passed, with an
``.explanation`` when not); every ``assert_*`` raises ``GradingError`` carrying that
explanation, which is what otter and pytest show the student. They work in otter's
notebook tests and in plain pytest alike.

The teacher's side (``python -m edujax.grading assign | grade | selftest``) lives in
the modules ``assign``, ``grade``, ``runner`` and ``selftest``; it needs otter-grader
(``pip install "edujax[grading]"``), which only those modules import.
"""
from edujax.grading.cache import assert_cache_misses, check_cache_misses
from edujax.grading.inputs import seeded_array, seeded_arrays, seeded_key
from edujax.grading.jaxprs import (assert_same_jaxpr, assert_uses, check_same_jaxpr,
                                   check_uses, compare_jaxprs, count_primitive)
from edujax.grading.jittable import assert_jittable, check_jittable
from edujax.grading.keys import assert_no_key_reuse, check_no_key_reuse
from edujax.grading.limits import TimeLimitExceeded, call, time_limit
from edujax.grading.remote import given, jitted
from edujax.grading.trees import assert_tree_close, check_tree_close, check_tree_structure
from edujax.grading.values import (assert_close, assert_equal, assert_type, check_close,
                                   check_equal, check_type)
from edujax.grading.verdict import GradingError, Verdict
