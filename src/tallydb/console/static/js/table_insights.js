// The Insights tab: contributor insights of the table and of each global
// index (DescribeContributorInsights, UpdateContributorInsights), and the
// most accessed keys of the last minute from /console/api/contributor-insights.
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import { call, send } from "./api.js";
import { ErrorBox, Fit, html, useAction } from "./ui.js";
import { keyText } from "./values.js";

const EVERY_MS = 2000;

async function topKeys(table, index) {
  const url = new URL("/console/api/contributor-insights", location.href);
  url.searchParams.set("TableName", table);
  if (index) url.searchParams.set("IndexName", index);
  url.searchParams.set("Limit", "10");
  const response = await send(url.href);
  return response.ok ? response.json() : null;
}

function Insights({ table, index }) {
  const [described, setDescribed] = useState(null);
  const [top, setTop] = useState(null);
  const { busy, error, run } = useAction();
  const request = { TableName: table, ...(index ? { IndexName: index } : {}) };
  const load = () => run(async () => setDescribed(await call("DescribeContributorInsights", request)));
  useEffect(() => { load(); }, [table, index]);
  const enabled = described && described.ContributorInsightsStatus === "ENABLED";
  useEffect(() => {
    if (!enabled) { setTop(null); return undefined; }
    let stopped = false;
    const poll = async () => { const found = await topKeys(table, index).catch(() => null); if (!stopped) setTop(found); };
    poll();
    const timer = setInterval(poll, EVERY_MS);
    return () => { stopped = true; clearInterval(timer); };
  }, [enabled, table, index]);
  const flip = () => run(async () => {
    await call("UpdateContributorInsights", { ...request, ContributorInsightsAction: enabled ? "DISABLE" : "ENABLE" });
    await load();
  });
  const name = index ? `Index ${index}` : "Table";
  const keys = top ? top.TopKeys : [];
  return html`<section class="card" aria-label=${`Contributor insights: ${name}`} data-insights=${index || ""}>
    <div class="heading"><h2>${name}</h2>
      <span>${described && html`<${Fit} text=${described.ContributorInsightsStatus} />`}
        <button type="button" disabled=${busy || !described} onClick=${flip}>${enabled ? "Disable" : "Enable"}</button></span></div>
    <${ErrorBox} error=${error} />
    ${enabled && (keys.length === 0 ? html`<p class="empty">No accesses in the last minute.</p>`
      : html`<div class="scroll"><table class="grid" aria-label=${`Most accessed keys: ${name}`}>
        <thead><tr><th class="num">#</th><th>Key</th><th class="num">Accesses</th><th class="num">Per second</th><th class="num">Throttled</th></tr></thead>
        <tbody>${keys.map((entry, i) => html`<tr key=${JSON.stringify(entry.keys)}>
          <td class="num">${i + 1}</td><td class="hotkey">${keyText(entry.keys)}</td>
          <td class="num">${entry.accesses.toLocaleString("en-US")}</td>
          <td class="num">${entry.rate.toFixed(1)}</td><td class="num">${entry.throttled}</td></tr>`)}</tbody></table></div>`)}
  </section>`;
}

export function InsightsTab({ table, t }) {
  const indexes = (t.GlobalSecondaryIndexes || []).map((i) => i.IndexName);
  return html`<section aria-label="Contributor insights">
    <p class="muted">The most accessed keys of the last minute, as CloudWatch Contributor Insights shows them for DynamoDB.</p>
    <${Insights} table=${table} index=${null} />
    ${indexes.map((index) => html`<${Insights} key=${index} table=${table} index=${index} />`)}
  </section>`;
}
