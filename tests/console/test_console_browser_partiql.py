"""The PartiQL editor in Chromium: checked by the server's parser as it is
typed, shown as the JSON operation it runs as, run with ? parameters, its
items in the same grid as a table's."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def make_videos(client: Any) -> str:
    name = f"videos_{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for sk in ("a", "b", "c"):
        client.put_item(TableName=name, Item={"PK": {"S": "VID#1"}, "SK": {"S": sk},
                                              "n": {"N": "41"}})
    return name


def test_an_increment_is_checked_shown_as_updateitem_and_run(console: Any) -> None:
    client = console.server.client()
    table = make_videos(client)
    page = console.open("#/partiql")
    statement = page.get_by_label("Statement", exact=True)
    verdict = page.locator(".verdict")

    statement.fill(f'UPDATE "{table}" SET n = n +')
    expect(verdict).to_have_attribute("data-state", "invalid")
    expect(page.locator(".checkresult .error-message")).to_contain_text(
        "Statement wasn't well formed")

    statement.fill(f'UPDATE "{table}" SET n = n + 1 WHERE PK = ? AND SK = ?')
    expect(verdict).to_have_attribute("data-state", "local")  # parameter 2 is not given yet
    page.get_by_label("? 1").fill('"VID#1"')
    page.get_by_label("? 2").fill('{"S": "b"}')
    expect(verdict).to_have_attribute("data-state", "valid")
    planned = page.locator('.planned[data-operation="UpdateItem"]')
    expect(planned).to_contain_text('"UpdateExpression": "SET #n0 = #n0 + :v0"')
    console.shot("partiql_update")
    assert "ExecuteStatement" not in console.operations(), "the editor ran while checking"

    page.get_by_role("button", name="Run").click()
    expect(page.locator(".runresult .outcome")).to_contain_text("ExecuteStatement answered 0 items")
    item = client.get_item(TableName=table, Key={"PK": {"S": "VID#1"}, "SK": {"S": "b"}},
                           ConsistentRead=True)["Item"]
    assert item["n"] == {"N": "42"}
    sent = [body for operation, body in console.sent if operation == "ExecuteStatement"]
    assert sent == [{"Statement": f'UPDATE "{table}" SET n = n + 1 WHERE PK = ? AND SK = ?',
                     "Parameters": [{"S": "VID#1"}, {"S": "b"}]}]

    # Without the whole key the statement is refused as DynamoDB refuses it.
    statement.fill(f'UPDATE "{table}" SET n = n + 1 WHERE PK = ?')
    expect(page.locator(".checkresult .error-message")).to_have_text(
        "Where clause does not contain a mandatory equality on all key attributes")


def test_a_select_fills_the_grid(console: Any) -> None:
    client = console.server.client()
    table = make_videos(client)
    page = console.open("#/partiql")
    page.get_by_label("Statement", exact=True).fill(
        f'SELECT * FROM "{table}" WHERE PK = ? AND SK >= \'b\'')
    page.get_by_label("? 1").fill('"VID#1"')
    expect(page.locator('.planned[data-operation="Query"]')).to_be_visible()
    page.get_by_label("Statement", exact=True).press("Control+Enter")
    expect(page.locator('table.items td[data-attribute="SK"]')).to_have_text(["b", "c"])
    expect(page.locator("table.items thead th")).to_have_text(["PK", "SK", "n"])
    page.get_by_role("link", name="VID#1").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("VID#1 / b")
