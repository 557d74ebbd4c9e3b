// Tables: the list (item count, size) and the create form; shared table pieces.
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import { STATUS_POLL_MS, call, changing, listTables } from "./api.js";
import * as live from "./live.js";
import { Breakable, CodeTabs, ErrorBox, Fit, Val, html, href, useAction } from "./ui.js";
import { bytes, count } from "./values.js";

export const KEY_TYPES = ["S", "N", "B"];
export const STREAM_VIEWS = ["NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY"];

// Counts follow commits within a second: a touched table is described again
// RELOAD_MS after the first commit that touched it (at most twice a second).
const RELOAD_MS = 400;

/** Re-run load() when a change touches one of these tables. */
export function useLiveReload(load, tables) {
  useEffect(() => {
    let timer = null;
    const due = () => {
      if (timer) return;
      timer = setTimeout(() => { timer = null; load(); }, RELOAD_MS);
    };
    const offChanges = live.on("changes", (changes) => {
      if (!tables || changes.some((c) => tables.includes(c.table))) due();
    });
    const offResync = live.on("resync", load);
    return () => { offChanges(); offResync(); clearTimeout(timer); };
  }, [tables && tables.join("\u0000")]);
}

export function TablesPage({ search = "" }) {
  const [tables, setTables] = useState(null);
  const [creating, setCreating] = useState(false);
  const { error, run } = useAction();
  const describe = (name) => call("DescribeTable", { TableName: name })
    .then((r) => r.Table, (e) => ({ TableName: name, error: e }));
  const load = () => run(async () => {
    setTables(await Promise.all((await listTables()).map(describe)));
  });
  useEffect(() => { load(); }, []);
  // A table CREATING, UPDATING or DELETING is looked at again until it is not.
  useEffect(() => {
    if (!tables || !tables.some(changing)) return undefined;
    const timer = setTimeout(load, STATUS_POLL_MS);
    return () => clearTimeout(timer);
  }, [tables]);
  // Re-describe only the tables a commit touched.
  useEffect(() => {
    const due = new Set();
    let timer = null;
    const flush = async () => {
      timer = null;
      const names = [...due];
      due.clear();
      const fresh = new Map((await Promise.all(names.map(describe))).map((t) => [t.TableName, t]));
      setTables((current) => current && current.map((t) => fresh.get(t.TableName) || t));
    };
    const offChanges = live.on("changes", (changes) => {
      for (const change of changes) due.add(change.table);
      if (!timer) timer = setTimeout(flush, RELOAD_MS);
    });
    const offResync = live.on("resync", load);
    return () => { offChanges(); offResync(); clearTimeout(timer); };
  }, []);
  return html`<section aria-labelledby="tables-title">
    <div class="heading">
      <h1 id="tables-title">Tables</h1>
      <button type="button" class="primary" onClick=${() => setCreating(!creating)}
        aria-expanded=${creating}>${creating ? "Close" : "Create table"}</button>
    </div>
    ${creating && html`<${CreateTable} onCreated=${(name) => { setCreating(false); location.hash = href("tables", name); }} />`}
    <${ErrorBox} error=${error} />
    ${search && html`<p class="notice" role="status">Tables whose name holds “${search}”. <a href="#/tables">Show all</a></p>`}
    ${tables === null ? html`<p class="muted">Loading…</p>`
      : tables.length === 0 ? html`<p class="empty">No tables yet. Create one to start counting.</p>`
      : html`<div class="scroll"><table class="grid" aria-label="Tables">
        <thead><tr><th>Name</th><th>Keys</th><th>Status</th><th>Billing</th>
          <th class="num">Items</th><th class="num">Size</th><th>Indexes</th></tr></thead>
        <tbody>${tables.filter((t) => t.TableName.toLowerCase().includes(search.toLowerCase())).map((t) => html`<tr key=${t.TableName} data-table=${t.TableName}>
          <td><a href=${href("tables", t.TableName, "items")}><${Breakable} text=${t.TableName} /></a></td>
          <td>${(t.KeySchema || []).map((k) => k.AttributeName).join(" / ")}</td>
          <td>${t.TableStatus || (t.error && t.error.type)}</td>
          <td><${Fit} text=${billing(t)} /></td>
          <td class="num"><${Val} text=${count(t.ItemCount)} /></td>
          <td class="num"><${Val} text=${bytes(t.TableSizeBytes)} /></td>
          <td>${indexNames(t).join(", ")}</td>
        </tr>`)}</tbody></table></div>`}
  </section>`;
}

export const billing = (t) => (t.BillingModeSummary ? t.BillingModeSummary.BillingMode
  : t.ProvisionedThroughput && t.ProvisionedThroughput.WriteCapacityUnits ? "PROVISIONED" : "PAY_PER_REQUEST");

export const indexNames = (t) => [...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])]
  .map((i) => i.IndexName);

export function KeyInputs({ label, value, onChange, optional }) {
  return html`<fieldset class="keyinputs">
    <legend>${label}${optional ? " (optional)" : ""}</legend>
    <input aria-label=${`${label} name`} placeholder="attribute name" value=${value.name}
      required=${!optional} onInput=${(e) => onChange({ ...value, name: e.target.value })} />
    <select aria-label=${`${label} type`} value=${value.type}
      onChange=${(e) => onChange({ ...value, type: e.target.value })}>
      ${KEY_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}
    </select>
  </fieldset>`;
}

export const blankKey = () => ({ name: "", type: "S" });

/** The CreateTable request the form describes. */
function createRequest(form) {
  const attributes = new Map();
  const keySchema = (hash, range) => {
    const schema = [{ AttributeName: hash.name, KeyType: "HASH" }];
    attributes.set(hash.name, hash.type);
    if (range.name) {
      schema.push({ AttributeName: range.name, KeyType: "RANGE" });
      attributes.set(range.name, range.type);
    }
    return schema;
  };
  const request = { TableName: form.name, KeySchema: keySchema(form.hash, form.range) };
  const provisioned = form.billing === "PROVISIONED";
  const throughput = () => ({ ReadCapacityUnits: Number(form.rcu), WriteCapacityUnits: Number(form.wcu) });
  const gsis = form.gsis.filter((g) => g.name && g.hash.name).map((g) => ({
    IndexName: g.name,
    KeySchema: keySchema(g.hash, g.range),
    Projection: { ProjectionType: "ALL" },
    ...(provisioned ? { ProvisionedThroughput: throughput() } : {}),
  }));
  const lsis = form.lsis.filter((l) => l.name && l.range.name).map((l) => ({
    IndexName: l.name,
    KeySchema: keySchema(form.hash, l.range),
    Projection: { ProjectionType: "ALL" },
  }));
  request.AttributeDefinitions = [...attributes].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }));
  request.BillingMode = form.billing;
  if (provisioned) request.ProvisionedThroughput = throughput();
  if (gsis.length) request.GlobalSecondaryIndexes = gsis;
  if (lsis.length) request.LocalSecondaryIndexes = lsis;
  if (form.stream) request.StreamSpecification = { StreamEnabled: true, StreamViewType: form.stream };
  return request;
}

function CreateTable({ onCreated }) {
  const [form, setForm] = useState({
    name: "", hash: blankKey(), range: blankKey(), billing: "PAY_PER_REQUEST",
    rcu: 5, wcu: 5, gsis: [], lsis: [], ttl: "", stream: "",
  });
  const { busy, error, run } = useAction();
  const set = (patch) => setForm({ ...form, ...patch });
  const setIn = (list, i, patch) => set({ [list]: form[list].map((x, j) => (j === i ? { ...x, ...patch } : x)) });
  const submit = (event) => {
    event.preventDefault();
    run(async () => {
      await call("CreateTable", createRequest(form));
      if (form.ttl.trim()) {
        await call("UpdateTimeToLive", {
          TableName: form.name,
          TimeToLiveSpecification: { Enabled: true, AttributeName: form.ttl.trim() },
        });
      }
      onCreated(form.name);
    });
  };
  return html`<form class="card create" onSubmit=${submit} aria-label="Create table">
    <label>Table name <input name="TableName" required value=${form.name}
      onInput=${(e) => set({ name: e.target.value })} /></label>
    <div class="row wrap">
      <${KeyInputs} label="Partition key" value=${form.hash} onChange=${(hash) => set({ hash })} />
      <${KeyInputs} label="Sort key" optional value=${form.range} onChange=${(range) => set({ range })} />
    </div>
    <div class="row wrap">
      <label>Billing mode <select name="BillingMode" value=${form.billing}
        onChange=${(e) => set({ billing: e.target.value })}>
        <option value="PAY_PER_REQUEST">On demand (PAY_PER_REQUEST)</option>
        <option value="PROVISIONED">Provisioned</option>
      </select></label>
      ${form.billing === "PROVISIONED" && html`
        <label>Read units <input type="number" min="1" class="num" value=${form.rcu} onInput=${(e) => set({ rcu: e.target.value })} /></label>
        <label>Write units <input type="number" min="1" class="num" value=${form.wcu} onInput=${(e) => set({ wcu: e.target.value })} /></label>`}
      <label>TTL attribute (optional) <input name="ttl" value=${form.ttl} placeholder="expires_at"
        onInput=${(e) => set({ ttl: e.target.value })} /></label>
      <label>Stream <select name="StreamViewType" value=${form.stream} onChange=${(e) => set({ stream: e.target.value })}>
        <option value="">off</option>
        ${STREAM_VIEWS.map((view) => html`<option value=${view}>${view}</option>`)}
      </select></label>
    </div>
    ${form.gsis.map((g, i) => html`<div class="row wrap index">
      <label>Global index name <input value=${g.name} onInput=${(e) => setIn("gsis", i, { name: e.target.value })} /></label>
      <${KeyInputs} label="Index partition key" value=${g.hash} onChange=${(hash) => setIn("gsis", i, { hash })} />
      <${KeyInputs} label="Index sort key" optional value=${g.range} onChange=${(range) => setIn("gsis", i, { range })} />
      <button type="button" class="small" onClick=${() => set({ gsis: form.gsis.filter((_, j) => j !== i) })}>Remove</button>
    </div>`)}
    ${form.lsis.map((l, i) => html`<div class="row wrap index">
      <label>Local index name <input value=${l.name} onInput=${(e) => setIn("lsis", i, { name: e.target.value })} /></label>
      <${KeyInputs} label="Index sort key" value=${l.range} onChange=${(range) => setIn("lsis", i, { range })} />
      <button type="button" class="small" onClick=${() => set({ lsis: form.lsis.filter((_, j) => j !== i) })}>Remove</button>
    </div>`)}
    <div class="row wrap">
      <button type="button" onClick=${() => set({ gsis: [...form.gsis, { name: "", hash: blankKey(), range: blankKey() }] })}>Add global index</button>
      <button type="button" onClick=${() => set({ lsis: [...form.lsis, { name: "", range: blankKey() }] })}>Add local index</button>
      <span class="spacer"></span>
      <button type="submit" class="primary" disabled=${busy}>Create</button>
    </div>
    <${ErrorBox} error=${error} />
    <details><summary>The request Create sends</summary>
      <${CodeTabs} operation="CreateTable" request=${createRequest(form)} /></details>
  </form>`;
}

export const throughputText = (p) => (p && (p.ReadCapacityUnits || p.WriteCapacityUnits)
  ? `${p.ReadCapacityUnits} read / ${p.WriteCapacityUnits} write units` : "on demand");

export function KeyTable({ schema, definitions }) {
  const typeOf = (name) => (definitions.find((d) => d.AttributeName === name) || {}).AttributeType;
  return html`<table class="grid compact" aria-label="Key schema">
    <thead><tr><th>Attribute</th><th>Role</th><th>Type</th></tr></thead>
    <tbody>${schema.map((k) => html`<tr><td>${k.AttributeName}</td>
      <td>${k.KeyType === "HASH" ? "partition key" : "sort key"}</td><td>${typeOf(k.AttributeName)}</td></tr>`)}</tbody>
  </table>`;
}
