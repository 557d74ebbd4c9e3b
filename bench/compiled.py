"""Build an exported revision the way it installs: its hot path compiled with
mypyc when the revision has a ``setup.py`` that compiles (and this machine a
C compiler), pure Python otherwise, so that two revisions are compared like
with like.

    from bench.compiled import build, form
    build(tree)   # tree: a `git archive` of setup.py, pyproject.toml, README.md,
                  # LICENSE and src/; builds the C extensions in place in src/
    form(tree / "src")  # "compiled" or "pure Python"

``TALLYDB_PURE_PYTHON=1`` builds pure Python (the suite's bench smoke tests
set it: a compile takes minutes).
"""

from __future__ import annotations

import importlib.machinery
import subprocess
import sys
from pathlib import Path

#: The files of a revision its build reads (those it has: older revisions
#: have no setup.py).
BUILD_FILES = ("setup.py", "pyproject.toml", "README.md", "LICENSE")


def build(tree: Path) -> str:
    """Build the exported revision in ``tree`` in place; its form."""
    if (tree / "setup.py").is_file():
        done = subprocess.run(
            [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
            cwd=tree, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"building {tree} failed:\n{done.stdout}{done.stderr}")
    return form(tree / "src")


def form(src: Path) -> str:
    """``"compiled"`` when ``src/tallydb`` holds C extensions, else ``"pure Python"``."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    if any(path.name.endswith(suffixes) for path in (src / "tallydb").rglob("*")):
        return "compiled"
    return "pure Python"
