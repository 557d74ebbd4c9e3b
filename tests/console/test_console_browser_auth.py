"""The console with --credentials in Chromium: no key reads nothing, a
wrong key is named as such, a read-only key reads but cannot write."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect
from serverkit import Serve

pytestmark = pytest.mark.browser

ADMIN = ("AKIDADMIN", "admin-secret")
READER = ("AKIDREADER", "reader-secret")
TABLE = "videos"
KEY = {"PK": {"S": "VID#9f3a"}, "SK": {"S": "STATS#TOTAL"}}
CREDENTIALS = f"""
[keys.{ADMIN[0]}]
secret = "{ADMIN[1]}"

[keys.{READER[0]}]
secret = "{READER[1]}"
access = "read-only"
"""


@pytest.fixture(scope="module")
def locked_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    path: Path = tmp_path_factory.mktemp("credentials") / "credentials.toml"
    path.write_text(CREDENTIALS)
    server = Serve("--in-memory", "--credentials", str(path))
    try:
        server.start()
    except AssertionError as error:
        if "ACCESS_KEY:SECRET" in str(error):
            pytest.skip("this tallydb serve takes --credentials ACCESS_KEY:SECRET pairs; "
                        "read-only keys need --credentials FILE (TOML)")
        raise
    admin = server.client(*ADMIN)
    admin.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                   {"AttributeName": "SK", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                              {"AttributeName": "SK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    admin.put_item(TableName=TABLE, Item={**KEY, "play_count": {"N": "5"}})
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def locked(console_page_for: Any, locked_server: Serve) -> Any:
    return console_page_for(locked_server)


def give_key(page: Any, key: tuple[str, str]) -> None:
    page.get_by_label("Access key id").fill(key[0])
    page.get_by_label("Secret access key").fill(key[1])
    page.get_by_role("button", name="Use this key").click()


def play_count(server: Serve) -> str:
    item = server.client(*ADMIN).get_item(TableName=TABLE, Key=KEY, ConsistentRead=True)
    return str(item["Item"]["play_count"]["N"])


def test_without_a_key_the_page_reads_nothing(locked: Any) -> None:
    page = locked.open("#/tables")
    expect(page.get_by_role("heading", name="Access key")).to_be_visible()
    locked.shot("auth_key_form")
    assert locked.sent == [], "the page sent DynamoDB requests without a key"
    assert TABLE not in page.locator("main").inner_text()

    give_key(page, ("AKIDNOBODY", "guess"))
    banner = page.locator(".banner.error")
    expect(banner).to_contain_text("UnrecognizedClientException")
    expect(banner).to_contain_text("The server does not know this access key")
    expect(page.locator(f'tr[data-table="{TABLE}"]')).to_have_count(0)

    page.get_by_role("button", name="Change key").click()
    give_key(page, (ADMIN[0], "wrong-secret"))
    expect(page.locator(".banner.error")).to_contain_text("InvalidSignatureException")
    expect(page.locator(f'tr[data-table="{TABLE}"]')).to_have_count(0)


def test_a_read_only_key_reads_but_cannot_write(locked: Any) -> None:
    page = locked.open(f"#/tables/{TABLE}/item?key={quote(json.dumps(KEY))}")
    give_key(page, READER)
    value = page.locator('tr[data-attribute="play_count"] td.value')
    expect(value).to_have_text("5")
    expect(page.locator(".live.on")).to_be_visible()

    page.get_by_role("button", name="+1 play_count").click()
    expect(page.locator(".banner.error")).to_contain_text("AccessDeniedException")
    expect(page.locator(".banner.error")).to_contain_text("read-only")
    expect(page.locator(".outcome .error-type")).to_have_text("AccessDeniedException")
    locked.shot("auth_read_only_refused")
    assert play_count(locked.server) == "5"
    expect(value).to_have_text("5")


def test_a_read_write_key_writes(locked: Any) -> None:
    before = int(play_count(locked.server))
    page = locked.open(f"#/tables/{TABLE}/item?key={quote(json.dumps(KEY))}")
    give_key(page, ADMIN)
    expect(page.locator(".live.on")).to_be_visible()
    page.get_by_role("button", name="+1 play_count").click()
    expect(page.locator('tr[data-attribute="play_count"] td.value')).to_have_text(str(before + 1))
    assert play_count(locked.server) == str(before + 1)
