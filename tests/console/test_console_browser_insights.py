"""The table page's Insights tab in Chromium: contributor insights switched
on from the page, and the hammered key first among the most accessed."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TABLE = "insight-hits"


def test_the_insights_tab_names_the_hammered_key_first(console: Any) -> None:
    client = console.server.client()
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "page", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "page", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    page = console.open(f"#/tables/{TABLE}/insights")
    card = page.locator("[data-insights='']")
    card.get_by_role("button", name="Enable").click()
    expect(card.get_by_role("button", name="Disable")).to_be_visible()
    assert client.describe_contributor_insights(
        TableName=TABLE)["ContributorInsightsStatus"] == "ENABLED"

    def add(key: str) -> None:
        client.update_item(TableName=TABLE, Key={"page": {"S": key}},
                           UpdateExpression="ADD hits :one",
                           ExpressionAttributeValues={":one": {"N": "1"}})

    for i in range(40):
        add("page#hot")
        if i % 10 == 0:
            add(f"page#{i}")
    rows = card.locator("tbody tr")
    expect(rows.first.locator(".hotkey")).to_have_text("page#hot", timeout=30_000)
    expect(rows.first.locator("td").nth(2)).to_have_text("40", timeout=30_000)
    console.shot("insights")
