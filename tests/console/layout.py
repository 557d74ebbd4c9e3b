"""Checks of what the console lays out, read from the page's own geometry.

``broken_words(page)``: every place where a line of text wraps inside a
token, found character by character: a character that starts a new line
must follow a space, ``#``, ``/``, ``:``, ``,`` or ``-`` (or be a space).
Text in code blocks, text areas, select options and visually hidden labels
is not judged (it scrolls or is not shown as prose).

``clipped_selects(page)``: every shown drop-down too narrow to show the
option it has chosen, measured against a copy of it holding only that
option at its natural width.

``axe(page)``: axe-core (vendored under ``tests/console/vendor``) run on the
page as it is; its violations of impact serious or critical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

AXE = Path(__file__).resolve().parent / "vendor"

BROKEN_WORDS = r"""() => {
  const allowed = /[\s#/:,\-]/;
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.data;
    if (text.trim().length < 2) continue;
    const parent = node.parentElement;
    const skipped = "pre, textarea, script, style, option, select, .sr-only, [hidden]";
    if (!parent || parent.closest(skipped)) continue;
    let previous = null;
    for (let i = 0; i < text.length; i++) {
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rects = range.getClientRects();
      if (!rects.length || rects[0].width === 0) continue;
      const top = rects[0].top;
      const wrapped = previous !== null && top > previous + 2;
      if (wrapped && !allowed.test(text[i - 1]) && !/\s/.test(text[i])) {
        found.push(`${text.slice(Math.max(0, i - 16), i)}|${text.slice(i, i + 16)}`);
      }
      previous = top;
    }
  }
  return found;
}"""


def broken_words(page: Any) -> list[str]:
    """Each place a word wraps mid-token, as ``before|after`` text."""
    return list(page.evaluate(BROKEN_WORDS))


CLIPPED_SELECTS = r"""() => {
  const found = [];
  for (const select of document.querySelectorAll("select")) {
    const option = select.selectedOptions[0];
    if (!option || !select.offsetParent || select.closest("[hidden], .sr-only")) continue;
    const probe = select.cloneNode(false);
    probe.removeAttribute("id");
    probe.appendChild(option.cloneNode(true));
    probe.style.cssText = "position: absolute; visibility: hidden; width: auto; "
      + "min-width: 0; max-width: none; flex: none";
    select.parentElement.appendChild(probe);
    const needs = probe.getBoundingClientRect().width;
    probe.remove();
    const has = select.getBoundingClientRect().width;
    if (has + 0.5 < needs) {
      const name = select.getAttribute("aria-label") || select.name || select.id;
      const sizes = `${Math.round(has)}px of ${Math.round(needs)}px`;
      found.push(`${name} shows "${option.text}" in ${sizes}`);
    }
  }
  return found;
}"""


def clipped_selects(page: Any) -> list[str]:
    """Each drop-down that cannot show its chosen option whole."""
    return list(page.evaluate(CLIPPED_SELECTS))


def axe_source() -> str:
    files = sorted(AXE.glob("axe-core-*.js"))
    assert files, f"axe-core is not vendored under {AXE} (python scripts/vendor_js.py)"
    return files[-1].read_text()


def axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now
    (evaluated by the DevTools protocol, so the page's CSP still holds for
    the page's own scripts)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(axe_source())
    result = page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ["violations"]});
        return result.violations.filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5)
                .map(n => n.target.join(" ") + " :: " + n.failureSummary)}));
    }""")
    return list(result)


def describe(violations: list[dict[str, Any]]) -> str:
    return json.dumps(violations, indent=2)
