"""The expression builder in Chromium: the server's parser checks what is
typed, DynamoDB's message is shown and the token marked, nothing is sent."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def compose(page: Any, **fields: str) -> None:
    for name, text in fields.items():
        page.locator(f'[name="{name}"]').fill(text)


def test_the_builder_shows_dynamodbs_errors_before_anything_is_sent(console: Any) -> None:
    page = console.open("#/builder")
    verdict = page.locator(".verdict")
    expect(verdict).to_have_attribute("data-state", "valid")

    # DynamoDB refuses a value no expression uses, before reading any item.
    compose(page, ExpressionAttributeValues='{":one": {"N": "1"}, ":v": {"N": "2"}}')
    expect(verdict).to_have_attribute("data-state", "invalid")
    error = page.locator(".checkresult .error")
    expect(error.locator(".error-type")).to_have_text("ValidationException")
    expect(error.locator(".error-message")).to_have_text(
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}"
    )
    console.shot("builder_unused_value")

    # DynamoDB's syntax error names the token and, as "near", the token with its
    # neighbours ("ADD hits : incr" gives token ":", near "hits : incr"); the page marks it.
    compose(page, ADD="", SET="a + b", ConditionExpression="",
            ExpressionAttributeNames="", ExpressionAttributeValues="")
    expect(error.locator(".error-message")).to_have_text(
        'Invalid UpdateExpression: Syntax error; token: "+", near: "a + b"'
    )
    marked = page.locator('[data-field="UpdateExpression"] mark.bad')
    expect(marked).to_have_text("+")
    expect(page.locator('input[name="SET"]')).to_have_attribute("aria-invalid", "true")
    console.shot("builder_syntax_error")

    # An error in the condition marks the condition.
    compose(page, SET="a = b", ConditionExpression="a = = b")
    expect(page.locator('[data-field="ConditionExpression"] mark.bad')).to_have_text("=")
    expect(page.locator('input[name="ConditionExpression"]')).to_have_attribute(
        "aria-invalid", "true")
    expect(error.locator(".error-message")).to_contain_text("Invalid ConditionExpression")

    compose(page, ConditionExpression="")
    expect(verdict).to_have_attribute("data-state", "valid")
    assert console.sent == [], "the builder sent a DynamoDB request while checking"


def test_the_builder_copies_the_request_as_code(console: Any) -> None:
    page = console.open("#/builder")
    compose(page, table="videos")
    code = page.locator(".codetabs pre")
    for tab, text in [
        ("boto3", "client.update_item("),
        ("AWS CLI", "aws dynamodb update-item"),
        ("JavaScript", "new UpdateItemCommand("),
        ("JSON", '"UpdateExpression": "ADD #n :one"'),
    ]:
        page.get_by_role("tab", name=tab).click()
        expect(code).to_contain_text(text)
    page.get_by_role("tab", name="AWS CLI").click()
    expect(code).to_contain_text("--update-expression 'ADD #n :one'")
    expect(code).to_contain_text("--condition-expression 'attribute_exists(#pk)'")

    console.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == code.inner_text()
    assert "\naws dynamodb update-item \\\n" in copied
    assert '--endpoint-url "${TALLYDB_ENDPOINT:-http://127.0.0.1:' in copied


def test_the_builder_sends_a_valid_update(console: Any) -> None:
    client = console.server.client()
    client.create_table(
        TableName="videos",
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    page = console.open("#/builder")
    compose(page, table="videos", ConditionExpression="attribute_not_exists(#pk)")
    expect(page.locator(".verdict")).to_have_attribute("data-state", "valid")
    page.get_by_role("button", name="Send").click()
    expect(page.locator('.sendresult dd[data-attribute="play_count"]')).to_have_text("1")
    assert console.operations() == ["UpdateItem"]
    key = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}
    item = client.get_item(TableName="videos", Key=key, ConsistentRead=True)["Item"]
    assert item["play_count"] == {"N": "1"}


def test_the_code_tabs_work_from_the_keyboard(console: Any) -> None:
    page = console.open("#/builder")
    page.get_by_role("tab", name="JSON").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="boto3")).to_be_focused()
    expect(page.get_by_role("tab", name="boto3")).to_have_attribute("aria-selected", "true")
    expect(page.locator(".codetabs pre")).to_contain_text("client.update_item(")
    page.keyboard.press("End")
    expect(page.get_by_role("tab", name="Java", exact=True)).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("tab", name="JSON")).to_be_focused()
