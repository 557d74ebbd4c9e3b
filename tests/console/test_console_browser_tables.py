"""Tables and items in Chromium: create with indexes and TTL, the table page,
the Scan/Query grid with paging, filter and projection, the item views,
delete; a narrow window with big values."""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def unique_table(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def make_events(client: Any, items: int) -> str:
    """A table of ``items`` events: PK "USER#<n % 3>", SK "EVT#<n:03>", views n."""
    name = unique_table("events")
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for start in range(0, items, 25):
        client.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {
                "PK": {"S": f"USER#{n % 3}"}, "SK": {"S": f"EVT#{n:03}"},
                "views": {"N": str(n)}, "title": {"S": f"event {n}"},
            }}} for n in range(start, min(items, start + 25))
        ]})
    return name


def test_create_a_table_with_indexes_billing_and_ttl(console: Any) -> None:
    page = console.open("#/tables")
    table = unique_table("orders")
    page.get_by_role("button", name="Create table").click()
    page.get_by_label("Table name").fill(table)
    page.get_by_label("Partition key name").fill("customer")
    page.get_by_label("Sort key name").fill("order_id")
    page.get_by_label("Sort key type").select_option("N")
    page.locator('select[name="BillingMode"]').select_option("PROVISIONED")
    page.get_by_label("TTL attribute (optional)").fill("expires_at")
    page.get_by_role("button", name="Add global index").click()
    page.get_by_label("Global index name").fill("byStatus")
    page.get_by_label("Index partition key name").fill("status")
    page.get_by_role("button", name="Add local index").click()
    page.get_by_label("Local index name").fill("byTotal")
    page.locator(".index").nth(1).get_by_label("Index sort key name").fill("total")
    page.locator(".index").nth(1).get_by_label("Index sort key type").select_option("N")
    console.shot("tables_create_form")
    page.get_by_role("button", name="Create", exact=True).click()

    expect(page.get_by_role("heading", level=1)).to_have_text(table)
    page.get_by_role("link", name="Settings").click()
    expect(page.locator(".facts:not(.summary)")).to_contain_text("5 read / 5 write units")
    expect(page.locator(".ttlstatus")).to_contain_text("expires_at")
    page.get_by_role("link", name="Indexes").click()
    indexes = page.get_by_role("table", name="Indexes")
    expect(indexes).to_contain_text("byStatus")
    expect(indexes).to_contain_text("byTotal")
    console.shot("table_page")

    client = console.server.client()
    described = client.describe_table(TableName=table)["Table"]
    assert described["ProvisionedThroughput"]["WriteCapacityUnits"] == 5
    assert [i["IndexName"] for i in described["GlobalSecondaryIndexes"]] == ["byStatus"]
    assert [i["IndexName"] for i in described["LocalSecondaryIndexes"]] == ["byTotal"]
    ttl = client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}

    page.get_by_role("button", name="Delete…").click()
    page.get_by_role("button", name="Delete table").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Tables")
    assert table not in client.list_tables()["TableNames"]


def test_the_tables_list_shows_item_counts_and_sizes(console: Any) -> None:
    table = make_events(console.server.client(), 30)
    page = console.open("#/tables")
    row = page.locator(f'tr[data-table="{table}"]')
    expect(row.locator("td").nth(4)).to_have_text("30")
    expect(row.locator("td").nth(5)).to_contain_text("B")
    console.shot("tables_list")


def test_the_grid_pages_a_scan_and_queries_with_a_sort_key_condition(console: Any) -> None:
    table = make_events(console.server.client(), 60)
    page = console.open(f"#/tables/{table}/items")
    rows = page.locator("table.items tbody tr")
    expect(rows).to_have_count(25)
    expect(page.locator(".gridbar")).to_contain_text("25 items on page 1")
    console.shot("items_scan")
    page.get_by_role("button", name="Next").click()
    expect(page.locator(".gridbar")).to_contain_text("on page 2")
    page.get_by_role("button", name="Next").click()
    expect(rows).to_have_count(10)
    expect(page.get_by_role("button", name="Next")).to_be_disabled()
    page.get_by_role("button", name="Previous").click()
    expect(rows).to_have_count(25)

    page.get_by_text("Query", exact=True).click()
    page.locator('input[name="pk"]').fill("USER#1")
    page.locator('select[name="skOp"]').select_option("between")
    page.get_by_label("Sort key value", exact=True).fill("EVT#010")
    page.get_by_label("Sort key upper value").fill("EVT#030")
    page.locator('input[name="filter"]').fill("#views >= :min")
    page.locator('input[name="filterValues"]').fill('{":min": 20}')
    page.locator('input[name="projection"]').fill("PK, SK, views")
    page.get_by_role("button", name="Run").click()
    # USER#1 holds n = 1, 4, 7, ...; between EVT#010 and EVT#030 with views >= 20: 22, 25, 28.
    expect(rows).to_have_count(3)
    expect(page.locator('table.items td[data-attribute="views"]')).to_have_text(["22", "25", "28"])
    expect(page.locator("table.items thead th")).to_have_text(["PK", "SK", "views"])
    sent = [body for operation, body in console.sent if operation == "Query"][-1]
    assert sent["KeyConditionExpression"] == "#pk = :pk AND #sk BETWEEN :sk AND :sk2"
    assert sent["FilterExpression"] == "#views >= :min"
    assert sent["ExpressionAttributeValues"][":min"] == {"N": "20"}
    console.shot("items_query")


def test_an_item_shows_as_dynamodb_json_and_plain_json_and_can_be_deleted(console: Any) -> None:
    client = console.server.client()
    table = make_events(client, 3)
    key = {"PK": {"S": "USER#0"}, "SK": {"S": "EVT#000"}}
    client.update_item(TableName=table, Key=key, UpdateExpression="SET tags = :t, meta = :m",
                       ExpressionAttributeValues={":t": {"SS": ["a", "b"]},
                                                  ":m": {"M": {"depth": {"N": "1.5"}}}})
    page = console.open(f"#/tables/{table}/items")
    page.get_by_role("link", name="USER#0").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("USER#0 / EVT#000")

    page.get_by_role("tab", name="DynamoDB JSON").click()
    typed = json.loads(page.locator("pre.json").inner_text())
    assert typed["tags"] == {"SS": ["a", "b"]}
    assert typed["views"] == {"N": "0"}
    page.get_by_role("tab", name="Plain JSON").click()
    plain = json.loads(page.locator("pre.json").inner_text())
    assert plain == {"PK": "USER#0", "SK": "EVT#000", "views": 0, "title": "event 0",
                     "tags": ["a", "b"], "meta": {"depth": 1.5}}
    console.shot("item_plain_json")

    page.get_by_role("button", name="Delete…").click()
    page.get_by_role("button", name="Delete item").click()
    expect(page.locator("table.items tbody tr")).to_have_count(2)
    assert "Item" not in client.get_item(TableName=table, Key=key)


def test_a_narrow_window_with_big_values_keeps_its_layout(console: Any) -> None:
    client = console.server.client()
    table = make_events(client, 1)
    key = {"PK": {"S": "USER#0"}, "SK": {"S": "EVT#000"}}
    client.update_item(
        TableName=table, Key=key, UpdateExpression="SET essay = :e, big = :b, counts = :c",
        ExpressionAttributeValues={
            ":e": {"S": "word " * 4000},
            ":b": {"M": {f"field{n}": {"S": "x" * 200} for n in range(40)}},
            ":c": {"N": "12345678901234567890123456789012345678"},
        },
    )
    console.page.set_viewport_size({"width": 390, "height": 844})
    page = console.open(f"#/tables/{table}/item?key={quote(json.dumps(key))}")
    expect(page.locator('tr[data-attribute="counts"] td.value')).to_have_text(
        "12345678901234567890123456789012345678")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than a 390px window"

    # The keyboard reaches "+1" and Enter presses it.
    page.get_by_role("button", name="+1 views").focus()
    page.keyboard.press("Enter")
    expect(page.locator('tr[data-attribute="views"] td.value')).to_have_text("1")
    console.shot("item_narrow")

    page = console.open(f"#/tables/{table}/items")
    expect(page.locator("table.items tbody tr")).to_have_count(1)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the grid page is {overflow}px wider than a 390px window"
    console.shot("items_narrow")


@pytest.mark.parametrize("fragment", ["#/tables", "#/tables/{table}", "#/builder", "#/hotkeys"])
def test_every_page_fits_a_narrow_window(console: Any, fragment: str) -> None:
    table = make_events(console.server.client(), 1)
    console.page.set_viewport_size({"width": 390, "height": 844})
    page = console.open(fragment.format(table=table))
    expect(page.locator("main h1")).to_be_visible()
    expect(page.locator(".live.on")).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{fragment} is {overflow}px wider than a 390px window"


def test_a_query_on_an_index_and_dynamodbs_error_for_a_bad_filter(console: Any) -> None:
    client = console.server.client()
    table = unique_table("videos")
    client.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"},
                              {"AttributeName": "channel", "AttributeType": "S"},
                              {"AttributeName": "views", "AttributeType": "N"}],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[{
            "IndexName": "byChannel",
            "KeySchema": [{"AttributeName": "channel", "KeyType": "HASH"},
                          {"AttributeName": "views", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "ALL"},
        }],
    )
    for n in range(6):
        client.put_item(TableName=table, Item={
            "id": {"S": f"v{n}"}, "channel": {"S": f"ch{n % 2}"}, "views": {"N": str(n * 10)}})
    page = console.open(f"#/tables/{table}/items")
    page.get_by_text("Query", exact=True).click()
    page.locator('select[name="index"]').select_option("byChannel")
    page.locator('input[name="pk"]').fill("ch1")
    page.locator('select[name="skOp"]').select_option(">=")
    page.get_by_label("Sort key value", exact=True).fill("30")
    page.get_by_label("descending").check()
    page.get_by_role("button", name="Run").click()
    expect(page.locator('table.items td[data-attribute="views"]')).to_have_text(["50", "30"])
    sent = [body for operation, body in console.sent if operation == "Query"][-1]
    assert sent["IndexName"] == "byChannel"
    assert sent["ExpressionAttributeValues"][":sk"] == {"N": "30"}
    assert sent["ScanIndexForward"] is False

    page.locator('input[name="filter"]').fill("#views >")
    page.get_by_role("button", name="Run").click()
    error = page.locator("section > .error")
    expect(error.locator(".error-type")).to_have_text("ValidationException")
    expect(error.locator(".error-message")).to_contain_text("Invalid FilterExpression")
