"""Accessibility and the keyboard, in Chromium: axe-core (vendored) finds no
serious or critical violation on any page, in either colour scheme; "/"
focuses the search from anywhere; the search reaches a table; each table
tab and the item's actions work from the keyboard alone."""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import quote

import pytest
from layout import axe, describe
from playwright.sync_api import expect
from serverkit import Serve

pytestmark = pytest.mark.browser

KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}


@pytest.fixture(scope="module")
def videos(console_server: Serve) -> str:
    client = console_server.client()
    table = f"a11y_{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    client.put_item(TableName=table, Item={**KEY, "play_count": {"N": "3"},
                                           "title": {"S": "Counting"}})
    client.create_backup(TableName=table, BackupName=f"{table}-b")
    client.tag_resource(ResourceArn=client.describe_table(TableName=table)["Table"]["TableArn"],
                        Tags=[{"Key": "team", "Value": "counters"}])
    return table


ITEM = f"item?key={quote(json.dumps(KEY))}"
#: Each page and what shows it is drawn with its data.
PAGES = {
    "#/tables": "tr[data-table]",
    "#/tables/{table}/items": "table.items tbody tr",
    "#/tables/{table}/indexes": "form.create",
    "#/tables/{table}/stream": "table.streamrecords",
    "#/tables/{table}/ttl": ".ttlstatus",
    "#/tables/{table}/backups": "tr[data-backup]",
    "#/tables/{table}/exports": 'section[aria-label="Exports"] .empty',
    "#/tables/{table}/replicas": 'section[aria-label="Replicas"] .empty',
    "#/tables/{table}/insights": 'section[aria-label="Contributor insights"] .card',
    "#/tables/{table}/tags": "tr[data-tag]",
    "#/tables/{table}/settings": ".ttlstatus",
    "#/tables/{table}/monitor": "figure.chart",
    "#/tables/{table}/" + ITEM: 'tr[data-attribute="play_count"]',
    "#/tables/{table}/" + ITEM + "&watch=play_count": ".counterchart figure",
    "#/tables/{table}/item?new=1": "table.attrform",
    "#/builder": '.verdict[data-state="valid"]',
    "#/partiql": ".verdict",
    "#/hotkeys": "main p",
    "#/counters": "main p",
}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("fragment", PAGES)
def test_axe_finds_no_serious_violation(console: Any, videos: str, fragment: str,
                                        scheme: str) -> None:
    console.page.emulate_media(color_scheme=scheme)
    page = console.open(fragment.format(table=videos))
    expect(page.locator(PAGES[fragment]).first).to_be_visible()
    expect(page.locator(".live.on")).to_be_visible()
    violations = axe(page)
    assert violations == [], describe(violations)


def test_slash_focuses_the_search_which_finds_a_table(console: Any, videos: str) -> None:
    page = console.open("#/builder")
    expect(page.locator(".verdict")).to_have_attribute("data-state", "valid")
    page.locator("body").press("/")
    search = page.get_by_label("Search tables (press / to focus)")
    expect(search).to_be_focused()
    page.keyboard.type(videos[:6])
    page.keyboard.press("Enter")
    expect(page.locator(f'tr[data-table="{videos}"]')).to_be_visible()
    expect(page.locator(".notice")).to_contain_text(videos[:6])
    page.locator("body").press("/")
    expect(search).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type(videos)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text(videos)
    # "/" typed into a field is text, not a shortcut
    page.goto(f"{console.server.url}/console/#/partiql")
    statement = page.get_by_label("Statement", exact=True)
    statement.fill("")
    statement.press("/")
    expect(statement).to_have_value("/")


def test_the_table_tabs_and_item_actions_work_from_the_keyboard(console: Any,
                                                                videos: str) -> None:
    client = console.server.client()
    page = console.open(f"#/tables/{videos}/items")
    expect(page.locator("table.items tbody tr")).to_have_count(1)
    page.get_by_role("link", name="Tags").focus()
    page.keyboard.press("Enter")
    expect(page.locator('tr[data-tag="team"]')).to_be_visible()
    page.get_by_role("link", name="Items", exact=True).focus()
    page.keyboard.press("Enter")
    page.get_by_role("link", name="VID#9f3a").focus()
    page.keyboard.press("Enter")
    plus = page.get_by_role("button", name="+1 play_count")
    plus.focus()
    page.keyboard.press("Enter")
    expect(page.locator('tr[data-attribute="play_count"] td.value')).to_have_text("4")
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Chart play_count")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".counterchart [data-value]")).to_have_text("4")
    item = client.get_item(TableName=videos, Key=KEY, ConsistentRead=True)["Item"]
    assert item["play_count"] == {"N": "4"}
