"""Print the Binder launch URL of this repository, from its git remote.

    python scripts/binder_link.py               # the URL, from the "origin" remote
    python scripts/binder_link.py --badge       # the README's badge line, ready to paste
    python scripts/binder_link.py --remote git@github.com:someone/edujax.git

The URL opens JupyterLab on notebooks/ (``urlpath=lab/tree/notebooks``) in an image that
mybinder.org builds from binder/ at the branch's newest commit (``HEAD``). The README's badge
holds the same URL with OWNER/REPOSITORY in place of the account and repository: paste this
script's ``--badge`` line over it once the repository is published on GitHub.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
URLPATH = "lab/tree/notebooks"
BADGE = "[![Binder](https://mybinder.org/badge_logo.svg)]({url})"
# https://github.com/OWNER/REPO(.git), git@github.com:OWNER/REPO(.git), ssh://git@github.com/...
GITHUB = re.compile(r"^(?:https://|ssh://git@|git@)github\.com[:/]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


def launch_url(remote: str, ref: str = "HEAD") -> str:
    """The launch URL of the GitHub repository ``remote`` (a git remote's URL)."""
    match = GITHUB.match(remote.strip())
    if not match:
        raise ValueError(f"not a GitHub repository: {remote!r} (mybinder.org's gh/ provider "
                         "needs one; see mybinder.org for GitLab and others)")
    owner, repository = match.groups()
    return f"https://mybinder.org/v2/gh/{owner}/{repository}/{ref}?urlpath={URLPATH}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", help='a git remote URL; default: the "origin" remote')
    parser.add_argument("--badge", action="store_true", help="print the README's badge line")
    args = parser.parse_args(argv)
    remote = args.remote
    if remote is None:
        found = subprocess.run(["git", "remote", "get-url", "origin"], capture_output=True,
                               text=True, cwd=ROOT)
        if found.returncode != 0:
            print("binder_link: this repository has no \"origin\" remote; pass --remote URL",
                  file=sys.stderr)
            return 2
        remote = found.stdout
    try:
        url = launch_url(remote)
    except ValueError as e:
        print(f"binder_link: {e}", file=sys.stderr)
        return 2
    print(BADGE.format(url=url) if args.badge else url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
