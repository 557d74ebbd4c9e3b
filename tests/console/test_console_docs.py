"""docs/console.md shows a screenshot of each tab a table's page has (the
journey test takes them, build/screenshots/journey_<tab>.png, but for the
exports and replicas tabs, which the table tabs' test takes:
build/screenshots/tab_<tab>.png), and each picture it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "console.md"
TABS_SOURCE = ROOT / "src" / "tallydb" / "console" / "static" / "js" / "table_page.js"


def tabs() -> list[str]:
    block = TABS_SOURCE.read_text().split("export const TABS = [", 1)[1].split("];", 1)[0]
    return re.findall(r'\[\s*"(\w+)",', block)


def test_every_tab_has_its_screenshot_in_the_docs() -> None:
    text = DOC.read_text()
    pictures = re.findall(r"!\[[^\]]*\]\((images/[^)]+)\)", text)
    assert tabs(), "no tabs found in table_page.js"
    for tab in tabs():
        assert f"images/console-{tab}.png" in pictures, f"docs/console.md shows no {tab} tab"
    for picture in pictures:
        assert (DOC.parent / picture).is_file(), picture
