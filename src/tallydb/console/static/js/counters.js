// Counters: the numeric attributes that moved most over the last minute, with
// their rates, from the live feed; each opens its item with the counter chart.
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import * as live from "./live.js";
import { Breakable, Val, html, href } from "./ui.js";
import { keyText } from "./values.js";

const chartLink = (entry) => `${href("tables", entry.table, "item")}?key=${encodeURIComponent(JSON.stringify(entry.keys))}&watch=${encodeURIComponent(entry.attribute)}`;

export function CountersPage() {
  const [frame, setFrame] = useState(live.state.counters);
  useEffect(() => live.on("counters", setFrame), []);
  const counters = frame ? frame.counters : [];
  return html`<section aria-labelledby="counters-title">
    <h1 id="counters-title">Counters</h1>
    <p class="muted">The numeric attributes that changed most over the last ${frame ? frame.window : 60} seconds,
      by any client, with their rate (net change a second). Open one to watch it live.</p>
    ${frame === null ? html`<p class="muted">Waiting for the first report…</p>`
      : counters.length === 0 ? html`<p class="empty">No number changed in the last ${frame.window} seconds.</p>`
      : html`<div class="scroll"><table class="grid counters" aria-label="Counters">
        <thead><tr><th>Table</th><th>Item</th><th>Attribute</th><th class="num">Value</th>
          <th class="num">A second</th><th class="num">Commits</th></tr></thead>
        <tbody>${counters.map((c) => html`<tr key=${c.table + JSON.stringify(c.keys) + c.attribute}
            data-attribute=${c.attribute}>
          <td>${c.table}</td>
          <td class="hotkey"><a href=${chartLink(c)}><${Breakable} text=${keyText(c.keys)} /></a></td>
          <td>${c.attribute}</td>
          <td class="num"><${Val} text=${c.value} title=${c.value} /></td>
          <td class="num"><${Val} text=${c.rate.toFixed(2)} /></td>
          <td class="num">${c.commits.toLocaleString("en-US")}</td>
        </tr>`)}</tbody></table></div>`}
  </section>`;
}
