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
    console.shot("builder_syntax_error")

    compose(page, SET="a = b")
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
