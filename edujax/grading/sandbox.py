"""The sandbox a student's notebook runs in: Debian's ``bubblewrap`` (``bwrap``).

The trusted grader never runs student code itself. It starts, per submission, one
process inside a sandbox (``python -m edujax.grading.student_side``) and talks to it over
its stdin/stdout pipes; nothing else connects the two. Inside:

* new PID, network, IPC and UTS namespaces: the notebook sees only its own processes,
  has no network at all (not even 127.0.0.1 of the host), and ``--die-with-parent``
  plus the PID namespace end every process it started when the grader lets it go;
* a file system of read-only mounts: ``/usr``, the Python installation, its virtual
  environment and the ``edujax`` package, nothing else of the machine (no teacher's
  home, no assignment, no other submission, no ``/etc``); the only writable place is
  a size-limited tmpfs that is also HOME, TMPDIR and IPYTHONDIR;
* an allow-listed environment (no variable of the teacher's reaches it);
* its own numeric user id (when the grader runs as root), no capabilities, and
  ``setrlimit`` limits: address space, CPU seconds, file size, open files and (per
  user id, so per sandbox) processes. The memory of all its processes together is
  watched from outside (``MemoryWatch``), since rlimits count one process at a time
  and the machine's cgroups are not ours to change.
"""
from __future__ import annotations

import os
import random
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

MB = 1024 * 1024
HOME = "/home/student"  # the sandbox's one writable folder


class SandboxLimits(NamedTuple):
    memory_mb: int = 2048       # address space of one process, and RSS of all together
    cpu_seconds: int = 600
    file_mb: int = 64           # the largest file, and the size of the writable tmpfs
    processes: int = 64         # processes and threads of the sandbox's user id


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or cannot create namespaces here."""


def bwrap() -> str | None:
    return shutil.which("bwrap")


def check_available() -> None:
    """Raise ``SandboxUnavailable`` (with what to do) unless a sandbox can start here."""
    if sys.platform != "linux":
        raise SandboxUnavailable(f"the grading sandbox needs Linux (this is {sys.platform})")
    program = bwrap()
    if program is None:
        raise SandboxUnavailable("bubblewrap (`bwrap`) is not installed: run "
                                 "scripts/system-packages as root, or apt-get install bubblewrap")
    probe = subprocess.run(command(["/bin/true"], uid=sandbox_uid()), capture_output=True,
                           text=True, timeout=30)
    if probe.returncode != 0:
        raise SandboxUnavailable("bwrap cannot create its namespaces here "
                                 f"({probe.stderr.strip()[:200] or probe.returncode}); "
                                 "user namespaces may be disabled")


def _read_only_roots() -> list[Path]:
    """What the student's Python needs to see: the interpreter, its environment, edujax."""
    import edujax

    roots = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(),
             Path(edujax.__file__).resolve().parent}
    for path in list(roots):  # a venv's python is a link into its base installation
        if (path / "bin").is_dir():
            for exe in (path / "bin").glob("python*"):
                roots.add(Path(os.path.realpath(exe)).parent.parent)
    # /usr is mounted whole; what lies under it needs no mount of its own
    return sorted(p for p in roots if not str(p).startswith("/usr/"))


def _dirs_for(paths: list[Path]) -> list[str]:
    """``--dir`` every ancestor of the mounts, world-readable (bwrap makes them 0700)."""
    args, seen = [], set()
    for path in paths:
        for parent in reversed(path.parents):
            if str(parent) != "/" and parent not in seen:
                seen.add(parent)
                args += ["--perms", "0755", "--dir", str(parent)]
    return args


def environment() -> dict[str, str]:
    """The only variables the sandbox gets (nothing of the teacher's environment); its
    ``EDUJAX_LANG`` is the student's language, which the grading process speaks."""
    import edujax
    from edujax.language import language

    return {"PATH": "/usr/bin:/bin", "HOME": HOME, "TMPDIR": HOME, "IPYTHONDIR": f"{HOME}/.ipython",
            "MPLCONFIGDIR": f"{HOME}/.matplotlib", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
            "PYTHONPATH": str(Path(edujax.__file__).resolve().parent.parent),
            "PYTHONDONTWRITEBYTECODE": "1", "EDUJAX_BACKEND": "reference",
            "EDUJAX_CACHE_DIR": f"{HOME}/.edujax_cache", "NUMBA_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "EDUJAX_LANG": language()}


def _tmp_link(roots: list[Path]) -> list[str]:
    """/tmp is the writable folder too, unless edujax or Python lives under /tmp (a clone
    there): then /tmp already holds those read-only mounts, and TMPDIR alone points home."""
    tmp = Path("/tmp")
    if any(root == tmp or tmp in root.parents for root in roots):
        return []
    return ["--symlink", HOME, "/tmp"]


def command(argv: list[str], *, uid: int | None, tmpfs_mb: int = 64) -> list[str]:
    """The bwrap command line that runs ``argv`` in a fresh sandbox."""
    roots = _read_only_roots()
    args = [bwrap() or "bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net",
            "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            "--hostname", "sandbox", "--clearenv",
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
            "--proc", "/proc", "--dev", "/dev", *_dirs_for(roots)]
    for root in roots:
        args += ["--ro-bind", str(root), str(root)]
    args += ["--size", str(tmpfs_mb * MB), "--perms", "1777", "--tmpfs", HOME,
             *_tmp_link(roots), "--chdir", HOME]
    for name, value in environment().items():
        args += ["--setenv", name, value]
    if uid is None:  # not root: bwrap itself makes an unprivileged user namespace
        return args + ["--unshare-user", "--cap-drop", "ALL", "--", *argv]
    # root: mount as root, then become a user id of its own without capabilities
    return args + ["--", "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                   "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", *argv]


def sandbox_uid() -> int | None:
    """A user id no process uses now (root only: others cannot change user)."""
    if os.geteuid() != 0:
        return None
    busy = set()
    for entry in Path("/proc").iterdir():
        try:
            busy.add(entry.stat().st_uid)
        except OSError:
            continue
    while True:
        uid = random.randrange(300_000, 1_300_000)
        if uid not in busy:
            return uid


def set_rlimits(limits: SandboxLimits, *, per_user: bool) -> None:
    """In the child, before exec: limits that student code cannot raise again."""
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * MB,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds,) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb * MB,) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if per_user:  # counts every process of the sandbox's own user id
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes,) * 2)


def start(argv: list[str], limits: SandboxLimits, *, home: Path | None = None
          ) -> subprocess.Popen:
    """Start ``argv`` in a fresh sandbox, pipes on stdin, stdout and stderr.

    ``home``: run *without* the sandbox (the teacher's explicit ``--no-sandbox``), in this
    folder, with the same allow-listed environment and rlimits and nothing else."""
    if home is None:
        uid = sandbox_uid()
        full, env, cwd = command(argv, uid=uid, tmpfs_mb=limits.file_mb), None, None
    else:
        uid, full, cwd = None, argv, str(home)
        env = {**environment(), "HOME": str(home), "TMPDIR": str(home),
               "IPYTHONDIR": str(home / ".ipython"), "MPLCONFIGDIR": str(home / ".matplotlib"),
               "EDUJAX_CACHE_DIR": str(home / ".edujax_cache")}
    return subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=cwd, start_new_session=True,
                            preexec_fn=lambda: set_rlimits(limits, per_user=uid is not None))


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (a sandbox's processes all are: its PID
    namespace adopts orphans, however they detach)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def resident_mb(pids: list[int]) -> float:
    """The memory of ``pids`` together, in MiB: each process's proportional share (PSS),
    so that pages forked processes share are counted once, not once per process."""
    total_kb = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
                    break
        except (OSError, ValueError, IndexError):
            continue
    return total_kb / 1024
