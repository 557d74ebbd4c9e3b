"""Every command fails the same way: one line, ``tallydb: <Exception>:
<message>``, naming the table, and an exit code that says what kind of
failure it was (1 refused, 2 usage, 3 unavailable)."""

from __future__ import annotations

import re

import pytest
from cli_store import Store
from click.testing import CliRunner

from tallydb.cli import main

KEY = '{"PK": "a", "SK": "b"}'
#: Every command that names a table, as it would be run on one that does not exist.
ON_A_MISSING_TABLE = [
    ("counter", "add", "nosuch", KEY, "n"),
    ("counter", "get", "nosuch", KEY, "n"),
    ("get", "nosuch", KEY),
    ("put", "nosuch", KEY),
    ("delete", "nosuch", KEY),
    ("scan", "nosuch"),
    ("query", "nosuch", '{"PK": "a"}'),
    ("describe", "nosuch"),
    ("delete-table", "nosuch", "--yes"),
]
LINE = re.compile(r"tallydb: (?P<kind>[A-Za-z]+): (?P<message>.+)")


def _line(result: object) -> re.Match[str]:
    lines = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1, lines
    match = LINE.fullmatch(lines[0])
    assert match is not None, lines[0]
    return match


@pytest.mark.parametrize("args", ON_A_MISSING_TABLE, ids=" ".join)
def test_a_missing_table_is_one_line_naming_it_once(store: Store, args: tuple[str, ...]) -> None:
    result = store.run(*args)
    assert result.exit_code == 1
    assert result.stdout == ""
    line = _line(result)
    assert line["kind"] == "ResourceNotFoundException"
    assert "nosuch" in line["message"]
    assert "ResourceNotFoundException" not in line["message"]  # the name once


def test_a_key_that_is_not_the_tables_says_what_its_key_is(store: Store) -> None:
    table = store.table()
    result = store.run("counter", "add", table, '{"PK": "VID#9f3a"}', "plays")
    assert result.exit_code == 1
    assert result.stderr == (
        f"tallydb: ValidationException: table {table!r}: The provided key element does not "
        "match the schema; its key is PK (S), SK (S)\n")


def test_a_usage_error_is_one_line_too() -> None:
    result = CliRunner().invoke(main, ["get", "videos"], prog_name="tallydb")
    assert result.exit_code == 2
    assert result.stderr == ("tallydb: UsageError: Missing argument 'KEY'. "
                             "(see: tallydb get --help)\n")


def test_values_print_as_json_sets_sorted(store: Store) -> None:
    table = store.table()
    store.ok("put", table, '{"PK": {"S": "a"}, "SK": {"S": "b"}, "tags": {"SS": ["y", "x"]}, '
                           '"ns": {"NS": ["10", "2"]}, "m": {"M": {"s": {"SS": ["b", "a"]}}}}',
             "--dynamodb-json")
    assert store.ok("counter", "get", table, KEY, "tags") == '["x", "y"]\n'
    assert store.ok("counter", "get", table, KEY, "ns") == "[2, 10]\n"
    assert store.ok("counter", "get", table, KEY, "tags", "--format", "dynamodb") == (
        '{"SS": ["x", "y"]}\n')
    assert store.ok("counter", "get", table, KEY, "ns", "--format", "dynamodb") == (
        '{"NS": ["2", "10"]}\n')
    assert store.ok("get", table, KEY) == (
        '{"PK": "a", "SK": "b", "tags": ["x", "y"], "ns": [2, 10], "m": {"s": ["a", "b"]}}\n')
    assert store.ok("get", table, KEY, "--format", "dynamodb") == (
        '{"PK": {"S": "a"}, "SK": {"S": "b"}, "tags": {"SS": ["x", "y"]}, '
        '"ns": {"NS": ["2", "10"]}, "m": {"M": {"s": {"SS": ["a", "b"]}}}}\n')
    assert store.ok("counter", "add", table, KEY, "plays", "--format", "dynamodb") == (
        '{"N": "1"}\n')


def test_a_fault_botocore_finds_before_sending_is_one_line_too(store: Store) -> None:
    # botocore refuses a 2-character SourceTableName itself, with a message of
    # two lines ("Parameter validation failed:" and the fault).
    result = store.run("restore", "ab", "--to-time", "latest", "--as", "abcd")
    assert result.exit_code == 1
    line = _line(result)
    assert line["kind"] == "ValidationException"
    assert line["message"] == ("Parameter validation failed: Invalid length for parameter "
                               "SourceTableName, value: 2, valid min length: 3")
