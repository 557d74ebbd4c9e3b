"""``tallydb create-table`` and ``delete-table``: from flags or from a JSON
file, with ``--exist-ok``; delete asks first."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from cli_store import Store


def _name() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


def _describe(store: Store, table: str) -> dict:
    with store.connect() as db:
        return db.table(table).describe()


def _ttl(store: Store, table: str) -> dict:
    with store.connect() as db:
        return db.client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]


def test_create_table_from_flags_prints_one_line(store: Store) -> None:
    table = _name()
    out = store.ok("create-table", table, "--hash-key", "PK:S", "--range-key", "SK")
    assert out == f"table {table}: key PK (S), SK (S); PAY_PER_REQUEST\n"
    store.ok("counter", "add", table, '{"PK": "a", "SK": "b"}', "n")


def test_create_table_with_everything(store: Store) -> None:
    table = _name()
    out = store.ok("create-table", table, "--hash-key", "PK", "--range-key", "SK",
                   "--gsi", "by_owner=owner:S,SK:S", "--gsi", "by_kind=kind",
                   "--lsi", "by_plays=plays:N", "--ttl", "expires_at",
                   "--stream", "NEW_AND_OLD_IMAGES", "--billing-mode", "PROVISIONED")
    assert out == (f"table {table}: key PK (S), SK (S); PROVISIONED; "
                   "global index by_owner (owner (S), SK (S)); global index by_kind (kind (S)); "
                   "local index by_plays (PK (S), plays (N)); TTL on expires_at; "
                   "stream NEW_AND_OLD_IMAGES\n")
    described = _describe(store, table)
    assert described["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    assert _ttl(store, table)["AttributeName"] == "expires_at"


def test_create_table_twice_fails_unless_exist_ok_which_converges(store: Store) -> None:
    table = _name()
    store.ok("create-table", table, "--hash-key", "PK:S")
    again = store.run("create-table", table, "--hash-key", "PK:S")
    assert again.exit_code == 1
    assert again.stderr == f"tallydb: ResourceInUseException: Table already exists: {table}\n"
    out = store.ok("create-table", table, "--hash-key", "PK:S", "--ttl", "expires_at",
                   "--gsi", "by_owner=owner:S", "--exist-ok")
    assert out.endswith("global index by_owner (owner (S)); TTL on expires_at\n")
    other = store.run("create-table", table, "--hash-key", "id:N", "--exist-ok")
    assert other.exit_code == 1
    assert other.stderr == (f"tallydb: SchemaMismatchError: table {table!r} exists, but its key "
                            "is PK (S), not id (N)\n")


def test_create_table_from_describe_table_output(store: Store, tmp_path: Path) -> None:
    # What `aws dynamodb describe-table --table-name X` prints: {"Table": {...}}.
    source = _name()
    store.ok("create-table", source, "--hash-key", "PK", "--range-key", "SK:N",
             "--gsi", "by_owner=owner", "--stream", "KEYS_ONLY")
    description = {"Table": _describe(store, source)}
    path = tmp_path / "described.json"
    path.write_text(json.dumps(description, default=str))
    copy = _name()
    out = store.ok("create-table", copy, "--from", str(path))
    assert out == (f"table {copy}: key PK (S), SK (N); PAY_PER_REQUEST; "
                   "global index by_owner (owner (S)); stream KEYS_ONLY\n")


def test_create_table_from_a_create_table_request_on_stdin(store: Store) -> None:
    table = _name()
    request = {"TableName": table, "BillingMode": "PAY_PER_REQUEST",
               "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
               "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}
    out = store.ok("create-table", "--from", "-", "--ttl", "gone", input=json.dumps(request))
    assert out == f"table {table}: key id (S); PAY_PER_REQUEST; TTL on gone\n"


def test_create_table_usage_errors(store: Store, tmp_path: Path) -> None:
    for args, message in (
        (["t1"], "give TABLE and --hash-key NAME[:TYPE] (or --from FILE)"),
        (["t1", "--hash-key", "PK:X"], "a key is NAME or NAME:TYPE with TYPE S, N or B"),
        (["t1", "--hash-key", "PK", "--gsi", "nokeys"], "an index is NAME=KEY[:TYPE]"),
        (["t1", "--hash-key", "PK", "--lsi", "by=x:N"], "a local index needs the table's"),
        (["--from", str(tmp_path / "none.json"), "--hash-key", "PK"], "drop --hash-key"),
    ):
        result = store.run("create-table", *args)
        assert result.exit_code == 2, (args, result.output)
        (line,) = result.stderr.strip().splitlines()
        assert line.startswith("tallydb: UsageError: ") and message in line, line
    (tmp_path / "x.json").write_text('{"KeySchema": []}')
    result = store.run("create-table", "--from", str(tmp_path / "x.json"))
    assert result.exit_code == 2
    assert "not a CreateTable request or a table description: no TableName" in result.stderr


def test_delete_table_asks_first(store: Store) -> None:
    table = store.table()
    result = store.run("delete-table", table, input="n\n")
    assert result.exit_code == 1
    assert f"Delete table {table} and every item in it? [y/N]" in result.output
    assert result.stderr.endswith("tallydb: Aborted: nothing was changed\n")
    with store.connect() as db:
        assert table in db.list_tables()
    assert store.ok("delete-table", table, input="y\n").endswith(f"deleted table {table}\n")
    with store.connect() as db:
        assert table not in db.list_tables()


def test_delete_table_yes_does_not_ask_and_a_missing_table_is_named(store: Store) -> None:
    table = store.table()
    assert store.ok("delete-table", table, "--yes") == f"deleted table {table}\n"
    result = store.run("delete-table", table, "--yes")
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("tallydb: ResourceNotFoundException: ") and table in line
