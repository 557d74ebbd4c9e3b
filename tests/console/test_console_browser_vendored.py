"""The third-party modules the browser loads (and the browser tests'
axe-core) are exactly the ones scripts/vendor_js.py recorded (version,
sha256), each with its licence."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "src" / "tallydb" / "console" / "static"
VENDOR = STATIC / "vendor"
TEST_VENDOR = Path(__file__).resolve().parent / "vendor"


def recorded(folder: Path) -> list[dict[str, object]]:
    return list(json.loads((folder / "VENDORED.json").read_text()))


@pytest.mark.parametrize("folder", [VENDOR, TEST_VENDOR], ids=["page", "tests"])
def test_every_vendored_file_matches_its_recorded_sha256(folder: Path) -> None:
    listed: set[str] = set()
    for record in recorded(folder):
        files = record["files"]
        assert isinstance(files, dict)
        assert any(name.startswith("LICENSES/") for name in files), record["package"]
        for name, digest in files.items():
            assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
            listed.add(name)
    on_disk = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}
    assert on_disk - {"VENDORED.json"} == listed


def test_the_page_imports_only_vendored_files_that_exist() -> None:
    imports = re.compile(r"""from\s+["'](\.{1,2}/[^"']+)["']""")
    for module in (STATIC / "js").glob("*.js"):
        for target in imports.findall(module.read_text()):
            path = (module.parent / target).resolve()
            assert path.is_file(), f"{module.name} imports missing {target}"
            assert path.is_relative_to(STATIC), f"{module.name} imports outside static/"
