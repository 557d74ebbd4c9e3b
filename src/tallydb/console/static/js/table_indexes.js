// The Indexes tab: the table's indexes with their status and backfill, and
// UpdateTable's GlobalSecondaryIndexUpdates to create and delete a GSI.
import { useState } from "../vendor/htm-preact-3.1.1.js";
import { call } from "./api.js";
import { KeyInputs, blankKey, billing, throughputText } from "./tables.js";
import { CodeTabs, ErrorBox, Fit, html, useAction } from "./ui.js";
import { count } from "./values.js";

const PROJECTIONS = ["ALL", "KEYS_ONLY", "INCLUDE"];

/** The UpdateTable request that creates the GSI the form describes. */
function createRequest(t, form) {
  const keys = [[form.hash, "HASH"], [form.range, "RANGE"]].filter(([key]) => key.name);
  const projection = { ProjectionType: form.projection };
  if (form.projection === "INCLUDE") {
    projection.NonKeyAttributes = form.include.split(",").map((n) => n.trim()).filter(Boolean);
  }
  const create = {
    IndexName: form.name,
    KeySchema: keys.map(([key, KeyType]) => ({ AttributeName: key.name, KeyType })),
    Projection: projection,
  };
  if (billing(t) === "PROVISIONED") {
    create.ProvisionedThroughput = { ReadCapacityUnits: Number(form.rcu), WriteCapacityUnits: Number(form.wcu) };
  }
  return {
    TableName: t.TableName,
    AttributeDefinitions: keys.map(([key]) => ({ AttributeName: key.name, AttributeType: key.type })),
    GlobalSecondaryIndexUpdates: [{ Create: create }],
  };
}

/** "CREATING, backfilling" or "ACTIVE": an index's state as DescribeTable reports it. */
function status(index) {
  if (!index.IndexStatus) return "ACTIVE";
  return index.Backfilling ? `${index.IndexStatus}, backfilling` : index.IndexStatus;
}

function CreateIndex({ t, reload }) {
  const [form, setForm] = useState({ name: "", hash: blankKey(), range: blankKey(), projection: "ALL", include: "", rcu: 5, wcu: 5 });
  const [done, setDone] = useState("");
  const { busy, error, run } = useAction();
  const set = (patch) => setForm({ ...form, ...patch });
  const request = createRequest(t, form);
  const submit = (event) => {
    event.preventDefault();
    run(async () => {
      const answer = await call("UpdateTable", request);
      const index = (answer.TableDescription.GlobalSecondaryIndexes || []).find((i) => i.IndexName === form.name);
      setDone(`UpdateTable answered: ${form.name} is ${index ? status(index) : "being created"}.`);
      reload();
    });
  };
  return html`<form class="card create" onSubmit=${submit} aria-labelledby="create-gsi">
    <h2 id="create-gsi">Create a global secondary index</h2>
    <div class="row wrap">
      <label>Index name <input name="IndexName" required value=${form.name} onInput=${(e) => set({ name: e.target.value })} /></label>
      <${KeyInputs} label="Index partition key" value=${form.hash} onChange=${(hash) => set({ hash })} />
      <${KeyInputs} label="Index sort key" optional value=${form.range} onChange=${(range) => set({ range })} />
    </div>
    <div class="row wrap">
      <label>Projection <select name="ProjectionType" value=${form.projection} onChange=${(e) => set({ projection: e.target.value })}>
        ${PROJECTIONS.map((p) => html`<option value=${p}>${p}</option>`)}</select></label>
      ${form.projection === "INCLUDE" && html`<label class="grow">Also project <input name="NonKeyAttributes"
        placeholder="title, views" value=${form.include} onInput=${(e) => set({ include: e.target.value })} /></label>`}
      ${billing(t) === "PROVISIONED" && html`
        <label>Read units <input type="number" min="1" class="num" value=${form.rcu} onInput=${(e) => set({ rcu: e.target.value })} /></label>
        <label>Write units <input type="number" min="1" class="num" value=${form.wcu} onInput=${(e) => set({ wcu: e.target.value })} /></label>`}
      <span class="spacer"></span>
      <button type="submit" class="primary" disabled=${busy}>Create index</button>
    </div>
    ${done && html`<p class="notice" role="status">${done}</p>`}
    <${ErrorBox} error=${error} />
    <details><summary>As code</summary><${CodeTabs} operation="UpdateTable" request=${request} /></details>
  </form>`;
}

function DeleteIndex({ t, name, reload }) {
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction();
  const remove = () => run(async () => {
    await call("UpdateTable", { TableName: t.TableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: name } }] });
    setConfirming(false);
    reload();
  });
  return html`<span class="confirm">${confirming
    ? html`<button type="button" class="small danger" disabled=${busy} onClick=${remove}>Delete ${name}</button>
        <button type="button" class="small" onClick=${() => setConfirming(false)}>Keep it</button>`
    : html`<button type="button" class="small danger-outline" aria-label=${`Delete index ${name}`}
        onClick=${() => setConfirming(true)}>Delete…</button>`}<${ErrorBox} error=${error} /></span>`;
}

export function IndexesTab({ t, reload }) {
  const indexes = [...(t.GlobalSecondaryIndexes || []).map((i) => ["Global", i]),
    ...(t.LocalSecondaryIndexes || []).map((i) => ["Local", i])];
  return html`<section aria-label="Indexes">
    ${indexes.length === 0 ? html`<p class="empty">No indexes yet.</p>`
      : html`<div class="scroll"><table class="grid" aria-label="Indexes">
        <thead><tr><th>Name</th><th>Kind</th><th>Keys</th><th>Projection</th><th>Status</th>
          <th class="num">Items</th><th>Throughput</th><th><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>${indexes.map(([kind, i]) => html`<tr data-index=${i.IndexName}>
          <td><${Fit} text=${i.IndexName} /></td><td>${kind}</td>
          <td>${i.KeySchema.map((k) => `${k.AttributeName} (${k.KeyType})`).join(", ")}</td>
          <td>${i.Projection && i.Projection.ProjectionType}</td>
          <td class="indexstatus">${status(i)}</td>
          <td class="num">${count(i.ItemCount)}</td>
          <td>${throughputText(i.ProvisionedThroughput)}</td>
          <td class="actions">${kind === "Global" && html`<${DeleteIndex} t=${t} name=${i.IndexName} reload=${reload} />`}</td>
        </tr>`)}</tbody></table></div>`}
    <p class="hint">Local indexes are made with the table; global ones can be added and removed at any time
      (UpdateTable). A new index is backfilled from the table's items before it is ACTIVE.</p>
    <${CreateIndex} t=${t} reload=${reload} />
  </section>`;
}
