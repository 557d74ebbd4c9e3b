"""Build tallydb compiled with mypyc where it can, pure Python where it cannot.

The modules in ``COMPILED`` (a request's hot path) are compiled to C
extensions with mypyc when mypy, a C compiler and Python's headers are
present. Otherwise, when ``TALLYDB_PURE_PYTHON=1`` is set, or when the C build
fails, the same package is installed as pure Python; both forms behave the
same. A mypyc *type* error fails the build on purpose: it is a bug in the
source, not a missing tool.

Compiled code checks its annotations at run time, so in a COMPILED module:
a parameter that receives request JSON is annotated with what really
arrives (``object``, then checked); an attribute emptied and then filled
again by a call is not read back in the same function after that call (mypy
still assumes it empty: use a method that takes it); one function does not
bind two exception classes to one ``except ... as`` name; and objects are
made by their constructor (``copy.copy`` and ``object.__new__`` do not work on
compiled classes). ``mypy --warn-unreachable`` over these modules finds the
second kind. A class compiled is native: code left pure cannot subclass it,
a compiled caller that names it refuses a stand-in of another class, a
``functools.cached_property`` on it is computed at every read (derive such
values in ``__init__``), and it cannot subclass most built-in types
(``RuntimeError`` among them: such an exception is defined in a module
left pure).

A compiled module reads a module-level name by looking it up in the
module's dict, as Python does, unless the name is ``Final``: then it is a C
static (a literal is inlined). So a compiled module's constants are
``Final``, and a function of an uncompiled module that the hot path calls
(``orjson.loads``) is bound to a ``Final`` name rather than read as an
attribute at each call; a value code elsewhere replaces (a test's
``monkeypatch`` of ``OVERLAY_ROWS``) is not. An object of a class left
uncompiled is read by name too: a field the hot path reads at every request
belongs on a compiled object (``server/clock.py``).

Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The request's hot path: one HTTP request through the server to UpdateItem's
# write and back, and a Query's read. Measured with `python -m
# bench.path_instructions`: a module compiled pays when its callers and
# callees are compiled too (a call across the compiled/pure boundary costs
# more than one on either side), so the path is compiled whole, from the
# socket to SQLite, and not beyond it. A class compiled is a native class:
# it cannot be subclassed or stood in for by a stub where a compiled caller
# names it (why ``engine/api/__init__.py``'s ``Engine`` stays pure).
COMPILED = [
    # the server: HTTP in and out, routing, the group commit
    "src/tallydb/server/protocol.py",
    "src/tallydb/server/clock.py",
    "src/tallydb/server/exchange.py",
    "src/tallydb/server/routing.py",
    "src/tallydb/server/batch.py",
    "src/tallydb/server/bodies.py",
    "src/tallydb/server/encoding.py",
    "src/tallydb/server/http.py",
    # the operation: its checks, the table, the update, a Query's page, a
    # stream's capture, PartiQL's planned UPDATE
    "src/tallydb/engine/api/update_item.py",
    "src/tallydb/engine/api/get_item.py",
    "src/tallydb/engine/api/_params.py",
    "src/tallydb/engine/api/_shapes.py",
    "src/tallydb/engine/api/_pipeline.py",
    "src/tallydb/engine/api/_tables.py",
    "src/tallydb/engine/api/query.py",
    "src/tallydb/engine/api/_key_conditions.py",
    "src/tallydb/engine/api/_pages.py",
    "src/tallydb/engine/api/_sources.py",
    "src/tallydb/engine/api/_read_exprs.py",
    "src/tallydb/engine/api/_select.py",
    "src/tallydb/engine/api/_stream_records.py",
    "src/tallydb/engine/api/execute_statement.py",
    "src/tallydb/engine/api/_statements.py",
    "src/tallydb/engine/expressions/update.py",
    "src/tallydb/engine/expressions/update_apply.py",
    "src/tallydb/engine/values/number.py",
    "src/tallydb/engine/values/key.py",
    "src/tallydb/engine/values/size.py",
    "src/tallydb/engine/feed.py",
    # the storage engine's write and read path
    "src/tallydb/engine/storage/sqlite.py",
    "src/tallydb/engine/storage/item_log.py",
    # an item's checks and BatchWriteItem's (imports, bulk puts)
    "src/tallydb/engine/values/attribute_value.py",
    "src/tallydb/engine/api/batch_write_item.py",
    # the Kinesis destinations' worker process: a record's making and sending
    "src/tallydb/engine/api/_kinesis.py",
    "src/tallydb/engine/api/_kinesis_worker.py",
]

ROOT = Path(__file__).resolve().parent


def _say(line: str) -> None:
    print(f"tallydb build: {line}", file=sys.stderr, flush=True)


def _why_pure() -> str | None:
    """Why this build is pure Python, or None when it can be compiled."""
    if os.environ.get("TALLYDB_PURE_PYTHON", "") not in ("", "0"):
        return "TALLYDB_PURE_PYTHON is set"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypy (mypyc) is not installed"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    include = sysconfig.get_path("include")
    if not include or not (Path(include) / "Python.h").is_file():
        return "Python's headers (Python.h) are not installed"
    return None


class BuildExtOrPure(build_ext):
    """Build the C extensions; if the C compiler fails, install pure Python."""

    def run(self) -> None:
        if not self.extensions:  # pure Python: said so already
            return
        try:
            super().run()
        except Exception as error:  # a compiler or linker failure
            _say(f"the C build failed ({error}); installing pure Python")
            self.extensions = []
            return
        _say(f"built compiled (mypyc, {len(COMPILED)} modules)")

    def build_extension(self, ext: Any) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            raise RuntimeError(f"{ext.name}: {error}") from error


def _ext_modules() -> list[Any]:
    why = _why_pure()
    if why is not None:
        _say(f"built pure Python ({why})")
        return []
    from mypyc.build import mypycify

    os.chdir(ROOT)
    # mypycify exits on a type error: the build fails, on purpose.
    return list(
        mypycify(
            COMPILED,
            opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"),
            debug_level="0",
            strip_asserts=False,
        )
    )


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": BuildExtOrPure})
