"""The trusted grader's end of the pipe to a sandboxed notebook.

``Notebook`` starts ``student_side`` in a sandbox and sends it requests; every answer is
read with a deadline and a size limit (a notebook that stops answering, or answers
gigabytes, costs its own submission only). ``RemoteFunction`` stands for a function of
the notebook in the trusted tests: ``call(loss, w, x, y)`` sends ``w, x, y`` as data and
gets the result back as data, ``check_jittable(loss, ...)`` asks the sandbox to observe.
``given("lambda x: ...")`` is a function a test hands the student's code: it travels as
its source, evaluated in the sandbox.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable

from edujax.grading import sandbox, wire
from edujax.grading.verdict import GradingError
from edujax.language import Text

# A test that hands the notebook something else is the test's mistake; still, the student
# reads it, so it is said in their language too.
ONLY_DATA = Text("a test may give the student's code only data, functions of the notebook, or "
                 "given('lambda ...')",
                 "테스트는 학생의 코드에 데이터, 노트북의 함수, given('lambda ...')만 줄 수 "
                 "있습니다")
OTHER_NOTEBOOK = Text("a function of another notebook", "다른 노트북의 함수")
NO_KEYWORDS = Text("keyword arguments are not sent to the notebook",
                   "키워드 인자는 노트북에 보내지 않습니다")
CHECK_FAILED = Text("checking {name} failed: {error}", "{name}을(를) 검사하지 못했습니다: {error}")

GRACE_S = 5.0   # beyond a request's own time limit, for messages and start-up


class NotebookStopped(GradingError):
    """The sandboxed notebook died, hung or answered nonsense; it gets no more requests."""


class Notebook:
    """One submission's sandboxed process, and the requests the grader sends it."""

    def __init__(self, limits: sandbox.SandboxLimits, *, home: Path | None = None,
                 start_timeout: float = 60.0) -> None:
        self.limits = limits
        self.stopped: str | None = None   # why it no longer answers
        self.peak_mb = 0.0
        self.process = sandbox.start([_python(), "-m", "edujax.grading.student_side"],
                                     limits, home=home)
        self.stderr_tail = b""
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        threading.Thread(target=self._watch_memory, daemon=True).start()
        self._buffer = b""
        self._receive(start_timeout)

    # ---------------------------------------------------------------- plumbing
    def _drain_stderr(self) -> None:
        stream = self.process.stderr
        while True:
            chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not chunk:
                return
            self.stderr_tail = (self.stderr_tail + chunk)[-2000:]

    def _watch_memory(self) -> None:
        """Stop the notebook when all its processes together pass the memory limit."""
        while self.process.poll() is None:
            used = sandbox.resident_mb(sandbox.descendants(self.process.pid))
            self.peak_mb = max(self.peak_mb, used)
            if used > self.limits.memory_mb:
                self.stop(f"its processes used {used:.0f} MiB together, over the limit of "
                          f"{self.limits.memory_mb} MiB")
                return
            time.sleep(0.2)

    def stop(self, why: str | None = None) -> None:
        """Kill the sandbox and everything in it (its PID namespace dies with it)."""
        if why and not self.stopped:
            self.stopped = why
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.process.kill()
        except OSError:
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            pass
        self.stopped = self.stopped or "finished"

    def _receive(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop(f"it did not answer within {timeout:g} s")
                raise NotebookStopped(self.stopped)
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                if self.process.poll() is not None:
                    self.stop("its process ended")
                    raise NotebookStopped(self.stopped)
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                self.stop(self.stopped or "its process ended")
                raise NotebookStopped(self.stopped)
            self._buffer += chunk
            if len(self._buffer) > wire.MAX_LINE:
                self.stop("it sent an answer larger than the limit")
                raise NotebookStopped(self.stopped)
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return wire.loads(line)
        except wire.WireError as error:
            self.stop(f"it answered something that is not plain data ({error})")
            raise NotebookStopped(self.stopped) from None

    def request(self, message: dict, timeout: float) -> dict:
        if self.stopped:
            raise NotebookStopped(self.stopped)
        try:
            self.process.stdin.write(wire.dumps(message))
            self.process.stdin.flush()
        except OSError:
            self.stop("its process ended")
            raise NotebookStopped(self.stopped) from None
        return self._receive(timeout + GRACE_S)

    # ---------------------------------------------------------------- requests
    def run_cell(self, source: str, timeout: float) -> dict:
        reply = self.request({"op": "run", "source": source, "timeout": timeout}, timeout)
        error = reply.get("error")
        output = reply.get("output", "")
        return {"error": error[:1000] if isinstance(error, str) else None,
                "output": output[:5000] if isinstance(output, str) else ""}

    def get(self, names: list[str]) -> dict[str, Any]:
        """{name: value} for the names the notebook defines (functions as RemoteFunction)."""
        reply = self.request({"op": "get", "names": names}, 30)
        values = reply.get("values")
        if not isinstance(values, dict):
            self.stop("it answered a request with something else")
            raise NotebookStopped(self.stopped)
        found = {}
        for name in names:
            data = values.get(name)
            if isinstance(data, dict) and data.get("t") == "missing":
                continue
            found[name] = self.decode(data)
        return found

    def decode(self, data: Any) -> Any:
        try:
            return wire.decode(data, lambda ref, name, jitted: RemoteFunction(
                self, {"ref": ref}, name, jitted))
        except (wire.WireError, ValueError, TypeError, KeyError, IndexError) as error:
            return wire.Opaque("unreadable", f"<a value that could not be read: {error}>")

    def encode(self, value: Any) -> Any:
        def ref(f: Callable) -> Any:
            raise GradingError(str(ONLY_DATA))
        if isinstance(value, (RemoteFunction, Given)):
            return value.target
        return wire.encode(value, ref)


def _is_setup_function(value: Any) -> bool:
    """A function the assignment's setup cells define (``trusted.setup_namespace``)."""
    scope = getattr(value, "__globals__", None)
    name = getattr(value, "__name__", "")
    return (isinstance(scope, dict) and scope.get("__name__") == "__grading__"
            and name.isidentifier() and scope.get(name) is value)


def _python() -> str:
    import sys
    return sys.executable


class RemoteFunction:
    """A function of the sandboxed notebook, as the trusted tests see it."""

    edujax_remote = True

    def __init__(self, notebook: Notebook, target: dict, name: str, jitted: bool = False,
                 jit: bool = False) -> None:
        self.notebook, self.target, self.__name__ = notebook, target, name
        self.jitted, self.jit = jitted, jit

    def __repr__(self) -> str:
        return f"<function {self.__name__}>"

    def __getattr__(self, name: str) -> Any:
        if name == "cache_info" and self.jitted:
            return lambda: None
        raise AttributeError(name)

    def with_jit(self) -> "RemoteFunction":
        return RemoteFunction(self.notebook, self.target, self.__name__, True, jit=True)

    def _arguments(self, args: tuple) -> list:
        return [self._encode(a) for a in args]

    def _encode(self, value: Any) -> Any:
        if isinstance(value, (RemoteFunction, Given)):
            if isinstance(value, RemoteFunction) and value.notebook is not self.notebook:
                raise GradingError(str(OTHER_NOTEBOOK))
            return {"t": "fn", "ref": value.target.get("ref", -1)} if "ref" in value.target \
                else {"t": "given", **value.target}
        if _is_setup_function(value):  # the assignment's own ``g``: the notebook's ``g``
            return {"t": "given", "source": value.__name__}
        return self.notebook.encode(value)

    def call(self, args: tuple, kwargs: dict, seconds: float, name: str) -> Any:
        if kwargs:
            raise GradingError(str(NO_KEYWORDS))
        reply = self.notebook.request({"op": "call", **self.target, "jit": self.jit,
                                       "args": self._arguments(args), "seconds": seconds,
                                       "name": name}, seconds)
        if "error" in reply:
            raise GradingError(str(reply["error"])[:1000])
        return self.notebook.decode(reply.get("value"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(args, kwargs, 10.0, self.__name__)

    def observe(self, what: str, args: tuple = (), options: dict | None = None,
                seconds: float = 30.0) -> Any:
        reply = self.notebook.request({"op": "observe", **self.target, "what": what,
                                       "args": self._arguments(args),
                                       "options": options or {}}, seconds)
        if "error" in reply:
            raise GradingError(CHECK_FAILED.format(name=self.__name__,
                                                   error=str(reply["error"])[:500]))
        return self.notebook.decode(reply.get("value"))


class Given:
    """A function a test hands to the student's code, written as source text.

    In the trusted process it is that function (evaluated with ``jax``, ``jnp``,
    ``random`` and ``lax`` in scope); sent to the sandbox, it travels as its text."""

    def __init__(self, source: str) -> None:
        import edujax as jax
        from edujax import lax, random
        import edujax.numpy as jnp

        self.source = source
        self.target = {"source": source}
        self.function = eval(source, {"jax": jax, "jnp": jnp, "random": random,  # noqa: S307
                                      "lax": lax})
        self.__name__ = getattr(self.function, "__name__", "f")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)


def given(source: str) -> Given:
    """``given("lambda x: jnp.sin(x) * 2.0")``: a function for a test to pass to the
    student's code (see ``Given``)."""
    return Given(source)


def jitted(f: Any) -> Any:
    """``jax.jit(f)``, also when ``f`` is a function of the sandboxed notebook."""
    if getattr(f, "edujax_remote", False):
        return f.with_jit()
    import edujax as jax
    return jax.jit(f)
