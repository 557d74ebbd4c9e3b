"""tables, describe, scan, query, get, put and delete from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from cli_store import Store
from click.testing import CliRunner

from tallydb.cli import main


def test_put_then_get_prints_the_item(store: Store) -> None:
    table = store.table()
    store.ok("put", table, '{"PK": "VID#9f3a", "SK": "META", "title": "Cats", "n": 2.5}')
    out = store.ok("get", table, '{"PK": "VID#9f3a", "SK": "META"}')
    assert json.loads(out) == {"PK": "VID#9f3a", "SK": "META", "title": "Cats", "n": 2.5}


def test_get_of_a_missing_item_exits_1(store: Store) -> None:
    table = store.table()
    result = store.run("get", table, '{"PK": "nope", "SK": "x"}')
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (f"tallydb: ItemNotFoundError: table {table!r} has no item with key "
                             '{"PK": "nope", "SK": "x"}\n')


def test_put_in_dynamodb_json_keeps_sets_and_binary(store: Store) -> None:
    table = store.table()
    store.ok("put", table, '{"PK": {"S": "a"}, "SK": {"S": "b"}, "tags": {"SS": ["x", "y"]},'
                           ' "blob": {"B": "AAE="}}', "--dynamodb-json")
    assert store.items(table) == [{"PK": "a", "SK": "b", "tags": {"x", "y"}, "blob": b"\0\1"}]
    line = json.loads(store.ok("get", table, '{"PK": "a", "SK": "b"}', "--format", "dynamodb"))
    assert line["blob"] == {"B": "AAE="}
    assert sorted(line["tags"]["SS"]) == ["x", "y"]


def test_put_dash_reads_one_item_per_line(store: Store) -> None:
    table = store.table()
    store.ok("put", table, "-", input='{"PK": "a", "SK": "1"}\n{"PK": "a", "SK": "2"}\n')
    assert [i["SK"] for i in store.items(table)] == ["1", "2"]


def test_delete_removes_the_item_and_can_print_it(store: Store) -> None:
    table = store.table()
    store.ok("put", table, '{"PK": "a", "SK": "b", "v": 1}')
    out = store.ok("delete", table, '{"PK": "a", "SK": "b"}', "--print-old")
    assert json.loads(out) == {"PK": "a", "SK": "b", "v": 1}
    assert store.items(table) == []


def test_scan_prints_every_item_and_filters(store: Store) -> None:
    table = store.table()
    with store.connect() as db:
        for n in range(30):
            db.table(table).put({"PK": f"p{n % 3}", "SK": f"{n:02d}", "plays": n})
    lines = store.ok("scan", table).splitlines()
    assert sorted(json.loads(line)["plays"] for line in lines) == list(range(30))
    out = store.ok("scan", table, "--filter", "plays >= :n", "--values", '{":n": 25}')
    assert sorted(json.loads(line)["plays"] for line in out.splitlines()) == [25, 26, 27, 28, 29]
    assert len(store.ok("scan", table, "--limit", "4").splitlines()) == 4


def test_query_reads_one_partition_in_order(store: Store) -> None:
    table = store.table()
    with store.connect() as db:
        for sk in ("META", "STATS#2026-11", "STATS#2026-10", "STATS#TOTAL"):
            db.table(table).put({"PK": "VID#9f3a", "SK": sk})
        db.table(table).put({"PK": "VID#other", "SK": "META"})
    out = store.ok("query", table, '{"PK": "VID#9f3a"}', "--begins-with", "STATS#")
    assert [json.loads(line)["SK"] for line in out.splitlines()] == [
        "STATS#2026-10", "STATS#2026-11", "STATS#TOTAL"]
    out = store.ok("query", table, '{"PK": "VID#9f3a"}', "--reverse", "--limit", "1")
    assert [json.loads(line)["SK"] for line in out.splitlines()] == ["STATS#TOTAL"]


def test_begins_with_on_a_numeric_sort_key_is_a_usage_error(store: Store) -> None:
    # DynamoDB answers "Condition parameter type does not match schema type",
    # which names neither the option nor the key.
    table = store.table(range_key=("n", "N"))
    result = store.run("query", table, '{"PK": "a"}', "--begins-with", "1")
    assert result.exit_code == 2
    assert "--begins-with needs a String or Binary sort key; n is a Number" in result.stderr


def test_tables_lists_name_key_count_and_size(store: Store) -> None:
    table = store.table()
    store.ok("put", table, '{"PK": "a", "SK": "b", "v": "hello"}')
    rows = [json.loads(line) for line in store.ok("tables").splitlines()]
    (row,) = [r for r in rows if r["name"] == table]
    assert row["key"] == "PK (S, HASH), SK (S, RANGE)"
    assert row["items"] >= 0 and row["bytes"] >= 0
    assert table in store.ok("tables", "--format", "table")


def test_tables_offers_no_dynamodb_json_it_would_not_print() -> None:
    # A table's row is not an item: `--format dynamodb` printed it as plain JSON.
    result = CliRunner().invoke(main, ["tables", "--format", "dynamodb"], prog_name="tallydb")
    assert result.exit_code == 2
    assert "'dynamodb' is not one of 'json', 'table'" in result.stderr


def test_describe_prints_describe_table(store: Store) -> None:
    table = store.table(range_key=None)
    answer = json.loads(store.ok("describe", table))
    assert answer["TableName"] == table
    assert answer["KeySchema"] == [{"AttributeName": "PK", "KeyType": "HASH"}]


def test_a_dynamodb_error_is_one_line(store: Store) -> None:
    result = store.run("describe", "no-such-table")
    assert result.exit_code == 1
    assert result.stderr.startswith("tallydb: ResourceNotFoundException: ")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_key_that_is_not_json_is_a_usage_error(store: Store) -> None:
    result = store.run("get", "t", "{PK: a}")
    assert result.exit_code == 2
    assert "KEY is not JSON" in result.stderr


def test_table_format_shows_columns(store: Store) -> None:
    table = store.table()
    store.ok("put", table, '{"PK": "a", "SK": "b", "title": "Cats"}')
    out = store.ok("scan", table, "--format", "table")
    assert out.split()[:3] == ["PK", "SK", "title"]
    assert "Cats" in out


def test_no_server_is_one_line_saying_what_to_do() -> None:
    result = CliRunner().invoke(main, ["tables", "--endpoint", "http://127.0.0.1:1"])
    assert result.exit_code == 3
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("tallydb: TransportError: cannot reach http://127.0.0.1:1 (")
    assert "start `tallydb serve`, or use --data DIR" in line


def test_data_wins_over_the_endpoint_in_the_environment(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["tables", "--data", str(tmp_path / "d")],
                                env={"TALLYDB_ENDPOINT": "http://127.0.0.1:1"})
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["tables", "--data", str(tmp_path / "d"),
                                       "--endpoint", "http://127.0.0.1:1"])
    assert result.exit_code == 2
    assert "give --data or --endpoint, not both" in result.stderr
