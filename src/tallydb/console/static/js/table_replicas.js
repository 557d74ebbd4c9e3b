// The Replicas tab: a global table's replicas (DescribeTable's Replicas), and
// UpdateTable's ReplicaUpdates to add a region or remove one.
import { useState } from "../vendor/htm-preact-3.1.1.js";
import { call } from "./api.js";
import { CodeTabs, ErrorBox, html, useAction } from "./ui.js";

export function ReplicasTab({ t, reload }) {
  const [region, setRegion] = useState("eu-west-1");
  const { busy, error, run } = useAction();
  const replicas = t.Replicas || [];
  const request = { TableName: t.TableName, ReplicaUpdates: [{ Create: { RegionName: region } }] };
  const send = (body) => run(async () => { await call("UpdateTable", body); reload(); });
  const submit = (event) => { event.preventDefault(); send(request); };
  return html`<section aria-label="Replicas">
    ${replicas.length === 0 ? html`<p class="empty">Not a global table: no replicas.</p>`
      : html`<div class="scroll"><table class="grid" aria-label="Replicas">
        <thead><tr><th>Region</th><th>Status</th><th><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>${replicas.map((r) => html`<tr key=${r.RegionName} data-region=${r.RegionName}>
          <td>${r.RegionName}</td><td>${r.ReplicaStatus}</td>
          <td class="actions"><button type="button" class="small danger-outline" aria-label=${`Remove replica ${r.RegionName}`}
            disabled=${busy} onClick=${() => send({ TableName: t.TableName, ReplicaUpdates: [{ Delete: { RegionName: r.RegionName } }] })}>Remove</button></td>
        </tr>`)}</tbody></table></div>`}
    <form class="card" onSubmit=${submit} aria-labelledby="replica-title">
      <h2 id="replica-title">Add a replica</h2>
      <p class="hint">The table becomes a global table (version 2019.11.21): every write is replicated to each
        region. An on-demand table only; a stream with new and old images is enabled if it has none. Needs a
        server started with --separate-regions (each region its own tables).</p>
      <div class="row wrap"><label>Region <input name="RegionName" required value=${region}
        onInput=${(e) => setRegion(e.target.value)} /></label>
        <button type="submit" class="primary" disabled=${busy}>Add replica</button></div>
      <${ErrorBox} error=${error} />
      <details><summary>As code</summary><${CodeTabs} operation="UpdateTable" request=${request} /></details>
    </form>
  </section>`;
}
