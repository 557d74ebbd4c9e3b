"""tallydb's version, where every layer may read it (the server's health
answer, the console's info, ``tallydb --version``), and the form it was
installed in: the request's hot path compiled with mypyc, or pure Python."""

from __future__ import annotations

import importlib.machinery
from pathlib import Path

__version__ = "0.1.0"

#: A module the build compiles whenever it compiles (setup.py's COMPILED),
#: relative to the package's directory.
_A_COMPILED_MODULE = ("engine", "values", "number")


def build_form() -> str:
    """``"compiled"`` when the hot path's modules are C extensions (mypyc),
    else ``"pure Python"``. Looks for the extension's file without importing
    anything (``tallydb --version`` stays quick)."""
    package = Path(__file__).resolve().parent.parent
    folder = package.joinpath(*_A_COMPILED_MODULE[:-1])
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (folder / f"{_A_COMPILED_MODULE[-1]}{suffix}").is_file():
            return "compiled"
    return "pure Python"
