"""Who may do what: the credentials file, read-only and table-limited keys,
through boto3 against the real ``tallydb serve``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import botocore.auth
import pytest
from botocore.exceptions import ClientError
from serverkit import Serve

from tallydb.engine.api import Access, Engine
from tallydb.engine.errors import AccessDeniedException
from tallydb.engine.storage import Store
from tallydb.server import credentials
from tallydb.server.credentials import Key

pytest_plugins = ["server_fixtures"]

CREDENTIALS = """\
[keys.AKIDADMIN]
secret = "admin-secret"
[keys.AKIDREADER]
secret = "reader-secret"
access = "read-only"
tables = ["videos"]
[keys.AKIDVIDEOS]
secret = "videos-secret"
tables = ["videos"]
[keys.AKIDLOOKER]
secret = "looker-secret"
access = "read-only"
"""
VIDEO = {"id": {"S": "v1"}, "plays": {"N": "5"}}


def denied(key: str, action: str, table: str) -> str:
    # DynamoDB's message for an action no identity-based policy allows
    # (the region is the one the request was signed for).
    return (
        f"User: arn:aws:iam::000000000000:user/{key} is not authorized to perform: "
        f"dynamodb:{action} on resource: arn:aws:dynamodb:us-east-1:000000000000:table/"
        f"{table} because no identity-based policy allows the dynamodb:{action} action"
    )


def error_of(error: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    response = error.value.response
    return (
        response["Error"]["Code"],
        response["Error"]["Message"],
        response["ResponseMetadata"]["HTTPStatusCode"],
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    path = tmp_path_factory.mktemp("keys") / "credentials.toml"
    path.write_text(CREDENTIALS)
    server = Serve("--in-memory", "--credentials", str(path)).start()
    admin = server.client("AKIDADMIN", "admin-secret")
    for name in ("videos", "other"):
        admin.create_table(
            TableName=name,
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
        )
        admin.put_item(TableName=name, Item=VIDEO)
    yield server
    server.kill()


def views(server: Serve, table: str = "videos") -> str:
    item = server.client("AKIDADMIN", "admin-secret").get_item(
        TableName=table, Key={"id": {"S": "v1"}}
    )["Item"]
    return str(item["plays"]["N"])


def test_a_read_write_key_increments(server: Serve) -> None:
    admin = server.client("AKIDADMIN", "admin-secret")
    before = int(views(server, "other"))
    admin.update_item(TableName="other", Key={"id": {"S": "v1"}},
                      UpdateExpression="ADD plays :one",
                      ExpressionAttributeValues={":one": {"N": "1"}})
    assert int(views(server, "other")) == before + 1


def test_a_read_only_key_reads_but_cannot_increment(server: Serve) -> None:
    reader = server.client("AKIDREADER", "reader-secret")
    assert reader.get_item(TableName="videos", Key={"id": {"S": "v1"}})["Item"] == VIDEO
    assert reader.describe_table(TableName="videos")["Table"]["TableName"] == "videos"
    assert reader.scan(TableName="videos")["Count"] == 1
    with pytest.raises(ClientError) as error:
        reader.update_item(TableName="videos", Key={"id": {"S": "v1"}},
                           UpdateExpression="ADD plays :one",
                           ExpressionAttributeValues={":one": {"N": "1"}})
    assert error_of(error) == (
        "AccessDeniedException", denied("AKIDREADER", "UpdateItem", "videos"), 400
    )
    assert views(server) == "5"


def test_a_read_only_key_cannot_write_in_any_form(server: Serve) -> None:
    looker = server.client("AKIDLOOKER", "looker-secret")
    writes: list[Callable[[], Any]] = [
        lambda: looker.put_item(TableName="other", Item={"id": {"S": "new"}}),
        lambda: looker.delete_item(TableName="videos", Key={"id": {"S": "v1"}}),
        lambda: looker.batch_write_item(
            RequestItems={"videos": [{"PutRequest": {"Item": {"id": {"S": "b"}}}}]}
        ),
        lambda: looker.transact_write_items(TransactItems=[
            {"Update": {"TableName": "videos", "Key": {"id": {"S": "v1"}},
                        "UpdateExpression": "ADD plays :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}}}},
        ]),
        lambda: looker.delete_table(TableName="videos"),
        lambda: looker.update_time_to_live(
            TableName="videos",
            TimeToLiveSpecification={"Enabled": True, "AttributeName": "ttl"},
        ),
    ]
    for write in writes:
        with pytest.raises(ClientError) as error:
            write()
        assert error.value.response["Error"]["Code"] == "AccessDeniedException"
    assert looker.list_tables()["TableNames"] == ["other", "videos"]
    assert views(server) == "5"
    assert "Item" not in looker.get_item(TableName="other", Key={"id": {"S": "new"}})



def test_a_key_limited_to_tables_cannot_touch_others(server: Serve) -> None:
    limited = server.client("AKIDVIDEOS", "videos-secret")
    limited.update_item(TableName="videos", Key={"id": {"S": "v2"}},
                        UpdateExpression="ADD plays :one",
                        ExpressionAttributeValues={":one": {"N": "1"}})
    with pytest.raises(ClientError) as error:
        limited.get_item(TableName="other", Key={"id": {"S": "v1"}})
    assert error_of(error) == (
        "AccessDeniedException", denied("AKIDVIDEOS", "GetItem", "other"), 400
    )
    with pytest.raises(ClientError) as error:
        limited.batch_get_item(RequestItems={
            "videos": {"Keys": [{"id": {"S": "v1"}}]},
            "other": {"Keys": [{"id": {"S": "v1"}}]},
        })
    assert error_of(error)[1] == denied("AKIDVIDEOS", "BatchGetItem", "other")


def test_list_tables_shows_a_limited_key_only_its_tables(server: Serve) -> None:
    assert server.client("AKIDVIDEOS", "videos-secret").list_tables()["TableNames"] == [
        "videos"
    ]
    page = server.client("AKIDREADER", "reader-secret").list_tables(Limit=1)
    assert page["TableNames"] == ["videos"]
    assert "LastEvaluatedTableName" not in page  # "other" exists, but not for this key
    assert server.client("AKIDADMIN", "admin-secret").list_tables()["TableNames"] == [
        "other", "videos"
    ]


def test_wrong_secret_unknown_key_and_stale_date(
    server: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ClientError) as error:
        server.client("AKIDADMIN", "wrong").list_tables()
    assert error_of(error)[0] == "InvalidSignatureException"
    with pytest.raises(ClientError) as error:
        server.client("AKIDNOBODY", "admin-secret").list_tables()
    assert error_of(error) == (
        "UnrecognizedClientException",
        "The security token included in the request is invalid.",
        400,
    )
    stale = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(minutes=20)
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: stale)
    with pytest.raises(ClientError) as error:
        server.client("AKIDADMIN", "admin-secret").list_tables()
    code, message, status = error_of(error)
    assert (code, status) == ("InvalidSignatureException", 400)
    assert message.startswith("Signature expired: ")


def test_credentials_from_the_environment(
    serve: Callable[..., Serve], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(credentials.ENVIRONMENT, "AKIDENV:env-secret,AKIDTWO:two")
    server = serve("--in-memory")
    assert server.client("AKIDENV", "env-secret").list_tables()["TableNames"] == []
    with pytest.raises(ClientError) as error:
        server.client("AKIDENV", "wrong").list_tables()
    assert error_of(error)[0] == "InvalidSignatureException"


# -- the pieces ---------------------------------------------------------------


def test_credentials_file_is_read_with_defaults(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(CREDENTIALS)
    keys = credentials.load(path)
    assert keys["AKIDADMIN"] == Key("admin-secret")
    assert keys["AKIDREADER"] == Key("reader-secret", True, frozenset({"videos"}))


@pytest.mark.parametrize("text, says", [
    ("", "no [keys.ACCESS_KEY]"),
    ("[keys.A]\naccess = 'read-only'", "needs a secret"),
    ("[keys.A]\nsecret = 's'\naccess = 'admin'", "access must be one of"),
    ("[keys.A]\nsecret = 's'\ntables = 'videos'", "tables must be a list"),
    ("[keys.A]\nsecret = 's'\nsecrte = 't'", "unknown fields"),
    ("[keys.A\n", "is not TOML"),
])
def test_a_broken_credentials_file_says_what_is_wrong(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=says.replace("[", r"\[")):
        credentials.load(path)


def test_pairs_never_echo_a_secret() -> None:
    assert credentials.from_pairs("a:b c:d:e") == {"a": Key("b"), "c": Key("d:e")}
    for bad in ("nocolon", ":secret", "key:"):
        with pytest.raises(ValueError) as error:
            credentials.from_pairs(bad)
        assert "secret" not in str(error.value).replace("ACCESS_KEY:SECRET", "")


def test_the_engine_resolves_every_place_a_table_is_named() -> None:
    engine = Engine(Store(None))
    key = {"id": {"S": "v1"}}
    tables = [t.table for t in engine.resolve("GetItem", {"TableName": "aaa", "Key": key})]
    assert tables == ["aaa"]
    put = [{"PutRequest": {"Item": key}}]
    touched = engine.resolve("BatchWriteItem", {"RequestItems": {"aaa": put, "bbb": put}})
    assert [(t.table, t.write) for t in touched] == [("aaa", True), ("bbb", True)]
    touched = engine.resolve("TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": "aaa", "Item": key}},
        {"ConditionCheck": {"TableName": "bbb", "Key": key,
                            "ConditionExpression": "attribute_exists(id)"}}]})
    assert [(t.action, t.table, t.write) for t in touched] == [
        ("PutItem", "aaa", True), ("ConditionCheckItem", "bbb", False)]
    touched = engine.resolve("TagResource", {
        "ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/ttt",
        "Tags": [{"Key": "k", "Value": "v"}]})
    assert [(t.table, t.write) for t in touched] == [("ttt", True)]
    touched = engine.resolve("ExecuteStatement", {
        "Statement": 'UPDATE "my""t" SET n = n + 1 WHERE id = 1'})
    assert [(t.action, t.table, t.write) for t in touched] == [("PartiQLUpdate", 'my"t', True)]


def test_partiql_is_decided_by_what_each_statement_does() -> None:
    engine = Engine(Store(None))
    engine.call("CreateTable", {
        "TableName": "ttt", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
    reader = Access("K", "us-east-1", read_only=True)
    engine.call("ExecuteStatement", {"Statement": 'SELECT * FROM "ttt"'}, access=reader)
    with pytest.raises(AccessDeniedException, match="dynamodb:PartiQLDelete"):
        engine.call("ExecuteStatement", {"Statement": 'DELETE FROM "ttt" WHERE id = 1'},
                    access=reader)
    limited = Access("K", "us-east-1", tables=frozenset({"ttt"}))
    with pytest.raises(AccessDeniedException, match="table/uuu"):
        engine.call("BatchExecuteStatement", {"Statements": [
            {"Statement": 'SELECT * FROM "ttt" WHERE id = 1'},
            {"Statement": "SELECT * FROM uuu WHERE id = 1"}]}, access=limited)


def test_the_access_log_names_the_request_but_no_secret_or_value(
    serve: Callable[..., Serve], tmp_path: Path
) -> None:
    path = tmp_path / "credentials.toml"
    path.write_text(CREDENTIALS)
    server = serve("--in-memory", "--credentials", str(path), "--log-requests")
    admin = server.client("AKIDADMIN", "admin-secret")
    admin.create_table(
        TableName="videos",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    response = admin.put_item(TableName="videos",
                              Item={"id": {"S": "key-value-7"}, "note": {"S": "item-value-9"}})
    with pytest.raises(ClientError):
        server.client("AKIDREADER", "reader-secret").delete_table(TableName="videos")
    request_id = response["ResponseMetadata"]["RequestId"]
    server.stop()
    lines = [line for line in server.lines if "tallydb.access" in line]
    put = [line for line in lines if request_id in line]
    assert len(put) == 1
    assert '"POST" "PutItem" "videos" "200" ' in put[0]
    assert put[0].endswith(' "AKIDADMIN"')
    assert any('"POST" "DeleteTable" "videos" "400" ' in line and '"AKIDREADER"' in line
               for line in lines)
    for secret in ("admin-secret", "reader-secret", "key-value-7", "item-value-9", "Signature"):
        assert secret not in server.output
