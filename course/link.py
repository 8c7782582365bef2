"""Print the nbgitpuller link that puts the tutorials into every student's home.

    python -m course.link https://hub.example.org https://github.com/you/edujax \\
        --branch main --open notebooks/en/01_accelerated_numpy.ipynb

A student who opens the link logs in (if needed), gets their server, and nbgitpuller clones the
repository into ``~/<repository name>`` the first time and pulls it every later time. A later
pull never overwrites what the student changed: nbgitpuller keeps the student's edits and takes
the teacher's new files and the untouched ones (a file both changed keeps the student's version).
"""
from __future__ import annotations

import argparse
import sys
from urllib.parse import urlencode


def pull_link(hub: str, repo: str, branch: str = "main", open_path: str = "",
              target: str = "") -> str:
    """The hub URL that pulls `repo`'s `branch` into ~/`target` and opens `open_path` in it."""
    target = target or repo.rstrip("/").removesuffix(".git").rsplit("/", 1)[-1]
    query = {"repo": repo, "branch": branch, "targetpath": target,
             "urlpath": f"lab/tree/{target}/{open_path}".rstrip("/")}
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{urlencode(query)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course.link", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("hub", help="the hub's address, e.g. https://hub.example.org")
    parser.add_argument("repo", help="the git repository with the tutorials")
    parser.add_argument("--branch", default="main")
    parser.add_argument("--open", default="", help="the file to open, inside the repository")
    parser.add_argument("--target", default="", help="folder in the home (default: repo name)")
    args = parser.parse_args(argv)
    print(pull_link(args.hub, args.repo, args.branch, args.open, args.target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
