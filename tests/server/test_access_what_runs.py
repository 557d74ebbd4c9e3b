"""Access is decided on what the engine will touch, from its own reading of
the request: decoy members, a PartiQL statement's comments and quoting, a
signature that leaves the target out, a hand-made shard iterator change
nothing. Through boto3 and raw signed requests against ``tallydb serve``.
"""

from __future__ import annotations

import base64
import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from serverkit import TIMEOUT, Response, Serve

pytest_plugins = ["server_fixtures"]

CREDENTIALS = """\
[keys.AKIDADMIN]
secret = "admin-secret"
[keys.AKIDLOOKER]
secret = "looker-secret"
access = "read-only"
[keys.AKIDVIDEOS]
secret = "videos-secret"
tables = ["videos", "videos_copy"]
[keys.AKIDREADER]
secret = "reader-secret"
access = "read-only"
tables = ["videos"]
"""
SECRETS = {"AKIDADMIN": "admin-secret", "AKIDLOOKER": "looker-secret",
           "AKIDVIDEOS": "videos-secret", "AKIDREADER": "reader-secret"}
ITEM = {"id": {"S": "v1"}, "plays": {"N": "5"}}
STREAMS = "DynamoDBStreams_20120810."
DYNAMODB = "DynamoDB_20120810."


def signed_post(url: str, target: str, body: dict[str, Any], key: str,
                *, unsigned: tuple[str, ...] = (), send_target: str | None = None) -> Response:
    """One request signed by ``key`` as botocore signs it (but leaving the
    ``unsigned`` headers out of the signature), sent with ``send_target``
    as its X-Amz-Target if given (a replay under another operation)."""
    data = json.dumps(body).encode()
    request = AWSRequest(method="POST", url=url + "/", data=data, headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target})

    class Signer(SigV4Auth):  # type: ignore[misc]
        def headers_to_sign(self, request: AWSRequest) -> Any:
            chosen = super().headers_to_sign(request)
            for name in unsigned:
                del chosen[name]
            return chosen

    Signer(Credentials(key, SECRETS[key]), "dynamodb", "us-east-1").add_auth(request)
    headers = dict(request.headers.items())
    if send_target is not None:
        headers["X-Amz-Target"] = send_target
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    try:
        conn.request("POST", "/", body=data, headers=headers)
        answer = conn.getresponse()
        return Response(answer.status, {k.lower(): v for k, v in answer.getheaders()},
                        answer.read())
    finally:
        conn.close()


def denied(response: Response) -> bool:
    return response.status == 400 and response.error_type.endswith("#AccessDeniedException")


class World:
    """A server with two tables (``videos``, ``other``), streams on both, a
    backup of each, and what the admin key sees of them."""

    def __init__(self, server: Serve) -> None:
        self.server = server
        self.url = server.url
        admin = self.client("AKIDADMIN")
        for name in ("videos", "other"):
            admin.create_table(
                TableName=name, BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                StreamSpecification={"StreamEnabled": True,
                                     "StreamViewType": "NEW_AND_OLD_IMAGES"})
            admin.put_item(TableName=name, Item=ITEM)
        self.stream = {name: admin.describe_table(TableName=name)["Table"]["LatestStreamArn"]
                       for name in ("videos", "other")}
        self.backup = {name: admin.create_backup(TableName=name, BackupName=f"{name}-b")[
            "BackupDetails"]["BackupArn"] for name in ("videos", "other")}

    def client(self, key: str, service: str = "dynamodb") -> Any:
        client = self.server.client(key, SECRETS[key])
        if service == "dynamodb":
            return client
        from botocore.config import Config
        from tallytest import session_client
        return session_client(
            service, endpoint_url=self.url, region_name="us-east-1",
            aws_access_key_id=key, aws_secret_access_key=SECRETS[key],
            config=Config(retries={"total_max_attempts": 1}))

    def shard(self, table: str) -> str:
        streams = self.client("AKIDADMIN", "dynamodbstreams")
        description = streams.describe_stream(StreamArn=self.stream[table])
        return str(description["StreamDescription"]["Shards"][0]["ShardId"])

    def iterator(self, table: str) -> str:
        streams = self.client("AKIDADMIN", "dynamodbstreams")
        return str(streams.get_shard_iterator(
            StreamArn=self.stream[table], ShardId=self.shard(table),
            ShardIteratorType="TRIM_HORIZON")["ShardIterator"])

    def plays(self, table: str) -> str | None:
        item = self.client("AKIDADMIN").get_item(
            TableName=table, Key={"id": {"S": "v1"}}).get("Item")
        return None if item is None else str(item["plays"]["N"])

    def tables(self) -> list[str]:
        return list(self.client("AKIDADMIN").list_tables()["TableNames"])

    def backups(self) -> list[str]:
        summaries = self.client("AKIDADMIN").list_backups()["BackupSummaries"]
        return sorted(s["BackupArn"] for s in summaries)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    path = tmp_path_factory.mktemp("keys") / "credentials.toml"
    path.write_text(CREDENTIALS)
    server = Serve("--data", str(tmp_path_factory.mktemp("data")), "--credentials",
                   str(path)).start()
    yield World(server)
    server.kill()


# --- one reading of the request: decoy members ----------------------------------------


def test_a_read_only_key_cannot_write_through_execute_transactions_ignored_member(
        world: World) -> None:
    response = signed_post(world.url, DYNAMODB + "ExecuteTransaction", {
        "Statements": [{"Statement": 'SELECT * FROM "videos"'}],
        "TransactStatements": [{"Statement": "UPDATE \"videos\" SET plays = 1 WHERE id = 'v1'"}],
    }, "AKIDLOOKER")
    assert denied(response), response.body
    assert "dynamodb:PartiQLUpdate" in response.json["message"]
    assert world.plays("videos") == "5"


def test_a_limited_key_cannot_write_another_table_through_a_decoy_statements_member(
        world: World) -> None:
    response = signed_post(world.url, DYNAMODB + "ExecuteTransaction", {
        "Statements": [{"Statement": 'SELECT * FROM "videos"'}],
        "TransactStatements": [{"Statement": "UPDATE \"other\" SET plays = 1 WHERE id = 'v1'"}],
    }, "AKIDVIDEOS")
    assert denied(response), response.body
    assert response.json["message"].endswith(
        "on resource: arn:aws:dynamodb:us-east-1:000000000000:table/other because no "
        "identity-based policy allows the dynamodb:PartiQLUpdate action")
    assert world.plays("other") == "5"


@pytest.mark.parametrize("operation", ["GetShardIterator", "DescribeStream", "GetRecords"])
def test_a_decoy_table_name_does_not_open_another_tables_stream(
        world: World, operation: str) -> None:
    request: dict[str, Any] = {"TableName": "videos"}
    if operation == "GetRecords":
        request["ShardIterator"] = world.iterator("other")
    else:
        request["StreamArn"] = world.stream["other"]
    if operation == "GetShardIterator":
        request.update(ShardId=world.shard("other"), ShardIteratorType="TRIM_HORIZON")
    response = signed_post(world.url, STREAMS + operation, request, "AKIDVIDEOS")
    assert denied(response), response.body
    assert f"dynamodb:{operation} on resource: arn:aws:dynamodb:us-east-1:000000000000:" \
        "table/other/stream/" in response.json["message"]


def test_a_decoy_table_name_does_not_restore_describe_or_delete_another_tables_backup(
        world: World) -> None:
    other = world.backup["other"]
    before = world.tables(), world.backups()
    for target in ("videos_copy", "outside_the_list"):
        response = signed_post(world.url, DYNAMODB + "RestoreTableFromBackup", {
            "TableName": "videos", "BackupArn": other, "TargetTableName": target}, "AKIDVIDEOS")
        assert denied(response), response.body
    for operation in ("DescribeBackup", "DeleteBackup"):
        response = signed_post(world.url, DYNAMODB + operation,
                               {"TableName": "videos", "BackupArn": other}, "AKIDVIDEOS")
        assert denied(response), response.body
        assert "table/other/backup/" in response.json["message"]
    assert (world.tables(), world.backups()) == before


# --- PartiQL: the parser that runs the statement names its table --------------------


@pytest.mark.parametrize("statement", [
    "SELECT * FROM/**/\"other\" WHERE id = 'v1' -- FROM videos",
    "SELECT * FROM\"other\" WHERE id = 'v1' OR id = 'FROM videos'",
    "UPDATE/**/\"other\" SET plays = 9 WHERE id = 'v1' /* UPDATE videos */",
    "DELETE FROM \"oth\"\"er\" WHERE id = 'v1' -- FROM videos",
    "select * from\n\t\"other\"\n where id = 'v1'",
])
def test_partiql_comments_and_quoting_do_not_hide_the_table(
        world: World, statement: str) -> None:
    for operation, body in (
            ("ExecuteStatement", {"Statement": statement}),
            ("BatchExecuteStatement", {"Statements": [{"Statement": statement}]})):
        response = signed_post(world.url, DYNAMODB + operation, body, "AKIDVIDEOS")
        assert denied(response), (operation, statement, response.body)
    assert world.plays("other") == "5"


# --- what a limited key lists, and may use ---------------------------------------------


def test_list_streams_shows_a_limited_key_only_its_tables(world: World) -> None:
    streams = world.client("AKIDVIDEOS", "dynamodbstreams")
    assert {s["TableName"] for s in streams.list_streams()["Streams"]} == {"videos"}
    with pytest.raises(ClientError) as error:
        streams.list_streams(TableName="other")
    assert error.value.response["Error"]["Code"] == "AccessDeniedException"
    admin = world.client("AKIDADMIN", "dynamodbstreams")
    assert {s["TableName"] for s in admin.list_streams()["Streams"]} >= {"videos", "other"}


def test_a_limited_key_uses_streams_backups_and_tags_on_its_own_tables(world: World) -> None:
    ddb = world.client("AKIDVIDEOS")
    streams = world.client("AKIDVIDEOS", "dynamodbstreams")
    arn = world.stream["videos"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    assert streams.get_records(ShardIterator=iterator)["Records"]
    backup = ddb.create_backup(TableName="videos", BackupName="mine")["BackupDetails"]
    assert ddb.describe_backup(BackupArn=backup["BackupArn"])["BackupDescription"]
    listed = {s["TableName"] for s in ddb.list_backups()["BackupSummaries"]}
    assert listed == {"videos"}
    ddb.restore_table_from_backup(BackupArn=backup["BackupArn"], TargetTableName="videos_copy")
    assert world.plays("videos_copy") == "5"
    ddb.delete_backup(BackupArn=backup["BackupArn"])
    table_arn = ddb.describe_table(TableName="videos")["Table"]["TableArn"]
    ddb.tag_resource(ResourceArn=table_arn, Tags=[{"Key": "team", "Value": "video"}])
    assert ddb.list_tags_of_resource(ResourceArn=table_arn)["Tags"] == [
        {"Key": "team", "Value": "video"}]
    other_arn = table_arn.replace("table/videos", "table/other")
    with pytest.raises(ClientError) as error:
        ddb.list_tags_of_resource(ResourceArn=other_arn)
    assert error.value.response["Error"]["Code"] == "AccessDeniedException"


def test_a_read_only_key_lists_and_describes_backups_but_takes_none(world: World) -> None:
    reader = world.client("AKIDREADER")
    assert {s["TableName"] for s in reader.list_backups()["BackupSummaries"]} == {"videos"}
    description = reader.describe_backup(BackupArn=world.backup["videos"])
    assert description["BackupDescription"]["SourceTableDetails"]["TableName"] == "videos"
    for call in (lambda: reader.create_backup(TableName="videos", BackupName="not-mine"),
                 lambda: reader.delete_backup(BackupArn=world.backup["videos"]),
                 lambda: reader.describe_backup(BackupArn=world.backup["other"])):
        with pytest.raises(ClientError) as error:
            call()
        assert error.value.response["Error"]["Code"] == "AccessDeniedException"
    assert world.backup["videos"] in world.backups()


# --- the signature covers the target; iterators are the server's own ---------------


def test_a_signature_must_cover_the_target_the_date_and_the_host(world: World) -> None:
    key = {"id": {"S": "v1"}}
    # a GetItem signed without its target, replayed as a DeleteItem
    replayed = signed_post(world.url, DYNAMODB + "GetItem", {"TableName": "videos", "Key": key},
                           "AKIDADMIN", unsigned=("X-Amz-Target",),
                           send_target=DYNAMODB + "DeleteItem")
    assert replayed.status == 400
    assert replayed.error_type.endswith("#InvalidSignatureException")
    assert replayed.json["message"] == (
        "'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization.")
    assert world.plays("videos") == "5"
    undated = signed_post(world.url, DYNAMODB + "GetItem", {"TableName": "videos", "Key": key},
                          "AKIDADMIN", unsigned=("X-Amz-Date",))
    assert undated.error_type.endswith("#InvalidSignatureException")
    assert undated.json["message"] == (
        "'X-Amz-Date' must be a 'SignedHeader' in the AWS Authorization.")
    whole = signed_post(world.url, DYNAMODB + "GetItem", {"TableName": "videos", "Key": key},
                        "AKIDADMIN")
    assert whole.status == 200 and whole.json["Item"] == ITEM


def test_a_hand_made_iterator_reads_nothing(world: World) -> None:
    # the old form: the fields alone, for a stream this key may not read
    forged = base64.urlsafe_b64encode(orjson.dumps(
        [world.stream["other"], world.shard("other"), 0, time.time() + 10**9])).decode()
    streams = world.client("AKIDVIDEOS", "dynamodbstreams")
    with pytest.raises(ClientError) as error:
        streams.get_records(ShardIterator=forged)
    assert (error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]) == (
        "ValidationException", "Invalid ShardIterator")


def test_the_iterator_key_is_kept_in_the_data_directory(world: World) -> None:
    world.iterator("other")  # (the key is made with the server's first iterator)
    data = Path(world.server.args[world.server.args.index("--data") + 1])
    key = data / "shard-iterator.key"
    assert len(key.read_bytes()) == 32
    assert key.stat().st_mode & 0o077 == 0


# --- nothing a client sends can forge an access-log line ---------------------------------


def test_the_access_log_quotes_what_the_client_sent(
        serve: Any, tmp_path: Path) -> None:
    """A table name may hold anything in a PartiQL statement (a quoted
    identifier); in the log it stays one quoted field of one line."""
    path = tmp_path / "credentials.toml"
    path.write_text(CREDENTIALS)
    server = serve("--in-memory", "--credentials", str(path), "--log-requests")
    forged = 'x" 200 0.1ms\nINFO tallydb.access "POST" "DeleteTable" "videos'
    statement = 'SELECT * FROM "{}"'.format(forged.replace('"', '""'))
    for key in ("AKIDVIDEOS", "AKIDADMIN"):
        response = signed_post(server.url, DYNAMODB + "ExecuteStatement",
                               {"Statement": statement}, key)
        assert response.status == 400
    # the same name as a JSON TableName: refused by its shape, logged as "-"
    response = signed_post(server.url, DYNAMODB + "GetItem",
                           {"TableName": forged, "Key": {"id": {"S": "v1"}}}, "AKIDADMIN")
    assert response.status == 400
    server.stop()
    lines = [line for line in server.lines if "tallydb.access" in line]
    assert len(lines) == 3, lines
    for line, key in zip(lines[:2], ("AKIDVIDEOS", "AKIDADMIN"), strict=True):
        assert f'"POST" "ExecuteStatement" {json.dumps(forged)} "400" ' in line
        assert line.endswith(f' "{key}"')
    assert '"POST" "GetItem" "-" "400" ' in lines[2] and lines[2].endswith(' "AKIDADMIN"')
