"""A real edujax kernel for tests: installed into a temporary prefix, driven through
``jupyter_client`` as JupyterLab drives it (execute requests in, IOPub messages out)."""
from __future__ import annotations

import itertools
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

TIMEOUT = 300  # seconds for one cell (the seeds' largest matmuls take a few)


def install_kernel(prefix: Path) -> str:
    """``python -m edujax.kernel install --prefix PREFIX``, as the README says; its output."""
    done = subprocess.run([sys.executable, "-m", "edujax.kernel", "install", "--prefix",
                           str(prefix)], capture_output=True, text=True, check=True)
    return done.stdout


def ipc_socket_base() -> str:
    """Where a test kernel's Unix sockets go (``<base>-1`` ... ``<base>-5``).

    Kernels in tests talk over Unix sockets, not TCP: jupyter_client picks a TCP port by
    binding it, letting it go and handing it to the kernel, and with two pytest workers
    (and the grader's kernels) starting kernels at once, another process can take the port
    in between; the kernel then dies at start. A socket file of its own has no such race.
    """
    return str(Path(_SOCKETS.name) / f"kernel-{next(_KERNELS)}")


_SOCKETS = tempfile.TemporaryDirectory(prefix="edujax-sockets-")  # removed when pytest exits
_KERNELS = itertools.count()


def ipc_config():
    """A traitlets Config for nbclient's NotebookClient: its kernel on Unix sockets."""
    from traitlets.config import Config

    config = Config()
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = ipc_socket_base()
    return config


def kernel_specs(prefix: Path) -> KernelSpecManager:
    return KernelSpecManager(kernel_dirs=[str(prefix / "share" / "jupyter" / "kernels")])


@dataclass
class Reply:
    """What one executed cell showed (the parts a notebook displays)."""
    status: str
    stdout: str = ""
    stderr: str = ""
    result: dict = field(default_factory=dict)          # execute_result data by MIME type
    displays: list = field(default_factory=list)        # display_data bundles
    error: dict | None = None                           # ename, evalue, traceback


class Kernel:
    """A running edujax kernel and a client connected to it."""

    def __init__(self, prefix, env: dict | None = None):
        self.manager = KernelManager(kernel_name="edujax", kernel_spec_manager=kernel_specs(prefix),
                                     transport="ipc", ip=ipc_socket_base())
        kernel_env = {**os.environ, "MPLBACKEND": "Agg", **(env or {})}
        self.manager.start_kernel(env=kernel_env)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=120)

    def execute(self, code: str, while_running=None) -> Reply:
        """Run one cell; ``while_running(self)``, if given, is called once it has started
        (to interrupt it, say)."""
        messages = []
        if while_running is None:
            reply = self.client.execute_interactive(code, output_hook=messages.append,
                                                    timeout=TIMEOUT)
        else:
            reply = self._execute_and_act(code, messages, while_running)
        out = Reply(reply["content"]["status"])
        for msg in messages:
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                setattr(out, content["name"], getattr(out, content["name"]) + content["text"])
            elif kind == "execute_result":
                out.result = content["data"]
            elif kind == "display_data":
                out.displays.append(content["data"])
            elif kind == "error":
                out.error = content
        return out

    def _execute_and_act(self, code: str, messages: list, action) -> dict:
        msg_id = self.client.execute(code)
        busy = False
        while True:
            msg = self.client.get_iopub_msg(timeout=TIMEOUT)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status":
                state = msg["content"]["execution_state"]
                if state == "busy" and not busy:
                    busy = True
                    action(self)
                elif state == "idle":
                    break
            else:
                messages.append(msg)
        return self.client.get_shell_msg(timeout=TIMEOUT)

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


