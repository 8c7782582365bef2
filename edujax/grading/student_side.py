"""``python -m edujax.grading.student_side``: the student's notebook, inside the sandbox.

This process is *untrusted*: the student's cells run here, and may change anything in
it, this module included. It holds no test, no expected value, no score. It answers the
trusted grader's requests, one JSON line in, one JSON line out (``wire.py``):

    {"op": "run", "source": ..., "timeout": s}    run one cell (IPython, EduJAX magics)
    {"op": "get", "names": [...]}                 the values of notebook variables
    {"op": "call", "ref": n, "args": [...], ...}  call a function it handed out earlier
    {"op": "observe", "ref": n, "what": ...}      run a check that must run student code
                                                   (jaxpr lines, primitives, jittable,
                                                   cache misses, key reuse)

Whatever it answers is only data to the grader, which decides the score; a forged
answer can at most be a (wrong or right) answer to the question it was asked.
"""
from __future__ import annotations

import io
import os
import signal
import sys
import types
from typing import Any, Callable

OUTPUT_LIMIT = 4000  # characters of a cell's printed output kept for the teacher


class CappedWriter(io.TextIOBase):
    """sys.stdout for a cell: keeps the first ``OUTPUT_LIMIT`` characters, drops the rest."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> int:
        if self.size < OUTPUT_LIMIT:
            self.parts.append(text[: OUTPUT_LIMIT - self.size])
        self.size += len(text)
        return len(text)

    def text(self) -> str:
        extra = self.size - OUTPUT_LIMIT
        more = f"\n... ({extra} more characters)" if extra > 0 else ""
        return "".join(self.parts) + more


class CellTimeout(KeyboardInterrupt):
    """A cell ran past its time limit (what the stop button would do)."""


class Session:
    def __init__(self) -> None:
        from IPython.core.interactiveshell import InteractiveShell

        self.shell = InteractiveShell.instance(colors="NoColor")
        try:
            self.shell.extension_manager.load_extension("edujax.kernel")
        except Exception:  # the magics are a comfort, not a requirement
            pass
        sys.modules["otter"] = _otter_stub()
        self.refs: list[Callable] = []

    def ref(self, f: Callable) -> int:
        for i, known in enumerate(self.refs):
            if known is f:
                return i
        self.refs.append(f)
        return len(self.refs) - 1

    def encode(self, value: Any) -> Any:
        from edujax.grading import wire
        return wire.encode(value, self.ref)

    def decode(self, data: Any) -> Any:
        from edujax.grading import wire

        def function(ref: int, name: str, jitted: bool) -> Callable:
            return self.refs[ref]
        return wire.decode(data, function,
                           given=lambda source: _given(source, self.shell.user_ns))

    # ---------------------------------------------------------------- requests
    def run(self, source: str, timeout: float) -> dict:
        out = CappedWriter()
        old = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out

        def on_alarm(signum: int, frame: Any) -> None:
            raise CellTimeout(f"the cell ran longer than {timeout:g} s and was interrupted")

        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            result = self.shell.run_cell(source, store_history=False, silent=False)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            sys.stdout, sys.stderr = old
        error = result.error_in_exec or result.error_before_exec
        return {"error": _describe(error) if error is not None else None,
                "output": out.text()}

    def get(self, names: list[str]) -> dict:
        found = {}
        for name in names:
            if name in self.shell.user_ns:
                found[name] = self.encode(self.shell.user_ns[name])
            else:
                found[name] = {"t": "missing"}
        return {"values": found}

    def resolve(self, message: dict) -> Callable:
        return self.refs[int(message["ref"])]

    def call(self, message: dict) -> dict:
        from edujax.grading.limits import call
        from edujax.grading.verdict import GradingError
        import edujax as jax

        f = self.resolve(message)
        if message.get("jit"):
            f = jax.jit(f)
        args = [self.decode(a) for a in message.get("args", [])]
        try:
            value = call(f, *args, seconds=float(message.get("seconds", 10)),
                         name=str(message["name"]) if message.get("name") else None)
        except GradingError as error:
            return {"error": str(error)[:1000]}
        return {"value": self.encode(value)}

    def observe(self, message: dict) -> dict:
        from edujax.grading import observations

        f = self.resolve(message)
        args = [self.decode(a) for a in message.get("args", [])]
        try:
            return {"value": self.encode(observations.observe(message["what"], f, args,
                                                              message.get("options", {})))}
        except Exception as error:
            return {"error": _describe(error)}

    def handle(self, message: dict) -> dict:
        op = message.get("op")
        if op == "run":
            return self.run(str(message["source"]), float(message.get("timeout", 60)))
        if op == "get":
            return self.get([str(n) for n in message["names"]])
        if op == "call":
            return self.call(message)
        if op == "observe":
            return self.observe(message)
        return {"error": f"unknown request {op!r}"}


def _given(source: str, user_ns: dict) -> Callable:
    """A function a test hands the student's code, sent as its source text (or the name
    of one of the assignment's own functions, such as ``g``)."""
    import edujax as jax
    import edujax.numpy as jnp
    from edujax import lax, random

    scope = {**user_ns, "jax": jax, "jnp": jnp, "random": random, "lax": lax}
    return eval(source, scope)  # noqa: S307 - the grader's text, in the student's process


def _describe(error: BaseException) -> str:
    try:
        return f"{type(error).__name__}: {error}"[:1000]
    except Exception:
        return type(error).__name__


def _otter_stub() -> types.ModuleType:
    """``import otter; grader = otter.Notebook(...)`` works while graded, and does nothing:
    the questions are checked by the grader, outside."""
    module = types.ModuleType("otter")

    class Notebook:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def check(self, *args: Any, **kwargs: Any) -> None:
            return None

        def check_all(self, *args: Any, **kwargs: Any) -> None:
            return None

        def export(self, *args: Any, **kwargs: Any) -> None:
            return None

    module.Notebook = Notebook
    return module


def main() -> None:
    from edujax.grading import wire

    # The grader's pipes, kept on descriptors of their own; 0, 1 and 2 become /dev/null
    # so that what the student's code prints at the C level cannot garble the messages.
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    session = Session()
    replies.write(wire.dumps({"ready": True}))
    replies.flush()
    for line in requests:
        try:
            reply = session.handle(wire.loads(line))
        except BaseException as error:  # noqa: BLE001 - whatever happens, answer
            reply = {"error": _describe(error)}
        try:
            data = wire.dumps(reply)
        except (TypeError, ValueError) as error:
            data = wire.dumps({"error": f"the answer could not be sent: {error}"})
        replies.write(data)
        replies.flush()


if __name__ == "__main__":
    main()
