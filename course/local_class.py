"""A class of N students on this machine, for the tests and the load benchmark, without
touching the machine's /etc: the hub runs in a private mount namespace (``unshare --mount``)
where /etc/passwd and /etc/group are bind-mounted temporary copies that add the students, with
their homes in a temporary folder. Outside that namespace nothing changes; inside it the
students are real Unix users to the kernel (their own uids), so the spawner, file permissions
and the hub behave exactly as on a course server whose users `python -m course.accounts` made.

Needs root (to mount, and to switch to the students' uids) and util-linux's `unshare`.
"""
from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalClass:
    """Students `names` (plus a teacher, who has a hub account but no Unix user)."""

    def __init__(self, names: list[str], teacher: str = "teacher", idle_seconds: int = 3600):
        self.names, self.teacher, self.idle_seconds = names, teacher, idle_seconds
        # A top folder everyone may pass through (homes inside are 700), unlike pytest's tmp.
        self.root = Path(tempfile.mkdtemp(prefix="edujax-class-"))
        self.root.chmod(0o755)
        self.homes = self.root / "home"
        # Unused uids, far from the machine's users; random, so that two runs at the same time
        # (two engineers' tests) never share one.
        base = random.randrange(3_000_000, 4_000_000, 1000)
        self.uids = {name: base + i for i, name in enumerate(names)}
        self.hub: subprocess.Popen | None = None
        self.url = ""
        self._write_users()

    def _write_users(self) -> None:
        etc = self.root / "etc"
        etc.mkdir()
        passwd = Path("/etc/passwd").read_text().rstrip("\n") + "\n"
        group = Path("/etc/group").read_text().rstrip("\n") + "\n"
        self.homes.mkdir()
        for name, uid in self.uids.items():
            home = self.homes / name
            passwd += f"{name}:x:{uid}:{uid}:{name}:{home}:/bin/bash\n"
            group += f"{name}:x:{uid}:\n"
            home.mkdir(mode=0o700)
            os.chown(home, uid, uid)
        (etc / "passwd").write_text(passwd)
        (etc / "group").write_text(group)
        (etc / "passwd").chmod(0o644)
        (etc / "group").chmod(0o644)
        roster = "username,role\n" + f"{self.teacher},teacher\n" + \
            "".join(f"{n},student\n" for n in self.names)
        (self.root / "roster.csv").write_text(roster)

    def hub_command(self, port: int) -> list[str]:
        """`course/start` in a private mount namespace whose /etc/passwd and /etc/group list
        the students. The hub's internal ports are picked here too (never the fixed defaults,
        which another hub on this machine may hold)."""
        etc = self.root / "etc"
        mounts = (f"mount --bind {etc / 'passwd'} /etc/passwd && "
                  f"mount --bind {etc / 'group'} /etc/group && "
                  f"{self._interpreter_mounts()}exec \"$@\"")
        return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", mounts,
                "sh", str(REPO / "course/start"), "--ip", "127.0.0.1", "--port", str(port),
                f"--JupyterHub.hub_port={free_port()}",
                f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{free_port()}"]

    def _interpreter_mounts(self) -> str:
        """Mounts that let the students reach the venv and its Python where they live in a
        folder the students cannot enter (pyenv's Python in root's home, mode 700, on this
        project's machines; a CI clone in /root): in the namespace, each such folder is
        replaced by a stand-in that holds only the ways through it."""
        needed = [(REPO / ".venv/bin/python").resolve(), REPO / ".venv"]
        passages: dict[Path, set[str]] = {}
        for path in needed:
            for parent in reversed(path.parents):
                if parent.stat().st_mode & 0o001 == 0:
                    passages.setdefault(parent, set()).add(path.relative_to(parent).parts[0])
                    break
        mounts = ""
        for n, (parent, inners) in enumerate(sorted(passages.items())):
            stand_in = self.root / f"stand-in-{n}"
            for inner in sorted(inners):
                (stand_in / inner).mkdir(parents=True)
                mounts += f"mount --bind {parent / inner} {stand_in / inner} && "
            stand_in.chmod(0o711)
            mounts += f"mount --rbind {stand_in} {parent} && "
        return mounts

    def start_hub(self, timeout: float = 120) -> str:
        """Start the hub; its public address once it answers."""
        port = free_port()
        env = {**os.environ, "EDUJAX_COURSE_STATE": str(self.root / "state"),
               "EDUJAX_COURSE_ROSTER": str(self.root / "roster.csv"),
               "EDUJAX_COURSE_IDLE": str(self.idle_seconds)}
        log = open(self.root / "hub.log", "wb")
        self.hub = subprocess.Popen(self.hub_command(port), env=env, stdout=log,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.hub.poll() is not None:
                raise RuntimeError(f"the hub exited ({self.hub.returncode}):\n{self.log()}")
            try:
                if requests.get(f"{self.url}/hub/api", timeout=5).ok:
                    return self.url
            except requests.ConnectionError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"the hub did not answer in {timeout:.0f} s:\n{self.log()}")

    def log(self) -> str:
        path = self.root / "hub.log"
        return path.read_text(errors="replace")[-6000:] if path.exists() else ""

    def students_processes(self) -> list[int]:
        """Processes running as one of this class's students (by uid, read from /proc)."""
        uids, found = set(self.uids.values()), []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if entry.stat().st_uid in uids:
                        found.append(int(entry.name))
                except FileNotFoundError:
                    pass
        return found

    def stop(self) -> None:
        """Stop the hub (it stops the students' servers and its proxy), then end whatever a
        student left running, by process id, and remove the class's files."""
        if self.hub and self.hub.poll() is None:
            self.hub.send_signal(signal.SIGTERM)
            try:
                self.hub.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.hub.pid, signal.SIGKILL)
                self.hub.wait()
        for pid in self.students_processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._stop_proxy()
        shutil.rmtree(self.root, ignore_errors=True)

    def _stop_proxy(self) -> None:
        """The proxy outlives a hub that was killed; its pid file says which process it is."""
        pid_file = self.root / "state/jupyterhub-proxy.pid"
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
            except (ValueError, ProcessLookupError):
                pass
