"""Which equation, and which line of the user's Python, each statement of a generated CUDA
module computes (the CPU backend's ``numba_cpu/provenance.py``, for this module's shape).

Inside a kernel the rule is the CPU's: the first statement that sets an equation's
variable (``c = np.float32(exp(a))``) computes it. The host driver ``run`` is different:
it allocates buffers (``c = empty(8, np.float32)``: computes nothing), *launches* kernels
whose last argument is the buffer they fill (``dot_0[1, (2, 2)](a, b, c)``: the matrix
product c), and calls rules on the host (``d, = rules[0](c)``). A fused kernel's launch
is not marked: its statements are, inside the kernel.
"""
from __future__ import annotations

import re

from edujax.backends.numba_cpu.provenance import Origin, statement_origins

_ALLOCATION = re.compile(r"^\s*\w+ = (?:empty|device_copy)\(")
_LAUNCH = re.compile(r"^\s*(\w+)\[.*?\]\(([^)]*)\)")
_RULE_CALL = re.compile(r"^\s*(\w+)\s*,[\w\s,]*= rules\[")
_VIEW = re.compile(r"^\s*(\w+) = \w+")  # c = a, c = b.view(np.int32), c = b[0:3]


def _driver_target(line: str) -> str | None:
    """The variable a line of the driver computes, or None."""
    if _ALLOCATION.match(line):
        return None
    launch = _LAUNCH.match(line)
    if launch is not None:
        kernel, args = launch.groups()
        return None if kernel.startswith("fused_") else args.split(",")[-1].strip()
    for pattern in (_RULE_CALL, _VIEW):
        match = pattern.match(line)
        if match is not None:
            return match.group(1)
    return None


def cuda_statement_origins(source: str, provenance: dict[str, Origin]) -> list[Origin | None]:
    """For each line of ``source``, the origin of the equation it starts computing."""
    origins = statement_origins(source, provenance)  # (right for the kernels)
    lines = source.splitlines()
    driver = next((i for i, line in enumerate(lines) if line.startswith("def run(")),
                  len(lines))
    seen: set[str] = set()
    for i in range(driver, len(lines)):
        name = _driver_target(lines[i])
        origins[i] = provenance[name] if name in provenance and name not in seen else None
        if name is not None:
            seen.add(name)
    return origins
