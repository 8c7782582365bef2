"""What a notebook's code tried, for the teacher's ``flags`` column.

The sandbox contains what a notebook does; this only *names* it, from the notebook's
source, so that the teacher can look at a submission that reached for the grader's
internals, stack frames, processes, sockets, /proc or files outside its folder. A flag
costs no points: an honest notebook may well import ``os``; the teacher decides.
"""
from __future__ import annotations

import re
from typing import Any

PATTERNS = {
    "grading internals": r"edujax\.grading|from otter|otter\.(?!Notebook\()|\bgrader\.(?!check\()",
    "frames": r"_getframe|\binspect\b|f_back|f_globals|f_locals|gc\.get_objects|__code__",
    "processes": r"subprocess|os\.(fork|kill|setsid|system|exec|spawn|popen|_exit|abort)"
                 r"|multiprocessing|\bsignal\b|\bpty\b|ctypes",
    "sockets": r"\bsocket\b|urllib|requests|http\.client|asyncio\.open_connection",
    "/proc": r"/proc\b",
    "files outside its folder": r"""open\(\s*f?["'](/|\.\./|~)|os\.(remove|unlink|rename|chmod)"""
                                r"|shutil\.|pathlib|expanduser|\.\./",
    "builtins": r"\bbuiltins\b|__builtins__|__import__|sys\.modules|importlib",
}
COMPILED = {name: re.compile(pattern) for name, pattern in PATTERNS.items()}


def notebook_flags(nb: Any, own_lines: set[str] = frozenset()) -> str:
    """"frames, processes": the kinds of things the notebook's code reaches for.

    ``own_lines``: the assignment's own lines (its setup cells, such as ``import
    edujax.grading.check_view``), which flag nobody."""
    lines = [line for c in nb.cells if c.cell_type == "code"
             for line in c.source.splitlines() if line.strip() not in own_lines]
    source = "\n".join(lines)
    return ", ".join(name for name, pattern in COMPILED.items() if pattern.search(source))
