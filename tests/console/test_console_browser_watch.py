"""A counter you can watch, in Chromium: the chart follows increments by
another process to the exact value, the counters view names the busiest
attribute, the Monitor tab shows what the server answered, and throttles
are marked under --emulate-limits."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect
from serverkit import Serve

pytestmark = pytest.mark.browser

KEY = {"PK": {"S": "VID#9f3a"}}


def make_table(client: Any) -> str:
    name = f"watch_{uuid.uuid4().hex[:8]}"
    client.create_table(
        TableName=name, KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST")
    return name


def increments(url: str, table: str, n: int, padding: int = 0) -> str:
    """Run ``n`` ADD plays :one from another process (one attempt each); its output."""
    script = textwrap.dedent(f"""
        import boto3
        from botocore.config import Config
        from botocore.exceptions import ClientError
        client = boto3.client("dynamodb", endpoint_url={url!r}, region_name="us-east-1",
                              aws_access_key_id="x", aws_secret_access_key="y",
                              config=Config(retries={{"total_max_attempts": 1}}))
        refused = 0
        for _ in range({n}):
            try:
                client.update_item(
                    TableName={table!r}, Key={KEY!r},
                    UpdateExpression="ADD plays :one SET #pad = :pad",
                    ExpressionAttributeNames={{"#pad": "pad"}},
                    ExpressionAttributeValues={{":one": {{"N": "1"}},
                                               ":pad": {{"S": "x" * {padding} + "."}}}})
            except ClientError as error:
                refused += 1
        print(refused)
    """)
    done = subprocess.run([sys.executable, "-c", script], check=True, timeout=120,
                          capture_output=True, text=True)
    return done.stdout.strip()


def chart_fragment(table: str) -> str:
    return f"#/tables/{table}/item?key={quote(json.dumps(KEY))}&watch=plays"


def test_the_chart_follows_200_increments_to_the_exact_value(console: Any) -> None:
    client = console.server.client()
    table = make_table(client)
    client.put_item(TableName=table, Item={**KEY, "plays": {"N": "0"}})
    page = console.open(chart_fragment(table))
    chart = page.locator(".counterchart")
    expect(chart.locator("[data-value]")).to_have_text("0")
    expect(page.locator(".live.on")).to_be_visible()
    assert increments(console.server.url, table, 200) == "0"
    expect(chart.locator("[data-value]")).to_have_text("200")
    expect(chart).to_have_attribute("data-last", "200")
    expect(chart.get_by_role("img")).to_have_attribute(
        "aria-label", "plays over the last 5 minutes: 200 now, 0.0 a second", timeout=15_000)
    console.shot("counter_chart", full_page=False)

    page.get_by_role("link", name="Counters").click()
    row = page.locator('table.counters tr[data-attribute="plays"]')
    expect(row).to_contain_text(table)
    expect(row.locator("td.num").first).to_have_text("200")
    console.shot("counters")
    row.get_by_role("link").click()
    expect(page.locator(".counterchart [data-value]")).to_have_text("200")


def test_the_monitor_tab_shows_requests_units_and_latency(console: Any) -> None:
    client = console.server.client()
    table = make_table(client)
    page = console.open(f"#/tables/{table}/monitor")
    expect(page.locator(".live.on")).to_be_visible()
    assert increments(console.server.url, table, 50) == "0"
    expect(page.locator("figcaption").first).to_contain_text("UpdateItem 50", timeout=15_000)
    expect(page.locator('[data-minute="write"]')).to_have_text("50.0")
    expect(page.locator("figcaption").nth(3)).to_contain_text("p50")
    console.shot("tab_monitor")


@pytest.fixture(scope="module")
def limited() -> Iterator[Serve]:
    server = Serve("--in-memory", "--emulate-limits").start()
    try:
        yield server
    finally:
        server.kill()


def test_throttles_are_marked_on_the_chart_and_counted(console_page_for: Any,
                                                       limited: Serve) -> None:
    console = console_page_for(limited)
    client = limited.client()
    table = make_table(client)
    client.put_item(TableName=table, Item={**KEY, "plays": {"N": "0"}})
    page = console.open(chart_fragment(table))
    expect(page.locator(".live.on")).to_be_visible()
    # 200 KB a write: about 200 write units, so a partition's 1,000 a second is met at
    # five writes a second, which one client meets even on a busy machine
    refused = int(increments(limited.url, table, 100, padding=200_000))
    assert refused > 0, "the partition was never throttled"
    chart = page.locator(".counterchart")
    expect(chart.locator("[data-throttled]")).to_be_visible(timeout=15_000)
    expect(chart.locator("[data-value]")).to_have_text(str(100 - refused))
    console.shot("counter_chart_throttled", full_page=False)
    page.goto(f"{limited.url}/console/#/tables/{table}/monitor")
    expect(page.locator('[data-minute="throttled"]')).to_have_text(str(refused), timeout=15_000)


@pytest.mark.parametrize("seconds", [3, 4, 9, 300])
def test_the_time_axis_labels_each_second_once(console: Any, seconds: int) -> None:
    # A chart a few seconds wide on a wide page: uPlot would put ticks half a
    # second apart, each second's label printed twice.
    page = console.open("#/tables")
    labels = page.evaluate("""async (seconds) => {
        const { TIME_AXIS } = await import("/console/static/js/chart.js");
        const { default: uPlot } = await import("/console/static/vendor/uplot-1.6.32/uPlot.esm.js");
        const start = 1764300000;
        const xs = Array.from({ length: seconds + 1 }, (_, i) => start + i);
        let shown = [];
        const axis = { ...TIME_AXIS, values: (u, ticks, ...rest) => {
            shown = TIME_AXIS.values(u, ticks, ...rest);
            return shown;
        } };
        const box = document.createElement("div");
        document.body.append(box);
        const plot = new uPlot({ width: 1200, height: 200, series: [{}, { label: "n" }],
                                 scales: { x: { time: true } }, axes: [axis, {}] },
                               [xs, xs.map((_, i) => i)], box);
        await new Promise((drawn) => requestAnimationFrame(() => drawn()));
        plot.destroy();
        box.remove();
        return shown;
    }""", seconds)
    assert len(labels) >= 2, labels
    assert len(set(labels)) == len(labels), labels


def test_the_rate_is_drawn_for_whole_seconds_only(console: Any) -> None:
    # 10 commits a second for three seconds, then 2 in the first 0.2 s of the
    # second still running: its rate is not drawn as a fall to 2.
    page = console.open("#/tables")
    xs, values, rates = page.evaluate("""async () => {
        const { series } = await import("/console/static/js/counter_chart.js");
        const start = 1764300000;
        const points = [];
        for (let i = 0; i <= 30; i++) points.push([start + i / 10, i * 10]);
        points.push([start + 3.05, 310], [start + 3.1, 320]);
        const [xs, values, rates] = series(points, new Map(), start + 3.2);
        return [xs.map((x) => x - start), values, rates];
    }""")
    assert xs == [0, 1, 2, 3]
    assert values == [90, 190, 290, 320]
    assert rates == [None, 100, 100, None]
