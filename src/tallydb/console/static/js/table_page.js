// One table's page: a summary and a tab for each thing DynamoDB keeps per
// table, each reading and writing through the API calls a script would use.
import { useEffect, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { call } from "./api.js";
import { ItemsTab } from "./items.js";
import { MonitorTab } from "./monitor.js";
import { BackupsTab } from "./table_backups.js";
import { ExportsTab } from "./table_exports.js";
import { IndexesTab } from "./table_indexes.js";
import { InsightsTab } from "./table_insights.js";
import { ReplicasTab } from "./table_replicas.js";
import { SettingsTab, TtlTab } from "./table_settings.js";
import { StreamTab } from "./table_stream.js";
import { TagsTab } from "./table_tags.js";
import { billing, useLiveReload } from "./tables.js";
import { Breakable, ErrorBox, Fit, Val, html, href, useAction } from "./ui.js";
import { bytes, count } from "./values.js";

export const TABS = [
  ["items", "Items", ItemsTab],
  ["indexes", "Indexes", IndexesTab],
  ["stream", "Stream", StreamTab],
  ["ttl", "TTL", TtlTab],
  ["backups", "Backups", BackupsTab],
  ["exports", "Exports", ExportsTab],
  ["replicas", "Replicas", ReplicasTab],
  ["insights", "Insights", InsightsTab],
  ["tags", "Tags", TagsTab],
  ["settings", "Settings", SettingsTab],
  ["monitor", "Monitor", MonitorTab],
];

// While the table, an index or a replica is changing, DescribeTable is asked again this often.
const SETTLING_MS = 500;

// A table CREATING or DELETING answers no item operation (serve --table-delays,
// as DynamoDB): its tabs wait, the page describing it again until it is ACTIVE.
const PASSING = {
  CREATING: "The table is being created: its items can be read once it is ACTIVE.",
  DELETING: "The table is being deleted.",
};

const settling = (t) => t && (t.TableStatus !== "ACTIVE"
  || (t.GlobalSecondaryIndexes || []).some((i) => i.IndexStatus !== "ACTIVE" || i.Backfilling)
  || (t.Replicas || []).some((r) => r.ReplicaStatus !== "ACTIVE"));

/** DescribeTable, kept current: after each commit to the table, and while it settles. */
export function useTable(table) {
  const [t, setT] = useState(null);
  const { error, run } = useAction();
  const timer = useRef(null);
  const load = () => run(async () => {
    const described = (await call("DescribeTable", { TableName: table })).Table;
    setT(described);
    clearTimeout(timer.current);
    if (settling(described)) timer.current = setTimeout(load, SETTLING_MS);
  });
  useEffect(() => { setT(null); load(); return () => clearTimeout(timer.current); }, [table]);
  useLiveReload(load, [table]);
  return { t, error, reload: load };
}

function DeleteTable({ table, t }) {
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction();
  const remove = () => run(async () => {
    await call("DeleteTable", { TableName: table });
    location.hash = "#/tables";
  });
  return html`<span class="confirm">
    ${confirming
      ? html`Delete ${table} and every item in it?
          <button type="button" class="danger" disabled=${busy} onClick=${remove}>Delete table</button>
          <button type="button" onClick=${() => setConfirming(false)}>Keep it</button>`
      : html`<button type="button" class="danger-outline" disabled=${t && t.DeletionProtectionEnabled}
          title=${t && t.DeletionProtectionEnabled ? "Deletion protection is on (Settings)" : undefined}
          onClick=${() => setConfirming(true)}>Delete…</button>`}
    <${ErrorBox} error=${error} /></span>`;
}

export function TablePage({ table, tab = "items" }) {
  const { t, error, reload } = useTable(table);
  const [, , Tab] = TABS.find(([name]) => name === tab) || TABS[0];
  return html`<section aria-labelledby="table-title">
    <nav class="crumbs" aria-label="Breadcrumbs"><a href="#/tables">Tables</a> / <span><${Breakable} text=${table} /></span></nav>
    <div class="heading">
      <h1 id="table-title"><${Breakable} text=${table} /></h1>
      <${DeleteTable} table=${table} t=${t} />
    </div>
    <${ErrorBox} error=${error} />
    ${t && html`<dl class="facts summary">
      <div><dt>Status</dt><dd><${Fit} text=${t.TableStatus} /></dd></div>
      <div><dt>Items</dt><dd class="num"><${Val} text=${count(t.ItemCount)} /></dd></div>
      <div><dt>Size</dt><dd class="num"><${Val} text=${bytes(t.TableSizeBytes)} /></dd></div>
      <div><dt>Billing</dt><dd><${Fit} text=${billing(t)} /></dd></div>
      <div><dt>Stream</dt><dd><${Fit} text=${t.StreamSpecification && t.StreamSpecification.StreamEnabled
        ? t.StreamSpecification.StreamViewType : "off"} /></dd></div>
    </dl>`}
    <nav class="tablenav" aria-label="Table sections">
      ${TABS.map(([name, label]) => html`<a href=${href("tables", table, name)}
        class=${name === tab ? "tab active" : "tab"} aria-current=${name === tab ? "page" : undefined}>${label}</a>`)}
    </nav>
    ${t && (PASSING[t.TableStatus]
      ? html`<p class="muted" role="status">${PASSING[t.TableStatus]}</p>`
      : html`<${Tab} table=${table} t=${t} reload=${reload} />`)}
  </section>`;
}
