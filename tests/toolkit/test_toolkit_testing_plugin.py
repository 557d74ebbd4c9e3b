"""tallydb.testing: the pytest plugin, run the way a user runs it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from toolkit_stores import MotoServer, http_client

import tallydb
from tallydb.testing import serve

#: How long an inner pytest run may take before it is taken for hung: long,
#: since on a machine whose cores are busy with other work it starts a server,
#: imports boto3 and runs its tests several times slower than alone.
INNER_RUN = 600
#: The test around it: the inner run, and a server of its own.
OUTER_RUN = INNER_RUN + 300
#: The inner runs leave out hypothesis's plugin, installed here for this
#: suite, not a user's: it imports all of hypothesis at the end of every run.
PYTEST = (sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
          "-p", "no:hypothesispytest")

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
        [*PYTEST, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=INNER_RUN,
    )


@pytest.mark.timeout(OUTER_RUN)
def test_plugin_starts_a_throwaway_server(tmp_path: Path) -> None:
    result = run_pytest(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "8 passed" in result.stdout


@pytest.mark.timeout(OUTER_RUN)
def test_plugin_against_a_given_endpoint(tmp_path: Path) -> None:
    # An endpoint of its own, with no tables: moto's server shared by the other
    # toolkit tests has theirs, and the plugin rightly refuses such an endpoint.
    moto = MotoServer()
    try:
        result = run_pytest(tmp_path, "--tallydb-endpoint", moto.url)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "8 passed" in result.stdout
        with tallydb.connect(client=http_client(moto.url)) as db:
            assert db.list_tables() == []  # the run's tables, the companion's too, are gone
    finally:
        moto.stop()


@pytest.mark.timeout(OUTER_RUN)
def test_an_endpoint_with_tables_is_refused_before_any_test_runs(tmp_path: Path) -> None:
    # As reported: a dev server's own "users" table met the tests' (assert 3 == 0).
    with serve(in_memory=True) as server:
        with tallydb.connect(client=server.client()) as db:
            users = db.create_table("users", hash_key=("id", "S"))
            for name in ("ada", "bob", "cy"):
                users.put({"id": name})
        result = run_pytest(tmp_path, "--tallydb-endpoint", str(server.url))
        assert result.returncode == 4, result.stdout + result.stderr  # a usage error
        assert (f"--tallydb-endpoint {server.url} already has 1 table(s) (users): the tests "
                "could see or change them") in result.stderr
        assert "--tallydb-allow-existing-tables" in result.stderr
        assert "passed" not in result.stdout
        with tallydb.connect(client=server.client()) as db:
            assert db.list_tables() == ["users"]
            assert db.table("users").count() == 3


ALONGSIDE = """
def _create(client, name):
    client.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )

def test_creates_one(tallydb_client):
    _create(tallydb_client, "run-made")
    tallydb_client.put_item(TableName="run-made", Item={"id": {"S": "x"}})

def test_its_table_is_gone_and_the_users_is_not(tallydb_client):
    names = tallydb_client.list_tables()["TableNames"]
    assert "run-made" not in names and "users" in names
"""


@pytest.mark.timeout(OUTER_RUN)
def test_allowed_existing_tables_are_left_alone(tmp_path: Path) -> None:
    with serve(in_memory=True) as server:
        with tallydb.connect(client=server.client()) as db:
            db.create_table("users", hash_key=("id", "S")).put({"id": "ada"})
        (tmp_path / "test_alongside.py").write_text(textwrap.dedent(ALONGSIDE))
        result = subprocess.run(
            [*PYTEST, "test_alongside.py", "--tallydb-endpoint", str(server.url),
             "--tallydb-allow-existing-tables"],
            cwd=tmp_path, capture_output=True, text=True, timeout=INNER_RUN,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert "2 passed" in result.stdout
        with tallydb.connect(client=server.client()) as db:
            assert db.list_tables() == ["users"]
            assert db.table("users").count() == 1


@pytest.mark.timeout(OUTER_RUN)
def test_only_tables_this_process_made_are_deleted(tmp_path: Path) -> None:
    # Someone else's table, made on the endpoint during a test, is not the run's.
    with serve(in_memory=True) as server:
        (tmp_path / "test_other.py").write_text(textwrap.dedent(f"""
            import subprocess, sys

            def test_another_process_makes_a_table(tallydb_endpoint):
                code = ("import tallydb; db = tallydb.connect('{server.url}');"
                        " db.create_table('theirs', hash_key=('id', 'S'))")
                subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
        """))
        result = subprocess.run(
            [*PYTEST, "test_other.py", "--tallydb-endpoint", str(server.url)],
            cwd=tmp_path, capture_output=True, text=True, timeout=INNER_RUN,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        with tallydb.connect(client=server.client()) as db:
            assert db.list_tables() == ["theirs"]


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
