"""Fixtures for the console's tests.

The console is tested in a real Chromium (Debian's ``/usr/bin/chromium``,
driven by Python Playwright; no browser is ever downloaded) against the real
``python -m tallydb serve`` on a free loopback port.

Markers
-------
``browser``            the test drives Chromium; skipped, with the reason, when
                       playwright or /usr/bin/chromium is missing.

Fixtures
--------
``console_server``     one ``tallydb serve --in-memory`` per test module
                       (a :class:`Serve`); ``.url``, ``.client()``.
``chromium``           the worker's Chromium (a Playwright ``Browser``).
``console``            a fresh page (own context, 1280x800) with helpers:
                       ``console.open("#/tables")``, ``console.page``,
                       ``console.shot("name")`` (to build/screenshots/),
                       ``console.sent`` (each DynamoDB operation the page sent,
                       with its body) and ``console.operations()``; fails
                       the test on an uncaught error in the page or a Content
                       Security Policy violation.
``console_page_for``   factory: ``console_page_for(server)`` for a test that
                       starts its own server (other flags).
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))

from serverkit import Serve

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
# How long the page may take to show something (a live change is due within 1 s).
WAIT_MS = 5_000


def _missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "needs Python playwright (pip install -e '.[test]')"
    if not os.access(CHROMIUM, os.X_OK):
        return f"needs Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives /usr/bin/chromium through playwright"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = _missing()
    if reason is None or os.environ.get("CI"):  # .ci/run installs Chromium: must-run tests
        return
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="module")
def console_server() -> Iterator[Serve]:
    server = Serve("--in-memory").start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Chromium, for one module: Playwright's sync API keeps an event loop
    running in this thread while it is started, which would break any later
    test of the same worker that calls ``asyncio.run()``."""
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Console:
    """One browser tab on one server's console."""

    def __init__(self, browser: Any, server: Serve, name: str) -> None:
        self.server = server
        self.name = name
        self.context = browser.new_context(viewport={"width": 1280, "height": 800})
        self.context.set_default_timeout(WAIT_MS)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", self._console)
        self.page.on("request", self._record)

    def _console(self, message: Any) -> None:
        # The page must work under the server's CSP: no inline code, no other origins.
        if "Content Security Policy" in message.text:
            self.errors.append(message.text)

    def _record(self, request: Any) -> None:
        target = request.headers.get("x-amz-target")
        if request.method == "POST" and target:
            body = request.post_data_json or {}
            self.sent.append((target.split(".", 1)[1], body))

    def operations(self) -> list[str]:
        """The DynamoDB operations the page has sent, in order."""
        return [operation for operation, _ in self.sent]

    def open(self, fragment: str = "#/tables") -> Any:
        self.page.goto(f"{self.server.url}/console{fragment}")
        return self.page

    def shot(self, name: str | None = None, full_page: bool = True) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name or self.name}.png"
        self.page.screenshot(path=str(path), full_page=full_page, timeout=20_000)
        return path

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def console_page_for(
    chromium: Any, request: pytest.FixtureRequest
) -> Iterator[Callable[[Serve], Console]]:
    opened: list[Console] = []
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)

    def open_for(server: Serve) -> Console:
        console = Console(chromium, server, name if not opened else f"{name}_{len(opened)}")
        opened.append(console)
        return console

    yield open_for
    for console in opened:
        errors = list(console.errors)
        console.close()
        assert not errors, f"uncaught errors in the page: {errors}"


@pytest.fixture
def console(console_page_for: Callable[[Serve], Console], console_server: Serve) -> Console:
    return console_page_for(console_server)
