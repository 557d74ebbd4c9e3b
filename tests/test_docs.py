"""The documentation keeps up with the code: every command and option has
help and an example, every command is shown in the docs, every public name
is in the API reference, and the site builds with ``mkdocs build --strict``
(so a broken link or reference fails)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import tallydb
from tallydb.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _commands(group: click.Group, prefix: str) -> Iterator[tuple[str, click.Command]]:
    """Every command under ``group``, as click lists and loads them (the
    ``tallydb`` group imports a command's module only when asked for it)."""
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, f"{prefix} {name} is listed but does not load"
        path = f"{prefix} {name}"
        yield path, command
        if isinstance(command, click.Group):
            yield from _commands(command, path)


COMMANDS = list(_commands(main, "tallydb"))
LEAVES = [(path, c) for path, c in COMMANDS if not isinstance(c, click.Group)]
assert COMMANDS, "the tallydb group lists no command"


def test_the_tree_has_the_commands() -> None:
    paths = {path for path, _ in COMMANDS}
    assert {"tallydb serve", "tallydb scan", "tallydb counter add", "tallydb import"} <= paths


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_command_has_help_with_an_example(path: str, command: click.Command) -> None:
    assert command.help, f"{path} has no help"
    if path != "tallydb serve":  # serve's examples are in docs/server.md
        assert "Example:" in command.help, f"{path}'s help has no example"
        example = command.help.split("Example:", 1)[1]
        assert path in example, f"{path}'s example does not run {path}"


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_option_has_help(path: str, command: click.Command) -> None:
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"{path} {param.opts[0]} has no help"


@pytest.mark.parametrize(("path", "command"), LEAVES, ids=[p for p, _ in LEAVES])
def test_every_command_is_shown_in_the_docs(path: str, command: click.Command) -> None:
    shown = (DOCS / "cli.md").read_text() + (DOCS / "server.md").read_text()
    assert re.search(rf"^{re.escape(path)}\b", shown, re.M), f"{path} is not in docs/cli.md"


@pytest.mark.parametrize(("path", "command"), LEAVES, ids=[p for p, _ in LEAVES])
def test_every_command_answers_help(path: str, command: click.Command) -> None:
    result = CliRunner().invoke(main, [*path.split()[1:], "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output


@pytest.mark.parametrize("name", sorted(set(tallydb.__all__) - {"__version__"}))
def test_every_public_name_is_in_the_api_reference(name: str) -> None:
    reference = (DOCS / "reference" / "api.md").read_text()
    assert re.search(rf"\b{name}\b", reference), f"tallydb.{name} is not in the API reference"


def test_the_site_builds_strict(tmp_path: Path) -> None:
    missing = [m for m in ("mkdocs", "material", "mkdocstrings_handlers.python", "mkdocs_click")
               if importlib.util.find_spec(m.split(".")[0]) is None]
    if missing:
        pytest.skip(f"the docs tools are not installed ({', '.join(missing)}): "
                    "pip install -e '.[docs]'")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert built.returncode == 0, built.stderr[-4000:]
    home = (tmp_path / "index.html").read_text()
    assert "atomic-counter pattern" in home
    reference = (tmp_path / "reference" / "api" / "index.html").read_text()
    assert "ShardedCounter" in reference and "Add <code>delta</code>" in reference


def test_the_repository_names_behaviours_not_work_items() -> None:
    # Code, tests, comments and docs say what a thing does, never which work
    # item asked for it.
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout, or no git: git grep cannot search it")
    found = subprocess.run(
        ["git", "grep", "-nEi", r"issue [0-9#]|issue-[0-9]|session [0-9]"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert found.returncode == 1, f"references to work items:\n{found.stdout}"
