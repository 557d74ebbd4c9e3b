"""PartiQL increments are as atomic as UpdateItem ADD: 32 threads x 100
``UPDATE ... SET play_count = play_count + 1`` on one item end at exactly
3,200, each increment handing back a distinct value (RETURNING MODIFIED NEW),
through a real server (32 writers released together by a barrier race on the
one item for all of their calls: the size is not the point); and the AWS CLI's ``execute-statement`` runs the same
statement."""

from __future__ import annotations

import os
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest
from tallytest import ACCESS_KEY, REGION, SECRET_KEY, create_table, unique_name

if TYPE_CHECKING:
    from tallytest import TallyServer

THREADS, CALLS = 32, 100
INCREMENT = ('UPDATE "{table}" SET play_count = play_count + 1 '
             "WHERE PK = 'VID#9f3a' AND SK = 'STATS#TOTAL'")


def _table_with_counter(ddb: Any) -> str:
    table = create_table(ddb, unique_name("videos"), ("PK", "S"), ("SK", "S"))
    ddb.execute_statement(Statement=f"INSERT INTO \"{table}\" VALUE "
                                    "{'PK': 'VID#9f3a', 'SK': 'STATS#TOTAL', 'play_count': 0}")
    return table


def _count(ddb: Any, table: str) -> str:
    items = ddb.execute_statement(
        Statement=f"SELECT play_count FROM \"{table}\" WHERE PK = 'VID#9f3a' "
                  "AND SK = 'STATS#TOTAL'", ConsistentRead=True)["Items"]
    return str(items[0]["play_count"]["N"])


@pytest.mark.timeout(240)
def test_32_threads_x_100_partiql_increments_end_at_3200(tallydb_server: TallyServer) -> None:
    ddb = tallydb_server.client()
    table = _table_with_counter(ddb)
    statement = INCREMENT.format(table=table) + " RETURNING MODIFIED NEW *"
    start = threading.Barrier(THREADS)

    def increment() -> list[int]:
        start.wait(30)
        return [int(ddb.execute_statement(Statement=statement)["Items"][0]["play_count"]["N"])
                for _ in range(CALLS)]

    with ThreadPoolExecutor(THREADS) as pool:
        futures = [pool.submit(increment) for _ in range(THREADS)]
        seen = [value for future in futures for value in future.result(timeout=200)]
    assert _count(ddb, table) == str(THREADS * CALLS)
    assert sorted(seen) == list(range(1, THREADS * CALLS + 1))


@pytest.mark.timeout(360)
def test_aws_cli_execute_statement(tallydb_server: TallyServer, aws_cli: str) -> None:
    ddb = tallydb_server.client()
    table = _table_with_counter(ddb)
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY,
               AWS_DEFAULT_REGION=REGION, AWS_MAX_ATTEMPTS="1")
    for _ in range(3):
        done = subprocess.run(
            [aws_cli, "dynamodb", "execute-statement", "--endpoint-url", str(tallydb_server.url),
             "--statement", INCREMENT.format(table=table)],
            env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
    assert _count(ddb, table) == "3"
