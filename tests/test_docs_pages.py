"""The how-to pages cover what a user reaches for first: docs/testing.md names
every fixture the pytest plugin gives, and docs/toolkit.md shows how to attach
an extension to a model in a block the docs test runs (tests/test_docs_examples.py
runs every block; these check that the blocks are there to run)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tallydb.testing.plugin

ROOT = Path(__file__).resolve().parent.parent
FENCED = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)
SKIP = re.compile(r"<!-- skip: next .*-->\s*$")


def _fixtures() -> list[str]:
    """The fixtures the plugin declares, read from its source."""
    tree = ast.parse(Path(tallydb.testing.plugin.__file__).read_text())
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
            "fixture" in ast.unparse(decorator) for decorator in node.decorator_list
        ):
            names.append(node.name)
    return names


def _runnable_blocks(page: str, language: str) -> list[str]:
    """The ``language`` blocks of ``page`` that are not marked not runnable."""
    text = (ROOT / page).read_text()
    return [
        match.group(2) for match in FENCED.finditer(text)
        if match.group(1) == language and not SKIP.search(text[: match.start()].rstrip() + "\n")
    ]


def test_the_plugin_declares_the_fixtures_users_are_told_of() -> None:
    assert {"tallydb_server", "tallydb_endpoint", "tallydb_client", "tallydb_db",
            "tallydb_aio_db", "tallydb_mock"} <= set(_fixtures())


@pytest.mark.parametrize("fixture", _fixtures())
def test_the_testing_page_names_every_fixture(fixture: str) -> None:
    # As reported: tallydb_mock and tallydb_aio_db were left out.
    page = (ROOT / "docs" / "testing.md").read_text()
    assert f"| `{fixture}` |" in page, f"docs/testing.md's table of fixtures lacks {fixture}"


def test_the_toolkit_page_attaches_an_extension_in_a_block_that_runs() -> None:
    # As reported: attaching a model extension was only in the API reference.
    blocks = [block for block in _runnable_blocks("docs/toolkit.md", "python")
              if "extensions=[" in block]
    assert blocks, "docs/toolkit.md has no runnable block attaching an extension"
    assert any("(tallydb.Extension)" in block and "def before_write" in block
               for block in blocks)
