"""The package is laid out by layer, and says so: the top of ``src/tallydb``
names the layers and nothing else, every module opens with what it is for,
the old module paths still import (warning once they are deprecated), the
blocking and asyncio toolkits share every method, and the contributor's map
in ``docs/contributing.md`` names only paths that exist."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tallydb.aio

import tallydb

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "tallydb"
LAYERS = {"engine", "server", "console", "toolkit", "testing", "cli", "transfer"}


def test_the_top_of_the_package_names_the_layers() -> None:
    names = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert names == LAYERS | {"__init__.py", "__main__.py", "py.typed"}


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_every_module_opens_with_what_it_is_for(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text()))
    assert docstring, f"{path} has no docstring"
    first = docstring.splitlines()[0].strip()
    assert len(first.split()) >= 3, f"{path}'s first line says too little: {first!r}"


OLD_PATHS = [
    ("tallydb.api", "tallydb.engine.api"),
    ("tallydb.storage", "tallydb.engine.storage"),
    ("tallydb.storage.sqlite", "tallydb.engine.storage.sqlite"),
    ("tallydb.errors", "tallydb.engine.errors"),
    ("tallydb.inprocess", "tallydb.toolkit.inprocess"),
    ("tallydb.table", "tallydb.toolkit.table"),
    ("tallydb.mock", "tallydb.testing.mock"),
]


@pytest.mark.parametrize(("old", "new"), OLD_PATHS)
def test_an_old_module_path_imports_the_same_module_with_a_warning(old: str, new: str) -> None:
    code = (
        "import importlib, warnings, sys\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        "assert old is new, (old, new)\n"
        "assert old.__spec__.name == new.__name__, old.__spec__\n"
        f"assert sys.modules[{old!r}] is new\n"
        "print([str(w.message) for w in caught if w.category is DeprecationWarning])\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout
    assert f"{old} has moved to {new}" in shown


def test_tallydb_aio_is_a_public_name_without_a_warning() -> None:
    code = ("import warnings\nwarnings.simplefilter('error')\nimport tallydb.aio\n"
            "import tallydb\n"
            "from tallydb.toolkit import aio\nassert tallydb.aio is aio\n")
    subprocess.run([sys.executable, "-c", code], check=True)


TWINS = [
    (tallydb.Table, tallydb.aio.Table),
    (tallydb.Database, tallydb.aio.Database),
    (tallydb.Model, tallydb.aio.Model),
    (tallydb.Counter, tallydb.aio.Counter),
    (tallydb.ShardedCounter, tallydb.aio.ShardedCounter),
    (tallydb.RegionalCounter, tallydb.aio.RegionalCounter),
]


def _plan(attribute: object) -> object:
    """The plan a method runs, if it is one of the drivers' methods."""
    function = getattr(attribute, "__func__", attribute)  # a classmethod's function
    return getattr(function, "plan", None)


@pytest.mark.parametrize(("blocking", "awaiting"), TWINS, ids=lambda c: c.__qualname__)
def test_the_blocking_and_the_asyncio_class_share_every_method(
    blocking: type, awaiting: type
) -> None:
    def public(cls: type) -> dict[str, object]:
        return {name: inspect.getattr_static(cls, name) for name in dir(cls)
                if not name.startswith("_")}

    mine, theirs = public(blocking), public(awaiting)
    # Only these differ by API: a property that reads the schema, and the
    # factories of the API's own batch writer.
    own = {"schema", "batch_writer", "awaited"}
    assert set(mine) - own == set(theirs) - own
    planned = [name for name in mine if _plan(mine[name]) is not None]
    assert planned, f"{blocking.__qualname__} has no method written as a plan"
    for name in planned:
        assert _plan(mine[name]) is _plan(theirs[name]), f"{name} is written twice"
    for name, attribute in theirs.items():
        function = getattr(attribute, "__func__", attribute)
        if inspect.iscoroutinefunction(function) and _plan(attribute) is None and name not in own:
            pytest.fail(f"tallydb.aio.{awaiting.__name__}.{name} is written out by hand")


def test_a_blocking_call_returns_its_result_and_an_awaited_one_a_coroutine() -> None:
    import asyncio

    db = tallydb.connect(in_memory=True)
    try:
        videos = db.create_table("videos", hash_key=("PK", "S"))
        videos.put({"PK": "a", "n": 1})
        assert videos.get({"PK": "a"}) == {"PK": "a", "n": 1}
        adb = tallydb.aio.Database(db.transport)
        call = adb.table("videos").get({"PK": "a"})
        assert inspect.iscoroutine(call)
        assert asyncio.run(call) == {"PK": "a", "n": 1}
    finally:
        db.close()


MAP = (ROOT / "docs" / "contributing.md").read_text()


@pytest.mark.parametrize(
    "path", sorted(set(re.findall(r"`((?:src|tests|docs)/[\w/.<>-]+)`", MAP)))
)
def test_every_path_on_the_contributors_map_exists(path: str) -> None:
    if "<" in path:  # a pattern, such as api/<operation_name>.py: where it goes exists
        path = path[: path.index("<")].rsplit("/", 1)[0]
    assert (ROOT / path).exists(), f"docs/contributing.md names {path}, which does not exist"


def test_the_contributors_map_names_every_layer() -> None:
    for layer in LAYERS:
        assert f"src/tallydb/{layer}/" in MAP, f"docs/contributing.md does not place {layer}/"
