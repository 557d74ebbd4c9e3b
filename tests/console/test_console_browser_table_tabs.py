"""A table's tabs in Chromium, each checked against what boto3 then reads:
indexes created (backfilled) and deleted, the stream enabled and tailed,
TTL, backups restored under a new name or to a point in time, an export,
a global table's replica added and removed, tags, billing, deletion
protection and table class; the items tab's page size, multi-select
delete and download. The exports and replicas pictures in docs/console.md
are this module's (build/screenshots/tab_exports.png, tab_replicas.png)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from playwright.sync_api import expect
from serverkit import Serve

pytestmark = pytest.mark.browser


def make_table(client: Any, items: int = 0) -> str:
    name = f"tabs_{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for n in range(items):
        client.put_item(TableName=name, Item={"PK": {"S": f"item#{n:02}"},
                                              "colour": {"S": "red" if n % 2 else "blue"},
                                              "n": {"N": str(n)}})
    return name


def test_a_gsi_is_created_backfilled_queried_and_deleted(console: Any) -> None:
    client = console.server.client()
    table = make_table(client, 6)
    page = console.open(f"#/tables/{table}/indexes")
    expect(page.locator(".empty")).to_contain_text("No indexes yet")
    page.get_by_label("Index name").fill("byColour")
    page.get_by_label("Index partition key name").fill("colour")
    page.get_by_label("Index sort key name").fill("n")
    page.get_by_label("Index sort key type").select_option("N")
    page.get_by_role("button", name="Create index").click()
    expect(page.locator(".notice")).to_contain_text("UpdateTable answered: byColour is CREATING")
    row = page.locator('tr[data-index="byColour"]')
    expect(row.locator(".indexstatus")).to_have_text("ACTIVE")
    expect(row.locator("td.num")).to_have_text("6")
    console.shot("tab_indexes")
    index = client.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"][0]
    assert index["IndexName"] == "byColour" and index["IndexStatus"] == "ACTIVE"

    page.get_by_role("link", name="Items", exact=True).click()
    page.get_by_text("Query", exact=True).click()
    page.locator('select[name="index"]').select_option("byColour")
    page.locator('input[name="pk"]').fill("red")
    page.get_by_role("button", name="Run").click()
    expect(page.locator('table.items td[data-attribute="n"]')).to_have_text(["1", "3", "5"])

    page.get_by_role("link", name="Indexes").click()
    page.get_by_role("button", name="Delete index byColour").click()
    page.get_by_role("button", name="Delete byColour").click()
    expect(page.locator('tr[data-index="byColour"]')).to_have_count(0)
    assert "GlobalSecondaryIndexes" not in client.describe_table(TableName=table)["Table"]


def test_the_stream_is_enabled_and_its_records_tailed(console: Any) -> None:
    client = console.server.client()
    table = make_table(client)
    page = console.open(f"#/tables/{table}/stream")
    page.locator('select[name="StreamViewType"]').select_option("NEW_AND_OLD_IMAGES")
    page.get_by_role("button", name="Enable stream").click()
    expect(page.get_by_role("button", name="Disable stream")).to_be_visible()
    client.put_item(TableName=table, Item={"PK": {"S": "a"}, "n": {"N": "1"}})
    for _ in range(3):
        client.update_item(TableName=table, Key={"PK": {"S": "a"}},
                           UpdateExpression="ADD n :one",
                           ExpressionAttributeValues={":one": {"N": "1"}})
    client.delete_item(TableName=table, Key={"PK": {"S": "a"}})
    expect(page.locator('[data-event="INSERT"]')).to_have_text("INSERT 1")
    expect(page.locator('[data-event="MODIFY"]')).to_have_text("MODIFY 3")
    expect(page.locator('[data-event="REMOVE"]')).to_have_text("REMOVE 1")
    expect(page.locator("table.streamrecords tbody tr").nth(1)).to_contain_text("n 3 → 4")
    console.shot("tab_stream")
    assert "GetRecords" in console.operations()
    spec = client.describe_table(TableName=table)["Table"]["StreamSpecification"]
    assert spec == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}


def test_ttl_tags_billing_protection_and_class(console: Any) -> None:
    client = console.server.client()
    table = make_table(client)
    arn = client.describe_table(TableName=table)["Table"]["TableArn"]
    page = console.open(f"#/tables/{table}/ttl")
    page.get_by_label("TTL attribute").fill("expires_at")
    page.get_by_role("button", name="Turn on TTL").click()
    expect(page.locator(".ttlstatus")).to_contain_text("expires_at")
    console.shot("tab_ttl")
    assert client.describe_time_to_live(TableName=table)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}

    page.get_by_role("link", name="Tags").click()
    page.get_by_label("Key", exact=True).fill("team")
    page.get_by_label("Value", exact=True).fill("counters")
    page.get_by_role("button", name="Add tag").click()
    expect(page.locator('tr[data-tag="team"]')).to_contain_text("counters")
    console.shot("tab_tags")
    assert client.list_tags_of_resource(ResourceArn=arn)["Tags"] == [
        {"Key": "team", "Value": "counters"}]
    page.get_by_role("button", name="Remove tag team").click()
    expect(page.locator('tr[data-tag="team"]')).to_have_count(0)
    assert client.list_tags_of_resource(ResourceArn=arn)["Tags"] == []

    page.get_by_role("link", name="Settings").click()
    page.locator('select[name="BillingMode"]').select_option("PROVISIONED")
    page.locator('input[name="ReadCapacityUnits"]').fill("7")
    page.locator('input[name="WriteCapacityUnits"]').fill("3")
    page.get_by_role("button", name="Save billing").click()
    expect(page.locator(".facts:not(.summary)")).to_contain_text("7 read / 3 write units")
    page.get_by_role("button", name="Turn on deletion protection").click()
    expect(page.get_by_role("button", name="Turn off deletion protection")).to_be_visible()
    expect(page.get_by_role("button", name="Delete…")).to_be_disabled()
    page.locator('select[name="TableClass"]').select_option("STANDARD_INFREQUENT_ACCESS")
    page.get_by_role("button", name="Save table class").click()
    expect(page.get_by_role("form", name="Table class").locator(".notice")).to_have_text("Saved.")
    console.shot("tab_settings")
    described = client.describe_table(TableName=table)["Table"]
    assert described["ProvisionedThroughput"]["ReadCapacityUnits"] == 7
    assert described["ProvisionedThroughput"]["WriteCapacityUnits"] == 3
    assert described["DeletionProtectionEnabled"] is True
    assert described["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"


def test_a_backup_is_restored_under_a_new_name(console: Any) -> None:
    client = console.server.client()
    table = make_table(client, 3)
    page = console.open(f"#/tables/{table}/backups")
    page.get_by_label("Backup name").fill(f"{table}-first")
    page.get_by_role("button", name="Create backup").click()
    expect(page.locator(f'tr[data-backup="{table}-first"]')).to_contain_text("AVAILABLE")
    page.get_by_role("button", name=f"Restore {table}-first…").click()
    page.get_by_label("New table name").fill(f"{table}-copy")
    page.get_by_role("button", name="Restore", exact=True).click()
    expect(page.locator(".restore .notice")).to_contain_text(f"Restored as {table}-copy")
    console.shot("tab_backups")
    page.get_by_role("link", name=f"{table}-copy").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{table}-copy")
    expect(page.locator("table.items tbody tr")).to_have_count(3)
    assert client.scan(TableName=f"{table}-copy")["Count"] == 3


def test_the_items_tab_pages_deletes_many_and_downloads(console: Any) -> None:
    client = console.server.client()
    table = make_table(client, 12)
    page = console.open(f"#/tables/{table}/items")
    rows = page.locator("table.items tbody tr")
    expect(rows).to_have_count(12)
    page.locator('select[name="pageSize"]').select_option("10")
    page.get_by_role("button", name="Run").click()
    expect(rows).to_have_count(10)
    assert [b for o, b in console.sent if o == "Scan"][-1]["Limit"] == 10

    with page.expect_download() as got:
        page.get_by_role("button", name="JSON", exact=True).click()
    lines = got.value.path().read_text().splitlines()
    assert len(lines) == 10 and all("PK" in json.loads(line) for line in lines)
    with page.expect_download() as got:
        page.get_by_role("button", name="CSV").click()
    csv = got.value.path().read_text().splitlines()
    assert csv[0] == "PK,colour,n" and len(csv) == 11

    page.get_by_label("Select item#00").check()
    page.get_by_label("Select item#01").check()
    page.get_by_role("button", name="Delete selected (2)…").click()
    page.get_by_role("button", name="Delete 2 items").click()
    expect(page.locator("table.items tbody tr.removed")).to_have_count(2)
    sent = [b for o, b in console.sent if o == "TransactWriteItems"]
    assert len(sent) == 1 and len(sent[0]["TransactItems"]) == 2
    assert client.scan(TableName=table, Select="COUNT")["Count"] == 10


def test_point_in_time_restore_and_an_export(console: Any) -> None:
    client = console.server.client()
    table = make_table(client, 4)
    page = console.open(f"#/tables/{table}/backups")
    page.get_by_role("button", name="Enable point-in-time recovery").click()
    expect(page.get_by_role("button", name="Disable point-in-time recovery")).to_be_visible()
    page.locator('input[name="PitrTargetTableName"]').fill(f"{table}-at")
    page.get_by_role("button", name="Restore to this time").click()
    restored = page.get_by_role("form", name="Restore to a point in time").locator(".notice")
    expect(restored).to_contain_text(f"Restored as {table}-at")
    assert client.scan(TableName=f"{table}-at", Select="COUNT")["Count"] == 4

    page.get_by_role("link", name="Exports").click()
    page.get_by_label("Bucket", exact=True).fill("exports")
    page.get_by_role("button", name="Export", exact=True).click()
    expect(page.locator('table[aria-label="Exports"] tbody tr')).to_have_attribute(
        "data-status", "COMPLETED", timeout=15_000)
    console.shot("tab_exports", full_page=False)
    arn = client.describe_table(TableName=table)["Table"]["TableArn"]
    [summary] = client.list_exports(TableArn=arn)["ExportSummaries"]
    assert summary["ExportStatus"] == "COMPLETED"


def test_a_replica_is_added_and_removed(console_page_for: Any) -> None:
    # Replicas need each region's own tables: a server started for it.
    server = Serve("--in-memory", "--separate-regions").start()
    try:
        client = server.client()
        table = make_table(client, 1)
        console = console_page_for(server)
        page = console.open(f"#/tables/{table}/replicas")
        expect(page.locator(".empty")).to_contain_text("Not a global table")
        page.get_by_label("Region").fill("eu-west-1")
        page.get_by_role("button", name="Add replica").click()
        row = page.locator('tr[data-region="eu-west-1"]')
        expect(row).to_contain_text("ACTIVE", timeout=15_000)
        console.shot("tab_replicas", full_page=False)
        assert [b["ReplicaUpdates"] for o, b in console.sent if o == "UpdateTable"] == [
            [{"Create": {"RegionName": "eu-west-1"}}]]
        replicas = client.describe_table(TableName=table)["Table"]["Replicas"]
        assert "eu-west-1" in {r["RegionName"] for r in replicas}
        page.get_by_role("button", name="Remove replica eu-west-1").click()
        expect(row).to_have_count(0, timeout=15_000)
        replicas = client.describe_table(TableName=table)["Table"].get("Replicas", [])
        assert "eu-west-1" not in {r["RegionName"] for r in replicas}
    finally:
        server.kill()
