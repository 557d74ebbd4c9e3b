"""What looked broken, each as a test: no word split mid-token and no
drop-down too narrow for its choice at 1280 and 390 px; Send's result
beside Send, without scrolling; the sent and the live value labelled; a
new item's commit says what it created; an offline server is one clear
line; plain JSON typed as the toolkit types it; a copied boto3 snippet
runs with only the environment it names."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from typing import Any
from urllib.parse import quote

import pytest
from layout import broken_words, clipped_selects
from playwright.sync_api import expect
from serverkit import Serve

pytestmark = pytest.mark.browser

KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}


def unique_table(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def make_videos(client: Any) -> str:
    name = unique_table("videos")
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
    return f"#/tables/{table}/item?key={quote(json.dumps(key))}"


@pytest.fixture(scope="module")
def videos(console_server: Serve) -> str:
    client = console_server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={
        **KEY, "title": {"S": "Counting without losing a single play"},
        "play_count": {"N": "231"}, "state": {"S": "PAY_PER_REQUEST"},
        "path": {"S": "STATS#TOTAL/2026/11/VID#9f3a"},
        "digits": {"N": "12345678901234567890123456789012345678"},
    })
    return table


#: Each page, and what shows it is drawn with its data.
PAGES = {
    "#/tables": "tr[data-table]",
    "#/tables/{table}/indexes": "form.create",
    "#/tables/{table}/stream": ".card",
    "#/tables/{table}/ttl": ".ttlstatus",
    "#/tables/{table}/backups": "text=Point-in-time recovery",
    "#/tables/{table}/exports": 'section[aria-label="Exports"] .empty',
    "#/tables/{table}/replicas": 'section[aria-label="Replicas"] .empty',
    "#/tables/{table}/insights": 'section[aria-label="Contributor insights"] .card',
    "#/tables/{table}/tags": "form.card",
    "#/tables/{table}/monitor": "figure.chart",
    "#/tables/{table}/settings": ".ttlstatus",
    "#/tables/{table}/items": "table.items tbody tr",
    "{item}": 'tr[data-attribute="digits"]',
    "#/tables/{table}/item?new=1": "table.attrform",
    "#/builder": '.verdict[data-state="valid"]',
    "#/partiql": ".verdict",
    "#/hotkeys": "main p",
    "#/counters": "main p",
}


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("fragment", PAGES)
def test_no_word_is_split_mid_token(console: Any, videos: str, width: int, fragment: str) -> None:
    console.page.set_viewport_size({"width": width, "height": 800})
    page = console.open(fragment.format(table=videos, item=item_fragment(videos)))
    expect(page.locator(PAGES[fragment]).first).to_be_visible()
    expect(page.locator(".live.on")).to_be_visible()
    assert broken_words(page) == [], f"{fragment} at {width} px"
    assert clipped_selects(page) == [], f"{fragment} at {width} px"
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{fragment} is {overflow}px wider than a {width}px window"


def test_sends_result_is_visible_without_scrolling(console: Any, videos: str) -> None:
    page = console.open("#/builder")
    page.locator('[name="table"]').fill(videos)
    expect(page.locator(".verdict")).to_have_attribute("data-state", "valid")
    page.get_by_role("button", name="Send").click()
    result = page.locator(".sendresult .outcome")
    expect(result).to_contain_text("Sent. The server answered")
    expect(result.locator('dd[data-attribute="play_count"]')).to_have_text("232")
    box = result.bounding_box()
    assert box is not None
    assert page.evaluate("window.scrollY") == 0
    assert box["y"] >= 0 and box["y"] + box["height"] <= 800, box
    console.shot("builder_sent")


def test_the_sent_and_the_live_value_are_labelled(console: Any) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "43"}})
    page = console.open(item_fragment(table))
    expect(page.locator(".live.on")).to_be_visible()
    page.get_by_role("button", name="+1 play_count").click()
    outcome = page.locator(".outcome")
    expect(outcome.locator('dd[data-attribute="play_count"]')).to_have_text("44")
    expect(outcome).to_contain_text("play_count returned by this request")
    client.update_item(TableName=table, Key=KEY, UpdateExpression="ADD play_count :n",
                       ExpressionAttributeValues={":n": {"N": "187"}})
    expect(outcome.locator('dd[data-live="play_count"]')).to_have_text("231")
    expect(outcome).to_contain_text("play_count now (live)")
    expect(outcome.locator('dd[data-attribute="play_count"]')).to_have_text("44")
    console.shot("update_sent_and_live")


def test_a_new_items_commit_says_what_it_created(console: Any) -> None:
    client = console.server.client()
    table = make_videos(client)
    page = console.open(item_fragment(table))
    expect(page.locator(".live.on")).to_be_visible()
    expect(page.locator(".empty")).to_contain_text("No item has this key")
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "0"}})
    entry = page.locator(".changelog li").first
    expect(entry.locator(".event")).to_have_text("INSERT")
    expect(entry.locator(".diff")).to_contain_text("created with")
    expect(entry.locator(".diff")).to_contain_text("play_count 0")
    expect(page.locator(".changelog")).not_to_contain_text("no change")


def test_an_offline_server_is_one_clear_line(console_page_for: Any) -> None:
    server = Serve("--in-memory").start()
    try:
        table = make_videos(server.client())
        console = console_page_for(server)
        page = console.open(f"#/tables/{table}/items")
        expect(page.locator("table.items")).to_be_visible()
        server.stop()
        page.get_by_role("button", name="Run").click()
        error = page.locator("section .error.offline")
        expect(error).to_have_text(re.compile(r"^The server at http://127\.0\.0\.1:\d+ is not "
                                              r"answering: is tallydb serve running\?"))
        assert "TypeError" not in error.inner_text()
        assert "Failed to fetch" not in page.locator("main").inner_text()
        expect(page.locator(".live.off")).to_be_visible()
        console.shot("offline")
    finally:
        server.kill()


def test_a_new_item_takes_plain_json_and_shows_how_it_is_typed(console: Any) -> None:
    client = console.server.client()
    table = make_videos(client)
    page = console.open(f"#/tables/{table}/item?new=1")
    page.get_by_role("tab", name="JSON", exact=True).click()
    page.get_by_label("Item (JSON: plain or DynamoDB JSON)").fill(
        '{"PK": "VID#1", "SK": "STATS", "plays": 12345678901234567890.5, "tags": ["a", 1],'
        ' "live": true, "gone": null, "meta": {"depth": 2}}')
    expect(page.locator(".readas")).to_have_attribute("data-format", "plain JSON")
    typed = json.loads(page.locator(".editor pre.json").inner_text())
    assert typed == {"PK": {"S": "VID#1"}, "SK": {"S": "STATS"},
                     "plays": {"N": "12345678901234567890.5"},
                     "tags": {"L": [{"S": "a"}, {"N": "1"}]}, "live": {"BOOL": True},
                     "gone": {"NULL": True}, "meta": {"M": {"depth": {"N": "2"}}}}
    console.shot("new_item_plain_json")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("VID#1 / STATS")
    stored = client.get_item(TableName=table, Key={"PK": {"S": "VID#1"}, "SK": {"S": "STATS"}},
                             ConsistentRead=True)["Item"]
    assert stored == typed

    # DynamoDB JSON is read as such.
    page = console.open(f"#/tables/{table}/item?new=1")
    page.get_by_role("tab", name="JSON", exact=True).click()
    page.get_by_label("Item (JSON: plain or DynamoDB JSON)").fill(
        '{"PK": {"S": "VID#2"}, "SK": {"S": "STATS"}, "tags": {"SS": ["a", "b"]}}')
    expect(page.locator(".readas")).to_have_attribute("data-format", "DynamoDB JSON")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("VID#2 / STATS")
    stored = client.get_item(TableName=table, Key={"PK": {"S": "VID#2"}, "SK": {"S": "STATS"}},
                             ConsistentRead=True)["Item"]
    assert stored["tags"] == {"SS": ["a", "b"]}


def test_the_form_editor_puts_typed_attributes(console: Any) -> None:
    client = console.server.client()
    table = make_videos(client)
    page = console.open(f"#/tables/{table}/items")
    page.get_by_role("link", name="New item").click()
    page.get_by_label("Value of PK").fill("VID#form")
    page.get_by_label("Value of SK").fill("STATS#TOTAL")
    page.get_by_role("button", name="Add attribute").click()
    page.get_by_label("Name of attribute 3").fill("play_count")
    page.get_by_label("Type of play_count").select_option("N")
    page.get_by_label("Value of play_count").fill("7")
    page.get_by_role("button", name="Add attribute").click()
    page.get_by_label("Name of attribute 4").fill("tags")
    page.get_by_label("Type of tags").select_option("SS")
    page.get_by_label("Value of tags").fill("new, hot")
    page.get_by_role("button", name="Add attribute").click()
    page.get_by_label("Name of attribute 5").fill("draft")
    page.get_by_role("button", name="Remove draft").click()
    assert clipped_selects(page) == []  # each row's type can be read
    console.shot("form_editor")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("VID#form / STATS#TOTAL")
    key = {"PK": {"S": "VID#form"}, "SK": {"S": "STATS#TOTAL"}}
    stored = client.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    assert sorted(stored.pop("tags")["SS"]) == ["hot", "new"]
    assert stored == {**key, "play_count": {"N": "7"}}


def test_a_copied_boto3_snippet_runs_with_only_the_environment_it_names(console: Any) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "7"}})
    page = console.open(item_fragment(table))
    page.get_by_role("button", name="Update play_count").click()
    page.get_by_text("As code:").click()
    page.get_by_role("tab", name="boto3").click()
    console.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator(".codetabs").get_by_role("button", name="Copy").click()
    expect(page.locator(".codetabs").get_by_role("button", name="Copied")).to_be_visible()
    code = page.evaluate("navigator.clipboard.readText()")

    named = set(re.findall(r"os\.environ(?:\.get)?[\[(]\"(\w+)\"", code))
    assert named == {"TALLYDB_ENDPOINT", "AWS_REGION", "AWS_ACCESS_KEY_ID",
                     "AWS_SECRET_ACCESS_KEY"}
    for name in named:
        assert name in code.split("import os")[0], f"the comment does not name {name}"
    env = {"TALLYDB_ENDPOINT": console.server.url, "AWS_REGION": "us-east-1",
           "AWS_ACCESS_KEY_ID": "anyone", "AWS_SECRET_ACCESS_KEY": "anything"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "'play_count': {'N': '8'}" in done.stdout
    # and with no environment at all it reaches the server it was copied from
    done = subprocess.run([sys.executable, "-c", code], env={}, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    item = client.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]
    assert item["play_count"] == {"N": "9"}
    assert console.operations().count("UpdateItem") == 0, "the page itself sent the update"


def test_a_value_the_update_panel_cannot_read_is_named(console: Any) -> None:
    client = console.server.client()
    table = make_videos(client)
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "3"}})
    page = console.open(item_fragment(table))
    panel = page.locator("section.panel")
    panel.get_by_label("Attribute", exact=True).fill("play_count")
    panel.get_by_label("Condition").select_option("<")
    expect(panel).to_contain_text("Type the condition's value")
    expect(panel.get_by_role("button", name="Send")).to_be_disabled()
    # Each box is named on its own (the label around it also holds its type's options).
    panel.get_by_label("Condition value", exact=True).fill("many")
    expect(panel).to_contain_text("The condition's value: \"many\" is not a number")
    panel.get_by_label("Value", exact=True).fill("")
    expect(panel).to_contain_text("Type the value")
