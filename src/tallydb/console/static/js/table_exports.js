// The Exports tab: ExportTableToPointInTime to a bucket (a directory of the
// server's object store, or S3), in DynamoDB's export layout, and
// ListExports with each export's progress.
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import { call } from "./api.js";
import { CodeTabs, ErrorBox, Fit, html, useAction } from "./ui.js";

const POLL_MS = 1000; // while an export is in progress

export function ExportsTab({ t }) {
  const [exports, setExports] = useState(null);
  const [form, setForm] = useState({ bucket: "exports", prefix: t.TableName, format: "DYNAMODB_JSON" });
  const list = useAction();
  const start = useAction();
  const load = () => list.run(async () => {
    const found = [];
    let token;
    do {
      const page = await call("ListExports", { TableArn: t.TableArn, ...(token ? { NextToken: token } : {}) });
      found.push(...(page.ExportSummaries || []));
      token = page.NextToken;
    } while (token);
    setExports(found);
  });
  useEffect(() => { load(); }, [t.TableArn]);
  const busy = exports && exports.some((e) => e.ExportStatus === "IN_PROGRESS");
  useEffect(() => {
    if (!busy) return undefined;
    const timer = setTimeout(load, POLL_MS);
    return () => clearTimeout(timer);
  }, [exports]);
  const request = { TableArn: t.TableArn, S3Bucket: form.bucket, S3Prefix: form.prefix, ExportFormat: form.format };
  const submit = (event) => {
    event.preventDefault();
    start.run(async () => { await call("ExportTableToPointInTime", request); await load(); });
  };
  const set = (patch) => setForm({ ...form, ...patch });
  return html`<section aria-label="Exports">
    <form class="card" onSubmit=${submit} aria-labelledby="export-title">
      <h2 id="export-title">Export to a bucket</h2>
      <p class="hint">A full export of the table as it is now, in DynamoDB's layout; it needs point-in-time
        recovery on (Backups tab).</p>
      <div class="row wrap">
        <label>Bucket <input name="S3Bucket" required value=${form.bucket} onInput=${(e) => set({ bucket: e.target.value })} /></label>
        <label class="grow">Prefix <input name="S3Prefix" value=${form.prefix} onInput=${(e) => set({ prefix: e.target.value })} /></label>
        <label>Format <select name="ExportFormat" value=${form.format} onChange=${(e) => set({ format: e.target.value })}>
          <option value="DYNAMODB_JSON">DynamoDB JSON</option><option value="ION">Amazon Ion</option></select></label>
        <button type="submit" class="primary" disabled=${start.busy}>Export</button>
      </div>
      <${ErrorBox} error=${start.error} />
      <details><summary>As code</summary><${CodeTabs} operation="ExportTableToPointInTime" request=${request} /></details>
    </form>
    <${ErrorBox} error=${list.error} />
    ${exports && (exports.length === 0 ? html`<p class="empty">No exports of this table.</p>`
      : html`<div class="scroll"><table class="grid" aria-label="Exports">
        <thead><tr><th>Export</th><th>Type</th><th>Status</th></tr></thead>
        <tbody>${exports.map((e) => html`<tr key=${e.ExportArn} data-status=${e.ExportStatus}>
          <td><${Fit} text=${e.ExportArn.split("/").pop()} /></td><td>${e.ExportType || "FULL_EXPORT"}</td>
          <td>${e.ExportStatus}</td></tr>`)}</tbody></table></div>`)}
  </section>`;
}
