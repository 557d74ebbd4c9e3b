"""tallydb.transfer, the library behind ``tallydb export`` / ``import``: the
table's description travels with the data (indexes, billing, TTL), exports
made elsewhere are found and read, and bad input is a TransferError."""

from __future__ import annotations

import gzip
import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tallydb
from tallydb import transfer
from tallydb.transfer import TransferError

INDEXED: dict[str, Any] = {
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                  {"AttributeName": "SK", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                             {"AttributeName": "SK", "AttributeType": "S"},
                             {"AttributeName": "kind", "AttributeType": "S"},
                             {"AttributeName": "plays", "AttributeType": "N"}],
    "GlobalSecondaryIndexes": [{
        "IndexName": "top", "Projection": {"ProjectionType": "KEYS_ONLY"},
        "KeySchema": [{"AttributeName": "kind", "KeyType": "HASH"},
                      {"AttributeName": "plays", "KeyType": "RANGE"}],
    }],
    "LocalSecondaryIndexes": [{
        "IndexName": "by_plays", "Projection": {"ProjectionType": "ALL"},
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                      {"AttributeName": "plays", "KeyType": "RANGE"}],
    }],
    "BillingMode": "PAY_PER_REQUEST",
}


@pytest.fixture(params=["embedded", "server"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tallydb.Database]:
    if request.param == "embedded":
        database = tallydb.connect(path=tmp_path / "data")
    else:
        database = tallydb.connect(request.getfixturevalue("tallydb_server").url)
    with database:
        yield database


def _name() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


def _indexed_table(db: tallydb.Database) -> str:
    name = _name()
    db.client.create_table(TableName=name, **INDEXED)
    db.client.update_time_to_live(
        TableName=name,
        TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires_at"})
    for n in range(12):
        db.table(name).put({"PK": f"v{n % 3}", "SK": f"s{n}", "kind": "video", "plays": n})
    return name


def test_the_description_carries_indexes_billing_and_ttl(
    db: tallydb.Database, tmp_path: Path
) -> None:
    table = _indexed_table(db)
    folder = transfer.export_table(db, table, tmp_path / "out")
    written = json.loads((folder / transfer.DESCRIPTION_FILE).read_text())
    assert written["TimeToLiveAttribute"] == "expires_at"
    assert written["BillingMode"] == "PAY_PER_REQUEST"
    copy = _name()
    assert transfer.import_table(db, tmp_path / "out", copy) == 12
    described = db.table(copy).describe()
    assert [i["IndexName"] for i in described["GlobalSecondaryIndexes"]] == ["top"]
    assert [i["IndexName"] for i in described["LocalSecondaryIndexes"]] == ["by_plays"]
    top = list(db.table(copy).query({"kind": "video"}, index="top", reverse=True, limit=1))
    assert top[0]["plays"] == 11
    ttl = db.client.describe_time_to_live(TableName=copy)["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expires_at"


def test_an_empty_table_exports_one_empty_file_and_imports_nothing(
    db: tallydb.Database, tmp_path: Path
) -> None:
    # DynamoDB's export "creates at least 1 file per partition", empty ones too.
    table = _name()
    db.create_table(table, hash_key=("id", "N"))
    folder = transfer.export_table(db, table, tmp_path / "out")
    (entry,) = [json.loads(x) for x in (folder / "manifest-files.json").read_text().split()]
    assert entry["itemCount"] == 0
    assert gzip.decompress((tmp_path / "out" / entry["dataFileS3Key"]).read_bytes()) == b""
    assert transfer.import_table(db, folder, _name()) == 0


def test_an_export_copied_from_s3_is_found_by_file_name(
    db: tallydb.Database, tmp_path: Path
) -> None:
    # `aws s3 sync s3://bucket/prefix/AWSDynamoDB/ID DIR` puts the export's
    # folder at DIR: the manifest's keys (prefix/AWSDynamoDB/ID/data/...)
    # no longer lead anywhere from DIR, the data/ folder beside it does.
    table = _name()
    db.create_table(table, hash_key=("id", "S"))
    db.table(table).put({"id": "a", "blob": b"\x00"})
    folder = transfer.export_table(db, table, tmp_path / "out")
    copied = tmp_path / "copied"
    shutil.copytree(folder, copied)
    (copied / transfer.DESCRIPTION_FILE).unlink()
    copy = _name()
    assert transfer.import_table(db, copied, copy, hash_key=("id", "S")) == 1
    assert db.table(copy).get({"id": "a"}) == {"id": "a", "blob": b"\x00"}


def test_a_missing_data_file_is_named(db: tallydb.Database, tmp_path: Path) -> None:
    table = _name()
    db.create_table(table, hash_key=("id", "S"))
    folder = transfer.export_table(db, table, tmp_path / "out")
    for data_file in (folder / "data").iterdir():
        data_file.unlink()
    with pytest.raises(TransferError, match=r"the data file .*\.json\.gz named in .* is missing"):
        transfer.import_table(db, folder, _name())


def test_a_folder_with_two_exports_asks_which(db: tallydb.Database, tmp_path: Path) -> None:
    table = _name()
    db.create_table(table, hash_key=("id", "S"))
    transfer.export_table(db, table, tmp_path / "out")
    transfer.export_table(db, table, tmp_path / "out")
    with pytest.raises(TransferError, match="holds 2 exports: name one of"):
        transfer.detect_format(tmp_path / "out")


def test_a_jsonl_line_that_is_not_an_object_is_refused(
    db: tallydb.Database, tmp_path: Path
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a"}\n[1, 2]\n')
    with pytest.raises(TransferError, match=r"items.jsonl:2: a line is one JSON object"):
        transfer.import_table(db, path, _name(), hash_key=("id", "S"))


def test_parse_key_spec() -> None:
    assert transfer.parse_key_spec("PK") == ("PK", "S")
    assert transfer.parse_key_spec("year:n") == ("year", "N")
    assert transfer.parse_key_spec("a:b:B") == ("a:b", "B")
    with pytest.raises(TransferError, match="TYPE S, N or B"):
        transfer.parse_key_spec("PK:X")


def test_create_table_request_keeps_throughput_of_a_provisioned_table() -> None:
    description = {
        "TableName": "t", "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "BillingModeSummary": {"BillingMode": "PROVISIONED"},
        "ProvisionedThroughput": {"ReadCapacityUnits": 7, "WriteCapacityUnits": 3,
                                  "NumberOfDecreasesToday": 0},
        "ItemCount": 5, "TableStatus": "ACTIVE",
    }
    request = transfer.create_table_request(description)
    assert request["BillingMode"] == "PROVISIONED"
    assert request["ProvisionedThroughput"] == {"ReadCapacityUnits": 7, "WriteCapacityUnits": 3}
    assert "ItemCount" not in request and "TableStatus" not in request


def test_expected_items_reads_the_manifest(db: tallydb.Database, tmp_path: Path) -> None:
    table = _name()
    db.create_table(table, hash_key=("id", "S"))
    for n in range(3):
        db.table(table).put({"id": str(n)})
    transfer.export_table(db, table, tmp_path / "out")
    assert transfer.expected_items(tmp_path / "out") == 3
    transfer.export_table(db, table, tmp_path / "jsonl", format="jsonl")
    assert transfer.expected_items(tmp_path / "jsonl") is None


def test_import_table_parameters_leave_out_what_import_table_cannot_create(
    db: tallydb.Database, tmp_path: Path
) -> None:
    # ImportTable's TableCreationParameters have GlobalSecondaryIndexes but
    # no LocalSecondaryIndexes; an attribute definition no key uses is refused.
    table = _indexed_table(db)
    folder = transfer.export_table(db, table, tmp_path / "out")
    parameters = json.loads((folder / transfer.PARAMETERS_FILE).read_text())
    assert parameters["TableName"] == table
    assert "LocalSecondaryIndexes" not in parameters
    assert [i["IndexName"] for i in parameters["GlobalSecondaryIndexes"]] == ["top"]
    assert sorted(a["AttributeName"] for a in parameters["AttributeDefinitions"]) == [
        "PK", "SK", "kind", "plays"]
    db.client.create_table(**{**parameters, "TableName": _name()})  # a valid table


def test_an_attribute_only_a_local_index_uses_is_left_out_of_import_parameters() -> None:
    description = {
        "TableName": "t",
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                      {"AttributeName": "SK", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": n, "AttributeType": "S"}
                                 for n in ("PK", "SK", "x")],
        "LocalSecondaryIndexes": [{
            "IndexName": "by_x", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                          {"AttributeName": "x", "KeyType": "RANGE"}],
        }],
    }
    parameters = transfer.table_creation_parameters(description)
    assert [a["AttributeName"] for a in parameters["AttributeDefinitions"]] == ["PK", "SK"]
    assert "LocalSecondaryIndexes" not in parameters
    assert "LocalSecondaryIndexes" in transfer.create_table_request(description)


def test_export_lines_written_by_other_tools_import_as_their_item(
    db: tallydb.Database, tmp_path: Path
) -> None:
    # Lines as AWS writes them go into BatchWriteItem unparsed; any other
    # spelling of {"Item": ...} (spaces, members before it) is parsed first.
    # A member after the item goes along unparsed, and the put ignores it.
    table = _name()
    db.create_table(table, hash_key=("id", "S"))
    db.table(table).put({"id": "seed"})
    folder = transfer.export_table(db, table, tmp_path / "out")
    data = next((folder / "data").glob("*.json.gz"))
    data.write_bytes(gzip.compress(
        b'{"Item":{"id":{"S":"plain"},"n":{"N":"1"}}}\n'
        b'{ "Item" : { "id" : { "S" : "spaced" } } }\n'
        b'{"Metadata":{"x":{"S":"Item"}},"Item":{"id":{"S":"after"}}}\n'
        b'{"Item":{"id":{"S":"before"}},"Metadata":{"y":{"N":"2"}}}\n'
        b'\n'))
    copy = _name()
    assert transfer.import_table(db, folder, copy) == 4
    assert sorted(i["id"] for i in db.table(copy).scan()) == [
        "after", "before", "plain", "spaced"]
    assert db.table(copy).get({"id": "plain"}) == {"id": "plain", "n": 1}


def test_an_import_reports_its_progress_every_thousand_items_and_at_the_end(
    db: tallydb.Database, tmp_path: Path
) -> None:
    table = _name()
    db.create_table(table, hash_key=("id", "S"))
    db.table(table).put({"id": "seed"})
    folder = transfer.export_table(db, table, tmp_path / "out")
    data = next((folder / "data").glob("*.json.gz"))
    data.write_bytes(gzip.compress(b"".join(
        b'{"Item":{"id":{"S":"i%d"},"n":{"N":"%d"}}}\n' % (n, n) for n in range(2_010))))
    told: list[int] = []
    copy = _name()
    assert transfer.import_table(db, folder, copy, progress=told.append) == 2_010
    assert told == [1_000, 2_000, 2_010]
    assert db.table(copy).get({"id": "i2009"}) == {"id": "i2009", "n": 2009}
    assert db.client.describe_table(TableName=copy)["Table"]["ItemCount"] == 2_010
