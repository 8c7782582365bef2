"""binder/ builds the image Binder serves the tutorials from, checked without Docker.

- ``repo2docker --no-build`` (jupyter-repo2docker, from PyPI) reads binder/ and writes the
  Dockerfile it would build: it must pick Python 3.11 (runtime.txt), install graphviz
  (apt.txt) and requirements.txt, and run postBuild;
- postBuild's commands exist, and the pip install it runs resolves against PyPI (a dry run;
  skipped without a network).
"""
from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"


def _postbuild_commands() -> list[list[str]]:
    lines = (BINDER / "postBuild").read_text().splitlines()
    return [shlex.split(line) for line in lines
            if line.strip() and not line.lstrip().startswith("#") and not line.startswith(" ")
            and line.split()[0] in ("python", "JUPYTEXT=jupytext")]


def test_repo2docker_writes_a_dockerfile_from_binder():
    run = subprocess.run(
        [sys.executable, "-m", "repo2docker", "--no-build", "--no-run", "--debug",
         "--user-id", "1000", "--user-name", "jovyan", str(ROOT)],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    dockerfile, log = run.stdout, run.stderr
    assert "python=3.11" in log, log                      # runtime.txt
    for package in (BINDER / "apt.txt").read_text().split():
        assert f"--no-install-recommends {package}" in dockerfile
    assert 'pip install --no-cache-dir -r "binder/requirements.txt"' in dockerfile
    assert "RUN ./binder/postBuild" in dockerfile
    assert 'ENV R2D_ENTRYPOINT="${REPO_DIR}/binder/start"' in dockerfile   # run at every start
    # repo2docker runs postBuild from the repository root, where its relative paths point.
    assert dockerfile.index("WORKDIR ${REPO_DIR}") < dockerfile.index("RUN ./binder/postBuild")


def test_postbuild_runs_what_the_repository_has():
    """The scripts postBuild calls exist, are executable, and its install names the extra
    that carries JupyterLab and the kernel."""
    postbuild = BINDER / "postBuild"
    assert os.access(postbuild, os.X_OK)
    commands = _postbuild_commands()
    assert ["python", "-m", "pip", "install", "--no-cache-dir", "-e", ".[notebooks]"] in commands
    for command in commands:
        for word in command:
            if word.startswith("scripts/"):
                assert (ROOT / word).is_file(), f"postBuild runs {word}, which does not exist"
    assert os.access(ROOT / "scripts" / "notebooks", os.X_OK)
    run = subprocess.run([sys.executable, "scripts/run_notebooks.py", "--help"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.returncode == 0 and "--prewarm" in run.stdout, run.stderr


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=3).close()
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _pypi_reachable(), reason="needs PyPI")
def test_the_postbuild_install_resolves(tmp_path):
    """pip resolves edujax[notebooks] from scratch (as in the fresh Binder image), and the
    resolution holds what the tutorials need."""
    # The resolution depends only on pyproject.toml: resolve a copy of it, so that building
    # the project's metadata leaves nothing (an edujax.egg-info) in the checkout.
    project = tmp_path / "project"
    (project / "edujax").mkdir(parents=True)
    (project / "edujax" / "__init__.py").write_text("")
    for name in ("pyproject.toml", "README.md"):
        (project / name).write_bytes((ROOT / name).read_bytes())
    report = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), "-e", ".[notebooks]"],
        capture_output=True, text=True, cwd=project, timeout=600)
    assert run.returncode == 0, run.stderr
    names = {item["metadata"]["name"].lower().replace("_", "-")
             for item in json.loads(report.read_text())["install"]}
    for needed in ("edujax", "numpy", "numba", "jupyterlab", "ipykernel", "jupytext",
                   "matplotlib", "nbclient"):
        assert needed in names, f"{needed} is not in what postBuild would install"


def test_start_points_the_kernels_at_the_prewarmed_cache(tmp_path):
    """binder/start (run before Jupyter at every container start) and postBuild's pre-warm use
    the same Numba cache folder, inside the repository, not under the home folder a
    JupyterHub replaces with the student's volume."""
    env = {k: v for k, v in os.environ.items() if k != "EDUJAX_CACHE_DIR"}
    env |= {"REPO_DIR": str(tmp_path), "HOME": "/nonexistent-home"}
    run = subprocess.run([str(BINDER / "start"), "sh", "-c", 'echo "$EDUJAX_CACHE_DIR"'],
                         capture_output=True, text=True, env=env, timeout=30)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(tmp_path / ".edujax_cache")
    postbuild = (BINDER / "postBuild").read_text()
    assert 'EDUJAX_CACHE_DIR="${EDUJAX_CACHE_DIR:-${REPO_DIR:-$PWD}/.edujax_cache}"' in postbuild
    assert postbuild.index("EDUJAX_CACHE_DIR") < postbuild.index("run_notebooks.py --prewarm")


def test_the_readme_badge_is_a_launch_url_that_opens_the_tutorials():
    """The badge links to a Binder launch URL (OWNER/REPOSITORY stand for the names the
    README tells the reader to fill in, as scripts/binder_link.py prints them) whose
    urlpath opens a folder the repository has."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from binder_link import launch_url
    finally:
        sys.path.pop(0)
    readme = (ROOT / "README.md").read_text()
    badge = re.search(r"\[!\[Binder\]\(https://mybinder.org/badge_logo.svg\)\]\(([^)]+)\)",
                      readme)
    assert badge, "no Binder badge in the README"
    assert badge[1] == launch_url("https://github.com/OWNER/REPOSITORY")
    folder = re.search(r"urlpath=lab/tree/([\w/]+)$", badge[1])[1]
    assert (ROOT / folder / "en" / "02_quickstart.md").exists()
    for remote in ("git@github.com:kim/edujax.git", "https://github.com/kim/edujax",
                   "ssh://git@github.com/kim/edujax.git"):
        assert launch_url(remote) == ("https://mybinder.org/v2/gh/kim/edujax/HEAD"
                                      "?urlpath=lab/tree/notebooks")
    with pytest.raises(ValueError, match="not a GitHub repository"):
        launch_url("https://gitlab.com/kim/edujax.git")
    run = subprocess.run([sys.executable, "scripts/binder_link.py", "--badge", "--remote",
                          "git@github.com:kim/edujax.git"], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert run.stdout.strip() == ("[![Binder](https://mybinder.org/badge_logo.svg)]"
                                  "(https://mybinder.org/v2/gh/kim/edujax/HEAD"
                                  "?urlpath=lab/tree/notebooks)")


def test_start_puts_the_jupyter_settings_of_binder_on_the_config_path(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env |= {"REPO_DIR": str(tmp_path), "HOME": "/nonexistent-home"}
    run = subprocess.run([str(BINDER / "start"), "sh", "-c", 'echo "$JUPYTER_CONFIG_PATH"'],
                         capture_output=True, text=True, env=env, timeout=30)
    assert run.stdout.strip() == str(BINDER / "jupyter")
    assert (BINDER / "jupyter" / "jupyter_server_config.py").is_file()
