"""The hot-keys panel in Chromium: the hammered item first, a sparkline each."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from playwright.sync_api import expect
from serverkit import Serve

pytestmark = pytest.mark.browser

TABLE = "hits"


def hammer(url: str, table: str, hot: int, others: int, trickle: int) -> None:
    """From another process: ``hot`` increments of page#hot, ``trickle`` of each other page."""
    script = textwrap.dedent(f"""
        import boto3
        from botocore.config import Config
        client = boto3.client("dynamodb", endpoint_url={url!r}, region_name="us-east-1",
                              aws_access_key_id="x", aws_secret_access_key="y",
                              config=Config(retries={{"total_max_attempts": 1}}))
        def add(page):
            client.update_item(TableName={table!r}, Key={{"page": {{"S": page}}}},
                               UpdateExpression="ADD hits :one",
                               ExpressionAttributeValues={{":one": {{"N": "1"}}}})
        for i in range({hot}):
            add("page#hot")
            if i % ({hot} // {trickle}) == 0:
                for n in range({others}):
                    add(f"page#{{n}}")
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)


def test_the_hot_keys_panel_names_the_hammered_item_first(console: Any) -> None:
    client = console.server.client()
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "page", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "page", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    page = console.open("#/hotkeys")
    expect(page.locator(".live.on")).to_be_visible()

    hammer(console.server.url, TABLE, hot=300, others=10, trickle=3)

    rows = page.locator("table.hotkeys tbody tr")
    expect(rows).to_have_count(11)
    expect(rows.first.locator(".hotkey")).to_have_text("page#hot")
    expect(rows.first.locator("td").nth(4)).to_have_text("300")
    expect(rows.nth(1).locator("td").nth(4)).to_have_text("3")
    sparkline = rows.first.locator("tally-sparkline polyline")
    expect(sparkline).to_have_count(1)
    console.shot("hotkeys")


@pytest.fixture(scope="module")
def limited_server() -> Iterator[Serve]:
    server = Serve("--in-memory", "--emulate-limits").start()
    try:
        yield server
    finally:
        server.kill()


def test_throttled_keys_are_marked(console_page_for: Any, limited_server: Serve) -> None:
    client = limited_server.client()
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "page", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "page", "AttributeType": "S"}],
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    )
    console = console_page_for(limited_server)
    page = console.open("#/hotkeys")
    expect(page.locator(".live.on")).to_be_visible()
    expect(page.locator(".top .badge")).to_have_text("limits")

    # A table of one write unit a second: most of 400 back-to-back writes are throttled.
    throttled = 0
    for _ in range(400):
        try:
            client.update_item(TableName=TABLE, Key={"page": {"S": "page#hot"}},
                               UpdateExpression="ADD hits :one",
                               ExpressionAttributeValues={":one": {"N": "1"}})
        except ClientError as error:
            assert error.response["Error"]["Code"] == "ProvisionedThroughputExceededException"
            throttled += 1
    assert throttled > 0

    row = page.locator("table.hotkeys tbody tr").first
    expect(row.locator(".hotkey")).to_have_text("page#hot")
    expect(row).to_have_class("throttled")
    expect(row.locator(".badge.warn")).to_have_text(f"{throttled} throttled")
    console.shot("hotkeys_throttled")
