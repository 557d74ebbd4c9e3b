"""The whole journey of the console, from a fresh server, in Chromium:
create a table with a GSI and a stream from the page, add TTL later from
the Settings tab, put items with the form editor, query the GSI, watch 200
boto3 increments move the counter chart to the exact value, see their 200
MODIFY records in the stream tail, take a backup and restore it under a new
name, and run ``UPDATE ... SET n = n + 1`` in the PartiQL editor.

Its screenshots (build/screenshots/journey_*.png, at 1280x800) are the
ones docs/console.md shows, one per tab."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from serverkit import Serve

pytestmark = pytest.mark.browser

TABLE = "videos"


@pytest.fixture
def fresh() -> Iterator[Serve]:
    server = Serve("--in-memory").start()
    try:
        yield server
    finally:
        server.kill()


def hammer(url: str, n: int) -> None:
    """``n`` increments of VID#1's plays, from another process, by boto3."""
    script = textwrap.dedent(f"""
        import boto3
        client = boto3.client("dynamodb", endpoint_url={url!r}, region_name="us-east-1",
                              aws_access_key_id="x", aws_secret_access_key="y")
        for _ in range({n}):
            client.update_item(TableName={TABLE!r},
                               Key={{"PK": {{"S": "VID#1"}}, "SK": {{"S": "STATS"}}}},
                               UpdateExpression="ADD plays :one",
                               ExpressionAttributeValues={{":one": {{"N": "1"}}}})
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


def put_with_the_form(page: Any, pk: str, channel: str, plays: str) -> None:
    page.get_by_role("link", name="New item").click()
    page.get_by_label("Value of PK").fill(pk)
    page.get_by_label("Value of SK").fill("STATS")
    for n, (name, kind, value) in enumerate(
            [("channel", "S", channel), ("plays", "N", plays)], start=3):
        page.get_by_role("button", name="Add attribute").click()
        page.get_by_label(f"Name of attribute {n}").fill(name)
        page.get_by_label(f"Type of {name}").select_option(kind)
        page.get_by_label(f"Value of {name}").fill(value)
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{pk} / STATS")


def test_the_whole_journey(console_page_for: Any, fresh: Serve) -> None:
    console = console_page_for(fresh)
    client = fresh.client()
    page = console.open("#/tables")
    expect(page.locator(".empty")).to_contain_text("No tables yet")

    # A table with a GSI and a stream, from the page.
    page.get_by_role("button", name="Create table").click()
    page.get_by_label("Table name").fill(TABLE)
    page.get_by_label("Partition key name").fill("PK")
    page.get_by_label("Sort key name").fill("SK")
    page.get_by_role("button", name="Add global index").click()
    page.get_by_label("Global index name").fill("byChannel")
    page.get_by_label("Index partition key name").fill("channel")
    page.locator('select[name="StreamViewType"]').select_option("NEW_AND_OLD_IMAGES")
    page.get_by_role("button", name="Create", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(TABLE)
    described = client.describe_table(TableName=TABLE)["Table"]
    assert described["GlobalSecondaryIndexes"][0]["IndexName"] == "byChannel"
    assert described["StreamSpecification"]["StreamEnabled"] is True

    # TTL later, from the Settings tab.
    page.get_by_role("link", name="Settings").click()
    page.get_by_label("TTL attribute").fill("expires_at")
    page.get_by_role("button", name="Turn on TTL").click()
    expect(page.locator(".ttlstatus")).to_contain_text("expires_at")
    console.shot("journey_settings", full_page=False)
    assert client.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"][
        "TimeToLiveStatus"] == "ENABLED"

    # Items with the form editor.
    page.get_by_role("link", name="Items", exact=True).click()
    put_with_the_form(page, "VID#1", "cats", "0")
    page.get_by_role("link", name=TABLE).first.click()
    page.get_by_role("link", name="Items", exact=True).click()
    put_with_the_form(page, "VID#2", "dogs", "5")

    # Query the GSI.
    page.get_by_role("link", name=TABLE).first.click()
    page.get_by_role("link", name="Items", exact=True).click()
    page.get_by_text("Query", exact=True).click()
    page.locator('select[name="index"]').select_option("byChannel")
    page.locator('input[name="pk"]').fill("cats")
    page.get_by_role("button", name="Run").click()
    expect(page.locator('table.items td[data-attribute="PK"]')).to_have_text(["VID#1"])
    assert [b for o, b in console.sent if o == "Query"][-1]["IndexName"] == "byChannel"
    console.shot("journey_items", full_page=False)

    # 200 boto3 increments move the counter chart to the exact value.
    page.get_by_role("link", name="VID#1").click()
    page.get_by_role("button", name="Chart plays").click()
    chart = page.locator(".counterchart")
    expect(chart.locator("[data-value]")).to_have_text("0")
    expect(page.locator(".live.on")).to_be_visible()
    hammer(fresh.url, 200)
    expect(chart.locator("[data-value]")).to_have_text("200")
    expect(chart).to_have_attribute("data-last", "200")
    console.shot("journey_counter_chart", full_page=False)

    # Their 200 MODIFY records in the stream tail.
    page.get_by_role("link", name=TABLE).first.click()
    page.get_by_role("link", name="Stream").click()
    expect(page.locator('[data-event="MODIFY"]')).to_have_text("MODIFY 200", timeout=15_000)
    expect(page.locator('[data-event="INSERT"]')).to_have_text("INSERT 2")
    console.shot("journey_stream", full_page=False)

    # The indexes, the monitor and the tags, for the docs' pictures.
    page.get_by_role("link", name="Indexes").click()
    expect(page.locator('tr[data-index="byChannel"] .indexstatus')).to_have_text("ACTIVE")
    console.shot("journey_indexes", full_page=False)
    page.get_by_role("link", name="TTL").click()
    expect(page.locator(".ttlstatus")).to_contain_text("expires_at")
    console.shot("journey_ttl", full_page=False)
    page.get_by_role("link", name="Tags").click()
    page.get_by_label("Key", exact=True).fill("team")
    page.get_by_label("Value", exact=True).fill("counters")
    page.get_by_role("button", name="Add tag").click()
    expect(page.locator('tr[data-tag="team"]')).to_be_visible()
    console.shot("journey_tags", full_page=False)
    page.get_by_role("link", name="Insights").click()
    expect(page.locator("[data-insights]").first).to_be_visible()
    console.shot("journey_insights", full_page=False)
    page.get_by_role("link", name="Monitor").click()
    expect(page.locator("figcaption").first).to_contain_text("UpdateItem 200", timeout=15_000)
    console.shot("journey_monitor", full_page=False)

    # A backup, restored under a new name.
    page.get_by_role("link", name="Backups").click()
    page.get_by_label("Backup name").fill("videos-before-launch")
    page.get_by_role("button", name="Create backup").click()
    expect(page.locator('tr[data-backup="videos-before-launch"]')).to_contain_text("AVAILABLE")
    page.get_by_role("button", name="Restore videos-before-launch…").click()
    page.get_by_label("New table name").fill("videos-restored")
    page.get_by_role("button", name="Restore", exact=True).click()
    expect(page.locator(".restore .notice")).to_contain_text("Restored as videos-restored")
    console.shot("journey_backups", full_page=False)
    restored = client.get_item(TableName="videos-restored",
                               Key={"PK": {"S": "VID#1"}, "SK": {"S": "STATS"}})["Item"]
    assert restored["plays"] == {"N": "200"}

    # UPDATE ... SET n = n + 1 in the PartiQL editor.
    page.get_by_role("link", name="PartiQL").click()
    page.get_by_label("Statement", exact=True).fill(
        f'UPDATE "{TABLE}" SET plays = plays + 1 WHERE PK = ? AND SK = ?')
    page.get_by_label("? 1").fill('"VID#1"')
    page.get_by_label("? 2").fill('"STATS"')
    expect(page.locator('.planned[data-operation="UpdateItem"]')).to_be_visible()
    page.get_by_role("button", name="Run").click()
    expect(page.locator(".runresult .outcome")).to_contain_text("ExecuteStatement answered")
    console.shot("journey_partiql", full_page=False)
    item = client.get_item(TableName=TABLE, Key={"PK": {"S": "VID#1"}, "SK": {"S": "STATS"}},
                           ConsistentRead=True)["Item"]
    assert item["plays"] == {"N": "201"}
