"""``python -m tallydb serve`` itself: banner, boto3 over the wire, signals,
restart on the same data directory, credentials, help text."""

from __future__ import annotations

import signal
import socket
import threading
import zlib
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from botocore.exceptions import ClientError
from click.testing import CliRunner
from serverkit import LISTENING, Pipe, Serve, post, request_bytes

from tallydb.cli import main
from tallydb.engine.api import OPERATIONS

pytest_plugins = ["server_fixtures"]

needs_items = pytest.mark.skipif(
    not {"CreateTable", "PutItem", "GetItem"} <= set(OPERATIONS),
    reason="CreateTable/PutItem/GetItem not in tallydb.engine.api yet",
)


def test_banner_in_memory(cli_server: Serve) -> None:
    match = LISTENING.match(cli_server.banner)
    assert match is not None
    assert match.group(1).startswith("http://127.0.0.1:")
    assert match.group(2) == "in memory"


def test_banner_with_a_data_directory(serve: Callable[..., Serve], tmp_path: Path) -> None:
    server = serve("--data", str(tmp_path / "d"), "--sync", "full")
    assert server.banner.endswith(f"(data: {tmp_path / 'd'}, sync: full)")
    assert (tmp_path / "d").is_dir()


def test_relative_data_directory_is_shown_absolute(
    serve: Callable[..., Serve], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    server = serve()  # default --data ./tallydb-data
    assert server.banner.endswith(f"(data: {tmp_path / 'tallydb-data'}, sync: normal)")


def test_raw_http_against_the_command(cli_server: Serve) -> None:
    answer = post(cli_server.url, "NoSuchOperation", {})
    assert answer.status == 400
    assert answer.error_type == "com.amazon.coral.service#UnknownOperationException"
    assert int(answer.headers["x-amz-crc32"]) == zlib.crc32(answer.body)
    answer = post(cli_server.url, "ListTables", b"{not json")
    assert answer.error_type == "com.amazon.coral.service#SerializationException"


def test_boto3_sees_dynamodb_errors_with_a_valid_crc(cli_server: Serve) -> None:
    # botocore checks x-amz-crc32 on every DynamoDB response; a wrong one
    # would surface as a checksum error, not as the service's error code.
    ddb = cli_server.client()
    with pytest.raises(ClientError) as error:
        ddb.search_vectors(TableName="videos", IndexName="vectors", TopK=1,  # not served
                           SearchVector=[{"N": "1"}])
    assert error.value.response["Error"]["Code"] == "UnknownOperationException"
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_keep_alive_and_pipelining_through_the_command(cli_server: Serve) -> None:
    pipe = Pipe(cli_server.url)
    try:
        pipe.send(request_bytes("NoSuch") + b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n" * 2)
        assert pipe.response().status == 400
        assert pipe.response().status == 200
        assert pipe.response().status == 200
    finally:
        pipe.close()


def test_garbage_does_not_kill_the_command(cli_server: Serve) -> None:
    port = int(cli_server.url.rsplit(":", 1)[1])
    for junk in (
        b"\x00" * 1000,
        b"GET / HTTP/9.9\r\n\r\n",
        b"POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
    ):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(junk)
            sock.recv(4096)
    assert cli_server.proc is not None and cli_server.proc.poll() is None
    assert post(cli_server.url, None, b"", method="GET").status == 200
    assert "Traceback" not in cli_server.output


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_stop_the_server_cleanly(serve: Callable[..., Serve], sig: int) -> None:
    server = serve("--in-memory")
    pipe = Pipe(server.url)  # an idle keep-alive connection must not hold it up
    try:
        assert post(server.url, None, b"", method="GET").status == 200
        assert server.stop(sig) == 0
        assert pipe.closed_by_server()
    finally:
        pipe.close()
    assert "Traceback" not in server.output
    with pytest.raises(OSError):
        post(server.url, None, b"", method="GET")


def test_restart_on_the_same_data_directory(
    serve: Callable[..., Serve], tmp_path: Path
) -> None:
    data = str(tmp_path / "data")
    first = serve("--data", data)
    assert first.stop() == 0
    second = serve("--data", data)
    assert post(second.url, None, b"", method="GET").status == 200
    assert (tmp_path / "data" / "tallydb.sqlite3").exists()


@needs_items
def test_acknowledged_items_survive_a_restart(
    serve: Callable[..., Serve], tmp_path: Path
) -> None:
    data = str(tmp_path / "data")
    server = serve("--data", data)
    ddb = server.client()
    ddb.create_table(
        TableName="tally",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for n in range(20):
        ddb.put_item(TableName="tally", Item={"id": {"S": f"k{n}"}, "n": {"N": str(n)}})
    assert server.stop() == 0
    server = serve("--data", data)
    ddb = server.client()
    for n in range(20):
        item = ddb.get_item(TableName="tally", Key={"id": {"S": f"k{n}"}})["Item"]
        assert item["n"] == {"N": str(n)}


def test_credentials_are_enforced(serve: Callable[..., Serve], tmp_path: Path) -> None:
    path = tmp_path / "credentials.toml"
    path.write_text('[keys.AKIDTALLY]\nsecret = "s3cret"\n')
    server = serve("--in-memory", "--credentials", str(path))
    with pytest.raises(ClientError) as error:
        server.client("AKIDTALLY", "wrong").list_tables()
    code = error.value.response["Error"]["Code"]
    if "ListTables" in OPERATIONS:
        assert code == "InvalidSignatureException"
        assert server.client("AKIDTALLY", "s3cret").list_tables()["TableNames"] == []
    else:  # the target is checked first (as DynamoDB does)
        assert code == "UnknownOperationException"


def test_bad_credentials_option_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["serve", "--credentials", "AKID:SECRET"])
    assert result.exit_code == 2
    assert "cannot read AKID:SECRET" in result.output
    broken = tmp_path / "c.toml"
    broken.write_text("[keys.A]\n")
    result = CliRunner().invoke(main, ["serve", "--credentials", str(broken)])
    assert result.exit_code == 2
    assert "needs a secret" in result.output


def test_port_in_use_is_reported(cli_server: Serve) -> None:
    port = cli_server.url.rsplit(":", 1)[1]
    failed = Serve("--in-memory")
    failed.args = ["--in-memory", "--port", port]
    with pytest.raises(AssertionError, match="no banner"):
        failed.start(timeout=60)
    assert failed.proc is not None and failed.proc.returncode == 3
    assert "tallydb: PortInUseError: port " in failed.output
    assert "Traceback" not in failed.output


def test_every_command_and_option_has_help() -> None:
    with click.Context(main) as ctx:
        names = main.list_commands(ctx)  # type: ignore[attr-defined]
        commands = {name: main.get_command(ctx, name) for name in names}  # type: ignore[attr-defined]
    assert {"serve", "import", "export", "counter", "create-table"} <= set(names)
    for name, command in commands.items():
        assert command is not None and command.name == name, name
        assert command.help, f"{name} has no help"
        for param in command.params:
            if isinstance(param, click.Option) and param.name != "help":
                assert getattr(param, "help", None), f"{name} {param.name} has no help"
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    assert "--in-memory" in result.output


def _hot_counter(server: Serve, threads: int, each: int) -> None:
    ddb = server.client()
    ddb.create_table(
        TableName="hot-counter",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    key = {"id": {"S": "hot"}}
    errors: list[BaseException] = []

    def add() -> None:
        client = server.client()
        try:
            for _ in range(each):
                client.update_item(
                    TableName="hot-counter", Key=key, UpdateExpression="ADD n :one",
                    ExpressionAttributeValues={":one": {"N": "1"}},
                )
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    workers = [threading.Thread(target=add) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert not errors, errors
    item = ddb.get_item(TableName="hot-counter", Key=key, ConsistentRead=True)["Item"]
    assert item["n"] == {"N": str(threads * each)}


@needs_items
def test_hot_counter_over_the_wire(cli_server: Serve) -> None:
    # Real operations through the real command: boto3 checks every response's
    # CRC32, and concurrent ADDs (grouped into shared commits) lose nothing.
    _hot_counter(cli_server, threads=8, each=50)


@needs_items
@pytest.mark.parametrize("options", [("--sync", "full"), ("--commit-thread",)])
def test_hot_counter_with_the_commit_thread(
    serve: Callable[..., Serve], tmp_path: Path, options: tuple[str, ...]
) -> None:
    # --sync full commits on a worker thread by default; --commit-thread asks
    # for it at any sync level. Nothing is lost either way, and a restart
    # finds every acknowledged increment.
    server = serve("--data", str(tmp_path / "data"), *options)
    _hot_counter(server, threads=4, each=25)
    assert server.stop() == 0
    server = serve("--data", str(tmp_path / "data"), *options)
    item = server.client().get_item(
        TableName="hot-counter", Key={"id": {"S": "hot"}}, ConsistentRead=True
    )["Item"]
    assert item["n"] == {"N": "100"}
