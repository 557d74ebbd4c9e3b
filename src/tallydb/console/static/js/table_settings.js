// The Settings tab (the table's facts, billing and throughput, deletion
// protection, table class, time to live) and the TTL tab, through
// UpdateTable and UpdateTimeToLive.
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import { call } from "./api.js";
import { KeyTable, billing, throughputText } from "./tables.js";
import { Breakable, CodeTabs, ErrorBox, Fit, html, useAction } from "./ui.js";

const CLASSES = ["STANDARD", "STANDARD_INFREQUENT_ACCESS"];

/** One setting: its form, the request it sends (as code) and its answer beside it. */
function Setting({ title, request, onSent, children, label }) {
  const { busy, error, run } = useAction();
  const [done, setDone] = useState("");
  const submit = (event) => {
    event.preventDefault();
    setDone("");
    run(async () => {
      const operation = request.TimeToLiveSpecification ? "UpdateTimeToLive" : "UpdateTable";
      await call(operation, request);
      setDone("Saved.");
      onSent();
    });
  };
  return html`<form class="card setting" onSubmit=${submit} aria-label=${title}>
    <h2>${title}</h2>
    <div class="row wrap">${children}
      <button type="submit" class="primary" disabled=${busy}>${label}</button>
      ${done && html`<span class="notice" role="status">${done}</span>`}</div>
    <${ErrorBox} error=${error} />
    <details><summary>As code</summary><${CodeTabs}
      operation=${request.TimeToLiveSpecification ? "UpdateTimeToLive" : "UpdateTable"} request=${request} /></details>
  </form>`;
}

/** Time to live: DescribeTimeToLive, and UpdateTimeToLive to turn it on or off. */
export function TtlPanel({ table }) {
  const [ttl, setTtl] = useState(null);
  const [attribute, setAttribute] = useState("expires_at");
  const { error, run } = useAction();
  const load = () => run(async () => {
    const answer = await call("DescribeTimeToLive", { TableName: table });
    setTtl(answer.TimeToLiveDescription);
    if (answer.TimeToLiveDescription.AttributeName) setAttribute(answer.TimeToLiveDescription.AttributeName);
  });
  useEffect(() => { load(); }, [table]);
  if (!ttl) return html`<${ErrorBox} error=${error} />`;
  const on = ttl.TimeToLiveStatus === "ENABLED" || ttl.TimeToLiveStatus === "ENABLING";
  const request = { TableName: table, TimeToLiveSpecification: { Enabled: !on, AttributeName: attribute } };
  return html`<${Setting} title="Time to live" label=${on ? "Turn off TTL" : "Turn on TTL"} request=${request} onSent=${load}>
    <p class="ttlstatus">${on ? html`On: items expire once their <code>${ttl.AttributeName}</code> (epoch seconds) has passed.`
      : "Off: no item expires."} <span class="muted">(${ttl.TimeToLiveStatus})</span></p>
    ${!on && html`<label>TTL attribute <input name="AttributeName" required value=${attribute}
      onInput=${(e) => setAttribute(e.target.value)} /></label>`}
  </${Setting}>`;
}

export function TtlTab({ table }) {
  return html`<section aria-label="Time to live"><${TtlPanel} table=${table} /></section>`;
}

function Billing({ t, reload }) {
  const [mode, setMode] = useState(billing(t));
  const [units, setUnits] = useState({ rcu: t.ProvisionedThroughput.ReadCapacityUnits || 5, wcu: t.ProvisionedThroughput.WriteCapacityUnits || 5 });
  const request = { TableName: t.TableName, BillingMode: mode };
  if (mode === "PROVISIONED") {
    request.ProvisionedThroughput = { ReadCapacityUnits: Number(units.rcu), WriteCapacityUnits: Number(units.wcu) };
    const gsis = t.GlobalSecondaryIndexes || [];
    if (billing(t) !== "PROVISIONED" && gsis.length) {
      request.GlobalSecondaryIndexUpdates = gsis.map((i) => ({
        Update: { IndexName: i.IndexName, ProvisionedThroughput: { ...request.ProvisionedThroughput } } }));
    }
  }
  return html`<${Setting} title="Billing and throughput" label="Save billing" request=${request} onSent=${reload}>
    <p>Now: <strong>${billing(t)}</strong>, ${throughputText(t.ProvisionedThroughput)}.</p>
    <label>Billing mode <select name="BillingMode" value=${mode} onChange=${(e) => setMode(e.target.value)}>
      <option value="PAY_PER_REQUEST">On demand (PAY_PER_REQUEST)</option><option value="PROVISIONED">Provisioned</option></select></label>
    ${mode === "PROVISIONED" && html`
      <label>Read units <input type="number" min="1" class="num" name="ReadCapacityUnits" value=${units.rcu}
        onInput=${(e) => setUnits({ ...units, rcu: e.target.value })} /></label>
      <label>Write units <input type="number" min="1" class="num" name="WriteCapacityUnits" value=${units.wcu}
        onInput=${(e) => setUnits({ ...units, wcu: e.target.value })} /></label>`}
  </${Setting}>`;
}

function Protection({ t, reload }) {
  const on = Boolean(t.DeletionProtectionEnabled);
  return html`<${Setting} title="Deletion protection" label=${on ? "Turn off deletion protection" : "Turn on deletion protection"}
    request=${{ TableName: t.TableName, DeletionProtectionEnabled: !on }} onSent=${reload}>
    <p>${on ? "On: DeleteTable is refused until it is turned off." : "Off: the table can be deleted."}</p>
  </${Setting}>`;
}

function TableClass({ t, reload }) {
  const now = (t.TableClassSummary && t.TableClassSummary.TableClass) || "STANDARD";
  const [chosen, setChosen] = useState(now);
  return html`<${Setting} title="Table class" label="Save table class"
    request=${{ TableName: t.TableName, TableClass: chosen }} onSent=${reload}>
    <label>Table class <select name="TableClass" value=${chosen} onChange=${(e) => setChosen(e.target.value)}>
      ${CLASSES.map((c) => html`<option value=${c}>${c}</option>`)}</select></label>
  </${Setting}>`;
}

export function SettingsTab({ table, t, reload }) {
  return html`<section aria-label="Settings">
    <dl class="facts">
      <div class="wide"><dt>ARN</dt><dd><${Breakable} text=${t.TableArn} /></dd></div>
      <div><dt>Table id</dt><dd><${Fit} text=${t.TableId} /></dd></div>
      <div><dt>Created</dt><dd>${t.CreationDateTime ? new Date(t.CreationDateTime * 1000).toLocaleString() : ""}</dd></div>
      <div><dt>Throughput</dt><dd>${throughputText(t.ProvisionedThroughput)}</dd></div>
    </dl>
    <h2>Keys</h2>
    <${KeyTable} schema=${t.KeySchema} definitions=${t.AttributeDefinitions} />
    <${Billing} t=${t} reload=${reload} />
    <${TtlPanel} table=${table} />
    <${Protection} t=${t} reload=${reload} />
    <${TableClass} t=${t} reload=${reload} />
  </section>`;
}
