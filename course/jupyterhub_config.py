"""JupyterHub for a course on one Linux server: `course/start` runs the hub with this file.

Who logs in: the accounts in the roster (course/roster.csv, or $EDUJAX_COURSE_ROSTER). Students
sign up once on the hub's sign-up page with their roster name and a password of their choice
(NativeAuthenticator); a roster name is authorized at once, any other name waits for the
teacher's approval, which the teacher never gives. Teachers in the roster are the hub's admins.

What they get: their own JupyterLab, run as their own Unix user (created from the same roster
by `python -m course.accounts`), in their own home, with the EduJAX kernel of this repository's
.venv; memory and threads limited per student; idle servers stopped by jupyterhub-idle-culler.

Settings from the environment (course/start documents them): EDUJAX_COURSE_STATE (the hub's
database and cookie secret), EDUJAX_COURSE_ROSTER, EDUJAX_COURSE_MEMORY, EDUJAX_COURSE_IDLE,
EDUJAX_COURSE_CACHE (the shared pre-warmed kernel cache).
"""
import os
import pwd
import resource
import sys
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from nativeauthenticator import NativeAuthenticator
from nativeauthenticator.handlers import SignUpHandler

COURSE = Path(__file__).resolve().parent
sys.path.insert(0, str(COURSE.parent))   # so that `course.roster` imports from the repository
from course.roster import read_roster  # noqa: E402

REPO = COURSE.parent
VENV = REPO / ".venv"
STATE = Path(os.environ.get("EDUJAX_COURSE_STATE", "/srv/edujax-course"))
ROSTER = Path(os.environ.get("EDUJAX_COURSE_ROSTER", COURSE / "roster.csv"))
MEMORY = os.environ.get("EDUJAX_COURSE_MEMORY", "2G")
IDLE_SECONDS = int(os.environ.get("EDUJAX_COURSE_IDLE", "3600"))
# The tutorials' compiled kernels, pre-warmed once by the teacher (course/README.md) and read
# by every student; what it lacks, a student's kernel compiles into their own ~/.cache.
SHARED_CACHE = Path(os.environ.get("EDUJAX_COURSE_CACHE", REPO / ".edujax_cache"))

c = get_config()  # noqa: F821 (JupyterHub defines get_config when it loads this file)

# The hub's own files: its database and cookie secret, readable by root only.
STATE.mkdir(parents=True, exist_ok=True, mode=0o700)
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
PROXY = VENV / "course-proxy/node_modules/.bin/configurable-http-proxy"   # scripts/setup --course
c.ConfigurableHTTPProxy.command = [str(PROXY)]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")

# --- who may log in -------------------------------------------------------------------------
class RosterSignUpHandler(SignUpHandler):
    """NB: NativeAuthenticator tells everyone but admins "your information has been sent to
    the admin" unless sign-up is open to all; a roster name is authorized at once, so its
    student is told to log in now."""

    def get_result_message(self, user, *args):
        alert, message = super().get_result_message(user, *args)
        if user is not None and user.is_authorized:
            return "alert-success", ("The signup was successful! You can now go to the home "
                                     "page and log in to the system.")
        return alert, message


class RosterAuthenticator(NativeAuthenticator):
    def get_handlers(self, app):
        return [(path, RosterSignUpHandler if handler is SignUpHandler else handler)
                for path, handler in super().get_handlers(app)]


roster = read_roster(ROSTER)
c.JupyterHub.authenticator_class = RosterAuthenticator
c.NativeAuthenticator.enable_signup = True
c.NativeAuthenticator.open_signup = False        # only roster names are authorized on sign-up
c.NativeAuthenticator.minimum_password_length = 8
c.NativeAuthenticator.check_common_password = True
c.NativeAuthenticator.allowed_failed_logins = 5  # then 10 minutes' wait: no password guessing
c.NativeAuthenticator.seconds_before_next_try = 600
c.Authenticator.allowed_users = {m.username for m in roster}
c.Authenticator.admin_users = {m.username for m in roster if m.role == "teacher"}
c.JupyterHub.load_roles = [
    {"name": "idle-culler",
     "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
     "services": ["idle-culler"]},
]


# --- what each student gets -----------------------------------------------------------------
def memory_bytes(text: str) -> int:
    """'2G' -> 2 GiB in bytes (JupyterHub's ByteSpecification suffixes K, M, G, T)."""
    units = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    text = text.strip().upper()
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


class CourseSpawner(LocalProcessSpawner):
    """A student's JupyterLab as their own Unix user, under a memory limit.

    NB: a JupyterHub on systemd would use SystemdSpawner's cgroups (one limit for all of a
    student's processes together). This spawner runs anywhere, containers and CI included, and
    limits each of the student's processes (the server, every kernel) to `mem_limit` of address
    space with RLIMIT_AS: a runaway array is a MemoryError in that kernel, not a swapping server.
    """

    def make_preexec_fn(self, name):
        become_student = super().make_preexec_fn(name)
        limit = memory_bytes(str(self.mem_limit)) if self.mem_limit else None

        def preexec() -> None:
            if limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            become_student()
        return preexec

    def get_args(self) -> list[str]:
        """Kernels on Unix sockets in the student's own runtime folder, not on TCP ports:
        jupyter_client picks a free port, lets it go and hands it to the kernel, and with a
        class starting kernels at once another student's kernel can take it in between (one
        in 30 died so at start in benchmarks/hub_load.py). A socket in a home only its
        student can enter is also out of every other student's reach."""
        runtime = Path(pwd.getpwnam(self.user.name).pw_dir) / ".local/share/jupyter/runtime"
        return [*super().get_args(), "--KernelManager.transport=ipc",
                f"--KernelManager.ip={runtime / 'kernel'}"]


c.JupyterHub.spawner_class = CourseSpawner
c.Spawner.cmd = [str(VENV / "bin/jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
# No "get notified about Jupyter news?" pop-up and no update checks for a whole class.
c.Spawner.args = ["--LabApp.news_url=None",
                  "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
c.Spawner.notebook_dir = "~"
c.Spawner.mem_limit = MEMORY
c.Spawner.environment = {
    **({"EDUJAX_CACHE_DIR": str(SHARED_CACHE)} if SHARED_CACHE.is_dir() else {}),
    # Numba's parallel loops would start one thread per core of the machine in every kernel.
    "NUMBA_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    # The venv's programs first (jupyter, the kernel's python), then git for nbgitpuller.
    "PATH": f"{VENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
}
# At the start of class everyone logs in within a minute; on a small server the first servers
# take a while to come up. Wait for them rather than fail them.
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.JupyterHub.concurrent_spawn_limit = 200

# --- idle servers are stopped (their files stay in the home) --------------------------------
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                f"--timeout={IDLE_SECONDS}", f"--cull-every={max(IDLE_SECONDS // 10, 10)}"],
}]
