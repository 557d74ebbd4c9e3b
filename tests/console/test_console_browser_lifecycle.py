"""The console with ``serve --table-delays``: a table CREATING is shown as
such and looked at again until it is ACTIVE; its items page waits for it
before it reads (a read of a table CREATING is ResourceNotFoundException)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from serverkit import Serve

pytestmark = pytest.mark.browser

#: Longer than any test: the table stays CREATING throughout.
FOREVER = "600000,0,0"
#: Short enough to wait out.
BRIEF = "1500,0,0"


def _serve(delays: str) -> Serve:
    return Serve("--in-memory", "--table-delays", delays).start()


@pytest.fixture(scope="module")
def creating_server() -> Iterator[Serve]:
    server = _serve(FOREVER)
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
def brief_server() -> Iterator[Serve]:
    server = _serve(BRIEF)
    try:
        yield server
    finally:
        server.kill()


def create(server: Serve, name: str) -> None:
    server.client().create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])


def described(console: Any, page: Any, times: int) -> None:
    """Wait (up to 60 s) until the page has sent DescribeTable ``times`` times."""
    for _ in range(600):
        if console.operations().count("DescribeTable") >= times:
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"DescribeTable sent {console.operations().count('DescribeTable')} "
                         f"times, not {times}")


def test_a_table_creating_is_shown_and_looked_at_again(
        console_page_for: Callable[[Serve], Any], creating_server: Serve) -> None:
    create(creating_server, "slow")
    console = console_page_for(creating_server)
    page = console.open("#/tables")
    row = page.locator('tr[data-table="slow"]')
    expect(row.locator("td").nth(2)).to_have_text("CREATING")
    described(console, page, 3)  # looked at again while it is CREATING
    # its items page waits, reading nothing and showing no error
    console.sent.clear()
    console.open("#/tables/slow/items")
    expect(page.get_by_role("status")).to_have_text(
        "The table is being created: its items can be read once it is ACTIVE.")
    expect(page.locator("dl.summary")).to_contain_text("CREATING")
    described(console, page, 3)
    assert "Scan" not in console.operations()
    assert page.locator(".error").count() == 0


def test_an_items_page_reads_once_the_table_is_active(
        console_page_for: Callable[[Serve], Any], brief_server: Serve) -> None:
    create(brief_server, "fresh")
    console = console_page_for(brief_server)
    page = console.open("#/tables/fresh/items")
    expect(page.get_by_text("No items on this page.")).to_be_visible(timeout=60_000)
    assert page.locator(".error").count() == 0
    operations = console.operations()
    assert operations.index("Scan") > operations.index("DescribeTable")
