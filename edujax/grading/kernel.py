"""``python -m edujax.grading.kernel``: the EduJAX kernel, inside resource limits.

The grader runs each submission on this kernel. It is the EduJAX kernel (the one
students use, so a notebook behaves the same while graded) started with operating
system limits that no student code can raise again:

* ``RLIMIT_AS``  (address space): a submission that allocates without bound gets a
  ``MemoryError`` instead of exhausting the machine;
* ``RLIMIT_CPU`` (CPU seconds): a loop that escapes every timeout is killed by the
  kernel's own operating system, the last line of defence;
* ``RLIMIT_FSIZE`` (largest file): writing gigabytes to disk fails with an OSError.

The limits come from environment variables the grader sets in the kernelspec
(``runner.py``); the kernel also writes its process id into a file, so a grader that
gives up on a submission can stop this kernel.
"""
from __future__ import annotations

import os
import resource
import sys

MB = 1024 * 1024


def apply_limits() -> None:
    limits = {"EDUJAX_GRADING_MEMORY_MB": (resource.RLIMIT_AS, MB),
              "EDUJAX_GRADING_CPU_SECONDS": (resource.RLIMIT_CPU, 1),
              "EDUJAX_GRADING_FILE_MB": (resource.RLIMIT_FSIZE, MB)}
    for variable, (which, unit) in limits.items():
        value = os.environ.get(variable)
        if value:
            resource.setrlimit(which, (int(float(value) * unit),) * 2)


def write_pid() -> None:
    path = os.environ.get("EDUJAX_GRADING_PIDFILE")
    if path:
        with open(path, "w") as f:
            f.write(str(os.getpid()))


def skip_slow_imports() -> None:
    """Make the grading kernel start faster by skipping one optional import.

    otter's first cell imports nbformat, which imports jsonschema, which tries the
    optional ``rfc3987_syntax`` (it checks the "iri" string format, which no notebook
    here uses) and that one builds a parser grammar at import: seconds per submission.
    A ``None`` in ``sys.modules`` makes that import fail at once, and jsonschema goes on
    without it, as it does wherever the package is not installed.
    """
    sys.modules.setdefault("rfc3987_syntax", None)


def main() -> None:
    write_pid()
    apply_limits()
    skip_slow_imports()
    from edujax.kernel.__main__ import main as run_edujax_kernel
    sys.exit(run_edujax_kernel(sys.argv[1:]))


if __name__ == "__main__":
    main()
