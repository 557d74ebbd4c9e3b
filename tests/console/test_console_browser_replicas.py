"""A global table's Replicas tab in Chromium, on ``tallydb serve
--separate-regions``: a replica added from the page, two boto3 clients (in
us-east-1 and eu-west-1) each adding 1 to one counter 1,000 times on
eventual consistency, and the page showing each region's value side by side
while they differ and once they have converged, with each replica's
replication lag; the replica removed from the page."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from serverkit import Serve
from tallytest import session_client

pytestmark = pytest.mark.browser

EAST, WEST = "us-east-1", "eu-west-1"
KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}
# Replication waits this long, so the regions visibly differ while both write.
DELAY = "3"
SETTLE_MS = 120_000


@pytest.fixture(scope="module")
def regions_server() -> Iterator[Serve]:
    server = Serve("--in-memory", "--separate-regions", "--replication-delay", DELAY).start()
    try:
        yield server
    finally:
        server.kill()


def client(server: Serve, region: str) -> Any:
    return session_client(
        "dynamodb", endpoint_url=server.url, region_name=region,
        aws_access_key_id="x", aws_secret_access_key="y")


def plays(ddb: Any, table: str) -> int | None:
    item = ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True).get("Item")
    return None if item is None else int(item["play_count"]["N"])


def test_the_page_shows_a_counter_converge_across_regions(
        console_page_for: Callable[[Serve], Any], regions_server: Serve) -> None:
    east, west = client(regions_server, EAST), client(regions_server, WEST)
    table = f"videos_{uuid.uuid4().hex[:8]}"
    east.create_table(
        TableName=table, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}])
    console = console_page_for(regions_server)
    page = console.open(f"#/tables/{table}/replicas")
    expect(page.locator(".empty")).to_contain_text("Not a global table")

    page.get_by_label("Region", exact=True).fill(WEST)
    page.get_by_role("button", name="Add replica").click()
    replicas = page.get_by_role("table", name="Replicas")
    expect(replicas.locator(f'tr[data-region="{WEST}"] td.status')).to_have_text(
        "ACTIVE", timeout=SETTLE_MS)
    assert ("UpdateTable", {"TableName": table, "ReplicaUpdates": [
        {"Create": {"RegionName": WEST}}]}) in console.sent
    east.get_waiter("table_exists").wait(TableName=table, WaiterConfig={"Delay": 1})

    page.get_by_label("PK").fill("VID#9f3a")
    page.get_by_label("SK").fill("STATS#TOTAL")
    page.get_by_label("Attribute").fill("play_count")
    page.get_by_role("button", name="Compare").click()
    status = page.locator("p.converge")
    expect(status).to_have_text("Converged: every region holds the same value.",
                                timeout=SETTLE_MS)

    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def play(ddb: Any) -> None:
        try:
            start.wait()
            for _ in range(1000):
                ddb.update_item(TableName=table, Key=KEY, UpdateExpression="ADD play_count :one",
                                ExpressionAttributeValues={":one": {"N": "1"}})
        except BaseException as error:  # reported below
            errors.append(error)

    writers = [threading.Thread(target=play, args=(ddb,)) for ddb in (east, west)]
    for writer in writers:
        writer.start()
    # While both write, each region's own increments reach the other only
    # after the delay: the page shows them differ.
    expect(status).to_have_text("Replicating: the regions differ, or changes wait to be sent.",
                                timeout=SETTLE_MS)
    for writer in writers:
        writer.join()
    assert not errors, errors

    expect(status).to_have_text("Converged: every region holds the same value.",
                                timeout=SETTLE_MS)
    cells = page.get_by_role("table", name="Value by region").locator("td")
    shown = [cells.nth(i).inner_text() for i in range(2)]
    assert shown[0] == shown[1]
    total = int(shown[0])
    assert 0 < total < 2000  # the later image of the item won: increments were lost
    assert plays(east, table) == plays(west, table) == total
    expect(replicas.locator(f'tr[data-region="{WEST}"] td.pending')).to_have_text("0")
    expect(replicas.locator(f'tr[data-region="{EAST}"] td.lag')).to_have_text("0.0 s")
    console.shot("replicas_converged")

    page.get_by_role("button", name=f"Remove replica {WEST}").click()
    expect(page.locator(".empty")).to_contain_text("Not a global table", timeout=SETTLE_MS)
    deadline = time.monotonic() + SETTLE_MS / 1000
    while "Replicas" in east.describe_table(TableName=table)["Table"]:
        assert time.monotonic() < deadline, "the replica was not removed"
        time.sleep(0.1)
