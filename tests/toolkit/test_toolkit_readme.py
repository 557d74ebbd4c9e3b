"""The README's toolkit guide runs as written and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## The Python toolkit, from zero"
PRINTED = re.compile(r"^\s*print\(.*\)\s+# (.*)$")


def _blocks() -> list[str]:
    text = README.read_text()
    section = text[text.index(SECTION):]
    section = section[: section.index("\n## ", len(SECTION))]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_guide_prints_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = _blocks()
    assert len(blocks) == 6
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in blocks:
        expected = [m.group(1).strip() for line in block.splitlines()
                    if (m := PRINTED.match(line))]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(README), "exec", dont_inherit=True), namespace)
        assert out.getvalue().splitlines() == expected, block
