"""The Binder launch a student meets, simulated without Docker.

repo2docker builds the image in three steps this file repeats: a fresh Python environment,
``binder/postBuild`` run from the repository (``REPO_DIR``), then ``binder/start`` before
Jupyter at every container start. Then, as the student would:

- every tutorial runs tiered (a student kernel's default) on the pre-warmed cache, compiling
  nothing (no file is added to the cache) and writing nothing to stderr but what the tutorial
  means to show (a hidden-frames line under a deliberate error, a KeyReuseWarning);
- the server ``binder/start`` starts opens on the tutorials, for ``jupyter lab`` and for
  ``jupyter notebook`` (repo2docker's default command);
- a cache whose object files were compiled for another CPU gives the same clean notebook, a
  log line for the teacher on the server's side, and its files rebuilt for this CPU;
- a read-only cache owned by another user (a hub running the image under its own users)
  gives a clean notebook too; new kernels go to the user's own cache.

The fresh environment is a new virtualenv that sees this checkout's installed packages
through a ``.pth`` file (so that no dependency is downloaded again: pip only fetches the
build backend, setuptools, as scripts/setup does), into which postBuild's ``pip install -e``
installs edujax from a copy of the repository. The build takes about a
minute on 2 cores (the pre-warm runs the 13 English notebooks); the tests after it, another.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Every tutorial, both languages, both tracks: what run_notebooks.py runs by default.
TUTORIALS = sorted(p for p in [*ROOT.glob("notebooks/*/*.md"),
                               *ROOT.glob("notebooks/inside/*/*.md")] if p.name != "README.md")
QUICKSTART = "notebooks/en/02_quickstart.md"
# What the tutorials mean to write to stderr: the line under an error they show on purpose
# (edujax/kernel/tracebacks.py's HIDDEN_FRAMES, in English or Korean), and the PRNG key-reuse
# warnings of the tutorials about keys.
TUTORIAL_STDERR = re.compile(r"^\((?:\d+ frames? inside edujax hidden"
                             r"|edujax 내부 프레임 \d+개 숨김)|KeyReuseWarning", re.M)
OTHER_USER = 65534  # nobody


class Image:
    """The simulated image: its repository folder, Python environment and home folder."""

    def __init__(self, base: Path):
        self.repo, self.venv, self.home = base / "repo", base / "venv", base / "home"
        self.cache = self.repo / ".edujax_cache"
        self.python = self.venv / "bin" / "python"

    def env(self, home: Path | None = None, **extra: str) -> dict:
        """The environment of a process in the container, as repo2docker sets it."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("EDUJAX_", "JUPYTER", "PYTHON", "PIP_", "VIRTUAL_ENV"))}
        path = f"{self.venv / 'bin'}:{Path(sys.executable).parent}:{env.get('PATH', '')}"
        return env | {"REPO_DIR": str(self.repo), "HOME": str(home or self.home),
                      "PATH": path, "PYTHONDONTWRITEBYTECODE": "1"} | extra

    def start(self, *command: str, home: Path | None = None, prefix: tuple = (),
              timeout: int = 600, **extra: str) -> subprocess.CompletedProcess:
        """``binder/start COMMAND`` in the repository folder, as at a container start."""
        return subprocess.run([*prefix, str(self.repo / "binder" / "start"), *command],
                              capture_output=True, text=True, cwd=self.repo, timeout=timeout,
                              env=self.env(home, **extra), stdin=subprocess.DEVNULL)

    def run_notebooks(self, *paths: str, **kwargs) -> dict:
        """The notebooks run on the image's kernel; per notebook, what its cells wrote to
        stderr; and, under ``"server log"``, the kernels' own stderr (the server's log)."""
        done = self.start(str(self.python), "scripts/run_notebooks.py", *paths, **kwargs)
        assert done.returncode == 0, done.stdout + done.stderr
        report: dict = {"server log": done.stderr}
        for block in re.split(r"\n(?=\S)", done.stdout):
            match = re.match(r"(\S+\.md): .* (\d+) stderr output", block)
            if match:
                report[match[1]] = re.findall(r"  stderr: (.*(?:\n {10}.*)*)", block)
        assert len(report) == 1 + (len(paths) or len(TUTORIALS)), done.stdout
        return report


def cache_files(folder: Path) -> dict:
    """Every file of a cache folder, by path, with its size and modification time."""
    return {p.relative_to(folder): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


def assert_clean(report: dict) -> None:
    """No cell wrote to stderr anything the tutorial does not mean to show."""
    for notebook, texts in report.items():
        if notebook != "server log":
            for text in texts:
                assert TUTORIAL_STDERR.search(text), f"{notebook}: {text}"


def copy_repository(target: Path) -> None:
    """The files git has (tracked, or new and not ignored), as repo2docker's checkout."""
    names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"],
                           capture_output=True, cwd=ROOT, check=True).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in names)):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def make_venv(venv: Path) -> None:
    """A new virtualenv of the base Python, seeing the packages of this checkout's
    environment (its pip included) through a .pth file, after its own."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "zz-edujax-checkout-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> Image:
    """postBuild run in a fresh environment on a copy of the repository."""
    image = Image(tmp_path_factory.mktemp("binder-image"))
    image.home.mkdir()
    copy_repository(image.repo)
    make_venv(image.venv)
    start = time.perf_counter()
    build = subprocess.run(
        [str(image.repo / "binder" / "postBuild")], capture_output=True, text=True,
        cwd=image.repo, timeout=1200, stdin=subprocess.DEVNULL, env=image.env())
    seconds = time.perf_counter() - start
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    log = build.stdout + build.stderr
    assert "without encryption" not in log  # (kernels on Unix sockets, not TCP)
    assert "Parent appears to have exited" not in log  # (each kernel shut down after its notebook)
    assert "stderr: edujax" not in log and "[edujax." not in log, log
    print(f"postBuild: {seconds:.0f} s, {len(cache_files(image.cache))} cache files")
    return image


def test_postbuild_installs_edujax_from_the_repository_and_prewarms_its_cache(image):
    done = subprocess.run([str(image.python), "-c", "import edujax; print(edujax.__file__)"],
                          capture_output=True, text=True, env=image.env(), cwd=image.home)
    assert done.stdout.strip() == str(image.repo / "edujax" / "__init__.py"), done.stderr
    assert (image.venv / "share" / "jupyter" / "kernels" / "edujax" / "kernel.json").exists()
    assert (image.repo / "notebooks" / "en" / "02_quickstart.ipynb").exists()
    files = cache_files(image.cache)
    assert any(p.suffix == ".o" for p in files) and any(p.suffix == ".nbi" for p in files)
    # Readable by every user: a hub runs the image under users other than the builder.
    for path in files:
        mode = (image.cache / path).stat().st_mode
        assert mode & 0o444 == 0o444, f"{path} is {oct(mode)}"


def test_the_tutorials_run_tiered_on_the_prewarmed_cache_compiling_nothing(image):
    """All the tutorials (the pre-warm ran the English ones), as a student's kernel runs
    them: the cache gains no file (nothing compiled), and no cell writes a warning."""
    before = cache_files(image.cache)
    report = image.run_notebooks()
    assert_clean(report)
    assert "[edujax." not in report["server log"]
    assert cache_files(image.cache) == before


def server_redirect(image: Image, front_end: str, tmp_path: Path) -> str:
    """Where ``/`` sends a browser, on the server ``binder/start jupyter FRONT_END`` starts
    (on a Unix socket: no port to pick)."""
    sock = tmp_path / f"{front_end}.sock"
    server = subprocess.Popen(
        [str(image.repo / "binder" / "start"), sys.executable, "-m", "jupyter", front_end,
         "--no-browser", f"--ServerApp.sock={sock}", "--IdentityProvider.token=t0k3n",
         "--ServerApp.allow_root=True"],  # (CI may run as root)
        cwd=image.repo, env=image.env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 120
        while not sock.exists():
            assert server.poll() is None, server.stderr.read()
            assert time.monotonic() < deadline, f"jupyter {front_end} did not start"
            time.sleep(0.2)
        return urlsplit(unix_get(sock, "/").getheader("Location")).path
    finally:
        server.terminate()
        server.communicate(timeout=60)


def unix_get(sock: Path, path: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("localhost", timeout=60)
    connection.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.sock.connect(str(sock))
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    return response


@pytest.mark.parametrize("front_end, url", [("lab", "/lab/tree/notebooks"),
                                            ("notebook", "/tree/notebooks")])
def test_the_server_opens_on_the_tutorials(image, tmp_path, front_end, url):
    assert server_redirect(image, front_end, tmp_path) == url


def mark_as_another_cpu(cache: Path) -> int:
    marked = 0
    for manifest in cache.glob("edujax_aot_*.json"):
        content = json.loads(manifest.read_text())
        if "cpu" in content:  # (a manifest without kernels holds no machine code)
            content["cpu"] = "another-cpu +avx512f,+amx-tile"
            manifest.write_text(json.dumps(content))
            marked += 1
    return marked


def test_a_cache_built_on_another_cpu_is_rebuilt_quietly(image, tmp_path):
    """An image built on one machine, run on another: the notebook is as clean as on the
    builder, the server's log says what happened, and the kernels rebuilt for this CPU
    replace the foreign ones (so the next kernel starts warm)."""
    cache = Path(shutil.copytree(image.cache, tmp_path / "cache"))
    marked = mark_as_another_cpu(cache)
    assert marked > 10
    report = image.run_notebooks(QUICKSTART, EDUJAX_CACHE_DIR=str(cache))
    assert_clean(report)
    log = report["server log"]
    assert "[edujax.numba] INFO | edujax: the ahead-of-time kernels in" in log
    assert "WARNING" not in log and "Traceback" not in log, log
    rebuilt = log.count("compiled for another CPU")
    assert rebuilt > 0
    still_foreign = [m for m in cache.glob("edujax_aot_*.json") if "another-cpu" in m.read_text()]
    assert len(still_foreign) == marked - rebuilt  # (the other notebooks' are left as they were)
    files = cache_files(cache)
    again = image.run_notebooks(QUICKSTART, EDUJAX_CACHE_DIR=str(cache))
    assert_clean(again)
    assert "[edujax." not in again["server log"]
    assert cache_files(cache) == files  # warm: nothing compiled the second time


def read_only_for(cache: Path) -> tuple:
    """Make ``cache`` a folder of another user, and return the command prefix that runs a
    process as a user who may not write it. As root: the files go to user nobody, and the
    process runs as root without the capabilities that pass over file permissions (so it
    meets the permissions as any other user would; it needs its root-owned Python). As
    another user: the folder is made read-only for its owner too."""
    if os.geteuid() == 0 and shutil.which("setpriv"):
        for path in [cache, *cache.rglob("*")]:
            os.chown(path, OTHER_USER, OTHER_USER)
        return ("setpriv", "--inh-caps=-all", "--bounding-set=-all")
    for path in [cache, *cache.rglob("*")]:
        if path.is_dir():
            path.chmod(0o555)
    return ()


NEW_PROGRAM = """\
import edujax as jax, edujax.numpy as jnp
f = jax.jit(lambda x: jnp.sin(x) * 3.0 + 7.0)   # in no tutorial: not in the pre-warmed cache
print(f(jnp.arange(5.0)), f(jnp.arange(5.0)))
"""


def test_a_read_only_cache_of_another_user_is_used_quietly(image, tmp_path):
    """A hub running the image under its own users: the pre-warmed cache is read, never
    written, without a warning; kernels it lacks go to the user's own cache."""
    cache = Path(shutil.copytree(image.cache, tmp_path / "shared-cache"))
    shared = cache_files(cache)
    new_notebook = image.repo / "notebooks" / "en" / "zz_new_program.md"
    new_notebook.write_text("```python\n" + NEW_PROGRAM + "```\n")
    home = tmp_path / "student-home"
    home.mkdir()
    prefix = read_only_for(cache)
    try:
        report = image.run_notebooks(QUICKSTART, str(new_notebook.relative_to(image.repo)),
                                     home=home, prefix=prefix, EDUJAX_CACHE_DIR=str(cache))
    finally:
        new_notebook.unlink()
        for path in [cache, *cache.rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
    assert_clean(report)
    assert report["notebooks/en/zz_new_program.md"] == []
    assert "WARNING" not in report["server log"], report["server log"]
    assert cache_files(cache) == shared
    own = cache_files(home / ".cache" / "edujax" / "numba")
    # The quickstart's Numba-compiled modules are copied with their machine code (Numba keeps
    # its cache only beside a file it may write); the new program's files are new.
    copied = {p for p in own if p in shared}
    assert copied and all(own[p][1] == shared[p][1] for p in copied if p.suffix == ".py")
    new = {p for p in own if p not in shared}
    assert any(p.suffix == ".o" for p in new), sorted(new)
