"""An import or export through a server goes as DynamoDB's JSON over HTTP
(tallydb.transfer.wire): signed with the client's credentials, throttled
puts sent again until written, DynamoDB's errors raised as the toolkit's."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import boto3
import orjson
import pytest
from serverkit import Serve

import tallydb
from tallydb import transfer
from tallydb.engine.errors import DynamoDBError, ValidationException
from tallydb.toolkit.exceptions import TransportError
from tallydb.transfer.wire import wire_client

KEY = {
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                  {"AttributeName": "SK", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                             {"AttributeName": "SK", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def _export(folder: Path, items: list[dict[str, object]]) -> Path:
    """An export of ``items`` (DynamoDB's JSON) as AWS lays one out."""
    root = folder / "AWSDynamoDB" / "01700000000000-abcdef12"
    (root / "data").mkdir(parents=True)
    key = "AWSDynamoDB/01700000000000-abcdef12/data/part0.json.gz"
    with gzip.open(folder / key, "wb") as out:
        out.writelines(orjson.dumps({"Item": item}) + b"\n" for item in items)
    (root / "manifest-files.json").write_bytes(
        orjson.dumps({"itemCount": len(items), "dataFileS3Key": key}) + b"\n")
    (root / "manifest-summary.json").write_bytes(orjson.dumps({"itemCount": len(items)}))
    (root / transfer.DESCRIPTION_FILE).write_bytes(orjson.dumps({"TableName": "videos", **KEY}))
    return folder


@pytest.fixture
def signed_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Serve]:
    monkeypatch.setenv("TALLYDB_CREDENTIALS", "AKIDTRANSFER:transfer-secret")
    server = Serve("--in-memory").start()
    try:
        yield server
    finally:
        server.kill()


def test_a_signed_import_and_export_round_trip_every_type(
    signed_server: Serve, tmp_path: Path
) -> None:
    items = [
        {"PK": {"S": f"p{n % 3}"}, "SK": {"S": f"{n:03d}"}, "n": {"N": str(n)},
         "b": {"B": "AP8="}, "ss": {"SS": ["x", "y"]}, "l": {"L": [{"NULL": True}]},
         "m": {"M": {"bool": {"BOOL": False}, "bs": {"BS": ["AA=="]}}}}
        for n in range(60)
    ]
    with tallydb.connect(client=signed_server.client("AKIDTRANSFER", "transfer-secret")) as db:
        assert wire_client(db.transport) is not None  # the direct path, not botocore's
        assert transfer.import_table(db, _export(tmp_path / "in", items), "videos") == 60
        folder = transfer.export_table(db, "videos", tmp_path / "out")
    back = [orjson.loads(line)["Item"] for path in sorted((folder / "data").glob("*.json.gz"))
            for line in gzip.decompress(path.read_bytes()).splitlines()]
    assert sorted(back, key=lambda i: (i["PK"]["S"], i["SK"]["S"])) == sorted(
        items, key=lambda i: (i["PK"]["S"], i["SK"]["S"]))


def test_a_wrong_secret_is_the_servers_refusal(signed_server: Serve) -> None:
    with tallydb.connect(client=signed_server.client("AKIDTRANSFER", "wrong")) as db:
        direct = wire_client(db.transport)
        assert direct is not None
        with pytest.raises(DynamoDBError) as refused:
            direct.call("Scan", b'{"TableName": "videos"}')
        with pytest.raises(DynamoDBError) as by_boto3:
            db.transport.call("Scan", {"TableName": "videos"})
    assert type(refused.value) is type(by_boto3.value)
    assert str(refused.value) == str(by_boto3.value)


def test_a_refused_item_is_dynamodbs_validation_error(
    tallydb_server: object, tmp_path: Path
) -> None:
    items = [{"PK": {"S": "a"}, "SK": {"S": "1"}}, {"PK": {"S": "b"}}]
    with tallydb.connect(tallydb_server.url) as db:  # type: ignore[attr-defined]
        with pytest.raises(ValidationException) as direct:
            transfer.import_table(db, _export(tmp_path / "in", items), "refused")
        with pytest.raises(ValidationException) as by_boto3:
            db.transport.call("BatchWriteItem", {"RequestItems": {"refused": [
                {"PutRequest": {"Item": {"PK": {"S": "b"}}}}]}})
    assert str(direct.value) == str(by_boto3.value)


def test_throttled_puts_are_sent_again_until_every_item_is_written(tmp_path: Path) -> None:
    # One partition key takes 1,000 writes a second under --emulate-limits:
    # the batches come back throttled (UnprocessedItems, or ThrottlingException
    # when every put of a batch is) and are sent again after a pause.
    items = [{"PK": {"S": "hot"}, "SK": {"S": f"{n:05d}"}} for n in range(2_500)]
    server = Serve("--in-memory", "--emulate-limits").start()
    try:
        with tallydb.connect(server.url) as db:
            assert transfer.import_table(db, _export(tmp_path / "in", items), "videos") == 2_500
            scanned = db.transport.call("Scan", {"TableName": "videos", "Select": "COUNT"})
            count = scanned["Count"]
            while "LastEvaluatedKey" in scanned:
                scanned = db.transport.call("Scan", {
                    "TableName": "videos", "Select": "COUNT",
                    "ExclusiveStartKey": scanned["LastEvaluatedKey"]})
                count += scanned["Count"]
        assert count == 2_500
    finally:
        server.kill()


def test_over_tls_the_clients_certificate_trust_is_kept(tmp_path: Path) -> None:
    pytest.importorskip("cryptography", reason="cryptography makes the test certificate")
    from test_http import _self_signed

    cert, key = _self_signed(tmp_path)
    server = Serve("--in-memory", "--tls-cert", str(cert), "--tls-key", str(key)).start()
    try:
        port = server.url.rsplit(":", 1)[1]
        items = [{"PK": {"S": "p"}, "SK": {"S": f"{n:02d}"}} for n in range(30)]

        def client(verify: str | bool) -> object:
            return boto3.session.Session().client(
                "dynamodb", endpoint_url=f"https://localhost:{port}", region_name="us-east-1",
                aws_access_key_id="x", aws_secret_access_key="y", verify=verify)

        with tallydb.connect(client=client(str(cert))) as db:
            assert wire_client(db.transport) is not None
            assert transfer.import_table(db, _export(tmp_path / "in", items), "videos") == 30
        with tallydb.connect(client=client(True)) as db:  # the certificate is not trusted
            direct = wire_client(db.transport)
            assert direct is not None
            with pytest.raises(TransportError, match="CERTIFICATE_VERIFY_FAILED"):
                direct.call("Scan", b'{"TableName": "videos"}')
    finally:
        server.kill()


def test_under_motos_mock_the_transfer_goes_through_botocore(tmp_path: Path) -> None:
    moto = pytest.importorskip("moto")
    with moto.mock_aws():
        client = boto3.session.Session().client(
            "dynamodb", region_name="us-east-1",
            aws_access_key_id="x", aws_secret_access_key="y")
        with tallydb.connect(client=client) as db:
            assert wire_client(db.transport) is None
            items = [{"PK": {"S": "p"}, "SK": {"S": f"{n:02d}"}} for n in range(30)]
            assert transfer.import_table(db, _export(tmp_path / "in", items), "videos") == 30
            folder = transfer.export_table(db, "videos", tmp_path / "out")
    assert transfer.expected_items(folder) == 30


@pytest.mark.parametrize("token", [None, "a session  token"])
@pytest.mark.parametrize(("service", "content_type", "targets"), [
    ("dynamodb", "application/x-amz-json-1.0",
     ("DynamoDB_20120810.BatchWriteItem", "DynamoDB_20120810.Scan")),
    ("kinesis", "application/x-amz-json-1.1", ("Kinesis_20131202.PutRecords",)),
])
def test_the_signer_signs_as_botocore_does(token: str | None, service: str, content_type: str,
                                           targets: tuple[str, ...]) -> None:
    """``Signer`` builds what botocore's SigV4Auth builds for the same request
    (its date taken from botocore's), over bodies, operations, regions,
    hosts and secrets, for the transfer's DynamoDB requests and the server's
    Kinesis PutRecords; with a session token it is signed and sent too."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    from tallydb.toolkit.sigv4 import Signer

    for n in range(300):
        credentials = Credentials(f"AKID{n}", f"secret/{n % 7}+x", token)
        region = ("us-east-1", "eu-west-1", "ap-southeast-2")[n % 3]
        host = ("127.0.0.1:8000", "localhost", "dynamodb.example.com:443")[n % 3]
        target = targets[n % len(targets)]
        body = orjson.dumps({"RequestItems": {"t": [{"n": "é" * n}]}}) if n % 5 else b""
        headers = {"Content-Type": content_type, "X-Amz-Target": target, "Host": host}
        request = AWSRequest(method="POST", url=f"http://{host}/", data=body, headers=headers)
        SigV4Auth(credentials, service, region).add_auth(request)
        expected = dict(request.headers.items())
        ours = Signer(credentials, service, region, content_type).headers(
            host, target, body, when=expected["X-Amz-Date"])
        assert ours == expected


def test_requests_a_broken_connection_left_unanswered_are_sent_again(tmp_path: Path) -> None:
    """An import's batches go pipelined on one connection: when the server
    is killed (-9) with some of them unanswered, and started again on the
    same port and data, those are sent again on a new connection and every
    item is there at the end."""
    from tallydb.transfer.errors import no_progress
    from tallydb.transfer.items import put_all

    data = tmp_path / "data"
    server = Serve("--data", str(data)).start()
    port = server.url.rsplit(":", 1)[1]
    servers = [server]
    items = [{"PK": {"S": f"p{n % 7}"}, "SK": {"S": f"{n:05d}"}, "n": {"N": str(n)}}
             for n in range(2_000)]

    def puts() -> Iterator[bytes]:
        for n, item in enumerate(items):
            if n == 1_000:  # batches before this one are in flight, some unanswered
                servers[-1].kill()
                servers.append(Serve("--data", str(data), "--port", port).start())
            yield orjson.dumps({"Item": item})

    try:
        with tallydb.connect(server.url) as db:
            db.transport.call("CreateTable", {"TableName": "videos", **KEY})
            assert put_all(db, "videos", puts(), no_progress) == 2_000
            assert len(servers) == 2
            request: dict[str, object] = {"TableName": "videos", "Select": "COUNT"}
            scanned = db.transport.call("Scan", request)
            count = scanned["Count"]
            while "LastEvaluatedKey" in scanned:
                scanned = db.transport.call(
                    "Scan", {**request, "ExclusiveStartKey": scanned["LastEvaluatedKey"]})
                count += scanned["Count"]
        assert count == 2_000
    finally:
        for running in servers:
            running.kill()
