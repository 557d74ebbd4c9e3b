"""The counter flows of the console in Chromium: create, put, "+1", live
increments from another process, an edit racing an increment, a condition
that fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

Console = Any  # tests/console/conftest.py's Console: one tab on one server

KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}


def unique_table(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def make_videos(client: Any, name: str | None = None) -> str:
    name = name or unique_table("videos")
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    return name


def item_fragment(table: str, key: dict[str, Any] = KEY) -> str:
    from urllib.parse import quote

    return f"#/tables/{table}/item?key={quote(json.dumps(key))}"


def value_cell(console: Console, attribute: str) -> Any:
    return console.page.locator(f'tr[data-attribute="{attribute}"] td.value')


def play_count(client: Any, table: str) -> str:
    item = client.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]
    return str(item["play_count"]["N"])


def run_elsewhere(url: str, body: str) -> None:
    """Run ``body`` in another Python process with ``client`` bound to boto3 on ``url``."""
    script = textwrap.dedent(f"""
        import boto3
        from botocore.config import Config
        client = boto3.client("dynamodb", endpoint_url={url!r}, region_name="us-east-1",
                              aws_access_key_id="x", aws_secret_access_key="y",
                              config=Config(retries={{"total_max_attempts": 1}}))
    """) + textwrap.dedent(body)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)


def test_create_table_put_item_and_plus_one_three_times(console: Console) -> None:
    page = console.open("#/tables")
    table = unique_table("videos")
    page.get_by_role("button", name="Create table").click()
    page.get_by_label("Table name").fill(table)
    page.get_by_label("Partition key name").fill("PK")
    page.get_by_label("Sort key name").fill("SK")
    page.get_by_role("button", name="Create", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(table)

    page.get_by_role("link", name="Items", exact=True).click()
    page.get_by_role("link", name="New item").click()
    page.get_by_role("tab", name="JSON", exact=True).click()
    page.get_by_label("Item (JSON: plain or DynamoDB JSON)").fill(
        json.dumps({**KEY, "play_count": {"N": "0"}}))
    page.get_by_role("button", name="Save").click()
    expect(value_cell(console, "play_count")).to_have_text("0")

    plus_one = page.get_by_role("button", name="+1 play_count")
    for _ in range(3):
        plus_one.click()
    expect(value_cell(console, "play_count")).to_have_text("3")
    outcome = page.locator(".outcome")
    expect(outcome.locator('dd[data-attribute="play_count"]')).to_have_text("3")
    expect(outcome.locator("code.expr")).to_have_text("ADD #n :d")
    expect(outcome.locator(".consumed")).to_contain_text("write unit")
    console.shot("item_after_plus_one")

    sent = [body for operation, body in console.sent if operation == "UpdateItem"]
    assert [body["UpdateExpression"] for body in sent] == ["ADD #n :d"] * 3
    assert sent[0]["ExpressionAttributeNames"] == {"#n": "play_count"}
    assert sent[0]["ExpressionAttributeValues"] == {":d": {"N": "1"}}
    assert play_count(console.server.client(), table) == "3"


def test_increments_from_another_process_appear_without_a_reload(console: Console) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "0"}})
    page = console.open(item_fragment(table))
    expect(value_cell(console, "play_count")).to_have_text("0")
    expect(page.locator(".live.on")).to_be_visible()

    run_elsewhere(console.server.url, f"""
        for _ in range(200):
            client.update_item(TableName={table!r}, Key={KEY!r},
                               UpdateExpression="ADD play_count :one",
                               ExpressionAttributeValues={{":one": {{"N": "1"}}}})
    """)
    expect(value_cell(console, "play_count")).to_have_text("200")
    expect(page.locator(".changelog li").first).to_contain_text("→ 200")
    console.shot("item_live")
    assert console.operations().count("GetItem") == 1, "the page re-read instead of going live"
    assert play_count(client, table) == "200"


def test_a_large_item_changed_elsewhere_is_read_by_reference(console: Console) -> None:
    # its image is over what the live feed sends inline: the page reads it (GetItem)
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "0"}})
    page = console.open(item_fragment(table))
    expect(value_cell(console, "play_count")).to_have_text("0")
    expect(page.locator(".live.on")).to_be_visible()
    run_elsewhere(console.server.url, f"""
        client.update_item(TableName={table!r}, Key={KEY!r},
                           UpdateExpression="SET play_count = :n, notes = :big",
                           ExpressionAttributeValues={{":n": {{"N": "7"}},
                                                       ":big": {{"S": "n" * 20000}}}})
    """)
    expect(value_cell(console, "play_count")).to_have_text("7")
    expect(page.locator(".changelog li").first).to_contain_text("→ 7")
    reads = [body for operation, body in console.sent if operation == "GetItem"]
    assert len(reads) == 2 and reads[1]["ConsistentRead"] is True  # the open, the reference


def test_an_edit_racing_an_increment_is_refused_and_loses_nothing(console: Console) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "5"}, "title": {"S": "old"}})
    page = console.open(item_fragment(table))
    expect(value_cell(console, "play_count")).to_have_text("5")

    page.get_by_role("button", name="Edit").click()
    page.get_by_role("tab", name="JSON", exact=True).click()
    editor = page.get_by_label("Item (JSON: plain or DynamoDB JSON)")
    draft = json.loads(editor.input_value())
    draft["title"] = {"S": "new"}
    editor.fill(json.dumps(draft))
    client.update_item(TableName=table, Key=KEY, UpdateExpression="ADD play_count :one",
                       ExpressionAttributeValues={":one": {"N": "1"}})
    # The live stream warns before Save; Save is refused all the same.
    expect(page.locator(".stale")).to_contain_text(
        "Changed since you started editing: play_count 5 → 6"
    )
    page.get_by_role("button", name="Save").click()

    expect(page.locator(".conflict")).to_contain_text(
        "Not saved: this item changed since you opened it for editing (another client wrote"
        " to it: play_count 5 → 6)"
    )
    expect(value_cell(console, "play_count")).to_have_text("6")
    console.shot("item_edit_refused")
    item = client.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]
    assert item["play_count"] == {"N": "6"}
    assert item["title"] == {"S": "old"}

    # Starting again from the current item, the edit goes through and keeps the increment.
    page.get_by_role("button", name="Start again from the current item").click()
    page.get_by_role("tab", name="JSON", exact=True).click()
    draft = json.loads(editor.input_value())
    assert draft["play_count"] == {"N": "6"}
    draft["title"] = {"S": "new"}
    editor.fill(json.dumps(draft))
    page.get_by_role("button", name="Save").click()
    expect(page.locator('tr[data-attribute="title"] td.value')).to_have_text("new")
    item = client.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]
    assert item == {**KEY, "play_count": {"N": "6"}, "title": {"S": "new"}}


def test_a_failed_condition_shows_the_current_item(console: Console) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "5"}})
    page = console.open(item_fragment(table))
    page.get_by_role("button", name="Update play_count").click()
    page.locator('select[name="condOp"]').select_option("=")
    page.locator('input[name="condValue"]').fill("41")
    preview = page.locator(".preview")
    expect(preview).to_contain_text("#n = :c")
    page.get_by_role("button", name="Send").click()

    refused = page.locator(".outcome.refused")
    expect(refused).to_contain_text("ConditionalCheckFailed")
    expect(refused.locator("pre")).to_contain_text('"play_count": 5')
    sent = [body for operation, body in console.sent if operation == "UpdateItem"][-1]
    assert sent["ConditionExpression"] == "#n = :c"
    assert sent["ReturnValuesOnConditionCheckFailure"] == "ALL_OLD"
    assert play_count(client, table) == "5"


def test_the_grid_and_the_tables_list_follow_writes_live(console: Any) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "1"}})
    page = console.open(f"#/tables/{table}/items")
    cell = page.locator('table.items td[data-attribute="play_count"]')
    expect(cell).to_have_text("1")
    expect(page.locator(".live.on")).to_be_visible()

    client.update_item(TableName=table, Key=KEY, UpdateExpression="ADD play_count :n",
                       ExpressionAttributeValues={":n": {"N": "41"}})
    expect(cell).to_have_text("42")
    expect(cell.locator(".val.flash")).to_have_count(1)  # briefly highlighted
    client.put_item(TableName=table, Item={"PK": {"S": "VID#new"}, "SK": {"S": "STATS#TOTAL"}})
    expect(page.locator(".notice")).to_contain_text("1 new item since this page was read")
    client.delete_item(TableName=table, Key=KEY)
    expect(page.locator("table.items tbody tr.removed")).to_have_count(1)  # struck through
    assert console.operations().count("Scan") == 1, "the grid re-read instead of going live"

    page = console.open("#/tables")
    count = page.locator(f'tr[data-table="{table}"] td').nth(4)
    expect(count).to_have_text("1")
    client.put_item(TableName=table, Item={"PK": {"S": "VID#third"}, "SK": {"S": "STATS#TOTAL"}})
    expect(count).to_have_text("2")


@pytest.mark.parametrize(
    ("action", "value_type", "value", "expression", "after"),
    [
        ("ADD", "N", "5", "ADD #n :d", {"N": "15"}),
        ("SET", "S", "hello", "SET #n = :v", {"S": "hello"}),
        ("SET_IF_NOT_EXISTS", "N", "99", "SET #n = if_not_exists(#n, :v)", {"N": "10"}),
        ("SET_PLUS", "N", "2.5", "SET #n = #n + :d", {"N": "12.5"}),
        ("SET_MINUS", "N", "3", "SET #n = #n - :d", {"N": "7"}),
        ("REMOVE", None, None, "REMOVE #n", None),
    ],
)
def test_each_update_action_sends_its_expression(
    console: Console, action: str, value_type: str | None, value: str | None,
    expression: str, after: dict[str, str] | None,
) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "score": {"N": "10"}})
    page = console.open(item_fragment(table))
    page.get_by_role("button", name="Update score").click()
    page.locator('select[name="action"]').select_option(action)
    if value_type is not None:
        page.get_by_label("Value type", exact=True).select_option(value_type)
        page.locator('input[name="value"]').fill(str(value))
    expect(page.locator(".preview")).to_contain_text(expression)
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".outcome code.expr")).to_have_text(expression)
    item = client.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]
    assert item.get("score") == after


def test_delete_from_a_set(console: Console) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "tags": {"SS": ["a", "b", "c"]}})
    page = console.open(item_fragment(table))
    page.get_by_role("button", name="Update tags").click()
    page.locator('select[name="action"]').select_option("DELETE")
    page.get_by_label("Value type", exact=True).select_option("SS")
    page.locator('input[name="value"]').fill("a, c")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".outcome code.expr")).to_have_text("DELETE #n :v")
    expect(page.locator('tr[data-attribute="tags"] td.value')).to_have_text("{b}")
    item = client.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]
    assert item["tags"] == {"SS": ["b"]}


HIDE = """hidden => {
    Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
    Object.defineProperty(document, "visibilityState",
                          {value: hidden ? "hidden" : "visible", configurable: true});
    document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_a_hidden_tab_closes_its_stream_and_rereads_when_shown(console: Console) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "1"}})
    streams: list[str] = []
    console.page.on(
        "request", lambda r: streams.append(r.url) if "/console/events" in r.url else None
    )
    page = console.open(item_fragment(table))
    expect(page.locator(".live.on")).to_be_visible()
    assert len(streams) == 1

    page.evaluate(HIDE, True)
    page.wait_for_timeout(300)
    client.update_item(TableName=table, Key=KEY, UpdateExpression="ADD play_count :n",
                       ExpressionAttributeValues={":n": {"N": "9"}})
    page.wait_for_timeout(1_000)  # a live page shows a commit within a second; a hidden one not
    expect(value_cell(console, "play_count")).to_have_text("1")

    page.evaluate(HIDE, False)
    expect(value_cell(console, "play_count")).to_have_text("10")
    assert len(streams) == 2, "the stream did not reopen once"
    assert console.operations().count("GetItem") == 2, "the shown tab did not re-read its item"


def test_the_item_page_lists_each_commit_by_any_client(console: Console) -> None:
    """Also the README's picture: build/screenshots/console.png is docs/images/console.png."""
    client = console.server.client()
    table = make_videos(client, "videos")
    client.put_item(TableName=table, Item={
        **KEY, "title": {"S": "Counting without losing a single play"},
        "play_count": {"N": "41"}, "likes": {"N": "1287"}, "shares": {"N": "96"},
        "updated_at": {"S": "2026-11-25T10:30:00Z"},
    })
    page = console.open(item_fragment(table))
    expect(page.locator(".live.on")).to_be_visible()
    log = page.locator(".changelog li")
    for n in range(3):
        page.get_by_role("button", name="+1 play_count").click()
        expect(log.first).to_contain_text(f"play_count {41 + n} → {42 + n}")
        client.update_item(TableName=table, Key=KEY, UpdateExpression="ADD likes :one",
                           ExpressionAttributeValues={":one": {"N": "1"}})
        expect(log.first).to_contain_text(f"likes {1287 + n} → {1288 + n}")
    expect(value_cell(console, "play_count")).to_have_text("44")
    expect(value_cell(console, "likes")).to_have_text("1290")
    expect(log).to_have_count(6)
    page.get_by_text("As code:").click()
    page.get_by_role("tab", name="boto3").click()
    expect(page.locator(".codetabs pre")).to_contain_text("response = client.update_item(")
    console.shot("console", full_page=False)


def test_the_boto3_code_the_page_shows_runs_the_same_update(console: Console) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "7"}})
    page = console.open(item_fragment(table))
    page.get_by_role("button", name="Update play_count").click()
    page.locator('select[name="condOp"]').select_option("=")
    page.locator('input[name="condValue"]').fill("7")
    page.get_by_text("As code:").click()
    page.get_by_role("tab", name="boto3").click()
    code = page.locator(".codetabs pre").inner_text()

    env = dict(os.environ, AWS_ACCESS_KEY_ID="x", AWS_SECRET_ACCESS_KEY="y")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, env=env,
                   capture_output=True)
    assert play_count(client, table) == "8"
    assert console.operations().count("UpdateItem") == 0, "the page itself sent the update"
    expect(value_cell(console, "play_count")).to_have_text("8")  # and saw it live
