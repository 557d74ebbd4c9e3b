"""tallydb.testing: the pytest plugin, run the way a user runs it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import tallydb
from tallydb.testing import serve

USER_TESTS = """
import tallydb
import tallydb.aio

def test_client(tallydb_client, tallydb_endpoint):
    assert tallydb_endpoint.startswith("http://127.0.0.1:")
    tallydb_client.create_table(
        TableName="users",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    tallydb_client.update_item(
        TableName="users", Key={"id": {"S": "ada"}},
        UpdateExpression="ADD logins :one", ExpressionAttributeValues={":one": {"N": "1"}},
    )

def test_tables_do_not_leak_between_tests(tallydb_client):
    assert "users" not in tallydb_client.list_tables()["TableNames"]

def test_resource(tallydb_resource):
    table = tallydb_resource.create_table(
        TableName="things",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    table.put_item(Item={"id": "x", "n": 1})
    assert table.get_item(Key={"id": "x"})["Item"]["n"] == 1

def test_own_client_on_the_endpoint(tallydb_endpoint):
    import boto3
    ddb = boto3.client("dynamodb", endpoint_url=tallydb_endpoint, region_name="us-east-1",
                       aws_access_key_id="x", aws_secret_access_key="y")
    assert "mine" not in ddb.list_tables()["TableNames"]   # the last test's is gone
    ddb.create_table(
        TableName="mine",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )

def test_own_client_on_the_endpoint_again(tallydb_endpoint):
    test_own_client_on_the_endpoint(tallydb_endpoint)

def test_asyncio(tallydb_aio_db):
    import asyncio

    async def main():
        table = await tallydb_aio_db.create_table("aio", hash_key=("id", "S"))
        return await tallydb.aio.Counter(table, {"id": "x"}, "n").add(3)

    assert asyncio.run(main()) == 3

def test_mock_fixture(tallydb_mock):
    import boto3
    ddb = boto3.client("dynamodb")
    assert ddb.list_tables()["TableNames"] == []
    with tallydb.connect(client=ddb) as db:
        table = db.create_table("mocked", hash_key=("id", "S"))
        assert tallydb.Counter(table, {"id": "x"}, "n").add() == 1
    assert tallydb_mock.engine is not None

def test_toolkit(tallydb_db):
    videos = tallydb_db.create_table("videos", hash_key=("PK", "S"), range_key=("SK", "S"))
    plays = tallydb.Counter(videos, {"PK": "v", "SK": "total"}, "plays")
    assert plays.add() == 1
    assert plays.add(2, idempotency_key="k") == 3
    assert plays.add(2, idempotency_key="k") == 3
"""


def run_pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_user.py").write_text(textwrap.dedent(USER_TESTS))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *args,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_plugin_starts_a_throwaway_server(tmp_path: Path) -> None:
    result = run_pytest(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "8 passed" in result.stdout


def test_plugin_against_a_given_endpoint(tmp_path: Path, moto_server: Any) -> None:
    result = run_pytest(tmp_path, "--tallydb-endpoint", moto_server.url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "8 passed" in result.stdout


def test_serve_context_manager() -> None:
    with serve(in_memory=True) as server:
        assert server.url is not None and server.url.startswith("http://127.0.0.1:")
        with tallydb.connect(client=server.client()) as db:
            table = db.create_table("things", hash_key=("id", "S"))
            assert tallydb.Counter(table, {"id": "x"}, "n").add() == 1
        process = server.process
    assert process is not None and process.poll() is not None  # stopped


def test_server_that_fails_to_start_says_why(tmp_path: Path) -> None:
    from tallydb.testing import Server

    server = Server(tmp_path, extra_args=("--no-such-option",))
    with pytest.raises(RuntimeError, match="did not start"):
        server.start(timeout=30)
