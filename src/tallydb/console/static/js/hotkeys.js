// Hot keys: the busiest items by writes/s over the last minute, a sparkline
// each, throttled keys marked (with --emulate-limits). Fed by the live stream.
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import * as live from "./live.js";
import { Val, html, href } from "./ui.js";
import { keyText } from "./values.js";

const itemLink = (entry) => `${href("tables", entry.table, "item")}?key=${encodeURIComponent(JSON.stringify(entry.keys))}`;

export function HotKeysPage() {
  const [frame, setFrame] = useState(null);
  useEffect(() => live.on("hotkeys", setFrame), []);
  const keys = frame ? frame.keys : [];
  const scale = Math.max(1, ...keys.flatMap((entry) => entry.spark));
  return html`<section aria-labelledby="hot-title">
    <h1 id="hot-title">Hot keys</h1>
    <p class="muted">The busiest items by writes a second over the last ${frame ? frame.window : 60} seconds,
      as CloudWatch Contributor Insights shows them for DynamoDB. Updated every second.</p>
    ${frame === null ? html`<p class="muted">Waiting for the first report…</p>`
      : keys.length === 0 ? html`<p class="empty">No writes in the last ${frame.window} seconds.</p>`
      : html`<div class="scroll"><table class="grid hotkeys" aria-label="Hot keys">
        <thead><tr><th class="num">#</th><th>Table</th><th>Key</th><th class="num">Writes/s</th>
          <th class="num">Writes</th><th>Last ${frame.window} s</th><th class="num">Throttled</th></tr></thead>
        <tbody>${keys.map((entry, i) => html`<tr key=${entry.table + JSON.stringify(entry.keys)}
            class=${entry.throttled ? "throttled" : ""}>
          <td class="num">${i + 1}</td>
          <td>${entry.table}</td>
          <td class="hotkey"><a href=${itemLink(entry)}>${keyText(entry.keys)}</a></td>
          <td class="num"><${Val} text=${entry.rate.toFixed(1)} /></td>
          <td class="num">${entry.writes.toLocaleString("en-US")}</td>
          <td><tally-sparkline scale=${scale} values=${entry.spark}></tally-sparkline></td>
          <td class="num">${entry.throttled ? html`<span class="badge warn" title="throttled requests in the window">${entry.throttled} throttled</span>` : "0"}</td>
        </tr>`)}</tbody></table></div>`}
  </section>`;
}
